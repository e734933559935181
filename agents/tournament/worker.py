"""What a worker process runs: its set-up, the compile warm-up, and chunks of games.

A backend (``backends``) hands a worker chunks of scheduled games; the worker plays each with the
game loop (``arena.play_game``) and returns the records (`play_jobs`), or their ledger lines and
results (`play_chunk`, what the backends run). Before its first timed game a worker pins native
thread pools to one thread, imports the run's agent plugins and compiles and warms every agent
of the run (`init_worker`, `warm_up`), so numba's compile time never falls in a game (``moveclock``
also leaves it out of the move clock). A local pool worker also dies with the driver
(`die_with_parent`) and reports its timed moves to a shared-memory slot (``moveclock.MoveSlots``,
`init_pool_worker`), from which the driver's watchdog rebuilds the game of a worker it killed in a
hung move (`hung_move_record`). Nothing here depends on the game: it is the settings' ``game``
(``caylus_env.core.registry.game_of``).
"""

from __future__ import annotations

import ctypes
import os
import signal
import sys
import threading
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from agents.tournament.arena import (
    DEFAULT_MOVE_TIME_LIMIT,
    DecisionHook,
    finish,
    load_plugins,
    new_game,
    play_game,
    registry_factory,
)
from agents.tournament.moveclock import (
    HungMove,
    MoveSlots,
    WorkerSlot,
    compile_clock,
    reporting_to,
)
from caylus_env.core.record import GameRecord
from caylus_env.core.registry import DEFAULT_GAME, game_of, game_spec

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
    make = registry_factory(name)
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
_POOL_SLOT: WorkerSlot | None = None
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
    init_worker(settings.get("plugins", ()), settings)
    out = []
    if _POOL_SLOT is not None:
        _POOL_SLOT.chunk(token)
    with reporting_to(_POOL_SLOT):
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
    return out


def play_chunk(
    jobs: Sequence[Mapping[str, Any]], settings: Mapping[str, Any], token: int = 0
) -> list[tuple[bytes, dict[str, Any]]]:
    """`play_jobs`, returning each record as its ledger line plus its ``arena.result_of``.

    What the backends run: the worker serialises the record once (``GameRecord.to_json_line``),
    and the driver only writes bytes and keeps small dicts, so the driver's cost per game stays
    far below a game's.
    """
    return [ledger_item(r) for r in play_jobs(jobs, settings, token)]


def ledger_item(record: GameRecord) -> tuple[bytes, dict[str, Any]]:
    """A tournament record as `play_chunk` returns it: its ledger line and its
    ``arena.result_of``."""
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
    "PARENT_POLL_SECONDS",
    "THREAD_ENV_VARS",
    "WARM_UP_SEED",
    "WarmUp",
    "die_with_parent",
    "hung_move_record",
    "init_pool_worker",
    "init_worker",
    "ledger_item",
    "play_chunk",
    "play_jobs",
    "single_thread_env",
    "warm_up",
]
