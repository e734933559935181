"""The public position builders (``caylus_env.core.positions`` and every game's ``positions``):
positions built from descriptions keep every invariant, reload, and play on to the end under
random legal moves; descriptions that cannot be built are refused with the documented
``PositionError`` naming the field; the examples of ``docs/positions.md`` run as written."""

from __future__ import annotations

import copy
import re
from pathlib import Path

import pytest

from caylus_env.core import positions as P
from caylus_env.core.errors import InvalidStateError
from caylus_env.core.positions import PositionError
from caylus_env.core.registry import GAME_NAMES, game_spec

ROOT = Path(__file__).resolve().parents[1]

#: Per game: named descriptions (start of game, mid-game, endgame puzzle), as (players, fields).
POSITIONS = {
    "caylus": {
        "start": (4, {}),
        "mid_game": (
            3,
            {
                "turn": 5,
                "provost": 10,
                "bailiff": 10,
                "turn_order": [2, 0, 1],
                "players": [
                    {"money": 6, "wood": 2, "stone": 1, "buildings": ["sawmill", "peddler"]},
                    {"money": 3, "food": 4, "cloth": 1, "prestige": 9, "buildings": ["farm_food"]},
                    {"money": 11, "prestige": 5, "favors": {"deniers": 1}},
                ],
                "castle": {"dungeon": [2, 1, 2]},
                "workers": {9: 1, "gate": 2, "castle": [0]},
                "passed": [],
            },
        ),
        "endgame": (
            2,
            {
                "turn": 14,
                "provost": 22,
                "bailiff": 22,
                "phase": "activation",
                "players": [
                    {"money": 2, "stone": 3, "gold": 2, "prestige": 51, "buildings": ["mason"]},
                    {"money": 12, "wood": 2, "prestige": 50, "buildings": ["quarry", "church"]},
                ],
                "castle": {"dungeon": [3, 3], "walls": [5, 5], "towers": [4, 3]},
                "scored": ["dungeon", "walls"],
                "workers": {9: 1, 4: 0},
                "passed": [1, 0],
            },
        ),
    },
    "puerto_rico": {
        "start": (3, {}),
        "mid_game": (
            4,
            {
                "round": 7,
                "governor": 2,
                "picked": ["settler"],
                "role": "builder",
                "role_doubloons": {"captain": 1, "trader": 2},
                "players": {
                    0: {
                        "money": 5,
                        "vp": 4,
                        "plantations": {"corn": 2, "indigo": 1, "quarry": 1},
                        "worked": {"corn": 2, "quarry": 1},
                        "buildings": {"small_indigo_plant": 1, "hacienda": 0},
                        "san_juan": 1,
                        "goods": {"corn": 2},
                    },
                    2: {"money": 1, "vp": 6, "buildings": ["small_market"], "goods": {"sugar": 1}},
                },
                "ships": [None, ("corn", 3), None],
                "trading_house": {"indigo": 1, "coffee": 1},
                "colonist_ship": 5,
            },
        ),
        "endgame": (
            2,
            {
                "round": 14,
                "role": "captain",
                "picker": 1,
                "picked": ["builder", "trader"],
                "players": [
                    {"vp": 30, "goods": {"coffee": 2, "corn": 1}, "buildings": ["harbor"]},
                    {"vp": 33, "goods": {"corn": 4}, "buildings": {"wharf": 1}},
                ],
                "ships": [("corn", 3), None],
                "end_triggered": True,
            },
        ),
    },
    "caylus_1303": {
        "start": (4, {}),
        "mid_game": (
            4,
            {
                "round": 5,
                "first_player": 2,
                "bridge": [2],
                "turn": 3,
                "players": {
                    0: {
                        "hand": 5,
                        "resources": {"food": 3, "wood": 1, "cloth": 2},
                        "pp": 14,
                        "buildings": ["wooden_farm", "tailor"],
                        "characters": ["journeyman"],
                    },
                    1: {"hand": 3, "pp": 9, "residences": ["R4"], "characters": ["thief"]},
                    2: {"hand": 2, "pp": 11, "buildings": ["gold_mine"]},
                    3: {"hand": 6, "resources": {"stone": 2, "gold": 1}, "pp": 6},
                },
                "workers": {"R1": 0, "R10": [1, 0], "fairground": 3},
                "site": [1],
            },
        ),
        "endgame": (
            2,
            {
                "round": 9,
                "phase": "activation",
                "at": "R10",
                "provost": 12,
                "players": [
                    {
                        "hand": 2,
                        "resources": {"gold": 3, "stone": 4, "food": 2},
                        "pp": 61,
                        "buildings": ["stone_quarry", "church"],
                        "residences": ["R2", "R6"],
                        "monuments": ["cathedral"],
                    },
                    {
                        "hand": 4,
                        "resources": {"cloth": 3, "wood": 2},
                        "pp": 58,
                        "residences": ["R3"],
                        "characters": ["architect"],
                    },
                ],
                "workers": {"R10": 1, "R11": 0},
                "site": [0],
            },
        ),
    },
}


