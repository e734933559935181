"""Caylus's observer: its pieces follow the rule tables, the decision context, the start position,
relative seats read from the state dict, and what random games show (the layout, bounds and
seat rotation every game keeps are checked in ``tests/conformance/test_observation.py``)."""

from __future__ import annotations

import random

import numpy as np
import pytest

from caylus_env import caylus_v0
from caylus_env.caylus.engine import Game, GameConfig
from caylus_env.caylus.engine.board import ROAD_LEN, SECTION_SIZE
from caylus_env.caylus.engine.buildings import BUILDING_NAMES, NUM_BUILDINGS
from caylus_env.caylus.engine.constants import (
    DECISION_NAMES,
    FAVOR_ROW_NAMES,
    MAX_PLAYERS,
    NUM_DECISION_KINDS,
    NUM_FAVOR_COLUMNS,
    NUM_FAVOR_ROWS,
    NUM_PHASES,
    NUM_RESOURCES,
    NUM_WORKERS,
    PHASE_NAMES,
    RESOURCE_NAMES,
    BuildSource,
)
from caylus_env.caylus.engine.decisions import DECISION_SCHEMA, depth, pop, push
from caylus_env.caylus.observation import (
    COUNT_SCALE,
    CUBE_SCALE,
    MONEY_SCALE,
    OBS_SIZE,
    PIECE_SHAPES,
    PRESTIGE_SCALE,
    encode,
    observation_pieces,
)

GAMES_PER_COUNT = 20
SOURCE_NAMES = tuple(s.name.lower() for s in BuildSource)
# Pieces that are exactly one-hot (sum 1) in every position of a live game.
ONE_HOT_ALWAYS = ("phase", "provost", "bailiff")


def _random_game_positions(num_players: int, seed: int):
    """Yield a raw_env at every decision of one random game, then once at the end."""
    env = caylus_v0.raw_env(num_players=num_players)
    env.reset(seed=seed)
    rng = random.Random(seed)
    while True:
        yield env
        if env.game.is_terminal():
            return
        env.step(rng.choice(env.legal_actions()))


def test_piece_shapes_follow_the_engine_constants():
    assert PIECE_SHAPES["phase"] == (NUM_PHASES,)
    assert PIECE_SHAPES["decision"] == (NUM_DECISION_KINDS,)
    assert PIECE_SHAPES["road_building"] == (ROAD_LEN, NUM_BUILDINGS + 1)
    assert PIECE_SHAPES["favor_columns"] == (MAX_PLAYERS, NUM_FAVOR_ROWS, NUM_FAVOR_COLUMNS + 1)
    assert PIECE_SHAPES["cubes"] == (MAX_PLAYERS, NUM_RESOURCES)
    assert PIECE_SHAPES["stock"] == (NUM_BUILDINGS,)


# One example value per argument codec (as the state holds it), and the piece that must show it.
_EXAMPLE_ARG = {
    "building": (BUILDING_NAMES.index("marketplace"), "decision_building"),
    "source": (int(BuildSource.FAVOR_MASON), "decision_source"),
    "row": (FAVOR_ROW_NAMES.index("resources"), "decision_row"),
    "int": (3, "decision_count"),
    "mask": (
        (1 << RESOURCE_NAMES.index("wood")) | (1 << RESOURCE_NAMES.index("stone")),
        "decision_kinds",
    ),
}


