"""The Puerto Rico PettingZoo adapter: API conformance, options, rewards, truncation,
illegal actions, action masks, clones, positions and records."""

from __future__ import annotations

import pickle
import random

import numpy as np
import pytest
from pettingzoo.test import api_test, render_test, seed_test

from caylus_env import puerto_rico_v0
from caylus_env.puerto_rico import env as env_module
from caylus_env.puerto_rico.engine import (
    NUM_ACTIONS,
    GameConfig,
    IllegalActionError,
    action_to_string,
    replay,
)
from caylus_env.puerto_rico.engine import kernels as K
from caylus_env.puerto_rico.engine.constants import DEFAULT_MAX_DECISIONS
from caylus_env.puerto_rico.observation import OBS_SIZE, PIECES, encode, observation_pieces

CONFIGS = [(n, e) for n in (2, 3, 4, 5) for e in (False, True)]
# api_test warns about every dict observation not on its list of classic envs.
IGNORE_DICT_OBS = pytest.mark.filterwarnings("ignore:Observation is not a NumPy array")
IGNORE_DICT_SPACE = pytest.mark.filterwarnings(
    "ignore:Observation space for each agent probably should be"
)


def _play_to_end(env, seed: int, rng_seed: int | None = None) -> None:
    """Random legal play on a raw_env until the game is over (agents not drained)."""
    env.reset(seed=seed)
    rng = random.Random(seed if rng_seed is None else rng_seed)
    while env.legal_actions():
        env.step(rng.choice(env.legal_actions()))


def _drain(env) -> None:
    for agent in env.agent_iter():
        _, _, termination, truncation, _ = env.last()
        assert termination or truncation, agent
        env.step(None)


# -- PettingZoo test suite -------------------------------------------------------------------
@pytest.mark.parametrize(("num_players", "expansion"), CONFIGS)
@IGNORE_DICT_OBS
@IGNORE_DICT_SPACE
def test_api_test(num_players, expansion):
    api_test(puerto_rico_v0.env(num_players=num_players, expansion=expansion), num_cycles=150)


@pytest.mark.parametrize(("num_players", "expansion"), CONFIGS)
@IGNORE_DICT_OBS
@IGNORE_DICT_SPACE
def test_api_test_raw_env(num_players, expansion):
    api_test(puerto_rico_v0.raw_env(num_players=num_players, expansion=expansion), num_cycles=150)


@IGNORE_DICT_OBS
@IGNORE_DICT_SPACE
def test_api_test_through_a_truncated_game():
    api_test(puerto_rico_v0.env(num_players=3, max_decisions=40), num_cycles=200)


@pytest.mark.parametrize(("num_players", "expansion"), CONFIGS)
def test_seed_test(num_players, expansion):
    seed_test(
        lambda: puerto_rico_v0.env(num_players=num_players, expansion=expansion), num_cycles=100
    )


@pytest.mark.parametrize(("num_players", "expansion"), CONFIGS)
def test_render_test(capsys, num_players, expansion):
    def make(render_mode=None):
        return puerto_rico_v0.env(
            num_players=num_players, expansion=expansion, render_mode=render_mode
        )

    render_test(make)
    assert "Players:" in capsys.readouterr().out


# -- construction ------------------------------------------------------------------------------
def test_metadata_agents_and_spaces():
    env = puerto_rico_v0.raw_env(num_players=3)
    assert env.metadata["name"] == "puerto_rico_v0"
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


def test_arguments_pass_through_to_the_engine_config():
    env = puerto_rico_v0.raw_env(
        num_players=2, expansion=True, draft="random", library_limit=True, max_decisions=900
    )
    expected = GameConfig(
        num_players=2, expansion=True, draft="random", library_limit=True, max_decisions=900
    )
    assert env.config == expected
    env.reset(seed=4)
    assert env.game.config == expected
    assert GameConfig.from_state(env.game.state) == expected
    assert env.game.decision().kind == "role"  # a random draft is not the players' to make
    default = puerto_rico_v0.raw_env()
    assert default.config == GameConfig()
    assert default.config.max_decisions == DEFAULT_MAX_DECISIONS


