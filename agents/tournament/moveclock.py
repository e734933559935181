"""The move clock: numba's compile time, the per-move ``SIGALRM`` deadline, and the move slots.

What the game loop (``arena``) times an agent's ``act`` with, and what a local pool worker tells
the driver about the move it waits on. Nothing here plays a game: the loop arms a `Deadline` per
move and reports to the `active_slot`; ``worker`` sets that slot while a pool worker plays a
chunk; ``backends`` creates the `MoveSlots` and reads them in its watchdog.

The time limit is enforced three times: a ``SIGALRM`` interval timer interrupts an agent that runs
past the limit (`Deadline`, when the game runs in a process's main thread on a POSIX system, as
pool and Ray workers do), and the measured time of every ``act`` call is checked afterwards (by the
game loop), which also catches agents that swallow the interruption or run where no timer can be
armed. A signal handler only runs between Python bytecodes, so an agent inside compiled code (a
numba loop) cannot be interrupted at all: local pool workers report the move they are waiting on
in shared memory (`MoveSlots`), and the driver's watchdog (``backends.move_watchdog_seconds``)
kills a worker stuck past its budget and records the game as a forfeit of that seat
(``worker.hung_move_record``).

Compiling numba kernels is not the agent's time. It is measured (`CompileClock`) and left out of
the move clock, and the timer never interrupts a compilation: an exception raised inside numba's
compiler (in a ctypes callback of LLVM) leaves a kernel library half-built ("no compiled object
yet"), which is how games were forfeited with a cold compile cache. A slot says while its worker
compiles, and the compile time is added to the move's start, so compiling is never a hung move.
"""

from __future__ import annotations

import contextlib
import ctypes
import multiprocessing.context
import os
import signal
import threading
import time
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
from numba.core import event as numba_event

from caylus_env.core.registry import games

# --------------------------------------------------------------------------------------------------
# Compile time: not the agent's
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

    def claim(self) -> WorkerSlot | None:
        """This worker's slot (None when every slot is taken, which a pool never does)."""
        with self.next_free.get_lock():
            index = int(self.next_free.value)
            self.next_free.value = index + 1
        if index >= self.count:
            return None
        self.ints[index, _I_PID] = os.getpid()
        return WorkerSlot(self.ints[index], self.floats[index])

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


class WorkerSlot:
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


_SLOT: WorkerSlot | None = None
"""The slot this process reports its timed moves to now: a local pool worker's own, while it
plays a chunk (`reporting_to`); None otherwise."""


def active_slot() -> WorkerSlot | None:
    """The slot that the game loop reports its moves to now (None: nobody watches them)."""
    return _SLOT


@contextlib.contextmanager
def reporting_to(slot: WorkerSlot | None) -> Iterator[None]:
    """Report the timed moves (and compilations) of the block's games to ``slot``, then mark it
    idle: what a pool worker does around a chunk's games, never around its warm-up, so that
    the watchdog judges timed moves only."""
    global _SLOT
    _SLOT = slot
    try:
        yield
    finally:
        _SLOT = None
        if slot is not None:
            slot.idle()


# --------------------------------------------------------------------------------------------------
# The deadline: the alarm that interrupts an ``act`` past the limit
# --------------------------------------------------------------------------------------------------


class MoveTimeout(BaseException):
    """Raised inside an agent's ``act`` by the alarm; a BaseException so that an agent's broad
    ``except Exception`` cannot swallow it."""


class Deadline:
    """Interrupts an agent's ``act`` that runs past the move time limit, at almost no cost.

    One periodic ``SIGALRM`` timer ticks every quarter of the limit for the whole game; a move
    only stores its start time. The handler raises `MoveTimeout` when a move is in progress and
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
            raise MoveTimeout

    def __enter__(self) -> Deadline:
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


__all__ = [
    "MAX_SEATS",
    "MAX_SLOT_ACTIONS",
    "NO_SEAT",
    "CompileClock",
    "Deadline",
    "HungMove",
    "MoveSlots",
    "MoveTimeout",
    "WorkerSlot",
    "active_slot",
    "compile_clock",
    "reporting_to",
]
