"""Board targets: which legal action a click on the board plays (``caylus serve``).

A game's ``viewer.board_targets(d, legal)`` (the game contract, ``caylus_env.core.contract``)
says, for the position ``d`` (a ``state_dict``) and its legal action ids ``legal``, the slot of
its drawing (``Drawing.slots``) that stands for each action that has a place on the board: the
road space a worker goes to, the role card picked, the building bought. Actions without one
(``pass``, ``decline``, a choice between effects) are played from the list of legal actions by
name. A slot stands for at most one action of a decision, so a click is never ambiguous:
`one_action_per_slot` drops a slot two actions would claim (both stay list-only); `panel_slot`
names a slot of the asked player's panel, and `resource_slot` the one a ``take:<resource>`` or
``pay:<resource>`` action stands for.

The browser never computes a rule: the server asks the game's function and sends the pairs.
"""

from __future__ import annotations

from collections.abc import Collection, Iterable, Mapping, Sequence
from typing import Any


def one_action_per_slot(pairs: Iterable[tuple[int, str | None]]) -> dict[int, str]:
    """``{action: slot}`` of ``(action, slot or None)`` pairs, leaving out None and every slot
    that more than one action claims.

    Example:
        >>> one_action_per_slot([(1, "a"), (2, None), (3, "b"), (4, "b"), (5, "c")])
        {1: 'a', 5: 'c'}
    """
    claims: dict[str, list[int]] = {}
    for action, slot in pairs:
        if slot is not None:
            claims.setdefault(slot, []).append(int(action))
    return {a[0]: slot for slot, a in claims.items() if len(a) == 1}


def panel_slot(d: Mapping[str, Any], field: str) -> str | None:
    """``player:<seat>:<field>``: the slot ``field`` (a resource, a count) on the panel of the
    player the decision on top of ``d``'s pending stack asks, as every game's drawing names its
    panels' slots; ``None`` when nothing is asked (between decisions, at the end).

    Example:
        >>> panel_slot({"pending": [{"kind": "pay", "player": 2}]}, "wood")
        'player:2:wood'
    """
    return f"player:{d['pending'][-1]['player']}:{field}" if d.get("pending") else None


PANEL_HEADS = ("take", "pay")
"""The heads of the actions that take a resource or pay one (``take:wood``, ``pay:gold``): each
stands for that resource on the asked player's panel (`resource_slot`)."""


def resource_slot(
    d: Mapping[str, Any], head: str, arg: str, resources: Collection[str]
) -> str | None:
    """The slot of the action ``head:arg`` when it takes or pays one of ``resources``
    (`PANEL_HEADS`): that resource on the asked player's panel (`panel_slot`); ``None`` for
    any other action.

    Example:
        >>> d = {"pending": [{"kind": "pay", "player": 1}]}
        >>> resource_slot(d, "pay", "wood", ("wood", "gold"))
        'player:1:wood'
        >>> resource_slot(d, "build", "wood", ("wood", "gold")) is None
        True
    """
    return panel_slot(d, arg) if head in PANEL_HEADS and arg in resources else None


def target_problems(
    drawing: Any, d: Mapping[str, Any], legal: Sequence[int], targets: Mapping[int, str]
) -> list[str]:
    """What is wrong with ``targets`` (a game's ``board_targets(d, legal)``) for the position
    ``d`` drawn by ``drawing`` (a `caylus_env.core.viewer.Drawing`): an action that is not
    legal, a slot the drawing does not have or draws empty, a slot named twice. Empty when
    all is well (the conformance suite checks every game with it)."""
    problems = []
    if not isinstance(targets, Mapping):
        return [f"board_targets gave {type(targets).__name__}; allowed: a dict action -> slot"]
    pieces = dict(zip(drawing.slots, drawing.draw(dict(d), [0] * drawing.num_players), strict=True))
    seen: dict[str, int] = {}
    for action, slot in targets.items():
        if isinstance(action, bool) or not isinstance(action, int) or action not in legal:
            problems.append(f"action {action!r} is not legal here (legal: {list(legal)})")
        if slot not in pieces:
            problems.append(f"action {action}: slot {slot!r} is not a slot of the drawing")
        elif not pieces[slot]:
            problems.append(f"action {action}: slot {slot!r} is drawn empty")
        if slot in seen:
            problems.append(f"slot {slot!r} stands for actions {seen[slot]} and {action}")
        seen[slot] = action
    return problems


__all__ = ["PANEL_HEADS", "one_action_per_slot", "panel_slot", "resource_slot", "target_problems"]