@pytest.mark.parametrize(
    ("kwargs", "match"),
    [
        ({"num_players": 1}, "num_players"),
        ({"num_players": 6}, "num_players"),
        ({"num_players": "3"}, "num_players"),
        ({"expansion": 1}, "expansion"),
        ({"draft": "auction"}, "draft"),
        ({"library_limit": "yes"}, "library_limit"),
        ({"max_decisions": 0}, "max_decisions"),
        ({"max_decisions": 40000}, "max_decisions"),
        ({"reward": "win"}, "reward"),
        ({"render_mode": "rgb_array"}, "render_mode"),
    ],
)
def test_bad_arguments_are_refused_with_clear_errors(kwargs, match):
    with pytest.raises(ValueError, match=match) as info:
        puerto_rico_v0.raw_env(**kwargs)
    assert "allowed" in str(info.value) or "must be" in str(info.value)


def test_raw_env_pickles_with_its_arguments():
    env = puerto_rico_v0.raw_env(num_players=3, reward="margin", expansion=True)
    other = pickle.loads(pickle.dumps(env))
    assert other.config == env.config
    assert other.reward == "margin"


def test_versioned_module_exports_the_env():
    assert puerto_rico_v0.env is env_module.env
    assert puerto_rico_v0.raw_env is env_module.raw_env


def test_docstring_documents_the_spaces_and_every_piece():
    doc = env_module.__doc__
    assert f"Discrete({NUM_ACTIONS})" in doc
    assert f"[0, {NUM_ACTIONS - 1}]" in doc
    assert f"({OBS_SIZE},)" in doc
    for name, shape in PIECES:
        size = "x".join(str(d) for d in shape)
        assert f"`{name}` ({size}" in doc, name
    for section in ("Agents", "Action Space", "Observation Space", "Legal Actions Mask"):
        assert f"### {section}" in doc or f"#### {section}" in doc
    for section in ("Rewards", "Starting State", "Episode End", "Arguments", "Version History"):
        assert f"### {section}" in doc


# -- reset and seeds ----------------------------------------------------------------------------
def test_reset_with_a_seed_is_deterministic_and_without_one_draws_a_seed():
    a = puerto_rico_v0.raw_env(num_players=4)
    b = puerto_rico_v0.raw_env(num_players=4)
    a.reset(seed=123)
    b.reset(seed=123)
    assert a.seed == 123 and a.agent_selection == b.agent_selection
    assert np.array_equal(a.game.state, b.game.state)
    a.reset()
    first = a.seed
    a.reset()
    assert isinstance(first, int) and 0 <= first < 2**63
    assert a.seed != first  # 2**63 possible draws
    assert a.record().seed == a.seed


def test_reset_refuses_a_bad_seed():
    env = puerto_rico_v0.raw_env(num_players=3)
    for bad in (-1, 2**63, 1.5, "7"):
        with pytest.raises(ValueError, match="seed"):
            env.reset(seed=bad)


def test_agent_selection_comes_from_the_engine():
    env = puerto_rico_v0.raw_env(num_players=4, expansion=True)
    env.reset(seed=9)
    rng = random.Random(9)
    while env.legal_actions():
        assert env.agent_selection == f"player_{env.game.current_player()}"
        env.step(rng.choice(env.legal_actions()))


# -- observations and masks ---------------------------------------------------------------------------
def test_observe_returns_fresh_arrays_and_masks_only_the_actor():
    env = puerto_rico_v0.raw_env(num_players=3)
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


