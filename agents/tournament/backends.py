"""Where games run: local worker processes, Ray, or any executor; and the compile warm-up.

A backend takes chunks of scheduled games (``GameJob.to_dict()`` lists) and returns futures of
their ``worker.play_chunk`` results: ``local`` (a ``ProcessPoolExecutor`` over spawned workers with
native thread pools pinned to one thread), ``ray`` (``ray.remote`` tasks on a local instance or a
cluster; ray is an optional dependency imported only here), or any ``concurrent.futures.Executor``
passed in (a Dask client's ``get_executor()``, for instance).

The local backend's workers die with the driver and report the move they are waiting on in
shared memory; its `Watchdog` kills a worker whose move has run past `move_watchdog_seconds`
(an agent in compiled code, which no alarm interrupts), and the pool is rebuilt (see
``chunks.run_chunks``). Ray and executor backends have no watchdog: their schedulers own their
workers.

Before the first timed game, the driver compiles every agent of the run once (`prewarm`), which
fills numba's on-disk cache, so workers load kernels instead of compiling them N times at once;
every worker then warms the agents itself (``worker.warm_up``, in its initializer or before its
first chunk), outside the move clock. With a cold cache the driver says so, with an estimate,
instead of showing a frozen progress bar.
"""

from __future__ import annotations

import concurrent.futures as cf
import contextlib
import itertools
import multiprocessing.context
import os
import signal
import time
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass
from typing import Any

from rich.console import Console

from agents.tournament.moveclock import HungMove, MoveSlots, compile_clock
from agents.tournament.worker import (
    WarmUp,
    hung_move_record,
    init_pool_worker,
    ledger_item,
    play_chunk,
    single_thread_env,
    warm_up,
)
from caylus_env.core.registry import DEFAULT_GAME, game_of, game_spec

ChunkTask = Callable[[list[dict[str, Any]], dict[str, Any], int], list[tuple[Any, dict[str, Any]]]]
"""What a backend runs: ``task(jobs, settings, token)``, one ``(payload, result)`` per game."""

COLD_COMPILE_SECONDS = {
    "engine": 23.0,
    "env": 2.0,
    "vector": 12.5,
    "scripted": 18.0,
    "mcts": 90.0,
    "puct": 23.0,
}
"""Seconds to compile each family of numba kernels from scratch (and, for ``mcts``, to play the
short warm-up game that compiles it), measured on Caylus with an empty ``NUMBA_CACHE_DIR`` on
one core of the 2-core development machine: the engine (a game of ``random``: 23 s; Puerto
Rico's: 20 s), what the observation encoder adds (``env``: 2 s), what the batched environment
adds (``vector``: 12.5 s), what the scripted bots add (a game of ``castle``: 41 s in all) and
what MCTS adds (a game of ``mcts:20``: 113 s in all), and what the network-guided search adds
(``puct``: a self-play game of ``puct:8:gumbel=4`` after a game of ``random``, 23 s more,
its worker's loading of the engine included). Every game has these families, of about
these sizes; the one table of the estimates: the CLI sums the families a command uses."""
BOT_KERNELS = {
    "scripted": ("scripted",),
    "mcts": ("scripted", "mcts"),
}
"""Kernel families a game's bot compiles besides the engine's, by the module of its class in
the game's ``bots`` package (``<game package>.bots.<module>``; MCTS rolls out with the
scripted bots)."""


def kernel_families(specs: list[str], game: str = DEFAULT_GAME) -> list[str]:
    """The kernel families (keys of `COLD_COMPILE_SECONDS`) a game of ``game`` between
    ``specs`` compiles: the engine's, and each bot's (`BOT_KERNELS`)."""
    from agents.registry import make_agent

    bots = f"{game_spec(game).package}.bots."
    families = {"engine"}
    for spec in specs:
        with contextlib.suppress(Exception):  # unknown agents compile what they compile
            module = type(make_agent(spec, game)).__module__
            if module.startswith(bots):
                families.update(BOT_KERNELS.get(module[len(bots) :], ()))
    return sorted(families)


