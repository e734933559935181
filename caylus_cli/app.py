"""The ``caylus`` command: tournaments, SPRT duels, watching and replaying games, benchmarks.

Every command checks its arguments before doing any work and fails with a one-line message on
stderr and exit code 2 when one is wrong (unknown agent, player count, game count, workers,
backend, an output directory started with other arguments). Failures during the work itself
exit with code 1.

Heavy modules (the tournament runner and its statistics and plotting stack, the renderer, the
benchmark) are imported inside the commands: worker processes started by ``spawn`` re-import the
main module, and ``caylus agents`` should answer at once.
"""

from __future__ import annotations

import json
import sys
import time
from pathlib import Path
from typing import Annotated, Any, NoReturn

import typer

app = typer.Typer(
    name="caylus",
    help="Caylus for 2-5 players: tournaments, SPRT duels, watching and replaying games.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
)

#: Spec field named by a TournamentError -> the option that sets it.
_OPTION_OF = {
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
    "min_pairs": "--min-pairs",
    "max_pairs": "--max-pairs",
    "sprt": "--p0/--p1/--alpha/--beta",
}

PluginsOption = Annotated[
    list[str] | None,
    typer.Option(
        "--plugin",
        help="Module to import (in the driver and every worker) that registers more agents; "
        "repeatable, e.g. --plugin agents.tournament.testing.",
    ),
]
OptionsOption = Annotated[
    list[str] | None,
    typer.Option(
        "--option",
        help="Game option KEY=VALUE (JSON value), e.g. --option jeweller=true; repeatable.",
    ),
]
SeedOption = Annotated[int, typer.Option(help="Master seed of every game and agent seed.")]
WorkersOption = Annotated[
    int | None,
    typer.Option(help="Games played in parallel (default: the machine's cores)."),
]
BackendOption = Annotated[str, typer.Option(help="Where games run: local (process pool) or ray.")]
RayAddressOption = Annotated[
    str | None,
    typer.Option(help="Ray cluster address (auto, HOST:PORT); default: RAY_ADDRESS or local."),
]
TimeLimitOption = Annotated[
    float,
    typer.Option(help="Seconds an agent may think per move before it forfeits (0: no limit)."),
]
ProgressOption = Annotated[bool, typer.Option("--progress/--no-progress", help="Progress bar.")]


def _fail(message: str, code: int = 2) -> NoReturn:
    """Print ``message`` to stderr and exit: 2 for bad arguments, 1 for failed work."""
    typer.echo(f"Error: {message}", err=True)
    raise typer.Exit(code)


def _console() -> Any:
    """A rich console; off a terminal (logs, pipes) wide enough that tables are not cut."""
    from rich.console import Console

    return Console() if sys.stdout.isatty() else Console(width=160)


def _split_agents(text: str) -> list[str]:
    return [a.strip() for a in text.split(",") if a.strip()]


def _parse_options(items: list[str] | None) -> dict[str, Any]:
    """``KEY=VALUE`` pairs with JSON values (``true``, ``3``); bare words stay strings."""
    out: dict[str, Any] = {}
    for item in items or []:
        key, sep, raw = item.partition("=")
        if not sep or not key.strip():
            _fail(f"invalid value for --option: {item!r} is not KEY=VALUE")
        try:
            value = json.loads(raw)
        except ValueError:
            value = raw
        out[key.strip()] = value
    return out


def _load_plugins(plugins: list[str] | None) -> None:
    from agents.tournament.arena import load_plugins

    try:
        load_plugins(plugins or [])
    except ImportError as err:
        _fail(f"invalid value for --plugin: cannot import {err.name or err}: {err}")


def _bad_argument(err: Exception) -> NoReturn:
    field = getattr(err, "field", "")
    option = _OPTION_OF.get(field, field)
    _fail(f"invalid value for {option}: {err}" if option else str(err))


# --------------------------------------------------------------------------------------------------
# tournament / duel
# --------------------------------------------------------------------------------------------------


