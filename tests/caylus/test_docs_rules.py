"""The rules reference ``docs/rules/caylus.md`` agrees with the engine and the code's citations.

Two promises of that document are checked here: its data tables hold the engine's numbers
(the building table of rules 3.1/3.2, the favor values of 5.1, the castle of 2.1 and
phase 7, the starting deniers of 1.3), and every rule number the code cites ("rules 5.3",
"rules sheet 1.4", "(8.6)", "phase 5c", "3.2 W8", "1.2 step 7", "T25") names a heading,
a numbered item, a table id or a worked example of the document.
"""

from __future__ import annotations

import io
import re
import tokenize
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

import pytest

from caylus_env.caylus.engine.board import (
    FAVOR_DENIERS,
    FAVOR_PRESTIGE,
    SECTION_EMPTY_PENALTY,
    SECTION_FAVORS,
    SECTION_PRESTIGE,
    SECTION_SIZE,
    SECTION_TRIGGER,
)
from caylus_env.caylus.engine.buildings import BUILDINGS, BuildingKind, BuildingSpec
from caylus_env.caylus.engine.constants import (
    DECISION_NAMES,
    LAWYER_COST_CLOTH,
    LAWYER_COST_DENIERS,
    MAX_PLAYERS,
    MIN_PLAYERS,
    RESOURCE_NAMES,
    SECTION_NAMES,
    SPECIAL_NAMES,
    START_DENIERS,
    START_DENIERS_TWO_PLAYERS,
    Resource,
)

ROOT = Path(__file__).resolve().parents[2]
DOC = ROOT / "docs" / "rules" / "caylus.md"
#: Python packages whose comments and docstrings cite the rules.
CITING_DIRS = ("caylus_env", "caylus_cli", "agents", "tests")

CUBE_LETTERS = {r.name[0]: int(r) for r in Resource}  # F W S C G, as in the document
KIND_LETTERS = {
    "N": BuildingKind.NEUTRAL,
    "W": BuildingKind.WOOD,
    "S": BuildingKind.STONE,
    "R": BuildingKind.RESIDENTIAL,
    "P": BuildingKind.PRESTIGE,
}


# ------------------------------------------------------------------------------------------
# Reading the document
# ------------------------------------------------------------------------------------------
@dataclass
class Table:
    section: str  # number of the closest numbered heading above the table ("3.2")
    header: list[str]
    rows: list[list[str]]

    def column(self, name: str) -> int:
        if name not in self.header:
            raise AssertionError(f"table in {self.section} has no column {name!r}: {self.header}")
        return self.header.index(name)


@dataclass
class Doc:
    sections: set[str] = field(default_factory=set)  # "1", "1.2", "8.27"
    phases: set[str] = field(default_factory=set)  # "5"
    substeps: set[str] = field(default_factory=set)  # "5c"
    examples: set[str] = field(default_factory=set)  # "T25"
    steps: dict[str, set[str]] = field(default_factory=dict)  # "1.2" -> {"1", ..., "8"}
    tile_ids: dict[str, set[str]] = field(default_factory=dict)  # "3.2" -> {"W8", "S4", ...}
    tables: list[Table] = field(default_factory=list)


def _cells(line: str) -> list[str]:
    return [c.strip() for c in line.strip().strip("|").split("|")]


