"""Throughput benchmarks of every layer of any registered game, with anchors measured in the
same run.

``caylus bench --game G`` and the scripts in ``bench/`` call `main` (or its parts). Every rate
is the median of ``repeats`` runs of uniformly random legal play on one core, after one warm-up
run, and each layer is reported next to an anchor timed in the same process (style:
performance anchors 0 and 5), so the ratios stay meaningful on a loaded or slower machine. The
same rows for every game, reached through the game contract (``caylus_env.core.contract``):

- engine, one Python call per decision (the game's ``kernels.step``, then a random legal id
  from the returned list) vs OpenSpiel C++ chess through pyspiel;
- engine, whole random games inside compiled code (``caylus_env.core.vector.kernels(game)
  .random_games``, the template every game gets);
- ``raw_env`` AEC loop with observations vs PettingZoo connect four's ``raw_env``, and
  ``env()`` with PettingZoo's classic wrappers vs connect four's ``env()``, in the same loop;
- with ``vector=True`` (``caylus bench --vector``): the batched environment
  (``caylus_env.core.vector.VectorGames``, ``vector_envs`` games, 256 by default), every
  decision with its observation and mask, one compiled call per batch step and the actions
  drawn in NumPy from the legal lists, vs ``raw_env`` of the same run;
- decisions per random game, for every player count and option set of the game
  (``GameSpec.option_sets``);
- state size, state copy and ``Game.clone`` time, and the compile time of the kernels cold
  and from their cache (each in a fresh subprocess).

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
from collections.abc import Callable, Mapping, Sequence
from typing import Any

import numpy as np

from caylus_env.core.fileio import atomic_write_json
from caylus_env.core.registry import game_spec

#: Decisions/s each layer should reach on one core, for every game (the platform's bars).
TARGETS = {
    "engine_call": 300_000,
    "engine_compiled": 2_000_000,
    "raw_env": 100_000,
    "env": 25_000,
    "vector": 1_000_000,
}
#: The batched layer must beat ``raw_env`` of the same run by this factor at least.
VECTOR_BAR_VS_RAW_ENV = 3.0
#: Games of the batched layer by default.
VECTOR_ENVS = 256
#: The most bytes one game's state should take (cheap clones for search and batching).
STATE_BYTES_TARGET = 1024
#: Player counts of the rates when none are given (those of them the game allows; else its
#: default player count).
DEFAULT_PLAYERS = (2, 4)
#: Workloads at full size; ``quick`` runs a fifth of each.
CALL_DECISIONS = 200_000
COMPILED_GAMES = 2_000
AEC_DECISIONS = 50_000
VECTOR_DECISIONS = 2_000_000
LENGTH_GAMES = 2_000
QUICK_SCALE = 0.2
#: ``Game.clone`` is timed over this many copies of a game this many moves in.
CLONE_LOOPS = 20_000
CLONE_MOVES = 100
#: The player count of the compile-time probe's game.
PROBE_PLAYERS = 3
#: The seed of the random games of the compiled layer (and their lengths).
RANDOM_GAMES_SEED = 1
ANCHOR_HINT = 'not installed: pip install -e ".\\[bench]" (in the checkout)'


def _median_rate(run: Callable[[], tuple[int, float]], repeats: int) -> float:
    """Median of ``count / seconds`` over ``repeats`` runs (one warm-up run first)."""
    run()
    rates = []
    for _ in range(repeats):
        count, seconds = run()
        rates.append(count / seconds)
    return statistics.median(rates)


def kernel_options(game: str, num_players: int, options: Mapping[str, Any] | None = None):
    """The kernels' ``options`` array of ``game`` for ``num_players`` and ``options``."""
    return game_spec(game).config(num_players, **dict(options or {})).kernel_options()