@app.command()
def tournament(
    agents: Annotated[
        str, typer.Option(help="Comma-separated agent specs, e.g. random,castle,mcts:200.")
    ],
    players: Annotated[int, typer.Option(help="Players per game, 2 to 5.")],
    games: Annotated[int, typer.Option(help="Total games, rounded up to whole blocks.")],
    out: Annotated[Path, typer.Option(help="Run directory (games.jsonl, run.json, reports).")],
    seed: SeedOption = 0,
    workers: WorkersOption = None,
    backend: BackendOption = "local",
    ray_address: RayAddressOption = None,
    permutations: Annotated[
        bool,
        typer.Option(
            "--permutations/--rotations",
            help="Seat each block in every order of its table (players! games) instead of its "
            "players cyclic rotations.",
        ),
    ] = False,
    move_time_limit: TimeLimitOption = 10.0,
    option: OptionsOption = None,
    plugin: PluginsOption = None,
    bootstrap: Annotated[
        int, typer.Option(help="Block-bootstrap resamples for the rating intervals.")
    ] = 200,
    progress: ProgressOption = True,
) -> None:
    """Play a seat-balanced tournament (resumable) and report ratings and statistics.

    Every seed is played in every seat rotation of its table (one block); with more agents than
    seats the tables cycle through balanced combinations. Running the same command again resumes
    an interrupted run; other arguments on an existing --out are refused.
    """
    from agents.tournament.runner import (
        TournamentError,
        TournamentSpec,
        prepare_tournament,
        run_tournament,
    )

    if bootstrap < 0:
        _fail(f"invalid value for --bootstrap: must be >= 0, got {bootstrap}")
    spec = TournamentSpec(
        agents=tuple(_split_agents(agents)),
        players=players,
        games=games,
        seed=seed,
        seating="permutations" if permutations else "rotations",
        move_time_limit=move_time_limit,
        game_options=_parse_options(option),
        plugins=tuple(plugin or ()),
    )
    try:
        prepare_tournament(spec, out, workers=workers, backend=backend)
    except TournamentError as err:
        _bad_argument(err)
    try:
        run_tournament(
            spec,
            out,
            workers=workers,
            backend=backend,
            ray_address=ray_address,
            progress=progress,
            console=_console(),
            n_boot=bootstrap,
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
        float | None, typer.Option(help="H0 as an Elo difference (overrides --p0).")
    ] = None,
    elo1: Annotated[
        float | None, typer.Option(help="H1 as an Elo difference (overrides --p1).")
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
        Path | None, typer.Option(help="Write games.jsonl and duel.json here (resumable).")
    ] = None,
    move_time_limit: TimeLimitOption = 10.0,
    option: OptionsOption = None,
    plugin: PluginsOption = None,
    progress: ProgressOption = True,
) -> None:
    """Two-player paired games (same seed, seats swapped) until an SPRT decides.

    Pair scores feed a GSPRT (fishtest's pentanomial model) of H0: score = p0 against
    H1: score = p1; prints the LLR trace, the decision, the games played and the score.
    """
    from agents.stats import elo_to_score
    from agents.tournament.duel import DuelSpec, run_duel
    from agents.tournament.runner import RunDir, TournamentError, check_execution

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
    )
    try:
        _, info = spec.build()
        check_execution(workers, backend)
        if out is not None:
            RunDir(out).check(info)
    except TournamentError as err:
        _bad_argument(err)
    try:
        run_duel(
            spec,
            out,
            workers=workers,
            backend=backend,
            ray_address=ray_address,
            progress=progress,
            console=_console(),
        )
    except TournamentError as err:
        _bad_argument(err)
    except KeyboardInterrupt:
        _fail("interrupted; run the same command again to resume (with --out)", code=130)
    except Exception as err:
        _fail(f"duel failed: {type(err).__name__}: {err}", code=1)


# --------------------------------------------------------------------------------------------------
# play / replay
# --------------------------------------------------------------------------------------------------


def _render(game: Any) -> str:
    """The board as text, or the game's one-line repr where no renderer is installed."""
    try:
        from caylus_env.rendering import render_text
    except ImportError:
        return repr(game)
    return render_text(game)


def _final_lines(game: Any, seats: list[str]) -> list[str]:
    prestige = game.prestige().tolist()
    ranks = game.ranks().tolist()
    return [
        f"  player {p} ({seats[p]}): prestige {prestige[p]}, rank {ranks[p]:g}"
        for p in range(len(seats))
    ]


