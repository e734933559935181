"""Tests for agents.stats.report: JSON summary, Markdown, PNG plots, rich output, atomic writes."""

from __future__ import annotations

import json
import math
import os

import numpy as np
import pytest
from rich.console import Console

from agents.stats.ratings import GameResult
from agents.stats.report import (
    build_summary,
    plot_head_to_head,
    plot_ratings,
    print_summary,
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
            prestige = [int(40 + 10 * x) for x in u]
            lines.append(result_line(len(lines), block, seats, prestige))
    for g in range(30):
        seats = ("greedy", "random") if g % 2 else ("random", "greedy")
        prestige = [int(30 + 10 * (STRENGTH[a] + rng.gumbel())) for a in seats]
        lines.append(result_line(len(lines), n_blocks + g, seats, prestige))
    return lines


def result_line(game_id: int, block: int, seats, prestige) -> dict:
    """A result dict with average ranks derived from prestige (equal prestige ties)."""
    ranks = []
    for p in prestige:
        above = sum(q > p for q in prestige)
        equal = sum(q == p for q in prestige)
        ranks.append(above + (equal + 1) / 2)
    return {
        "game_id": game_id,
        "seed": 1000 + block,
        "block": block,
        "num_players": len(seats),
        "seats": list(seats),
        "prestige": prestige,
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
    for r in ratings["agents"].values():
        lo, hi = r["elo_ci"]
        assert lo <= r["elo"] <= hi
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
