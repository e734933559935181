"""Small agents for checking the harness itself: a weak baseline and deliberately faulty bots.

Load this module as a plugin (``--plugin agents.tournament.testing`` on the command line,
``plugins=("agents.tournament.testing",)`` in Python, or call `register_agents`) to register, in
the driver and in every worker:

- ``test-pass``: plays an action named ``pass`` or ``decline`` whenever one is legal (the
  engine's ``action_to_string``), else the first legal action; a deterministic agent that is
  clearly weaker than ``random`` in Caylus, for SPRT and rating checks;
- ``test-first``: always the first legal action (deterministic);
- ``test-crash``: raises on its first move;
- ``test-illegal``: answers with an action that is not legal;
- ``test-slow:SECONDS``: sleeps SECONDS once per game (on its first move), then plays like
  ``random``; slow enough to exceed a small move time limit, or to make a run last long enough
  to be killed in a test;
- ``test-flaky``: raises while the environment variable `FLAKY_ENV` is set, else plays like
  ``test-first``: a fault that a later run no longer has (for ``--replay-forfeits``);
- ``test-spin:SECONDS``: on its first move of a game, spins SECONDS of wall time in a compiled
  (``@njit``) busy loop that holds the GIL and reads the clock itself, so no signal handler,
  and so no move alarm, runs until it returns; then plays like ``test-first``. What the
  driver's watchdog is for.

`spin_chunk` is a chunk task of the same kind, for checking the local pool itself.

They live in the package, not in a test file, because spawned pool workers and Ray workers must
be able to import them by module name. Importing the module registers nothing (so collecting it,
for doctests say, changes no registry); `register_agents` does, idempotently.

Every one of them reads the game only through the shared handle (``legal_actions()``,
``action_to_string``), so `register_agents` registers each for every game of
``caylus_env.core.registry`` (``agents.registry.register(..., game=name)``), and the harness is
checked the same way on each game.
"""

from __future__ import annotations

import ctypes
import math
import os
import random
import time
from collections.abc import Callable
from typing import Any

import numba

from agents.registry import register
from caylus_env.core.fileio import atomic_write_text
from caylus_env.core.game import Game
from caylus_env.core.registry import GAME_NAMES

FLAKY_ENV = "CAYLUS_TEST_FLAKY"
PASS_NAMES = ("pass", "decline")
"""The action names `PassAgent` prefers, in this order (every game names its actions)."""


class PassAgent:
    """Passes or declines whenever it may (an action named in `PASS_NAMES`); otherwise the
    first legal action."""

    def __init__(self, name: str = "test-pass") -> None:
        self.name = name

    def reset(self, seed: int | None = None) -> None:
        """Stateless: nothing to reset."""

    def act(self, game: Game) -> int:
        legal = game.legal_actions()
        names = {game.action_to_string(a): a for a in legal}
        for name in PASS_NAMES:
            if name in names:
                return names[name]
        return legal[0]


class FirstAgent:
    """Always the first legal action."""

    def __init__(self, name: str = "test-first") -> None:
        self.name = name

    def reset(self, seed: int | None = None) -> None:
        """Stateless: nothing to reset."""

    def act(self, game: Game) -> int:
        return game.legal_actions()[0]


class CrashAgent:
    """Raises on its first move."""

    def __init__(self, name: str = "test-crash") -> None:
        self.name = name

    def reset(self, seed: int | None = None) -> None:
        """Stateless: nothing to reset."""

    def act(self, game: Game) -> int:
        raise RuntimeError("test-crash agent crashed on purpose")


class FlakyAgent(FirstAgent):
    """Raises while `FLAKY_ENV` is set in its process's environment, else the first legal
    action."""

    def act(self, game: Game) -> int:
        if os.environ.get(FLAKY_ENV):
            raise RuntimeError(f"test-flaky agent fails while {FLAKY_ENV} is set")
        return super().act(game)


class IllegalAgent:
    """Answers with an action id that is not legal at the current decision."""

    def __init__(self, name: str = "test-illegal") -> None:
        self.name = name

    def reset(self, seed: int | None = None) -> None:
        """Stateless: nothing to reset."""

    def act(self, game: Game) -> int:
        legal = set(game.legal_actions())
        return next(a for a in range(10_000) if a not in legal)


class SlowAgent:
    """Sleeps once per game, then plays uniformly at random with its seeded generator."""

    def __init__(self, name: str, seconds: float) -> None:
        self.name = name
        self.seconds = seconds
        self._rng = random.Random(0)
        self._slept = False

    def reset(self, seed: int | None = None) -> None:
        self._rng = random.Random(seed)
        self._slept = False

    def act(self, game: Game) -> int:
        if not self._slept:
            self._slept = True
            time.sleep(self.seconds)
        legal = game.legal_actions()
        return legal[self._rng.randrange(len(legal))]


@numba.njit(cache=True)
def _spin(iterations: int) -> int:
    """A busy loop in compiled code: an xorshift that the compiler cannot shorten, returned so
    that it is not removed. No Python bytecode runs meanwhile, so signals wait until it ends."""
    x = 88172645463325252
    for _ in range(iterations):
        x ^= x << 13
        x ^= x >> 7
        x ^= x << 17
    return x


