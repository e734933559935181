"""Every game's observer: its pieces cover the vector once, its bounds, its version, named views,
the encoder's buffer discipline, seats relative to the observer (every per-seat piece is the
global state's row of the same player), absent seats all zero, the batched encoder, the numba
cache keyed by every module the kernels read, and the engine run without the JIT."""

from __future__ import annotations

import hashlib
import json
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from caylus_env.core._cache import is_compiled_source
from caylus_env.core.observation import MAX_PLAYERS, ObservationLayout
from caylus_env.core.registry import GAME_NAMES, game_spec
from caylus_env.core.vector import kernels as vector_kernels
from tests.conformance.conftest import random_game
from tests.conftest import warm_kernels

ROOT = Path(__file__).resolve().parents[2]


def _states(game: str, num_players: int, seed: int, every: int = 1) -> list[np.ndarray]:
    return [g.state.copy() for g in random_game(game, num_players, seed)][::every]


def _encode(game: str, state: np.ndarray, seat: int) -> np.ndarray:
    observer = game_spec(game).observation()
    out = np.full(observer.OBS_SIZE, -7.0, np.float32)  # garbage: the encoder zeroes first
    observer.encode_into(state, seat, out)
    return out


def test_the_module_constants_are_the_layout(game):
    o = game_spec(game).observation()
    layout = o.LAYOUT
    assert isinstance(layout, ObservationLayout)
    assert layout.pieces == o.PIECES or tuple(o.PIECES) == layout.pieces
    assert layout.size == o.OBS_SIZE and layout.version == o.OBSERVATION_VERSION
    assert np.array_equal(o.BOUNDS, layout.bounds) and tuple(o.SEAT_PIECES) == layout.seat_pieces


def test_pieces_cover_the_vector_exactly_once(game):
    layout = game_spec(game).observation().LAYOUT
    covered = np.zeros(layout.size, np.int64)
    for name, shape in layout.pieces:
        s = layout.slices[name]
        assert s.stop - s.start == int(np.prod(shape)), name
        covered[s] += 1
    assert (covered == 1).all()
    assert len({n for n, _ in layout.pieces}) == len(layout.pieces)


def test_version_is_the_revision_and_a_digest_of_the_layout(game):
    layout = game_spec(game).observation().LAYOUT
    digest = hashlib.sha256(repr(layout.pieces).encode()).hexdigest()[:8]
    assert layout.version == f"{layout.revision}-{digest}"
    renamed = ObservationLayout([("x", (1,)), *layout.pieces[1:]], revision=layout.revision)
    assert renamed.version != layout.version


def test_views_are_named_accept_batches_and_refuse_another_length(game):
    o = game_spec(game).observation()
    vec = np.arange(o.OBS_SIZE, dtype=np.float32)
    views = o.observation_pieces(vec)
    assert list(views) == [n for n, _ in o.PIECES]
    first = o.PIECES[0][0]
    views[first].reshape(-1)[0] = -1.0
    assert vec[0] == -1.0  # a view, not a copy
    batch = o.observation_pieces(np.zeros((3, 2, o.OBS_SIZE), np.float32))
    assert all(v.shape[:2] == (3, 2) for v in batch.values())
    with pytest.raises(ValueError, match=f"has {o.OBS_SIZE} entries"):
        o.observation_pieces(np.zeros(o.OBS_SIZE + 1, np.float32))


def test_bounds_are_finite_one_except_for_counts_whose_high_the_game_declares(game):
    o = game_spec(game).observation()
    layout = o.LAYOUT
    assert np.isfinite(o.BOUNDS).all() and (o.BOUNDS > 0).all()
    for name, shape in layout.pieces:
        high = o.BOUNDS[layout.slices[name]]
        if name in layout.highs:
            assert np.array_equal(high, np.broadcast_to(o.HIGHS[name], shape).ravel()), name
        else:
            assert (high == 1.0).all(), name
    assert not o.BOUNDS.flags.writeable


def test_a_bound_that_is_infinite_or_misshapen_is_refused():
    with pytest.raises(ValueError, match="finite and positive"):
        ObservationLayout([("x", (2,))], {"x": np.inf})
    with pytest.raises(ValueError, match="does not fit"):
        ObservationLayout([("x", (2,))], {"x": [1.0, 2.0, 3.0]})
    with pytest.raises(ValueError, match="unknown observation piece 'y'"):
        ObservationLayout([("x", (2,))], {"y": 2.0})
    assert ObservationLayout([("x", (2,))], {"x": [1.0, 3.0]}).bounds.tolist() == [1.0, 3.0]


