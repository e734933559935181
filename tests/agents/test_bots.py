"""Tests for the built-in agents: legality, purity, determinism, strength, the registry."""

from __future__ import annotations

import ast
import importlib.util
import random
from pathlib import Path

import numpy as np
import pytest

from agents import registry
from agents.base import Agent
from agents.random_agent import RandomAgent
from caylus_env.caylus.bots import rollouts
from caylus_env.caylus.bots.mcts import MCTSAgent
from caylus_env.caylus.bots.scripted import STRATEGIES, ScriptedBot, make_scripted
from caylus_env.caylus.engine import Game, GameConfig, action_to_string

BOTS = tuple(STRATEGIES)  # castle, town, economy
SPECS = ("random", *BOTS, "mcts:50")
STATES_PER_COUNT = 30
MCTS_STATES_PER_COUNT = 5  # a search per position is slower; fewer positions keep the run short

GAME = "caylus"


def make_agent(spec: str) -> Agent:
    """A Caylus agent of the one registry (``agents.registry``)."""
    return registry.make_agent(spec, GAME)


def available_agents() -> list[str]:
    return registry.available_agents(GAME)


def _random_states(num_players: int, count: int, seed: int) -> list[Game]:
    """``count`` positions spread over random games of ``num_players`` players."""
    rng = random.Random(seed)
    games: list[Game] = []
    game_seed = seed
    while len(games) < count:
        game = Game(GameConfig(num_players=num_players), seed=game_seed)
        game_seed += 1
        while not game.is_terminal():
            if rng.random() < 0.08:
                games.append(game.clone())
            legal = game.legal_actions()
            game.apply(legal[rng.randrange(len(legal))])
    return games[:count]


@pytest.fixture(scope="module")
def positions() -> dict[int, list[Game]]:
    return {n: _random_states(n, STATES_PER_COUNT, seed=100 * n) for n in range(2, 6)}


def _play(agents: list[Agent], seed: int) -> Game:
    game = Game(GameConfig(num_players=len(agents)), seed=seed)
    for seat, agent in enumerate(agents):
        agent.reset(seed * 31 + seat)
    while not game.is_terminal():
        game.apply(agents[game.current_player()].act(game))
    return game


def _wins_against_random(bot_name: str, games: int) -> int:
    """Games (seats alternating) in which the bot's prestige is at least random's."""
    wins = 0
    for i in range(games):
        bot, rnd = make_agent(bot_name), RandomAgent()
        seat = i % 2
        game = _play([bot, rnd] if seat == 0 else [rnd, bot], seed=7000 + i)
        prestige = game.prestige()
        wins += int(prestige[seat] >= prestige[1 - seat])
    return wins


# -- legality and purity ------------------------------------------------------------------
@pytest.mark.parametrize("spec", SPECS)
def test_agents_return_legal_actions_and_leave_the_game_untouched(spec, positions):
    agent = make_agent(spec)
    agent.reset(3)
    per_count = MCTS_STATES_PER_COUNT if spec.startswith("mcts") else STATES_PER_COUNT
    for n, games in positions.items():
        for game in games[:per_count]:
            state = game.state.copy()
            history = list(game.history)
            legal = game.legal_actions()
            action = agent.act(game)
            assert action in legal, f"{spec} chose {action} in a {n}-player game; legal: {legal}"
            assert isinstance(action, int)
            np.testing.assert_array_equal(game.state, state)
            assert game.history == history
            assert game.legal_actions() == legal


@pytest.mark.parametrize("num_players", [2, 3, 4, 5])
def test_scripted_bots_finish_games_of_every_player_count(num_players):
    agents = [make_scripted(BOTS[i % len(BOTS)]) for i in range(num_players)]
    game = _play(agents, seed=num_players)
    assert game.is_terminal()
    assert game.prestige().max() > 20


# -- sensible choices -------------------------------------------------------------------------
def test_scripted_bots_give_a_batch_when_they_hold_one(positions):
    castle_decisions = []
    for seed in range(40):
        game = Game(GameConfig(num_players=2), seed=seed)
        rng = random.Random(seed)
        while not game.is_terminal() and len(castle_decisions) < 10:
            legal = game.legal_actions()
            names = [action_to_string(a) for a in legal]
            early = game.state_dict()["bailiff"] < 16
            can_give = any(n.startswith("batch:") for n in names)
            if game.decision().kind == "castle" and early and can_give:
                castle_decisions.append(game.clone())
            game.apply(legal[rng.randrange(len(legal))])
    assert castle_decisions
    for name in BOTS:
        bot = make_scripted(name)
        for game in castle_decisions:
            if game.decision().args["batches_given"] == 0:
                assert action_to_string(bot.act(game)).startswith("batch:"), name


