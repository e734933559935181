"""What a run shows and writes: the progress bar and the statistics reports of ``agents.stats``.

``summary.json``, ``report.md``, ``ratings.png`` and ``head_to_head.png`` are recomputed from all
results whenever a run finishes (also when a resumed run finds nothing left to play). They depend
on the games alone, never on timings, so the same arguments give the same ``summary.json``.

``report.html`` is the same report for a browser: the leaderboard with its intervals, the seat
table, the head-to-head matrix and the plots (embedded, so the file can be moved on its own),
plus a replay page (``caylus_env.core.viewer.write_replay_page``, drawn by the record's game)
for a sample of games, written beside it as ``game-<id>.html``: the first game of each table
of agents and every forfeit. Every game of the registry is reported the same way; scores are
named in the game's own word (``GameSpec.score_word``).
"""

from __future__ import annotations

import base64
import html
import re
from collections.abc import Iterable, Mapping, Sequence
from importlib import resources
from pathlib import Path
from string import Template
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

from agents.tournament.rundir import GAMES_FILE, read_records
from caylus_env.core.registry import DEFAULT_GAME, game_of, game_spec

SUMMARY_FILE = "summary.json"
REPORT_FILE = "report.md"
HTML_REPORT_FILE = "report.html"
DUEL_FILE = "duel.json"
REPORT_TEMPLATE = "report_template.html"
GAME_PAGE = "game-{game_id}.html"
"""File name of a sampled game's replay page, beside ``report.html``."""
GAME_PAGE_NAME = re.compile(r"game-\d+\.html")
"""What `GAME_PAGE` names look like: pages of games no longer sampled are removed."""
MAX_GAME_PAGES = 60
"""Replay pages written per run at most (pairings first, then forfeits in game order): each
costs about 0.1 s and a few hundred KiB, and a run with a crashing agent can forfeit hundreds of
games. The report lists the games left without a page and the command that writes one."""


class _RateColumn(ProgressColumn):
    """Games per second (rich's built-in speed column formats bytes)."""

    def render(self, task: Task) -> Text:
        speed = task.finished_speed or task.speed
        return Text("" if speed is None else f"{speed:.1f} games/s", style="progress.data.speed")


def progress_bar(console: Console, enabled: bool) -> Progress:
    """A progress bar with games done, games per second, time spent and time left; off a
    terminal, plain lines instead (`agents.progress.PlainProgress`)."""
    from agents.progress import PlainProgress

    return PlainProgress(
        TextColumn("[progress.description]{task.description}"),
        BarColumn(),
        MofNCompleteColumn(),
        _RateColumn(),
        TimeElapsedColumn(),
        TextColumn("left"),
        TimeRemainingColumn(),
        console=console,
        enabled=enabled,
    )


def report_reference(info: Mapping[str, Any], reference: str | None = None) -> str:
    """The reference agent (Elo 0) of a run's reports: ``reference`` (``--reference``) when
    given, else the first agent of the run's ``--agents``. Every table (summary.json,
    report.md, report.html, the terminal) and the ratings plot measure from this one agent.

    Raises:
        ValueError: for a ``reference`` that is not an agent of the run, naming those.
    """
    agents = list(info["agents"])
    if reference is None:
        return str(agents[0])
    if reference not in agents:
        raise ValueError(f"{reference!r} is not an agent of this run; allowed: {', '.join(agents)}")
    return reference


