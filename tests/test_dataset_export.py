"""``caylus dataset export``: a dataset's decisions as the env's tensors in plain Parquet, for
every game of the registry.

What is checked: every exported row is what the PettingZoo env gives the seat to act at that
step, replayed with PettingZoo's own ``agent_iter`` loop (observation bytes, mask, reward as
``env.last()`` pays it, termination and truncation, the return as the sum of the seat's later
rewards), also for games cut off by the decision cap and games ended by a forfeit; pyarrow,
Polars and Hugging Face ``datasets`` read the export in a Python that cannot import
caylus_env, batch by batch too, and the card's own loading code runs there; a ``kill -9``
then the same command gives the bytes of an uninterrupted export; the export's memory stays
within a few row groups, whatever the dataset's size; and every refusal (a malformed dataset,
an ``--out`` inside it or holding something else, an altered file) is one line with exit 2
before any work, writing nothing, while a row altered with its checksums recomputed stops
the export naming its game and ply.
"""

from __future__ import annotations

import hashlib
import io
import json
import os
import re
import shutil
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from rich.console import Console
from typer.testing import CliRunner

from agents import registry
from agents.selfplay.generate import DatasetSpec, generate_dataset, prepare_dataset
from caylus_cli.app import app
from caylus_env.core.registry import GAME_NAMES, game_spec
from caylus_env.datasets import iter_batches, read_games, read_manifest
from caylus_env.datasets.export import (
    CARD_FILE,
    DATA_DIR,
    EXPORT_FORMAT,
    LEDGER_FILE,
    METADATA_FILE,
    export_dataset,
    prepare_export,
    rows_per_group,
)
from tests.conftest import harness_games

CAYLUS = Path(sys.executable).with_name("caylus")
REPO = Path(__file__).resolve().parents[1]
TESTING_PLUGIN = "agents.tournament.testing"
TRUNCATING = [g for g in GAME_NAMES if game_spec(g).truncating_options is not None]


def bots(game: str) -> list[str]:
    """The game's own bots that take no argument (its scripted bots), from the registry."""
    own = game_spec(game).module("bots").BOTS
    return [head for head in registry.available_agents(game) if head in own]


def generate(out: Path, game: str, **changes) -> Path:
    base = {
        "agents": ("random", *bots(game)[:2]),
        "players": "2-3",
        "games": 12,
        "seed": 3,
        "shard_games": 4,
        "policy_targets": True,
        "game": game,
    }
    spec = DatasetSpec(**{**base, **changes})
    generate_dataset(
        prepare_dataset(spec, out, workers=1), progress=False, console=Console(file=io.StringIO())
    )
    return out


def export(root: Path, out: Path, **kwargs) -> Path:
    export_dataset(prepare_export(root, out, **kwargs))
    return out


def cli(*args: object) -> subprocess.CompletedProcess:
    """``caylus dataset ARGS`` in-process (typer's CliRunner), as a finished process."""
    result = CliRunner().invoke(app, ["dataset", *map(str, args)])
    assert result.exception is None or isinstance(result.exception, SystemExit), result.exception
    return subprocess.CompletedProcess(args, result.exit_code, result.stdout, result.stderr)


def tree(root: Path) -> dict[str, bytes]:
    """Every file under ``root`` (relative path -> bytes)."""
    return {
        p.relative_to(root).as_posix(): p.read_bytes()
        for p in sorted(root.rglob("*"))
        if p.is_file()
    }


def columns(out: Path) -> dict[str, np.ndarray]:
    """The export's columns as NumPy arrays (the list columns as 2-D arrays)."""
    table = pq.read_table(out / DATA_DIR)
    result = {}
    for name in table.column_names:
        column = table[name].combine_chunks()
        if pa.types.is_fixed_size_list(column.type):
            values = column.flatten().to_numpy(zero_copy_only=False)
            result[name] = values.reshape(len(column), column.type.list_size)
            result[f"{name}_valid"] = column.is_valid().to_numpy(zero_copy_only=False)
        else:
            result[name] = column.to_numpy(zero_copy_only=False)
    return result


