"""Play one game between agents, sandboxed, and return its complete replayable record.

The arena is what a worker process runs. It treats agents as untrusted: an agent that raises, that
answers with an action which is not legal, that modifies the game it was shown, or whose ``act``
takes longer than the per-move time limit *forfeits*. The game stops at that decision, the
forfeiting seat is ranked last, the others keep their order by current prestige (ties averaged),
the reason is recorded, and the tournament goes on (Kaggle-style agent statuses; design doc (f),
goal 13). Errors of the engine itself are not an agent's fault and propagate.

The time limit is enforced twice: a ``SIGALRM`` interval timer interrupts an agent that runs past
the limit (when the arena runs in a process's main thread on a POSIX system, as pool and Ray
workers do), and the measured wall time of every ``act`` call is checked afterwards, which also
catches agents that swallow the interruption or run where no timer can be armed.

A record is ``Game.record()`` plus the harness's fields (see `play_game`); it replays exactly with
``caylus_env.engine.replay``. Only the fields in `TIMING_FIELDS` differ between two runs of the
same job.
"""

from __future__ import annotations

import importlib
import json
import os
import signal
import sys
import threading
import time
from collections.abc import Callable, Mapping, Sequence
from numbers import Integral
from typing import Any

import numpy as np

from agents.base import Agent
from agents.registry import make_agent
from caylus_env.engine import Game, GameConfig, IllegalActionError, action_to_string, rank_of

DEFAULT_MOVE_TIME_LIMIT = 10.0
"""Seconds one ``act`` call may take before the agent forfeits."""

TIMING_FIELDS = ("wall_time_s", "move_time_s")
"""Record fields that measure time and so differ between runs of the same game."""

RESULT_FIELDS = (
    "game_id",
    "seed",
    "block",
    "num_players",
    "seats",
    "prestige",
    "ranks",
    "forfeit",
    "forfeit_reason",
    "end",
    "wall_time_s",
)
"""The part of a record that a driver keeps in memory: what the statistics, the SPRT and the
chunk sizing need. Full records hold every action, and a long run's would not fit."""

THREAD_ENV_VARS = (
    "OMP_NUM_THREADS",
    "MKL_NUM_THREADS",
    "OPENBLAS_NUM_THREADS",
    "NUMEXPR_NUM_THREADS",
    "VECLIB_MAXIMUM_THREADS",
    "NUMBA_NUM_THREADS",
)
"""Thread-pool sizes pinned to 1 in workers: one game per core, not one game fighting N BLAS
threads per core."""


class _MoveTimeout(BaseException):
    """Raised inside an agent's ``act`` by the alarm; a BaseException so that an agent's broad
    ``except Exception`` cannot swallow it."""


class _Deadline:
    """Interrupts an agent's ``act`` that runs past the move time limit, at almost no cost.

    One periodic ``SIGALRM`` timer ticks every quarter of the limit for the whole game; a move
    only stores its start time. The handler raises `_MoveTimeout` when a move is in progress and
    over the limit, so an agent is interrupted between 1 and 1.25 limits (the exact check on the
    measured time is done by the caller). Arming a one-shot timer per move instead cost as much
    as a random agent's whole move.
    """

    def __init__(self, seconds: float | None) -> None:
        self.seconds = seconds
        self.usable = (
            seconds is not None
            and seconds > 0
            and hasattr(signal, "setitimer")
            and threading.current_thread() is threading.main_thread()
        )
        self._previous: Any = None
        self._armed = False
        self._start = 0.0

    def _on_alarm(self, signum: int, frame: Any) -> None:
        if self._armed and time.perf_counter() - self._start >= self.seconds:
            self._armed = False
            raise _MoveTimeout

    def __enter__(self) -> _Deadline:
        if self.usable:
            self._previous = signal.signal(signal.SIGALRM, self._on_alarm)
            tick = max(self.seconds / 4.0, 0.001)
            signal.setitimer(signal.ITIMER_REAL, tick, tick)
        return self

    def __exit__(self, *exc: object) -> None:
        if self.usable:
            self._armed = False
            signal.setitimer(signal.ITIMER_REAL, 0)
            signal.signal(signal.SIGALRM, self._previous)

    def arm(self) -> None:
        self._start = time.perf_counter()
        self._armed = True

    def disarm(self) -> None:
        self._armed = False


def forfeit_ranks(prestige: Sequence[int], loser: int) -> list[float]:
    """Ranks after a forfeit: the loser is last, the others by prestige with ties averaged.

    Example:
        >>> forfeit_ranks([10, 3, 7], loser=0)
        [3.0, 2.0, 1.0]
        >>> forfeit_ranks([5, 5, 1], loser=2)
        [1.5, 1.5, 3.0]
    """
    n = len(prestige)
    others = [s for s in range(n) if s != loser]
    ranks = [0.0] * n
    for s, r in zip(others, rank_of(np.asarray([prestige[s] for s in others])), strict=True):
        ranks[s] = float(r)
    ranks[loser] = float(n)
    return ranks


