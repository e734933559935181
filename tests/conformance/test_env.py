"""Every game's PettingZoo environment: PettingZoo's own tests for every player count and option
set, then rewards, illegal actions, truncation, clones, positions, records and rendering."""

from __future__ import annotations

import importlib
import pickle
import random

import numpy as np
import pytest
from pettingzoo.test import api_test, render_test, seed_test

import caylus_env
from caylus_env.core.game import IllegalActionError
from caylus_env.core.record import replay
from caylus_env.core.registry import GAME_NAMES, game_spec
from tests.conformance.conftest import CASES, case_id, drain, options_of, play_to_end, raw_env

# api_test warns about every dict observation not on its list of classic envs.
IGNORE_DICT_OBS = pytest.mark.filterwarnings("ignore:Observation is not a NumPy array")
IGNORE_DICT_SPACE = pytest.mark.filterwarnings(
    "ignore:Observation space for each agent probably should be"
)


# -- PettingZoo's own tests ------------------------------------------------------------------
@pytest.mark.parametrize("case", CASES, ids=case_id)
@IGNORE_DICT_OBS
@IGNORE_DICT_SPACE
def test_api_test(case):
    game, n, name = case
    api_test(caylus_env.make(game, num_players=n, **options_of(game, name)), num_cycles=300)


@pytest.mark.parametrize("case", CASES, ids=case_id)
@IGNORE_DICT_OBS
@IGNORE_DICT_SPACE
def test_api_test_raw_env(case):
    game, n, name = case
    api_test(raw_env(game, n, **options_of(game, name)), num_cycles=300)


@pytest.mark.parametrize("case", CASES, ids=case_id)
def test_seed_test(case):
    game, n, name = case
    seed_test(lambda: caylus_env.make(game, num_players=n, **options_of(game, name)))


@pytest.mark.parametrize("case", CASES, ids=case_id)
def test_render_test(case, capsys):
    game, n, name = case
    render_test(
        lambda render_mode=None: raw_env(game, n, render_mode=render_mode, **options_of(game, name))
    )
    capsys.readouterr()


@pytest.mark.parametrize("game", [g for g in GAME_NAMES if game_spec(g).truncating_options])
@IGNORE_DICT_OBS
@IGNORE_DICT_SPACE
def test_api_test_through_a_truncated_game(game):
    api_test(
        caylus_env.make(game, num_players=3, **game_spec(game).truncating_options), num_cycles=300
    )


# -- declaration, arguments, entry points -----------------------------------------------------
def test_metadata_agents_and_spaces(game):
    spec = game_spec(game)
    engine, observer = spec.engine(), spec.observation()
    env = raw_env(game, spec.max_players)
    assert env.metadata["name"] == spec.env_name
    assert env.metadata["is_parallelizable"] is False
    assert env.possible_agents == [f"player_{i}" for i in range(spec.max_players)]
    for agent in env.possible_agents:
        assert env.action_space(agent).n == engine.NUM_ACTIONS
        assert env.observation_space(agent)["observation"].shape == (observer.OBS_SIZE,)
        assert env.observation_space(agent)["action_mask"].shape == (engine.NUM_ACTIONS,)
        assert env.action_space(agent) is env.action_space(agent)  # built once
    assert env.state_space.shape == (observer.OBS_SIZE,)
    assert raw_env(game).config.num_players == spec.default_players


def test_arguments_pass_through_to_the_engine_config(game):
    spec = game_spec(game)
    for name, options in spec.option_sets.items():
        env = raw_env(game, spec.min_players, **options)
        assert env.config == spec.config(spec.min_players, **options), name


@pytest.mark.parametrize(
    ("kwargs", "match"),
    [
        ({"num_players": 1}, "num_players"),
        ({"num_players": 6}, "num_players"),
        ({"num_players": "3"}, "num_players"),
        ({"reward": "win"}, "reward"),
        ({"render_mode": "rgb_array"}, "render_mode"),
        ({"speed": 2}, "unknown game options"),
    ],
)
def test_bad_arguments_are_refused_with_clear_errors(game, kwargs, match):
    with pytest.raises(ValueError, match=match):
        raw_env(game, **kwargs)


