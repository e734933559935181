"""Puerto Rico's text table: every part of it is drawn from the state, without side effects,
and nothing hidden is shown (docs/rules/puerto_rico.md 6.8). The frame every game shares
(heading, decision, end) is tested for all games in ``tests/core/test_rendering.py``."""

from __future__ import annotations

import random
import re

import numpy as np
import pytest

from caylus_env.puerto_rico.engine import Game, GameConfig
from caylus_env.puerto_rico.engine import kernels as K
from caylus_env.puerto_rico.engine import layout as L
from caylus_env.puerto_rico.engine.constants import GOOD_NAMES
from caylus_env.puerto_rico.rendering import render_text


def _played(num_players: int, seed: int, decisions: int, expansion: bool = False) -> Game:
    game = Game(GameConfig(num_players=num_players, expansion=expansion), seed=seed)
    rng = random.Random(seed)
    for _ in range(decisions):
        if not game.legal_actions():
            break
        game.apply(rng.choice(game.legal_actions()))
    return game


def _player_block(text: str, p: int) -> str:
    """The lines of seat ``p`` under ``Players:``."""
    lines = text.split("Players:")[1].splitlines()
    start = next(i for i, line in enumerate(lines) if line.startswith(f"  p{p}: "))
    end = next((i for i in range(start + 1, len(lines)) if lines[i].startswith("  p")), None)
    return "\n".join(lines[start:end])


def test_start_position_shows_every_section():
    game = Game(GameConfig(num_players=4), seed=7)
    text = render_text(game)
    assert text.startswith("Puerto Rico, 4 players, seed 7: round 1, phase role_selection")
    assert "Options: base game, truncation after 4000 decisions (0 taken)" in text
    for heading in (
        "Governor: p0",
        "Roles: ",
        "Colonist ship: 4",
        "Cargo ships: [1] 0/5 empty   [2] 0/6 empty   [3] 0/7 empty",
        "Trading house (0/4): none",
        "Goods supply: ",
        "Plantations: face up ",
        "Buildings for sale: ",
        "Players:",
    ):
        assert heading in text, heading
    for role in ("settler", "mayor", "builder", "craftsman", "trader", "captain", "prospector_1"):
        assert f"{role} [0 db]" in text
    assert "prospector_2" not in text  # one prospector with 4 players (rules 1.2)
    for p in range(4):
        assert re.search(rf"^  p{p}: \d+ doubloons, 0 VP chips, score 0", text, re.MULTILINE)
    assert "\x1b" not in text  # plain text, no colour codes


def test_each_player_shows_doubloons_vp_goods_island_and_city():
    game = _played(3, seed=5, decisions=200)
    d = game.state_dict()
    text = render_text(game)
    scores = game.scores()
    for p, pl in enumerate(d["players"]):
        block = _player_block(text, p)
        assert f"p{p}: {pl['money']} doubloons, {pl['vp']} VP chips, score {scores[p]}" in block
        assert f"San Juan {pl['san_juan']}" in block
        goods = next(line for line in block.splitlines() if line.startswith("      goods: "))
        for good, n in pl["goods"].items():
            assert (f"{good} {n}" in goods) == (n > 0)
        assert (goods == "      goods: none") == (sum(pl["goods"].values()) == 0)
        for tile, n in pl["island"].items():
            if n and tile in pl["worked"]:
                assert f"{tile} {pl['worked'][tile]}/{n}" in block
        for building, colonists in pl["buildings"].items():
            assert f"{building} {colonists}/" in block
    # the position has goods and cities to draw
    assert all(pl["buildings"] and sum(pl["goods"].values()) for pl in d["players"])


def test_ships_trading_house_and_supply_follow_the_state():
    game = _played(4, seed=11, decisions=300)
    d = game.state_dict()
    text = render_text(game)
    for k, ship in enumerate(d["ships"]):
        assert f"[{k + 1}] {ship['load']}/{ship['capacity']} {ship['good'] or 'empty'}" in text
    house = next(line for line in text.splitlines() if line.startswith("Trading house"))
    assert house.startswith(f"Trading house ({sum(d['trading_house'].values())}/4)")
    supply = next(line for line in text.splitlines() if line.startswith("Goods supply"))
    for good in GOOD_NAMES:
        n = d["goods_supply"][good]
        assert (f"{good} {n}" in supply) == (n > 0)
    assert f"Colonist supply: {d['colonist_supply']}" in text
    assert f"Quarries: {d['quarry_supply']}" in text
    for name, n in d["building_supply"].items():
        assert (f" {name} {n}" in text) == (n > 0), name


def test_the_face_down_plantations_are_drawn_as_a_count_never_in_order():
    """Two games that differ only in the hidden stack order render identically (6.8)."""
    game = _played(3, seed=4, decisions=80)
    other = game.clone()
    K.resample_hidden(other.state, 12345)
    size = int(game.state[L.PLANTATION_STACK_SIZE_F])
    stack = slice(L.PLANTATION_STACK, L.PLANTATION_STACK + size)
    assert not np.array_equal(other.state[stack], game.state[stack])
    assert render_text(other) == render_text(game)
    assert f"{size} face down" in render_text(game)


def test_rendering_changes_nothing():
    game = _played(2, seed=3, decisions=50, expansion=True)
    state = game.state.copy()
    history = list(game.history)
    legal = game.legal_actions()
    assert render_text(game) == render_text(game)
    assert np.array_equal(game.state, state)
    assert game.history == history and game.legal_actions() == legal


def test_expansion_draft_and_options_are_named():
    game = Game(GameConfig(num_players=2, expansion=True, library_limit=True), seed=1)
    text = render_text(game)
    assert "phase draft" in text.splitlines()[0]
    assert "Options: expansion (draft: players), library limit" in text
    assert "Decision: draft for p0" in text


@pytest.mark.parametrize("expansion", [False, True])
def test_the_end_of_the_game_shows_scores_and_ranks(expansion):
    game = _played(3, seed=6, decisions=10_000, expansion=expansion)
    assert game.is_terminal()
    text = render_text(game)
    ranks = game.ranks()
    final = ", ".join(f"p{p} {v} (rank {ranks[p]:g})" for p, v in enumerate(game.scores()))
    assert f"Game over. Final victory points: {final}" in text
    assert "Decision:" not in text and "last round" not in text


def test_a_truncated_game_says_so():
    game = Game(GameConfig(num_players=3, max_decisions=12), seed=2)
    rng = random.Random(2)
    while game.legal_actions():
        game.apply(rng.choice(game.legal_actions()))
    assert game.is_truncated()
    text = render_text(game)
    assert "Game truncated by the decision cap. Final victory points: " in text
    assert "(12 taken)" in text


def test_a_loaded_position_says_so_and_the_last_round_is_announced():
    game = _played(3, seed=9, decisions=40)
    d = game.state_dict()
    d["end_triggered"] = True
    loaded = Game.from_state_dict(d)
    text = render_text(loaded)
    assert text.startswith("Puerto Rico, 3 players, loaded position: round ")
    assert "this is the last round (rules 5.1)" in text
