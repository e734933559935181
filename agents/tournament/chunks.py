"""Cutting scheduled games into chunks and keeping a backend busy with them.

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

from agents.tournament.backends import Backend
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
    ``(ledger line, result)`` pairs from ``arena.play_chunk``, to ``on_records``, which returns
    True to stop early (pending work is then abandoned)."""
    pending = deque(job.to_dict() for job in jobs)
    in_flight: set[cf.Future] = set()
    per_game: float | None = None  # moving average of the seconds per game in the workers
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
                in_flight.add(backend.submit(chunk))
            done, in_flight = cf.wait(in_flight, return_when=cf.FIRST_COMPLETED)
            for future in done:
                chunk = future.result()
                if chunk:
                    mean = sum(float(r.get("wall_time_s", 0.0)) for _, r in chunk) / len(chunk)
                    per_game = mean if per_game is None else 0.5 * per_game + 0.5 * mean
                if on_records(chunk):
                    for f in in_flight:
                        f.cancel()
                    return
    except BaseException:
        for f in in_flight:
            f.cancel()
        backend.close()
        raise


__all__ = ["MAX_CHUNK", "TARGET_CHUNK_SECONDS", "run_chunks"]
