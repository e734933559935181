"""Self-play datasets of every game of the registry: generation, determinism, resume after
SIGKILL, loaders, verify, stats, inspect, the refusal of another game's dataset, and the
datasets written before the shared format (``tests/legacy``).

The tests are written once, over ``caylus_env.core.registry.GAME_NAMES``: each game's agents are
``random`` and its own bots that take no argument (``agents.registry.available_agents``), its
widths and versions come from its ``GameSpec`` (``caylus_env.datasets.format``), so a newly
registered game is checked by the same code.
"""

from __future__ import annotations

import concurrent.futures as cf
import io
import json
import os
import re
import shutil
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

from agents import registry
from agents.selfplay.generate import DatasetSpec, generate_dataset, prepare_dataset
from agents.tournament.schedule import build_schedule
from agents.tournament.specs import RunMismatchError, TournamentError
from caylus_env.core.record import replay
from caylus_env.core.registry import GAME_NAMES, game_of, game_spec
from caylus_env.datasets import (
    DatasetError,
    dataset_stats,
    inspect_game,
    iter_batches,
    open_dataset,
    read_games,
    read_manifest,
    verify_dataset,
)
from caylus_env.datasets.format import (
    DATASET_FORMAT,
    LEGACY_FORMATS,
    field_at,
    kind_names,
    mask_bytes,
    num_actions,
    state_bytes,
    state_dtype,
    state_size,
    state_version,
    versions,
)
from caylus_env.datasets.records import dataset_records, new_game
from tests.conftest import harness_games, init_local_ray

CAYLUS = Path(sys.executable).with_name("caylus")
REPO = Path(__file__).resolve().parents[2]
LEGACY = REPO / "tests" / "legacy"
LEGACY_DATASETS = sorted(p.name for p in LEGACY.glob("*_dataset"))
"""Datasets written before ``caylus-dataset/2`` (a ``prestige`` column, Caylus's without a
``game`` field)."""
OTHER = {g: next(o for o in (*GAME_NAMES[1:], GAME_NAMES[0]) if o != g) for g in GAME_NAMES}
TRUNCATING = [g for g in GAME_NAMES if game_spec(g).truncating_options is not None]
"""The games with a decision cap (``GameSpec.truncating_options``)."""


def quiet() -> Console:
    return Console(file=io.StringIO())


def bots(game: str) -> list[str]:
    """The game's own bots that take no argument (its scripted bots), from the registry."""
    own = game_spec(game).module("bots").BOTS
    return [head for head in registry.available_agents(game) if head in own]


def agents(game: str) -> tuple[str, ...]:
    return ("random", *bots(game)[:2])


def spec(game: str, **changes: object) -> DatasetSpec:
    base = {
        "agents": agents(game),
        "players": "2-3",
        "games": 10,
        "seed": 3,
        "shard_games": 4,
        "policy_targets": True,
        "game": game,
    }
    return DatasetSpec(**{**base, **changes})


def make(dataset_spec: DatasetSpec, out: Path, **kwargs) -> None:
    generate_dataset(prepare_dataset(dataset_spec, out, **kwargs), progress=False, console=quiet())


def shard_bytes(root: Path) -> dict[str, bytes]:
    return {
        p.relative_to(root).as_posix(): p.read_bytes()
        for p in sorted(root.glob("*/part-*.parquet"))
    }


def cli(*args: object) -> subprocess.CompletedProcess:
    return subprocess.run(
        [str(CAYLUS), "dataset", *map(str, args)], capture_output=True, text=True, check=False
    )


@pytest.fixture(scope="module", params=GAME_NAMES)
def dataset(request: pytest.FixtureRequest, tmp_path_factory) -> tuple[str, Path]:
    """``(game, directory)``: 12 games of 2 and 3 players in 3 shards, with policy targets."""
    out = tmp_path_factory.mktemp(request.param) / "d"
    make(spec(request.param), out, workers=2)
    return request.param, out


