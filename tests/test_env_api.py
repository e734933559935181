"""The PettingZoo adapter: API conformance, rewards, illegal actions, clones, records."""

from __future__ import annotations

import pickle
import random

import numpy as np
import pytest
from pettingzoo.test import api_test, render_test, seed_test

import caylus_env
from caylus_env import (
    NUM_ACTIONS,
    Game,
    GameConfig,
    IllegalActionError,
    action_to_string,
    caylus_v0,
    replay,
    string_to_action,
)
from caylus_env.caylus import env as env_module
from caylus_env.caylus.observation import OBS_SIZE, PIECES, encode, observation_pieces

PLAYER_COUNTS = [2, 3, 4, 5]
# api_test warns about every dict observation not on its list of classic envs.
IGNORE_DICT_OBS = pytest.mark.filterwarnings("ignore:Observation is not a NumPy array")
IGNORE_DICT_SPACE = pytest.mark.filterwarnings(
    "ignore:Observation space for each agent probably should be"
)


def _play_to_end(env, seed: int, rng_seed: int | None = None) -> None:
    """Random legal play on a raw_env until the game is over (agents not drained)."""
    env.reset(seed=seed)
    rng = random.Random(seed if rng_seed is None else rng_seed)
    while not env.game.is_terminal():
        env.step(rng.choice(env.legal_actions()))


def _drain(env) -> None:
    for agent in env.agent_iter():
        _, _, termination, truncation, _ = env.last()
        assert termination or truncation, agent
        env.step(None)


# -- PettingZoo test suite -------------------------------------------------------------------
@pytest.mark.parametrize("num_players", PLAYER_COUNTS)
@IGNORE_DICT_OBS
@IGNORE_DICT_SPACE
def test_api_test(num_players):
    api_test(caylus_v0.env(num_players=num_players), num_cycles=400)


@pytest.mark.parametrize("num_players", PLAYER_COUNTS)
@IGNORE_DICT_OBS
@IGNORE_DICT_SPACE
def test_api_test_raw_env(num_players):
    api_test(caylus_v0.raw_env(num_players=num_players), num_cycles=400)


@pytest.mark.parametrize("num_players", PLAYER_COUNTS)
def test_seed_test(num_players):
    seed_test(lambda: caylus_v0.env(num_players=num_players), num_cycles=200)


def test_render_test(capsys):
    render_test(lambda render_mode=None: caylus_v0.env(num_players=3, render_mode=render_mode))
    assert "Road:" in capsys.readouterr().out


# -- construction ------------------------------------------------------------------------------
def test_metadata_agents_and_spaces():
    env = caylus_v0.raw_env(num_players=3)
    assert env.metadata["name"] == "caylus_v0"
    assert env.metadata["render_modes"] == ["ansi", "human"]
    assert env.metadata["is_parallelizable"] is False
    assert env.possible_agents == ["player_0", "player_1", "player_2"]
    for agent in env.possible_agents:
        assert env.observation_space(agent) is env.observation_space(agent)
        assert env.action_space(agent) is env.action_space(agent)
        assert env.action_space(agent).n == NUM_ACTIONS
        space = env.observation_space(agent)
        assert space["observation"].shape == (OBS_SIZE,)
        assert space["observation"].dtype == np.float32
        assert space["action_mask"].shape == (NUM_ACTIONS,)
        assert space["action_mask"].dtype == np.int8
    assert env.state_space.shape == (OBS_SIZE,)


@pytest.mark.parametrize(
    ("kwargs", "match"),
    [
        ({"num_players": 1}, "num_players"),
        ({"num_players": 6}, "num_players"),
        ({"num_players": "3"}, "num_players"),
        ({"lawyer_prestige": 5}, "lawyer_prestige"),
        ({"jeweller": 1}, "jeweller"),
        ({"reward": "win"}, "reward"),
        ({"render_mode": "rgb_array"}, "render_mode"),
    ],
)
def test_bad_arguments_are_refused_with_clear_errors(kwargs, match):
    with pytest.raises(ValueError, match=match):
        caylus_v0.raw_env(**kwargs)


def test_raw_env_pickles_with_its_arguments():
    env = caylus_v0.raw_env(num_players=3, reward="margin", jeweller=True)
    other = pickle.loads(pickle.dumps(env))
    assert other.config == env.config
    assert other.reward == "margin"


