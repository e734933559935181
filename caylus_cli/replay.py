"""``caylus replay``: re-run a game record, checking every step, and show it as text or as a
self-contained HTML replay page (``--html``: ``caylus_env.core.viewer.write_replay_page``, which
draws the record's game).

The game is the record's own (its ``game`` field, `DEFAULT_GAME` when absent:
``caylus_env.core.registry``); ``--game NAME`` says which game the file must hold, and a record
of another game is refused naming both. ``--game`` followed by a number is the older spelling of
``--game-id``. Every game is read by the one record reader and replayed by the one verifier
(``caylus_env.core.record``), and shown by its rendering module, clock and score words.
"""

from __future__ import annotations

import json
import stat
from collections.abc import Mapping
from pathlib import Path
from typing import Annotated, Any

import typer

from caylus_cli.app import _fail, _game_known, app, compile_notice
from caylus_cli.show import check_html_out, clock, final_lines, render, write_html
from caylus_env.core.registry import DEFAULT_GAME, game_spec, record_game


def _read_records(path: Path, game: str = DEFAULT_GAME) -> list[Any]:
    """The records of ``game`` in a file (one JSON record, a JSON list, or JSON lines), read by
    the strict reader; fails (exit 2) naming the file, the line and the bad field."""
    try:
        records = _load_records(path, game)
    except OSError as err:
        _fail(f"cannot read {path}: {err}")
    except ValueError as err:  # the readers turn every malformed input into one
        _fail(f"not a game record file: {err}")
    if not records:
        _fail(f"{path} holds no game record")
    return records


def _json_items(path: Path) -> list[tuple[str, Any]]:
    """The JSON values of a record file, each with where it is (``record 2``, ``line 5``): one
    JSON value (a record or a list of them) or JSON lines.

    The file is untrusted, as for the record reader (``load_records``): one larger than its
    ``MAX_RECORD_FILE_BYTES`` is refused unread, and bad UTF-8 or JSON nested too deeply are
    ``ValueError`` s naming the file.
    """
    from caylus_env.core.record import MAX_RECORD_FILE_BYTES

    info = path.stat()
    size = info.st_size
    if not stat.S_ISREG(info.st_mode):
        raise ValueError(f"{path} is not a regular file")
    if size > MAX_RECORD_FILE_BYTES:
        raise ValueError(
            f"{path} is {size} bytes; allowed: record files up to {MAX_RECORD_FILE_BYTES} bytes "
            f"({MAX_RECORD_FILE_BYTES // 2**20} MiB): split it"
        )
    try:
        with path.open("rb") as handle:
            text = handle.read(MAX_RECORD_FILE_BYTES + 1).decode("utf-8")
    except UnicodeDecodeError as err:
        raise ValueError(f"{path} is not UTF-8 text: {err}") from None
    try:
        whole = _parse_json(text)
    except ValueError:  # not one JSON document: read as JSON lines below
        pass
    else:
        items = whole if isinstance(whole, list) else [whole]
        return [(f"record {i + 1}", item) for i, item in enumerate(items)]
    out = []
    for lineno, line in enumerate(text.splitlines(), start=1):
        if line.strip():
            try:
                out.append((f"line {lineno}", _parse_json(line)))
            except ValueError as err:
                raise ValueError(f"{path} line {lineno}: {err}") from None
    return out


def _parse_json(text: str) -> Any:
    """``json.loads`` whose every failure is a ``ValueError``."""
    try:
        return json.loads(text)
    except RecursionError:
        raise ValueError("a game record must be valid JSON: it is nested too deeply") from None
    except ValueError as err:
        raise ValueError(f"a game record must be valid JSON: {err}") from None


def _load_records(path: Path, game: str) -> list[Any]:
    """Every record of a file of ``game``, each checked to be of that game
    (``caylus_env.core.registry.record_game``, naming both games) and read by the strict
    ``GameRecord.from_dict`` (which reads the formats written before ``game-record/3`` too).

    Raises:
        ValueError: naming the file, the record or line and what is wrong.
    """
    from caylus_env.core.record import GameRecord

    out = []
    for where, item in _json_items(path):
        try:
            if isinstance(item, Mapping):  # another game's record: say so, naming both
                record_game(item, game)
            out.append(GameRecord.from_dict(item))
        except ValueError as err:
            raise ValueError(f"{path} {where}: {err}") from None
    return out


