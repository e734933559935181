"""The Caylus rules engine: flat NumPy state, numba kernels, no RL library.

Public surface (the game contract's engine, ``caylus_env.core.contract``):
- ``GameConfig`` (options), ``Game`` (one game: legal actions, apply, clone, records,
  state dicts; the platform's shared handle), ``replay`` (a record back into a game, checked
  step by step), ``IllegalActionError``, ``InvalidStateError``;
- ``GameRecord`` (the platform's one record type) and ``load_records`` (its reader for
  ``.json`` / ``.jsonl`` files);
- the action codec ``NUM_ACTIONS``, ``ACTION_NAMES``, ``BLOCKS``, ``ACTION_SPACE_VERSION``,
  ``action_to_string``, ``string_to_action``;
- ``state_to_dict`` / ``dict_to_state`` (validated), ``layout``, ``DECISION_NAMES``;
- the compiled kernel surface ``kernels`` for search, bots, batched environments and
  datasets (``setup``, ``legal_actions``, ``legal_mask``, ``apply``, ``step``, ``advance``,
  ``current_player``, ``is_terminal``, ``scores``, ``returns``, playouts and the state
  accessors); nothing outside the engine uses its other modules' private helpers;
- ``read_legacy_record``: Caylus's records written before the shared record.

Inside: ``setup`` (rules 1.2-1.4), ``phases/`` (one module per phase of the turn),
``dispatch`` (the flat decision tables and the game loop), ``decisions`` (the declared
pending-decision schema), ``state`` / ``layout`` (the flat state), ``buildings`` /
``board`` / ``constants`` (the rule data, each number once).
"""

# isort: off
# First, before any kernel is defined: importing ``_cache`` points numba's cache at the
# directory of this source version, so an edit in one module never leaves a stale kernel.
from caylus_env.core import _cache  # noqa: F401

# isort: on
from caylus_env.caylus.engine import kernels, layout
from caylus_env.caylus.engine.actions import (
    ACTION_NAMES,
    ACTION_SPACE_VERSION,
    BLOCKS,
    NUM_ACTIONS,
    action_to_string,
    string_to_action,
)
from caylus_env.caylus.engine.config import GameConfig
from caylus_env.caylus.engine.constants import DECISION_NAMES
from caylus_env.caylus.engine.game import Game
from caylus_env.caylus.engine.invariants import INVARIANT_MESSAGES
from caylus_env.caylus.engine.legacy import read_legacy_record
from caylus_env.caylus.engine.state_dict import dict_to_state, state_to_dict
from caylus_env.core.game import (
    Decision,
    IllegalActionError,
    InvalidStateError,
    forfeit_ranks,
    rank_of,
)
from caylus_env.core.record import GameRecord, load_records, replay

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
