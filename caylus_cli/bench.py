"""``caylus bench``: a game's speed, measured by :mod:`caylus_env.core.benchmark` (the same rows
for every game), with ``--training`` the trainers' by :mod:`training.benchmark`, or with
``--selfplay`` the self-play of ``caylus train az`` by :mod:`training.az_benchmark`.

Every option is checked before any work: a bad value exits with code 2 and one line naming the
option and what is allowed.
"""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Any

import typer

from caylus_cli.app import GameOption, _console, _fail, app, compile_notice
from caylus_env.core.benchmark import DEFAULT_PLAYERS, VECTOR_ENVS
from caylus_env.core.registry import DEFAULT_GAME, game_spec

#: Timing repeats when --repeats is left out (both benchmarks).
DEFAULT_REPEATS = 3


@app.command()
def bench(
    repeats: Annotated[
        int, typer.Option(help="Timing repeats (median reported).")
    ] = DEFAULT_REPEATS,
    players: Annotated[
        str | None,
        typer.Option(
            help="Comma-separated player counts, e.g. 2,4 (one with --training) (default: "
            f"those of {','.join(map(str, DEFAULT_PLAYERS))} the game allows, else its default "
            "count).",
        ),
    ] = None,
    quick: Annotated[bool, typer.Option("--quick", help="A short run for smoke tests.")] = False,
    vector: Annotated[
        bool,
        typer.Option(
            "--vector",
            help="Also time the batched environment (caylus_env.core.vector) next to raw_env.",
        ),
    ] = False,
    num_envs: Annotated[
        int | None,
        typer.Option(
            help=f"Games in the batched environment (with --vector; default: {VECTOR_ENVS})."
        ),
    ] = None,
    threads: Annotated[
        int | None,
        typer.Option(help="torch threads of the trainers (with --training; default: 1)."),
    ] = None,
    training: Annotated[
        bool,
        typer.Option(
            "--training",
            help="Time policy inference and PPO training instead (training.benchmark; needs "
            "the \\[train] extra).",
        ),
    ] = False,
    selfplay: Annotated[
        bool,
        typer.Option(
            "--selfplay",
            help="Time the self-play of caylus train az instead (training.az_benchmark): "
            "positions/s per core and with more workers.",
        ),
    ] = False,
    workers: Annotated[
        str | None,
        typer.Option(
            help="Comma-separated worker counts to time (with --selfplay; default: 1 and the "
            "machine's cores)."
        ),
    ] = None,
    json_path: Annotated[
        Path | None,
        typer.Option(
            "--json", help="Also write the figures to this JSON file (default: print only)."
        ),
    ] = None,
    game: GameOption = DEFAULT_GAME,
) -> None:
    """Measure a game's speed (caylus_env.core.benchmark; --training: training.benchmark)."""
    if repeats < 1:
        _fail(f"invalid value for --repeats: must be >= 1, got {repeats}")
    counts = None if players is None else _player_counts(players, game)
    if json_path is not None and (json_path.is_dir() or not json_path.parent.is_dir()):
        _fail(f"invalid value for --json: {json_path} is not a file in an existing folder")
    if threads is not None and not training:
        _fail("--threads needs --training: it sets the trainers' torch threads")
    if workers is not None and not selfplay:
        _fail("--workers needs --selfplay: it sets the self-play worker counts to time")
    if selfplay:
        if training or vector or num_envs is not None:
            _fail("--selfplay measures self-play alone: drop --training, --vector, --num-envs")
        if counts is not None and len(counts) != 1:
            _fail(f"invalid value for --players: {players!r}; --selfplay takes one count")
        figures = _bench_selfplay(game, repeats, quick, counts, _worker_counts(workers))
    elif training:
        if vector or num_envs is not None:
            _fail("--training measures the trainers alone: drop --vector and --num-envs")
        if counts is not None and len(counts) != 1:
            _fail(f"invalid value for --players: {players!r}; --training takes one count")
        if threads is not None and threads < 1:
            _fail(f"invalid value for --threads: must be >= 1, got {threads}")
        figures = _bench_training(game, repeats, quick, threads or 1, counts)
    else:
        if num_envs is not None and not vector:
            _fail("--num-envs needs --vector: it sets the games of the batched environment")
        if num_envs is not None and num_envs < 1:
            _fail(f"invalid value for --num-envs: must be >= 1, got {num_envs}")
        figures = _bench_layers(game, repeats, quick, vector, num_envs, counts)
    if json_path is not None:
        from caylus_env.core.fileio import atomic_write_json

        atomic_write_json(json_path, figures)
        typer.echo(f"wrote {json_path}")


def _player_counts(players: str, game: str) -> list[int]:
    """``--players 2,4`` as a list, each count one the game's rules allow."""
    try:
        counts = [int(x) for x in players.split(",") if x.strip()]
    except ValueError:
        _fail(f"invalid value for --players: {players!r} is not a list like 2,4")
    spec = game_spec(game)
    if not counts or any(n not in spec.player_counts for n in counts):
        _fail(
            f"invalid value for --players: {players!r}; {spec.title} player counts are "
            f"{spec.min_players} to {spec.max_players}"
        )
    return counts


def _worker_counts(text: str | None) -> tuple[int, ...]:
    """``--workers 1,2`` as a tuple of distinct counts from 1 to the tournament's maximum."""
    import os

    from agents.tournament.specs import MAX_WORKERS

    if text is None:
        return tuple(sorted({1, os.cpu_count() or 1}))
    try:
        counts = tuple(sorted({int(x) for x in text.split(",") if x.strip()}))
    except ValueError:
        _fail(f"invalid value for --workers: {text!r} is not a list like 1,2")
    if not counts or not all(1 <= w <= MAX_WORKERS for w in counts):
        _fail(f"invalid value for --workers: {text!r}; allowed: counts from 1 to {MAX_WORKERS}")
    return counts


def _bench_selfplay(
    game: str, repeats: int, quick: bool, counts: list[int] | None, workers: tuple[int, ...]
) -> dict[str, Any]:
    from training import az_benchmark

    with compile_notice("engine", "puct"):
        figures = az_benchmark.run(
            game, counts[0] if counts else None, workers, repeats=repeats, quick=quick
        )
    typer.echo(az_benchmark.table(figures))
    return figures


def _bench_layers(
    game: str,
    repeats: int,
    quick: bool,
    vector: bool,
    num_envs: int | None,
    counts: list[int] | None,
) -> dict[str, Any]:
    from caylus_env.core import benchmark

    kwargs: dict[str, Any] = {
        "quick": quick,
        "vector": vector,
        "console": _console(),
        "repeats": repeats,
    }
    if num_envs is not None:
        kwargs["vector_envs"] = num_envs
    if counts is not None:
        kwargs["players"] = counts
    with compile_notice("engine", "env", *(["vector"] if vector else [])):
        return benchmark.main(game, **kwargs)


def _bench_training(
    game: str, repeats: int, quick: bool, threads: int, counts: list[int] | None
) -> dict[str, Any]:
    try:
        from training import benchmark as train_bench
    except ImportError as err:
        _fail(f"--training needs the [train] extra ({err})", code=1)
    kwargs: dict[str, Any] = {"game": game, "repeats": repeats, "quick": quick}
    if counts is not None:
        kwargs["players"] = counts[0]
    with compile_notice("engine", "vector"):
        figures = train_bench.run(threads=threads, **kwargs)
    typer.echo(train_bench.table(figures))
    return figures
