"""Caylus's board targets: the slot of the drawing each legal action stands for, so that a
person plays by clicking the board (``caylus serve``; ``caylus_env.core.viewer.targets``).

- ``place:<target>`` and ``gate:<target>``: the special building (``special:<name>``), the
  castle (``castle:workers``) or the road space (``road:<k>``) the worker goes to;
- ``space:<k>`` (the lawyer's building, the architect's residence): the road space;
- ``provost:<d>`` and ``guild:<d>``: the road space the provost moves to;
- ``favor:<row>``: the favor table's row;
- ``take:<cube>`` and ``pay:<cube>``: that cube's count on the player's card.

The others (``pass``, ``decline``, ``build:*``, ``batch:*``, ``column:*``, ``option:*``,
``inn:*``, ``joust``) have no place of their own on the board: they are played from the list.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from caylus_env.caylus.engine.actions import action_to_string
from caylus_env.caylus.engine.constants import RESOURCE_NAMES, SPECIAL_NAMES
from caylus_env.core.viewer.targets import one_action_per_slot, resource_slot


def _target_slot(target: str) -> str:
    """The slot of a placement target's name (``inn``, ``castle``, ``road:12``)."""
    if target in SPECIAL_NAMES:
        return f"special:{target}"
    if target == "castle":
        return "castle:workers"
    return target  # road:<k> is the road space's slot


def _slot(d: dict[str, Any], name: str) -> str | None:
    head, _, arg = name.partition(":")
    if head in ("place", "gate"):
        return _target_slot(arg)
    if head == "space":
        return f"road:{arg}"
    if head in ("provost", "guild"):
        return f"road:{d['provost'] + int(arg)}"
    if head == "favor":
        return f"favors:{arg}"
    return resource_slot(d, head, arg, RESOURCE_NAMES)


def board_targets(d: dict[str, Any], legal: Sequence[int]) -> dict[int, str]:
    """Caylus's ``board_targets`` (the game contract): ``{action id: slot}`` for the legal
    actions of position ``d`` (a ``state_dict``) that have a place on its board, the slots of
    the module docstring.

    Example:
        >>> from caylus_env.caylus.engine import Game, GameConfig
        >>> g = Game(GameConfig(num_players=2), seed=1)
        >>> targets = board_targets(g.state_dict(), g.legal_actions())
        >>> sorted({g.action_to_string(a).split(":")[0] for a in targets})
        ['place']
    """
    return one_action_per_slot((a, _slot(d, action_to_string(a))) for a in legal)


__all__ = ["board_targets"]