def _check(game, name: str) -> None:
    spec = game_spec(name)
    code = int(spec.engine().kernels.check_invariants(game.state))
    assert code == 0, spec.engine().INVARIANT_MESSAGES[code]


@pytest.mark.parametrize("name", GAME_NAMES)
def test_every_game_exposes_the_builder_through_the_contract(name):
    module = P.positions(name)
    assert {"build", "build_dict", "FIELDS", "play", "legal_names"} <= set(dir(module))
    assert module.play is P.play and module.legal_names is P.legal_names
    assert set(POSITIONS[name]) == {"start", "mid_game", "endgame"}


@pytest.mark.parametrize(
    ("name", "label"), [(n, label) for n in GAME_NAMES for label in POSITIONS[n]]
)
def test_built_positions_keep_the_invariants_reload_and_play_to_the_end(name, label):
    players, description = POSITIONS[name][label]
    g = P.build(name, players, **copy.deepcopy(description))
    _check(g, name)
    assert g.num_players == players and not g.is_over()
    again = P.positions(name).start(g.state_dict())  # the engine's own loader takes it back
    assert again.state_dict() == g.state_dict()
    for seed in range(2):
        h = g.clone()
        played = P.play_out(h, seed)
        assert h.is_over() and played > 0
        _check(h, name)


@pytest.mark.parametrize("name", GAME_NAMES)
def test_an_empty_description_is_the_start_position(name):
    module = P.positions(name)
    for n in game_spec(name).player_counts:
        built = module.build(n).state_dict()
        assert built == module.start(module.position(n)).state_dict()


def test_caylus_description_fills_stock_houses_and_workers():
    d = P.positions("caylus").build_dict(3, **copy.deepcopy(POSITIONS["caylus"]["mid_game"][1]))
    assert d["stock"]["sawmill"] == 0 and d["stock"]["peddler"] == 0
    assert [p["houses"] for p in d["players"]] == [2 + 2, 1 + 1, 0 + 2]
    assert [p["workers_out"] for p in d["players"]] == [1, 1, 1]
    assert [r["building"] for r in d["road"][8:11]] == ["sawmill", "peddler", "farm_food"]
    assert d["special_workers"]["gate"] == 2 and d["castle_workers"] == [0]


def test_puerto_rico_description_fills_every_supply_from_the_totals():
    d = P.positions("puerto_rico").build_dict(
        4, **copy.deepcopy(POSITIONS["puerto_rico"]["mid_game"][1])
    )
    players = d["players"]
    assert d["bank_paid"] == sum(p["money"] for p in players) + 3
    assert d["vp_supply"] == 100 - 4 - 6
    assert d["quarry_supply"] == 8 - 1
    assert d["colonist_supply"] == 75 + 4 - 5 - (1 + 3 + 1)
    assert d["goods_supply"]["corn"] == 10 - 2 - 3 and d["goods_supply"]["coffee"] == 9 - 1
    assert d["building_supply"]["small_market"] == 1 and d["building_supply"]["hacienda"] == 1
    tiles = {
        k: d["face_up"][k] + d["discards"][k] + d["plantation_stack"].count(k) for k in d["face_up"]
    }
    on_islands = {k: sum(p["island"][k] for p in players) for k in tiles}
    assert {k: tiles[k] + on_islands[k] for k in tiles} == {
        "corn": 10, "indigo": 12, "sugar": 11, "tobacco": 9, "coffee": 8,
    }  # fmt: skip
    assert (d["phase"], d["picker"], d["picks"]) == ("builder", 3, 2)


