"""``caylus bench``: the engine's speed, measured by :mod:`caylus_env.core.benchmark`.

``--game puerto_rico`` measures the Puerto Rico engine instead
(:mod:`caylus_env.puerto_rico.benchmark`); the batched environment (``--vector``) and the
trainers (``--training``) are Caylus's only, and refused for it before any work.
"""

from __future__ import annotations

import importlib
from typing import Annotated, Any

import typer

from caylus_cli.app import GameOption, _console, _fail, app, compile_notice
from caylus_env.core.registry import DEFAULT_GAME, game_spec


@app.command()
def bench(
    repeats: Annotated[int | None, typer.Option(help="Timing repeats (median reported).")] = None,
    players: Annotated[
        str | None, typer.Option(help="Comma-separated player counts, e.g. 2,4.")
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
        int | None, typer.Option(help="Games in the batched environment (with --vector).")
    ] = None,
    threads: Annotated[
        int | None, typer.Option(help="torch threads of the trainers (with --training).")
    ] = None,
    training: Annotated[
        bool,
        typer.Option(
            "--training",
            help="Time policy inference and MaskablePPO training instead (training.benchmark; "
            "needs the [train] extra).",
        ),
    ] = False,
    game: GameOption = DEFAULT_GAME,
) -> None:
    """Measure the engine's speed (delegates to caylus_env.core.benchmark, or with --game
    puerto_rico to caylus_env.puerto_rico.benchmark)."""
    if game != DEFAULT_GAME:
        _bench_other(game, repeats, players, quick, vector, num_envs, threads, training)
        return
    if threads is not None and not training:
        _fail("--threads needs --training: it sets the trainers' torch threads")
    if training:
        if vector or num_envs is not None or players is not None:
            _fail("--training measures the trainer alone: drop --vector, --num-envs, --players")
        if threads is not None and threads < 1:
            _fail(f"invalid value for --threads: must be >= 1, got {threads}")
        _bench_training(repeats, quick, threads or 1)
        return
    kwargs: dict[str, Any] = {"quick": quick}
    if num_envs is not None and not vector:
        _fail("--num-envs needs --vector: it sets the games of the batched environment")
    if vector:
        kwargs["vector"] = True
        if num_envs is not None:
            if num_envs < 1:
                _fail(f"invalid value for --num-envs: must be >= 1, got {num_envs}")
            kwargs["vector_envs"] = num_envs
    if repeats is not None:
        if repeats < 1:
            _fail(f"invalid value for --repeats: must be >= 1, got {repeats}")
        kwargs["repeats"] = repeats
    if players is not None:
        kwargs["players"] = _player_counts(players, DEFAULT_GAME)
    try:
        from caylus_env.core import benchmark
    except ImportError as err:
        _fail(f"the benchmark module is not available: {err}", code=1)
    with compile_notice("engine", "env", *(["vector"] if vector else [])):
        benchmark.main(**kwargs)


def _player_counts(players: str, game: str) -> list[int]:
    """``--players 2,4`` as a list, each count one the game's rules allow."""
    try:
        counts = [int(x) for x in players.split(",") if x.strip()]
    except ValueError:
        _fail(f"invalid value for --players: {players!r} is not a list like 2,4")
    info = game_spec(game)
    if not counts or any(not info.min_players <= c <= info.max_players for c in counts):
        _fail(
            f"invalid value for --players: {players!r}; {info.title} player counts are "
            f"{info.min_players} to {info.max_players}"
        )
    return counts


def _bench_other(
    game: str,
    repeats: int | None,
    players: str | None,
    quick: bool,
    vector: bool,
    num_envs: int | None,
    threads: int | None,
    training: bool,
) -> None:
    """``caylus bench --game puerto_rico``: that engine's figures, Caylus's layers refused."""
    title = game_spec(game).title
    caylus_only = [
        flag
        for flag, given in (
            ("--vector", vector),
            ("--num-envs", num_envs is not None),
            ("--training", training),
            ("--threads", threads is not None),
        )
        if given
    ]
    if caylus_only:
        _fail(
            f"{', '.join(caylus_only)}: Caylus-only (its batched environment and trainers), not "
            f"for {title} (--game {game}); allowed with --game {game}: --repeats, --players, "
            "--quick"
        )
    kwargs: dict[str, Any] = {"quick": quick, "console": _console()}
    if repeats is not None:
        if repeats < 1:
            _fail(f"invalid value for --repeats: must be >= 1, got {repeats}")
        kwargs["repeats"] = repeats
    if players is not None:
        kwargs["players"] = _player_counts(players, game)
    # A game's benchmark module sits next to its engine package (caylus_env.puerto_rico).
    benchmark = importlib.import_module(game_spec(game).engine.rpartition(".")[0] + ".benchmark")
    with compile_notice("engine", "env", game):
        benchmark.main(**kwargs)


def _bench_training(repeats: int | None, quick: bool, threads: int) -> None:
    if repeats is not None and repeats < 1:
        _fail(f"invalid value for --repeats: must be >= 1, got {repeats}")
    try:
        from training import benchmark as train_bench
    except ImportError as err:
        _fail(f"--training needs the [train] extra ({err})", code=1)
    with compile_notice("engine", "vector"):
        figures = train_bench.run(repeats=repeats or 3, quick=quick, threads=threads)
    typer.echo(train_bench.table(figures))
