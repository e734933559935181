"""``caylus play`` and ``caylus replay``: watch agents play one game, re-run a game record."""

from __future__ import annotations

import sys
import time
from pathlib import Path
from typing import Annotated, Any

import typer

from caylus_cli.app import (
    OptionsOption,
    PluginsOption,
    _fail,
    _load_plugins,
    _parse_options,
    _split_agents,
    app,
    compile_notice,
)


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


def _seat_count(specs: list[str], players: int | None) -> int:
    """How many seats a ``play`` has: ``--players``, or one per agent when it is not given.

    Fails naming what the user actually gave: the number of agents, and ``--players`` only when
    it was passed.
    """
    from caylus_env.engine.constants import MAX_PLAYERS, MIN_PLAYERS

    given = f"{len(specs)} agent{'s' if len(specs) != 1 else ''} ({', '.join(specs)})"
    if players is None:
        if not MIN_PLAYERS <= len(specs) <= MAX_PLAYERS:
            _fail(
                f"invalid value for --agents: {given} given and no --players; Caylus is played "
                f"by {MIN_PLAYERS} to {MAX_PLAYERS}: give one agent per seat, or --players N to "
                "cycle the agents over N seats"
            )
        return len(specs)
    if not MIN_PLAYERS <= players <= MAX_PLAYERS:
        _fail(
            f"invalid value for --players: {players} is not allowed; Caylus is played by "
            f"{MIN_PLAYERS} to {MAX_PLAYERS}"
        )
    if len(specs) > players:
        _fail(
            f"invalid value for --agents: {given} given for --players {players}; give at most "
            f"{players} (fewer are cycled to fill the seats)"
        )
    return players


def _kernel_groups(seats: list[str]) -> list[str]:
    """The compiled kernel families a game between ``seats`` uses (MCTS also runs the scripted
    bots, in its rollouts and move ordering)."""
    from agents.tournament.backends import kernel_families

    return kernel_families(seats)


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
    n = _seat_count(specs, players)
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
    with compile_notice(*_kernel_groups(seats)):
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
            name = action_to_string(action)
            typer.echo(f"turn {game.turn} {game.phase}: player {p} ({seats[p]}) -> {name}")
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


def _read_records(path: Path) -> list[Any]:
    """The `GameRecord`s of a file (one JSON record, a JSON list, or JSON lines), read by the
    engine's one strict reader; fails (exit 2) naming the file, the line and the bad field."""
    from caylus_env.engine.record import load_records

    try:
        records = load_records(path)
    except OSError as err:
        _fail(f"cannot read {path}: {err}")
    except ValueError as err:  # load_records turns every malformed input into one
        _fail(f"not a game record file: {err}")
    if not records:
        _fail(f"{path} holds no game record")
    return records


def _ids_held(records: list[Any]) -> str:
    """The game ids a file holds, as a range when they are consecutive: ``it holds 12 games,
    ids 0 to 11``; otherwise the sorted ids, the middle elided past a dozen."""
    ids = sorted({r.match.game_id for r in records if r.match is not None})
    count = f"it holds {len(records)} game{'s' if len(records) != 1 else ''}"
    if not ids:
        return f"{count}, none with a game_id (leave out --game-id to replay the first)"
    if ids == list(range(ids[0], ids[-1] + 1)):
        shown = f"id {ids[0]}" if len(ids) == 1 else f"ids {ids[0]} to {ids[-1]}"
    elif len(ids) <= 12:
        shown = "ids " + ", ".join(map(str, ids))
    else:
        shown = f"ids {', '.join(map(str, ids[:6]))}, ..., {', '.join(map(str, ids[-6:]))}"
    return f"{count}, {shown}"


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
    """Re-run a game record, checking every action and the final scores, and show it.

    The record is verified in full (every step replayed, its action names, the final prestige,
    ranks and end reason compared) before anything is printed: a file that is not a record
    exits 2, a record that does not replay exits 1, each with one line on stderr.
    """
    from caylus_env.engine import Game, GameConfig, action_to_string
    from caylus_env.engine import replay as replay_record

    records = _read_records(file)
    if game_id is None:
        record = records[0]
    else:
        matches = [r for r in records if r.match is not None and r.match.game_id == game_id]
        if not matches:
            _fail(f"invalid value for --game-id: no game {game_id} in {file}; {_ids_held(records)}")
        record = matches[0]
    with compile_notice("engine"):
        try:  # checks every action, and the recorded prestige, ranks and end
            game = replay_record(record)
        except ValueError as err:
            _fail(f"{file}: the record does not replay: {err}", code=1)
        except Exception as err:  # an engine fault on a hostile record: one line, no traceback
            _fail(f"{file}: the record does not replay: {type(err).__name__}: {err}", code=1)
    n = game.num_players
    match = record.match
    seats = list(match.agents) if match is not None else [f"player {p}" for p in range(n)]
    if show:
        if record.seed is None:
            walker = Game.from_state_dict(dict(record.start_state))
        else:
            walker = Game(GameConfig.from_dict(dict(record.options)), record.seed)
        for i, a in enumerate(record.actions):
            p = walker.current_player()
            typer.echo(
                f"{i + 1:4d}. turn {walker.turn} player {p} ({seats[p]}): {action_to_string(a)}"
            )
            walker.apply(a)
    typer.echo(_render(game))
    label = f"game {match.game_id}" if match is not None else "record"
    end = record.final.end if record.final is not None else "unfinished"
    typer.echo(f"{label} replayed: {len(record.actions)} actions, end: {end}")
    for p, reason in enumerate(match.forfeits if match is not None else ()):
        if reason:
            typer.echo(f"  player {p} ({seats[p]}) forfeited: {reason}")
    ranks = list(record.final.ranks) if record.final is not None else game.ranks().tolist()
    prestige = game.prestige().tolist()
    for p in range(n):
        typer.echo(f"  player {p} ({seats[p]}): prestige {prestige[p]}, rank {ranks[p]:g}")