@pytest.mark.parametrize(("num_players", "expansion"), [(2, True), (3, False), (5, True)])
def test_the_action_mask_is_the_engine_legal_set_at_every_decision(num_players, expansion):
    """The mask of the agent to act is exactly the engine's legal ids, each of which the
    engine accepts; every other id is refused (checked on a copy of the state)."""
    env = puerto_rico_v0.raw_env(num_players=num_players, expansion=expansion)
    env.reset(seed=31)
    rng = random.Random(31)
    out = np.empty(NUM_ACTIONS, np.int64)
    checked = 0
    while env.legal_actions():
        obs, _, term, trunc, _ = env.last()
        assert not (term or trunc)
        mask = obs["action_mask"]
        legal = np.flatnonzero(mask).tolist()
        n = K.legal_actions(env.game.state, out)
        assert legal == env.legal_actions() == out[:n].tolist()
        if checked % 7 == 0:  # every id against the engine's checked step, on a copy
            for a in range(NUM_ACTIONS):
                accepted = K.step(env.game.state.copy(), a, out) >= 0
                assert accepted == bool(mask[a]), (a, action_to_string(a))
        checked += 1
        env.step(rng.choice(legal))
    assert not env.observe(env.agent_selection)["action_mask"].any()  # nothing after the end


def test_state_is_the_global_observation_in_absolute_seats():
    env = puerto_rico_v0.raw_env(num_players=4)
    env.reset(seed=6)
    pieces = env.observation_pieces("player_2")
    assert set(pieces) == {name for name, _ in PIECES}
    assert pieces["seat_present"].tolist() == [1, 1, 1, 1, 0]
    assert np.array_equal(env.state(), encode(env.game.state, -1))
    # The global state is player_0's view: seat 0 is player_0.
    assert np.array_equal(env.state(), env.observe("player_0")["observation"])
    current = env.game.current_player()
    assert observation_pieces(env.state())["decision_player"].argmax() == current


# -- rewards and the end of the game ------------------------------------------------------------------
@pytest.mark.parametrize(("num_players", "expansion"), CONFIGS)
def test_rank_rewards_are_zero_sum_and_infos_carry_the_result(num_players, expansion):
    env = puerto_rico_v0.raw_env(num_players=num_players, expansion=expansion)
    _play_to_end(env, seed=50 + num_players)
    assert env.game.is_terminal()
    assert all(env.terminations.values()) and not any(env.truncations.values())
    rewards = np.array([env._cumulative_rewards[a] for a in env.possible_agents])
    assert abs(rewards.sum()) < 1e-9
    assert np.allclose(rewards, env.game.returns("rank"))
    scores = env.game.scores()
    ranks = env.game.ranks()
    for i, agent in enumerate(env.possible_agents):
        assert env.infos[agent] == {"final_score": int(scores[i]), "rank": ranks[i]}
    best = np.flatnonzero(ranks == ranks.min())
    if len(best) == 1:
        assert rewards[best[0]] == 1.0
    _drain(env)
    assert env.agents == []


def test_two_player_winner_gets_plus_one_and_loser_minus_one():
    for seed in range(4):
        env = puerto_rico_v0.raw_env(num_players=2)
        _play_to_end(env, seed=seed)
        ranks = env.game.ranks()
        rewards = [env.rewards[a] for a in env.possible_agents]
        if ranks[0] == ranks[1]:
            assert rewards == [0.0, 0.0]
        else:
            winner = int(np.argmin(ranks))
            assert rewards[winner] == 1.0 and rewards[1 - winner] == -1.0


def test_rewards_only_at_the_end_and_infos_empty_before():
    env = puerto_rico_v0.raw_env(num_players=3)
    env.reset(seed=17)
    rng = random.Random(17)
    while env.legal_actions():
        assert all(r == 0.0 for r in env.rewards.values())
        assert all(info == {} for info in env.infos.values())
        env.step(rng.choice(env.legal_actions()))
    assert any(r != 0.0 for r in env.rewards.values())


def test_margin_reward():
    env = puerto_rico_v0.raw_env(num_players=4, reward="margin")
    _play_to_end(env, seed=21)
    scores = env.game.scores().astype(float)
    rewards = np.array([env.rewards[a] for a in env.possible_agents])
    assert np.allclose(rewards, scores - scores.mean())
    assert abs(rewards.sum()) < 1e-9


