"""Tests for the Puerto Rico agents: legality over whole games, determinism, strength
against ``random``, the two scripted strategies' different play, MCTS's chance handling
(it never sees the face-down plantation order) and the registry's errors and descriptions.

The strength checks play the seeded series of ``agents.strength`` (a first
place shared by k seats counts 1/k), the games behind the figures of
``docs/puerto_rico_agents.md``.
"""

from __future__ import annotations

from collections import Counter

import numpy as np
import pytest

from agents import registry
from agents.base import Agent
from agents.random_agent import RandomAgent
from agents.strength import play_seat, series, win_share
from caylus_env.core.registry import game_spec
from caylus_env.puerto_rico.bots.mcts import MAX_SIMS, ROLLOUTS, MCTSAgent
from caylus_env.puerto_rico.bots.scripted import STRATEGIES, ScriptedAgent
from caylus_env.puerto_rico.engine import Game, GameConfig
from caylus_env.puerto_rico.engine import kernels as K
from caylus_env.puerto_rico.engine import layout as L
from caylus_env.puerto_rico.engine.constants import (
    DRAFT_MODES,
    MAX_PLAYERS,
    MIN_PLAYERS,
    DecisionKind,
)

PR = "puerto_rico"


def make_agent(spec: str) -> Agent:
    """A Puerto Rico agent of the one registry (``agents.registry``)."""
    return registry.make_agent(spec, PR)


OPTION_SETS = game_spec(PR).option_sets
"""The named option sets the strength sweep runs (the rules as printed, the expansion...)."""
BOTS = tuple(STRATEGIES)  # shipper, builder
MCTS_SPEC = "mcts:4"  # enough to exercise selection, expansion and rollouts in whole games
SPECS = ("random", *BOTS, MCTS_SPEC)
PLAYER_COUNTS = tuple(range(MIN_PLAYERS, MAX_PLAYERS + 1))
CONFIGS = {
    "base": {},
    **{f"expansion-{mode}-draft": {"expansion": True, "draft": mode} for mode in DRAFT_MODES},
}
QUICK_GAMES = 60  # per bot and player count in the default suite
QUICK_THRESHOLD = 0.85  # conservative: a working bot wins ~100%, a broken one far less
SWEEP_GAMES = 400  # per bot, player count and expansion setting in the slow sweep
REQUIRED_RATE = 0.95  # the bar against random
# buildings that only serve one strategy: shipping (rules 4.6, 4.7) and trading/building
# (rules 4.5, 2.5); each bot must build its own kind more often than the other bot does
SHIPPING_BUILDINGS = ("small_warehouse", "large_warehouse", "harbor", "wharf")
TRADING_BUILDINGS = ("small_market", "large_market", "office", "factory")


def _config(num_players: int, setting: str) -> GameConfig:
    return GameConfig(num_players=num_players, **CONFIGS[setting])


def _play(agents: list[Agent], config: GameConfig, seed: int) -> Game:
    """One whole game; seat ``q`` is reset with ``seed * 31 + q``."""
    game = Game(config, seed=seed)
    for seat, agent in enumerate(agents):
        agent.reset(seed * 31 + seat)
    while not (game.is_terminal() or game.is_truncated()):
        game.apply(agents[game.current_player()].act(game))
    return game


# -- legality over whole games --------------------------------------------------------------
@pytest.mark.parametrize("setting", list(CONFIGS))
@pytest.mark.parametrize("spec", SPECS)
def test_agents_play_only_legal_actions_through_complete_games(spec, setting):
    kinds: Counter[int] = Counter()
    for num_players in PLAYER_COUNTS:
        agents = [make_agent(spec) for _ in range(num_players)]
        game = Game(_config(num_players, setting), seed=num_players)
        for seat, agent in enumerate(agents):
            agent.reset(seat)
        while not (game.is_terminal() or game.is_truncated()):
            state, history = game.state.copy(), list(game.history)
            legal = game.legal_actions()
            kinds[K.decision_kind(game.state)] += 1
            action = agents[game.current_player()].act(game)
            assert action in legal, f"{spec}: {action} not in {legal} ({game!r})"
            assert np.array_equal(game.state, state) and game.history == history, (
                f"{spec} changed the game it was asked about"
            )
            game.apply(action)
        assert game.is_terminal(), f"{spec}, {num_players} players, {setting}: truncated"
    if CONFIGS[setting].get("draft") == "players":
        assert kinds[DecisionKind.DRAFT] > 0, "the draft decisions were never asked"


POSITIONS_PER_KIND = 3
MAX_POSITION_GAMES = 400


