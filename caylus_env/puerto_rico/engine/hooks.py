"""Puerto Rico's rule hooks for the core's game loop (``caylus_env.core.loop``; each hook's
contract is in ``caylus_env.core.hooks``): one line per decision kind to the ``legal_*`` /
``apply_*`` pair of the role module that owns it, one per phase to its driver, the scores and
tie-breaks (rules 5.2, 5.3), setup (rules 1.2-1.4, 7.1) and the one hidden thing a search
redraws (the face-down plantations, rules 6.8). The decisions taken, their cap (rules 6.9) and
the round (the clock) are layout fields the core's loop reads; no procedure waits on the stack
(the core's stock hook).

Every function is ``@njit(cache=True)``; the engine runs unchanged, slowly, under
``NUMBA_DISABLE_JIT=1``. Outside the engine, use ``caylus_env.puerto_rico.engine.kernels``.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from caylus_env.core.hooks import REQUIRED
from caylus_env.puerto_rico.engine import layout as L
from caylus_env.puerto_rico.engine.constants import NUM_DECISION_KINDS, DecisionKind, Phase
from caylus_env.puerto_rico.engine.roles.builder import (
    apply_black_market,
    apply_build,
    apply_university,
    drive_builder,
    legal_black_market,
    legal_build,
)
from caylus_env.puerto_rico.engine.roles.captain import (
    apply_load,
    apply_small_wharf,
    apply_store_barrel,
    apply_store_kind,
    drive_captain,
    drive_storage,
    legal_keep,
    legal_load,
    legal_small_wharf,
)
from caylus_env.puerto_rico.engine.roles.craftsman import (
    apply_craft_privilege,
    drive_craftsman,
    legal_craft_privilege,
)
from caylus_env.puerto_rico.engine.roles.draft import (
    apply_draft,
    drive_draft,
    legal_draft,
    random_draft,
)
from caylus_env.puerto_rico.engine.roles.guest_house import apply_guest_house, legal_guest_house
from caylus_env.puerto_rico.engine.roles.mayor import (
    apply_mayor_privilege,
    apply_place_colonist,
    drive_mayor,
    legal_place_colonist,
)
from caylus_env.puerto_rico.engine.roles.selection import (
    apply_role,
    drive_role_selection,
    legal_role,
)
from caylus_env.puerto_rico.engine.roles.settler import (
    apply_forest,
    apply_hacienda,
    apply_hospice,
    apply_settle,
    drive_settler,
    legal_accept_decline,
    legal_settle,
)
from caylus_env.puerto_rico.engine.roles.trader import apply_sell, drive_trader, legal_sell
from caylus_env.puerto_rico.engine.setup import (
    RNG_MODULUS,
    init_game,
    rng_write,
    shuffle_stack,
)
from caylus_env.puerto_rico.engine.state import final_score
from caylus_env.puerto_rico.engine.state import tie_break as tie_break  # the hook (rules 5.3)

GAME_OVER = int(Phase.GAME_OVER)
PROCEDURE_BASE = NUM_DECISION_KINDS  # no procedures: every stack entry is a decision

#: The hook ``score``: a seat's victory points (rules 5.2).
score = final_score


@njit(cache=True)
def legal(s, kind, p, arg, b, out):
    """The legal ids of the pending decision ``kind`` into ``out``; returns how many."""
    if kind == DecisionKind.ROLE:
        return legal_role(s, out)
    if kind == DecisionKind.SETTLE:
        return legal_settle(s, p, arg, out)
    if kind == DecisionKind.PLACE_COLONIST:
        return legal_place_colonist(s, p, out)
    if kind == DecisionKind.BUILD:
        return legal_build(s, p, out)
    if kind == DecisionKind.CRAFT_PRIVILEGE:
        return legal_craft_privilege(s, arg, out)
    if kind == DecisionKind.SELL:
        return legal_sell(s, p, out)
    if kind == DecisionKind.LOAD:
        return legal_load(s, p, out)
    if kind == DecisionKind.STORE_KIND or kind == DecisionKind.STORE_BARREL:
        return legal_keep(s, p, out)
    if kind == DecisionKind.DRAFT:
        return legal_draft(s, out)
    if kind == DecisionKind.BLACK_MARKET:
        return legal_black_market(s, p, out)
    if kind == DecisionKind.GUEST_HOUSE:
        return legal_guest_house(s, p, out)
    if kind == DecisionKind.SMALL_WHARF:
        return legal_small_wharf(s, p, out)
    # HACIENDA, HOSPICE, MAYOR_PRIVILEGE, UNIVERSITY, FOREST: accept or decline.
    return legal_accept_decline(out)


@njit(cache=True)
def apply(s, kind, p, arg, b, a):
    """Answer the pending decision ``kind`` with the legal id ``a``."""
    if kind == DecisionKind.ROLE:
        apply_role(s, p, a)
    elif kind == DecisionKind.HACIENDA:
        apply_hacienda(s, p, a)
    elif kind == DecisionKind.SETTLE:
        apply_settle(s, p, arg, a)
    elif kind == DecisionKind.HOSPICE:
        apply_hospice(s, p, arg, a)
    elif kind == DecisionKind.MAYOR_PRIVILEGE:
        apply_mayor_privilege(s, p, a)
    elif kind == DecisionKind.PLACE_COLONIST:
        apply_place_colonist(s, p, a)
    elif kind == DecisionKind.BUILD:
        apply_build(s, p, a)
    elif kind == DecisionKind.UNIVERSITY:
        apply_university(s, p, arg, a)
    elif kind == DecisionKind.CRAFT_PRIVILEGE:
        apply_craft_privilege(s, p, a)
    elif kind == DecisionKind.SELL:
        apply_sell(s, p, a)
    elif kind == DecisionKind.LOAD:
        apply_load(s, p, a)
    elif kind == DecisionKind.STORE_KIND:
        apply_store_kind(s, p, arg, a)
    elif kind == DecisionKind.STORE_BARREL:
        apply_store_barrel(s, p, arg, a)
    elif kind == DecisionKind.DRAFT:
        apply_draft(s, a)
    elif kind == DecisionKind.FOREST:
        apply_forest(s, p, arg, a)
    elif kind == DecisionKind.BLACK_MARKET:
        apply_black_market(s, p, arg, a)
    elif kind == DecisionKind.GUEST_HOUSE:
        apply_guest_house(s, p, a)
    else:
        apply_small_wharf(s, p, arg, a)


@njit(cache=True)
def drive(s):
    """Run the current phase's driver (the stack is empty)."""
    ph = s[L.PHASE]
    if ph == Phase.ROLE_SELECTION:
        drive_role_selection(s)
    elif ph == Phase.SETTLER:
        drive_settler(s)
    elif ph == Phase.MAYOR:
        drive_mayor(s)
    elif ph == Phase.BUILDER:
        drive_builder(s)
    elif ph == Phase.CRAFTSMAN:
        drive_craftsman(s)
    elif ph == Phase.TRADER:
        drive_trader(s)
    elif ph == Phase.CAPTAIN:
        drive_captain(s)
    elif ph == Phase.CAPTAIN_STORAGE:
        drive_storage(s)
    else:
        drive_draft(s)


