"""The Caylus 1303 observer: piece layout, bounds over random games, seats relative to the
observer, the decision context, the board and character pieces, and hidden prestige
(docs/rules/caylus_1303.md 4.7, D37)."""

from __future__ import annotations

import random

import numpy as np
import pytest

from caylus_env.caylus_1303 import observation as O
from caylus_env.caylus_1303.engine import Game, GameConfig
from caylus_env.caylus_1303.engine import layout as L
from caylus_env.caylus_1303.engine.constants import (
    MAX_PLAYERS,
    MAX_WORKERS_ON_BUILDING,
    NUM_CHARACTERS,
    NUM_PRINTED,
    NUM_SPACES,
    ROAD0,
    DecisionKind,
    Phase,
)
from caylus_env.caylus_1303.engine.decisions import decision_arg, decision_kind, decision_player
from caylus_env.caylus_1303.engine.state import final_score, pf
from caylus_env.caylus_1303.engine.tiles import NUM_KINDS
from caylus_env.caylus_1303.observation import (
    OBS_SIZE,
    PP_SCALE,
    SCORE_SCALE,
    WORKER_SCALE,
    encode,
    observation_pieces,
)
from caylus_env.core.vector import kernels


def _states(num_players: int, seed: int, hide: bool = False) -> list[np.ndarray]:
    """Every state of one random game (its decisions and the end)."""
    g = Game(GameConfig(num_players=num_players, hide_opponent_pp=hide), seed=seed)
    rng = random.Random(seed)
    out = [g.state.copy()]
    while not g.is_over():
        g.apply(rng.choice(g.legal_actions()))
        out.append(g.state.copy())
    return out


@pytest.fixture(scope="module")
def games() -> dict[tuple[int, bool], list[np.ndarray]]:
    return {
        (n, hide): _states(n, 10 * n + hide, hide) for n in range(2, 6) for hide in (False, True)
    }


def _pieces(state: np.ndarray, seat: int) -> dict[str, np.ndarray]:
    """The named pieces of the compiled encoder's output (the tests below also encode
    hand-edited states that are not positions, which the checked ``encode`` refuses)."""
    out = np.empty(OBS_SIZE, np.float32)
    O.encode_into(state, seat, out)
    return observation_pieces(out)


def _prestige_state(state: np.ndarray, values: list[int]) -> np.ndarray:
    """``state`` with each seat's PP set to ``values[p]``."""
    s = state.copy()
    for p, v in enumerate(values):
        s[pf(p, L.P_PP)] = v
    return s


# -- layout ---------------------------------------------------------------------------------
def test_pieces_cover_the_vector_exactly_once():
    covered = np.zeros(OBS_SIZE, np.int64)
    for name, shape in O.PIECES:
        s = O.PIECE_SLICES[name]
        assert s.stop - s.start == int(np.prod(shape)), name
        covered[s] += 1
    assert (covered == 1).all()
    assert OBS_SIZE == sum(int(np.prod(shape)) for _, shape in O.PIECES) == O.BOUNDS.size


def test_grouped_pieces_have_their_axes_and_no_piece_is_in_two_groups():
    seat = set(O.SEAT_PIECES)
    column = set(O.SEAT_COLUMN_PIECES)
    space = set(O.SPACE_PIECES)
    assert not (seat & column or seat & space or column & space)
    assert all(O.PIECE_SHAPES[n][0] == MAX_PLAYERS for n in seat)
    assert all(O.PIECE_SHAPES[n][-1] == MAX_PLAYERS for n in column)
    assert all(O.PIECE_SHAPES[n][0] == NUM_SPACES for n in space)
    assert {"pp", "score", "hand", "camp", "resources"} <= seat


def test_bounds_are_finite_and_counts_without_a_ceiling_have_the_state_maximum():
    assert np.isfinite(O.BOUNDS).all() and (O.BOUNDS >= 1.0).all()
    high = observation_pieces(O.BOUNDS.copy())
    assert high["pp"][0] == np.float32(np.iinfo(np.int16).max / PP_SCALE)
    assert high["hand"][0] == 1.0  # 15 workers per colour (D15)
    assert (high["space_kind"] == 1.0).all()