@pytest.fixture(scope="module")
def positions_of_every_kind() -> dict[DecisionKind, list[Game]]:
    """Positions of random expansion games (both drafts, 2-5 players) until every decision
    kind, the rare expansion ones included (rules 7), has ``POSITIONS_PER_KIND``."""
    found: dict[DecisionKind, list[Game]] = {kind: [] for kind in DecisionKind}
    agent = RandomAgent(seed=0)
    for i in range(MAX_POSITION_GAMES):
        setting = ("expansion-players-draft", "expansion-random-draft")[i % 2]
        game = Game(_config(PLAYER_COUNTS[i % len(PLAYER_COUNTS)], setting), seed=i)
        while not game.is_terminal():
            kind = DecisionKind(K.decision_kind(game.state))
            if len(found[kind]) < POSITIONS_PER_KIND:
                found[kind].append(game.clone())
            game.apply(agent.act(game))
        if all(len(games) == POSITIONS_PER_KIND for games in found.values()):
            return found
    missing = [kind.name for kind, games in found.items() if len(games) < POSITIONS_PER_KIND]
    raise AssertionError(f"no positions of {missing} in {MAX_POSITION_GAMES} random games")


@pytest.mark.parametrize("spec", [*SPECS, "mcts:4:builder", "mcts:4:random:eps=0"])
def test_agents_answer_every_decision_kind_legally(spec, positions_of_every_kind):
    agent = make_agent(spec)
    agent.reset(5)
    for kind, games in positions_of_every_kind.items():
        for game in games:
            state, legal = game.state.copy(), game.legal_actions()
            action = agent.act(game)
            assert action in legal, f"{spec} at a {kind.name} decision: {action} not in {legal}"
            assert np.array_equal(game.state, state), f"{spec} changed a {kind.name} position"


@pytest.mark.parametrize("spec", [s for s in SPECS if s != "random"])
def test_agents_refuse_a_finished_game(spec):
    game = _play([make_agent("shipper"), make_agent("builder")], _config(2, "base"), seed=1)
    with pytest.raises(ValueError, match="asks no decision"):
        make_agent(spec).act(game)


# -- determinism ---------------------------------------------------------------------------
@pytest.mark.parametrize("spec", SPECS)
def test_same_seed_gives_the_same_game_bit_for_bit(spec):
    config = _config(3, "expansion-players-draft")
    runs = [_play([make_agent(spec) for _ in range(3)], config, seed=11) for _ in range(2)]
    assert runs[0].history == runs[1].history
    assert runs[0].state.tobytes() == runs[1].state.tobytes()


def test_mcts_with_another_seed_searches_differently():
    game = Game(_config(2, "base"), seed=4)
    dists = []
    for seed in (0, 1):
        agent = make_agent("mcts:40")
        agent.reset(seed)
        agent.act(game)
        dists.append(agent.action_distribution())
    assert dists[0] != dists[1], "the agent's seed does not reach the search"


# -- strength against random ---------------------------------------------------------------
@pytest.mark.parametrize("num_players", [2, 3])
@pytest.mark.parametrize("bot", BOTS)
def test_scripted_bot_beats_random_quick(bot, num_players):
    result = series(PR, bot, num_players, QUICK_GAMES)
    assert result.rate >= QUICK_THRESHOLD, f"{bot}, {num_players} players: {result}"


@pytest.mark.slow
@pytest.mark.parametrize("setting", list(OPTION_SETS))
@pytest.mark.parametrize("num_players", PLAYER_COUNTS)
@pytest.mark.parametrize("bot", BOTS)
def test_scripted_bot_wins_95_percent_against_random_at_every_player_count(
    bot, num_players, setting
):
    result = series(PR, bot, num_players, SWEEP_GAMES, OPTION_SETS[setting])
    assert result.low >= REQUIRED_RATE, f"{bot}, {num_players} players, {setting}: {result}"


@pytest.mark.parametrize(("num_players", "games", "least"), [(2, 6, 5), (3, 3, 2)])
def test_mcts_beats_random_with_a_small_budget(num_players, games, least):
    result = series(PR, "mcts:20", num_players, games)
    assert result.wins >= least, f"mcts:20, {num_players} players: {result}"


class _Ranked:
    """Stands in for a finished game with given ranks (ties averaged, rules 5.3)."""

    def __init__(self, ranks: list[float]) -> None:
        self._ranks = np.array(ranks)

    def ranks(self) -> np.ndarray:
        return self._ranks