@app.command()
def play(
    agents: Annotated[
        str, typer.Option(help="Comma-separated agent specs, one per seat (cycled to fill).")
    ],
    players: Annotated[
        int | None, typer.Option(help="Players, 2 to 5 (default: one per agent).")
    ] = None,
    seed: Annotated[int, typer.Option(help="Game seed; agent seeds are seed + seat.")] = 0,
    step: Annotated[
        bool, typer.Option("--step/--no-step", help="Wait for Enter after each decision.")
    ] = False,
    delay: Annotated[float, typer.Option(help="Seconds to pause after each decision.")] = 0.0,
    board: Annotated[
        bool,
        typer.Option(
            "--board/--no-board",
            help="Render the board at every new turn (every decision with --step).",
        ),
    ] = True,
    option: OptionsOption = None,
    plugin: PluginsOption = None,
) -> None:
    """Watch agents play one game in the terminal, decision by decision."""
    from agents.registry import make_agent
    from caylus_env.engine import Game, GameConfig, action_to_string

    specs = _split_agents(agents)
    if not specs:
        _fail("invalid value for --agents: give at least one agent spec")
    n = len(specs) if players is None else players
    if not 2 <= n <= 5:
        _fail(f"invalid value for --players: {n} is not allowed; Caylus is played by 2 to 5")
    if len(specs) > n:
        _fail(f"invalid value for --agents: {len(specs)} agents for {n} seats")
    if delay < 0:
        _fail(f"invalid value for --delay: must be >= 0, got {delay}")
    if seed < 0:
        _fail(f"invalid value for --seed: must be >= 0, got {seed}")
    seats = [specs[s % len(specs)] for s in range(n)]
    _load_plugins(plugin)
    try:
        config = GameConfig.from_dict({**_parse_options(option), "num_players": n})
    except (TypeError, ValueError) as err:
        _fail(f"invalid value for --option: {err}")
    try:
        bots = [make_agent(spec) for spec in seats]
    except ValueError as err:
        _fail(f"invalid value for --agents: {err}")
    game = Game(config, seed)
    for s, bot in enumerate(bots):
        bot.reset(seed + s)
    interactive = step and sys.stdin.isatty()
    last_turn = None
    while not game.is_terminal():
        if board and (interactive or game.turn != last_turn):
            typer.echo(_render(game))
            last_turn = game.turn
        p = game.current_player()
        legal = game.legal_actions()
        try:
            action = bots[p].act(game)
        except Exception as err:
            _fail(f"player {p} ({seats[p]}) raised {type(err).__name__}: {err}", code=1)
        if isinstance(action, bool) or not isinstance(action, int) or action not in legal:
            _fail(f"player {p} ({seats[p]}) chose an illegal action {action!r}", code=1)
        typer.echo(
            f"turn {game.turn} {game.phase}: player {p} ({seats[p]}) -> {action_to_string(action)}"
        )
        game.apply(action)
        if interactive:
            input()
        elif delay:
            time.sleep(delay)
    if board:
        typer.echo(_render(game))
    typer.echo(f"Game over after {len(game.history)} decisions. Final prestige and ranks:")
    for line in _final_lines(game, seats):
        typer.echo(line)


def _read_records(path: Path) -> list[dict[str, Any]]:
    """The records of a file: one JSON record, a JSON list of them, or JSON lines.

    Fails (exit 2) naming the line on anything that is not a JSON object per record.
    """
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as err:
        _fail(f"cannot read {path}: {err}")
    try:
        whole = json.loads(text)
    except ValueError:
        whole = None
        records = []
        for lineno, line in enumerate(text.splitlines(), start=1):
            if not line.strip():
                continue
            try:
                item = json.loads(line)
            except ValueError as err:
                _fail(f"{path} line {lineno} is not valid JSON: {err}")
            if not isinstance(item, dict):
                _fail(f"{path} line {lineno} is not a JSON object (a game record)")
            records.append(item)
    if whole is not None:
        records = whole if isinstance(whole, list) else [whole]
        if not all(isinstance(r, dict) for r in records):
            _fail(f"{path} does not hold game records (JSON objects)")
    if not records:
        _fail(f"{path} holds no game record")
    return records


