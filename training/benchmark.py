"""Training benchmarks: ``caylus bench --training`` and ``bench/train_bench.py``.

Three figures, each the median of ``repeats`` timed runs after an untimed warm-up (numba
kernels compiled, torch initialized), all in one process on one core
(``torch.set_num_threads(1)``):

* **policy inference**: one decision of a ``policy:PATH`` agent (``PolicyAgent.act``: the
  observation encoded, the NumPy network, the masked argmax), microseconds per decision
  over a few thousand positions of real games; and the same network on a batch of 128
  observations (what the opponent pool and the tournament do), microseconds per decision;
* **training, this project's way**: ``MaskablePPO`` with the pieces-v1 network on
  ``PoolVecEnv`` (``--envs`` games stepped by one compiled call, compiled opponents),
  samples per second end to end (collection and updates);
* **training, the naive way** (the anchor, measured in the same run): ``MaskablePPO`` with
  SB3's default MLP on a single-seat Gymnasium wrapper of ``raw_env`` in a ``DummyVecEnv``
  of 8 envs, the random opponent played in Python.
"""

from __future__ import annotations

import statistics
import tempfile
import time
from pathlib import Path
from typing import Any

import numpy as np


def _median_time(fn: Any, repeats: int) -> float:
    fn()  # warm-up
    times = []
    for _ in range(repeats):
        t = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t)
    return statistics.median(times)


def _tiny_checkpoint(directory: Path) -> Path:
    """A freshly initialized pieces-v1 checkpoint (inference cost does not depend on
    training)."""
    from gymnasium import spaces
    from sb3_contrib.common.maskable.policies import MaskableActorCriticPolicy

    from agents.policy import Arch
    from caylus_env.engine.actions import NUM_ACTIONS
    from caylus_env.observation import BOUNDS, OBS_SIZE
    from training.checkpoints import write_policy_checkpoint
    from training.networks import policy_kwargs, policy_tensors

    arch = Arch()
    policy = MaskableActorCriticPolicy(
        spaces.Box(0.0, BOUNDS, (OBS_SIZE,), np.float32),
        spaces.Discrete(NUM_ACTIONS),
        lambda _: 3e-4,
        **policy_kwargs(arch),
    )
    meta = {"arch": arch.to_json(), "num_players": [2], "step": 0, "seed": 0, "parent": None}
    return write_policy_checkpoint(directory / "bench", policy_tensors(policy), meta)


