"""The Puerto Rico rules engine: flat NumPy state, numba kernels, no RL library.

Public surface:
- ``GameConfig`` (options), ``Game`` (one game: legal actions, apply, clone, records,
  state dicts), ``replay`` (a record back into a game), ``IllegalActionError``,
  ``GameRecord``;
- the action codec ``NUM_ACTIONS``, ``ACTION_NAMES``, ``BLOCKS``, ``action_to_string``,
  ``string_to_action``;
- the compiled kernel surface ``caylus_env.puerto_rico.engine.kernels``.

Inside: ``setup`` (rules 1.2-1.4), ``roles/`` (one module per role, rules 3-4),
``dispatch`` (the decision tables and the game loop), ``decisions`` (the declared
pending-decision schema), ``state`` / ``layout`` (the flat state), ``buildings`` /
``constants`` (the rule data, each number once), ``state_dict``, ``invariants``.
"""

# First, before any kernel is defined: the project's numba cache directory is keyed by the
# sources of all compiled code (this package's included), so no kernel is ever stale.
from caylus_env.core import _cache  # noqa: F401
from caylus_env.puerto_rico.engine.actions import (
    ACTION_NAMES,
    BLOCKS,
    NUM_ACTIONS,
    action_to_string,
    string_to_action,
)
from caylus_env.puerto_rico.engine.config import GameConfig
from caylus_env.puerto_rico.engine.game import (
    Decision,
    Game,
    GameRecord,
    IllegalActionError,
    replay,
)

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
    "replay",
    "string_to_action",
]