def test_the_decision_cap_truncates_every_agent_with_zero_rewards():
    """A game cut off by ``max_decisions`` is truncated, not terminated (rules 6.9)."""
    env = puerto_rico_v0.raw_env(num_players=3, max_decisions=25)
    _play_to_end(env, seed=3)
    assert env.game.is_truncated() and not env.game.is_terminal()
    assert len(env.game.history) == 25
    assert all(env.truncations.values()) and not any(env.terminations.values())
    assert all(r == 0.0 for r in env.rewards.values())
    scores, ranks = env.game.scores(), env.game.ranks()
    for i, agent in enumerate(env.possible_agents):
        assert env.infos[agent] == {"final_score": int(scores[i]), "rank": ranks[i]}
    assert env.record().final["end"] == "truncated"
    _drain(env)
    assert env.agents == []


# -- illegal actions --------------------------------------------------------------------------------
def test_raw_env_refuses_an_illegal_action_and_changes_nothing():
    env = puerto_rico_v0.raw_env(num_players=4)
    env.reset(seed=3)
    legal = env.legal_actions()
    illegal = next(a for a in range(NUM_ACTIONS) if a not in legal)
    state = env.game.state.copy()
    selection = env.agent_selection
    cumulative = dict(env._cumulative_rewards)
    observation = env.observe(selection)
    with pytest.raises(IllegalActionError) as info:
        env.step(illegal)
    assert isinstance(info.value, ValueError)
    message = str(info.value)
    assert action_to_string(illegal) in message and "'role'" in message
    for a in legal:
        assert action_to_string(a) in message
    for bad in (NUM_ACTIONS, -1, None, "role:mayor", 1.0, True):
        with pytest.raises(IllegalActionError):
            env.step(bad)
    assert np.array_equal(env.game.state, state)
    assert env.agent_selection == selection
    assert env._cumulative_rewards == cumulative
    assert env.game.history == []
    assert env.legal_actions() == legal
    again = env.observe(selection)
    assert np.array_equal(again["observation"], observation["observation"])
    assert np.array_equal(again["action_mask"], observation["action_mask"])
    env.step(legal[0])  # the env plays on normally
    assert env.game.history == [legal[0]]


def test_wrapped_env_ends_the_game_with_minus_one_for_the_offender(caplog):
    env = puerto_rico_v0.env(num_players=3)
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
    env = puerto_rico_v0.raw_env(num_players=2)
    _play_to_end(env, seed=2)
    with pytest.raises(ValueError, match="None"):
        env.step(0)


# -- clones, positions and records ---------------------------------------------------------------------
def test_clone_is_independent():
    env = puerto_rico_v0.raw_env(num_players=4, expansion=True)
    env.reset(seed=12)
    rng = random.Random(12)
    for _ in range(60):
        env.step(rng.choice(env.legal_actions()))
    twin = env.clone()
    assert twin is not env and twin.game is not env.game
    assert twin.agent_selection == env.agent_selection
    assert np.array_equal(twin.game.state, env.game.state)
    for agent in env.possible_agents:
        assert np.array_equal(twin.observe(agent)["observation"], env.observe(agent)["observation"])
    state = env.game.state.copy()
    history = list(env.game.history)
    while twin.legal_actions():
        twin.step(rng.choice(twin.legal_actions()))
    _drain(twin)
    assert np.array_equal(env.game.state, state)
    assert env.game.history == history
    assert env.agents == env.possible_agents and not any(env.terminations.values())


def test_clone_before_reset_is_a_fresh_env():
    twin = puerto_rico_v0.raw_env(num_players=2).clone()
    assert twin.game is None
    twin.reset(seed=1)
    assert twin.legal_actions()


