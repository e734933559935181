"""Puerto Rico self-play datasets (``caylus dataset ... --game puerto_rico``): generation,
determinism, resume after SIGKILL, verify, the wrong-game refusal, loaders and stats."""

from __future__ import annotations

import concurrent.futures as cf
import io
import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from rich.console import Console

from agents.selfplay.generate import DatasetSpec, generate_dataset, prepare_dataset
from agents.tournament.specs import RunMismatchError
from caylus_env.datasets import (
    DatasetError,
    dataset_stats,
    inspect_game,
    iter_batches,
    open_dataset,
    read_manifest,
    verify_dataset,
)
from caylus_env.datasets.games import dataset_game
from caylus_env.puerto_rico.engine import NUM_ACTIONS, Game, GameConfig
from caylus_env.puerto_rico.engine import layout as L
from caylus_env.puerto_rico.engine.decisions import SCHEMA

PR = "puerto_rico"
SPEC = DatasetSpec(
    agents=("random", "shipper", "builder"),
    players="3",
    games=12,
    seed=5,
    shard_games=5,
    game=PR,
)
CAYLUS = Path(sys.executable).with_name("caylus")


def quiet() -> Console:
    return Console(file=io.StringIO())


def make(spec: DatasetSpec, out: Path, **kwargs) -> None:
    generate_dataset(prepare_dataset(spec, out, **kwargs), progress=False, console=quiet())


def shard_bytes(root: Path) -> dict[str, bytes]:
    return {
        p.relative_to(root).as_posix(): p.read_bytes()
        for p in sorted(root.glob("*/part-*.parquet"))
    }


def cli(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [str(CAYLUS), "dataset", *args], capture_output=True, text=True, check=False
    )