# --------------------------------------------------------------------------------------------------
# What is written
# --------------------------------------------------------------------------------------------------


def test_layout_counts_and_manifest_name_the_game_and_its_widths(dataset):
    game, root = dataset
    info = game_spec(game)
    manifest = read_manifest(root)
    assert manifest["format"] == DATASET_FORMAT
    assert list(manifest)[:2] == ["format", "game"] and manifest["game"] == game
    assert {k: manifest[k] for k in versions(game)} == versions(game)
    assert manifest["state_size"] == state_size(info)
    assert manifest["num_actions"] == num_actions(info)
    assert manifest["state_version"] == state_version(info)
    assert manifest["decision_kinds"] == list(info.engine().DECISION_NAMES)
    assert manifest["counts"]["shards"] == len(manifest["shards"]) == 3
    games = open_dataset(root, "games", game=game).to_table()
    decisions = open_dataset(root, game=game).to_table()
    assert games.num_rows == manifest["counts"]["games"] == 12  # 6 games per count (blocks)
    assert (
        decisions.num_rows == manifest["counts"]["decisions"] == sum(games["decisions"].to_pylist())
    )
    assert sorted(set(games["num_players"].to_pylist())) == [2, 3]
    assert games["game_id"].to_pylist() == list(range(12))
    assert "scores" in games.column_names and "prestige" not in games.column_names
    assert manifest["bytes_per_decision"] < 150
    assert manifest["command"].startswith(
        f"caylus dataset generate --game {game} --agents {','.join(agents(game))} --players 2-3"
    )
    run = json.loads((root / "run.json").read_text())
    assert run["game"] == game and list(run).index("game") == list(run).index("kind") + 1
    schema = pq.read_schema(root / "decisions" / "part-00000.parquet")
    assert schema.field("state").type == pa.binary(state_bytes(info))
    assert schema.field("legal").type == pa.binary(mask_bytes(info))
    for shard in manifest["shards"]:
        assert set(shard["files"]) == {
            f"games/part-{shard['shard']:05d}.parquet",
            f"decisions/part-{shard['shard']:05d}.parquet",
        }
    assert not list(root.glob("*/.part-*"))


def test_games_are_the_tournament_games_of_each_player_count(dataset):
    """One engine: the 3-player games are ``caylus tournament --players 3`` with the seed."""
    game, root = dataset
    games = read_games(root, game=game).to_pylist()
    for n in (2, 3):
        jobs = build_schedule(list(agents(game)), n, 5, seed=3, game=game).jobs
        mine = [g for g in games if g["num_players"] == n]
        assert [(g["seed"], g["agents"], g["agent_seeds"]) for g in mine] == [
            (j.seed, list(j.seats), list(j.agent_seeds)) for j in jobs
        ]


def test_same_arguments_give_byte_identical_shards_whatever_the_workers(dataset, tmp_path):
    game, root = dataset
    make(spec(game), tmp_path / "one", workers=1)
    with cf.ThreadPoolExecutor(2) as pool:
        make(spec(game), tmp_path / "threads", executor=pool)
    reference = shard_bytes(root)
    assert len(reference) == 6
    assert shard_bytes(tmp_path / "one") == reference
    assert shard_bytes(tmp_path / "threads") == reference


def test_the_games_table_holds_the_scores_ranks_and_end_of_each_replayed_game(dataset):
    game, root = dataset
    for g in read_games(root, game=game).to_pylist():
        options = {**json.loads(g["options"]), "num_players": g["num_players"]}
        replayed = new_game(game, options, g["seed"])
        actions = pq.read_table(
            root / "decisions", filters=[("game_id", "=", g["game_id"])], columns=["action"]
        )["action"].to_pylist()
        for a in actions:
            replayed.apply(a)
        assert g["scores"] == replayed.scores().tolist()  # the game's own score (score_word)
        assert g["ranks"] == replayed.ranks().tolist() and g["end"] == "terminated"


