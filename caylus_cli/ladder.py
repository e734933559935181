"""``caylus ladder``: every built-in agent of every game rated, one page and one plot."""

from __future__ import annotations

import shlex
from typing import Annotated

import typer

from agents.ladder import (
    DEFAULT_BOOTSTRAP,
    DEFAULT_GAMES,
    DEFAULT_OUT,
    DEFAULT_PAGE,
    DEFAULT_PLOT,
    DEFAULT_SEED,
    DEFAULT_SIMS,
)
from caylus_cli.app import (
    PROGRAM,
    ProgressOption,
    TimeLimitOption,
    WorkersOption,
    _bad_argument,
    _console,
    _fail,
    app,
)


def ladder_command(
    *,
    game: str | None,
    players: str | None,
    games: int,
    sims: int,
    seed: int,
    move_time_limit: float,
    bootstrap: int,
    workers: int,
    out: str,
    page: str,
    plot: str,
) -> str:
    """The command line that reproduces a ladder, every argument explicit (so a later change
    of a default cannot change what it plays)."""
    args = [PROGRAM, "ladder"]
    if game is not None:
        args += ["--game", game]
    if players is not None:
        args += ["--players", players]
    args += [
        "--games",
        str(games),
        "--sims",
        str(sims),
        "--seed",
        str(seed),
        "--move-time-limit",
        f"{move_time_limit:g}",
        "--bootstrap",
        str(bootstrap),
        "--workers",
        str(workers),
        "--out",
        out,
        "--page",
        page,
        "--plot",
        plot,
    ]
    return shlex.join(args)


@app.command()
def ladder(
    game: Annotated[
        str | None,
        typer.Option(
            "--game",
            help="Comma-separated games to rate (default: every game; caylus games lists them).",
        ),
    ] = None,
    players: Annotated[
        str | None,
        typer.Option(help="Player counts, e.g. 2-5, 3 or 2,4 (default: each game's every count)."),
    ] = None,
    games: Annotated[
        int, typer.Option(help="Games per tournament, rounded up to whole blocks.")
    ] = DEFAULT_GAMES,
    sims: Annotated[
        int, typer.Option(help="Simulations per move of every search agent (mcts, puct).")
    ] = DEFAULT_SIMS,
    seed: Annotated[int, typer.Option(help="Master seed of every tournament.")] = DEFAULT_SEED,
    out: Annotated[
        str, typer.Option(help="Directory of the tournaments, one per game and player count.")
    ] = DEFAULT_OUT,
    page: Annotated[str, typer.Option(help="The Markdown page written.")] = DEFAULT_PAGE,
    plot: Annotated[str, typer.Option(help="The PNG plot written.")] = DEFAULT_PLOT,
    workers: WorkersOption = None,
    move_time_limit: TimeLimitOption = 10.0,
    bootstrap: Annotated[
        int, typer.Option(help="Block-bootstrap resamples for the rating intervals.")
    ] = DEFAULT_BOOTSTRAP,
    progress: ProgressOption = True,
) -> None:
    """Rate every built-in agent of every game: one seat-balanced tournament per game and
    player count, then one page (--page) and one plot (--plot).

    The agents come from the agent registry (caylus agents --game NAME): random, the scripted
    bots, the shipped checkpoints and the searches at --sims simulations per move; policy:PATH
    is not built-in. Each tournament plays in its own directory under --out; running the same
    command again resumes, a larger --games extends, other arguments are refused.
    """
    from agents.ladder import LadderError, check_outputs, plan_ladder, run_ladder
    from agents.tournament.specs import TournamentError

    if bootstrap < 0:
        _fail(f"invalid value for --bootstrap: must be >= 0, got {bootstrap}")
    try:
        check_outputs(page, plot)
        plan = plan_ladder(
            games=game,
            players=players,
            n_games=games,
            sims=sims,
            seed=seed,
            move_time_limit=move_time_limit,
            out=out,
            workers=workers,
        )
    except (LadderError, TournamentError) as err:
        _bad_argument(err)
    command = ladder_command(
        game=game,
        players=players,
        games=games,
        sims=sims,
        seed=seed,
        move_time_limit=move_time_limit,
        bootstrap=bootstrap,
        workers=plan.workers,
        out=out,
        page=page,
        plot=plot,
    )
    try:
        run_ladder(
            plan,
            page=page,
            plot=plot,
            command=command,
            console=_console(),
            progress=progress,
            n_boot=bootstrap,
        )
    except (LadderError, TournamentError) as err:  # a directory locked by another run meanwhile
        _bad_argument(err)
    except KeyboardInterrupt:
        _fail(f"interrupted; run the same command again to resume from {out}", code=130)
    except Exception as err:
        _fail(f"ladder failed: {type(err).__name__}: {err}", code=1)