@njit(cache=True)
def setup_game(s, num_players, max_decisions, expansion, draft, library_limit, seed):
    """``setup.init_game``, then the seeded random draft when that option is chosen."""
    init_game(s, num_players, max_decisions, expansion, draft, library_limit, seed)
    if expansion and draft == 1:
        random_draft(s)


@njit(cache=True)
def setup(s, options, seed):
    """Write a fresh game of ``options`` (``GameConfig.kernel_options()``: num_players,
    max_decisions, expansion, draft, library_limit) and ``seed`` into ``s`` (rules 1.2-1.4,
    7.1)."""
    setup_game(s, options[0], options[1], options[2], options[3], options[4], seed)


@njit(cache=True)
def resample_hidden(s, seed):
    """Replace the hidden information by a fresh draw: reseed the plantation generator
    from ``seed`` and reshuffle the face-down stack (rules 6.8). What a player may see is
    unchanged, so search code can determinize a position it observes this way."""
    x = 1 + (seed % (RNG_MODULUS - 1))
    rng_write(s, x)
    shuffle_stack(s)


@njit(cache=True)
def determinize(s, seat, seed):
    """The game contract's determinization (``caylus_env.core.contract``): replace, in
    place, the hidden information of ``s`` by a draw that depends only on what the players
    see and on ``seed`` (in [0, 2**63)). Puerto Rico hides one thing, from every seat alike
    (so ``seat`` changes nothing): the order of the face-down plantations (rules 6.8) and the
    state of the generator that reshuffles the discards later. Which tiles are in the stack
    is public, their order is not: the stack is first sorted into a canonical order, then
    ``resample_hidden`` reseeds the generator and reshuffles it. Without the sort the shuffle
    would permute the true order, so a search's draws (not their distribution) would still
    follow it. What a player sees, the legal actions and the invariants are unchanged."""
    n = np.int64(s[L.PLANTATION_STACK_SIZE_F])
    s[L.PLANTATION_STACK : L.PLANTATION_STACK + n] = np.sort(
        s[L.PLANTATION_STACK : L.PLANTATION_STACK + n]
    )
    resample_hidden(s, seed)


# Its hooks (the core's stock ones for the rest, caylus_env.core.hooks.DEFAULTS).
__all__ = [
    *REQUIRED,
    "tie_break",
    "determinize",
    "resample_hidden",
    "setup_game",
]
