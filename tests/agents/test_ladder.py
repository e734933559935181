"""``caylus ladder``: every built-in agent of a game rated per player count, one page, one plot.

The command runs in-process (typer's CliRunner) at a tiny size into a temporary directory:
Puerto Rico, whose agents play a whole game in milliseconds, at 2 and 3 players. A search head
that the registry refuses (as ``puct`` is refused by a game without a shipped checkpoint) is
simulated by a head added to the registry's listing. The last test checks the real
``docs/ladder.md``: it must name every current built-in agent of every game.

The tamper harness (`TAMPERS`) edits a copy of one tiny finished ladder directory in each way
a hostile or damaged directory can differ (special files, links out of it, files over their
bound, every field of ``ladder.json`` of a wrong type or out of range, a ledger line edited)
and checks that the command refuses it before any game with one line and exit code 2, every
file of the directory left byte-identical. The cases whose unfixed reader would block on a
FIFO or read ``/dev/zero`` without end run the command in a subprocess whose timeout only
detects a hang (the fixture compiled the kernels first).
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import re
import resource
import shlex
import shutil
import stat
import subprocess
import sys
from pathlib import Path

import pytest
from typer.testing import CliRunner

from agents import ladder, registry
from agents.tournament.specs import MAX_WORKERS
from caylus_cli.app import PROGRAM, app
from caylus_env.core.contract import LADDER_SIMS
from caylus_env.core.ledger import MAX_LEDGER_BYTES, Ledger
from caylus_env.core.registry import GAME_NAMES, game_spec

ROOT = Path(__file__).resolve().parents[2]
GAME = "puerto_rico"
SIMS = 2
runner = CliRunner()

#: A search head the registry lists but cannot build for the game: what ``puct`` is for a game
#: without a shipped checkpoint.
NEEDY = registry.AgentInfo(
    "needy",
    "needy:SIMS",
    "a search that needs a checkpoint",
    needs_arg=True,
    ladder_spec=f"needy:{LADDER_SIMS}",
)
NEEDY_REASON = "needy needs a checkpoint of this game, and none is shipped"


@pytest.fixture
def needy_head(monkeypatch):
    """The registry lists `NEEDY` for every game and refuses to build it (at any budget)."""
    describe, make_agent = registry.describe, registry.make_agent

    def listed(game):
        return sorted([*describe(game), NEEDY], key=lambda info: info.head)

    def build(spec, game=None):
        if spec.startswith("needy:"):
            raise ValueError(NEEDY_REASON)
        return make_agent(spec, game)

    monkeypatch.setattr(registry, "describe", listed)
    monkeypatch.setattr(registry, "make_agent", build)


def invoke(*args):
    return runner.invoke(app, ["ladder", *map(str, args)])


def changed(args, option, value):
    """``args`` with ``option`` set to ``value`` (replaced, or appended)."""
    args = list(args)
    if option in args:
        args[args.index(option) + 1] = value
    else:
        args += [option, value]
    return args


def tiny(tmp_path, *extra):
    """The arguments of a tiny ladder of `GAME` into ``tmp_path``."""
    return [
        "--game",
        GAME,
        "--players",
        "2-3",
        "--games",
        "6",
        "--sims",
        SIMS,
        "--workers",
        "1",
        "--bootstrap",
        "20",
        "--out",
        tmp_path / "runs",
        "--page",
        tmp_path / "docs" / "ladder.md",
        "--plot",
        tmp_path / "docs" / "images" / "ladder.png",
        "--no-progress",
        *extra,
    ]


def rated(game, sims):
    """The specs of ``game``'s built-in agents at ``sims`` simulations, from the registry."""
    infos = [i for i in registry.describe(game) if i.ladder_spec is not None]
    return [i.ladder_spec.replace(LADDER_SIMS, str(sims)) for i in infos]


def refusal(spec, game):
    """The registry's error for ``spec`` of ``game``, or None when it builds."""
    try:
        registry.make_agent(spec, game)
    except ValueError as err:
        return str(err)
    return None


