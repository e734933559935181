"""Training benchmarks of any game: ``caylus bench --training --game G``.

Three figures, each the median of ``repeats`` timed runs after an untimed warm-up (numba
kernels compiled, torch initialized), all in one process, torch on ``threads`` threads:

* **policy inference**: one decision of a ``policy:PATH`` agent (``PolicyAgent.act``: the
  observation encoded, the compiled network, the masked argmax), microseconds per decision
  over a few thousand positions of random games; and the same network on a batch of 128
  observations (what the opponent pool and the matches do), microseconds per decision;
* **training, this project's way**: ``caylus train ppo`` as it runs (``--algo maskable``,
  sb3-contrib's ``MaskablePPO``, and ``--algo cleanrl``, the one-file PPO), the default
  network (pieces-v1), 128 games stepped by one compiled call against the compiled ``random``
  opponent (the anchor's): samples per second end to end (collection and updates), the
  marginal rate between two run lengths (``marginal_rate``), so that the start-up (imports,
  the first reset, the final checkpoint) cancels out;
* **training, the naive way** (the anchor, measured in the same run): ``MaskablePPO`` with
  SB3's default MLP on a single-seat Gymnasium wrapper of the game's ``raw_env`` in a
  ``DummyVecEnv`` of 8 envs, the random opponents played in Python.
"""

from __future__ import annotations

import statistics
import tempfile
import time
from pathlib import Path
from typing import Any

import numpy as np

from caylus_env.core.registry import DEFAULT_GAME, game_spec

#: The player count of the figures when none is given: every game allows 2.
BENCH_PLAYERS = 2
#: Positions of the inference figure (at most), and the batch of the batched one.
POSITIONS, BATCH = 2000, 128


def _median_time(fn: Any, repeats: int) -> float:
    fn()  # warm-up
    times = []
    for _ in range(repeats):
        t = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t)
    return statistics.median(times)


def _fresh_checkpoint(directory: Path, game: str, players: int) -> Path:
    """A freshly initialized checkpoint of the default network for ``game`` (inference cost
    does not depend on training)."""
    from agents.policy import DEFAULT_ARCH
    from training.checkpoints import write_policy_checkpoint
    from training.networks import masked_policy, policy_tensors

    policy = masked_policy(DEFAULT_ARCH, game, 3e-4)
    meta = {"arch": DEFAULT_ARCH.to_json(), "num_players": [players], "step": 0, "seed": 0}
    tensors = policy_tensors(policy, DEFAULT_ARCH, game)
    return write_policy_checkpoint(directory / "bench", tensors, game, meta)


