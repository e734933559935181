"""Atomic file writes: a crash leaves the old file or the new one, never half of one.

Every file the project writes for users (reports, run descriptions, playthroughs,
benchmark figures) goes through ``atomic_write_bytes``: a temporary file in the
same directory (``os.replace`` is atomic only within one file system), flushed and
fsynced, renamed over the target, then the directory entry fsynced.
"""

from __future__ import annotations

import contextlib
import json
import os
import secrets
from pathlib import Path
from typing import Any


def directory_problem(path: str | os.PathLike[str]) -> str | None:
    """Why ``path`` cannot be an output directory, or None when it is one or can be made: it
    exists and is not a directory, or the nearest of its ancestors that exists is not one
    (``afile/sub`` under a regular file ``afile``, which no ``mkdir`` can create). A command
    asks before any work, so that such an ``--out`` is refused at once rather than after
    its first game."""
    target = Path(path)
    if target.exists():
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
