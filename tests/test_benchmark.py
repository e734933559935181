"""The benchmark harness and ``caylus bench`` run end to end for every registered game (their
figures are read by people, never asserted: these tests check the plumbing, on workloads small
enough for a test), and refuse bad arguments before any work."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest
from typer.testing import CliRunner

from caylus_cli.app import app
from caylus_env.core import benchmark
from caylus_env.core.registry import GAME_NAMES, game_spec

runner = CliRunner()


def invoke(*args: object):
    return runner.invoke(app, [str(a) for a in args])


@pytest.fixture
def tiny_bench(monkeypatch: pytest.MonkeyPatch) -> None:
    """Workloads small enough for a test, and the subprocess timings stubbed."""
    for name, value in (
        ("CALL_DECISIONS", 2_000),
        ("COMPILED_GAMES", 10),
        ("LENGTH_GAMES", 10),
        ("AEC_DECISIONS", 300),
        ("VECTOR_DECISIONS", 4_000),
        ("CLONE_LOOPS", 10),
    ):
        monkeypatch.setattr(benchmark, name, value)
    monkeypatch.setattr(benchmark, "compile_seconds", lambda game: (12.5, 0.75))


@pytest.mark.parametrize("game", GAME_NAMES)
def test_every_layer_of_every_game_reports_a_positive_rate(game, tiny_bench, tmp_path):
    spec = game_spec(game)
    out = tmp_path / "bench.json"
    n = spec.min_players
    results = benchmark.main(
        game, repeats=1, players=[n], quick=True, vector=True, vector_envs=8, json_path=out
    )
    layers = ("engine_call", "engine_compiled", "raw_env", "env", "vector")
    assert set(results["layers"]) == {f"{layer}_{n}p" for layer in layers}
    assert all(rate > 0 for rate in results["layers"].values())
    assert results["game"] == game and results["vector_envs"] == 8
    assert set(results["game_lengths"]) == {
        f"{p}p_{name}" for p in spec.player_counts for name in spec.option_sets
    }
    for row in results["game_lengths"].values():
        assert 0 < row["mean"] <= row["max"]
    layout = spec.engine().layout
    assert results["state_bytes"] == layout.STATE_SIZE * layout.STATE_DTYPE().itemsize
    assert results["game_clone_us"] > 0 and results["compile_cold_s"] == 12.5
    assert set(results["anchors"]) == {
        "pettingzoo_connect_four_env",
        "pettingzoo_connect_four_raw_env",
        "openspiel_chess",
        "openspiel_connect_four",
    }
    assert json.loads(out.read_text()) == json.loads(json.dumps(results))


@pytest.mark.parametrize("game", GAME_NAMES)
def test_the_compiled_layer_plays_whole_games_the_same_way_each_run(game):
    counts = benchmark.random_game_lengths(game, 2, 5)
    assert counts.shape == (5,) and (counts > 0).all()
    assert (benchmark.random_game_lengths(game, 2, 5) == counts).all()
    assert len(set(counts.tolist())) > 1  # five different games


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"repeats": 0}, "repeats"),
        ({"repeats": True}, "repeats"),
        ({"players": [6]}, "players must be in 2-5"),
        ({"players": []}, "players"),
        ({"vector_envs": 0}, "vector_envs"),
    ],
)
def test_bad_arguments_fail_before_any_work(kwargs, message, monkeypatch):
    monkeypatch.setattr(benchmark, "run_all", lambda *a, **k: pytest.fail("work was started"))
    with pytest.raises(ValueError, match=message):
        benchmark.main(GAME_NAMES[-1], **kwargs)
    with pytest.raises(ValueError, match="unknown game 'chess'"):
        benchmark.main("chess")


@pytest.mark.parametrize("game", GAME_NAMES)
def test_the_compile_probe_plays_a_first_game_in_a_fresh_interpreter(game):
    """The probe of ``compile_seconds``, run with the warm cache of this test run (a cold one
    takes minutes)."""
    done = subprocess.run(
        [sys.executable, "-c", benchmark._COMPILE_PROBE, game, str(benchmark.PROBE_PLAYERS)],
        env=dict(os.environ),
        capture_output=True,
        text=True,
        check=True,
    )
    assert float(done.stdout.split()[-1]) > 0


# -- caylus bench --------------------------------------------------------------------------------
@pytest.mark.parametrize("game", GAME_NAMES)
def test_bench_prints_the_same_rows_for_every_game(game, tiny_bench, tmp_path):
    spec = game_spec(game)
    out = tmp_path / "bench.json"
    result = invoke(
        "bench", "--game", game, "--repeats", "1", "--players", "3", "--vector", "--num-envs",
        "8", "--quick", "--json", out,
    )  # fmt: skip
    assert result.exit_code == 0, result.output
    for figure in ("engine_call_3p", "engine_compiled_3p", "raw_env_3p", "env_3p", "vector_3p",
                   "openspiel_chess", "pettingzoo_connect_four_env",
                   "pettingzoo_connect_four_raw_env"):  # fmt: skip
        assert figure in result.output
    assert "engine_call_2p" not in result.output
    assert f"{spec.title} throughput" in result.output
    size = spec.engine().layout.STATE_SIZE * spec.engine().layout.STATE_DTYPE().itemsize
    assert f"state: {size} bytes (within the 1024-byte budget)" in result.output
    assert "12.5 s cold, 0.75 s from the cache" in result.output
    assert "decisions per random game" in result.output
    assert f"wrote {out}" in result.output
    assert set(json.loads(out.read_text())["layers"]) >= {"vector_3p", "raw_env_3p"}


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--players", "2,6"], "player counts are 2 to 5"),
        (["--players", "two"], "is not a list like 2,4"),
        (["--repeats", "0"], "--repeats: must be >= 1"),
        (["--threads", "2"], "--threads needs --training"),
        (["--num-envs", "8"], "--num-envs needs --vector"),
        (["--vector", "--num-envs", "0"], "--num-envs: must be >= 1"),
        (["--training", "--vector"], "drop --vector and --num-envs"),
        (["--training", "--players", "2,3"], "--training takes one count"),
        (["--training", "--threads", "0"], "--threads: must be >= 1"),
        (["--json", "missing/bench.json"], "--json"),
    ],
)
@pytest.mark.parametrize("game", GAME_NAMES)
def test_bench_refuses_bad_arguments_before_any_work(game, args, message, monkeypatch):
    monkeypatch.setattr(benchmark, "main", lambda *a, **k: pytest.fail("work was started"))
    result = invoke("bench", "--game", game, *args)
    assert result.exit_code == 2, result.output
    assert message in result.output


@pytest.mark.parametrize("game", GAME_NAMES)
def test_bench_training_delegates_to_the_training_benchmark(game, monkeypatch, tmp_path):
    train_bench = pytest.importorskip("training.benchmark")
    calls = []

    def run(**kwargs):
        calls.append(kwargs)
        return {"game": kwargs["game"], "figure": 1.0}

    monkeypatch.setattr(train_bench, "run", run)
    monkeypatch.setattr(train_bench, "table", lambda figures: f"| table of {figures['game']} |")
    out = tmp_path / "training.json"
    result = invoke(
        "bench", "--game", game, "--training", "--players", "2", "--threads", "2", "--quick",
        "--repeats", "1", "--json", out,
    )  # fmt: skip
    assert result.exit_code == 0, result.output
    assert calls == [{"game": game, "repeats": 1, "quick": True, "threads": 2, "players": 2}]
    assert f"| table of {game} |" in result.output
    assert json.loads(out.read_text()) == {"game": game, "figure": 1.0}
