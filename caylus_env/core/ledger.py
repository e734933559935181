"""An append-only, crash-safe JSON-lines ledger in a directory, with a run-info file and a lock.

What long jobs that produce one record at a time need (tournaments and duels today, dataset
generation next), and nothing about what the records mean:

- ``<info>`` (``run.json`` by default): the arguments that determine the records, written
  atomically. Starting again with the same arguments resumes; `Ledger.check_info` refuses other
  arguments, naming every differing field, before anything is touched, except the fields the
  caller explicitly allows to change (a tournament extended to more games, say).
- ``<records>`` (``records.jsonl`` by default): one JSON value per line, appended and fsynced
  once per `append` call, so a record is either on disk whole or was never acknowledged.
  `Ledger.read` drops a torn last line (what a SIGKILL in the middle of a write leaves) by
  rewriting the file atomically without it; damage anywhere else is refused, naming the line,
  rather than guessed at. `Ledger.replace_lines` swaps chosen lines for new ones atomically.
- an exclusive ``flock`` on the directory (`Ledger.locked`), released by the kernel when the
  holder dies, so two writers never interleave their lines.

Both files are untrusted (anybody can edit a directory): each is read only as a regular file
inside the directory, of at most `MAX_INFO_BYTES` or `MAX_LEDGER_BYTES`
(``caylus_env.core.fileio.read_regular_file``), so a FIFO, ``/dev/zero`` or a link out of the
directory in their place is refused before it is read, never waited on or read without end.
"""

from __future__ import annotations

import contextlib
import json
import os
from collections.abc import Callable, Collection, Iterator, Mapping, Sequence
from pathlib import Path
from typing import Any, TypeVar

from caylus_env.core.fileio import (
    FileRefusedError,
    atomic_write_bytes,
    atomic_write_json,
    check_regular_file,
    directory_problem,
    read_json_file,
    read_regular_file,
)

try:
    import fcntl
except ImportError:  # not POSIX: everything works, but two writers are not detected
    fcntl = None  # type: ignore[assignment]

T = TypeVar("T")

RECORDS_FILE = "records.jsonl"
INFO_FILE = "run.json"
MAX_INFO_BYTES = 1 << 20
"""Largest run-info file read (1 MiB): a run's arguments (agents, options, a hash) take a few
kilobytes."""
MAX_LEDGER_BYTES = 4 << 30
"""Largest ledger read (4 GiB, read whole into memory: about 400,000 tournament games at 5 to
10 KB a record); a bigger file is refused unread. Split a bigger run into several."""


class LedgerError(ValueError):
    """A ledger directory that cannot be used as asked; nothing was changed."""


class InfoMismatchError(LedgerError):
    """The directory was started with other arguments.

    Attributes:
        path: The ledger directory.
        differences: ``{field: (stored value, value now)}``.
    """

    def __init__(self, path: Path, differences: Mapping[str, tuple[Any, Any]]) -> None:
        self.path = path
        self.differences = dict(differences)
        parts = "; ".join(
            f"{name}: run.json has {json.dumps(old)}, now {json.dumps(new)}"
            for name, (old, new) in self.differences.items()
        )
        super().__init__(
            f"{path} holds a run started with different arguments ({parts}); "
            "repeat the original arguments to resume it, or choose another output directory"
        )


def _parse_json(raw: bytes | str) -> Any:
    """``json.loads`` whose failures are all ``ValueError`` s (JSON nested too deeply for the
    parser raises ``RecursionError`` otherwise)."""
    try:
        return json.loads(raw)
    except RecursionError:
        raise ValueError("JSON nested too deeply to parse") from None


