"""Tests for agents.stats.report: JSON summary, Markdown, PNG plots, rich output, atomic writes."""

from __future__ import annotations

import io
import json
import math
import os
import re

import numpy as np
import pytest
from rich.console import Console

from agents.stats.ratings import GameResult
from agents.stats.report import (
    HEAD_TO_HEAD_PLOT_FILE,
    RATINGS_PLOT_FILE,
    build_summary,
    plot_head_to_head,
    plot_ratings,
    print_summary,
    ratings_figure,
    write_markdown_report,
    write_summary_json,
)

PNG_MAGIC = b"\x89PNG\r\n\x1a\n"
AGENTS = ["random", "greedy", "ppo-step-1000", "ppo-step-2000"]
STRENGTH = {"random": 0.0, "greedy": 0.6, "ppo-step-1000": 0.9, "ppo-step-2000": 1.2}


def make_games(n_blocks: int = 40, seed: int = 0) -> list[dict]:
    """Parsed ``games.jsonl`` lines: 3-player seat-rotated blocks plus some 2-player games.

    ``ppo-step-2000`` never meets ``random``, so the crosstable has holes that must become null.
    """
    rng = np.random.default_rng(seed)
    lines = []
    trios = [("random", "greedy", "ppo-step-1000"), ("greedy", "ppo-step-1000", "ppo-step-2000")]
    for block in range(n_blocks):
        trio = trios[block % 2]
        for rot in range(3):
            seats = trio[rot:] + trio[:rot]
            u = np.array([STRENGTH[a] for a in seats]) + rng.gumbel(size=3)
            scores = [int(40 + 10 * x) for x in u]
            lines.append(result_line(len(lines), block, seats, scores))
    for g in range(30):
        seats = ("greedy", "random") if g % 2 else ("random", "greedy")
        scores = [int(30 + 10 * (STRENGTH[a] + rng.gumbel())) for a in seats]
        lines.append(result_line(len(lines), n_blocks + g, seats, scores))
    return lines


def result_line(game_id: int, block: int, seats, scores) -> dict:
    """A result dict with average ranks derived from scores (equal scores tie)."""
    ranks = []
    for p in scores:
        above = sum(q > p for q in scores)
        equal = sum(q == p for q in scores)
        ranks.append(above + (equal + 1) / 2)
    return {
        "game_id": game_id,
        "seed": 1000 + block,
        "block": block,
        "num_players": len(seats),
        "seats": list(seats),
        "scores": scores,
        "ranks": ranks,
    }


@pytest.fixture(scope="module")
def summary() -> dict:
    return build_summary(make_games(), n_boot=40, seed=3)


def walk(value):
    """Yield every leaf of a nested dict/list."""
    if isinstance(value, dict):
        for v in value.values():
            yield from walk(v)
    elif isinstance(value, list):
        for v in value:
            yield from walk(v)
    else:
        yield value


def test_summary_is_plain_json_without_nan(summary):
    text = json.dumps(summary, allow_nan=False)
    assert json.loads(text) == summary
    assert not any(isinstance(x, float) and not math.isfinite(x) for x in walk(summary))
    assert summary["n_games"] == 150
    assert summary["player_counts"] == {"2": 30, "3": 120}
    assert sorted(summary["agents"]) == sorted(AGENTS)
    # Never-met pairs and the diagonal are null, not NaN.
    h2h = summary["head_to_head"]
    i, j = h2h["agents"].index("ppo-step-2000"), h2h["agents"].index("random")
    assert h2h["matrix"][i][j] is None and h2h["counts"][i][j] == 0
    assert h2h["matrix"][0][0] is None


