"""Throughput benchmarks of every layer, with anchors measured in the same run.

``caylus bench`` and the scripts in ``bench/`` call ``main``. Every figure is the
median of ``repeats`` runs of random legal play on one core, and each layer is
reported next to an anchor timed in the same process (style: performance
anchors 0 and 5), so the ratios stay meaningful on a loaded or slower machine:

- engine, one Python call per decision (``kernels.step`` then a random legal id
  from the returned list) vs OpenSpiel C++ chess through pyspiel;
- engine, whole random games inside compiled code (``kernels.play_random_games``);
- ``raw_env`` AEC loop with observations, and ``env()`` with PettingZoo's
  classic wrappers, vs PettingZoo connect four ``env()`` in the same loop;
- with ``vector=True`` (``caylus bench --vector``): the batched environment
  (``caylus_env.core.vector.VectorGames``, ``vector_envs`` games, 256 by default), every
  decision with its observation and mask, one compiled call per batch step and the
  actions drawn in NumPy from the legal lists, vs ``raw_env`` of the same run;
- state size, clone time, and numba compile time cold and from its cache
  (each in a fresh subprocess).

OpenSpiel is optional (``pip install caylus-env[bench]``); without it that
anchor is reported as missing rather than guessed.
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

from caylus_env.caylus.engine import NUM_ACTIONS, Game, GameConfig, kernels
from caylus_env.caylus.engine.layout import STATE_DTYPE, STATE_SIZE
from caylus_env.core.fileio import atomic_write_json

TARGETS = {
    "engine_call": 300_000,
    "engine_compiled": 2_000_000,
    "raw_env": 100_000,
    "env": 25_000,
    "vector": 1_000_000,
}
#: The batched layer must beat ``raw_env`` of the same run by this factor at least.
VECTOR_BAR_VS_RAW_ENV = 3.0
VECTOR_ENVS = 256


def _median_rate(run: Callable[[], tuple[int, float]], repeats: int) -> float:
    """Median of ``count / seconds`` over ``repeats`` runs (one warm-up run first)."""
    run()
    rates = []
    for _ in range(repeats):
        count, seconds = run()
        rates.append(count / seconds)
    return statistics.median(rates)


def engine_call_rate(num_players: int, decisions: int, repeats: int) -> float:
    """Decisions/s with one Python call per decision (``kernels.step``)."""
    buf = np.empty(NUM_ACTIONS, np.int64)
    step = kernels.step

    def run() -> tuple[int, float]:
        rng = random.Random(0)
        pick = rng.randrange
        count = 0
        game_seed = 0
        t0 = time.perf_counter()
        while count < decisions:
            s = kernels.new_state(num_players, 0, 4, 0, 0, game_seed)
            game_seed += 1
            n = kernels.legal_actions(s, buf)
            while n > 0:
                n = step(s, buf[pick(n)], buf)
                count += 1
        return count, time.perf_counter() - t0

    return _median_rate(run, repeats)


def engine_compiled_rate(num_players: int, games: int, repeats: int) -> float:
    """Decisions/s of whole random games played inside compiled code."""

    def run() -> tuple[int, float]:
        t0 = time.perf_counter()
        count = kernels.play_random_games(games, num_players, 1)
        return count, time.perf_counter() - t0

    return _median_rate(run, repeats)


def aec_rate(make_env: Callable[[], Any], decisions: int, repeats: int) -> float:
    """Decisions/s of the standard AEC loop: ``last()``, a random legal id, ``step``.

    The random choice is ``random.choice(np.flatnonzero(mask))``, as PettingZoo's
    own ``performance_benchmark`` does; finished agents are drained with
    ``step(None)`` and not counted.
    """
    env = make_env()

    def run() -> tuple[int, float]:
        rng = random.Random(0)
        seed = 0
        env.reset(seed=seed)
        count = 0
        t0 = time.perf_counter()
        while count < decisions:
            obs, _, term, trunc, _ = env.last()
            if term or trunc:
                env.step(None)
                if not env.agents:
                    seed += 1
                    env.reset(seed=seed)
                continue
            env.step(int(rng.choice(np.flatnonzero(obs["action_mask"]))))
            count += 1
        return count, time.perf_counter() - t0

    return _median_rate(run, repeats)


def vector_rate(num_envs: int, num_players: int, decisions: int, repeats: int) -> float:
    """Decisions/s of ``VectorGames``: each batch step is one compiled call that plays an
    action in every game and writes its observation and mask; the actions are uniform
    over the legal lists, drawn in NumPy (a policy's cost is not the env's)."""
    from caylus_env.core.vector import VectorGames

    games = VectorGames(num_envs, num_players)
    rows = np.arange(num_envs)

    def run() -> tuple[int, float]:
        rng = np.random.default_rng(0)
        b = games.reset(seed=0)
        count = 0
        t0 = time.perf_counter()
        while count < decisions:
            pick = (rng.random(num_envs) * b.num_legal).astype(np.int64)
            b = games.step(b.legal[rows, pick])
            count += num_envs
        return count, time.perf_counter() - t0

    return _median_rate(run, repeats)


def pettingzoo_connect_four_rate(decisions: int, repeats: int) -> float | None:
    """Decisions/s of PettingZoo's connect four ``env()``, or None without pygame."""
    try:
        from pettingzoo.classic import connect_four_v3
    except ImportError:
        return None
    return aec_rate(connect_four_v3.env, decisions, repeats)


