"""The public kernel surface of the Caylus 1303 engine: everything code built on it may call.

Bots, search, batched environments and datasets use these compiled functions on the flat
state (``layout.STATE_SIZE`` int16 values) and nothing private of the rules. All are
``@njit(cache=True)``.

Game flow (the game contract's kernels, ``caylus_env.core.contract``, compiled from the core's
loop with this game's rule hooks, ``engine/loop.py``):
- ``setup(s, options, seed)``: write a fresh game (``GameConfig.kernel_options()``) into ``s``;
  ``new_state(options, seed)``: a set-up game at its first decision;
- ``legal_actions(s, out)`` -> n, ``legal_mask(s, mask)`` -> n;
- ``step(s, action, out)`` -> n or ``ILLEGAL`` (checked; a rejected action changes nothing);
- ``apply(s, action)``: **no legality check**; call ``advance`` after it;
- ``advance(s, out)`` -> n: run every automatic step up to the next real decision;
- ``next_decision(s, out)`` -> n and ``answer(s, action)``: ``advance`` in two: the automatic
  steps up to the next decision, forced or not, and the answer it gives a forced one;
- ``current_player(s)``, ``is_terminal(s)``, ``is_truncated(s)`` (always False: 9 rounds),
  ``scores(s, out)`` (prestige + 2 per gold, rules 4.6), ``tie_breaks(s, out)`` (zeros: ties
  are shared, D13), ``returns(s, ret)``, ``clock(s)`` (the round);
- ``random_playout(s, out, max_decisions)``, ``seed_playouts(seed)``,
  ``play_random_games(options, num_games, seed)``: compiled random games (the core's);
- ``check_invariants(s)``, ``accepted_actions(s, out)``;
- ``determinize(s, seat, seed)`` (the game contract's): with ``hide_opponent_pp`` every
  opponent's prestige becomes ``seat``'s own; otherwise nothing is hidden and ``s`` stays.

State accessors: ``num_players``, ``phase``, ``hand``, ``resource``, ``prestige``,
``holder``, ``residences``, ``final_score``; the pending decision: ``decision_kind``,
``decision_player``, ``decision_arg``, ``depth``.
"""

from __future__ import annotations

from caylus_env.caylus_1303.engine.decisions import STACK_KERNELS
from caylus_env.caylus_1303.engine.invariants import check_invariants
from caylus_env.caylus_1303.engine.loop import ILLEGAL, LOOP
from caylus_env.caylus_1303.engine.state import (
    final_score,
    hand,
    holder,
    prestige,
    residences,
    resource,
)
from caylus_env.core.loop import LOOP_EXPORTS, STACK_READERS, export

__all__ = [
    *export(LOOP, LOOP_EXPORTS, globals()),
    *export(STACK_KERNELS, STACK_READERS, globals()),
    "ILLEGAL",
    "check_invariants",
    "final_score",
    "hand",
    "holder",
    "prestige",
    "residences",
    "resource",
]
