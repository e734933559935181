"""The table of a flat game state: named slices of one 1-D array, laid out in order.

Every game keeps a whole game in one small integer array (a copy is a clone, a batch is a 2-D
array); its ``layout`` module declares the fields one after the other with a `FieldTable` and
binds each offset to an upper-case module constant, which the compiled kernels read as
compile-time globals. The table (``FIELDS``) is what the state dict, the datasets' layout digest
and the error messages ("state entry 41 is players[3]") are built from.

Example:
    >>> table = FieldTable()
    >>> NUM_PLAYERS = table.field("num_players", 1, "player count")
    >>> CUBES = table.field("cubes", 5, "cubes by kind")
    >>> CUBES, table.size, table.fields[1].name
    (1, 6, 'cubes')
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Field:
    """One named slice of the state array."""

    name: str
    offset: int
    size: int
    doc: str


class FieldTable:
    """Fields declared in state order (see the module docstring)."""

    def __init__(self) -> None:
        self._fields: list[Field] = []

    def field(self, name: str, size: int, doc: str) -> int:
        """Declare the next field; returns its offset.

        Raises:
            ValueError: for a repeated name or a size below 1.
        """
        if size < 1 or any(f.name == name for f in self._fields):
            raise ValueError(f"state field {name!r}: a new name and a size >= 1, got {size}")
        offset = self.size
        self._fields.append(Field(name, offset, size, doc))
        return offset

    def stack(self, depth: int, entry: int, entry_doc: str) -> tuple[int, int]:
        """Declare the pending-decision stack the core's loop keeps (`caylus_env.core.loop`):
        its size, then room for ``depth`` entries of ``entry`` values each (``entry_doc`` says
        what they hold); returns the offsets ``(STACK_SIZE, STACK)``."""
        size = self.field("stack_size", 1, "entries on the pending-decision stack")
        return size, self.field("stack", depth * entry, f"entries {entry_doc}")

    @property
    def size(self) -> int:
        """Entries of the state so far (the state's size once every field is declared)."""
        last = self._fields[-1] if self._fields else None
        return 0 if last is None else last.offset + last.size

    @property
    def fields(self) -> tuple[Field, ...]:
        return tuple(self._fields)


__all__ = ["Field", "FieldTable"]