def test_win_share_splits_a_shared_first_place():
    assert [win_share(_Ranked([1.5, 1.5, 3.0]), seat) for seat in range(3)] == [0.5, 0.5, 0.0]
    assert [win_share(_Ranked([2.0, 2.0, 2.0]), seat) for seat in range(3)] == [1 / 3] * 3
    assert [win_share(_Ranked([2.0, 1.0]), seat) for seat in range(2)] == [0.0, 1.0]


@pytest.mark.parametrize(
    ("call", "expected"),
    [
        (lambda: series(PR, "shipper", 3, 0), "games=0 is not allowed; allowed: 1 or more"),
        (lambda: series(PR, "shipper", 6, 1), "num_players=6 is not allowed; allowed: 2 to 5"),
        (lambda: series(PR, "shipper", 3, 1, {"deluxe": True}), "unknown game options"),
        (lambda: series(PR, "shipper", 3, 1, opponent="pirate"), "agent 'pirate'"),
    ],
)
def test_strength_series_refuse_bad_input(call, expected):
    with pytest.raises(ValueError) as err:
        call()
    assert expected in str(err.value)


# -- the two scripted strategies -------------------------------------------------------------
def _buildings_built(bot: str, games: int) -> Counter[str]:
    """Buildings the bot owns at the end of 3-player games against two randoms."""
    built: Counter[str] = Counter()
    for i in range(games):
        game, _, _ = play_seat(PR, bot, 3, i)
        built.update(game.state_dict()["players"][i % 3]["buildings"])
    return built


def test_shipper_and_builder_build_different_buildings():
    games = 30
    shipper, builder = _buildings_built("shipper", games), _buildings_built("builder", games)
    ship = {
        name: sum(c[b] for b in SHIPPING_BUILDINGS) for name, c in [("s", shipper), ("b", builder)]
    }
    trade = {
        name: sum(c[b] for b in TRADING_BUILDINGS) for name, c in [("s", shipper), ("b", builder)]
    }
    assert ship["s"] > ship["b"], f"shipping buildings: shipper {ship['s']}, builder {ship['b']}"
    assert trade["b"] > trade["s"], f"trading buildings: builder {trade['b']}, shipper {trade['s']}"


def test_shipper_and_builder_choose_differently_in_the_same_games():
    config = _config(4, "base")
    differing = 0
    for seed in range(5):
        games = [_play([make_agent(bot) for _ in range(4)], config, seed) for bot in BOTS]
        differing += int(games[0].history != games[1].history)
    assert differing == 5


def test_scripted_scores_cover_every_legal_action_and_pick_the_best():
    game = Game(_config(4, "expansion-players-draft"), seed=2)
    agents = [ScriptedAgent(BOTS[q % 2]) for q in range(4)]
    while not game.is_terminal():
        agent = agents[game.current_player()]
        scores = agent.scores(game)
        assert sorted(scores) == game.legal_actions()
        action = agent.act(game)
        assert scores[action] == max(scores.values())
        game.apply(action)


def test_unknown_strategy_names_the_allowed_ones():
    with pytest.raises(ValueError, match="allowed: shipper, builder"):
        ScriptedAgent("mine", strategy="pirate")


# -- MCTS's chance handling ------------------------------------------------------------------
def _positions(count: int) -> list[Game]:
    """Positions from random 3-player games, a few rounds in (the stack has been drawn)."""
    positions = []
    for seed in range(count):
        game = Game(_config(3, "base"), seed=seed)
        agent = RandomAgent(seed=seed)
        while game.round < 3 + seed % 4 or len(game.legal_actions()) < 2:
            game.apply(agent.act(game))
        positions.append(game)
    return positions


def _with_other_stack_order(game: Game, seed: int) -> Game:
    """The same position with another face-down order and plantation generator."""
    other = game.clone()
    K.resample_hidden(other.state, seed)
    stack = [d["plantation_stack"] for d in (game.state_dict(), other.state_dict())]
    assert stack[0] != stack[1] and sorted(stack[0]) == sorted(stack[1])
    return other


def _search(game: Game, sims: int = 30) -> tuple[int, object]:
    agent = make_agent(f"mcts:{sims}")
    agent.reset(7)
    return agent.act(game), agent.action_distribution()


def test_determinize_depends_only_on_the_public_position_and_the_seed():
    for game in _positions(4):
        other = _with_other_stack_order(game, seed=123)
        a, b = game.state.copy(), other.state.copy()
        K.determinize(a, 0, 99)
        K.determinize(b, 0, 99)
        assert np.array_equal(a, b)
        hidden = np.zeros(len(a), bool)
        hidden[L.RNG : L.RNG + 2] = True
        hidden[L.PLANTATION_STACK : L.PLANTATION_STACK + int(a[L.PLANTATION_STACK_SIZE_F])] = True
        assert np.array_equal(a[~hidden], game.state[~hidden]), "a visible field changed"


