"""Throughput benchmarks of the Puerto Rico engine, with anchors measured in the same run.

``caylus bench --game puerto_rico`` calls ``main``; the model is Caylus's
``caylus_env.core.benchmark`` (and ``bench/pr_bench.py``, the engine's own script). Every rate is
the median of ``repeats`` runs of random legal play on one core, after one warm-up run, and
each layer is shown next to an anchor timed in the same process, so the ratios stay
meaningful on a loaded or slower machine:

- engine, one Python call per decision (``kernels.step`` then a random legal id from the
  returned list), vs OpenSpiel C++ chess through pyspiel and vs the Caylus engine's same loop;
- engine, whole random games inside compiled code (``kernels.play_random_games``), vs the
  Caylus engine's compiled games;
- ``raw_env`` AEC loop with observations (``caylus_env.puerto_rico_v0``; reported as missing
  while that module is not installed), vs PettingZoo connect four ``env()`` in the same loop;
- decisions per game and the share of games cut off by the decision cap
  (docs/rules/puerto_rico.md 6.9), for 2 to 5 players, without and with the expansion
  (rules 7; its buildings drafted at random, so the draft adds no decisions);
- state size (its ``layout`` keeps it within 1 KB), state copy and ``Game.clone`` time, and
  numba compile time cold and from its cache (each in a fresh subprocess).

OpenSpiel and PettingZoo's connect four are optional (``pip install caylus-env[bench]``);
without them those anchors are reported as missing rather than guessed.
"""

from __future__ import annotations

import os
import random
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from typing import Any

import numpy as np

from caylus_env.core import benchmark as caylus_bench
from caylus_env.core.fileio import atomic_write_json
from caylus_env.puerto_rico.engine import NUM_ACTIONS, Game, GameConfig
from caylus_env.puerto_rico.engine import kernels as K
from caylus_env.puerto_rico.engine import layout as L
from caylus_env.puerto_rico.engine.constants import (
    DEFAULT_MAX_DECISIONS,
    DRAFT_MODES,
    MAX_PLAYERS,
    MIN_PLAYERS,
)

#: Decisions/s each layer should reach on one core (the issue's targets).
TARGETS = {
    "engine_call": 500_000,
    "engine_compiled": 2_000_000,
    "raw_env": 100_000,
}
#: The most bytes one game's state may take (the platform's budget for cheap clones).
STATE_BYTES_TARGET = 1024
#: Player counts of the rates when none are given (as Caylus's bench).
DEFAULT_PLAYERS = (2, 4)
#: Every player count the rules allow (rules 1.2): the decisions-per-game table covers them all.
ALL_PLAYERS = tuple(range(MIN_PLAYERS, MAX_PLAYERS + 1))
#: The draft mode of benchmark games with the expansion: drawn from the seed (rules 7.1).
RANDOM_DRAFT = DRAFT_MODES.index("random")
#: The library-limit option's kernel argument (off: rules 7.5's variant is not benchmarked).
NO_LIBRARY_LIMIT = 0
#: Workloads at full size; ``quick`` runs a fifth of each.
CALL_DECISIONS = 300_000
COMPILED_GAMES = 2_000
LENGTH_GAMES = 2_000
AEC_DECISIONS = 50_000
QUICK_SCALE = 0.2


def engine_call_rate(
    num_players: int, decisions: int, repeats: int, expansion: bool = False
) -> float:
    """Decisions/s with one Python call per decision (``kernels.step``), as Caylus's figure."""
    buf = np.empty(NUM_ACTIONS, np.int64)
    step = K.step
    draft = RANDOM_DRAFT if expansion else 0

    def run() -> tuple[int, float]:
        pick = random.Random(0).randrange
        count = 0
        seed = 0
        t0 = time.perf_counter()
        while count < decisions:
            s = K.new_state(
                num_players,
                DEFAULT_MAX_DECISIONS,
                int(expansion),
                draft,
                NO_LIBRARY_LIMIT,
                seed,
            )
            seed += 1
            n = K.legal_actions(s, buf)
            while n > 0:
                n = step(s, buf[pick(n)], buf)
                count += 1
        return count, time.perf_counter() - t0

    return caylus_bench._median_rate(run, repeats)


def engine_compiled_rate(
    num_players: int, games: int, repeats: int, expansion: bool = False
) -> float:
    """Decisions/s of whole random games played inside compiled code."""

    def run() -> tuple[int, float]:
        t0 = time.perf_counter()
        counts = K.play_random_games(num_players, games, 1, DEFAULT_MAX_DECISIONS, int(expansion))
        return int(counts.sum()), time.perf_counter() - t0

    return caylus_bench._median_rate(run, repeats)


