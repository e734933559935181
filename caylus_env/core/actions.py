"""The action codec every game's action space is built with: contiguous named blocks, one
stable name per id.

A game lists its blocks in order, each a key and the names of its ids (``role:settler``,
``place:road:6``); `ActionSpace` numbers them, gives each block's ``(start, size)`` in
``blocks``, converts ids and names both ways with errors that say what is allowed, and digests
the names into ``version`` (a trained policy is tied to it: renaming or moving an action
changes it by itself; ``revision`` is raised when an action keeps its name but changes
meaning). Hanabi's and OpenSpiel's flat action tables, once, for every game.

Example:
    >>> space = ActionSpace([("PASS", ["pass"]), ("TAKE", ["take:a", "take:b"])], ["take:a"])
    >>> space.blocks["TAKE"], space.string_to_action("take:b"), space.action_to_string(0)
    ((1, 2), 2, 'pass')
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable, Sequence


def version_of(names: Sequence[str], revision: int) -> str:
    """``<revision>-<8 hex digits of the names' SHA-256>``: an action space's ``version``."""
    digest = hashlib.sha256("\n".join(names).encode()).hexdigest()[:8]
    return f"{int(revision)}-{digest}"


class ActionSpace:
    """One game's flat action space (see the module docstring).

    Args:
        blocks: ``(key, names)`` in id order; keys and names are unique.
        examples: a few names shown in the error for an unknown name.
        revision: raise it when an action keeps its name but changes meaning.

    Raises:
        ValueError: for a repeated block key or action name.
    """

    def __init__(
        self,
        blocks: Iterable[tuple[str, Sequence[str]]],
        examples: Sequence[str] = (),
        revision: int = 1,
    ) -> None:
        self.blocks: dict[str, tuple[int, int]] = {}
        names: list[str] = []
        for key, labels in blocks:
            if key in self.blocks:
                raise ValueError(f"action block {key!r} is declared twice")
            self.blocks[key] = (len(names), len(labels))
            names.extend(labels)
        self.names: tuple[str, ...] = tuple(names)
        self.size = len(self.names)
        self._ids = {name: i for i, name in enumerate(self.names)}
        if len(self._ids) != self.size:
            raise ValueError("action names must be unique")
        self.examples = tuple(examples)
        self.revision = int(revision)
        self.version = version_of(self.names, self.revision)

    def prefix_version(self, count: int) -> str:
        """The version a space of this space's first ``count`` actions had: a policy trained
        on it still means the same ids here when blocks were only appended since."""
        return version_of(self.names[:count], self.revision)

    def action_to_string(self, action_id: int) -> str:
        """The stable name of an action id.

        Raises:
            ValueError: if the id is outside ``[0, size)``.
        """
        if not 0 <= int(action_id) < self.size:
            raise ValueError(f"action id {action_id} is out of range; allowed: 0..{self.size - 1}")
        return self.names[int(action_id)]

    def string_to_action(self, name: str) -> int:
        """The action id of a stable name.

        Raises:
            ValueError: naming the unknown string, examples and the prefixes that exist.
        """
        try:
            return self._ids[name]
        except (KeyError, TypeError):
            prefixes = sorted({n.split(":")[0] for n in self.names})
            like = ", ".join(repr(e) for e in self.examples)
            raise ValueError(
                f"unknown action name {name!r}; names look like {like}; known prefixes: "
                f"{', '.join(prefixes)}"
            ) from None


__all__ = ["ActionSpace", "version_of"]