# -- values ---------------------------------------------------------------------------------
@pytest.mark.parametrize("num_players", [2, 3, 4, 5])
def test_values_are_within_bounds_over_random_games(games, num_players):
    for hide in (False, True):
        states = np.stack(games[num_players, hide])
        for seat in (-1, *range(num_players)):
            seats = np.full(len(states), seat, np.int64)
            out = np.full((len(states), OBS_SIZE), -3.0, np.float32)
            kernels("caylus_1303").encode_batch(states, seats, out)  # the platform's
            assert np.isfinite(out).all()
            assert (out >= 0).all() and (out <= O.BOUNDS).all(), (num_players, hide, seat)


def test_one_hot_pieces_hold_exactly_one_entry(games):
    for state in games[4, False][::5]:
        v = _pieces(state, 0)
        assert v["num_players"].tolist() == [0, 0, 1, 0]
        assert v["phase"].sum() == 1 and v["provost"].sum() == 1
        assert (v["space_kind"].sum(axis=1) == 1).all()  # a kind or the empty column
        built = v["space_kind"][:, NUM_KINDS] == 0
        assert (v["space_side"].sum(axis=1) == built).all()
        per_character = (
            v["character_holder"].sum(axis=1) + v["character_on_board"] + v["character_out_of_play"]
        )
        assert (per_character == 1).all()
        assert v["character_out_of_play"].sum() == NUM_CHARACTERS - 4 - 3  # players + 3 shown