def test_ladder_rates_every_builtin_agent_writes_page_and_plot_and_resumes(tmp_path, needy_head):
    result = invoke(*tiny(tmp_path))
    assert result.exit_code == 0, result.output
    page = (tmp_path / "docs" / "ladder.md").read_text()
    plot = tmp_path / "docs" / "images" / "ladder.png"
    assert plot.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert "![Ratings per game and player count](images/ladder.png)" in page

    # the command that reproduces the page, every argument explicit
    command = next(line for line in page.splitlines() if line.startswith("caylus ladder "))
    args = shlex.split(command)
    assert args[args.index("--game") + 1] == GAME
    assert args[args.index("--players") + 1] == "2-3"
    assert args[args.index("--sims") + 1] == str(SIMS)
    assert args[args.index("--seed") + 1] == str(ladder.DEFAULT_SEED)
    assert args[args.index("--workers") + 1] == "1"
    assert "CPU" in page and "UTC" in page and "wall time" in page

    # every built-in agent of the game, from the registry, in both tables
    agents = [spec for spec in rated(GAME, SIMS) if refusal(spec, GAME) is None]
    assert f"mcts:{SIMS}" in agents and "random" in agents and f"needy:{SIMS}" not in agents
    for players in (2, 3):
        section = page.split(f"### Puerto Rico, {players} players")[1].split("###")[0]
        for agent in agents:
            row = next(line for line in section.splitlines() if f"| `{agent}` |" in line)
            cells = [c.strip() for c in row.strip("|").split("|")]
            assert re.fullmatch(r"\d\.\d{3} \[\d\.\d{3}, \d\.\d{3}\]", cells[5]), row  # Wilson
            assert int(cells[7]) > 0
        assert re.search(r"\| `\S+` \| (0|-?\d+\.\d|[<>] [+-]?\d+|n/a.*?) \|", section)
        assert f"caylus tournament --game {GAME} --agents {','.join(agents)}" in section
    assert "reference `random`" not in page  # the middle agent, not the floor
    # the refused heads, with the registry's reason; policy:PATH left out as not built-in
    refused = [spec for spec in rated(GAME, SIMS) if spec not in agents]
    assert f"needy:{SIMS}" in refused
    for spec in refused:
        assert f"Not rated: `{spec}`: {refusal(spec, GAME)}" in page
    assert "`policy:PATH[:greedy|:sample|:temp=T]`: not rated: not a built-in agent" in page

    state = json.loads((tmp_path / "runs" / ladder.STATE_FILE).read_text())
    assert set(state["tournaments"]) == {f"{GAME}-2p", f"{GAME}-3p"}
    assert all(t["play_s"] > 0 and t["workers"] == [1] for t in state["tournaments"].values())
    games = {n: (tmp_path / "runs" / f"{GAME}-{n}p" / "games.jsonl").read_bytes() for n in (2, 3)}
    assert all((tmp_path / "runs" / f"{GAME}-{n}p" / "report.md").is_file() for n in (2, 3))

    # the same command resumes: nothing is played again, the plot is the same bytes
    before = plot.read_bytes()
    again = invoke(*tiny(tmp_path))
    assert again.exit_code == 0, again.output
    assert again.output.count("resuming: ") == 2
    for n in (2, 3):
        assert (tmp_path / "runs" / f"{GAME}-{n}p" / "games.jsonl").read_bytes() == games[n]
    assert plot.read_bytes() == before
    resumed = json.loads((tmp_path / "runs" / ladder.STATE_FILE).read_text())
    assert resumed == state  # a call that played nothing adds no time

    # a larger --games extends both tournaments, adding the time of this call
    more = invoke(*changed(tiny(tmp_path), "--games", "12"))
    assert more.exit_code == 0, more.output
    extended = json.loads((tmp_path / "runs" / ladder.STATE_FILE).read_text())
    for name, record in extended["tournaments"].items():
        assert record["play_s"] > state["tournaments"][name]["play_s"]
    for n in (2, 3):
        ledger = (tmp_path / "runs" / f"{GAME}-{n}p" / "games.jsonl").read_bytes()
        assert ledger.startswith(games[n]) and len(ledger) > len(games[n])
    assert "12 games per tournament" in (tmp_path / "docs" / "ladder.md").read_text()

    # other arguments on the same directories are refused before any work, naming the option
    (tmp_path / "docs" / "ladder.md").unlink()
    for option, value, field in (("--seed", "7", "seed"), ("--sims", "3", "agents")):
        refused = invoke(*changed(changed(tiny(tmp_path), "--games", "12"), option, value))
        assert refused.exit_code == 2, refused.output
        message = " ".join(refused.output.split())
        assert "invalid value for --out" in message and f"({field}: run.json has" in message
        assert not (tmp_path / "docs" / "ladder.md").exists()
    assert "another --sims, or a checkpoint shipped or removed since" in message


