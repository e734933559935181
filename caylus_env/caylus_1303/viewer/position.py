"""One position as one SVG picture, cut into named *slots*.

A slot is one part of the picture that changes on its own (a Road space, the bridge, a supply
tile, one number on a player's panel). ``slot_origins`` lists them in drawing order with where
each stands, ``draw_slots`` draws each from a `View` of the position, `Drawing` hands them to
the shared replay page (``caylus_env.core.viewer``) and ``position_svg`` joins them into a
standalone SVG, so the page and the golden pictures share one drawing code.

Top to bottom: the header; the printed buildings a-d, the Guilds Bridge and the Construction
Site; the Road R1..R23 and the Provost; the supplies; the characters; the player panels
(docs/rules/caylus_1303.md 3.1).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from caylus_env.caylus_1303 import GAME
from caylus_env.caylus_1303.engine.constants import (
    NUM_PRINTED,
    ROAD_SPACES,
    SITE_BUILDINGS,
    SPACE_NAMES,
)
from caylus_env.caylus_1303.engine.decisions import ENTRY_OF_NAME
from caylus_env.caylus_1303.engine.tiles import SIDE_NAMES
from caylus_env.caylus_1303.viewer import board, players, supply
from caylus_env.caylus_1303.viewer.board import (
    BRIDGE_X,
    LEGEND_Y,
    SITE_X,
    TOP_H,
    TOP_Y,
    WIDTH,
)
from caylus_env.caylus_1303.viewer.theme import HEADER_COLOUR, LABELS, PAGE_COLOUR
from caylus_env.caylus_1303.viewer.view import View, read, view_of
from caylus_env.core import viewer
from caylus_env.core.viewer import svg
from caylus_env.core.viewer.theme import PAPER

SUPPLY_Y = LEGEND_Y + 14
PLAYERS_Y = supply.characters_top(SUPPLY_Y) + supply.CHARACTER_H + 14
HEIGHT = PLAYERS_Y + players.PANEL_H + 22
#: The Construction Site's worker slots, in the site box.
SITE_SLOTS = (SITE_X + 8, TOP_Y + TOP_H - 16)
#: What each decision kind asks, by its name (the engine's decision schema).
DECISION_DOCS = {name: entry.doc for name, entry in ENTRY_OF_NAME.items()}
#: Slot names of the placement targets, by building space index (printed a-d, R1..R23).
SPACE_SLOTS = tuple(f"space:{SPACE_NAMES[i]}" for i in range(NUM_PRINTED + ROAD_SPACES))


def slot_origins(num_players: int) -> dict[str, tuple[int, int]]:
    """Top-left corner of every slot of a game with ``num_players`` seats, in drawing order
    (later on top); the header and the Provost are drawn in the picture's coordinates."""
    out: dict[str, tuple[int, int]] = {"background": (0, 0), "header": (0, 0)}
    for i, name in enumerate(SPACE_SLOTS):
        out[name] = board.space_origin(i)
    out["provost"] = (0, 0)
    out["bridge"] = (BRIDGE_X, TOP_Y)
    for k in range(1, SITE_BUILDINGS + 1):
        x, y = board.site_tile_origin(k)
        out[f"site:S{k}"] = (SITE_X + x, TOP_Y + y)
    out["site"] = SITE_SLOTS
    out.update(supply.slot_origins(SUPPLY_Y))
    for seat in range(num_players):
        out.update(players.slot_origins(seat, num_players, PLAYERS_Y))
    return out


def slot_names(num_players: int) -> tuple[str, ...]:
    """Every slot of a game with ``num_players`` seats, in drawing order."""
    return tuple(slot_origins(num_players))


def background(names: tuple[str, ...]) -> str:
    """What never changes during a game: the paper, the bridge and site boxes, the legends,
    the titles and the player panels without their values."""
    n = len(names)
    return "".join(
        [
            svg.rect(0, 0, WIDTH, HEIGHT, PAPER),
            svg.group(board.bridge_frame(), transform=f"translate({BRIDGE_X},{TOP_Y})"),
            svg.group(board.site_frame(), transform=f"translate({SITE_X},{TOP_Y})"),
            board.legend(),
            supply.frame(SUPPLY_Y),
            *(players.card(seat, name, n, PLAYERS_Y) for seat, name in enumerate(names)),
            players.legend(n, PLAYERS_Y),
        ]
    )