def cold_compile_estimate(specs: list[str], game: str = DEFAULT_GAME) -> float:
    """About how long compiling the run's kernels from scratch takes (`COLD_COMPILE_SECONDS`)."""
    return sum(COLD_COMPILE_SECONDS[f] for f in kernel_families(specs, game))


def prewarm(settings: Mapping[str, Any], console: Console) -> WarmUp:
    """Warm every agent of the run in the driver before any worker starts.

    With a cold cache, numba's first compilation prints "compiling kernels (first run only,
    about N s)" (`cold_compile_estimate`) and the time it took is printed at the end.
    """
    clock = compile_clock()
    specs = list(settings.get("agents", ()))
    game = game_of(settings)

    def notice() -> None:
        seconds = cold_compile_estimate(specs, game)
        console.print(f"compiling kernels (first run only, about {seconds:.0f} s)")

    clock.on_first_compile = notice if clock.compiles == 0 else None
    try:
        done = warm_up(
            specs,
            settings["num_players"],
            settings.get("game_options") or {},
            settings.get("move_time_limit"),
            game,
        )
    finally:
        clock.on_first_compile = None
    if done.compiled:
        console.print(
            f"compiled {done.compiled} kernels in {done.compile_seconds:.0f} s; "
            "later runs load them from the cache"
        )
    return done


@contextlib.contextmanager
def _environ(values: Mapping[str, str]) -> Iterator[None]:
    saved = {k: os.environ.get(k) for k in values}
    os.environ.update(values)
    try:
        yield
    finally:
        for k, v in saved.items():
            if v is None:
                os.environ.pop(k, None)
            else:
                os.environ[k] = v


class _WorkerProcess(multiprocessing.context.SpawnProcess):
    """A spawned worker that starts with native thread pools pinned to one thread.

    The variables must be in the environment the interpreter starts with, because numpy's BLAS
    reads them when it is first imported (before any initializer runs); the driver's own
    environment is changed only for the instant of the spawn.
    """

    def start(self) -> None:
        with _environ(single_thread_env()):
            super().start()


class _WorkerContext(multiprocessing.context.SpawnContext):
    """Spawn, not fork: the driver may hold threads (progress bar, Ray) that fork would copy
    in an arbitrary state, and spawned workers behave the same on every platform."""

    Process = _WorkerProcess


WATCHDOG_FACTOR = 2.0
WATCHDOG_SLACK_SECONDS = 5.0
"""The driver's watchdog kills a local worker whose ``act`` call has run for more than
``WATCHDOG_FACTOR * move_time_limit + WATCHDOG_SLACK_SECONDS`` (`move_watchdog_seconds`),
numba compile time excluded. The worker's own alarm interrupts a Python agent at 1 to 1.25
limits, so only an agent that the alarm cannot reach (compiled code, a blocking C call) gets
that far; the slack absorbs a loaded machine's scheduling delays."""
WATCHDOG_POLL_SECONDS = 0.5
"""How often the driver looks at the workers' move slots while it waits for chunks."""


def move_watchdog_seconds(move_time_limit: float | None) -> float | None:
    """Seconds one ``act`` call may run before the watchdog kills its worker (see
    `WATCHDOG_FACTOR`); None without a move time limit (moves may then take any time)."""
    if not move_time_limit:
        return None
    return WATCHDOG_FACTOR * float(move_time_limit) + WATCHDOG_SLACK_SECONDS


