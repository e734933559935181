"""``caylus dataset stats``: what a dataset holds, as a dict, rich tables and one PNG.

Counts come from the games table (small) and from one streaming pass over the decision kinds
and actions, so memory does not grow with the dataset. A seat *wins* a game when its rank is
the game's best by its rules (``Game.ranks``: a shared first place counts as a win for each
seat sharing it). Decision kinds and action names are the dataset's game's (its engine's
``DECISION_NAMES`` and ``action_to_string``), and its score is shown in the game's own word
(``GameSpec.score_word``).
"""

from __future__ import annotations

import os
from collections import defaultdict
from pathlib import Path
from typing import Any

import numpy as np

from caylus_env.core.registry import game_of, game_spec
from caylus_env.datasets.format import (
    DatasetError,
    games_rows,
    kind_names,
    num_actions,
    read_manifest,
    reading,
)
from caylus_env.datasets.loader import open_dataset, read_games

STATS_PLOT_FILE = "stats.png"


def dataset_stats(root: str | os.PathLike[str], game: str | None = None) -> dict[str, Any]:
    """Summary of a dataset of ``game`` (None: the game its manifest names): games and
    decisions per player count, per agent and seat (games, wins, win rate, mean rank), actions
    per decision kind, and game lengths.

    Raises:
        DatasetError: when ``root`` is not a finished dataset of ``game`` (naming both games).
    """
    game = game_of(read_manifest(Path(root))) if game is None else game
    spec = game_spec(game)
    kinds_named, actions = kind_names(spec), num_actions(spec)
    action_to_string = spec.engine().action_to_string
    games = read_games(root, game=game).select(
        ["num_players", "agents", "ranks", "decisions", "end"]
    )
    rows = games.to_pylist()
    for g in rows:
        if len(g["agents"]) != g["num_players"] or len(g["ranks"]) != g["num_players"]:
            raise DatasetError(
                f"{root}: a games row holds {len(g['agents'])} agents and {len(g['ranks'])} "
                f"ranks for {g['num_players']} players; the dataset was altered (caylus "
                "dataset verify locates it)"
            )
    by_players: dict[int, dict[str, int]] = defaultdict(lambda: {"games": 0, "decisions": 0})
    agents: dict[str, dict[str, Any]] = {}
    lengths: dict[int, list[int]] = defaultdict(list)
    forfeits = 0
    for g in rows:
        n = g["num_players"]
        by_players[n]["games"] += 1
        by_players[n]["decisions"] += g["decisions"]
        lengths[n].append(g["decisions"])
        forfeits += g["end"] == "forfeit"
        best = min(g["ranks"])
        for seat, (agent, rank) in enumerate(zip(g["agents"], g["ranks"], strict=True)):
            a = agents.setdefault(
                agent, {"games": 0, "wins": 0, "rank_sum": 0.0, "seat_games": {}, "seat_wins": {}}
            )
            won = rank == best
            a["games"] += 1
            a["wins"] += won
            a["rank_sum"] += rank
            a["seat_games"][seat] = a["seat_games"].get(seat, 0) + 1
            a["seat_wins"][seat] = a["seat_wins"].get(seat, 0) + won
    for a in agents.values():
        a["win_rate"] = a["wins"] / a["games"]
        a["mean_rank"] = a.pop("rank_sum") / a["games"]
        a["seat_win_rate"] = {
            s: a["seat_wins"][s] / a["seat_games"][s] for s in sorted(a["seat_games"])
        }
    counts = np.zeros((len(kinds_named), actions), np.int64)
    scanner = open_dataset(root, game=game).scanner(
        columns=["kind_id", "action"], batch_size=65_536
    )
    with reading(root):
        batches = scanner.to_batches()
        for batch in batches:
            kinds = batch["kind_id"].to_numpy().astype(np.int64)
            played = batch["action"].to_numpy().astype(np.int64)
            wrong = (kinds < 0) | (kinds >= len(kinds_named)) | (played < 0) | (played >= actions)
            if wrong.any():
                i = int(np.flatnonzero(wrong)[0])
                raise DatasetError(
                    f"{root}: a decision row holds kind {int(kinds[i])} and action "
                    f"{int(played[i])}, out of the game's range; the dataset was altered "
                    "(caylus dataset verify locates it)"
                )
            counts += np.bincount(kinds * actions + played, minlength=counts.size).reshape(
                counts.shape
            )
    kinds_out = {}
    for k, name in enumerate(kinds_named):
        total = int(counts[k].sum())
        if total:
            top = np.argsort(-counts[k], kind="stable")[:5]
            kinds_out[name] = {
                "decisions": total,
                "top_actions": [
                    (action_to_string(int(a)), int(counts[k, a]) / total)
                    for a in top
                    if counts[k, a]
                ],
            }
    return {
        "game": spec.name,
        "games": len(rows),
        "decisions": int(counts.sum()),
        "forfeited_games": forfeits,
        "players": {n: dict(v) for n, v in sorted(by_players.items())},
        "agents": dict(sorted(agents.items())),
        "kinds": kinds_out,
        "lengths": {
            n: {"mean": float(np.mean(v)), "min": int(min(v)), "max": int(max(v))}
            for n, v in sorted(lengths.items())
        },
        "_counts": counts,
        "_kind_names": kinds_named,
        "_lengths": dict(lengths),
    }