def _read_doc(text: str) -> Doc:
    doc = Doc()
    section = ""
    lines = text.splitlines()
    i = 0
    while i < len(lines):
        line = lines[i]
        if m := re.match(r"#{1,6}\s+(\d+(?:\.\d+)?)\.?\s", line):
            section = m.group(1)
            doc.sections.add(section)
        if m := re.match(r"#{1,6}\s+Phase\s+([1-7])\b", line):
            doc.phases.add(m.group(1))
        if m := re.match(r"\*\*(\d+\.\d+)\s", line):
            doc.sections.add(m.group(1))
        if m := re.match(r"\*\*([1-7][a-f])\.", line):
            doc.substeps.add(m.group(1))
        if m := re.match(r"\*\*(T\d+)\.", line):
            doc.examples.add(m.group(1))
        if m := re.match(r"(\d+)\.\s", line):
            doc.steps.setdefault(section, set()).add(m.group(1))
        is_row = line.lstrip().startswith("|")
        if is_row and i + 1 < len(lines) and re.match(r"\s*\|[\s|:-]+\|$", lines[i + 1]):
            header = _cells(line)
            rows = []
            i += 2
            while i < len(lines) and lines[i].lstrip().startswith("|"):
                rows.append(_cells(lines[i]))
                i += 1
            doc.tables.append(Table(section, header, rows))
            if header[0] == "Id":
                for row in rows:
                    doc.tile_ids.setdefault(section, set()).update(row[0].split("/"))
            continue
        i += 1
    return doc


@pytest.fixture(scope="module")
def doc() -> Doc:
    return _read_doc(DOC.read_text(encoding="utf-8"))


def _table(doc: Doc, section: str, first_header: str) -> Table:
    found = [t for t in doc.tables if t.section == section and t.header[0] == first_header]
    assert len(found) == 1, f"expected one table starting with {first_header!r} in {section}"
    return found[0]


def _ints(cell: str) -> list[int]:
    """All integers of a cell; a leading minus sign (ASCII or Unicode) is kept."""
    return [int(x.replace("−", "-")) for x in re.findall(r"[−-]?\d+", cell)]


def _leading_int(cell: str) -> int:
    """The number a data cell starts with; "-" (nothing) reads as 0."""
    if cell == "-":
        return 0
    m = re.match(r"\d+", cell)
    assert m, f"cell {cell!r} does not start with a number"
    return int(m.group())


def _cost(cell: str) -> tuple[tuple[int, ...], int, int]:
    """(cube vector F W S C G, "any" cubes, deniers) written in a cost cell like "1W + 1 any"."""
    cubes = [0] * len(RESOURCE_NAMES)
    for count, letter in re.findall(r"(\d+)([FWSCG])\b", cell):
        cubes[CUBE_LETTERS[letter]] += int(count)
    any_cubes = sum(int(n) for n in re.findall(r"(\d+) any\b", cell))
    deniers = sum(int(n) for n in re.findall(r"(\d+) deniers?\b", cell))
    return tuple(cubes), any_cubes, deniers


# ------------------------------------------------------------------------------------------
# The data tables
# ------------------------------------------------------------------------------------------
def _building_rows(doc: Doc) -> dict[str, tuple[Table, list[str]]]:
    rows: dict[str, tuple[Table, list[str]]] = {}
    for table in doc.tables:
        if "Engine name" in table.header and "Cost" in table.header:
            for row in table.rows:
                name = row[table.column("Engine name")].strip("`")
                assert name not in rows, f"building {name!r} appears twice in the document"
                rows[name] = (table, row)
    return rows


def _expected_copies(spec: BuildingSpec) -> str:
    """Residences are unlimited (rules 8.4): the engine keeps no stock of them."""
    return "unlimited" if spec.kind == BuildingKind.RESIDENTIAL else str(spec.copies)


def test_building_table_lists_every_engine_building_once(doc):
    assert set(_building_rows(doc)) == {b.name for b in BUILDINGS}