def test_raw_env_pickles_with_its_arguments(game):
    spec = game_spec(game)
    options = dict(list(spec.option_sets.values())[-1])
    env = raw_env(game, 3, reward="margin", **options)
    other = pickle.loads(pickle.dumps(env))
    assert other.config == env.config and other.reward == "margin"


def test_versioned_module_and_make_give_the_same_env(game):
    spec = game_spec(game)
    shim = importlib.import_module(f"caylus_env.{spec.env_name}")
    declared = spec.module("env")
    assert shim.env is declared.env and shim.raw_env is declared.raw_env
    assert getattr(caylus_env, spec.env_name) is shim
    assert type(caylus_env.make(game, wrapped=False)) is declared.raw_env
    assert caylus_env.make(game).unwrapped.metadata["name"] == spec.env_name
    with pytest.raises(ValueError, match="unknown game 'go'; allowed"):
        caylus_env.make("go")


def test_docstring_documents_the_spaces_and_every_piece(game):
    spec = game_spec(game)
    doc = spec.module("env").__doc__
    assert f"Discrete({spec.engine().NUM_ACTIONS})" in doc
    assert f"({spec.observation().OBS_SIZE},)" in doc
    for name, _ in spec.observation().PIECES:
        assert f"`{name}`" in doc, name
    for section in ("Agents", "Action Space", "Observation Space", "Legal Actions Mask"):
        assert f"### {section}" in doc or f"#### {section}" in doc
    for section in ("Rewards", "Starting State", "Episode End", "Arguments", "Version History"):
        assert f"### {section}" in doc
    for option in spec.options():
        assert f"`{option}=" in doc, option


# -- reset and seeds -------------------------------------------------------------------------
def test_reset_with_a_seed_is_deterministic_and_without_one_draws_a_seed(game):
    a, b = raw_env(game, 4), raw_env(game, 4)
    a.reset(seed=123)
    b.reset(seed=123)
    assert a.game_seed == 123 and a.agent_selection == b.agent_selection
    assert np.array_equal(a.game.state, b.game.state)
    a.reset()
    first = a.game_seed
    a.reset()
    assert isinstance(first, int) and 0 <= first < 2**63
    assert a.game_seed != first  # 2**63 possible draws
    assert a.record().seed == a.game_seed
    for bad in (-1, True, 1.5, "3"):
        with pytest.raises(ValueError, match="seed"):
            a.reset(seed=bad)


def test_agent_selection_comes_from_the_engine(game):
    env = raw_env(game, 4)
    env.reset(seed=9)
    rng = random.Random(9)
    while not env.game.is_over():
        assert env.agent_selection == f"player_{env.game.current_player()}"
        env.step(rng.choice(env.legal_actions()))


# -- observations ----------------------------------------------------------------------------
def test_observe_returns_fresh_arrays_and_masks_only_the_actor(game):
    env = raw_env(game, 3)
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


@pytest.mark.parametrize("case", [c for c in CASES if c[1] in (2, 5)], ids=case_id)
def test_the_action_mask_is_the_engine_legal_set_and_observations_stay_in_the_space(case):
    game, n, name = case
    env = raw_env(game, n, **options_of(game, name))
    env.reset(seed=n)
    rng = random.Random(n)
    space = env.observation_space(env.agent_selection)
    while not env.game.is_over():
        obs = env.observe(env.agent_selection)
        assert np.flatnonzero(obs["action_mask"]).tolist() == env.game.legal_actions()
        assert space.contains(obs)
        env.step(rng.choice(env.legal_actions()))


