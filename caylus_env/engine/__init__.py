"""The Caylus rules engine: flat NumPy state, numba kernels, no RL library.

Public surface:
- ``GameConfig`` (options), ``Game`` (one game: legal actions, apply, clone,
  records, state dicts), ``replay`` (a record back into a game),
  ``IllegalActionError``;
- the action codec ``NUM_ACTIONS``, ``ACTION_NAMES``, ``action_to_string``,
  ``string_to_action``;
- the raw kernels in ``caylus_env.engine.rules`` for search and batch code
  (``new_state``, ``legal_actions``, ``step``, ``advance``, ``current_player``).
"""

from caylus_env.engine.actions import (
    ACTION_NAMES,
    BLOCKS,
    NUM_ACTIONS,
    action_to_string,
    string_to_action,
)
from caylus_env.engine.config import GameConfig
from caylus_env.engine.game import Decision, Game, IllegalActionError, rank_of, replay

__all__ = [
    "ACTION_NAMES",
    "BLOCKS",
    "NUM_ACTIONS",
    "Decision",
    "Game",
    "GameConfig",
    "IllegalActionError",
    "action_to_string",
    "rank_of",
    "replay",
    "string_to_action",
]
