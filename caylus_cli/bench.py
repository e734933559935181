"""``caylus bench``: the engine's speed, measured by :mod:`caylus_env.benchmark`."""

from __future__ import annotations

from typing import Annotated, Any

import typer

from caylus_cli.app import _fail, app, compile_notice


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
            help="Also time the batched environment (caylus_env.vector) next to raw_env.",
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
) -> None:
    """Measure the engine's speed (delegates to caylus_env.benchmark)."""
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
        try:
            counts = [int(x) for x in players.split(",") if x.strip()]
        except ValueError:
            _fail(f"invalid value for --players: {players!r} is not a list like 2,4")
        from caylus_env.engine.constants import MAX_PLAYERS, MIN_PLAYERS

        if not counts or any(not MIN_PLAYERS <= c <= MAX_PLAYERS for c in counts):
            _fail(
                f"invalid value for --players: {players!r}; player counts are "
                f"{MIN_PLAYERS} to {MAX_PLAYERS}"
            )
        kwargs["players"] = counts
    try:
        from caylus_env import benchmark
    except ImportError as err:
        _fail(f"the benchmark module is not available: {err}", code=1)
    with compile_notice("engine", "env", *(["vector"] if vector else [])):
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