def test_summary_ratings_are_ordered_and_carry_intervals(summary):
    ratings = summary["ratings"]
    assert ratings["reference"] == "greedy"  # alphabetically first
    assert ratings["agents"]["greedy"]["elo"] == 0.0
    elos = [r["elo"] for r in ratings["agents"].values()]
    assert elos == sorted(elos, reverse=True)
    assert ratings["agents"]["greedy"]["elo_ci"] is None  # the reference is 0 by definition
    assert ratings["agents"]["greedy"]["vs_reference"] is None
    for agent, r in ratings["agents"].items():
        if agent != "greedy":
            lo, hi = r["elo_ci"]
            assert lo <= r["elo"] <= hi
            assert r["vs_reference"]["kind"] == "interval"
    assert ratings["relative_to"] == "reference greedy = 0"
    assert not ratings["separation"]["separated"]
    diffs = ratings["differences"]
    assert diffs["agents"] == list(ratings["agents"])
    a, b = diffs["agents"].index("ppo-step-2000"), diffs["agents"].index("random")
    cell = diffs["matrix"][a][b]
    assert cell["kind"] == "interval" and cell["lo"] < cell["elo"] < cell["hi"]
    assert set(ratings["seat_effects"]) == {"2", "3"}
    assert sum(s["theta"] for s in ratings["seat_effects"]["3"]) == pytest.approx(0.0, abs=1e-9)
    assert ratings["los"]["agents"] == sorted(AGENTS)
    assert set(summary["seats"]) == {"2", "3"}
    assert summary["seats"]["3"]["0"]["games"] == 120


def test_summary_without_bootstrap_has_null_intervals():
    s = build_summary(make_games(10), n_boot=0)
    assert s["ratings"]["los"] is None
    assert all(r["elo_ci"] is None for r in s["ratings"]["agents"].values())
    json.dumps(s, allow_nan=False)


def test_summary_accepts_game_results_and_is_deterministic():
    lines = make_games(12)
    a = build_summary([GameResult.from_dict(x) for x in lines], n_boot=10, seed=1)
    b = build_summary(lines, n_boot=10, seed=1)
    assert a == b


def test_json_round_trip_and_markdown_contents(summary, tmp_path):
    json_path = tmp_path / "out" / "summary.json"
    write_summary_json(summary, json_path)
    loaded = json.loads(json_path.read_text())
    assert loaded == summary
    md_path = tmp_path / "out" / "report.md"
    write_markdown_report(summary, md_path)
    text = md_path.read_text()
    for agent in AGENTS:
        assert agent in text
    for heading in (
        "## Ratings",
        "## Agents",
        "## Seats",
        "## OpenSkill ladder",
        "## Head-to-head",
    ):
        assert heading in text
    # Rendering the reloaded JSON gives the same report: renderers need only the summary file.
    again = tmp_path / "again.md"
    write_markdown_report(loaded, again)
    assert again.read_text() == text
    assert sorted(os.listdir(tmp_path / "out")) == ["report.md", "summary.json"]


def test_plots_are_png_files(summary, tmp_path):
    plot_ratings(summary, tmp_path / "ratings.png")
    plot_head_to_head(summary, tmp_path / "h2h.png")
    for name in ("ratings.png", "h2h.png"):
        data = (tmp_path / name).read_bytes()
        assert data.startswith(PNG_MAGIC)
        assert len(data) > 5000
    assert sorted(os.listdir(tmp_path)) == ["h2h.png", "ratings.png"]


def test_plot_ratings_without_intervals(tmp_path):
    s = build_summary(make_games(6), n_boot=0)
    plot_ratings(s, tmp_path / "r.png")
    assert (tmp_path / "r.png").read_bytes().startswith(PNG_MAGIC)


def test_failed_write_keeps_the_old_file_and_leaves_no_temp_file(summary, tmp_path):
    path = tmp_path / "summary.json"
    write_summary_json(summary, path)
    before = path.read_bytes()
    broken = {**summary, "n_games": float("nan")}
    with pytest.raises(ValueError):
        write_summary_json(broken, path)
    assert path.read_bytes() == before
    # Overwriting succeeds and replaces the content in one step.
    write_summary_json({**summary, "n_games": 1}, path)
    assert json.loads(path.read_text())["n_games"] == 1
    assert os.listdir(tmp_path) == ["summary.json"]


