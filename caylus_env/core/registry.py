"""The games of the platform, by name: where each one's engine, environment and agents live.

Every tool (CLI, tournament harness, datasets, training, viewer) names a game by the string
of its records' ``game`` field and reaches its modules through `game_info`, so that adding
a game is one entry here plus the modules it names (see ``docs/adding-a-game.md``). Modules
are imported on first use: choosing Caylus never compiles Puerto Rico's kernels.

Each engine module provides the same surface: ``Game``, ``GameConfig``, ``GameRecord``,
``IllegalActionError``, ``replay``, ``NUM_ACTIONS``, ``ACTION_NAMES``, ``BLOCKS``,
``action_to_string`` and ``string_to_action``.

Example:
    >>> from caylus_env.core.registry import GAME_NAMES, game_info
    >>> GAME_NAMES
    ('caylus', 'puerto_rico')
    >>> game_info("puerto_rico").title
    'Puerto Rico'
"""

from __future__ import annotations

import importlib
from collections.abc import Mapping
from dataclasses import dataclass
from types import ModuleType
from typing import Any

DEFAULT_GAME = "caylus"


@dataclass(frozen=True)
class GameInfo:
    """One game of the platform.

    Attributes:
        name: The game's name, as in its records' ``game`` field and ``--game``.
        title: The name people use.
        engine: Module of the rules engine (the surface listed in this module's docstring).
        env: Module of the versioned PettingZoo entry point (``env()``, ``raw_env``).
        agents: Module of the game's agent registry (``make_agent``, ``describe``,
            ``available_agents``, ``specs``, ``register``, ``unregister``).
        min_players: Fewest players the rules allow.
        max_players: Most players the rules allow.
    """

    name: str
    title: str
    engine: str
    env: str
    agents: str
    min_players: int
    max_players: int

    def engine_module(self) -> ModuleType:
        """The rules engine, imported on first use."""
        return importlib.import_module(self.engine)

    def env_module(self) -> ModuleType:
        """The versioned PettingZoo entry point, imported on first use."""
        return importlib.import_module(self.env)

    def agents_module(self) -> ModuleType:
        """The game's agent registry, imported on first use."""
        return importlib.import_module(self.agents)


GAMES: dict[str, GameInfo] = {
    "caylus": GameInfo(
        name="caylus",
        title="Caylus",
        engine="caylus_env.caylus.engine",
        env="caylus_env.caylus_v0",
        agents="agents.registry",
        min_players=2,
        max_players=5,
    ),
    "puerto_rico": GameInfo(
        name="puerto_rico",
        title="Puerto Rico",
        engine="caylus_env.puerto_rico.engine",
        env="caylus_env.puerto_rico_v0",
        agents="agents.puerto_rico.registry",
        min_players=2,
        max_players=5,
    ),
}
GAME_NAMES: tuple[str, ...] = tuple(GAMES)


def game_info(name: str) -> GameInfo:
    """The game called ``name``.

    Raises:
        ValueError: for a name that is not a game of the platform, listing the allowed ones.
    """
    info = GAMES.get(name) if isinstance(name, str) else None
    if info is None:
        raise ValueError(f"unknown game {name!r}; allowed: {', '.join(GAME_NAMES)}")
    return info


def record_game(record: Mapping[str, Any], expected: str | None = None) -> GameInfo:
    """The game a record (its dict form) belongs to, checked against ``expected``.

    Records without a ``game`` field are Caylus records of the first format, which had none.

    Raises:
        ValueError: for a record of an unknown game, or of another game than ``expected``
            (naming both, so that a Puerto Rico record given to a Caylus tool says so).
    """
    if not isinstance(record, Mapping):
        raise ValueError(f"a record must be a JSON object, got {type(record).__name__}")
    name = record.get("game", DEFAULT_GAME)
    info = game_info(name)
    if expected is not None and info.name != expected:
        raise ValueError(
            f"this is a {info.title} record (game {info.name!r}); expected a "
            f"{game_info(expected).title} record (game {expected!r}): pass --game {info.name}"
        )
    return info