# --------------------------------------------------------------------------------------------------
# Reading
# --------------------------------------------------------------------------------------------------


def test_observations_and_masks_are_bit_identical_to_the_env(dataset):
    game, root = dataset
    raw_env = game_spec(game).module("env").raw_env
    batch = next(iter_batches(root, 100_000, game=game))
    games = {g["game_id"]: g for g in read_games(root, game=game).to_pylist()}
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
            assert seen["observation"].tobytes() == batch["obs"][i].tobytes()
            assert np.array_equal(seen["action_mask"].astype(bool), batch["mask"][i])
            env.step(int(batch["action"][i]))
            checked += 1
        assert all(env.terminations.values())
        assert [env.rewards[a] for a in env.possible_agents] == pytest.approx(g["returns"])
    assert checked > 100


def test_stored_states_and_masks_are_the_engines_at_each_decision(dataset):
    game, root = dataset
    info = game_spec(game)
    batch = next(iter_batches(root, 100_000, observations=False, columns=("state",), game=game))
    assert batch["mask"].shape[1] == num_actions(info)
    for g in read_games(root, game=game).to_pylist()[:4]:
        options = {**json.loads(g["options"]), "num_players": g["num_players"]}
        replayed = new_game(game, options, g["seed"])
        for i in np.flatnonzero(batch["game_id"] == g["game_id"]):
            stored = np.frombuffer(batch["state"][i].tobytes(), state_dtype(info))
            assert np.array_equal(stored, replayed.state)
            assert np.array_equal(batch["mask"][i], replayed.legal_mask().astype(bool))
            assert batch["seat"][i] == replayed.current_player()
            replayed.apply(int(batch["action"][i]))
        assert replayed.is_over()


def test_pyarrow_and_polars_read_the_files_directly(dataset):
    import polars as pl

    game, root = dataset
    manifest = read_manifest(root)
    table = pq.read_table(root / "decisions")
    assert table.num_rows == manifest["counts"]["decisions"]
    frame = pl.read_parquet(str(root / "decisions" / "*.parquet"))
    assert frame.height == manifest["counts"]["decisions"]
    per_kind = frame.group_by("kind").len().sort("kind")
    assert per_kind["len"].sum() == frame.height
    assert set(frame["kind"].to_list()) <= set(kind_names(game_spec(game)))
    games = pl.read_parquet(str(root / "games" / "*.parquet"))
    assert games["decisions"].sum() == frame.height
    state = np.frombuffer(frame["state"][0], dtype=state_dtype(game_spec(game)))
    assert state.shape == (state_size(game_spec(game)),)


def test_iter_batches_filters_and_parts_cover_every_row_once(dataset):
    game, root = dataset
    everything = list(iter_batches(root, 500, observations=False, game=game))
    keys = np.concatenate([b["game_id"] * 10_000 + b["ply"] for b in everything])
    assert len(keys) == len(set(keys.tolist())) == read_manifest(root)["counts"]["decisions"]
    parts = [
        np.concatenate(
            [
                b["game_id"] * 10_000 + b["ply"]
                for b in iter_batches(root, 77, observations=False, part=(k, 3), game=game)
            ]
        )
        for k in range(3)
    ]
    assert sorted(np.concatenate(parts).tolist()) == sorted(keys.tolist())
    sizes = [len(b["action"]) for b in everything]
    assert all(s == 500 for s in sizes[:-1]) and sizes[-1] <= 500
    bot = bots(game)[0]
    picked = list(
        iter_batches(root, 64, players=3, agents=bot, seats=[0, 2], outcome="win", game=game)
    )
    rows = {k: np.concatenate([b[k] for b in picked]) for k in ("num_players", "agent", "seat")}
    assert set(rows["num_players"]) == {3} and set(rows["agent"]) == {bot}
    assert set(rows["seat"]) <= {0, 2}
    first = next(iter_batches(root, 8, game=game))
    assert first["obs"].dtype == np.float32 and first["mask"].dtype == bool
    assert first["obs"].shape == (8, game_spec(game).observation().OBS_SIZE)
    assert first["target"].shape == (8, num_actions(game_spec(game)))
    assert np.allclose(first["target"].sum(1), 1.0)
    assert (first["target"][~first["mask"]] == 0).all()
    with pytest.raises(ValueError, match="outcome='draw'; allowed: win, loss"):
        next(iter_batches(root, 8, outcome="draw", game=game))
    with pytest.raises(ValueError, match="batch_size=0"):
        next(iter_batches(root, 0, game=game))