def test_temp_file_is_removed_when_the_final_rename_fails(summary, tmp_path):
    # A directory in the way makes os.replace fail after the temporary file was written.
    (tmp_path / "ratings.png").mkdir()
    with pytest.raises(OSError):
        plot_ratings(summary, tmp_path / "ratings.png")
    assert os.listdir(tmp_path) == ["ratings.png"]
    assert (tmp_path / "ratings.png").is_dir()


def test_print_summary_renders_rich_tables(summary):
    console = Console(record=True, width=220)
    print_summary(summary, console=console)
    text = console.export_text()
    for agent in AGENTS:
        assert agent in text
    for title in ("Ratings", "Agents", "Seats", "OpenSkill ladder", "Head-to-head"):
        assert title in text


def separated_games() -> list[dict]:
    """2-player pairs: town and castle split their games, random never wins (it also forfeits
    one game)."""
    rng = np.random.default_rng(5)
    lines = []
    for block in range(60):
        pair = [("town", "castle"), ("town", "random"), ("castle", "random")][block % 3]
        for k in range(2):
            seats = pair if k == 0 else pair[::-1]
            if "random" in seats:
                scores = [10 if a == "random" else 40 for a in seats]
            else:
                scores = [int(30 + 10 * rng.gumbel()) for _ in seats]
            lines.append(result_line(len(lines), block, seats, scores))
    lines[3]["forfeit"] = [True, False] if lines[3]["seats"][0] == "random" else [False, True]
    lines[3]["forfeit_reason"] = [
        "error: RuntimeError: boom" if f else None for f in lines[3]["forfeit"]
    ]
    return lines


@pytest.fixture(scope="module")
def separated() -> dict:
    return build_summary(separated_games(), n_boot=40, seed=1, reference="random")


def test_separated_agents_get_bounds_and_a_warning(separated, tmp_path):
    ratings = separated["ratings"]
    assert list(ratings["agents"])[-1] == "random"
    assert ratings["separation"]["groups"][-1] == ["random"]
    assert ratings["separation"]["statements"] == ["castle, town never finished behind random"]
    for agent in ("town", "castle"):
        vs_ref = ratings["agents"][agent]["vs_reference"]
        assert vs_ref["kind"] == "lower" and vs_ref["separated"] and vs_ref["lo"] > 0
        assert ratings["agents"][agent]["elo_ci"] is None  # no two-sided interval
    # Between the two that did meet both ways, a real interval.
    top, second = list(ratings["agents"])[:2]
    assert ratings["agents"][top]["vs_next"]["kind"] == "interval"
    assert ratings["agents"][second]["vs_next"]["kind"] == "lower"
    path = tmp_path / "report.md"
    write_markdown_report(separated, path)
    text = path.read_text()
    assert "**Warning.** Separation" in text
    assert "relative to the reference `random` = 0" in text
    assert f"> {ratings['agents']['town']['vs_reference']['lo']:.0f}" in text
    assert "### Rating differences" in text
    console = Console(record=True, width=250)
    print_summary(separated, console=console)
    out = console.export_text()
    assert "relative to reference random = 0" in out
    assert "warning: Separation" in out and "vs next" in out


def test_ratings_plot_measures_from_the_reference_of_the_tables_even_when_it_is_separated(
    separated,
):
    # random, the reference of every table, is separated from the rest: the plot still
    # measures from it (one reference for tables and plot), and town and castle, which never
    # finished behind it, become arrows at the right edge with their bounds.
    fig = ratings_figure(separated)
    ax = fig.axes[0]
    assert ax.get_xlabel() == "Elo difference to random (reference, = 0)"
    texts = [t.get_text() for t in ax.texts]
    bounds = [t for t in texts if "(separated)" in t]
    assert len(bounds) == 2
    for agent in ("town", "castle"):
        lo = separated["ratings"]["agents"][agent]["vs_reference"]["lo"]
        assert f"> {lo:+.0f} (separated)" in bounds


