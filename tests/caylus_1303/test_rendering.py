"""The Caylus 1303 text rendering: the table in the rulebook's words, the compact lines of the
golden playthroughs, and no prestige while the game runs under ``hide_opponent_pp``
(docs/rules/caylus_1303.md 4.7, D37)."""

from __future__ import annotations

import random

import numpy as np
import pytest

from caylus_env.caylus_1303.engine import Game, GameConfig
from caylus_env.caylus_1303.engine import layout as L
from caylus_env.caylus_1303.engine.constants import (
    CHARACTER_TITLES,
    MAX_WORKERS_ON_BUILDING,
    NUM_CHARACTERS,
    ON_BOARD,
    OUT_OF_PLAY,
    ROAD0,
)
from caylus_env.caylus_1303.engine.state import pf
from caylus_env.caylus_1303.rendering import compact_text, prestige_shown, render_text


def _played(num_players: int, seed: int, steps: int, hide: bool = False) -> Game:
    """A game after ``steps`` random decisions (or at its end)."""
    g = Game(GameConfig(num_players=num_players, hide_opponent_pp=hide), seed=seed)
    rng = random.Random(seed)
    for _ in range(steps):
        if g.is_over():
            break
        g.apply(rng.choice(g.legal_actions()))
    return g


def _finish(g: Game, seed: int = 0) -> Game:
    rng = random.Random(seed)
    while not g.is_over():
        g.apply(rng.choice(g.legal_actions()))
    return g


def test_render_text_draws_the_table_in_the_rulebooks_words():
    g = _played(3, seed=1, steps=40)
    txt = render_text(g)
    assert txt.startswith(f"Caylus 1303 (reconstructed rules), 3 players, seed 1: round {g.round}")
    for word in (
        "Decision: ",
        "Legal (",
        "Provost: ",
        "Road:",
        "a Fairground",
        "b Lawyer",
        "c Carpenter",
        "d Toll",
        "-- Provost --",
        "Guilds Bridge (passing order):",
        "Construction Site: S1 ",
        "site slots: W1 ",
        "Wood supply:",
        "Stone supply:",
        "Monument supply:",
        "Characters held:",
        "Characters available:",
        "hand ",
        "Camp ",
        "houses ",
        "prestige",
    ):
        assert word in txt, word
    s = g.state
    for p in range(3):
        assert f"  p{p}: hand" in txt
        assert f"hand {int(s[pf(p, L.P_HAND)])}, Camp {int(s[pf(p, L.P_CAMP)])}" in txt
        assert f"{int(s[pf(p, L.P_PP)])} prestige" in txt
    assert txt == render_text(g)  # no side effects
    assert not txt.endswith("\n")


def test_characters_are_drawn_where_they_are_and_never_when_out_of_play():
    g = _played(4, seed=3, steps=30)
    txt = render_text(g)
    held = txt.split("Characters held:")[1].split("\n")[0]
    available = txt.split("Characters available:")[1].split("\n")[0]
    for c in range(NUM_CHARACTERS):
        h = int(g.state[L.CHARACTER_HOLDER + c])
        title = CHARACTER_TITLES[c]
        if h >= 0:
            assert f"{title} p{h}" in held
        elif h == ON_BOARD:
            assert title in available
        else:
            assert h == OUT_OF_PLAY and title not in txt


def test_workers_owners_and_marks_are_drawn_on_their_space():
    g = _played(3, seed=2, steps=0)
    s = g.state
    sp = ROAD0 + 3  # R3
    s[L.SPACE_WORKER + sp * MAX_WORKERS_ON_BUILDING] = 2
    s[L.SPACE_WORKER + sp * MAX_WORKERS_ON_BUILDING + 1] = 0
    s[L.SPACE_MARK + sp] = 1
    line = next(x for x in render_text(g).splitlines() if x.strip().startswith("R3 "))
    assert line.endswith("Lawyer's mark p1, workers p2, p0")
    assert "R3:" in compact_text(g)[-2] and "!p1+p2,p0" in compact_text(g)[-2]


def test_compact_text_has_a_clock_line_a_line_per_player_the_road_and_the_supply():
    g = _played(4, seed=5, steps=80)
    lines = compact_text(g)
    assert len(lines) == 1 + 4 + 2
    assert lines[0].startswith(f"round {g.round} {g.phase} first p")
    assert f"provost {int(g.state[L.PROVOST])}" in lines[0]
    for p in range(4):
        s = g.state
        assert lines[1 + p].startswith(f"p{p} h{int(s[pf(p, L.P_HAND)])} c")
        assert f" pp{int(s[pf(p, L.P_PP)])} " in lines[1 + p]
    assert lines[5].startswith("road ") and lines[6].startswith("supply wood ")


@pytest.mark.parametrize("num_players", [2, 5])
def test_with_hide_opponent_pp_no_prestige_is_shown_while_the_game_runs(num_players):
    g = _played(num_players, seed=7, steps=90, hide=True)
    assert not g.is_over() and not prestige_shown(g)
    other = g.clone()
    for p in range(num_players):
        other.state[pf(p, L.P_PP)] = 37 + 11 * p  # only prestige differs
    assert not np.array_equal(other.state, g.state)
    assert render_text(other) == render_text(g)
    assert compact_text(other) == compact_text(g)
    txt = render_text(g)
    players = txt.split("Players:")[1]
    assert "prestige (score" not in players and "hidden until the game ends" in players
    assert not any(" pp" in line for line in compact_text(g))


def test_with_hide_opponent_pp_the_final_scores_are_shown_once_the_game_is_over():
    g = _finish(_played(3, seed=8, steps=0, hide=True), seed=8)
    assert prestige_shown(g)
    txt = render_text(g)
    scores = g.scores()
    assert "Game over. Final prestige: " in txt
    for p in range(3):
        assert f"p{p} {scores[p]} (rank" in txt
        assert f"prestige (score {scores[p]})" in txt
        assert f" pp{int(g.state[pf(p, L.P_PP)])} " in compact_text(g)[1 + p]


def test_without_the_option_prestige_is_shown_and_follows_the_state():
    g = _played(3, seed=9, steps=50)
    other = g.clone()
    other.state[pf(1, L.P_PP)] = 77
    assert "77 prestige" in render_text(other) and "77 prestige" not in render_text(g)
