"""Tests for the Caylus 1303 bots: legality over whole games and at every decision kind,
determinism, strength against ``random``, the two scripted strategies' different play, the
compiled ``choose_scripted``, and MCTS's visit counts and its blindness to hidden prestige
(D37).

The strength checks play the seeded series of ``agents.strength`` (seats rotated, a first
place shared by k seats counts 1/k, Wilson 95% intervals).
"""

from __future__ import annotations

from collections import Counter

import numpy as np
import pytest

from agents import registry
from agents.base import Agent
from agents.random_agent import RandomAgent
from agents.strength import series
from caylus_env.caylus_1303.bots import BOTS, SCRIPTED, choose_scripted
from caylus_env.caylus_1303.bots import scripted_kernels as SK
from caylus_env.caylus_1303.bots.mcts import ROLLOUTS
from caylus_env.caylus_1303.bots.scripted import STRATEGIES, ScriptedAgent
from caylus_env.caylus_1303.engine import Game, GameConfig
from caylus_env.caylus_1303.engine import kernels as K
from caylus_env.caylus_1303.engine import layout as L
from caylus_env.caylus_1303.engine.actions import NUM_ACTIONS, action_to_string
from caylus_env.caylus_1303.engine.constants import MAX_PLAYERS, MIN_PLAYERS, DecisionKind
from caylus_env.caylus_1303.engine.state import pf

GAME = "caylus_1303"
BOT_NAMES = tuple(STRATEGIES)  # constructor, deliverer
MCTS_SPEC = "mcts:4"  # enough to exercise selection, expansion and rollouts in whole games
SPECS = ("random", *BOT_NAMES, MCTS_SPEC)
PLAYER_COUNTS = tuple(range(MIN_PLAYERS, MAX_PLAYERS + 1))
QUICK_GAMES = 20  # per bot and player count in the default suite
QUICK_LEAST = 18  # wins of QUICK_GAMES: a working bot wins ~all, a broken one far fewer
SWEEP_GAMES = 200  # per bot and player count in the slow sweep
REQUIRED_RATE = 0.95  # the bar against random (Wilson lower bound)


def make_agent(spec: str) -> Agent:
    """A Caylus 1303 agent of the one registry (``agents.registry``)."""
    return registry.make_agent(spec, GAME)


def _play(agents: list[Agent], config: GameConfig, seed: int) -> Game:
    """One whole game; seat ``q`` is reset with ``seed * 31 + q``."""
    game = Game(config, seed=seed)
    for seat, agent in enumerate(agents):
        agent.reset(seed * 31 + seat)
    while not game.is_terminal():
        game.apply(agents[game.current_player()].act(game))
    return game


# -- legality over whole games --------------------------------------------------------------
@pytest.mark.parametrize("spec", SPECS)
def test_agents_play_only_legal_actions_through_complete_games(spec):
    for num_players in PLAYER_COUNTS:
        agents = [make_agent(spec) for _ in range(num_players)]
        game = Game(GameConfig(num_players=num_players), seed=num_players)
        for seat, agent in enumerate(agents):
            agent.reset(seat)
        while not game.is_terminal():
            state, history = game.state.copy(), list(game.history)
            legal = game.legal_actions()
            action = agents[game.current_player()].act(game)
            assert action in legal, f"{spec}: {action} not in {legal} ({game!r})"
            assert np.array_equal(game.state, state) and game.history == history, (
                f"{spec} changed the game it was asked about"
            )
            game.apply(action)
        assert K.check_invariants(game.state) == 0


POSITIONS_PER_KIND = 3
MAX_POSITION_GAMES = 400


@pytest.fixture(scope="module")
def positions_of_every_kind() -> dict[DecisionKind, list[Game]]:
    """Positions of random games (2-5 players) until every decision kind has
    ``POSITIONS_PER_KIND``."""
    found: dict[DecisionKind, list[Game]] = {kind: [] for kind in DecisionKind}
    agent = RandomAgent(seed=0)
    for i in range(MAX_POSITION_GAMES):
        n = PLAYER_COUNTS[i % len(PLAYER_COUNTS)]
        game = Game(GameConfig(num_players=n), seed=i)
        while not game.is_terminal():
            kind = DecisionKind(K.decision_kind(game.state))
            if len(found[kind]) < POSITIONS_PER_KIND:
                found[kind].append(game.clone())
            game.apply(agent.act(game))
        if all(len(games) == POSITIONS_PER_KIND for games in found.values()):
            return found
    missing = [kind.name for kind, games in found.items() if len(games) < POSITIONS_PER_KIND]
    raise AssertionError(f"no positions of {missing} in {MAX_POSITION_GAMES} random games")


@pytest.mark.parametrize("spec", [*SPECS, "mcts:4:deliverer", "mcts:4:random:eps=0"])
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
    game = _play([make_agent("constructor"), make_agent("deliverer")], GameConfig(num_players=2), 1)
    with pytest.raises(ValueError, match="asks no decision"):
        make_agent(spec).act(game)


