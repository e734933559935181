"""The observer's shared half: a flat ``float32`` vector built from named pieces.

Follows OpenSpiel's ``KuhnPokerObserver``: a game's observation module declares its
``PIECES``, an ordered tuple of ``(name, shape)``, and builds one `ObservationLayout` from
them; the layout gives the vector's size, where each piece lives, the ``Box`` bounds, the
observation version a trained policy is tied to, and named, reshaped views onto a vector
(``observation_pieces``). The game's compiled ``encode_into(state, seat, out)`` writes the
pieces; this module gives it the seat arithmetic every game shares (`relative_seat`,
`seat_flag`).

Seats are *relative to the observer*: relative seat ``r`` of player ``p`` is
``(p - observer) % num_players``, so seat 0 is always "me"; per-seat pieces are padded to
``MAX_PLAYERS`` (5) seats, so one policy serves 2-5 players. With ``observer = -1`` the same
kernel writes *absolute* seats: the global state of ``raw_env.state()``.

The pieces a network may treat alike are declared too: ``seat_pieces`` (first axis = the
relative seat), ``seat_column_pieces`` (last axis = the relative seat) and ``space_pieces``
(first axis = a space of the board, e.g. Caylus's road), so that one network design serves
every game (``agents.policy``, arch ``pieces-v1``).
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence

import numpy as np
from numba import njit

from caylus_env.core import _cache  # noqa: F401  (the kernel cache, before any kernel below)

#: Seats an observation is padded to: one policy serves 2 to 5 players.
MAX_PLAYERS = 5


class ObservationLayout:
    """The named pieces of one game's observation vector (see the module docstring).

    Args:
        pieces: ``(name, shape)`` in vector order; names are unique.
        unbounded: pieces holding counts with no fixed ceiling (``inf`` in ``bounds``); every
            other entry is a one-hot, a flag or a fraction in ``[0, 1]``.
        revision: raise it when a piece keeps its name and shape but changes encoding (a
            scale, an order); the version digests the pieces' names and shapes by itself.
        seat_pieces, seat_column_pieces, space_pieces: the pieces indexed by relative seat
            (first or last axis) and by board space (first axis).

    Raises:
        ValueError: for a repeated or unknown piece name, or a grouped piece whose axis does
            not have the size the group needs.
    """

    def __init__(
        self,
        pieces: Sequence[tuple[str, tuple[int, ...]]],
        unbounded: Sequence[str] = (),
        revision: int = 1,
        seat_pieces: Sequence[str] = (),
        seat_column_pieces: Sequence[str] = (),
        space_pieces: Sequence[str] = (),
    ) -> None:
        self.pieces = tuple((str(n), tuple(int(d) for d in s)) for n, s in pieces)
        self.shapes = dict(self.pieces)
        if len(self.shapes) != len(self.pieces):
            raise ValueError("observation piece names must be unique")
        self.slices: dict[str, slice] = {}
        start = 0
        for name, shape in self.pieces:
            size = int(np.prod(shape))
            self.slices[name] = slice(start, start + size)
            start += size
        self.size = start
        self.offsets = {name: s.start for name, s in self.slices.items()}
        self.unbounded = tuple(unbounded)
        self.seat_pieces = tuple(seat_pieces)
        self.seat_column_pieces = tuple(seat_column_pieces)
        self.space_pieces = tuple(space_pieces)
        for group in (self.unbounded, self.seat_pieces, self.seat_column_pieces, self.space_pieces):
            for name in group:
                if name not in self.shapes:
                    raise ValueError(f"unknown observation piece {name!r}")
        for name in self.seat_pieces:
            if self.shapes[name][0] != MAX_PLAYERS:
                raise ValueError(f"seat piece {name!r} must have {MAX_PLAYERS} rows")
        for name in self.seat_column_pieces:
            if self.shapes[name][-1] != MAX_PLAYERS:
                raise ValueError(f"seat column piece {name!r} must have {MAX_PLAYERS} columns")
        spaces = {self.shapes[n][0] for n in self.space_pieces}
        if len(spaces) > 1:
            raise ValueError(f"space pieces must share their first axis, got sizes {spaces}")
        self.num_spaces = spaces.pop() if spaces else 0
        self.revision = int(revision)
        self.version = (
            f"{self.revision}-" + hashlib.sha256(repr(self.pieces).encode()).hexdigest()[:8]
        )
        high = np.ones(self.size, np.float32)
        for name in self.unbounded:
            high[self.slices[name]] = np.inf
        high.setflags(write=False)
        self.bounds = high

    def views(self, vec: np.ndarray) -> dict[str, np.ndarray]:
        """Named views of an observation (or a batch of them, leading axes kept).

        The views share memory with ``vec``: writing into one writes into the vector.

        Returns:
            ``{name: view}`` in piece order, each reshaped to ``lead + shape``.

        Raises:
            ValueError: if the last axis does not have ``size`` entries.
        """
        vec = np.asarray(vec)
        if vec.ndim == 0 or vec.shape[-1] != self.size:
            raise ValueError(f"an observation has {self.size} entries, got shape {vec.shape}")
        lead = vec.shape[:-1]
        return {
            name: vec[..., self.slices[name]].reshape(lead + shape) for name, shape in self.pieces
        }

    def index(self, name: str) -> np.ndarray:
        """The vector indices of piece ``name``, in the piece's own shape."""
        s = self.slices[name]
        return np.arange(s.start, s.stop).reshape(self.shapes[name])


@njit(cache=True)
def relative_seat(p, observer, n):
    """Relative seat of player ``p`` seen by ``observer`` (-1 for nobody); the absolute seat
    when ``observer < 0`` (the global state)."""
    if p < 0 or p >= n:
        return -1
    if observer < 0:
        return p
    return (p - observer + n) % n


@njit(cache=True)
def seat_flag(out, base, p, observer, n):
    """Set ``out[base + relative_seat(p)]`` when ``p`` is a player (a per-seat one-hot row)."""
    r = relative_seat(p, observer, n)
    if r >= 0:
        out[base + r] = 1.0


__all__ = ["MAX_PLAYERS", "ObservationLayout", "relative_seat", "seat_flag"]