def _first_item(path: Path) -> Any:
    """The first JSON value of a record file: its first line's when that line is a whole
    record or list (a games.jsonl, a compact record: the file is not parsed twice), else the
    whole file's (an indented record)."""
    from caylus_env.core.record import MAX_RECORD_FILE_BYTES

    with path.open("rb") as handle:  # bounded: a longer line fails to parse, then is refused
        line = handle.readline(MAX_RECORD_FILE_BYTES + 1).strip()
    try:
        first = _parse_json(line.decode("utf-8"))
    except ValueError:  # an indented record, or bytes the reader will name
        items = _json_items(path)
        return items[0][1] if items else None
    return first[0] if isinstance(first, list) and first else first


def _file_game(path: Path, expected: str | None) -> str:
    """The game of a record file or dataset directory: its first record's ``game`` field (a
    dataset's manifest's), `DEFAULT_GAME` when absent; ``expected`` (``--game``) when the file
    cannot say, which its reader then explains. Fails (exit 2) for a file of another game than
    ``expected``, naming both."""
    first: Any = None
    try:
        if path.is_dir():
            from caylus_env.datasets.format import read_manifest

            first = read_manifest(path)
        else:
            first = _first_item(path)
    except (OSError, ValueError, ImportError):  # the game's own reader names what is wrong
        first = None
    if not isinstance(first, dict):
        return expected or DEFAULT_GAME
    try:
        return record_game(first, expected).name
    except ValueError as err:
        what = "dataset" if path.is_dir() else "record file"
        _fail(f"{path}: {err}" if expected else f"{path} is not a {what} of a known game: {err}")


def _ids_held(records: list[Any]) -> str:
    """The game ids a file holds, as a range when they are consecutive: ``it holds 12 games,
    ids 0 to 11``; otherwise the sorted ids, the middle elided past a dozen."""
    ids = [r.game_id for r in records]
    return _describe_ids([i for i in ids if i is not None], len(records))


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


def _dataset_record(root: Path, game_id: int | None, game: str = DEFAULT_GAME) -> Any:
    """The record of one game of a self-play dataset (``caylus dataset generate``), rebuilt
    from its ``games`` row (seed, options, seats, agent seeds, result) and the ``action``
    column of its ``decisions`` rows in ply order; `replay` then checks it like any record.
    Fails (exit 2) for a directory that is not a dataset or a game id it does not hold, (exit
    1) for a game whose rows do not form a record."""
    from caylus_env.datasets import DatasetError, open_dataset
    from caylus_env.datasets.records import dataset_records

    try:
        games = open_dataset(root, "games", game=game)
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
        return dataset_records(root, [chosen], game)[chosen]
    except ValueError as err:
        _fail(f"{root}: {err}", code=1)


def _pick_record(file: Path, game_id: int | None, game: str = DEFAULT_GAME) -> Any:
    """The record ``--game-id`` names (default: the first) in a record file or a dataset."""
    if file.is_dir():
        return _dataset_record(file, game_id, game)
    records = _read_records(file, game)
    if game_id is None:
        return records[0]
    matches = [r for r in records if r.game_id == game_id]
    if not matches:
        _fail(f"invalid value for --game-id: no game {game_id} in {file}; {_ids_held(records)}")
    return matches[0]


def _is_number(value: str) -> bool:
    """Whether a ``--game`` value is a game id (its older spelling) rather than a game name."""
    return value.strip().lstrip("-").isdigit()


