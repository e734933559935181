"""Caylus 1303's rule hooks for the core's game loop (``caylus_env.core.loop``; each hook's
contract is in ``caylus_env.core.hooks``): one line per decision kind to the ``legal_*`` /
``apply_*`` pair of the phase module that owns it, one per phase to its driver, the final
score (prestige plus 2 per gold, rules 4.6, D36), setup (rules 3.2) and, with hidden
prestige, what a search redraws (D37). Ties are shared (D13) and no procedure waits on the
stack: the core's stock hooks; the round (the clock) and the decisions taken are layout fields
the core's loop reads.

Every function is ``@njit(cache=True)``; the engine runs unchanged, slowly, under
``NUMBA_DISABLE_JIT=1``. Outside the engine, use ``caylus_env.caylus_1303.engine.kernels``.
"""

from __future__ import annotations

from numba import njit

from caylus_env.caylus_1303.engine import layout as L
from caylus_env.caylus_1303.engine.constants import NUM_DECISION_KINDS, DecisionKind, Phase
from caylus_env.caylus_1303.engine.phases.activation import (
    apply_bailiff,
    apply_bridge,
    drive_activation,
    legal_bailiff,
    legal_bridge,
)
from caylus_env.caylus_1303.engine.phases.delivery import (
    apply_deliver,
    drive_delivery,
    legal_deliver,
)
from caylus_env.caylus_1303.engine.phases.effects import (
    apply_board_character,
    apply_effect,
    apply_favor,
    apply_pay,
    legal_board_character,
    legal_effect,
    legal_favor,
    legal_pay,
)
from caylus_env.caylus_1303.engine.phases.planning import (
    apply_draft,
    apply_early_riser,
    apply_plan,
    drive_draft,
    drive_planning,
    legal_early_riser,
    legal_plan,
)
from caylus_env.caylus_1303.engine.phases.stewardship import (
    apply_monument,
    drive_stewardship,
    legal_monument,
)
from caylus_env.caylus_1303.engine.setup import init_game
from caylus_env.caylus_1303.engine.state import final_score, num_players, pf
from caylus_env.core.hooks import REQUIRED

GAME_OVER = int(Phase.GAME_OVER)
PROCEDURE_BASE = NUM_DECISION_KINDS  # no procedures: every stack entry is a decision

#: The hook ``score``: prestige plus 2 per gold (rules 4.6, D36).
score = final_score


@njit(cache=True)
def legal(s, kind, p, arg, b, out):
    """The legal ids of the pending decision ``kind`` into ``out``; returns how many."""
    if kind == DecisionKind.PLAN:
        return legal_plan(s, p, out)
    if kind == DecisionKind.EFFECT:
        return legal_effect(s, p, arg, out)
    if kind == DecisionKind.PAY:
        return legal_pay(s, p, out)
    if kind == DecisionKind.DELIVER:
        return legal_deliver(s, p, out)
    if kind == DecisionKind.BRIDGE:
        return legal_bridge(s, p, out)
    if kind == DecisionKind.BAILIFF:
        return legal_bailiff(s, out)
    if kind == DecisionKind.FAVOR:
        return legal_favor(s, p, out)
    if kind == DecisionKind.MONUMENT:
        return legal_monument(s, p, arg, out)
    if kind == DecisionKind.EARLY_RISER:
        return legal_early_riser(s, p, out)
    # DRAFT, BOARD_CHARACTER: an available character
    return legal_board_character(s, out)


@njit(cache=True)
def apply(s, kind, p, arg, b, a):
    """Answer the pending decision ``kind`` with the legal id ``a``."""
    if kind == DecisionKind.PLAN:
        apply_plan(s, p, a)
    elif kind == DecisionKind.EFFECT:
        apply_effect(s, p, arg, a)
    elif kind == DecisionKind.PAY:
        apply_pay(s, p, arg, a)
    elif kind == DecisionKind.DELIVER:
        apply_deliver(s, p, arg, a)
    elif kind == DecisionKind.BRIDGE:
        apply_bridge(s, p, a)
    elif kind == DecisionKind.BAILIFF:
        apply_bailiff(s, a)
    elif kind == DecisionKind.FAVOR:
        apply_favor(s, p, a)
    elif kind == DecisionKind.MONUMENT:
        apply_monument(s, p, arg, a)
    elif kind == DecisionKind.EARLY_RISER:
        apply_early_riser(s, p, a)
    elif kind == DecisionKind.DRAFT:
        apply_draft(s, p, a)
    else:
        apply_board_character(s, p, a)


@njit(cache=True)
def drive(s):
    """Run the current phase's driver (the stack is empty)."""
    ph = s[L.PHASE]
    if ph == Phase.PLANNING:
        drive_planning(s)
    elif ph == Phase.ACTIVATION:
        drive_activation(s)
    elif ph == Phase.DELIVERY:
        drive_delivery(s)
    elif ph == Phase.STEWARDSHIP:
        drive_stewardship(s)
    else:
        drive_draft(s)


@njit(cache=True)
def setup(s, options, seed):
    """Write a fresh game of ``options`` (``GameConfig.kernel_options()``: num_players,
    hide_opponent_pp) and ``seed`` into ``s`` (rules 3.2); ``advance`` then reaches its first
    decision, the draft (rules 3.3)."""
    init_game(s, options[0], options[1], seed)


@njit(cache=True)
def determinize(s, seat, seed):
    """The game contract's determinization (``caylus_env.core.contract``): replace, in
    place, what ``seat`` cannot see by values consistent with what it sees. After setup
    Caylus 1303 has no chance (rules 4.7); its one piece of hidden information is optional:
    with ``hide_opponent_pp`` (D37) the prestige tokens are face down, and every opponent's
    prestige (``P_PP``) becomes ``seat``'s own, an uninformed estimate (all started at 0 and
    score in the same units), so the true totals never reach a search. ``seed`` is not
    needed (the estimate is not drawn). Without the option every total is public and ``s``
    is left as it is."""
    if s[L.OPT_HIDE_PP]:
        own = s[pf(seat, L.P_PP)]
        for q in range(num_players(s)):
            s[pf(q, L.P_PP)] = own


# Its hooks (the core's stock ones for the rest, caylus_env.core.hooks.DEFAULTS).
__all__ = [*REQUIRED, "determinize"]
