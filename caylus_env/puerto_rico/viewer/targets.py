"""Puerto Rico's board targets: the slot of the drawing each legal action stands for, so that
a person plays by clicking the board (``caylus serve``; ``caylus_env.core.viewer.targets``).

- ``role:<role>``: the role card;
- ``settle:<plantation>``: the first face-up plantation of that kind; ``settle:quarry``: the
  supplies box (where the quarries left are counted);
- ``build:<building>`` and ``draft:<building>``: the building's cell of the building supply;
- ``place:<tile>``: the player's first island tile of that kind without a colonist;
  ``place:<building>``: the building in the player's city;
- ``load:<good>:ship<k>``: cargo ship k;
- ``craft:<good>``: the good in the goods supply;
- ``sell:``, ``keep:``, ``wharf:``, ``small_wharf:``, ``post:<good>`` and ``return:<good>``:
  the player's barrels of that good; ``return:colonist:<tile or building>``: that tile or
  building of the player's.

A slot two legal actions of one decision would claim (``sell:corn`` and ``post:corn`` asked
together) stands for neither: both are played from the list, as are ``accept``, ``decline``,
``return:vp``, ``settle:forest`` and ``return:colonist:san_juan``. The targets read only
what the drawing shows (never the face-down plantations, rules 6.8).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from caylus_env.core.viewer.targets import one_action_per_slot
from caylus_env.puerto_rico.engine.actions import action_to_string
from caylus_env.puerto_rico.engine.constants import GOOD_NAMES, NUM_PLANTATION_KINDS, TILE_NAMES
from caylus_env.puerto_rico.viewer import players

PLANTATIONS = TILE_NAMES[:NUM_PLANTATION_KINDS]
#: Actions on one of the player's goods: the good is their last word.
GOOD_HEADS = ("sell", "keep", "wharf", "small_wharf", "post")


def _face_up_index(d: dict[str, Any], kind: str) -> int | None:
    """The first face-up place showing ``kind`` (the drawing lays them out kind by kind)."""
    if kind not in PLANTATIONS or d["face_up"][kind] == 0:
        return None
    return sum(d["face_up"][k] for k in PLANTATIONS[: PLANTATIONS.index(kind)])


def _island_index(p: dict[str, Any], kind: str) -> int | None:
    """The player's first island space with a ``kind`` tile and no colonist, else its first
    ``kind`` tile."""
    tiles = players.island_tiles(p)
    free = [i for i, t in enumerate(tiles) if t is not None and t == (kind, False)]
    owned = [i for i, t in enumerate(tiles) if t is not None and t[0] == kind]
    return (free or owned or [None])[0]


def _city_index(p: dict[str, Any], building: str) -> int | None:
    """The city space the drawing puts ``building`` on (``players.city_spaces``)."""
    index = 0
    for row in players.city_rows(p):
        names = [b for b, _ in row]
        if building in names:
            return index + names.index(building)
        index += players.CITY_COLS
    return None


def _slot(d: dict[str, Any], seat: int, name: str) -> str | None:
    words = name.split(":")
    head, arg = words[0], words[1] if len(words) > 1 else ""
    p = d["players"][seat]
    me = f"player:{seat}"
    if head == "role":
        return f"role:{arg}"
    if head == "settle":
        if arg == "quarry":
            return "supplies"
        i = _face_up_index(d, arg)
        return None if i is None else f"face_up:{i}"
    if head in ("build", "draft"):
        return f"supply:{arg}"
    if head == "load":
        return f"ship:{words[2].removeprefix('ship')}"
    if head == "craft":
        return f"goods_supply:{arg}"
    if head in GOOD_HEADS or (head == "return" and arg in GOOD_NAMES):
        return f"{me}:good:{arg}"
    if head == "place" or (head == "return" and arg == "colonist"):
        where = words[-1]
        if where in TILE_NAMES:
            i = _island_index(p, where)
            return None if i is None else f"{me}:island:{i}"
        i = _city_index(p, where)
        return None if i is None else f"{me}:city:{i}"
    return None


def board_targets(d: dict[str, Any], legal: Sequence[int]) -> dict[int, str]:
    """``{action id: slot}`` for the legal actions of position ``d`` (a ``state_dict``) that
    have a place on the board (see the module docstring).

    Example:
        >>> from caylus_env.puerto_rico.engine import Game, GameConfig
        >>> g = Game(GameConfig(num_players=3), seed=1)
        >>> targets = board_targets(g.state_dict(), g.legal_actions())
        >>> sorted(targets.values())[:2]
        ['role:builder', 'role:captain']
    """
    if not d["pending"] or not legal:
        return {}
    seat = d["pending"][-1]["player"]
    return one_action_per_slot((a, _slot(d, seat, action_to_string(a))) for a in legal)


__all__ = ["board_targets"]
