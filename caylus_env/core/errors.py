"""The two errors every game raises, one class each for all games.

A module of their own, below everything else of the core, so that the engines' state-dict
validators, the record reader and the tools can import them without the ``Game`` handle
(``caylus_env.core.game`` re-exports them).
"""

from __future__ import annotations


class IllegalActionError(ValueError):
    """An action that is not legal at the current decision; the game is unchanged."""


class InvalidStateError(ValueError):
    """A state (dict or array) from outside that the engine must not run: a wrong type, a value
    outside its domain, or fields that contradict each other or the rules. Nothing is built."""


__all__ = ["IllegalActionError", "InvalidStateError"]
