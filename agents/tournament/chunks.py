"""Cutting scheduled games into chunks, keeping a backend busy with them, and ending hung moves.

One game per task would spend more time on inter-process messages than on random agents'
games, so games go out in chunks sized to about `TARGET_CHUNK_SECONDS` of play, from a moving
average of the measured seconds per game; results are consumed as they complete.
"""

from __future__ import annotations

import concurrent.futures as cf
import math
from collections import deque
from collections.abc import Callable, Sequence
from typing import Any

from agents.tournament.backends import Backend, Watchdog
from agents.tournament.moveclock import HungMove
from agents.tournament.schedule import GameJob

TARGET_CHUNK_SECONDS = 0.25
"""Work per task: long enough that messaging costs little, short enough that a kill loses
little and the progress bar moves."""
MAX_CHUNK = 256


def run_chunks(
    backend: Backend,
    jobs: Sequence[GameJob],
    on_records: Callable[[list[tuple[bytes, dict[str, Any]]]], bool],
) -> None:
    """Play ``jobs`` (in order of submission) and pass each returned chunk, a list of
    ``(ledger line, result)`` pairs from ``worker.play_chunk``, to ``on_records``, which returns
    True to stop early (pending work is then abandoned).

    With a ``backend.watchdog`` the wait for chunks wakes every ``watchdog.poll`` seconds to
    look for a move that has run past the watchdog budget (an agent stuck in compiled code,
    which the workers' alarm cannot interrupt). Its worker is killed, which fails every chunk
    in flight: the hung game is recorded as a forfeit of the seat whose move was running
    (``worker.hung_move_record``), chunks that had finished are kept, the other games of the
    failed chunks go back to the front of the queue (a game is a pure function of its job, so
    playing one again gives the same record), and the pool is rebuilt.
    """
    pending = deque(job.to_dict() for job in jobs)
    in_flight: dict[cf.Future, list[dict[str, Any]]] = {}
    per_game: float | None = None  # moving average of the seconds per game in the workers
    watchdog = backend.watchdog

    def consume(chunk: list[tuple[bytes, dict[str, Any]]]) -> bool:
        nonlocal per_game
        if chunk:
            mean = sum(float(r.get("wall_time_s", 0.0)) for _, r in chunk) / len(chunk)
            per_game = mean if per_game is None else 0.5 * per_game + 0.5 * mean
        return on_records(chunk)

    try:
        while pending or in_flight:
            while pending and len(in_flight) < 2 * backend.slots:
                if per_game is not None:
                    size = int(TARGET_CHUNK_SECONDS / max(per_game, 1e-6))
                else:
                    size = 1
                # Leave work for every slot at the end of the run.
                size = max(1, min(size, MAX_CHUNK, math.ceil(len(pending) / backend.slots)))
                chunk = [pending.popleft() for _ in range(min(size, len(pending)))]
                in_flight[backend.submit(chunk)] = chunk
            done, _ = cf.wait(
                in_flight,
                timeout=None if watchdog is None else watchdog.poll,
                return_when=cf.FIRST_COMPLETED,
            )
            for future in done:
                in_flight.pop(future)
                if consume(future.result()):
                    _abandon(in_flight)
                    return
            killed = watchdog.kill_hung() if watchdog is not None else None
            if killed is not None and _recover(watchdog, killed, in_flight, pending, consume):
                return
    except BaseException:
        _abandon(in_flight)
        backend.close()
        raise


def _abandon(in_flight: dict[cf.Future, Any]) -> None:
    for f in in_flight:
        f.cancel()


def _recover(
    watchdog: Watchdog,
    killed: list[HungMove],
    in_flight: dict[cf.Future, list[dict[str, Any]]],
    pending: deque[dict[str, Any]],
    consume: Callable[[list[tuple[bytes, dict[str, Any]]]], bool],
) -> bool:
    """After the watchdog killed workers: stop the broken pool, record the hung games, keep
    finished chunks, queue the rest again in their order, start a fresh pool. Returns True
    when ``consume`` stops.

    The pool is stopped before any wait: a pool may not notice the kill by itself
    (`backends._LocalPool.stop`), and a wait for its chunks would then last until another
    worker returns, which a second stuck worker never does."""
    watchdog.stop()
    cf.wait(in_flight)  # a stopped pool has failed or cancelled every pending future
    hung = {h.game_id: h for h in killed}
    again: list[dict[str, Any]] = []
    forfeits: list[tuple[bytes, dict[str, Any]]] = []
    stop = False
    for future, chunk in list(in_flight.items()):
        del in_flight[future]
        if not future.cancelled() and future.exception() is None:
            stop = stop or consume(future.result())
            continue
        for job in chunk:
            move = hung.pop(job["game_id"], None)
            if move is not None:
                forfeits.append(watchdog.record(job, move))
            else:
                again.append(job)
    if hung:  # a slot named a game of no chunk in flight: a harness fault, never an agent's
        raise RuntimeError(f"the watchdog found hung games {sorted(hung)} of no pending chunk")
    pending.extendleft(reversed(again))
    if stop or (forfeits and consume(forfeits)):
        return True
    watchdog.restart()
    return False


__all__ = ["MAX_CHUNK", "TARGET_CHUNK_SECONDS", "run_chunks"]