@pytest.mark.parametrize("spec", BUILDINGS, ids=lambda b: b.name)
def test_building_row_matches_the_engine_table(doc, spec):
    table, row = _building_rows(doc)[spec.name]

    def cell(column: str) -> str:
        return row[table.column(column)]

    assert cell("Building") == spec.label
    # The row id is the one the engine's rule_ref cites ("3.2 W8" -> W8 in the 3.2 table).
    ref = re.match(r"(3\.[12]) (\S+?)(?:,|\s|$)", spec.rule_ref)
    assert ref, f"{spec.name}: rule_ref {spec.rule_ref!r} names no tile id"
    assert (table.section, cell("Id")) == (ref.group(1), ref.group(2))
    if "Kind" in table.header:
        assert KIND_LETTERS[cell("Kind")] == spec.kind
    cubes, any_cubes, deniers = _cost(cell("Cost"))
    if spec.kind == BuildingKind.RESIDENTIAL:
        # Made only by the lawyer (rules 5c), which charges its own price.
        lawyer = [0] * len(RESOURCE_NAMES)
        lawyer[Resource.CLOTH] = LAWYER_COST_CLOTH
        assert (cubes, any_cubes, deniers) == (tuple(lawyer), 0, LAWYER_COST_DENIERS)
    else:
        assert (cubes, any_cubes, deniers) == (spec.cost, spec.cost_any, 0)
    assert _leading_int(cell("Prestige")) == spec.prestige
    assert _leading_int(cell("Favors")) == spec.favors
    assert _leading_int(cell("Income")) == spec.income
    copies = cell("Copies")
    expected = _expected_copies(spec)
    assert copies.split(" ")[0] == expected, f"{spec.name}: copies {copies!r}, engine {expected}"


def test_favor_values_match_the_engine(doc):
    table = _table(doc, "5.1", "Row")
    by_row = {row[0]: row[1:] for row in table.rows}
    assert [_ints(c)[0] for c in by_row["a) Prestige"]] == list(FAVOR_PRESTIGE[1:])
    assert [_ints(c)[0] for c in by_row["b) Deniers"]] == list(FAVOR_DENIERS[1:])


def test_castle_table_matches_the_board(doc):
    table = _table(doc, "2.1", "Section")
    assert [row[0].lower() for row in table.rows] == list(SECTION_NAMES)
    assert [int(row[1]) for row in table.rows] == list(SECTION_SIZE)
    assert [int(row[2]) for row in table.rows] == list(SECTION_PRESTIGE)
    assert [int(row[3]) for row in table.rows] == list(SECTION_TRIGGER)


def test_section_scoring_table_matches_the_board(doc):
    scoring = [
        t for t in doc.tables if t.section == "4" and t.header[:2] == ["Section", "0 houses"]
    ]
    assert len(scoring) == 1
    for sec, row in enumerate(scoring[0].rows):
        assert row[0].lower() == SECTION_NAMES[sec]
        assert _ints(row[1]) == [-SECTION_EMPTY_PENALTY[sec]]
        favors = [0 if c == "nothing" else _ints(c)[0] for c in row[2:]]
        assert favors == list(SECTION_FAVORS[sec][1:])


def test_starting_deniers_match_the_engine(doc):
    table = _table(doc, "1.3", "Players")
    assert [int(row[0]) for row in table.rows] == list(range(MIN_PLAYERS, MAX_PLAYERS + 1))
    for row in table.rows:
        players = int(row[0])
        expected = (
            [START_DENIERS_TWO_PLAYERS] * players
            if players == MIN_PLAYERS
            else list(START_DENIERS[:players])
        )
        assert _ints(row[1]) == expected


def test_special_buildings_are_listed_in_phase_3_order(doc):
    table = _table(doc, "2.1", "Order")
    column = table.column("Engine name")
    assert [row[column].strip("`") for row in table.rows] == list(SPECIAL_NAMES)


def test_decision_list_names_every_engine_decision(doc):
    """8.30 names each question the engine asks, by its ``DECISION_NAMES`` spelling."""
    table = _table(doc, "8", "Decision")
    named = [name for row in table.rows for name in re.findall(r"`(\w+)`", row[0])]
    assert sorted(named) == sorted(DECISION_NAMES)


def _slug(heading: str) -> str:
    """GitHub's anchor for a heading: lower case, punctuation dropped, spaces to dashes."""
    return re.sub(r"[^\w\- ]", "", heading.strip().lower()).replace(" ", "-")