def test_the_step_entry_point_writes_what_the_dispatched_kernel_writes(game):
    """The env's step calls `step_observe`'s compiled entry point, which checks no argument
    type (caylus_env.core.aec.aec_step): at every decision of a whole game it gives what
    numba's dispatcher gives on a copy of the position, and the env never passes arrays of
    another type, a loaded position's included (the dispatcher, given a copy of the env's
    state, would then hold a second compilation)."""
    from caylus_env.core.aec import aec_kernels

    dispatched = aec_kernels(game).step_observe
    env = raw_env(game, 3)
    env.reset(seed=13)
    rng = random.Random(13)
    steps = 0
    while not env.game.is_over():
        action = rng.choice(env.legal_actions())
        state, legal = env.game.state.copy(), np.empty_like(env.game._legal)
        obs = np.zeros(env.observation_space(env.agent_selection)["observation"].shape, np.float32)
        mask = np.zeros(env.action_space(env.agent_selection).n, np.int8)
        player, _ = dispatched(state, action, legal, obs, mask)
        env.step(action)
        assert np.array_equal(state, env.game.state)
        if steps == 10:  # a loaded position's state goes through the same entry point
            env.load_state_dict(env.state_dict())
        if player >= 0:
            assert env.agent_selection == f"player_{player}"
            observed = env.observe(env.agent_selection)
            assert np.array_equal(observed["observation"], obs)
            assert np.array_equal(observed["action_mask"], mask)
        steps += 1
    assert steps > 20
    assert len(dispatched.signatures) == 1, dispatched.signatures


def test_observation_pieces_and_state_are_views_of_the_same_layout(game):
    spec = game_spec(game)
    observer = spec.observation()
    env = raw_env(game, 4)
    env.reset(seed=6)
    pieces = env.observation_pieces("player_2")
    assert list(pieces) == [name for name, _ in observer.PIECES]
    expected = np.empty(observer.OBS_SIZE, np.float32)
    observer.encode_into(env.game.state, -1, expected)
    assert np.array_equal(env.state(), expected)
    # The global state is player_0's view: seat 0 is player_0.
    assert np.array_equal(env.state(), env.observe("player_0")["observation"])
    assert observer.observation_pieces(env.state())["decision_player"].argmax() == (
        env.game.current_player()
    )


# -- rewards and the end of the game ---------------------------------------------------------
@pytest.mark.parametrize("case", [c for c in CASES if c[2] == "rules"], ids=case_id)
def test_rank_rewards_are_zero_sum_and_infos_carry_the_result(case):
    game, n, _ = case
    spec = game_spec(game)
    for g in range(3):
        env = raw_env(game, n)
        play_to_end(env, seed=50 + g)
        rewards = np.array([env._cumulative_rewards[a] for a in env.possible_agents])
        scores, ranks = env.game.scores(), env.game.ranks()
        if env.game.is_terminal():
            assert all(env.terminations.values()) and not any(env.truncations.values())
            assert abs(rewards.sum()) < 1e-9
            assert np.allclose(rewards, env.game.returns("rank"))
            assert rewards[int(np.argmin(ranks))] == rewards.max()
        for i, agent in enumerate(env.possible_agents):
            info = env.infos[agent]
            assert info["final_score"] == int(scores[i]) and info["rank"] == ranks[i]
            assert info[f"final_{spec.score_key}"] == int(scores[i])
        drain(env)
        assert env.agents == []


def test_two_player_winner_gets_plus_one_and_loser_minus_one(game):
    for seed in range(4):
        env = raw_env(game, 2)
        play_to_end(env, seed=seed)
        if not env.game.is_terminal():
            continue
        ranks = env.game.ranks()
        rewards = [env.rewards[a] for a in env.possible_agents]
        if ranks[0] == ranks[1]:
            assert rewards == [0.0, 0.0]
        else:
            winner = int(np.argmin(ranks))
            assert rewards[winner] == 1.0 and rewards[1 - winner] == -1.0


def test_rewards_only_at_the_end_and_infos_empty_before(game):
    env = raw_env(game, 3)
    env.reset(seed=17)
    rng = random.Random(17)
    while not env.game.is_over():
        assert all(r == 0.0 for r in env.rewards.values())
        assert all(info == {} for info in env.infos.values())
        env.step(rng.choice(env.legal_actions()))
    assert any(r != 0.0 for r in env.rewards.values()) or not env.game.is_terminal()