def draw_slots(
    v: View,
    names: tuple[str, ...],
    scores: Sequence[int],
    static: str | None = None,
) -> list[str]:
    """The drawing of every slot of the position ``v``, in ``slot_names`` order. ``scores``
    are the seats' scores now (shown as the final scores once the game is over); ``static``
    is ``background(names)`` when the caller has it already.

    Raises:
        ValueError: if ``names`` or ``scores`` does not give one entry per seat.
    """
    n = v.num_players
    if len(names) != n or len(scores) != n:
        raise ValueError(
            f"{len(names)} seat names and {len(scores)} scores for a {n}-player game; "
            f"allowed: {n} of each"
        )
    out: dict[str, str] = {
        "background": background(names) if static is None else static,
        "header": board.header(v, names),
        **{name: board.space(i, v.spaces[i]) for i, name in enumerate(SPACE_SLOTS)},
        "provost": board.provost(v),
        "bridge": board.bridge(v),
        **board.site_buildings(v),
        "site": board.site_slots(v),
        **supply.supplies(v),
        **supply.characters(v),
    }
    for seat in range(n):
        out.update(players.values(v, seat, tuple(int(x) for x in scores)))
    return [out[name] for name in slot_names(n)]


class Drawing(viewer.Drawing):
    """Caylus 1303's drawing for the shared replay page (``caylus_env.core.viewer``): every
    slot drawn in its own coordinates and moved to `slot_origins`.

    With ``hide_opponent_pp`` the drawing shows nobody's prestige until the game is over (D37):
    a replay page has no viewpoint, so every seat's total is hidden.

    Args:
        options: the game's options (``GameConfig.to_dict()``).
        names: one name per seat.
    """

    page_colour = PAGE_COLOUR
    header_colour = HEADER_COLOUR
    score_unit = " PP"
    decision_docs = DECISION_DOCS
    labels = LABELS
    footnote = (
        "Caylus 1303 is played with reconstructed rules (docs/rules/caylus_1303.md); a tile "
        "shows the effect of the side it has up (" + ", ".join(SIDE_NAMES) + ")."
    )

    def __init__(self, options: Mapping[str, Any], names: Sequence[str]) -> None:
        super().__init__(options, names)
        self.origins = slot_origins(self.num_players)
        self.width, self.height = WIDTH, HEIGHT
        self.slots = tuple(self.origins)
        self._static = background(self.names)
        # the page's score chart and caylus serve's score table show nothing until the end
        self.scores_hidden = bool(self.options.get("hide_opponent_pp", False))

    def origin(self, slot: str) -> tuple[int, int]:
        return self.origins[slot]

    def draw(self, d: dict[str, Any], scores: Sequence[int]) -> list[str]:
        """Every slot of the position ``d`` (a ``state_dict``, read through the engine's
        validating reader)."""
        return draw_slots(view_of(d), self.names, scores, self._static)

    def draw_state(self, s: Any, scores: Sequence[int]) -> list[str]:
        """Every slot of the flat state ``s`` (an engine state array, already valid)."""
        return draw_slots(read(s), self.names, scores, self._static)


def position_svg(d: dict[str, Any], agents: Sequence[str] | None = None) -> str:
    """The whole position ``d`` (a ``state_to_dict`` dict) as one standalone SVG document:
    the printed buildings, the Guilds Bridge, the Construction Site, the Road with the
    Provost, the supplies, the characters and the player panels (``agents`` names the seats).

    Raises:
        InvalidStateError: (a ``ValueError``) naming the first field of ``d`` that is wrong
            and what is allowed (the engine's validation of state dicts), before anything is
            drawn.
        ValueError: if ``agents`` does not name one agent per seat.
    """
    return viewer.position_svg(GAME.name, d, agents)


__all__ = [
    "DECISION_DOCS",
    "HEIGHT",
    "Drawing",
    "background",
    "draw_slots",
    "position_svg",
    "slot_names",
    "slot_origins",
]
