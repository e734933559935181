"""RLlib (the ``[rllib]`` extra: ``ray[rllib]`` 2.60 with its gymnasium, torch) trains every
game through ``caylus_env.integrations.rllib`` with no glue.

The env follows RLlib's multi-agent conventions and PettingZoo's rewards (checked move by
move against the game's AEC env), refuses illegal actions, and repeats its episodes from a
seed; RLlib's own masked module never puts weight on an illegal action; PPO built by
``ppo_config`` trains on a local multi-process Ray with a remote EnvRunner for every game (the
env raises on an illegal action and a failed EnvRunner stops training, so a completed run
played legal moves only); two runs with the same seed sample the same episodes. Ray runs as
a private local cluster per test module (random ports, its own temp dir) and is shut down.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tempfile
import time
import warnings
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from caylus_env.core.errors import IllegalActionError
from caylus_env.core.registry import GAME_NAMES, game_spec
from tests.conftest import init_local_ray, warm_kernels

#: Games whose options cut random play off by a decision cap (truncation).
TRUNCATING = [g for g in GAME_NAMES if game_spec(g).truncating_options is not None]
#: A small network and batch: the training tests check the plumbing, not the play.
SMALL_MODEL = {"fcnet_hiddens": [32], "head_fcnet_hiddens": [], "vf_share_layers": True}


@pytest.fixture(scope="module")
def rllib() -> Any:
    """The adapter module, once ``ray.rllib`` imports (the ``[rllib]`` extra)."""
    pytest.importorskip("ray.rllib")
    from caylus_env.integrations import rllib as adapter

    return adapter


@pytest.fixture(scope="module")
def local_ray(rllib: Any) -> Iterator[Path]:
    """A private local Ray (`tests.conftest.init_local_ray`: 2 CPUs, un-niced workers, never a
    cluster that RAY_ADDRESS names; random ports; a temp dir of its own, yielded), shut down
    after the module."""
    import ray

    if ray.is_initialized():
        pytest.fail("Ray is already initialized in this process; the test needs its own")
    temp = tempfile.mkdtemp(prefix="ray")  # short: Ray's socket paths must stay short
    init_local_ray(_temp_dir=temp)
    try:
        yield Path(temp)
    finally:
        ray.shutdown()
        # Ray's last processes may still write their logs while they exit: retry briefly.
        for _ in range(40):
            shutil.rmtree(temp, ignore_errors=True)
            if not Path(temp).exists():
                break
            time.sleep(0.25)


def _legal(obs: dict[str, np.ndarray], key: str) -> np.ndarray:
    return np.flatnonzero(obs[key])


def test_importing_the_adapter_needs_no_ray() -> None:
    code = (
        "import sys, caylus_env, caylus_env.integrations.rllib as r\n"
        "assert r.ppo_config and r.module_spec\n"
        "loaded = [m for m in sys.modules if m == 'ray' or m.startswith('ray.')]\n"
        "assert not loaded, loaded\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr


@pytest.mark.parametrize("game", GAME_NAMES)
def test_env_follows_rllib_conventions_and_pettingzoo_rewards_over_a_whole_game(
    rllib: Any, game: str
) -> None:
    env = rllib.MultiAgentGameEnv(game=game, num_players=3)
    from ray.rllib.env.multi_agent_env import MultiAgentEnv

    assert isinstance(env, MultiAgentEnv)
    aec = game_spec(game).module("env").raw_env(num_players=3)
    obs, infos = env.reset(seed=11)
    aec.reset(seed=11)
    rng = np.random.default_rng(0)
    steps = 0
    while True:
        (agent,) = obs  # only the agent to act observes
        assert agent == aec.agent_selection and set(infos) == {agent}
        assert env.observation_spaces[agent].contains(obs[agent])
        expected = aec.observe(agent)
        np.testing.assert_array_equal(obs[agent][rllib.OBS_KEY], expected["observation"])
        np.testing.assert_array_equal(obs[agent][rllib.MASK_KEY], expected["action_mask"])
        action = int(rng.choice(_legal(obs[agent], rllib.MASK_KEY)))
        obs, rewards, terminateds, truncateds, infos = env.step({agent: np.int64(action)})
        aec.step(action)
        steps += 1
        assert set(rewards) == set(env.possible_agents)
        assert rewards == {a: float(aec.rewards[a]) for a in env.possible_agents}
        if terminateds["__all__"] or truncateds["__all__"]:
            break
        assert terminateds == {"__all__": False} and truncateds == {"__all__": False}
    # The end: every seat gets its final reward (not only the last mover), its last
    # observation (mask all zeros), its flag and the end-of-game info.
    assert terminateds == {**dict.fromkeys(env.possible_agents, True), "__all__": True}
    assert truncateds == {**dict.fromkeys(env.possible_agents, False), "__all__": False}
    assert set(obs) == set(env.possible_agents) == set(infos)
    assert all(not o[rllib.MASK_KEY].any() for o in obs.values())
    assert sum(rewards.values()) == pytest.approx(0.0)
    assert len(set(rewards.values())) > 1  # ranks differ: not all zeros
    assert all({"final_score", "rank"} <= set(info) for info in infos.values())
    assert env.agents == []
    with pytest.raises(RuntimeError, match="call reset"):
        env.step({agent: 0})
    assert steps > 0 and env.aec_env.state_dict() == aec.state_dict()


@pytest.mark.parametrize("game", GAME_NAMES)
def test_api_test_passes_on_the_aec_env_the_adapter_plays(rllib: Any, game: str) -> None:
    """The adapter's game is a PettingZoo env that passes PettingZoo's own ``api_test``
    (RLlib's pre-check plays unmasked actions, which the env rightly refuses: below)."""
    from pettingzoo.test import api_test

    env = rllib.MultiAgentGameEnv(game=game, num_players=3)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # api_test's advisory dtype hints; checks assert
        api_test(env.aec_env, num_cycles=300)


@pytest.mark.parametrize("game", TRUNCATING)
def test_a_game_cut_off_by_its_decision_cap_ends_truncated_with_final_observations(
    rllib: Any, game: str
) -> None:
    env = rllib.MultiAgentGameEnv(game=game, **game_spec(game).truncating_options)
    obs, _ = env.reset(seed=3)
    rng = np.random.default_rng(3)
    for _ in range(10_000):
        (agent,) = obs
        action = int(rng.choice(_legal(obs[agent], rllib.MASK_KEY)))
        obs, rewards, terminateds, truncateds, _ = env.step({agent: action})
        if truncateds["__all__"] or terminateds["__all__"]:
            break
    assert truncateds == {**dict.fromkeys(env.possible_agents, True), "__all__": True}
    assert terminateds["__all__"] is False
    assert set(obs) == set(env.possible_agents)  # RLlib needs them to bootstrap values
    assert rewards == dict.fromkeys(env.possible_agents, 0.0)


@pytest.mark.parametrize("game", GAME_NAMES)
def test_illegal_or_malformed_actions_raise_and_change_nothing(rllib: Any, game: str) -> None:
    env = rllib.MultiAgentGameEnv({"game": game})
    obs, _ = env.reset(seed=5)
    (agent,) = obs
    mask = obs[agent][rllib.MASK_KEY]
    illegal = int(np.flatnonzero(mask == 0)[0])
    before = env.aec_env.state_dict()
    with pytest.raises(IllegalActionError, match="disable_env_checking"):
        env.step({agent: illegal})
    for bad in (1.0, True, "0", np.zeros(2, np.int64)):
        with pytest.raises(IllegalActionError, match="integer action id"):
            env.step({agent: bad})
    other = next(a for a in env.possible_agents if a != agent)
    with pytest.raises(ValueError, match="the one agent to act"):
        env.step({other: 0})
    with pytest.raises(ValueError, match="the one agent to act"):
        env.step({agent: 0, other: 0})
    assert env.aec_env.state_dict() == before
    legal = int(np.flatnonzero(mask)[0])
    env.step({agent: np.array(legal)})  # a 0-d integer array is an action id
    assert env.aec_env.state_dict() != before


def test_bad_settings_are_refused_naming_what_is_allowed(rllib: Any) -> None:
    with pytest.raises(ValueError, match="needs game="):
        rllib.make_env({})
    with pytest.raises(ValueError, match="unknown game 'chess'"):
        rllib.make_env(game="chess")
    with pytest.raises(ValueError, match="reward="):
        rllib.ppo_config(GAME_NAMES[0], reward="score")
    with pytest.raises(ValueError, match="no_such_option"):
        rllib.ppo_config(GAME_NAMES[0], no_such_option=1)
    env = rllib.make_env(game=GAME_NAMES[0])
    for seed in (-1, 1.5, "7"):
        with pytest.raises(ValueError, match="seed must be None or a non-negative int"):
            env.reset(seed=seed)
    creator = rllib._make_game_env
    with pytest.raises(ValueError, match="drop 'game'"):
        creator(GAME_NAMES[0], {"game": GAME_NAMES[-1] + "_other"})


@pytest.mark.parametrize("game", GAME_NAMES)
def test_seeded_reset_then_unseeded_resets_repeat_the_aec_envs_episodes(
    rllib: Any, game: str
) -> None:
    def episodes(env: Any, seed: int) -> list[list[int]]:
        played = []
        for i in range(3):
            obs, _ = env.reset(seed=seed) if i == 0 else env.reset()
            actions: list[int] = []
            rng = np.random.default_rng(i)
            while obs and all(o[rllib.MASK_KEY].any() for o in obs.values()):
                (agent,) = obs
                actions.append(int(rng.choice(_legal(obs[agent], rllib.MASK_KEY))))
                obs, *_ = env.step({agent: actions[-1]})
            played.append(actions)
        return played

    first = episodes(rllib.make_env(game=game), 21)
    assert first == episodes(rllib.make_env(game=game), 21)
    assert len({tuple(a) for a in first}) == 3  # the unseeded resets move on
    aec = game_spec(game).module("env").raw_env()
    for i, actions in enumerate(first):  # the same games as the AEC env under those resets
        aec.reset(seed=21) if i == 0 else aec.reset()
        for action in actions:
            aec.step(action)
        assert all(aec.terminations.values()) or all(aec.truncations.values())


def test_env_pickles_by_name_for_remote_workers(rllib: Any) -> None:
    import pickle

    env = rllib.make_env(game=GAME_NAMES[-1], num_players=3)
    obs, _ = env.reset(seed=1)
    clone = pickle.loads(pickle.dumps(env))  # the AEC env inside pickles by its arguments
    assert type(clone) is rllib.MultiAgentGameEnv
    assert clone.possible_agents == env.possible_agents
    again, _ = clone.reset(seed=1)
    assert again.keys() == obs.keys()
    for agent, o in obs.items():
        for key, array in o.items():
            np.testing.assert_array_equal(again[agent][key], array)


def test_rllib_pre_check_plays_an_unmasked_action_the_env_refuses(rllib: Any) -> None:
    """Why ``ppo_config`` turns RLlib's pre-check off: it samples from the bare action space."""
    from ray.rllib.utils.pre_checks.env import check_multiagent_environments

    env = rllib.make_env(game=GAME_NAMES[0])
    obs, _ = env.reset(seed=42)  # the pre-check's own seed
    (agent,) = obs
    space = env.action_spaces[agent]
    seed = next(s for s in range(1000) if not obs[agent][rllib.MASK_KEY][_sample(space, s)])
    space.seed(seed)
    with pytest.raises(ValueError, match="step") as raised:
        check_multiagent_environments(env)
    assert isinstance(raised.value.__cause__, IllegalActionError)
    assert rllib.ppo_config(GAME_NAMES[0]).disable_env_checking is True


def _sample(space: Any, seed: int) -> int:
    space.seed(seed)
    return int(space.sample())


@pytest.mark.parametrize("per_seat", [False, True])
def test_masked_module_spec_never_samples_an_illegal_action(rllib: Any, per_seat: bool) -> None:
    import torch
    from ray.rllib.core.columns import Columns

    game = GAME_NAMES[-1]
    spec = rllib.module_spec(game, 3, per_seat=per_seat, model_config=SMALL_MODEL)
    env = rllib.make_env(game=game, num_players=3)
    expected = env.possible_agents if per_seat else [rllib.SHARED_MODULE]
    assert sorted(spec.rl_module_specs) == sorted(expected)
    module = spec.build()[expected[-1]]
    obs, _ = env.reset(seed=0)
    (agent,) = obs
    mask = obs[agent][rllib.MASK_KEY]
    batch = {
        Columns.OBS: {
            k: torch.as_tensor(np.repeat(v[None], 64, axis=0)) for k, v in obs[agent].items()
        }
    }
    logits = module.forward_exploration(batch)[Columns.ACTION_DIST_INPUTS]
    dist = module.get_exploration_action_dist_cls().from_logits(logits)
    torch.manual_seed(0)
    sampled = dist.sample().numpy()
    assert mask[sampled].all()
    assert (logits[:, mask == 0] < -1e30).all()


def _small_ppo(rllib: Any, game: str, *, seed: int, env_runners: int, **recipe: Any) -> Any:
    """A 300-step PPO iteration of ``game``. Its env kernels are compiled here first, so a
    remote EnvRunner loads them from the kernel cache instead of compiling them cold; and
    ``sample_timeout_s=None`` waits for the first sample however loaded the machine is:
    RLlib's 60 s default, reached at a load of 8 on two cores while a remote EnvRunner
    started, returns no sample at all (a result without ``env_runners``), and a hung EnvRunner
    is what the illegal-action test below catches, not a clock."""
    warm_kernels(game, envs=True)
    return (
        rllib.ppo_config(game, seed=seed, model_config=SMALL_MODEL, **recipe)
        .env_runners(num_env_runners=env_runners, num_envs_per_env_runner=1, sample_timeout_s=None)
        .training(train_batch_size_per_learner=300, minibatch_size=150, num_epochs=1)
    )


@pytest.mark.parametrize("game", GAME_NAMES)
def test_ppo_trains_on_a_local_multiprocess_ray_with_a_remote_env_runner(
    rllib: Any, local_ray: Path, game: str
) -> None:
    algo = _small_ppo(rllib, game, seed=1, env_runners=1).build_algo()
    try:
        assert algo.env_runner_group.num_remote_env_runners() == 1
        pids = algo.env_runner_group.foreach_env_runner(
            lambda runner: os.getpid(), local_env_runner=False
        )
        assert pids and os.getpid() not in pids
        result = algo.train()
    finally:
        algo.stop()
    # The env raises on an illegal action and a failed EnvRunner stops training (next
    # test): an iteration that completed sampled 300 env steps of legal moves only.
    assert result["env_runners"]["num_env_steps_sampled_lifetime"] >= 300
    assert result["learners"][rllib.SHARED_MODULE]["num_module_steps_trained"] > 0


def test_ppo_trains_one_policy_per_seat(rllib: Any, local_ray: Path) -> None:
    game = GAME_NAMES[-1]
    algo = _small_ppo(rllib, game, seed=4, env_runners=1, num_players=2, per_seat=True)
    algo = algo.build_algo()
    try:
        result = algo.train()
    finally:
        algo.stop()
    seats = ["player_0", "player_1"]
    assert all(result["learners"][seat]["num_module_steps_trained"] > 0 for seat in seats)
    assert rllib.SHARED_MODULE not in result["learners"]


@pytest.mark.slow
def test_an_illegal_action_on_a_remote_env_runner_stops_training(
    rllib: Any, local_ray: Path
) -> None:
    """The negative control of the training test: a module that ignores the mask plays an
    illegal action on the remote EnvRunner, the env raises (RLlib 2.60 then ends the
    EnvRunner's process), and ``algo.train()`` fails instead of restarting it and going on."""
    from ray.exceptions import RayActorError
    from ray.rllib.core.rl_module.multi_rl_module import MultiRLModuleSpec
    from ray.rllib.examples.rl_modules.classes.action_masking_rlm import (
        ActionMaskingTorchRLModule,
    )

    class Unmasked(ActionMaskingTorchRLModule):  # local: Ray ships it by value
        def _mask_action_logits(self, batch: Any, action_mask: Any) -> Any:
            return batch

    config = _small_ppo(rllib, GAME_NAMES[0], seed=2, env_runners=1)
    shared = config.rl_module_spec.rl_module_specs[rllib.SHARED_MODULE]
    shared.module_class = Unmasked
    config.rl_module(
        rl_module_spec=MultiRLModuleSpec(rl_module_specs={rllib.SHARED_MODULE: shared})
    )
    algo = config.build_algo()
    try:
        with pytest.raises(RayActorError):
            algo.train()
    finally:
        algo.stop()
    logs = "".join(p.read_text() for p in local_ray.glob("session_*/logs/worker-*.err"))
    assert "IllegalActionError: player_" in logs and "ignores the action mask" in logs


def _sampled_actions(runner: Any) -> list[dict[str, list[int]]]:
    episodes = runner.sample(num_episodes=2, explore=True)
    return [
        {aid: [int(a) for a in sa.get_actions()] for aid, sa in sorted(e.agent_episodes.items())}
        for e in episodes
    ]


def test_two_runs_with_one_seed_sample_the_same_episodes(rllib: Any, local_ray: Path) -> None:
    game = GAME_NAMES[-1]
    runs = []
    for _ in range(2):
        algo = _small_ppo(rllib, game, seed=7, env_runners=0).build_algo()
        try:
            runs.append(_sampled_actions(algo.env_runner))
        finally:
            algo.stop()
    # Two episodes: the first from the EnvRunner's seeded reset, the second from an unseeded
    # one (which repeats only because the env continues the generator of the seed).
    assert len(runs[0]) == 2 and runs[0][0] != runs[0][1]
    assert runs[0] == runs[1]
