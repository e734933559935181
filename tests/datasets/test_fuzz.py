"""Tampered datasets (tests/datasets/fuzz_datasets.py) through every dataset tool, each case in a
watched worker: every tampered case refused by a one-line DatasetError or reported by verify, every
control accepted; no crash, no hang, no traceback. A smoke run by default; long runs, also under
NUMBA_BOUNDSCHECK=1, behind ``slow``."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.datasets import fuzz_datasets


@pytest.fixture(scope="module")
def bases() -> Path:
    return fuzz_datasets.shared_bases()


def _assert_all_refused_or_accepted(counts, examples, cases: int) -> None:
    assert sum(counts.values()) == cases
    assert counts["clear"] + counts["accepted"] == cases, (dict(counts), examples)
    assert counts["accepted"] == len(range(0, cases, fuzz_datasets.CONTROLS)), dict(counts)


def test_tampered_datasets_are_refused_clearly_and_controls_pass(bases):
    counts, examples = fuzz_datasets.fuzz(8, bases, seed=0, jobs=2)
    _assert_all_refused_or_accepted(counts, examples, 8)


@pytest.mark.slow
def test_tampered_datasets_long_run(bases):
    counts, examples = fuzz_datasets.fuzz(460, bases, seed=1, jobs=2)
    _assert_all_refused_or_accepted(counts, examples, 460)


@pytest.mark.slow
def test_tampered_datasets_under_numba_boundscheck(bases):
    counts, examples = fuzz_datasets.fuzz(96, bases, seed=2, jobs=2, boundscheck=True)
    _assert_all_refused_or_accepted(counts, examples, 96)
