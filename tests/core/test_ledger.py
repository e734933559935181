"""The generic ledger (``caylus_env.core.ledger``): run-info checks, torn-line repair after a real
SIGKILL of a writer, corrupt lines, the directory lock, atomic line replacement, and its files
read only as bounded regular files of the directory (a FIFO, ``/dev/zero``, a link out of it
refused unread: those cases run in a subprocess whose timeout only detects a hang)."""

from __future__ import annotations

import contextlib
import json
import os
import re
import resource
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest

from caylus_env.core.ledger import (
    MAX_INFO_BYTES,
    MAX_LEDGER_BYTES,
    InfoMismatchError,
    Ledger,
    LedgerError,
)

INFO = {"format": "test-run/1", "seed": 1, "games": 10, "hash": "abc"}

WRITER = textwrap.dedent(
    """
    import json, sys
    from caylus_env.core.ledger import Ledger

    ledger = Ledger(sys.argv[1], info_format="test-run/1")
    size = int(sys.argv[2])
    start = len(ledger.read()[0])
    with ledger.locked(), ledger.appender() as append:
        i = start
        while True:
            append([json.dumps({"i": i, "pad": "x" * size}) + "\\n"])
            i += 1
    """
)


PROBE = textwrap.dedent(
    """
    import json, sys
    from caylus_env.core.ledger import Ledger, LedgerError

    ledger = Ledger(sys.argv[1], info_format="test-run/1")
    calls = {
        "read_info": ledger.read_info,
        "read": ledger.read,
        "replace_lines": lambda: ledger.replace_lines({1: sys.argv[2]}),
        "appender": lambda: ledger.appender().__enter__(),
    }
    out = {}
    for name in sys.argv[3:]:
        try:
            calls[name]()
            out[name] = None
        except LedgerError as err:
            out[name] = str(err)
    print(json.dumps(out))
    """
)
PROBE_TIMEOUT_S = 60
"""Seconds the probe may take before it counts as hung (it takes a fraction of one; a reader
that opens a FIFO blocks for ever)."""
PROBE_MEMORY_BYTES = 1 << 30
"""Address space of the probe (it needs a few megabytes): a reader that reads ``/dev/zero``
without end fails there with a MemoryError instead of exhausting the machine."""


def _guard_memory() -> None:
    with contextlib.suppress(ValueError, OSError):  # not enforced everywhere: then unguarded
        resource.setrlimit(resource.RLIMIT_AS, (PROBE_MEMORY_BYTES, PROBE_MEMORY_BYTES))


def line(i: int, size: int = 10) -> str:
    return json.dumps({"i": i, "pad": "x" * size}) + "\n"


def test_info_check_names_every_differing_field_and_allows_only_what_is_asked(tmp_path):
    ledger = Ledger(tmp_path / "run", info_format="test-run/1")
    assert ledger.check_info(INFO) is None and not (tmp_path / "run").exists()
    ledger.write_info(INFO)
    assert ledger.check_info(dict(INFO)) == INFO
    with pytest.raises(InfoMismatchError) as err:
        ledger.check_info({**INFO, "seed": 2, "games": 20, "hash": "def"}, derived=("hash",))
    assert err.value.differences == {"seed": (1, 2), "games": (10, 20)}  # hash explained by them
    assert "seed: run.json has 1, now 2" in str(err.value)
    with pytest.raises(InfoMismatchError) as err:  # a derived field alone is reported
        ledger.check_info({**INFO, "hash": "zzz"}, derived=("hash",))
    assert set(err.value.differences) == {"hash"}
    allowed = ledger.check_info(
        {**INFO, "games": 20, "hash": "def"}, derived=("hash",), may_differ=lambda s: ("games",)
    )
    assert allowed == INFO
    with pytest.raises(InfoMismatchError) as err:  # allowing games does not allow the seed
        ledger.check_info({**INFO, "games": 20, "seed": 5}, may_differ=lambda s: ("games",))
    assert set(err.value.differences) == {"seed"}
    (tmp_path / "run" / "run.json").write_text('{"format": "other/1"}')
    with pytest.raises(LedgerError, match="not a test-run/1 file"):
        ledger.read_info()


def test_a_field_added_later_compares_as_its_default_in_an_older_info_file(tmp_path):
    ledger = Ledger(tmp_path / "run", info_format="test-run/1")
    ledger.write_info(INFO)  # written before the "game" field existed
    newer = {**INFO, "game": "first"}
    with pytest.raises(InfoMismatchError) as err:
        ledger.check_info(newer)
    assert err.value.differences == {"game": (None, "first")}
    assert ledger.check_info(newer, defaults={"game": "first"}) == INFO  # returned as stored
    with pytest.raises(InfoMismatchError) as err:
        ledger.check_info({**INFO, "game": "second"}, defaults={"game": "first"})
    assert err.value.differences == {"game": ("first", "second")}
    ledger.write_info(newer)  # a stored value wins over the default
    with pytest.raises(InfoMismatchError) as err:
        ledger.check_info({**INFO, "game": "second"}, defaults={"game": "second"})
    assert err.value.differences == {"game": ("first", "second")}
    assert ledger.check_info(newer, defaults={"game": "second"}) == newer


