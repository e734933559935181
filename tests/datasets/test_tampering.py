"""Datasets trust no file: each tampering the issue found, refused by a one-line DatasetError
(or a one-line CLI error), for every game; checksums recomputed as an attacker would."""

from __future__ import annotations

import os
import shutil
import subprocess
import time
from pathlib import Path

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from typer.testing import CliRunner

from caylus_cli.app import app
from caylus_env.core.registry import GAME_NAMES
from caylus_env.datasets import (
    dataset_stats,
    inspect_game,
    iter_batches,
    read_games,
    verify_dataset,
)
from caylus_env.datasets.format import DatasetError, read_manifest
from tests.datasets import fuzz_datasets as F


@pytest.fixture(scope="module")
def bases() -> dict[str, Path]:
    return F.make_bases(F.shared_bases())


@pytest.fixture(params=GAME_NAMES)
def copy(request, bases, tmp_path) -> Path:
    root = tmp_path / "d"
    shutil.copytree(bases[request.param], root)
    return root


def _decisions(root: Path) -> Path:
    return sorted((root / "decisions").glob("part-*.parquet"))[0]


def _cli(*args: str) -> subprocess.CompletedProcess:
    """``caylus ARGS`` in-process (typer's CliRunner), as a finished process."""
    result = CliRunner().invoke(app, list(args))
    assert result.exception is None or isinstance(result.exception, SystemExit), result.exception
    return subprocess.CompletedProcess(args, result.exit_code, result.stdout, result.stderr)


def test_edited_state_bytes_are_refused_before_the_observation_encoder(copy):
    def edit(table):  # the first fields of row 0's state set far out of range
        col = table["state"].combine_chunks()
        raw = np.frombuffer(col.buffers()[1], np.uint8).copy().reshape(len(col), -1)
        raw[0, 0:2] = np.frombuffer(np.int16(32767).tobytes(), np.uint8)
        raw[0, 2 : 2 + 2 * 8] = np.frombuffer(np.full(8, -32768, np.int16).tobytes(), np.uint8)
        array = pa.FixedSizeBinaryArray.from_buffers(col.type, len(col), [None, pa.py_buffer(raw)])
        return table.set_column(table.column_names.index("state"), "state", array)

    F._rewrite(_decisions(copy), edit)
    F._recompute(copy)
    with pytest.raises(
        DatasetError, match=r"game \d+ ply 0: the stored state is not a .* position"
    ):
        for _ in iter_batches(copy, 64):
            pass
    assert not verify_dataset(copy).ok


