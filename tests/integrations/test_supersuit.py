"""SuperSuit 3.11 on every game: its observation wrappers and its AEC vectorizer run on
``box_observations`` (a flat Box observation, the mask in the info), masked random play
never plays an illegal action, and the dict observation is still refused by SuperSuit
itself (what the adapter is for). Needs the ``supersuit`` extra."""

from __future__ import annotations

import numpy as np
import pytest

import caylus_env
from caylus_env.core.registry import GAME_NAMES, game_spec
from caylus_env.integrations.supersuit import BoxObservations, box_observations

# Not bound to a module global: SuperSuit's module __getattr__ raises ImportError (not
# AttributeError) for unknown names, which breaks the doctest collector's scan of globals.
pytest.importorskip("supersuit")

STEPS = 300


@pytest.fixture(params=GAME_NAMES)
def game(request: pytest.FixtureRequest) -> str:
    return str(request.param)


@pytest.fixture
def ss():
    """The supersuit module."""
    import supersuit

    return supersuit


def _play(env, steps: int, seed: int) -> list[np.ndarray]:
    """Masked random play through ``env`` (the mask from the info): the observations of the
    decisions played, each checked against its space."""
    rng = np.random.default_rng(seed)
    env.reset(seed=seed)
    seen = []
    for agent in env.agent_iter(steps):
        obs, _, terminated, truncated, info = env.last()
        space = env.observation_space(agent)
        assert obs.shape == space.shape and space.contains(obs.astype(space.dtype))
        if terminated or truncated:
            env.step(None)
            continue
        mask = info["action_mask"]
        assert mask.dtype == np.int8 and mask.any()
        action = int(rng.choice(np.flatnonzero(mask)))
        assert action in env.unwrapped.legal_actions()
        env.step(action)
        seen.append(obs)
    return seen


def test_supersuit_refuses_the_dict_observation_that_box_observations_flattens(game, ss):
    with pytest.raises(Exception):  # noqa: B017 (SuperSuit's own assertion)
        ss.normalize_obs_v0(caylus_env.make(game))
    env = box_observations(caylus_env.make(game))
    space = env.observation_space(env.possible_agents[0])
    assert space == caylus_env.make(game).observation_space("player_0")["observation"]
    assert np.isfinite(space.high).all()


def test_observation_wrappers_keep_the_mask_in_the_info(game, ss):
    for n in game_spec(game).player_counts[:2]:
        env = box_observations(caylus_env.make(game, wrapped=False, num_players=n))
        env = ss.dtype_v0(env, np.float32)
        env = ss.normalize_obs_v0(env)  # uses the finite bounds: values in [0, 1]
        env = ss.frame_stack_v1(env, 3)
        env = ss.agent_indicator_v0(env, type_only=False)
        env = ss.clip_reward_v0(env, -1, 1)
        seen = np.stack(_play(env, STEPS, seed=n))
        assert len(seen) > 100
        assert seen.min() >= 0.0 and seen.max() <= 1.0


def test_the_info_mask_is_the_dict_observation_mask_at_every_decision(game):
    plain, boxed = caylus_env.make(game), box_observations(caylus_env.make(game))
    plain.reset(seed=3)
    boxed.reset(seed=3)
    rng = np.random.default_rng(3)
    for _ in range(100):
        obs, *_ = plain.last()
        boxed_obs, _, _, _, info = boxed.last()
        assert np.array_equal(obs["observation"], boxed_obs)
        assert np.array_equal(obs["action_mask"], info["action_mask"])
        for agent in boxed.possible_agents:  # all zeros for the agents not to act
            if agent != boxed.agent_selection:
                assert not boxed.infos[agent]["action_mask"].any()
        action = int(rng.choice(np.flatnonzero(obs["action_mask"])))
        plain.step(action)
        boxed.step(action)


def test_the_aec_vectorizer_plays_every_game_with_the_masks(game, ss):
    vec = ss.vectorize_aec_env_v0(box_observations(caylus_env.make(game, wrapped=False)), 3)
    vec.reset(seed=0)
    rng = np.random.default_rng(0)
    for _ in range(STEPS):
        obs, _, terms, truncs, _, _, passes, infos = vec.last()
        assert obs.shape == (3, *vec.observation_space(vec.agent_selection).shape)
        actions = []
        for k, info in enumerate(infos):
            if passes[k] or terms[k] or truncs[k]:
                actions.append(0)  # ignored: this env waits for another agent
                continue
            actions.append(int(rng.choice(np.flatnonzero(info["action_mask"]))))
        vec.step(np.array(actions))  # raw_env raises on an illegal action


def test_a_non_dict_observation_is_refused_with_a_clear_error():
    env = box_observations(caylus_env.make(GAME_NAMES[0]))
    with pytest.raises(ValueError, match="dict of 'observation' and 'action_mask'"):
        BoxObservations(env)
