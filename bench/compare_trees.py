"""Compare the throughput of two checkouts of caylus-env in one run, for every game (a
refactoring's check).

    git worktree add /tmp/before <commit>
    python bench/compare_trees.py /tmp/before . --rounds 3

Per game, player count and layer (the engine per Python call, whole games in compiled code,
``raw_env`` in the AEC loop, the batched env), each round times both trees in fresh
subprocesses, alternating which tree goes first, so a machine that slows down or speeds up
during the run affects both alike. It prints the median decisions/s of each tree and their
ratio (after/before). Each tree's own benchmark code is timed, so the figures are what
``caylus bench`` reports for that tree; a layer a tree does not have (a game without a batched
env before it got one) is reported as absent. Both trees use the interpreter and packages
running this script. The kernels of each tree are compiled (or loaded from their cache) by a
warm-up run before any clock starts.

Two layouts of the tree are known: the one with the shared core (``caylus_env/core/
benchmark.py``, every game through ``caylus_env.core.registry``), and the one before it
(``caylus_env/benchmark.py`` and ``caylus_env/games.py``: each game's benchmark module beside
its engine package, its env module in its ``GameInfo``). The games compared are those both
trees register.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
from pathlib import Path

#: The layers compared, in the order printed.
LAYERS = ("engine_call", "engine_compiled", "raw_env", "vector")

#: What a tree with the shared core runs: ``game players decisions games aec envs batched``.
_CORE_PROBE = """
import json, sys
import caylus_env
from caylus_env.core import benchmark as B
game = sys.argv[1]
n, decisions, games, aec, envs, batched = map(int, sys.argv[2:8])
out = {
    "engine_call": B.engine_call_rate(game, n, decisions, 1),
    "engine_compiled": B.engine_compiled_rate(game, n, games, 1),
    "raw_env": B.aec_rate(B.env_maker(game, n), aec, 1),
    "vector": B.vector_rate(game, envs, n, batched, 1),
}
print(json.dumps({"file": caylus_env.__file__, "rates": out}))
"""

#: What a tree from before the shared core runs (same arguments).
_LEGACY_PROBE = """
import importlib, json, sys
import caylus_env
from caylus_env import benchmark as shared
from caylus_env.games import game_info
info = game_info(sys.argv[1])
n, decisions, games, aec, envs, batched = map(int, sys.argv[2:8])
bench = importlib.import_module(info.engine.rpartition(".")[0] + ".benchmark")
env = info.env_module()
out = {
    "engine_call": bench.engine_call_rate(n, decisions, 1),
    "engine_compiled": bench.engine_compiled_rate(n, games, 1),
    "raw_env": shared.aec_rate(lambda: env.raw_env(num_players=n), aec, 1),
    "vector": bench.vector_rate(envs, n, batched, 1) if hasattr(bench, "vector_rate") else None,
}
print(json.dumps({"file": caylus_env.__file__, "rates": out}))
"""

#: What lists the games a tree registers.
_GAMES_PROBE = {
    "core": "from caylus_env.core.registry import GAME_NAMES; print(' '.join(GAME_NAMES))",
    "legacy": "from caylus_env.games import GAME_NAMES; print(' '.join(GAME_NAMES))",
}


def layout(tree: Path) -> str:
    """``core`` or ``legacy``: which benchmark layout ``tree`` has.

    Raises:
        ValueError: for a folder that is neither.
    """
    if (tree / "caylus_env" / "core" / "benchmark.py").is_file():
        return "core"
    if (tree / "caylus_env" / "benchmark.py").is_file() and (
        tree / "caylus_env" / "games.py"
    ).is_file():
        return "legacy"
    raise ValueError(
        f"{tree} is not a caylus-env checkout: no caylus_env/core/benchmark.py (or "
        "caylus_env/benchmark.py and caylus_env/games.py)"
    )


def _python(tree: Path, code: str, *args: object) -> str:
    """Run ``code`` in a fresh interpreter that imports ``tree``'s packages; its last line."""
    env = dict(os.environ, PYTHONPATH=str(tree))
    done = subprocess.run(
        [sys.executable, "-c", code, *map(str, args)],
        cwd=tree,
        env=env,
        capture_output=True,
        text=True,
    )
    if done.returncode != 0:
        raise SystemExit(f"benchmark failed in {tree}:\n{done.stderr[-4000:]}")
    return done.stdout.strip().splitlines()[-1]


