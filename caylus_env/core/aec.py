"""The AEC environment's step in one compiled call per decision, for every game.

PettingZoo's loop asks, for every decision, ``step(action)`` and then the next agent's
``observe`` (through ``last()``): the engine's checked step and its forced moves, the next
mover, that mover's observation vector and legal-action mask. `step_observe` does all of it in
one numba call over the game's kernels and observer, so the environment crosses from Python
into compiled code once a decision (``caylus_env.core.env.GameEnv.step`` hands the two
arrays it wrote to the ``observe`` that follows). It is written once and compiled per game by
`caylus_env.core.specialize`, with ``K`` bound to the game's ``engine.kernels`` and ``encode``
to its observer's ``encode_into`` (both declared in `caylus_env.core.bindings`), and gives
exactly what the separate calls give.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from types import SimpleNamespace
from typing import Any

import numpy as np
from numba import from_dtype, types

from caylus_env.core import _cache  # noqa: F401  (the kernel cache, before any kernel)
from caylus_env.core.bindings import K, encode, game_bindings
from caylus_env.core.registry import game_spec
from caylus_env.core.specialize import specialize


def step_observe(s, action, legal, obs, mask):
    """Apply ``action`` if it is legal (``K.step``: the forced moves too), then write the next
    mover's observation into ``obs`` and his ``int8`` legal mask into ``mask``.

    Returns:
        ``(player, n)``: the next mover (-1 once nothing is asked; ``obs`` and ``mask`` are
        then left as they were) and his number of legal actions, their ids in ``legal``; ``n``
        is ``ILLEGAL`` (negative) for an illegal action, and nothing changed.
    """
    n = K.step(s, action, legal)
    if n < 0:
        return -1, n
    player = K.current_player(s)
    if player >= 0:
        encode(s, player, obs)
        mask[:] = 0
        for i in range(n):
            mask[legal[i]] = 1
    return player, n


@functools.cache
def aec_kernels(game: str) -> SimpleNamespace:
    """`step_observe` compiled for ``game`` (its kernels and observer inlined), once per
    process (numba's disk cache keeps it between runs)."""
    spec = game_spec(game)
    return specialize((step_observe,), f"aec__{spec.name}", game_bindings(spec))


@functools.cache
def aec_step(game: str) -> Callable[..., tuple[int, int]]:
    """``game``'s compiled `step_observe` for the one signature the environment calls it with,
    as that compilation's own entry point: ``(state, action, legal, obs, mask)`` with the flat
    state (``engine.layout.STATE_DTYPE``), an int action, the ``int64`` legal buffer, a
    ``float32`` observation and an ``int8`` mask, all 1-D and C-contiguous.

    Calling the entry point skips numba's per-call dispatch (the type of every argument looked
    up, then the overload matched), a third of what the call costs at every decision. It does
    not check the arrays' types, so it is only for callers whose arrays are made with exactly
    these dtypes: ``GameEnv.step`` passes its ``Game``'s own state and legal buffer and arrays
    it has just allocated. Compiled (or loaded from numba's disk cache) once per process.
    """
    dispatcher = aec_kernels(game).step_observe
    layout = game_spec(game).engine().layout

    def vector(dtype: Any) -> types.Array:
        return types.Array(from_dtype(np.dtype(dtype)), 1, "C")

    signature = (
        vector(layout.STATE_DTYPE),
        types.int64,
        vector(np.int64),
        vector(np.float32),
        vector(np.int8),
    )
    return dispatcher.compile(signature)


__all__ = ["aec_kernels", "aec_step", "step_observe"]