@pytest.mark.parametrize("entry", DECISION_SCHEMA, ids=lambda e: e.name)
def test_every_declared_decision_argument_reaches_its_observation_piece(entry):
    """The observer sees each argument of the pending decision in the piece its codec
    names (``decisions.SCHEMA``), and nothing in the context pieces it does not declare.
    The entry is pushed on the raw state: the encoder must show whatever the stack holds."""
    state = Game(GameConfig(num_players=3), seed=2).state.copy()
    while depth(state):
        pop(state)
    args = [0, 0]
    for j, arg in enumerate(entry.args):
        args[j] = _EXAMPLE_ARG[arg.codec][0]
    push(state, int(entry.kind), 1, args[0], args[1])
    vec = np.empty(OBS_SIZE, np.float32)
    encode(state, 1, vec)
    pieces = observation_pieces(vec)
    assert pieces["decision"][int(entry.kind)] == 1.0
    shown = set()
    for arg in entry.args:
        value, piece = _EXAMPLE_ARG[arg.codec]
        shown.add(piece)
        if arg.codec == "int":
            assert np.isclose(pieces[piece][0], value / COUNT_SCALE)
        elif arg.codec == "mask":
            kinds = [r for r in range(NUM_RESOURCES) if pieces[piece][r] == 1.0]
            assert kinds == [r for r in range(NUM_RESOURCES) if (value >> r) & 1]
        else:
            assert pieces[piece][value] == 1.0 and pieces[piece].sum() == 1.0
    for piece in {p for _, p in _EXAMPLE_ARG.values()} - shown:
        assert not pieces[piece].any(), piece


def test_start_position_reads_as_the_setup():
    game = Game(GameConfig(num_players=4), seed=11)
    d = game.state_dict()
    me = game.current_player()
    vec = np.empty(OBS_SIZE, np.float32)
    encode(game.state, me, vec)
    pieces = observation_pieces(vec)
    assert pieces["phase"][PHASE_NAMES.index("placement") - 1] == 1.0
    assert pieces["seat_present"].tolist() == [1, 1, 1, 1, 0]
    assert (pieces["workers_available"][:4] == 1.0).all()
    assert pieces["decision"][DECISION_NAMES.index("place_worker")] == 1.0
    assert pieces["decision_player"].tolist() == [1, 0, 0, 0, 0]
    assert pieces["provost"].argmax() + 1 == d["provost"]
    assert pieces["bailiff"].argmax() + 1 == d["bailiff"]
    for k, road in enumerate(d["road"]):
        channel = pieces["road_building"][k].argmax()
        if road["building"] is None:
            assert channel == NUM_BUILDINGS
        else:
            assert BUILDING_NAMES[channel] == road["building"]
    # The player to act first is first in turn order: relative seat 0, position 0.
    assert pieces["turn_order_position"][0, 0] == 1.0


@pytest.mark.parametrize("num_players", [2, 3, 4, 5])
def test_relative_seats_rotate_every_per_player_piece(num_players):
    game = Game(GameConfig(num_players=num_players), seed=num_players)
    rng = random.Random(num_players)
    for _ in range(60):
        game.apply(rng.choice(game.legal_actions()))
    d = game.state_dict()
    vec = np.empty(OBS_SIZE, np.float32)
    for observer in [*range(num_players), -1]:
        encode(game.state, observer, vec)
        pieces = observation_pieces(vec)
        for r in range(MAX_PLAYERS):
            if r >= num_players:
                assert pieces["seat_present"][r] == 0.0
                assert not pieces["cubes"][r].any() and pieces["money"][r] == 0.0
                assert not pieces["road_owner"][:, r].any()
                continue
            p = r if observer < 0 else (observer + r) % num_players
            pl = d["players"][p]
            assert pieces["seat_present"][r] == 1.0
            assert np.isclose(pieces["money"][r], pl["money"] / MONEY_SCALE)
            assert np.isclose(pieces["prestige"][r], pl["prestige"] / PRESTIGE_SCALE)
            for c, res in enumerate(RESOURCE_NAMES):
                assert np.isclose(pieces["cubes"][r, c], pl["cubes"][res] / CUBE_SCALE)
            home = (NUM_WORKERS - pl["workers_out"]) / NUM_WORKERS
            assert np.isclose(pieces["workers_available"][r], home)
            for row, name in enumerate(FAVOR_ROW_NAMES):
                assert pieces["favor_columns"][r, row].argmax() == pl["favor_columns"][name]
            assert pieces["turn_order_position"][r].argmax() == d["turn_order"].index(p)
            owned = [k for k, road in enumerate(d["road"]) if road["owner"] == p]
            assert np.flatnonzero(pieces["road_owner"][:, r]).tolist() == owned