def game_lengths(num_players: int, expansion: bool, games: int) -> dict[str, float]:
    """Decisions per random game (mean, median, max) and the share cut off by the decision cap
    (rules 6.9), over ``games`` compiled games."""
    counts = K.play_random_games(num_players, games, 2, DEFAULT_MAX_DECISIONS, int(expansion))
    return {
        "mean": float(counts.mean()),
        "median": float(np.median(counts)),
        "max": int(counts.max()),
        "truncated": float((counts >= DEFAULT_MAX_DECISIONS).mean()),
    }


def raw_env_rate(num_players: int, decisions: int, repeats: int) -> float | None:
    """Decisions/s of ``caylus_env.puerto_rico_v0.raw_env`` in the standard AEC loop, or None
    while that module is not installed."""
    try:
        from caylus_env import puerto_rico_v0
    except ImportError:
        return None
    return caylus_bench.aec_rate(
        lambda: puerto_rico_v0.raw_env(num_players=num_players), decisions, repeats
    )


def clone_seconds(repeats: int) -> tuple[float, float]:
    """Median seconds of a state-array copy and of ``Game.clone`` (mid-game, 4 players)."""
    game = Game(GameConfig(num_players=4), seed=0)
    rng = random.Random(0)
    for _ in range(100):
        game.apply(rng.choice(game.legal_actions()))
    loops = 20_000

    def timed(fn: Callable[[], Any]) -> float:
        results = []
        for _ in range(repeats):
            t0 = time.perf_counter()
            for _ in range(loops):
                fn()
            results.append((time.perf_counter() - t0) / loops)
        return statistics.median(results)

    return timed(game.state.copy), timed(game.clone)


_COMPILE_PROBE = (
    "import time; t = time.perf_counter(); "
    "from caylus_env.puerto_rico.engine import Game, GameConfig; "
    "g = Game(GameConfig(num_players=3), seed=1); "
    "import random; r = random.Random(0)\n"
    "while not (g.is_terminal() or g.is_truncated()): g.apply(r.choice(g.legal_actions()))\n"
    "print(time.perf_counter() - t)"
)


def compile_seconds() -> tuple[float, float]:
    """Seconds to import the engine and play a first game: cold cache, then warm cache."""
    with tempfile.TemporaryDirectory() as cache:
        env = dict(os.environ, NUMBA_CACHE_DIR=cache)
        times = []
        for _ in range(2):
            done = subprocess.run(
                [sys.executable, "-c", _COMPILE_PROBE],
                env=env,
                capture_output=True,
                text=True,
                check=True,
            )
            times.append(float(done.stdout.split()[-1]))
    return times[0], times[1]