def test_action_values_cover_every_legal_action(positions):
    bot = make_scripted("town")
    for game in positions[3][:10]:
        values = bot.action_values(game)
        assert sorted(values) == game.legal_actions()
        assert all(np.isfinite(v) for v in values.values())


# -- determinism --------------------------------------------------------------------------------
@pytest.mark.parametrize("spec", [*BOTS, "mcts:20", "mcts:200:heuristic", "mcts:200:random"])
def test_same_seed_same_actions(spec):
    search = spec.startswith("mcts")

    def run(seed: int) -> list[int]:
        players = 2 if search else 3
        agents = [make_agent(spec) for _ in range(players)]
        game = Game(GameConfig(num_players=players), seed=11)
        for seat, agent in enumerate(agents):
            agent.reset(seed + seat)
        for _ in range(12 if search else 10_000):
            if game.is_terminal():
                break
            game.apply(agents[game.current_player()].act(game))
        return game.history

    assert run(5) == run(5)


def test_mcts_reuses_its_subtree():
    agent = MCTSAgent(sims=20, seed=1)
    other = make_scripted("castle")
    game = Game(GameConfig(num_players=2), seed=4)
    reused = 0
    for _ in range(16):
        if game.is_terminal():
            break
        if game.current_player() == 0:
            reused += agent._reused_root(game) is not None
            game.apply(agent.act(game))
        else:
            game.apply(other.act(game))
    assert reused > 0


@pytest.mark.parametrize("opponent", BOTS)
def test_mcts_recognizes_a_scripted_opponent(opponent):
    me, other = make_scripted("castle"), make_scripted(opponent)
    game = Game(GameConfig(num_players=2), seed=8)
    while len(game.history) < 160 or game.current_player() != 0:
        game.apply((me if game.current_player() == 0 else other).act(game))
    agent = MCTSAgent(sims=5, seed=0)
    agent._update_models(game)
    assert agent.seat_models[1] == opponent
    assert agent.seat_models[0] == "castle"


def test_mcts_playing_on_in_another_game_models_that_games_opponents():
    """An agent that goes on to another game without ``reset`` (another seed, a history that
    does not continue the one it followed) models the new game's opponents from its start, as
    a fresh agent does (it replayed the new game's moves onto the old one and failed on the
    first move not legal there)."""
    me, other = make_scripted("castle"), make_scripted("town")
    games = []
    for seed, moves in ((8, 120), (9, 160)):
        game = Game(GameConfig(num_players=2), seed=seed)
        while len(game.history) < moves or game.current_player() != 0:
            game.apply((me if game.current_player() == 0 else other).act(game))
        games.append(game)
    agent, fresh = MCTSAgent(sims=5, seed=0), MCTSAgent(sims=5, seed=0)
    agent.act(games[0])
    assert agent.act(games[1]) in games[1].legal_actions()
    fresh.act(games[1])
    assert agent.seat_models == fresh.seat_models
    assert np.array_equal(agent._matches, fresh._matches)


# -- strength -------------------------------------------------------------------------------------
@pytest.mark.parametrize("name", BOTS)
def test_scripted_bot_beats_random_quick(name):
    assert _wins_against_random(name, 20) >= 17


@pytest.mark.slow
@pytest.mark.parametrize("name", BOTS)
def test_scripted_bot_beats_random_in_95_percent_of_200_games(name):
    assert _wins_against_random(name, 200) >= 190


@pytest.mark.slow
def test_mcts_beats_the_best_scripted_bot_more_often_than_not():
    """A small version of the measured result: mcts:60 beats ``economy`` (the strongest
    scripted bot head to head) in most 2-player games."""
    wins = 0
    games = 8
    for i in range(games):
        mcts, bot = make_agent("mcts:60"), make_scripted("economy")
        seat = i % 2
        game = _play([mcts, bot] if seat == 0 else [bot, mcts], seed=9000 + i)
        prestige = game.prestige()
        wins += int(prestige[seat] >= prestige[1 - seat])
    assert wins >= 5


