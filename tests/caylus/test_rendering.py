"""Text rendering of Caylus's table (road, special buildings, castle, favor table, holdings)
drawn from the state, without side effects. The frame every game shares (heading, decision,
end): ``tests/core/test_rendering.py``.
"""

from __future__ import annotations

import random
import re

from caylus_env.caylus.engine import Game, GameConfig
from caylus_env.caylus.engine.board import ROAD_LEN
from caylus_env.caylus.engine.constants import FAVOR_ROW_NAMES, RESOURCE_NAMES, SECTION_NAMES
from caylus_env.caylus.rendering import render_text
from caylus_env.core.registry import game_spec


def _played(num_players: int, seed: int, decisions: int) -> Game:
    """A game of Caylus played at random from ``seed`` for ``decisions`` moves (or to its end)."""
    spec = game_spec("caylus")
    game = spec.new_game(spec.config(num_players), seed)
    rng = random.Random(seed)
    while not game.is_over() and len(game.history) < decisions:
        game.apply(rng.choice(game.legal_actions()))
    return game


def _road_line(text: str, space: int) -> str:
    for line in text.splitlines():
        if re.match(rf"\s+{space}\s{{2}}", line):
            return line
    raise AssertionError(f"no road line for space {space}")


def test_start_position_shows_every_section():
    game = Game(GameConfig(num_players=4), seed=7)
    text = render_text(game)
    assert text.startswith("Caylus, 4 players, seed 7: turn 1, phase placement")
    for heading in ("Road:", "Special buildings:", "Castle:", "Favor table:", "Players:"):
        assert heading in text
    assert "Turn order: " + " ".join(f"p{p}" for p in game.state_dict()["turn_order"]) in text
    assert "Passed: nobody" in text
    for name in ("gate", "trading_post", "merchants_guild", "joust_field", "stables", "inn"):
        assert f"{name}:" in text
    for name in SECTION_NAMES + FAVOR_ROW_NAMES + RESOURCE_NAMES:
        assert name in text
    for p in range(4):
        assert re.search(rf"^\s+p{p}\s+\d+", text, re.MULTILINE)
    assert "\x1b" not in text  # plain text, no colour codes


def test_road_lists_every_space_with_building_owner_worker_and_markers():
    game = _played(3, seed=5, decisions=150)
    d = game.state_dict()
    text = render_text(game)
    for road in d["road"]:
        line = _road_line(text, road["space"])
        assert (road["building"] or "(empty)") in line
        cells = line.split()
        owner, worker = cells[2], cells[3]
        assert owner == ("-" if road["owner"] is None else f"p{road['owner']}")
        assert worker == ("-" if road["worker"] is None else f"p{road['worker']}")
    assert "P" in _road_line(text, d["provost"]).split()[4:]
    assert "B" in _road_line(text, d["bailiff"]).split()[4:]
    assert len([ln for ln in text.splitlines() if re.match(r"\s+\d+\s{2}\S", ln)]) >= ROAD_LEN


def test_special_buildings_inn_castle_workers_and_lawyer_marks():
    game = Game(GameConfig(num_players=4), seed=3)
    d = game.state_dict()
    d["special_workers"]["gate"] = 2
    d["special_workers"]["joust_field"] = 0
    d["stables"] = [3, None, None]
    d["inn"] = {"left": 1, "right": 2}
    d["castle_workers"] = [1, 3]
    d["road"][0]["worker"] = 0  # space 1 (a neutral building) ...
    d["road"][0]["lawyer_pending"] = 3  # ... which player 3's paid lawyer turns into a residence
    d["players"][3]["houses"] += 1  # the residence's house is placed when the lawyer is paid
    for p in range(4):  # two workers each on the board above; everyone passed: phase 3 starts
        d["players"][p].update(workers_out=2, passed=True)
    d["passing_order"] = list(d["turn_order"])
    d["phase"], d["cursor"], d["pending"] = "special_buildings", 0, []
    game = Game.from_state_dict(d)  # runs to the gate worker's decision
    text = render_text(game)
    assert "gate: p2" in text and "joust_field: p0" in text and "trading_post: -" in text
    assert "stables: p3 - -" in text
    assert "inn: left p1, right p2" in text
    assert "castle workers: p1 p3" in text
    assert "lawyer:p3" in _road_line(text, 1)
    assert "loaded position" in text


def test_castle_and_favor_table_and_holdings_match_the_state():
    game = _played(4, seed=9, decisions=400)
    d = game.state_dict()
    text = render_text(game)
    for name in SECTION_NAMES:
        line = next(ln for ln in text.splitlines() if ln.split()[:1] == [name])
        houses = d["castle"][name]
        assert line.split()[-len(houses) :] == [str(h) for h in houses]
        assert ("yes" if d["scored"][name] else "no") in line.split()
    for row in FAVOR_ROW_NAMES:
        line = next(ln for ln in text.splitlines() if ln.split()[:1] == [row])
        assert line.split()[1:] == [str(pl["favor_columns"][row]) for pl in d["players"]]
    for p, pl in enumerate(d["players"]):
        line = next(ln for ln in text.splitlines() if ln.split()[:1] == [f"p{p}"])
        cells = line.split()
        assert cells[1] == str(pl["money"])
        assert cells[2:7] == [str(pl["cubes"][r]) for r in RESOURCE_NAMES]
        assert cells[7] == str(pl["prestige"])
        assert cells[9] == str(pl["houses"])
