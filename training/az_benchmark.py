"""The self-play benchmark of ``caylus train az``: ``caylus bench --selfplay --game G``.

What a generation's self-play costs, measured as ``caylus train az`` plays it: games of
``puct:SIMS:gumbel=M`` in every seat (the trainer's defaults, ``training.config.AZConfig``: 32
simulations, 16 considered moves) over the game's default ``puct`` network (a shipped one),
written as a self-play dataset with policy targets by the tournament's local worker pool
(``agents.selfplay.generate``). Figures, each the median of ``repeats`` timed runs after an
untimed warm-up generation (kernels compiled and cached, so workers load them):

* **positions/s with W workers** for each W of ``workers``, and the scaling against one
  worker measured in the same run (the ideal is W, on W free cores);
* **positions/s per core**: the one-worker rate;
* **the anchor**: the same games with the plain PUCT root (``puct:SIMS``, no Gumbel root),
  one worker, in the same run: the ratio says what the Gumbel root's sequential halving and
  improved policy cost or save per move.

The wall time of a run includes the pool's start and each worker's kernel load (about a
second), as a generation's does; ``games`` is sized so that this is a small part.
"""

from __future__ import annotations

import io
import statistics
import tempfile
import time
from dataclasses import fields
from pathlib import Path
from typing import Any

from caylus_env.core.registry import game_spec

#: Self-play games per timed run (``quick``: per smoke run).
GAMES, QUICK_GAMES = 24, 4


def _default(name: str) -> Any:
    from training.config import AZConfig

    return next(f.default for f in fields(AZConfig) if f.name == name)


def selfplay_rate(
    game: str,
    players: int,
    agent: str,
    games: int,
    workers: int,
    seed: int,
    root: Path,
    backend: str = "local",
    ray_address: str | None = None,
) -> dict[str, float]:
    """One timed self-play run: ``games`` games of ``agent`` in every seat with ``workers``
    workers of ``backend`` (``ray``: on the cluster at ``ray_address``), into a fresh dataset
    under ``root``; positions, games, seconds and positions/s."""
    from rich.console import Console

    from agents.selfplay.generate import DatasetSpec, generate_dataset, prepare_dataset

    spec = DatasetSpec(
        agents=(agent,),
        players=(players,),
        games=games,
        seed=seed,
        move_time_limit=None,
        policy_targets=True,
        game=game,
    )
    where = Path(tempfile.mkdtemp(dir=root))
    prepared = prepare_dataset(spec, where / "data", workers=workers, backend=backend)
    quiet = Console(file=io.StringIO())
    started = time.perf_counter()
    result = generate_dataset(prepared, ray_address=ray_address, progress=False, console=quiet)
    seconds = time.perf_counter() - started
    positions = int(result.manifest["counts"]["decisions"])
    return {
        "positions": positions,
        "games": int(result.manifest["counts"]["games"]),
        "seconds": seconds,
        "rate": positions / seconds,
    }


def run(
    game: str,
    players: int | None = None,
    workers: tuple[int, ...] = (1, 2),
    repeats: int = 3,
    quick: bool = False,
    sims: int | None = None,
    considered: int | None = None,
) -> dict[str, Any]:
    """The figures of the module docstring for ``game`` at ``players`` (default: the game's
    default count)."""
    spec = game_spec(game)
    n = players or spec.default_players
    sims = sims or _default("sims")
    considered = considered or _default("considered")
    games = QUICK_GAMES if quick else GAMES
    agent = f"puct:{sims}:gumbel={considered}"
    anchor = f"puct:{sims}"
    rates: dict[int, list[float]] = {w: [] for w in workers}
    anchor_rates: list[float] = []
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        selfplay_rate(game, n, agent, max(2, max(workers)), max(workers), 0, root)  # warm-up
        selfplay_rate(game, n, anchor, 2, 1, 0, root)
        for r in range(repeats):
            for w in workers:  # interleaved, so a load change hits every figure alike
                rates[w].append(selfplay_rate(game, n, agent, games, w, 100 + r, root)["rate"])
            anchor_rates.append(selfplay_rate(game, n, anchor, games, 1, 100 + r, root)["rate"])
    median = {w: statistics.median(v) for w, v in rates.items()}
    one = median[min(workers)]
    return {
        "game": spec.name,
        "players": n,
        "agent": agent,
        "anchor": anchor,
        "games_per_run": games,
        "repeats": repeats,
        "positions_per_s": {str(w): median[w] for w in workers},
        "scaling": {str(w): median[w] / one for w in workers},
        "per_core": one / min(workers),
        "anchor_positions_per_s": statistics.median(anchor_rates),
        "gumbel_over_puct": one / statistics.median(anchor_rates),
        "runs": {str(w): rates[w] for w in workers} | {"anchor": anchor_rates},
    }


def table(figures: dict[str, Any]) -> str:
    """The figures as a Markdown table."""
    lines = [
        f"# self-play of caylus train az: {figures['game']}, {figures['players']} players, "
        f"{figures['agent']} in every seat, {figures['games_per_run']} games a run, median "
        f"of {figures['repeats']}",
        "",
        "| workers | positions/s | scaling vs 1 worker |",
        "|---:|---:|---:|",
    ]
    for w, rate in figures["positions_per_s"].items():
        lines.append(f"| {w} | {rate:,.0f} | {figures['scaling'][w]:.2f} |")
    lines += [
        "",
        f"positions/s per core: {figures['per_core']:,.0f}; anchor {figures['anchor']} "
        f"(PUCT root, 1 worker): {figures['anchor_positions_per_s']:,.0f} positions/s, "
        f"Gumbel root / PUCT root: {figures['gumbel_over_puct']:.2f}",
    ]
    return "\n".join(lines)


__all__ = ["run", "selfplay_rate", "table"]
