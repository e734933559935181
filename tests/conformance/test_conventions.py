"""The Gymnasium / PettingZoo conventions the RL libraries rely on, for every game: unseeded
resets continue the last seed, ``env.seed(s)`` is PettingZoo's method, NumPy integer actions
(0-d arrays included) are accepted as ``action_space.contains`` accepts them, any
non-negative seed is accepted, and every observation space is finite and holds every
observation of random games."""

from __future__ import annotations

import warnings

import numpy as np
import pytest
from pettingzoo.test import api_test, seed_test
from pettingzoo.test.state_test import test_state as pz_test_state
from pettingzoo.test.state_test import test_state_space as pz_test_state_space

import caylus_env
from caylus_env.core.env import setup_seed
from caylus_env.core.game import IllegalActionError
from caylus_env.core.registry import game_spec
from caylus_env.core.vector import GameVectorEnv, VectorGames
from tests.conformance.conftest import raw_env

EPISODES = 3


def _episodes(env, first_seed=None, seed_method=None, episodes=EPISODES, policy_seed=0):
    """Random legal play over ``episodes`` episodes, seeding only the first reset (by
    ``reset(seed=...)`` or by the ``seed()`` method): each episode's game seed, actions and
    final rewards."""
    rng = np.random.default_rng(policy_seed)
    out = []
    for i in range(episodes):
        if i == 0 and seed_method is not None:
            env.seed(seed_method)
            env.reset()
        elif i == 0 and first_seed is not None:
            env.reset(seed=first_seed)
        else:
            env.reset()
        actions = []
        for _agent in env.agent_iter():
            obs, _, terminated, truncated, _ = env.last()
            if terminated or truncated:
                env.step(None)
                continue
            action = int(rng.choice(np.flatnonzero(obs["action_mask"])))
            actions.append(action)
            env.step(action)
        out.append((env.unwrapped.game_seed, actions, dict(env.rewards)))
    return out


# -- seeds ---------------------------------------------------------------------------------------
def test_unseeded_resets_continue_the_first_seed_so_two_runs_play_the_same_episodes(game):
    first = _episodes(caylus_env.make(game), first_seed=11)
    second = _episodes(caylus_env.make(game), first_seed=11)
    assert first == second
    assert first[0][0] == 11  # the seeded reset is the game of seed 11, as ever
    assert len({seed for seed, _, _ in first}) == EPISODES  # a new game every episode
    other = _episodes(caylus_env.make(game), first_seed=12)
    assert [s for s, _, _ in other] != [s for s, _, _ in first]


def test_a_first_reset_without_any_seed_draws_from_the_operating_system(game):
    a, b = raw_env(game), raw_env(game)
    a.reset()
    b.reset()
    assert a.game_seed != b.game_seed  # 2**63 possible draws each


def test_seed_method_seeds_the_next_reset_through_the_wrappers(game):
    wrapped = caylus_env.make(game)
    assert callable(wrapped.seed) and callable(wrapped.unwrapped.seed)
    via_method = _episodes(wrapped, seed_method=11)
    via_reset = _episodes(caylus_env.make(game), first_seed=11)
    assert via_method == via_reset
    env = raw_env(game)
    env.seed(5)
    env.reset(seed=6)  # an explicit seed wins over the one seed() left
    assert env.game_seed == 6
    env.reset()
    assert env.game_seed != 5
    env.seed(5)
    env.seed(None)  # back to the operating system
    env.reset()
    assert env.game_seed != 5


@pytest.mark.parametrize("seed", [2**63, 2**63 + 1, 2**64, 2**64 + 7, 3**200])
def test_seeds_of_2_63_and_above_are_folded_deterministically_into_the_engine_range(game, seed):
    a, b = raw_env(game), raw_env(game)
    a.reset(seed=seed)
    b.reset(seed=seed)
    assert a.game_seed == b.game_seed == setup_seed(seed)
    assert 0 <= a.game_seed < 2**63
    assert np.array_equal(a.game.state, b.game.state)
    assert setup_seed(seed) != setup_seed(seed + 1)
    assert a.record().seed == a.game_seed  # the record replays the game


def test_seeds_below_2_63_are_their_own_game_seed():
    for seed in (0, 1, 123, 2**32, 2**63 - 1, np.uint64(2**63 - 1), np.int8(3)):
        assert setup_seed(seed) == int(seed)


@pytest.mark.parametrize("bad", [-1, True, 1.5, "3", np.float64(2.0)])
def test_bad_seeds_are_refused_and_change_nothing(game, bad):
    env = raw_env(game)
    env.reset(seed=3)
    state = env.game.state.copy()
    with pytest.raises(ValueError, match="seed must be None or a non-negative int"):
        env.reset(seed=bad)
    with pytest.raises(ValueError, match="seed must be None or a non-negative int"):
        env.seed(bad)
    assert np.array_equal(env.game.state, state) and env.game_seed == 3
    env.reset()
    assert env.game_seed != 3  # no seed was left for the next reset


