"""One Puerto Rico position as one SVG picture, cut into named *slots*.

A slot is one part of the picture that changes on its own (a role card, a cargo ship, a row of
a player's city, one number on a player's panel). ``slot_names`` lists them in drawing order,
``slot_origins`` says where each stands, ``draw_slots`` draws each from the readable state dict
in its own coordinates, and ``position_svg`` joins them into a standalone SVG. The replay page
(``caylus_env.puerto_rico.viewer.page``) stores every distinct slot drawing once and each step
as the drawing each slot shows, so both share this one drawing code and the golden test of
``position_svg`` covers what the page shows.

Hidden information (docs/rules/puerto_rico.md 6.8): the drawing reads only how many face-down
plantations are left, never their order, nor the generator state that reshuffles them.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np

from caylus_env.caylus.viewer import svg
from caylus_env.puerto_rico.engine import kernels
from caylus_env.puerto_rico.engine.state_dict import dict_to_state
from caylus_env.puerto_rico.viewer import board, players
from caylus_env.puerto_rico.viewer.theme import PAPER

WIDTH = 1200
PLAYERS_GAP = 10


def seat_names(num_players: int, agents: tuple[str, ...] | None = None) -> tuple[str, ...]:
    """What each seat is called on the panels: its agent spec, else ``seat N``.

    Raises:
        ValueError: if ``agents`` does not name one agent per seat.
    """
    if agents is None:
        return tuple(f"seat {p}" for p in range(num_players))
    if len(agents) != num_players or not all(isinstance(a, str) and a for a in agents):
        raise ValueError(
            f"names gives {len(agents)} seats ({', '.join(map(str, agents))}); allowed: one "
            f"non-empty name per seat, {num_players}"
        )
    return tuple(agents)


def players_top(expansion: bool) -> int:
    """The y of the player panels: under the building supply (longer with the expansion)."""
    return board.supply_bottom(expansion) + PLAYERS_GAP


def height(expansion: bool) -> int:
    """The picture's height."""
    return players_top(expansion) + players.PANEL_H + PLAYERS_GAP


def slot_origins(num_players: int, expansion: bool) -> dict[str, tuple[int, int]]:
    """Top-left corner of every slot of a game with ``num_players`` seats, in drawing order
    (later on top); each slot is drawn in its own coordinates."""
    out: dict[str, tuple[int, int]] = {"background": (0, 0)}
    out.update(board.slot_origins(expansion))
    top = players_top(expansion)
    for seat in range(num_players):
        out.update(players.slot_origins(seat, top))
    return out


def slot_names(num_players: int, expansion: bool) -> tuple[str, ...]:
    """Every slot of a game with ``num_players`` seats, in drawing order (later on top)."""
    return tuple(slot_origins(num_players, expansion))


def background(names: tuple[str, ...], expansion: bool) -> str:
    """What never changes during a game: the paper, the box frames and titles, and the player
    panels without their contents."""
    top = players_top(expansion)
    return "".join(
        [
            svg.rect(0, 0, WIDTH, height(expansion), PAPER),
            board.frame(),
            *(players.card(seat, name, top) for seat, name in enumerate(names)),
        ]
    )


def scores_of(d: dict[str, Any]) -> list[int]:
    """Every seat's VP as if the game ended at ``d`` (rules 5.2), computed by the engine.

    Raises:
        InvalidStateError: (a ``ValueError``) naming the first field of ``d`` that is wrong.
    """
    state = dict_to_state(d)
    out = np.zeros(d["options"]["num_players"], np.int64)
    kernels.scores(state, out)
    return out.tolist()


def draw_slots(
    d: dict[str, Any],
    names: tuple[str, ...],
    scores: list[int],
    takers: Mapping[str, int] | None = None,
    static: str | None = None,
) -> list[str]:
    """The drawing of every slot of the position ``d`` (a ``state_to_dict`` dict), in
    ``slot_names`` order. ``scores`` are the seats' VP now; ``takers`` the seat that picked
    each role picked this round, when known (the state keeps only that it was picked);
    ``static`` is ``background(names, expansion)`` when the caller has it already.

    Raises:
        ValueError: if ``names`` or ``scores`` does not give one entry per seat of ``d``.
    """
    n = d["options"]["num_players"]
    expansion = d["options"]["expansion"]
    if len(names) != n or len(scores) != n:
        raise ValueError(
            f"{len(names)} seat names and {len(scores)} scores for a {n}-player game; "
            f"allowed: {n} of each"
        )
    out: dict[str, str] = {
        "background": background(names, expansion) if static is None else static,
        **board.slots(d, names, takers or {}),
    }
    for seat in range(n):
        out.update(players.values(d, seat, scores[seat]))
    return [out[name] for name in slot_names(n, expansion)]


def slot_group(name: str, origin: tuple[int, int], piece: str = "", **extra: object) -> str:
    """The element that holds one slot: named, and moved to where the slot stands."""
    x, y = origin
    move = f"translate({x},{y})" if (x, y) != (0, 0) else None
    return svg.group(piece, data_slot=name, transform=move, **extra)


def position_svg(
    d: dict[str, Any],
    agents: tuple[str, ...] | None = None,
    takers: Mapping[str, int] | None = None,
) -> str:
    """The whole position ``d`` (a ``state_to_dict`` dict) as one standalone SVG document:
    the role cards, the colonists, the supplies, the ships, the trading house, the building
    supply and the player panels (``agents`` names the seats; ``takers`` as in `draw_slots`).

    Example:
        >>> from caylus_env.puerto_rico.engine import Game, GameConfig
        >>> picture = position_svg(Game(GameConfig(num_players=3), seed=1).state_dict())
        >>> picture.startswith("<svg") and 'data-field="score"' in picture
        True

    Raises:
        InvalidStateError: (a ``ValueError``) naming the first field of ``d`` that is wrong
            and what is allowed (the engine's validation of state dicts), before anything is
            drawn.
        ValueError: if ``agents`` does not name one agent per seat.
    """
    scores = scores_of(d)  # validates d first
    n = d["options"]["num_players"]
    expansion = d["options"]["expansion"]
    names = seat_names(n, agents)
    origins = slot_origins(n, expansion)
    # One slot a line, so that a change in the drawing shows as a readable diff.
    body = "\n".join(
        slot_group(slot, origins[slot], piece)
        for slot, piece in zip(
            slot_names(n, expansion), draw_slots(d, names, scores, takers), strict=True
        )
    )
    return svg.document(WIDTH, height(expansion), f"\n{body}\n") + "\n"
