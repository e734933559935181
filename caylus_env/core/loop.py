"""The game loop, written once for every game: the pending-decision stack and the compiled
kernels of the game contract, compiled per game with that game's rule hooks.

Every game is the same machine (TAG's extended sequence, OpenSpiel's ``State``): a flat state
whose pending-decision stack holds the question being asked on top; when the stack is empty
the current phase's driver moves the game on; a decision with one legal action is answered by
the engine; the loop stops at the next real decision, at the end of the game, or at a cut-off.
A game writes only its rules, as **hooks** (its ``engine/hooks.py``, the names of
`caylus_env.core.hooks`, which documents each one): the legal actions of a pending decision
and how an action answers it, the phase drivers, the procedures a game may keep on its stack,
setup, scores, tie-breaks, the clock and what a search must redraw. Everything else is here:

- the stack (`stack_kernels`): ``push``, ``pop``, ``read_top`` and the readers of its entries,
  ``(kind, player, arg_a, arg_b)`` (``arg_b`` is 0 in a game whose entries hold one argument),
  bound to the game's layout (``STACK``, ``STACK_SIZE``, ``STACK_DEPTH``, ``STACK_ENTRY``),
  and the readers of the two fields every layout has, ``num_players`` and ``phase``;
- the loop (`loop_kernels`): ``next_decision`` / ``answer`` / ``advance``, ``legal_actions``,
  ``legal_mask``, ``apply`` / ``step`` (checked: a rejected action changes nothing),
  ``current_player``, ``is_terminal`` / ``is_truncated``, ``scores``, ``tie_breaks``,
  ``returns`` (rank returns of a finished game) and ``standing`` (the same ranking of the
  scores of any position, for searches that cut a rollout off), ``clock``, ``setup``,
  ``determinize``, ``accepted_actions`` (every id ``step`` accepts, on copies) and the compiled
  random games (``new_state``, ``seed_playouts``, ``random_playout``, ``play_random_games``).

Both are plain Python functions compiled per game by `caylus_env.core.specialize` over the
game's bindings, so the game's hooks are inlined and every kernel keeps the name and
signature of the contract (``caylus_env.core.contract``); `export` binds them, by the names of
`STACK_EXPORTS` and `LOOP_EXPORTS`, in the game's ``engine/decisions.py`` and
``engine/loop.py``. A fourth game writes its hooks and
data and none of this.

Numba note: the hooks arrive as the module global ``H`` (bound per game); a reader finds what
each hook must do in `caylus_env.core.hooks`, the module ``H`` names here.
"""

from __future__ import annotations

import types
from dataclasses import dataclass
from typing import Any

import numpy as np

from caylus_env.core import _cache  # noqa: F401  (the kernel cache, before any kernel)
from caylus_env.core import hooks as H
from caylus_env.core.contract import KERNELS
from caylus_env.core.specialize import specialize

# ---------------------------------------------------------------------------------------------
# The schema of the stack's entries: each game declares its kinds (its ``decisions.SCHEMA``)
# with these, and its state dict, invariants and observation read what an argument means.
# ---------------------------------------------------------------------------------------------
#: The codecs of arguments every game may use: none (the entry has no argument, stored as 0)
#: and a count; a game adds its own (a building, a tile, a set of goods, spelled by name).
CODEC_NONE = "none"
CODEC_INT = "int"


@dataclass(frozen=True)
class Arg:
    """One argument of a stack entry: its name, codec and inclusive domain ``[low, high]``."""

    name: str
    codec: str
    low: int
    high: int
    doc: str


#: The argument of an entry that has none.
NO_ARG = Arg("", CODEC_NONE, 0, 0, "no argument")


@dataclass(frozen=True)
class EntryKind:
    """One kind of stack entry: a decision (asked of the entry's player) or a procedure (an
    automatic continuation, `caylus_env.core.hooks.PROCEDURE_BASE`), and its arguments."""

    kind: int
    name: str
    is_decision: bool
    args: tuple[Arg, ...]
    doc: str

    @property
    def arg(self) -> Arg:
        """The argument of a kind that has one at most (`NO_ARG` when it has none): the
        schema of a game whose entries hold one argument reads it so."""
        if len(self.args) > 1:
            raise ValueError(f"entry kind {self.name!r} has {len(self.args)} arguments, not one")
        return self.args[0] if self.args else NO_ARG


