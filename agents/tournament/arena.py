"""Play one game between agents, sandboxed, and return its complete replayable record.

The arena is what a worker process runs. It treats agents as untrusted: an agent that raises, that
answers with an action which is not legal, that modifies the game it was shown, or whose ``act``
takes longer than the per-move time limit *forfeits*. The game stops at that decision, the
forfeiting seat is ranked last, the others keep their order by current prestige (ties averaged),
the reason is recorded, and the tournament goes on (Kaggle-style agent statuses; design doc (f),
goal 13). Errors of the engine itself are not an agent's fault and propagate.

The time limit is enforced twice: a ``SIGALRM`` interval timer interrupts an agent that runs past
the limit (when the arena runs in a process's main thread on a POSIX system, as pool and Ray
workers do), and the measured time of every ``act`` call is checked afterwards, which also
catches agents that swallow the interruption or run where no timer can be armed.

Compiling numba kernels is not the agent's time. It is measured (`CompileClock`) and left out of
the move clock, and the timer never interrupts a compilation: an exception raised inside numba's
compiler (in a ctypes callback of LLVM) leaves a kernel library half-built ("no compiled object
yet"), which is how games were forfeited with a cold compile cache. Workers also compile and
warm every agent of the run before their timed games (`warm_up`). So a game plays the same
with a cold and a warm cache.

A record is a `caylus_env.engine.record.GameRecord`: ``Game.record()`` plus the match fields and
the timings (see `play_game`); it replays exactly with ``caylus_env.engine.replay``. Only its
``timings`` differ between two runs of the same job.
"""

from __future__ import annotations

import importlib
import os
import signal
import sys
import threading
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, replace
from numbers import Integral
from typing import Any

from numba.core import event as numba_event

from agents.base import Agent
from agents.registry import make_agent
from caylus_env.engine import Game, GameConfig, IllegalActionError, action_to_string
from caylus_env.engine.record import FinalResult, GameRecord, MatchInfo, Timings, forfeit_ranks

DEFAULT_MOVE_TIME_LIMIT = 10.0
"""Seconds one ``act`` call may take before the agent forfeits."""

TIMING_FIELDS = ("wall_time_s", "move_time_s")
"""Result fields that measure time and so differ between runs of the same game (in a record:
its ``timings``)."""

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
"""The part of a record that a driver keeps in memory (`result_of`): what the statistics
(``agents.stats.GameResult`` reads these keys), the SPRT and the chunk sizing need. Full records
hold every action, and a long run's would not fit."""

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

WARM_UP_SEED = 0
"""Setup and agent seed of the warm-up games (any seed compiles the same kernels)."""


# --------------------------------------------------------------------------------------------------
# Compile time and the move clock
# --------------------------------------------------------------------------------------------------


class CompileClock(numba_event.Listener):
    """Measures, per thread, the time spent holding numba's compiler lock.

    Compiling a kernel, or loading it from the on-disk cache, happens under that lock, which
    numba announces with ``numba:compiler_lock`` events (nested acquisitions nest).
    Compilations from scratch are counted too (``numba:compile`` events; loading from the cache
    sends none), which tells a cold cache from a warm one.

    Attributes:
        compiles: Kernels compiled from scratch in this process so far.
        on_first_compile: Called once, at the first compilation from scratch (the driver prints
            its "compiling kernels" notice there).
    """

    def __init__(self) -> None:
        self._local = threading.local()
        self.compiles = 0
        self.on_first_compile: Callable[[], None] | None = None

    def _state(self) -> Any:
        local = self._local
        if not hasattr(local, "depth"):
            local.depth, local.since, local.total = 0, 0.0, 0.0
        return local

    def on_start(self, event: Any) -> None:
        local = self._state()
        local.depth += 1
        if local.depth == 1:
            local.since = time.perf_counter()

    def on_end(self, event: Any) -> None:
        local = self._state()
        local.depth -= 1
        if local.depth == 0:
            local.total += time.perf_counter() - local.since

    def compiling(self) -> bool:
        """Whether this thread is inside numba's compiler now."""
        return self._state().depth > 0

    def seconds(self) -> float:
        """Compiler time of this thread so far, including a compilation in progress."""
        local = self._state()
        extra = time.perf_counter() - local.since if local.depth else 0.0
        return local.total + extra


