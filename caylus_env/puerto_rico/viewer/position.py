"""One Puerto Rico position as one SVG picture, cut into named *slots*.

A slot is one part of the picture that changes on its own (a role card, a cargo ship, a row of
a player's city, one number on a player's panel). ``slot_names`` lists them in drawing order,
``slot_origins`` says where each stands, ``draw_slots`` draws each from the readable state dict
in its own coordinates, `Drawing` hands them to the shared replay page
(``caylus_env.core.viewer``), and ``position_svg`` joins them into a standalone SVG. The page
stores every distinct slot drawing once and each step as the drawing each slot shows, so both
share this one drawing code and the golden test of ``position_svg`` covers what the page
shows.

Hidden information (docs/rules/puerto_rico.md 6.8): the drawing reads only how many face-down
plantations are left, never their order, nor the generator state that reshuffles them.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from caylus_env.core import viewer
from caylus_env.core.viewer import svg
from caylus_env.core.viewer.theme import PAPER
from caylus_env.puerto_rico import GAME
from caylus_env.puerto_rico.engine.actions import string_to_action
from caylus_env.puerto_rico.engine.constants import ROLE_NAMES
from caylus_env.puerto_rico.engine.decisions import ENTRY_OF_NAME
from caylus_env.puerto_rico.viewer import board, players
from caylus_env.puerto_rico.viewer.theme import BUILDING_LABELS, HEADER_COLOUR, PAGE_COLOUR

WIDTH = 1200
PLAYERS_GAP = 10
#: The chart legend's room per seat: wider than the default, its entries end in " VP".
LEGEND_STEP = 230
#: The role card each ``role:*`` action picks (rules 3.1).
ROLE_ACTIONS = {string_to_action(f"role:{name}"): name for name in ROLE_NAMES}

#: What each decision kind asks, by its name (the engine's decision schema).
DECISION_DOCS = {name: entry.doc for name, entry in ENTRY_OF_NAME.items()}


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


class Drawing(viewer.Drawing):
    """Puerto Rico's drawing for the shared replay page (``caylus_env.core.viewer``): every
    slot drawn in its own coordinates and moved to `slot_origins`.

    The state keeps only that a role was picked this round, not by whom: the drawing keeps the
    seat that played each ``role:*`` action (`moved`) until the round ends. The seed fixes the
    face-down plantation order (rules 1.4), so the page leaves it out of the title.

    Args:
        options: the game's options (``GameConfig.to_dict()``).
        names: one name per seat.
        takers: the seat that picked each role picked this round, when known (a standalone
            picture of a position).
    """

    page_colour = PAGE_COLOUR
    header_colour = HEADER_COLOUR
    score_unit = " VP"
    legend_step = LEGEND_STEP
    seed_shown = False
    footnote = (
        "The order of the face-down plantations is hidden information and is not in this page."
    )
    decision_docs = DECISION_DOCS
    labels = BUILDING_LABELS

    def __init__(
        self,
        options: Mapping[str, Any],
        names: Sequence[str],
        takers: Mapping[str, int] | None = None,
    ) -> None:
        super().__init__(options, names)
        expansion = bool(self.options["expansion"])
        self.origins = slot_origins(self.num_players, expansion)
        self.width, self.height = WIDTH, height(expansion)
        self.slots = tuple(self.origins)
        self.takers: dict[str, int] = dict(takers or {})
        self._static = background(self.names, expansion)

    def origin(self, slot: str) -> tuple[int, int]:
        return self.origins[slot]

    def draw(self, d: dict[str, Any], scores: Sequence[int]) -> list[str]:
        """Every slot of the position ``d``; a role's taker is forgotten once it is free."""
        self.takers = {r: s for r, s in self.takers.items() if d["roles"][r]["picked"]}
        return draw_slots(d, self.names, list(scores), self.takers, self._static)

    def moved(self, d: dict[str, Any], seat: int, action: int) -> None:
        if action in ROLE_ACTIONS:
            self.takers[ROLE_ACTIONS[action]] = seat


def position_svg(
    d: dict[str, Any],
    agents: Sequence[str] | None = None,
    takers: Mapping[str, int] | None = None,
) -> str:
    """The whole position ``d`` (a ``state_to_dict`` dict) as one standalone SVG document:
    the role cards, the colonists, the supplies, the ships, the trading house, the building
    supply and the player panels (``agents`` names the seats; ``takers`` as in `Drawing`).

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
    return viewer.position_svg(GAME.name, d, agents, takers=takers)
