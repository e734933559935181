"""Run every throughput benchmark of a game (the same as ``caylus bench --game G``).

Usage: ``python bench/run_bench.py [--game G] [--repeats 3] [--players 2,4] [--quick]
[--vector] [--num-envs 256] [--no-compile] [--json out.json]``.
Run it alone on the machine: the two cores are not independent (performance anchors,
section 0), so a second job skews every figure.
"""

from __future__ import annotations

import argparse

from caylus_env.core.benchmark import VECTOR_ENVS, main
from caylus_env.core.registry import DEFAULT_GAME, GAME_NAMES

if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--game", choices=GAME_NAMES, default=DEFAULT_GAME)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--players", default=None, help="comma-separated player counts")
    parser.add_argument("--quick", action="store_true", help="shorter runs (smoke check)")
    parser.add_argument("--json", default=None, help="also write the figures to this file")
    parser.add_argument("--no-compile", action="store_true", help="skip the compile timing")
    parser.add_argument("--vector", action="store_true", help="also time the batched environment")
    parser.add_argument("--num-envs", type=int, default=VECTOR_ENVS, help="batched games")
    args = parser.parse_args()
    try:
        main(
            args.game,
            repeats=args.repeats,
            players=None if args.players is None else [int(x) for x in args.players.split(",")],
            quick=args.quick,
            json_path=args.json,
            compile_check=not args.no_compile,
            vector=args.vector,
            vector_envs=args.num_envs,
        )
    except ValueError as err:
        parser.error(str(err))
