"""Tournament reports: one JSON summary, rendered as Markdown, PNG plots and a terminal view.

`build_summary` runs every statistic of `agents.stats.ratings` on a list of game results and
returns a plain, JSON-ready dict (string keys, lists, ``None`` instead of NaN). All renderers take
that dict, so a report can be rebuilt from a ``summary.json`` written earlier without the games.
Every file is written atomically (temporary file in the target directory, then ``os.replace``), so
a crash or a concurrent reader never sees half a report.
"""

from __future__ import annotations

import io
import json
import math
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

import numpy as np
from matplotlib import colormaps
from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.figure import Figure
from rich.console import Console
from rich.table import Table

from agents.progress import console as default_console
from agents.stats.ratings import (
    DEFAULT_L2,
    ELO_PER_NAT,
    MIN_BOOTSTRAP_BLOCKS,
    Contrast,
    GameResult,
    agent_summary,
    bootstrap_pl,
    coerce_results,
    find_separation,
    fit_plackett_luce,
    head_to_head,
    openskill_ladder,
    seat_separation,
    seat_table,
    separated_difference,
    shared_blocks,
)
from caylus_env.core.fileio import atomic_write_bytes

SCHEMA = "caylus-tournament-summary/3"
"""Version 3: agents' ``mean_score`` (was ``mean_prestige``) and the summary's
``score_word``."""
DEFAULT_SCORE_WORD = "score"
"""What a summary calls the scores when its caller names no game's word (`build_summary`)."""
_DASH = "—"

RATINGS_PLOT_FILE = "ratings.png"
"""File name `plot_ratings` output gets in a run directory; the report links it by this name."""
HEAD_TO_HEAD_PLOT_FILE = "head_to_head.png"
"""File name of `plot_head_to_head` output in a run directory; the report links it by this name."""
DEFAULT_PLOT_LINKS = (("Ratings", RATINGS_PLOT_FILE), ("Head-to-head", HEAD_TO_HEAD_PLOT_FILE))
"""(caption, relative file name) of the plots a report sits beside."""

INTERVAL_RULE = (
    "Intervals are 95% percentile intervals over block-bootstrap resamples. Where one agent (or "
    "group) never finished behind another, the likelihood keeps growing with their gap, so any "
    "finite estimate there is set by the fit's prior: such a gap is shown as a one-sided bound "
    "(> X or < X, from the blocks in which the two met, where P(ahead) <= p for every block "
    "gives the bound logit(p) with p ** blocks = 2.5%). An interval is shown as n/a (too few "
    f"games) when an agent played fewer than {MIN_BOOTSTRAP_BLOCKS} blocks, when more than 2.5% "
    "of the resamples separate the two agents, or when every resample gave the same value."
)


def margin_definition(summary: Mapping[str, Any]) -> str:
    """What the mean margin is, in the summary's score word (``summary["score_word"]``)."""
    word = score_word(summary)
    return (
        f"Mean margin: a seat's {word} minus the best {word} among the other seats of its game, "
        "averaged over games (positive: won by that many points; negative: behind the winner)."
    )


def score_word(summary: Mapping[str, Any]) -> str:
    """The word of the summary's game for a score (``prestige``, ``victory points``)."""
    return str(summary.get("score_word", DEFAULT_SCORE_WORD))


TIE_RULE = (
    "A shared first place counts as a win for every tied seat (so the win rates of one player "
    "count can add up to more than 100%); mean rank gives tied seats the average of the ranks "
    "they share."
)


# --------------------------------------------------------------------------------------------------
# Building the summary
# --------------------------------------------------------------------------------------------------


