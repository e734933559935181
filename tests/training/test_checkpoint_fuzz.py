"""The checkpoint fuzz (``tests/training/fuzz_checkpoints.py``): tampered policy
checkpoints and run directories, each case in a watched worker process.

The default run has a smoke: every policy case (the shipped ``ppo-2p``, tampered) and a
seeded sample of the resume cases with the valid controls; the long runs (every case, then
more draws of the random ones, and the same under ``NUMBA_BOUNDSCHECK=1``) are ``slow``.
Nothing may crash, hang, load wrong or fail with a traceback, and every valid control must
load and play.
"""

from __future__ import annotations

import pytest

from tests.training.fuzz_checkpoints import FAILURES, all_cases, fuzz, select_cases, table

pytest.importorskip("sb3_contrib")

#: The smoke's policy and resume cases besides the valid controls (about 20 s).
SMOKE = (40, 8)


def _check(counts, examples, cases: int) -> None:
    failures = {o: examples[o] for o in FAILURES if counts[o]}
    assert not failures, f"\n{table(counts)}\n" + "\n".join(
        line for lines in failures.values() for line in lines
    )
    assert sum(counts.values()) == cases
    assert counts["clear"] > 0 and counts["accepted"] > 0  # both kinds of answer were seen


def test_checkpoint_fuzz_smoke_has_no_crash_hang_wrong_load_or_traceback(small_run):
    controls = sum(c.expect == "accept" for c in all_cases())
    indices = select_cases(seed=17, count=0, smoke=SMOKE)
    assert len(indices) == controls + sum(SMOKE)
    counts, examples = fuzz(small_run, indices, seed=17, jobs=1)
    _check(counts, examples, len(indices))


@pytest.mark.slow
@pytest.mark.parametrize("boundscheck", [False, True], ids=["plain", "boundscheck"])
def test_checkpoint_fuzz_long_run_has_no_crash_hang_wrong_load_or_traceback(small_run, boundscheck):
    count = 2 * len(all_cases())  # every case twice: the random draws differ
    indices = select_cases(seed=1, count=count)
    counts, examples = fuzz(small_run, indices, seed=1, jobs=2, boundscheck=boundscheck)
    _check(counts, examples, count)
