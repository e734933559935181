"""A tournament's or duel's run directory: a `caylus_env.ledger.Ledger` of game records.

The driver owns the directory (design doc (d), "the driver owns the ledger"):

- ``run.json``: the arguments that determine the games and the hash of the schedule they give.
  Starting again with the same arguments resumes; other arguments are refused, naming the
  fields, before anything is touched. One difference is allowed: a tournament started again
  with more ``games`` extends the run (the schedule is prefix-stable, so the games already
  played are the first games of the longer schedule, and are kept).
- ``games.jsonl``: one `GameRecord` per line, one line per game id, appended as workers return
  them. A torn last line left by a kill is dropped and its game played again, which reproduces
  it exactly (a game is a pure function of its scheduled job). Replayed games (``tournament
  --replay-forfeits``) replace their line in one atomic rewrite. A resume trusts no line it
  has not checked (`verify_record`: the scheduled game, the run's engine and options, an exact
  replay, about 1.3 ms a game on top of reading it): an edited line is refused, naming it.
"""

from __future__ import annotations

import contextlib
import os
from collections.abc import Callable, Collection, Iterator, Mapping, Sequence
from pathlib import Path
from typing import Any

from agents.tournament.arena import result_of
from agents.tournament.schedule import GameJob, Schedule, build_schedule
from agents.tournament.specs import (
    DERIVED_FIELDS,
    RUN_FORMAT,
    RunMismatchError,
    TournamentError,
)
from caylus_env.engine import replay
from caylus_env.engine.record import GameRecord
from caylus_env.ledger import InfoMismatchError, Ledger, LedgerError

GAMES_FILE = "games.jsonl"
RUN_FILE = "run.json"
EXTENSIBLE_FIELDS = ("games", "scheduled_games", "blocks", "schedule_hash")
"""What may differ when a tournament is extended to more games (and nothing else)."""


def _finished(raw: bytes) -> GameRecord:
    """A ledger line as a finished tournament record (what a torn line fails to be)."""
    record = GameRecord.from_json(raw)
    if record.match is None or record.final is None:
        raise ValueError("not a finished tournament game (no match or final section)")
    return record


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
    action legal and named as recorded, the final prestige, ranks and end reason as recorded:
    ``caylus_env.engine.replay``). What cannot be checked this way is what a game does not
    determine: the forfeit reason texts and the timings.

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
        ("match.agents", match.agents, job.seats),
        ("match.agent_seeds", match.agent_seeds, job.agent_seeds),
    ]
    if info is not None:
        options = {**info["game_options"], "num_players": job.num_players}
        pairs.append(("engine", record.engine, info["engine"]))
        pairs += [(f"options.{k}", record.options.get(k), v) for k, v in options.items()]
        pairs += [(f"options.{k}", v, None) for k, v in record.options.items() if k not in options]
    differs = _first_difference(pairs)
    if differs is not None:
        raise ValueError(f"game_id {match.game_id}: {differs}")
    try:
        replay(record)
    except ValueError as err:
        raise ValueError(f"game_id {match.game_id} does not replay: {err}") from None
    return result_of(record)


def read_records(path: str | os.PathLike[str]) -> list[GameRecord]:
    """Every complete record of a ``games.jsonl`` (a torn last line is skipped, not repaired),
    ordered by game id."""
    path = Path(path)
    ledger = Ledger(path.parent, records=path.name, info=RUN_FILE)
    lines, _ = ledger.read(GameRecord.from_json, repair=False)
    return sorted((r for _, r in lines), key=lambda r: r.game_id or 0)


class RunDir:
    """The files of one run: ``run.json``, ``games.jsonl`` and the reports."""

    def __init__(self, path: str | os.PathLike[str]) -> None:
        self.path = Path(path)
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
        """``(run exists, stored run.json if this run extends it to more games else None)``."""

        def may_differ(stored: Mapping[str, Any]) -> Collection[str]:
            if schedule is None or not _is_extension(stored, info, schedule):
                return ()
            return EXTENSIBLE_FIELDS

        try:
            stored = self.ledger.check_info(info, derived=DERIVED_FIELDS, may_differ=may_differ)
        except InfoMismatchError as err:
            raise RunMismatchError(err) from None
        except LedgerError as err:
            raise TournamentError("out", str(err)) from None
        if stored is None:
            return False, None
        extended = stored.get("games") != info.get("games")
        return True, stored if extended else None

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
        self.ledger.write_info(info)

    def load_games(
        self, jobs: Mapping[int, GameJob], info: Mapping[str, Any] | None = None
    ) -> tuple[dict[int, tuple[int, dict[str, Any]]], bool]:
        """The finished games as ``{game_id: (ledger line, result_of)}``, and whether a torn
        last line was dropped.

        Every line is verified (`verify_record`: the scheduled game, the run's engine and game
        options from ``info``, an exact replay) before it is trusted. Replaying costs about
        a millisecond per game, far less than playing it.

        Raises:
            TournamentError: for a corrupt line before the end, a line changed after it was
                written (naming the line and what differs), or a duplicate game.
        """
        try:
            lines, torn = self.ledger.read(
                _finished, check=lambda _, record: verify_record(record, jobs, info)
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
            list(stored["agents"]), stored["players"], old_games, stored["seed"], stored["seating"]
        )
    except (KeyError, ValueError):
        return False
    return old.hash() == stored.get("schedule_hash") and schedule.jobs[: old.games] == old.jobs


__all__ = [
    "EXTENSIBLE_FIELDS",
    "GAMES_FILE",
    "RUN_FILE",
    "RunDir",
    "read_records",
    "verify_record",
]