def test_contents_links_reach_headings():
    text = DOC.read_text(encoding="utf-8")
    anchors = {_slug(h) for h in re.findall(r"(?m)^#{1,6}\s+(.+)$", text)}
    links = re.findall(r"\]\(#([^)]+)\)", text)
    assert links, "the document has no table of contents"
    assert sorted(set(links) - anchors) == []


# ------------------------------------------------------------------------------------------
# Citations in the code
# ------------------------------------------------------------------------------------------
# One reference: a section ("5.3", "4"), a step of a phase ("5c") or a worked example ("T25").
_DOTTED = r"[1-8]\.[1-9]\d?(?!\d|\.\d)"
_REF = rf"(?:{_DOTTED}|[1-7][a-f]\b|[0-8]\b(?!\.\d)|T[1-9]\d?\b)"
# One item of a list: "phase 5", "1.2-1.4", "3b-3f", "1.2 step 7", "5.1 row d", "5.1 d".
_ITEM = rf"(?:phase\s+)?{_REF}(?:\s*[-–]\s*{_REF})?(?:\s+(?:step\s+\d+|row\s+[a-d]\b|[a-d]\b))?"
_ITEM_PARTS = re.compile(
    rf"(?P<phase>phase\s+)?(?P<first>{_REF})(?:\s*[-–]\s*(?P<last>{_REF}))?"
    r"(?:\s+(?:step\s+(?P<step>\d+)|row\s+[a-d]\b|[a-d]\b))?"
)
_LIST = rf"{_ITEM}(?:(?:\s*[,;]\s*|\s+and\s+|\s+){_ITEM})*"
_RULES = re.compile(rf"\brules?(?:\s+sheet)?(?:\s+(?:section|of))?\s+(?P<list>{_LIST})")
_WHOLE_LIST = re.compile(rf"\s*(?P<list>{_LIST})\s*(?::.*)?", re.S)
_QUOTE = r"(?:#+|[rRbBfFuU]{0,2}(?:\"\"\"|'''|\"|'))"
_LEADING = re.compile(rf"{_QUOTE}?\s*(?P<list>{_LIST})(?=\s*[:(]|\s+and\s)")
_PAREN = re.compile(r"\(([^()]*)\)")
_PHASE = re.compile(r"\bphase[\s-]+(?P<n>[1-7])(?P<step>[a-f])?(?:-(?P<last>[1-7][a-f]))?\b")
_SUBSTEP = re.compile(r"(?:^|(?<=[\s(\"'|/,-]))(?P<ref>[1-7][a-f])(?=$|[\s),;:.|-])(?!-\d)")
_BARE_DECISION = re.compile(r"(?<![\w.])(?P<ref>8\.[1-9]\d?)(?!\d|\.\d)")
_TILE_ID = r"(?:FX\d|SP\d|[NWSP]\d|[RJ])\b"
_TILES = re.compile(rf"\b(?P<sec>3\.[12])\s+(?P<ids>{_TILE_ID}(?:\s*(?:[-/]|,\s*)\s*{_TILE_ID})*)")
_EXAMPLE = re.compile(r"\b(?P<ref>T[1-9]\d?)\b")
#: "style anchors 3.3" cites the project's style notes, not the rules.
_NOT_RULES = re.compile(r"style anchors?\s+[\d.]+(?:\s*,\s*[\d.]+)*")


def _kind(ref: str) -> tuple[str, str]:
    """("section", "5.3"), ("substep", "5c") or ("example", "T25")."""
    if ref.startswith("T"):
        return ("example", ref)
    return ("substep", ref) if ref[-1].isalpha() else ("section", ref)