def print_stats(stats: dict[str, Any], console: Any) -> None:
    """The summary as rich tables."""
    from rich.table import Table
    from rich.text import Text

    head = Table(title=f"{stats['games']} games, {stats['decisions']} decisions")
    for col in ("players", "games", "decisions", "mean length", "min", "max"):
        head.add_column(col, justify="right")
    for n, v in stats["players"].items():
        length = stats["lengths"][n]
        head.add_row(
            str(n), str(v["games"]), str(v["decisions"]), f"{length['mean']:.1f}",
            str(length["min"]), str(length["max"]),
        )  # fmt: skip
    console.print(head)
    table = Table(title="agents (a shared first place is a win)")
    for col in ("agent", "games", "win rate", "mean rank", "win rate by seat"):
        table.add_column(col, justify="left" if col == "agent" else "right")
    for name, a in stats["agents"].items():
        seats = "  ".join(f"{s}: {r:.2f}" for s, r in a["seat_win_rate"].items())
        table.add_row(name, str(a["games"]), f"{a['win_rate']:.2f}", f"{a['mean_rank']:.2f}", seats)
    console.print(table)
    kinds = Table(title="decisions by kind (most frequent actions)")
    for col in ("kind", "decisions", "top actions"):
        kinds.add_column(col, justify="right" if col == "decisions" else "left")
    for name, k in stats["kinds"].items():
        top = ", ".join(f"{a} {share:.0%}" for a, share in k["top_actions"][:3])
        # Text, not markup: Puerto Rico names like load:corn:ship1 are not emoji codes
        kinds.add_row(name, str(k["decisions"]), Text(top))
    console.print(kinds)
    if stats["forfeited_games"]:
        console.print(f"{stats['forfeited_games']} game(s) ended by a forfeit")


def plot_stats(stats: dict[str, Any], path: str | os.PathLike[str]) -> Path:
    """Write a PNG (Agg backend, atomically): game lengths by player count, win rate by agent
    and seat, decisions per kind, and the share of each action within its decision kind."""
    import io

    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    from caylus_env.core.fileio import atomic_write_bytes

    fig, axes = plt.subplots(2, 2, figsize=(14, 10))
    ax = axes[0, 0]
    for n, values in sorted(stats["_lengths"].items()):
        ax.hist(values, bins=20, alpha=0.6, label=f"{n} players")
    ax.set(title="game length", xlabel="decisions per game", ylabel="games")
    ax.legend()
    ax = axes[0, 1]
    names = list(stats["agents"])
    seats = sorted({s for a in stats["agents"].values() for s in a["seat_win_rate"]})
    width = 0.8 / max(1, len(seats))
    for j, s in enumerate(seats):
        rates = [stats["agents"][a]["seat_win_rate"].get(s, np.nan) for a in names]
        ax.bar(np.arange(len(names)) + j * width, rates, width, label=f"seat {s}")
    ax.set_xticks(np.arange(len(names)) + width * (len(seats) - 1) / 2, names)
    ax.set(title="win rate by agent and seat", ylabel="win rate", ylim=(0, 1))
    ax.legend()
    ax = axes[1, 0]
    kinds = list(stats["kinds"])
    ax.barh(kinds, [stats["kinds"][k]["decisions"] for k in kinds])
    ax.set(title="decisions by kind", xlabel="decisions")
    ax.invert_yaxis()
    ax = axes[1, 1]
    counts = stats["_counts"].astype(float)
    used = counts.sum(axis=1) > 0
    share = counts[used] / counts[used].sum(axis=1, keepdims=True)
    image = ax.imshow(share, aspect="auto", interpolation="nearest", cmap="viridis")
    names = stats["_kind_names"]
    ax.set_yticks(range(int(used.sum())), [names[k] for k in np.flatnonzero(used)])
    ax.set(title="action frequency within each decision kind", xlabel="action id")
    fig.colorbar(image, ax=ax, label="share of the kind's decisions")
    fig.tight_layout()
    buf = io.BytesIO()
    fig.savefig(buf, format="png", dpi=80)
    plt.close(fig)
    atomic_write_bytes(path, buf.getvalue())
    return Path(path)


