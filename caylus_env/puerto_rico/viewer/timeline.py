"""The VP chart: every seat's score over the steps of a game, with the rounds marked and a
cursor on the step shown.

The score at a step is the seat's victory points as if the game ended there (VP chips plus
buildings plus the large buildings' bonuses, docs/rules/puerto_rico.md 5.2), computed by the
engine; at the last step of a finished game it is the final score. Drawn once per game; the
page moves the cursor. Lines keep only the steps where a score changes, so a long game stays a
few kilobytes.
"""

from __future__ import annotations

from collections.abc import Sequence

from caylus_env.puerto_rico.viewer.theme import (
    FONT_SMALL,
    FONT_TEXT,
    HIGHLIGHT,
    MUTED,
    PAPER,
    RULE,
    SEAT_COLOURS,
)
from caylus_env.viewer import svg

CHART_W = 1200
CHART_H = 220
PLOT_X = 52
PLOT_Y = 28
PLOT_W = CHART_W - PLOT_X - 16
PLOT_H = CHART_H - PLOT_Y - 30
GRID_STEP = 10
LINE_W = 2
LEGEND_STEP = 230
LEGEND_CHARS = 13


def _nice_top(value: int) -> int:
    """The smallest multiple of ``GRID_STEP`` at or above ``value`` (at least one step)."""
    return max(GRID_STEP, -(-value // GRID_STEP) * GRID_STEP)


def _short(name: str) -> str:
    return name if len(name) <= LEGEND_CHARS else name[: LEGEND_CHARS - 1] + "…"


def step_x(step: int, steps: int) -> int:
    """x of step ``step`` of ``steps`` on the chart."""
    return PLOT_X + (PLOT_W * step // (steps - 1) if steps > 1 else 0)


def vp_chart(scores: Sequence[Sequence[int]], rounds: Sequence[int], names: Sequence[str]) -> str:
    """The chart of ``scores[step][seat]``; ``rounds[step]`` is each step's round and
    ``names`` the seats' agent names (the legend).

    Raises:
        ValueError: for no steps, rows and names of different lengths, or a score below 0.
    """
    steps = len(scores)
    if steps == 0 or len(rounds) != steps:
        raise ValueError(f"{steps} score rows and {len(rounds)} rounds; allowed: equal, >= 1")
    seats = len(names)
    if any(len(row) != seats for row in scores):
        raise ValueError(f"every score row must have {seats} entries, one per seat")
    # Scores count chips and buildings, never negative (rules 5.2): the axis starts at 0.
    if min(min(row) for row in scores) < 0:
        raise ValueError("a score below 0; allowed: scores >= 0 (rules 5.2)")
    top = _nice_top(max(max(row) for row in scores))

    def y_of(v: int) -> int:
        return PLOT_Y + PLOT_H - (PLOT_H * v) // top

    parts = [svg.rect(0, 0, CHART_W, CHART_H, PAPER)]
    for v in range(0, top + 1, GRID_STEP):
        parts.append(svg.line(PLOT_X, y_of(v), PLOT_X + PLOT_W, y_of(v), RULE, stroke_width=1))
        parts.append(
            svg.text(PLOT_X - 6, y_of(v) + 4, v, size=FONT_SMALL, fill=MUTED, anchor="end")
        )
    for step, r in enumerate(rounds):
        if step == 0 or r != rounds[step - 1]:
            x = step_x(step, steps)
            parts.append(svg.line(x, PLOT_Y, x, PLOT_Y + PLOT_H, RULE, stroke_dasharray="2 3"))
            parts.append(
                svg.text(x + 3, PLOT_Y + PLOT_H + 14, f"R{r}", size=FONT_SMALL, fill=MUTED)
            )
    for seat in range(seats):
        points = [(step_x(0, steps), y_of(scores[0][seat]))]
        for step in range(1, steps):
            if scores[step][seat] != scores[step - 1][seat]:
                x = step_x(step, steps)
                points += [(x, y_of(scores[step - 1][seat])), (x, y_of(scores[step][seat]))]
        points.append((step_x(steps - 1, steps), y_of(scores[-1][seat])))
        text = " ".join(f"{x},{y}" for x, y in points)
        parts.append(
            f'<polyline points="{text}" fill="none" stroke="{SEAT_COLOURS[seat]}" '
            f'stroke-width="{LINE_W}" data-seat="{seat}"/>'
        )
        parts.append(
            svg.text(
                PLOT_X + seat * LEGEND_STEP,
                16,
                f"■ player {seat} · {_short(names[seat])} ({scores[-1][seat]} VP)",
                size=FONT_TEXT,
                fill=SEAT_COLOURS[seat],
                weight="bold",
            )
        )
    parts.append(
        svg.line(PLOT_X, PLOT_Y, PLOT_X, PLOT_Y + PLOT_H, HIGHLIGHT, stroke_width=3, id="cursor")
    )
    parts.append(svg.rect(PLOT_X, PLOT_Y, PLOT_W, PLOT_H, "transparent", id="chart-hit"))
    return svg.document(
        CHART_W,
        CHART_H,
        "".join(parts),
        id="timeline",
        data_steps=steps,
        data_x0=PLOT_X,
        data_width=PLOT_W,
        role="img",
        aria_label="victory points of every seat over the game",
    )
