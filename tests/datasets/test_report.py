"""A dataset's report.html (``caylus dataset stats``) of every game of the registry:
self-contained, the numbers of `dataset_stats`, links to replay pages of the sampled games whose
final scores are the games row's (in the game's ``score_word``), stale pages removed on a
re-run, ``verify`` still passing, and the page in Chromium."""

from __future__ import annotations

import io
import json
import os
import re
import subprocess
import sys
from html.parser import HTMLParser
from pathlib import Path

import pytest
from rich.console import Console

from agents import registry
from agents.selfplay.generate import DatasetSpec, generate_dataset, prepare_dataset
from caylus_env.core.registry import GAME_NAMES, game_spec
from caylus_env.datasets import dataset_stats, read_games, read_manifest, verify_dataset
from caylus_env.datasets import report as report_module
from caylus_env.datasets.report import write_dataset_report
from caylus_env.datasets.stats import plot_stats

pytest.importorskip("playwright")  # the browser test's driver, in the [dev] extra
from tests.viewer.conftest import Console as PageConsole
from tests.viewer.conftest import chromium_executable

CAYLUS = Path(sys.executable).with_name("caylus")
SVG_NS = "http://www.w3.org/2000/svg"


def agents(game: str) -> tuple[str, ...]:
    """The game's first own bot, ``random``, and ``test-crash`` (forfeits on its first move)."""
    own = game_spec(game).module("bots").BOTS
    bot = next(head for head in registry.available_agents(game) if head in own)
    return (bot, "random", "test-crash")


@pytest.fixture(scope="module", params=GAME_NAMES)
def dataset(request: pytest.FixtureRequest, tmp_path_factory) -> tuple[str, Path]:
    """``(game, directory)``: a small dataset with forfeits, its stats PNG and report; the
    test agents are unregistered afterwards."""
    game = request.param
    spec = DatasetSpec(
        agents=agents(game),
        players="2-3",
        games=9,
        seed=4,
        plugins=("agents.tournament.testing",),
        game=game,
    )
    out = tmp_path_factory.mktemp(f"dsr-{game}") / "d"
    before = {g: {info.head for info in registry.describe(g)} for g in GAME_NAMES}
    try:
        prepared = prepare_dataset(spec, out, workers=1)
        generate_dataset(prepared, progress=False, console=Console(file=io.StringIO()))
    finally:
        for g in GAME_NAMES:
            for info in registry.describe(g):
                if info.head not in before[g]:
                    registry.unregister(info.head, g)
    stats = dataset_stats(out, game)
    write_dataset_report(out, stats, plot_stats(stats, out / "stats.png"))
    return game, out


class _Page(HTMLParser):
    """The tables (rows of cell texts, by the heading before them) and the links of a page."""

    def __init__(self) -> None:
        super().__init__()
        self.tables: dict[str, list[list[str]]] = {}
        self.links: list[str] = []
        self._heading = ""
        self._in_heading = False
        self._cell: list[str] | None = None
        self._row: list[str] | None = None

    def handle_starttag(self, tag, attrs):
        if tag in ("h2", "h3"):
            self._in_heading, self._heading = True, ""
        elif tag == "tr":
            self._row = []
        elif tag in ("td", "th"):
            self._cell = []
        elif tag == "a" and dict(attrs)["href"][0] != "#":
            self.links.append(dict(attrs)["href"])

    def handle_endtag(self, tag):
        if tag in ("h2", "h3"):
            self._in_heading = False
        elif tag in ("td", "th") and self._row is not None:
            self._row.append("".join(self._cell or []))
            self._cell = None
        elif tag == "tr" and self._row is not None:
            self.tables.setdefault(self._heading, []).append(self._row)
            self._row = None

    def handle_data(self, data):
        if self._in_heading:
            self._heading += data
        elif self._cell is not None:
            self._cell.append(data)


def _parse(path: Path) -> _Page:
    page = _Page()
    page.feed(path.read_text(encoding="utf-8"))
    return page


def test_the_page_is_self_contained_and_shows_the_stats_numbers(dataset):
    game, dataset = dataset
    text = (dataset / "report.html").read_text(encoding="utf-8")
    assert set(re.findall(r"https?://[^\s\"'<>)]+", text)) <= {SVG_NS}
    assert "data:image/png;base64," in text and "<script" not in text
    stats, manifest = dataset_stats(dataset, game), read_manifest(dataset)
    page = _parse(dataset / "report.html")
    facts = dict(page.tables["Summary"][1:])
    assert facts["game"] == game_spec(game).title
    assert facts["games"] == str(stats["games"]) == str(manifest["counts"]["games"])
    assert facts["decisions"] == str(stats["decisions"])
    assert facts["forfeited games"] == str(stats["forfeited_games"]) != "0"
    assert facts["bytes a decision"] == f"{manifest['bytes_per_decision']:.1f}"
    assert facts["command"] == manifest["command"]
    versions = dict(page.tables["Versions"][1:])
    assert versions["game"] == game and versions["format"] == manifest["format"]
    assert versions["engine"] == manifest["engine"]
    assert versions["state_version"] == manifest["state_version"]
    agents = {row[0]: row for row in page.tables["Agents"][1:]}
    assert set(agents) == set(stats["agents"])
    for name, a in stats["agents"].items():
        assert agents[name][1:5] == [
            str(a["games"]),
            str(a["wins"]),
            f"{a['win_rate']:.3f}",
            f"{a['mean_rank']:.2f}",
        ]
        for seat, rate in a["seat_win_rate"].items():
            assert agents[name][5 + seat] == f"{rate:.3f} ({a['seat_games'][seat]})"
    kinds = {row[0]: row for row in page.tables["Decision kinds"][1:]}
    assert {k: int(r[1]) for k, r in kinds.items()} == {
        k: v["decisions"] for k, v in stats["kinds"].items()
    }
    lengths = page.tables["Game lengths"][1:]
    assert [[int(r[0]), int(r[1]), int(r[2]), r[3], int(r[4]), int(r[5])] for r in lengths] == [
        [n, v["games"], v["decisions"], f"{stats['lengths'][n]['mean']:.1f}",
         stats["lengths"][n]["min"], stats["lengths"][n]["max"]]
        for n, v in stats["players"].items()
    ]  # fmt: skip