@pytest.fixture(scope="module", params=GAME_NAMES)
def exported(request, tmp_path_factory) -> tuple[str, Path, Path]:
    """``(game, dataset, export)``: 12 games of 2 and 3 players in 3 shards with policy
    targets, and their export."""
    game = request.param
    folder = tmp_path_factory.mktemp(f"export-{game}")
    root = generate(folder / "d", game)
    return game, root, export(root, folder / "x")


# --------------------------------------------------------------------------------------------------
# The rows are the env's
# --------------------------------------------------------------------------------------------------


def replay_through_env(game: str, root: Path, out: Path, options: dict | None = None) -> int:
    """Play every stored game through the game's PettingZoo env (``env()``, with its
    wrappers) with PettingZoo's ``agent_iter`` loop, and check each exported row against what
    the env shows: the seat to act, its observation and mask before the action, and the reward,
    termination and truncation its next ``env.last()`` returns. Returns the rows checked."""
    cols = columns(out)
    env_module = game_spec(game).module("env")
    games = {g["game_id"]: g for g in read_games(root, game=game).to_pylist()}
    assert sorted(set(cols["episode_id"].tolist())) == sorted(
        gid for gid, g in games.items() if g["decisions"]
    )
    checked = 0
    for gid, g in games.items():
        rows = iter(np.flatnonzero(cols["episode_id"] == gid))
        env = env_module.env(num_players=g["num_players"], **json.loads(g["options"]))
        env.reset(seed=g["seed"])
        waiting: dict[str, int] = {}  # agent -> its last decision's row, until env.last() pays it
        rewards: dict[int, list[int]] = {}  # seat -> its rows
        step = 0
        for agent in env.agent_iter():
            observation, reward, terminated, truncated, _ = env.last()
            if agent in waiting:
                i = waiting.pop(agent)
                assert cols["reward"][i] == np.float32(reward), (gid, i)
                assert (cols["terminated"][i], cols["truncated"][i]) == (terminated, truncated)
            if terminated or truncated:
                env.step(None)
                continue
            i = next(rows, None)
            if i is None:  # a forfeit: the stored game stops before the env's end
                assert g["end"] == "forfeit"
                break
            seat = int(agent.removeprefix("player_"))
            assert (cols["player"][i], cols["step"][i], cols["num_players"][i]) == (
                seat,
                step,
                g["num_players"],
            )
            assert observation["observation"].tobytes() == cols["observation"][i].tobytes()
            assert np.array_equal(observation["action_mask"], cols["action_mask"][i])
            assert cols["action_mask"][i][cols["action"][i]] == 1
            assert cols["rank"][i] == np.float32(g["ranks"][seat])
            assert cols["agent"][i] == g["agents"][seat]
            waiting[agent] = i
            rewards.setdefault(seat, []).append(i)
            env.step(int(cols["action"][i]))
            step += 1
            checked += 1
        if g["end"] == "forfeit":  # the harness ended it: each seat's last row pays the
            for seat, i in ((s, mine[-1]) for s, mine in rewards.items()):  # forfeit returns
                assert cols["reward"][i] == np.float32(g["returns"][seat])
                assert cols["terminated"][i] and not cols["truncated"][i]
        else:
            assert not waiting and next(rows, None) is None
        for mine in rewards.values():  # the return: the seat's rewards from the row on
            assert np.array_equal(cols["return"][mine], np.cumsum(cols["reward"][mine][::-1])[::-1])
            assert not (cols["terminated"][mine[:-1]] | cols["truncated"][mine[:-1]]).any()
    return checked


def test_every_row_is_what_the_env_gives_the_seat_to_act_at_that_step(exported):
    game, root, out = exported
    checked = replay_through_env(game, root, out)
    assert checked == read_manifest(root)["counts"]["decisions"] > 100


def test_policy_targets_are_the_datasets_dense_over_the_actions(exported):
    game, root, out = exported
    cols = columns(out)
    batch = next(iter_batches(root, 100_000, game=game))
    assert np.array_equal(cols["policy"], batch["target"])
    assert np.array_equal(cols["policy_valid"], batch["has_target"])
    assert np.array_equal(cols["observation"], batch["obs"])
    assert np.array_equal(cols["action_mask"].astype(bool), batch["mask"])


