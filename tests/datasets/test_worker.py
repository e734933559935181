"""The dataset worker's fast paths (issue 12): the rows a worker collects are exactly the rows
replayed from the game's record, masks packed from legal ids are `pack_masks`' bytes, rows
travel between processes compressed and come back identical, and a row group gathered into a
reused state buffer is the table built from fresh arrays. Every game of the registry; each plays
``random`` against its own bots that take no argument."""

from __future__ import annotations

import pickle

import numpy as np
import pytest

from agents.registry import available_agents
from agents.selfplay.generate import DatasetSpec, prepare_dataset
from agents.selfplay.worker import play_dataset_chunk
from caylus_env._version import __version__
from caylus_env.core.registry import GAME_NAMES, game_spec
from caylus_env.datasets.format import GameRows, decisions_table, num_actions
from caylus_env.datasets.records import (
    pack_legal_ids,
    pack_masks,
    record_of_row,
    rows_from_record,
)

PLAYERS = 3


def agents(game: str) -> tuple[str, ...]:
    """``random`` and the game's own bots that take no argument."""
    own = game_spec(game).module("bots").BOTS
    return ("random", *(head for head in available_agents(game) if head in own))


def played_rows(game: str, tmp_path, games: int, policy: bool = False) -> list[GameRows]:
    spec = DatasetSpec(agents(game), PLAYERS, games, seed=11, game=game, policy_targets=policy)
    run = prepare_dataset(spec, tmp_path / "d", workers=1)
    jobs = [job.to_dict() for job in run.schedule.jobs()][:games]
    return [rows for rows, _ in play_dataset_chunk(jobs, run.settings)]


@pytest.mark.parametrize("game", GAME_NAMES)
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


@pytest.mark.parametrize("game", GAME_NAMES)
def test_pack_legal_ids_gives_the_bytes_of_pack_masks_of_the_bool_masks(game):
    rng = np.random.default_rng(3)
    count = num_actions(game_spec(game))
    masks = rng.random((40, count)) < 0.05
    masks[7] = False  # a decision with no legal id still packs to zero bytes
    counts = masks.sum(axis=1)
    ids = np.concatenate([np.flatnonzero(m) for m in masks])
    packed = pack_legal_ids(ids, counts, count)
    assert packed.dtype == np.uint8
    assert np.array_equal(packed, pack_masks(masks))
    assert pack_legal_ids(ids[:0], counts[:0], count).shape == (0, packed.shape[1])


@pytest.mark.parametrize("game", GAME_NAMES)
def test_rows_travel_compressed_and_unpickle_to_the_same_states(game, tmp_path):
    rows = played_rows(game, tmp_path, 2)
    for r in [*rows, _empty(rows[0])]:
        blob = pickle.dumps(r)
        back = pickle.loads(blob)
        assert back.states.dtype == r.states.dtype and back.states.shape == r.states.shape
        assert np.array_equal(back.states, r.states)
        assert back.game == r.game and np.array_equal(back.legal, r.legal)
        if len(r.actions):
            assert len(blob) < r.states.nbytes / 4  # consecutive states compress well


@pytest.mark.parametrize("game", GAME_NAMES)
def test_states_gathered_into_a_reused_buffer_give_the_table_of_fresh_arrays(game, tmp_path):
    rows = played_rows(game, tmp_path, 3)
    dtype = rows[0].states.dtype
    fresh = decisions_table(rows, False, game)
    total = sum(len(r.actions) for r in rows)
    width = rows[0].states.shape[1]
    buffer = np.full(total * width + 5, -1, dtype)
    assert decisions_table(rows, False, game, state_buffer=buffer).equals(fresh)
    small = np.zeros(width, dtype)  # too small: a fresh array instead, the same table
    assert decisions_table(rows, False, game, state_buffer=small).equals(fresh)
    assert np.array_equal(small, np.zeros(width, dtype))
    received = [pickle.loads(pickle.dumps(r)) for r in rows]  # as a driver gets them
    assert decisions_table(received, False, game, state_buffer=buffer).equals(fresh)


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