@pytest.mark.parametrize(
    ("change", "message"),
    [
        (("--game", "chess"), r"invalid value for --game: .*chess"),
        (("--game", ","), r"invalid value for --game: .*names no game"),
        (("--players", "7"), r"invalid value for --players: no chosen game plays 7 players"),
        (("--players", "3-2"), r"invalid value for --players: '3-2' is an empty range"),
        (("--players", "two"), r"invalid value for --players: 'two' is not player counts"),
        (("--sims", "0"), r"invalid value for --sims: 0 is not allowed; allowed: an int >= 1"),
        (
            ("--sims", "100001"),
            r"invalid value for --sims: 100001 is refused by puerto_rico's mcts",
        ),
        (("--games", "0"), r"invalid value for --games"),
        (("--workers", "0"), r"invalid value for --workers"),
        (("--page", "ladder.txt"), r"invalid value for --page: .*allowed: a \.md file path"),
        (("--plot", "ladder.jpg"), r"invalid value for --plot: .*allowed: a \.png file path"),
        (("--move-time-limit", "-1"), r"invalid value for --move-time-limit"),
        (("--bootstrap", "-1"), r"invalid value for --bootstrap"),
    ],
)
def test_bad_arguments_fail_before_any_work(tmp_path, change, message):
    result = invoke(*changed(tiny(tmp_path), *change))
    assert result.exit_code == 2, result.output
    assert re.search(message, " ".join(result.output.split())), result.output
    assert not (tmp_path / "runs").exists() and not (tmp_path / "docs").exists()


def test_an_agent_that_no_game_seated_keeps_its_row(tmp_path):
    """Two games of 2 players seat two of the game's agents: the others are named as unseated,
    not dropped from the table."""
    result = invoke(*changed(changed(tiny(tmp_path), "--players", "2"), "--games", "2"))
    assert result.exit_code == 0, result.output
    page = (tmp_path / "docs" / "ladder.md").read_text()
    table = page.split("### Puerto Rico, 2 players")[1]
    agents = [spec for spec in rated(GAME, SIMS) if refusal(spec, GAME) is None]
    rows = {a: next(line for line in table.splitlines() if f"| `{a}` |" in line) for a in agents}
    unseated = [a for a, row in rows.items() if "not seated: too few games" in row]
    assert len(unseated) == len(agents) - 2 and all(rows[a].endswith("| 0 |") for a in unseated)


def test_a_plot_under_a_file_fails_before_any_work(tmp_path):
    (tmp_path / "notes.txt").write_text("a file, not a folder")
    result = invoke(*changed(tiny(tmp_path), "--plot", tmp_path / "notes.txt" / "ladder.png"))
    assert result.exit_code == 2, result.output
    assert "invalid value for --plot: cannot write" in " ".join(result.output.split())
    assert not (tmp_path / "runs").exists() and not (tmp_path / "docs").exists()


def test_a_tournament_directory_is_not_a_ladder_directory(tmp_path):
    (tmp_path / "runs").mkdir()
    (tmp_path / "runs" / "run.json").write_text("{}")
    result = invoke(*tiny(tmp_path))
    assert result.exit_code == 2, result.output
    assert "invalid value for --out" in result.output and "holds a tournament" in result.output
    assert not (tmp_path / "docs").exists()


def test_players_are_each_games_own_counts_within_the_restriction():
    assert ladder.parse_players(None, GAME_NAMES) == {
        g: tuple(game_spec(g).player_counts) for g in GAME_NAMES
    }
    assert ladder.parse_players("2-3,5", [GAME]) == {GAME: (2, 3, 5)}
    assert ladder.parse_games(f" {GAME} ,caylus") == ("caylus", GAME)  # the registry's order


def test_roster_comes_from_the_registry(needy_head):
    for game in GAME_NAMES:
        team = ladder.roster(game, SIMS)
        assert f"mcts:{SIMS}" in team.agents and "random" in team.agents
        assert set(team.agents) | {s for s, _ in team.skipped} == set(rated(game, SIMS))
        assert all(refusal(spec, game) is None for spec in team.agents)
        assert dict(team.skipped) == {
            spec: refusal(spec, game) for spec in rated(game, SIMS) if spec not in team.agents
        }
        assert dict(team.skipped)[f"needy:{SIMS}"] == NEEDY_REASON
        assert any(syntax.startswith("policy:") for syntax in team.left_out)