def test_records_without_info_and_a_file_in_place_of_the_directory_are_refused(tmp_path):
    (tmp_path / "orphan").mkdir()
    (tmp_path / "orphan" / "records.jsonl").write_text(line(0))
    with pytest.raises(LedgerError, match=r"no run\.json"):
        Ledger(tmp_path / "orphan").read_info()
    (tmp_path / "file").write_text("")
    with pytest.raises(LedgerError, match="not a directory"):
        Ledger(tmp_path / "file").read_info()


def test_append_read_and_torn_last_line_repair(tmp_path):
    ledger = Ledger(tmp_path)
    with ledger.appender() as append:
        append([line(0), line(1).encode()])
        append([])
        with pytest.raises(ValueError, match="one trailing newline"):
            append(["no newline"])
    whole = ledger.records_path.read_bytes()
    with open(ledger.records_path, "ab") as handle:
        handle.write(line(2)[:7].encode())  # what a kill in mid-write leaves
    records, repaired = ledger.read(json.loads, repair=False)
    assert repaired and [r["i"] for _, r in records] == [0, 1]
    assert ledger.records_path.read_bytes() != whole  # not repaired without repair=True
    records, repaired = ledger.read()
    assert repaired and [(n, r["i"]) for n, r in records] == [(1, 0), (2, 1)]
    assert ledger.records_path.read_bytes() == whole
    assert ledger.read() == (records, False)


def test_corrupt_line_before_the_end_is_refused_naming_it(tmp_path):
    ledger = Ledger(tmp_path)
    ledger.records_path.write_text(line(0) + '{"i": 1, "pa\n' + line(2))
    before = ledger.records_path.read_bytes()
    with pytest.raises(LedgerError, match="line 2 is corrupt"):
        ledger.read()
    assert ledger.records_path.read_bytes() == before
    ledger.records_path.write_text(line(0) + '{"i": 1, "pa\n')  # invalid but terminated: torn
    records, repaired = ledger.read()
    assert repaired and len(records) == 1 and ledger.records_path.read_text() == line(0)


def test_replace_lines_swaps_whole_lines_atomically(tmp_path):
    ledger = Ledger(tmp_path)
    with ledger.appender() as append:
        append([line(i) for i in range(4)])
    ledger.replace_lines({2: line(20), 4: line(40)})
    assert [r["i"] for _, r in ledger.read()[0]] == [0, 20, 2, 40]
    with pytest.raises(LedgerError, match="no line 5"):
        ledger.replace_lines({5: line(5)})
    with pytest.raises(ValueError, match="trailing newline"):
        ledger.replace_lines({1: "x"})


def test_lock_refuses_a_second_holder(tmp_path):
    ledger = Ledger(tmp_path / "run")
    second = Ledger(tmp_path / "run")
    # Entered left to right: the second lock fails inside pytest.raises.
    with ledger.locked(), pytest.raises(LedgerError, match="in use"), second.locked():
        pass
    with ledger.locked():  # released
        pass


def _ends_with_newline(path: Path) -> bool:
    with open(path, "rb") as handle:
        handle.seek(-1, os.SEEK_END)
        return handle.read(1) == b"\n"


def _kill_writer_mid_append(directory: Path, size: int) -> tuple[int, bool]:
    """Start a writer, SIGKILL it while the file ends mid-line if possible; returns the file
    size at the kill and whether the kill left a torn line."""
    path = directory / "records.jsonl"
    before = path.stat().st_size if path.exists() else 0
    proc = subprocess.Popen(
        [sys.executable, "-c", WRITER, str(directory), str(size)],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
    )
    deadline = time.monotonic() + 60
    try:
        while time.monotonic() < deadline:
            assert proc.poll() is None, proc.stderr.read().decode()
            now = path.stat().st_size if path.exists() else 0
            if now > before + 2 * size and not _ends_with_newline(path):
                break
        os.kill(proc.pid, signal.SIGKILL)
    finally:
        proc.wait(timeout=30)
    assert proc.returncode == -signal.SIGKILL
    data = path.read_bytes()
    return len(data), not data.endswith(b"\n")


def test_sigkill_of_a_writer_mid_append_then_resume_loses_nothing_acknowledged(tmp_path):
    size = 8 << 20  # long writes, so that the kill lands inside one
    ledger = Ledger(tmp_path, info_format="test-run/1")
    ledger.write_info(INFO)
    torn_seen = False
    for _ in range(5):  # kill, repair and resume, until one kill has torn a line
        _, torn = _kill_writer_mid_append(tmp_path, size)
        records, repaired = ledger.read()
        assert repaired == torn
        assert [r["i"] for _, r in records] == list(range(len(records)))
        assert all(len(r["pad"]) == size for _, r in records)
        assert ledger.records_path.read_bytes().endswith(b"\n")
        torn_seen = torn_seen or torn
        if torn_seen:
            break
    assert torn_seen, "no kill landed inside a write"
    count = len(records)
    with ledger.appender() as append:  # resuming appends after the last whole record
        append([line(count, 3)])
    again, repaired = ledger.read()
    assert not repaired and [r["i"] for _, r in again] == list(range(count + 1))


