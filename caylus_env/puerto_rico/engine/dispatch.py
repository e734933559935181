"""The game loop over the pending-decision stack: flat dispatch tables and the driver.

- ``advance`` runs everything that needs no choice: when the stack is empty the driver
  of the current phase moves the round on; a decision with exactly one legal action is
  applied by the engine. It stops at the next real decision, at the end of the game, or
  at the truncation cap (rules 6.9).
- ``legal_actions`` and ``apply`` dispatch on the top decision, one line per kind, to
  the ``legal_*`` / ``apply_*`` pair of the role module that owns it.
- ``step`` checks legality first, so a rejected action leaves the state untouched.

Every function is ``@njit(cache=True)``; the engine runs unchanged, slowly, under
``NUMBA_DISABLE_JIT=1``. Outside the engine, use ``caylus_env.puerto_rico.engine.kernels``.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from caylus_env.puerto_rico.engine import layout as L
from caylus_env.puerto_rico.engine.actions import NUM_ACTIONS
from caylus_env.puerto_rico.engine.constants import DecisionKind, Phase
from caylus_env.puerto_rico.engine.decisions import read_top
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
from caylus_env.puerto_rico.engine.state import final_score, tie_break

ILLEGAL = -1
PLAYOUT_SEED_STRIDE = 1000003  # a prime: the setup seed of game g is seed * stride + g
#: Safety net: automatic steps ``advance`` may take before it must reach a decision; a
#: state that slipped past validation ends in an error instead of an endless loop.
MAX_AUTOMATIC_STEPS = 100_000


@njit(cache=True)
def is_terminal(s):
    return s[L.PHASE] == Phase.GAME_OVER


@njit(cache=True)
def is_truncated(s):
    """The decision cap was reached before the game ended (rules 6.9)."""
    return s[L.PHASE] != Phase.GAME_OVER and s[L.DECISIONS] >= s[L.MAX_DECISIONS]


@njit(cache=True)
def legal_actions(s, out):
    """Write the sorted legal action ids of the pending decision into ``out``.

    Returns:
        How many ids were written (0 at the end of the game or when truncated).
    """
    if s[L.STACK_SIZE] == 0 or s[L.PHASE] == Phase.GAME_OVER or is_truncated(s):
        return 0
    kind, p, arg = read_top(s)
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
def legal_mask(s, mask):
    """Write an int8 mask of the legal actions into ``mask``; returns how many are legal."""
    out = np.empty(NUM_ACTIONS, np.int64)
    mask[:] = 0
    n = legal_actions(s, out)
    for i in range(n):
        mask[out[i]] = 1
    return n


@njit(cache=True)
def resample_hidden(s, seed):
    """Replace the hidden information by a fresh draw: reseed the plantation generator
    from ``seed`` and reshuffle the face-down stack (rules 6.8). What a player may see is
    unchanged, so search code can determinize a position it observes this way."""
    x = 1 + (seed % (RNG_MODULUS - 1))
    rng_write(s, x)
    shuffle_stack(s)


@njit(cache=True)
def apply_action(s, a):
    """Apply a legal action to the top decision (no check, no counting)."""
    kind, p, arg = read_top(s)
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
def next_decision(s, out):
    """Run the phase drivers up to the next pending decision and write its legal ids into
    ``out``, **without** answering it when it has only one legal action: ``advance`` but for
    that. Tools read the legal set of a forced decision with it (``Game.legal_actions_at``).

    Returns:
        The number of legal actions written to ``out`` (1 for a forced decision, 0 at the end of the game or at its decision cap).
    """
    for _ in range(MAX_AUTOMATIC_STEPS):
        if s[L.PHASE] == Phase.GAME_OVER or is_truncated(s):
            return 0
        if s[L.STACK_SIZE] == 0:
            drive(s)
            continue
        n = legal_actions(s, out)
        if n == 0:
            raise RuntimeError("puerto rico engine: a decision with no legal action")
        return n
    raise RuntimeError("puerto rico engine: no decision reached (corrupt state?)")


@njit(cache=True)
def answer(s, a):
    """Answer a forced decision (its one legal action ``a``) as ``advance`` does: applied,
    not counted as a decision."""
    apply_action(s, a)


@njit(cache=True)
def advance(s, out):
    """Run every automatic step up to the next real decision: the drivers, and every decision
    with one legal action (`answer`).

    Returns:
        The number of legal actions written to ``out`` (0 at the end of the game or at its decision cap).
    """
    for _ in range(MAX_AUTOMATIC_STEPS):
        n = next_decision(s, out)
        if n != 1:
            return n
        answer(s, out[0])
    raise RuntimeError("puerto rico engine: no decision reached (corrupt state?)")


@njit(cache=True)
def apply(s, a):
    """Apply an action taken from ``legal_actions`` and count the decision; **no legality
    check**. Call ``advance`` after it."""
    apply_action(s, a)
    s[L.DECISIONS] += 1


@njit(cache=True)
def step(s, a, out):
    """Apply ``a`` if it is legal and advance to the next decision.

    Returns:
        The number of legal actions of the next decision, or ``ILLEGAL`` (the state is then
        untouched).
    """
    n = legal_actions(s, out)
    ok = False
    for i in range(n):
        if out[i] == a:
            ok = True
            break
    if not ok:
        return ILLEGAL
    apply(s, a)
    return advance(s, out)


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
    7.1); ``advance`` then reaches its first decision."""
    setup_game(s, options[0], options[1], options[2], options[3], options[4], seed)