def check_ladder_page(path: Path) -> None:
    """A ladder page rates or names, with its reason, every built-in agent of every game at
    every player count, at the budget of its own command, and links a plot that exists."""
    page = path.read_text()
    command = next(line for line in page.splitlines() if line.startswith("caylus ladder "))
    args = shlex.split(command)
    sims = int(args[args.index("--sims") + 1])
    assert "--game" not in args and "--players" not in args, "the page rates every game"
    plot = re.search(r"!\[[^]]*\]\(([^)]+\.png)\)", page)
    assert plot and (path.parent / plot.group(1)).is_file()
    sections = page.split("\n## ")[1:]
    assert [s.splitlines()[0] for s in sections] == [game_spec(g).title for g in GAME_NAMES]
    for game, section in zip(GAME_NAMES, sections, strict=True):
        team = ladder.roster(game, sims)
        head = section.split("\n###")[0]
        for spec in team.agents:
            assert f"`{spec}`" in head, (game, spec)
        for spec, reason in team.skipped:
            assert f"Not rated: `{spec}`: {reason}" in head, (game, spec)
        for syntax in team.left_out:
            assert f"`{syntax}`: not rated" in head, (game, syntax)
        title = game_spec(game).title
        for n in game_spec(game).player_counts:
            table = section.split(f"### {title}, {n} players")[1].split("\n###")[0]
            for spec in team.agents:
                assert f"| `{spec}` |" in table, (game, n, spec)


def test_the_ladder_page_names_every_builtin_agent_of_every_game():
    """docs/ladder.md, written by caylus ladder (the release runs it after the agents change),
    names every current built-in agent of every game."""
    check_ladder_page(ROOT / ladder.DEFAULT_PAGE)


# --------------------------------------------------------------------------------------------------
# A tampered ladder directory is refused before anything is played or written
# --------------------------------------------------------------------------------------------------

HANG_TIMEOUT_S = 300
"""Seconds a subprocess case may take before it counts as hung: a refusal takes seconds (the
kernels are compiled by the fixture first), an unbounded read of a FIFO never ends."""
GUARD_MEMORY_BYTES = 6 << 30
"""Address space of a subprocess case (the command needs under 3 GiB): a reader that reads
``/dev/zero`` without end fails there with a MemoryError instead of exhausting the machine."""
FIRST, SECOND = f"{GAME}-2p", f"{GAME}-3p"
"""The tamper fixture's tournaments, in the order the ladder plays them: a damaged file of the
second must be refused before the first is resumed."""


def tamper_args(root, *extra):
    """A tiny ladder of two tournaments (2 and 3 players) into ``root / "runs"``, with the
    ``extra`` options changed."""
    args = changed(changed(tiny(root), "--games", "2"), "--bootstrap", "0")
    for option, value in zip(extra[::2], extra[1::2], strict=True):
        args = changed(args, option, value)
    return args


@pytest.fixture(scope="module")
def finished_ladder(tmp_path_factory):
    """A finished tiny ladder directory (its kernels compiled), copied by each case."""
    root = tmp_path_factory.mktemp("finished")
    result = invoke(*tamper_args(root))
    assert result.exit_code == 0, result.output
    return root / "runs"


def snapshot(root: Path) -> dict[str, tuple]:
    """Every entry under ``root`` with its type and content: a regular file by its SHA-256 (a
    file over 1 MiB, the sparse ones, by size, inode and modification time), a link by its
    target, anything else by its mode; special files are never opened."""
    out = {}
    for folder, dirs, files in os.walk(root):
        for name in dirs + files:
            path = Path(folder) / name
            info = os.lstat(path)
            if stat.S_ISLNK(info.st_mode):
                out[str(path)] = ("link", os.readlink(path))
            elif stat.S_ISREG(info.st_mode) and info.st_size > 1 << 20:
                out[str(path)] = ("big", info.st_size, info.st_ino, info.st_mtime_ns)
            elif stat.S_ISREG(info.st_mode):
                out[str(path)] = ("file", hashlib.sha256(path.read_bytes()).hexdigest())
            else:
                out[str(path)] = ("other", stat.S_IFMT(info.st_mode))
    return out


def _guard_memory() -> None:
    with contextlib.suppress(ValueError, OSError):  # not enforced everywhere: then unguarded
        resource.setrlimit(resource.RLIMIT_AS, (GUARD_MEMORY_BYTES, GUARD_MEMORY_BYTES))


