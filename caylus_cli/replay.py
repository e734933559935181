"""``caylus replay``: re-run a game record, checking every step, and show it as text or as a
self-contained HTML replay page (``--html``, drawn by ``caylus_env.viewer``)."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Annotated, Any

import typer

from caylus_cli.app import _fail, app, compile_notice
from caylus_cli.games import _render

HTML_SUFFIXES = (".html", ".htm")


def check_html_out(path: Path | None, option: str = "--html") -> Path | None:
    """The ``--html`` output path, refused before any work when it cannot be a page: not an
    ``.html``/``.htm`` name, an existing directory, or under a path that is not a directory."""
    if path is None:
        return None
    if path.suffix.lower() not in HTML_SUFFIXES:
        _fail(
            f"invalid value for {option}: {path} does not end in .html; allowed: a file name "
            "ending in .html or .htm"
        )
    if path.is_dir():
        _fail(f"invalid value for {option}: {path} is a directory; allowed: a file name")
    parent = next((p for p in path.absolute().parents if p.exists()), None)
    if parent is not None and not parent.is_dir():
        _fail(
            f"invalid value for {option}: {parent} is not a directory, so {path} cannot be written"
        )
    return path


def write_html(record: Any, path: Path, agents: Sequence[str] | None = None) -> None:
    """Write the replay page of ``record`` (checked by the engine first) and say where."""
    from caylus_env.viewer import write_replay_html

    try:
        size = write_replay_html(record, path, agents)
    except OSError as err:
        _fail(f"cannot write {path}: {err}", code=1)
    typer.echo(f"wrote {path} ({size / 1024:.0f} KiB, {len(record.actions) + 1} steps)")


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
    return _describe_ids([r.match.game_id for r in records if r.match is not None], len(records))


def _describe_ids(game_ids: list[int], games: int) -> str:
    """`_ids_held` of ``games`` games of which those of ``game_ids`` have an id."""
    ids = sorted(set(game_ids))
    count = f"it holds {games} game{'s' if games != 1 else ''}"
    if not ids:
        return f"{count}, none with a game_id (leave out --game-id to replay the first)"
    if ids == list(range(ids[0], ids[-1] + 1)):
        shown = f"id {ids[0]}" if len(ids) == 1 else f"ids {ids[0]} to {ids[-1]}"
    elif len(ids) <= 12:
        shown = "ids " + ", ".join(map(str, ids))
    else:
        shown = f"ids {', '.join(map(str, ids[:6]))}, ..., {', '.join(map(str, ids[-6:]))}"
    return f"{count}, {shown}"


def _dataset_record(root: Path, game_id: int | None) -> Any:
    """The record of one game of a self-play dataset (``caylus dataset generate``), rebuilt
    from its ``games`` row (seed, options, seats, agent seeds, result) and the ``action``
    column of its ``decisions`` rows in ply order; `replay` then checks it like any record.
    Fails (exit 2) for a directory that is not a dataset or a game id it does not hold, (exit
    1) for a game whose rows do not form a record."""
    from caylus_env.datasets import DatasetError, open_dataset
    from caylus_env.datasets.records import dataset_records

    try:
        games = open_dataset(root, "games")
        ids = games.to_table(columns=["game_id"]).column("game_id").to_pylist()
    except (DatasetError, OSError) as err:
        _fail(f"{root} is not a dataset (a directory written by caylus dataset generate): {err}")
    if not ids:
        _fail(f"{root} holds no game")
    chosen = min(ids) if game_id is None else game_id
    if chosen not in set(ids):
        _fail(
            f"invalid value for --game-id: no game {chosen} in {root}; "
            f"{_describe_ids(ids, len(ids))}"
        )
    try:
        return dataset_records(root, [chosen])[chosen]
    except ValueError as err:
        _fail(f"{root}: {err}", code=1)


def _pick_record(file: Path, game_id: int | None) -> Any:
    """The record ``--game-id`` names (default: the first) in a record file or a dataset."""
    if file.is_dir():
        return _dataset_record(file, game_id)
    records = _read_records(file)
    if game_id is None:
        return records[0]
    matches = [r for r in records if r.match is not None and r.match.game_id == game_id]
    if not matches:
        _fail(f"invalid value for --game-id: no game {game_id} in {file}; {_ids_held(records)}")
    return matches[0]


@app.command()
def replay(
    file: Annotated[
        Path,
        typer.Argument(
            help="A record (.json), a games.jsonl file, or a dataset directory (caylus dataset "
            "generate)."
        ),
    ],
    game_id: Annotated[
        int | None,
        typer.Option(
            "--game-id",
            "--game",
            help="Which game of a games.jsonl or a dataset (default: the first).",
        ),
    ] = None,
    show: Annotated[
        bool, typer.Option("--show/--quiet", help="List every action with its player.")
    ] = False,
    html: Annotated[
        Path | None,
        typer.Option(
            help="Write the game as a self-contained HTML replay page (board, decisions, legal "
            "actions, prestige chart; opens from disk in any browser) instead of the text board."
        ),
    ] = None,
) -> None:
    """Re-run a game record, checking every action and the final scores, and show it.

    The record is verified in full (every step replayed, its action names, the final prestige,
    ranks and end reason compared) before anything is printed: a file that is not a record
    exits 2, a record that does not replay exits 1, each with one line on stderr.
    """
    from caylus_env.engine import Game, GameConfig, action_to_string
    from caylus_env.engine import replay as replay_record

    check_html_out(html)
    record = _pick_record(file, game_id)
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
    if html is not None:
        write_html(record, html)
    else:
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
