"""Run fuzz cases in watched worker processes (the runner of ``fuzz_datasets`` and
``fuzz_records``; ``fuzz_states`` has its own, for Caylus state dicts).

A fuzzer is a script whose ``--worker ARGS... START STOP`` mode runs cases ``START`` to
``STOP - 1`` (rebuilt from the seed and the index: only indices cross the pipe) and prints one
line per case: ``INDEX OUTCOME DETAIL``. `run_watched` starts ``jobs`` such workers over slices
of the cases and watches them: a worker that dies before its slice is done has crashed on its
next case (``crash``, a signal or an abort: a Python error would have been printed as an
outcome), one silent past the case timeout is killed (``hang``); either is restarted after
that case. ``boundscheck=True`` runs the workers under ``NUMBA_BOUNDSCHECK=1`` (an
out-of-bounds access in a kernel becomes an ``IndexError``), their kernels compiled into their
own cache folder (`BOUNDSCHECK_CACHE`; numba's cache does not key on the flag).
"""

from __future__ import annotations

import os
import select
import subprocess
import sys
import tempfile
import time
from collections import Counter
from collections.abc import Callable, Sequence
from pathlib import Path

Outcome = str
BOUNDSCHECK_CACHE = Path(tempfile.gettempdir()) / "caylus_env_numba_boundscheck"
START_TIMEOUT_S = 300.0
"""A worker's first result may wait for imports and kernel compilation."""


class _Runner:
    """One worker process over a slice of the cases, restarted past a crash or a hang."""

    def __init__(
        self, script: Path, args: list[str], start: int, stop: int, env: dict, timeout: float
    ) -> None:
        self.script, self.args, self.next, self.stop = script, args, start, stop
        self.env, self.timeout = env, timeout
        self.proc: subprocess.Popen | None = None
        self.buffer = b""
        self.done = False
        self._spawn()

    def _spawn(self) -> None:
        if self.next >= self.stop:
            self.done = True
            return
        command = [sys.executable, str(self.script), "--worker", *self.args]
        self.proc = subprocess.Popen(
            [*command, str(self.next), str(self.stop)],
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
            stdin=subprocess.DEVNULL,
            env=self.env,
        )
        self.deadline = time.monotonic() + START_TIMEOUT_S

    def poll(self) -> list[tuple[int, str, str]]:
        if self.done or self.proc is None:
            return []
        results = []
        fd = self.proc.stdout.fileno()
        ready, _, _ = select.select([fd], [], [], 0)
        if ready:
            chunk = os.read(fd, 65536)
            if chunk:
                self.buffer += chunk
                *lines, self.buffer = self.buffer.split(b"\n")
                for line in lines:
                    index, outcome, *rest = line.decode(errors="replace").split(" ", 2)
                    results.append((int(index), outcome, rest[0] if rest else ""))
                    self.next = int(index) + 1
                    self.deadline = time.monotonic() + self.timeout
                return results
            code = self.proc.wait()
            if self.next < self.stop:  # died before finishing its slice: a crash
                results.append((self.next, "crash", f"exit code {code}"))
                self.next += 1
            self._spawn()
            return results
        if time.monotonic() > self.deadline:
            self.proc.kill()
            self.proc.wait()
            results.append((self.next, "hang", f"no result in {self.timeout:.0f} s"))
            self.next += 1
            self._spawn()
        return results


def run_watched(
    script: Path,
    args: Sequence[str],
    cases: int,
    jobs: int,
    describe: Callable[[int], str],
    *,
    boundscheck: bool = False,
    case_timeout: float = 20.0,
    quiet: Sequence[str] = ("clear", "accepted"),
) -> tuple[Counter, dict[str, list[str]]]:
    """Run cases ``0..cases-1`` of ``script`` in ``jobs`` watched workers.

    Returns:
        The count of each outcome, and up to 5 examples (``case N [what] detail``, with
        ``describe(N)`` saying what the case was) of each outcome not in ``quiet``.
    """
    counts: Counter = Counter()
    examples: dict[str, list[str]] = {}
    env = dict(os.environ)
    if boundscheck:
        env["NUMBA_BOUNDSCHECK"] = "1"
        env["NUMBA_CACHE_DIR"] = str(BOUNDSCHECK_CACHE)
    chunks = [(cases * j // jobs, cases * (j + 1) // jobs) for j in range(jobs)]
    running = [_Runner(script, list(args), a, b, env, case_timeout) for a, b in chunks if b > a]
    while running:
        for r in list(running):
            for index, outcome, detail in r.poll():
                counts[outcome] += 1
                shown = examples.setdefault(outcome, [])
                if outcome not in quiet and len(shown) < 5:
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
