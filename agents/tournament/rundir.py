"""A tournament's or duel's run directory: a `caylus_env.core.ledger.Ledger` of game records.

The driver owns the directory (design doc (d), "the driver owns the ledger"):

- ``run.json``: the arguments that determine the games and the hash of the schedule they give.
  Starting again with the same arguments resumes; other arguments are refused, naming the
  fields, before anything is touched. One difference is allowed: a tournament started again
  with more ``games`` extends the run (the schedule is prefix-stable, so the games already
  played are the first games of the longer schedule, and are kept).
- ``games.jsonl``: one game record per line (``caylus_env.core.record.GameRecord``), one line
  per game id, appended as workers return them. A torn last line left by a kill is dropped and
  its game played again, which reproduces it exactly (a game is a pure function of its
  scheduled job). Replayed games (``tournament --replay-forfeits``) replace their line in one
  atomic rewrite. A resume trusts no line it has not checked (`verify_record`: the scheduled
  game, the run's engine and options, an exact replay, about 1.3 ms a game on top of reading
  it): an edited line is refused, naming it.

``run.json`` names the game in its ``game`` field; a run directory written before the field
existed holds `DEFAULT_GAME` (``caylus_env.core.registry.game_of``), and resumes as before. A
directory is resumed with its own game only, and its lines are read by the one record reader,
which reads the formats written before ``game-record/3`` too (an old run's lines and the new
lines it is resumed or extended with compare by their fields, not their bytes) and refuses a
record of another game (``caylus_env.core.registry.record_game``).
"""

from __future__ import annotations

import contextlib
import os
from collections.abc import Callable, Collection, Iterator, Mapping, Sequence
from pathlib import Path
from typing import Any

from agents.tournament.schedule import GameJob, Schedule, build_schedule
from agents.tournament.specs import (
    DERIVED_FIELDS,
    RUN_FORMAT,
    RunMismatchError,
    TournamentError,
)
from caylus_env.core.ledger import InfoMismatchError, Ledger, LedgerError
from caylus_env.core.record import GameRecord, parse_json, replay
from caylus_env.core.registry import DEFAULT_GAME, GAME_NAMES, game_of, game_spec, record_game

GAMES_FILE = "games.jsonl"
RUN_FILE = "run.json"
EXTENSIBLE_FIELDS = ("games", "scheduled_games", "blocks", "schedule_hash")
"""What may differ when a tournament is extended to more games (and nothing else)."""
INFO_DEFAULTS = {"game": DEFAULT_GAME}
"""``run.json`` fields that files written before them lack, and what such a file means."""


def parse_record(raw: str | bytes, game: str) -> GameRecord:
    """One JSON record of ``game``, by the one strict reader (any format it reads).

    Raises:
        ValueError: for text that is not a record, or a record of another game (naming both,
            ``caylus_env.core.registry.record_game``).
    """
    data = parse_json(raw)
    if isinstance(data, Mapping):
        record_game(data, game)
    return GameRecord.from_dict(data)


def _finished(game: str) -> Callable[[bytes], GameRecord]:
    """The reader of a ledger line as a finished tournament record of ``game`` (what a torn
    line fails to be)."""

    def read(raw: bytes) -> GameRecord:
        record = parse_record(raw, game)
        if record.match is None or record.final is None:
            raise ValueError("not a finished tournament game (no match or final section)")
        return record

    return read


def _first_difference(pairs: Sequence[tuple[str, Any, Any]]) -> str | None:
    """``"field: the ledger has X, the schedule says Y"`` for the first differing pair."""
    for name, held, wanted in pairs:
        if held != wanted:
            return f"{name}: the ledger has {held!r}, {RUN_FILE} and the schedule say {wanted!r}"
    return None


