"""Helpers that build Puerto Rico positions from state dicts for the scenario tests.

Every helper moves components from the supply it belongs to (colonists, barrels, tiles,
buildings, VP chips) or through the bank (doubloons), so the positions keep the
conservation invariants the loader checks.
"""

from __future__ import annotations

from typing import Any

from caylus_env.puerto_rico.engine import Game, GameConfig, action_to_string, string_to_action
from caylus_env.puerto_rico.engine.buildings import BUILDING_NAMES, BUILDINGS

PHASE_OF_ROLE = {
    "settler": "settler",
    "mayor": "mayor",
    "builder": "builder",
    "craftsman": "craftsman",
    "trader": "trader",
    "captain": "captain",
}


def fresh(num_players: int = 3, seed: int = 0, expansion: bool = False) -> dict[str, Any]:
    """The state dict of a new game, before any pick (expansion: after a random draft)."""
    config = GameConfig(num_players=num_players, expansion=expansion, draft="random")
    return Game(config, seed=seed).state_dict()


def drafted(d: dict[str, Any], *names: str) -> None:
    """Put these violet kinds on the supply board as if the draft had picked them."""
    for name in names:
        spec = BUILDINGS[BUILDING_NAMES.index(name)]
        if d["building_supply"][name] == 0:
            d["building_supply"][name] = spec.copies_2p if len(d["players"]) == 2 else spec.copies


def money(d: dict[str, Any], p: int, amount: int) -> None:
    d["players"][p]["money"] += amount
    d["bank_paid"] += amount


def goods(d: dict[str, Any], p: int, good: str, n: int) -> None:
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
    if d["options"]["expansion"]:
        drafted(d, name)
    d["building_supply"][name] -= 1
    d["players"][p]["buildings"][name] = workers
    d["colonist_supply"] -= workers


def vp(d: dict[str, Any], p: int, n: int) -> None:
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


def game(d: dict[str, Any]) -> Game:
    return Game.from_state_dict(d)


def act(g: Game, *names: str) -> None:
    """Apply actions by their stable names."""
    for name in names:
        g.apply(string_to_action(name))


def legal_names(g: Game) -> list[str]:
    return [action_to_string(a) for a in g.legal_actions()]