def run_all(
    repeats: int = 3,
    players: tuple[int, ...] = DEFAULT_PLAYERS,
    quick: bool = False,
    compile_check: bool = True,
) -> dict[str, Any]:
    """Every measurement, as a dict of plain numbers (see the module docstring)."""
    scale = QUICK_SCALE if quick else 1.0
    calls = int(CALL_DECISIONS * scale)
    compiled = int(COMPILED_GAMES * scale)
    aec = int(AEC_DECISIONS * scale)
    results: dict[str, Any] = {
        "game": "puerto_rico",
        "repeats": repeats,
        "players": list(players),
        "layers": {},
        "caylus": {},
    }
    layers, caylus = results["layers"], results["caylus"]
    for n in players:
        layers[f"engine_call_{n}p"] = engine_call_rate(n, calls, repeats)
        layers[f"engine_compiled_{n}p"] = engine_compiled_rate(n, compiled, repeats)
        layers[f"raw_env_{n}p"] = raw_env_rate(n, aec, repeats)
        caylus[f"engine_call_{n}p"] = caylus_bench.engine_call_rate(n, calls, repeats)
        caylus[f"engine_compiled_{n}p"] = caylus_bench.engine_compiled_rate(n, compiled, repeats)
    results["game_lengths"] = {
        f"{n}p{'_expansion' if expansion else ''}": game_lengths(
            n, expansion, int(LENGTH_GAMES * scale)
        )
        for n in ALL_PLAYERS
        for expansion in (False, True)
    }
    results["anchors"] = {
        "pettingzoo_connect_four_env": caylus_bench.pettingzoo_connect_four_rate(aec, repeats),
        "openspiel_chess": caylus_bench.openspiel_rate("chess", calls // 2, repeats),
        "openspiel_connect_four": caylus_bench.openspiel_rate("connect_four", calls, repeats),
    }
    copy_s, clone_s = clone_seconds(repeats)
    results["state_bytes"] = int(L.STATE_BYTES)
    results["state_copy_us"] = copy_s * 1e6
    results["game_clone_us"] = clone_s * 1e6
    if compile_check:
        cold, warm = compile_seconds()
        results["compile_cold_s"] = cold
        results["compile_cached_s"] = warm
    return results


def _anchor_of(kind: str, anchors: dict[str, float | None]) -> tuple[float | None, str]:
    """The external anchor of a layer kind: OpenSpiel chess for the per-call engine loop,
    PettingZoo connect four for the AEC loop, none for compiled games."""
    if kind == "engine_call":
        return anchors["openspiel_chess"], "OpenSpiel chess"
    if kind == "raw_env":
        return anchors["pettingzoo_connect_four_env"], "PZ connect four"
    return None, ""


def print_report(results: dict[str, Any], console: Any = None) -> None:
    """Rich tables of the figures, their targets, and the ratios to the anchors."""
    from rich.console import Console
    from rich.table import Table

    console = console or Console()
    anchors = results["anchors"]
    table = Table(title=f"Puerto Rico throughput (decisions/s, median of {results['repeats']})")
    for col in ("layer", "decisions/s", "target", "vs anchor", "vs Caylus"):
        table.add_column(col, justify="left" if col == "layer" else "right")
    for name, rate in results["layers"].items():
        kind = name.rsplit("_", 1)[0]
        target = f">= {TARGETS[kind]:,}"
        if rate is None:
            missing = "missing: caylus_env.puerto_rico_v0 is not installed"
            table.add_row(name, missing, target, "-", "-")
            continue
        anchor, anchor_name = _anchor_of(kind, anchors)
        ratio = f"{rate / anchor:.1f}x {anchor_name}" if anchor else "-"
        caylus = results["caylus"].get(name)
        versus = f"{rate / caylus:.2f}x ({caylus:,.0f})" if caylus else "-"
        met = "" if rate >= TARGETS[kind] else " (below)"
        table.add_row(name, f"{rate:,.0f}", target + met, ratio, versus)
    console.print(table)
    lengths = Table(title="decisions per random game (compiled; expansion draft drawn at random)")
    for col in ("players", "expansion", "mean", "median", "max", "truncated"):
        lengths.add_column(col, justify="right")
    for key, row in results["game_lengths"].items():
        players, _, expansion = key.partition("_")
        lengths.add_row(
            players.rstrip("p"),
            "yes" if expansion else "no",
            f"{row['mean']:.1f}",
            f"{row['median']:.0f}",
            f"{row['max']}",
            f"{row['truncated']:.1%}",
        )
    console.print(lengths)
    anchor_table = Table(title="anchors measured in the same run")
    anchor_table.add_column("anchor")
    anchor_table.add_column("decisions/s", justify="right")
    for name, rate in anchors.items():
        hint = 'not installed: pip install -e ".\\[bench]" (in the checkout)'
        anchor_table.add_row(name, hint if rate is None else f"{rate:,.0f}")
    console.print(anchor_table)
    size = results["state_bytes"]
    within = "within" if size <= STATE_BYTES_TARGET else "OVER"
    console.print(
        f"state: {size} bytes ({within} the {STATE_BYTES_TARGET}-byte budget); state copy "
        f"{results['state_copy_us']:.2f} us; Game.clone {results['game_clone_us']:.2f} us"
    )
    if "compile_cold_s" in results:
        console.print(
            f"numba compile + first game: {results['compile_cold_s']:.1f} s cold, "
            f"{results['compile_cached_s']:.2f} s from the cache"
        )


def main(
    repeats: int = 3,
    players: list[int] | None = None,
    quick: bool = False,
    json_path: str | None = None,
    compile_check: bool = True,
    console: Any = None,
) -> dict[str, Any]:
    """Run every benchmark, print the report, optionally write the figures as JSON.

    Raises:
        ValueError: for a repeat count below 1 or player counts outside 2-5 (rules 1.2).
    """
    players = list(DEFAULT_PLAYERS) if players is None else list(players)
    if isinstance(repeats, bool) or not isinstance(repeats, int) or repeats < 1:
        raise ValueError(f"repeats must be an int >= 1, got {repeats!r}")
    bad = [n for n in players if n not in ALL_PLAYERS]
    if bad or not players:
        raise ValueError(
            f"players must be in {MIN_PLAYERS}-{MAX_PLAYERS} (Puerto Rico), got {players}"
        )
    results = run_all(repeats, tuple(players), quick, compile_check)
    print_report(results, console)
    if json_path:
        atomic_write_json(json_path, results)
    return results