def _list_refs(text: str, bare_digits: bool) -> set[tuple[str, str]]:
    """References of a list such as "4, phase 7; 4.7; 4.8" or "5a-5c, 5.1 d".

    Without ``bare_digits`` a list of plain digits cites nothing: "(4, 8.20)" cites
    section 4, "(0, 0, 1)" is data.
    """
    found: set[tuple[str, str]] = set()
    plain = True
    for item in _ITEM_PARTS.finditer(text):
        phase = item.group("phase") is not None
        first, last = item.group("first"), item.group("last") or item.group("first")
        for ref in {first, last}:
            found.add(("phase", ref[0]) if phase else _kind(ref))
            if phase and ref[-1].isalpha():
                found.add(("substep", ref))
            plain = plain and ref.isdigit() and not phase
        if first[-1].isalpha() and last[-1].isalpha() and first[0] == last[0]:
            for letter in range(ord(first[1]), ord(last[1]) + 1):  # "3b-3f"
                found.add(("substep", first[0] + chr(letter)))
        if item.group("step"):
            found.add(("step", f"{first} step {item.group('step')}"))
    return set() if plain and not bare_digits else found


def _table_cells(text: str) -> Iterator[tuple[str, bool]]:
    """Cells of Markdown tables in a docstring; the cells of a "rules" column may be digits."""
    rules_column = -1
    for raw in text.splitlines():
        line = raw.strip()
        if not line.startswith("|"):
            rules_column = -1
            continue
        cells = [c.strip().lower() for c in line.strip("|").split("|")]
        if "rules" in cells:
            rules_column = cells.index("rules")
            continue
        for i, cell in enumerate(cells):
            yield cell, i == rules_column


def citations(text: str) -> set[tuple[str, str]]:
    """Every rules citation in one comment or string, as (kind, reference) pairs.

    Kinds: ``section`` ("5.3", "4", "8.27"), ``phase`` ("5"), ``substep`` ("5c"),
    ``step`` ("1.2 step 7"), ``tile`` ("3.2 W8"), ``example`` ("T25"). Numbers count
    only where they read as references: after "rules", alone in parentheses or in a
    table cell, at the start of a line before ":" or "(", "phase N", "5c", "8.x",
    "3.2 W8", "T25". So "(1.5, 1.5, 3 -> 1, 1, 2)" and "1 and 1.25 limits" cite nothing.
    """
    text = _NOT_RULES.sub("", text)
    found: set[tuple[str, str]] = set()
    for m in _RULES.finditer(text):
        found |= _list_refs(m.group("list"), bare_digits=True)
    pieces = [(m.group(1), False) for m in _PAREN.finditer(text)]
    pieces += list(_table_cells(text))
    for piece, bare_digits in pieces:
        if whole := _WHOLE_LIST.fullmatch(_PAREN.sub("", piece)):
            found |= _list_refs(whole.group("list"), bare_digits)
    for line in text.splitlines():
        if m := _LEADING.match(line.strip()):
            found |= _list_refs(m.group("list"), bare_digits=False)
    for m in _PHASE.finditer(text):
        found.add(("phase", m.group("n")))
        if m.group("step"):
            last = m.group("last") or m.group("n") + m.group("step")
            found |= _list_refs(f"{m.group('n')}{m.group('step')}-{last}", bare_digits=False)
    found.update(("substep", m.group("ref")) for m in _SUBSTEP.finditer(text))
    found.update(("section", m.group("ref")) for m in _BARE_DECISION.finditer(text))
    for m in _TILES.finditer(text):
        for tile in re.findall(_TILE_ID, m.group("ids")):
            found.add(("tile", f"{m.group('sec')} {tile}"))
    found.update(("example", m.group("ref")) for m in _EXAMPLE.finditer(text))
    return found


def _prose(source: str) -> Iterator[tuple[int, str]]:
    """(line, text) of every comment and string literal of a Python source."""
    kinds = {tokenize.COMMENT, tokenize.STRING}
    fstring_middle = getattr(tokenize, "FSTRING_MIDDLE", None)  # Python 3.12+
    if fstring_middle is not None:
        kinds.add(fstring_middle)
    for tok in tokenize.generate_tokens(io.StringIO(source).readline):
        if tok.type in kinds:
            yield tok.start[0], tok.string