def verify_record(
    record: GameRecord, jobs: Mapping[int, GameJob], info: Mapping[str, Any] | None
) -> dict[str, Any]:
    """Check one ledger record against the run before resuming trusts it; returns its
    `result_of`.

    A ledger is a file anybody can edit, and a resumed run's statistics are computed from its
    lines without playing them again, so every line is checked: its game id is one of the
    schedule, its seed, block, seats and agent seeds are that game's, its engine version and
    game options are the run's (``info``), and it replays exactly with the engine (every
    action legal and named as recorded, the final scores, ranks and end reason as recorded:
    ``caylus_env.core.record.replay``). What cannot be checked this way is what a game does not
    determine: the forfeit reason texts and the timings. The game is the one the record names
    (its reader refused any other game than the run's). Records are compared by their fields,
    so a line of a format written before ``game-record/3`` checks like a new one.

    Raises:
        ValueError: naming the first field that differs and both values.
    """
    match = record.match
    if match is None or record.final is None:
        raise ValueError("not a finished tournament game (no match or final section)")
    job = jobs.get(match.game_id)
    if job is None:
        raise ValueError(f"game_id {match.game_id} is not a game of the schedule in {RUN_FILE}")
    pairs: list[tuple[str, Any, Any]] = [
        ("seed", record.seed, job.seed),
        ("match.block", match.block, job.block),
        ("match.agents", tuple(match.agents), tuple(job.seats)),
        ("match.agent_seeds", tuple(match.agent_seeds), tuple(job.agent_seeds)),
    ]
    if info is not None:
        options = {**info["game_options"], "num_players": job.num_players}
        held = record.options
        pairs.append(("engine", record.engine, info["engine"]))
        pairs += [(f"options.{k}", held.get(k), v) for k, v in options.items()]
        pairs += [(f"options.{k}", v, None) for k, v in held.items() if k not in options]
    differs = _first_difference(pairs)
    if differs is not None:
        raise ValueError(f"game_id {match.game_id}: {differs}")
    try:
        replay(record)
    except ValueError as err:
        raise ValueError(f"game_id {match.game_id} does not replay: {err}") from None
    return record.result()


def read_records(path: str | os.PathLike[str], game: str = DEFAULT_GAME) -> list[GameRecord]:
    """Every complete record of a ``games.jsonl`` of ``game`` (a torn last line is skipped, not
    repaired), ordered by game id."""
    path = Path(path)
    ledger = Ledger(path.parent, records=path.name, info=RUN_FILE)
    lines, _ = ledger.read(lambda raw: parse_record(raw, game), repair=False)
    return sorted((r for _, r in lines), key=lambda r: r.game_id or 0)


