"""Hostile state dicts are refused with a clear ValueError, or played on safely: never a
crash, a hang, an out-of-bounds access or a silently corrupted game (``tests/fuzz_states``).
"""

from __future__ import annotations

import pytest

from caylus_env.caylus.engine.constants import DECISION_NAMES
from tests.fuzz_states import fuzz, sample_positions

FAILURES = ("other", "corrupt", "crash", "hang")


@pytest.fixture(scope="module")
def pool():
    return sample_positions(seed=11)


def test_sampled_positions_reach_every_decision_kind(pool):
    tops = {d["pending"][-1]["kind"] for d in pool if d["pending"]}
    assert set(DECISION_NAMES) <= tops
    assert {len(d["players"]) for d in pool} == {2, 3, 4, 5}


def test_fuzzed_state_dicts_are_refused_clearly_or_played_safely(pool):
    counts, examples = fuzz(2500, seed=11, jobs=2, pool=pool)
    assert sum(counts.values()) == 2500
    assert all(counts[o] == 0 for o in FAILURES), (counts, examples)
    assert counts["clear"] > 0 and counts["accepted"] > 0, counts  # both paths exercised


def test_fuzzed_state_dicts_never_index_out_of_bounds_under_numba_boundscheck(pool):
    counts, examples = fuzz(400, seed=12, jobs=1, boundscheck=True, pool=pool)
    assert all(counts[o] == 0 for o in FAILURES), (counts, examples)


@pytest.mark.slow
@pytest.mark.parametrize("seed", [21, 22, 23])
def test_many_more_fuzzed_state_dicts(seed):
    counts, examples = fuzz(20000, seed=seed, jobs=2)
    assert all(counts[o] == 0 for o in FAILURES), (counts, examples)


@pytest.mark.slow
def test_many_more_fuzzed_state_dicts_under_numba_boundscheck():
    counts, examples = fuzz(10000, seed=31, jobs=2, boundscheck=True)
    assert all(counts[o] == 0 for o in FAILURES), (counts, examples)