def openspiel_rate(game_name: str, decisions: int, repeats: int) -> float | None:
    """Decisions/s of an OpenSpiel C++ game through pyspiel, or None if not installed."""
    try:
        import pyspiel
    except ImportError:
        return None
    game = pyspiel.load_game(game_name)

    def run() -> tuple[int, float]:
        rng = random.Random(0)
        count = 0
        t0 = time.perf_counter()
        while count < decisions:
            state = game.new_initial_state()
            while not state.is_terminal() and count < decisions:
                if state.is_chance_node():
                    outcomes = state.chance_outcomes()
                    state.apply_action(outcomes[rng.randrange(len(outcomes))][0])
                    continue
                legal = state.legal_actions()
                state.apply_action(legal[rng.randrange(len(legal))])
                count += 1
        return count, time.perf_counter() - t0

    return _median_rate(run, repeats)


def clone_seconds(repeats: int) -> tuple[float, float]:
    """Median seconds of a state-array copy and of ``Game.clone`` (mid-game)."""
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

    state = game.state
    return timed(state.copy), timed(game.clone)


_COMPILE_PROBE = (
    "import time; t = time.perf_counter(); "
    "from caylus_env.caylus.engine import Game, GameConfig; "
    "g = Game(GameConfig(num_players=3), seed=1); "
    "import random; r = random.Random(0)\n"
    "while not g.is_terminal(): g.apply(r.choice(g.legal_actions()))\n"
    "print(time.perf_counter() - t)"
)


def compile_seconds() -> tuple[float, float]:
    """Seconds to import the engine and play a first game: cold cache, then warm cache."""
    with tempfile.TemporaryDirectory() as cache:
        env = dict(os.environ, NUMBA_CACHE_DIR=cache)
        cold = subprocess.run(
            [sys.executable, "-c", _COMPILE_PROBE],
            env=env,
            capture_output=True,
            text=True,
            check=True,
        )
        warm = subprocess.run(
            [sys.executable, "-c", _COMPILE_PROBE],
            env=env,
            capture_output=True,
            text=True,
            check=True,
        )
    return float(cold.stdout.split()[-1]), float(warm.stdout.split()[-1])


