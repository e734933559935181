"""Run fuzz cases in watched worker processes: the one runner of every fuzzer of the suite
(``fuzz_states``, ``fuzz_records``, ``fuzz_datasets``, ``fuzz_cli``, ``fuzz_positions`` and
``training/fuzz_checkpoints``).

A fuzzer is a script whose ``--worker ARGS... INDICES`` mode warms up (imports, and every
kernel it will call compiled once on a control case), says so with `ready`, then runs the
cases ``INDICES`` (`format_indices`: ``"0-59,75"``; each case rebuilt from the seed and its
index, so only indices cross the pipe) and prints one line per case: ``INDEX OUTCOME DETAIL``.

`run_watched` runs the cases in three clocks, so that a timeout measures a hang and never a
numba compile, whatever the machine's load:

1. **Compile.** One worker with no cases warms the kernel cache and exits. It compiles every
   kernel once (not once per worker, in parallel, on a busy machine); `COMPILE_TIMEOUT_S` is
   only a backstop against a warm-up that never ends, far above any compile seen here, and
   exceeding it fails the run (`WarmUpError`) instead of counting a case.
2. **Start.** ``jobs`` workers over slices of the cases load those kernels from the cache and
   warm up again; each has `START_TIMEOUT_S` to say `ready`.
3. **Cases.** From ``ready`` on, each case has ``case_timeout``: one silent past it is killed
   (``hang``); a worker that dies before its slice is done crashed on its next case
   (``crash``, a signal or an abort: a Python error would have been printed as an outcome).
   Either is restarted after that case, through the start clock again.

``boundscheck=True`` runs the workers under ``NUMBA_BOUNDSCHECK=1`` (an out-of-bounds access
in a kernel becomes an ``IndexError``), their kernels compiled into their own cache folder
(`BOUNDSCHECK_CACHE`; numba's cache does not key on the flag).
"""

from __future__ import annotations

import os
import select
import subprocess
import sys
import tempfile
import time
from collections import Counter
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path

Outcome = str
BOUNDSCHECK_CACHE = Path(tempfile.gettempdir()) / "caylus_env_numba_boundscheck"
#: The line a worker prints once warmed up: its case clock starts there.
READY = "ready"
COMPILE_TIMEOUT_S = 3600.0
"""Backstop of the compile step (a cold compile of every game's kernels took 1-6 minutes
here at load 2-14): reached only by a warm-up that never ends."""
START_TIMEOUT_S = 900.0
"""A started worker's imports, kernels loaded from the warm cache and its warm-up case."""


class WarmUpError(RuntimeError):
    """The compile step failed or never ended: no case was run."""


def ready() -> None:
    """Tell the runner this worker is warmed up (call it after the warm-up, before case 1)."""
    sys.stdout.write(READY + "\n")
    sys.stdout.flush()


def format_indices(indices: Sequence[int]) -> str:
    """``[0, 1, 2, 5]`` as ``"0-2,5"`` (the worker's last argument; ``""`` for none)."""
    runs: list[str] = []
    k = 0
    while k < len(indices):
        j = k
        while j + 1 < len(indices) and indices[j + 1] == indices[j] + 1:
            j += 1
        runs.append(str(indices[k]) if j == k else f"{indices[k]}-{indices[j]}")
        k = j + 1
    return ",".join(runs)


def parse_indices(text: str) -> list[int]:
    """The inverse of `format_indices`."""
    out: list[int] = []
    for part in filter(None, text.split(",")):
        low, _, high = part.partition("-")
        out.extend(range(int(low), int(high or low) + 1))
    return out