@dataclass
class Watchdog:
    """What the driver needs to end hung moves (local backend only, see `_LocalPool`).

    Attributes:
        budget: `move_watchdog_seconds` of the run.
        poll: Seconds between two looks (`WATCHDOG_POLL_SECONDS`).
        kill_hung: Kills every worker whose move is over the budget and returns the hung
            moves it confirmed (re-read after the kill: a move that ended meanwhile is not
            one); None when no worker was killed. A kill breaks the pool: every chunk in
            flight fails and must be submitted again after `restart`.
        record: ``(job dict, hung move) -> (ledger line, result)``: the forfeit record.
        stop: Kill every other worker of the broken pool and return once every chunk in
            flight has failed or been cancelled. The driver calls it before it waits on any
            chunk: the pool itself may never notice the kill (see `_LocalPool.stop`).
        restart: Start a fresh pool in place of the stopped one.
    """

    budget: float
    poll: float
    kill_hung: Callable[[], list[HungMove] | None]
    record: Callable[[dict[str, Any], HungMove], tuple[bytes, dict[str, Any]]]
    stop: Callable[[], None]
    restart: Callable[[], None]


@dataclass
class Backend:
    """Where chunks of games run: ``submit(jobs)`` returns a future of their records; ``slots``
    is how many run at once (the driver keeps twice as many in flight); ``close`` abandons
    queued work on errors; ``watchdog`` ends moves that never return (local backend with a
    move time limit; None elsewhere)."""

    submit: Callable[[list[dict[str, Any]]], cf.Future]
    slots: int
    close: Callable[[], None]
    watchdog: Watchdog | None = None


class _LocalPool:
    """The local backend: a process pool of spawned workers, their `MoveSlots`, a watchdog.

    Each worker dies with the driver (``worker.die_with_parent``) and reports what it plays in
    its slot; `kill_hung` SIGKILLs a worker stuck in one ``act`` call past the watchdog budget,
    which breaks the ``ProcessPoolExecutor``; `stop` ends the broken pool (every pending future
    fails) and `restart` builds a new one (whose workers warm up again).
    """

    def __init__(
        self,
        workers: int,
        settings: dict[str, Any],
        task: ChunkTask = play_chunk,
        item: Callable[[Any], tuple[Any, dict[str, Any]]] = ledger_item,
    ) -> None:
        self.workers = workers
        self.settings = settings
        self.task = task
        self.item = item
        self.budget = move_watchdog_seconds(settings.get("move_time_limit"))
        self._tokens = itertools.count(1)
        self._start()

    def _start(self) -> None:
        ctx = _WorkerContext()
        self.slots = MoveSlots(self.workers, ctx)
        self.pool = cf.ProcessPoolExecutor(
            max_workers=self.workers,
            mp_context=ctx,
            initializer=init_pool_worker,
            initargs=(tuple(self.settings["plugins"]), self.settings, self.slots.shared()),
        )

    def submit(self, jobs: list[dict[str, Any]]) -> cf.Future:
        return self.pool.submit(self.task, jobs, self.settings, next(self._tokens))

    def kill_hung(self) -> list[HungMove] | None:
        if self.budget is None:
            return None
        late = self.slots.overdue(self.budget)
        if not late:
            return None
        before = {i: self.slots.move_start(i) for i in late}
        killed = False
        for i in late:
            hung = self.slots.read(i)
            if hung is not None:
                with contextlib.suppress(ProcessLookupError):
                    os.kill(hung.pid, signal.SIGKILL)
                killed = True
        if not killed:  # every late move ended meanwhile: nothing broke, keep waiting
            return None
        time.sleep(WATCHDOG_POLL_SECONDS / 10)  # let the kills land before the final read
        confirmed = []
        for i in late:
            hung = self.slots.read(i)
            if hung is not None and self.slots.move_start(i) == before[i]:
                confirmed.append(hung)
        return confirmed

    def record(self, job: dict[str, Any], hung: HungMove) -> tuple[Any, dict[str, Any]]:
        assert self.budget is not None  # only called for a move kill_hung returned
        return self.item(hung_move_record(job, self.settings, hung, self.budget))

    def stop(self) -> None:
        """Stop the pool that a kill broke, so that every chunk in flight ends (failed or
        cancelled) before the driver waits on any of them.

        The ``ProcessPoolExecutor`` does not always see a kill by itself: it watches the
        sentinels of the workers it had when its manager thread last woke, and a spawned pool
        starts its workers on demand, after the wake-up of the ``submit`` that needs them. A
        worker started that way and killed while the others stay busy (one spinning in
        compiled code, say) is never noticed: no chunk fails, and the driver would wait until
        another worker returns by itself. ``shutdown`` wakes the manager thread, which then
        finds the dead worker and fails every pending chunk. The other workers are killed
        first: their chunks fail with the pool anyway and go back to the queue, and one of them
        may be stuck in compiled code too (not yet past the budget), which the pool's own
        SIGTERM-and-join would wait for."""
        # The pool's own Process handles (ProcessPoolExecutor keeps them until shutdown):
        # `kill` signals only a process not yet reaped, so never a pid reused since.
        for process in list((getattr(self.pool, "_processes", None) or {}).values()):
            process.kill()
        self.pool.shutdown(wait=True, cancel_futures=True)

    def restart(self) -> None:
        """Start a fresh pool (whose workers warm up again) in place of the stopped one."""
        self._start()

    def close(self) -> None:
        self.pool.shutdown(wait=False, cancel_futures=True)

    def backend(self) -> Backend:
        watchdog = None
        if self.budget is not None:
            watchdog = Watchdog(
                self.budget,
                WATCHDOG_POLL_SECONDS,
                self.kill_hung,
                self.record,
                self.stop,
                self.restart,
            )
        return Backend(self.submit, self.workers, self.close, watchdog)


