"""What a run shows and writes: the progress bar and the statistics reports of ``agents.stats``.

``summary.json``, ``report.md``, ``ratings.png`` and ``head_to_head.png`` are recomputed from all
results whenever a run finishes (also when a resumed run finds nothing left to play). They depend
on the games alone, never on timings, so the same arguments give the same ``summary.json``.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from rich.console import Console
from rich.progress import (
    BarColumn,
    MofNCompleteColumn,
    Progress,
    ProgressColumn,
    Task,
    TextColumn,
    TimeElapsedColumn,
    TimeRemainingColumn,
)
from rich.text import Text

from agents.tournament.rundir import GAMES_FILE

SUMMARY_FILE = "summary.json"
REPORT_FILE = "report.md"
DUEL_FILE = "duel.json"


class _RateColumn(ProgressColumn):
    """Games per second (rich's built-in speed column formats bytes)."""

    def render(self, task: Task) -> Text:
        speed = task.finished_speed or task.speed
        return Text("" if speed is None else f"{speed:.1f} games/s", style="progress.data.speed")


def progress_bar(console: Console, enabled: bool) -> Progress:
    """A progress bar with games done, games per second, time spent and time left."""
    return Progress(
        TextColumn("[progress.description]{task.description}"),
        BarColumn(),
        MofNCompleteColumn(),
        _RateColumn(),
        TimeElapsedColumn(),
        TextColumn("left"),
        TimeRemainingColumn(),
        console=console,
        disable=not enabled,
    )


def write_reports(
    results: Sequence[Mapping[str, Any]],
    out_dir: Path,
    info: Mapping[str, Any],
    console: Console,
    n_boot: int = 200,
) -> dict[str, Any]:
    """Compute the statistics of ``agents.stats`` from the games' ``arena.result_of`` dicts,
    print them, and write the report files."""
    from agents import stats

    agents = list(info["agents"])
    reference = "random" if "random" in agents else None
    summary = stats.build_summary(
        results, n_boot=n_boot, seed=int(info["seed"]), reference=reference
    )
    summary["run"] = dict(info)
    forfeits = sum(1 for r in results if r.get("end") == "forfeit")
    summary["run"]["forfeited_games"] = forfeits
    stats.write_summary_json(summary, out_dir / SUMMARY_FILE)
    stats.write_markdown_report(summary, out_dir / REPORT_FILE)
    stats.plot_ratings(summary, out_dir / stats.RATINGS_PLOT_FILE)  # the files report.md links
    stats.plot_head_to_head(summary, out_dir / stats.HEAD_TO_HEAD_PLOT_FILE)
    stats.print_summary(summary, console)
    if forfeits:
        console.print(
            f"{forfeits} game(s) ended by a forfeit; reasons are in {GAMES_FILE} "
            "(--replay-forfeits plays them again)"
        )
    console.print(
        f"wrote {SUMMARY_FILE}, {REPORT_FILE}, {stats.RATINGS_PLOT_FILE} and "
        f"{stats.HEAD_TO_HEAD_PLOT_FILE} in {out_dir}"
    )
    return summary


__all__ = [
    "DUEL_FILE",
    "REPORT_FILE",
    "SUMMARY_FILE",
    "progress_bar",
    "write_reports",
]
