"""``docs/rules/caylus_1303.md`` agrees with the engine: its decisions are the ``RULES`` table
(D1-D39, same keys, numbers and confidence), its data tables hold the tile table's costs,
prestige and copies (rules 5.2-5.5) and the characters in rulebook order (rules 5.6), and every
rule number the Caylus 1303 code cites ("rules 4.2", "(4.5)", "D20") exists in it."""

from __future__ import annotations

import io
import re
import tokenize
from pathlib import Path

import pytest

from caylus_env.caylus_1303.engine.constants import CHARACTER_TITLES
from caylus_env.caylus_1303.engine.rules import BY_NUMBER, RULES
from caylus_env.caylus_1303.engine.tiles import COST_KEYS, TILES, Group

ROOT = Path(__file__).resolve().parents[2]
DOC = ROOT / "docs" / "rules" / "caylus_1303.md"
CITING = [ROOT / "caylus_env" / "caylus_1303", ROOT / "tests" / "caylus_1303"]
TEXT = DOC.read_text(encoding="utf-8")
SECTIONS = set(re.findall(r"(?m)^#{2,3} (\d(?:\.\d+)?)\.? ", TEXT))
DECISIONS = {int(n): key for n, key in re.findall(r"(?m)^### D(\d+) (\w+)\s*$", TEXT)}

_REF = r"\d\.\d{1,2}(?!\d)|\d(?![\d.])"
_LIST = rf"(?:{_REF})(?:\s*(?:,|-|and)\s*(?:{_REF}))*"
_RULES = re.compile(rf"\brules\s+(?P<list>{_LIST})")
_PAREN = re.compile(r"\((?P<list>\d\.\d{1,2}(?:\s*,\s*\d\.\d{1,2})*)\)")
_DEC = re.compile(r"\bD(\d{1,2})\b")


def citations(text: str) -> tuple[set[str], set[int]]:
    """Sections cited by "rules 4.2", "rules 4.1-4.4", "(4.5)", and decisions by "D20"."""
    found = set()
    for m in list(_RULES.finditer(text)) + list(_PAREN.finditer(text)):
        found |= set(re.findall(_REF, m.group("list")))
    return found, {int(d) for d in _DEC.findall(text)}


def _prose(path: Path):
    for tok in tokenize.generate_tokens(io.StringIO(path.read_text(encoding="utf-8")).readline):
        if tok.type in (tokenize.COMMENT, tokenize.STRING):
            yield tok.start[0], tok.string


def _cited() -> list[tuple[str, str | int]]:
    out: list[tuple[str, str | int]] = []
    for folder in CITING:
        for path in sorted(folder.rglob("*.py")):
            for line, text in _prose(path):
                sections, decisions = citations(text)
                where = f"{path.relative_to(ROOT)}:{line}"
                out += [(where, ref) for ref in sorted(sections)]
                out += [(where, d) for d in sorted(decisions)]
    return out


def test_every_cited_section_and_decision_exists():
    cited = _cited()
    assert len(cited) > 50, "the scan finds too few citations to be working"
    missing = [
        f"{where}: {ref}"
        for where, ref in cited
        if (ref not in SECTIONS if isinstance(ref, str) else ref not in DECISIONS)
    ]
    assert not missing, "docs/rules/caylus_1303.md has no section for:\n" + "\n".join(missing)


def test_the_decisions_of_section_7_are_the_rules_table():
    assert {d.number: d.key for d in RULES.values()} == DECISIONS
    assert sorted(DECISIONS) == list(range(1, 40))


@pytest.mark.parametrize("number", sorted(BY_NUMBER))
def test_each_decision_states_the_confidence_of_the_rules_table(number):
    decision = BY_NUMBER[number]
    body = TEXT.split(f"### D{number} {decision.key}", 1)[1].split("\n### ", 1)[0]
    for label in ("**Fills:**", "**Choice:**", "**Why:**", "**Confidence:**"):
        assert label in body, f"D{number} has no {label}"
    line = body.split("**Confidence:**", 1)[1].split("\n\n", 1)[0]
    word = "engine" if decision.confidence == "engine" else decision.confidence
    assert word in line, f"D{number}: RULES says {decision.confidence!r}, the document {line!r}"


def _table(section: str) -> list[dict[str, str]]:
    body = TEXT.split(f"### {section} ", 1)[1].split("\n#", 1)[0]
    lines = [ln for ln in body.splitlines() if ln.startswith("|")]
    header = [c.strip() for c in lines[0].strip("|").split("|")]
    return [
        dict(zip(header, (c.strip() for c in ln.strip("|").split("|")), strict=True))
        for ln in lines[2:]
    ]


def _cost(text: str) -> dict[str, int]:
    out: dict[str, int] = {}
    for amount, key in re.findall(r"(\d+) (\w+)", text):
        assert key in COST_KEYS, (text, key)
        out[key] = int(amount)
    return out


def _by_title(group: Group) -> dict[str, object]:
    return {t.title: t for t in TILES if t.group == group}


@pytest.mark.parametrize(
    ("section", "group", "name_column"),
    [
        ("5.3", Group.WOOD, "Tile"),
        ("5.4", Group.STONE, "Tile"),
        ("5.5", Group.MONUMENT, "Monument"),
    ],
)
def test_costs_and_prestige_of_the_tables_are_the_tile_table(section, group, name_column):
    rows = _table(section)
    tiles = _by_title(group)
    assert sorted(r[name_column] for r in rows) == sorted(tiles)
    for row in rows:
        tile = tiles[row[name_column]]
        assert _cost(row["Cost"]) == dict(tile.cost), row
        assert int(re.match(r"\d+", row["PP"]).group()) == tile.pp, row


def test_starting_buildings_and_their_copies():
    rows = _table("5.2")
    tiles = _by_title(Group.STARTING)
    assert {r["Tile"]: int(r["Copies"]) for r in rows} == {t: tiles[t].copies for t in tiles}
    assert sum(int(r["Copies"]) for r in rows) == 9  # rules 2.1: 9 starting tiles


def test_characters_in_rulebook_order():
    rows = _table("5.6")
    assert [r["Name"] for r in rows] == list(CHARACTER_TITLES)
    assert [int(r["#"]) for r in rows] == list(range(1, 13))
