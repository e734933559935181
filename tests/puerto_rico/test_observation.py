"""The Puerto Rico observer: piece layout, bounds, relative seats, decision context, hidden
information (docs/rules/puerto_rico.md 6.8), and the three encoders against each other."""

from __future__ import annotations

import random
from pathlib import Path

import numpy as np
import pytest

from caylus_env import puerto_rico_v0
from caylus_env.puerto_rico import observation as O
from caylus_env.puerto_rico.engine import Game, GameConfig
from caylus_env.puerto_rico.engine import kernels as K
from caylus_env.puerto_rico.engine import layout as L
from caylus_env.puerto_rico.engine.buildings import NUM_BUILDINGS, BuildingId
from caylus_env.puerto_rico.engine.constants import (
    MAX_PLAYERS,
    MAX_SHIPS,
    NUM_DECISION_KINDS,
    NUM_GOODS,
    NUM_ROLES,
    NUM_TILES,
    NUM_WORKABLE_TILES,
    DecisionKind,
    Good,
    Phase,
    Role,
    Tile,
)
from caylus_env.puerto_rico.engine.decisions import push
from caylus_env.puerto_rico.engine.state import pf
from caylus_env.puerto_rico.observation import (
    MONEY_SCALE,
    OBS_SIZE,
    PIECE_SHAPES,
    VP_SUPPLY_SCALE,
    encode,
    encode_batch,
    encode_into,
    observation_pieces,
)

ROOT = Path(__file__).resolve().parents[2]
CONFIGS = [(n, e) for n in (2, 3, 4, 5) for e in (False, True)]


def _random_states(num_players: int, expansion: bool, seed: int) -> list[np.ndarray]:
    """The state at every decision of one random game, and at its end."""
    game = Game(GameConfig(num_players=num_players, expansion=expansion), seed)
    rng = random.Random(seed)
    states = [game.state.copy()]
    while game.legal_actions():
        game.apply(rng.choice(game.legal_actions()))
        states.append(game.state.copy())
    return states


def _pieces(state: np.ndarray, seat: int) -> dict[str, np.ndarray]:
    return observation_pieces(encode(state, seat))


def test_piece_shapes_follow_the_engine_constants():
    assert PIECE_SHAPES["decision"] == (NUM_DECISION_KINDS,)
    assert PIECE_SHAPES["role_available"] == (NUM_ROLES,)
    assert PIECE_SHAPES["ship_good"] == (MAX_SHIPS, NUM_GOODS)
    assert PIECE_SHAPES["island"] == (MAX_PLAYERS, NUM_TILES)
    assert PIECE_SHAPES["island_worked"] == (MAX_PLAYERS, NUM_WORKABLE_TILES)
    assert PIECE_SHAPES["building_colonists"] == (MAX_PLAYERS, NUM_BUILDINGS)
    assert PIECE_SHAPES["seat_present"] == (MAX_PLAYERS,)
    assert PIECE_SHAPES["phase"] == (len(Phase),)


# -- the three encoders and the env agree, and stay in the space ------------------------------------
@pytest.mark.parametrize(("num_players", "expansion"), CONFIGS)
def test_encode_encode_into_encode_batch_and_the_env_are_bit_identical(num_players, expansion):
    seed = 10 * num_players + expansion
    env = puerto_rico_v0.raw_env(num_players=num_players, expansion=expansion)
    env.reset(seed=seed)
    rng = random.Random(seed)
    states, seats, from_env = [], [], []
    buf = np.full(OBS_SIZE + 4, -7.0, np.float32)  # a dirty, longer buffer: zeroed first
    while True:
        for seat in range(-1, num_players):
            vec = encode(env.game.state, seat)
            encode_into(env.game.state, seat, buf)
            assert np.array_equal(buf[:OBS_SIZE], vec)
            states.append(env.game.state.copy())
            seats.append(seat)
            from_env.append(
                env.state() if seat < 0 else env.observe(f"player_{seat}")["observation"]
            )
            assert np.array_equal(from_env[-1], vec)
        if not env.legal_actions():
            break
        env.step(rng.choice(env.legal_actions()))
    out = np.full((len(states), OBS_SIZE), -1.0, np.float32)
    encode_batch(np.stack(states), np.array(seats, np.int64), out)
    assert np.array_equal(out, np.stack(from_env))
    assert env.game.is_terminal()


# -- seats ----------------------------------------------------------------------------------------
def test_seats_are_relative_to_the_observer_and_absolute_in_the_global_state():
    game = Game(GameConfig(num_players=4), seed=2)
    s = game.state.copy()
    for p in range(4):
        s[pf(p, L.P_MONEY)] = 10 * (p + 1)  # 10, 20, 30, 40 doubloons
    s[L.GOVERNOR] = 2
    for seat in range(4):
        pieces = _pieces(s, seat)
        for p in range(4):
            rel = (p - seat) % 4
            assert pieces["money"][rel] == pytest.approx(10 * (p + 1) / MONEY_SCALE)
        assert pieces["governor"].argmax() == (2 - seat) % 4
        assert pieces["decision_player"].argmax() == (game.current_player() - seat) % 4
    assert np.array_equal(encode(s, -1), encode(s, 0))  # absolute seats: player 0 first
    assert _pieces(s, -1)["governor"].argmax() == 2