@pytest.fixture(scope="module")
def dataset(tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("prds") / "d"
    make(SPEC, out, workers=2)
    return out


def test_manifest_and_schema_name_the_game_and_its_widths_and_versions(dataset):
    from caylus_env.puerto_rico.engine.actions import ACTION_SPACE_VERSION
    from caylus_env.puerto_rico.observation import OBS_SIZE, OBSERVATION_VERSION

    manifest = read_manifest(dataset)
    assert list(manifest)[:2] == ["format", "game"] and manifest["game"] == PR
    assert manifest["state_size"] == L.STATE_SIZE and manifest["num_actions"] == NUM_ACTIONS
    assert manifest["action_space_version"] == ACTION_SPACE_VERSION
    assert manifest["state_version"] == dataset_game(PR).state_version
    assert manifest["observation_version"] == OBSERVATION_VERSION
    assert manifest["observation_size"] == OBS_SIZE
    assert manifest["decision_kinds"] == [e.name for e in SCHEMA]
    assert manifest["counts"]["games"] == 12 and manifest["counts"]["shards"] == 3
    assert manifest["command"].startswith("caylus dataset generate --game puerto_rico ")
    run = json.loads((dataset / "run.json").read_text())
    assert run["game"] == PR and list(run).index("game") == list(run).index("kind") + 1
    schema = pq.read_schema(dataset / "decisions" / "part-00000.parquet")
    assert schema.field("state").type == pa.binary(L.STATE_BYTES)
    assert schema.field("legal").type == pa.binary((NUM_ACTIONS + 7) // 8)


def test_pyarrow_reads_the_files_directly_with_scores_in_the_prestige_column(dataset):
    games = pq.read_table(dataset / "games").to_pylist()
    decisions = pq.read_table(dataset / "decisions", columns=["game_id", "kind", "agent"])
    assert len(games) == 12 and decisions.num_rows == read_manifest(dataset)["counts"]["decisions"]
    assert set(decisions["kind"].to_pylist()) <= {e.name for e in SCHEMA}
    assert set(decisions["agent"].to_pylist()) == {"random", "shipper", "builder"}
    for g in games:
        game = Game(GameConfig.from_dict({**json.loads(g["options"]), "num_players": 3}), g["seed"])
        for a in pq.read_table(
            dataset / "decisions", filters=[("game_id", "=", g["game_id"])], columns=["action"]
        )["action"].to_pylist():
            game.apply(a)
        assert g["prestige"] == game.scores().tolist()  # victory points (rules 5.2)
        assert g["ranks"] == game.ranks().tolist() and g["end"] == "terminated"


def test_same_arguments_give_byte_identical_shards_with_one_or_two_workers(dataset, tmp_path):
    make(SPEC, tmp_path / "one", workers=1)
    with cf.ThreadPoolExecutor(2) as pool:
        make(SPEC, tmp_path / "threads", executor=pool)
    reference = shard_bytes(dataset)
    assert len(reference) == 6
    assert shard_bytes(tmp_path / "one") == reference
    assert shard_bytes(tmp_path / "threads") == reference


def test_loader_masks_states_and_observations_are_the_engines_at_each_stored_state(dataset):
    from caylus_env.puerto_rico.observation import OBS_SIZE, encode

    batch = next(iter_batches(dataset, 100_000, columns=("state",), game=PR))
    games = {
        g["game_id"]: g for g in open_dataset(dataset, "games", game=PR).to_table().to_pylist()
    }
    assert batch["mask"].shape[1] == NUM_ACTIONS and batch["obs"].shape[1] == OBS_SIZE
    checked = 0
    for gid, g in games.items():
        rows = np.flatnonzero(batch["game_id"] == gid)
        assert len(rows) == g["decisions"]
        game = Game(GameConfig.from_dict({**json.loads(g["options"]), "num_players": 3}), g["seed"])
        for i in rows:
            stored = np.frombuffer(batch["state"][i].tobytes(), "<i2")
            assert np.array_equal(stored, game.state)
            assert np.array_equal(batch["mask"][i], game.legal_mask().astype(bool))
            assert batch["seat"][i] == game.current_player()
            assert batch["obs"][i].tobytes() == encode(game.state, game.current_player()).tobytes()
            game.apply(int(batch["action"][i]))
            checked += 1
        assert game.is_terminal()
    assert checked == len(batch["action"]) > 1000


def test_verify_passes_and_names_the_game_and_ply_of_a_tampered_row(dataset, tmp_path):
    assert verify_dataset(dataset, game=PR).ok
    ok = cli("verify", str(dataset), "--game", PR, "--no-progress")
    assert ok.returncode == 0 and "12 games" in ok.stdout, ok.stderr
    copy = tmp_path / "copy"
    subprocess.run(["cp", "-r", str(dataset), str(copy)], check=True)
    path = copy / "decisions" / "part-00001.parquet"
    table = pq.read_table(path)
    row = 123
    gid, ply = table["game_id"][row].as_py(), table["ply"][row].as_py()
    width = L.STATE_BYTES
    states = bytearray(table["state"].combine_chunks().buffers()[1].to_pybytes())
    states[row * width + 2 * L.ROUND] ^= 1  # the round number
    column = pa.FixedSizeBinaryArray.from_buffers(
        pa.binary(width), table.num_rows, [None, pa.py_buffer(bytes(states))]
    )
    pq.write_table(table.set_column(table.schema.get_field_index("state"), "state", column), path)
    problems = verify_dataset(copy, game=PR).problems
    assert any("part-00001.parquet differs from the manifest" in p for p in problems), problems
    assert any(
        f"game {gid} ply {ply}: column state differs from the replay at round" in p
        for p in problems
    ), problems
    proc = cli("verify", str(copy), "--game", PR, "--no-progress")
    assert proc.returncode == 1 and f"game {gid} ply {ply}" in proc.stderr


def test_verify_names_a_changed_final_score(dataset, tmp_path):
    copy = tmp_path / "copy"
    subprocess.run(["cp", "-r", str(dataset), str(copy)], check=True)
    path = copy / "games" / "part-00000.parquet"
    rows = pq.read_table(path).to_pylist()
    rows[2]["prestige"] = [v + 1 for v in rows[2]["prestige"]]
    pq.write_table(pa.Table.from_pylist(rows, schema=pq.read_schema(path)), path)
    problems = verify_dataset(copy, game=PR).problems
    assert any(p.startswith(f"game {rows[2]['game_id']}: prestige") for p in problems), problems


def test_a_dataset_read_as_the_other_game_is_refused_naming_both(dataset, tmp_path):
    for read in (
        lambda: open_dataset(dataset),
        lambda: next(iter_batches(dataset)),
        lambda: verify_dataset(dataset),
        lambda: dataset_stats(dataset),
    ):
        with pytest.raises(DatasetError, match=r"Puerto Rico dataset.*expected a Caylus"):
            read()
    for command in ("verify", "stats"):
        proc = cli(command, str(dataset))
        assert proc.returncode == 2
        assert "game 'puerto_rico'" in proc.stderr and "game 'caylus'" in proc.stderr
        assert "--game puerto_rico" in proc.stderr
    caylus = tmp_path / "caylus"
    make(DatasetSpec(agents=("random",), players="2", games=1, shard_games=1), caylus)
    with pytest.raises(DatasetError, match=r"Caylus dataset.*expected a Puerto Rico"):
        open_dataset(caylus, game=PR)
    assert "Caylus" in cli("verify", str(caylus), "--game", PR, "--no-progress").stderr


def test_a_resume_with_another_game_is_refused_naming_the_field(dataset):
    caylus_spec = DatasetSpec(agents=("random",), players="3", games=12, seed=5, shard_games=5)
    with pytest.raises(RunMismatchError, match="game"):
        prepare_dataset(caylus_spec, dataset)


def test_stats_counts_kinds_and_the_report_links_puerto_rico_replay_pages(dataset, tmp_path):
    stats = dataset_stats(dataset, PR)
    assert stats["games"] == 12 and stats["players"][3]["games"] == 12
    assert set(stats["kinds"]) <= {e.name for e in SCHEMA} and "place_colonist" in stats["kinds"]
    assert sum(k["decisions"] for k in stats["kinds"].values()) == stats["decisions"]
    copy = tmp_path / "copy"
    subprocess.run(["cp", "-r", str(dataset), str(copy)], check=True)
    proc = cli("stats", str(copy), "--game", PR)
    assert proc.returncode == 0, proc.stderr
    out = " ".join(proc.stdout.split())
    assert "place_colonist" in out and "load:corn:ship" in out
    assert "victory points" in out and "1 replay page in" in out
    assert (copy / "stats.png").stat().st_size > 1000
    page = (copy / "report.html").read_text()
    assert "Puerto Rico" in page and "Final VP" in page and "victory points" in page
    assert 'href="viewer/game-0.html"' in page  # the first game of the only table
    assert [p.name for p in (copy / "viewer").iterdir()] == ["game-0.html"]
    replay = (copy / "viewer" / "game-0.html").read_text()
    assert "puerto" in replay.lower() and len(replay) > 10_000


def test_games_cut_off_by_the_decision_cap_are_stored_truncated_and_verify(tmp_path):
    spec = DatasetSpec(
        agents=("random", "builder"), players="2", games=2, game_options={"max_decisions": 40},
        game=PR,
    )  # fmt: skip
    make(spec, tmp_path / "t", workers=1)
    games = pq.read_table(tmp_path / "t" / "games").to_pylist()
    assert [g["end"] for g in games] == ["truncated", "truncated"]
    assert all(g["decisions"] == 40 and sorted(g["ranks"]) == [1.0, 2.0] for g in games)
    assert verify_dataset(tmp_path / "t", game=PR).ok
    path = next((tmp_path / "t" / "games").glob("*.parquet"))
    rows = pq.read_table(path).to_pylist()
    rows[0]["end"] = "terminated"
    pq.write_table(pa.Table.from_pylist(rows, schema=pq.read_schema(path)), path)
    problems = verify_dataset(tmp_path / "t", game=PR).problems
    assert any("game 0: stored as terminated, but the replay ends truncated" in p for p in problems)


def test_inspect_lists_one_games_decisions_with_puerto_rico_kinds_and_action_names(dataset):
    from caylus_env.puerto_rico.engine import action_to_string

    inspected = inspect_game(dataset, 7, PR)
    assert inspected["row"]["game_id"] == 7 and inspected["game"] == PR
    decisions = inspected["decisions"]
    assert [d["ply"] for d in decisions] == list(range(inspected["row"]["decisions"]))
    assert decisions[0]["kind"] == "role" and decisions[0]["action_name"].startswith("role:")
    assert all(d["action_name"] == action_to_string(d["action"]) for d in decisions)
    with pytest.raises(KeyError, match="no game 99"):
        inspect_game(dataset, 99, PR)
    from caylus_env.datasets.records import dataset_records
    from caylus_env.puerto_rico.engine import replay

    record = dataset_records(dataset, [7], PR)[7]  # the engine's record, rebuilt from the rows
    assert record.match["game_id"] == 7 and record.final["scores"] == inspected["row"]["prestige"]
    assert replay(record).record().final == record.final
    proc = cli("inspect", str(dataset), "--game", PR, "--game-id", "7", "--limit", "0")
    assert proc.returncode == 0, proc.stderr
    assert "Puerto Rico game 7" in proc.stdout and decisions[-1]["action_name"] in proc.stdout


def test_policy_targets_of_mcts_are_its_visit_distribution_over_legal_actions(tmp_path):
    spec = DatasetSpec(
        agents=("mcts:8", "random"), players="2", games=2, seed=1, policy_targets=True, game=PR
    )
    make(spec, tmp_path / "p", workers=1)
    assert verify_dataset(tmp_path / "p", game=PR).ok  # targets are distributions over legal
    batch = next(iter_batches(tmp_path / "p", 100_000, observations=False, game=PR))
    assert batch["has_target"].all() and batch["target"].shape[1] == NUM_ACTIONS
    assert np.allclose(batch["target"].sum(axis=1), 1.0, atol=1e-5)
    assert not (batch["target"] > 0)[~batch["mask"]].any()
    legal = batch["mask"].sum(axis=1)
    mcts = (batch["agent"] == "mcts:8") & (legal > 1)
    rand = (batch["agent"] == "random") & (legal > 1)
    assert ((batch["target"][mcts] > 0).sum(axis=1) > 1).any()  # visits, not one-hot
    assert np.allclose(batch["target"][rand].max(axis=1), 1.0 / legal[rand])  # uniform


KILL_ARGS = [
    "dataset", "generate", "--game", PR, "--agents", "random,shipper,builder", "--players", "3",
    "--games", "30", "--seed", "2", "--shard-games", "1", "--workers", "1", "--no-progress",
]  # fmt: skip
KILL_SPEC = DatasetSpec(
    agents=("random", "shipper", "builder"), players="3", games=30, seed=2, shard_games=1, game=PR
)


def test_sigkill_then_the_same_command_resumes_to_the_uninterrupted_dataset(tmp_path):
    out = tmp_path / "killed"
    proc = subprocess.Popen(
        [str(CAYLUS), *KILL_ARGS, "--out", str(out)],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        start_new_session=True,
    )
    ledger = out / "shards.jsonl"
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline and proc.poll() is None:
        if ledger.exists() and len(ledger.read_bytes().splitlines()) >= 2:
            break
        time.sleep(0.005)
    assert proc.poll() is None, "the run ended before it could be killed"
    os.killpg(proc.pid, signal.SIGKILL)
    proc.wait()
    finished = len(ledger.read_bytes().splitlines())
    assert 2 <= finished < 30
    assert not (out / "manifest.json").exists()
    again = subprocess.run(
        [str(CAYLUS), *KILL_ARGS, "--out", str(out)], capture_output=True, text=True, check=False
    )
    assert again.returncode == 0, again.stderr
    assert f"resuming: {finished} of 30 shards" in again.stdout.replace("\n", " ")
    make(KILL_SPEC, tmp_path / "whole", workers=1)
    assert shard_bytes(out) == shard_bytes(tmp_path / "whole")
    assert verify_dataset(out, game=PR).ok


def test_decision_dataset_gives_puerto_rico_tensors(dataset):
    import torch
    from torch.utils.data import DataLoader

    from caylus_env.datasets import DecisionDataset
    from caylus_env.puerto_rico.observation import OBS_SIZE

    batches = list(DataLoader(DecisionDataset(dataset, 512, game=PR), batch_size=None))
    total = read_manifest(dataset)["counts"]["decisions"]
    assert sum(len(b["action"]) for b in batches) == total
    assert batches[0]["obs"].shape == (512, OBS_SIZE) and batches[0]["obs"].dtype == torch.float32
    assert batches[0]["mask"].shape == (512, NUM_ACTIONS)
    assert all(b["mask"][torch.arange(len(b["action"])), b["action"]].all() for b in batches)
    with pytest.raises(DatasetError, match="Puerto Rico dataset"):
        DecisionDataset(dataset, 512)


@pytest.mark.parametrize(
    ("args", "needle"),
    [
        (["--agents", "castle,random"], "invalid value for --agents: Puerto Rico: unknown agent"),
        (["--agents", "random", "--option", "jeweller=true"], "unknown Puerto Rico option"),
    ],
)
def test_bad_puerto_rico_arguments_exit_2_naming_the_option(tmp_path, args, needle):
    proc = cli(
        "generate", "--game", PR, "--players", "3", "--games", "3",
        "--out", str(tmp_path / "d"), "--no-progress", *args,
    )  # fmt: skip
    assert proc.returncode == 2 and needle in proc.stderr, proc.stderr
    assert not (tmp_path / "d").exists()
