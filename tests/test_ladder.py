"""``caylus ladder``: every built-in agent of a game rated per player count, one page, one plot.

The command runs in-process (typer's CliRunner) at a tiny size into a temporary directory:
Puerto Rico, whose agents play a whole game in milliseconds, at 2 and 3 players. A search head
that the registry refuses (as ``puct`` is refused by a game without a shipped checkpoint) is
simulated by a head added to the registry's listing. The last test checks the real
``docs/ladder.md``: it must name every current built-in agent of every game.
"""

from __future__ import annotations

import json
import re
import shlex
from pathlib import Path

import pytest
from typer.testing import CliRunner

from agents import ladder, registry
from caylus_cli.app import app
from caylus_env.core.contract import LADDER_SIMS
from caylus_env.core.registry import GAME_NAMES, game_spec

ROOT = Path(__file__).resolve().parents[1]
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