def inspect_game(
    root: str | os.PathLike[str], game_id: int | None = None, game: str | None = None
) -> dict[str, Any]:
    """One stored game as plain values: its games row (``row``) and its decisions in ply order
    (``decisions``: ply, seat, agent, kind, action id and name, legal count, and the policy
    target's most likely action when the dataset has targets). ``game_id`` None: the first;
    ``game`` None: the game the manifest names.

    What ``caylus dataset inspect`` prints: one game move by move, by the names of its
    game's actions and decision kinds.

    Raises:
        DatasetError: when ``root`` is not a finished dataset of ``game`` (naming both games).
        KeyError: naming a game id the dataset does not hold.
    """
    import pyarrow.compute as pc

    game = game_of(read_manifest(Path(root))) if game is None else game
    spec = game_spec(game)
    games = open_dataset(root, "games", game=game)
    decisions = open_dataset(root, game=game)
    with reading(root):
        if game_id is None:
            first = games.head(1, columns=["game_id"])
            if first.num_rows == 0:
                raise KeyError(f"{root} holds no games")
            game_id = int(first["game_id"][0].as_py())
        wanted = pc.field("game_id") == int(game_id)
        rows = games_rows(games.to_table(filter=wanted))
        if not rows:
            raise KeyError(f"no game {game_id} in {root}")
        columns = ["ply", "seat", "agent", "kind", "action", "num_legal"]
        has_policy = "policy_actions" in decisions.schema.names
        if has_policy:
            columns += ["policy_actions", "policy_probs"]
        table = decisions.to_table(filter=wanted, columns=columns).sort_by("ply").to_pylist()
    count = num_actions(spec)
    for d in table:
        acts = d.get("policy_actions") or []
        probs = d.get("policy_probs") or []
        if (
            not 0 <= d["action"] < count
            or len(acts) != len(probs)
            or any(not 0 <= a < count for a in acts)
            or any(not np.isfinite(p) for p in probs)
        ):
            raise DatasetError(
                f"{root}: game {game_id} ply {d['ply']} holds an action or a policy target out "
                "of the game's range; the dataset was altered (caylus dataset verify locates it)"
            )
    for d in table:
        d["action_name"] = spec.engine().action_to_string(int(d["action"]))
        if has_policy:
            acts, probs = d.pop("policy_actions"), d.pop("policy_probs")
            d["target"] = (
                None if not acts else (int(acts[int(np.argmax(probs))]), float(max(probs)))
            )
    return {"game": spec.name, "row": rows[0], "decisions": table}


def print_game(inspected: dict[str, Any], console: Any, limit: int | None = None) -> None:
    """`inspect_game`'s result as a header and one table row per decision (the first
    ``limit`` decisions; None: all)."""
    from rich.table import Table
    from rich.text import Text

    spec = game_spec(inspected["game"])
    to_string = spec.engine().action_to_string
    row = inspected["row"]
    seats = ", ".join(f"{s}: {a}" for s, a in enumerate(row["agents"]))
    console.print(
        Text(
            f"{spec.title} game {row['game_id']} (block {row['block']}, seed {row['seed']}): "
            f"{row['num_players']} players ({seats}); end {row['end']}; "
            f"{spec.score_word} {row['scores']}, ranks {row['ranks']}, {row['decisions']} "
            "decisions"
        )
    )
    table = Table()
    columns = ["ply", "seat", "agent", "kind", "action", "legal"]
    policy = any("target" in d for d in inspected["decisions"])
    if policy:
        columns.append("target (top)")
    for col in columns:
        table.add_column(col, justify="right" if col in ("ply", "seat", "legal") else "left")
    shown = inspected["decisions"] if limit is None else inspected["decisions"][:limit]
    for d in shown:
        cells = [str(d["ply"]), str(d["seat"]), d["agent"], d["kind"]]
        cells += [f"{d['action']} {d['action_name']}", str(d["num_legal"])]
        if policy:
            t = d.get("target")
            cells.append("" if t is None else f"{to_string(t[0])} {t[1]:.2f}")
        table.add_row(*(Text(c) for c in cells))  # Text: action names are not markup
    console.print(table)
    rest = len(inspected["decisions"]) - len(shown)
    if rest > 0:
        console.print(f"... {rest} more decisions (--limit 0 shows all)")


__all__ = [
    "STATS_PLOT_FILE",
    "dataset_stats",
    "inspect_game",
    "plot_stats",
    "print_game",
    "print_stats",
]