def test_policy_targets_of_random_are_uniform_and_of_scripted_bots_one_hot(dataset):
    game, root = dataset
    batch = next(iter_batches(root, 100_000, game=game))
    for i in range(len(batch["action"])):
        legal = batch["mask"][i]
        if batch["agent"][i] == "random":
            assert np.allclose(batch["target"][i][legal], 1.0 / legal.sum())
        else:
            assert batch["target"][i][batch["action"][i]] == 1.0


@pytest.mark.parametrize("game", GAME_NAMES)
def test_policy_targets_of_mcts_are_its_visit_distribution_over_legal_actions(game, tmp_path):
    agent = registry.make_agent("mcts:16", game)
    agent.reset(1)
    state = game_spec(game).new_game(game_spec(game).config(2), seed=4)
    while len(state.legal_actions()) < 3:
        state.apply(state.legal_actions()[0])
    action = agent.act(state)
    actions, probs = agent.action_distribution()
    assert sum(probs) == pytest.approx(1.0) and set(actions) <= set(state.legal_actions())
    assert actions[int(np.argmax(probs))] == action

    made = DatasetSpec(("mcts:8", "random"), "2", 2, seed=1, policy_targets=True, game=game)
    make(made, tmp_path / "p", workers=1)
    assert verify_dataset(tmp_path / "p", game=game).ok  # targets are distributions over legal
    batch = next(iter_batches(tmp_path / "p", 100_000, observations=False, game=game))
    assert batch["has_target"].all() and batch["target"].shape[1] == num_actions(game_spec(game))
    assert np.allclose(batch["target"].sum(axis=1), 1.0, atol=1e-5)
    assert not (batch["target"] > 0)[~batch["mask"]].any()
    legal = batch["mask"].sum(axis=1)
    mcts = (batch["agent"] == "mcts:8") & (legal > 1)
    rand = (batch["agent"] == "random") & (legal > 1)
    assert ((batch["target"][mcts] > 0).sum(axis=1) > 1).any()  # visits, not one-hot
    assert np.allclose(batch["target"][rand].max(axis=1), 1.0 / legal[rand])  # uniform


def test_decision_dataset_splits_rows_between_loader_workers(dataset):
    torch = pytest.importorskip("torch")
    from torch.utils.data import DataLoader

    from caylus_env.datasets import DecisionDataset

    game, root = dataset
    data = DecisionDataset(root, batch_size=200, game=game)
    batches = list(DataLoader(data, batch_size=None, num_workers=2))
    total = sum(len(b["action"]) for b in batches)
    assert total == read_manifest(root)["counts"]["decisions"]
    first = batches[0]
    assert set(first) == {"obs", "mask", "action", "ret", "target", "has_target"}
    assert first["obs"].dtype == torch.float32 and first["mask"].dtype == torch.bool
    assert first["obs"].shape == (200, game_spec(game).observation().OBS_SIZE)
    assert all(b["mask"][torch.arange(len(b["action"])), b["action"]].all() for b in batches)
    rets = torch.cat([b["ret"] for b in batches])
    assert float(rets.min()) >= -1.0 and float(rets.max()) <= 1.0
    with pytest.raises(DatasetError, match=f"{re.escape(game_spec(game).title)} dataset"):
        DecisionDataset(root, 200, game=OTHER[game])


