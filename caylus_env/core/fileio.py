"""Atomic file writes, and bounded reads of the files of a run directory.

Every file the project writes for users (reports, run descriptions, playthroughs,
benchmark figures) goes through ``atomic_write_bytes``: a temporary file in the
same directory (``os.replace`` is atomic only within one file system), flushed and
fsynced, renamed over the target, then the directory entry fsynced. A crash leaves the
old file or the new one, never half of one.

A run directory (a tournament's, a duel's, a dataset generation's, the ladder's) is a
folder anybody can edit, so its files are read as untrusted (`read_regular_file`,
`read_json_file`): only a regular file inside the directory, links resolved, of at most a
stated size, is read; a FIFO (which would block), ``/dev/zero`` (which never ends), a
directory, or a link leading out of the directory is refused before a byte is read, and a
JSON file must be strict JSON (no NaN or infinity) nested shallowly enough to parse. Every
refusal is one `FileRefusedError` line naming the file, what it is, and what is allowed.
"""

from __future__ import annotations

import contextlib
import json
import os
import secrets
import stat
from pathlib import Path
from typing import Any

READ_CHUNK_BYTES = 1 << 24
"""Bytes asked of the kernel per read of a bounded file (16 MiB): a file is read in chunks so
that one growing while it is read is stopped at its bound."""

#: What a path that is not a regular file is, for the refusal (the first test that matches).
_KINDS = (
    (stat.S_ISDIR, "a directory"),
    (stat.S_ISFIFO, "a FIFO"),
    (stat.S_ISSOCK, "a socket"),
    (stat.S_ISCHR, "a character device"),
    (stat.S_ISBLK, "a block device"),
)


class FileRefusedError(ValueError):
    """A file of a run directory that is not read (not a regular file, outside the directory,
    over its size bound, unreadable, or not strict JSON); nothing was read from it or written.
    The message is one line naming the file, what it is and what is allowed."""


def directory_problem(path: str | os.PathLike[str]) -> str | None:
    """Why ``path`` cannot be an output directory, or None when it is one or can be made: it
    exists and is not a directory, or the nearest of its ancestors that exists is not one
    (``afile/sub`` under a regular file ``afile``, which no ``mkdir`` can create). A command
    asks before any work, so that such an ``--out`` is refused at once rather than after
    its first game."""
    target = Path(path)
    if os.path.lexists(target):  # a dangling link too: no mkdir can make it a directory
        return None if target.is_dir() else f"{target} exists and is not a directory"
    parent = next((p for p in target.absolute().parents if p.exists()), None)
    if parent is not None and not parent.is_dir():
        return f"{parent} is not a directory, so {target} cannot be created"
    return None


def fsync_path(path: str | os.PathLike[str]) -> None:
    """Flush ``path`` (a file, or a directory after a rename into it) to the disk, so a crash
    after it returns cannot lose what was written or renamed there."""
    fd = os.open(path, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def atomic_write_bytes(path: str | os.PathLike[str], data: bytes) -> None:
    """Write ``data`` to ``path`` atomically (creating the parent directory if needed)."""
    target = Path(path)
    target.parent.mkdir(parents=True, exist_ok=True)
    tmp = target.parent / f".{target.name}.{os.getpid()}.{secrets.token_hex(6)}.tmp"
    # os.open with 0o666 rather than tempfile.mkstemp, whose 0o600 would survive the rename:
    # the file gets the same permissions (through the umask) as any other new file.
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o666)
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(data)
            handle.flush()
            os.fsync(handle.fileno())
        os.replace(tmp, target)
    except BaseException:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(tmp)
        raise
    fsync_path(target.parent)


def atomic_write_text(path: str | os.PathLike[str], text: str) -> None:
    """``atomic_write_bytes`` of UTF-8 text."""
    atomic_write_bytes(path, text.encode("utf-8"))


def atomic_write_json(path: str | os.PathLike[str], data: Any) -> None:
    """Indented strict JSON (no NaN or infinity), written atomically."""
    atomic_write_text(path, json.dumps(data, indent=2, allow_nan=False) + "\n")


