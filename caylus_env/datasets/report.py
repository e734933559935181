"""``report.html`` of a dataset (``caylus dataset stats``): `dataset_stats` for a browser.

The page holds the summary (games, decisions, bytes a decision, the manifest's command and
versions), the win rates per agent and seat, the most frequent actions of each decision kind,
the game lengths and the stats PNG (embedded, so the file can be moved on its own), and links
to a replay page for a sample of games, written under ``DIR/viewer/``: the first game of each
table (player count and agents) and every forfeit. Neither the page nor the viewer folder is a
shard: readers and ``verify`` list shards from the manifest alone.

Every game is reported the same way: the pages come from the shared replay page
(``caylus_env.core.viewer.write_replay_page``, which draws the record's game), and scores are
named in the game's own word (``GameSpec.score_word``: prestige, victory points).
"""

from __future__ import annotations

import html
import os
import re
import shlex
from collections.abc import Mapping, Sequence
from importlib import resources
from pathlib import Path
from string import Template
from typing import Any

from caylus_env.core.htmlreport import STYLE, link, para, png_figure, table
from caylus_env.core.registry import DEFAULT_GAME, game_of, game_spec
from caylus_env.datasets.format import PROGRAM

HTML_REPORT_FILE = "report.html"
VIEWER_DIR = "viewer"
GAME_PAGE = "game-{game_id}.html"
GAME_PAGE_NAME = re.compile(r"game-\d+\.html")
"""What `GAME_PAGE` names look like: pages of games no longer sampled are removed."""
MAX_GAME_PAGES = 30
"""Replay pages written at most (tables first, then forfeits in game order): each costs about
0.1 s and a few hundred KiB. The report lists the games left without a page and the command
that writes one."""
REPORT_TEMPLATE = "report_template.html"


def sample_games(rows: Sequence[Mapping[str, Any]]) -> tuple[list[tuple[int, str]], list[int]]:
    """``(game_id, why)`` of the games that get a replay page, and the ids of the forfeits left
    without one. Picked: the first game (lowest id) of each table (player count and sorted
    agents), then every forfeit, in game order; at most `MAX_GAME_PAGES`."""
    ordered = sorted(rows, key=lambda r: r["game_id"])
    picked: dict[int, str] = {}
    tables: set[tuple[int, tuple[str, ...]]] = set()
    for r in ordered:
        key = (r["num_players"], tuple(sorted(r["agents"])))
        if key not in tables:
            tables.add(key)
            picked[r["game_id"]] = f"first {r['num_players']}-player game of " + " vs ".join(key[1])
    for r in ordered:
        if r["end"] == "forfeit":
            seat = r["forfeit_seat"]
            why = f"forfeit by player {seat} ({r['agents'][seat]})"
            gid = r["game_id"]
            picked[gid] = f"{picked[gid]}; {why}" if gid in picked else why
    kept = list(picked.items())[:MAX_GAME_PAGES]
    ids = {gid for gid, _ in kept}
    unpaged = [r["game_id"] for r in ordered if r["game_id"] in picked and r["game_id"] not in ids]
    return kept, unpaged


def write_game_pages(
    root: Path, rows: Sequence[Mapping[str, Any]], game: str = DEFAULT_GAME
) -> tuple[dict[int, tuple[str, str]], list[int]]:
    """Write the replay page of every sampled game (`sample_games`) to ``root/viewer/``,
    atomically (``caylus_env.core.viewer.write_replay_page``: the record's game draws it), and
    remove pages of games no longer sampled.

    Returns:
        ``{game_id: (page path relative to root, why)}`` and the sampled games left without a
        page.
    """
    from caylus_env.core.viewer import write_replay_page
    from caylus_env.datasets.records import dataset_records

    sample, unpaged = sample_games(rows)
    folder = root / VIEWER_DIR
    records = dataset_records(root, [gid for gid, _ in sample], game)
    pages = {}
    for gid, why in sample:
        name = GAME_PAGE.format(game_id=gid)
        write_replay_page(records[gid], folder / name)
        pages[gid] = (f"{VIEWER_DIR}/{name}", why)
    if folder.is_dir():
        wanted = {GAME_PAGE.format(game_id=gid) for gid in pages}
        for stale in folder.iterdir():
            if GAME_PAGE_NAME.fullmatch(stale.name) and stale.name not in wanted:
                stale.unlink()
    return pages, unpaged


