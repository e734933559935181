"""``caylus dataset``: generate self-play datasets (Parquet), verify them by replay, summarise them,
export them as training-ready tensors."""

from __future__ import annotations

import shlex
import sys
from pathlib import Path
from typing import Annotated, NoReturn

import typer

from caylus_cli.app import (
    PROGRAM,
    AgentsGameOption,
    BackendOption,
    FileGameOption,
    OptionsOption,
    PluginsOption,
    ProgressOption,
    RayAddressOption,
    SeedOption,
    TimeLimitOption,
    WorkersOption,
    _console,
    _fail,
    _parse_options,
    _split_agents,
    agents_game,
    app,
)

dataset_app = typer.Typer(
    name="dataset",
    help="Self-play datasets: generate (Parquet shards), verify (replay), stats, inspect, "
    "export (training-ready tensors).",
    no_args_is_help=True,
)
app.add_typer(dataset_app, name="dataset")

_OPTION = {
    "agents": "--agents",
    "players": "--players",
    "games": "--games",
    "seed": "--seed",
    "seating": "--permutations",
    "workers": "--workers",
    "backend": "--backend",
    "out": "--out",
    "move_time_limit": "--move-time-limit",
    "game_options": "--option",
    "plugins": "--plugin",
    "shard_games": "--shard-games",
    "policy_targets": "--policy-targets",
    "game": "--game",
}
"""Spec field named by an error -> the option of ``caylus dataset generate`` that sets it."""


def _bad(err: Exception) -> NoReturn:
    option = _OPTION.get(getattr(err, "field", ""), "")
    _fail(f"invalid value for {option}: {err}" if option else str(err))


@dataset_app.command()
def generate(
    agents: Annotated[
        str, typer.Option(help="Comma-separated agent specs, e.g. mcts:200,economy,castle.")
    ],
    players: Annotated[
        str, typer.Option(help="Player counts: N, A-B or A,B (e.g. 2-5); games split evenly.")
    ],
    games: Annotated[int, typer.Option(help="Games in all, rounded up to whole blocks.")],
    out: Annotated[str, typer.Option(help="Dataset directory (created; resumed if it exists).")],
    seed: SeedOption = 0,
    workers: WorkersOption = None,
    backend: BackendOption = "local",
    ray_address: RayAddressOption = None,
    policy_targets: Annotated[
        bool,
        typer.Option(
            "--policy-targets",
            help="Store each decision's policy target: MCTS visit counts, random's uniform "
            "distribution, one-hot for deterministic agents (scripted bots).",
        ),
    ] = False,
    shard_games: Annotated[
        int, typer.Option(help="Games per shard (one Parquet file per table and shard).")
    ] = 10_000,
    permutations: Annotated[
        bool,
        typer.Option(
            "--permutations/--rotations",
            help="Seat each block in every order of its table instead of its rotations.",
        ),
    ] = False,
    move_time_limit: TimeLimitOption = 10.0,
    option: OptionsOption = None,
    plugin: PluginsOption = None,
    progress: ProgressOption = True,
    game: AgentsGameOption = None,
) -> None:
    """Play seat-balanced self-play games and write every decision as Parquet (resumable).

    The games are the tournament's (seat rotations, seeds, forfeits); each player count plays
    an equal share. Running the same command again resumes an interrupted run (a kill loses at
    most the shards being written); other arguments on an existing --out are refused.
    --game NAME stores that game's states, masks and decision kinds (docs/datasets.md).
    """
    from agents.selfplay.generate import DatasetSpec, generate_dataset, prepare_dataset
    from agents.tournament.specs import TournamentError

    specs = tuple(_split_agents(agents))
    spec = DatasetSpec(
        agents=specs,
        players=players,
        games=games,
        seed=seed,
        seating="permutations" if permutations else "rotations",
        move_time_limit=move_time_limit,
        game_options=_parse_options(option),
        plugins=tuple(plugin or ()),
        policy_targets=policy_targets,
        shard_games=shard_games,
        game=agents_game(game, specs),
    )
    try:
        prepared = prepare_dataset(spec, out, workers=workers, backend=backend)
    except TournamentError as err:
        _bad(err)
    try:
        generate_dataset(
            prepared,
            ray_address=ray_address,
            progress=progress,
            console=_console(),
            command=shlex.join([PROGRAM, *sys.argv[1:]]),
        )
    except TournamentError as err:
        _bad(err)
    except KeyboardInterrupt:
        _fail(f"interrupted; run the same command again to resume into {out}", code=130)
    except Exception as err:
        _fail(f"dataset generation failed: {type(err).__name__}: {err}", code=1)


