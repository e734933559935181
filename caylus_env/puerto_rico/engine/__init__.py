"""The Puerto Rico rules engine: flat NumPy state, numba kernels, no RL library.

Public surface (the game contract's engine, ``caylus_env.core.contract``):
- ``GameConfig`` (options), ``Game`` (one game: legal actions, apply, clone, records, state
  dicts; the platform's shared handle), ``replay`` (a record back into a game, checked step
  by step), ``IllegalActionError``, ``InvalidStateError``, ``GameRecord``, ``load_records``;
- the action codec ``NUM_ACTIONS``, ``ACTION_NAMES``, ``BLOCKS``, ``ACTION_SPACE_VERSION``,
  ``action_to_string``, ``string_to_action``;
- ``state_to_dict`` / ``dict_to_state`` (validated), ``layout``, ``DECISION_NAMES``;
- the compiled kernel surface ``kernels``;
- ``read_legacy_record``: Puerto Rico's records written before the shared record.

Inside: ``setup`` (rules 1.2-1.4), ``roles/`` (one module per role, rules 3-4),
``dispatch`` (the decision tables and the game loop), ``decisions`` (the declared
pending-decision schema), ``state`` / ``layout`` (the flat state), ``buildings`` /
``constants`` (the rule data, each number once), ``state_dict``, ``invariants``.
"""

# isort: off
# First, before any kernel is defined: the project's numba cache directory is keyed by the
# sources of all compiled code (this package's included), so no kernel is ever stale.
from caylus_env.core import _cache  # noqa: F401

# isort: on
from caylus_env.core.game import (
    Decision,
    IllegalActionError,
    InvalidStateError,
    forfeit_ranks,
    rank_of,
)
from caylus_env.core.record import GameRecord, load_records, replay
from caylus_env.puerto_rico.engine import kernels, layout
from caylus_env.puerto_rico.engine.actions import (
    ACTION_NAMES,
    ACTION_SPACE_VERSION,
    BLOCKS,
    NUM_ACTIONS,
    action_to_string,
    string_to_action,
)
from caylus_env.puerto_rico.engine.config import GameConfig
from caylus_env.puerto_rico.engine.constants import DECISION_NAMES
from caylus_env.puerto_rico.engine.game import Game
from caylus_env.puerto_rico.engine.invariants import INVARIANT_MESSAGES
from caylus_env.puerto_rico.engine.legacy import read_legacy_record
from caylus_env.puerto_rico.engine.state_dict import dict_to_state, state_to_dict

__all__ = [
    "ACTION_NAMES",
    "ACTION_SPACE_VERSION",
    "BLOCKS",
    "DECISION_NAMES",
    "INVARIANT_MESSAGES",
    "NUM_ACTIONS",
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
    "read_legacy_record",
    "replay",
    "state_to_dict",
    "string_to_action",
]