def _summary(stats: Mapping[str, Any], manifest: Mapping[str, Any]) -> str:
    counts = manifest["counts"]
    run = manifest["run"]
    game = game_of(manifest)
    facts = [
        ("game", game_spec(game).title),
        ("games", str(stats["games"])),
        ("decisions", str(stats["decisions"])),
        ("forfeited games", str(stats["forfeited_games"])),
        ("shards", str(counts["shards"])),
        ("bytes on disk", str(counts["bytes"])),
        ("bytes a decision", f"{manifest['bytes_per_decision']:.1f}"),
        ("agents", ", ".join(run["agents"])),
        ("player counts", ", ".join(map(str, run["players"]))),
        ("seed", str(run["seed"])),
        ("seating", str(run["seating"])),
        ("policy targets", "yes" if run["policy_targets"] else "no"),
        ("command", manifest["command"]),
    ]
    versions = [("format", str(manifest["format"])), ("game", game)] + [
        (key, str(manifest[key]))
        for key in ("engine", "state_version", "action_space_version", "observation_version")
    ]
    return "".join(
        [
            table(["", "value"], facts, text_columns=1),
            "<h3>Versions</h3>",
            para("What the stored states and actions mean; loaders refuse another layout."),
            table(["", "value"], versions, text_columns=1),
        ]
    )


def _agents(stats: Mapping[str, Any]) -> str:
    seats = sorted({s for a in stats["agents"].values() for s in a["seat_win_rate"]})
    rows = []
    for name, a in stats["agents"].items():
        rows.append(
            [
                name,
                a["games"],
                a["wins"],
                f"{a['win_rate']:.3f}",
                f"{a['mean_rank']:.2f}",
                *(
                    f"{a['seat_win_rate'][s]:.3f} ({a['seat_games'][s]})"
                    if s in a["seat_win_rate"]
                    else ""
                    for s in seats
                ),
            ]
        )
    header = ["Agent", "Games", "Wins", "Win rate", "Mean rank", *(f"Seat {s}" for s in seats)]
    return para(
        "A seat wins a game when its rank is the game's best: a shared first place counts as a "
        "win for each seat sharing it. Seat columns: win rate at that seat (games)."
    ) + table(header, rows)


def _kinds(stats: Mapping[str, Any]) -> str:
    rows = [
        [
            name,
            k["decisions"],
            f"{k['decisions'] / stats['decisions']:.1%}",
            ", ".join(f"{action} {share:.1%}" for action, share in k["top_actions"]),
        ]
        for name, k in stats["kinds"].items()
    ]
    return para(
        "Decisions of each kind and its five most frequent actions, as a share of that kind's "
        "decisions."
    ) + table(["Kind", "Decisions", "Share", "Most frequent actions"], rows, text_columns=1)


def _lengths(stats: Mapping[str, Any]) -> str:
    rows = [
        [
            n,
            v["games"],
            v["decisions"],
            f"{stats['lengths'][n]['mean']:.1f}",
            stats["lengths"][n]["min"],
            stats["lengths"][n]["max"],
        ]
        for n, v in stats["players"].items()
    ]
    return para("Decisions per game, by player count.") + table(
        ["Players", "Games", "Decisions", "Mean length", "Min", "Max"], rows
    )


