"""The rule hooks a game writes for the core's game loop (`caylus_env.core.loop`): the names
its ``engine/hooks.py`` defines, and what each one must do.

The loop's templates call the hooks through the global ``H``; `caylus_env.core.loop` compiles
them per game with ``H`` bound to that game's hooks module, whose functions are
``@njit(cache=True)`` kernels and whose constants are plain ints. This module is what ``H``
names in the templates' source: a reader (and a call-graph tool) follows ``H.legal`` here, to
the contract. Its functions are declarations only: no kernel ever calls them (the game's own
hook runs in their place), and calling one from Python says so.

Arguments: ``s`` is the game's flat state; ``kind, player, a, b`` are the top entry of its
pending-decision stack as `caylus_env.core.loop.read_top` reads it (``b`` is 0 in a game whose
entries hold one argument); ``out`` receives action ids.
"""

from __future__ import annotations

#: The state's ``PHASE`` value of a finished game.
GAME_OVER = -1
#: Stack entries of this kind and above are procedures (automatic continuations waiting
#: under decisions; Caylus's finish-a-space); a game without them sets its decision count.
PROCEDURE_BASE = 0


def _declared(name: str) -> TypeError:
    return TypeError(
        f"caylus_env.core.hooks.{name} is a declaration: the core's loop calls the game's own "
        "engine/hooks.py in its place"
    )


def legal(s, kind, player, a, b, out):
    """Write the sorted legal ids of the pending decision ``kind`` (asked of ``player``, with
    its arguments) into ``out`` and return how many; the game's dispatch on its decision kinds
    (one ``legal_<kind>`` each)."""
    raise _declared("legal")


def apply(s, kind, player, a, b, action):
    """Answer the pending decision with ``action`` (a legal id): pop it, change the state, push
    what the rules ask next; one ``apply_<kind>`` per decision kind."""
    raise _declared("apply")


def drive(s):
    """Move the game on when no decision is pending: the current phase's driver (push the next
    decision, or go to the next phase)."""
    raise _declared("drive")


def run_procedure(s):
    """Pop the procedure on top of the stack (a kind of `PROCEDURE_BASE` or above) and run it."""
    raise _declared("run_procedure")


def dropped_when_unanswerable(kind):
    """Whether the rules drop a pending decision of ``kind`` that has no legal action (Caylus:
    a favor with no row left is lost); otherwise such a decision is an engine error."""
    raise _declared("dropped_when_unanswerable")


def count_decision(s):
    """Count one player's decision (what a decision cap counts); nothing for a game without."""
    raise _declared("count_decision")


def is_cut_off(s):
    """Whether an unfinished game has reached its decision cap (always False without one)."""
    raise _declared("is_cut_off")


def score(s, p):
    """Seat ``p``'s score as if the game ended now (its final score once it has)."""
    raise _declared("score")


def tie_break(s, p):
    """Seat ``p``'s tie-break by the rules (0 in a game whose ties stand)."""
    raise _declared("tie_break")


def clock(s):
    """The rulebook's clock: the round or turn number, from 1."""
    raise _declared("clock")


def setup(s, options, seed):
    """Write a fresh game of ``options`` (``GameConfig.kernel_options()``) and ``seed`` into
    ``s`` (the loop's ``advance`` then reaches its first decision)."""
    raise _declared("setup")


def determinize(s, seat, seed):
    """Redraw, in place, what ``seat`` cannot see (the contract's ``determinize``): hidden
    information and the generator of later chance, from what ``seat`` sees and ``seed``."""
    raise _declared("determinize")


#: The hooks a game's ``engine/hooks.py`` must define (checked by ``core.checks.check_game``).
HOOKS = (
    "GAME_OVER",
    "PROCEDURE_BASE",
    "legal",
    "apply",
    "drive",
    "run_procedure",
    "dropped_when_unanswerable",
    "count_decision",
    "is_cut_off",
    "score",
    "tie_break",
    "clock",
    "setup",
    "determinize",
)

__all__ = ["HOOKS", *HOOKS]