def test_observer_money_is_in_seat_zero():
    game = Game(GameConfig(num_players=5), seed=2)
    vec = np.empty(OBS_SIZE, np.float32)
    for observer in range(5):
        encode(game.state, observer, vec)
        money = game.state_dict()["players"][observer]["money"]
        assert np.isclose(observation_pieces(vec)["money"][0], money / MONEY_SCALE)


def _check_decision_context(pieces: dict[str, np.ndarray], game: Game) -> None:
    decision = game.decision()
    assert pieces["decision"][DECISION_NAMES.index(decision.kind)] == 1.0
    assert pieces["decision"].sum() == 1.0
    args = decision.args
    building = pieces["decision_building"]
    source = pieces["decision_source"]
    row = pieces["decision_row"]
    kinds = pieces["decision_kinds"]
    if "building" in args:
        assert np.flatnonzero(building).tolist() == [BUILDING_NAMES.index(args["building"])]
    else:
        assert not building.any()
    if "source" in args:
        assert np.flatnonzero(source).tolist() == [SOURCE_NAMES.index(args["source"])]
    else:
        assert not source.any()
    if "row" in args:
        assert np.flatnonzero(row).tolist() == [FAVOR_ROW_NAMES.index(args["row"])]
    else:
        assert not row.any()
    if "kinds" in args:
        assert [RESOURCE_NAMES[i] for i in np.flatnonzero(kinds)] == args["kinds"]
    else:
        assert not kinds.any()
    counts = [v for k, v in args.items() if isinstance(v, int)]
    assert np.isclose(pieces["decision_count"][0], sum(counts) / COUNT_SCALE)


@pytest.mark.parametrize("num_players", [2, 3, 4, 5])
def test_random_games_stay_in_the_space(num_players):
    """Every observation of every agent, at every decision of 20 random games."""
    contexts_seen: set[str] = set()
    for g in range(GAMES_PER_COUNT):
        seed = 1000 * num_players + g
        for env in _random_game_positions(num_players, seed):
            game = env.game
            actor = game.current_player()
            for agent in env.possible_agents:
                obs = env.observe(agent)
                assert env.observation_space(agent).contains(obs), (agent, game)
                pieces = observation_pieces(obs["observation"])
                assert pieces["seat_present"].sum() == num_players
                for name in ONE_HOT_ALWAYS:
                    assert pieces[name].sum() == 1.0, (name, game)
                assert (pieces["road_building"].sum(axis=1) == 1.0).all()
                assert (pieces["favor_columns"][:num_players].sum(axis=2) == 1.0).all()
                if actor < 0:
                    assert not pieces["decision"].any()
                    assert not obs["action_mask"].any()
                    continue
                me = env.possible_agents.index(agent)
                assert pieces["decision_player"].argmax() == (actor - me) % num_players
                if me == actor:
                    assert np.array_equal(obs["action_mask"], game.legal_mask())
                    _check_decision_context(pieces, game)
                    contexts_seen.add(game.decision().kind)
                else:
                    assert not obs["action_mask"].any()
            state = env.state()
            assert env.state_space.contains(state)
    # The sweep reaches the decisions whose context the observer copies.
    assert {"place_worker", "build", "favor_row", "castle"} <= contexts_seen


def test_castle_pieces_are_fractions_of_the_section_sizes():
    game = Game(GameConfig(num_players=3), seed=8)
    rng = random.Random(8)
    vec = np.empty(OBS_SIZE, np.float32)
    while not game.is_terminal():
        game.apply(rng.choice(game.legal_actions()))
        d = game.state_dict()
        encode(game.state, -1, vec)
        pieces = observation_pieces(vec)
        for sec, name in enumerate(("dungeon", "walls", "towers")):
            houses = d["castle"][name]
            assert np.isclose(pieces["castle_fill"][sec], sum(houses) / SECTION_SIZE[sec])
            for p, h in enumerate(houses):
                assert np.isclose(pieces["castle_houses"][p, sec], h / SECTION_SIZE[sec])
            assert pieces["scored"][sec] == float(d["scored"][name])