def engine_call_rate(
    game: str,
    num_players: int,
    decisions: int,
    repeats: int,
    options: Mapping[str, Any] | None = None,
) -> float:
    """Decisions/s with one Python call per decision (the game's ``kernels.step``)."""
    engine = game_spec(game).engine()
    kernels, layout = engine.kernels, engine.layout
    opts = kernel_options(game, num_players, options)
    buf = np.empty(engine.NUM_ACTIONS, np.int64)
    setup, advance, step = kernels.setup, kernels.advance, kernels.step

    def run() -> tuple[int, float]:
        pick = random.Random(0).randrange
        count = 0
        seed = 0
        t0 = time.perf_counter()
        while count < decisions:
            s = np.zeros(layout.STATE_SIZE, layout.STATE_DTYPE)
            setup(s, opts, seed)
            seed += 1
            n = advance(s, buf)
            while n > 0:
                n = step(s, buf[pick(n)], buf)
                count += 1
        return count, time.perf_counter() - t0

    return _median_rate(run, repeats)


def random_game_lengths(
    game: str, num_players: int, games: int, options: Mapping[str, Any] | None = None
) -> np.ndarray:
    """Decisions of each of ``games`` whole random games played inside compiled code."""
    from caylus_env.core.vector import kernels

    counts = np.zeros(games, np.int64)
    opts = kernel_options(game, num_players, options)
    kernels(game).random_games(opts, games, RANDOM_GAMES_SEED, counts)
    return counts


def engine_compiled_rate(
    game: str,
    num_players: int,
    games: int,
    repeats: int,
    options: Mapping[str, Any] | None = None,
) -> float:
    """Decisions/s of whole random games played inside compiled code."""

    def run() -> tuple[int, float]:
        t0 = time.perf_counter()
        count = int(random_game_lengths(game, num_players, games, options).sum())
        return count, time.perf_counter() - t0

    return _median_rate(run, repeats)


def game_lengths(
    game: str, num_players: int, games: int, options: Mapping[str, Any] | None = None
) -> dict[str, float]:
    """Decisions per random game (mean, median, max) over ``games`` compiled games."""
    counts = random_game_lengths(game, num_players, games, options)
    return {
        "mean": float(counts.mean()),
        "median": float(np.median(counts)),
        "max": int(counts.max()),
    }


def aec_run(env: Any, decisions: int) -> tuple[int, float, int]:
    """One run of the standard AEC loop over whole random games: ``last()``, a random legal id,
    ``step``; returns the decisions, the seconds and the games finished.

    The random choice is ``random.choice(np.flatnonzero(mask))``, as PettingZoo's own
    ``performance_benchmark`` does; finished agents are drained with ``step(None)`` and not
    counted, and the next game starts with the next seed.
    """
    rng = random.Random(0)
    seed = 0
    env.reset(seed=seed)
    count = 0
    finished = 0
    t0 = time.perf_counter()
    while count < decisions:
        obs, _, term, trunc, _ = env.last()
        if term or trunc:
            env.step(None)
            if not env.agents:
                finished += 1
                seed += 1
                env.reset(seed=seed)
            continue
        env.step(int(rng.choice(np.flatnonzero(obs["action_mask"]))))
        count += 1
    return count, time.perf_counter() - t0, finished


def aec_rate(make_env: Callable[[], Any], decisions: int, repeats: int) -> float:
    """Decisions/s of the standard AEC loop (`aec_run`) on one env of ``make_env``."""
    env = make_env()
    return _median_rate(lambda: aec_run(env, decisions)[:2], repeats)


def env_maker(
    game: str, num_players: int, wrapped: bool = False, options: Mapping[str, Any] | None = None
) -> Callable[[], Any]:
    """A factory of ``game``'s ``raw_env`` (or ``env()`` when ``wrapped``)."""
    module = game_spec(game).module("env")
    make = module.env if wrapped else module.raw_env
    return lambda: make(num_players=num_players, **dict(options or {}))


