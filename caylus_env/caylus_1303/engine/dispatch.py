"""The game loop over the pending-decision stack: flat dispatch tables and the driver.

- ``advance`` runs everything that needs no choice: when the stack is empty the driver of the
  current phase moves the round on; a decision with exactly one legal action is applied by the
  engine. It stops at the next real decision or at the end of the game.
- ``legal_actions`` and ``apply`` dispatch on the top decision, one line per kind, to the
  ``legal_*`` / ``apply_*`` pair of the phase module that owns it.
- ``step`` checks legality first, so a rejected action leaves the state untouched.

Every function is ``@njit(cache=True)``; the engine runs unchanged, slowly, under
``NUMBA_DISABLE_JIT=1``. Outside the engine, use ``caylus_env.caylus_1303.engine.kernels``.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from caylus_env.caylus_1303.engine import layout as L
from caylus_env.caylus_1303.engine.actions import NUM_ACTIONS
from caylus_env.caylus_1303.engine.constants import DecisionKind, Phase
from caylus_env.caylus_1303.engine.decisions import read_top
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
from caylus_env.caylus_1303.engine.state import final_score

ILLEGAL = -1
PLAYOUT_SEED_STRIDE = 1000003  # a prime: the setup seed of game g is seed * stride + g
#: Safety net: automatic steps ``advance`` may take before it must reach a decision; a state
#: that slipped past validation ends in an error instead of an endless loop.
MAX_AUTOMATIC_STEPS = 100_000


@njit(cache=True)
def is_terminal(s):
    return s[L.PHASE] == Phase.GAME_OVER


@njit(cache=True)
def is_truncated(s):
    """Always False: the game ends after round 9 by its rules (rules 4.6, D36)."""
    return False


@njit(cache=True)
def legal_actions(s, out):
    """Write the sorted legal action ids of the pending decision into ``out``.

    Returns:
        How many ids were written (0 at the end of the game).
    """
    if s[L.STACK_SIZE] == 0 or s[L.PHASE] == Phase.GAME_OVER:
        return 0
    kind, p, arg = read_top(s)
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
def legal_mask(s, mask):
    """Write an int8 mask of the legal actions into ``mask``; returns how many are legal."""
    out = np.empty(NUM_ACTIONS, np.int64)
    mask[:] = 0
    n = legal_actions(s, out)
    for i in range(n):
        mask[out[i]] = 1
    return n


@njit(cache=True)
def apply_action(s, a):
    """Apply a legal action to the top decision (no check, no counting)."""
    kind, p, arg = read_top(s)
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
def next_decision(s, out):
    """Run the phase drivers up to the next pending decision and write its legal ids into
    ``out``, **without** answering it when it has only one legal action: ``advance`` but for
    that. Tools read the legal set of a forced decision with it (``Game.legal_actions_at``).

    Returns:
        The number of legal actions written to ``out`` (1 for a forced decision, 0 at the end of the game).
    """
    for _ in range(MAX_AUTOMATIC_STEPS):
        if s[L.PHASE] == Phase.GAME_OVER:
            return 0
        if s[L.STACK_SIZE] == 0:
            drive(s)
            continue
        n = legal_actions(s, out)
        if n == 0:
            raise RuntimeError("caylus 1303 engine: a decision with no legal action")
        return n
    raise RuntimeError("caylus 1303 engine: no decision reached (corrupt state?)")


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
        The number of legal actions written to ``out`` (0 at the end of the game).
    """
    for _ in range(MAX_AUTOMATIC_STEPS):
        n = next_decision(s, out)
        if n != 1:
            return n
        answer(s, out[0])
    raise RuntimeError("caylus 1303 engine: no decision reached (corrupt state?)")


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
def setup(s, options, seed):
    """Write a fresh game of ``options`` (``GameConfig.kernel_options()``: num_players,
    hide_opponent_pp) and ``seed`` into ``s`` (rules 3.2); ``advance`` then reaches its first
    decision, the draft (rules 3.3)."""
    init_game(s, options[0], options[1], seed)


@njit(cache=True)
def tie_breaks(s, out):
    """All zeros: ties are shared (rules 4.6, D13)."""
    n = np.int64(s[L.NUM_PLAYERS])
    for p in range(n):
        out[p] = 0
    return n


@njit(cache=True)
def clock(s):
    """The round number, 1-9 (rules 4)."""
    return np.int64(s[L.ROUND])


@njit(cache=True)
def new_state(num_players, hide_pp, seed):
    """A set-up game advanced to its first decision."""
    s = np.zeros(L.STATE_SIZE, L.STATE_DTYPE)
    init_game(s, num_players, hide_pp, seed)
    out = np.empty(NUM_ACTIONS, np.int64)
    advance(s, out)
    return s


@njit(cache=True)
def current_player(s):
    """The seat that must act, or -1 when nothing is asked."""
    if s[L.STACK_SIZE] == 0 or s[L.PHASE] == Phase.GAME_OVER:
        return -1
    return read_top(s)[1]


@njit(cache=True)
def scores(s, out):
    """Prestige plus 2 per gold per seat into ``out`` (rules 4.6, D36)."""
    n = np.int64(s[L.NUM_PLAYERS])
    for p in range(n):
        out[p] = final_score(s, p)
    return n


@njit(cache=True)
def returns(s, ret):
    """Rank returns per seat: +1 first to -1 last, tied ranks averaged (D13); zeros until
    the game is over."""
    n = np.int64(s[L.NUM_PLAYERS])
    ret[:n] = 0.0
    if s[L.PHASE] != Phase.GAME_OVER:
        return
    for p in range(n):
        better = 0
        tied = 0
        for q in range(n):
            if final_score(s, q) > final_score(s, p):
                better += 1
            elif final_score(s, q) == final_score(s, p) and q != p:
                tied += 1
        rank = 1.0 + better + tied / 2.0
        ret[p] = (n + 1 - 2 * rank) / (n - 1)


@njit(cache=True)
def random_playout(s, rng_seed):
    """Play uniformly random legal actions to the end; returns the decisions taken."""
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
def play_random_games(num_players, num_games, seed, hide_pp):
    """Compiled whole random games; returns the decisions of each game."""
    counts = np.empty(num_games, np.int64)
    for g in range(num_games):
        s = np.zeros(L.STATE_SIZE, L.STATE_DTYPE)
        init_game(s, num_players, hide_pp, seed * PLAYOUT_SEED_STRIDE + g)
        counts[g] = random_playout(s, seed * PLAYOUT_SEED_STRIDE + g)
    return counts
