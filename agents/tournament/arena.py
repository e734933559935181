"""Play one game between agents, sandboxed, and return its complete replayable record.

The arena is what a worker process runs. It treats agents as untrusted: an agent that raises, that
answers with an action which is not legal, that modifies the game it was shown, or whose ``act``
takes longer than the per-move time limit *forfeits*. The game stops at that decision, the
forfeiting seat is ranked last, the others keep their order by the position's ranks (ties
averaged, ``caylus_env.core.ranks.forfeit_ranks``),
the reason is recorded, and the tournament goes on (Kaggle-style agent statuses; design doc (f),
goal 13). Errors of the engine itself are not an agent's fault and propagate.

The time limit is enforced three times: a ``SIGALRM`` interval timer interrupts an agent that runs
past the limit (when the arena runs in a process's main thread on a POSIX system, as pool and Ray
workers do), and the measured time of every ``act`` call is checked afterwards, which also
catches agents that swallow the interruption or run where no timer can be armed. A signal
handler only runs between Python bytecodes, so an agent inside compiled code (a numba loop)
cannot be interrupted at all: local pool workers report the move they are waiting on in shared
memory (`MoveSlots`), and the driver's watchdog (``backends.move_watchdog_seconds``) kills a
worker stuck past its budget and records the game as a forfeit of that seat
(`hung_move_record`). Pool workers also die with the driver (`die_with_parent`).

Compiling numba kernels is not the agent's time. It is measured (`CompileClock`) and left out of
the move clock, and the timer never interrupts a compilation: an exception raised inside numba's
compiler (in a ctypes callback of LLVM) leaves a kernel library half-built ("no compiled object
yet"), which is how games were forfeited with a cold compile cache. Workers also compile and
warm every agent of the run before their timed games (`warm_up`). So a game plays the same
with a cold and a warm cache.

A record is the one record of every game (`caylus_env.core.record.GameRecord`):
``Game.record()`` plus the match fields and the timings (see `finish`); it replays exactly
(``caylus_env.core.record.replay``). Only its ``timings`` differ between two runs of the same
job. Nothing here depends on the game: it is named by ``play_game(..., game=NAME)`` or the
worker settings' ``game`` (``caylus_env.core.registry``) and reached through its ``GameSpec``
(its engine's ``Game``) and the agent registry (``agents.registry.make_agent(spec, game)``).
"""

from __future__ import annotations

import ctypes
import importlib
import multiprocessing.context
import os
import signal
import sys
import threading
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from numbers import Integral
from typing import Any

import numpy as np
from numba.core import event as numba_event

from agents.base import Agent
from caylus_env.core.errors import IllegalActionError
from caylus_env.core.game import Game
from caylus_env.core.ranks import forfeit_ranks
from caylus_env.core.record import FinalResult, GameRecord, MatchInfo, Timings
from caylus_env.core.registry import DEFAULT_GAME, game_of, game_spec, games

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
    "scores",
    "ranks",
    "forfeit",
    "forfeit_reason",
    "end",
    "wall_time_s",
)
"""The part of a record that a driver keeps in memory (`result_of`, ``GameRecord.result()``):
what the statistics (``agents.stats.GameResult`` reads these keys), the SPRT and the chunk
sizing need. Full records hold every action, and a long run's would not fit."""

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
            if _SLOT is not None:
                _SLOT.compiling(True, 0.0)

    def on_end(self, event: Any) -> None:
        local = self._state()
        local.depth -= 1
        if local.depth == 0:
            spent = time.perf_counter() - local.since
            local.total += spent
            if _SLOT is not None:
                _SLOT.compiling(False, spent)

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


# --------------------------------------------------------------------------------------------------
# The move slot: what a pool worker is doing, in shared memory, for the driver's watchdog
# --------------------------------------------------------------------------------------------------

MAX_SLOT_ACTIONS = 8192
"""Actions a move slot holds: more than a game has (random 2-5 player Caylus games measured at
most 312 decisions; Puerto Rico's decision cap, ``max_decisions``, defaults to 4,000), so the
driver can always rebuild the game that a killed worker was playing."""

_I_PID, _I_TOKEN, _I_GAME, _I_SEAT, _I_COMPILING, _I_COUNT, _I_ACTIONS = range(7)
_F_MOVE_START, _F_GAME_START, _F_MOVE_TIME = range(3)
_INTS_PER_SLOT = _I_ACTIONS + MAX_SLOT_ACTIONS
MAX_SEATS = max(spec.max_players for spec in games())
"""Seats a move slot times: the most that any registered game seats (``GameSpec.max_players``)."""
_FLOATS_PER_SLOT = _F_MOVE_TIME + MAX_SEATS
NO_SEAT = -1


