"""Statistics for the tournament harness: win rates, seat effects, ratings, SPRT gating, reports.

Pure functions of finished-game results (`GameResult`, one line of ``games.jsonl``); nothing here
imports the game engine. See shared/design/evaluation-datasets-scale.md, sections (a), (b) and the
appendix, for why these statistics were chosen.
"""

from __future__ import annotations

from agents.stats.ratings import (
    ELO_PER_NAT,
    GameResult,
    HeadToHead,
    InvalidResultError,
    PLBootstrap,
    PLFit,
    agent_summary,
    bootstrap_pl,
    coerce_results,
    fit_plackett_luce,
    head_to_head,
    load_results,
    openskill_ladder,
    seat_table,
    wilson_interval,
)
from agents.stats.report import (
    build_summary,
    plot_head_to_head,
    plot_ratings,
    print_summary,
    write_markdown_report,
    write_summary_json,
)
from agents.stats.sprt import (
    GSPRT_DEFAULT_MIN_N,
    SPRT,
    elo_to_score,
    pair_score,
    score_to_elo,
    wald_expected_n,
)

__all__ = [
    "ELO_PER_NAT",
    "GSPRT_DEFAULT_MIN_N",
    "SPRT",
    "GameResult",
    "HeadToHead",
    "InvalidResultError",
    "PLBootstrap",
    "PLFit",
    "agent_summary",
    "bootstrap_pl",
    "build_summary",
    "coerce_results",
    "elo_to_score",
    "fit_plackett_luce",
    "head_to_head",
    "load_results",
    "openskill_ladder",
    "pair_score",
    "plot_head_to_head",
    "plot_ratings",
    "print_summary",
    "score_to_elo",
    "seat_table",
    "wald_expected_n",
    "wilson_interval",
    "write_markdown_report",
    "write_summary_json",
]