def test_ratings_plot_keeps_separated_agents_at_the_edge():
    # With town as the reference, castle gets an interval and random (never winning) an arrow
    # at the left edge; the axis spans only the connected agents.
    summary = build_summary(separated_games(), n_boot=40, seed=1, reference="town")
    fig = ratings_figure(summary)
    ax = fig.axes[0]
    left, right = ax.get_xlim()
    assert ax.get_xlabel() == "Elo difference to town (reference, = 0)"
    random_elo = summary["ratings"]["agents"]["random"]["elo"]
    prior_gap = random_elo - summary["ratings"]["agents"]["town"]["elo"]
    assert left > prior_gap / 2
    assert right - left < 600
    texts = [t.get_text() for t in ax.texts]
    assert any("(separated)" in t and t.startswith("<") for t in texts)


def test_report_links_plots_orders_agents_and_lists_forfeits(separated, tmp_path):
    path = tmp_path / "report.md"
    write_markdown_report(separated, path)
    text = path.read_text()
    assert f"[Ratings]({RATINGS_PLOT_FILE})" in text and f"({HEAD_TO_HEAD_PLOT_FILE})" in text
    assert "Mean margin: a seat's score minus the best score among the other seats" in text
    assert "| Mean score |" in text  # no game named: the neutral word
    assert "A shared first place counts as a win for every tied seat" in text
    agents_section = text.split("## Agents")[1].split("##")[0]
    rows = [line.split("|")[1].strip() for line in agents_section.splitlines() if "|" in line]
    assert rows[2:] == list(separated["ratings"]["agents"])
    forfeit = separated["forfeits"]
    assert forfeit == [
        {
            "game_id": 3,
            "agent": "random",
            "seat": forfeit[0]["seat"],
            "reason": "error: RuntimeError: boom",
        }
    ]
    assert "## Forfeits" in text
    assert f"| 3 | random | {forfeit[0]['seat']} | error: RuntimeError: boom |" in text
    write_markdown_report(separated, tmp_path / "bare.md", plots=())
    assert ".png" not in (tmp_path / "bare.md").read_text()
    quiet = build_summary(make_games(6), n_boot=0)
    write_markdown_report(quiet, tmp_path / "quiet.md")
    assert "No agent forfeited a game." in (tmp_path / "quiet.md").read_text()


def test_head_to_head_cells_of_a_pair_add_up_to_100_percent(tmp_path):
    # 200 games, "a" ahead in 67: shares 0.335 and 0.665 used to print as 0.34 and 0.67.
    lines = [
        result_line(
            g,
            g,
            ("a", "b") if g % 2 else ("b", "a"),
            [1, 0] if (g < 67) == (g % 2 == 1) else [0, 1],
        )
        for g in range(200)
    ]
    summary = build_summary(lines, n_boot=0)
    h2h = summary["head_to_head"]
    i, j = h2h["agents"].index("a"), h2h["agents"].index("b")
    assert h2h["matrix"][i][j] == pytest.approx(0.335)
    write_markdown_report(summary, tmp_path / "r.md", plots=())
    text = (tmp_path / "r.md").read_text().split("## Head-to-head")[1]
    cells = [int(c.split("%")[0]) for c in re.findall(r"\d+% \(200\)", text)]
    assert len(cells) == 2 and sum(cells) == 100
    assert sorted(cells) in ([33, 67], [34, 66])


def test_reports_name_the_scores_in_the_games_word(tmp_path):
    lines = [result_line(g, g, ["A", "B"], [30, 20] if g % 2 else [20, 30]) for g in range(8)]
    summary = build_summary(lines, n_boot=0, score_word="victory points")
    assert summary["score_word"] == "victory points"
    assert all("mean_score" in a for a in summary["agents"].values())
    write_markdown_report(summary, tmp_path / "report.md")
    text = (tmp_path / "report.md").read_text()
    assert "| Mean victory points |" in text
    assert "a seat's victory points minus the best victory points among the other seats" in text
    assert "score" not in text.split("## Agents")[1].split("##")[0].replace("victory points", "")
    console = Console(file=io.StringIO(), width=200)
    print_summary(summary, console)
    assert "Mean victory points" in console.file.getvalue()