def decision(kind: int, name: str, arg: Arg, doc: str) -> EntryKind:
    """A decision whose entry holds one argument at most (``arg`` is `NO_ARG` for none)."""
    return EntryKind(kind, name, True, () if arg.codec == CODEC_NONE else (arg,), doc)


#: ``step``'s answer to an action that is not legal (the state is then untouched).
ILLEGAL = -1
#: Safety net: automatic steps ``advance`` may take before it must reach a decision. A legal
#: game needs a few dozen at most (a whole end of a round); a state that slipped past
#: validation ends in an error instead of a loop that Ctrl-C cannot stop.
MAX_AUTOMATIC_STEPS = 100_000
#: `play_random_games`: the setup seed of game ``g`` is ``seed * stride + g`` (a prime).
PLAYOUT_SEED_STRIDE = 1_000_003

# Bound per game by `stack_kernels` (the layout's stack) and `loop_kernels` (the layout).
STACK = 0
STACK_SIZE = 0
STACK_DEPTH = 0
STACK_ENTRY = 0
PHASE = 0
NUM_PLAYERS = 0
CLOCK = 0
DECISIONS = -1
MAX_DECISIONS = -1
NUM_ACTIONS = 0
STATE_SIZE = 0
STATE_DTYPE = np.int16
OVERFLOW = "engine: pending-decision stack overflow"
NO_LEGAL = "engine: a decision has no legal action"
NO_DECISION = "engine: no decision reached (the state is inconsistent)"

E_KIND = 0
E_PLAYER = 1
E_ARG_A = 2
E_ARG_B = 3


# ---------------------------------------------------------------------------------------------
# The pending-decision stack: the only code that knows its offsets.
# ---------------------------------------------------------------------------------------------
def depth(s):
    """Number of entries on the pending stack."""
    return np.int64(s[STACK_SIZE])


def top(s):
    """Offset of the top entry (the stack must not be empty)."""
    return STACK + (np.int64(s[STACK_SIZE]) - 1) * STACK_ENTRY


def push(s, kind, player, a=0, b=0):
    """Push an entry; a full stack is an engine error (no rule nests that deep). ``b`` is
    dropped by a game whose entries hold one argument."""
    n = np.int64(s[STACK_SIZE])
    if n >= STACK_DEPTH:
        raise RuntimeError(OVERFLOW)
    o = STACK + n * STACK_ENTRY
    s[o + E_KIND] = kind
    s[o + E_PLAYER] = player
    s[o + E_ARG_A] = a
    if STACK_ENTRY > E_ARG_B:
        s[o + E_ARG_B] = b
    s[STACK_SIZE] = n + 1


def pop(s):
    """Remove the top entry and clear it, so equal games have equal arrays."""
    o = top(s)
    for i in range(STACK_ENTRY):
        s[o + i] = 0
    s[STACK_SIZE] -= 1


def entry(s, i):
    """``(kind, player, arg_a, arg_b)`` of entry ``i`` (0 = bottom)."""
    o = STACK + i * STACK_ENTRY
    b = np.int64(s[o + E_ARG_B]) if STACK_ENTRY > E_ARG_B else np.int64(0)
    return np.int64(s[o + E_KIND]), np.int64(s[o + E_PLAYER]), np.int64(s[o + E_ARG_A]), b


def entry_kind(s, i):
    """Kind of entry ``i`` (0 = bottom)."""
    return np.int64(s[STACK + i * STACK_ENTRY + E_KIND])


def entry_player(s, i):
    """Player of entry ``i`` (0 = bottom)."""
    return np.int64(s[STACK + i * STACK_ENTRY + E_PLAYER])


def entry_arg(s, i, j):
    """Argument ``j`` (0: arg_a, 1: arg_b) of entry ``i`` (0 = bottom)."""
    return np.int64(s[STACK + i * STACK_ENTRY + E_ARG_A + j])


def read_top(s):
    """``(kind, player, arg_a, arg_b)`` of the top entry, read once (the stack must not be
    empty): the dispatchers' one read of the pending decision."""
    return entry(s, np.int64(s[STACK_SIZE]) - 1)


def set_top_arg(s, j, v):
    """Overwrite argument ``j`` (0: arg_a, 1: arg_b) of the top entry (a count going down)."""
    s[top(s) + E_ARG_A + j] = v