#: Game-generic code cites both documents: a clause that names Puerto Rico, and the clauses
#: after it up to the end of its paragraph or list item (unless one names Caylus again), cite
#: Puerto Rico's document.
_PUERTO_RICO = re.compile(r"puerto[ _]rico", re.IGNORECASE)
_CAYLUS = re.compile(r"\bcaylus\b(?!_env|_cli|[-.]md)", re.IGNORECASE)
_PARAGRAPH = re.compile(r"\n\s*\n|\n\s*- ")
_CLAUSE_END = re.compile(r"(?<=[.;,])\s+")
PUERTO_RICO_DOC = ROOT / "docs" / "rules" / "puerto_rico.md"


def _split_by_game(text: str) -> tuple[str, str]:
    """(the Caylus clauses, the Puerto Rico clauses) of one comment or string."""
    caylus, puerto_rico = [], []
    for paragraph in _PARAGRAPH.split(text):
        about_puerto_rico = False
        for clause in _CLAUSE_END.split(paragraph):
            if _PUERTO_RICO.search(clause):
                about_puerto_rico = True
            elif _CAYLUS.search(clause):
                about_puerto_rico = False
            (puerto_rico if about_puerto_rico else caylus).append(clause)
    return " ".join(caylus), " ".join(puerto_rico)


def _cited_in_code(game: str = "caylus") -> list[tuple[str, tuple[str, str]]]:
    """Every citation of ``game``'s document in the platform's code outside the Puerto Rico and
    Caylus 1303 packages (which cite only their own documents:
    tests/puerto_rico/test_docs_rules.py, tests/caylus_1303/test_docs_rules.py)."""
    here = Path(__file__).resolve()
    out = []
    for folder in CITING_DIRS:
        for path in sorted((ROOT / folder).rglob("*.py")):
            skip = {"__pycache__", "puerto_rico", "caylus_1303"}  # they cite their own documents
            if path.resolve() == here or skip & set(path.parts):
                continue
            for line, text in _prose(path.read_text(encoding="utf-8")):
                part = _split_by_game(text)[0 if game == "caylus" else 1]
                for cite in sorted(citations(part)):
                    out.append((f"{path.relative_to(ROOT)}:{line}", cite))
    return out


def test_puerto_rico_sections_cited_in_generic_code_exist_in_its_document():
    sections = set(re.findall(r"^#{2,3} (\d+(?:\.\d+)?)\.? ", PUERTO_RICO_DOC.read_text(), re.M))
    cited = [(where, ref) for where, (kind, ref) in _cited_in_code("puerto_rico")]
    assert cited, "the scan finds no Puerto Rico citation in the game-generic code"
    missing = [f"{where}: {ref}" for where, ref in cited if ref not in sections]
    assert not missing, "docs/rules/puerto_rico.md has no section for:\n" + "\n".join(missing)


def _exists(doc: Doc, cite: tuple[str, str]) -> bool:
    kind, ref = cite
    if kind == "section":
        return ref in doc.sections
    if kind == "phase":
        return ref in doc.phases
    if kind == "substep":
        return ref in doc.substeps
    if kind == "step":
        section, _, step = ref.split(" ")
        return step in doc.steps.get(section, set())
    if kind == "tile":
        section, tile = ref.split(" ")
        return tile in doc.tile_ids.get(section, set())
    return ref in doc.examples