@pytest.mark.parametrize("how", ["truncated", "empty", "fifo", "dev_zero", "directory", "outside"])
def test_a_broken_or_special_shard_is_a_one_line_error_without_hanging(copy, how):
    path = _decisions(copy)
    data = path.read_bytes()
    path.unlink()
    if how == "truncated":
        path.write_bytes(data[: len(data) // 2])
    elif how == "empty":
        path.write_bytes(b"")
    elif how == "fifo":
        os.mkfifo(path)
    elif how == "dev_zero":
        path.symlink_to("/dev/zero")
    elif how == "directory":
        path.mkdir()
    else:
        outside = copy.parent / "outside.parquet"
        outside.write_bytes(data)
        path.symlink_to(outside)
    F._recompute(copy)
    start = time.monotonic()
    for tool in (
        lambda: [b for b in iter_batches(copy, 256)],
        lambda: dataset_stats(copy),
        lambda: inspect_game(copy),
    ):
        with pytest.raises(DatasetError) as err:
            tool()
        assert "\n" not in str(err.value) and str(err.value)
    assert not verify_dataset(copy).ok
    assert time.monotonic() - start < 60


@pytest.mark.parametrize("how", ["no_shards", "truncated", "empty", "fifo", "dev_zero", "dir"])
def test_a_broken_or_special_manifest_is_a_one_line_error(copy, how):
    path = copy / "manifest.json"
    text = path.read_text()
    manifest = F._manifest(copy)
    path.unlink()
    if how == "no_shards":
        manifest.pop("shards")
        F._write_manifest(copy, manifest)
    elif how == "truncated":
        path.write_text(text[: len(text) // 2])
    elif how == "empty":
        path.write_text("")
    elif how == "fifo":
        os.mkfifo(path)
    elif how == "dev_zero":
        path.symlink_to("/dev/zero")
    else:
        path.mkdir()
    with pytest.raises(DatasetError) as err:
        read_manifest(copy)
    assert "\n" not in str(err.value)
    proc = _cli("dataset", "verify", str(copy), "--no-progress")
    assert proc.returncode == 2 and "Traceback" not in proc.stderr
    assert len(proc.stderr.strip().splitlines()) == 1 and proc.stderr.startswith("Error: ")


def test_manifest_paths_outside_the_dataset_are_refused(copy):
    manifest = F._manifest(copy)
    manifest["shards"][0]["files"] = {"../../../etc/passwd": {"bytes": 1, "sha256": "0"}}
    F._write_manifest(copy, manifest)
    with pytest.raises(DatasetError, match=r"shards\[0\]\.files"):
        read_manifest(copy)


@pytest.mark.parametrize("change", ["widened", "extra", "state_size"])
def test_verify_refuses_a_widened_column_an_extra_column_and_another_state_size(copy, change):
    if change == "state_size":
        manifest = F._manifest(copy)
        manifest["state_size"] = 1
        F._write_manifest(copy, manifest)
        with pytest.raises(DatasetError, match="state_size"):
            verify_dataset(copy)
        return
    if change == "widened":
        F._rewrite(
            _decisions(copy), lambda t: F._set_column(t, "seat", t["seat"].to_pylist(), pa.int16())
        )
    else:
        F._rewrite(
            _decisions(copy),
            lambda t: t.append_column("extra", pa.array(np.zeros(t.num_rows, np.int8))),
        )
    F._recompute(copy)
    report = verify_dataset(copy)
    assert not report.ok
    assert ("seat is of type int16" if change == "widened" else "extra: ['extra']") in str(
        report.problems
    )


def test_dataset_commands_read_the_game_from_the_manifest(copy):
    for command in (("verify", "--no-progress"), ("stats",), ("inspect",)):
        proc = _cli("dataset", command[0], str(copy), *command[1:])
        assert proc.returncode == 0, proc.stderr


def test_dataset_stats_on_a_dataset_that_no_longer_replays_is_a_one_line_error(copy):
    def edit(table):  # a legal-looking action that the engine refuses
        actions = table["action"].to_pylist()
        legal = table["num_legal"].to_pylist()
        row = next(i for i, n in enumerate(legal) if n > 1 and i > 0)
        actions[row] = (actions[row] + 1) % 50
        return F._set_column(table, "action", actions)

    F._rewrite(_decisions(copy), edit)
    F._recompute(copy)
    proc = _cli("dataset", "stats", str(copy))
    assert proc.returncode != 0 and "Traceback" not in proc.stderr, proc.stderr
    assert proc.stderr.strip().splitlines()[-1].startswith("Error: ")
    assert len(proc.stderr.strip().splitlines()) == 1


def test_a_manifest_whose_counts_are_not_its_shards_sums_is_refused_at_once(copy):
    manifest = F._manifest(copy)
    manifest["shards"][0]["games"] = 10**9  # once read as a range of game ids to build
    F._write_manifest(copy, manifest)
    start = time.monotonic()
    with pytest.raises(DatasetError, match=r"counts\.games is \d+; allowed: the sum over"):
        read_manifest(copy)
    assert time.monotonic() - start < 5


def test_verify_refuses_options_not_written_as_the_generator_writes_them(copy):
    games = sorted((copy / "games").glob("part-*.parquet"))[0]
    F._rewrite(games, lambda t: F._set_column(t, "options", ['{"num_players": 2}'] * t.num_rows))
    F._recompute(copy)
    report = verify_dataset(copy)
    assert not report.ok
    assert "are not written as the generator writes them" in report.problems[0]


def _games(root: Path) -> Path:
    return sorted((root / "games").glob("part-*.parquet"))[0]


@pytest.mark.parametrize("run", ["as generated", "a plugin missing here", "an unknown agent"])
def test_verify_refuses_a_games_row_whose_agents_are_swapped_whatever_the_run_names(copy, run):
    gid = F.swap_agents(_games(copy), _decisions(copy))
    manifest = F._manifest(copy)
    if run == "a plugin missing here":  # the run's agents cannot be made here: once unchecked
        manifest["run"]["plugins"] = ["no_such_plugin_module"]
    elif run == "an unknown agent":
        manifest["run"]["agents"][0] = "no-such-agent"
    F._write_manifest(copy, manifest)
    F._recompute(copy)
    assert verify_dataset(copy).ok  # the swapped row replays exactly: only the schedule knows
    proc = _cli("dataset", "verify", str(copy), "--no-progress")
    assert proc.returncode == 1, proc.stdout
    if run == "an unknown agent":  # another schedule: every game differs from it
        assert "are not the schedule's" in proc.stderr
    else:
        assert f"game {gid}: seed, block, agents or agent seeds" in proc.stderr


def test_verify_refuses_a_run_from_which_no_schedule_can_be_built(copy):
    manifest = F._manifest(copy)
    manifest["run"]["seating"] = "shuffled"
    F._write_manifest(copy, manifest)
    proc = _cli("dataset", "verify", str(copy), "--no-progress")
    assert proc.returncode == 1 and "Traceback" not in proc.stderr
    assert "the manifest's run gives no schedule to check the games against" in proc.stderr
    assert "seating" in proc.stderr


def test_verify_refuses_a_dataset_that_lacks_games_its_run_scheduled(copy):
    manifest = F._manifest(copy)
    last = manifest["shards"].pop()
    for key in ("games", "decisions"):
        manifest["counts"][key] -= last[key]
    F._write_manifest(copy, manifest)
    proc = _cli("dataset", "verify", str(copy), "--no-progress")
    assert proc.returncode == 1
    held = manifest["counts"]["games"]
    assert f"schedules {held + last['games']} games; the dataset holds {held}" in proc.stderr


@pytest.mark.parametrize(
    "change", ["format", "game dropped", "run's game", "run's format", "run's engine"]
)
def test_verify_refuses_a_manifest_whose_format_or_game_was_changed(copy, change):
    manifest = F._manifest(copy)
    others = [g for g in GAME_NAMES if g != manifest["game"]]
    if change == "format":
        # and the run's to match: the games tables' column is still named scores, not prestige
        manifest["format"], manifest["run"]["format"] = "caylus-dataset/1", "caylus-dataset-run/1"
    elif change == "game dropped":  # read as a Caylus dataset
        manifest.pop("game")
    elif change == "run's game":
        manifest["run"]["game"] = others[0]
    elif change == "run's format":
        manifest["run"]["format"] = "caylus-dataset-run/1"
    else:
        manifest["run"]["engine"] = "0.0.1"
    F._write_manifest(copy, manifest)
    try:
        report = verify_dataset(copy)
    except DatasetError as err:  # a manifest the readers refuse outright
        assert change == "game dropped" and "\n" not in str(err)
        assert "game is missing" in str(err) or "state_version" in str(err)
    else:
        assert not report.ok
        wanted = {
            "format": "a caylus-dataset/1 file has",
            "run's game": "but its run played",
            "run's format": "is made by a caylus-dataset-run/2 run",
            "run's engine": "the manifest has engine",
        }[change]
        assert wanted in report.problems[0], report.problems
    proc = _cli("dataset", "verify", str(copy), "--no-progress")
    assert proc.returncode in (1, 2) and "Traceback" not in proc.stderr
    if change == "format":  # the readers refuse the files the manifest no longer describes
        with pytest.raises(DatasetError, match="a caylus-dataset/1 file has"):
            read_games(copy)


def _set_first(root: Path, name: str, value: float) -> float:
    """Row 0's ``name`` in the first decisions shard set to ``value`` (checksums recomputed);
    the value it had."""
    held = pq.read_table(_decisions(root))[name][0].as_py()
    F._rewrite(
        _decisions(root), lambda t: F._set_column(t, name, [value, *t[name].to_pylist()[1:]])
    )
    F._recompute(root)
    return held


@pytest.mark.parametrize("value", [float("nan"), float("inf"), float("-inf"), 3.0])
def test_the_loader_refuses_a_return_or_rank_that_is_not_finite_or_out_of_range(copy, value):
    held = _set_first(copy, "ret", value)
    with pytest.raises(DatasetError, match=r"ply 0: return .* is not a number from -1 to 1") as e:
        next(iter_batches(copy, 8, observations=False))
    assert "\n" not in str(e.value)
    assert not verify_dataset(copy).ok
    _set_first(copy, "ret", held)
    _set_first(copy, "rank", value)
    with pytest.raises(DatasetError, match=r"rank .* is not a number from 1 to the player count"):
        next(iter_batches(copy, 8, observations=False, columns=("rank",)))
    assert not verify_dataset(copy).ok


@pytest.mark.parametrize("column", ["ranks", "returns"])
def test_read_games_refuses_ranks_or_returns_that_are_not_finite(copy, column):
    def edit(t):
        values = t[column].to_pylist()
        values[0] = [float("nan"), *values[0][1:]]
        return F._set_column(t, column, values)

    F._rewrite(_games(copy), edit)
    F._recompute(copy)
    with pytest.raises(DatasetError, match=f"game 0: {column} \\[nan, .* are not all finite"):
        read_games(copy)
    assert not verify_dataset(copy).ok


def test_a_non_finite_min_return_filter_is_refused(copy):
    for bad in (float("nan"), float("inf")):
        with pytest.raises(ValueError, match=r"min_return=.*; allowed: a number from -1 to 1"):
            next(iter_batches(copy, 8, min_return=bad))