def check_regular_file(
    path: str | os.PathLike[str], *, root: str | os.PathLike[str], limit: int | None = None
) -> Path:
    """The resolved path of ``path``, which must exist and be a regular file inside the
    directory ``root`` (a link is followed, to a file inside ``root`` only), of at most
    ``limit`` bytes where given; nothing is opened.

    Raises:
        FileRefusedError: naming the path, what it is, and what is allowed.
    """
    path = Path(path)
    try:
        top = Path(root).resolve(strict=True)
    except (OSError, RuntimeError) as err:
        raise FileRefusedError(
            f"cannot read {path}: its directory {root} cannot be resolved ({_reason(err)})"
        ) from None
    allowed = f"allowed: a regular file inside {top}"
    try:
        real = path.resolve(strict=True)
    except FileNotFoundError:
        if os.path.islink(path):
            raise FileRefusedError(
                f"{path} is a link to {os.readlink(path)}, which does not exist; {allowed}"
            ) from None
        raise FileRefusedError(f"{path} does not exist; {allowed}") from None
    except (OSError, RuntimeError) as err:  # a loop of links (RuntimeError before 3.13)
        raise FileRefusedError(f"{path} cannot be resolved ({_reason(err)}); {allowed}") from None
    if real != top and top not in real.parents:
        raise FileRefusedError(f"{path} leads to {real}, outside {top}; {allowed}")
    try:
        info = os.stat(real)
    except OSError as err:
        raise FileRefusedError(f"cannot read {path}: {_reason(err)}") from None
    _check_status(path, info, allowed, limit)
    return real


def read_regular_file(
    path: str | os.PathLike[str], *, root: str | os.PathLike[str], limit: int
) -> bytes:
    """The bytes of ``path``, a regular file inside ``root`` of at most ``limit`` bytes
    (`check_regular_file`). The file is opened without blocking and without following a
    link, checked again on its descriptor, and read up to ``limit`` bytes: a file swapped or
    grown between the check and the read is refused, never read past its bound.

    Raises:
        FileRefusedError: naming the path, what it is, and what is allowed.
    """
    real = check_regular_file(path, root=root, limit=limit)
    allowed = f"allowed: a regular file inside {Path(root).resolve()}"
    flags = os.O_RDONLY | os.O_NONBLOCK | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_CLOEXEC", 0)
    try:
        fd = os.open(real, flags)
    except OSError as err:
        raise FileRefusedError(f"cannot read {path}: {_reason(err)}") from None
    try:
        _check_status(path, os.fstat(fd), allowed, limit)
        chunks, total = [], 0
        while chunk := os.read(fd, min(READ_CHUNK_BYTES, limit + 1 - total)):
            chunks.append(chunk)
            total += len(chunk)
            if total > limit:
                raise FileRefusedError(
                    f"{path} grew past {limit} bytes while it was read; allowed: at most "
                    f"{limit} bytes"
                )
    except OSError as err:
        raise FileRefusedError(f"cannot read {path}: {_reason(err)}") from None
    finally:
        os.close(fd)
    return b"".join(chunks)


def read_json_file(
    path: str | os.PathLike[str], *, root: str | os.PathLike[str], limit: int
) -> Any:
    """The JSON value of ``path`` (`read_regular_file`), strictly parsed: UTF-8 text, no NaN or
    infinity (which ``atomic_write_json`` never writes), nested no deeper than the parser can
    go (a ``RecursionError`` otherwise).

    Raises:
        FileRefusedError: naming the path and what is wrong.
    """
    data = read_regular_file(path, root=root, limit=limit)
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as err:
        raise FileRefusedError(f"{path} is not UTF-8 text ({err}); allowed: a JSON file") from None
    try:
        return json.loads(text, parse_constant=_refuse_constant)
    except RecursionError:
        raise FileRefusedError(
            f"{path} is JSON nested too deeply to parse; allowed: a JSON file nested a few levels"
        ) from None
    except ValueError as err:
        raise FileRefusedError(f"{path} is not strict JSON ({err}); allowed: a JSON file") from None


def _refuse_constant(name: str) -> Any:
    raise ValueError(f"{name} is not a JSON number")


def _check_status(path: Path, info: os.stat_result, allowed: str, limit: int | None) -> None:
    if not stat.S_ISREG(info.st_mode):
        kind = next((k for test, k in _KINDS if test(info.st_mode)), "a special file")
        raise FileRefusedError(f"{path} is {kind}; {allowed}")
    if limit is not None and info.st_size > limit:
        raise FileRefusedError(
            f"{path} is {info.st_size} bytes; allowed: a file of at most {limit} bytes"
        )


def _reason(err: BaseException) -> str:
    return getattr(err, "strerror", None) or str(err)
