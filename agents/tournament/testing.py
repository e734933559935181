"""Small agents for checking the harness itself: a weak baseline and deliberately faulty bots.

Load this module as a plugin (``--plugin agents.tournament.testing`` on the command line,
``plugins=("agents.tournament.testing",)`` in Python, or call `register_agents`) to register, in
the driver and in every worker:

- ``test-pass``: passes (or declines) whenever it may, else takes the first legal action; a
  deterministic agent that is clearly weaker than ``random``, for SPRT and rating checks;
- ``test-first``: always the first legal action (deterministic);
- ``test-crash``: raises on its first move;
- ``test-illegal``: answers with an action that is not legal;
- ``test-slow:SECONDS``: sleeps SECONDS once per game (on its first move), then plays like
  ``random``; slow enough to exceed a small move time limit, or to make a run last long enough
  to be killed in a test;
- ``test-flaky``: raises while the environment variable `FLAKY_ENV` is set, else plays like
  ``test-first``: a fault that a later run no longer has (for ``--replay-forfeits``).

They live in the package, not in a test file, because spawned pool workers and Ray workers must
be able to import them by module name. Importing the module registers nothing (so collecting it,
for doctests say, changes no registry); `register_agents` does, idempotently.
"""

from __future__ import annotations

import os
import random
import time

from agents.registry import register
from caylus_env.engine import Game, string_to_action

FLAKY_ENV = "CAYLUS_TEST_FLAKY"
_PASS = string_to_action("pass")
_DECLINE = string_to_action("decline")


class PassAgent:
    """Passes or declines whenever it may; otherwise the first legal action."""

    def __init__(self, name: str = "test-pass") -> None:
        self.name = name

    def reset(self, seed: int | None = None) -> None:
        """Stateless: nothing to reset."""

    def act(self, game: Game) -> int:
        legal = game.legal_actions()
        for action in (_PASS, _DECLINE):
            if action in legal:
                return action
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


def _slow(spec: str, arg: str | None) -> SlowAgent:
    try:
        seconds = float(arg or "")
    except ValueError:
        raise ValueError(
            f"test-slow needs a number of seconds, e.g. 'test-slow:0.5', got {spec!r}"
        ) from None
    if not seconds >= 0:
        raise ValueError(f"test-slow needs a non-negative number of seconds, got {spec!r}")
    return SlowAgent(spec, seconds)


def register_agents() -> None:
    """Register the ``test-*`` agents (called by the harness when this plugin is loaded)."""
    register(
        "test-pass",
        lambda spec, arg: PassAgent(spec),
        description="harness check: passes or declines whenever it may (weaker than random); "
        "under 1 ms a move",
    )
    register(
        "test-first",
        lambda spec, arg: FirstAgent(spec),
        description="harness check: always the first legal action; under 1 ms a move",
    )
    register(
        "test-crash",
        lambda spec, arg: CrashAgent(spec),
        description="harness check: raises on its first move (forfeits); under 1 ms a move",
    )
    register(
        "test-flaky",
        lambda spec, arg: FlakyAgent(spec),
        description=f"harness check: raises while {FLAKY_ENV} is set, else the first legal "
        "action; under 1 ms a move",
    )
    register(
        "test-illegal",
        lambda spec, arg: IllegalAgent(spec),
        description="harness check: answers an illegal action (forfeits); under 1 ms a move",
    )
    register(
        "test-slow",
        _slow,
        needs_arg=True,
        description="harness check: sleeps ARG s on its first move, then plays randomly; "
        "under 1 ms a move after that",
    )


__all__ = [
    "CrashAgent",
    "FirstAgent",
    "FlakyAgent",
    "IllegalAgent",
    "PassAgent",
    "SlowAgent",
    "register_agents",
]