def run_all(
    repeats: int = 3,
    players: tuple[int, ...] = (2, 4),
    quick: bool = False,
    compile_check: bool = True,
    vector: bool = False,
    vector_envs: int = VECTOR_ENVS,
) -> dict[str, Any]:
    """Every measurement, as a dict of plain numbers (see the module docstring)."""
    scale = 0.2 if quick else 1.0
    calls = int(200_000 * scale)
    aec = int(50_000 * scale)
    batched = int(2_000_000 * scale)
    results: dict[str, Any] = {"repeats": repeats, "players": list(players), "layers": {}}
    if vector:
        results["vector_envs"] = vector_envs
    from caylus_env import caylus_v0

    layers = results["layers"]
    for n in players:
        layers[f"engine_call_{n}p"] = engine_call_rate(n, calls, repeats)
        layers[f"engine_compiled_{n}p"] = engine_compiled_rate(n, int(2000 * scale), repeats)
        layers[f"raw_env_{n}p"] = aec_rate(
            lambda n=n: caylus_v0.raw_env(num_players=n), aec, repeats
        )
        layers[f"env_{n}p"] = aec_rate(lambda n=n: caylus_v0.env(num_players=n), aec, repeats)
        if vector:
            layers[f"vector_{n}p"] = vector_rate(vector_envs, n, batched, repeats)
    anchors = {
        "pettingzoo_connect_four_env": pettingzoo_connect_four_rate(aec, repeats),
        "openspiel_chess": openspiel_rate("chess", calls // 2, repeats),
        "openspiel_connect_four": openspiel_rate("connect_four", calls, repeats),
    }
    results["anchors"] = anchors
    copy_s, clone_s = clone_seconds(repeats)
    results["state_bytes"] = STATE_SIZE * np.dtype(STATE_DTYPE).itemsize
    results["state_copy_us"] = copy_s * 1e6
    results["game_clone_us"] = clone_s * 1e6
    if compile_check:
        cold, warm = compile_seconds()
        results["compile_cold_s"] = cold
        results["compile_cached_s"] = warm
    return results


def print_report(results: dict[str, Any]) -> None:
    """Rich tables of the figures, their targets, and the ratios to the anchors."""
    from rich.console import Console
    from rich.table import Table

    console = Console()
    anchors = results["anchors"]
    pz = anchors["pettingzoo_connect_four_env"]
    chess = anchors["openspiel_chess"]
    table = Table(title=f"caylus-env throughput (decisions/s, median of {results['repeats']})")
    for col in ("layer", "decisions/s", "target", "vs anchor"):
        table.add_column(col, justify="right" if col != "layer" else "left")
    for name, rate in results["layers"].items():
        kind, players = name.rsplit("_", 1)
        anchor = pz if kind in ("raw_env", "env") else chess if kind == "engine_call" else None
        anchor_name = "PZ connect four" if anchor is pz else "OpenSpiel chess"
        if kind == "vector":  # the batched env against raw_env of the same run
            anchor = results["layers"][f"raw_env_{players}"]
            anchor_name = f"raw_env (bar {VECTOR_BAR_VS_RAW_ENV:g}x)"
            name = f"{name} (N={results['vector_envs']})"
        ratio = f"{rate / anchor:.1f}x {anchor_name}" if anchor else "-"
        table.add_row(name, f"{rate:,.0f}", f">= {TARGETS[kind]:,}", ratio)
    console.print(table)
    anchor_table = Table(title="anchors measured in the same run")
    anchor_table.add_column("anchor")
    anchor_table.add_column("decisions/s", justify="right")
    for name, rate in anchors.items():
        hint = 'not installed: pip install -e ".\\[bench]" (in the checkout)'
        shown = hint if rate is None else f"{rate:,.0f}"
        anchor_table.add_row(name, shown)
    console.print(anchor_table)
    console.print(
        f"state: {results['state_bytes']} bytes; state copy {results['state_copy_us']:.2f} us; "
        f"Game.clone {results['game_clone_us']:.2f} us"
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
    vector: bool = False,
    vector_envs: int = VECTOR_ENVS,
) -> dict[str, Any]:
    """Run every benchmark, print the report, optionally write the figures as JSON.

    ``vector`` adds the batched environment's layer (``vector_envs`` games).

    Raises:
        ValueError: for a repeat count below 1, player counts outside 2-5, or fewer
            than one batched game.
    """
    players = [2, 4] if players is None else list(players)
    if repeats < 1:
        raise ValueError(f"repeats must be >= 1, got {repeats}")
    bad = [n for n in players if not 2 <= n <= 5]
    if bad or not players:
        raise ValueError(f"players must be in 2-5, got {players}")
    if vector_envs < 1:
        raise ValueError(f"vector_envs must be >= 1, got {vector_envs}")
    results = run_all(repeats, tuple(players), quick, compile_check, vector, vector_envs)
    print_report(results)
    if json_path:
        atomic_write_json(json_path, results)
    return results