def decision_kind(s):
    """Kind of the top entry, -1 if the stack is empty."""
    if s[STACK_SIZE] == 0:
        return np.int64(-1)
    return np.int64(s[top(s) + E_KIND])


def decision_player(s):
    """Player of the top entry, -1 if the stack is empty."""
    if s[STACK_SIZE] == 0:
        return np.int64(-1)
    return np.int64(s[top(s) + E_PLAYER])


def decision_arg(s, j=0):
    """Argument ``j`` (0: arg_a, 1: arg_b) of the top entry, -1 if the stack is empty."""
    if s[STACK_SIZE] == 0:
        return np.int64(-1)
    return np.int64(s[top(s) + E_ARG_A + j])


# ---------------------------------------------------------------------------------------------
# The two fields every layout has (``caylus_env.core.contract``: ``num_players`` first among
# the options, a ``PHASE`` whose ``GAME_OVER`` ends the game).
# ---------------------------------------------------------------------------------------------
def num_players(s):
    """The number of seats of the game in ``s``."""
    return np.int64(s[NUM_PLAYERS])


def phase(s):
    """The current phase of ``s`` (the game's ``GAME_OVER`` once it has ended)."""
    return np.int64(s[PHASE])


STACK_TEMPLATES = (
    num_players,
    phase,
    depth,
    top,
    push,
    pop,
    entry,
    entry_kind,
    entry_player,
    entry_arg,
    read_top,
    set_top_arg,
    decision_kind,
    decision_player,
    decision_arg,
)
#: What a game's ``engine/decisions.py`` exports of its `stack_kernels` (`export`): the stack's
#: readers and writers for the game's rules, and the two fields every layout has.
STACK_EXPORTS = (
    "num_players",
    "phase",
    "depth",
    "top",
    "push",
    "pop",
    "set_top_arg",
    "entry",
    "entry_kind",
    "entry_player",
    "entry_arg",
    "read_top",
    "decision_kind",
    "decision_player",
    "decision_arg",
)


# ---------------------------------------------------------------------------------------------
# The loop.
# ---------------------------------------------------------------------------------------------
def is_terminal(s):
    """Whether the game has ended by its rules."""
    return s[PHASE] == H.GAME_OVER


def is_truncated(s):
    """Whether the game was cut off unfinished: its decisions reached the cap of its layout's
    ``MAX_DECISIONS`` field (never for a game without one)."""
    if MAX_DECISIONS < 0:
        return False
    return s[PHASE] != H.GAME_OVER and s[DECISIONS] >= s[MAX_DECISIONS]


def legal_actions(s, out):
    """Write the sorted legal action ids of the pending decision into ``out``.

    Returns:
        How many ids were written (0 at the end of the game, or once it is cut off).
    """
    if s[STACK_SIZE] == 0 or is_terminal(s) or is_truncated(s):
        return 0
    kind, p, a, b = read_top(s)
    return H.legal(s, kind, p, a, b, out)


def legal_mask(s, mask):
    """Write an int8 mask of the legal actions into ``mask``; returns how many are legal."""
    out = np.empty(NUM_ACTIONS, np.int64)
    mask[:] = 0
    n = legal_actions(s, out)
    for i in range(n):
        mask[out[i]] = 1
    return n


def apply_action(s, action):
    """Apply a legal action to the top decision (no check, no counting)."""
    kind, p, a, b = read_top(s)
    H.apply(s, kind, p, a, b, action)


def automatic_step(s, out):
    """One step of the loop: -1 after a step that needed no choice (the phase's driver when
    the stack is empty, a procedure the game keeps on its stack, a decision the rules drop
    when it has no legal action), else the legal count of the decision on top (its ids in
    ``out``; 0 at the end of the game or once it is cut off)."""
    if is_terminal(s) or is_truncated(s):
        return 0
    if s[STACK_SIZE] == 0:
        H.drive(s)
        return -1
    kind, p, a, b = read_top(s)
    if kind >= H.PROCEDURE_BASE:
        H.run_procedure(s)
        return -1
    n = H.legal(s, kind, p, a, b, out)  # `legal_actions`, its checks made above
    if n == 0:
        if H.dropped_when_unanswerable(kind):
            pop(s)
            return -1
        raise RuntimeError(NO_LEGAL)
    return n