def _clean(value: Any) -> Any:
    """Recursively convert to JSON types: str keys, lists, floats, and None for NaN/inf."""
    if isinstance(value, Mapping):
        return {str(k): _clean(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_clean(v) for v in value]
    if isinstance(value, np.ndarray):
        return [_clean(v) for v in value.tolist()]
    if isinstance(value, (bool, np.bool_)):
        return bool(value)
    if isinstance(value, (int, np.integer)):
        return int(value)
    if isinstance(value, (float, np.floating)):
        value = float(value)
        return value if math.isfinite(value) else None
    return value


def build_summary(
    results: Iterable[GameResult | Mapping[str, Any]],
    n_boot: int = 200,
    seed: int = 0,
    reference: str | None = None,
    tau: float = 0.0,
    l2: float = DEFAULT_L2,
    score_word: str = DEFAULT_SCORE_WORD,
) -> dict[str, Any]:
    """Compute every statistic of a tournament into one JSON-ready dict.

    Args:
        results: Finished games (`GameResult` or parsed ``games.jsonl`` dicts).
        n_boot: Block-bootstrap resamples for the rating CIs and LOS; 0 skips the bootstrap
            (intervals and LOS are then None).
        seed: Seed of the bootstrap.
        reference: Agent fixed at Elo 0; defaults to the alphabetically first agent.
        tau: OpenSkill skill drift for the live ladder (0 for frozen agents).
        l2: Ridge penalty of the Plackett–Luce fit.
        score_word: What the game calls a seat's score (``GameSpec.score_word``), for the
            reports' headings.

    Returns:
        A dict with keys ``schema``, ``score_word``, ``n_games``, ``n_blocks``, ``player_counts``, ``agents``,
        ``agents_by_players``, ``seats``, ``head_to_head``, ``ratings``, ``forfeits`` and
        ``openskill``; it holds no NaN (missing values are None), and player counts and seats
        are string keys. ``ratings.agents`` is ordered best first (separation groups first,
        then strength); each agent's ``vs_reference`` and ``vs_next`` (the agent ranked below)
        and every cell of ``ratings.differences`` is a contrast ``{"kind", "elo", "lo", "hi",
        "note", "separated"}`` in Elo, with ``kind`` one of ``"interval"``, ``"lower"`` (the
        gap exceeds ``lo``), ``"upper"`` (below ``hi``) or ``"none"`` (``note`` says why); see
        `INTERVAL_RULE` and `agents.stats.ratings.PLBootstrap.difference`. ``elo_ci`` is set
        only where a two-sided interval is reported. ``forfeits`` lists
        ``{"game_id", "agent", "seat", "reason"}`` per forfeited seat.
    """
    games = coerce_results(results)
    if not games:
        raise ValueError("no game results given")
    player_counts: dict[int, int] = {}
    for r in games:
        player_counts[r.num_players] = player_counts.get(r.num_players, 0) + 1

    if n_boot > 0:
        boot = bootstrap_pl(games, n_boot=n_boot, seed=seed, reference=reference, l2=l2)
        fit = boot.fit
        separation = boot.separation
        level = boot.level
    else:
        boot = None
        fit = fit_plackett_luce(games, reference=reference, l2=l2)
        separation = find_separation(games)
        level = 0.95
    shared = shared_blocks(games)

    def difference(a: str, b: str) -> Contrast:
        if boot is not None:
            return boot.difference(a, b)
        estimate = fit.theta[a] - fit.theta[b]
        return separated_difference(separation, shared, a, b, estimate, level) or Contrast(
            "none", estimate, None, None, "n/a (no bootstrap was run)"
        )

    def contrast_dict(c: Contrast, a: str, b: str) -> dict[str, Any]:
        elo = c.scaled(ELO_PER_NAT)
        return {
            "kind": elo.kind,
            "elo": elo.estimate,
            "lo": elo.lo,
            "hi": elo.hi,
            "note": elo.note,
            "separated": separation.order(a, b) != 0,
        }

    order = sorted(fit.agents, key=lambda a: (separation.group_of[a], -fit.theta[a], a))
    rating_rows = {}
    for rank, agent in enumerate(order):
        vs_ref = difference(agent, fit.reference)
        interval = vs_ref.kind == "interval" and agent != fit.reference
        below = order[rank + 1] if rank + 1 < len(order) else None
        rating_rows[agent] = {
            "theta": fit.theta[agent],
            "elo": ELO_PER_NAT * fit.theta[agent],
            "theta_ci": [vs_ref.lo, vs_ref.hi] if interval else None,
            "elo_ci": [ELO_PER_NAT * vs_ref.lo, ELO_PER_NAT * vs_ref.hi] if interval else None,
            "group": separation.group_of[agent],
            "vs_reference": None
            if agent == fit.reference
            else contrast_dict(vs_ref, agent, fit.reference),
            "next": below,
            "vs_next": None
            if below is None
            else contrast_dict(difference(agent, below), agent, below),
        }
    seat_rows = {}
    seat_split = seat_separation(games)
    for n, effects in fit.seat_effects.items():
        seat_rows[n] = []
        for s, d in enumerate(effects):
            c = (
                boot.seat_interval(n, s)
                if boot
                else Contrast("none", d, None, None, "n/a (no bootstrap was run)")
            )
            ok = c.kind == "interval"
            seat_rows[n].append(
                {
                    "seat": s,
                    "theta": d,
                    "elo": ELO_PER_NAT * d,
                    "theta_ci": [c.lo, c.hi] if ok else None,
                    "elo_ci": [ELO_PER_NAT * c.lo, ELO_PER_NAT * c.hi] if ok else None,
                    "note": c.note,
                }
            )
    differences = [
        [None if a == b else contrast_dict(difference(a, b), a, b) for b in order] for a in order
    ]
    groups = [list(g) for g in separation.groups]
    # One sentence per top group ("never finished behind" the groups below it), then one per
    # bottom group that no such sentence already names.
    statements = []
    named: set[str] = set()
    n_groups = len(groups)
    for gi, group in enumerate(groups):
        below = [m for gj, other in enumerate(groups) if separation.above[gi, gj] for m in other]
        if below and not separation.above[:, gi].any():
            statements.append(f"{', '.join(group)} never finished behind {', '.join(below)}")
            named.update(below)
    for gi, group in enumerate(groups):
        above = [m for gj, other in enumerate(groups) if separation.above[gj, gi] for m in other]
        last = not any(separation.above[gi, gj] for gj in range(n_groups))
        if above and last and not named.issuperset(group):
            statements.append(f"{', '.join(group)} never finished ahead of {', '.join(above)}")
    forfeits = [
        {
            "game_id": r.game_id,
            "agent": r.seats[seat],
            "seat": seat,
            "reason": (r.forfeit_reason[seat] if r.forfeit_reason else None),
        }
        for r in sorted(games, key=lambda g: g.game_id)
        if r.forfeit
        for seat in range(r.num_players)
        if r.forfeit[seat]
    ]
    h2h = head_to_head(games)
    summary = {
        "schema": SCHEMA,
        "score_word": score_word,
        "n_games": len(games),
        "n_blocks": len({r.block for r in games}),
        "player_counts": dict(sorted(player_counts.items())),
        "agents": agent_summary(games),
        "agents_by_players": {
            n: agent_summary([r for r in games if r.num_players == n])
            for n in sorted(player_counts)
        },
        "seats": seat_table(games),
        "head_to_head": {"agents": h2h.agents, "matrix": h2h.matrix, "counts": h2h.counts},
        "ratings": {
            "model": "plackett-luce with per-(player count, seat) effects",
            "scale": "elo = 400 / ln(10) * theta",
            "reference": fit.reference,
            "ties": "breslow",
            "l2": fit.l2,
            "loglik": fit.loglik,
            "converged": fit.converged,
            "n_boot": n_boot,
            "level": level if boot else None,
            "seed": seed if boot else None,
            "agents": rating_rows,
            "relative_to": f"reference {fit.reference} = 0",
            "intervals": INTERVAL_RULE,
            "separation": {
                "separated": separation.separated,
                "groups": groups,
                "statements": statements,
                "seats_separated": [n for n, split in seat_split.items() if split],
            },
            "differences": {"agents": order, "matrix": differences},
            "seat_effects": seat_rows,
            "los": {"agents": fit.agents, "matrix": boot.los} if boot else None,
        },
        "forfeits": forfeits,
        "openskill": {"model": "PlackettLuce", "tau": tau, "agents": openskill_ladder(games, tau)},
    }
    return _clean(summary)


# --------------------------------------------------------------------------------------------------
# Atomic file output
# --------------------------------------------------------------------------------------------------


def write_summary_json(summary: Mapping[str, Any], path: str | Path) -> None:
    """Write the summary as indented JSON, atomically.

    Raises:
        ValueError: If the summary holds NaN or infinity (strict JSON has neither).
    """
    text = json.dumps(summary, indent=2, allow_nan=False) + "\n"
    atomic_write_bytes(path, text.encode("utf-8"))


def _fmt(value: Any, digits: int = 3) -> str:
    if value is None:
        return _DASH
    if isinstance(value, float):
        return f"{value:.{digits}f}"
    return str(value)


def _fmt_ci(ci: list[float] | None, digits: int = 3) -> str:
    if ci is None:
        return _DASH
    return f"[{ci[0]:.{digits}f}, {ci[1]:.{digits}f}]"


def _fmt_gap(c: Mapping[str, Any] | None, signed: bool = True) -> str:
    """A contrast (Elo) in one cell: ``+35 [-10, +80]``, ``> +641``, ``< -641`` or its n/a note."""
    if c is None:
        return _DASH
    sign = "+" if signed else ""
    if c["kind"] == "interval":
        return f"{c['elo']:{sign}.0f} [{c['lo']:{sign}.0f}, {c['hi']:{sign}.0f}]"
    if c["kind"] == "lower":
        return f"> {c['lo']:{sign}.0f}"
    if c["kind"] == "upper":
        return f"< {c['hi']:{sign}.0f}"
    return c["note"].split(":")[0]


def _md_table(header: list[str], rows: list[list[str]]) -> list[str]:
    lines = ["| " + " | ".join(header) + " |", "|" + "|".join("---" for _ in header) + "|"]
    lines += ["| " + " | ".join(cells) + " |" for cells in rows]
    return [*lines, ""]


def _rating_rows(summary: Mapping[str, Any]) -> list[list[str]]:
    ratings = summary["ratings"]
    agents = summary["agents"]
    rows = []
    for i, (agent, r) in enumerate(ratings["agents"].items(), start=1):
        vs_ref = r.get("vs_reference")
        if vs_ref is None:
            elo, ci = "0", "reference"
        elif vs_ref["kind"] == "interval":
            elo, ci = f"{r['elo']:.1f}", _fmt_ci(r["elo_ci"], 1)
        elif vs_ref["kind"] in ("lower", "upper"):
            elo, ci = _fmt_gap(vs_ref, signed=False), f"one-sided: {vs_ref['note']}"
        elif vs_ref["separated"]:
            elo, ci = "n/a", vs_ref["note"]
        else:
            elo, ci = f"{r['elo']:.1f}", vs_ref["note"]
        rows.append(
            [
                str(i),
                agent,
                elo,
                ci,
                _fmt_gap(r.get("vs_next")),
                str(agents[agent]["games"]),
                _fmt(agents[agent]["win_rate"]),
            ]
        )
    return rows


def _rating_order(summary: Mapping[str, Any], table: Mapping[str, Any]) -> list[str]:
    """The agents of ``table`` in the order of the ratings table (unrated ones last, by name)."""
    rated = [a for a in summary["ratings"]["agents"] if a in table]
    return rated + sorted(a for a in table if a not in rated)


def _agent_rows(summary: Mapping[str, Any], table: Mapping[str, Any]) -> list[list[str]]:
    rows = []
    for agent in _rating_order(summary, table):
        a = table[agent]
        rows.append(
            [
                agent,
                str(a["games"]),
                str(a["wins"]),
                _fmt(a["win_rate"]),
                _fmt_ci(a["win_ci"]),
                _fmt(a["mean_rank"], 2),
                _fmt(a["mean_score"], 1),
                _fmt(a["mean_margin"], 1),
                str(a["forfeits"]),
            ]
        )
    return rows


def agent_header(summary: Mapping[str, Any]) -> list[str]:
    """The agents table's columns, the score in the summary's word."""
    return [
        "Agent",
        "Games",
        "Wins",
        "Win rate",
        "Win 95% CI",
        "Mean rank",
        f"Mean {score_word(summary)}",
        "Mean margin",
        "Forfeits",
    ]


def _seat_rows(summary: Mapping[str, Any]) -> list[list[str]]:
    rows = []
    effects = summary["ratings"]["seat_effects"]
    for n, seats in summary["seats"].items():
        for seat, s in seats.items():
            eff = effects[n][int(seat)] if n in effects else None
            if eff is None:
                elo, ci = _DASH, _DASH
            else:
                elo = _fmt(eff["elo"], 1)
                ci = _fmt_ci(eff["elo_ci"], 1) if eff["elo_ci"] else eff.get("note") or _DASH
            rows.append(
                [n, seat, str(s["games"]), _fmt(s["win_rate"]), _fmt(s["mean_rank"], 2), elo, ci]
            )
    return rows


_RATING_HEADER = ["#", "Agent", "Elo", "95% CI", "vs next [95% CI]", "Games", "Win rate"]
_SEAT_HEADER = ["Players", "Seat", "Games", "Win rate", "Mean rank", "Seat effect", "95% CI"]
_LADDER_HEADER = ["Agent", "mu", "sigma", "Ordinal", "Games"]
#: What the OpenSkill ladder is, in report.md and report.html (``tau`` filled in).
LADDER_NOTE = (
    "Online Plackett–Luce (tau = {tau}), in game order; ordinal = mu − 3 sigma. For "
    "matchmaking and dashboards only; the ratings above are the reference numbers."
)
_FORFEIT_HEADER = ["Game", "Agent", "Seat", "Reason"]


def _ladder_rows(summary: Mapping[str, Any]) -> list[list[str]]:
    return [
        [a, _fmt(r["mu"], 2), _fmt(r["sigma"], 2), _fmt(r["ordinal"], 2), str(r["games"])]
        for a, r in summary["openskill"]["agents"].items()
    ]


def _h2h_percent(
    summary: Mapping[str, Any],
) -> tuple[list[str], list[list[int | None]], list[list[int]]]:
    """Head-to-head shares in whole percent, agents in rating order.

    Each pair's cells are complementary (a tie counts half to each), so one cell is rounded and
    the other is 100 minus it: rounding both independently could show 34% and 67%.
    """
    h2h = summary["head_to_head"]
    agents = _rating_order(summary, dict.fromkeys(h2h["agents"]))
    idx = [h2h["agents"].index(a) for a in agents]
    k = len(agents)
    pct: list[list[int | None]] = [[None] * k for _ in range(k)]
    counts = [[int(h2h["counts"][i][j]) for j in idx] for i in idx]
    for a in range(k):
        for b in range(a + 1, k):
            share = h2h["matrix"][idx[a]][idx[b]]
            if share is None:
                continue
            upper = math.floor(100.0 * share + 0.5)
            pct[a][b], pct[b][a] = upper, 100 - upper
    return agents, pct, counts


def _h2h_table(summary: Mapping[str, Any]) -> tuple[list[str], list[list[str]]]:
    agents, pct, counts = _h2h_percent(summary)
    rows = []
    for i, agent in enumerate(agents):
        cells = [
            _DASH if p is None else f"{p}% ({c})" for p, c in zip(pct[i], counts[i], strict=True)
        ]
        rows.append([agent, *cells])
    return ["", *agents], rows


def _difference_table(summary: Mapping[str, Any]) -> tuple[list[str], list[list[str]]]:
    diffs = summary["ratings"]["differences"]
    rows = [
        [a, *(_fmt_gap(c) for c in row)]
        for a, row in zip(diffs["agents"], diffs["matrix"], strict=True)
    ]
    return ["", *diffs["agents"]], rows


def _separation_lines(summary: Mapping[str, Any]) -> list[str]:
    """Plain-text warnings about separated agents and seats (empty when there is none)."""
    sep = summary["ratings"]["separation"]
    lines = []
    if sep["separated"]:
        lines.append(
            "Separation: "
            + "; ".join(sep["statements"] or ["some groups of agents never met"])
            + ". Their rating gaps are unbounded by the games: shown as one-sided bounds "
            "(> X, < X) or n/a, never as two-sided intervals."
        )
    if sep["seats_separated"]:
        counts = ", ".join(f"{n}-player" for n in sep["seats_separated"])
        lines.append(
            f"Seat separation in {counts} games: a seat never finished behind the others, so "
            "those seat effects have no interval."
        )
    return lines


def _forfeit_rows(summary: Mapping[str, Any]) -> list[list[str]]:
    return [
        [str(f["game_id"]), f["agent"], str(f["seat"]), f["reason"] or "(not recorded)"]
        for f in summary.get("forfeits", [])
    ]


def write_markdown_report(
    summary: Mapping[str, Any],
    path: str | Path,
    plots: Iterable[tuple[str, str]] = DEFAULT_PLOT_LINKS,
) -> None:
    """Render the summary as a Markdown report.

    Sections: plots (relative links), ratings with what every interval is relative to and the
    separation warnings, pairwise rating differences, agents (in rating order), seats, forfeits,
    OpenSkill ladder, head-to-head and likelihood of superiority.

    Args:
        summary: A `build_summary` dict.
        path: The report file.
        plots: ``(caption, file name)`` of the plots written beside the report, linked by
            relative path (`plot_ratings` and `plot_head_to_head` under the default names);
            pass ``()`` when there are none.
    """
    ratings = summary["ratings"]
    counts = ", ".join(f"{n}p: {g}" for n, g in summary["player_counts"].items())
    lines = [
        "# Tournament summary",
        "",
        f"{summary['n_games']} games in {summary['n_blocks']} blocks ({counts}).",
        "",
    ]
    plots = list(plots)
    if plots:
        lines += ["Plots: " + ", ".join(f"[{c}]({f})" for c, f in plots) + ".", ""]
        lines += [f"![{c}]({f})" for c, f in plots] + [""]
    ref = ratings["reference"]
    lines += [
        "## Ratings",
        "",
        f"Plackett–Luce fit over full finishing orders with one effect per (player count, seat); "
        f"Elo = 400 / ln 10 × log-strength. **Elo and its 95% CI are relative to the reference "
        f"`{ref}` = 0**; *vs next* is the difference to the agent ranked just below (its own "
        "interval, so it stays meaningful when the reference is separated from the rest). "
        + (
            f"{round(100 * ratings['level'])}% intervals from {ratings['n_boot']} block-bootstrap "
            "resamples."
            if ratings["n_boot"]
            else "No bootstrap was run, so there are no two-sided intervals."
        ),
        "",
        ratings["intervals"],
        "",
    ]
    lines += [f"**Warning.** {line}" for line in _separation_lines(summary)]
    if _separation_lines(summary):
        lines.append("")
    lines += _md_table(_RATING_HEADER, _rating_rows(summary))
    lines += [
        "### Rating differences",
        "",
        "Elo of the row agent minus Elo of the column agent, with its 95% interval, or a "
        "one-sided bound where the two are separated.",
        "",
    ]
    lines += _md_table(*_difference_table(summary))
    lines += ["## Agents", "", "In rating order. " + TIE_RULE, "", margin_definition(summary), ""]
    lines += _md_table(agent_header(summary), _agent_rows(summary, summary["agents"]))
    if len(summary["agents_by_players"]) > 1:
        for n, table in summary["agents_by_players"].items():
            lines += [f"### {n}-player games", ""]
            lines += _md_table(agent_header(summary), _agent_rows(summary, table))
    lines += [
        "## Seats",
        "",
        "Seat 0 moves first; win rate and mean rank per seat, whoever sat there. " + TIE_RULE,
        "Seat effects are in Elo and sum to zero for each player count.",
        "",
    ]
    lines += _md_table(_SEAT_HEADER, _seat_rows(summary))
    forfeits = _forfeit_rows(summary)
    lines += ["## Forfeits", ""]
    if forfeits:
        lines += [
            f"{len(forfeits)} forfeit(s). A forfeiting seat is ranked last in its game; the "
            f"others keep their order by {score_word(summary)} (then the rules' tie-break).",
            "",
        ]
        lines += _md_table(_FORFEIT_HEADER, forfeits)
    else:
        lines += ["No agent forfeited a game.", ""]
    ladder = summary["openskill"]
    lines += [
        "## OpenSkill ladder",
        "",
        (LADDER_NOTE.format(tau=ladder["tau"])),
        "",
    ]
    lines += _md_table(_LADDER_HEADER, _ladder_rows(summary))
    lines += [
        "## Head-to-head",
        "",
        (
            "Share of the shared tables at which the row agent finished ahead of the column "
            "agent (a tie counts half to each), in whole percent: the two cells of a pair add "
            "up to 100%. Pairings in brackets."
        ),
        "",
    ]
    lines += _md_table(*_h2h_table(summary))
    los = ratings["los"]
    if los is not None:
        lines += [
            "## Likelihood of superiority",
            "",
            "Share of bootstrap resamples in which the row agent is rated above the column agent.",
            "",
        ]
        lines += _md_table(
            ["", *los["agents"]],
            [
                [a, *(_fmt(x, 2) for x in row)]
                for a, row in zip(los["agents"], los["matrix"], strict=True)
            ],
        )
    atomic_write_bytes(path, "\n".join(lines).encode("utf-8"))


# --------------------------------------------------------------------------------------------------
# Plots
# --------------------------------------------------------------------------------------------------


def _save_png(fig: Figure, path: str | Path) -> None:
    FigureCanvasAgg(fig)
    buffer = io.BytesIO()
    fig.savefig(buffer, format="png", dpi=120)
    atomic_write_bytes(path, buffer.getvalue())


def plot_ratings(summary: Mapping[str, Any], path: str | Path) -> None:
    """Save `ratings_figure` as a PNG file, atomically."""
    _save_png(ratings_figure(summary), path)


def ratings_figure(summary: Mapping[str, Any]) -> Figure:
    """Elo gaps to the reference agent with their intervals, best agent on top.

    The reference is the summary's (``ratings.reference``), the same agent every table of the
    reports is relative to, named on the x axis. Agents whose gap to it has a two-sided
    interval get a filled marker and error bar; agents separated from it (never beaten, or
    never beating) get an open arrow at the edge of the axis with the bound as text, and the
    axis limits come from the non-separated agents only, so a never-winning agent cannot squash
    the others; agents of the reference's group without a reliable interval get an open marker.
    """
    ratings = summary["ratings"]
    anchor = ratings["reference"]
    diffs = ratings["differences"]
    col = diffs["agents"].index(anchor)
    rows = list(ratings["agents"])[::-1]
    fig = Figure(figsize=(7.5, 1.6 + 0.45 * len(rows)), layout="constrained")
    ax = fig.add_subplot()
    inside: list[float] = [0.0]
    drawn = []
    for y, agent in enumerate(rows):
        c = None if agent == anchor else diffs["matrix"][diffs["agents"].index(agent)][col]
        drawn.append((y, c))
        if c is None:
            continue
        if c["kind"] == "interval":
            inside += [c["lo"], c["hi"]]
        elif not c["separated"]:
            inside.append(c["elo"])
    lo, hi = min(inside), max(inside)
    pad = max(0.12 * (hi - lo), 25.0)
    left, right = lo - pad, hi + pad
    for y, c in drawn:
        if c is None:
            ax.plot([0.0], [y], "D", color="black")
        elif c["kind"] == "interval":
            ax.errorbar(
                [c["elo"]],
                [y],
                xerr=[[c["elo"] - c["lo"]], [c["hi"] - c["elo"]]],
                fmt="o",
                capsize=4,
                color="tab:blue",
            )
        elif c["separated"]:
            up = c["kind"] == "lower" or (c["kind"] == "none" and c["elo"] > 0)
            x = right if up else left
            ax.plot(
                [x], [y], ">" if up else "<", ms=11, mfc="white", color="tab:red", clip_on=False
            )
            label = _fmt_gap(c) if c["kind"] != "none" else "n/a (too few games)"
            ax.annotate(
                f"{label} (separated)",
                (x, y),
                xytext=(-10 if up else 10, 7),
                textcoords="offset points",
                ha="right" if up else "left",
                fontsize=8,
                color="tab:red",
            )
        else:
            ax.plot([c["elo"]], [y], "o", mfc="white", color="tab:grey")
            ax.annotate(
                "n/a (too few games)",
                (c["elo"], y),
                xytext=(0, 7),
                textcoords="offset points",
                ha="center",
                fontsize=8,
                color="tab:grey",
            )
    ax.set_xlim(left, right)
    ax.set_ylim(-0.7, len(rows) - 0.3)
    ax.axvline(0.0, color="grey", linestyle="--", linewidth=1)
    names = [f"{a} (ref)" if a == ratings["reference"] else a for a in rows]
    ax.set_yticks(range(len(rows)), names)
    ax.set_xlabel(f"Elo difference to {anchor} (reference, = 0)")
    title = "Plackett–Luce ratings with seat effects"
    if ratings["n_boot"]:
        title += f", {round(100 * ratings['level'])}% block-bootstrap CI"
    ax.set_title(title)
    ax.grid(axis="x", alpha=0.3)
    return fig


def plot_head_to_head(summary: Mapping[str, Any], path: str | Path) -> None:
    """Heatmap of the "finished ahead of" shares, each cell annotated with share and pairings.

    Shares are shown in whole percent, rounded so that the two cells of a pair add up to 100%.

    Agents are ordered by rating, strongest first, so a transitive pool shows a blue upper
    triangle and deviations from it stand out.
    """
    agents, pct, counts = _h2h_percent(summary)
    k = len(agents)
    share = np.array([[np.nan if p is None else p / 100.0 for p in row] for row in pct], float)
    side = 2.0 + 0.9 * k
    fig = Figure(figsize=(side + 1.5, side), layout="constrained")
    ax = fig.add_subplot()
    cmap = colormaps["RdBu"].with_extremes(bad="#d9d9d9")  # grey: never met, unlike 0.5 (white)
    image = ax.imshow(np.ma.masked_invalid(share), cmap=cmap, vmin=0.0, vmax=1.0)
    fig.colorbar(image, ax=ax, label="share finished ahead")
    for i in range(k):
        for j in range(k):
            if np.isnan(share[i, j]):
                continue
            colour = "white" if abs(share[i, j] - 0.5) > 0.3 else "black"
            ax.text(
                j,
                i,
                f"{pct[i][j]}%\n({counts[i][j]})",
                ha="center",
                va="center",
                color=colour,
                fontsize=8,
            )
    ax.set_xticks(range(k), agents, rotation=45, ha="right")
    ax.set_yticks(range(k), agents)
    ax.set_xlabel("opponent")
    ax.set_ylabel("agent")
    ax.set_title("Head-to-head: row finished ahead of column")
    _save_png(fig, path)


# --------------------------------------------------------------------------------------------------
# Terminal view
# --------------------------------------------------------------------------------------------------


def _rich_table(title: str, header: list[str], rows: list[list[str]], label: int | None) -> Table:
    """A rich table whose ``label`` column (agent names) is left-aligned and never wrapped."""
    table = Table(title=title, min_width=len(title))  # keep the title on one line
    for c, name in enumerate(header):
        if c == label:
            table.add_column(name, justify="left", no_wrap=True)
        else:
            table.add_column(name, justify="right")
    for row in rows:
        table.add_row(*row)
    return table


def print_summary(summary: Mapping[str, Any], console: Console | None = None) -> None:
    """Print the summary as rich tables (ratings, agents, seats, forfeits, OpenSkill,
    head-to-head), saying what every rating interval is relative to."""
    console = console or default_console()
    ratings = summary["ratings"]
    counts = ", ".join(f"{n}p: {g}" for n, g in summary["player_counts"].items())
    console.print(f"{summary['n_games']} games in {summary['n_blocks']} blocks ({counts})")
    table = _rich_table(
        f"Ratings (Elo and 95% CI relative to reference {ratings['reference']} = 0)",
        _RATING_HEADER,
        _rating_rows(summary),
        label=1,
    )
    table.caption = (
        "vs next: Elo difference to the agent ranked just below, with its own 95% interval. "
        "> X / < X: one-sided bound where the games separate the two agents."
    )
    console.print(table)
    for line in _separation_lines(summary):
        console.print(f"[bold yellow]warning:[/] {line}", highlight=False)
    if any(
        c is not None and c["kind"] == "none" and not c["separated"]
        for r in ratings["agents"].values()
        for c in (r.get("vs_reference"), r.get("vs_next"))
    ):
        console.print(
            f"n/a (too few games): fewer than {MIN_BOOTSTRAP_BLOCKS} blocks, resamples that "
            "separate the agents, or a zero-width bootstrap; see report.md",
            highlight=False,
        )
    agents = _rich_table(
        "Agents (in rating order)",
        agent_header(summary),
        _agent_rows(summary, summary["agents"]),
        0,
    )
    agents.caption = f"{TIE_RULE} {margin_definition(summary)}"
    console.print(agents)
    console.print(
        _rich_table(
            "Seats (seat 0 moves first; effects in Elo; a shared first place is a win for each)",
            _SEAT_HEADER,
            _seat_rows(summary),
            None,
        )
    )
    forfeits = _forfeit_rows(summary)
    if forfeits:
        console.print(_rich_table("Forfeits", _FORFEIT_HEADER, forfeits, 1))
    console.print(
        _rich_table(
            f"OpenSkill ladder (tau = {summary['openskill']['tau']})",
            _LADDER_HEADER,
            _ladder_rows(summary),
            label=0,
        )
    )
    header, rows = _h2h_table(summary)
    console.print(
        _rich_table("Head-to-head: row finished ahead of column (pairings)", header, rows, 0)
    )
