"""The Caylus 1303 rules engine (reconstructed rules): flat NumPy state, numba kernels, no RL
library.

Public surface (the game contract's engine, ``caylus_env.core.contract``):
- ``GameConfig`` (options), ``Game`` (one game: legal actions, apply, clone, records, state
  dicts; the platform's shared handle), ``replay``, ``IllegalActionError``,
  ``InvalidStateError``, ``GameRecord``, ``load_records``;
- the action codec ``NUM_ACTIONS``, ``ACTION_NAMES``, ``BLOCKS``, ``ACTION_SPACE_VERSION``,
  ``action_to_string``, ``string_to_action``;
- ``state_to_dict`` / ``dict_to_state`` (validated), ``layout``, ``DECISION_NAMES``;
- the compiled kernel surface ``kernels``;
- ``RULES``: the decisions D1-D39 as named data (``rules``);
- ``ADDED_CHOICES``: the decisions a rules fix turned from the engine's own answer into a
  player's (``caylus_env.core.contract.AddedChoice``), so that older records still replay.

Inside: ``rules`` (the decisions table), ``tiles`` (every tile's data, D11), ``constants``
(numbers and enums, each once), ``setup`` (rules 3.2), ``phases/`` (the draft and the four
phases, Favors and building effects, rules 3.3, 4.1-4.5), ``dispatch`` (the decision tables
and the game loop), ``decisions`` (the pending-decision schema), ``state`` / ``layout`` (the
flat state), ``state_dict``, ``invariants``.
"""

# isort: off
# First, before any kernel is defined: the project's numba cache directory is keyed by the
# sources of all compiled code (this package's included), so no kernel is ever stale.
from caylus_env.core import _cache  # noqa: F401

# isort: on
from caylus_env.caylus_1303.engine import kernels, layout
from caylus_env.caylus_1303.engine.actions import (
    ACTION_NAMES,
    ACTION_SPACE_VERSION,
    BLOCKS,
    NUM_ACTIONS,
    action_to_string,
    string_to_action,
)
from caylus_env.caylus_1303.engine.config import GameConfig
from caylus_env.caylus_1303.engine.constants import DECISION_NAMES
from caylus_env.caylus_1303.engine.game import Game
from caylus_env.caylus_1303.engine.invariants import INVARIANT_MESSAGES
from caylus_env.caylus_1303.engine.rules import RULES
from caylus_env.caylus_1303.engine.state_dict import dict_to_state, state_to_dict
from caylus_env.core.contract import AddedChoice
from caylus_env.core.game import (
    Decision,
    IllegalActionError,
    InvalidStateError,
    forfeit_ranks,
    rank_of,
)
from caylus_env.core.record import GameRecord, load_records, replay

#: Choices older engines made by themselves. Up to 0.2.0 a monument always replaced its
#: builder's lowest-numbered residence; since 0.3.0 he chooses it when he has two or more
#: (rules 4.4 b, D4): a record of 0.2.0 replays with the first legal ``residence:R<k>``,
#: the lowest one, where it has no answer of its own.
ADDED_CHOICES: tuple[AddedChoice, ...] = (
    AddedChoice(
        "RESIDENCE",
        "0.3.0",
        "which of his residences a monument replaces (rules 4.4 b, D4); before 0.3.0 the "
        "engine took the lowest-numbered one",
    ),
)

__all__ = [
    "ACTION_NAMES",
    "ACTION_SPACE_VERSION",
    "ADDED_CHOICES",
    "BLOCKS",
    "DECISION_NAMES",
    "INVARIANT_MESSAGES",
    "NUM_ACTIONS",
    "RULES",
    "Decision",
    "Game",
    "GameConfig",
    "GameRecord",
    "IllegalActionError",
    "InvalidStateError",
    "action_to_string",
    "dict_to_state",
    "forfeit_ranks",
    "kernels",
    "layout",
    "load_records",
    "rank_of",
    "replay",
    "state_to_dict",
    "string_to_action",
]
