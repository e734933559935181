"""Throughput of the Puerto Rico PettingZoo env (``puerto_rico_v0.raw_env``) on one core.

Usage: ``python bench/pr_env_bench.py [--repeats 5] [--players 3] [--decisions 100000]
[--expansion] [--wrapped] [--no-anchor]``.

The figure is decisions per second of the standard AEC loop over whole random games, the
loop ``caylus bench`` times for Caylus's ``raw_env`` (``caylus_env.core.benchmark.aec_rate``):
``last()`` (the observation and the action mask of the agent to act), a uniform random
legal id from the mask (``random.choice(np.flatnonzero(mask))``, as PettingZoo's
``performance_benchmark``), ``step``; finished agents are drained with ``step(None)`` and
not counted, and the next game starts with the next seed. The figure is the median of
``repeats`` runs after one warm-up run. The target is ``TARGET`` decisions/s (Caylus's
``raw_env`` target, ``caylus_env.core.benchmark.TARGETS``); ``--wrapped`` times ``env()``
against Caylus's ``env()`` target instead.

As an anchor, Caylus's ``raw_env`` with the same player count is timed in the same loop,
its runs alternating with Puerto Rico's, so that the ratio stays meaningful on a loaded
machine (the README's Caylus figure was measured on a quiet one). Run it alone on the
machine: a second job on the same cores skews every figure.
"""

from __future__ import annotations

import argparse
import random
import statistics
import time
from collections.abc import Callable
from typing import Any

import numpy as np

from caylus_env import caylus_v0, puerto_rico_v0
from caylus_env.core.benchmark import TARGETS

TARGET = TARGETS["raw_env"]


def aec_run(env: Any, decisions: int) -> tuple[int, float, int]:
    """One run of the AEC loop (see the module doc): decisions, seconds, games finished."""
    rng = random.Random(0)
    seed = 0
    env.reset(seed=seed)
    count = 0
    finished = 0
    t0 = time.perf_counter()
    while count < decisions:
        obs, _, term, trunc, _ = env.last()
        if term or trunc:
            env.step(None)
            if not env.agents:
                finished += 1
                seed += 1
                env.reset(seed=seed)
            continue
        env.step(int(rng.choice(np.flatnonzero(obs["action_mask"]))))
        count += 1
    return count, time.perf_counter() - t0, finished


def alternating_rates(
    makers: dict[str, Callable[[], Any]], decisions: int, repeats: int
) -> dict[str, tuple[float, int]]:
    """Median decisions/s of each env and the games one run finishes; the envs' runs
    alternate, after one warm-up run each (compiles or loads the kernels)."""
    envs = {name: make() for name, make in makers.items()}
    rates: dict[str, list[float]] = {name: [] for name in envs}
    games: dict[str, int] = {}
    for env in envs.values():
        aec_run(env, decisions)
    for _ in range(repeats):
        for name, env in envs.items():
            count, seconds, games[name] = aec_run(env, decisions)
            rates[name].append(count / seconds)
    return {name: (statistics.median(r), games[name]) for name, r in rates.items()}


def main(
    players: int, decisions: int, repeats: int, expansion: bool, wrapped: bool, anchor: bool
) -> float:
    """Print the figure (and the anchor's) and return the Puerto Rico decisions/s."""
    name = "env()" if wrapped else "raw_env"
    makers: dict[str, Callable[[], Any]] = {
        "puerto_rico_v0": lambda: (puerto_rico_v0.env if wrapped else puerto_rico_v0.raw_env)(
            num_players=players, expansion=expansion
        )
    }
    if anchor:
        makers["caylus_v0"] = lambda: (caylus_v0.env if wrapped else caylus_v0.raw_env)(
            num_players=players
        )
    results = alternating_rates(makers, decisions, repeats)
    rate, games = results["puerto_rico_v0"]
    target = TARGETS["env"] if wrapped else TARGET
    verdict = "meets" if rate >= target else "misses"
    print(
        f"puerto_rico_v0.{name}, {players} players, expansion={expansion}: {rate:,.0f} "
        f"decisions/s (median of {repeats} runs of {decisions:,} decisions, {games} whole "
        f"games each); {verdict} the {name} target of {target:,}"
    )
    if anchor:
        caylus, _ = results["caylus_v0"]
        print(
            f"anchor caylus_v0.{name}, {players} players, same loop, alternating runs: "
            f"{caylus:,.0f} decisions/s; Puerto Rico / Caylus = {rate / caylus:.2f}"
        )
    return rate


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--players", type=int, default=3)
    parser.add_argument("--decisions", type=int, default=100_000)
    parser.add_argument("--expansion", action="store_true")
    parser.add_argument("--wrapped", action="store_true", help="time env() instead of raw_env")
    parser.add_argument("--no-anchor", action="store_true", help="skip the Caylus anchor")
    args = parser.parse_args()
    main(
        args.players, args.decisions, args.repeats, args.expansion, args.wrapped, not args.no_anchor
    )
