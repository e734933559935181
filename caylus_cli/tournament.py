"""``caylus tournament`` and ``caylus duel``: seat-balanced tournaments and SPRT duels.

``caylus tournament``'s options that determine the games are the fields of
``agents.tournament.specs.TournamentSpec`` (``caylus_cli.fields``); those of how and where
they are played (``--out``, ``--workers``, ...) follow them.
"""

from __future__ import annotations

from typing import Annotated, Any

import typer

from agents.tournament.specs import MOVE_TIME_LIMIT, TournamentSpec
from caylus_cli.app import (
    AgentsGameOption,
    BackendOption,
    OptionsOption,
    PluginsOption,
    ProgressOption,
    RayAddressOption,
    SeedOption,
    TimeLimitOption,
    WorkersOption,
    _bad_argument,
    _console,
    _fail,
    _parse_options,
    _split_agents,
    agents_game,
    app,
)
from caylus_cli.fields import from_fields


@app.command()
@from_fields(
    TournamentSpec,
    shared={
        "seed": SeedOption,
        "move_time_limit": TimeLimitOption,
        "game_options": OptionsOption,
        "plugins": PluginsOption,
        "game": AgentsGameOption,
    },
)
def tournament(
    values: dict[str, Any],
    *,
    out: Annotated[
        str, typer.Option(help="Run directory (games.jsonl, run.json, reports); not empty.")
    ],
    workers: WorkersOption = None,
    backend: BackendOption = "local",
    ray_address: RayAddressOption = None,
    bootstrap: Annotated[
        int, typer.Option(help="Block-bootstrap resamples for the rating intervals.")
    ] = 200,
    reference: Annotated[
        str | None,
        typer.Option(
            help="The agent every rating is relative to (Elo 0) in the tables, report.html "
            "and the ratings plot alike (default: the first agent of --agents); it only "
            "changes the reports, so an existing run can be reported again with another."
        ),
    ] = None,
    progress: ProgressOption = True,
    replay_forfeits: Annotated[
        bool,
        typer.Option(
            "--replay-forfeits",
            help="Play the games of --out that ended by a forfeit again and replace their "
            "records (the reports use the new ones).",
        ),
    ] = False,
) -> None:
    """Play a seat-balanced tournament (resumable) and report ratings and statistics.

    Every seed is played in every seat rotation of its table (one block); with more agents than
    seats the tables cycle through balanced combinations. Running the same command again resumes
    an interrupted run, and a larger --games extends it without replaying its games; other
    arguments on an existing --out are refused. --game NAME plays that game with its own agents
    (caylus agents --game NAME lists them).
    """
    from agents.tournament.runner import TournamentError, prepare_tournament, run_tournament

    if bootstrap < 0:
        _fail(f"invalid value for --bootstrap: must be >= 0, got {bootstrap}")
    specs = tuple(_split_agents(values["agents"]))
    if reference is not None and reference.strip() not in specs:
        _fail(
            f"invalid value for --reference: {reference.strip()!r} is not an agent of this run; "
            f"allowed: {', '.join(specs)}"
        )
    spec = TournamentSpec(
        **{
            **values,
            "agents": specs,
            "seating": "permutations" if values["seating"] else "rotations",
            "game_options": _parse_options(values["game_options"]),
            "plugins": tuple(values["plugins"] or ()),
            "game": agents_game(values["game"], specs),
        }
    )
    try:
        prepared = prepare_tournament(spec, out, workers=workers, backend=backend)
    except TournamentError as err:
        _bad_argument(err)
    try:
        run_tournament(
            prepared,
            ray_address=ray_address,
            progress=progress,
            console=_console(),
            n_boot=bootstrap,
            replay_forfeits=replay_forfeits,
            reference=None if reference is None else reference.strip(),
        )
    except TournamentError as err:  # e.g. the directory was locked by another run meanwhile
        _bad_argument(err)
    except KeyboardInterrupt:
        _fail(f"interrupted; run the same command again to resume from {out}", code=130)
    except Exception as err:
        _fail(f"tournament failed: {type(err).__name__}: {err}", code=1)


@app.command()
def duel(
    candidate: Annotated[str, typer.Argument(help="Agent under test.")],
    opponent: Annotated[str, typer.Argument(help="Agent it is compared to.")],
    sprt: Annotated[
        bool,
        typer.Option(
            "--sprt/--fixed",
            help="Stop as soon as the SPRT decides, or play all --max-pairs pairs.",
        ),
    ] = True,
    p0: Annotated[float, typer.Option(help="Candidate's expected score under H0.")] = 0.5,
    p1: Annotated[float, typer.Option(help="Candidate's expected score under H1.")] = 0.55,
    elo0: Annotated[
        float | None,
        typer.Option(help="H0 as an Elo difference (overrides --p0; default: --p0's score)."),
    ] = None,
    elo1: Annotated[
        float | None,
        typer.Option(help="H1 as an Elo difference (overrides --p1; default: --p1's score)."),
    ] = None,
    alpha: Annotated[float, typer.Option(help="P(accept H1 | H0).")] = 0.05,
    beta: Annotated[float, typer.Option(help="P(accept H0 | H1).")] = 0.05,
    max_pairs: Annotated[int, typer.Option(help="Cap on pairs (truncated SPRT).")] = 2000,
    min_pairs: Annotated[int, typer.Option(help="No decision before this many pairs.")] = 20,
    seed: SeedOption = 0,
    workers: WorkersOption = None,
    backend: BackendOption = "local",
    ray_address: RayAddressOption = None,
    out: Annotated[
        str | None,
        typer.Option(
            help="Write games.jsonl and duel.json here (resumable; default: write nothing)."
        ),
    ] = None,
    move_time_limit: TimeLimitOption = MOVE_TIME_LIMIT,
    option: OptionsOption = None,
    plugin: PluginsOption = None,
    progress: ProgressOption = True,
    game: AgentsGameOption = None,
) -> None:
    """Two-player paired games (same seed, seats swapped) until an SPRT decides.

    Pair scores feed a GSPRT (fishtest's pentanomial model) of H0: score = p0 against
    H1: score = p1; prints the LLR trace, the decision, the games played and the score.
    """
    from agents.stats import elo_to_score
    from agents.tournament.duel import DuelSpec, prepare_duel, run_duel
    from agents.tournament.specs import TournamentError

    if elo0 is not None:
        p0 = elo_to_score(elo0)
    if elo1 is not None:
        p1 = elo_to_score(elo1)
    spec = DuelSpec(
        candidate=candidate.strip(),
        opponent=opponent.strip(),
        p0=p0,
        p1=p1,
        alpha=alpha,
        beta=beta,
        min_pairs=min_pairs if sprt else max_pairs,
        max_pairs=max_pairs,
        seed=seed,
        move_time_limit=move_time_limit,
        game_options=_parse_options(option),
        plugins=tuple(plugin or ()),
        game=agents_game(game, [candidate, opponent]),
    )
    try:
        prepared = prepare_duel(spec, out, workers=workers, backend=backend)
    except TournamentError as err:
        _bad_argument(err)
    try:
        run_duel(
            prepared,
            ray_address=ray_address,
            progress=progress,
            console=_console(),
            duel_spec=spec,
        )
    except TournamentError as err:
        _bad_argument(err)
    except KeyboardInterrupt:
        _fail("interrupted; run the same command again to resume (with --out)", code=130)
    except Exception as err:
        _fail(f"duel failed: {type(err).__name__}: {err}", code=1)
