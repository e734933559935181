"""The one progress display and console of every long command (tournaments, duels, datasets,
training), built on rich.

On a terminal a progress display is rich's live bar. When the output is not a terminal (a log
file, a pipe, CI) there is no live display and so no cursor-control characters: the display
prints a plain line instead, at most every `PLAIN_INTERVAL_S` seconds and once when a task
completes, e.g.::

    games 120/400 (30%), 2.1/s, elapsed 0:00:57, left 0:02:13

`console` is the matching console: its terminal's width on a terminal, no width limit off one,
so piped tables are neither wrapped nor cut.
"""

from __future__ import annotations

import sys
import time
from datetime import timedelta
from typing import Any

from rich.console import Console
from rich.progress import Progress, Task, TaskID

#: Seconds between two plain progress lines of a task when the output is not a terminal.
PLAIN_INTERVAL_S = 10.0
#: The width of a console that does not write to a terminal: wide enough that no table row or
#: agent name is wrapped or cut.
PIPE_WIDTH = 100_000


def console(file: Any = None) -> Console:
    """A rich console on ``file`` (stdout by default): the terminal's width on a terminal,
    `PIPE_WIDTH` otherwise (no wrapping, no truncation in logs and pipes)."""
    stream = sys.stdout if file is None else file
    isatty = getattr(stream, "isatty", None)
    if isatty is not None and isatty():
        return Console(file=file)
    return Console(file=file, width=PIPE_WIDTH)


def _clock(seconds: float | None) -> str:
    if seconds is None:
        return "?"
    return str(timedelta(seconds=int(max(seconds, 0.0))))


def plain_line(task: Task) -> str:
    """A task as one line of text: description, done/total and percent, speed, time spent and
    time left, then its text fields (a live score...)."""
    done = f"{task.completed:,.0f}"
    if task.total is not None:
        pct = 100.0 * task.completed / task.total if task.total else 100.0
        done += f"/{task.total:,.0f} ({pct:.0f}%)"
    parts = [f"{task.description} {done}"]
    speed = task.finished_speed or task.speed
    if speed is not None:
        parts.append(f"{speed:,.1f}/s")
    parts.append(f"elapsed {_clock(task.finished_time or task.elapsed)}")
    if not task.finished and task.total is not None:
        parts.append(f"left {_clock(task.time_remaining)}")
    extra = [str(v) for v in task.fields.values() if isinstance(v, str) and v.strip()]
    return ", ".join(parts) + (f"  {' '.join(extra)}" if extra else "")


class PlainProgress(Progress):
    """rich's ``Progress`` that, off a terminal, prints `plain_line` s instead of a live bar.

    Args:
        columns: the bar's columns on a terminal (rich's).
        console: where it prints; ``console.is_terminal`` picks the live bar or the lines.
        enabled: False shows nothing at all (``--no-progress``).
        interval: seconds between two plain lines of a task.
        kwargs: rich's ``Progress`` arguments.
    """

    def __init__(
        self,
        *columns: Any,
        console: Console,
        enabled: bool = True,
        interval: float = PLAIN_INTERVAL_S,
        **kwargs: Any,
    ) -> None:
        self.plain = enabled and not console.is_terminal
        super().__init__(*columns, console=console, disable=not enabled or self.plain, **kwargs)
        self.interval = interval
        self._said: dict[TaskID, tuple[float, float]] = {}

    def add_task(self, *args: Any, **kwargs: Any) -> TaskID:
        task_id = super().add_task(*args, **kwargs)
        with self._lock:
            self._said[task_id] = (time.monotonic(), self._tasks[task_id].completed)
        return task_id

    def update(self, task_id: TaskID, **kwargs: Any) -> None:  # type: ignore[override]
        super().update(task_id, **kwargs)
        self._say(task_id)

    def advance(self, task_id: TaskID, advance: float = 1) -> None:
        super().advance(task_id, advance)
        self._say(task_id)

    def stop(self) -> None:
        """Stop; off a terminal, a last line for each task that moved since its last one."""
        super().stop()
        for task_id in list(self._said):
            self._say(task_id, final=True)

    def _say(self, task_id: TaskID, final: bool = False) -> None:
        if not self.plain:
            return
        with self._lock:
            task = self._tasks.get(task_id)
            if task is None or task_id not in self._said:
                return
            when, completed = self._said[task_id]
            now = time.monotonic()
            moved = task.completed != completed
            due = now - when >= self.interval or task.finished or final
            if not (moved and due):
                return
            self._said[task_id] = (now, task.completed)
            line = plain_line(task)
        self.console.print(line, highlight=False, markup=False, soft_wrap=True)


__all__ = ["PIPE_WIDTH", "PLAIN_INTERVAL_S", "PlainProgress", "console", "plain_line"]