@dataclass(frozen=True)
class HungMove:
    """What a worker was doing when the watchdog found one ``act`` call running too long.

    Attributes:
        pid: The worker process.
        token: The chunk it was playing (`MoveSlots` tokens are chosen by the driver).
        game_id: The game.
        seat: The seat whose ``act`` was running.
        actions: The actions applied in that game so far.
        move_time: ``act`` seconds per seat so far in that game (the hung call included).
        thinking: Seconds the hung call had run (compile time excluded).
        game_seconds: Seconds since the game started.
    """

    pid: int
    token: int
    game_id: int
    seat: int
    actions: tuple[int, ...]
    move_time: tuple[float, ...]
    thinking: float
    game_seconds: float


class MoveSlots:
    """One shared-memory slot per pool worker, written by the worker and read by the driver.

    The worker stores its pid, the chunk token and game it plays, the actions applied so far,
    the ``act`` seconds per seat, and, while an ``act`` call runs, the seat it waits on and
    when the call started (numba compile time is added to that start when a compilation ends,
    and the slot says while one runs, so compiling is never a hung move). Plain stores, no
    lock: the driver kills a worker before it reads its slot for good (`read`), so what it
    reads is what the worker had written. A worker claims the next free slot when it starts.

    Created in the driver before the pool, and handed to the workers through the pool's
    initializer arguments (shared memory is inherited at spawn, never pickled by value).
    """

    def __init__(self, count: int, ctx: multiprocessing.context.BaseContext) -> None:
        self.count = count
        self.ints_raw = ctx.RawArray(ctypes.c_int64, count * _INTS_PER_SLOT)
        self.floats_raw = ctx.RawArray(ctypes.c_double, count * _FLOATS_PER_SLOT)
        self.next_free = ctx.Value(ctypes.c_int64, 0)
        self._views()
        self.ints[:, _I_SEAT] = NO_SEAT

    def _views(self) -> None:
        ints = np.frombuffer(self.ints_raw, dtype=np.int64)
        floats = np.frombuffer(self.floats_raw, dtype=np.float64)
        self.ints = ints.reshape(self.count, _INTS_PER_SLOT)
        self.floats = floats.reshape(self.count, _FLOATS_PER_SLOT)

    def shared(self) -> tuple[Any, Any, Any, int]:
        """What a worker needs to attach (the pool's initializer arguments)."""
        return self.ints_raw, self.floats_raw, self.next_free, self.count

    @classmethod
    def attach(cls, ints_raw: Any, floats_raw: Any, next_free: Any, count: int) -> MoveSlots:
        slots = cls.__new__(cls)
        slots.count, slots.ints_raw, slots.floats_raw = count, ints_raw, floats_raw
        slots.next_free = next_free
        slots._views()
        return slots

    def claim(self) -> _WorkerSlot | None:
        """This worker's slot (None when every slot is taken, which a pool never does)."""
        with self.next_free.get_lock():
            index = int(self.next_free.value)
            self.next_free.value = index + 1
        if index >= self.count:
            return None
        self.ints[index, _I_PID] = os.getpid()
        return _WorkerSlot(self.ints[index], self.floats[index])

    def overdue(self, budget: float) -> list[int]:
        """Slots whose ``act`` call has run for more than ``budget`` seconds (not compiling)."""
        now = time.monotonic()
        busy = (self.ints[:, _I_SEAT] != NO_SEAT) & (self.ints[:, _I_COMPILING] == 0)
        late = now - self.floats[:, _F_MOVE_START] > budget
        return [int(i) for i in np.flatnonzero(busy & late)]

    def read(self, index: int) -> HungMove | None:
        """The slot's hung move, or None when no ``act`` call is running there."""
        ints, floats = self.ints[index], self.floats[index]
        seat, count = int(ints[_I_SEAT]), int(ints[_I_COUNT])
        if seat == NO_SEAT:
            return None
        if not 0 <= count <= MAX_SLOT_ACTIONS:
            raise RuntimeError(f"worker slot {index} holds {count} actions, over its capacity")
        now = time.monotonic()
        thinking = now - float(floats[_F_MOVE_START])
        move_time = [float(t) for t in floats[_F_MOVE_TIME:]]
        move_time[seat] += thinking
        return HungMove(
            pid=int(ints[_I_PID]),
            token=int(ints[_I_TOKEN]),
            game_id=int(ints[_I_GAME]),
            seat=seat,
            actions=tuple(int(a) for a in ints[_I_ACTIONS : _I_ACTIONS + count]),
            move_time=tuple(move_time),
            thinking=thinking,
            game_seconds=now - float(floats[_F_GAME_START]),
        )

    def move_start(self, index: int) -> float:
        """When the slot's current ``act`` call started (compile time added)."""
        return float(self.floats[index, _F_MOVE_START])


