"""``caylus replay --html``, ``caylus play --html`` and the tournament's ``report.html``.

Arguments are checked before any work (exit 2, one line naming the option, nothing written);
a record that does not replay exits 1 and writes nothing.
"""

from __future__ import annotations

import json
import re
from dataclasses import replace

import pytest
from typer.testing import CliRunner

from agents.tournament import TournamentSpec, run_tournament
from agents.tournament.reports import MAX_GAME_PAGES, sample_games
from caylus_cli.app import app
from caylus_env.core.record import MatchInfo
from tests.viewer import conftest

runner = CliRunner()
GAME = "caylus"


def _tournament_record(record, game_id):
    """``record`` as a tournament game: its seats' agents and their seeds, no forfeit."""
    n = record.num_players
    seats = conftest.bot_seats(record.game, n)
    return replace(record, match=MatchInfo(game_id, 0, seats, tuple(range(n)), (None,) * n))


@pytest.fixture(scope="module")
def record_2p():
    return _tournament_record(conftest.record_2p(GAME), 0)


@pytest.fixture(scope="module")
def record_5p():
    return _tournament_record(conftest.record_5p(GAME), 1)


def invoke(*args):
    return runner.invoke(app, [str(a) for a in args])


def _page_data(path):
    text = path.read_text(encoding="utf-8")
    found = re.search(r'<script type="application/json" id="game-data">(.*?)</script>', text, re.S)
    return json.loads(found.group(1))


def test_replay_writes_the_page_of_the_chosen_game(tmp_path, record_2p, record_5p):
    ledger = tmp_path / "games.jsonl"
    other = replace(record_5p, match=replace(record_5p.match, game_id=7))
    ledger.write_text(record_2p.to_json_line() + "\n" + other.to_json_line() + "\n")
    out = tmp_path / "pages" / "seven.html"
    result = invoke("replay", ledger, "--game", "7", "--html", out)
    assert result.exit_code == 0, result.output
    assert (
        f"wrote {out}" in result.output and f"{len(record_5p.actions) + 1} steps" in result.output
    )
    assert "Road:" not in result.output  # the page replaces the text board
    data = _page_data(out)
    assert data["seats"] == list(record_5p.match.agents) and data["title"].startswith("game 7:")
    assert len(data["frames"]) == len(record_5p.actions) + 1
    single = tmp_path / "one.json"
    single.write_text(json.dumps(record_2p.to_dict()))
    again = invoke("replay", single, "--game-id", "0", "--html", tmp_path / "one.html")
    assert again.exit_code == 0 and _page_data(tmp_path / "one.html")["seats"] == ["castle", "town"]


@pytest.mark.parametrize(
    ("name", "needle"),
    [
        ("page.txt", "does not end in .html; allowed: a file name ending in .html or .htm"),
        ("folder.html", "is a directory"),
        ("file.json/page.html", "is not a directory"),
    ],
)
def test_bad_html_paths_exit_2_before_any_work(tmp_path, record_2p, name, needle):
    single = tmp_path / "file.json"
    single.write_text(json.dumps(record_2p.to_dict()))
    (tmp_path / "folder.html").mkdir()
    before = sorted(p.name for p in tmp_path.iterdir())
    for command in (("replay", single), ("play", "--agents", "random,random", "--seed", "1")):
        result = invoke(*command, "--html", tmp_path / name)
        assert result.exit_code == 2, result.output
        assert "invalid value for --html" in result.output and needle in result.output
        assert "Game over" not in result.output  # refused before the game was played
    assert sorted(p.name for p in tmp_path.iterdir()) == before


def test_a_record_that_does_not_replay_exits_1_and_writes_nothing(tmp_path, record_2p):
    changed = list(record_2p.final.scores)
    changed[1] += 3
    bad = replace(record_2p, final=replace(record_2p.final, scores=tuple(changed)))
    path = tmp_path / "bad.json"
    path.write_text(json.dumps(bad.to_dict()))
    result = invoke("replay", path, "--html", tmp_path / "bad.html")
    assert result.exit_code == 1 and "does not replay" in result.output
    assert not (tmp_path / "bad.html").exists()