# -- the engine surface ----------------------------------------------------------------------
BOTS_FOLDER = Path(__file__).resolve().parents[2] / "caylus_env" / "caylus" / "bots"
#: Engine modules the bots and the search may import: the compiled public surface, the
#: declared data (rule numbers, tables, action ids, state layout) and the ``Game`` API.
ENGINE = "caylus_env.caylus.engine"
PUBLIC_ENGINE = {
    "caylus_env.caylus.engine",
    "caylus_env.caylus.engine.kernels",
    "caylus_env.caylus.engine.actions",
    "caylus_env.caylus.engine.board",
    "caylus_env.caylus.engine.buildings",
    "caylus_env.caylus.engine.constants",
    "caylus_env.caylus.engine.layout",
}


def _is_module(name: str) -> bool:
    """Whether ``name`` is a module (``from package import submodule``), not a plain name."""
    try:
        return importlib.util.find_spec(name) is not None
    except ModuleNotFoundError:
        return False


@pytest.mark.parametrize("path", ["scripted_kernels.py", "scripted.py", "rollouts.py"])
def test_agent_code_imports_only_the_public_engine_surface(path):
    """Bots and rollout bots call ``kernels`` (never the phases, the dispatcher or a private helper),
    so the engine can be reorganised under them without breaking them."""
    tree = ast.parse((BOTS_FOLDER / path).read_text(encoding="utf-8"))
    engine_imports = []
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and (node.module or "").startswith(ENGINE):
            engine_imports += [(node.module, a.name) for a in node.names]
        elif isinstance(node, ast.Import):
            engine_imports += [(a.name, "") for a in node.names if a.name.startswith(ENGINE)]
    assert engine_imports, f"{path}: no engine import found (the check would pass vacuously)"
    bad = [
        f"{module}.{name}" if name else module
        for module, name in engine_imports
        if name.startswith("_")
        or module not in PUBLIC_ENGINE
        or (name and _is_module(f"{module}.{name}") and f"{module}.{name}" not in PUBLIC_ENGINE)
    ]
    assert not bad, f"{path} imports engine internals: {bad}; allowed: {sorted(PUBLIC_ENGINE)}"


@pytest.mark.parametrize("num_players", [2, 3, 4, 5])
def test_mcts_returns_of_a_finished_game(num_players):
    """Without the margin term the search's returns are ``Game.returns('rank')``; with it they
    stay zero-sum and keep the order of the final prestige."""
    weights = STRATEGIES["castle"].to_array()
    rng = random.Random(num_players)
    for seed in range(6):
        game = Game(GameConfig(num_players=num_players), seed=seed)
        while not game.is_terminal():
            legal = game.legal_actions()
            game.apply(legal[rng.randrange(len(legal))])
        ret = np.zeros(num_players)
        rollouts.final_returns(game.state, 0.0, 8.0, weights, ret)
        np.testing.assert_allclose(ret, game.returns("rank"))
        rollouts.final_returns(game.state, 0.5, 8.0, weights, ret)
        assert abs(ret.sum()) < 1e-9
        prestige = game.prestige()
        for i in range(num_players):
            for j in range(num_players):
                if prestige[i] > prestige[j]:
                    assert ret[i] > ret[j]


# -- registry ---------------------------------------------------------------------------------------
def test_registry_lists_and_builds_every_agent():
    heads = available_agents()
    for name in ("random", *BOTS, "mcts:ARG"):
        assert name in heads
    assert isinstance(make_agent("castle"), ScriptedBot)
    assert isinstance(make_agent("mcts:25"), MCTSAgent)
    assert make_agent("mcts:25:random:c=0.7:cutoff=50").max_rollout == 50
    assert make_agent("mcts:25:heuristic:prior=none").prior is None
    assert make_agent("mcts:25:town:widen=0:scaled=0").budget(30) == 25
    mcts = make_agent("mcts:40")
    assert mcts.budget(2) == 20 and mcts.budget(8) == 40 and mcts.budget(200) == 80
    for spec in SPECS:
        agent = make_agent(spec)
        assert isinstance(agent, Agent)
        assert agent.name == spec


@pytest.mark.parametrize(
    "spec", ["nobody", "castel", "mcts", "mcts:abc", "mcts:0", "mcts:10:bogus", "town:3"]
)
def test_make_agent_errors_are_helpful(spec):
    with pytest.raises(ValueError) as err:
        make_agent(spec)
    message = str(err.value)
    assert spec.split(":")[0] in message or spec in message
    if spec.split(":")[0] not in ("mcts", "town"):
        for name in ("random", *BOTS, "mcts"):
            assert name in message


def test_unknown_strategy_weights_are_refused():
    with pytest.raises(ValueError, match="allowed"):
        make_scripted("castle", cubes={"diamonds": 9.0})
    with pytest.raises(ValueError, match="available"):
        make_scripted("sheriff")