@app.command()
def replay(
    file: Annotated[Path, typer.Argument(help="A record (.json) or a games.jsonl file.")],
    game_id: Annotated[
        int | None, typer.Option(help="Which game of a games.jsonl (default: the first).")
    ] = None,
    show: Annotated[
        bool, typer.Option("--show/--quiet", help="List every action with its player.")
    ] = False,
) -> None:
    """Re-run a game record, checking every action and the final scores, and show it."""
    from caylus_env.engine import Game, GameConfig, action_to_string
    from caylus_env.engine import replay as replay_record

    records = _read_records(file)
    if game_id is None:
        record = records[0]
    else:
        matches = [r for r in records if r.get("game_id") == game_id]
        if not matches:
            ids = [r.get("game_id") for r in records]
            _fail(f"invalid value for --game-id: no game {game_id} in {file} (ids: {ids[:20]})")
        record = matches[0]
    try:
        game = replay_record(record)
    except (ValueError, TypeError, KeyError) as err:
        _fail(f"{file}: the record does not replay: {err}", code=1)
    if "prestige" in record and record["prestige"] != game.prestige().tolist():
        _fail(
            f"{file}: replayed prestige {game.prestige().tolist()} differs from the record's "
            f"{record['prestige']}",
            code=1,
        )
    n = game.num_players
    seats = record.get("seats") or [f"player {p}" for p in range(n)]
    if show:
        if record.get("seed") is None:
            walker = Game.from_state_dict(record["start_state"])
        else:
            walker = Game(GameConfig.from_dict(record.get("options", {})), record["seed"])
        for i, a in enumerate(record["actions"]):
            p = walker.current_player()
            typer.echo(
                f"{i + 1:4d}. turn {walker.turn} player {p} ({seats[p]}): {action_to_string(a)}"
            )
            walker.apply(a)
    typer.echo(_render(game))
    label = f"game {record['game_id']}" if "game_id" in record else "record"
    end = record.get("end", "terminated" if game.is_terminal() else "unfinished")
    typer.echo(f"{label} replayed: {len(record['actions'])} actions, end: {end}")
    for p, reason in enumerate(record.get("forfeit_reason") or []):
        if reason:
            typer.echo(f"  player {p} ({seats[p]}) forfeited: {reason}")
    ranks = record.get("ranks") or game.ranks().tolist()
    prestige = game.prestige().tolist()
    for p in range(n):
        typer.echo(f"  player {p} ({seats[p]}): prestige {prestige[p]}, rank {ranks[p]:g}")


# --------------------------------------------------------------------------------------------------
# bench / agents
# --------------------------------------------------------------------------------------------------


@app.command()
def bench(
    repeats: Annotated[int | None, typer.Option(help="Timing repeats (median reported).")] = None,
    players: Annotated[
        str | None, typer.Option(help="Comma-separated player counts, e.g. 2,4.")
    ] = None,
    quick: Annotated[bool, typer.Option("--quick", help="A short run for smoke tests.")] = False,
) -> None:
    """Measure the engine's speed (delegates to caylus_env.benchmark)."""
    kwargs: dict[str, Any] = {"quick": quick}
    if repeats is not None:
        if repeats < 1:
            _fail(f"invalid value for --repeats: must be >= 1, got {repeats}")
        kwargs["repeats"] = repeats
    if players is not None:
        try:
            counts = [int(x) for x in players.split(",") if x.strip()]
        except ValueError:
            _fail(f"invalid value for --players: {players!r} is not a list like 2,4")
        if not counts or any(not 2 <= c <= 5 for c in counts):
            _fail(f"invalid value for --players: {players!r}; player counts are 2 to 5")
        kwargs["players"] = counts
    try:
        from caylus_env import benchmark
    except ImportError as err:
        _fail(f"the benchmark module is not available: {err}", code=1)
    benchmark.main(**kwargs)


@app.command("agents")
def list_agents(plugin: PluginsOption = None) -> None:
    """List the agent specs that can be used (ARG marks a required argument, e.g. mcts:200)."""
    from agents.registry import available_agents

    _load_plugins(plugin)
    for spec in available_agents():
        typer.echo(spec)


if __name__ == "__main__":
    app()
