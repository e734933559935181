"""Dataset generation against a tournament of the same agents: games per second and bytes.

Usage: ``nice -n 10 python bench/dataset_bench.py [--game NAME] [--agents A,B] [--players 2]
[--games 400] [--workers 1,2] [--repeats 3] [--json out.json]`` (``--game`` defaults to the
registry's ``DEFAULT_GAME``; ``--agents`` to the game's first two bots that take no argument,
``castle,town`` for Caylus, ``shipper,builder`` for Puerto Rico).

For each worker count, runs ``caylus tournament`` (the library call, without reports) and
``caylus dataset generate`` with the same agents, player count, games and seed, alternating
them ``--repeats`` times so that both see the same machine load, and prints the median games
per second of each, their ratio, and the dataset's bytes per decision on disk (Parquet, zstd).
Each figure includes starting the worker pool and warming the agents, as a user's run does.
"""

from __future__ import annotations

import argparse
import io
import json
import statistics
import tempfile
import time
from pathlib import Path

from rich.console import Console

from agents.selfplay.generate import DatasetSpec, generate_dataset, prepare_dataset
from agents.tournament.runner import TournamentSpec, run_tournament
from caylus_env.core.registry import DEFAULT_GAME, GAME_NAMES, game_spec


def _time_tournament(
    agents: tuple[str, ...], players: int, games: int, workers: int, game: str
) -> float:
    with tempfile.TemporaryDirectory() as tmp:
        spec = TournamentSpec(agents, players, games, seed=1, game=game)
        start = time.perf_counter()
        result = run_tournament(
            spec, Path(tmp) / "t", workers=workers, progress=False,
            console=Console(file=io.StringIO()), report=False,
        )  # fmt: skip
        return len(result.results) / (time.perf_counter() - start)


def _time_dataset(
    agents: tuple[str, ...], players: int, games: int, workers: int, game: str
) -> tuple[float, float, int]:
    with tempfile.TemporaryDirectory() as tmp:
        spec = DatasetSpec(agents, players, games, seed=1, game=game)
        start = time.perf_counter()
        prepared = prepare_dataset(spec, Path(tmp) / "d", workers=workers)
        result = generate_dataset(prepared, progress=False, console=Console(file=io.StringIO()))
        seconds = time.perf_counter() - start
        counts = result.manifest["counts"]
        return counts["games"] / seconds, result.manifest["bytes_per_decision"], counts["decisions"]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--game", default=DEFAULT_GAME, help=f"one of {', '.join(GAME_NAMES)}")
    parser.add_argument("--agents", default=None, help="default: the game's first two bots")
    parser.add_argument("--players", type=int, default=2)
    parser.add_argument("--games", type=int, default=400)
    parser.add_argument("--workers", default="1,2")
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--json", default=None)
    args = parser.parse_args()
    try:
        info = game_spec(args.game)
    except ValueError as err:
        raise SystemExit(f"--game: {err}") from None
    if args.agents is None:
        bots = info.module("bots").BOTS
        agents = tuple([head for head, bot in bots.items() if not bot.needs_arg][:2])
    else:
        agents = tuple(a.strip() for a in args.agents.split(","))
    rows = []
    for workers in (int(w) for w in args.workers.split(",")):
        tour, data, sizes = [], [], []
        for _ in range(args.repeats):
            tour.append(_time_tournament(agents, args.players, args.games, workers, args.game))
            rate, per_decision, decisions = _time_dataset(
                agents, args.players, args.games, workers, args.game
            )
            data.append(rate)
            sizes.append(per_decision)
        row = {
            "workers": workers,
            "tournament_games_per_s": statistics.median(tour),
            "dataset_games_per_s": statistics.median(data),
            "ratio": statistics.median(data) / statistics.median(tour),
            "bytes_per_decision": statistics.median(sizes),
            "decisions": decisions,
            "runs": {"tournament": tour, "dataset": data},
        }
        rows.append(row)
        print(
            f"workers {workers}: tournament {row['tournament_games_per_s']:.1f} games/s, dataset "
            f"{row['dataset_games_per_s']:.1f} games/s ({row['ratio']:.0%}), "
            f"{row['bytes_per_decision']:.1f} bytes a decision "
            f"({args.games} {args.game} games of {','.join(agents)}, {args.players} players, "
            f"median of {args.repeats})"
        )
    if args.json:
        Path(args.json).write_text(json.dumps(rows, indent=2) + "\n")


if __name__ == "__main__":
    main()
