"""One position as one SVG picture, cut into named *slots*.

A slot is one part of the picture that changes on its own (a road space, a special building, a
favor row, one number on a player's card). ``slot_names`` lists them in drawing order,
``draw_slots`` draws each from the readable state dict, `Drawing` hands them to the shared
replay page (``caylus_env.core.viewer``), and ``position_svg`` joins them into a standalone
SVG. The page stores every distinct slot drawing once and each step as the drawing each slot
shows, so both share this one drawing code and the golden test of ``position_svg`` covers what
the page shows.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from caylus_env.caylus import GAME
from caylus_env.caylus.engine.board import ROAD_LEN
from caylus_env.caylus.engine.constants import FAVOR_ROW_NAMES, SECTION_NAMES, SPECIAL_NAMES
from caylus_env.caylus.engine.decisions import ENTRY_OF_NAME
from caylus_env.caylus.viewer import board, castle, favors, players
from caylus_env.caylus.viewer.theme import BUILDING_LABELS, HEADER_COLOUR, PAGE_COLOUR
from caylus_env.core import viewer
from caylus_env.core.viewer import svg
from caylus_env.core.viewer.theme import PAPER

WIDTH = 1200
HEIGHT = 800

#: What each decision kind asks, by its name (the engine's decision schema).
DECISION_DOCS = {name: entry.doc for name, entry in ENTRY_OF_NAME.items()}


def slot_names(num_players: int) -> tuple[str, ...]:
    """Every slot of a game with ``num_players`` seats, in drawing order (later on top)."""
    names = ["background", "header"]
    names += [f"castle:{s}" for s in SECTION_NAMES] + ["castle:workers"]
    names += [f"special:{s}" for s in SPECIAL_NAMES] + ["turn_order", "bridge"]
    names += [f"road:{k}" for k in range(1, ROAD_LEN + 1)] + ["provost", "bailiff"]
    names += ["favors:closed"] + [f"favors:{row}" for row in FAVOR_ROW_NAMES]
    for seat in range(num_players):
        names += [f"player:{seat}:{f}" for f in players.FIELDS] + [f"player:{seat}:status"]
    return tuple(names)


def background(names: tuple[str, ...]) -> str:
    """What never changes during a game: the paper, the panels, the favor grid, the legend and
    the player cards without their numbers."""
    return "".join(
        [
            svg.rect(0, 0, WIDTH, HEIGHT, PAPER),
            castle.frame(),
            favors.grid(),
            board.road_legend(),
            *(players.card(seat, name) for seat, name in enumerate(names)),
        ]
    )


def draw_slots(d: dict[str, Any], names: tuple[str, ...], static: str | None = None) -> list[str]:
    """The drawing of every slot of the position ``d`` (a ``state_to_dict`` dict), in
    ``slot_names`` order. ``static`` is ``background(names)`` when the caller has it already.

    Raises:
        ValueError: if ``names`` does not give one name per seat of ``d``.
    """
    n = d["options"]["num_players"]
    if len(names) != n:
        raise ValueError(f"{len(names)} seat names for a {n}-player game; allowed: {n}")
    out: dict[str, str] = {
        "background": background(names) if static is None else static,
        "header": board.header(d, names),
        **castle.sections(d),
        "castle:workers": castle.workers(d),
        **board.specials(d),
        "turn_order": board.turn_order(d),
        "bridge": board.bridge(d),
        **board.road(d),
        "provost": board.provost(d),
        "bailiff": board.bailiff(d),
        "favors:closed": favors.closed_columns(d),
        **favors.rows(d),
    }
    for seat in range(n):
        out.update(players.values(d, seat))
        out[f"player:{seat}:status"] = players.status(d, seat)
    return [out[name] for name in slot_names(n)]


class Drawing(viewer.Drawing):
    """Caylus's drawing for the shared replay page (``caylus_env.core.viewer``): one picture
    in the board's coordinates, cut into the slots of `slot_names`.

    Args:
        options: the game's options (``GameConfig.to_dict()``).
        names: one name per seat.
    """

    page_colour = PAGE_COLOUR
    header_colour = HEADER_COLOUR
    decision_docs = DECISION_DOCS
    labels = BUILDING_LABELS

    def __init__(self, options: Mapping[str, Any], names: Sequence[str]) -> None:
        super().__init__(options, names)
        self.width, self.height = WIDTH, HEIGHT
        self.slots = slot_names(self.num_players)
        self._static = background(self.names)

    def draw(self, d: dict[str, Any], scores: Sequence[int]) -> list[str]:
        """Every slot of the position ``d`` (prestige is on the cards: ``scores`` is not
        needed)."""
        return draw_slots(d, self.names, self._static)


def position_svg(d: dict[str, Any], agents: Sequence[str] | None = None) -> str:
    """The whole position ``d`` (a ``state_to_dict`` dict) as one standalone SVG document:
    the road, the special buildings, the bridge, the provost and the bailiff, the castle, the
    favor table and the player cards (``agents`` names the seats on the cards).

    Example:
        >>> from caylus_env.caylus.engine import Game, GameConfig
        >>> picture = position_svg(Game(GameConfig(num_players=2), seed=1).state_dict())
        >>> picture.startswith("<svg") and 'data-field="prestige"' in picture
        True

    Raises:
        InvalidStateError: (a ``ValueError``) naming the first field of ``d`` that is wrong
            and what is allowed (the engine's validation of state dicts, keys, types and
            domains), before anything is drawn.
        ValueError: if ``agents`` does not name one agent per seat.
    """
    return viewer.position_svg(GAME.name, d, agents)
