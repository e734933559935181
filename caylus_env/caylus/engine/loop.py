"""Caylus's game loop: the core's (``caylus_env.core.loop``), compiled with this game's rule
hooks (`caylus_env.caylus.engine.hooks`). Outside the engine, use
``caylus_env.caylus.engine.kernels``."""

from __future__ import annotations

from caylus_env.caylus.engine import hooks
from caylus_env.caylus.engine import layout as L
from caylus_env.caylus.engine.actions import NUM_ACTIONS
from caylus_env.caylus.engine.decisions import STACK_KERNELS
from caylus_env.core.loop import ILLEGAL, loop_kernels

LOOP = loop_kernels("caylus", "caylus", hooks, L, STACK_KERNELS, NUM_ACTIONS)
accepted_actions = LOOP.accepted_actions
advance = LOOP.advance
answer = LOOP.answer
apply = LOOP.apply
clock = LOOP.clock
current_player = LOOP.current_player
determinize = LOOP.determinize
is_terminal = LOOP.is_terminal
is_truncated = LOOP.is_truncated
legal_actions = LOOP.legal_actions
legal_mask = LOOP.legal_mask
new_state = LOOP.new_state
next_decision = LOOP.next_decision
play_random_games = LOOP.play_random_games
random_playout = LOOP.random_playout
returns = LOOP.returns
scores = LOOP.scores
seed_playouts = LOOP.seed_playouts
setup = LOOP.setup
standing = LOOP.standing
step = LOOP.step
tie_breaks = LOOP.tie_breaks

__all__ = ["ILLEGAL", "LOOP"]
