"""Throughput of the Puerto Rico PettingZoo env (``puerto_rico_v0.raw_env``) on one core.

Usage: ``python bench/pr_env_bench.py [--repeats 5] [--players 3] [--decisions 100000]
[--expansion] [--wrapped]``.

The figure is decisions per second of the standard AEC loop over whole random games, the
loop ``caylus bench`` times for Caylus's ``raw_env`` (``caylus_env.benchmark.aec_rate``):
``last()`` (the observation and the action mask of the agent to act), a uniform random
legal id from the mask (``random.choice(np.flatnonzero(mask))``, as PettingZoo's
``performance_benchmark``), ``step``; finished agents are drained with ``step(None)`` and
not counted, and the next game starts with the next seed. Each figure is the median of
``repeats`` runs after one warm-up run. The target is ``TARGET`` decisions/s for
``raw_env`` (Caylus's ``raw_env`` target, ``caylus_env.benchmark.TARGETS``).

Run it alone on the machine: a second job on the same cores skews every figure.
"""

from __future__ import annotations

import argparse
import random
import statistics
import time
from collections.abc import Callable
from typing import Any

import numpy as np

from caylus_env import puerto_rico_v0

TARGET = 100_000


def aec_rate(make_env: Callable[[], Any], decisions: int, repeats: int) -> tuple[float, int]:
    """Median decisions/s of the AEC loop (see the module doc) and the games it finished."""
    env = make_env()
    games = []

    def run() -> tuple[int, float]:
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
        seconds = time.perf_counter() - t0
        games.append(finished)
        return count, seconds

    run()  # warm-up: compiles or loads the kernels
    rates = []
    for _ in range(repeats):
        count, seconds = run()
        rates.append(count / seconds)
    return statistics.median(rates), games[-1]


def main(players: int, decisions: int, repeats: int, expansion: bool, wrapped: bool) -> float:
    make = puerto_rico_v0.env if wrapped else puerto_rico_v0.raw_env
    name = "env()" if wrapped else "raw_env"
    rate, games = aec_rate(
        lambda: make(num_players=players, expansion=expansion), decisions, repeats
    )
    verdict = "meets" if rate >= TARGET else "misses"
    print(
        f"puerto_rico_v0.{name}, {players} players, expansion={expansion}: {rate:,.0f} "
        f"decisions/s (median of {repeats} runs of {decisions:,} decisions, {games} whole games "
        f"each); {verdict} the raw_env target of {TARGET:,}"
    )
    return rate


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--players", type=int, default=3)
    parser.add_argument("--decisions", type=int, default=100_000)
    parser.add_argument("--expansion", action="store_true")
    parser.add_argument("--wrapped", action="store_true", help="time env() instead of raw_env")
    args = parser.parse_args()
    main(args.players, args.decisions, args.repeats, args.expansion, args.wrapped)