def test_margin_reward(game):
    spec = game_spec(game)
    env = raw_env(game, 4, reward="margin")
    play_to_end(env, seed=21)
    scores = env.game.scores().astype(float)
    rewards = np.array([env.rewards[a] for a in env.possible_agents])
    assert np.allclose(rewards, scores - scores.mean())
    assert abs(rewards.sum()) < 1e-9
    assert env.record().env.to_dict() == {"name": spec.env_name, "reward": "margin"}


@pytest.mark.parametrize("game", [g for g in GAME_NAMES if game_spec(g).truncating_options])
def test_the_decision_cap_truncates_every_agent_with_zero_rewards(game):
    env = raw_env(game, 3, **game_spec(game).truncating_options)
    play_to_end(env, seed=4)
    assert env.game.is_truncated() and not env.game.is_terminal()
    assert all(env.truncations.values()) and not any(env.terminations.values())
    assert all(r == 0.0 for r in env.rewards.values())
    scores = env.game.scores()
    for i, agent in enumerate(env.possible_agents):
        assert env.infos[agent]["final_score"] == int(scores[i])
    assert env.record().final.end == "truncated"
    assert np.array_equal(replay(env.record()).state, env.game.state)
    drain(env)
    assert env.agents == []


# -- illegal actions -------------------------------------------------------------------------
def test_raw_env_refuses_an_illegal_action_and_changes_nothing(game):
    engine = game_spec(game).engine()
    env = raw_env(game, 4)
    env.reset(seed=3)
    legal = env.legal_actions()
    illegal = next(a for a in range(engine.NUM_ACTIONS) if a not in legal)
    state = env.game.state.copy()
    selection = env.agent_selection
    cumulative = dict(env._cumulative_rewards)
    with pytest.raises(IllegalActionError) as info:
        env.step(illegal)
    assert isinstance(info.value, ValueError)
    message = str(info.value)
    assert engine.action_to_string(illegal) in message
    assert env.game.decision().kind in message
    for a in legal:
        assert engine.action_to_string(a) in message
    assert np.array_equal(env.game.state, state)
    assert env.agent_selection == selection and env._cumulative_rewards == cumulative
    assert env.game.history == [] and env.legal_actions() == legal
    for bad in (engine.NUM_ACTIONS, -1, None, "pass", True, 1.0):
        with pytest.raises(IllegalActionError):
            env.step(bad)
    assert np.array_equal(env.game.state, state)
    env.step(np.int64(legal[0]))  # a numpy integer is an action; the env plays on normally
    assert env.game.history == [legal[0]]


def test_wrapped_env_ends_the_game_with_minus_one_for_the_offender(game, caplog):
    env = caylus_env.make(game, num_players=3)
    env.reset(seed=8)
    offender = env.agent_selection
    obs, *_ = env.last()
    env.step(int(np.flatnonzero(obs["action_mask"] == 0)[0]))
    assert "Illegal move" in caplog.text
    totals = {}
    for agent in env.agent_iter():
        _, reward, termination, truncation, _ = env.last()
        assert termination and truncation
        totals[agent] = reward
        env.step(None)
    assert totals[offender] == -1
    assert all(v == 0 for a, v in totals.items() if a != offender)


def test_a_finished_agent_can_only_step_none(game):
    env = raw_env(game, 2)
    play_to_end(env, seed=2)
    with pytest.raises(ValueError, match="None"):
        env.step(0)


# -- clones, positions and records -----------------------------------------------------------
def test_clone_is_independent(game):
    env = raw_env(game, 4)
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
    state, history = env.game.state.copy(), list(env.game.history)
    while not twin.game.is_over():
        twin.step(rng.choice(twin.legal_actions()))
    drain(twin)
    assert np.array_equal(env.game.state, state) and env.game.history == history
    assert env.agents == env.possible_agents and not any(env.terminations.values())
    fresh = raw_env(game, 2).clone()
    assert fresh.game is None
    fresh.reset(seed=1)
    assert fresh.legal_actions()