def next_decision(s, out):
    """Run the steps that need no choice (`automatic_step`) up to the next pending decision
    and write its legal ids into ``out``, **without** answering it when it has only one:
    ``advance`` but for that. Tools read the legal set of a forced decision with it
    (``Game.legal_actions_at``).

    Returns:
        The number of legal actions written to ``out`` (1 for a forced decision, 0 at the end
        of the game or once it is cut off).
    """
    for _ in range(MAX_AUTOMATIC_STEPS):
        n = automatic_step(s, out)
        if n >= 0:
            return n
    raise RuntimeError(NO_DECISION)


def answer(s, action):
    """Answer a forced decision (its one legal ``action``) as ``advance`` does: applied, not
    counted as a player's decision."""
    apply_action(s, action)


def advance(s, out):
    """Run every automatic step up to the next real decision: `automatic_step`, and `answer`
    for every decision with one legal action. The loop is bounded (`MAX_AUTOMATIC_STEPS`
    steps in all): an inconsistent state raises ``RuntimeError`` rather than spinning.

    Returns:
        The number of legal actions written to ``out`` (0 at the end or once cut off).
    """
    for _ in range(MAX_AUTOMATIC_STEPS):
        n = automatic_step(s, out)
        if n == 1:
            answer(s, out[0])
        elif n >= 0:
            return n
    raise RuntimeError(NO_DECISION)


def apply(s, action):
    """Apply an action taken from ``legal_actions`` and count the decision in the layout's
    ``DECISIONS`` field where it has one (what a decision cap counts); **no legality check**
    (an illegal id corrupts the state). Call ``advance`` after it."""
    apply_action(s, action)
    if DECISIONS >= 0:
        s[DECISIONS] += 1


def step(s, action, out):
    """Apply ``action`` if it is legal and advance to the next decision.

    Returns:
        The number of legal actions of the next decision (in ``out``), or `ILLEGAL` (the
        state is then untouched).
    """
    n = legal_actions(s, out)
    ok = False
    for i in range(n):
        if out[i] == action:
            ok = True
            break
    if not ok:
        return ILLEGAL
    apply(s, action)
    return advance(s, out)


def current_player(s):
    """The seat that must act, or -1 when nothing is asked (the end, or a cut-off)."""
    if s[STACK_SIZE] == 0 or is_terminal(s) or is_truncated(s):
        return np.int64(-1)
    return decision_player(s)


def scores(s, out):
    """Each seat's score as if the game ended now into ``out``; returns the player count."""
    n = np.int64(s[NUM_PLAYERS])
    for p in range(n):
        out[p] = H.score(s, p)
    return n


def tie_breaks(s, out):
    """Each seat's tie-break by the rules into ``out`` (0 where ties stand); returns the
    player count."""
    n = np.int64(s[NUM_PLAYERS])
    for p in range(n):
        out[p] = H.tie_break(s, p)
    return n


def standing(s, ret):
    """The rank returns of the position's scores, then tie-breaks, into ``ret``: +1 first to
    -1 last, linear in the rank, ties averaged; for any position (a search that cuts a rollout
    off values it by the standing)."""
    n = np.int64(s[NUM_PLAYERS])
    for p in range(n):
        sp = H.score(s, p)
        tp = H.tie_break(s, p)
        better = 0
        tied = 0
        for q in range(n):
            if q == p:
                continue
            sq = H.score(s, q)
            tq = H.tie_break(s, q)
            if sq > sp or (sq == sp and tq > tp):
                better += 1
            elif sq == sp and tq == tp:
                tied += 1
        rank = 1.0 + better + tied / 2.0
        ret[p] = (n + 1 - 2 * rank) / (n - 1)


def returns(s, ret):
    """The rank returns of a finished game (`standing`), zeros until it has ended by its rules
    (a game cut off pays zeros)."""
    n = np.int64(s[NUM_PLAYERS])
    ret[:n] = 0.0
    if is_terminal(s):
        standing(s, ret)


def clock(s):
    """The rulebook's clock (``GameSpec.clock_word``): the round or turn, from 1, the layout's
    ``CLOCK`` field."""
    return np.int64(s[CLOCK])