_C_TIME = ctypes.CDLL(None).time
"""The C library's ``time(NULL)``: whole seconds of wall time, read from compiled code."""
_C_TIME.restype = ctypes.c_int64
_C_TIME.argtypes = [ctypes.c_void_p]


@numba.njit(cache=False)  # calls a C function through its address: not cacheable
def _spin_until(deadline: int) -> int:
    """`_spin` until the wall clock reaches ``deadline`` (whole seconds since the epoch),
    all in compiled code: no Python bytecode runs, so no signal handler either, and the time
    is read from the clock, so a loaded machine cannot end it early."""
    x = 0
    while _C_TIME(0) < deadline:
        x ^= _spin(1_000_000)
    return x


class SpinAgent(FirstAgent):
    """Spins ``seconds`` of wall time in `_spin_until` on its first move of each game (whole
    seconds, rounded up), then the first legal action. ``warm_up`` compiles the loop outside
    any move clock."""

    def __init__(self, name: str, seconds: float) -> None:
        super().__init__(name)
        self.seconds = seconds
        self._spun = False

    def reset(self, seed: int | None = None) -> None:
        self._spun = False

    def warm_up(self) -> None:
        _spin_until(0)  # compile (the clock is past 0 at once)

    def act(self, game: Game) -> int:
        if not self._spun:
            self._spun = True
            _spin_until(int(time.time() + math.ceil(self.seconds)) + 1)
        return super().act(game)


def spin_chunk(
    jobs: list[dict[str, Any]], settings: dict[str, Any], token: int
) -> list[tuple[bytes, dict[str, Any]]]:
    """A chunk task (``backends.ChunkTask``) that plays no game: for each job it writes its
    worker's pid to the file ``job["started"]`` names, then spins ``job["seconds"]`` in
    `_spin_until`. For checking that a local pool can be stopped whichever of its workers is
    killed while the others are stuck in compiled code."""
    out = []
    for job in jobs:
        atomic_write_text(job["started"], str(os.getpid()))  # the test reads a whole pid
        _spin_until(int(time.time() + math.ceil(job["seconds"])) + 1)
        out.append((b"", {"game_id": job["game_id"], "wall_time_s": float(job["seconds"])}))
    return out


def _seconds(spec: str, arg: str | None) -> float:
    try:
        seconds = float(arg or "")
    except ValueError:
        raise ValueError(
            f"{spec.partition(':')[0]} needs a number of seconds, e.g. "
            f"'{spec.partition(':')[0]}:0.5', got {spec!r}"
        ) from None
    if not 0 <= seconds <= 3600:
        raise ValueError(f"{spec!r}: the seconds must be from 0 to 3600")
    return seconds


def _slow(spec: str, arg: str | None) -> SlowAgent:
    return SlowAgent(spec, _seconds(spec, arg))


def register_agents() -> None:
    """Register the ``test-*`` agents for every game of the registry (called by the harness
    when this plugin is loaded; registering again replaces them with the same)."""
    for game in GAME_NAMES:
        _register(game)


def _register(game: str) -> None:
    """The ``test-*`` agents of ``game``."""
    agents: list[tuple[str, Callable[[str, str | None], Any], bool, str]] = [
        (
            "test-pass",
            lambda spec, arg: PassAgent(spec),
            False,
            "passes or declines whenever it may (weaker than random); under 1 ms a move",
        ),
        (
            "test-first",
            lambda spec, arg: FirstAgent(spec),
            False,
            "always the first legal action; under 1 ms a move",
        ),
        (
            "test-crash",
            lambda spec, arg: CrashAgent(spec),
            False,
            "raises on its first move (forfeits); under 1 ms a move",
        ),
        (
            "test-flaky",
            lambda spec, arg: FlakyAgent(spec),
            False,
            f"raises while {FLAKY_ENV} is set, else the first legal action; under 1 ms a move",
        ),
        (
            "test-illegal",
            lambda spec, arg: IllegalAgent(spec),
            False,
            "answers an illegal action (forfeits); under 1 ms a move",
        ),
        (
            "test-slow",
            _slow,
            True,
            "sleeps ARG s on its first move, then plays randomly; under 1 ms a move after that",
        ),
        (
            "test-spin",
            lambda spec, arg: SpinAgent(spec, _seconds(spec, arg)),
            True,
            "spins ARG s in compiled code (no alarm can interrupt it) on its first move, then "
            "the first legal action; under 1 ms a move after that",
        ),
    ]
    for head, factory, needs_arg, description in agents:
        register(head, factory, needs_arg, game=game, description=f"harness check: {description}")


__all__ = [
    "FLAKY_ENV",
    "PASS_NAMES",
    "CrashAgent",
    "FirstAgent",
    "FlakyAgent",
    "IllegalAgent",
    "PassAgent",
    "SlowAgent",
    "SpinAgent",
    "register_agents",
    "spin_chunk",
]