def test_package_exports():
    assert caylus_env.__version__ == "0.1.0"
    assert caylus_v0.env is env_module.env and caylus_v0.raw_env is env_module.raw_env
    assert caylus_env.NUM_ACTIONS == NUM_ACTIONS
    assert string_to_action(action_to_string(5)) == 5
    assert issubclass(IllegalActionError, ValueError)
    assert callable(replay) and Game and GameConfig


def test_docstring_documents_the_spaces_and_every_piece():
    doc = env_module.__doc__
    assert f"Discrete({NUM_ACTIONS})" in doc
    assert f"({OBS_SIZE},)" in doc
    for name, _ in PIECES:
        assert f"`{name}`" in doc, name
    for section in ("Agents", "Action Space", "Observation Space", "Legal Actions Mask"):
        assert f"### {section}" in doc or f"#### {section}" in doc
    for section in ("Rewards", "Starting State", "Episode End", "Arguments", "Version History"):
        assert f"### {section}" in doc


# -- reset and seeds ----------------------------------------------------------------------------
def test_reset_with_a_seed_is_deterministic_and_without_one_draws_a_seed():
    a = caylus_v0.raw_env(num_players=4)
    b = caylus_v0.raw_env(num_players=4)
    a.reset(seed=123)
    b.reset(seed=123)
    assert a.seed == 123 and a.agent_selection == b.agent_selection
    assert np.array_equal(a.game.state, b.game.state)
    a.reset()
    first = a.seed
    a.reset()
    assert isinstance(first, int) and 0 <= first < 2**63
    assert a.seed != first  # 2**63 possible draws
    assert a.record()["seed"] == a.seed


def test_agent_selection_comes_from_the_engine():
    env = caylus_v0.raw_env(num_players=4)
    env.reset(seed=9)
    rng = random.Random(9)
    while not env.game.is_terminal():
        assert env.agent_selection == f"player_{env.game.current_player()}"
        env.step(rng.choice(env.legal_actions()))


# -- observations -----------------------------------------------------------------------------------
def test_observe_returns_fresh_arrays_and_masks_only_the_actor():
    env = caylus_v0.raw_env(num_players=3)
    env.reset(seed=5)
    actor = env.agent_selection
    first = env.observe(actor)
    first["observation"][:] = -1.0
    first["action_mask"][:] = 0
    again = env.observe(actor)
    assert again["observation"].min() >= 0.0
    assert np.array_equal(again["action_mask"], env.game.legal_mask())
    for agent in env.agents:
        if agent != actor:
            assert not env.observe(agent)["action_mask"].any()


def test_observation_pieces_and_state_are_views_of_the_same_layout():
    env = caylus_v0.raw_env(num_players=4)
    env.reset(seed=6)
    pieces = env.observation_pieces("player_2")
    assert set(pieces) == {name for name, _ in PIECES}
    assert pieces["seat_present"].tolist() == [1, 1, 1, 1, 0]
    expected = np.empty(OBS_SIZE, np.float32)
    encode(env.game.state, -1, expected)
    assert np.array_equal(env.state(), expected)
    # The global state is player_0's view: seat 0 is player_0.
    assert np.array_equal(env.state(), env.observe("player_0")["observation"])
    current = env.game.current_player()
    assert observation_pieces(env.state())["decision_player"].argmax() == current


# -- rewards and the end of the game ------------------------------------------------------------------
@pytest.mark.parametrize("num_players", PLAYER_COUNTS)
def test_rank_rewards_are_zero_sum_and_infos_carry_the_result(num_players):
    for g in range(3):
        env = caylus_v0.raw_env(num_players=num_players)
        _play_to_end(env, seed=50 + g)
        assert all(env.terminations.values()) and not any(env.truncations.values())
        rewards = np.array([env._cumulative_rewards[a] for a in env.possible_agents])
        assert abs(rewards.sum()) < 1e-9
        assert np.allclose(rewards, env.game.returns("rank"))
        prestige = env.game.prestige()
        ranks = env.game.ranks()
        for i, agent in enumerate(env.possible_agents):
            assert env.infos[agent] == {"final_prestige": int(prestige[i]), "rank": ranks[i]}
        best = prestige.max()
        winners = [i for i in range(num_players) if prestige[i] == best]
        if len(winners) == 1:
            assert rewards[winners[0]] == 1.0
        _drain(env)
        assert env.agents == []


def test_two_player_winner_gets_plus_one():
    for seed in range(6):
        env = caylus_v0.raw_env(num_players=2)
        _play_to_end(env, seed=seed)
        p = env.game.prestige()
        r = [env.rewards[a] for a in env.possible_agents]
        if p[0] == p[1]:
            assert r == [0.0, 0.0]
        else:
            winner = int(np.argmax(p))
            assert r[winner] == 1.0 and r[1 - winner] == -1.0