S, P, SUB, STEP, TILE, EX = "section", "phase", "substep", "step", "tile", "example"


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("rules sheet 1.4: after the opponent passed", {(S, "1.4")}),
        ("(rules 1.2-1.4)", {(S, "1.2"), (S, "1.4")}),
        ("(rules 2, 4, 5).", {(S, "2"), (S, "4"), (S, "5")}),
        ("never drops below 0 (4, 8.20).", {(S, "4"), (S, "8.20")}),
        ("2 players use the rules of 1.4", {(S, "1.4")}),
        ("variants of rules sheet 6 and 8", {(S, "6"), (S, "8")}),
        (
            "(rules 4 phase 5, 3.2, 8.3, 8.6)",
            {(S, "4"), (P, "5"), (S, "3.2"), (S, "8.3"), (S, "8.6")},
        ),
        ("begins (rules 4, phase 7; 4.7; 4.8).", {(S, "4"), (P, "7"), (S, "4.7"), (S, "4.8")}),
        ("# Exemption (8.27): the towers", {(S, "8.27")}),
        ("(the 8.5 cap as a unit)", {(S, "8.5")}),
        ('"""4.8: 3 per gold"""', {(S, "4.8")}),
        ('"""T22 and 4.8: 2 gold"""', {(EX, "T22"), (S, "4.8")}),
        ('"""5.2 (the example of Orange)"""', {(S, "5.2")}),
        ('"""3e: stable workers take the first places"""', {(SUB, "3e")}),
        ("post (3b: 3 deniers), merchants' guild", {(SUB, "3b")}),
        ("# lawyer (5c)", {(SUB, "5c")}),
        ("phase 3a: where the gate worker goes", {(P, "3"), (SUB, "3a")}),
        (
            "resolved in board order (rules 4, phase 3a-3c).",
            {(S, "4"), (P, "3"), (SUB, "3a"), (SUB, "3b"), (SUB, "3c")},
        ),
        ("the phase-7 move", {(P, "7")}),
        ("(5a, 5b, 5.1 row d, 8.3)", {(SUB, "5a"), (SUB, "5b"), (S, "5.1"), (S, "8.3")}),
        ("start on space 6 (1.2 step 7).", {(S, "1.2"), (STEP, "1.2 step 7")}),
        ('"3.2 S4/S5, 8.1 (two architects)"', {(TILE, "3.2 S4"), (TILE, "3.2 S5"), (S, "8.1")}),
        ("# -- neutral tiles (3.2 N1-N6)", {(TILE, "3.2 N1"), (TILE, "3.2 N6")}),
        (
            "| module | rules |\n|---|---|\n| ``special`` | phase 3 (3d-3e) |\n| ``favors`` | 5 |",
            {(P, "3"), (SUB, "3d"), (SUB, "3e"), (S, "5")},
        ),
        ("| ``construction`` | 5a, 5.1 d |", {(SUB, "5a"), (S, "5.1")}),
        ('"""The castle order of T25."""', {(EX, "T25")}),
        ("(style anchors 3.3, TAG extended sequences)", set()),
        ("(0, 0, 1, 1, 1, 1, 1)  # dungeon", set()),
        ("f'{speed:.1f} games/s' between 1 and 1.25 limits", set()),
        ("average ranks (1.5, 1.5, 3 -> 1, 1, 2)", set()),
        ("a floor of 1e-6 gave -525,000", set()),
        ("f'{i + 1:4d}. turn'", set()),
        ("the rules.py kernels", set()),
    ],
)
def test_citation_reader_understands_the_code_styles(text, expected):
    assert citations(text) == expected


def test_the_code_cites_the_rules(doc):
    """The scan reaches the engine's citations, so the next test checks something."""
    cited = {cite for _, cite in _cited_in_code()}
    for must in [("section", "8.6"), ("section", "5.3"), ("section", "1.4"), ("substep", "5c")]:
        assert must in cited, f"the scan no longer finds the engine's citation {must}"


def test_every_rule_number_cited_in_the_code_exists_in_the_document(doc):
    missing = [
        f"{where}: {ref}"
        for where, (kind, ref) in _cited_in_code()
        if not _exists(doc, (kind, ref))
    ]
    assert not missing, f"{DOC.relative_to(ROOT)} has no section for:\n" + "\n".join(missing)
