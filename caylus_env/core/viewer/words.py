"""Actions in words, the part every game shares (``caylus serve`` lists a decision's actions by
them, never by engine id).

A game's ``viewer.action_words(d, action)`` (the game contract, ``caylus_env.core.contract``)
says what an action does in the position ``d`` (a state dict): the action, its cost and its
effect, in its rulebook's words. Each game keeps what is its own: a table ``WORDS`` from an
action name's head (``place`` of ``place:road:9``) to a `Phrase` ``(d, top, arg) -> str``, and
the words of its components. `say` is the dispatch every game does: it splits the action's name
at its first ``:`` and calls the head's phrase with the decision on top of the pending stack
(`top`: whose it is and what it asks, which an id needs for its context) and the rest of the
name. `plural` and `joined` are the English every phrase uses.
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Mapping
from typing import Any

#: A game's words for one head of action names: ``(d, top, arg) -> str``.
Phrase = Callable[[Mapping[str, Any], Mapping[str, Any], str], str]


def plural(count: int, word: str, invariable: Collection[str] = ()) -> str:
    """``1 worker``, ``3 workers``; a word of ``invariable`` (a game's resources and points,
    ``VP``) stays as it is.

    Example:
        >>> plural(3, "worker"), plural(1, "denier"), plural(2, "VP", ("VP",))
        ('3 workers', '1 denier', '2 VP')
    """
    if count == 1 or word in invariable:
        return f"{count} {word}"
    return f"{count} {word}s"


def joined(words: list[str]) -> str:
    """``a``, ``a and b``, ``a, b and c``.

    Example:
        >>> joined(["wood"]), joined(["food", "wood", "stone"])
        ('wood', 'food, wood and stone')
    """
    if len(words) < 2:
        return "".join(words)
    return f"{', '.join(words[:-1])} and {words[-1]}"


def top(d: Mapping[str, Any]) -> Mapping[str, Any]:
    """The decision on top of the pending stack of the state dict ``d`` (the one being
    answered), or ``{}`` between decisions and at the end."""
    return d["pending"][-1] if d.get("pending") else {}


def say(
    words: Mapping[str, Phrase],
    d: Mapping[str, Any],
    name: str,
    other: Callable[[str], Phrase] | None = None,
) -> str:
    """The words of the action called ``name`` (``action_to_string``) in the position ``d``:
    the phrase of its head in ``words``, or ``other(head)`` for a head ``words`` lacks (without
    ``other``, every head must be there: a ``KeyError`` names the one that is not)."""
    head, _, arg = name.partition(":")
    phrase = words[head] if other is None or head in words else other(head)
    return phrase(d, top(d), arg)


__all__ = ["Phrase", "joined", "plural", "say", "top"]