def vector_rate(
    game: str,
    num_envs: int,
    num_players: int,
    decisions: int,
    repeats: int,
    options: Mapping[str, Any] | None = None,
) -> float:
    """Decisions/s of ``VectorGames``: each batch step is one compiled call that plays an
    action in every game and writes its observation and mask; the actions are uniform over
    the legal lists, drawn in NumPy (a policy's cost is not the env's)."""
    from caylus_env.core.vector import VectorGames

    games = VectorGames(game, num_envs, num_players, **dict(options or {}))
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


def pettingzoo_connect_four_rate(
    decisions: int, repeats: int, wrapped: bool = True
) -> float | None:
    """Decisions/s of PettingZoo's connect four, ``env()`` (its classic wrappers, the anchor of
    our ``env()``) or ``raw_env`` (the anchor of our ``raw_env``: the same layer on both sides),
    or None without pygame."""
    try:
        from pettingzoo.classic import connect_four_v3
    except ImportError:
        return None
    return aec_rate(connect_four_v3.env if wrapped else connect_four_v3.raw_env, decisions, repeats)


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


def clone_seconds(game: str, repeats: int, num_players: int = 4) -> tuple[float, float]:
    """Median seconds of a state-array copy and of ``Game.clone`` (a game `CLONE_MOVES` random
    moves in)."""
    spec = game_spec(game)
    g = spec.new_game(spec.config(num_players), seed=0)
    rng = random.Random(0)
    for _ in range(CLONE_MOVES):
        if g.is_over():
            break
        g.apply(rng.choice(g.legal_actions()))

    def timed(fn: Callable[[], Any]) -> float:
        results = []
        for _ in range(repeats):
            t0 = time.perf_counter()
            for _ in range(CLONE_LOOPS):
                fn()
            results.append((time.perf_counter() - t0) / CLONE_LOOPS)
        return statistics.median(results)

    return timed(g.state.copy), timed(g.clone)


_COMPILE_PROBE = (
    "import random, sys, time\n"
    "t = time.perf_counter()\n"
    "from caylus_env.core.registry import game_spec\n"
    "spec = game_spec(sys.argv[1])\n"
    "g = spec.new_game(spec.config(int(sys.argv[2])), seed=1)\n"
    "r = random.Random(0)\n"
    "while not g.is_over(): g.apply(r.choice(g.legal_actions()))\n"
    "print(time.perf_counter() - t)\n"
)


def compile_seconds(game: str) -> tuple[float, float]:
    """Seconds to import ``game``'s engine and play a first game in a fresh interpreter: with
    an empty kernel cache (every kernel compiled), then with the cache it left."""
    with tempfile.TemporaryDirectory() as cache:
        env = dict(os.environ, NUMBA_CACHE_DIR=cache)
        times = []
        for _ in range(2):
            done = subprocess.run(
                [sys.executable, "-c", _COMPILE_PROBE, game, str(PROBE_PLAYERS)],
                env=env,
                capture_output=True,
                text=True,
                check=True,
            )
            times.append(float(done.stdout.split()[-1]))
    return times[0], times[1]


def default_players(game: str) -> list[int]:
    """`DEFAULT_PLAYERS` that ``game`` allows, else its default player count."""
    spec = game_spec(game)
    return [n for n in DEFAULT_PLAYERS if n in spec.player_counts] or [spec.default_players]


def check_arguments(
    game: str, repeats: Any, players: Sequence[Any], vector_envs: Any = VECTOR_ENVS
) -> None:
    """Refuse bad arguments before any work.

    Raises:
        ValueError: for an unknown game, a repeat count below 1, no player counts or one the
            game's rules do not allow, or fewer than one batched game; naming what is allowed.
    """
    spec = game_spec(game)
    if isinstance(repeats, bool) or not isinstance(repeats, int) or repeats < 1:
        raise ValueError(f"repeats must be an int >= 1, got {repeats!r}")
    bad = [n for n in players if n not in spec.player_counts]
    if bad or not players:
        raise ValueError(
            f"players must be in {spec.min_players}-{spec.max_players} ({spec.title}), got "
            f"{list(players)}"
        )
    if isinstance(vector_envs, bool) or not isinstance(vector_envs, int) or vector_envs < 1:
        raise ValueError(f"vector_envs must be an int >= 1, got {vector_envs!r}")


