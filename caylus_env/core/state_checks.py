"""The field checkers a game's state-dict reader (``engine/state_dict.dict_to_state``) is made of.

A state dict comes from outside (a file, a test, a user's hand), so a reader checks every key,
type and range before it writes a value into the state array; these are the checks that do not
depend on a game: a dict with exactly its keys, an int in a range, a flag, one name of a list.
Each returns the value (a name as its index) or raises an ``InvalidStateError`` that names the
field (``where``: ``players[1].money``, ``pending[0].kind``; ``""`` for the whole dict) and what
is allowed, in one line: ``state dict players[1].money: 40000 is out of range; allowed: 0 to
32767``. What a game's own fields mean (a seat or nobody, its lists, its pending decisions, its
invariants) stays in the game's reader, which builds on these.

``read_state_dict(decode, d)`` runs a game's decoder so that a value nested past Python's
recursion limit is refused like any other bad value, instead of escaping as a
``RecursionError``. Every reader opens the same way (``opening``: the top-level keys and the
format tag, then ``options_field``: the game's options) and ends on the game's invariants
(``consistent``); every writer (``state_to_dict``) starts its dict with ``dict_header``.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any, TypeVar

import numpy as np

from caylus_env.core.errors import InvalidStateError

#: The longest value an error message shows (``show``); longer ones are cut with ``...``.
SHOWN_CHARS = 80
Config = TypeVar("Config")

#: What ``read_state_dict`` says of a value nested too deeply to read.
TOO_DEEP = "a value is nested too deeply to read (a state dict nests 4 levels)"


def fail(where: str, what: str) -> InvalidStateError:
    """The error for field ``where`` (``""``: the dict itself) and what is wrong with it."""
    return InvalidStateError(f"state dict {where}: {what}" if where else f"state dict: {what}")


def show(v: Any) -> str:
    """``repr(v)`` for an error message: one line, short, and safe for any nesting."""
    try:
        text = repr(v)
    except RecursionError:
        return f"a {type(v).__name__} nested too deeply to show"
    text = " ".join(text.split())
    return text if len(text) <= SHOWN_CHARS else text[: SHOWN_CHARS - 3] + "..."


def exact_keys(d: Any, where: str, expected: set[str]) -> dict[str, Any]:
    """``d`` as a dict with exactly the keys ``expected``: a missing key is an error, and so is
    an unknown one (a typo such as ``moneyy`` is refused, not silently dropped)."""
    if not isinstance(d, dict):
        raise fail(where, f"must be a dict, got {type(d).__name__}")
    if set(d) != expected:
        missing = sorted(expected - set(d))
        extra = ", ".join(sorted(show(k) for k in set(d) - expected))
        raise fail(where, f"missing keys {missing}, unknown keys [{extra}]")
    return d


def int_field(v: Any, where: str, low: int, high: int) -> int:
    """``v`` as a Python int in ``[low, high]`` (a ``bool`` is not an int here)."""
    if isinstance(v, bool) or not isinstance(v, int):
        raise fail(where, f"must be an int, got {show(v)}")
    if not low <= v <= high:
        raise fail(where, f"{v} is out of range; allowed: {low} to {high}")
    return v


def bool_field(v: Any, where: str) -> bool:
    """``v`` as a flag: ``True`` or ``False`` only (never ``0`` / ``1`` or ``"false"``)."""
    if not isinstance(v, bool):
        raise fail(where, f"must be true or false, got {show(v)}")
    return v


def name_field(v: Any, where: str, names: tuple[str, ...]) -> int:
    """The index of ``v`` in ``names``: how a state array holds a named value."""
    if not isinstance(v, str) or v not in names:
        raise fail(where, f"{show(v)} is not one of {list(names)}")
    return names.index(v)


def dict_header(fmt: str, options: Mapping[str, Any]) -> dict[str, Any]:
    """The first keys of every game's state dict: its format tag ``fmt`` (the game and the
    version of its dict, what ``opening`` checks first) and the game's options."""
    return {"format": fmt, "options": dict(options)}


def opening(d: Any, fmt: str, keys: set[str]) -> dict[str, Any]:
    """``d`` as a state dict of format ``fmt`` with exactly the top-level ``keys``: a dict of
    another game, or of another version of this one, is refused before any field is read."""
    exact_keys(d, "", keys)
    if d["format"] != fmt:
        raise fail("format", f"{show(d['format'])} is not {fmt!r}")
    return d


def options_field(read: Callable[[Any], Config], options: Any) -> Config:
    """The game's options of a state dict's ``options``, read by ``read`` (its
    ``GameConfig.from_dict``), whose refusal names the ``options`` field."""
    try:
        return read(options)
    except (ValueError, TypeError) as e:
        raise fail("options", str(e)) from None


def consistent(code: int, messages: Mapping[int, str]) -> None:
    """Refuses a decoded state whose invariant check (the game's ``check_invariants``) returned
    ``code``, in that invariant's words (``messages``); 0, every invariant holds, passes."""
    if code:
        raise InvalidStateError(f"state dict is inconsistent: {messages[code]}")


def read_state_dict(decode: Callable[[Any], np.ndarray], d: Any) -> np.ndarray:
    """``decode(d)``, a game's checked reader of the state dict ``d``, with a value nested too
    deeply to read refused as an ``InvalidStateError`` (``TOO_DEEP``) like any other bad value."""
    try:
        return decode(d)
    except RecursionError:
        raise fail("", TOO_DEEP) from None


__all__ = [
    "SHOWN_CHARS",
    "TOO_DEEP",
    "bool_field",
    "consistent",
    "dict_header",
    "exact_keys",
    "fail",
    "int_field",
    "name_field",
    "opening",
    "options_field",
    "read_state_dict",
    "show",
]