def test_rewards_only_at_the_end_and_infos_empty_before():
    env = caylus_v0.raw_env(num_players=3)
    env.reset(seed=17)
    rng = random.Random(17)
    while not env.game.is_terminal():
        assert all(r == 0.0 for r in env.rewards.values())
        assert all(info == {} for info in env.infos.values())
        env.step(rng.choice(env.legal_actions()))
    assert any(r != 0.0 for r in env.rewards.values())


def test_margin_reward():
    env = caylus_v0.raw_env(num_players=4, reward="margin")
    _play_to_end(env, seed=21)
    prestige = env.game.prestige().astype(float)
    rewards = np.array([env.rewards[a] for a in env.possible_agents])
    assert np.allclose(rewards, prestige - prestige.mean())
    assert abs(rewards.sum()) < 1e-9
    assert env.record()["env"] == {"name": "caylus_v0", "reward": "margin"}


def _finished_position(num_players: int, prestige: list[int]) -> dict:
    env = caylus_v0.raw_env(num_players=num_players)
    _play_to_end(env, seed=30 + num_players)
    d = env.state_dict()
    for p, v in enumerate(prestige):
        d["players"][p]["prestige"] = v
    return d


def test_ties_share_the_rank_rewards():
    env = caylus_v0.raw_env(num_players=3)
    env.reset(seed=0)
    env.load_state_dict(_finished_position(3, [10, 10, 5]))
    assert [env.rewards[a] for a in env.possible_agents] == [0.5, 0.5, -1.0]
    assert [env.infos[a]["rank"] for a in env.possible_agents] == [1.5, 1.5, 3.0]
    assert all(env.terminations.values())
    env2 = caylus_v0.raw_env(num_players=2)
    env2.reset(seed=0)
    env2.load_state_dict(_finished_position(2, [7, 7]))
    assert [env2.rewards[a] for a in env2.possible_agents] == [0.0, 0.0]
    _drain(env2)


# -- illegal actions --------------------------------------------------------------------------------
def test_raw_env_refuses_an_illegal_action_and_changes_nothing():
    env = caylus_v0.raw_env(num_players=4)
    env.reset(seed=3)
    legal = env.legal_actions()
    illegal = next(a for a in range(NUM_ACTIONS) if a not in legal)
    state = env.game.state.copy()
    selection = env.agent_selection
    cumulative = dict(env._cumulative_rewards)
    history = list(env.game.history)
    with pytest.raises(IllegalActionError) as info:
        env.step(illegal)
    assert isinstance(info.value, ValueError)
    message = str(info.value)
    assert action_to_string(illegal) in message
    assert "place_worker" in message
    for a in legal:
        assert action_to_string(a) in message
    assert np.array_equal(env.game.state, state)
    assert env.agent_selection == selection
    assert env._cumulative_rewards == cumulative
    assert env.game.history == history
    assert env.legal_actions() == legal
    for bad in (NUM_ACTIONS, -1, None, "pass"):
        with pytest.raises(IllegalActionError):
            env.step(bad)
    assert np.array_equal(env.game.state, state)
    env.step(legal[0])  # the env plays on normally
    assert env.game.history == [legal[0]]


def test_wrapped_env_ends_the_game_with_minus_one_for_the_offender(caplog):
    env = caylus_v0.env(num_players=3)
    env.reset(seed=8)
    offender = env.agent_selection
    obs, *_ = env.last()
    illegal = int(np.flatnonzero(obs["action_mask"] == 0)[0])
    env.step(illegal)
    assert "Illegal move" in caplog.text
    assert all(env.terminations.values()) and all(env.truncations.values())
    totals = {}
    for agent in env.agent_iter():
        _, reward, termination, truncation, _ = env.last()
        assert termination and truncation
        totals[agent] = reward
        env.step(None)
    assert totals[offender] == -1
    assert all(v == 0 for a, v in totals.items() if a != offender)
    assert sorted(totals) == env.unwrapped.possible_agents


def test_a_finished_agent_can_only_step_none():
    env = caylus_v0.raw_env(num_players=2)
    _play_to_end(env, seed=2)
    with pytest.raises(ValueError, match="None"):
        env.step(0)