@pytest.mark.parametrize("game", TRUNCATING)
def test_games_cut_off_by_the_decision_cap_pay_zero_and_end_truncated(game, tmp_path):
    options = dict(game_spec(game).truncating_options)
    root = generate(
        tmp_path / "d", game, players="2", games=2, game_options=options, policy_targets=False
    )
    out = export(root, tmp_path / "x")
    assert replay_through_env(game, root, out) > 0
    cols = columns(out)
    assert "policy" not in cols  # no policy targets in the dataset, no column
    assert not cols["reward"].any() and not cols["return"].any() and not cols["terminated"].any()
    assert cols["truncated"].sum() == 4  # each seat's last decision of each game
    assert json.loads((out / METADATA_FILE).read_text())["counts"]["episodes_by_end"] == {
        "truncated": 2
    }


@pytest.mark.parametrize("game", GAME_NAMES)
def test_a_forfeited_game_ends_at_its_last_stored_decision_with_its_forfeit_returns(game, tmp_path):
    own = bots(game)[0]
    root = generate(
        tmp_path / "d",
        game,
        agents=(own, "random", "test-crash"),
        players="2-3",
        games=9,
        seed=4,
        plugins=(TESTING_PLUGIN,),
        policy_targets=False,
    )
    ends = [g["end"] for g in read_games(root, game=game).to_pylist()]
    assert "forfeit" in ends and "terminated" in ends
    proc = cli("export", root, "--out", tmp_path / "x", "--no-progress")  # the plugin's
    assert proc.returncode == 0, proc.stderr  # seating is checked without the plugin's agents
    assert replay_through_env(game, root, tmp_path / "x") > 0


# --------------------------------------------------------------------------------------------------
# Read without caylus_env
# --------------------------------------------------------------------------------------------------

READER = textwrap.dedent(
    """
    import glob, hashlib, importlib.util, json, re, sys
    sys.path[:] = json.loads(sys.argv[1])
    assert importlib.util.find_spec("caylus_env") is None, "caylus_env is importable"
    out, mode = sys.argv[2], sys.argv[3]
    meta = json.load(open(f"{out}/metadata.json"))
    obs, actions = meta["observation_size"], meta["num_actions"]
    digests = [hashlib.sha256() for _ in range(3)]  # observations, masks, actions
    rows = 0
    if mode == "pyarrow":
        import numpy as np, pyarrow.dataset as ds, pyarrow.parquet as pq, polars as pl
        for path in sorted(glob.glob(f"{out}/data/*.parquet")):  # batch by batch
            for batch in pq.ParquetFile(path).iter_batches(batch_size=100):
                o = batch.column("observation").flatten().to_numpy().reshape(-1, obs)
                m = batch.column("action_mask").flatten().to_numpy().reshape(-1, actions)
                digests[0].update(o.tobytes()); digests[1].update(m.tobytes())
                digests[2].update(batch.column("action").to_numpy().tobytes())
                rows += batch.num_rows
        table = ds.dataset(f"{out}/data", format="parquet").to_table()
        frame = pl.scan_parquet(f"{out}/data/*.parquet")
        ends = frame.filter(pl.col("terminated") | pl.col("truncated")).collect()
        seats = ends.group_by(["episode_id", "player"]).len()["len"].max()
        extra = {"table_rows": table.num_rows, "polars_rows": frame.select(pl.len()).collect().item(),
                 "last_rows_per_seat": seats, "columns": table.column_names}
    else:
        import datasets, numpy as np
        hf = datasets.load_dataset("parquet", data_files=f"{out}/data/*.parquet", split="train")
        hf.set_format("numpy")
        for start in range(0, len(hf), 100):
            part = hf[start:start + 100]
            digests[0].update(np.ascontiguousarray(part["observation"], np.float32).tobytes())
            digests[1].update(np.ascontiguousarray(part["action_mask"], np.int8).tobytes())
            digests[2].update(np.ascontiguousarray(part["action"], np.int64).tobytes())
            rows += len(part["action"])
        card = datasets.load_dataset(out, split="train")  # the card's data_files
        stream = datasets.load_dataset("parquet", data_files=f"{out}/data/*.parquet",
                                       split="train", streaming=True)
        first = next(iter(stream))
        code = re.search(r"```python\\n(.*?)```", open(f"{out}/README.md").read(), re.S).group(1)
        import os; os.chdir(out); exec(code, {})  # the card's loading code, as written
        extra = {"card_rows": len(card), "stream_step": first["step"],
                 "features": sorted(hf.features), "card_obs": len(card[0]["observation"])}
    assert not [m for m in sys.modules if m.split(".")[0] == "caylus_env"]
    print(json.dumps({"rows": rows, "sha256": [d.hexdigest() for d in digests], **extra}))
    """
)