def policy_inference(
    checkpoint: Path | None = None, repeats: int = 5, num_games: int = 6
) -> dict[str, float]:
    """Microseconds per decision of a ``policy:PATH`` agent, alone and batched by 128."""
    import torch
    from threadpoolctl import threadpool_limits

    threadpool_limits(1, user_api="blas")

    from agents.policy import PolicyAgent
    from caylus_env.engine import Game, GameConfig

    torch.set_num_threads(1)
    with tempfile.TemporaryDirectory() as tmp:
        path = checkpoint or _tiny_checkpoint(Path(tmp))
        agent = PolicyAgent("policy:bench", path)
        games = []
        rng = np.random.default_rng(0)
        for seed in range(num_games):  # positions from whole games, early to late
            g = Game(GameConfig(2), seed=seed)
            while not g.is_terminal():
                games.append(g.clone())
                legal = g.legal_actions()
                g.apply(legal[int(rng.integers(len(legal)))])
        positions = games[:: max(1, len(games) // 2000)]

        def single() -> None:
            for g in positions:
                agent.act(g)

        one = _median_time(single, repeats) / len(positions) * 1e6
        from caylus_env.vector import VectorGames

        vg = VectorGames(128, 2)
        b = vg.reset(seed=0)
        obs, mask = b.obs.copy(), b.mask.view(np.bool_).copy()
        batched = _median_time(lambda: agent.act_batch(obs, mask, np.zeros(128)), repeats) / 128
    return {"policy_us_per_decision": one, "policy_batch128_us_per_decision": batched * 1e6}


def _naive_env_class() -> type:
    import gymnasium as gym

    from caylus_env import caylus_v0
    from caylus_env.engine.actions import NUM_ACTIONS
    from caylus_env.observation import BOUNDS, OBS_SIZE

    class SingleSeat(gym.Env):
        """Seat 0 of ``raw_env`` against a random seat 1, as one Gymnasium env."""

        def __init__(self) -> None:
            self.env = caylus_v0.raw_env(num_players=2)
            self.observation_space = gym.spaces.Box(0.0, BOUNDS, (OBS_SIZE,), np.float32)
            self.action_space = gym.spaces.Discrete(NUM_ACTIONS)
            self.rng = np.random.default_rng(0)

        def _advance(self) -> bool:
            """Play the random seat until seat 0 must act; True when the game ended."""
            e = self.env
            while True:
                obs, _, terminated, truncated, _ = e.last()
                if terminated or truncated:
                    return True
                if e.agent_selection == "player_0":
                    return False
                e.step(int(self.rng.choice(np.flatnonzero(obs["action_mask"]))))

        def reset(self, seed: int | None = None, options: Any = None) -> Any:
            self.env.reset(seed=seed)
            self._advance()
            return self.env.observe("player_0")["observation"], {}

        def step(self, action: int) -> Any:
            e = self.env
            e.step(int(action))
            done = self._advance()
            reward = float(e._cumulative_rewards["player_0"]) if done else 0.0
            return e.observe("player_0")["observation"], reward, done, False, {}

        def action_masks(self) -> np.ndarray:
            return self.env.observe("player_0")["action_mask"].astype(np.bool_)

    return SingleSeat


def training_throughput(steps: int = 16384, repeats: int = 3, envs: int = 128) -> dict[str, float]:
    """Samples per second of MaskablePPO: this project's batched pool vs the naive wrapper."""
    import torch
    from sb3_contrib import MaskablePPO
    from stable_baselines3.common.vec_env import DummyVecEnv

    from agents.policy import Arch
    from training.learner import PoolGames
    from training.networks import policy_kwargs
    from training.vecenv import PoolVecEnv

    torch.set_num_threads(1)
    ours_env = PoolVecEnv(PoolGames(envs, 2, opponents="random:1,economy:1"), seed=0)
    ours = MaskablePPO(
        "MlpPolicy",
        ours_env,
        n_steps=32,
        batch_size=2048,
        n_epochs=4,
        seed=0,
        device="cpu",
        policy_kwargs=policy_kwargs(Arch()),
    )
    naive_env = DummyVecEnv([_naive_env_class() for _ in range(8)])
    naive = MaskablePPO("MlpPolicy", naive_env, n_steps=256, batch_size=64, seed=0, device="cpu")
    out = {}
    for name, model, n in (("ours", ours, steps), ("naive", naive, max(512, steps // 4))):
        rates = []

        def learn(m: Any = model, k: int = n, rates: list[float] = rates) -> None:
            # SB3 collects whole rollouts: count the samples it took, not the ones asked for.
            before = m.num_timesteps
            t = time.perf_counter()
            m.learn(k, reset_num_timesteps=False)
            rates.append((m.num_timesteps - before) / (time.perf_counter() - t))

        _median_time(learn, repeats)
        out[f"{name}_samples_per_s"] = statistics.median(rates[1:])
    out["ratio"] = out["ours_samples_per_s"] / out["naive_samples_per_s"]
    out["envs"] = envs
    return out


def run(repeats: int = 3, quick: bool = False) -> dict[str, float]:
    """Every figure of this module (``quick``: fewer steps, for smoke tests)."""
    figures = policy_inference(repeats=repeats, num_games=2 if quick else 6)
    figures.update(training_throughput(steps=2048 if quick else 16384, repeats=repeats))
    return figures


def table(figures: dict[str, float]) -> str:
    return "\n".join(
        [
            "| figure | value |",
            "|---|---:|",
            f"| policy:PATH, one decision | {figures['policy_us_per_decision']:.1f} µs |",
            f"| policy:PATH, batch of 128 | "
            f"{figures['policy_batch128_us_per_decision']:.1f} µs a decision |",
            f"| MaskablePPO on PoolVecEnv ({figures['envs']:.0f} games, pieces-v1) | "
            f"{figures['ours_samples_per_s']:,.0f} samples/s |",
            f"| MaskablePPO on raw_env single-seat wrapper (8 envs, MLP) | "
            f"{figures['naive_samples_per_s']:,.0f} samples/s |",
            f"| ratio | {figures['ratio']:.1f}x |",
        ]
    )
