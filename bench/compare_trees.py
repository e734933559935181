"""Compare the throughput of two checkouts of caylus-env in one run (a refactoring's check).

    git worktree add /tmp/before <commit>
    python bench/compare_trees.py /tmp/before . --rounds 5

Each round runs every layer of both trees in fresh subprocesses, alternating which tree
goes first, so a machine that slows down or speeds up during the run affects both alike.
It prints, per layer, the median decisions/s of each tree and their ratio (after/before).
Both trees use the interpreter and packages running this script; each tree's own
``caylus_env.core.benchmark`` functions are timed, so the figures are what ``caylus bench``
reports for that tree. Numba compiles each tree once (a warm-up) before any clock starts.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
from pathlib import Path

_PROBE = """
import json, sys
from caylus_env.core import benchmark as B
from caylus_env.caylus.env import raw_env
players, decisions, games = {players}, {decisions}, {games}
out = {{
    "engine_call": B.engine_call_rate(players, decisions, 1),
    "engine_compiled": B.engine_compiled_rate(players, games, 1),
    "raw_env": B.aec_rate(lambda: raw_env(num_players=players), decisions // 10, 1),
}}
print(json.dumps(out))
"""


def _run(tree: Path, players: int, decisions: int, games: int) -> dict[str, float]:
    env = dict(os.environ, PYTHONPATH=str(tree))
    code = _PROBE.format(players=players, decisions=decisions, games=games)
    done = subprocess.run(
        [sys.executable, "-c", code], cwd=tree, env=env, capture_output=True, text=True
    )
    if done.returncode != 0:
        raise SystemExit(f"benchmark failed in {tree}:\n{done.stderr}")
    return json.loads(done.stdout.strip().splitlines()[-1])


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("before", type=Path, help="checkout measured first (the baseline)")
    parser.add_argument("after", type=Path, help="checkout compared with it")
    parser.add_argument("--rounds", type=int, default=5, help="rounds (medians over them)")
    parser.add_argument("--players", type=int, default=2, help="players per game (2-5)")
    parser.add_argument("--decisions", type=int, default=200_000, help="decisions per layer")
    parser.add_argument("--games", type=int, default=2_000, help="compiled games per round")
    args = parser.parse_args(argv)
    for tree in (args.before, args.after):
        if not (tree / "caylus_env" / "benchmark.py").is_file():
            parser.error(f"{tree} is not a caylus-env checkout (no caylus_env/core/benchmark.py)")
    if args.rounds < 1:
        parser.error(f"--rounds must be >= 1, got {args.rounds}")
    trees = {"before": args.before.resolve(), "after": args.after.resolve()}
    for tree in trees.values():  # compile (or load from the cache) outside the clock
        _run(tree, args.players, 2_000, 10)
    rates: dict[str, dict[str, list[float]]] = {name: {} for name in trees}
    for r in range(args.rounds):
        order = ("before", "after") if r % 2 == 0 else ("after", "before")
        for name in order:
            for layer, rate in _run(trees[name], args.players, args.decisions, args.games).items():
                rates[name].setdefault(layer, []).append(rate)
    print(f"{'layer':<16} {'before /s':>12} {'after /s':>12} {'after/before':>13}")
    for layer in rates["before"]:
        b = statistics.median(rates["before"][layer])
        a = statistics.median(rates["after"][layer])
        print(f"{layer:<16} {b:>12,.0f} {a:>12,.0f} {a / b:>13.3f}")


if __name__ == "__main__":
    main()