def games_of(tree: Path) -> list[str]:
    return _python(tree, _GAMES_PROBE[layout(tree)]).split()


def measure(tree: Path, game: str, players: int, sizes: dict[str, int]) -> dict[str, float | None]:
    """Every layer's decisions/s of ``game`` in ``tree`` (None: the tree has no such layer)."""
    probe = _CORE_PROBE if layout(tree) == "core" else _LEGACY_PROBE
    args = (game, players, *(sizes[k] for k in ("decisions", "games", "aec", "envs", "batched")))
    found = json.loads(_python(tree, probe, *args))
    where = Path(found["file"]).resolve()
    if tree not in where.parents:  # an installed copy shadowing the tree would be timed instead
        raise SystemExit(f"{tree}: the probe imported caylus_env from {where}, not from the tree")
    return found["rates"]


def _ratio(before: float | None, after: float | None) -> str:
    return f"{after / before:.3f}" if before and after else "-"


def _rate(value: float | None) -> str:
    return "absent" if value is None else f"{value:,.0f}"


def main(argv: list[str] | None = None) -> dict[str, dict[str, dict[str, float | None]]]:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("before", type=Path, help="checkout measured first (the baseline)")
    parser.add_argument("after", type=Path, help="checkout compared with it")
    parser.add_argument("--rounds", type=int, default=3, help="rounds (medians over them)")
    parser.add_argument("--games", default=None, help="comma-separated (default: all shared)")
    parser.add_argument("--players", default="2,4", help="comma-separated player counts")
    parser.add_argument("--decisions", type=int, default=200_000, help="per-call decisions")
    parser.add_argument("--compiled-games", type=int, default=2_000, help="compiled games")
    parser.add_argument("--aec", type=int, default=20_000, help="raw_env decisions")
    parser.add_argument("--envs", type=int, default=256, help="games of the batched env")
    parser.add_argument("--batched", type=int, default=1_000_000, help="batched decisions")
    parser.add_argument("--json", type=Path, default=None, help="also write the medians here")
    args = parser.parse_args(argv)
    trees = {"before": args.before.resolve(), "after": args.after.resolve()}
    try:
        for tree in trees.values():
            layout(tree)
        players = [int(x) for x in args.players.split(",") if x.strip()]
    except ValueError as err:
        parser.error(str(err))
    if args.rounds < 1:
        parser.error(f"--rounds must be >= 1, got {args.rounds}")
    shared = [g for g in games_of(trees["before"]) if g in games_of(trees["after"])]
    games = shared if args.games is None else args.games.split(",")
    if not games or any(g not in shared for g in games):
        parser.error(f"--games {args.games}: allowed: games both trees have: {shared}")
    sizes = {
        "decisions": args.decisions,
        "games": args.compiled_games,
        "aec": args.aec,
        "envs": args.envs,
        "batched": args.batched,
    }
    small = {"decisions": 2_000, "games": 10, "aec": 500, "envs": 8, "batched": 2_000}
    for tree in trees.values():  # compile (or load from the cache) outside the clock
        for game in games:
            measure(tree, game, players[0], small)
    rates: dict[tuple[str, int, str, str], list[float | None]] = {}
    for r in range(args.rounds):
        order = ("before", "after") if r % 2 == 0 else ("after", "before")
        for game in games:
            for n in players:
                for name in order:
                    for layer, rate in measure(trees[name], game, n, sizes).items():
                        rates.setdefault((game, n, layer, name), []).append(rate)
        print(f"round {r + 1} of {args.rounds} done", file=sys.stderr)
    out: dict[str, dict[str, dict[str, float | None]]] = {}
    print(f"{'game':<12} {'layer':<20} {'before /s':>12} {'after /s':>12} {'after/before':>13}")
    for game in games:
        for n in players:
            for layer in LAYERS:
                medians = {}
                for name in trees:
                    values = rates[(game, n, layer, name)]
                    known = [v for v in values if v is not None]
                    medians[name] = statistics.median(known) if known else None
                key = f"{layer}_{n}p"
                out.setdefault(game, {})[key] = medians
                b, a = medians["before"], medians["after"]
                print(f"{game:<12} {key:<20} {_rate(b):>12} {_rate(a):>12} {_ratio(b, a):>13}")
    if args.json is not None:
        from caylus_env.core.fileio import atomic_write_json

        atomic_write_json(args.json, out)
    return out


if __name__ == "__main__":
    main()
