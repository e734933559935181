"""Caylus positions, built by hand: puzzles, endgames and the scenario tests of the rules
(boardgame.io's "override setup" idea).

A position is a ``state_dict``: start from ``position(...)``, edit it with the helpers below
(each keeps the position consistent: a building taken from the stock, a house counted with its
owner, a worker counted out of its owner's six), then ``start(d)`` builds the game, which the
engine validates in full (``caylus_env.caylus.engine.validate``: a position that breaks a rule
is refused naming the field) and runs to its first decision from the phase and cursor the dict
names. ``play(game, *names)`` applies actions by their stable names; ``legal_names(game)``
lists the legal ones. The four are the game contract's position builder
(``caylus_env.core.contract``).

Example:
    >>> from caylus_env.caylus import positions as P
    >>> d = P.position(num_players=2)
    >>> P.set_player(d, 0, money=9, gold=1)
    >>> game = P.start(d)
    >>> game.state_dict()["players"][0]["money"]
    9
"""

from __future__ import annotations

import copy
from typing import Any

from caylus_env.caylus.engine import Game, GameConfig
from caylus_env.caylus.engine.buildings import BUILDINGS, NEUTRAL_TILES
from caylus_env.core.positions import legal_names, play

NEUTRAL_ORDER = [BUILDINGS[b].name for b in NEUTRAL_TILES]  # farm, forest, sawmill, quarry, ...


def position(num_players: int = 4, phase: str = "placement", **options: Any) -> dict[str, Any]:
    """A clean position of turn 1 at the start of ``phase``, nothing pending.

    Neutral tiles stand on spaces 1-6 in table order (farm_neutral on 1 ...
    marketplace_neutral on 6), turn order is 0, 1, 2, ...; every player has
    5 deniers, 1 wood + 2 food, 0 prestige, no worker out.
    """
    d = Game(GameConfig(num_players=num_players, **options), seed=0).state_dict()
    d = copy.deepcopy(d)
    for k, name in enumerate(NEUTRAL_ORDER):
        d["road"][k]["building"] = name
    d["turn_order"] = list(range(num_players))
    d["passing_order"] = []
    d["phase"] = phase
    d["cursor"] = 0
    d["pending"] = []
    for p in d["players"]:
        p.update(money=5, prestige=0, workers_out=0, passed=False, batches=0, rows_used=[])
        p["cubes"] = {"food": 2, "wood": 1, "stone": 0, "cloth": 0, "gold": 0}
    return d


def set_player(d: dict[str, Any], p: int, **fields: Any) -> None:
    """Set fields of player ``p``; ``food=3`` etc. set cubes."""
    for k, v in fields.items():
        if k in d["players"][p]["cubes"]:
            d["players"][p]["cubes"][k] = v
        else:
            d["players"][p][k] = v


def space(d: dict[str, Any], k: int) -> dict[str, Any]:
    """The road entry of space ``k`` (1-28)."""
    return d["road"][k - 1]


def build_on(d: dict[str, Any], k: int, building: str, owner: int | None) -> None:
    """Put ``building`` on road space ``k`` (taking it from the stock if it is a tile)."""
    space(d, k)["building"] = building
    space(d, k)["owner"] = owner
    if d["stock"].get(building, 0) > 0:
        d["stock"][building] -= 1
    if owner is not None:
        d["players"][owner]["houses"] += 1


def set_castle(d: dict[str, Any], section: str, houses: list[int]) -> None:
    """Put ``houses[p]`` houses of each player in castle ``section``; each player's house
    count (buildings + castle houses) follows, so the position stays consistent."""
    old = d["castle"][section]
    for p, n in enumerate(houses):
        d["players"][p]["houses"] += n - old[p]
    d["castle"][section] = list(houses)


def put_worker(d: dict[str, Any], p: int, where: int | str) -> None:
    """A worker of ``p`` on road space ``where`` or on a special/castle target name."""
    d["players"][p]["workers_out"] += 1
    if isinstance(where, int):
        space(d, where)["worker"] = p
    elif where in d["special_workers"]:
        d["special_workers"][where] = p
    elif where == "castle":
        d["castle_workers"].append(p)
    elif where == "stables":
        d["stables"][d["stables"].index(None)] = p
    elif where in ("inn_left", "inn_right"):
        d["inn"][where[4:]] = p
    else:
        raise ValueError(
            f"unknown worker target {where!r}; allowed: a road space 1-28, "
            f"{', '.join(d['special_workers'])}, castle, stables, inn_left, inn_right"
        )


def all_passed(d: dict[str, Any], order: list[int] | None = None) -> None:
    """Mark every player as passed (phase 2 over), in ``order`` (default turn order)."""
    order = list(d["turn_order"]) if order is None else order
    d["passing_order"] = order
    for p in order:
        d["players"][p]["passed"] = True


def start(d: dict[str, Any]) -> Game:
    """Build the game from the position and run to its first decision."""
    return Game.from_state_dict(d)


def player(game: Game, p: int) -> dict[str, Any]:
    """Player ``p``'s part of the game's state dict."""
    return game.state_dict()["players"][p]


def cubes(game: Game, p: int) -> dict[str, int]:
    """Player ``p``'s cubes by kind."""
    return player(game, p)["cubes"]


__all__ = [
    "NEUTRAL_ORDER",
    "all_passed",
    "build_on",
    "cubes",
    "legal_names",
    "play",
    "player",
    "position",
    "put_worker",
    "set_castle",
    "set_player",
    "space",
    "start",
]