def test_puerto_rico_expansion_positions_draft_owned_buildings_and_forests():
    g = P.build(
        "puerto_rico",
        3,
        options={"expansion": True},
        players={1: {"buildings": ["library", "guest_house"], "plantations": {"forest": 2}}},
        drafted=["lighthouse"],
    )
    d = g.state_dict()
    copies = {
        b.name: b.copies for b in game_spec("puerto_rico").module("engine").buildings.BUILDINGS
    }
    assert d["building_supply"]["library"] == copies["library"] - 1
    assert d["building_supply"]["lighthouse"] == copies["lighthouse"]
    assert sum(d["forested"].values()) == 2
    _check(g, "puerto_rico")
    P.play_out(g, 3)
    assert g.is_over()


BAD = [
    ("caylus", {"moneyy": 3}, "unknown field 'moneyy'"),
    ("caylus", {"players": [{"buildings": ["castle_keep"]}]}, "players[0].buildings='castle_keep'"),
    ("caylus", {"players": [{"buildings": ["lawyer", "lawyer"]}]}, "lawyer tiles: 2 placed"),
    ("caylus", {"players": [{"gold": -1}]}, "players[0].gold=-1"),
    ("caylus", {"players": [{"food": 2.5}]}, "players[0].food must be a whole number"),
    ("caylus", {"players": {7: {}}}, "players key=7"),
    ("caylus", {"castle": {"dungeon": [4, 3]}}, "castle.dungeon houses: 7 placed"),
    ("caylus", {"castle": {"keep": [0, 0]}}, "castle='keep'"),
    ("caylus", {"workers": {"castle": [0] * 7}}, "players[0] workers: 7 placed"),
    ("caylus", {"workers": {12: 0}}, "no building on road space 12"),
    ("caylus", {"phase": "lunch"}, "phase='lunch'"),
    ("caylus", {"road": {7: "farm_food"}}, "space 7 holds its printed building"),
    ("caylus", {"turn_order": [0, 0]}, "turn_order"),
    ("caylus", {"options": {"jewel": True}}, "options: unknown field 'jewel'"),
    ("puerto_rico", {"colonists": 3}, "unknown field 'colonists'"),
    ("puerto_rico", {"players": [{"buildings": ["palace"]}]}, "players[0].buildings='palace'"),
    (
        "puerto_rico",
        {"players": [{"buildings": ["library"]}]},
        "library is a building of the expansion",
    ),
    (
        "puerto_rico",
        {"players": [{"goods": {"corn": 9}}]},
        "corn barrels: 9 placed but the game has 8",
    ),
    ("puerto_rico", {"players": [{"plantations": {"quarry": 6}}]}, "quarries: 6 placed"),
    ("puerto_rico", {"players": [{"san_juan": 41}]}, "colonists: 43 placed"),
    ("puerto_rico", {"players": [{"plantations": {"coffee": 9}}]}, "coffee plantations: 9 placed"),
    ("puerto_rico", {"players": [{"worked": {"coffee": 1}}]}, "more colonists than coffee tiles"),
    ("puerto_rico", {"players": [{"buildings": {"harbor": 2}}]}, "players[0].buildings.harbor=2"),
    ("puerto_rico", {"players": [{"money": True}]}, "players[0].money must be a whole number"),
    ("puerto_rico", {"role": "prospector_1"}, "role='prospector_1'"),
    ("puerto_rico", {"role": "mayor", "picked": ["mayor"]}, "picked at most once"),
    ("puerto_rico", {"picker": 1}, "picker: only with a role"),
    (
        "puerto_rico",
        {"picked": ["settler"], "role_doubloons": {"settler": 1}},
        "went to its picker",
    ),
    ("puerto_rico", {"ships": [("corn", 5)]}, "ships[0] barrels=5"),
    ("puerto_rico", {"ships": [("corn", 1), ("corn", 1)]}, "corn is already on another ship"),
    ("puerto_rico", {"ships": [None, None, None]}, "at most 2 ships"),
    ("puerto_rico", {"trading_house": {"corn": 3, "sugar": 2}}, "trading_house holds 5"),
    ("puerto_rico", {"face_up": {"corn": 9}}, "corn plantations"),
    ("puerto_rico", {"drafted": ["lighthouse"]}, "need options.expansion"),
    ("puerto_rico", {"options": {"expansion": "yes"}}, "options:"),
    ("caylus_1303", {"gems": 1}, "description: unknown field 'gems'"),
    ("caylus_1303", {"players": [{"buildings": ["castle"]}]}, "players[0].buildings='castle'"),
    (
        "caylus_1303",
        {"players": [{"buildings": ["manor"]}, {"buildings": ["manor"]}]},
        "manor tiles: 2 placed but the game has 1",
    ),
    ("caylus_1303", {"players": [{"resources": {"gold": -1}}]}, "players[0].resources.gold=-1"),
    ("caylus_1303", {"players": [{"pp": 2.5}]}, "players[0].pp must be a whole number"),
    ("caylus_1303", {"players": {7: {}}}, "players key=7"),
    ("caylus_1303", {"players": [{"monuments": ["statue"]}]}, "need as many residences"),
    ("caylus_1303", {"road": {"R1": "farm", "R2": "farm", "R3": "farm"}}, "farm starting tiles"),
    ("caylus_1303", {"workers": {"S2": 0}}, "workers='S2'"),
    ("caylus_1303", {"phase": "lunch"}, "phase='lunch'"),
    ("caylus_1303", {"options": {"jewel": True}}, "options: unknown field 'jewel'"),
]