@dataset_app.command()
def verify(
    directory: Annotated[Path, typer.Argument(help="Dataset directory.")],
    progress: ProgressOption = True,
    game: FileGameOption = None,
) -> None:
    """Replay every game from its seed and actions and check every stored row.

    Checks that the manifest agrees with its run (format, game, engine, layouts) and the files
    with the manifest's format, the shard checksums, each game's seed, agents by seat and
    agent seeds against the schedule the run played (and every scheduled game is there), and
    at every ply the state, legal mask, action, seat, kind, agent and return; at the end the
    scores, ranks and returns. Exits 1 naming the shard, game id and ply of each problem.
    The dataset's manifest names its game; --game, when given, must be that game.
    """
    from agents.selfplay.generate import verify_generated
    from agents.tournament.reports import progress_bar
    from caylus_env.core.registry import game_of
    from caylus_env.datasets.format import DatasetError, check_game, read_manifest

    console = _console()
    try:
        manifest = read_manifest(directory)
        game = game_of(manifest) if game is None else game
        check_game(manifest, game)
    except DatasetError as err:
        _fail(str(err))
    with progress_bar(console, progress) as bar:
        task = bar.add_task("games", total=manifest["counts"]["games"])
        try:
            report = verify_generated(
                directory, on_game=lambda k: bar.update(task, completed=k), game=game
            )
        except DatasetError as err:
            _fail(str(err))
    for line in report.problems:
        typer.echo(line, err=True)
    if not report.ok:
        _fail(f"{directory}: {len(report.problems)} problem(s) found", code=1)
    console.print(
        f"ok: {report.shards} shards, {report.games} games and {report.decisions} decisions "
        "replay exactly"
    )


@dataset_app.command()
def stats(
    directory: Annotated[Path, typer.Argument(help="Dataset directory.")],
    plot: Annotated[
        Path | None, typer.Option(help="PNG to write (default: DIRECTORY/stats.png).")
    ] = None,
    html: Annotated[
        bool,
        typer.Option(
            "--html/--no-html",
            help="Also write DIRECTORY/report.html (tables, the PNG embedded) and replay pages "
            "of sampled games under DIRECTORY/viewer/.",
        ),
    ] = True,
    game: FileGameOption = None,
) -> None:
    """Print games, decisions, win rates per agent and seat, actions per decision kind and game
    lengths, plot them to a PNG, and write them as DIRECTORY/report.html with links to replay
    pages of the first game of each table and of every forfeit (drawn by the game's viewer)."""
    from caylus_env.datasets.format import DatasetError
    from caylus_env.datasets.stats import STATS_PLOT_FILE, dataset_stats, plot_stats, print_stats

    try:
        summary = dataset_stats(directory, game)
    except DatasetError as err:
        _fail(str(err))
    console = _console()
    print_stats(summary, console)
    path = plot_stats(summary, plot or Path(directory) / STATS_PLOT_FILE)
    console.print(f"wrote {path}")
    if html:
        from caylus_env.datasets.report import VIEWER_DIR, write_dataset_report

        try:
            report, pages = write_dataset_report(directory, summary, path)
        except ValueError as err:  # a stored game that no longer replays (DatasetError too)
            _fail(
                f"{directory}: cannot draw its replay pages: {err}; the dataset was altered "
                "(caylus dataset verify locates every difference)",
                code=1,
            )
        console.print(
            f"wrote {report} and {pages} replay page{'s' if pages != 1 else ''} in "
            f"{Path(directory) / VIEWER_DIR}"
        )


