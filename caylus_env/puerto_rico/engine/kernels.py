"""The public kernel surface of the Puerto Rico engine: everything code built on it may call.

Bots, search, batched environments and datasets use these compiled functions on the flat
state (``layout.STATE_SIZE`` int16 values) and nothing private of the rules. All are
``@njit(cache=True)``.

Game flow (the game contract's kernels, ``caylus_env.core.contract``, compiled from the
core's loop with this game's rule hooks (``engine/loop.py``), plus Puerto Rico's own):
- ``setup(s, options, seed)``: write a fresh game (``GameConfig.kernel_options()``) into ``s``;
  ``clock(s)``: the round; ``tie_breaks(s, out)``: doubloons plus barrels (rules 5.3);
- ``new_state(options, seed)``: a set-up game at its first decision (options as
  ``GameConfig.kernel_options()``);
- ``legal_actions(s, out)`` -> n: the sorted legal ids of the pending decision;
- ``legal_mask(s, mask)`` -> n: the same as an int8 mask;
- ``step(s, action, out)`` -> n or ``ILLEGAL``: checked; a rejected action changes nothing;
- ``apply(s, action)``: **no legality check**; call ``advance`` after it;
- ``advance(s, out)`` -> n: run every automatic step up to the next real decision;
- ``next_decision(s, out)`` -> n and ``answer(s, action)``: ``advance`` in two: the automatic
  steps up to the next decision, forced or not, and the answer it gives a forced one;
- ``current_player(s)``, ``is_terminal(s)``, ``is_truncated(s)``, ``scores(s, out)``,
  ``returns(s, ret)`` (rank returns);
- ``random_playout(s, out, max_decisions)``, ``seed_playouts(seed)``,
  ``play_random_games(options, num_games, seed)``: compiled random games (the core's);
- ``resample_hidden(s, seed)``: a fresh order of the face-down plantations (the only
  hidden information), to determinize a position for search;
- ``determinize(s, seat, seed)`` (the game contract's): the face-down plantations put in a
  canonical order, then ``resample_hidden``: a draw that depends only on what the players
  see and on ``seed``.

State accessors: ``num_players``, ``phase``, ``money``, ``vp_chips``, ``goods``,
``total_goods``, ``building_workers``, ``owns``, ``occupied``, ``island_tiles``,
``city_spaces_used``, ``empty_circles``, ``final_score``, ``tie_break``; the pending
decision: ``decision_kind``, ``decision_player``, ``decision_arg``; checks:
``check_invariants``, ``accepted_actions``.
"""

from __future__ import annotations

from caylus_env.core.loop import LOOP_EXPORTS, STACK_READERS, export
from caylus_env.puerto_rico.engine.decisions import STACK_KERNELS
from caylus_env.puerto_rico.engine.hooks import resample_hidden, setup_game
from caylus_env.puerto_rico.engine.invariants import check_invariants
from caylus_env.puerto_rico.engine.loop import ILLEGAL, LOOP
from caylus_env.puerto_rico.engine.state import (
    building_workers,
    city_spaces_used,
    empty_circles,
    final_score,
    goods,
    island_tiles,
    money,
    occupied,
    owns,
    tie_break,
    total_goods,
    vp_chips,
)

__all__ = [
    *export(LOOP, LOOP_EXPORTS, globals()),
    *export(STACK_KERNELS, STACK_READERS, globals()),
    "ILLEGAL",
    "building_workers",
    "check_invariants",
    "city_spaces_used",
    "empty_circles",
    "final_score",
    "goods",
    "island_tiles",
    "money",
    "occupied",
    "owns",
    "resample_hidden",
    "setup_game",
    "tie_break",
    "total_goods",
    "vp_chips",
]
