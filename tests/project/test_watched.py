"""The runner of every fuzzer (``tests/watched.py``): its clocks measure hangs, never a numba
compile, and it still catches a case that hangs or crashes."""

from __future__ import annotations

import textwrap
from pathlib import Path

import pytest

from tests import watched

#: A fuzzer's worker in miniature: its warm-up "compiles" (sleeps ``COMPILE_S``) while the
#: kernel cache (a marker file) is cold, then loads it quickly; case 3 hangs when asked to,
#: case 5 kills its worker when asked to, every other case is ``ok``.
WORKER = textwrap.dedent(
    """
    import os, sys, time
    sys.path.insert(0, {root!r})
    from tests.watched import parse_indices, ready

    cache, mode, indices = sys.argv[2], sys.argv[3], parse_indices(sys.argv[4])
    if not os.path.exists(cache):
        time.sleep({compile_s})
        with open(cache, "a") as f:
            f.write("compiled\\n")
    ready()
    for i in indices:
        if mode == "faults" and i == 3:
            time.sleep(3600)
        if mode == "faults" and i == 5:
            os.kill(os.getpid(), 9)
        print(f"{{i}} ok", flush=True)
    """
)
COMPILE_S = 3.0


@pytest.fixture
def script(tmp_path: Path) -> Path:
    path = tmp_path / "fake_fuzzer.py"
    root = str(Path(__file__).resolve().parents[2])
    path.write_text(WORKER.format(root=root, compile_s=COMPILE_S))
    return path


def test_a_compile_longer_than_the_start_and_case_clocks_is_no_hang(script, tmp_path, monkeypatch):
    # The compile (3 s, in the first worker only) outlasts both clocks; the old runner started
    # each worker's clock before it compiled and counted that as a hang.
    monkeypatch.setattr(watched, "START_TIMEOUT_S", 1.5)
    cache = tmp_path / "cache"
    counts, examples = watched.run_watched(
        script, [str(cache), "clean"], 8, 2, str, case_timeout=0.5, quiet=("ok",)
    )
    assert counts == {"ok": 8}, examples
    assert cache.read_text() == "compiled\n"  # compiled once, not once per worker


def test_a_hanging_case_and_a_crashing_case_are_caught_and_the_rest_still_run(script, tmp_path):
    counts, examples = watched.run_watched(
        script, [str(tmp_path / "cache"), "faults"], 10, 1, str, case_timeout=2.0, quiet=("ok",)
    )
    assert counts == {"ok": 8, "hang": 1, "crash": 1}
    assert examples["hang"] == ["case 3 [3] no result in 2 s"]
    assert examples["crash"] == ["case 5 [5] exit code -9"]


def test_a_warm_up_that_fails_runs_no_case(tmp_path):
    broken = tmp_path / "broken.py"
    broken.write_text("raise SystemExit('no kernels here')\n")
    with pytest.raises(watched.WarmUpError, match="no kernels here"):
        watched.run_watched(broken, [], 4, 2, str)


@pytest.mark.parametrize(
    "indices", [[], [0], [0, 1, 2], [3, 5, 6, 7, 10], list(range(0, 400, 3)), [9, 2, 3]]
)
def test_indices_cross_the_command_line_exactly(indices):
    text = watched.format_indices(indices)
    assert watched.parse_indices(text) == indices
    assert len(text) <= 6 * len(indices) + 1