def _game_or_id(value: str | None) -> str | None:
    """``--game``: a game of the platform (refused before any work when unknown), or a number,
    the older spelling of ``--game-id``."""
    if value is None or _is_number(value):
        return value
    return _game_known(value)


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
            "--game-id", help="Which game of a games.jsonl or a dataset (default: the first)."
        ),
    ] = None,
    game: Annotated[
        str | None,
        typer.Option(
            "--game",
            help="The game the file must hold (caylus games lists them; default: the game its "
            "records name). A number is read as --game-id, its older spelling.",
            callback=_game_or_id,
        ),
    ] = None,
    show: Annotated[
        bool, typer.Option("--show/--quiet", help="List every action with its player.")
    ] = False,
    html: Annotated[
        Path | None,
        typer.Option(
            help="Write the game as a self-contained HTML replay page (board, decisions, legal "
            "actions, score chart; opens from disk in any browser) instead of the text board "
            "(default: the text board)."
        ),
    ] = None,
) -> None:
    """Re-run a game record, checking every action and the final scores, and show it.

    The record is verified in full (every step replayed, its action names, the final scores,
    ranks and end compared) before anything is printed: a file that is not a record, or a
    record of another game than --game, exits 2, a record that does not replay exits 1, each
    with one line on stderr. The game is the one the record names (the default game when it
    names none).
    """
    if game is not None and _is_number(game):
        if game_id is not None:
            _fail(
                f"give the game id once: --game-id {game_id} (--game {game} is its older spelling)"
            )
        game_id, game = int(game), None
    check_html_out(html)
    _check_source(file)
    held = _file_game(file, game)
    record = _pick_record(file, game_id, held)
    _show(file, record, show, html)


def _check_source(path: Path) -> None:
    """A record file must be a regular file (a FIFO would block, ``/dev/zero`` never ends),
    or a dataset directory; fails (exit 2) naming it otherwise, before anything is opened."""
    import stat

    try:
        mode = path.stat().st_mode
    except OSError as err:
        _fail(f"invalid value for FILE: cannot read {path}: {err.strerror or err}")
    if not (stat.S_ISREG(mode) or stat.S_ISDIR(mode)):
        _fail(
            f"invalid value for FILE: {path} is not a regular file; give a record (.json), a "
            "games.jsonl file or a dataset directory"
        )


def _replayed(file: Path, record: Any) -> Any:
    """The game a record replays to (every step and the recorded end checked by the engine);
    fails (exit 1) in one line, without a traceback, when it does not replay."""
    from agents.tournament.backends import kernel_families
    from caylus_env.core.record import replay

    with compile_notice(*kernel_families([], record.game)):
        try:  # checks every action, and the recorded scores, ranks and end
            return replay(record)
        except ValueError as err:
            _fail(f"{file}: the record does not replay: {err}", code=1)
        except Exception as err:  # an engine fault on a hostile record: one line, no traceback
            _fail(f"{file}: the record does not replay: {type(err).__name__}: {err}", code=1)


def _show(file: Path, record: Any, show: bool, html: Path | None) -> None:
    """Print a replayed record: its decisions by name with the game's clock (``--show``), the
    board or a replay page, the end, the forfeits and each seat's score (in the game's word)
    and rank."""
    engine = game_spec(record.game).engine()
    game = _replayed(file, record)
    n = game.num_players
    match, final = record.match, record.final
    seats = list(match.agents) if match is not None else [f"player {p}" for p in range(n)]
    if show:
        if record.seed is None:
            walker = engine.Game.from_state_dict(dict(record.start_state))
        else:
            walker = engine.Game(engine.GameConfig.from_dict(dict(record.options)), record.seed)
        for i, a in enumerate(record.actions):
            p = walker.current_player()
            typer.echo(
                f"{i + 1:4d}. {clock(walker)} player {p} ({seats[p]}): {walker.action_to_string(a)}"
            )
            walker.apply(a)
    if html is not None:
        write_html(record, html, seats if match is not None else None)
    else:
        typer.echo(render(game))
    label = f"game {match.game_id}" if match is not None else "record"
    end = final.end if final is not None else "unfinished"
    typer.echo(f"{label} replayed: {len(record.actions)} actions, end: {end}")
    for p, reason in enumerate(match.forfeits if match is not None else ()):
        if reason:
            typer.echo(f"  player {p} ({seats[p]}) forfeited: {reason}")
    scores = list(final.scores) if final is not None else game.scores().tolist()
    ranks = list(final.ranks) if final is not None else game.ranks().tolist()
    for line in final_lines(game, seats, scores, ranks):
        typer.echo(line)