# -- determinism ---------------------------------------------------------------------------
@pytest.mark.parametrize("spec", SPECS)
def test_same_seed_gives_the_same_game_bit_for_bit(spec):
    config = GameConfig(num_players=3)
    runs = [_play([make_agent(spec) for _ in range(3)], config, seed=11) for _ in range(2)]
    assert runs[0].history == runs[1].history
    assert runs[0].state.tobytes() == runs[1].state.tobytes()


def test_mcts_with_another_seed_searches_differently():
    game = Game(GameConfig(num_players=2), seed=4)
    while len(game.legal_actions()) < 2:
        game.apply(game.legal_actions()[0])
    dists = []
    for seed in (0, 1):
        agent = make_agent("mcts:60:constructor:eps=0.5")
        agent.reset(seed)
        agent.act(game)
        dists.append(agent.visit_counts())
    assert dists[0] != dists[1], "the agent's seed does not reach the search"


# -- strength against random ---------------------------------------------------------------
@pytest.mark.parametrize("num_players", [2, 4])
@pytest.mark.parametrize("bot", BOT_NAMES)
def test_scripted_bot_beats_random_quick(bot, num_players):
    result = series(GAME, bot, num_players, QUICK_GAMES)
    assert result.wins >= QUICK_LEAST, f"{bot}, {num_players} players: {result}"


@pytest.mark.slow
@pytest.mark.parametrize("setting", ["rules", "hidden_prestige"])
@pytest.mark.parametrize("num_players", PLAYER_COUNTS)
@pytest.mark.parametrize("bot", BOT_NAMES)
def test_scripted_bot_wins_95_percent_against_random_at_every_player_count(
    bot, num_players, setting
):
    options = {"hide_opponent_pp": setting == "hidden_prestige"}
    result = series(GAME, bot, num_players, SWEEP_GAMES, options)
    assert result.low >= REQUIRED_RATE, f"{bot}, {num_players} players, {setting}: {result}"


def test_mcts_beats_random_with_a_small_budget():
    result = series(GAME, "mcts:10", 3, 3)
    assert result.wins >= 2, f"mcts:10, 3 players: {result}"


# -- the two strategies play differently -----------------------------------------------------
def _counts(bot: str, games: int = 12) -> Counter[str]:
    """What seat 0 playing ``bot`` does against ``random`` seats: its actions by block name
    (``construct``, ``bundle``, ...)."""
    out: Counter[str] = Counter()
    for seed in range(games):
        n = PLAYER_COUNTS[seed % len(PLAYER_COUNTS)]
        agents = [make_agent(bot)] + [make_agent("random") for _ in range(n - 1)]
        game = Game(GameConfig(num_players=n), seed=seed)
        for seat, agent in enumerate(agents):
            agent.reset(seat)
        while not game.is_terminal():
            p = game.current_player()
            a = agents[p].act(game)
            if p == 0:
                out[action_to_string(a).partition(":")[0]] += 1
            game.apply(a)
    return out


def test_constructor_builds_more_and_deliverer_delivers_more():
    constructor, deliverer = _counts("constructor"), _counts("deliverer")
    assert constructor["construct"] > deliverer["construct"], (constructor, deliverer)
    assert deliverer["bundle"] > constructor["bundle"], (constructor, deliverer)


def test_scripted_scores_cover_every_legal_action_and_pick_the_best():
    game = Game(GameConfig(num_players=3), seed=2)
    agent = ScriptedAgent("constructor")
    for _ in range(40):
        scores = agent.scores(game)
        assert sorted(scores) == game.legal_actions()
        best = max(scores.values())
        assert scores[agent.act(game)] == best
        game.apply(agent.act(game))


def test_choose_scripted_is_the_agents_choice():
    game = Game(GameConfig(num_players=4), seed=3)
    out = np.empty(NUM_ACTIONS, np.int64)
    noise = np.zeros(NUM_ACTIONS, np.float64)
    while not game.is_terminal():
        n = K.legal_actions(game.state, out)
        for row, name in enumerate(SCRIPTED):
            i = choose_scripted(row, game.state, out, n, noise)
            assert out[i] == ScriptedAgent(name).act(game)
        game.apply(ScriptedAgent(SCRIPTED[game.current_player() % 2]).act(game))
    assert [BOTS[name].scripted for name in SCRIPTED] == [0, 1]


def test_a_scripted_bot_does_not_read_opponents_prestige():
    """The scripted bots read no opponent's prestige (D37): changing it changes no move."""
    game = Game(GameConfig(num_players=3, hide_opponent_pp=True), seed=6)
    bots = [ScriptedAgent(name) for name in BOT_NAMES]
    out = np.empty(NUM_ACTIONS, np.int64)
    for _ in range(150):
        if game.is_terminal():
            break
        p = game.current_player()
        changed = game.state.copy()
        for q in range(3):
            if q != p:
                changed[pf(q, L.P_PP)] += 17 * (q + 1)
        n = K.legal_actions(changed, out)
        for bot in bots:
            assert out[SK.choose(changed, out, n, bot.strategy)] == bot.act(game)
        game.apply(bots[0].act(game))


