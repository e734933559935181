"""Puerto Rico positions, built by hand: puzzles, endgames and the scenario tests of the rules.

A position is a ``state_dict``: start from ``position(...)`` (a new game, before any pick),
edit it with the helpers below, then ``start(d)`` builds the game, which the engine validates in
full (a position that breaks a rule is refused naming the field). Every helper moves components
from the supply they belong to (colonists, barrels, tiles, buildings, VP chips) or through the
bank (doubloons), so the positions keep the conservation invariants the loader checks (rules
1.1, 6.7). ``play(game, *names)`` applies actions by their stable names; ``legal_names(game)``
lists the legal ones. ``position``, ``start``, ``play`` and ``legal_names`` are the game
contract's position builder (``caylus_env.core.contract``); ``fresh``, ``game`` and ``act`` are
the scenario tests' shorter names for the first three.

Example:
    >>> from caylus_env.puerto_rico import positions as P
    >>> d = P.position(num_players=3)
    >>> P.money(d, 0, 5)
    >>> P.start(d).state_dict()["players"][0]["money"]
    7
"""

from __future__ import annotations

from typing import Any

from caylus_env.core.positions import legal_names, play
from caylus_env.puerto_rico.engine import Game, GameConfig
from caylus_env.puerto_rico.engine.buildings import BUILDING_NAMES, BUILDINGS

PHASE_OF_ROLE = {
    "settler": "settler",
    "mayor": "mayor",
    "builder": "builder",
    "craftsman": "craftsman",
    "trader": "trader",
    "captain": "captain",
}


def position(num_players: int = 3, seed: int = 0, **options: Any) -> dict[str, Any]:
    """The state dict of a new game, before any pick (with the expansion: after a random
    draft, rules 7.1, unless ``draft`` is given)."""
    config = GameConfig.from_dict({"draft": "random", **options, "num_players": num_players})
    return Game(config, seed=seed).state_dict()


def fresh(num_players: int = 3, seed: int = 0, expansion: bool = False) -> dict[str, Any]:
    """``position`` with the expansion as the one option (the scenario tests' name)."""
    return position(num_players, seed, expansion=expansion)


def drafted(d: dict[str, Any], *names: str) -> None:
    """Put these violet kinds on the supply board as if the draft had picked them."""
    for name in names:
        spec = BUILDINGS[BUILDING_NAMES.index(name)]
        if d["building_supply"][name] == 0:
            d["building_supply"][name] = spec.copies_2p if len(d["players"]) == 2 else spec.copies


def money(d: dict[str, Any], p: int, amount: int) -> None:
    """``amount`` doubloons from the bank to player ``p``."""
    d["players"][p]["money"] += amount
    d["bank_paid"] += amount


def goods(d: dict[str, Any], p: int, good: str, n: int) -> None:
    """``n`` barrels of ``good`` from the supply to player ``p``."""
    d["goods_supply"][good] -= n
    d["players"][p]["goods"][good] += n


def colonists(d: dict[str, Any], p: int, n: int) -> None:
    """``n`` colonists from the supply to San Juan."""
    d["colonist_supply"] -= n
    d["players"][p]["san_juan"] += n


def tile(d: dict[str, Any], p: int, kind: str, n: int = 1, worked: int = 0) -> None:
    """``n`` tiles of a kind onto the island (``worked`` of them occupied)."""
    for _ in range(n):
        if kind == "quarry":
            d["quarry_supply"] -= 1
        else:
            stack = d["plantation_stack"]
            idx = len(stack) - 1 - stack[::-1].index(kind)
            del stack[idx]
    d["players"][p]["island"][kind] += n
    d["players"][p]["worked"][kind] += worked
    d["colonist_supply"] -= worked


def building(d: dict[str, Any], p: int, name: str, workers: int = 1) -> None:
    """Building ``name`` from the supply to player ``p``'s city, with ``workers`` colonists
    from the supply on it (drafted first with the expansion)."""
    if d["options"]["expansion"]:
        drafted(d, name)
    d["building_supply"][name] -= 1
    d["players"][p]["buildings"][name] = workers
    d["colonist_supply"] -= workers


def vp(d: dict[str, Any], p: int, n: int) -> None:
    """``n`` VP chips from the supply to player ``p``."""
    d["vp_supply"] -= n
    d["players"][p]["vp"] += n


def start_role(d: dict[str, Any], role: str, picker: int) -> None:
    """Put the game at the start of ``role``'s phase, picked by ``picker`` this round."""
    d["phase"] = PHASE_OF_ROLE[role]
    d["picker"] = picker
    d["step"] = 0
    d["idle"] = 0
    d["picks"] = 1
    d["roles"][role]["picked"] = True
    d["pending"] = []


def start(d: dict[str, Any]) -> Game:
    """Build the game from the position (validated in full) and run to its first decision."""
    return Game.from_state_dict(d)


#: The names the scenario tests use for `start` and `play`.
game = start
act = play


__all__ = [
    "PHASE_OF_ROLE",
    "act",
    "building",
    "colonists",
    "drafted",
    "fresh",
    "game",
    "goods",
    "legal_names",
    "money",
    "play",
    "position",
    "start",
    "start_role",
    "tile",
    "vp",
]
