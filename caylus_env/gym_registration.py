"""The games' Gymnasium ids, ``caylus_env/<Name>-v<N>``: registered when ``caylus_env`` is
imported, whichever of ``caylus_env`` and ``gymnasium`` is imported first.

Every registered game gets one id in Gymnasium's ``namespace/Name-vN`` convention: the
namespace is this package's name, the name is the game's registered name in CamelCase and the
version is `VERSION`: ``caylus_env/Caylus-v0``, ``caylus_env/PuertoRico-v0``,
``caylus_env/Caylus1303-v0`` (`env_ids`). The ids come from the registry's names alone, so
registering them imports no game's folder (using one game never loads another's modules). Each makes the single-seat env
(``agents.seat_env.SeatEnv``: one learner seat, agents in the other seats) of its game, so
``gymnasium.make(ID, **kwargs)``, ``gymnasium.make_vec(ID, n)`` and every trainer that takes
an id work with no glue. The entry point is named as a string (`ENTRY_POINT`): the
environment package never imports the agents layer; Gymnasium imports it when an env is made.

``import caylus_env`` stays free of Gymnasium (code that needs only an engine never imports
it): when Gymnasium is already imported the ids are registered at once, otherwise a finder
on ``sys.meta_path`` registers them the moment Gymnasium's import completes, and removes
itself. Gymnasium 1.0 removed the plugin entry points (``gymnasium.envs``) that older versions
read, so an installed package cannot register ids by metadata alone; a tool that takes only
an id string and never imports ``caylus_env`` reaches them with Gymnasium's own module prefix,
``gymnasium.make("caylus_env:caylus_env/Caylus-v0")``, which imports the package first.
"""

from __future__ import annotations

import importlib.abc
import sys
from types import ModuleType
from typing import Any

#: The ids' namespace: this package's import name.
NAMESPACE = __name__.partition(".")[0]
#: What every id makes (``module:attribute``, imported by Gymnasium when an env is made).
ENTRY_POINT = "agents.seat_env:SeatEnv"
#: The ids' version: the single-seat env's interface (its spaces, rewards and infos), the same
#: for every game; raised when that interface changes.
VERSION = 0


def env_id(game: str) -> str:
    """The Gymnasium id of a registered game (``"puerto_rico"`` -> ``caylus_env/PuertoRico-v0``).

    Raises:
        ValueError: for a game that is not registered, listing the registered ones.
    """
    from caylus_env.core.registry import GAME_NAMES, game_spec

    if game not in GAME_NAMES:
        game_spec(game)  # raises, naming the registered games (and imports nothing)
    name = "".join(part.capitalize() for part in game.split("_"))
    return f"{NAMESPACE}/{name}-v{VERSION}"


def env_ids() -> dict[str, str]:
    """Every registered game's Gymnasium id, by game name, in registration order."""
    from caylus_env.core.registry import GAME_NAMES

    return {game: env_id(game) for game in GAME_NAMES}


def register_envs() -> None:
    """Register every game's id with Gymnasium (imported here); an id already registered is
    left as it is, so a second call (a reload of the package) warns about nothing."""
    import gymnasium

    for game, gym_id in env_ids().items():
        if gym_id not in gymnasium.registry:
            gymnasium.register(id=gym_id, entry_point=ENTRY_POINT, kwargs={"game": game})


class _RegisteringLoader(importlib.abc.Loader):
    """Gymnasium's own loader, which registers the ids once Gymnasium's module has run."""

    def __init__(self, loader: Any) -> None:
        self.loader = loader

    def create_module(self, spec: Any) -> ModuleType | None:
        return self.loader.create_module(spec)

    def exec_module(self, module: ModuleType) -> None:
        # The module keeps its real loader (importlib.resources reads through it).
        module.__loader__ = self.loader
        if module.__spec__ is not None:
            module.__spec__.loader = self.loader
        try:
            self.loader.exec_module(module)
        finally:
            _remove_finder()
        register_envs()


class _GymnasiumFinder(importlib.abc.MetaPathFinder):
    """Finds ``gymnasium`` through the finders after it and wraps its loader in
    `_RegisteringLoader`; any other name is left to the other finders."""

    def find_spec(self, fullname: str, path: Any = None, target: Any = None) -> Any:
        if fullname != "gymnasium":
            return None
        later = sys.meta_path[sys.meta_path.index(self) + 1 :]
        for finder in later:
            find = getattr(finder, "find_spec", None)
            spec = find(fullname, path, target) if find is not None else None
            if spec is not None:
                break
        else:
            return None
        if spec.loader is not None:
            spec.loader = _RegisteringLoader(spec.loader)
        return spec


def _remove_finder() -> None:
    sys.meta_path[:] = [f for f in sys.meta_path if not isinstance(f, _GymnasiumFinder)]


def install() -> None:
    """Register the ids now if Gymnasium is imported, else when it is (``caylus_env``'s
    import calls this)."""
    if "gymnasium" in sys.modules:
        register_envs()
    elif not any(isinstance(f, _GymnasiumFinder) for f in sys.meta_path):
        sys.meta_path.insert(0, _GymnasiumFinder())


__all__ = [
    "ENTRY_POINT",
    "NAMESPACE",
    "VERSION",
    "env_id",
    "env_ids",
    "install",
    "register_envs",
]
