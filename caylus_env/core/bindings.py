"""What the generic kernel templates call of a game: the names `caylus_env.core.specialize`
binds per game.

A template (the batched environment's and the learner view's loops in
``caylus_env.core.vector``) is a plain function that reaches the game it steps through a few
global names: ``K.apply(s, a)``, ``encode(s, seat, out)``. The templates import those names
from here, so that a reader (and an editor or a call-graph tool) following ``K.apply`` lands
on a declaration that says what it is and where each game's version comes from. `specialize`
compiles a copy of the templates per game in which every name of `NAMES` is replaced by the
game's own (its ``bindings``), and refuses to compile a template that calls a name left
unbound: a declaration never reaches numba. Called from Python, a declaration raises
`UnboundError`.
"""

from __future__ import annotations

from typing import Any

#: The names a template may call of a game, each bound per game by `specialize`.
NAMES = ("K", "encode", "choose_scripted", "engine")


class UnboundError(RuntimeError):
    """A declaration of this module was called: only the game's own kernel, bound by
    `specialize`, can run."""


def _unbound(name: str) -> UnboundError:
    return UnboundError(
        f"caylus_env.core.bindings.{name} is a declaration: specialize() binds it to the "
        "game's own kernel in each compiled copy of a template"
    )


class K:
    """The game's compiled kernel surface, ``engine.kernels`` (`GameSpec.engine`): the
    kernels of ``caylus_env.core.contract.KERNELS`` that the templates call, on the flat
    state ``s`` (the contract's module docstring says what each one does)."""

    @staticmethod
    def setup(s: Any, options: Any, seed: Any) -> None:
        """Write a fresh game with kernel ``options`` (``num_players`` first) and setup
        ``seed`` into the zeroed ``s``; ``advance`` then reaches its first decision."""
        raise _unbound("K.setup")

    @staticmethod
    def advance(s: Any, out: Any) -> int:
        """Run every step that needs no choice; write the sorted legal ids of the next
        decision into ``out`` and return their count (``0`` once nothing is asked)."""
        raise _unbound("K.advance")

    @staticmethod
    def apply(s: Any, action: Any) -> None:
        """Play the legal ``action`` of the decision ``advance`` reached (unchecked)."""
        raise _unbound("K.apply")

    @staticmethod
    def current_player(s: Any) -> int:
        """The seat to act, ``-1`` when nothing is asked."""
        raise _unbound("K.current_player")

    @staticmethod
    def is_terminal(s: Any) -> bool:
        """Whether the game ended by its rules (not cut off by a decision cap)."""
        raise _unbound("K.is_terminal")

    @staticmethod
    def scores(s: Any, out: Any) -> int:
        """Each seat's score as if the game ended now into ``out``; returns the player
        count."""
        raise _unbound("K.scores")

    @staticmethod
    def tie_breaks(s: Any, out: Any) -> int:
        """The rules' tie-break of each seat into ``out`` (0 where ties stand)."""
        raise _unbound("K.tie_breaks")

    @staticmethod
    def returns(s: Any, ret: Any) -> None:
        """The zero-sum rank rewards of a finished game into ``ret`` (+1 first .. -1 last,
        ties averaged)."""
        raise _unbound("K.returns")


def encode(s: Any, seat: Any, out: Any) -> None:
    """The game's observer, ``observation.encode_into``: the observation of ``seat`` (``-1``:
    the global view, absolute seats) in state ``s`` into the float32 row ``out``."""
    raise _unbound("encode")


def choose_scripted(strategy: Any, s: Any, legal: Any, n: Any, noise: Any) -> int:
    """The game's scripted bots as one kernel, ``bots.choose_scripted``: the index into
    ``legal[:n]`` that scripted bot ``strategy`` (a row of its ``bots.BOTS``'s ``scripted``)
    plays in ``s``, ``noise[:n]`` holding uniform numbers for its ties."""
    raise _unbound("choose_scripted")


class engine:  # lower case: it stands for the game's engine package, a module
    """The game's engine package (`GameSpec.engine`): the sizes a template allocates its
    buffers with."""

    #: The number of action ids (``engine.NUM_ACTIONS``).
    NUM_ACTIONS: int

    class layout:  # the engine's ``layout`` module
        """The game's state layout, ``engine.layout``."""

        #: The length of the flat state (``layout.STATE_SIZE``).
        STATE_SIZE: int
        #: The dtype of its entries (``layout.STATE_DTYPE``).
        STATE_DTYPE: Any


__all__ = ["NAMES", "K", "UnboundError", "choose_scripted", "encode", "engine"]
