"""The games of the platform, by name: one registration line per game.

Every tool (CLI, tournament harness, datasets, training, viewer) names a game by the string of
its records' ``game`` field and reaches its code through `game_spec` (a
`caylus_env.core.contract.GameSpec`), never through a branch on the name. A game is registered
by one line of `GAME_PACKAGES`: its folder, whose ``__init__.py`` holds the spec as ``GAME``
(see ``docs/adding-a-game.md``). Game folders are imported on first use and hold no compiled
code at that level, so listing the games compiles nothing and choosing Caylus never imports
Puerto Rico's engine.

Examples:
    >>> from caylus_env.core.registry import GAME_NAMES, game_spec
    >>> GAME_NAMES
    ('caylus', 'puerto_rico', 'caylus_1303')
    >>> game_spec("puerto_rico").title
    'Puerto Rico'
"""

from __future__ import annotations

import importlib
from collections.abc import Mapping
from functools import cache
from typing import Any

from caylus_env.core.contract import GameSpec

#: The registered games' folders (each ``__init__.py`` defines ``GAME``), one line per game.
GAME_PACKAGES: tuple[str, ...] = (
    "caylus_env.caylus",
    "caylus_env.puerto_rico",
    "caylus_env.caylus_1303",
)

#: The game of files written before games were named (records, run directories, datasets and
#: checkpoints without a ``game`` field were all Caylus's).
DEFAULT_GAME = "caylus"


GAME_NAMES: tuple[str, ...] = tuple(p.rpartition(".")[2] for p in GAME_PACKAGES)
"""The registered games' names (each folder is named after its game)."""

_PACKAGE_OF = dict(zip(GAME_NAMES, GAME_PACKAGES, strict=True))


@cache
def _load(package: str) -> GameSpec:
    """The spec a game folder registers (its ``__init__``: facts only, no engine)."""
    spec = importlib.import_module(package).GAME
    if not isinstance(spec, GameSpec) or spec.package != package:
        raise TypeError(f"{package}.GAME must be the GameSpec of package {package}")
    if spec.name != package.rpartition(".")[2]:
        raise TypeError(f"{package}.GAME is called {spec.name!r}: a game's folder bears its name")
    return spec


def games() -> tuple[GameSpec, ...]:
    """Every registered game, in registration order."""
    return tuple(_load(p) for p in GAME_PACKAGES)


def game_spec(name: str) -> GameSpec:
    """The game called ``name`` (only its own folder is imported: one game never loads
    another's modules).

    Raises:
        ValueError: for a name that is not a registered game, listing the registered ones.
    """
    package = _PACKAGE_OF.get(name) if isinstance(name, str) else None
    if package is None:
        raise ValueError(f"unknown game {name!r}; allowed: {', '.join(GAME_NAMES)}")
    return _load(package)


def record_game(record: Mapping[str, Any], expected: str | None = None) -> GameSpec:
    """The game a record (its dict form), run directory or manifest belongs to, checked
    against ``expected``; no ``game`` field means `DEFAULT_GAME` (files from before games had
    names).

    Raises:
        ValueError: for an unknown game, or another game than ``expected`` (naming both, so
            that a Puerto Rico record given to a Caylus command says so).
    """
    if not isinstance(record, Mapping):
        raise ValueError(f"a record must be a JSON object, got {type(record).__name__}")
    spec = game_spec(record.get("game", DEFAULT_GAME))
    if expected is not None and spec.name != expected:
        raise ValueError(
            f"this is a {spec.title} record (game {spec.name!r}); expected a "
            f"{game_spec(expected).title} record (game {expected!r}): pass --game {spec.name}"
        )
    return spec


def game_of(info: Mapping[str, Any]) -> str:
    """The game named by a ``run.json``, a manifest or worker settings (`DEFAULT_GAME` when
    the file predates the field)."""
    return str(info.get("game", DEFAULT_GAME))


__all__ = [
    "DEFAULT_GAME",
    "GAME_NAMES",
    "GAME_PACKAGES",
    "game_of",
    "game_spec",
    "games",
    "record_game",
]