@pytest.mark.parametrize("num_players", [2, 3, 5])
def test_per_seat_pieces_are_the_global_rows_of_the_same_player(game, num_players):
    """Seats are relative to the observer: relative seat r of observer o is player
    (o + r) % n, whose row the global state (absolute seats) holds at p; seats past the
    player count are all zero; seat_present marks the players."""
    o = game_spec(game).observation()
    layout = o.LAYOUT
    for state in _states(game, num_players, seed=num_players, every=7):
        glob = o.observation_pieces(_encode(game, state, -1))
        for observer in range(num_players):
            mine = o.observation_pieces(_encode(game, state, observer))
            for r in range(MAX_PLAYERS):
                p = (observer + r) % num_players
                for name in layout.seat_pieces:
                    if r >= num_players:
                        assert not mine[name][r].any(), (name, r)
                    else:
                        assert np.array_equal(mine[name][r], glob[name][p]), (name, observer, r)
                for name in layout.seat_column_pieces:
                    if r >= num_players:
                        assert not mine[name][..., r].any(), (name, r)
                    else:
                        assert np.array_equal(mine[name][..., r], glob[name][..., p]), name
        assert glob["seat_present"].tolist() == [1.0] * num_players + [0.0] * (
            MAX_PLAYERS - num_players
        )


def test_observations_are_finite_and_in_bounds_over_random_games(game):
    o = game_spec(game).observation()
    for n in game_spec(game).player_counts:
        for state in _states(game, n, seed=40 + n, every=3):
            for seat in (-1, *range(n)):
                vec = _encode(game, state, seat)
                assert np.isfinite(vec).all() and (vec >= 0).all() and (vec <= o.BOUNDS).all()


def test_the_batched_encoder_is_bit_identical(game):
    o = game_spec(game).observation()
    states = np.stack(_states(game, 4, seed=3, every=5))
    seats = np.arange(len(states)) % 5 - 1  # -1 (global) and every seat
    out = np.zeros((len(states), o.OBS_SIZE), np.float32)
    vector_kernels(game).encode_batch(states, seats, out)
    for i, state in enumerate(states):
        assert np.array_equal(
            out[i].view(np.uint32), _encode(game, state, int(seats[i])).view(np.uint32)
        )


@pytest.mark.parametrize("game_name", GAME_NAMES)
def test_every_module_the_kernels_read_keys_the_compile_cache(game_name):
    """The numba cache directory is keyed by the sources of compiled code
    (``caylus_env.core._cache``): every module of a game's engine, and every module of its
    folder that compiles, must be found, or an edit would leave stale kernels."""
    folder = ROOT / game_spec(game_name).package.replace(".", "/")
    missing = []
    for path in sorted(folder.rglob("*.py")):
        text = path.read_bytes()
        in_engine = "engine" in path.relative_to(folder).parts
        if (in_engine or b"njit" in text) and not is_compiled_source(path.relative_to(ROOT), text):
            missing.append(str(path.relative_to(ROOT)))
    assert not missing, missing


_PARITY = """
import json, random, sys
from caylus_env.core.registry import game_spec
spec = game_spec(sys.argv[1])
g = spec.new_game(spec.config(3, **spec.option_sets[list(spec.option_sets)[-1]]), 21)
r = random.Random(4)
while not g.is_over():
    g.apply(r.choice(g.legal_actions()))
print(json.dumps({"state": g.state.tolist(), "history": g.history}))
"""


@pytest.mark.parametrize("game_name", GAME_NAMES)
def test_the_engine_gives_the_same_game_with_numba_disabled(game_name):
    """The kernels are plain NumPy under numba: they also run uncompiled (for debugging), and
    give the same game bit for bit."""
    warm_kernels(game_name)  # the compiled run's watchdog measures the game, not numba
    runs = []
    for disable in ("0", "1"):
        env = dict(os.environ, NUMBA_DISABLE_JIT=disable)
        out = subprocess.run(
            [sys.executable, "-c", _PARITY, game_name],
            env=env,
            capture_output=True,
            text=True,
            check=True,
            timeout=900,
            cwd=ROOT,
        )
        runs.append(json.loads(out.stdout))
    assert runs[0] == runs[1] and len(runs[0]["history"]) > 50