class RunDir:
    """The files of one run: ``run.json``, ``games.jsonl`` and the reports.

    Attributes:
        game: The game of the run (``caylus_env.core.registry``): the ledger holds its records
            only.
    """

    def __init__(self, path: str | os.PathLike[str], game: str = DEFAULT_GAME) -> None:
        self.path = Path(path)
        self.game = game_spec(game).name
        self.ledger = Ledger(self.path, records=GAMES_FILE, info=RUN_FILE, info_format=RUN_FORMAT)
        self.run_path = self.ledger.info_path
        self.games_path = self.ledger.records_path

    def read_info(self) -> dict[str, Any] | None:
        """The stored ``run.json``, or None for a fresh directory.

        Raises:
            TournamentError: if the directory is unusable.
        """
        try:
            return self.ledger.read_info()
        except LedgerError as err:
            raise TournamentError("out", str(err)) from None

    def check(self, info: Mapping[str, Any], schedule: Schedule | None = None) -> bool:
        """Compare the stored arguments with ``info``; True when a run already exists.

        With the ``schedule`` of ``info``, a stored tournament with fewer games whose schedule
        is a prefix of it is accepted (see `extends`).

        Raises:
            RunMismatchError: naming every differing argument.
        """
        return self.extends(info, schedule)[0]

    def extends(
        self, info: Mapping[str, Any], schedule: Schedule | None = None
    ) -> tuple[bool, dict[str, Any] | None]:
        """``(run exists, stored run.json if this run extends it to more games else None)``.

        Raises:
            TournamentError: (field ``game``) for a directory of another game than ``info``'s,
                naming both; `RunMismatchError` for other differing arguments.
        """
        self.check_game(game_of(info))

        def may_differ(stored: Mapping[str, Any]) -> Collection[str]:
            if schedule is None or not _is_extension(stored, info, schedule):
                return ()
            return EXTENSIBLE_FIELDS

        try:
            stored = self.ledger.check_info(
                info, derived=DERIVED_FIELDS, may_differ=may_differ, defaults=INFO_DEFAULTS
            )
        except InfoMismatchError as err:
            raise RunMismatchError(err) from None
        except LedgerError as err:
            raise TournamentError("out", str(err)) from None
        if stored is None:
            return False, None
        extended = stored.get("games") != info.get("games")
        return True, stored if extended else None

    def check_game(self, wanted: str) -> None:
        """Refuse a directory holding a run of another game than ``wanted``, before anything
        else is compared or validated: its other differences (agents, game options) follow
        from the game, and naming the game says what to change.

        Raises:
            TournamentError: (field ``game``) naming both games and the option to pass.
        """
        stored = self.read_info()
        if stored is None:
            return
        held = game_of(stored)
        if held != wanted:
            title = game_spec(held).title if held in GAME_NAMES else held
            raise TournamentError(
                "game",
                f"{self.path} holds a {title} run ({RUN_FILE} field game is {held!r}), not a "
                f"{game_spec(wanted).title} one ({wanted!r}): resume it with --game {held}, or "
                "choose another output directory",
            )

    @contextlib.contextmanager
    def locked(self) -> Iterator[None]:
        """Hold an exclusive lock on the directory (released by the kernel if the process dies).

        Raises:
            TournamentError: if another process holds it.
        """
        try:
            with self.ledger.locked():
                yield
        except LedgerError as err:
            raise TournamentError("out", str(err)) from None

    def write_info(self, info: Mapping[str, Any]) -> None:
        """Write the run's description (``run.json``) through the ledger, atomically."""
        self.ledger.write_info(info)

    def load_games(
        self,
        jobs: Mapping[int, GameJob],
        info: Mapping[str, Any] | None = None,
        *,
        repair: bool = True,
    ) -> tuple[dict[int, tuple[int, dict[str, Any]]], bool]:
        """The finished games as ``{game_id: (ledger line, result_of)}``, and whether a torn
        last line was dropped (with ``repair``, by rewriting the ledger without it; hold
        `locked` meanwhile) or, without ``repair``, skipped (no file is changed).

        Every line is verified (`verify_record`: the scheduled game, the run's engine and game
        options from ``info``, an exact replay) before it is trusted. Replaying costs about
        a millisecond per game, far less than playing it.

        Raises:
            TournamentError: for a corrupt line before the end, a line changed after it was
                written (naming the line and what differs), or a duplicate game.
        """
        try:
            lines, torn = self.ledger.read(
                _finished(self.game),
                repair=repair,
                check=lambda _, record: verify_record(record, jobs, info),
            )
        except LedgerError as err:
            raise TournamentError("out", str(err)) from None
        out: dict[int, tuple[int, dict[str, Any]]] = {}
        for lineno, result in lines:
            game_id = result["game_id"]
            if game_id in out:
                raise TournamentError(
                    "out", f"{self.games_path} holds game_id {game_id} twice (line {lineno})"
                )
            out[game_id] = (lineno, result)
        return out, torn

    @contextlib.contextmanager
    def appender(self) -> Iterator[Callable[[Sequence[bytes]], None]]:
        """Appends ledger lines, fsynced once per call."""
        with self.ledger.appender() as append:
            yield append

    def replace_games(self, lines: Mapping[int, bytes]) -> None:
        """Replace ledger lines (by line number) with new records, atomically."""
        self.ledger.replace_lines(lines)


def _is_extension(stored: Mapping[str, Any], info: Mapping[str, Any], schedule: Schedule) -> bool:
    """Whether ``info`` asks for more games of the stored tournament, on a schedule whose first
    games are exactly the stored schedule's."""
    old_games = stored.get("games")
    if (
        stored.get("kind") != "tournament"
        or info.get("kind") != "tournament"
        or not isinstance(old_games, int)
        or not isinstance(info.get("games"), int)
        or info["games"] <= old_games
    ):
        return False
    try:
        old = build_schedule(
            list(stored["agents"]),
            stored["players"],
            old_games,
            stored["seed"],
            stored["seating"],
            game=game_of(stored),
        )
    except (KeyError, ValueError):
        return False
    return old.hash() == stored.get("schedule_hash") and schedule.jobs[: old.games] == old.jobs


__all__ = [
    "EXTENSIBLE_FIELDS",
    "GAMES_FILE",
    "INFO_DEFAULTS",
    "RUN_FILE",
    "RunDir",
    "parse_record",
    "read_records",
    "verify_record",
]