def test_state_dict_round_trip_through_the_env():
    a = puerto_rico_v0.raw_env(num_players=3, expansion=True)
    a.reset(seed=40)
    rng = random.Random(40)
    for _ in range(90):
        a.step(rng.choice(a.legal_actions()))
    b = puerto_rico_v0.raw_env(num_players=3, expansion=True)
    b.reset(seed=41)
    b.load_state_dict(a.state_dict())
    assert b.state_dict() == a.state_dict()
    assert b.agent_selection == a.agent_selection
    assert b.legal_actions() == a.legal_actions()
    for agent in a.possible_agents:
        oa, ob = a.observe(agent), b.observe(agent)
        assert np.array_equal(oa["observation"], ob["observation"])
        assert np.array_equal(oa["action_mask"], ob["action_mask"])
    while a.legal_actions():
        action = rng.choice(a.legal_actions())
        a.step(action)
        b.step(action)
        assert b.agent_selection == a.agent_selection
    assert np.array_equal(a.game.state, b.game.state)
    assert b.rewards == a.rewards and b.infos == a.infos
    # A record of the loaded game replays from its start position.
    assert np.array_equal(replay(b.record()).state, b.game.state)


def test_load_state_dict_refuses_other_options_and_leaves_the_env_unchanged():
    env = puerto_rico_v0.raw_env(num_players=3)
    env.reset(seed=1)
    before = env.state_dict()
    other = puerto_rico_v0.raw_env(num_players=3, expansion=True)
    other.reset(seed=1)
    with pytest.raises(ValueError, match="options"):
        env.load_state_dict(other.state_dict())
    with pytest.raises(ValueError):
        env.load_state_dict({"format": "nonsense"})
    assert env.state_dict() == before


def test_load_state_dict_of_a_finished_game_ends_the_episode():
    a = puerto_rico_v0.raw_env(num_players=2)
    _play_to_end(a, seed=5)
    b = puerto_rico_v0.raw_env(num_players=2)
    b.reset(seed=0)
    b.load_state_dict(a.state_dict())
    assert all(b.terminations.values())
    assert b.rewards == a.rewards and b.infos == a.infos
    _drain(b)


@pytest.mark.parametrize(("num_players", "expansion"), [(2, True), (4, False)])
def test_record_replays_to_the_same_final_state(num_players, expansion):
    env = puerto_rico_v0.raw_env(num_players=num_players, expansion=expansion)
    _play_to_end(env, seed=77)
    record = env.record()
    assert record.options == env.config.to_dict()
    assert record.final["end"] == "terminated"
    game = replay(record.to_dict())
    assert np.array_equal(game.state, env.game.state)
    assert game.history == env.game.history


# -- helpers and rendering ---------------------------------------------------------------------------
def test_action_name_helpers():
    env = puerto_rico_v0.raw_env(num_players=2)
    env.reset(seed=0)
    names = [env.action_to_string(a) for a in env.legal_actions()]
    assert "role:settler" in names
    assert [env.string_to_action(n) for n in names] == env.legal_actions()
    with pytest.raises(ValueError, match="unknown action name"):
        env.string_to_action("fly:away")


def test_render_modes(capsys):
    env = puerto_rico_v0.raw_env(num_players=2, render_mode="ansi")
    env.reset(seed=3)
    text = env.render()
    assert isinstance(text, str) and "Decision: role for p0" in text
    human = puerto_rico_v0.raw_env(num_players=2, render_mode="human")
    human.reset(seed=3)
    assert human.render() is None
    assert capsys.readouterr().out.strip() == text
    human.step(human.legal_actions()[0])  # human mode prints after every step
    assert "Players:" in capsys.readouterr().out
    silent = puerto_rico_v0.raw_env(num_players=2)
    silent.reset(seed=3)
    with pytest.warns(UserWarning, match="render mode"):
        assert silent.render() is None


def test_methods_before_reset_explain_what_to_do():
    env = puerto_rico_v0.raw_env()
    for call in (lambda: env.observe("player_0"), env.record, env.state, env.legal_actions):
        with pytest.raises(RuntimeError, match="reset"):
            call()
