"""The dataset worker's fast paths (issue 12): the rows a worker collects are exactly the rows
replayed from the game's record, masks packed from legal ids are `pack_masks`' bytes, rows
travel between processes compressed and come back identical, and a row group gathered into a
reused state buffer is the table built from fresh arrays."""

from __future__ import annotations

import pickle

import numpy as np
import pytest

from agents.selfplay.generate import DatasetSpec, prepare_dataset
from agents.selfplay.worker import play_dataset_chunk
from caylus_env._version import __version__
from caylus_env.datasets.format import GameRows, decisions_table
from caylus_env.datasets.games import dataset_game
from caylus_env.datasets.records import (
    pack_legal_ids,
    pack_masks,
    record_of_row,
    rows_from_record,
)

AGENTS = {"puerto_rico": ("random", "shipper", "builder"), "caylus": ("random", "castle")}
PLAYERS = {"puerto_rico": 3, "caylus": 2}


def played_rows(game: str, tmp_path, games: int, policy: bool = False) -> list[GameRows]:
    spec = DatasetSpec(
        AGENTS[game], PLAYERS[game], games, seed=11, game=game, policy_targets=policy
    )
    run = prepare_dataset(spec, tmp_path / "d", workers=1)
    jobs = [job.to_dict() for job in run.schedule.jobs()][:games]
    return [rows for rows, _ in play_dataset_chunk(jobs, run.settings)]


@pytest.mark.parametrize("game", ["puerto_rico", "caylus"])
def test_worker_rows_equal_the_rows_replayed_from_the_record(game, tmp_path):
    for rows in played_rows(game, tmp_path, 3, policy=True):
        record = record_of_row(rows.game, rows.actions.tolist(), __version__, game)
        replayed = rows_from_record(record)
        assert rows.game == replayed.game
        for column in ("states", "legal", "actions", "seats", "kinds", "num_legal"):
            got, want = getattr(rows, column), getattr(replayed, column)
            assert got.dtype == want.dtype and got.shape == want.shape, column
            assert np.array_equal(got, want), column
        assert len(rows.policy) == len(rows.actions)


def test_pack_legal_ids_gives_the_bytes_of_pack_masks_of_the_bool_masks():
    rng = np.random.default_rng(3)
    num_actions = dataset_game("puerto_rico").num_actions
    masks = rng.random((40, num_actions)) < 0.05
    masks[7] = False  # a decision with no legal id still packs to zero bytes
    counts = masks.sum(axis=1)
    ids = np.concatenate([np.flatnonzero(m) for m in masks])
    packed = pack_legal_ids(ids, counts, num_actions)
    assert packed.dtype == np.uint8
    assert np.array_equal(packed, pack_masks(masks))
    assert pack_legal_ids(ids[:0], counts[:0], num_actions).shape == (0, packed.shape[1])


def test_rows_travel_compressed_and_unpickle_to_the_same_states(tmp_path):
    rows = played_rows("puerto_rico", tmp_path, 2)
    for r in [*rows, _empty(rows[0])]:
        blob = pickle.dumps(r)
        back = pickle.loads(blob)
        assert back.states.dtype == r.states.dtype and back.states.shape == r.states.shape
        assert np.array_equal(back.states, r.states)
        assert back.game == r.game and np.array_equal(back.legal, r.legal)
        if len(r.actions):
            assert len(blob) < r.states.nbytes / 4  # consecutive states compress well


def test_states_gathered_into_a_reused_buffer_give_the_table_of_fresh_arrays(tmp_path):
    rows = played_rows("puerto_rico", tmp_path, 3)
    fresh = decisions_table(rows, False, "puerto_rico")
    total = sum(len(r.actions) for r in rows)
    width = rows[0].states.shape[1]
    buffer = np.full(total * width + 5, -1, np.int16)
    assert decisions_table(rows, False, "puerto_rico", state_buffer=buffer).equals(fresh)
    small = np.zeros(width, np.int16)  # too small: a fresh array instead, the same table
    assert decisions_table(rows, False, "puerto_rico", state_buffer=small).equals(fresh)
    assert np.array_equal(small, np.zeros(width, np.int16))
    received = [pickle.loads(pickle.dumps(r)) for r in rows]  # as a driver gets them
    assert decisions_table(received, False, "puerto_rico", state_buffer=buffer).equals(fresh)


def _empty(rows: GameRows) -> GameRows:
    """A game forfeited before its first move: no decisions."""
    width = rows.states.shape[1]
    return GameRows(
        game=rows.game,
        states=np.zeros((0, width), rows.states.dtype),
        legal=np.zeros((0, rows.legal.shape[1]), np.uint8),
        actions=np.zeros(0, np.int16),
        seats=np.zeros(0, np.int8),
        kinds=np.zeros(0, np.int8),
        num_legal=np.zeros(0, np.int16),
        policy=None,
    )