def read_without_caylus_env(out: Path, mode: str, tmp_path: Path) -> dict:
    """Run `READER` in ``python -I -S`` (no site, no PYTHONPATH, no current directory) whose
    ``sys.path`` is this interpreter's library folders minus any that holds ``caylus_env``, so
    the repository and the editable install are out of reach."""
    paths = [
        p
        for p in sys.path
        if p and Path(p).is_dir() and not (Path(p) / "caylus_env").exists() and Path(p) != REPO
    ]
    env = {
        "HF_HOME": str(tmp_path / "hf"),
        "HF_DATASETS_OFFLINE": "1",
        "HF_HUB_OFFLINE": "1",
        "PATH": os.environ.get("PATH", ""),
        "HOME": str(tmp_path),
    }
    proc = subprocess.run(
        [sys.executable, "-I", "-S", "-c", READER, json.dumps(paths), str(out), mode],
        capture_output=True,
        text=True,
        env=env,
        cwd=tmp_path,
        check=False,
        timeout=600,
    )
    assert proc.returncode == 0, proc.stderr[-3000:]
    return json.loads(proc.stdout.strip().splitlines()[-1])


def expected_digest(root: Path, game: str) -> list[str]:
    """The SHA-256 of every row's observation, of every mask and of every action, in the
    export's order, as caylus_env's own loader gives them (its observations are the env's,
    bit for bit)."""
    digests = [hashlib.sha256() for _ in range(3)]
    for batch in iter_batches(root, 1000, game=game):
        digests[0].update(batch["obs"].tobytes())
        digests[1].update(batch["mask"].astype(np.int8).tobytes())
        digests[2].update(batch["action"].tobytes())
    return [d.hexdigest() for d in digests]


def test_pyarrow_and_polars_read_the_export_batch_by_batch_without_caylus_env(exported, tmp_path):
    game, root, out = exported
    got = read_without_caylus_env(out, "pyarrow", tmp_path)
    decisions = read_manifest(root)["counts"]["decisions"]
    assert got["rows"] == got["table_rows"] == got["polars_rows"] == decisions
    assert got["sha256"] == expected_digest(root, game)
    assert got["last_rows_per_seat"] == 1  # one terminal row per seat of each game
    assert got["columns"][:3] == ["episode_id", "step", "player"] and "policy" in got["columns"]


def test_hugging_face_datasets_loads_the_export_and_runs_the_cards_code(exported, tmp_path):
    game, root, out = exported
    got = read_without_caylus_env(out, "datasets", tmp_path)
    decisions = read_manifest(root)["counts"]["decisions"]
    assert got["rows"] == got["card_rows"] == decisions
    assert got["sha256"] == expected_digest(root, game)
    assert got["stream_step"] == 0
    assert got["card_obs"] == game_spec(game).observation().OBS_SIZE
    assert {"observation", "action_mask", "action", "reward", "return", "policy"} <= set(
        got["features"]
    )


