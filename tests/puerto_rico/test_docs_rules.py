"""``docs/rules/puerto_rico.md`` agrees with the engine, and every rule number the Puerto
Rico code cites ("rules 4.6", "(2.4)", "(rules 6.3, 6.6)") is a section of it."""

from __future__ import annotations

import io
import re
import tokenize
from pathlib import Path

import pytest

from caylus_env.puerto_rico.engine.buildings import BUILDINGS
from caylus_env.puerto_rico.engine.constants import (
    COLONIST_SUPPLY,
    COLONISTS_ON_SHIP,
    DECISION_NAMES,
    GOOD_NAMES,
    GOOD_PRICE,
    GOODS_IN_BOX,
    PLANTATIONS_IN_BOX,
    QUARRIES,
    SHIP_CAPACITY,
    START_DOUBLOONS,
    VP_CHIPS,
)

ROOT = Path(__file__).resolve().parents[2]
DOC = ROOT / "docs" / "rules" / "puerto_rico.md"
CITING = [ROOT / "caylus_env" / "puerto_rico", ROOT / "tests" / "puerto_rico", ROOT / "bench"]
TEXT = DOC.read_text(encoding="utf-8")
SECTIONS = set(re.findall(r"(?m)^#{2,3} (\d(?:\.\d+)?)\.? ", TEXT))

_REF = r"\d\.\d{1,2}(?!\d)|\d(?![\d.])"
_LIST = rf"(?:{_REF})(?:\s*(?:,|-|and)\s*(?:{_REF}))*"
_RULES = re.compile(rf"\brules\s+(?P<list>{_LIST})")
_PAREN = re.compile(r"\((?P<list>\d\.\d{1,2}(?:\s*,\s*\d\.\d{1,2})*)\)")


def citations(text: str) -> set[str]:
    """Section numbers cited by "rules 4.6", "rules 1.2-1.4" or "(2.4, 6.5)"."""
    found = set()
    for m in list(_RULES.finditer(text)) + list(_PAREN.finditer(text)):
        found |= set(re.findall(_REF, m.group("list")))
    return found


def _prose(path: Path):
    for tok in tokenize.generate_tokens(io.StringIO(path.read_text(encoding="utf-8")).readline):
        if tok.type in (tokenize.COMMENT, tokenize.STRING):
            yield tok.start[0], tok.string


def _cited() -> list[tuple[str, str]]:
    out = []
    for folder in CITING:
        for path in sorted(folder.rglob("*.py")):
            for line, text in _prose(path):
                out += [(f"{path.relative_to(ROOT)}:{line}", ref) for ref in citations(text)]
    return out


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("(rules 4.6, 2.4)", {"4.6", "2.4"}),
        ("rules 1.2-1.4", {"1.2", "1.4"}),
        ("the bank (6.7)", {"6.7"}),
        ("(2.4, 6.5, 6.11)", {"2.4", "6.5", "6.11"}),
        ("rules 5", {"5"}),
        ("(0, 0, 1)", set()),
        ("a 1.5 ratio", set()),
    ],
)
def test_citation_reader(text, expected):
    assert citations(text) == expected


def test_the_code_cites_the_rules():
    cited = {ref for _, ref in _cited()}
    assert {"4.6", "6.6", "2.4", "4.2"} <= cited


def test_every_cited_section_exists():
    missing = [f"{where}: {ref}" for where, ref in _cited() if ref not in SECTIONS]
    assert not missing, "docs/rules/puerto_rico.md has no section for:\n" + "\n".join(missing)


def _table(first_header: str) -> list[list[str]]:
    rows = []
    lines = TEXT.splitlines()
    for i, line in enumerate(lines):
        if re.match(rf"\|\s*{first_header}\s*\|", line):
            for row in lines[i + 2 :]:
                if not row.startswith("|"):
                    break
                rows.append([c.strip() for c in row.strip("|").split("|")])
    return rows


def test_building_tables_match_the_engine():
    rows = {r[0]: r for r in _table("Building")}
    assert set(rows) == {b.name for b in BUILDINGS}
    for b in BUILDINGS:
        r = rows[b.name]
        assert [int(r[1]), int(r[2]), int(r[3]), int(r[4])] == [b.cost, b.vp, b.column, b.circles]
        assert r[5] == f"{b.copies} / {b.copies_2p}", b.name


def test_goods_table_matches_the_engine():
    rows = _table("Good")
    assert [r[0] for r in rows] == list(GOOD_NAMES)
    for g, r in enumerate(rows):
        assert [int(r[1]), int(r[2]), int(r[3])] == [
            PLANTATIONS_IN_BOX[g], GOODS_IN_BOX[g], GOOD_PRICE[g]]  # fmt: skip


def test_setup_table_matches_the_engine():
    for r in _table("Players"):
        n = int(r[0])
        assert int(r[1]) == START_DOUBLOONS[n]
        assert [int(x) for x in r[4].split(", ")] == [c for c in SHIP_CAPACITY[n] if c]
        assert (int(r[5]), int(r[6]), int(r[7]), int(r[8])) == (
            COLONIST_SUPPLY[n], COLONISTS_ON_SHIP[n], VP_CHIPS[n], QUARRIES[n])  # fmt: skip


def test_decision_table_names_every_engine_decision():
    named = [re.search(r"`(\w+)`", r[0]).group(1) for r in _table("Decision")]
    assert sorted(named) == sorted(DECISION_NAMES)
