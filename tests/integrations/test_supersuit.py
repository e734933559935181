"""SuperSuit 3.11 on every game: its observation wrappers and its AEC vectorizer run on
``box_observations`` (a flat Box observation, the mask in the info), masked random play
never plays an illegal action, the dict observation is still refused by SuperSuit itself
(what the adapter is for), PettingZoo's ``api_test`` passes through the adapter (plain and
normalized, alone and under SuperSuit's wrappers), the normalized observation lies in
[0, 1] where ``normalize_obs_v0`` squashes the counts, and the docs' example runs. Needs the
``supersuit`` extra."""

from __future__ import annotations

import os
import re
import subprocess
import sys
import warnings
from pathlib import Path

import numpy as np
import pytest
from pettingzoo.test import api_test

import caylus_env
from caylus_env.core.env import normalize_observation
from caylus_env.core.registry import GAME_NAMES, game_spec
from caylus_env.integrations.supersuit import BoxObservations, box_observations

ROOT = Path(__file__).resolve().parents[2]
SCRIPT_TIMEOUT_S = 600  # a hang backstop: a fresh interpreter loads the kernel cache

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


@pytest.fixture
def quiet_api_test():
    """PettingZoo's ``api_test``, its advisory warnings (observation dtype hints) silenced:
    a failed check is an ``AssertionError`` (or the ``ValueError`` of comparing two equal but
    distinct mask arrays), never a warning."""

    def run(env, cycles: int = 300) -> None:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            api_test(env, num_cycles=cycles)

    return run


@pytest.mark.parametrize("normalize", [False, True])
@pytest.mark.parametrize("wrapped", [True, False])
def test_api_test_passes_through_box_observations(game, normalize, wrapped, quiet_api_test):
    for n in (game_spec(game).min_players, 3):
        env = caylus_env.make(game, wrapped=wrapped, num_players=n)
        quiet_api_test(box_observations(env, normalize=normalize))


def test_api_test_passes_under_supersuits_wrappers(game, ss, quiet_api_test):
    env = box_observations(caylus_env.make(game, num_players=3))
    quiet_api_test(ss.frame_stack_v1(ss.normalize_obs_v0(ss.dtype_v0(env, np.float32)), 3))


def test_the_info_mask_is_one_read_only_array_while_it_holds(game):
    env = box_observations(caylus_env.make(game))
    env.reset(seed=1)
    agent = env.agent_selection
    *_, info = env.last()
    assert env.infos[agent]["action_mask"] is info["action_mask"]
    assert info == env.infos[agent]  # what api_test compares
    with pytest.raises(ValueError, match="read-only"):
        info["action_mask"][0] = 1
    env.step(int(np.flatnonzero(info["action_mask"])[0]))
    *_, after = env.last()
    assert np.array_equal(after["action_mask"], env.unwrapped.game.legal_mask())


def test_normalized_box_observations_lie_in_zero_one_where_normalize_obs_squashes(game, ss):
    """Over random games: ``normalize=True`` gives the space ``Box(0, 1)`` and every entry in
    it, the vector's `normalize_observation`; SuperSuit's ``normalize_obs_v0`` (a division
    by the bounds) leaves the counts within a thousandth of 0, the normalized view does not."""
    bounds = game_spec(game).observation().BOUNDS
    counts = bounds > 1.0
    plain = box_observations(caylus_env.make(game, wrapped=False, num_players=4))
    normed = box_observations(caylus_env.make(game, wrapped=False, num_players=4), True)
    squashed = ss.normalize_obs_v0(
        ss.dtype_v0(
            box_observations(caylus_env.make(game, wrapped=False, num_players=4)), np.float32
        )
    )
    space = normed.observation_space(normed.possible_agents[0])
    assert (space.low == 0).all() and (space.high == 1).all() and space.dtype == np.float32
    ours, theirs = [], []
    for seed in range(2):
        for env in (plain, normed, squashed):
            env.reset(seed=seed)
        rng = np.random.default_rng(seed)
        for agent in normed.agent_iter(STEPS):
            obs, _, terminated, truncated, info = normed.last()
            raw = plain.observe(agent)
            assert space.contains(obs) and np.array_equal(obs, normalize_observation(raw, bounds))
            ours.append(obs[counts])
            theirs.append(squashed.observe(agent)[counts])
            action = (
                None
                if terminated or truncated
                else int(rng.choice(np.flatnonzero(info["action_mask"])))
            )
            for env in (plain, normed, squashed):
                env.step(action)
    seen = np.max(ours, axis=0) > 0
    assert seen.sum() >= 10
    assert (
        np.median(np.max(theirs, axis=0)[seen]) < 1e-3 < 0.1 < np.median(np.max(ours, axis=0)[seen])
    )


def test_normalize_must_be_a_bool():
    with pytest.raises(ValueError, match="normalize=1 is not allowed; allowed: True, False"):
        box_observations(caylus_env.make(GAME_NAMES[0]), normalize=1)


def test_the_integrations_page_supersuit_example_runs(tmp_path):
    page = (ROOT / "docs" / "integrations.md").read_text()
    section = page.split("## SuperSuit", 1)[1].split("\n## ", 1)[0]
    blocks = re.findall(r"```python\n(.+?)```", section, re.S)
    assert blocks, "the SuperSuit section has a Python example"
    for i, source in enumerate(blocks):
        script = tmp_path / f"supersuit_{i}.py"
        script.write_text(source)
        proc = subprocess.run(
            [sys.executable, script.name],
            cwd=tmp_path,
            capture_output=True,
            text=True,
            timeout=SCRIPT_TIMEOUT_S,
            env={**os.environ, "PYTHONPATH": str(ROOT)},
        )
        assert proc.returncode == 0, f"block {i}:\n{source}\n{proc.stderr}"