def test_unknown_strategy_names_the_allowed_ones():
    with pytest.raises(ValueError, match="allowed: constructor, deliverer"):
        ScriptedAgent("x", "castle")


# -- MCTS --------------------------------------------------------------------------------------
def _decision_with_choices(config: GameConfig, seed: int, moves: int) -> Game:
    """A game after ``moves`` scripted moves, at a decision with two or more actions."""
    game = Game(config, seed=seed)
    bot = ScriptedAgent("constructor")
    for _ in range(moves):
        game.apply(bot.act(game))
    while len(game.legal_actions()) < 2:
        game.apply(game.legal_actions()[0])
    return game


def test_search_root_hides_opponents_prestige_only_when_the_option_is_on():
    for hide in (False, True):
        game = _decision_with_choices(GameConfig(num_players=3, hide_opponent_pp=hide), 3, 60)
        state = game.state.copy()
        for q in range(3):
            state[pf(q, L.P_PP)] = 5 + 7 * q
        root = make_agent("mcts:5").search_root(state, 1)
        pps = [int(root[pf(q, L.P_PP)]) for q in range(3)]
        assert pps == ([12, 12, 12] if hide else [5, 12, 19])
        assert state[pf(0, L.P_PP)] == 5, "the search changed the real state"


@pytest.mark.parametrize("rollout", ROLLOUTS)
def test_mcts_move_does_not_depend_on_opponents_hidden_prestige(rollout):
    """With hidden prestige (D37) the search sees only its own: the same seed gives the same
    move and visit counts whatever the opponents' true prestige is."""
    config = GameConfig(num_players=3, hide_opponent_pp=True)
    for moves in (30, 90, 160):
        game = _decision_with_choices(config, 8, moves)
        p = game.current_player()
        results = []
        for bump in (0, 25, 60):
            probe = game.clone()
            for q in range(3):
                if q != p:
                    probe.state[pf(q, L.P_PP)] += bump * (q + 1)
            agent = make_agent(f"mcts:40:{rollout}")
            agent.reset(9)
            results.append((agent.act(probe), agent.visit_counts()))
        assert results[0] == results[1] == results[2], (moves, results)


def test_mcts_with_public_prestige_uses_it():
    """Without the option the root is the real state: the opponents' prestige is part of
    the rank the search maximizes, so some search's statistics move with it."""
    config = GameConfig(num_players=2)
    differs = False
    for moves in (50, 80, 110):
        game = _decision_with_choices(config, 8, moves)
        p = game.current_player()
        results = []
        for bump in (0, 40):
            probe = game.clone()
            probe.state[pf(1 - p, L.P_PP)] += bump
            agent = make_agent("mcts:40")
            agent.reset(9)
            agent.act(probe)
            results.append(agent.action_distribution())
        differs |= results[0] != results[1]
    assert differs


def test_mcts_visits_sum_to_one_over_legal_actions():
    game = _decision_with_choices(GameConfig(num_players=4), 2, 20)
    agent = make_agent("mcts:30")
    agent.reset(0)
    action = agent.act(game)
    actions, probs = agent.action_distribution()
    assert action in actions and set(actions) <= set(game.legal_actions())
    assert sum(probs) == pytest.approx(1.0)
    assert sum(agent.visit_counts()[1]) == 30


@pytest.mark.parametrize(
    ("spec", "expected"),
    [
        ("mcts:0", "SIMS=0; allowed: 1 to"),
        ("mcts:x", "SIMS must be an int"),
        ("mcts:5:castle", "unknown rollout 'castle'; allowed: constructor, deliverer, random"),
        ("mcts:5:c=abc", r"bad value 'abc' for c; allowed: FLOAT in \[0, 100\]"),
        ("mcts:5:depth=3", "bad option 'depth=3'; allowed: c="),
    ],
)
def test_registry_errors_name_what_is_allowed(spec, expected):
    with pytest.raises(ValueError, match=expected):
        make_agent(spec)


def test_mcts_options_reach_the_agent():
    agent = make_agent("mcts:7:deliverer:c=1.5:eps=0.2:margin=0.5:scale=5:cutoff=99")
    assert (agent.sims, agent.rollout) == (7, "deliverer")
    assert (agent.c, agent.eps, agent.margin, agent.scale, agent.max_rollout) == (
        1.5,
        0.2,
        0.5,
        5.0,
        99,
    )


def test_describe_covers_every_head():
    heads = {info.head for info in registry.describe(GAME)}
    assert {"random", "constructor", "deliverer", "mcts"} <= heads