def setup(s, options, seed):
    """Write a fresh game of ``options`` (``GameConfig.kernel_options()``, ``num_players``
    first) and ``seed`` into ``s``; ``advance`` then reaches its first decision."""
    H.setup(s, options, seed)


def determinize(s, seat, seed):
    """Redraw, in place, what ``seat`` cannot see (the contract's ``determinize``)."""
    H.determinize(s, seat, seed)


def new_state(options, seed):
    """A set-up game of ``options`` and ``seed``, advanced to its first decision."""
    s = np.zeros(STATE_SIZE, STATE_DTYPE)
    setup(s, options, seed)
    out = np.empty(NUM_ACTIONS, np.int64)
    advance(s, out)
    return s


def seed_playouts(seed):
    """Seed numba's own generator, which `random_playout` draws from (not NumPy's)."""
    np.random.seed(seed)


def random_playout(s, out, max_decisions):
    """Play uniformly random legal actions (numba's generator) until the end, a cut-off or
    ``max_decisions`` decisions; returns the decisions played."""
    n = advance(s, out)
    count = 0
    while n > 0 and count < max_decisions:
        apply(s, out[np.random.randint(n)])
        n = advance(s, out)
        count += 1
    return count


def play_random_games(options, num_games, seed):
    """Whole random games of ``options`` in compiled code (benchmarks and smoke tests): game
    ``g`` is set up with seed ``seed * PLAYOUT_SEED_STRIDE + g`` and played with numba's
    generator seeded the same; returns each game's decisions."""
    counts = np.empty(num_games, np.int64)
    out = np.empty(NUM_ACTIONS, np.int64)
    s = np.zeros(STATE_SIZE, STATE_DTYPE)
    for g in range(num_games):
        game_seed = seed * PLAYOUT_SEED_STRIDE + g
        s[:] = 0
        setup(s, options, game_seed)
        np.random.seed(game_seed)
        counts[g] = random_playout(s, out, 1 << 62)
    return counts


def accepted_actions(s, out):
    """Every action id ``step`` accepts from ``s``, each tried on a copy, in increasing order
    into ``out``; -1 if a rejected action changed its copy (the tests compare it with
    ``legal_actions``)."""
    copy = s.copy()
    tmp = np.empty(NUM_ACTIONS, np.int64)
    n = 0
    for a in range(NUM_ACTIONS):
        copy[:] = s
        if step(copy, a, tmp) == ILLEGAL:
            for i in range(s.shape[0]):
                if copy[i] != s[i]:
                    return -1
        else:
            out[n] = a
            n += 1
    return n


LOOP_TEMPLATES = (
    is_terminal,
    is_truncated,
    legal_actions,
    legal_mask,
    apply_action,
    automatic_step,
    next_decision,
    answer,
    advance,
    apply,
    step,
    current_player,
    scores,
    tie_breaks,
    standing,
    returns,
    clock,
    setup,
    determinize,
    new_state,
    seed_playouts,
    random_playout,
    play_random_games,
    accepted_actions,
)
#: The stack's readers a game's public kernel surface (``engine/kernels.py``) exports: what a
#: tool may read of the pending stack, and the two fields every layout has (not its writers).
STACK_READERS = (
    "num_players",
    "phase",
    "depth",
    "entry_kind",
    "entry_player",
    "entry_arg",
    "decision_kind",
    "decision_player",
    "decision_arg",
)
#: The loop's small steps, inlined into the loops that call them (`specialize`'s ``inline``): a
#: call that passes the state array copies its pointer, shape and strides, which the
#: automatic steps of every decision cannot afford (Caylus 1303's compiled random games ran
#: at 0.73x of its former hand-written loop without, CPU time of alternating runs).
LOOP_INLINED = ("is_terminal", "is_truncated", "automatic_step", "apply_action", "answer")
#: What a game's ``engine/loop.py`` exports of its `loop_kernels` (`export`): the contract's
#: kernels (``caylus_env.core.contract.KERNELS`` but the game's own ``check_invariants``) and
#: the compiled random games and ranking of any position.
LOOP_EXPORTS = (
    *(name for name in KERNELS if name != "check_invariants"),
    "standing",
    "new_state",
    "seed_playouts",
    "random_playout",
    "play_random_games",
)


