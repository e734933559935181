"""One position as one SVG picture, cut into named *slots*.

A slot is one part of the picture that changes on its own (a road space, a special building, a
favor row, one number on a player's card). ``slot_names`` lists them in drawing order,
``draw_slots`` draws each from the readable state dict, and ``position_svg`` joins them into a
standalone SVG. The replay page (``caylus_env.caylus.viewer.page``) stores every distinct slot drawing
once and each step as the drawing each slot shows, so both share this one drawing code and the
golden test of ``position_svg`` covers what the page shows.
"""

from __future__ import annotations

from typing import Any

from caylus_env.caylus.engine.board import ROAD_LEN
from caylus_env.caylus.engine.constants import FAVOR_ROW_NAMES, SECTION_NAMES, SPECIAL_NAMES
from caylus_env.caylus.engine.validate import check_state_dict
from caylus_env.caylus.viewer import board, castle, favors, players, svg
from caylus_env.caylus.viewer.theme import PAPER

WIDTH = 1200
HEIGHT = 800


def seat_names(num_players: int, agents: tuple[str, ...] | None = None) -> tuple[str, ...]:
    """What each seat is called on the cards: its agent spec, else ``seat N``.

    Raises:
        ValueError: if ``agents`` does not name one agent per seat.
    """
    if agents is None:
        return tuple(f"seat {p}" for p in range(num_players))
    if len(agents) != num_players:
        raise ValueError(
            f"agents names {len(agents)} seats ({', '.join(agents)}); allowed: one name per "
            f"seat, {num_players}"
        )
    return tuple(agents)


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


def position_svg(d: dict[str, Any], agents: tuple[str, ...] | None = None) -> str:
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
    check_state_dict(d)
    names = seat_names(d["options"]["num_players"], agents)
    # One slot a line, so that a change in the drawing shows as a readable diff.
    body = "\n".join(
        svg.group(piece, data_slot=slot)
        for slot, piece in zip(slot_names(len(names)), draw_slots(d, names), strict=True)
    )
    return svg.document(WIDTH, HEIGHT, f"\n{body}\n") + "\n"
