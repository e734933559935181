"""Statistics for the tournament harness: win rates, seat effects, ratings, SPRT gating, reports.

Pure functions of finished-game results (`GameResult`, one line of ``games.jsonl``); nothing here
imports the game engine. See shared/design/evaluation-datasets-scale.md, sections (a), (b) and the
appendix, for why these statistics were chosen.
"""

from __future__ import annotations

from agents.stats.ratings import (
    ELO_PER_NAT,
    MIN_BOOTSTRAP_BLOCKS,
    Contrast,
    GameResult,
    HeadToHead,
    InvalidResultError,
    PLBootstrap,
    PLFit,
    Separation,
    agent_summary,
    bootstrap_pl,
    coerce_results,
    find_separation,
    fit_plackett_luce,
    head_to_head,
    load_results,
    openskill_ladder,
    seat_separation,
    seat_table,
    separation_bound,
    shared_blocks,
    wilson_interval,
)
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
from agents.stats.sprt import (
    GSPRT_DEFAULT_MIN_N,
    PSEUDO_COUNT,
    SPRT,
    elo_to_score,
    pair_score,
    score_to_elo,
    wald_expected_n,
)

__all__ = [
    "ELO_PER_NAT",
    "GSPRT_DEFAULT_MIN_N",
    "HEAD_TO_HEAD_PLOT_FILE",
    "MIN_BOOTSTRAP_BLOCKS",
    "PSEUDO_COUNT",
    "RATINGS_PLOT_FILE",
    "SPRT",
    "Contrast",
    "GameResult",
    "HeadToHead",
    "InvalidResultError",
    "PLBootstrap",
    "PLFit",
    "Separation",
    "agent_summary",
    "bootstrap_pl",
    "build_summary",
    "coerce_results",
    "elo_to_score",
    "find_separation",
    "fit_plackett_luce",
    "head_to_head",
    "load_results",
    "openskill_ladder",
    "pair_score",
    "plot_head_to_head",
    "plot_ratings",
    "print_summary",
    "ratings_figure",
    "score_to_elo",
    "seat_separation",
    "seat_table",
    "separation_bound",
    "shared_blocks",
    "wald_expected_n",
    "wilson_interval",
    "write_markdown_report",
    "write_summary_json",
]