def run_all(
    game: str,
    repeats: int = 3,
    players: Sequence[int] = DEFAULT_PLAYERS,
    quick: bool = False,
    compile_check: bool = True,
    vector: bool = False,
    vector_envs: int = VECTOR_ENVS,
) -> dict[str, Any]:
    """Every measurement of ``game``, as a dict of plain numbers (see the module docstring)."""
    spec = game_spec(game)
    check_arguments(game, repeats, players, vector_envs)
    scale = QUICK_SCALE if quick else 1.0
    calls = int(CALL_DECISIONS * scale)
    aec = int(AEC_DECISIONS * scale)
    results: dict[str, Any] = {
        "game": spec.name,
        "repeats": repeats,
        "players": list(players),
        "layers": {},
    }
    if vector:
        results["vector_envs"] = vector_envs
    layers = results["layers"]
    for n in players:
        layers[f"engine_call_{n}p"] = engine_call_rate(game, n, calls, repeats)
        compiled = int(COMPILED_GAMES * scale)
        layers[f"engine_compiled_{n}p"] = engine_compiled_rate(game, n, compiled, repeats)
        layers[f"raw_env_{n}p"] = aec_rate(env_maker(game, n), aec, repeats)
        layers[f"env_{n}p"] = aec_rate(env_maker(game, n, wrapped=True), aec, repeats)
        if vector:
            batched = int(VECTOR_DECISIONS * scale)
            layers[f"vector_{n}p"] = vector_rate(game, vector_envs, n, batched, repeats)
    results["length_games"] = int(LENGTH_GAMES * scale)
    results["game_lengths"] = {
        f"{n}p_{name}": game_lengths(game, n, results["length_games"], options)
        for name, options in spec.option_sets.items()
        for n in spec.player_counts
    }
    results["anchors"] = {
        "pettingzoo_connect_four_env": pettingzoo_connect_four_rate(aec, repeats),
        "pettingzoo_connect_four_raw_env": pettingzoo_connect_four_rate(aec, repeats, False),
        "openspiel_chess": openspiel_rate("chess", calls // 2, repeats),
        "openspiel_connect_four": openspiel_rate("connect_four", calls, repeats),
    }
    layout = spec.engine().layout
    results["state_bytes"] = int(layout.STATE_SIZE * np.dtype(layout.STATE_DTYPE).itemsize)
    copy_s, clone_s = clone_seconds(game, repeats, max(players))
    results["state_copy_us"] = copy_s * 1e6
    results["game_clone_us"] = clone_s * 1e6
    if compile_check:
        cold, warm = compile_seconds(game)
        results["compile_cold_s"] = cold
        results["compile_cached_s"] = warm
    return results


def _anchor_of(kind: str, players: str, results: dict[str, Any]) -> tuple[float | None, str]:
    """The anchor a layer is compared with: OpenSpiel chess for the per-call engine loop,
    PettingZoo connect four for the AEC loops, ``raw_env`` of the same run for the batched
    env, none for compiled games."""
    anchors = results["anchors"]
    if kind == "engine_call":
        return anchors["openspiel_chess"], "OpenSpiel chess"
    if kind == "raw_env":
        return anchors["pettingzoo_connect_four_raw_env"], "PZ connect four raw_env"
    if kind == "env":
        return anchors["pettingzoo_connect_four_env"], "PZ connect four env()"
    if kind == "vector":
        return results["layers"][f"raw_env_{players}"], f"raw_env (bar {VECTOR_BAR_VS_RAW_ENV:g}x)"
    return None, ""


def print_report(results: dict[str, Any], console: Any = None) -> None:
    """Rich tables of the figures, their targets, and the ratios to the anchors."""
    from rich.console import Console
    from rich.table import Table

    console = console or Console()
    spec = game_spec(results["game"])
    table = Table(title=f"{spec.title} throughput (decisions/s, median of {results['repeats']})")
    for col in ("layer", "decisions/s", "target", "vs anchor"):
        table.add_column(col, justify="left" if col == "layer" else "right")
    for name, rate in results["layers"].items():
        kind, players = name.rsplit("_", 1)
        anchor, anchor_name = _anchor_of(kind, players, results)
        ratio = f"{rate / anchor:.1f}x {anchor_name}" if anchor else "-"
        shown = f"{name} (N={results['vector_envs']})" if kind == "vector" else name
        below = "" if rate >= TARGETS[kind] else " (below)"
        table.add_row(shown, f"{rate:,.0f}", f">= {TARGETS[kind]:,}{below}", ratio)
    console.print(table)
    lengths = Table(title=f"decisions per random game ({results['length_games']:,} compiled games)")
    for col in ("players", "options", "mean", "median", "max"):
        lengths.add_column(col, justify="left" if col == "options" else "right")
    for key, row in results["game_lengths"].items():
        players, _, options = key.partition("_")
        lengths.add_row(
            players.rstrip("p"),
            options,
            f"{row['mean']:.1f}",
            f"{row['median']:.0f}",
            f"{row['max']}",
        )
    console.print(lengths)
    anchor_table = Table(title="anchors measured in the same run")
    anchor_table.add_column("anchor")
    anchor_table.add_column("decisions/s", justify="right")
    for name, rate in results["anchors"].items():
        anchor_table.add_row(name, ANCHOR_HINT if rate is None else f"{rate:,.0f}")
    console.print(anchor_table)
    size = results["state_bytes"]
    within = "within" if size <= STATE_BYTES_TARGET else "OVER"
    console.print(
        f"state: {size} bytes ({within} the {STATE_BYTES_TARGET}-byte budget); state copy "
        f"{results['state_copy_us']:.2f} us; Game.clone {results['game_clone_us']:.2f} us"
    )
    if "compile_cold_s" in results:
        console.print(
            f"kernel compile + first game: {results['compile_cold_s']:.1f} s cold, "
            f"{results['compile_cached_s']:.2f} s from the cache"
        )


def main(
    game: str,
    repeats: int = 3,
    players: Sequence[int] | None = None,
    quick: bool = False,
    json_path: str | os.PathLike[str] | None = None,
    compile_check: bool = True,
    vector: bool = False,
    vector_envs: int = VECTOR_ENVS,
    console: Any = None,
) -> dict[str, Any]:
    """Run every benchmark of ``game``, print the report, optionally write the figures as JSON
    (atomically).

    ``vector`` adds the batched environment's layer (``vector_envs`` games).

    Raises:
        ValueError: as `check_arguments`, before any work.
    """
    players = default_players(game) if players is None else list(players)
    check_arguments(game, repeats, players, vector_envs)
    results = run_all(game, repeats, tuple(players), quick, compile_check, vector, vector_envs)
    print_report(results, console)
    if json_path:
        atomic_write_json(json_path, results)
    return results


__all__ = [
    "DEFAULT_PLAYERS",
    "STATE_BYTES_TARGET",
    "TARGETS",
    "VECTOR_BAR_VS_RAW_ENV",
    "VECTOR_ENVS",
    "aec_rate",
    "aec_run",
    "check_arguments",
    "clone_seconds",
    "compile_seconds",
    "default_players",
    "engine_call_rate",
    "engine_compiled_rate",
    "env_maker",
    "game_lengths",
    "main",
    "openspiel_rate",
    "pettingzoo_connect_four_rate",
    "print_report",
    "random_game_lengths",
    "run_all",
    "vector_rate",
]