def test_check_refuses_a_changed_line_anywhere_naming_it_and_keeps_its_summary(tmp_path):
    ledger = Ledger(tmp_path)
    ledger.records_path.write_text(line(0) + line(1) + line(2))

    def check(lineno: int, record: dict) -> int:
        if record["i"] != lineno - 1:
            raise ValueError(f"i is {record['i']}, expected {lineno - 1}")
        return record["i"] * 10  # what is kept: a summary, not the record

    assert ledger.read(check=check) == ([(1, 0), (2, 10), (3, 20)], False)
    for bad in (0, 2):  # the last line too: it parsed, so it is changed, not torn
        lines = [line(i) for i in range(3)]
        lines[bad] = line(7)
        ledger.records_path.write_text("".join(lines))
        before = ledger.records_path.read_bytes()
        with pytest.raises(LedgerError, match=rf"line {bad + 1} was changed .*i is 7, expected"):
            ledger.read(check=check)
        assert ledger.records_path.read_bytes() == before


def test_json_nested_too_deeply_is_a_corrupt_line_not_a_recursion_error(tmp_path):
    ledger = Ledger(tmp_path)
    ledger.records_path.write_bytes(b"[" * 100_000 + b"\n" + line(1).encode())
    with pytest.raises(LedgerError, match=r"line 1 is corrupt \(JSON nested too deeply"):
        ledger.read()


def _outside(path: Path, directory: Path) -> None:
    outside = directory.parent / f"outside-{path.name}"
    outside.write_text(line(0))
    path.symlink_to(outside)


def _sparse(path: Path, size: int) -> None:
    with open(path, "wb") as handle:
        handle.truncate(size)  # a hole: no disk used


#: ``{case: (make(path, directory, limit), refusal pattern)}``.
UNREADABLE = {
    "fifo": (lambda p, d, n: os.mkfifo(p), r"is a FIFO; allowed: a regular file inside "),
    "dev-zero": (
        lambda p, d, n: p.symlink_to("/dev/zero"),
        r"leads to /dev/zero, outside \S+; allowed: a regular file inside ",
    ),
    "directory": (lambda p, d, n: p.mkdir(), r"is a directory; allowed: a regular file inside "),
    "link-outside": (
        lambda p, d, n: _outside(p, d),
        r"leads to \S+outside-\S+, outside \S+; allowed: a regular file inside ",
    ),
    "dangling-link": (
        lambda p, d, n: p.symlink_to(d / "missing"),
        r"is a link to \S+missing, which does not exist; allowed: a regular file inside ",
    ),
    "over-the-bound": (
        lambda p, d, n: _sparse(p, n + 1),
        r"is (\d+) bytes; allowed: a file of at most (\d+) bytes",
    ),
}


@pytest.mark.parametrize("case", list(UNREADABLE))
@pytest.mark.parametrize(
    ("which", "limit", "calls"),
    [
        ("records", MAX_LEDGER_BYTES, ("read", "replace_lines", "appender")),
        ("info", MAX_INFO_BYTES, ("read_info",)),
    ],
)
def test_a_ledger_file_that_is_not_a_bounded_regular_file_of_its_directory_is_refused_unread(
    tmp_path, which, limit, calls, case
):
    directory = tmp_path / "run"
    ledger = Ledger(directory, info_format="test-run/1")
    ledger.write_info(INFO)
    path = ledger.records_path if which == "records" else ledger.info_path
    path.unlink(missing_ok=True)
    make, pattern = UNREADABLE[case]
    make(path, directory, limit)
    before = os.lstat(path)
    proc = subprocess.run(
        [sys.executable, "-c", PROBE, str(directory), line(9), *calls],
        capture_output=True,
        text=True,
        timeout=PROBE_TIMEOUT_S,
        preexec_fn=_guard_memory,
    )
    assert proc.returncode == 0, proc.stderr
    refusals = json.loads(proc.stdout)
    for call in calls:
        message = refusals[call]
        assert message is not None, f"{call} read {path}"
        assert message.startswith(str(path)) and "\n" not in message, message
        found = re.search(pattern, message)
        assert found, message
        if case == "over-the-bound":
            assert found.groups() == (str(limit + 1), str(limit)), message
    after = os.lstat(path)
    assert (after.st_mode, after.st_size, after.st_ino) == (
        before.st_mode,
        before.st_size,
        before.st_ino,
    )


def test_a_link_to_a_file_inside_the_directory_is_read_and_run_info_is_strict_json(tmp_path):
    ledger = Ledger(tmp_path / "run", info_format="test-run/1")
    ledger.write_info(INFO)
    (tmp_path / "run" / "kept.jsonl").write_text(line(0) + line(1))
    ledger.records_path.symlink_to("kept.jsonl")
    assert [r["i"] for _, r in ledger.read()[0]] == [0, 1]
    ledger.info_path.write_text('{"format": "test-run/1", "seed": NaN}')
    with pytest.raises(LedgerError, match=r"run\.json is not strict JSON \(NaN is not a JSON"):
        ledger.read_info()
