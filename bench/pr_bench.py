"""Throughput of the Puerto Rico engine, random legal play on one core.

Usage: ``python bench/pr_bench.py [--repeats 3] [--players 2,3,4,5] [--quick]``.

Figures (each the median of ``repeats`` runs after one warm-up run):

- engine, one Python call per decision: ``kernels.step`` then a random legal id from the
  returned list (the same loop as the Caylus engine figure of ``caylus bench``);
- engine, whole random games inside compiled code (``kernels.play_random_games``);
- decisions per game (mean over the compiled games) and the share of truncated games;
- each without and with the expansion (its draft drawn at random, so not counted);
- the state size and the time of a ``Game.clone``.

Run it alone on the machine: a second job on the same cores skews every figure.
"""

from __future__ import annotations

import argparse
import random
import statistics
import time

import numpy as np

from caylus_env.puerto_rico.engine import NUM_ACTIONS, Game, GameConfig
from caylus_env.puerto_rico.engine import kernels as K
from caylus_env.puerto_rico.engine import layout as L
from caylus_env.puerto_rico.engine.constants import DEFAULT_MAX_DECISIONS


def _median_rate(run, repeats: int) -> float:
    run()
    rates = []
    for _ in range(repeats):
        count, seconds = run()
        rates.append(count / seconds)
    return statistics.median(rates)


def call_rate(num_players: int, expansion: int, decisions: int, repeats: int) -> float:
    """Decisions/s with one Python call per decision (``kernels.step``)."""
    buf = np.empty(NUM_ACTIONS, np.int64)
    step = K.step

    def run() -> tuple[int, float]:
        pick = random.Random(0).randrange
        count = 0
        seed = 0
        t0 = time.perf_counter()
        while count < decisions:
            s = K.new_state(num_players, DEFAULT_MAX_DECISIONS, expansion, expansion, 0, seed)
            seed += 1
            n = K.legal_actions(s, buf)
            while n > 0:
                n = step(s, buf[pick(n)], buf)
                count += 1
        return count, time.perf_counter() - t0

    return _median_rate(run, repeats)


def compiled_rate(
    num_players: int, expansion: int, games: int, repeats: int
) -> tuple[float, float, float]:
    """Decisions/s of whole compiled random games, decisions per game, truncated share."""
    lengths: list[np.ndarray] = []

    def run() -> tuple[int, float]:
        t0 = time.perf_counter()
        counts = K.play_random_games(num_players, games, 1, DEFAULT_MAX_DECISIONS, expansion)
        lengths.append(counts)
        return int(counts.sum()), time.perf_counter() - t0

    rate = _median_rate(run, repeats)
    counts = lengths[-1]
    return rate, float(counts.mean()), float((counts >= DEFAULT_MAX_DECISIONS).mean())


def clone_seconds(repeats: int = 20000) -> float:
    g = Game(GameConfig(num_players=4), seed=0)
    t0 = time.perf_counter()
    for _ in range(repeats):
        g.clone()
    return (time.perf_counter() - t0) / repeats


def main(players: list[int], repeats: int, quick: bool) -> None:
    decisions = 20_000 if quick else 300_000
    games = 200 if quick else 2_000
    print(f"state: {L.STATE_SIZE} int16 values = {L.STATE_BYTES} bytes")
    print(f"Game.clone: {clone_seconds() * 1e6:.1f} us")
    head = f"{'players':>7} {'expansion':>9} {'step calls/s':>14} {'compiled/s':>14}"
    print(f"{head} {'decisions/game':>15} truncated")
    for n in players:
        for expansion in (0, 1):
            calls = call_rate(n, expansion, decisions, repeats)
            rate, per_game, truncated = compiled_rate(n, expansion, games, repeats)
            print(
                f"{n:>7} {expansion:>9} {calls:>14,.0f} {rate:>14,.0f} {per_game:>15.1f} "
                f"{truncated:>9.3f}"
            )


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--players", default="2,3,4,5", help="comma-separated player counts")
    parser.add_argument("--quick", action="store_true", help="shorter runs (smoke check)")
    args = parser.parse_args()
    main([int(x) for x in args.players.split(",")], args.repeats, args.quick)