def test_the_observer_is_relative_seat_zero_and_the_next_seat_clockwise_is_one(games):
    for n in range(2, 6):
        state = games[n, False][len(games[n, False]) // 2].copy()
        for p in range(n):
            state[pf(p, L.P_HAND)] = p + 1  # a different hand per seat
        state[L.FIRST_PLAYER] = 0
        for observer in range(n):
            v = _pieces(state, observer)
            for r in range(MAX_PLAYERS):
                want = (observer + r) % n + 1 if r < n else 0
                assert v["hand"][r] == np.float32(want / WORKER_SCALE), (n, observer, r)
            assert v["hand"][0] == np.float32((observer + 1) / WORKER_SCALE)  # my own hand
            assert v["seat_present"].tolist() == [1.0] * n + [0.0] * (MAX_PLAYERS - n)
            assert v["first_player"].argmax() == (0 - observer) % n
        glob = _pieces(state, -1)
        assert glob["hand"][:n].tolist() == [np.float32((p + 1) / WORKER_SCALE) for p in range(n)]


def test_workers_owners_and_the_bridge_are_relative_seats(games):
    state = games[3, False][0].copy()
    sp = ROAD0 + 2  # R2
    state[L.SPACE_WORKER + sp * MAX_WORKERS_ON_BUILDING] = 2
    state[L.SPACE_WORKER + sp * MAX_WORKERS_ON_BUILDING + 1] = 0
    state[L.SPACE_OWNER + sp] = 1
    state[L.BRIDGE] = 2
    state[L.SITE + 1] = 1
    v = _pieces(state, 1)  # p1 looks: p2 is seat 1, p0 is seat 2
    assert v["space_workers"][sp, 0].argmax() == 1 and v["space_workers"][sp, 1].argmax() == 2
    assert v["space_owner"][sp].tolist() == [1, 0, 0, 0, 0]
    assert v["bridge"][0].argmax() == 1 and not v["bridge"][1:].any()
    assert v["site"][1].tolist() == [1, 0, 0, 0, 0]


def test_activated_spaces_follow_the_provost(games):
    state = games[2, False][0].copy()
    state[L.PROVOST] = 5
    v = _pieces(state, 0)
    want = np.zeros(NUM_SPACES)
    want[:NUM_PRINTED] = 1  # the printed buildings are always activated (rules 3.1)
    want[ROAD0 + 1 : ROAD0 + 6] = 1  # R1..R5
    assert v["space_activated"].tolist() == want.tolist()
    assert v["provost"].argmax() == 5


def test_the_decision_context_is_the_top_of_the_stack(games):
    seen = set()
    for state in games[4, False]:
        kind = decision_kind(state)
        v = _pieces(state, 0)
        if kind < 0:
            assert not v["decision"].any() and state[L.PHASE] == Phase.GAME_OVER
            continue
        seen.add(kind)
        assert v["decision"].argmax() == kind
        assert v["decision_player"].argmax() == decision_player(state) % 4
        if kind == DecisionKind.EFFECT:
            assert v["decision_space"].argmax() == decision_arg(state)
            assert v["decision_space"].sum() == 1
        else:
            assert not v["decision_space"].any()
        if kind == DecisionKind.PAY:
            assert v["decision_owed"][0] > 0
    assert {DecisionKind.DRAFT, DecisionKind.PLAN, DecisionKind.EFFECT} <= seen


def test_encode_refuses_a_bad_state_or_seat(games):
    state = games[3, False][0]
    with pytest.raises(ValueError, match="seat=3 is not allowed"):
        encode(state, 3)
    with pytest.raises(ValueError, match="state must be"):
        encode(state.astype(np.int32), 0)
    out = np.full(OBS_SIZE + 4, 9.0, np.float32)
    O.encode_into(state, 0, out)
    assert np.array_equal(out[:OBS_SIZE], encode(state, 0)) and (out[OBS_SIZE:] == 9.0).all()


# -- hidden prestige (rules 4.7, D37) ---------------------------------------------------------
def test_with_hide_opponent_pp_opponents_prestige_is_never_encoded(games):
    for n in range(2, 6):
        for state in games[n, True][::20]:
            for seat in range(n):
                others = [7 * p + 3 if p != seat else 11 for p in range(n)]
                a = _prestige_state(state, others)
                b = _prestige_state(
                    state, [v * 5 + 40 if p != seat else 11 for p, v in enumerate(others)]
                )
                assert np.array_equal(encode(a, seat), encode(b, seat)), (n, seat)
                v = _pieces(a, seat)
                assert v["pp"][0] == np.float32(11 / PP_SCALE)  # his own
                assert v["score"][0] == np.float32(final_score(a, seat) / SCORE_SCALE)
                assert not v["pp"][1:].any() and not v["score"][1:].any()
                assert v["hide_opponent_pp"][0] == 1.0


def test_the_global_state_hides_every_prestige_under_the_option(games):
    state = _prestige_state(games[3, True][-1], [5, 9, 13])
    glob = _pieces(state, -1)
    assert not glob["pp"].any() and not glob["score"].any()
    other = _prestige_state(state, [50, 1, 2])
    assert np.array_equal(encode(state, -1), encode(other, -1))


def test_without_the_option_every_prestige_is_shown(games):
    state = _prestige_state(games[3, False][-1], [5, 9, 13])
    for seat in range(3):
        v = _pieces(state, seat)
        want = [np.float32(((seat + r) % 3 * 4 + 5) / PP_SCALE) for r in range(3)]
        assert v["pp"][:3].tolist() == want
        assert v["hide_opponent_pp"][0] == 0.0
    assert _pieces(state, -1)["pp"][:3].tolist() == [np.float32(x / PP_SCALE) for x in (5, 9, 13)]


def test_encode_refuses_a_state_whose_contents_no_position_can_hold(games):
    """The checked entry point runs the game's validation before the compiled encoder: a tile
    kind out of its table, or an Effect pending on an empty space, is refused by name."""
    from caylus_env.caylus_1303.engine.constants import ROAD0
    from caylus_env.core.errors import InvalidStateError

    state = games[3, False][0].copy()
    state[L.SPACE_KIND + ROAD0 + 12] = 999
    with pytest.raises(InvalidStateError):
        encode(state, 0)
