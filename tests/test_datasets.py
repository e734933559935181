"""Self-play datasets: generation, determinism, resume after SIGKILL, loaders, verify, stats."""

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
from agents.tournament.schedule import build_schedule
from agents.tournament.specs import RunMismatchError, TournamentError
from caylus_env.caylus.engine import Game, GameConfig
from caylus_env.datasets import (
    DatasetError,
    dataset_stats,
    iter_batches,
    open_dataset,
    read_manifest,
    verify_dataset,
)
from caylus_env.datasets.format import STATE_BYTES

SPEC = DatasetSpec(
    agents=("random", "castle"),
    players="2-3",
    games=10,
    seed=3,
    shard_games=4,
    policy_targets=True,
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


@pytest.fixture(scope="module")
def dataset(tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("ds") / "d"
    make(SPEC, out, workers=2)
    return out


def test_layout_counts_and_manifest(dataset):
    manifest = read_manifest(dataset)
    assert manifest["format"] == "caylus-dataset/1"
    assert manifest["counts"]["shards"] == len(manifest["shards"]) == 3
    games = open_dataset(dataset, "games").to_table()
    decisions = open_dataset(dataset).to_table()
    assert games.num_rows == manifest["counts"]["games"] == 12  # 6 games per count (blocks)
    assert (
        decisions.num_rows == manifest["counts"]["decisions"] == sum(games["decisions"].to_pylist())
    )
    assert sorted(set(games["num_players"].to_pylist())) == [2, 3]
    assert games["game_id"].to_pylist() == list(range(12))
    assert manifest["bytes_per_decision"] < 150
    assert "caylus dataset generate --agents random,castle --players 2-3" in manifest["command"]
    for shard in manifest["shards"]:
        assert set(shard["files"]) == {
            f"games/part-{shard['shard']:05d}.parquet",
            f"decisions/part-{shard['shard']:05d}.parquet",
        }
    assert not list(dataset.glob("*/.part-*"))


def test_games_are_the_tournament_games_of_each_player_count(dataset):
    """One engine: the 3-player games are ``caylus tournament --players 3`` with the seed."""
    games = open_dataset(dataset, "games").to_table().to_pylist()
    for n in (2, 3):
        jobs = build_schedule(["random", "castle"], n, 5, seed=3).jobs
        mine = [g for g in games if g["num_players"] == n]
        assert [(g["seed"], g["agents"], g["agent_seeds"]) for g in mine] == [
            (j.seed, list(j.seats), list(j.agent_seeds)) for j in jobs
        ]


def test_same_arguments_give_byte_identical_shards_whatever_the_workers_or_backend(
    dataset, tmp_path
):
    make(SPEC, tmp_path / "one", workers=1)
    with cf.ThreadPoolExecutor(2) as pool:
        make(SPEC, tmp_path / "threads", executor=pool)
    reference = shard_bytes(dataset)
    assert shard_bytes(tmp_path / "one") == reference
    assert shard_bytes(tmp_path / "threads") == reference


def test_observations_and_masks_are_bit_identical_to_the_env(dataset):
    from caylus_env.caylus.env import raw_env

    batch = next(iter_batches(dataset, 10_000))
    games = {g["game_id"]: g for g in open_dataset(dataset, "games").to_table().to_pylist()}
    checked = 0
    for gid in (0, 5):  # a 2-player and a 3-player game
        g = games[gid]
        rows = np.flatnonzero(batch["game_id"] == gid)
        env = raw_env(num_players=g["num_players"])
        env.reset(seed=g["seed"])
        for i in rows:
            agent = env.agent_selection
            assert int(agent.split("_")[1]) == batch["seat"][i]
            seen = env.observe(agent)
            assert np.array_equal(seen["observation"], batch["obs"][i])
            assert seen["observation"].tobytes() == batch["obs"][i].tobytes()
            assert np.array_equal(seen["action_mask"].astype(bool), batch["mask"][i])
            env.step(int(batch["action"][i]))
            checked += 1
        assert all(env.terminations.values())
        assert [env.rewards[a] for a in env.possible_agents] == pytest.approx(g["returns"])
    assert checked > 300


def test_pyarrow_and_polars_read_the_files_directly(dataset):
    import polars as pl

    manifest = read_manifest(dataset)
    table = pq.read_table(dataset / "decisions")
    assert table.num_rows == manifest["counts"]["decisions"]
    frame = pl.read_parquet(str(dataset / "decisions" / "*.parquet"))
    assert frame.height == manifest["counts"]["decisions"]
    per_kind = frame.group_by("kind").len().sort("kind")
    assert per_kind["len"].sum() == frame.height
    games = pl.read_parquet(str(dataset / "games" / "*.parquet"))
    assert games["decisions"].sum() == frame.height
    state = np.frombuffer(frame["state"][0], dtype="<i2")
    assert state.shape == (STATE_BYTES // 2,)


def test_iter_batches_filters_and_parts_cover_every_row_once(dataset):
    everything = list(iter_batches(dataset, 500, observations=False))
    keys = np.concatenate([b["game_id"] * 1000 + b["ply"] for b in everything])
    assert len(keys) == len(set(keys.tolist())) == read_manifest(dataset)["counts"]["decisions"]
    parts = [
        np.concatenate(
            [
                b["game_id"] * 1000 + b["ply"]
                for b in iter_batches(dataset, 77, observations=False, part=(k, 3))
            ]
        )
        for k in range(3)
    ]
    assert sorted(np.concatenate(parts).tolist()) == sorted(keys.tolist())
    sizes = [len(b["action"]) for b in everything]
    assert all(s == 500 for s in sizes[:-1]) and sizes[-1] <= 500
    picked = list(
        iter_batches(dataset, 64, players=3, agents="castle", seats=[0, 2], outcome="win")
    )
    rows = {k: np.concatenate([b[k] for b in picked]) for k in ("num_players", "agent", "seat")}
    assert set(rows["num_players"]) == {3} and set(rows["agent"]) == {"castle"}
    assert set(rows["seat"]) <= {0, 2}
    first = next(iter_batches(dataset, 8))
    assert first["obs"].dtype == np.float32 and first["mask"].dtype == bool
    assert first["target"].shape == (8, 167) and np.allclose(first["target"].sum(1), 1.0)
    assert (first["target"][~first["mask"]] == 0).all()
    with pytest.raises(ValueError, match="outcome='draw'; allowed: win, loss"):
        next(iter_batches(dataset, 8, outcome="draw"))
    with pytest.raises(ValueError, match="batch_size=0"):
        next(iter_batches(dataset, 0))


def test_policy_targets_of_random_are_uniform_and_of_scripted_bots_one_hot(dataset):
    batch = next(iter_batches(dataset, 10_000))
    for i in range(len(batch["action"])):
        legal = batch["mask"][i]
        if batch["agent"][i] == "random":
            assert np.allclose(batch["target"][i][legal], 1.0 / legal.sum())
        else:
            assert batch["target"][i][batch["action"][i]] == 1.0


def test_mcts_reports_its_visit_counts():
    from caylus_env.caylus.bots.mcts import MCTSAgent

    agent = MCTSAgent("mcts:16", sims=16, rollout="heuristic", seed=1)
    game = Game(GameConfig(num_players=2), seed=4)
    while len(game.legal_actions()) < 3:
        game.apply(game.legal_actions()[0])
    action = agent.act(game)
    actions, probs = agent.action_distribution()
    assert sum(probs) == pytest.approx(1.0) and set(actions) <= set(game.legal_actions())
    assert actions[int(np.argmax(probs))] == action


def test_decision_dataset_splits_rows_between_loader_workers(dataset):
    torch = pytest.importorskip("torch")
    from torch.utils.data import DataLoader

    from caylus_env.datasets import DecisionDataset

    data = DecisionDataset(dataset, batch_size=200)
    batches = list(DataLoader(data, batch_size=None, num_workers=2))
    total = sum(len(b["action"]) for b in batches)
    assert total == read_manifest(dataset)["counts"]["decisions"]
    first = batches[0]
    assert set(first) == {"obs", "mask", "action", "ret", "target", "has_target"}
    assert first["obs"].dtype == torch.float32 and first["mask"].dtype == torch.bool
    rets = torch.cat([b["ret"] for b in batches])
    assert float(rets.min()) >= -1.0 and float(rets.max()) <= 1.0


def test_verify_passes_and_names_the_game_and_ply_of_a_tampered_row(dataset, tmp_path):
    assert verify_dataset(dataset).ok
    copy = tmp_path / "copy"
    subprocess.run(["cp", "-r", str(dataset), str(copy)], check=True)
    path = copy / "decisions" / "part-00001.parquet"
    table = pq.read_table(path)
    row = 37
    gid, ply = table["game_id"][row].as_py(), table["ply"][row].as_py()
    states = bytearray(table["state"].combine_chunks().buffers()[1].to_pybytes())
    states[row * STATE_BYTES + 2] ^= 1  # one byte of money
    column = pa.FixedSizeBinaryArray.from_buffers(
        pa.binary(STATE_BYTES), table.num_rows, [None, pa.py_buffer(bytes(states))]
    )
    pq.write_table(table.set_column(table.schema.get_field_index("state"), "state", column), path)
    problems = verify_dataset(copy).problems
    assert any("part-00001.parquet differs from the manifest" in p for p in problems), problems
    assert any(f"game {gid} ply {ply}: column state differs" in p for p in problems), problems
    proc = subprocess.run(
        [str(CAYLUS), "dataset", "verify", str(copy), "--no-progress"],
        capture_output=True,
        text=True,
        check=False,
    )
    assert proc.returncode == 1 and f"game {gid} ply {ply}" in proc.stderr


def test_verify_names_a_changed_action(dataset, tmp_path):
    copy = tmp_path / "copy"
    subprocess.run(["cp", "-r", str(dataset), str(copy)], check=True)
    path = copy / "decisions" / "part-00000.parquet"
    table = pq.read_table(path)
    actions = table["action"].to_numpy().copy()
    row = 10
    legal = np.unpackbits(
        np.frombuffer(table["legal"][row].as_py(), np.uint8), count=167, bitorder="little"
    )
    other = next(a for a in np.flatnonzero(legal) if a != actions[row])
    actions[row] = other
    table = table.set_column(table.schema.get_field_index("action"), "action", pa.array(actions))
    pq.write_table(table, path)
    problems = verify_dataset(copy).problems
    gid, ply = table["game_id"][row].as_py(), table["ply"][row].as_py()
    assert any(p.startswith(f"game {gid} ply {ply + 1}:") for p in problems), problems


def test_other_arguments_into_an_existing_directory_are_refused_naming_the_fields(dataset):
    other = DatasetSpec(**{**SPEC.__dict__, "players": "2-4", "shard_games": 5})
    with pytest.raises(RunMismatchError) as err:
        prepare_dataset(other, dataset)
    assert set(err.value.differences) == {"players", "shard_games"}
    assert "players" in str(err.value) and "shard_games" in str(err.value)
    make(SPEC, dataset)  # the same arguments: nothing left to play
    assert verify_dataset(dataset).ok


@pytest.mark.parametrize(
    ("args", "needle"),
    [
        (["--players", "2-7"], "invalid value for --players"),
        (["--games", "0"], "invalid value for --games"),
        (["--shard-games", "0"], "invalid value for --shard-games"),
        (["--agents", "nosuchbot"], "invalid value for --agents"),
        (["--workers", "0"], "invalid value for --workers"),
    ],
)
def test_bad_arguments_exit_2_naming_the_option_before_any_work(tmp_path, args, needle):
    base = {"--agents": "random", "--players": "2", "--games": "4", "--out": str(tmp_path / "d")}
    pairs = dict(zip(args[::2], args[1::2], strict=True))
    argv = [x for k, v in {**base, **pairs}.items() for x in (k, v)]
    proc = subprocess.run(
        [str(CAYLUS), "dataset", "generate", *argv, "--no-progress"],
        capture_output=True,
        text=True,
        check=False,
    )
    assert proc.returncode == 2, proc.stderr
    assert needle in proc.stderr and len(proc.stderr.strip().splitlines()) == 1
    assert not (tmp_path / "d").exists()


def test_loader_refuses_an_unfinished_dataset_or_another_state_layout(dataset, tmp_path):
    with pytest.raises(DatasetError, match="not a finished dataset"):
        open_dataset(tmp_path)
    copy = tmp_path / "copy"
    subprocess.run(["cp", "-r", str(dataset), str(copy)], check=True)
    manifest = json.loads((copy / "manifest.json").read_text())
    manifest["state_version"] = "00000000"
    (copy / "manifest.json").write_text(json.dumps(manifest))
    with pytest.raises(DatasetError, match="state_version '00000000'"):
        open_dataset(copy)


def test_stats_counts_and_the_command_writes_a_png(dataset, tmp_path):
    stats = dataset_stats(dataset)
    assert stats["games"] == 12 and stats["players"][2]["games"] == 6
    assert sum(a["games"] for a in stats["agents"].values()) == 6 * 2 + 6 * 3
    assert stats["decisions"] == read_manifest(dataset)["counts"]["decisions"]
    assert sum(k["decisions"] for k in stats["kinds"].values()) == stats["decisions"]
    png = tmp_path / "s.png"
    proc = subprocess.run(
        [str(CAYLUS), "dataset", "stats", str(dataset), "--plot", str(png)],
        capture_output=True,
        text=True,
        check=False,
        env={**os.environ, "COLUMNS": "200"},
    )
    assert proc.returncode == 0, proc.stderr
    assert "win rate by seat" in proc.stdout and "place_worker" in proc.stdout
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


KILL_SPEC = DatasetSpec(agents=("castle", "economy"), players="2", games=80, seed=5, shard_games=4)
KILL_ARGS = [
    "dataset", "generate", "--agents", "castle,economy", "--players", "2", "--games", "80",
    "--seed", "5", "--shard-games", "4", "--workers", "2", "--no-progress",
]  # fmt: skip


def test_sigkill_then_the_same_command_resumes_to_the_uninterrupted_dataset(tmp_path):
    make(KILL_SPEC, tmp_path / "whole", workers=2)
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
        if ledger.exists() and len(ledger.read_bytes().splitlines()) >= 3:
            break
        time.sleep(0.01)
    assert proc.poll() is None, "the run ended before it could be killed"
    os.killpg(proc.pid, signal.SIGKILL)
    proc.wait()
    finished = len(ledger.read_bytes().splitlines())
    assert 3 <= finished < 20
    assert not (out / "manifest.json").exists()
    again = subprocess.run(
        [str(CAYLUS), *KILL_ARGS, "--out", str(out)], capture_output=True, text=True, check=False
    )
    assert again.returncode == 0, again.stderr
    assert f"resuming: {finished} of 20 shards" in again.stdout.replace("\n", " ")
    assert shard_bytes(out) == shard_bytes(tmp_path / "whole")
    assert verify_dataset(out).ok


@pytest.mark.ray
def test_ray_backend_writes_the_same_shards(dataset, tmp_path):
    import ray

    ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False)
    try:
        make(SPEC, tmp_path / "ray", backend="ray")
    finally:
        ray.shutdown()
    assert shard_bytes(tmp_path / "ray") == shard_bytes(dataset)
    manifest = read_manifest(tmp_path / "ray")
    assert manifest["generation"]["backend"] == "ray"


def test_spec_errors_name_the_field():
    with pytest.raises(TournamentError) as err:
        DatasetSpec(agents=("random",), players="5-2", games=4).build()
    assert err.value.field == "players"
    with pytest.raises(TournamentError) as err:
        DatasetSpec(agents=("random", "random"), players=2, games=4).build()
    assert err.value.field == "agents"


def test_verify_schedule_lookup_answers_game_ids_in_any_order(dataset):
    from caylus_cli.dataset import _schedule_lookup

    manifest = read_manifest(dataset)
    spec = DatasetSpec(agents=SPEC.agents, players=SPEC.players, games=SPEC.games, seed=SPEC.seed)
    schedule, _ = spec.build()
    wanted = {job.game_id: job.to_dict() for job in schedule.jobs()}
    ids = list(wanted)
    order = ids[len(ids) // 2 :][::-1] + ids[: len(ids) // 2]
    lookup = _schedule_lookup(manifest)
    assert {gid: lookup(gid) for gid in order} == wanted
    assert lookup(max(ids) + 1) is None


def test_verify_command_passes_on_three_agents_over_two_player_counts(tmp_path):
    out = tmp_path / "d"
    make(DatasetSpec(agents=("castle", "random", "economy"), players="2-3", games=12, seed=5), out)
    proc = subprocess.run(
        [str(CAYLUS), "dataset", "verify", str(out), "--no-progress"],
        capture_output=True,
        text=True,
        check=False,
    )
    assert proc.returncode == 0, proc.stderr
    assert "replay exactly" in proc.stdout