class _CompileCounter(numba_event.Listener):
    def __init__(self, clock: CompileClock) -> None:
        self.clock = clock

    def on_start(self, event: Any) -> None:
        clock = self.clock
        clock.compiles += 1
        if clock.compiles == 1 and clock.on_first_compile is not None:
            clock.on_first_compile()

    def on_end(self, event: Any) -> None:
        """Nothing to do when a compilation ends: the lock events measure the time."""


_CLOCK: CompileClock | None = None
_CLOCK_LOCK = threading.Lock()


def compile_clock() -> CompileClock:
    """The process's `CompileClock`, registered with numba on first use."""
    global _CLOCK
    with _CLOCK_LOCK:
        if _CLOCK is None:
            clock = CompileClock()
            numba_event.register("numba:compiler_lock", clock)
            numba_event.register("numba:compile", _CompileCounter(clock))
            _CLOCK = clock
    return _CLOCK


class _MoveTimeout(BaseException):
    """Raised inside an agent's ``act`` by the alarm; a BaseException so that an agent's broad
    ``except Exception`` cannot swallow it."""


class _Deadline:
    """Interrupts an agent's ``act`` that runs past the move time limit, at almost no cost.

    One periodic ``SIGALRM`` timer ticks every quarter of the limit for the whole game; a move
    only stores its start time. The handler raises `_MoveTimeout` when a move is in progress and
    its thinking time (wall time less numba compile time) is over the limit, so an agent is
    interrupted between 1 and 1.25 limits (the exact check on the measured time is done by the
    caller). While numba compiles, the handler does nothing; a tick after the compilation
    decides. Arming a one-shot timer per move instead cost as much as a random agent's move.
    """

    def __init__(self, seconds: float | None) -> None:
        self.seconds = seconds
        self.usable = (
            seconds is not None
            and seconds > 0
            and hasattr(signal, "setitimer")
            and threading.current_thread() is threading.main_thread()
        )
        self.clock = compile_clock()
        self._previous: Any = None
        self._armed = False
        self._start = 0.0
        self._compile_start = 0.0

    def _on_alarm(self, signum: int, frame: Any) -> None:
        if not self._armed or self.clock.compiling():
            return
        if self.thinking() >= self.seconds:
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
        self._compile_start = self.clock.seconds()
        self._start = time.perf_counter()
        self._armed = True

    def disarm(self) -> None:
        self._armed = False

    def thinking(self) -> float:
        """Seconds since `arm`, less this thread's numba compile time meanwhile."""
        elapsed = time.perf_counter() - self._start
        return max(0.0, elapsed - (self.clock.seconds() - self._compile_start))


# --------------------------------------------------------------------------------------------------
# One game
# --------------------------------------------------------------------------------------------------


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
        elapsed = deadline.thinking()
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
) -> GameRecord:
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
        ``game.record()`` with ``match`` (game id, block, agents, agent seeds, forfeit reason
        per seat), ``timings`` (``act`` seconds per seat without compile time, wall seconds) and
        ``final`` also for a forfeit (current prestige, the forfeiting seat ranked last).

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

    record = game.record()
    loser = next((s for s, r in enumerate(reasons) if r is not None), None)
    final = record.final
    if loser is not None:
        prestige = [int(x) for x in game.prestige()]
        final = FinalResult(prestige, forfeit_ranks(prestige, loser), "forfeit")
    return replace(
        record,
        final=final,
        match=MatchInfo(int(game_id), int(block), seats, seeds, reasons),
        timings=Timings([round(t, 6) for t in move_time], round(time.perf_counter() - start, 6)),
    )


def result_of(record: GameRecord) -> dict[str, Any]:
    """The `RESULT_FIELDS` of a tournament record (one with ``match`` and ``final``)."""
    return record.result()


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


@dataclass(frozen=True)
class WarmUp:
    """What `warm_up` did.

    Attributes:
        seconds: Wall time of the warm-up games.
        compile_seconds: Of which numba compiled or loaded kernels.
        compiled: Kernels compiled from scratch (0 with a warm cache).
        agents: The specs warmed by this call (those warmed before are skipped).
    """

    seconds: float
    compile_seconds: float
    compiled: int
    agents: tuple[str, ...]


