"""Puerto Rico's game loop: the core's (``caylus_env.core.loop``), compiled with this game's rule
hooks (`caylus_env.puerto_rico.engine.hooks`); its kernels are bound here by the names of
``caylus_env.core.loop.LOOP_EXPORTS``. Outside the engine, use
``caylus_env.puerto_rico.engine.kernels``."""

from __future__ import annotations

from caylus_env.core.loop import ILLEGAL, LOOP_EXPORTS, export, loop_kernels
from caylus_env.puerto_rico.engine import hooks
from caylus_env.puerto_rico.engine import layout as L
from caylus_env.puerto_rico.engine.actions import NUM_ACTIONS
from caylus_env.puerto_rico.engine.decisions import STACK_KERNELS

LOOP = loop_kernels("puerto_rico", "puerto rico", hooks, L, STACK_KERNELS, NUM_ACTIONS)
__all__ = ["ILLEGAL", "LOOP", *export(LOOP, LOOP_EXPORTS, globals())]