def write_reports(
    results: Sequence[Mapping[str, Any]],
    out_dir: Path,
    info: Mapping[str, Any],
    console: Console,
    n_boot: int = 200,
    reference: str | None = None,
) -> dict[str, Any]:
    """Compute the statistics of ``agents.stats`` from the games' ``arena.result_of`` dicts,
    print them, and write the report files; every rating is relative to `report_reference`
    (``reference``, else the run's first agent)."""
    from agents import stats

    game = game_of(info)
    reference = report_reference(info, reference)
    console.print(
        f"computing the ratings of {len(results)} games"
        + (f" ({n_boot} bootstrap resamples)" if n_boot else "")
        + f" and writing the reports in {out_dir}...",
        highlight=False,
    )
    summary = stats.build_summary(
        results,
        n_boot=n_boot,
        seed=int(info["seed"]),
        reference=reference,
        score_word=game_spec(game).score_word,
    )
    summary["run"] = dict(info)
    forfeits = sum(1 for r in results if r.get("end") == "forfeit")
    summary["run"]["forfeited_games"] = forfeits
    stats.write_summary_json(summary, out_dir / SUMMARY_FILE)
    stats.write_markdown_report(summary, out_dir / REPORT_FILE)
    stats.plot_ratings(summary, out_dir / stats.RATINGS_PLOT_FILE)  # the files report.md links
    stats.plot_head_to_head(summary, out_dir / stats.HEAD_TO_HEAD_PLOT_FILE)
    pages, unpaged = write_game_pages(results, out_dir, game)
    write_html_report(summary, results, out_dir, pages, unpaged)
    stats.print_summary(summary, console)
    if forfeits:
        console.print(
            f"{forfeits} game(s) ended by a forfeit; reasons are in {GAMES_FILE} "
            "(--replay-forfeits plays them again)"
        )
    with_pages = f"with {len(pages)} game page{'s' if len(pages) != 1 else ''}"
    console.print(
        f"wrote {SUMMARY_FILE}, {REPORT_FILE}, {HTML_REPORT_FILE} ({with_pages}), "
        f"{stats.RATINGS_PLOT_FILE} and {stats.HEAD_TO_HEAD_PLOT_FILE} in {out_dir}"
    )
    return summary


# --------------------------------------------------------------------------------------------------
# report.html and the sampled games' replay pages
# --------------------------------------------------------------------------------------------------


def sample_games(results: Sequence[Mapping[str, Any]]) -> list[tuple[int, str]]:
    """``(game_id, why)`` of the games that get a replay page: the first game (lowest id) of
    each table of agents (the sorted agents at the table, so both seatings of a pairing count
    once), then every forfeit, in game order; at most `MAX_GAME_PAGES`."""
    ordered = sorted(results, key=lambda r: r["game_id"])
    picked: dict[int, str] = {}
    tables: set[tuple[str, ...]] = set()
    for r in ordered:
        table = tuple(sorted(r["seats"]))
        if table not in tables:
            tables.add(table)
            picked[r["game_id"]] = "first game of " + " vs ".join(table)
    for r in ordered:
        if r["end"] == "forfeit":
            loser = r["forfeit"].index(True)
            why = f"forfeit by player {loser} ({r['seats'][loser]})"
            picked[r["game_id"]] = (
                f"{picked[r['game_id']]}; {why}" if r["game_id"] in picked else why
            )
    return list(picked.items())[:MAX_GAME_PAGES]


def write_game_pages(
    results: Sequence[Mapping[str, Any]], out_dir: Path, game: str = DEFAULT_GAME
) -> tuple[dict[int, tuple[str, str]], list[int]]:
    """Write the replay page of every sampled game (`sample_games`) from the run's
    ``games.jsonl`` of ``game``, atomically (``caylus_env.core.viewer.write_replay_page``),
    and remove pages of games no longer sampled.

    Returns:
        ``{game_id: (page file name, why)}`` and the ids of forfeits left without a page.
    """
    from caylus_env.core.viewer import write_replay_page

    sample = sample_games(results)
    pages = {gid: (GAME_PAGE.format(game_id=gid), why) for gid, why in sample}
    games_path = out_dir / GAMES_FILE
    records = {r.game_id: r for r in read_records(games_path, game)} if pages else {}
    for gid, (name, _) in pages.items():
        if gid not in records:
            raise ValueError(f"game {gid} has a result but no line in {games_path}")
        write_replay_page(records[gid], out_dir / name)
    wanted = {name for name, _ in pages.values()}
    for stale in out_dir.iterdir():
        if GAME_PAGE_NAME.fullmatch(stale.name) and stale.name not in wanted:
            stale.unlink()
    unpaged = [r["game_id"] for r in results if r["end"] == "forfeit" and r["game_id"] not in pages]
    return pages, sorted(unpaged)