def run_guarded(args):
    """``caylus ladder ARGS`` in a subprocess: (exit code, output); a hang fails the test."""
    code = f"from caylus_cli.app import app; app(prog_name={PROGRAM!r})"
    try:
        proc = subprocess.run(
            [sys.executable, "-c", code, "ladder", *map(str, args)],
            capture_output=True,
            text=True,
            timeout=HANG_TIMEOUT_S,
            preexec_fn=_guard_memory,
        )
    except subprocess.TimeoutExpired:
        pytest.fail(f"caylus ladder hung for {HANG_TIMEOUT_S} s")
    return proc.returncode, proc.stdout + proc.stderr


def _state_edit(edit):
    """A tamper that rewrites ``ladder.json`` after ``edit(state)`` (NaN and infinity
    written as JSON's extensions, as a hand edit would)."""

    def apply(out):
        path = out / ladder.STATE_FILE
        state = json.loads(path.read_text())
        edit(state)
        path.write_text(json.dumps(state))

    return apply


def _timing(field, value):
    def edit(state):
        state["tournaments"][FIRST][field] = value

    return _state_edit(edit)


def _replace(relative, make):
    """A tamper that puts ``make(path, out)`` in place of ``out / relative``."""

    def apply(out):
        path = out / relative
        if path.is_dir() and not path.is_symlink():
            shutil.rmtree(path)
        else:
            path.unlink()
        make(path, out)

    return apply


def _link(target):
    return lambda path, out: path.symlink_to(target)


def _fifo(path, out):
    os.mkfifo(path)


def _directory(path, out):
    path.mkdir()


def _text(text):
    return lambda path, out: path.write_text(text)


def _ledger_outside(out):
    path = out / SECOND / "games.jsonl"
    shutil.move(path, out.parent / "outside.jsonl")
    path.symlink_to(out.parent / "outside.jsonl")


def _tournament_outside(out):
    path = out / SECOND
    shutil.move(path, out.parent / "elsewhere")
    path.symlink_to(out.parent / "elsewhere")


def _sparse(relative, size):
    """A tamper that makes ``out / relative`` a sparse file of ``size`` bytes (no disk used)."""

    def apply(out):
        with open(out / relative, "r+b") as handle:
            handle.truncate(size)

    return apply


def _edit_line(out):
    path = out / SECOND / "games.jsonl"
    lines = path.read_text().splitlines(keepends=True)
    record = json.loads(lines[0])
    record["final"]["scores"][0] += 1
    lines[0] = json.dumps(record) + "\n"
    path.write_text("".join(lines))


def _dir_is_a_file(out):
    shutil.rmtree(out)
    out.write_text("a file, not a ladder directory")


def _nested_play_s(out):
    path = out / ladder.STATE_FILE
    state = json.loads(path.read_text())
    state["tournaments"][FIRST]["play_s"] = "NESTED"
    path.write_text(json.dumps(state).replace('"NESTED"', DEEP))


def case(name, tamper, message, *extra, hazardous=False):
    """One tamper case: ``tamper(out)`` edits the copy, ``extra`` are changed ladder arguments,
    ``message`` is a pattern of the refusal; a ``hazardous`` case's unfixed reader blocks or
    reads without end, so it runs in a subprocess (`run_guarded`)."""
    return pytest.param(tamper, extra, message, hazardous, id=name)


