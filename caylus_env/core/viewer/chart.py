"""The score chart of a replay page: every seat's score over the steps of a game, with the
game's clock marked and a cursor on the step shown.

The score at a step is the seat's score as if the game ended there (``Game.scores()``, the
game contract's word; the rulebook's is ``GameSpec.score_word``), so at the last step of a
finished game it is the final score. Drawn once per game (it does not change while stepping);
the page moves the cursor. Lines are step plots that keep only the steps where a seat's score
changes, so a long game stays a few kilobytes.
"""

from __future__ import annotations

from collections.abc import Sequence

from caylus_env.core.viewer import svg
from caylus_env.core.viewer.theme import (
    FONT_SMALL,
    FONT_TEXT,
    HIGHLIGHT,
    MUTED,
    PAPER,
    RULE,
    SEAT_COLOURS,
)

CHART_W = 1200
CHART_H = 220
PLOT_X = 52
PLOT_Y = 28
PLOT_W = CHART_W - PLOT_X - 16
PLOT_H = CHART_H - PLOT_Y - 30
GRID_STEP = 10
LINE_W = 2
#: Room of one seat's legend entry, and the characters of its agent name.
LEGEND_STEP = 180
LEGEND_CHARS = 13


def _grid_above(value: int) -> int:
    """The smallest multiple of ``GRID_STEP`` at or above ``value`` (at least one step)."""
    return max(GRID_STEP, -(-value // GRID_STEP) * GRID_STEP)


def step_x(step: int, steps: int) -> int:
    """x of step ``step`` of ``steps`` on the chart."""
    return PLOT_X + (PLOT_W * step // (steps - 1) if steps > 1 else 0)


def score_chart(
    scores: Sequence[Sequence[int]],
    marks: Sequence[int],
    names: Sequence[str],
    *,
    mark_prefix: str,
    what: str,
    unit: str = "",
    legend_step: int = LEGEND_STEP,
) -> str:
    """The step chart of ``scores[step][seat]``, with a dashed line where ``marks[step]`` (the
    game's clock) changes, labelled ``mark_prefix`` and the mark (``T3`` for Caylus's turn 3,
    ``R3`` for Puerto Rico's round 3), a legend of ``names`` with each final score and
    ``unit``, and the cursor the page moves. ``what`` names the score for screen readers.
    The axis starts at 0, or at the grid line under the lowest score when a game's scores go
    below 0.

    Raises:
        ValueError: for no steps, marks or rows of another length than the steps and seats.
    """
    steps = len(scores)
    if steps == 0 or len(marks) != steps:
        raise ValueError(f"{steps} score rows and {len(marks)} marks; allowed: equal, >= 1")
    seats = len(names)
    if any(len(row) != seats for row in scores):
        raise ValueError(f"every score row must have {seats} entries, one per seat")
    top = _grid_above(max(max(row) for row in scores))
    lowest = min(min(row) for row in scores)
    bottom = -_grid_above(-lowest) if lowest < 0 else 0

    def y_of(v: int) -> int:
        return PLOT_Y + PLOT_H - (PLOT_H * (v - bottom)) // (top - bottom)

    parts = [svg.rect(0, 0, CHART_W, CHART_H, PAPER)]
    for v in range(bottom, top + 1, GRID_STEP):
        parts.append(svg.line(PLOT_X, y_of(v), PLOT_X + PLOT_W, y_of(v), RULE, stroke_width=1))
        parts.append(
            svg.text(PLOT_X - 6, y_of(v) + 4, v, size=FONT_SMALL, fill=MUTED, anchor="end")
        )
    for step, mark in enumerate(marks):
        if step == 0 or mark != marks[step - 1]:
            x = step_x(step, steps)
            parts.append(svg.line(x, PLOT_Y, x, PLOT_Y + PLOT_H, RULE, stroke_dasharray="2 3"))
            parts.append(
                svg.text(
                    x + 3, PLOT_Y + PLOT_H + 14, f"{mark_prefix}{mark}", size=FONT_SMALL, fill=MUTED
                )
            )
    for seat in range(seats):
        points = [(step_x(0, steps), y_of(scores[0][seat]))]
        for step in range(1, steps):
            if scores[step][seat] != scores[step - 1][seat]:
                x = step_x(step, steps)
                points += [(x, y_of(scores[step - 1][seat])), (x, y_of(scores[step][seat]))]
        points.append((step_x(steps - 1, steps), y_of(scores[-1][seat])))
        line = " ".join(f"{x},{y}" for x, y in points)
        parts.append(
            f'<polyline points="{line}" fill="none" stroke="{SEAT_COLOURS[seat]}" '
            f'stroke-width="{LINE_W}" data-seat="{seat}"/>'
        )
        parts.append(
            svg.text(
                PLOT_X + seat * legend_step,
                16,
                f"■ player {seat} · {svg.shorten(names[seat], LEGEND_CHARS)} "
                f"({scores[-1][seat]}{unit})",
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
        aria_label=f"{what} of every seat over the game",
    )


__all__ = ["CHART_H", "CHART_W", "LEGEND_STEP", "score_chart", "step_x"]
