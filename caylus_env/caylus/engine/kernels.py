"""The public kernel surface of the engine: everything code built on it may call.

Bots, search, the batched environment, datasets and the observation encoder use
these compiled functions on the flat state (``layout.STATE_SIZE`` int16 values),
and nothing private of the rules: they never compute stack offsets or call a
phase's helpers. All are ``@njit(cache=True)`` and can be called from Python or
from other compiled code.

Game flow (the game contract's kernels, ``caylus_env.core.contract``, compiled from the
core's loop with this game's rule hooks (``engine/loop.py``), plus Caylus's own):
- ``setup(s, options, seed)``: write a fresh game (``GameConfig.kernel_options()``) into ``s``;
- ``new_state(options, seed)``: a set-up game at its first decision (options as
  ``GameConfig.kernel_options()``);
- ``legal_actions(s, out)`` -> n: the sorted legal ids of the pending decision;
- ``legal_mask(s, mask)`` -> n: the same as an int8 mask;
- ``step(s, action, out)`` -> n or ``ILLEGAL``: checked; a rejected action changes nothing;
- ``apply(s, action)``: **no legality check** (applying an illegal id corrupts the
  state); call ``advance`` after it. For search code that took the id from
  ``legal_actions`` itself;
- ``advance(s, out)`` -> n: run every automatic step up to the next real decision;
- ``next_decision(s, out)`` -> n and ``answer(s, action)``: ``advance`` in two: the automatic
  steps up to the next decision, forced or not, and the answer it gives a forced one;
- ``current_player(s)``, ``is_terminal(s)``, ``is_truncated(s)`` (never), ``returns(s, ret)``
  (rank returns), ``scores(s, out)`` (prestige), ``tie_breaks(s, out)`` (none: 0),
  ``clock(s)`` (the turn);
- ``random_playout(s, out, max_decisions)``, ``seed_playouts(seed)``,
  ``play_random_games(options, num_games, seed)``: compiled random games (the core's);
- ``check_invariants(s)`` (0, or the code of ``INVARIANT_MESSAGES``) and
  ``accepted_actions(s, out)`` (the ids ``step`` accepts): the checks of the tests;
- ``determinize(s, seat, seed)``: what ``seat`` cannot see, redrawn for a search; Caylus
  hides nothing after setup, so it leaves ``s`` as it is.

State accessors (``caylus_env.caylus.engine.state``): ``num_players``, ``phase``, ``turn``,
``money``, ``cube``, ``prestige``, ``workers_out``, ``favor_column``, ``houses``,
``provost``, ``bailiff``, ``road_tile``, ``road_owner``, ``road_worker``, ``road_lawyer``,
``stock``, ``special_worker``, ``stables_worker``, ``inn_entering``, ``inn_resident``,
``castle_worker``, ``simplified_favors``, ``lawyer_prestige``,
``section_houses``, ``section_fill``, ``num_scored``, ``castle_target``, ...

The pending decision (``caylus_env.caylus.engine.decisions``): ``decision_kind``,
``decision_player``, ``decision_arg``.
"""

from __future__ import annotations

from caylus_env.caylus.engine.decisions import STACK_KERNELS
from caylus_env.caylus.engine.invariants import check_invariants
from caylus_env.caylus.engine.loop import ILLEGAL, LOOP
from caylus_env.caylus.engine.setup import init_game
from caylus_env.caylus.engine.state import (
    all_cubes,
    bailiff,
    castle_target,
    castle_worker,
    cube,
    cursor,
    favor_column,
    has_house,
    has_passed,
    holds_batch,
    houses,
    inn_entering,
    inn_resident,
    is_game_over,
    is_scored,
    lawyer_prestige,
    lowest_empty_space,
    money,
    non_gold_cubes,
    num_passed,
    num_scored,
    owns_residence,
    player_field,
    prestige,
    provost,
    road_lawyer,
    road_owner,
    road_tile,
    road_worker,
    rows_used,
    section_fill,
    section_houses,
    simplified_favors,
    special_worker,
    stables_worker,
    stock,
    turn,
    workers_out,
)
from caylus_env.core.loop import LOOP_EXPORTS, STACK_READERS, export

__all__ = [
    *export(LOOP, LOOP_EXPORTS, globals()),
    *export(STACK_KERNELS, STACK_READERS, globals()),
    "ILLEGAL",
    "all_cubes",
    "bailiff",
    "castle_target",
    "castle_worker",
    "check_invariants",
    "cube",
    "cursor",
    "favor_column",
    "has_house",
    "has_passed",
    "holds_batch",
    "houses",
    "init_game",
    "inn_entering",
    "inn_resident",
    "is_game_over",
    "is_scored",
    "lawyer_prestige",
    "lowest_empty_space",
    "money",
    "non_gold_cubes",
    "num_passed",
    "num_scored",
    "owns_residence",
    "player_field",
    "prestige",
    "provost",
    "road_lawyer",
    "road_owner",
    "road_tile",
    "road_worker",
    "rows_used",
    "section_fill",
    "section_houses",
    "simplified_favors",
    "special_worker",
    "stables_worker",
    "stock",
    "turn",
    "workers_out",
]