def test_the_batched_envs_continue_the_first_seed(game):
    def run(env_cls):
        games = env_cls(game, 3)
        out = [games.reset(seed=5).obs.copy()]
        out.append(games.reset().obs.copy())
        return out, games.setup_seeds.copy(), games.seed

    (a, seeds_a, seed_a), (b, seeds_b, seed_b) = run(VectorGames), run(VectorGames)
    assert all(np.array_equal(x, y) for x, y in zip(a, b, strict=True))
    assert np.array_equal(seeds_a, seeds_b) and seed_a == seed_b == 5
    assert not np.array_equal(a[0], a[1])  # the next episode, not the same one again

    def gym_run():
        env = GameVectorEnv(game, 2)
        rng = np.random.default_rng(0)
        obs, _ = env.reset(seed=9)
        trace = [obs["observation"].copy()]
        for step in range(60):
            mask = obs["action_mask"]
            actions = np.array([rng.choice(np.flatnonzero(m)) for m in mask])
            obs, *_ = env.step(actions)
            if step == 29:
                obs, _ = env.reset()
            trace.append(obs["observation"].copy())
        return np.stack(trace)

    assert np.array_equal(gym_run(), gym_run())


def test_the_sb3_vec_env_continues_the_first_seed(game):
    pytest.importorskip("stable_baselines3")
    from caylus_env.core.sb3 import GameVecEnv

    def run():
        env = GameVecEnv(game, num_envs=2, seed=4)
        first = env.reset()
        return first, env.reset(), env.games.setup_seeds.copy()

    a, b = run(), run()
    assert all(np.array_equal(x, y) for x, y in zip(a, b, strict=True))
    assert not np.array_equal(a[0], a[1])


# -- actions ---------------------------------------------------------------------------------
INT_DTYPES = [np.int8, np.uint8, np.int16, np.int32, np.uint32, np.int64, np.uint64]


def test_numpy_integer_actions_and_0d_arrays_are_played_as_ints(game):
    env = raw_env(game)
    wrapped = caylus_env.make(game)
    env.reset(seed=2)
    wrapped.reset(seed=2)
    twin = raw_env(game)
    twin.reset(seed=2)
    for i in range(40):
        action = env.legal_actions()[i % len(env.legal_actions())]
        dtype = INT_DTYPES[i % len(INT_DTYPES)]
        as_array = np.array(action, dtype)
        space = env.action_space(env.agent_selection)
        # Gymnasium's Discrete (int64) holds the dtypes that cast to int64 safely: uint64
        # does not, yet raw_env plays it too (its value is what counts)
        assert space.contains(as_array) == np.can_cast(dtype, np.int64)
        env.step(as_array if i % 2 else dtype(action))
        wrapped.step(as_array if space.contains(as_array) else np.array(action))
        twin.step(action)
    assert np.array_equal(env.game.state, twin.game.state)
    assert np.array_equal(wrapped.unwrapped.game.state, twin.game.state)
    assert all(type(a) is int for a in env.game.history)


def test_floats_bools_arrays_and_out_of_range_actions_are_still_refused(game):
    env = raw_env(game)
    env.reset(seed=2)
    action = env.legal_actions()[0]
    num_actions = game_spec(game).engine().NUM_ACTIONS
    state = env.game.state.copy()
    for bad in (
        float(action),
        np.float32(action),
        np.array(action, np.float64),
        True,
        np.array(True),
        np.array([action]),
        np.array([[action]]),
        np.array(num_actions),
        np.array(-1),
        num_actions,
    ):
        with pytest.raises(IllegalActionError, match=r"not allowed|is illegal"):
            env.step(bad)
        assert np.array_equal(env.game.state, state), bad


# -- observation bounds ------------------------------------------------------------------------
def _spaces(game: str, n: int) -> list:
    env = raw_env(game, n)
    boxes = [env.observation_space(a)["observation"] for a in env.possible_agents]
    boxes.append(env.state_space)
    vector = GameVectorEnv(game, 1, n)
    boxes.append(vector.single_observation_space["observation"])
    return boxes


def test_no_observation_bound_is_infinite(game):
    for n in game_spec(game).player_counts:
        for box in _spaces(game, n):
            assert np.isfinite(box.low).all() and np.isfinite(box.high).all()
            assert (box.high > box.low).all()


def test_every_observation_of_random_games_lies_in_the_space(game):
    for n in game_spec(game).player_counts:
        for seed in range(6):
            env = raw_env(game, n)
            env.reset(seed=100 * n + seed)
            rng = np.random.default_rng(seed)
            decisions = 0
            while not env.game.is_over():
                space = env.observation_space(env.agent_selection)
                if decisions % 5 == 0:
                    for agent in env.possible_agents:
                        assert space.contains(env.observe(agent)), (n, seed, decisions, agent)
                    assert env.state_space.contains(env.state())
                else:
                    assert space.contains(env.observe(env.agent_selection))
                env.step(int(rng.choice(env.legal_actions())))
                decisions += 1
            for agent in env.possible_agents:  # the final position too
                assert env.observation_space(agent).contains(env.observe(agent))
            assert env.state_space.contains(env.state())


def _infinity_warnings(caught) -> list[str]:
    return [str(w.message) for w in caught if "infinity" in str(w.message).lower()]


def test_pettingzoo_api_state_and_seed_tests_pass_without_an_infinite_bounds_warning(game):
    for n in game_spec(game).player_counts:
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            api_test(caylus_env.make(game, num_players=n), num_cycles=50)
            env = caylus_env.make(game, num_players=n)
            env.reset(seed=n)
            pz_test_state_space(env.unwrapped)
            pz_test_state(caylus_env.make(game, num_players=n), num_cycles=10)
            seed_test(lambda n=n: caylus_env.make(game, num_players=n), num_cycles=50)
        assert _infinity_warnings(caught) == []
