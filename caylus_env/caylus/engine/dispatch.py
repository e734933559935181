"""The game loop over the pending-decision stack: flat dispatch tables and the driver.

Shape of the machine (TAG's extended-sequence pattern):

- The state holds a small pending-decision stack (``decisions``). Its top is
  either a ``DecisionKind`` (a question to one player) or a ``Procedure`` (an
  automatic continuation waiting for the decisions above it).
- ``advance`` runs everything that needs no choice: when the stack is empty the
  phase driver of the current phase moves the turn forward; procedures run; a
  decision with exactly one legal action is applied automatically; a favor with
  no row left is lost (rules 5.3). It stops at the next real decision or at the end.
- ``legal_actions`` and ``apply`` dispatch on the top decision: one line per kind,
  to the ``legal_*`` / ``apply_*`` pair of the phase module that owns it.
- ``step`` checks legality first, so a rejected action leaves the state untouched.

Every function is ``@njit(cache=True)``; the engine runs unchanged, slowly, under
``NUMBA_DISABLE_JIT=1``. Outside the engine, use ``caylus_env.caylus.engine.kernels``.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from caylus_env.caylus.engine import layout as L
from caylus_env.caylus.engine.actions import NUM_ACTIONS
from caylus_env.caylus.engine.constants import DecisionKind, Phase, Procedure
from caylus_env.caylus.engine.decisions import (
    PROCEDURE_BASE,
    decision_player,
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

OK = 0
ILLEGAL = -1
DEFAULT_LAWYER_PRESTIGE = 4  # the 2005 tile (rules 8.2); ``GameConfig`` documents the option
PLAYOUT_SEED_STRIDE = 1000003  # a prime: the setup seed of game g is seed * stride + g
#: Safety net: automatic steps ``advance`` may take before it must reach a decision. A legal
#: game needs a few dozen at most (a whole end of turn); a state that slipped past
#: validation ends in an error instead of a loop that Ctrl-C cannot stop.
MAX_AUTOMATIC_STEPS = 100_000


# ---------------------------------------------------------------------------------------
# Dispatch tables: one line per decision kind, phase driver and procedure.
# ---------------------------------------------------------------------------------------
@njit(cache=True)
def legal_actions(s, out):
    """Write the sorted legal action ids of the pending decision into ``out``.

    Returns:
        How many ids were written (0 when the game is over).
    """
    if s[L.STACK_SIZE] == 0 or s[L.PHASE] == Phase.GAME_OVER:
        return 0
    kind, p, a, b = read_top(s)
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
def apply(s, action):
    """Apply ``action`` to the pending decision. **No legality check**: an illegal id
    corrupts the state. Call ``advance`` after it (``step`` does both, checked)."""
    kind, p, a, b = read_top(s)
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


# ---------------------------------------------------------------------------------------
# The loop.
# ---------------------------------------------------------------------------------------
@njit(cache=True)
def next_decision(s, out):
    """Run the steps that need no choice (the phase drivers, the procedures, a favor with no
    free row, which is lost: 5.3) up to the next pending decision and write its legal ids into
    ``out``, **without** answering it when it has only one legal action: ``advance`` but for
    that. Tools read the legal set of a forced decision with it (``Game.legal_actions_at``).

    Returns:
        The number of legal actions written to ``out`` (1 for a forced decision, 0 once the
        game is over).
    """
    for _ in range(MAX_AUTOMATIC_STEPS):
        if s[L.PHASE] == Phase.GAME_OVER:
            return 0
        if s[L.STACK_SIZE] == 0:
            drive(s)
            continue
        kind = read_top(s)[0]
        if kind >= PROCEDURE_BASE:
            run_procedure(s)
            continue
        n = legal_actions(s, out)
        if n == 0:
            if kind != DecisionKind.FAVOR_ROW:
                raise RuntimeError("caylus engine: a decision has no legal action")
            pop(s)
            continue
        return n
    raise RuntimeError("caylus engine: no decision reached (the state is inconsistent)")


@njit(cache=True)
def answer(s, action):
    """Answer a forced decision (its one legal ``action``) as ``advance`` does: an agent's
    answer, without its check."""
    apply(s, action)


@njit(cache=True)
def advance(s, out):
    """Run everything that needs no choice; stop at a real decision or the end.

    A decision with exactly one legal action is applied on the spot (`answer`), and a favor
    with no free row is lost (5.3). ``out`` receives the legal actions of the decision it
    stops at. The loop is bounded (``MAX_AUTOMATIC_STEPS``): an inconsistent state raises
    ``RuntimeError`` rather than spinning forever.

    Returns:
        The number of legal actions written to ``out`` (0 once the game is over).
    """
    for _ in range(MAX_AUTOMATIC_STEPS):
        n = next_decision(s, out)
        if n != 1:
            return n
        answer(s, out[0])
    raise RuntimeError("caylus engine: no decision reached (the state is inconsistent)")


@njit(cache=True)
def step(s, action, out):
    """Apply ``action`` if it is legal, then advance to the next decision.

    Args:
        s: the state array (modified in place only when the action is legal).
        action: an action id.
        out: an int buffer of at least ``NUM_ACTIONS`` entries; receives the
            legal actions of the next decision.

    Returns:
        The number of legal actions of the next decision (0 at the end), or
        ``ILLEGAL`` (-1) if ``action`` was not legal; then ``s`` is unchanged.
    """
    n = legal_actions(s, out)
    found = False
    for i in range(n):
        if out[i] == action:
            found = True
            break
    if not found:
        return ILLEGAL
    apply(s, action)
    return advance(s, out)


@njit(cache=True)
def new_state(num_players, simplified_favors, lawyer_prestige, jeweller, house_cap, seed):
    """Allocate a state, set it up from the options and seed, and advance to turn 1's first
    decision."""
    s = np.zeros(L.STATE_SIZE, L.STATE_DTYPE)
    init_game(s, num_players, simplified_favors, lawyer_prestige, jeweller, house_cap, seed)
    out = np.empty(NUM_ACTIONS, np.int64)
    advance(s, out)
    return s


@njit(cache=True)
def setup(s, options, seed):
    """Write a fresh game of ``options`` (``GameConfig.kernel_options()``: num_players,
    simplified_favors, lawyer_prestige, jeweller, house limit) and ``seed`` into ``s``
    (rules 1.2-1.4); ``advance`` then reaches its first decision."""
    init_game(s, options[0], options[1], options[2], options[3], options[4], seed)


@njit(cache=True)
def is_truncated(s):
    """Never: a game of Caylus ends within 18 turns (rules 4.7, 8.22), with no decision cap."""
    return False


@njit(cache=True)
def scores(s, out):
    """Prestige per seat into ``out`` (rules 8.21); returns the player count."""
    n = np.int64(s[L.NUM_PLAYERS])
    for p in range(n):
        out[p] = prestige(s, p)
    return n


@njit(cache=True)
def tie_breaks(s, out):
    """All 0: tied players share their rank (rules 8.21); returns the player count."""
    n = np.int64(s[L.NUM_PLAYERS])
    for p in range(n):
        out[p] = 0
    return n


@njit(cache=True)
def clock(s):
    """The turn number, from 1 (the rulebook's clock, rules 3)."""
    return np.int64(s[L.TURN])


@njit(cache=True)
def current_player(s):
    """The player who must act, or -1 once the game is over."""
    if s[L.PHASE] == Phase.GAME_OVER or s[L.STACK_SIZE] == 0:
        return -1
    return decision_player(s)


@njit(cache=True)
def is_terminal(s):
    """Whether the game is over (after the final scoring, rules 4.8)."""
    return s[L.PHASE] == Phase.GAME_OVER


@njit(cache=True)
def returns(s, ret):
    """Write the rank returns of a finished game into ``ret`` (one per seat): +1 for first
    to -1 for last, linear in the rank, ties averaged (rules 8.21; ``Game.returns``)."""
    n = np.int64(s[L.NUM_PLAYERS])
    for i in range(n):
        pi = prestige(s, i)
        acc = 0.0
        for j in range(n):
            if j != i:
                pj = prestige(s, j)
                if pi > pj:
                    acc += 1.0
                elif pi < pj:
                    acc -= 1.0
        ret[i] = acc / (n - 1)


@njit(cache=True)
def legal_mask(s, mask):
    """Fill an int8 mask of ``NUM_ACTIONS`` entries; returns the number of legal actions."""
    out = np.empty(NUM_ACTIONS, np.int64)
    mask[:] = 0
    n = legal_actions(s, out)
    for i in range(n):
        mask[out[i]] = 1
    return n


@njit(cache=True)
def random_playout(s, out, max_decisions):
    """Play uniformly random legal actions until the end (numba's own RNG).

    Returns:
        The number of decisions taken.
    """
    n = advance(s, out)
    count = 0
    while n > 0 and count < max_decisions:
        a = out[np.random.randint(n)]
        apply(s, a)
        n = advance(s, out)
        count += 1
    return count


@njit(cache=True)
def seed_playouts(seed):
    """Seed numba's generator used by ``random_playout`` (separate from NumPy's)."""
    np.random.seed(seed)


@njit(cache=True)
def play_random_games(num_games, num_players, seed):
    """Play whole random games in compiled code (benchmark and smoke test).

    Returns:
        The total number of decisions taken over all games.
    """
    np.random.seed(seed)
    out = np.empty(NUM_ACTIONS, np.int64)
    s = np.zeros(L.STATE_SIZE, L.STATE_DTYPE)
    total = 0
    for g in range(num_games):
        init_game(s, num_players, 0, DEFAULT_LAWYER_PRESTIGE, 0, 0, seed * PLAYOUT_SEED_STRIDE + g)
        total += random_playout(s, out, 1 << 30)
    return total