class _Runner:
    """One worker process over a list of cases, restarted past a crash or a hang."""

    def __init__(
        self,
        command: list[str],
        todo: list[int],
        env: Mapping[str, str],
        cwd: str | None,
        timeout: float,
    ) -> None:
        self.command, self.todo, self.env, self.cwd = command, list(todo), dict(env), cwd
        self.timeout = timeout
        self.proc: subprocess.Popen | None = None
        self.buffer = b""
        self.done = False
        self._spawn()

    def _spawn(self) -> None:
        if not self.todo:
            self.done = True
            return
        self.proc = subprocess.Popen(
            [*self.command, format_indices(self.todo)],
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
            stdin=subprocess.DEVNULL,
            env=self.env,
            cwd=self.cwd,
        )
        self.warm = False
        self.deadline = time.monotonic() + START_TIMEOUT_S

    def _lost(self, outcome: str, detail: str) -> list[tuple[int, str, str]]:
        lost = [(self.todo.pop(0), outcome, detail)]
        self._spawn()
        return lost

    def poll(self) -> list[tuple[int, str, str]]:
        if self.done or self.proc is None:
            return []
        results = []
        assert self.proc.stdout is not None
        fd = self.proc.stdout.fileno()
        if select.select([fd], [], [], 0)[0]:
            chunk = os.read(fd, 65536)
            if chunk:
                self.buffer += chunk
                *lines, self.buffer = self.buffer.split(b"\n")
                for line in lines:
                    text = line.decode(errors="replace")
                    if text == READY:
                        self.warm = True
                    else:
                        index, outcome, *rest = text.split(" ", 2)
                        results.append((int(index), outcome, rest[0] if rest else ""))
                        self.todo.remove(int(index))
                    self.deadline = time.monotonic() + self.timeout
                return results
            code = self.proc.wait()
            self.proc.stdout.close()
            if not self.todo:
                self.done = True
                return results
            where = "" if self.warm else ", before it was ready"
            return self._lost("crash", f"exit code {code}{where}")
        if time.monotonic() > self.deadline:
            self.proc.kill()
            self.proc.wait()
            self.proc.stdout.close()
            if self.warm:
                return self._lost("hang", f"no result in {self.timeout:.0f} s")
            return self._lost("hang", f"not ready in {START_TIMEOUT_S:.0f} s")
        return results


def _compile(command: list[str], env: Mapping[str, str], cwd: str | None) -> None:
    """Step 1: one worker with no cases fills the kernel cache (module docstring)."""
    try:
        done = subprocess.run(
            [*command, format_indices([])],
            env=dict(env),
            cwd=cwd,
            stdin=subprocess.DEVNULL,
            capture_output=True,
            timeout=COMPILE_TIMEOUT_S,
        )
    except subprocess.TimeoutExpired as e:
        raise WarmUpError(f"the warm-up worker did not finish in {COMPILE_TIMEOUT_S:.0f} s") from e
    said = done.stdout.decode(errors="replace").split()
    if done.returncode != 0 or said != [READY]:
        tail = done.stderr.decode(errors="replace").strip().splitlines()[-5:]
        raise WarmUpError(
            f"the warm-up worker exited {done.returncode} saying {said[:3]}: " + " | ".join(tail)
        )


def run_watched(
    script: Path,
    args: Sequence[str],
    cases: int | Sequence[int],
    jobs: int,
    describe: Callable[[int], str],
    *,
    boundscheck: bool = False,
    case_timeout: float = 20.0,
    quiet: Sequence[str] = ("clear", "accepted"),
    examples_each: int = 5,
    env: Mapping[str, str] | None = None,
    cwd: Path | None = None,
) -> tuple[Counter, dict[str, list[str]]]:
    """Run cases ``0..cases-1`` (or the indices ``cases``) of ``script`` in ``jobs`` watched
    workers.

    Args:
        env: the workers' environment (default: this process's).
        cwd: their working directory (default: this process's).

    Returns:
        The count of each outcome, and up to ``examples_each`` examples (``case N [what]
        detail``, with ``describe(N)`` saying what the case was) of each outcome not in
        ``quiet``.

    Raises:
        WarmUpError: the compile step failed (its worker's last lines) or never ended.
    """
    todo = list(range(cases)) if isinstance(cases, int) else list(cases)
    counts: Counter = Counter()
    examples: dict[str, list[str]] = {}
    environment = dict(os.environ if env is None else env)
    if boundscheck:
        environment["NUMBA_BOUNDSCHECK"] = "1"
        environment["NUMBA_CACHE_DIR"] = str(BOUNDSCHECK_CACHE)
    command = [sys.executable, str(script), "--worker", *args]
    where = None if cwd is None else str(cwd)
    _compile(command, environment, where)
    chunks = [todo[len(todo) * j // jobs : len(todo) * (j + 1) // jobs] for j in range(jobs)]
    running = [_Runner(command, c, environment, where, case_timeout) for c in chunks if c]
    while running:
        for r in list(running):
            for index, outcome, detail in r.poll():
                counts[outcome] += 1
                shown = examples.setdefault(outcome, [])
                if outcome not in quiet and len(shown) < examples_each:
                    shown.append(f"case {index} [{describe(index)}] {detail}")
            if r.done:
                running.remove(r)
        time.sleep(0.005)
    return counts, examples


def table(counts: Counter, outcomes: Sequence[str]) -> str:
    """The counts as a two-line table."""
    head = ["cases", *outcomes]
    row = [sum(counts.values()), *(counts[o] for o in outcomes)]
    return "  ".join(f"{h:>8}" for h in head) + "\n" + "  ".join(f"{v:>8}" for v in row)