# -- clones, positions and records ---------------------------------------------------------------------
def test_clone_is_independent():
    env = caylus_v0.raw_env(num_players=4)
    env.reset(seed=12)
    rng = random.Random(12)
    for _ in range(40):
        env.step(rng.choice(env.legal_actions()))
    twin = env.clone()
    assert twin is not env and twin.game is not env.game
    assert twin.agent_selection == env.agent_selection
    assert np.array_equal(twin.game.state, env.game.state)
    for agent in env.possible_agents:
        assert np.array_equal(twin.observe(agent)["observation"], env.observe(agent)["observation"])
    state = env.game.state.copy()
    history = list(env.game.history)
    while not twin.game.is_terminal():
        twin.step(rng.choice(twin.legal_actions()))
    _drain(twin)
    assert np.array_equal(env.game.state, state)
    assert env.game.history == history
    assert env.agents == env.possible_agents and not any(env.terminations.values())


def test_clone_before_reset_is_a_fresh_env():
    twin = caylus_v0.raw_env(num_players=2).clone()
    assert twin.game is None
    twin.reset(seed=1)
    assert twin.legal_actions()


def test_state_dict_round_trip_through_the_env():
    a = caylus_v0.raw_env(num_players=3)
    a.reset(seed=40)
    rng = random.Random(40)
    for _ in range(70):
        a.step(rng.choice(a.legal_actions()))
    b = caylus_v0.raw_env(num_players=3)
    b.reset(seed=41)
    b.load_state_dict(a.state_dict())
    assert b.state_dict() == a.state_dict()
    assert b.agent_selection == a.agent_selection
    assert b.legal_actions() == a.legal_actions()
    for agent in a.possible_agents:
        oa, ob = a.observe(agent), b.observe(agent)
        assert np.array_equal(oa["observation"], ob["observation"])
        assert np.array_equal(oa["action_mask"], ob["action_mask"])
    while not a.game.is_terminal():
        action = rng.choice(a.legal_actions())
        a.step(action)
        b.step(action)
        assert b.agent_selection == a.agent_selection
    assert np.array_equal(a.game.state, b.game.state)
    assert b.rewards == a.rewards and b.infos == a.infos
    # A record of the loaded game replays from its start position.
    assert np.array_equal(replay(b.record()).state, b.game.state)


def test_load_state_dict_refuses_other_options_and_leaves_the_env_unchanged():
    env = caylus_v0.raw_env(num_players=3)
    env.reset(seed=1)
    before = env.state_dict()
    other = caylus_v0.raw_env(num_players=4)
    other.reset(seed=1)
    with pytest.raises(ValueError, match="options"):
        env.load_state_dict(other.state_dict())
    with pytest.raises(ValueError):
        env.load_state_dict({"format": "nonsense"})
    assert env.state_dict() == before


@pytest.mark.parametrize("num_players", [2, 4])
def test_record_replays_to_the_same_final_state(num_players):
    env = caylus_v0.raw_env(num_players=num_players, lawyer_prestige=3, house_cap=True)
    _play_to_end(env, seed=77)
    record = env.record()
    assert record["env"] == {"name": "caylus_v0", "reward": "rank"}
    assert record["options"]["lawyer_prestige"] == 3
    game = replay(record)
    assert np.array_equal(game.state, env.game.state)
    assert game.history == env.game.history


# -- helpers and rendering ---------------------------------------------------------------------------
def test_action_name_helpers():
    env = caylus_v0.raw_env(num_players=2)
    env.reset(seed=0)
    names = [env.action_to_string(a) for a in env.legal_actions()]
    assert "pass" in names
    assert [env.string_to_action(n) for n in names] == env.legal_actions()
    with pytest.raises(ValueError, match="unknown action name"):
        env.string_to_action("fly:away")


def test_render_modes(capsys):
    env = caylus_v0.raw_env(num_players=2, render_mode="ansi")
    env.reset(seed=3)
    text = env.render()
    assert isinstance(text, str) and "Decision: place_worker" in text
    human = caylus_v0.raw_env(num_players=2, render_mode="human")
    human.reset(seed=3)
    assert human.render() is None
    assert capsys.readouterr().out.strip() == text
    human.step(human.legal_actions()[0])  # human mode prints after every step
    assert "Road:" in capsys.readouterr().out
    silent = caylus_v0.raw_env(num_players=2)
    silent.reset(seed=3)
    with pytest.warns(UserWarning, match="render mode"):
        assert silent.render() is None


def test_methods_before_reset_explain_what_to_do():
    env = caylus_v0.raw_env()
    with pytest.raises(RuntimeError, match="reset"):
        env.observe("player_0")
    with pytest.raises(RuntimeError, match="reset"):
        env.record()