_WARMED: set[tuple[str, int, tuple[tuple[str, Any], ...]]] = set()
"""(spec, players, options) already warmed in this process."""


def warm_up(
    specs: Sequence[str],
    num_players: int,
    game_options: Mapping[str, Any] | None = None,
    move_time_limit: float | None = DEFAULT_MOVE_TIME_LIMIT,
) -> WarmUp:
    """Compile and warm every agent before timed games: one game per spec, every seat that agent.

    An agent with a ``warm_up()`` method is asked to warm itself instead. The games are not
    recorded; an agent that fails or forfeits in them is left to forfeit in its real games. The
    move clock runs as in real games (so a deliberately slow agent costs one time limit, not
    its whole delay) but, as always, without numba's compile time, which is what this is for.
    Each spec is warmed once per process.
    """
    clock = compile_clock()
    options = dict(game_options or {})
    key_options = tuple(sorted(options.items()))
    start, compile_start, compiled = time.perf_counter(), clock.seconds(), clock.compiles
    done = []
    for spec in specs:
        key = (spec, int(num_players), key_options)
        if key in _WARMED:
            continue
        _WARMED.add(key)
        done.append(spec)
        try:
            agent = make_agent(spec)
        except Exception:  # the real games record why the agent cannot be created
            continue
        hook = getattr(agent, "warm_up", None)
        if callable(hook):
            try:
                hook()
            except Exception:  # its real games will forfeit with the reason
                continue
            continue
        play_game(
            [spec] * num_players,
            num_players,
            WARM_UP_SEED,
            options,
            agent_seeds=[WARM_UP_SEED] * num_players,
            move_time_limit=move_time_limit,
        )
    return WarmUp(
        round(time.perf_counter() - start, 6),
        round(clock.seconds() - compile_start, 6),
        clock.compiles - compiled,
        tuple(done),
    )


def init_worker(
    plugins: Sequence[str] = (), settings: Mapping[str, Any] | None = None
) -> WarmUp | None:
    """Process initializer: one thread per worker, agent plugins imported, agents warmed.

    The thread variables were already in the environment the worker was started with (see
    ``backends``); setting them again here covers libraries imported later, and torch, if an
    agent loaded it, is told directly. With ``settings`` (see `play_jobs`), every agent of the
    run is warmed (`warm_up`) before the worker's first timed game.
    """
    os.environ.update(single_thread_env())
    torch = sys.modules.get("torch")
    if torch is not None:
        torch.set_num_threads(1)
    load_plugins(plugins)
    if settings is None:
        return None
    return warm_up(
        settings.get("agents", ()),
        settings["num_players"],
        settings.get("game_options") or {},
        settings.get("move_time_limit", DEFAULT_MOVE_TIME_LIMIT),
    )


def play_jobs(jobs: Sequence[Mapping[str, Any]], settings: Mapping[str, Any]) -> list[GameRecord]:
    """Play a chunk of scheduled games (plain dicts in, records out): the unit of remote work.

    Args:
        jobs: ``GameJob.to_dict()`` entries.
        settings: ``num_players``, ``game_options``, ``move_time_limit``, ``plugins`` and
            ``agents`` (every spec of the run, warmed before the first game of a process).
    """
    init_worker(settings.get("plugins", ()), settings)
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


def play_chunk(
    jobs: Sequence[Mapping[str, Any]], settings: Mapping[str, Any]
) -> list[tuple[bytes, dict[str, Any]]]:
    """`play_jobs`, returning each record as its ledger line plus its `result_of`.

    What the backends run: the worker serialises the record once (`GameRecord.to_json_line`),
    and the driver only writes bytes and keeps small dicts, so the driver's cost per game stays
    far below a game's.
    """
    return [(r.to_json_line().encode("utf-8"), result_of(r)) for r in play_jobs(jobs, settings)]


__all__ = [
    "DEFAULT_MOVE_TIME_LIMIT",
    "RESULT_FIELDS",
    "THREAD_ENV_VARS",
    "TIMING_FIELDS",
    "CompileClock",
    "WarmUp",
    "compile_clock",
    "forfeit_ranks",
    "init_worker",
    "load_plugins",
    "play_chunk",
    "play_game",
    "play_jobs",
    "result_of",
    "single_thread_env",
    "warm_up",
]
