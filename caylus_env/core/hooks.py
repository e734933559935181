"""The rule hooks a game writes for the core's game loop (`caylus_env.core.loop`): the names
its ``engine/hooks.py`` defines, and what each one must do.

The loop's templates call the hooks through the global ``H``; `caylus_env.core.loop` compiles
them per game with ``H`` bound to that game's hooks module, whose functions are
``@njit(cache=True)`` kernels and whose constants are plain ints. This module is what ``H``
names in the templates' source: a reader (and a call-graph tool) follows ``H.legal`` here, to
the contract. Its functions are declarations only: no kernel ever calls them (the game's own
hook runs in their place), and calling one from Python says so.

A game writes the hooks of `REQUIRED` and leaves out those of `OPTIONAL` whose rule it does not
have: no procedures on its stack, no decision dropped, ties that stand, nothing hidden. For
those, `with_defaults` gives the loop the core's compiled stock hook (`DEFAULTS`), so a game
writes its own rules and nothing of what it lacks. What is a field rather than a rule is read
from the game's layout instead (`caylus_env.core.loop.loop_kernels`): its clock (``CLOCK``),
and where it counts its decisions and caps them (``DECISIONS``, ``MAX_DECISIONS``).

Arguments: ``s`` is the game's flat state; ``kind, player, a, b`` are the top entry of its
pending-decision stack as `caylus_env.core.loop.read_top` reads it (``b`` is 0 in a game whose
entries hold one argument); ``out`` receives action ids.
"""

from __future__ import annotations

import types

from numba import njit

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


def score(s, p):
    """Seat ``p``'s score as if the game ended now (its final score once it has)."""
    raise _declared("score")


def tie_break(s, p):
    """Seat ``p``'s tie-break by the rules (0 in a game whose ties stand)."""
    raise _declared("tie_break")


def setup(s, options, seed):
    """Write a fresh game of ``options`` (``GameConfig.kernel_options()``) and ``seed`` into
    ``s`` (the loop's ``advance`` then reaches its first decision)."""
    raise _declared("setup")


def determinize(s, seat, seed):
    """Redraw, in place, what ``seat`` cannot see (the contract's ``determinize``): hidden
    information and the generator of later chance, from what ``seat`` sees and ``seed``."""
    raise _declared("determinize")


#: The hooks a game's ``engine/hooks.py`` must define (`with_defaults` checks them).
REQUIRED = (
    "GAME_OVER",
    "PROCEDURE_BASE",
    "legal",
    "apply",
    "drive",
    "score",
    "setup",
)
#: The hooks a game defines only where its rules have them (`DEFAULTS` otherwise).
OPTIONAL = (
    "run_procedure",
    "dropped_when_unanswerable",
    "tie_break",
    "determinize",
)
#: Every hook, in the order of this module.
HOOKS = (
    *REQUIRED[:5],
    "run_procedure",
    "dropped_when_unanswerable",
    "score",
    "tie_break",
    "setup",
    "determinize",
)
assert sorted(HOOKS) == sorted(REQUIRED + OPTIONAL)


@njit(cache=True)
def no_procedure(s):
    """The stock `run_procedure`: a game that keeps no procedure on its stack sets
    `PROCEDURE_BASE` above its decision kinds, so only a corrupt entry gets here."""
    raise RuntimeError("engine: a stack entry is neither a decision nor a procedure")


@njit(cache=True)
def never_dropped(kind):
    """The stock `dropped_when_unanswerable`: every decision of the game has a legal action
    (declining is one)."""
    return False


@njit(cache=True)
def ties_stand(s, p):
    """The stock `tie_break`: 0 for every seat, so tied players share their rank."""
    return 0


@njit(cache=True)
def nothing_hidden(s, seat, seed):
    """The stock `determinize`: nothing is hidden after setup and later play draws no chance,
    so every seat sees the whole position and there is nothing to redraw."""


#: The core's stock hook for each of `OPTIONAL`.
DEFAULTS = {
    "run_procedure": no_procedure,
    "dropped_when_unanswerable": never_dropped,
    "tie_break": ties_stand,
    "determinize": nothing_hidden,
}


def with_defaults(hooks: types.ModuleType) -> types.ModuleType:
    """The hooks the loop compiles with: the game's ``hooks`` module, and for each hook of
    `OPTIONAL` it leaves out, the stock one of `DEFAULTS` (in a module of the same name, which
    numba reads as it reads the game's: its kernels are inlined).

    Raises:
        ValueError: naming the hooks of `REQUIRED` that ``hooks`` does not define.
    """
    missing = [name for name in REQUIRED if not hasattr(hooks, name)]
    if missing:
        raise ValueError(
            f"{hooks.__name__} does not define the hooks {', '.join(missing)} "
            "(caylus_env.core.hooks.REQUIRED)"
        )
    if all(hasattr(hooks, name) for name in OPTIONAL):
        return hooks
    merged = types.ModuleType(hooks.__name__, hooks.__doc__)
    for name in HOOKS:
        setattr(merged, name, getattr(hooks, name, DEFAULTS.get(name)))
    return merged


__all__ = [
    "DEFAULTS",
    "HOOKS",
    "OPTIONAL",
    "REQUIRED",
    *HOOKS,
    "never_dropped",
    "no_procedure",
    "nothing_hidden",
    "ties_stand",
    "with_defaults",
]