def test_the_card_names_the_game_versions_agents_counts_and_files(exported):
    game, root, out = exported
    manifest, spec = read_manifest(root), game_spec(game)
    meta = json.loads((out / METADATA_FILE).read_text())
    assert (meta["format"], meta["game"], meta["env"]) == (EXPORT_FORMAT, game, spec.env_name)
    assert meta["versions"]["dataset_engine"] == manifest["engine"]
    assert meta["versions"]["observation_version"] == spec.observation().OBSERVATION_VERSION
    assert meta["source"]["agents"] == manifest["run"]["agents"]
    assert meta["source"]["command"] == manifest["command"]
    counts = meta["counts"]
    assert counts["episodes"] == manifest["counts"]["games"] == 12
    assert counts["decisions"] == manifest["counts"]["decisions"]
    assert sum(counts["decisions_by_agent"].values()) == counts["decisions"]
    assert counts["episodes_by_players"] == {"2": 6, "3": 6}
    assert len(meta["observation_high"]) == spec.observation().OBS_SIZE
    assert len(meta["action_names"]) == spec.engine().NUM_ACTIONS
    names = [c["name"] for c in meta["columns"]]
    assert names == pq.read_schema(out / DATA_DIR / "part-00000.parquet").names
    for entry in meta["files"]:
        data = (out / entry["path"]).read_bytes()
        assert hashlib.sha256(data).hexdigest() == entry["sha256"] and len(data) == entry["bytes"]
    card = (out / CARD_FILE).read_text()
    header = card.split("---\n")[1]
    assert f"path: {DATA_DIR}/part-*.parquet" in header
    assert f"{counts['decisions']} decisions of 12 games of {spec.title}" in card
    assert manifest["command"] in card and "## Rewards" in card
    assert 'datasets.load_dataset("parquet", data_files="data/*.parquet"' in card
    assert not list((out / DATA_DIR).glob(".*"))


# --------------------------------------------------------------------------------------------------
# Resumable, atomic, streaming
# --------------------------------------------------------------------------------------------------


@pytest.mark.parametrize("game", harness_games())
def test_sigkill_then_the_same_command_resumes_to_the_uninterrupted_bytes(game, tmp_path):
    pair = tuple(bots(game)[:2])
    root = generate(tmp_path / "d", game, agents=pair, players="2", games=40, shard_games=1)
    reference = export(root, tmp_path / "reference")
    out = tmp_path / "killed"
    command = [str(CAYLUS), "dataset", "export", str(root), "--out", str(out), "--no-progress"]
    proc = subprocess.Popen(
        command,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        start_new_session=True,
    )
    ledger = out / LEDGER_FILE
    deadline = time.monotonic() + 300  # only detects a hang: the kill is at the first line
    while time.monotonic() < deadline and proc.poll() is None:
        if ledger.exists() and ledger.read_bytes().count(b"\n") >= 1:
            break
        time.sleep(0.002)
    assert proc.poll() is None, "the export ended before it could be killed"
    os.killpg(proc.pid, signal.SIGKILL)
    proc.wait()
    finished = ledger.read_bytes().count(b"\n")
    assert 1 <= finished < 40
    assert not (out / METADATA_FILE).exists() and not (out / CARD_FILE).exists()
    again = subprocess.run(command, capture_output=True, text=True, check=False)
    assert again.returncode == 0, again.stderr
    assert re.search(rf"resumed: {finished} of 40 shards", again.stdout.replace("\n", " "))
    assert tree(out) == tree(reference)


@pytest.mark.parametrize("game", GAME_NAMES)
def test_a_resume_removes_the_partial_shard_and_writes_only_the_missing_ones(game, tmp_path):
    root = generate(tmp_path / "d", game, policy_targets=False)
    reference = tree(export(root, tmp_path / "reference"))
    out = tmp_path / "x"
    shutil.copytree(tmp_path / "reference", out)
    lines = (out / LEDGER_FILE).read_bytes().splitlines(keepends=True)
    (out / LEDGER_FILE).write_bytes(lines[0] + lines[1][:20])  # a torn second line
    for name in ("part-00001.parquet", "part-00002.parquet"):
        (out / DATA_DIR / name).unlink()
    (out / DATA_DIR / ".part-00001.parquet.tmp").write_bytes(b"half a shard")  # in flight
    (out / DATA_DIR / ".part-00000.parquet.tmp").write_bytes(b"stale")  # of a finished one
    (out / METADATA_FILE).unlink()
    (out / CARD_FILE).unlink()
    first = (out / DATA_DIR / "part-00000.parquet").stat().st_mtime_ns
    result = export_dataset(prepare_export(root, out))
    assert (result.resumed, result.shards_written, result.removed_partial) == (1, 2, 2)
    assert (out / DATA_DIR / "part-00000.parquet").stat().st_mtime_ns == first
    assert tree(out) == reference