class _WorkerSlot:
    """A worker's own view of its slot (see `MoveSlots`)."""

    def __init__(self, ints: np.ndarray, floats: np.ndarray) -> None:
        self.ints = ints
        self.floats = floats

    def chunk(self, token: int) -> None:
        self.ints[_I_TOKEN] = token

    def game(self, game_id: int, actions: Sequence[int]) -> None:
        self.ints[_I_SEAT] = NO_SEAT
        self.ints[_I_GAME] = game_id
        self.ints[_I_COUNT] = 0
        for a in actions:
            self.action(a)
        self.floats[_F_MOVE_TIME:] = 0.0
        self.floats[_F_GAME_START] = time.monotonic()

    def move(self, seat: int) -> None:
        """An ``act`` call of ``seat`` starts (its start time first, then the seat)."""
        self.floats[_F_MOVE_START] = time.monotonic()
        self.ints[_I_SEAT] = seat

    def moved(self, seat: int, seconds: float) -> None:
        """The ``act`` call returned; ``seconds`` is the seat's total so far."""
        self.ints[_I_SEAT] = NO_SEAT
        self.floats[_F_MOVE_TIME + seat] = seconds

    def action(self, action: int) -> None:
        """An action was applied (stored before the count grows, so the count is exact)."""
        count = int(self.ints[_I_COUNT])
        if count < MAX_SLOT_ACTIONS:
            self.ints[_I_ACTIONS + count] = action
        self.ints[_I_COUNT] = count + 1

    def compiling(self, started: bool, seconds: float) -> None:
        self.ints[_I_COMPILING] = int(started)
        if not started:
            self.floats[_F_MOVE_START] += seconds

    def idle(self) -> None:
        self.ints[_I_SEAT] = NO_SEAT


_SLOT: _WorkerSlot | None = None
"""This process's slot when it is a local pool worker (see `init_pool_worker`)."""


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


def _check_action(action: Any, legal: list[int], game: Game) -> str | None:
    """Why ``action`` is not acceptable, or None when it is a legal action id."""
    if isinstance(action, bool) or not isinstance(action, Integral):
        return f"illegal action: act returned {action!r} ({type(action).__name__}), not an int id"
    a = int(action)
    if a in legal:
        return None
    try:
        name = game.action_to_string(a)
    except (ValueError, IndexError):
        name = "out of range"
    return f"illegal action: {a} ({name}) is not among the {len(legal)} legal actions"


DecisionHook = Callable[[Game, int, int, Agent, list[int], bytes], None]
"""``hook(game, seat, action, agent, legal, state)``: called once per accepted move, after
``agent.act`` returned ``action`` (checked legal) and before it is applied, outside the move
clock; the game is the position the agent was shown, ``legal`` its legal action ids and
``state`` its state's bytes (both already computed by the loop, so the hook does not compute
them again). How a self-play dataset (``caylus_env.datasets``) records every decision, and an
agent's policy target, on the tournament's own game loop."""


