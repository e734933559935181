"""The benchmark module runs end to end (its figures are read by people, never asserted)."""

from __future__ import annotations

import json

import pytest

from caylus_env.core import benchmark


def test_each_layer_reports_a_positive_rate(monkeypatch, tmp_path):
    # Small workloads: this checks the plumbing, not the speed.
    monkeypatch.setattr(benchmark, "clone_seconds", lambda repeats: (1e-7, 1e-6))
    results = benchmark.main(
        repeats=1,
        players=[3],
        quick=True,
        compile_check=False,
        json_path=str(tmp_path / "bench.json"),
    )
    assert set(results["layers"]) == {
        "engine_call_3p",
        "engine_compiled_3p",
        "raw_env_3p",
        "env_3p",
    }
    assert all(rate > 0 for rate in results["layers"].values())
    assert results["state_bytes"] == 700
    assert json.loads((tmp_path / "bench.json").read_text())["layers"] == results["layers"]


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"repeats": 0}, "repeats"),
        ({"players": [6]}, "players"),
        ({"players": []}, "players"),
    ],
)
def test_bad_arguments_fail_before_any_work(kwargs, message):
    with pytest.raises(ValueError, match=message):
        benchmark.main(**kwargs)