def test_loader_refuses_an_unfinished_dataset_or_another_state_layout(dataset, tmp_path):
    game, root = dataset
    with pytest.raises(DatasetError, match="not a finished dataset"):
        open_dataset(tmp_path, game=game)
    copy = tmp_path / "copy"
    shutil.copytree(root, copy)
    manifest = json.loads((copy / "manifest.json").read_text())
    manifest["state_version"] = "00000000"
    (copy / "manifest.json").write_text(json.dumps(manifest))
    with pytest.raises(DatasetError, match="state_version '00000000'"):
        open_dataset(copy, game=game)
    manifest["format"] = "caylus-dataset/0"
    (copy / "manifest.json").write_text(json.dumps(manifest))
    with pytest.raises(DatasetError, match=f"this version reads '{DATASET_FORMAT}'"):
        open_dataset(copy, game=game)


def test_a_dataset_read_as_another_game_is_refused_naming_both(dataset):
    game, root = dataset
    other = OTHER[game]
    title, other_title = re.escape(game_spec(game).title), re.escape(game_spec(other).title)
    for read in (
        lambda: open_dataset(root, game=other),
        lambda: next(iter_batches(root, game=other)),
        lambda: verify_dataset(root, game=other),
        lambda: dataset_stats(root, other),
        lambda: inspect_game(root, 0, other),
    ):
        with pytest.raises(DatasetError, match=rf"{title} dataset.*expected a {other_title}"):
            read()
    for command in ("verify", "stats", "inspect"):
        proc = cli(command, root, "--game", other)
        assert proc.returncode == 2, proc.stderr
        assert f"game {game!r}" in proc.stderr and f"game {other!r}" in proc.stderr
        assert f"--game {game}" in proc.stderr


# --------------------------------------------------------------------------------------------------
# verify
# --------------------------------------------------------------------------------------------------


