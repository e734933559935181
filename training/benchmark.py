"""Training benchmarks: ``caylus bench --training`` and ``bench/train_bench.py``.

Three figures, each the median of ``repeats`` timed runs after an untimed warm-up (numba
kernels compiled, torch initialized), all in one process on one core
(``torch.set_num_threads(1)``):

* **policy inference**: one decision of a ``policy:PATH`` agent (``PolicyAgent.act``: the
  observation encoded, the compiled network, the masked argmax), microseconds per decision
  over a few thousand positions of real games; and the same network on a batch of 128
  observations (what the opponent pool and the tournament do), microseconds per decision;
* **training, this project's way**: ``caylus train ppo`` as it runs (``--algo maskable``,
  sb3-contrib's ``MaskablePPO``, and ``--algo cleanrl``, the one-file PPO), pieces-v1 network,
  128 games stepped by one compiled call against the compiled ``random`` opponent (the
  anchor's), ``--threads`` torch threads: samples per second end to end (collection and
  updates);
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
    from caylus_env.caylus.engine.actions import NUM_ACTIONS
    from caylus_env.caylus.observation import BOUNDS, OBS_SIZE
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
    from caylus_env.caylus.engine import Game, GameConfig

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
        from caylus_env.core.vector import VectorGames

        vg = VectorGames(128, 2)
        b = vg.reset(seed=0)
        obs, mask = b.obs.copy(), b.mask.view(np.bool_).copy()
        batched = _median_time(lambda: agent.act_batch(obs, mask, np.zeros(128)), repeats) / 128
    return {"policy_us_per_decision": one, "policy_batch128_us_per_decision": batched * 1e6}


def _naive_env_class() -> type:
    import gymnasium as gym

    from caylus_env import caylus_v0
    from caylus_env.caylus.engine.actions import NUM_ACTIONS
    from caylus_env.caylus.observation import BOUNDS, OBS_SIZE

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


def _train_seconds(algo: str, steps: int, envs: int, root: Path, threads: int = 1) -> float:
    """Wall time of ``training.ppo.train`` for ``steps`` steps (a fresh run directory)."""
    from training.ppo import config_from_args, train

    out = root / f"{algo}-{steps}-{time.perf_counter_ns()}"
    cfg = config_from_args(
        out=str(out),
        steps=steps,
        envs=envs,
        n_steps=32,
        batch_size=2048,
        opponents="random:1",  # the anchor's opponent: the games' cost, not the bots'
        checkpoint_every=10**9,
        eval_games=0,
        gate_games=1,
        threads=threads,
        algo=algo,
        progress=False,
    )
    t = time.perf_counter()
    train(cfg)
    return time.perf_counter() - t


def training_throughput(
    steps: int = 16384, repeats: int = 3, envs: int = 128, threads: int = 1
) -> dict[str, float]:
    """Samples per second end to end (collection and updates) of both PPO implementations on
    ``PoolGames``, and of MaskablePPO on the naive ``raw_env`` wrapper.

    The trainers are timed as ``caylus train ppo`` runs them, for ``steps`` and for ``2 *
    steps`` steps: the rate is ``steps`` over the difference, so the start-up (imports, the
    first reset, the final checkpoint) cancels out.
    """
    import torch
    from sb3_contrib import MaskablePPO
    from stable_baselines3.common.vec_env import DummyVecEnv

    torch.set_num_threads(threads)
    out: dict[str, float] = {"envs": envs, "threads": threads}
    with tempfile.TemporaryDirectory() as tmp:
        for algo in ("maskable", "cleanrl"):
            _train_seconds(algo, steps, envs, Path(tmp), threads)  # warm-up
            rates = [
                steps
                / (
                    _train_seconds(algo, 2 * steps, envs, Path(tmp), threads)
                    - _train_seconds(algo, steps, envs, Path(tmp), threads)
                )
                for _ in range(repeats)
            ]
            out[f"{algo}_samples_per_s"] = statistics.median(rates)
    naive_env = DummyVecEnv([_naive_env_class() for _ in range(8)])
    naive = MaskablePPO("MlpPolicy", naive_env, n_steps=256, batch_size=64, seed=0, device="cpu")
    n = max(2048, steps // 4)
    naive.learn(2048)
    rates = []
    for _ in range(repeats):
        before, t = naive.num_timesteps, time.perf_counter()
        naive.learn(n, reset_num_timesteps=False)
        rates.append((naive.num_timesteps - before) / (time.perf_counter() - t))
    out["naive_samples_per_s"] = statistics.median(rates)
    out["ratio"] = out["maskable_samples_per_s"] / out["naive_samples_per_s"]
    out["cleanrl_ratio"] = out["cleanrl_samples_per_s"] / out["naive_samples_per_s"]
    return out


def run(repeats: int = 3, quick: bool = False, threads: int = 1) -> dict[str, float]:
    """Every figure of this module (``quick``: fewer steps, for smoke tests; ``threads``: the
    trainers' torch threads)."""
    figures = policy_inference(repeats=repeats, num_games=2 if quick else 6)
    figures.update(
        training_throughput(steps=4096 if quick else 32768, repeats=repeats, threads=threads)
    )
    return figures


def table(figures: dict[str, float]) -> str:
    return "\n".join(
        [
            "| figure | value |",
            "|---|---:|",
            f"| policy:PATH, one decision | {figures['policy_us_per_decision']:.1f} µs |",
            f"| policy:PATH, batch of 128 | "
            f"{figures['policy_batch128_us_per_decision']:.1f} µs a decision |",
            f"| MaskablePPO on PoolVecEnv ({figures['envs']:.0f} games, pieces-v1, "
            f"{figures['threads']:.0f} torch thread(s)) | "
            f"{figures['maskable_samples_per_s']:,.0f} samples/s |",
            f"| CleanRL-style PPO (training/cleanrl_ppo.py), same games and network | "
            f"{figures['cleanrl_samples_per_s']:,.0f} samples/s |",
            f"| MaskablePPO on raw_env single-seat wrapper (8 envs, MLP) | "
            f"{figures['naive_samples_per_s']:,.0f} samples/s |",
            f"| ratio | {figures['ratio']:.1f}x (MaskablePPO), "
            f"{figures['cleanrl_ratio']:.1f}x (CleanRL-style) |",
        ]
    )