def test_decision_and_role_pieces_follow_the_game():
    game = Game(GameConfig(num_players=3), seed=4)
    pieces = _pieces(game.state, game.current_player())
    assert pieces["decision"].argmax() == DecisionKind.ROLE
    assert pieces["decision_player"].tolist() == [1, 0, 0, 0, 0]  # the observer is asked
    assert pieces["role_in_game"].sum() == 6  # no prospector with 3 players (rules 1.2)
    assert pieces["role_available"].sum() == 6 and not pieces["role_taken"].any()
    game.apply(int(Role.MAYOR))  # the mayor's phase starts, picked by seat 0
    pieces = _pieces(game.state, 1)
    assert pieces["role_available"][Role.MAYOR] == 0.0
    assert pieces["role_taken"].argmax() == Role.MAYOR and pieces["role_taken"].sum() == 1
    assert pieces["picker"].argmax() == 2  # seat 0 seen from seat 1
    assert pieces["phase"].argmax() == Phase.MAYOR


def test_decision_context_is_copied_from_the_pending_decision():
    base = Game(GameConfig(num_players=3, expansion=True), seed=1).state
    cases = [
        (DecisionKind.HOSPICE, int(Tile.QUARRY), "decision_tile", int(Tile.QUARRY)),
        (DecisionKind.UNIVERSITY, int(BuildingId.WHARF), "decision_building", BuildingId.WHARF),
        (
            DecisionKind.BLACK_MARKET,
            int(BuildingId.LIBRARY),
            "decision_building",
            BuildingId.LIBRARY,
        ),
    ]
    for kind, arg, piece, index in cases:
        s = base.copy()
        push(s, kind, 0, arg)
        pieces = _pieces(s, 0)
        assert pieces["decision"].argmax() == kind
        assert pieces[piece].argmax() == index and pieces[piece].sum() == 1, kind
    s = base.copy()
    push(s, DecisionKind.CRAFT_PRIVILEGE, 0, (1 << Good.CORN) | (1 << Good.COFFEE))
    assert _pieces(s, 0)["decision_goods"].tolist() == [1, 0, 0, 0, 1]
    s = base.copy()
    push(s, DecisionKind.STORE_BARREL, 0, 3)
    assert _pieces(s, 0)["decision_count"][0] == pytest.approx(3 / O.COUNT_SCALE)


def test_vp_chips_left_and_vp_owed_on_paper_are_two_non_negative_entries():
    s = Game(GameConfig(num_players=3), seed=1).state.copy()
    s[L.VP_SUPPLY] = 12
    assert _pieces(s, 0)["vp_supply"].tolist() == pytest.approx([12 / VP_SUPPLY_SCALE, 0.0])
    s[L.VP_SUPPLY] = -4  # the chips ran out: 4 VP owed on paper (rules 6.7)
    assert _pieces(s, 0)["vp_supply"].tolist() == pytest.approx([0.0, 4 / VP_SUPPLY_SCALE])


# -- hidden information (rules 6.8) ------------------------------------------------------------------
def _hidden_variants(state: np.ndarray) -> list[np.ndarray]:
    """``state`` with the face-down stack in other orders: reversed, rotated, and redrawn
    with a fresh generator (the engine's determinization, ``resample_hidden``)."""
    size = int(state[L.PLANTATION_STACK_SIZE_F])
    stack = slice(L.PLANTATION_STACK, L.PLANTATION_STACK + size)
    reversed_, rotated, redrawn = state.copy(), state.copy(), state.copy()
    reversed_[stack] = state[stack][::-1]
    rotated[stack] = np.roll(state[stack], 1)
    K.resample_hidden(redrawn, 987654321)
    return [reversed_, rotated, redrawn]


@pytest.mark.parametrize(("num_players", "expansion"), [(2, False), (3, True), (5, True)])
def test_states_differing_only_in_the_hidden_stack_order_encode_identically(num_players, expansion):
    states = _random_states(num_players, expansion, seed=21)
    differing = 0
    for state in states[:: max(1, len(states) // 25)]:
        for other in _hidden_variants(state):
            differing += not np.array_equal(other, state)
            for seat in range(-1, num_players):
                assert np.array_equal(encode(other, seat), encode(state, seat))
    assert differing > 0  # the variants really reorder the stack


def test_what_players_see_of_the_plantations_does_change_the_observation():
    """The stack's size, the face-up tiles and the discards are public: the hidden-order test
    above compares encodings that could differ."""
    s = Game(GameConfig(num_players=3), seed=8).state
    for field in (L.PLANTATION_STACK_SIZE_F, L.FACE_UP, L.DISCARDS):
        other = s.copy()
        other[field] += 1
        assert not np.array_equal(encode(other, 0), encode(s, 0)), field


def test_the_plantation_a_hacienda_drew_for_a_forest_is_shown_to_its_player_only():
    s = Game(GameConfig(num_players=3, expansion=True), seed=1).state.copy()
    push(s, DecisionKind.FOREST, 1, int(Tile.COFFEE))  # seat 1 saw a coffee plantation (7.3)
    assert _pieces(s, 1)["decision_tile"].argmax() == Tile.COFFEE
    assert _pieces(s, -1)["decision_tile"].argmax() == Tile.COFFEE  # the global state
    for seat in (0, 2):
        pieces = _pieces(s, seat)
        assert pieces["decision"].argmax() == DecisionKind.FOREST
        assert not pieces["decision_tile"].any()


# -- bad input -------------------------------------------------------------------------------------
def test_encode_refuses_a_bad_state_or_seat_naming_what_is_allowed():
    state = Game(GameConfig(num_players=3), seed=1).state
    with pytest.raises(ValueError, match=r"int16 array of shape \(\d+,\)"):
        encode(state.astype(np.int32), 0)
    with pytest.raises(ValueError, match=r"Game\.state"):
        encode(state[:-1], 0)
    with pytest.raises(ValueError, match=r"Game\.state"):
        encode(list(state), 0)
    for seat in (3, -2, 1.0, True, "0"):
        with pytest.raises(ValueError, match="allowed: 0 to 2"):
            encode(state, seat)