def _final_text(page: Path) -> str:
    """The last step's context line of a replay page: each seat's final score and rank."""
    text = page.read_text(encoding="utf-8")
    found = re.search(r'<script type="application/json" id="[\w-]*data">(.*?)</script>', text, re.S)
    data = json.loads(found[1])
    return data["texts"][data["context"][-1]]


def _sampled(rows: dict) -> set[int]:
    """What the report samples: the first game of each table, and every forfeit."""
    first: dict = {}
    for gid in sorted(rows):
        first.setdefault((rows[gid]["num_players"], tuple(sorted(rows[gid]["agents"]))), gid)
    return set(first.values()) | {g for g, r in rows.items() if r["end"] == "forfeit"}


def test_links_open_replay_pages_of_the_sampled_games_with_their_final_scores(dataset):
    game, dataset = dataset
    word = game_spec(game).score_word
    rows = {r["game_id"]: r for r in read_games(dataset, game=game).to_pylist()}
    links = _parse(dataset / "report.html").links
    linked = [int(re.fullmatch(r"viewer/game-(\d+)\.html", href)[1]) for href in links]
    assert sorted(linked) == sorted(_sampled(rows)) and len(linked) < len(rows)
    for gid in linked:
        final = _final_text(dataset / "viewer" / f"game-{gid}.html")
        for seat, (agent, score) in enumerate(
            zip(rows[gid]["agents"], rows[gid]["scores"], strict=True)
        ):
            assert f"player {seat} ({agent}): {score} {word}" in final, (gid, final)
    assert sorted(p.name for p in (dataset / "viewer").iterdir()) == sorted(
        f"game-{g}.html" for g in linked
    )


def test_a_cap_lists_the_games_left_without_a_page_and_a_rerun_removes_stale_pages(
    dataset, tmp_path, monkeypatch
):
    import shutil

    game, dataset = dataset
    copy = tmp_path / "d"
    shutil.copytree(dataset, copy)
    sampled = sorted(_sampled({r["game_id"]: r for r in read_games(copy, game=game).to_pylist()}))
    monkeypatch.setattr(report_module, "MAX_GAME_PAGES", 2)
    write_dataset_report(copy, dataset_stats(copy, game), copy / "stats.png")
    pages = sorted(p.name for p in (copy / "viewer").iterdir())
    assert len(pages) == 2 and len(_parse(copy / "report.html").links) == 2
    text = (copy / "report.html").read_text(encoding="utf-8")
    assert f"{len(sampled) - 2} more sampled game(s) have no page" in text
    assert f"caylus replay {copy} --game {game} --game-id ID --html viewer/game-ID.html" in text
    assert verify_dataset(copy, game=game).ok  # neither the report nor the pages are shards


def test_the_command_writes_the_report_and_no_html_skips_it(dataset, tmp_path):
    import shutil

    game, dataset = dataset
    copy = tmp_path / "d"
    shutil.copytree(dataset, copy, ignore=shutil.ignore_patterns("report.html", "viewer"))
    env = {**os.environ, "COLUMNS": "200"}
    run = [str(CAYLUS), "dataset", "stats", str(copy), "--game", game]
    proc = subprocess.run([*run, "--no-html"], capture_output=True, text=True, env=env)
    assert proc.returncode == 0, proc.stderr
    assert not (copy / "report.html").exists() and not (copy / "viewer").exists()
    proc = subprocess.run(run, capture_output=True, text=True, env=env)
    assert proc.returncode == 0, proc.stderr
    written, direct = _parse(copy / "report.html"), _parse(dataset / "report.html")
    assert written.tables == direct.tables and written.links == direct.links
    assert sorted(p.name for p in (copy / "viewer").iterdir()) == sorted(
        p.name for p in (dataset / "viewer").iterdir()
    )
    assert "replay pages in" in proc.stdout.replace("\n", " ")
    assert verify_dataset(copy, game=game).ok


def test_the_report_opens_in_chromium_and_a_game_link_opens_the_viewer(dataset):
    from playwright.sync_api import sync_playwright

    game, dataset = dataset
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=chromium_executable(), headless=True)
        try:
            tab = browser.new_context(viewport={"width": 1400, "height": 1000}).new_page()
            console = PageConsole(tab)
            tab.goto((dataset / "report.html").as_uri())
            assert tab.locator("h1").text_content() == f"Dataset: {' vs '.join(agents(game))}"
            assert tab.title().startswith(f"{game_spec(game).title} dataset")
            assert tab.locator("img").evaluate_all(
                "images => images.length === 1 && images[0].complete && images[0].naturalWidth > 0"
            )
            tab.click("#games ~ table a >> nth=0")
            tab.wait_for_function("window.caylusViewer !== undefined")
            assert tab.locator("#title").text_content().startswith("game ")
            assert "/viewer/game-" in tab.url
            assert console.errors == []
            assert all(url.startswith("file://") for url in console.requests)
        finally:
            browser.close()