def _table(header: Sequence[str], rows: Iterable[Sequence[str]], text_columns: int = 0) -> str:
    """An HTML table of already formatted cells (escaped here); the last ``text_columns``
    columns are left-aligned prose."""
    head = "".join(f"<th>{html.escape(h)}</th>" for h in header)
    body = []
    for cells in rows:
        k = len(cells)
        body.append(
            "<tr>"
            + "".join(
                f'<td class="text">{c}</td>' if i >= k - text_columns else f"<td>{c}</td>"
                for i, c in enumerate(_escape_cells(cells))
            )
            + "</tr>"
        )
    return f"<table><thead><tr>{head}</tr></thead><tbody>{''.join(body)}</tbody></table>"


class _Markup(str):
    """A cell that is already HTML (a link), kept as is by `_table`."""


def _escape_cells(cells: Sequence[str]) -> list[str]:
    return [c if isinstance(c, _Markup) else html.escape(str(c)) for c in cells]


def _link(name: str, text: str) -> _Markup:
    return _Markup(f'<a href="{html.escape(name, quote=True)}">{html.escape(text)}</a>')


def _para(text: str, cls: str = "note") -> str:
    return f'<p class="{cls}">{html.escape(text)}</p>'


def _plots(out_dir: Path) -> str:
    """The run's plots as embedded PNG images (a missing plot is left out)."""
    from agents.stats.report import DEFAULT_PLOT_LINKS

    figures = []
    for caption, name in DEFAULT_PLOT_LINKS:
        path = out_dir / name
        if not path.exists():
            continue
        data = base64.b64encode(path.read_bytes()).decode("ascii")
        figures.append(
            f'<figure><img alt="{html.escape(caption)}" src="data:image/png;base64,{data}">'
            f"<figcaption>{html.escape(caption)} ({html.escape(name)})</figcaption></figure>"
        )
    return "".join(figures) or _para("No plots were written for this run.")


def _games_section(
    results: Mapping[int, Mapping[str, Any]],
    pages: Mapping[int, tuple[str, str]],
    unpaged: Sequence[int],
    game: str = DEFAULT_GAME,
) -> str:
    word = game_spec(game).score_word
    rows = []
    for gid, (name, why) in pages.items():
        r = results[gid]
        seats = ", ".join(f"{p}: {a}" for p, a in enumerate(r["seats"]))
        scores = ", ".join(str(v) for v in r["scores"])
        rows.append([_link(name, f"game {gid}"), seats, scores, r["end"], why])
    parts = [
        _para(
            "A replay page for the first game of each table of agents and for every forfeit: the "
            f"board at every decision, the legal actions and the action taken, and the {word} "
            "of every seat over the game."
        ),
        _table(["Game", "Seats", f"Final {word}", "End", "Why"], rows, text_columns=1),
    ]
    if unpaged:
        shown = ", ".join(map(str, unpaged[:20])) + (", ..." if len(unpaged) > 20 else "")
        parts.append(
            _para(
                f"{len(unpaged)} more forfeited game(s) have no page (at most {MAX_GAME_PAGES} "
                f"pages a run): {shown}. Write one with: caylus replay {GAMES_FILE} --game {game} "
                "--game-id ID --html game-ID.html"
            )
        )
    return "".join(parts)