def _play_moves(
    game: Game,
    agents: list[Agent],
    deadline: _Deadline,
    move_time: list[float],
    reasons: list[str | None],
    on_decision: DecisionHook | None = None,
) -> Game:
    """Ask the agents for moves until the game ends or one forfeits (its reason set in
    ``reasons``). Returns the game, which is a rebuilt object if an agent tampered with it."""
    limit = deadline.seconds
    moves = list(game.history)  # our own copy: an agent could rewrite game.history
    slot = _SLOT
    while not game.is_over():
        p = game.current_player()
        legal = game.legal_actions()
        snapshot = game.state.tobytes()
        reason = None
        action: Any = None
        try:
            deadline.arm()
            if slot is not None:
                slot.move(p)
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
        if slot is not None:
            slot.moved(p, move_time[p])
        if reason is None and limit is not None and elapsed > limit:
            reason = f"timeout: act took {elapsed:.3f} s, the move time limit is {limit:g} s"
        if len(game.history) != len(moves) or game.state.tobytes() != snapshot:
            # Rebuild the untouched position so that the record stays exactly replayable.
            game = type(game)(game.config, game.seed)
            for a in moves:
                game.apply(a)
            reason = reason or "error: the agent modified the game it was given"
        if reason is None:
            reason = _check_action(action, legal, game)
        if reason is None and on_decision is not None:
            on_decision(game, p, int(action), agents[p], legal, snapshot)
        if reason is None:
            try:
                game.apply(int(action))
                moves.append(int(action))
                if slot is not None:
                    slot.action(int(action))
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
    agent_factory: Callable[[str], Agent] | None = None,
    on_decision: DecisionHook | None = None,
    game: str = DEFAULT_GAME,
) -> Any:
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
        agent_factory: Creates an agent from its spec (``agents.registry.make_agent(spec,
            game)`` by default).
        on_decision: Called at every accepted move (`DecisionHook`); None in tournaments.
        game: Which game (a name of ``caylus_env.core.registry``).

    Returns:
        The game's record with ``match``, ``timings`` and ``final`` also for a forfeit (see
        `finish`).

    Raises:
        ValueError: for bad arguments (before any agent is created).
    """
    start = time.perf_counter()
    name = game_spec(game).name
    make = agent_factory if agent_factory is not None else _registry_factory(name)
    seats = [str(s) for s in seats]
    n = len(seats) if num_players is None else int(num_players)
    if len(seats) != n:
        raise ValueError(f"{len(seats)} seats given for a {n}-player game")
    options = dict(config_options or {})
    if "num_players" in options:
        raise ValueError("config_options must not hold num_players; pass num_players instead")
    seeds = (
        [int(seed) + s for s in range(n)] if agent_seeds is None else [int(x) for x in agent_seeds]
    )
    if len(seeds) != n:
        raise ValueError(f"{len(seeds)} agent seeds given for a {n}-player game")
    limit = float(move_time_limit) if move_time_limit else None

    state = new_game(name, n, options, seed)
    reasons: list[str | None] = [None] * n
    move_time = [0.0] * n
    agents: list[Agent] = []
    for s, spec in enumerate(seats):
        try:
            agent = make(spec)
            agent.reset(seeds[s])
        except Exception as err:
            reasons[s] = f"error: could not create agent {spec!r}: {_describe_error(err)}"
            break
        agents.append(agent)

    if not any(reasons):
        if _SLOT is not None:
            _SLOT.game(int(game_id), state.history)
        with _Deadline(limit) as deadline:
            state = _play_moves(state, agents, deadline, move_time, reasons, on_decision)

    return finish(
        state,
        reasons,
        game_id=game_id,
        block=block,
        seats=seats,
        agent_seeds=seeds,
        move_time=move_time,
        wall_time=time.perf_counter() - start,
    )


def _registry_factory(game: str) -> Callable[[str], Agent]:
    from agents.registry import make_agent

    return lambda spec: make_agent(spec, game)


def new_game(game: str, num_players: int, options: Mapping[str, Any], seed: int) -> Game:
    """A fresh game of ``game`` with ``num_players`` and the other ``options`` on setup
    ``seed`` (the engine's ``Game``; refuses an unknown option naming the allowed ones)."""
    spec = game_spec(game)
    return spec.engine().Game(spec.config(int(num_players), **options), int(seed))


def finish(
    game: Game,
    reasons: Sequence[str | None],
    *,
    game_id: int,
    block: int,
    seats: Sequence[str],
    agent_seeds: Sequence[int],
    move_time: Sequence[float],
    wall_time: float,
) -> GameRecord:
    """The tournament record of a game that ended or stopped at the first forfeit (``reasons``:
    per seat why it forfeited, or None): ``game.record()`` with ``match`` (game id, block,
    agents, agent seeds, forfeit reasons), ``timings`` (rounded to the microsecond) and, after
    a forfeit, ``final`` from the position (its scores; its ranks with the forfeiting seat
    last, ``forfeit_ranks``), which is what ``replay`` checks."""
    loser = next((s for s, r in enumerate(reasons) if r is not None), None)
    forfeit = {}
    if loser is not None:
        ranks = forfeit_ranks(game.ranks().tolist(), loser)
        forfeit["final"] = FinalResult(game.scores().tolist(), ranks, "forfeit")
    return game.record(
        match=MatchInfo(int(game_id), int(block), list(seats), list(agent_seeds), list(reasons)),
        timings=Timings([round(float(t), 6) for t in move_time], round(float(wall_time), 6)),
        **forfeit,
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


_WARMED: set[tuple[str, str, int, tuple[tuple[str, Any], ...]]] = set()
"""(game, spec, players, options) already warmed in this process."""


def warm_up(
    specs: Sequence[str],
    num_players: int,
    game_options: Mapping[str, Any] | None = None,
    move_time_limit: float | None = DEFAULT_MOVE_TIME_LIMIT,
    game: str = DEFAULT_GAME,
) -> WarmUp:
    """Compile and warm every agent before timed games: one game per spec, every seat that agent.

    An agent with a ``warm_up()`` method is asked to warm itself instead. The games are not
    recorded; an agent that fails or forfeits in them is left to forfeit in its real games. The
    move clock runs as in real games (so a deliberately slow agent costs one time limit, not
    its whole delay) but, as always, without numba's compile time, which is what this is for.
    Each spec is warmed once per process and game.
    """
    name = game_spec(game).name
    make = _registry_factory(name)
    clock = compile_clock()
    options = dict(game_options or {})
    key_options = tuple(sorted(options.items()))
    start, compile_start, compiled = time.perf_counter(), clock.seconds(), clock.compiles
    done = []
    for spec in specs:
        key = (name, spec, int(num_players), key_options)
        if key in _WARMED:
            continue
        _WARMED.add(key)
        done.append(spec)
        try:
            agent = make(spec)
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
            game=name,
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
        game_of(settings),
    )


PARENT_POLL_SECONDS = 0.5
"""How often a pool worker's watch thread checks that the driver is still its parent."""
_PR_SET_PDEATHSIG = 1  # <linux/prctl.h>
_POOL_SLOT: _WorkerSlot | None = None
"""A local pool worker's slot, reported to only while it plays a chunk's games (`play_jobs`),
never during the warm-up, so the watchdog judges timed moves only."""


def die_with_parent() -> None:
    """Make this worker process end when the process that started it (the driver) dies.

    A SIGKILLed driver runs no clean-up, and its pool workers would otherwise live on (one
    busy in a long game, or idle forever). On Linux the kernel sends SIGKILL to this process
    when its parent dies (``prctl(PR_SET_PDEATHSIG)``, through ctypes; it fires even while the
    worker runs compiled code holding the GIL). Everywhere, a daemon thread also checks every
    `PARENT_POLL_SECONDS` that the parent is still the same process (an orphan is re-parented)
    and ends the process if not. The resource tracker the driver started then exits by itself:
    it ends when the last process holding its pipe (the driver and the workers) is gone.
    """
    parent = os.getppid()
    if sys.platform.startswith("linux"):
        try:
            libc = ctypes.CDLL(None, use_errno=True)
            libc.prctl(_PR_SET_PDEATHSIG, int(signal.SIGKILL), 0, 0, 0)
        except (OSError, AttributeError):  # no usable libc: the thread below still works
            pass
    if os.getppid() != parent:  # the driver died before the signal was armed
        os._exit(1)

    def watch() -> None:
        while os.getppid() == parent:
            time.sleep(PARENT_POLL_SECONDS)
        os._exit(1)

    threading.Thread(target=watch, name="caylus-parent-watch", daemon=True).start()


def init_pool_worker(
    plugins: Sequence[str],
    settings: Mapping[str, Any] | None,
    slots: tuple[Any, Any, Any, int] | None = None,
) -> WarmUp | None:
    """Initializer of a local pool worker: die with the driver (`die_with_parent`), claim a
    `MoveSlots` slot for the driver's watchdog, then `init_worker` (plugins, warm-up)."""
    global _POOL_SLOT
    die_with_parent()
    if slots is not None:
        _POOL_SLOT = MoveSlots.attach(*slots).claim()
    return init_worker(plugins, settings)


def play_jobs(
    jobs: Sequence[Mapping[str, Any]],
    settings: Mapping[str, Any],
    token: int = 0,
    on_decision_for: Callable[[Mapping[str, Any]], DecisionHook | None] | None = None,
) -> list[Any]:
    """Play a chunk of scheduled games (plain dicts in, records out): the unit of remote work.

    Args:
        jobs: ``GameJob.to_dict()`` entries; a game has as many players as its job's seats.
        settings: ``num_players`` (of the warm-up games), ``game_options``,
            ``move_time_limit``, ``plugins``, ``agents`` (every spec of the run, warmed
            before the first game of a process) and ``game`` (`DEFAULT_GAME` when absent).
        token: The driver's id of this chunk, written to this worker's `MoveSlots` slot (in a
            local pool) so that its watchdog knows which chunk a hung move belongs to.
        on_decision_for: Given a job, the `DecisionHook` of its game (None: no hook).
    """
    global _SLOT
    init_worker(settings.get("plugins", ()), settings)
    out = []
    if _POOL_SLOT is not None:
        _POOL_SLOT.chunk(token)
    _SLOT = _POOL_SLOT
    try:
        for job in jobs:
            out.append(
                play_game(
                    job["seats"],
                    len(job["seats"]),
                    job["seed"],
                    settings.get("game_options") or {},
                    game_id=job["game_id"],
                    block=job["block"],
                    agent_seeds=job["agent_seeds"],
                    move_time_limit=settings.get("move_time_limit", DEFAULT_MOVE_TIME_LIMIT),
                    on_decision=None if on_decision_for is None else on_decision_for(job),
                    game=game_of(settings),
                )
            )
    finally:
        _SLOT = None
        if _POOL_SLOT is not None:
            _POOL_SLOT.idle()
    return out


def play_chunk(
    jobs: Sequence[Mapping[str, Any]], settings: Mapping[str, Any], token: int = 0
) -> list[tuple[bytes, dict[str, Any]]]:
    """`play_jobs`, returning each record as its ledger line plus its `result_of`.

    What the backends run: the worker serialises the record once (``GameRecord.to_json_line``),
    and the driver only writes bytes and keeps small dicts, so the driver's cost per game stays
    far below a game's.
    """
    return [ledger_item(r) for r in play_jobs(jobs, settings, token)]


def ledger_item(record: GameRecord) -> tuple[bytes, dict[str, Any]]:
    """A tournament record as `play_chunk` returns it: its ledger line and its `result_of`."""
    return record.to_json_line().encode("utf-8"), record.result()


def hung_move_record(
    job: Mapping[str, Any], settings: Mapping[str, Any], hung: HungMove, budget: float
) -> Any:
    """The record of a game whose worker the driver killed while ``hung.seat``'s ``act`` ran.

    The driver rebuilds the game from the actions the worker reported (`MoveSlots`) and
    records a forfeit of the seat whose move was running (an agent that keeps a worker in
    compiled code, where the per-move alarm cannot interrupt it, loses like one that is
    interrupted): the same record ``play_game`` gives for a timeout, except its reason.

    Raises:
        RuntimeError: when the reported actions do not rebuild a game waiting on that seat
            (a fault of the harness, not of an agent).
    """
    n = len(job["seats"])
    options = dict(settings.get("game_options") or {})
    game = new_game(game_of(settings), n, options, int(job["seed"]))
    for a in hung.actions:
        game.apply(a)
    if game.is_over() or game.current_player() != hung.seat:
        raise RuntimeError(
            f"game {job['game_id']}: the worker reported seat {hung.seat} thinking after "
            f"{len(hung.actions)} actions, but the engine waits on seat {game.current_player()}"
        )
    limit = settings.get("move_time_limit")
    reasons: list[str | None] = [None] * n
    reasons[hung.seat] = (
        f"timeout: act ran {hung.thinking:.1f} s without returning (move time limit "
        f"{limit:g} s; the alarm cannot interrupt compiled code), so the driver's watchdog "
        f"killed the worker after {budget:g} s"
    )
    return finish(
        game,
        reasons,
        game_id=int(job["game_id"]),
        block=int(job["block"]),
        seats=job["seats"],
        agent_seeds=job["agent_seeds"],
        move_time=hung.move_time[:n],
        wall_time=hung.game_seconds,
    )


__all__ = [
    "DEFAULT_MOVE_TIME_LIMIT",
    "MAX_SEATS",
    "MAX_SLOT_ACTIONS",
    "PARENT_POLL_SECONDS",
    "RESULT_FIELDS",
    "THREAD_ENV_VARS",
    "TIMING_FIELDS",
    "CompileClock",
    "DecisionHook",
    "HungMove",
    "MoveSlots",
    "WarmUp",
    "compile_clock",
    "die_with_parent",
    "finish",
    "forfeit_ranks",
    "hung_move_record",
    "init_pool_worker",
    "init_worker",
    "ledger_item",
    "load_plugins",
    "new_game",
    "play_chunk",
    "play_game",
    "play_jobs",
    "result_of",
    "single_thread_env",
    "warm_up",
]