def _describe_error(err: BaseException) -> str:
    text = str(err)
    if len(text) > 500:
        text = text[:497] + "..."
    return f"{type(err).__name__}: {text}" if text else type(err).__name__


def _check_action(action: Any, legal: list[int]) -> str | None:
    """Why ``action`` is not acceptable, or None when it is a legal action id."""
    if isinstance(action, bool) or not isinstance(action, Integral):
        return f"illegal action: act returned {action!r} ({type(action).__name__}), not an int id"
    a = int(action)
    if a in legal:
        return None
    try:
        name = action_to_string(a)
    except ValueError:
        name = "out of range"
    return f"illegal action: {a} ({name}) is not among the {len(legal)} legal actions"


def _play_moves(
    game: Game,
    agents: list[Agent],
    deadline: _Deadline,
    move_time: list[float],
    reasons: list[str | None],
) -> Game:
    """Ask the agents for moves until the game ends or one forfeits (its reason set in
    ``reasons``). Returns the game, which is a rebuilt object if an agent tampered with it."""
    limit = deadline.seconds
    moves = list(game.history)  # our own copy: an agent could rewrite game.history
    while not game.is_terminal():
        p = game.current_player()
        legal = game.legal_actions()
        snapshot = game.state.tobytes()
        reason = None
        action: Any = None
        t0 = time.perf_counter()
        try:
            deadline.arm()
            try:
                action = agents[p].act(game)
            finally:
                deadline.disarm()
        except _MoveTimeout:
            reason = f"timeout: act was interrupted at the {limit:g} s move time limit"
        except Exception as err:
            reason = f"error: {_describe_error(err)}"
        elapsed = time.perf_counter() - t0
        move_time[p] += elapsed
        if reason is None and limit is not None and elapsed > limit:
            reason = f"timeout: act took {elapsed:.3f} s, the move time limit is {limit:g} s"
        if len(game.history) != len(moves) or game.state.tobytes() != snapshot:
            # Rebuild the untouched position so that the record stays exactly replayable.
            game = Game(game.config, game.seed)
            for a in moves:
                game.apply(a)
            reason = reason or "error: the agent modified the game it was given"
        if reason is None:
            reason = _check_action(action, legal)
        if reason is None:
            try:
                game.apply(int(action))
                moves.append(int(action))
            except IllegalActionError as err:  # the legal list and the engine disagree
                reason = f"illegal action: {err}"
        if reason is not None:
            reasons[p] = reason
            break
    if game.history != moves:  # rewritten in place without changing the state: restore it
        game.history = moves
    return game


def play_game(
    seats: Sequence[str],
    num_players: int | None = None,
    seed: int = 0,
    config_options: Mapping[str, Any] | None = None,
    *,
    game_id: int = 0,
    block: int = 0,
    agent_seeds: Sequence[int] | None = None,
    move_time_limit: float | None = DEFAULT_MOVE_TIME_LIMIT,
    agent_factory: Callable[[str], Agent] = make_agent,
) -> dict[str, Any]:
    """Play one game to its end (or to the first forfeit) and return its record.

    Agents are created fresh for every game and reset with their seat's seed, so a game depends
    on its job alone: which worker plays it, and what that worker played before, cannot change
    it (resumed runs and other backends reproduce it exactly).

    Args:
        seats: Agent spec per seat (seat index = engine player number).
        num_players: Seats; defaults to ``len(seats)`` and must agree with it.
        seed: Engine setup seed.
        config_options: Further `GameConfig` options (``num_players`` excluded).
        game_id: Id stored in the record.
        block: Block id stored in the record.
        agent_seeds: Seed per seat for ``agent.reset``; defaults to ``seed + seat``.
        move_time_limit: Seconds per ``act`` call; None or 0 disables the limit.
        agent_factory: Creates an agent from its spec (the registry by default).

    Returns:
        ``game.record()`` (format, engine, options, seed, setup, actions, action_names and, for a
        finished game, final) plus ``game_id``, ``block``, ``num_players``, ``seats``,
        ``agent_seeds``, ``prestige``, ``ranks`` (1 = best, ties averaged), ``forfeit`` (bool per
        seat), ``forfeit_reason`` (str or None per seat), ``end`` (``"terminated"`` or
        ``"forfeit"``), ``num_moves``, ``move_time_s`` (total ``act`` time per seat) and
        ``wall_time_s``.

    Raises:
        ValueError: for bad arguments (before any agent is created).
    """
    start = time.perf_counter()
    seats = [str(s) for s in seats]
    n = len(seats) if num_players is None else int(num_players)
    if len(seats) != n:
        raise ValueError(f"{len(seats)} seats given for a {n}-player game")
    options = dict(config_options or {})
    if "num_players" in options:
        raise ValueError("config_options must not hold num_players; pass num_players instead")
    config = GameConfig(num_players=n, **options)
    seeds = (
        [int(seed) + s for s in range(n)] if agent_seeds is None else [int(x) for x in agent_seeds]
    )
    if len(seeds) != n:
        raise ValueError(f"{len(seeds)} agent seeds given for a {n}-player game")
    limit = float(move_time_limit) if move_time_limit else None

    game = Game(config, seed)
    reasons: list[str | None] = [None] * n
    move_time = [0.0] * n
    agents: list[Agent] = []
    for s, spec in enumerate(seats):
        try:
            agent = agent_factory(spec)
            agent.reset(seeds[s])
        except Exception as err:
            reasons[s] = f"error: could not create agent {spec!r}: {_describe_error(err)}"
            break
        agents.append(agent)

    if not any(reasons):
        with _Deadline(limit) as deadline:
            game = _play_moves(game, agents, deadline, move_time, reasons)

    prestige = [int(x) for x in game.prestige()]
    forfeit = [r is not None for r in reasons]
    if any(forfeit):
        ranks = forfeit_ranks(prestige, forfeit.index(True))
        end = "forfeit"
    else:
        ranks = [float(r) for r in game.ranks()]
        end = "terminated"
    record = game.record()
    record.update(
        {
            "game_id": int(game_id),
            "block": int(block),
            "num_players": n,
            "seats": seats,
            "agent_seeds": seeds,
            "prestige": prestige,
            "ranks": ranks,
            "forfeit": forfeit,
            "forfeit_reason": reasons,
            "end": end,
            "num_moves": len(game.history),
            "move_time_s": [round(t, 6) for t in move_time],
            "wall_time_s": round(time.perf_counter() - start, 6),
        }
    )
    return record


