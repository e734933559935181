"""Caylus's game loop: the core's (``caylus_env.core.loop``), compiled with this game's rule
hooks (`caylus_env.caylus.engine.hooks`); its kernels are bound here by the names of
``caylus_env.core.loop.LOOP_EXPORTS``. Outside the engine, use
``caylus_env.caylus.engine.kernels``."""

from __future__ import annotations

from caylus_env.caylus.engine import hooks
from caylus_env.caylus.engine import layout as L
from caylus_env.caylus.engine.actions import NUM_ACTIONS
from caylus_env.caylus.engine.decisions import STACK_KERNELS
from caylus_env.core.loop import ILLEGAL, LOOP_EXPORTS, export, loop_kernels

LOOP = loop_kernels("caylus", "caylus", hooks, L, STACK_KERNELS, NUM_ACTIONS)
__all__ = ["ILLEGAL", "LOOP", *export(LOOP, LOOP_EXPORTS, globals())]