def _games(
    root: Path,
    rows: Mapping[int, Mapping[str, Any]],
    pages: Mapping[int, tuple[str, str]],
    unpaged: Sequence[int],
    game: str = DEFAULT_GAME,
) -> str:
    word = game_spec(game).score_word
    out = [
        para(
            "A replay page for the first game of each table (player count and agents) and for "
            "every forfeit: the board at every decision, the legal actions and the action "
            f"taken, and the {word} of every seat over the game."
        )
    ]
    body = []
    for gid, (href, why) in pages.items():
        r = rows[gid]
        seats = ", ".join(f"{p}: {a}" for p, a in enumerate(r["agents"]))
        scores = ", ".join(str(v) for v in r["scores"])
        body.append([link(href, f"game {gid}"), r["num_players"], seats, scores, r["end"], why])
    header = ["Game", "Players", "Seats", f"Final {word}", "End", "Why"]
    out.append(table(header, body, text_columns=1))
    if unpaged:
        shown = ", ".join(map(str, unpaged[:20])) + (", ..." if len(unpaged) > 20 else "")
        which = ["--game", game, "--game-id", "ID"]
        command = shlex.join(
            [PROGRAM, "replay", str(root), *which, "--html", f"{VIEWER_DIR}/game-ID.html"]
        )
        out.append(
            para(
                f"{len(unpaged)} more sampled game(s) have no page (at most {MAX_GAME_PAGES}): "
                f"{shown}. Write one with: {command}"
            )
        )
    return "".join(out)


def write_dataset_report(
    root: str | os.PathLike[str],
    stats: Mapping[str, Any],
    plot: str | os.PathLike[str] | None = None,
) -> tuple[Path, int]:
    """Write ``root/report.html`` (atomically) from `dataset_stats` of ``root``, the stats PNG
    at ``plot`` (embedded; left out when None or missing) and the sampled games' replay pages
    (`write_game_pages`).

    The dataset's game is ``stats["game"]`` (`DEFAULT_GAME` when absent).

    Returns:
        The report's path and the number of replay pages written.

    Raises:
        DatasetError: when ``root`` is not a finished dataset of this engine and game.
    """
    from caylus_env.core.fileio import atomic_write_text
    from caylus_env.datasets.format import read_manifest
    from caylus_env.datasets.loader import read_games

    path = Path(root)
    manifest = read_manifest(path)
    game = str(stats.get("game", DEFAULT_GAME))
    columns = ["game_id", "num_players", "agents", "scores", "end", "forfeit_seat"]
    rows = read_games(path, game=game).select(columns).to_pylist()
    pages, unpaged = write_game_pages(path, rows, game)
    games_section = _games(path, {r["game_id"]: r for r in rows}, pages, unpaged, game)
    plot_path = None if plot is None else Path(plot)
    figure = (
        png_figure(plot_path, "Game lengths, win rate by agent and seat, decisions by kind")
        if plot_path is not None and plot_path.is_file()
        else para("No plot was written (caylus dataset stats writes stats.png).")
    )
    body = [
        '<h2 id="summary">Summary</h2>',
        _summary(stats, manifest),
        '<h2 id="agents">Agents</h2>',
        _agents(stats),
        '<h2 id="kinds">Decision kinds</h2>',
        _kinds(stats),
        '<h2 id="lengths">Game lengths</h2>',
        _lengths(stats),
        '<h2 id="games">Games</h2>',
        games_section,
        '<h2 id="plots">Plots</h2>',
        figure,
    ]
    counts = ", ".join(f"{n}p: {v['games']}" for n, v in stats["players"].items())
    intro = (
        f"{stats['games']} games ({counts}) and {stats['decisions']} decisions, "
        f"{manifest['bytes_per_decision']:.1f} bytes a decision, engine {manifest['engine']}."
    )
    template = Template(resources.files(__package__).joinpath(REPORT_TEMPLATE).read_text("utf-8"))
    page = template.substitute(
        game=html.escape(game_spec(game).title),
        heading=html.escape(" vs ".join(manifest["run"]["agents"])),
        intro=html.escape(intro),
        style=STYLE,
        body="\n".join(body),
    )
    out = path / HTML_REPORT_FILE
    atomic_write_text(out, page)
    return out, len(pages)


__all__ = [
    "GAME_PAGE",
    "HTML_REPORT_FILE",
    "MAX_GAME_PAGES",
    "VIEWER_DIR",
    "sample_games",
    "write_dataset_report",
    "write_game_pages",
]