def write_html_report(
    summary: Mapping[str, Any],
    results: Sequence[Mapping[str, Any]],
    out_dir: Path,
    pages: Mapping[int, tuple[str, str]],
    unpaged: Sequence[int] = (),
) -> Path:
    """Write ``report.html`` (atomically) from a `agents.stats.build_summary` dict of
    ``results``, the plots beside it and the sampled games' replay pages of
    `write_game_pages`; the game is the summary's run's (``summary["run"]["game"]``)."""
    # The tables are those of report.md, row for row: the same formatting code.
    from agents.stats.report import (
        _FORFEIT_HEADER,
        _LADDER_HEADER,
        _RATING_HEADER,
        _SEAT_HEADER,
        LADDER_NOTE,
        TIE_RULE,
        _agent_rows,
        _difference_table,
        _forfeit_rows,
        _h2h_table,
        _ladder_rows,
        _rating_rows,
        _seat_rows,
        _separation_lines,
        agent_header,
        margin_definition,
    )
    from caylus_env.core.fileio import atomic_write_text

    run = summary.get("run", {})
    game = game_of(run)
    ratings = summary["ratings"]
    counts = ", ".join(f"{n}p: {g}" for n, g in summary["player_counts"].items())
    heading = " vs ".join(run.get("agents", summary["agents"]))
    intro = (
        f"{summary['n_games']} games in {summary['n_blocks']} blocks ({counts}), seed "
        f"{run.get('seed', '?')}, engine {run.get('engine', '?')}."
    )
    intro = f"{game_spec(game).title}: {intro}"
    if ratings["n_boot"]:
        level = round(100 * ratings["level"])
        boot = f"{level}% intervals from {ratings['n_boot']} block-bootstrap resamples."
    else:
        boot = "No bootstrap was run, so there are no two-sided intervals."
    body = [
        '<h2 id="ratings">Ratings</h2>',
        _para(
            "Plackett–Luce fit over full finishing orders with one effect per (player count, "
            f"seat); Elo = 400 / ln 10 × log-strength. Elo and its interval are relative to the "
            f"reference {ratings['reference']} = 0 (every table and the ratings plot measure from "
            "it: the first agent of --agents, unless --reference names another); vs next is the "
            f"difference to the agent ranked just below, with its own interval. {boot}"
        ),
        _para(ratings["intervals"]),
        *(_para(line, "warning") for line in _separation_lines(summary)),
        _table(_RATING_HEADER, _rating_rows(summary)),
        "<h3>Rating differences</h3>",
        _para(
            "Elo of the row agent minus Elo of the column agent, with its 95% interval, or a "
            "one-sided bound where the two are separated."
        ),
        _table(*_difference_table(summary)),
        '<h2 id="agents">Agents</h2>',
        _para(f"In rating order. {TIE_RULE} {margin_definition(summary)}"),
        _table(agent_header(summary), _agent_rows(summary, summary["agents"])),
    ]
    if len(summary["agents_by_players"]) > 1:
        for n, table in summary["agents_by_players"].items():
            body += [
                f"<h3>{html.escape(str(n))}-player games</h3>",
                _table(agent_header(summary), _agent_rows(summary, table)),
            ]
    body += [
        '<h2 id="seats">Seats</h2>',
        _para(
            "Seat 0 moves first; win rate and mean rank per seat, whoever sat there. Seat "
            "effects are in Elo and sum to zero for each player count."
        ),
        _table(_SEAT_HEADER, _seat_rows(summary)),
        '<h2 id="head-to-head">Head-to-head</h2>',
        _para(
            "Share of the shared tables at which the row agent finished ahead of the column "
            "agent (a tie counts half to each), in whole percent; pairings in brackets."
        ),
        _table(*_h2h_table(summary)),
        '<h2 id="openskill">OpenSkill ladder</h2>',
        _para(LADDER_NOTE.format(tau=summary["openskill"]["tau"])),
        _table(_LADDER_HEADER, _ladder_rows(summary)),
        '<h2 id="forfeits">Forfeits</h2>',
    ]
    forfeits = _forfeit_rows(summary)
    if forfeits:
        for row in forfeits:
            gid = int(row[0])
            if gid in pages:
                row[0] = _link(pages[gid][0], row[0])
        body.append(_table(_FORFEIT_HEADER, forfeits, text_columns=1))
    else:
        body.append(_para("No agent forfeited a game."))
    games_section = _games_section({r["game_id"]: r for r in results}, pages, unpaged, game)
    body += [
        '<h2 id="games">Games</h2>',
        games_section,
        '<h2 id="plots">Plots</h2>',
        _plots(out_dir),
    ]
    template = Template(resources.files(__package__).joinpath(REPORT_TEMPLATE).read_text("utf-8"))
    page = template.substitute(
        game=html.escape(game_spec(game).title),
        heading=html.escape(heading),
        intro=html.escape(intro),
        body="\n".join(body),
    )
    path = out_dir / HTML_REPORT_FILE
    atomic_write_text(path, page)
    return path


__all__ = [
    "DUEL_FILE",
    "GAME_PAGE",
    "HTML_REPORT_FILE",
    "MAX_GAME_PAGES",
    "REPORT_FILE",
    "SUMMARY_FILE",
    "progress_bar",
    "report_reference",
    "sample_games",
    "write_game_pages",
    "write_html_report",
    "write_reports",
]
