"""Caylus's rule hooks for the core's game loop (``caylus_env.core.loop``; each hook's
contract is in ``caylus_env.core.hooks``): one line per decision kind to the ``legal_*`` /
``apply_*`` pair of the phase module that owns it, one per phase to its driver, the
procedures waiting on the stack (TAG's extended sequence: finish a road space, score a
player, end a castle section), the favor that is lost when no row is left (rules 5.3),
prestige as the score (rules 8.21) and setup (rules 1.2-1.4). Ties stand (rules 8.21) and
Caylus hides nothing after setup: the core's stock hooks; the turn (the clock) is a layout
field the core's loop reads, and Caylus has no decision cap.

Every function is ``@njit(cache=True)``; the engine runs unchanged, slowly, under
``NUMBA_DISABLE_JIT=1``. Outside the engine, use ``caylus_env.caylus.engine.kernels``.
"""

from __future__ import annotations

from numba import njit

from caylus_env.caylus.engine import layout as L
from caylus_env.caylus.engine.constants import DecisionKind, Phase, Procedure
from caylus_env.caylus.engine.decisions import (
    PROCEDURE_BASE as PROCEDURE_BASE,  # a hook: the first procedure kind
)
from caylus_env.caylus.engine.decisions import (
    pop,
    read_top,
)
from caylus_env.caylus.engine.phases.activation import (
    apply_alchemist_pay,
    apply_market,
    apply_option,
    apply_owner_bonus,
    apply_peddler,
    apply_produce,
    drive_activation,
    legal_alchemist_pay,
    legal_market,
    legal_option,
    legal_owner_bonus,
    legal_peddler,
    legal_produce,
    run_finish_space,
)
from caylus_env.caylus.engine.phases.castle import apply_castle, drive_castle, legal_castle
from caylus_env.caylus.engine.phases.construction import (
    apply_build,
    apply_lawyer,
    apply_pay_any,
    apply_residence,
    legal_build,
    legal_lawyer,
    legal_pay_any,
    legal_residence,
)
from caylus_env.caylus.engine.phases.end_of_turn import (
    drive_end_of_turn,
    run_score_player,
    run_section_done,
)
from caylus_env.caylus.engine.phases.favors import (
    apply_favor_column,
    apply_favor_give,
    apply_favor_row,
    apply_favor_take,
    legal_favor_column,
    legal_favor_give,
    legal_favor_row,
    legal_favor_take,
)
from caylus_env.caylus.engine.phases.income import drive_income
from caylus_env.caylus.engine.phases.placement import (
    apply_gate,
    apply_place_worker,
    drive_placement,
    legal_gate,
    legal_place_worker,
)
from caylus_env.caylus.engine.phases.provost import (
    apply_guild,
    apply_provost,
    drive_provost,
    legal_guild,
    legal_provost,
)
from caylus_env.caylus.engine.phases.special import (
    apply_inn,
    apply_joust,
    drive_special,
    legal_inn,
    legal_joust,
)
from caylus_env.caylus.engine.setup import init_game
from caylus_env.caylus.engine.state import prestige
from caylus_env.core.hooks import REQUIRED

GAME_OVER = int(Phase.GAME_OVER)
DEFAULT_LAWYER_PRESTIGE = 4  # the 2005 tile (rules 8.2); ``GameConfig`` documents the option

#: The hook ``score``: a seat's prestige (rules 8.21).
score = prestige


@njit(cache=True)
def legal(s, kind, p, a, b, out):
    """The legal ids of the pending decision ``kind`` into ``out``; returns how many."""
    if kind == DecisionKind.PLACE_WORKER:
        return legal_place_worker(s, p, out)
    if kind == DecisionKind.GATE:
        return legal_gate(s, p, out)
    if kind == DecisionKind.GUILD:
        return legal_guild(s, p, out)
    if kind == DecisionKind.JOUST:
        return legal_joust(s, p, out)
    if kind == DecisionKind.INN:
        return legal_inn(s, p, out)
    if kind == DecisionKind.PROVOST:
        return legal_provost(s, p, out)
    if kind == DecisionKind.PRODUCE:
        return legal_produce(s, p, a, out)
    if kind == DecisionKind.OWNER_BONUS:
        return legal_owner_bonus(s, p, a, out)
    if kind == DecisionKind.MARKET:
        return legal_market(s, p, out)
    if kind == DecisionKind.PEDDLER:
        return legal_peddler(s, p, a, b, out)
    if kind == DecisionKind.BUILD:
        return legal_build(s, p, a, out)
    if kind == DecisionKind.PAY_ANY:
        return legal_pay_any(s, p, a, b, out)
    if kind == DecisionKind.RESIDENCE:
        return legal_residence(s, p, out)
    if kind == DecisionKind.LAWYER:
        return legal_lawyer(s, p, a, out)
    if kind == DecisionKind.OPTION:
        return legal_option(s, p, a, out)
    if kind == DecisionKind.ALCHEMIST_PAY:
        return legal_alchemist_pay(s, p, out)
    if kind == DecisionKind.CASTLE:
        return legal_castle(s, p, out)
    if kind == DecisionKind.FAVOR_ROW:
        return legal_favor_row(s, p, out)
    if kind == DecisionKind.FAVOR_COLUMN:
        return legal_favor_column(s, p, a, out)
    if kind == DecisionKind.FAVOR_TAKE:
        return legal_favor_take(s, p, a, out)
    if kind == DecisionKind.FAVOR_GIVE:
        return legal_favor_give(s, p, out)
    return 0


