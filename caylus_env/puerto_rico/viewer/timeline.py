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

from caylus_env.caylus.viewer.timeline import score_chart

LEGEND_STEP = 230  # wider than Caylus's: the legend entries end in " VP"


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
    return score_chart(
        scores,
        rounds,
        names,
        mark_prefix="R",
        what="victory points",
        unit=" VP",
        legend_step=LEGEND_STEP,
    )
