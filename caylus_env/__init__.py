"""caylus-env: the board game Caylus (2005) as a fast PettingZoo environment.

- ``caylus_v0.env(...)``: the PettingZoo AEC environment (``caylus_v0.raw_env``
  without the standard wrappers);
- ``Game``, ``GameConfig``, ``replay``, ``IllegalActionError``: the rules engine;
- ``NUM_ACTIONS``, ``action_to_string``, ``string_to_action``: the action codec.
"""

from __future__ import annotations

# Defined before the imports below: the engine's records read it.
__version__ = "0.1.0"

from caylus_env import caylus_v0
from caylus_env.engine import (
    NUM_ACTIONS,
    Game,
    GameConfig,
    IllegalActionError,
    action_to_string,
    replay,
    string_to_action,
)

__all__ = [
    "NUM_ACTIONS",
    "Game",
    "GameConfig",
    "IllegalActionError",
    "__version__",
    "action_to_string",
    "caylus_v0",
    "replay",
    "string_to_action",
]
