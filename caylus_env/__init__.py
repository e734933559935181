"""caylus-env: the board games of the Caylus family as fast reinforcement-learning environments.

Every game is a peer behind one game contract (``caylus_env.core.contract``), registered in
``caylus_env.core.registry``:

- ``make(game, **options)``: the game's PettingZoo AEC environment (its ``env()``, with the
  classic wrappers; ``make(game, wrapped=False)`` gives its ``raw_env``);
- ``make_vector(game, num_envs, **options)``: its compiled batched Gymnasium ``VectorEnv``
  (``action_masks()``, masks in the observations and in ``info``);
- ``games()``: the registered games (``GameSpec``: name, title, player counts, options);
- ``caylus_env.<env_name>`` (``caylus_v0``, ``puerto_rico_v0``, ...): each game's versioned
  PettingZoo entry point (its one shim module), as in PettingZoo's own classic environments;
- ``GameRecord``, ``load_records``, ``replay``: the one record of every game, its reader and
  its verifier; ``IllegalActionError``, ``InvalidStateError``: the errors of every engine;
- the Gymnasium ids ``caylus_env/Caylus-v0``, ``caylus_env/PuertoRico-v0``, ... (one per game,
  `caylus_env.gym_registration`): ``gymnasium.make(ID)`` gives the game's single-seat env, one
  learner seat against agents (``agents.seat_env``). Importing this package registers them,
  before or after Gymnasium is imported.

A game's engine is ``caylus_env.<game>.engine`` (NumPy and numba only). The names are loaded on
first use (PEP 562): ``import caylus_env`` and ``caylus_env.__version__`` cost nothing, and
code that needs only an engine never imports gymnasium or PettingZoo (the ids are registered
when Gymnasium's own import completes).
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

from caylus_env import gym_registration as _gym_registration
from caylus_env._version import __version__

if TYPE_CHECKING:
    from pettingzoo import AECEnv

    from caylus_env.core.errors import IllegalActionError, InvalidStateError
    from caylus_env.core.record import GameRecord, load_records, replay
    from caylus_env.core.registry import game_spec, games
    from caylus_env.core.vector import GameVectorEnv

#: Public name -> the module that defines it (a submodule is its own entry).
_LAZY = {
    "games": "caylus_env.core.registry",
    "game_spec": "caylus_env.core.registry",
    "GameRecord": "caylus_env.core.record",
    "load_records": "caylus_env.core.record",
    "replay": "caylus_env.core.record",
    "IllegalActionError": "caylus_env.core.game",
    "InvalidStateError": "caylus_env.core.game",
}

__all__ = [
    "GameRecord",
    "IllegalActionError",
    "InvalidStateError",
    "__version__",
    "game_spec",
    "games",
    "load_records",
    "make",
    "make_vector",
    "replay",
]


def make(game: str, *, wrapped: bool = True, **kwargs: Any) -> AECEnv:
    """The PettingZoo AEC environment of ``game``, like its ``env()``: a ``pettingzoo.AECEnv``
    (the game's ``raw_env``, a `caylus_env.core.env.GameEnv`, inside PettingZoo's classic
    wrappers, themselves ``AECEnv``).

    Args:
        game: a registered game's name (``caylus_env.games()``).
        wrapped: with PettingZoo's classic wrappers (``env()``); False gives ``raw_env``.
        **kwargs: ``num_players``, ``reward``, ``render_mode`` and the game's options.

    Raises:
        ValueError: for an unknown game (listing the registered ones) or argument.

    Examples:
        >>> import caylus_env
        >>> env = caylus_env.make("puerto_rico", num_players=3)
        >>> env.reset(seed=1)
        >>> env.agent_selection
        'player_0'
    """
    from caylus_env.core.registry import game_spec

    module = game_spec(game).module("env")
    return module.env(**kwargs) if wrapped else module.raw_env(**kwargs)


def make_vector(game: str, num_envs: int, **kwargs: Any) -> GameVectorEnv:
    """The compiled batched Gymnasium ``VectorEnv`` of ``game``
    (``caylus_env.core.vector.GameVectorEnv``): ``num_envs`` games stepped by one compiled
    call, masks in the observations, in ``info["action_mask"]`` and from ``action_masks()``.

    Args:
        game: a registered game's name.
        num_envs: the number of games, >= 1.
        **kwargs: ``num_players`` (one count, or one per game), ``copy`` and the game's
            options.

    Raises:
        ValueError: for an unknown game or argument.
    """
    from caylus_env.core.vector import GameVectorEnv

    return GameVectorEnv(game, num_envs, **kwargs)


def __getattr__(name: str) -> Any:
    """Import a public name's module on first access and cache the name here; a game's
    versioned entry point (its ``env_name``) is its shim module."""
    module_name = _LAZY.get(name)
    if module_name is None:
        from caylus_env.core.registry import games

        if name not in {spec.env_name for spec in games()}:
            raise AttributeError(f"module 'caylus_env' has no attribute {name!r}")
        module_name = f"caylus_env.{name}"
    module = importlib.import_module(module_name)
    value = module if module_name == f"caylus_env.{name}" else getattr(module, name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    from caylus_env.core.registry import games

    return sorted(set(globals()) | set(__all__) | {spec.env_name for spec in games()})


_gym_registration.install()