class Ledger:
    """One ledger directory (see the module docstring).

    Args:
        directory: The directory (created on the first write or lock).
        records: File name of the JSON-lines ledger.
        info: File name of the run-info JSON.
        info_format: Required value of the info file's ``"format"`` key, if any.
    """

    def __init__(
        self,
        directory: str | os.PathLike[str],
        *,
        records: str = RECORDS_FILE,
        info: str = INFO_FILE,
        info_format: str | None = None,
    ) -> None:
        self.path = Path(directory)
        self.records_path = self.path / records
        self.info_path = self.path / info
        self.info_format = info_format

    # -- run info ------------------------------------------------------------------------------
    def read_info(self) -> dict[str, Any] | None:
        """The stored run info, or None for a fresh directory.

        Raises:
            LedgerError: if the path is a file, the info is unreadable (not a regular file of
                the directory, over `MAX_INFO_BYTES`, not strict JSON) or of another format, or
                there are records without an info file (they could not be matched to arguments).
        """
        problem = directory_problem(self.path)
        if problem is not None:
            raise LedgerError(problem)
        if not os.path.lexists(self.info_path):
            if os.path.lexists(self.records_path):
                raise LedgerError(
                    f"{self.path} has a {self.records_path.name} but no {self.info_path.name}, "
                    "so its records cannot be matched to arguments; choose another directory"
                )
            return None
        try:
            info = read_json_file(self.info_path, root=self.path, limit=MAX_INFO_BYTES)
        except FileRefusedError as err:
            raise LedgerError(str(err)) from None
        if not isinstance(info, dict) or (
            self.info_format is not None and info.get("format") != self.info_format
        ):
            raise LedgerError(
                f"{self.info_path} is not a {self.info_format or 'JSON object'} file; "
                "choose another directory"
            )
        return info

    def check_info(
        self,
        info: Mapping[str, Any],
        *,
        derived: Collection[str] = (),
        may_differ: Callable[[Mapping[str, Any]], Collection[str]] | None = None,
        defaults: Mapping[str, Any] | None = None,
    ) -> dict[str, Any] | None:
        """Compare the stored info with ``info``; returns the stored info (None when fresh).

        Args:
            info: The info of the arguments now.
            derived: Fields computed from the others (a hash, say): reported only when no
                other field explains the difference.
            may_differ: Given the stored info, the fields allowed to differ from it (for
                example ``games`` when the caller extends a run); None allows nothing.
            defaults: Values of fields that a stored info written before they existed lacks
                (a missing field compares as its default; the returned info is as stored).

        Raises:
            InfoMismatchError: naming every differing field that is not allowed to differ.
            LedgerError: as `read_info`.
        """
        stored = self.read_info()
        if stored is None:
            return None
        allowed = set(may_differ(stored)) if may_differ is not None else set()
        held = {**(defaults or {}), **stored}
        keys = list(info) + [k for k in held if k not in info]
        diff = {
            k: (held.get(k), info.get(k))
            for k in keys
            if k not in derived and held.get(k) != info.get(k)
        }
        if not diff:
            diff = {
                k: (held.get(k), info.get(k))
                for k in derived
                if held.get(k) != info.get(k) and k not in allowed
            }
        else:
            diff = {k: v for k, v in diff.items() if k not in allowed}
        if diff:
            raise InfoMismatchError(self.path, diff)
        return stored

    def write_info(self, info: Mapping[str, Any]) -> None:
        """Write the run info atomically."""
        atomic_write_json(self.info_path, dict(info))

    # -- the lock ------------------------------------------------------------------------------
    @contextlib.contextmanager
    def locked(self) -> Iterator[None]:
        """Hold an exclusive lock on the directory (the kernel releases it if we die).

        Raises:
            LedgerError: if another process holds it.
        """
        self.path.mkdir(parents=True, exist_ok=True)
        if fcntl is None:
            yield
            return
        fd = os.open(self.path, os.O_RDONLY)
        try:
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except BlockingIOError:
                raise LedgerError(f"{self.path} is in use by another running process") from None
            yield
        finally:
            os.close(fd)

    # -- records -------------------------------------------------------------------------------
    def read(
        self,
        parse: Callable[[bytes], Any] = _parse_json,
        *,
        repair: bool = True,
        check: Callable[[int, Any], T] | None = None,
    ) -> tuple[list[tuple[int, T]], bool]:
        """Every record as ``(line number, parse(line))``, and whether a torn line was dropped.

        ``parse`` turns one line into a value and raises ``ValueError`` for a malformed line. A
        last line that is unterminated or does not parse is what a kill during a write leaves:
        with ``repair`` it is removed by rewriting the file atomically (hold `locked`
        meanwhile), otherwise just skipped.

        ``check(line number, parsed value)``, when given, verifies every complete line that
        parsed (against the run's arguments, by replaying it, ...) and returns what is kept (a
        small summary of a big record, say, so that a long ledger fits in memory). A line it
        refuses with a ``ValueError`` is refused wherever it is: a line that parsed whole was
        written whole, so it is not torn, it was changed.

        Raises:
            LedgerError: for a malformed line before the last one, or a line ``check`` refuses,
                naming it; for a ledger that is not a regular file of the directory of at most
                `MAX_LEDGER_BYTES` (nothing read).
        """
        if not os.path.lexists(self.records_path):
            return [], False
        data = self._read_records()
        lines = data.split(b"\n")
        body, tail = lines[:-1], lines[-1]
        keep_bytes = len(data) - len(tail)
        torn = bool(tail)
        out: list[tuple[int, Any]] = []
        for i, raw in enumerate(body):
            if not raw.strip():
                continue
            try:
                value = parse(raw)
            except ValueError as err:
                if i == len(body) - 1 and not tail:
                    torn = True
                    keep_bytes -= len(raw) + 1
                    break
                raise LedgerError(
                    f"{self.records_path} line {i + 1} is corrupt ({err}) and is not a torn "
                    "final line; repair or remove the file"
                ) from None
            if check is not None:
                try:
                    value = check(i + 1, value)
                except ValueError as err:
                    raise LedgerError(
                        f"{self.records_path} line {i + 1} was changed after it was written: "
                        f"{err}; remove that line (its game is then played again) or choose "
                        "another directory"
                    ) from None
            out.append((i + 1, value))
        if torn and repair:
            atomic_write_bytes(self.records_path, data[:keep_bytes])
        return out, torn

    @contextlib.contextmanager
    def appender(self) -> Iterator[Callable[[Sequence[bytes | str]], None]]:
        """A function that appends newline-terminated lines: written, flushed and fsynced once
        per call, so a call's lines are on disk before it returns."""
        self.path.mkdir(parents=True, exist_ok=True)
        if os.path.lexists(self.records_path):  # never an append to a FIFO or a device
            try:
                check_regular_file(self.records_path, root=self.path, limit=MAX_LEDGER_BYTES)
            except FileRefusedError as err:
                raise LedgerError(str(err)) from None
        with open(self.records_path, "ab") as handle:

            def append(lines: Sequence[bytes | str]) -> None:
                if not lines:
                    return
                chunks = [x.encode("utf-8") if isinstance(x, str) else x for x in lines]
                for chunk in chunks:
                    if not chunk.endswith(b"\n") or b"\n" in chunk[:-1]:
                        raise ValueError("ledger lines must hold exactly one trailing newline")
                handle.write(b"".join(chunks))
                handle.flush()
                os.fsync(handle.fileno())

            yield append

    def replace_lines(self, new_lines: Mapping[int, bytes | str]) -> None:
        """Replace whole lines, by line number (as `read` gives them), in one atomic rewrite.

        Raises:
            LedgerError: for a line number the file does not have.
        """
        if not new_lines:
            return
        lines = self._read_records().split(b"\n")
        count = len(lines) - 1  # the file ends with a newline: the last piece is empty
        for lineno, line in new_lines.items():
            if not 1 <= lineno <= count:
                raise LedgerError(f"{self.records_path} has no line {lineno} (it has {count})")
            raw = line.encode("utf-8") if isinstance(line, str) else line
            if not raw.endswith(b"\n") or b"\n" in raw[:-1]:
                raise ValueError("ledger lines must hold exactly one trailing newline")
            lines[lineno - 1] = raw[:-1]
        atomic_write_bytes(self.records_path, b"\n".join(lines))

    def _read_records(self) -> bytes:
        """The ledger's bytes, by the bounded reader.

        Raises:
            LedgerError: for a ledger that is not a regular file of the directory of at most
                `MAX_LEDGER_BYTES`.
        """
        try:
            return read_regular_file(self.records_path, root=self.path, limit=MAX_LEDGER_BYTES)
        except FileRefusedError as err:
            raise LedgerError(str(err)) from None


__all__ = [
    "INFO_FILE",
    "MAX_INFO_BYTES",
    "MAX_LEDGER_BYTES",
    "RECORDS_FILE",
    "InfoMismatchError",
    "Ledger",
    "LedgerError",
]
