"""The Caylus rules engine: flat NumPy state, numba kernels, no RL library.

Public surface:
- ``GameConfig`` (options), ``Game`` (one game: legal actions, apply, clone,
  records, state dicts), ``replay`` (a record back into a game),
  ``IllegalActionError``;
- ``GameRecord`` (the one typed game record) and ``load_records`` (its reader for
  ``.json`` / ``.jsonl`` files);
- the action codec ``NUM_ACTIONS``, ``ACTION_NAMES``, ``action_to_string``,
  ``string_to_action``;
- the compiled kernel surface ``caylus_env.caylus.engine.kernels`` for search, bots, batched
  environments and datasets (``new_state``, ``legal_actions``, ``legal_mask``, ``apply``,
  ``step``, ``advance``, ``current_player``, ``is_terminal``, ``returns``, playouts and the
  state accessors); nothing outside the engine uses its other modules' private helpers.

Inside: ``setup`` (rules 1.2-1.4), ``phases/`` (one module per phase of the turn),
``dispatch`` (the flat decision tables and the game loop), ``decisions`` (the declared
pending-decision schema), ``state`` / ``layout`` (the flat state), ``buildings`` /
``board`` / ``constants`` (the rule data, each number once).
"""

# First, before any kernel is defined: importing ``_cache`` points numba's cache at the
# directory of this source version, so an edit in one module never leaves a stale kernel.
from caylus_env.caylus.engine.actions import (
    ACTION_NAMES,
    BLOCKS,
    NUM_ACTIONS,
    action_to_string,
    string_to_action,
)
from caylus_env.caylus.engine.config import GameConfig
from caylus_env.caylus.engine.game import Decision, Game, IllegalActionError, replay
from caylus_env.caylus.engine.record import GameRecord, load_records, rank_of
from caylus_env.core import _cache  # noqa: F401

__all__ = [
    "ACTION_NAMES",
    "BLOCKS",
    "NUM_ACTIONS",
    "Decision",
    "Game",
    "GameConfig",
    "GameRecord",
    "IllegalActionError",
    "action_to_string",
    "load_records",
    "rank_of",
    "replay",
    "string_to_action",
]
