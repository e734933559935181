"""caylus-env: the board games Caylus (2005) and Puerto Rico (2002) as fast PettingZoo
environments.

- ``caylus_v0.env(...)``: the PettingZoo AEC environment (``caylus_v0.raw_env``
  without the standard wrappers); ``puerto_rico_v0.env(...)`` the same for Puerto Rico
  (its engine is ``caylus_env.puerto_rico.engine``);
- ``Game``, ``GameConfig``, ``replay``, ``IllegalActionError``: the rules engine;
- ``NUM_ACTIONS``, ``action_to_string``, ``string_to_action``: the action codec.

The names are loaded on first use (PEP 562): ``import caylus_env`` and
``caylus_env.__version__`` cost nothing, and code that needs only the engine
(``caylus_env.caylus.engine``: numpy and numba) never imports gymnasium or PettingZoo.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

from caylus_env._version import __version__

if TYPE_CHECKING:
    from caylus_env import caylus_v0, puerto_rico_v0
    from caylus_env.caylus.engine import (
        NUM_ACTIONS,
        Game,
        GameConfig,
        IllegalActionError,
        action_to_string,
        replay,
        string_to_action,
    )

#: Public name -> the module that defines it (a submodule is its own entry).
_LAZY = {
    "caylus_v0": "caylus_env.caylus_v0",
    "puerto_rico_v0": "caylus_env.puerto_rico_v0",
    "NUM_ACTIONS": "caylus_env.caylus.engine",
    "Game": "caylus_env.caylus.engine",
    "GameConfig": "caylus_env.caylus.engine",
    "IllegalActionError": "caylus_env.caylus.engine",
    "action_to_string": "caylus_env.caylus.engine",
    "replay": "caylus_env.caylus.engine",
    "string_to_action": "caylus_env.caylus.engine",
}

__all__ = [
    "NUM_ACTIONS",
    "Game",
    "GameConfig",
    "IllegalActionError",
    "__version__",
    "action_to_string",
    "caylus_v0",
    "puerto_rico_v0",
    "replay",
    "string_to_action",
]


def __getattr__(name: str) -> Any:
    """Import a public name's module on first access and cache the name here."""
    module_name = _LAZY.get(name)
    if module_name is None:
        raise AttributeError(f"module 'caylus_env' has no attribute {name!r}")
    module = importlib.import_module(module_name)
    value = module if module_name == f"caylus_env.{name}" else getattr(module, name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(__all__))