def test_play_writes_the_page_of_the_game_it_played(tmp_path):
    out = tmp_path / "played.html"
    result = invoke("play", "--agents", "random,castle", "--seed", "4", "--no-board", "--html", out)
    assert result.exit_code == 0, result.output
    data = _page_data(out)
    assert data["seats"] == ["random", "castle"]
    decisions = [line for line in result.output.splitlines() if " -> " in line]
    assert len(data["frames"]) == len(decisions) + 1
    assert [data["names"][a] for a in data["action"][:-1]] == [
        line.split(" -> ")[1] for line in decisions
    ]


def test_sample_is_the_first_game_of_each_table_and_every_forfeit():
    def result(gid, seats, forfeit=None):
        flags = [seat == forfeit for seat in range(len(seats))]
        return {
            "game_id": gid,
            "seats": seats,
            "end": "forfeit" if forfeit is not None else "terminated",
            "forfeit": flags,
        }

    results = [
        result(3, ["b", "a"]),
        result(1, ["a", "b"]),
        result(2, ["a", "c"], forfeit=1),
        result(4, ["c", "a"], forfeit=0),
        result(5, ["b", "c"]),
    ]
    assert sample_games(results) == [
        (1, "first game of a vs b"),
        (2, "first game of a vs c; forfeit by player 1 (c)"),
        (5, "first game of b vs c"),
        (4, "forfeit by player 0 (c)"),
    ]
    many = [result(i, ["a", "b"], forfeit=i % 2) for i in range(MAX_GAME_PAGES + 9)]
    assert len(sample_games(many)) == MAX_GAME_PAGES


def test_tournament_writes_report_html_and_the_sampled_pages(tmp_path):
    spec = TournamentSpec(
        agents=("random", "test-crash", "test-first"),
        players=2,
        games=6,
        seed=2,
        plugins=("agents.tournament.testing",),
    )
    out = tmp_path / "run"
    (out).mkdir()
    (out / "game-999.html").write_text("a page of a game this run never had")
    run_tournament(spec, out, workers=1, progress=False, n_boot=0)
    report = (out / "report.html").read_text(encoding="utf-8")
    records = [json.loads(line) for line in (out / "games.jsonl").read_text().splitlines()]
    forfeits = {r["match"]["game_id"] for r in records if r["final"]["end"] == "forfeit"}
    tables = {}
    for r in sorted(records, key=lambda r: r["match"]["game_id"]):
        tables.setdefault(tuple(sorted(r["match"]["agents"])), r["match"]["game_id"])
    expected = forfeits | set(tables.values())
    assert forfeits and len(tables) == 3
    assert sorted(p.name for p in out.glob("game-*.html")) == sorted(
        f"game-{gid}.html" for gid in expected
    )
    for gid in expected:
        assert f'href="game-{gid}.html"' in report
    for heading in ("Ratings", "Agents", "Seats", "Head-to-head", "Forfeits", "Games", "Plots"):
        assert f">{heading}</h2>" in report
    assert report.count("data:image/png;base64,") == 2
    assert "Elo" in report and "test-crash" in report and "$" not in report
    assert not list(out.glob(".*.tmp"))


def test_replay_reads_a_game_of_a_dataset(tmp_path):
    from agents.selfplay import DatasetSpec, generate_dataset, prepare_dataset
    from caylus_env.datasets import read_games

    root = tmp_path / "ds"
    spec = DatasetSpec(agents=("random", "castle"), players="2", games=2, seed=0)
    generate_dataset(prepare_dataset(spec, root, workers=1), progress=False)
    decisions = {
        gid: n
        for gid, n in zip(
            *(read_games(root).column(c).to_pylist() for c in ("game_id", "decisions")),
            strict=True,
        )
    }
    out = tmp_path / "g1.html"
    result = invoke("replay", root, "--game", "1", "--html", out)
    assert result.exit_code == 0, result.output
    assert "game 1 replayed" in result.output and "end: terminated" in result.output
    data = _page_data(out)
    assert len(data["frames"]) == decisions[1] + 1 and data["title"].startswith("game 1:")
    missing = invoke("replay", root, "--game", "9")
    assert missing.exit_code == 2 and "no game 9" in missing.output
    assert "ids 0 to 1" in missing.output
    not_dataset = invoke("replay", tmp_path, "--html", tmp_path / "x.html")
    assert not_dataset.exit_code == 2 and "is not a dataset" in not_dataset.output
    assert not (tmp_path / "x.html").exists()
