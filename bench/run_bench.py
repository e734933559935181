"""Run every throughput benchmark (the same as ``caylus bench``).

Usage: ``python bench/run_bench.py [--repeats 3] [--players 2,4] [--quick] [--vector]
[--json out.json]``.
Run it alone on the machine: the two cores are not independent (performance
anchors, section 0), so a second job skews every figure.
"""

from __future__ import annotations

import argparse

from caylus_env.core.benchmark import main

if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--players", default="2,4", help="comma-separated player counts")
    parser.add_argument("--quick", action="store_true", help="shorter runs (smoke check)")
    parser.add_argument("--json", default=None, help="also write the figures to this file")
    parser.add_argument("--no-compile", action="store_true", help="skip the compile timing")
    parser.add_argument(
        "--vector", action="store_true", help="also time the batched environment (N=256)"
    )
    args = parser.parse_args()
    main(
        repeats=args.repeats,
        players=[int(x) for x in args.players.split(",")],
        quick=args.quick,
        json_path=args.json,
        compile_check=not args.no_compile,
        vector=args.vector,
    )