@njit(cache=True)
def tie_breaks(s, out):
    """Doubloons plus barrels per seat into ``out``: the tie-break of rules 5.3."""
    n = np.int64(s[L.NUM_PLAYERS])
    for p in range(n):
        out[p] = tie_break(s, p)
    return n


@njit(cache=True)
def clock(s):
    """The round number, from 1 (rules 3)."""
    return np.int64(s[L.ROUND])


@njit(cache=True)
def new_state(num_players, max_decisions, expansion, draft, library_limit, seed):
    """A set-up game advanced to its first decision (options as in ``GameConfig``)."""
    s = np.zeros(L.STATE_SIZE, L.STATE_DTYPE)
    setup_game(s, num_players, max_decisions, expansion, draft, library_limit, seed)
    out = np.empty(NUM_ACTIONS, np.int64)
    advance(s, out)
    return s


@njit(cache=True)
def current_player(s):
    """The seat that must act, or -1 when nothing is asked."""
    if s[L.STACK_SIZE] == 0 or s[L.PHASE] == Phase.GAME_OVER or is_truncated(s):
        return -1
    return read_top(s)[1]


@njit(cache=True)
def scores(s, out):
    """Victory points per seat into ``out`` (rules 5.2)."""
    n = np.int64(s[L.NUM_PLAYERS])
    for p in range(n):
        out[p] = final_score(s, p)
    return n


@njit(cache=True)
def returns(s, ret):
    """Rank returns per seat: +1 first to -1 last, ties averaged; ranks by score, then
    doubloons plus barrels (rules 5.3); zeros until the game is over."""
    n = np.int64(s[L.NUM_PLAYERS])
    ret[:n] = 0.0
    if s[L.PHASE] != Phase.GAME_OVER:
        return
    key = np.empty(n, np.int64)
    for p in range(n):
        key[p] = final_score(s, p) * 10000 + tie_break(s, p)
    for p in range(n):
        better = 0
        tied = 0
        for q in range(n):
            if key[q] > key[p]:
                better += 1
            elif key[q] == key[p] and q != p:
                tied += 1
        rank = 1.0 + better + tied / 2.0
        ret[p] = (n + 1 - 2 * rank) / (n - 1)


@njit(cache=True)
def random_playout(s, rng_seed):
    """Play uniformly random legal actions to the end (or the cap); returns decisions."""
    np.random.seed(rng_seed)
    out = np.empty(NUM_ACTIONS, np.int64)
    n = advance(s, out)
    count = 0
    while n > 0:
        a = out[np.random.randint(n)]
        apply(s, a)
        count += 1
        n = advance(s, out)
    return count


@njit(cache=True)
def play_random_games(num_players, num_games, seed, max_decisions, expansion):
    """Compiled whole random games (the expansion with a random draft); returns the
    decisions of each game."""
    counts = np.empty(num_games, np.int64)
    for g in range(num_games):
        s = np.zeros(L.STATE_SIZE, L.STATE_DTYPE)
        setup_game(
            s, num_players, max_decisions, expansion, expansion, 0, seed * PLAYOUT_SEED_STRIDE + g
        )
        counts[g] = random_playout(s, seed * PLAYOUT_SEED_STRIDE + g)
    return counts
