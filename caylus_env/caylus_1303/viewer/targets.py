"""Caylus 1303's board targets: the slot of the drawing each legal action stands for, so that a
person plays by clicking the board (``caylus serve``; ``caylus_env.core.viewer.targets``).

- ``place:<space>``: that printed building or Road space (``space:<space>``);
- ``site``: the Construction Site's worker slots; ``pass``: the Guilds Bridge, where the pass
  house goes (rules 4.1 B, C);
- ``character:<name>`` (the draft, an available character) and ``steal:<name>`` (a Favor):
  that character;
- ``use_site:S<k>``: that site building (rules 4.5);
- ``mark:R<k>``: that Road space (the Lawyer's mark, D21); ``residence:R<k>``: that Road
  space, the residence the monument being built replaces (D4);
- ``provost:<d>``: the Road space the Provost would stand after (none for the place before R1);
- ``construct:<tile>``: the tile in the wood or stone supply; ``monument:<name>``: the
  monument in the supply;
- ``take:<resource>`` and ``pay:<resource>``: that resource on the player's panel.

The others (``decline``, ``option:*``, ``bundle:*``) have no place of their own on the board:
they are played from the list of legal actions by name.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from caylus_env.caylus_1303.engine.actions import action_to_string
from caylus_env.caylus_1303.engine.constants import PROVOST_MAX, RESOURCE_NAMES
from caylus_env.caylus_1303.engine.tiles import KIND_OF, TILES, Group
from caylus_env.core.viewer.targets import one_action_per_slot, resource_slot

#: The supply slot prefix of each constructible group (``supply.SUPPLIES``).
SUPPLY_OF = {Group.WOOD: "wood", Group.STONE: "stone", Group.MONUMENT: "monument"}


def _slot(d: dict[str, Any], name: str) -> str | None:
    head, _, arg = name.partition(":")
    if head in ("place", "mark", "residence"):
        return f"space:{arg}"
    if head == "site":
        return "site"
    if head == "pass":
        return "bridge"
    if head in ("character", "steal"):
        return f"character:{arg}"
    if head == "use_site":
        return f"site:{arg}"
    if head in ("construct", "monument"):
        return f"{SUPPLY_OF[TILES[KIND_OF[arg]].group]}:{arg}"
    if head == "provost":
        p = int(d["provost"]) + int(arg)
        return f"space:R{p}" if 1 <= p <= PROVOST_MAX else None
    return resource_slot(d, head, arg, RESOURCE_NAMES)


def board_targets(d: dict[str, Any], legal: Sequence[int]) -> dict[int, str]:
    """Caylus 1303's ``board_targets`` (the game contract): ``{action id: slot}`` for the legal
    actions of position ``d`` (a ``state_dict``) that have a place on its board, the slots of
    the module docstring.

    Example:
        >>> from caylus_env.caylus_1303.engine import Game, GameConfig
        >>> g = Game(GameConfig(num_players=3), seed=7)
        >>> targets = board_targets(g.state_dict(), g.legal_actions())
        >>> sorted(targets.values())[:2]
        ['character:bailiff', 'character:day_laborer']
    """
    return one_action_per_slot((a, _slot(d, action_to_string(a))) for a in legal)


__all__ = ["board_targets"]
