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

from agents.stats.ratings import (
    DEFAULT_L2,
    ELO_PER_NAT,
    GameResult,
    agent_summary,
    bootstrap_pl,
    coerce_results,
    fit_plackett_luce,
    head_to_head,
    openskill_ladder,
    seat_table,
)
from caylus_env.fileio import atomic_write_bytes

SCHEMA = "caylus-tournament-summary/1"
_DASH = "—"


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


def _ci_or_none(ci: tuple[float, float] | None, scale: float = 1.0) -> list[float] | None:
    if ci is None or any(math.isnan(x) for x in ci):
        return None
    return [scale * ci[0], scale * ci[1]]


def build_summary(
    results: Iterable[GameResult | Mapping[str, Any]],
    n_boot: int = 200,
    seed: int = 0,
    reference: str | None = None,
    tau: float = 0.0,
    l2: float = DEFAULT_L2,
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

    Returns:
        A dict with keys ``schema``, ``n_games``, ``n_blocks``, ``player_counts``, ``agents``,
        ``agents_by_players``, ``seats``, ``head_to_head``, ``ratings`` and ``openskill``; it
        holds no NaN (missing values are None), and player counts and seats are string keys.
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
    else:
        boot = None
        fit = fit_plackett_luce(games, reference=reference, l2=l2)

    rating_rows = {}
    for agent in sorted(fit.agents, key=lambda a: (-fit.theta[a], a)):
        theta_ci = boot.theta_ci[agent] if boot else None
        rating_rows[agent] = {
            "theta": fit.theta[agent],
            "elo": ELO_PER_NAT * fit.theta[agent],
            "theta_ci": _ci_or_none(theta_ci),
            "elo_ci": _ci_or_none(theta_ci, ELO_PER_NAT),
        }
    seat_rows = {}
    for n, effects in fit.seat_effects.items():
        cis = boot.seat_ci[n] if boot else (None,) * n
        seat_rows[n] = [
            {
                "seat": s,
                "theta": d,
                "elo": ELO_PER_NAT * d,
                "theta_ci": _ci_or_none(cis[s]),
                "elo_ci": _ci_or_none(cis[s], ELO_PER_NAT),
            }
            for s, d in enumerate(effects)
        ]
    h2h = head_to_head(games)
    summary = {
        "schema": SCHEMA,
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
            "level": boot.level if boot else None,
            "seed": seed if boot else None,
            "agents": rating_rows,
            "seat_effects": seat_rows,
            "los": {"agents": fit.agents, "matrix": boot.los} if boot else None,
        },
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


def _md_table(header: list[str], rows: list[list[str]]) -> list[str]:
    lines = ["| " + " | ".join(header) + " |", "|" + "|".join("---" for _ in header) + "|"]
    lines += ["| " + " | ".join(cells) + " |" for cells in rows]
    return [*lines, ""]


def _rating_rows(summary: Mapping[str, Any]) -> list[list[str]]:
    ratings = summary["ratings"]
    agents = summary["agents"]
    rows = []
    for i, (agent, r) in enumerate(ratings["agents"].items(), start=1):
        is_reference = agent == ratings["reference"]
        rows.append(
            [
                str(i),
                agent,
                _fmt(r["elo"], 1),
                "reference" if is_reference else _fmt_ci(r["elo_ci"], 1),
                str(agents[agent]["games"]),
                _fmt(agents[agent]["win_rate"]),
            ]
        )
    return rows


def _agent_rows(table: Mapping[str, Any]) -> list[list[str]]:
    return [
        [
            agent,
            str(a["games"]),
            str(a["wins"]),
            _fmt(a["win_rate"]),
            _fmt_ci(a["win_ci"]),
            _fmt(a["mean_rank"], 2),
            _fmt(a["mean_prestige"], 1),
            _fmt(a["mean_margin"], 1),
            str(a["forfeits"]),
        ]
        for agent, a in table.items()
    ]


_AGENT_HEADER = [
    "Agent",
    "Games",
    "Wins",
    "Win rate",
    "Win 95% CI",
    "Mean rank",
    "Mean prestige",
    "Mean margin",
    "Forfeits",
]


def _seat_rows(summary: Mapping[str, Any]) -> list[list[str]]:
    rows = []
    effects = summary["ratings"]["seat_effects"]
    for n, seats in summary["seats"].items():
        for seat, s in seats.items():
            eff = effects[n][int(seat)] if n in effects else None
            rows.append(
                [
                    n,
                    seat,
                    str(s["games"]),
                    _fmt(s["win_rate"]),
                    _fmt(s["mean_rank"], 2),
                    _fmt(eff["elo"], 1) if eff else _DASH,
                    _fmt_ci(eff["elo_ci"], 1) if eff else _DASH,
                ]
            )
    return rows


_RATING_HEADER = ["#", "Agent", "Elo", "95% CI", "Games", "Win rate"]
_SEAT_HEADER = ["Players", "Seat", "Games", "Win rate", "Mean rank", "Seat effect", "95% CI"]
_LADDER_HEADER = ["Agent", "mu", "sigma", "Ordinal", "Games"]


def _ladder_rows(summary: Mapping[str, Any]) -> list[list[str]]:
    return [
        [a, _fmt(r["mu"], 2), _fmt(r["sigma"], 2), _fmt(r["ordinal"], 2), str(r["games"])]
        for a, r in summary["openskill"]["agents"].items()
    ]


def _h2h_table(summary: Mapping[str, Any]) -> tuple[list[str], list[list[str]]]:
    h2h = summary["head_to_head"]
    agents = h2h["agents"]
    rows = []
    for i, agent in enumerate(agents):
        cells = [
            _DASH if share is None else f"{share:.2f} ({count})"
            for share, count in zip(h2h["matrix"][i], h2h["counts"][i], strict=True)
        ]
        rows.append([agent, *cells])
    return ["", *agents], rows


def write_markdown_report(summary: Mapping[str, Any], path: str | Path) -> None:
    """Render the summary as a Markdown report (ratings, agents, seats, ladder, crosstables)."""
    ratings = summary["ratings"]
    counts = ", ".join(f"{n}p: {g}" for n, g in summary["player_counts"].items())
    lines = [
        "# Tournament summary",
        "",
        f"{summary['n_games']} games in {summary['n_blocks']} blocks ({counts}).",
        "",
        "## Ratings",
        "",
        f"Plackett–Luce fit over full finishing orders with one effect per (player count, seat); "
        f"Elo = 400 / ln 10 × log-strength, reference `{ratings['reference']}` = 0. "
        + (
            f"{round(100 * ratings['level'])}% intervals from {ratings['n_boot']} block-bootstrap "
            "resamples."
            if ratings["n_boot"]
            else "No bootstrap was run, so there are no intervals."
        ),
        "",
    ]
    lines += _md_table(_RATING_HEADER, _rating_rows(summary))
    lines += ["## Agents", "", "A shared first place counts as a win.", ""]
    lines += _md_table(_AGENT_HEADER, _agent_rows(summary["agents"]))
    if len(summary["agents_by_players"]) > 1:
        for n, table in summary["agents_by_players"].items():
            lines += [f"### {n}-player games", ""]
            lines += _md_table(_AGENT_HEADER, _agent_rows(table))
    lines += ["## Seats", "", "Seat 0 moves first. Seat effects are in Elo and sum to zero.", ""]
    lines += _md_table(_SEAT_HEADER, _seat_rows(summary))
    ladder = summary["openskill"]
    lines += [
        "## OpenSkill ladder",
        "",
        (
            f"Online Plackett–Luce (tau = {ladder['tau']}), in game order; ordinal = mu − 3 "
            "sigma. For matchmaking and dashboards only; the ratings above are the reference "
            "numbers."
        ),
        "",
    ]
    lines += _md_table(_LADDER_HEADER, _ladder_rows(summary))
    lines += [
        "## Head-to-head",
        "",
        (
            "Row agent finished ahead of column agent in this share of shared tables (ties count "
            "half); pairings in brackets."
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
    """Horizontal Elo error bars (point estimate and bootstrap interval), best agent on top."""
    ratings = summary["ratings"]
    rows = list(ratings["agents"].items())[::-1]
    names = [f"{a} (ref)" if a == ratings["reference"] else a for a, _ in rows]
    elo = np.array([r["elo"] for _, r in rows])
    lo = np.array([r["elo_ci"][0] if r["elo_ci"] else r["elo"] for _, r in rows])
    hi = np.array([r["elo_ci"][1] if r["elo_ci"] else r["elo"] for _, r in rows])
    fig = Figure(figsize=(7.0, 1.5 + 0.4 * len(names)), layout="constrained")
    ax = fig.add_subplot()
    y = np.arange(len(names))
    ax.errorbar(elo, y, xerr=[elo - lo, hi - elo], fmt="o", capsize=4, color="tab:blue")
    ax.axvline(0.0, color="grey", linestyle="--", linewidth=1)
    ax.set_yticks(y, names)
    ax.set_xlabel(f"Elo (reference {ratings['reference']} = 0)")
    title = "Plackett–Luce ratings with seat effects"
    if ratings["n_boot"]:
        title += f", {round(100 * ratings['level'])}% block-bootstrap CI"
    ax.set_title(title)
    ax.grid(axis="x", alpha=0.3)
    _save_png(fig, path)


def plot_head_to_head(summary: Mapping[str, Any], path: str | Path) -> None:
    """Heatmap of the "finished ahead of" shares, each cell annotated with share and pairings.

    Agents are ordered by rating, strongest first, so a transitive pool shows a blue upper
    triangle and deviations from it stand out.
    """
    h2h = summary["head_to_head"]
    order = [h2h["agents"].index(a) for a in summary["ratings"]["agents"]]
    agents = [h2h["agents"][i] for i in order]
    k = len(agents)
    share = np.array(
        [
            [np.nan if h2h["matrix"][i][j] is None else h2h["matrix"][i][j] for j in order]
            for i in order
        ],
        float,
    )
    counts = [[h2h["counts"][i][j] for j in order] for i in order]
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
                f"{share[i, j]:.2f}\n({counts[i][j]})",
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
    """Print the summary as rich tables (ratings, agents, seats, OpenSkill, head-to-head)."""
    console = console or Console()
    ratings = summary["ratings"]
    counts = ", ".join(f"{n}p: {g}" for n, g in summary["player_counts"].items())
    console.print(f"{summary['n_games']} games in {summary['n_blocks']} blocks ({counts})")
    console.print(
        _rich_table(
            f"Ratings (Elo, reference {ratings['reference']} = 0)",
            _RATING_HEADER,
            _rating_rows(summary),
            label=1,
        )
    )
    console.print(
        _rich_table(
            "Agents (shared first place counts as a win)",
            _AGENT_HEADER,
            _agent_rows(summary["agents"]),
            label=0,
        )
    )
    console.print(
        _rich_table(
            "Seats (seat 0 moves first; effects in Elo)", _SEAT_HEADER, _seat_rows(summary), None
        )
    )
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
