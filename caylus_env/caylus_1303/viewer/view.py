"""What the drawing reads of a position: the flat state (``engine.layout``) as plain values.

The drawing takes a state dict, the game contract's word (``Drawing.draw``), turns it into the
flat state with the engine's validating reader (``engine.dict_to_state``) and reads it here,
once, into a `View` of Python ints and tuples. So the drawing modules depend on the layout's
named offsets only through this module, and every slot drawing is a pure function of a few
hashable values (cached, and stored once by the page).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from caylus_env.caylus_1303.engine import layout as L
from caylus_env.caylus_1303.engine.constants import (
    DECISION_NAMES,
    MAX_PLAYERS,
    MAX_WORKERS_ON_BUILDING,
    NUM_CHARACTERS,
    NUM_RESOURCES,
    NUM_SPACES,
    PHASE_NAMES,
    Phase,
)
from caylus_env.caylus_1303.engine.state_dict import dict_to_state
from caylus_env.caylus_1303.engine.tiles import MONUMENT_KINDS, NUM_STONE, NUM_WOOD
from caylus_env.core.loop import E_KIND, E_PLAYER


@dataclass(frozen=True)
class Space:
    """One building space: its tile kind (-1 empty), side, owner, Lawyer's mark (-1 none) and
    workers in placing order (absent ones left out, D26)."""

    kind: int
    side: int
    owner: int
    mark: int
    workers: tuple[int, ...]


@dataclass(frozen=True)
class Seat:
    """One player's public counts (rules 2.2, 4.7); ``pp`` is shown only where allowed
    (D37)."""

    hand: int
    camp: int
    resources: tuple[int, ...]
    pp: int
    houses: int
    passed: bool


@dataclass(frozen=True)
class View:
    """A position as the drawing reads it (see the module docstring)."""

    num_players: int
    hide_pp: bool
    round: int
    phase: str
    first_player: int
    provost: int
    spaces: tuple[Space, ...]
    bridge: tuple[int, ...]
    site: tuple[int, ...]
    wood: tuple[bool, ...]
    stone: tuple[bool, ...]
    monuments: tuple[bool, ...]
    holders: tuple[int, ...]
    used: tuple[bool, ...]
    seats: tuple[Seat, ...]
    #: The pending decision's kind name and seat, or None when nothing is asked.
    asked: tuple[str, int] | None

    @property
    def over(self) -> bool:
        """Whether the game has ended (rules 4.6): final scores may be shown (D37)."""
        return self.phase == PHASE_NAMES[Phase.GAME_OVER]

    @property
    def pp_hidden(self) -> bool:
        """Whether no prestige may be drawn: the option is on and the game runs (D37; a
        replay page has no viewpoint, so every seat's prestige is hidden)."""
        return self.hide_pp and not self.over


def _row(s: np.ndarray, offset: int, size: int) -> tuple[int, ...]:
    return tuple(int(v) for v in s[offset : offset + size])


def read(s: np.ndarray) -> View:
    """The `View` of the flat state ``s`` (an already validated state array)."""
    n = int(s[L.NUM_PLAYERS])
    spaces = []
    for sp in range(NUM_SPACES):
        workers = _row(s, L.SPACE_WORKER + sp * MAX_WORKERS_ON_BUILDING, MAX_WORKERS_ON_BUILDING)
        spaces.append(
            Space(
                kind=int(s[L.SPACE_KIND + sp]),
                side=int(s[L.SPACE_SIDE + sp]),
                owner=int(s[L.SPACE_OWNER + sp]),
                mark=int(s[L.SPACE_MARK + sp]),
                workers=tuple(w for w in workers if w >= 0),
            )
        )
    seats = []
    for p in range(n):
        o = L.PLAYERS + p * L.PLAYER_STRIDE
        seats.append(
            Seat(
                hand=int(s[o + L.P_HAND]),
                camp=int(s[o + L.P_CAMP]),
                resources=_row(s, o + L.P_RESOURCES, NUM_RESOURCES),
                pp=int(s[o + L.P_PP]),
                houses=int(s[o + L.P_HOUSES]),
                passed=bool(s[o + L.P_PASSED]),
            )
        )
    asked = None
    depth = int(s[L.STACK_SIZE])
    if depth:
        top = L.STACK + (depth - 1) * L.STACK_ENTRY
        asked = (DECISION_NAMES[int(s[top + E_KIND])], int(s[top + E_PLAYER]))
    return View(
        num_players=n,
        hide_pp=bool(s[L.OPT_HIDE_PP]),
        round=int(s[L.ROUND]),
        phase=PHASE_NAMES[int(s[L.PHASE])],
        first_player=int(s[L.FIRST_PLAYER]),
        provost=int(s[L.PROVOST]),
        spaces=tuple(spaces),
        bridge=tuple(p for p in _row(s, L.BRIDGE, MAX_PLAYERS) if p >= 0),
        site=tuple(p for p in _row(s, L.SITE, MAX_PLAYERS) if p >= 0),
        wood=tuple(v == 1 for v in _row(s, L.WOOD_SUPPLY, NUM_WOOD)),
        stone=tuple(v == 1 for v in _row(s, L.STONE_SUPPLY, NUM_STONE)),
        monuments=tuple(v == 1 for v in _row(s, L.MONUMENT_SUPPLY, len(MONUMENT_KINDS))),
        holders=_row(s, L.CHARACTER_HOLDER, NUM_CHARACTERS),
        used=tuple(v == 1 for v in _row(s, L.CHARACTER_USED, NUM_CHARACTERS)),
        seats=tuple(seats),
        asked=asked,
    )


def view_of(d: dict[str, Any]) -> View:
    """The `View` of the state dict ``d``.

    Raises:
        InvalidStateError: (a ``ValueError``) naming the first field of ``d`` that is wrong,
            from the engine's reader, before anything is drawn.
    """
    return read(dict_to_state(d))


__all__ = ["Seat", "Space", "View", "read", "view_of"]