LEDGER, RUN_JSON, STATE = f"{SECOND}/games.jsonl", f"{SECOND}/run.json", ladder.STATE_FILE
DEEP = "[" * 100_000 + "]" * 100_000
OUTSIDE = r"leads to \S+, outside \S+; allowed: a regular file inside "
NOT_STRICT = r"is not strict JSON \((NaN|Infinity) is not a JSON number\); allowed: a JSON file"
NESTED = r"is JSON nested too deeply to parse; allowed: a JSON file nested a few levels"
PLAY_S = rf"{FIRST}\.play_s is .*; allowed: seconds, a number from 0 to {ladder.MAX_PLAY_S:.0f}"
WORKERS = rf"{FIRST}\.workers is .*; allowed: a list of distinct worker counts from 1 to "
BAD_PLAY_S = {
    "minus-1e300": -1e300,
    "1e300": 1e300,
    "negative": -1,
    "over-a-year": ladder.MAX_PLAY_S + 1,
    "string": "12.5",
    "bool": True,
    "null": None,
    "list": [1.0],
    "object": {},
}
BAD_WORKERS = {
    "string": "a",
    "int": 2,
    "empty": [],
    "zero": [0],
    "negative": [-1],
    "float": [1.5],
    "bool": [True],
    "string-item": ["1"],
    "over-the-maximum": [MAX_WORKERS + 1],
    "unsorted": [2, 1],
    "repeated": [1, 1],
    "null": None,
    "object": {},
}
TAMPERS = [
    # the ledger of the second tournament
    case(
        "ledger-links-to-dev-zero",
        _replace(LEDGER, _link("/dev/zero")),
        rf"games\.jsonl {OUTSIDE}",
        hazardous=True,
    ),
    case(
        "ledger-is-a-fifo",
        _replace(LEDGER, _fifo),
        r"games\.jsonl is a FIFO; allowed: a regular file inside",
        hazardous=True,
    ),
    case(
        "ledger-over-the-bound",
        _sparse(LEDGER, MAX_LEDGER_BYTES + 1),
        rf"games\.jsonl is {MAX_LEDGER_BYTES + 1} bytes; allowed: a file of at most "
        rf"{MAX_LEDGER_BYTES} bytes",
        hazardous=True,
    ),
    case("ledger-links-outside", _ledger_outside, rf"games\.jsonl {OUTSIDE}"),
    case(
        "ledger-dangling-link",
        _replace(LEDGER, _link("../../nowhere.jsonl")),
        r"games\.jsonl is a link to \S+, which does not exist; allowed: a regular file",
    ),
    case(
        "ledger-is-a-directory",
        _replace(LEDGER, _directory),
        r"games\.jsonl is a directory; allowed: a regular file inside",
    ),
    case(
        "ledger-line-edited",
        _edit_line,
        r"games\.jsonl line 1 was changed after it was written: game_id 0 does not replay",
    ),
    case(
        "ledger-line-edited-extended",
        _edit_line,
        r"games\.jsonl line 1 was changed after it was written",
        "--games",
        "4",
    ),
    # the second tournament's run.json and directory
    case(
        "run-json-links-to-dev-zero",
        _replace(RUN_JSON, _link("/dev/zero")),
        rf"run\.json {OUTSIDE}",
        hazardous=True,
    ),
    case(
        "run-json-is-a-fifo",
        _replace(RUN_JSON, _fifo),
        r"run\.json is a FIFO; allowed: a regular file inside",
        hazardous=True,
    ),
    case("run-json-nested", _replace(RUN_JSON, _text(DEEP)), rf"run\.json {NESTED}"),
    case(
        "tournament-is-a-file",
        _replace(SECOND, _text("a file")),
        rf"{SECOND} is not a directory; allowed: a tournament directory inside",
    ),
    case(
        "tournament-links-outside",
        _tournament_outside,
        rf"{SECOND} leads to \S+, outside \S+; allowed: a tournament directory inside",
    ),
    # ladder.json as a file
    case(
        "state-links-to-dev-zero",
        _replace(STATE, _link("/dev/zero")),
        rf"ladder\.json {OUTSIDE}",
        hazardous=True,
    ),
    case(
        "state-is-a-fifo",
        _replace(STATE, _fifo),
        r"ladder\.json is a FIFO; allowed: a regular file inside",
        hazardous=True,
    ),
    case(
        "state-over-the-bound",
        _sparse(STATE, ladder.MAX_STATE_BYTES + 1),
        rf"ladder\.json is {ladder.MAX_STATE_BYTES + 1} bytes; allowed: a file of at most "
        rf"{ladder.MAX_STATE_BYTES} bytes",
    ),
    case(
        "state-is-a-directory",
        _replace(STATE, _directory),
        r"ladder\.json is a directory; allowed: a regular file inside",
    ),
    case("state-nested-list", _replace(STATE, _text(DEEP)), rf"ladder\.json {NESTED}"),
    case("state-nested-play-s", _nested_play_s, rf"ladder\.json {NESTED}"),
    case(
        "state-not-json",
        _replace(STATE, _text("{not json")),
        r"ladder\.json is not strict JSON \(Expecting",
    ),
    case(
        "state-not-utf8",
        _replace(STATE, lambda path, out: path.write_bytes(b'{"\xff": 1}')),
        r"ladder\.json is not UTF-8 text",
    ),
    # ladder.json's schema
    case(
        "state-not-an-object",
        _replace(STATE, _text("[]")),
        r"ladder\.json is not a caylus-ladder/1 file",
    ),
    case(
        "state-other-format",
        _state_edit(lambda s: s.update(format="caylus-ladder/9")),
        r"ladder\.json is not a caylus-ladder/1 file",
    ),
    case(
        "state-extra-key",
        _state_edit(lambda s: s.update(note=1)),
        r'the file has the keys \["format", "note", "tournaments"\]; allowed: exactly format, '
        r"tournaments",
    ),
    case(
        "state-missing-key",
        _state_edit(lambda s: s.pop("tournaments")),
        r'the file has the keys \["format"\]; allowed: exactly format, tournaments',
    ),
    case(
        "state-tournaments-not-an-object",
        _state_edit(lambda s: s.update(tournaments=[])),
        r"tournaments is \[\]; allowed: an object",
    ),
    case(
        "state-unknown-tournament",
        _state_edit(lambda s: s["tournaments"].update({"chess-2p": {"play_s": 1, "workers": [1]}})),
        r'a tournament\'s name is "chess-2p"; allowed: one of caylus-2p',
    ),
    case(
        "state-record-not-an-object",
        _state_edit(lambda s: s["tournaments"].update({FIRST: [1]})),
        rf"{FIRST} is \[1\]; allowed: an object with exactly play_s, workers",
    ),
    case(
        "state-record-extra-key",
        _timing("note", 1),
        rf'{FIRST} has the keys \["note", "play_s", "workers"\]',
    ),
    case(
        "state-record-missing-key",
        _state_edit(lambda s: s["tournaments"][FIRST].pop("workers")),
        rf'{FIRST} has the keys \["play_s"\]; allowed: exactly play_s, workers',
    ),
    *[case(f"play-s-{label}", _timing("play_s", v), PLAY_S) for label, v in BAD_PLAY_S.items()],
    case("play-s-nan", _timing("play_s", float("nan")), NOT_STRICT),
    case("play-s-infinity", _timing("play_s", float("inf")), NOT_STRICT),
    *[case(f"workers-{label}", _timing("workers", v), WORKERS) for label, v in BAD_WORKERS.items()],
    case("workers-nan-item", _timing("workers", [float("nan")]), NOT_STRICT),
    # the directory itself, and a resume refused by its arguments
    case(
        "out-is-a-file",
        _dir_is_a_file,
        r"runs is not a directory; allowed: a new directory or a ladder's own",
    ),
    case(
        "resume-with-another-seed",
        lambda out: None,
        r"\(seed: run\.json has 1000, now 7\)",
        "--seed",
        "7",
    ),
]


