"""Self-play of ``caylus train az`` on a Ray cluster of one node, then of two.

The two nodes stand in for two machines on one: ``ray start --head --num-cpus C`` and
``ray start --address HEAD --num-cpus C`` (each node offers ``C`` CPUs). The same games
(``training.az_benchmark.selfplay_rate`` with ``--backend ray``: the trainer's self-play,
``puct:32:gumbel=16`` in every seat over the game's default network) are played on the
one-node cluster and, after the second node joins, on the two-node one, alternately for
``--rounds`` rounds; the script prints each run and the median positions/s of each, and the
ratio (the issue's target: at least 1.7). On a machine of ``2 * C`` free cores the ideal is
2. It stops both nodes at the end.

    python bench/az_ray_nodes.py --game caylus --players 2 --cpus 1 --games 16 --rounds 3
"""

from __future__ import annotations

import argparse
import os
import re
import shutil
import statistics
import subprocess
import tempfile
from pathlib import Path

from caylus_env.core.registry import DEFAULT_GAME, GAME_NAMES
from training.az_benchmark import selfplay_rate

PORT = 6391


def _ray(*args: str) -> str:
    exe = shutil.which("ray")
    if exe is None:
        raise SystemExit("ray is not installed: pip install -c constraints.txt -e '.[ray]'")
    return subprocess.run([exe, *args], check=True, capture_output=True, text=True).stdout


def _head_address(output: str) -> str:
    """The address ``ray start --head`` tells other nodes to join (the node's own IP)."""
    found = re.search(r"ray start --address='([^']+)'", output)
    if found is None:
        raise SystemExit(f"ray start --head printed no address to join:\n{output}")
    return found.group(1)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--game", choices=GAME_NAMES, default=DEFAULT_GAME)
    parser.add_argument("--players", type=int, default=2)
    parser.add_argument("--cpus", type=int, default=1, help="CPUs each node offers")
    parser.add_argument("--games", type=int, default=16, help="games of each timed run")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--sims", type=int, default=32)
    parser.add_argument("--considered", type=int, default=16)
    args = parser.parse_args()
    address = "auto"  # the driver finds the cluster this machine runs
    agent = f"puct:{args.sims}:gumbel={args.considered}"
    one: list[float] = []
    two: list[float] = []
    os.environ.pop("RAY_ADDRESS", None)
    _ray("stop", "--force")  # a cluster left by an earlier run would take the port
    try:
        head = _head_address(
            _ray(
                "start",
                "--head",
                f"--port={PORT}",
                f"--num-cpus={args.cpus}",
                "--include-dashboard=false",
            )
        )
        with tempfile.TemporaryDirectory() as tmp:
            root = Path(tmp)
            game, n = args.game, args.players

            def run(workers: int, seed: int) -> float:
                r = selfplay_rate(game, n, agent, args.games, workers, seed, root, "ray", address)
                return r["rate"]

            run(args.cpus, 0)  # warm-up: the head's workers load the kernels
            for r in range(args.rounds):
                one.append(run(args.cpus, 10 + r))
                print(f"round {r + 1}: one node {one[-1]:,.0f} positions/s", flush=True)
            _ray("start", f"--address={head}", f"--num-cpus={args.cpus}")
            run(2 * args.cpus, 1)  # warm-up of the second node's workers
            for r in range(args.rounds):
                two.append(run(2 * args.cpus, 10 + r))
                print(f"round {r + 1}: two nodes {two[-1]:,.0f} positions/s", flush=True)
    finally:
        subprocess.run([shutil.which("ray") or "ray", "stop", "--force"], capture_output=True)
    a, b = statistics.median(one), statistics.median(two)
    print(
        f"{args.game}, {args.players} players, {agent}, {args.games} games a run, "
        f"{args.cpus} CPU(s) a node: one node {a:,.0f} positions/s, two nodes {b:,.0f} "
        f"(median of {args.rounds}); two / one = {b / a:.2f}"
    )


if __name__ == "__main__":
    main()
