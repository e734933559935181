"""Throughput of the Puerto Rico PettingZoo env (``puerto_rico_v0.raw_env``) on one core.

Usage: ``python bench/pr_env_bench.py [--repeats 5] [--players 3] [--decisions 100000]
[--expansion] [--wrapped] [--no-anchor]``.

The figure is decisions per second of the standard AEC loop over whole random games, the
loop ``caylus bench`` times for Caylus's ``raw_env`` (``caylus_env.benchmark.aec_rate``,
used here as is): ``last()`` (the observation and the action mask of the agent to act), a
uniform random legal id from the mask (``random.choice(np.flatnonzero(mask))``, as
PettingZoo's ``performance_benchmark``), ``step``; finished agents are drained with
``step(None)`` and not counted, and the next game starts with the next seed. Each figure
is the median of ``repeats`` runs after one warm-up run. The target is ``TARGET``
decisions/s (Caylus's ``raw_env`` target, ``caylus_env.benchmark.TARGETS``).

As an anchor, Caylus's ``raw_env`` with the same player count is timed in the same run, so
the ratio stays meaningful on a loaded machine (the README's Caylus figure was measured
on a quiet one). Run it alone on the machine: a second job on the same cores skews every
figure.
"""

from __future__ import annotations

import argparse

from caylus_env import caylus_v0, puerto_rico_v0
from caylus_env.benchmark import TARGETS, aec_rate

TARGET = TARGETS["raw_env"]


def main(
    players: int, decisions: int, repeats: int, expansion: bool, wrapped: bool, anchor: bool
) -> float:
    """Print the figure (and the anchor's) and return the Puerto Rico decisions/s."""
    make = puerto_rico_v0.env if wrapped else puerto_rico_v0.raw_env
    name = "env()" if wrapped else "raw_env"
    rate = aec_rate(lambda: make(num_players=players, expansion=expansion), decisions, repeats)
    verdict = "meets" if rate >= TARGET else "misses"
    print(
        f"puerto_rico_v0.{name}, {players} players, expansion={expansion}: {rate:,.0f} "
        f"decisions/s (median of {repeats} runs of {decisions:,} decisions); {verdict} the "
        f"raw_env target of {TARGET:,}"
    )
    if anchor:
        make_caylus = caylus_v0.env if wrapped else caylus_v0.raw_env
        caylus = aec_rate(lambda: make_caylus(num_players=players), decisions, repeats)
        print(
            f"anchor caylus_v0.{name}, {players} players, same loop and run: {caylus:,.0f} "
            f"decisions/s; Puerto Rico / Caylus = {rate / caylus:.2f}"
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