def policy_inference(
    game: str = DEFAULT_GAME,
    checkpoint: Path | None = None,
    repeats: int = 5,
    num_games: int = 6,
    players: int = BENCH_PLAYERS,
) -> dict[str, float]:
    """Microseconds per decision of a ``policy:PATH`` agent of ``game``, alone and batched
    by ``BATCH``."""
    import torch
    from threadpoolctl import threadpool_limits

    from agents.policy import PolicyAgent
    from caylus_env.core.vector import VectorGames

    threadpool_limits(1, user_api="blas")
    torch.set_num_threads(1)
    spec = game_spec(game)
    with tempfile.TemporaryDirectory() as tmp:
        path = checkpoint or _fresh_checkpoint(Path(tmp), spec.name, players)
        agent = PolicyAgent("policy:bench", path, game=spec.name)
        positions = []
        rng = np.random.default_rng(0)
        for seed in range(num_games):  # positions from whole games, early to late
            g = spec.new_game(spec.config(players), seed=seed)
            while not g.is_over():
                positions.append(g.clone())
                legal = g.legal_actions()
                g.apply(legal[int(rng.integers(len(legal)))])
        positions = positions[:: max(1, len(positions) // POSITIONS)]

        def single() -> None:
            for g in positions:
                agent.act(g)

        one = _median_time(single, repeats) / len(positions) * 1e6
        b = VectorGames(spec.name, BATCH, players).reset(seed=0)
        obs, mask = b.obs.copy(), b.mask.view(np.bool_).copy()
        batch_time = _median_time(lambda: agent.act_batch(obs, mask, np.zeros(BATCH)), repeats)
    return {
        "policy_us_per_decision": one,
        "policy_batch128_us_per_decision": batch_time / BATCH * 1e6,
    }


def _naive_env_class(game: str, players: int) -> type:
    import gymnasium as gym

    spec = game_spec(game)
    observer = spec.observation()
    num_actions = spec.engine().NUM_ACTIONS

    class SingleSeat(gym.Env):
        """Seat 0 of ``raw_env`` against random seats, as one Gymnasium env."""

        def __init__(self) -> None:
            self.env = spec.module("env").raw_env(num_players=players)
            self.observation_space = gym.spaces.Box(
                0.0, observer.BOUNDS, (observer.OBS_SIZE,), np.float32
            )
            self.action_space = gym.spaces.Discrete(num_actions)
            self.rng = np.random.default_rng(0)

        def _advance(self) -> bool:
            """Play the random seats until seat 0 must act; True when the game ended."""
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


def train_seconds(
    game: str,
    algo: str,
    steps: int,
    root: Path,
    envs: int = BATCH,
    players: int = BENCH_PLAYERS,
    threads: int = 1,
    opponents: str = "random:1",
) -> float:
    """Wall time of ``training.ppo.train`` for ``steps`` steps of ``game`` (a fresh run
    directory under ``root``; no checkpoint but the last, no evaluation)."""
    from training.ppo import config_from_args, train

    out = root / f"{game}-{algo}-{steps}-{time.perf_counter_ns()}"
    cfg = config_from_args(
        out=str(out),
        game=game,
        players=players,
        steps=steps,
        envs=envs,
        n_steps=32,
        batch_size=2048,
        opponents=opponents,  # the anchor's opponent by default: the games' cost, not the bots'
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


def marginal_rate(game: str, algo: str, short: int, long: int, root: Path, **kwargs: Any) -> float:
    """Training samples per second of ``game``: ``long - short`` extra steps over the extra
    time of a ``long``-step run against a ``short``-step one (``train_seconds``'s
    ``kwargs``)."""
    t_long = train_seconds(game, algo, long, root, **kwargs)
    t_short = train_seconds(game, algo, short, root, **kwargs)
    return (long - short) / (t_long - t_short)


def training_throughput(
    game: str = DEFAULT_GAME,
    steps: int = 16384,
    repeats: int = 3,
    envs: int = BATCH,
    threads: int = 1,
    players: int = BENCH_PLAYERS,
) -> dict[str, float]:
    """Samples per second end to end (collection and updates) of both PPO implementations on
    ``PoolGames`` of ``game`` (the marginal rate of ``2 * steps`` over ``steps`` steps), and
    of MaskablePPO on the naive ``raw_env`` wrapper."""
    import torch
    from sb3_contrib import MaskablePPO
    from stable_baselines3.common.vec_env import DummyVecEnv

    torch.set_num_threads(threads)
    out: dict[str, float] = {"envs": envs, "threads": threads, "players": players}
    kwargs = {"envs": envs, "players": players, "threads": threads}
    with tempfile.TemporaryDirectory() as tmp:
        for algo in ("maskable", "cleanrl"):
            train_seconds(game, algo, steps, Path(tmp), **kwargs)  # warm-up
            rates = [
                marginal_rate(game, algo, steps, 2 * steps, Path(tmp), **kwargs)
                for _ in range(repeats)
            ]
            out[f"{algo}_samples_per_s"] = statistics.median(rates)
    env_class = _naive_env_class(game, players)
    naive_env = DummyVecEnv([env_class for _ in range(8)])
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


def run(
    game: str = DEFAULT_GAME,
    repeats: int = 3,
    quick: bool = False,
    threads: int = 1,
    players: int | None = None,
) -> dict[str, Any]:
    """Every figure of this module for ``game`` (``quick``: fewer steps, for smoke tests;
    ``threads``: the trainers' torch threads; ``players``: default ``BENCH_PLAYERS``).

    Raises:
        ValueError: for an unknown game or a player count it does not allow.
    """
    spec = game_spec(game)
    players = BENCH_PLAYERS if players is None else players
    if players not in spec.player_counts:
        raise ValueError(
            f"--players {players} is not allowed for {spec.name}; allowed: "
            f"{spec.min_players}-{spec.max_players}"
        )
    figures: dict[str, Any] = {"game": spec.name}
    figures.update(
        policy_inference(spec.name, repeats=repeats, num_games=2 if quick else 6, players=players)
    )
    figures.update(
        training_throughput(
            spec.name,
            steps=4096 if quick else 32768,
            repeats=repeats,
            threads=threads,
            players=players,
        )
    )
    return figures


def table(figures: dict[str, Any]) -> str:
    """The figures of ``run`` as a Markdown table."""
    from agents.policy import DEFAULT_ARCH

    title = game_spec(figures.get("game", DEFAULT_GAME)).title
    setting = (
        f"{figures['envs']:.0f} games of {figures['players']:.0f} players, {DEFAULT_ARCH.NAME}, "
        f"{figures['threads']:.0f} torch thread(s)"
    )
    return "\n".join(
        [
            f"| figure ({title}) | value |",
            "|---|---:|",
            f"| policy:PATH, one decision | {figures['policy_us_per_decision']:.1f} µs |",
            f"| policy:PATH, batch of 128 | "
            f"{figures['policy_batch128_us_per_decision']:.1f} µs a decision |",
            f"| MaskablePPO on PoolVecEnv ({setting}) | "
            f"{figures['maskable_samples_per_s']:,.0f} samples/s |",
            f"| CleanRL-style PPO (training/cleanrl_ppo.py), same games and network | "
            f"{figures['cleanrl_samples_per_s']:,.0f} samples/s |",
            f"| MaskablePPO on raw_env single-seat wrapper (8 envs, MLP) | "
            f"{figures['naive_samples_per_s']:,.0f} samples/s |",
            f"| ratio | {figures['ratio']:.1f}x (MaskablePPO), "
            f"{figures['cleanrl_ratio']:.1f}x (CleanRL-style) |",
        ]
    )


__all__ = [
    "marginal_rate",
    "policy_inference",
    "run",
    "table",
    "train_seconds",
    "training_throughput",
]