def test_mcts_decision_does_not_depend_on_the_true_stack_order():
    for game in _positions(4):
        assert _search(game) == _search(_with_other_stack_order(game, seed=321))


def test_a_search_without_the_canonical_order_would_see_the_true_order(monkeypatch):
    # the check above has teeth: resampling the true order in place leaks it into the draws
    monkeypatch.setattr(K, "determinize", lambda s, seat, seed: K.resample_hidden(s, seed))
    pairs = [(g, _with_other_stack_order(g, seed=321)) for g in _positions(4)]
    assert any(_search(g)[1] != _search(h)[1] for g, h in pairs)


def test_mcts_visits_sum_to_one_over_legal_actions():
    game = _positions(1)[0]
    action, (actions, probs) = _search(game, sims=25)
    assert action in actions and set(actions) <= set(game.legal_actions())
    assert abs(sum(probs) - 1.0) < 1e-9


# -- the registry ----------------------------------------------------------------------------
@pytest.mark.parametrize(
    ("spec", "expected"),
    [
        ("", "non-empty string"),
        ("castle", "unknown Puerto Rico agent 'castle' ('castle' is an agent of caylus: pass"),
        ("pirate", "unknown Puerto Rico agent 'pirate'; available: builder, mcts:SIMS"),
        ("mcts", "needs an argument: mcts:SIMS"),
        ("mcts:abc", f"SIMS must be an int from 1 to {MAX_SIMS}"),
        ("mcts:0", f"SIMS=0; allowed: 1 to {MAX_SIMS}"),
        (f"mcts:{MAX_SIMS + 1}", f"SIMS={MAX_SIMS + 1}; allowed: 1 to {MAX_SIMS}"),
        ("mcts:10:pirate", f"allowed: {', '.join(ROLLOUTS)}"),
        ("mcts:10:depth=3", "bad option 'depth=3'; allowed: c=FLOAT in [0, 100] (default 0.7)"),
        ("mcts:10:eps=2", "bad value '2' for eps; allowed: FLOAT in [0, 1] (default 0.1)"),
        ("mcts:10:cutoff=x", "bad value 'x' for cutoff; allowed: INT in [1, 1e+06]"),
        ("shipper:3", "takes no argument"),
        ("random:1", "takes no argument"),
    ],
)
def test_registry_errors_name_what_is_allowed(spec, expected):
    with pytest.raises(ValueError) as err:
        make_agent(spec)
    assert expected in str(err.value)


def test_mcts_options_reach_the_agent():
    agent = make_agent("mcts:12:builder:c=1.5:eps=0.2:margin=0:scale=5:cutoff=50")
    assert isinstance(agent, MCTSAgent)
    assert (agent.sims, agent.rollout, agent.c, agent.eps) == (12, "builder", 1.5, 0.2)
    assert (agent.margin, agent.scale, agent.max_rollout) == (0.0, 5.0, 50)


def test_describe_covers_every_head():
    infos = registry.describe(PR)
    heads = [info.head for info in infos]
    assert heads == sorted(h.partition(":")[0] for h in registry.available_agents(PR))
    assert {"random", "policy", *BOTS, "mcts"} <= set(heads)
    assert not {"castle", "town", "economy"} & set(heads)  # Caylus's bots are not Puerto Rico's
    assert registry.specs(PR) == [info.syntax for info in infos]
    for info in infos:
        assert info.description, f"{info.head} has no description"
    mcts = next(info for info in infos if info.head == "mcts")
    assert mcts.needs_arg and mcts.syntax.startswith("mcts:SIMS")
    assert all(word in mcts.options for word in (*ROLLOUTS, "c=", "eps=", "cutoff="))


def test_a_registered_head_is_described_and_removed(private_registry):
    registry.register(
        "plugin", lambda spec, arg: RandomAgent(spec), game=PR, description="a test agent"
    )
    assert make_agent("plugin").name == "plugin"
    assert any(
        i.head == "plugin" and i.description == "a test agent" for i in registry.describe(PR)
    )
    assert "plugin" not in registry.available_agents("caylus")  # registered for one game
    registry.unregister("plugin", PR)
    assert "plugin" not in registry.available_agents(PR)
    with pytest.raises(ValueError, match="no plugin agent 'plugin' is registered"):
        registry.unregister("plugin", PR)