@pytest.mark.parametrize(("tamper", "extra", "message", "hazardous"), TAMPERS)
def test_a_tampered_ladder_directory_is_refused_in_one_line_and_left_as_it_was(
    finished_ladder, tmp_path, tamper, extra, message, hazardous
):
    shutil.copytree(finished_ladder, tmp_path / "runs", symlinks=True)
    tamper(tmp_path / "runs")
    before = snapshot(tmp_path)
    args = tamper_args(tmp_path, *extra)
    if hazardous:
        code, output = run_guarded(args)
    else:
        result = invoke(*args)
        code, output = result.exit_code, result.output
        assert isinstance(result.exception, SystemExit), output  # no traceback
    lines = [line for line in output.splitlines() if line.strip()]
    assert code == 2, output
    assert len(lines) == 1 and lines[0].startswith("Error: invalid value for --out: "), output
    assert "Traceback" not in output and "ladder failed" not in output, output
    assert re.search(message, lines[0]), lines[0]
    assert snapshot(tmp_path) == before  # nothing written: not the first tournament either


def test_a_tournament_locked_by_another_run_is_refused_and_the_timings_are_left(
    finished_ladder, tmp_path
):
    """The lock is taken when a tournament starts, after the plan: the ladder refuses there,
    and neither the tournament resumed before it nor the refused one changes a file."""
    shutil.copytree(finished_ladder, tmp_path / "runs", symlinks=True)
    before = snapshot(tmp_path)
    with Ledger(tmp_path / "runs" / SECOND).locked():
        result = invoke(*tamper_args(tmp_path))
    assert result.exit_code == 2, result.output
    assert "invalid value for --out: " in result.output and "in use by another" in result.output
    assert snapshot(tmp_path) == before