@contextlib.contextmanager
def open_backend(
    backend: str,
    workers: int,
    settings: dict[str, Any],
    ray_address: str | None,
    executor: cf.Executor | None,
    *,
    task: ChunkTask = play_chunk,
    item: Callable[[Any], tuple[Any, dict[str, Any]]] = ledger_item,
) -> Iterator[Backend]:
    """Start the backend for one run and stop it afterwards.

    ``task(jobs, settings, token)`` plays a chunk and returns one ``(payload, result_of)``
    pair per game (`worker.play_chunk`: the ledger line; a self-play dataset's task returns
    its decision columns instead, ``caylus_env.datasets``); ``item`` turns the record of a
    game that the watchdog ended into such a pair. Both are plain module-level functions, so
    that spawned and Ray workers import them by name.

    Local workers warm every agent in their initializer; Ray and executor workers before their
    first chunk (``worker.play_jobs``). For Ray, an instance that is already initialised (a
    notebook, a test, a cluster connection made by the caller) is used and left running;
    otherwise one is started from ``ray_address`` (or ``RAY_ADDRESS``, or a new local instance
    with ``workers`` CPUs) and shut down at the end.
    """
    if executor is not None:
        yield Backend(lambda jobs: executor.submit(task, jobs, settings), workers, lambda: None)
        return
    if backend == "local":
        local = _LocalPool(workers, settings, task, item)
        try:
            yield local.backend()
        finally:
            local.pool.shutdown(wait=True, cancel_futures=True)
        return
    import ray  # optional dependency: imported only when asked for

    started = False
    if not ray.is_initialized():
        kwargs: dict[str, Any] = {"include_dashboard": False, "log_to_driver": True}
        if ray_address is None and not os.environ.get("RAY_ADDRESS"):
            kwargs["num_cpus"] = workers
        ray.init(address=ray_address, **kwargs)
        started = True
    try:
        remote = ray.remote(num_cpus=1)(task).options(runtime_env={"env_vars": single_thread_env()})
        slots = max(1, int(ray.cluster_resources().get("CPU", workers)))
        yield Backend(lambda jobs: remote.remote(jobs, settings).future(), slots, lambda: None)
    finally:
        if started:
            ray.shutdown()


__all__ = [
    "BOT_KERNELS",
    "COLD_COMPILE_SECONDS",
    "WATCHDOG_FACTOR",
    "WATCHDOG_POLL_SECONDS",
    "WATCHDOG_SLACK_SECONDS",
    "Backend",
    "Watchdog",
    "cold_compile_estimate",
    "kernel_families",
    "move_watchdog_seconds",
    "open_backend",
    "prewarm",
]