def test_verify_passes_and_names_the_game_and_ply_of_a_tampered_row(dataset, tmp_path):
    game, root = dataset
    info = game_spec(game)
    assert verify_dataset(root, game=game).ok
    ok = cli("verify", root, "--game", game, "--no-progress")
    assert ok.returncode == 0 and "12 games" in ok.stdout and "replay exactly" in ok.stdout
    copy = tmp_path / "copy"
    shutil.copytree(root, copy)
    path = copy / "decisions" / "part-00001.parquet"
    table = pq.read_table(path)
    row = 37
    gid, ply = table["game_id"][row].as_py(), table["ply"][row].as_py()
    fields = info.engine().layout.FIELDS
    entry = fields[len(fields) // 2].offset  # a field in the middle of the state
    width = state_bytes(info)
    states = bytearray(table["state"].combine_chunks().buffers()[1].to_pybytes())
    states[row * width + entry * state_dtype(info).itemsize] ^= 1
    column = pa.FixedSizeBinaryArray.from_buffers(
        pa.binary(width), table.num_rows, [None, pa.py_buffer(bytes(states))]
    )
    pq.write_table(table.set_column(table.schema.get_field_index("state"), "state", column), path)
    problems = verify_dataset(copy, game=game).problems
    assert any("part-00001.parquet differs from the manifest" in p for p in problems), problems
    where = f"game {gid} ply {ply}: column state differs from the replay at {field_at(info, entry)}"
    assert any(where in p for p in problems), problems
    proc = cli("verify", copy, "--game", game, "--no-progress")
    assert proc.returncode == 1 and f"game {gid} ply {ply}" in proc.stderr


def test_verify_names_a_changed_action(dataset, tmp_path):
    game, root = dataset
    copy = tmp_path / "copy"
    shutil.copytree(root, copy)
    path = copy / "decisions" / "part-00000.parquet"
    table = pq.read_table(path)
    actions = table["action"].to_numpy().copy()
    legal_counts = table["num_legal"].to_numpy()
    row = next(i for i in range(10, len(actions)) if legal_counts[i] > 1)
    legal = np.unpackbits(
        np.frombuffer(table["legal"][row].as_py(), np.uint8),
        count=num_actions(game_spec(game)),
        bitorder="little",
    )
    actions[row] = next(a for a in np.flatnonzero(legal) if a != actions[row])
    table = table.set_column(table.schema.get_field_index("action"), "action", pa.array(actions))
    pq.write_table(table, path)
    problems = verify_dataset(copy, game=game).problems
    gid, ply = table["game_id"][row].as_py(), table["ply"][row].as_py()
    assert any(p.startswith(f"game {gid} ply {ply + 1}:") for p in problems), problems


def test_verify_names_a_changed_final_score(dataset, tmp_path):
    game, root = dataset
    copy = tmp_path / "copy"
    shutil.copytree(root, copy)
    path = copy / "games" / "part-00000.parquet"
    rows = pq.read_table(path).to_pylist()
    rows[2]["scores"] = [v + 1 for v in rows[2]["scores"]]
    pq.write_table(pa.Table.from_pylist(rows, schema=pq.read_schema(path)), path)
    problems = verify_dataset(copy, game=game).problems
    word = game_spec(game).score_word
    assert any(p.startswith(f"game {rows[2]['game_id']}: scores ({word})") for p in problems)


@pytest.mark.parametrize("game", TRUNCATING)
def test_games_cut_off_by_the_decision_cap_are_stored_truncated_and_verify(game, tmp_path):
    options = dict(game_spec(game).truncating_options)
    made = DatasetSpec(("random", bots(game)[0]), "2", 2, game_options=options, game=game)
    make(made, tmp_path / "t", workers=1)
    games = read_games(tmp_path / "t", game=game).to_pylist()
    assert [g["end"] for g in games] == ["truncated", "truncated"]
    assert all(sorted(g["ranks"]) in ([1.0, 2.0], [1.5, 1.5]) for g in games)
    assert verify_dataset(tmp_path / "t", game=game).ok
    path = next((tmp_path / "t" / "games").glob("*.parquet"))
    rows = pq.read_table(path).to_pylist()
    rows[0]["end"] = "terminated"
    pq.write_table(pa.Table.from_pylist(rows, schema=pq.read_schema(path)), path)
    problems = verify_dataset(tmp_path / "t", game=game).problems
    assert any("game 0: stored as terminated, but the replay ends truncated" in p for p in problems)


def test_verify_schedule_lookup_answers_game_ids_in_any_order(dataset):
    from agents.selfplay.generate import ScheduleLookup, run_schedule

    game, root = dataset
    manifest = read_manifest(root)
    made = spec(game)
    schedule, _ = DatasetSpec(made.agents, made.players, made.games, made.seed, game=game).build()
    wanted = {job.game_id: job.to_dict() for job in schedule.jobs()}
    ids = list(wanted)
    order = ids[len(ids) // 2 :][::-1] + ids[: len(ids) // 2]
    lookup = ScheduleLookup(run_schedule(manifest["run"]))
    assert {gid: lookup(gid) for gid in order} == wanted
    assert lookup(max(ids) + 1) is None


# --------------------------------------------------------------------------------------------------
# stats and inspect
# --------------------------------------------------------------------------------------------------


def test_stats_counts_kinds_and_the_command_writes_a_png_and_a_report(dataset, tmp_path):
    game, root = dataset
    info = game_spec(game)
    stats = dataset_stats(root, game)
    assert stats["game"] == game and stats["games"] == 12 and stats["players"][2]["games"] == 6
    assert sum(a["games"] for a in stats["agents"].values()) == 6 * 2 + 6 * 3
    assert stats["decisions"] == read_manifest(root)["counts"]["decisions"]
    assert set(stats["kinds"]) <= set(kind_names(info))
    assert sum(k["decisions"] for k in stats["kinds"].values()) == stats["decisions"]
    copy = tmp_path / "copy"
    shutil.copytree(root, copy)
    png = tmp_path / "s.png"
    proc = subprocess.run(
        [str(CAYLUS), "dataset", "stats", str(copy), "--game", game, "--plot", str(png)],
        capture_output=True,
        text=True,
        check=False,
        env={**os.environ, "COLUMNS": "200"},
    )
    assert proc.returncode == 0, proc.stderr
    out = " ".join(proc.stdout.split())
    assert "win rate by seat" in out and next(iter(stats["kinds"])) in out
    assert "replay page" in out
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    page = (copy / "report.html").read_text()
    assert info.title in page and f"Final {info.score_word}" in page
    assert 'href="viewer/game-0.html"' in page  # the first game of the first table
    assert (copy / "viewer" / "game-0.html").stat().st_size > 10_000


def test_inspect_lists_one_games_decisions_by_kind_and_action_name(dataset):
    game, root = dataset
    info = game_spec(game)
    to_string = info.engine().action_to_string
    inspected = inspect_game(root, 7, game)
    assert inspected["row"]["game_id"] == 7 and inspected["game"] == game
    decisions = inspected["decisions"]
    assert [d["ply"] for d in decisions] == list(range(inspected["row"]["decisions"]))
    assert {d["kind"] for d in decisions} <= set(kind_names(info))
    assert all(d["action_name"] == to_string(d["action"]) for d in decisions)
    with pytest.raises(KeyError, match="no game 99"):
        inspect_game(root, 99, game)
    record = dataset_records(root, [7], game)[7]  # the record, rebuilt from the rows
    assert record.game == game and record.match.game_id == 7
    assert list(record.final.scores) == inspected["row"]["scores"]
    assert replay(record).record().final == record.final
    proc = cli("inspect", root, "--game", game, "--game-id", "7", "--limit", "0")
    assert proc.returncode == 0, proc.stderr
    assert f"{info.title} game 7" in proc.stdout and decisions[-1]["action_name"] in proc.stdout
    assert info.score_word in proc.stdout


# --------------------------------------------------------------------------------------------------
# Arguments, resume, backends
# --------------------------------------------------------------------------------------------------


def test_other_arguments_into_an_existing_directory_are_refused_naming_the_fields(dataset):
    game, root = dataset
    other = spec(game, players="2-4", shard_games=5)
    with pytest.raises(RunMismatchError) as err:
        prepare_dataset(other, root)
    assert set(err.value.differences) == {"players", "shard_games"}
    assert "players" in str(err.value) and "shard_games" in str(err.value)
    foreign = spec(OTHER[game], agents=("random",))
    with pytest.raises(RunMismatchError, match="game"):
        prepare_dataset(foreign, root)
    make(spec(game), root)  # the same arguments: nothing left to play
    assert verify_dataset(root, game=game).ok


@pytest.mark.parametrize("game", GAME_NAMES)
def test_bad_arguments_exit_2_naming_the_option_before_any_work(game, tmp_path):
    info = game_spec(game)
    foreign = next(b for b in bots(OTHER[game]) if b not in registry.available_agents(game))
    cases = [
        (["--players", f"2-{info.max_players + 1}"], "invalid value for --players"),
        (["--games", "0"], "invalid value for --games"),
        (["--shard-games", "0"], "invalid value for --shard-games"),
        (["--agents", "nosuchbot"], f"invalid value for --agents: unknown {info.title} agent"),
        (["--agents", foreign], f"is an agent of {OTHER[game]}: pass --game"),
        (["--option", "no_such=1"], "invalid value for --option: bad game options"),
        (["--workers", "0"], "invalid value for --workers"),
    ]
    base = {"--agents": "random", "--players": "2", "--games": "4", "--out": str(tmp_path / "d")}
    for args, needle in cases:
        pairs = dict(zip(args[::2], args[1::2], strict=True))
        argv = [x for k, v in {**base, **pairs}.items() for x in (k, v)]
        proc = cli("generate", "--game", game, *argv, "--no-progress")
        assert proc.returncode == 2, proc.stderr
        assert needle in proc.stderr and len(proc.stderr.strip().splitlines()) == 1, proc.stderr
        assert not (tmp_path / "d").exists()


@pytest.mark.parametrize("game", GAME_NAMES)
def test_spec_errors_name_the_field(game):
    with pytest.raises(TournamentError) as err:
        DatasetSpec(agents=("random",), players="5-2", games=4, game=game).build()
    assert err.value.field == "players"
    with pytest.raises(TournamentError) as err:
        DatasetSpec(agents=("random", "random"), players=2, games=4, game=game).build()
    assert err.value.field == "agents"
    with pytest.raises(TournamentError) as err:
        DatasetSpec(agents=("random",), players=2, games=4, game="chess").build()
    assert err.value.field == "game"


@pytest.mark.parametrize("game", harness_games())
def test_sigkill_then_the_same_command_resumes_to_the_uninterrupted_dataset(game, tmp_path):
    pair = ",".join(bots(game)[:2])
    args = [
        "generate", "--game", game, "--agents", pair, "--players", "2", "--games", "40",
        "--seed", "5", "--shard-games", "2", "--workers", "2", "--no-progress",
    ]  # fmt: skip
    make(DatasetSpec(tuple(bots(game)[:2]), "2", 40, 5, shard_games=2, game=game), tmp_path / "w")
    out = tmp_path / "killed"
    proc = subprocess.Popen(
        [str(CAYLUS), "dataset", *args, "--out", str(out)],
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
    assert 2 <= finished < 20
    assert not (out / "manifest.json").exists()
    again = cli(*args, "--out", out)
    assert again.returncode == 0, again.stderr
    assert f"resuming: {finished} of 20 shards" in again.stdout.replace("\n", " ")
    assert shard_bytes(out) == shard_bytes(tmp_path / "w")
    assert verify_dataset(out, game=game).ok


@pytest.mark.ray
def test_ray_backend_writes_the_same_shards(dataset, tmp_path):
    import ray

    game, root = dataset
    init_local_ray()
    try:
        make(spec(game), tmp_path / "ray", backend="ray")
    finally:
        ray.shutdown()
    assert shard_bytes(tmp_path / "ray") == shard_bytes(root)
    manifest = read_manifest(tmp_path / "ray")
    assert manifest["generation"]["backend"] == "ray"


# --------------------------------------------------------------------------------------------------
# Datasets written before the shared format (tests/legacy)
# --------------------------------------------------------------------------------------------------


@pytest.mark.parametrize("name", LEGACY_DATASETS)
def test_an_old_dataset_verifies_loads_inspects_and_reports(name, tmp_path):
    root = tmp_path / name
    shutil.copytree(LEGACY / name, root)
    manifest = read_manifest(root)
    assert manifest["format"] in LEGACY_FORMATS
    game = game_of(manifest)
    assert verify_dataset(root, game=game).ok
    games = read_games(root, game=game)
    assert "scores" in games.column_names and "prestige" not in games.column_names
    assert pq.read_schema(next((root / "games").glob("*.parquet"))).names.count("prestige") == 1
    batch = next(iter_batches(root, 10_000, game=game))
    assert len(batch["action"]) == manifest["counts"]["decisions"]
    assert batch["obs"].shape[1] == game_spec(game).observation().OBS_SIZE
    inspected = inspect_game(root, None, game)
    assert inspected["row"]["scores"] == games["scores"][0].as_py()
    record = dataset_records(root, [0], game)[0]
    assert replay(record).scores().tolist() == list(record.final.scores)
    proc = cli("verify", root, "--game", game, "--no-progress")
    assert proc.returncode == 0 and "replay exactly" in proc.stdout, proc.stderr
    stats = cli("stats", root, "--game", game)
    assert stats.returncode == 0, stats.stderr
    assert (root / "report.html").exists() and (root / "viewer" / "game-0.html").exists()
    shown = cli("inspect", root, "--game", game, "--limit", "3")
    assert shown.returncode == 0 and game_spec(game).score_word in shown.stdout