def export(kernels: types.SimpleNamespace, names: tuple[str, ...], namespace: dict) -> list[str]:
    """Bind ``names`` of the compiled ``kernels`` (`stack_kernels`, `loop_kernels`) as globals of
    a game's module (``namespace`` is its ``globals()``), so that the game's rules and the
    shared layers import each kernel by name (``from <game>.engine.loop import step``), from
    one list rather than a copy of it in every game; returns the names, for ``__all__``."""
    for name in names:
        namespace[name] = getattr(kernels, name)
    return list(names)


def _messages(engine: str) -> dict[str, str]:
    return {
        "OVERFLOW": f"{engine} engine: pending-decision stack overflow",
        "NO_LEGAL": f"{engine} engine: a decision has no legal action",
        "NO_DECISION": f"{engine} engine: no decision reached (the state is inconsistent)",
    }


def stack_kernels(
    game: str, engine: str, layout: Any, namespace: dict | None = None
) -> types.SimpleNamespace:
    """The decision stack compiled for ``game`` (an identifier) over its ``layout`` (``STACK``,
    ``STACK_SIZE``, ``STACK_DEPTH``, ``STACK_ENTRY``, and ``NUM_PLAYERS`` and ``PHASE`` for the
    two readers every game has); ``engine`` names it in its errors
    (``"caylus"``: "caylus engine: ..."). With ``namespace`` (a game module's ``globals()``),
    its kernels are also bound there by the names of `STACK_EXPORTS` (`export`)."""
    kernels = specialize(
        STACK_TEMPLATES,
        f"stack__{game}",
        {
            "STACK": layout.STACK,
            "STACK_SIZE": layout.STACK_SIZE,
            "STACK_DEPTH": layout.STACK_DEPTH,
            "STACK_ENTRY": layout.STACK_ENTRY,
            "NUM_PLAYERS": layout.NUM_PLAYERS,
            "PHASE": layout.PHASE,
            **_messages(engine),
        },
    )
    if namespace is not None:
        export(kernels, STACK_EXPORTS, namespace)
    return kernels


def loop_kernels(
    game: str, engine: str, hooks: Any, layout: Any, stack: types.SimpleNamespace, actions: int
) -> types.SimpleNamespace:
    """The loop compiled for ``game`` with its ``hooks`` (the names of `caylus_env.core.hooks`;
    the stock hooks for those of its ``OPTIONAL`` the game leaves out) over its ``layout``
    (``PHASE``, ``NUM_PLAYERS``, ``CLOCK``, the stack's fields, and where the game counts its
    decisions and caps them, ``DECISIONS`` and ``MAX_DECISIONS``, if it does), its compiled
    ``stack`` (`stack_kernels`) and its action count.

    Raises:
        ValueError: for a layout with ``MAX_DECISIONS`` but no ``DECISIONS`` to count against it.
    """
    decisions = getattr(layout, "DECISIONS", -1)
    cap = getattr(layout, "MAX_DECISIONS", -1)
    if cap >= 0 and decisions < 0:
        raise ValueError(f"{game}: a layout with MAX_DECISIONS must declare DECISIONS")
    return specialize(
        LOOP_TEMPLATES,
        f"loop__{game}",
        {
            "H": H.with_defaults(hooks),
            "STACK_SIZE": layout.STACK_SIZE,
            "PHASE": layout.PHASE,
            "NUM_PLAYERS": layout.NUM_PLAYERS,
            "CLOCK": layout.CLOCK,
            "DECISIONS": decisions,
            "MAX_DECISIONS": cap,
            "NUM_ACTIONS": actions,
            "STATE_SIZE": layout.STATE_SIZE,
            "STATE_DTYPE": layout.STATE_DTYPE,
            "read_top": stack.read_top,
            "pop": stack.pop,
            "decision_kind": stack.decision_kind,
            "decision_player": stack.decision_player,
            **_messages(engine),
        },
        inline=LOOP_INLINED,
    )


__all__ = [
    "CODEC_INT",
    "CODEC_NONE",
    "ILLEGAL",
    "LOOP_EXPORTS",
    "LOOP_TEMPLATES",
    "MAX_AUTOMATIC_STEPS",
    "NO_ARG",
    "PLAYOUT_SEED_STRIDE",
    "STACK_EXPORTS",
    "STACK_READERS",
    "STACK_TEMPLATES",
    "Arg",
    "EntryKind",
    "decision",
    "export",
    "loop_kernels",
    "stack_kernels",
]