@dataset_app.command()
def inspect(
    directory: Annotated[Path, typer.Argument(help="Dataset directory.")],
    game_id: Annotated[
        int | None, typer.Option(help="Which game (default: the first of the dataset).")
    ] = None,
    limit: Annotated[int, typer.Option(help="Decisions to print (0: all).", min=0)] = 50,
    game: FileGameOption = None,
) -> None:
    """Print one stored game: its games row, then its decisions in ply order (seat, agent,
    decision kind, action, legal count, and the policy target's top action if stored).

    The dataset's manifest names its game; --game, when given, must be that game.
    """
    from caylus_env.datasets.format import DatasetError
    from caylus_env.datasets.stats import inspect_game, print_game

    try:
        inspected = inspect_game(directory, game_id, game)
    except DatasetError as err:
        _fail(str(err))
    except KeyError as err:
        _fail(str(err.args[0]))
    print_game(inspected, _console(), limit or None)


@dataset_app.command()
def export(
    directory: Annotated[Path, typer.Argument(help="Dataset directory.")],
    out: Annotated[
        Path,
        typer.Option(help="Export directory (created; an unfinished export is resumed)."),
    ],
    progress: ProgressOption = True,
    game: FileGameOption = None,
) -> None:
    """Write the dataset's decisions as training-ready Parquet: the env's observation, action
    mask, action, player, reward, return (and policy targets), one row per decision, with a
    card (README.md, metadata.json) for Hugging Face datasets, Polars or PyTorch.

    Every game is replayed and checked as verify checks it before its rows are written; the
    dataset (manifest, files, digests) and --out are checked before any work. Running the
    same command again resumes an interrupted export (a kill loses at most the shard being
    written). The dataset's manifest names its game; --game, when given, must be that game.
    """
    from agents.selfplay.generate import ScheduleLookup, run_schedule
    from agents.tournament.reports import progress_bar
    from agents.tournament.specs import TournamentError
    from caylus_env.datasets.export import export_dataset, prepare_export
    from caylus_env.datasets.format import DatasetError, read_manifest

    console = _console()
    try:
        manifest = read_manifest(directory)
        schedule = run_schedule(manifest.get("run"))
    except TournamentError as err:
        _fail(
            f"{directory}: the manifest's run gives no schedule to check the games against: {err}"
        )
    except DatasetError as err:
        _fail(str(err))
    scheduled, held = schedule.count(), manifest["counts"]["games"]
    if scheduled != held:  # what verify finds at its end, found here before any work
        _fail(
            f"{directory}: the manifest's run schedules {scheduled} games; the dataset holds {held}"
        )
    try:
        prepared = prepare_export(directory, out, game=game, schedule=ScheduleLookup(schedule))
    except DatasetError as err:
        _fail(str(err))
    with progress_bar(console, progress) as bar:
        task = bar.add_task("decisions", total=manifest["counts"]["decisions"])
        try:
            result = export_dataset(prepared, on_rows=lambda k: bar.update(task, completed=k))
        except DatasetError as err:
            _fail(str(err), code=1)
        except KeyboardInterrupt:
            _fail(f"interrupted; run the same command again to resume into {out}", code=130)
    counts = result.metadata["counts"]
    if result.resumed:
        console.print(f"resumed: {result.resumed} of {counts['files']} shards already exported")
    rate = result.rows / result.seconds if result.seconds > 0 else 0.0
    console.print(
        f"wrote {out}: {counts['episodes']} episodes, {counts['decisions']} decisions, "
        f"{counts['bytes']} bytes ({counts['bytes_per_decision']} bytes a decision) in "
        f"{counts['files']} file{'s' if counts['files'] != 1 else ''}; {result.rows} decisions "
        f"exported in {result.seconds:.1f} s "
        f"({rate:.0f} decisions/s)"
    )