@njit(cache=True)
def apply(s, kind, p, a, b, action):
    """Answer the pending decision ``kind`` with the legal id ``action``."""
    if kind == DecisionKind.PLACE_WORKER:
        apply_place_worker(s, p, action)
    elif kind == DecisionKind.GATE:
        apply_gate(s, p, action)
    elif kind == DecisionKind.GUILD:
        apply_guild(s, p, action)
    elif kind == DecisionKind.JOUST:
        apply_joust(s, p, action)
    elif kind == DecisionKind.INN:
        apply_inn(s, p, action)
    elif kind == DecisionKind.PROVOST:
        apply_provost(s, p, action)
    elif kind == DecisionKind.PRODUCE:
        apply_produce(s, p, a, action)
    elif kind == DecisionKind.OWNER_BONUS:
        apply_owner_bonus(s, p, action)
    elif kind == DecisionKind.MARKET:
        apply_market(s, p, a, action)
    elif kind == DecisionKind.PEDDLER:
        apply_peddler(s, p, a, b, action)
    elif kind == DecisionKind.BUILD:
        apply_build(s, p, a, action)
    elif kind == DecisionKind.PAY_ANY:
        apply_pay_any(s, p, a, b, action)
    elif kind == DecisionKind.RESIDENCE:
        apply_residence(s, p, a, b, action)
    elif kind == DecisionKind.LAWYER:
        apply_lawyer(s, p, a, action)
    elif kind == DecisionKind.OPTION:
        apply_option(s, p, a, action)
    elif kind == DecisionKind.ALCHEMIST_PAY:
        apply_alchemist_pay(s, p, a, action)
    elif kind == DecisionKind.CASTLE:
        apply_castle(s, p, a, action)
    elif kind == DecisionKind.FAVOR_ROW:
        apply_favor_row(s, p, action)
    elif kind == DecisionKind.FAVOR_COLUMN:
        apply_favor_column(s, p, a, action)
    elif kind == DecisionKind.FAVOR_TAKE:
        apply_favor_take(s, p, b, action)
    elif kind == DecisionKind.FAVOR_GIVE:
        apply_favor_give(s, p, action)


@njit(cache=True)
def drive(s):
    """Move the turn forward when no decision is pending: the current phase's driver."""
    ph = s[L.PHASE]
    if ph == Phase.INCOME:
        drive_income(s)
    elif ph == Phase.PLACEMENT:
        drive_placement(s)
    elif ph == Phase.SPECIAL:
        drive_special(s)
    elif ph == Phase.PROVOST:
        drive_provost(s)
    elif ph == Phase.ACTIVATION:
        drive_activation(s)
    elif ph == Phase.CASTLE:
        drive_castle(s)
    elif ph == Phase.END_OF_TURN:
        drive_end_of_turn(s)
    else:
        raise RuntimeError("caylus engine: no phase to drive (the state is inconsistent)")


@njit(cache=True)
def run_procedure(s):
    """Pop the procedure on top of the stack and run it."""
    kind, _, a, b = read_top(s)
    pop(s)
    if kind == Procedure.FINISH_SPACE:
        run_finish_space(s, a)
    elif kind == Procedure.SCORE_PLAYER:
        run_score_player(s, a, b)
    elif kind == Procedure.SECTION_DONE:
        run_section_done(s, a)


@njit(cache=True)
def dropped_when_unanswerable(kind):
    """A favor with no row left to take is lost (rules 5.3); no other decision is ever
    without a legal action."""
    return kind == DecisionKind.FAVOR_ROW


@njit(cache=True)
def setup(s, options, seed):
    """Write a fresh game of ``options`` (``GameConfig.kernel_options()``: num_players,
    simplified_favors, lawyer_prestige, jeweller, house limit) and ``seed`` into ``s``
    (rules 1.2-1.4); ``advance`` then reaches its first decision."""
    init_game(s, options[0], options[1], options[2], options[3], options[4], seed)


# Its hooks (the core's stock ones for the rest, caylus_env.core.hooks.DEFAULTS).
__all__ = [
    *REQUIRED,
    "run_procedure",
    "dropped_when_unanswerable",
]