@pytest.mark.parametrize(("name", "description", "message"), BAD)
def test_bad_descriptions_are_refused_naming_the_field(name, description, message):
    with pytest.raises(PositionError, match=re.escape(message)):
        P.build(name, 2, **description)


@pytest.mark.parametrize("name", GAME_NAMES)
def test_player_count_out_of_range_is_refused(name):
    spec = game_spec(name)
    with pytest.raises(PositionError, match="num_players=9"):
        P.build(name, 9)
    with pytest.raises(ValueError, match="unknown game"):
        P.build("chess", spec.min_players)


def test_positions_the_rules_forbid_are_refused_by_the_engine_validation():
    with pytest.raises(InvalidStateError, match="bailiff"):
        P.build("caylus", 2, turn=12)  # the bailiff cannot still stand on its start
    with pytest.raises(InvalidStateError):
        P.build("puerto_rico", 2, players=[{"buildings": ["fortress", "residence", "guild_hall",
                                                         "city_hall", "customs_house", "harbor",
                                                         "wharf", "office"]}])  # fmt: skip


def test_play_and_legal_names_are_public_forced_moves():
    g = P.build("puerto_rico", 3, role="settler")
    names = P.legal_names(g)
    assert "settle:quarry" in names
    P.play(g, "settle:quarry")
    assert g.state_dict()["players"][0]["island"]["quarry"] == 1
    with pytest.raises(ValueError, match="settle:palace"):
        P.play(g, "settle:palace")


def _doc_blocks() -> list[str]:
    return re.findall(r"```python\n(.+?)```", (ROOT / "docs/positions.md").read_text(), re.S)


def test_docs_positions_page_has_an_example_per_game():
    text = "\n".join(_doc_blocks())
    for name in GAME_NAMES:
        assert f'"{name}"' in text or f"caylus_env.{name} import positions" in text


def test_docs_positions_table_names_every_function_of_the_positions_contract():
    """The page's table of the builder's functions lists every function the contract requires
    of a game's ``positions`` module (``describe`` joined the contract after the table)."""
    from caylus_env.core.contract import REQUIRED

    text = (ROOT / "docs/positions.md").read_text()
    table = re.search(r"^\| function \|.*?\n\n", text, re.M | re.S).group(0)
    for name in REQUIRED["positions"]:
        if name.isupper():
            continue  # a constant (FIELDS) is described beside the fields, not in the table
        assert f"`{name}(" in table, f"docs/positions.md's table does not list {name}"


@pytest.mark.parametrize("index", range(len(_doc_blocks())))
def test_docs_positions_examples_run(index):
    exec(compile(_doc_blocks()[index], f"docs/positions.md block {index}", "exec"), {})


# -- fuzz: every case in a watched worker (tests/fuzz_positions.py) ------------------------------


def _fuzz(cases: int, seed: int, boundscheck: bool = False) -> None:
    from tests.fuzz_positions import fuzz

    counts, findings = fuzz(cases, seed, boundscheck=boundscheck)
    assert sum(counts.values()) == cases
    assert counts["ok"] >= cases // 5  # the valid controls, at least
    assert not findings, "\n".join(findings)


def test_fuzzed_descriptions_are_built_right_or_refused_with_one_line():
    _fuzz(200, seed=1)


@pytest.mark.slow
def test_fuzzed_descriptions_long_run():
    _fuzz(3000, seed=2)


@pytest.mark.slow
def test_fuzzed_descriptions_under_boundscheck():
    _fuzz(400, seed=3, boundscheck=True)