def test_state_dict_round_trip_through_the_env(game):
    a = raw_env(game, 3)
    a.reset(seed=40)
    rng = random.Random(40)
    for _ in range(70):
        a.step(rng.choice(a.legal_actions()))
    b = raw_env(game, 3)
    b.reset(seed=41)
    b.load_state_dict(a.state_dict())
    assert b.state_dict() == a.state_dict()
    assert b.agent_selection == a.agent_selection and b.legal_actions() == a.legal_actions()
    for agent in a.possible_agents:
        oa, ob = a.observe(agent), b.observe(agent)
        assert np.array_equal(oa["observation"], ob["observation"])
        assert np.array_equal(oa["action_mask"], ob["action_mask"])
    while not a.game.is_over():
        action = rng.choice(a.legal_actions())
        a.step(action)
        b.step(action)
        assert b.agent_selection == a.agent_selection
    assert np.array_equal(a.game.state, b.game.state)
    assert b.rewards == a.rewards and b.infos == a.infos
    # A record of the loaded game replays from its start position.
    assert np.array_equal(replay(b.record()).state, b.game.state)
    # A finished position ends the episode at once.
    c = raw_env(game, 3)
    c.reset(seed=0)
    c.load_state_dict(a.state_dict())
    assert all(c.terminations.values()) or all(c.truncations.values())
    assert c.rewards == a.rewards


def test_load_state_dict_refuses_other_options_and_leaves_the_env_unchanged(game):
    env = raw_env(game, 3)
    env.reset(seed=1)
    before = env.state_dict()
    other = raw_env(game, 4)
    other.reset(seed=1)
    with pytest.raises(ValueError, match="options"):
        env.load_state_dict(other.state_dict())
    with pytest.raises(ValueError):
        env.load_state_dict({"format": "nonsense"})
    assert env.state_dict() == before


@pytest.mark.parametrize("case", [c for c in CASES if c[1] in (2, 4)], ids=case_id)
def test_record_replays_to_the_same_final_state(case):
    game, n, name = case
    spec = game_spec(game)
    env = raw_env(game, n, **options_of(game, name))
    play_to_end(env, seed=77)
    record = env.record()
    assert record.game == game and record.env.to_dict() == {
        "name": spec.env_name,
        "reward": "rank",
    }
    assert dict(record.options) == env.config.to_dict()
    replayed = replay(record.to_dict())
    assert np.array_equal(replayed.state, env.game.state)
    assert replayed.history == env.game.history


# -- helpers and rendering -------------------------------------------------------------------
def test_action_name_helpers(game):
    env = raw_env(game, 2)
    env.reset(seed=0)
    names = [env.action_to_string(a) for a in env.legal_actions()]
    assert [env.string_to_action(n) for n in names] == env.legal_actions()
    with pytest.raises(ValueError, match="unknown action name"):
        env.string_to_action("fly:away")


def test_render_modes(game, capsys):
    render_text = game_spec(game).module("rendering").render_text
    env = raw_env(game, 2, render_mode="ansi")
    env.reset(seed=3)
    text = env.render()
    assert isinstance(text, str) and text == render_text(env.game) and text
    human = raw_env(game, 2, render_mode="human")
    human.reset(seed=3)
    assert human.render() is None
    assert capsys.readouterr().out.strip() == text.strip()
    human.step(human.legal_actions()[0])  # human mode prints after every step
    assert capsys.readouterr().out.strip() == render_text(human.game).strip()
    silent = raw_env(game, 2)
    silent.reset(seed=3)
    with pytest.warns(UserWarning, match="render mode"):
        assert silent.render() is None


def test_methods_before_reset_explain_what_to_do(game):
    env = raw_env(game)
    with pytest.raises(RuntimeError, match="reset"):
        env.observe("player_0")
    with pytest.raises(RuntimeError, match="reset"):
        env.record()