MEMORY = textwrap.dedent(
    """
    import json, sys, tracemalloc
    import pyarrow as pa
    from caylus_env.datasets.export import export_dataset, prepare_export
    warm, root, out, group = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4])
    export_dataset(prepare_export(warm, out + "-warm", row_group_bytes=group))  # kernels loaded
    tracemalloc.start()  # NumPy reports its arrays to tracemalloc
    prepared = prepare_export(root, out, row_group_bytes=group)
    started = []
    def on_rows(done):  # first called once the ledger is read (a bounded read of up to
        if not started:  # 16 MiB at once, fileio.READ_CHUNK_BYTES): the rows' work starts
            started.append(tracemalloc.reset_peak())
    export_dataset(prepared, on_rows=on_rows)
    arrow = pa.default_memory_pool().max_memory()  # the warm-up's, of 2 games, is lower
    print(json.dumps({"numpy": tracemalloc.get_traced_memory()[1], "arrow": arrow}))
    """
)


@pytest.mark.parametrize("game", GAME_NAMES)
def test_memory_stays_within_a_few_row_groups_whatever_the_datasets_size(game, tmp_path):
    """One shard of 48 games exported in row groups of 1 MiB: the peak of NumPy's and Arrow's
    memory is less than half the shard's rows (a writer that held the shard would need them
    all), every row group but the last has the rows its bytes
    allow, and a reader that goes batch by batch sees the rows of one that reads the file
    whole."""
    warm = generate(tmp_path / "warm", game, games=2, shard_games=2, policy_targets=False)
    root = generate(tmp_path / "d", game, games=48, shard_games=48, policy_targets=False)
    group = 1 << 20
    command = [sys.executable, "-c", MEMORY, str(warm), str(root), str(tmp_path / "x"), str(group)]
    proc = subprocess.run(command, capture_output=True, text=True, check=False, timeout=600)
    assert proc.returncode == 0, proc.stderr[-3000:]
    peak = json.loads(proc.stdout.strip().splitlines()[-1])
    path = tmp_path / "x" / DATA_DIR / "part-00000.parquet"
    handle = pq.ParquetFile(path)
    meta = handle.metadata
    uncompressed = sum(meta.row_group(i).total_byte_size for i in range(meta.num_row_groups))
    assert uncompressed > 40 * group  # the shard is many row groups
    assert peak["numpy"] + peak["arrow"] < uncompressed / 2, (peak, uncompressed)
    rows = rows_per_group(game_spec(game), policy=False, row_group_bytes=group)
    sizes = [meta.row_group(i).num_rows for i in range(meta.num_row_groups)]
    assert sizes[:-1] == [rows] * (len(sizes) - 1) and 0 < sizes[-1] <= rows
    assert sum(sizes) == meta.num_rows == read_manifest(root)["counts"]["decisions"]
    whole = pq.read_table(path)
    batches = pa.Table.from_batches(list(handle.iter_batches(batch_size=rows // 3)))
    assert batches.equals(whole)


# --------------------------------------------------------------------------------------------------
# Refusals
# --------------------------------------------------------------------------------------------------


def _edit_manifest(root: Path, change) -> None:
    manifest = json.loads((root / "manifest.json").read_text())
    change(manifest)
    (root / "manifest.json").write_text(json.dumps(manifest))


def _alter_shard(root: Path) -> None:
    path = root / "games" / "part-00001.parquet"
    table = pq.read_table(path)
    scores = [[s + 1 for s in row] for row in table["scores"].to_pylist()]
    table = table.set_column(
        table.schema.get_field_index("scores"), "scores", pa.array(scores, pa.list_(pa.int16()))
    )
    pq.write_table(table, path)


def _not_a_dataset(root: Path, out: Path) -> tuple[Path, Path]:
    return out, root / "games"


def _manifest_cut(root: Path, out: Path) -> tuple[Path, Path]:
    (root / "manifest.json").write_text((root / "manifest.json").read_text()[:100])
    return out, root


def _out_is_the_dataset(root: Path, out: Path) -> tuple[Path, Path]:
    return root, root


def _out_inside_the_dataset(root: Path, out: Path) -> tuple[Path, Path]:
    return root / "export", root


def _out_holds_the_dataset(root: Path, out: Path) -> tuple[Path, Path]:
    return root.parent, root


def _out_holds_other_files(root: Path, out: Path) -> tuple[Path, Path]:
    out.mkdir()
    (out / "notes.txt").write_text("mine")
    return out, root


def _out_is_a_file(root: Path, out: Path) -> tuple[Path, Path]:
    out.write_text("x")
    return out, root


def _altered_shard(root: Path, out: Path) -> tuple[Path, Path]:
    _alter_shard(root)
    return out, root


def _no_schedule(root: Path, out: Path) -> tuple[Path, Path]:
    _edit_manifest(root, lambda m: m["run"].update(seating="shuffled"))
    return out, root


def _a_shard_dropped(root: Path, out: Path) -> tuple[Path, Path]:
    def drop(manifest: dict) -> None:
        last = manifest["shards"].pop()
        for key in ("games", "decisions"):
            manifest["counts"][key] -= last[key]

    _edit_manifest(root, drop)
    return out, root


REFUSALS = {
    "not a dataset": (_not_a_dataset, "is not a finished dataset"),
    "manifest cut": (_manifest_cut, "cannot read"),
    "out is the dataset": (_out_is_the_dataset, "inside it or holds it"),
    "out inside the dataset": (_out_inside_the_dataset, "inside it or holds it"),
    "out holds the dataset": (_out_holds_the_dataset, "inside it or holds it"),
    "out holds other files": (
        _out_holds_other_files,
        "holds notes.txt but no export.json, so it is not an export",
    ),
    "out is a file": (_out_is_a_file, "exists and is not a directory"),
    "altered shard": (_altered_shard, "is not the file its manifest lists"),
    "no schedule": (_no_schedule, "the manifest's run gives no schedule to check the games"),
    "a shard dropped": (_a_shard_dropped, "run schedules 12 games; the dataset holds 8"),
}
"""Each refusal: ``(make, words)``, where ``make(dataset copy, out)`` breaks something and
returns ``(--out, DIR)`` to export, and ``words`` are what the error line says."""


@pytest.fixture(scope="module", params=GAME_NAMES)
def dataset(request, tmp_path_factory) -> tuple[str, Path]:
    game = request.param
    return game, generate(tmp_path_factory.mktemp(f"refuse-{game}") / "d", game)


@pytest.mark.parametrize("case", REFUSALS)
def test_a_bad_dataset_or_out_is_refused_in_one_line_before_any_work(dataset, case, tmp_path):
    _, base = dataset
    root = tmp_path / "d"
    shutil.copytree(base, root)
    make, words = REFUSALS[case]
    out, source = make(root, tmp_path / "x")
    before = tree(tmp_path)
    proc = cli("export", source, "--out", out, "--no-progress")
    assert proc.returncode == 2, (proc.stdout, proc.stderr)
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("Error: ") and words in lines[0], lines
    assert tree(tmp_path) == before  # nothing written, nothing created


def test_a_dataset_of_another_game_is_refused_naming_both(dataset, tmp_path):
    game, root = dataset
    other = next(g for g in GAME_NAMES if g != game)
    proc = cli("export", root, "--out", tmp_path / "x", "--game", other, "--no-progress")
    assert proc.returncode == 2 and f"pass --game {game}" in proc.stderr
    assert len(proc.stderr.strip().splitlines()) == 1 and not (tmp_path / "x").exists()


def test_an_export_of_another_dataset_is_refused_naming_the_fields(dataset, tmp_path):
    game, root = dataset
    export(root, tmp_path / "x")
    other = generate(tmp_path / "other", game, seed=4)
    before = tree(tmp_path / "x")
    proc = cli("export", other, "--out", tmp_path / "x", "--no-progress")
    assert proc.returncode == 2
    assert "source: export.json has" in proc.stderr and "shards_sha256" in proc.stderr
    assert len(proc.stderr.strip().splitlines()) == 1 and tree(tmp_path / "x") == before
    again = cli("export", root, "--out", tmp_path / "x", "--no-progress")  # the same: done
    assert again.returncode == 0, again.stderr
    assert "resumed: 3 of 3 shards" in again.stdout and tree(tmp_path / "x") == before


def _recompute(root: Path) -> None:
    """The manifest's checksums made to match the files (what an attacker does)."""
    from caylus_env.datasets.format import file_digest

    _edit_manifest(
        root,
        lambda m: [
            s["files"].update({n: file_digest(root / n) for n in s["files"]}) for s in m["shards"]
        ],
    )


def test_a_row_altered_with_its_checksums_recomputed_stops_the_export_at_its_game_and_ply(
    dataset, tmp_path
):
    _, base = dataset
    root = tmp_path / "d"
    shutil.copytree(base, root)
    path = root / "decisions" / "part-00001.parquet"
    table = pq.read_table(path)
    states = [bytearray(s) for s in table["state"].to_pylist()]
    states[5][0] ^= 1  # one byte of the sixth decision's state
    index = table.schema.get_field_index("state")
    table = table.set_column(
        index, "state", pa.array([bytes(s) for s in states], table.schema.field("state").type)
    )
    pq.write_table(table, path)
    _recompute(root)
    gid, ply = table["game_id"][5].as_py(), table["ply"][5].as_py()
    proc = cli("export", root, "--out", tmp_path / "x", "--no-progress")
    assert proc.returncode == 1, proc.stdout
    line = proc.stderr.strip().splitlines()
    assert len(line) == 1 and f"shard 1: game {gid} ply {ply}: column state differs" in line[0]
    assert sorted(p.name for p in (tmp_path / "x" / DATA_DIR).iterdir()) == ["part-00000.parquet"]
    assert not (tmp_path / "x" / METADATA_FILE).exists()
    assert (tmp_path / "x" / LEDGER_FILE).read_bytes().count(b"\n") == 1
    kept = tree(tmp_path / "x")
    again = cli("export", root, "--out", tmp_path / "x", "--no-progress")  # shard 0 is kept,
    assert again.returncode == 1 and again.stderr == proc.stderr  # shard 1 fails again
    assert tree(tmp_path / "x") == kept


def test_a_games_row_whose_agents_are_swapped_is_refused_by_the_schedule(dataset, tmp_path):
    _, base = dataset
    root = tmp_path / "d"
    shutil.copytree(base, root)
    games_path, decisions_path = (
        root / "games" / "part-00000.parquet",
        root / "decisions" / "part-00000.parquet",
    )
    games = pq.read_table(games_path).to_pylist()
    games[0]["agents"] = games[0]["agents"][::-1]
    pq.write_table(pa.Table.from_pylist(games, schema=pq.read_schema(games_path)), games_path)
    decisions = pq.read_table(decisions_path)
    agents = [
        games[0]["agents"][s] if g == 0 else a
        for g, s, a in zip(
            decisions["game_id"].to_pylist(),
            decisions["seat"].to_pylist(),
            decisions["agent"].to_pylist(),
            strict=True,
        )
    ]
    decisions = decisions.set_column(
        decisions.schema.get_field_index("agent"), "agent", pa.array(agents)
    )
    pq.write_table(decisions, decisions_path)
    _recompute(root)
    export(root, tmp_path / "python")  # replays exactly: only the run's schedule knows
    proc = cli("export", root, "--out", tmp_path / "x", "--no-progress")
    assert proc.returncode == 1
    assert "game 0: seed, block, agents or agent seeds" in proc.stderr
    assert not list((tmp_path / "x" / DATA_DIR).iterdir())