# --------------------------------------------------------------------------------------------------
# Worker side
# --------------------------------------------------------------------------------------------------


def load_plugins(plugins: Sequence[str]) -> None:
    """Import agent plugin modules and let them register their agents.

    A plugin is a module that calls ``agents.registry.register`` when imported, or that defines
    ``register_agents()``, which is called on every load (registering is idempotent, and a hook
    keeps mere imports, such as doctest collection, free of side effects). Workers start from a
    fresh interpreter (spawn, Ray), so registrations made in the driver do not exist there;
    loading the same plugins in every worker recreates them.
    """
    for name in plugins:
        module = importlib.import_module(name)
        hook = getattr(module, "register_agents", None)
        if callable(hook):
            hook()


def single_thread_env() -> dict[str, str]:
    """The environment variables that pin native thread pools to one thread."""
    return dict.fromkeys(THREAD_ENV_VARS, "1")


def init_worker(plugins: Sequence[str] = ()) -> None:
    """Process-pool initializer: one thread per worker, agent plugins imported.

    The thread variables were already in the environment the worker was started with (see
    ``runner``); setting them again here covers libraries imported later, and torch, if an agent
    loaded it, is told directly.
    """
    os.environ.update(single_thread_env())
    torch = sys.modules.get("torch")
    if torch is not None:
        torch.set_num_threads(1)
    load_plugins(plugins)


def play_jobs(
    jobs: Sequence[Mapping[str, Any]], settings: Mapping[str, Any]
) -> list[dict[str, Any]]:
    """Play a chunk of scheduled games (plain dicts in, records out): the unit of remote work.

    Args:
        jobs: ``GameJob.to_dict()`` entries.
        settings: ``num_players``, ``game_options``, ``move_time_limit`` and ``plugins``.
    """
    init_worker(settings.get("plugins", ()))
    out = []
    for job in jobs:
        out.append(
            play_game(
                job["seats"],
                settings["num_players"],
                job["seed"],
                settings.get("game_options") or {},
                game_id=job["game_id"],
                block=job["block"],
                agent_seeds=job["agent_seeds"],
                move_time_limit=settings.get("move_time_limit", DEFAULT_MOVE_TIME_LIMIT),
            )
        )
    return out


def result_of(record: Mapping[str, Any]) -> dict[str, Any]:
    """The `RESULT_FIELDS` of a game record."""
    return {k: record[k] for k in RESULT_FIELDS if k in record}


def play_chunk(
    jobs: Sequence[Mapping[str, Any]], settings: Mapping[str, Any]
) -> list[tuple[bytes, dict[str, Any]]]:
    """`play_jobs`, returning each record as its ``games.jsonl`` line plus its `result_of`.

    What the backends run: the worker serialises the record once, and the driver only writes
    bytes and keeps small dicts, so the driver's cost per game stays far below a game's.
    """
    return [
        (
            json.dumps(r, separators=(",", ":"), allow_nan=False).encode("utf-8") + b"\n",
            result_of(r),
        )
        for r in play_jobs(jobs, settings)
    ]


__all__ = [
    "DEFAULT_MOVE_TIME_LIMIT",
    "RESULT_FIELDS",
    "THREAD_ENV_VARS",
    "TIMING_FIELDS",
    "forfeit_ranks",
    "init_worker",
    "load_plugins",
    "play_chunk",
    "play_game",
    "play_jobs",
    "result_of",
    "single_thread_env",
]
