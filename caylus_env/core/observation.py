"""The observer's shared half: a flat ``float32`` vector built from named pieces.

Follows OpenSpiel's ``KuhnPokerObserver``: a game's observation module declares its
``PIECES``, an ordered tuple of ``(name, shape)``, and builds one `ObservationLayout` from
them; the layout gives the vector's size, where each piece lives, the ``Box`` bounds, the
observation version a trained policy is tied to, and named, reshaped views onto a vector
(``observation_pieces``). The game's compiled ``encode_into(state, seat, out)`` writes the
pieces; this module gives it the seat arithmetic every game shares (`relative_seat`,
`seat_flag`), the range-checked one-hot entry (`one_hot`) and the flags of a bit set
(`bit_flags`).

What every game's observation module repeats around its own pieces and kernel lives here
too: the module constants read off its layout (`ObservationLayout.constants`, unpacked into
the names of `LayoutConstants`), the checked Python entry point ``encode(state, seat)`` around
its kernel (`ObservationLayout.checked_encoder`) and the names it exports
(`OBSERVER_EXPORTS`, the start of its ``__all__``).

Seats are *relative to the observer*: relative seat ``r`` of player ``p`` is
``(p - observer) % num_players``, so seat 0 is always "me"; per-seat pieces are padded to
``MAX_PLAYERS`` (5) seats, so one policy serves 2-5 players. With ``observer = -1`` the same
kernel writes *absolute* seats: the global state of ``raw_env.state()``.

Every entry has a finite upper bound (``bounds``, the ``Box``'s ``high``; the low is 0): 1 for
one-hot entries, flags and fractions, and for a count copied as ``count / scale`` the largest
count the game allows over its scale (`scaled_high`): a rules ceiling where the game has one,
else the largest value its state array can hold (the engine never overflows it), so no
bound is ``inf`` and every observation of a legal game lies inside the space.

The pieces a network may treat alike are declared too: ``seat_pieces`` (first axis = the
relative seat), ``seat_column_pieces`` (last axis = the relative seat) and ``space_pieces``
(first axis = a space of the board, e.g. Caylus's road), so that one network design serves
every game (``agents.policy``, arch ``pieces-v1``).
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Mapping, Sequence
from typing import NamedTuple

import numpy as np
from numba import njit

from caylus_env.core import _cache  # noqa: F401  (the kernel cache, before any kernel below)
from caylus_env.core.contract import REQUIRED

#: Seats an observation is padded to: one policy serves 2 to 5 players.
MAX_PLAYERS = 5


class LayoutConstants(NamedTuple):
    """The constants a game's observation module reads off its layout, in the order it unpacks
    them (`ObservationLayout.constants`): module globals, because the compiled kernel freezes
    ``OBS_SIZE`` in at compile time and the platform and the tests read them by name."""

    #: Where each piece lives in the flat vector.
    PIECE_SLICES: dict[str, slice]
    #: The shape of each piece.
    PIECE_SHAPES: dict[str, tuple[int, ...]]
    #: The number of entries of the vector.
    OBS_SIZE: int
    #: The observation a trained policy was made for: the revision and a digest of the pieces'
    #: names and shapes (so a new, removed or resized piece changes it by itself). Checkpoints
    #: store it and ``policy:PATH`` refuses another one, naming both.
    OBSERVATION_VERSION: str
    #: Upper bound of every entry: 1.0 for one-hot, flags and fractions, the game's ``HIGHS``
    #: for counts.
    BOUNDS: np.ndarray
    #: Named views of an observation (or a batch of them): ``{piece: view}``.
    observation_pieces: Callable[[np.ndarray], dict[str, np.ndarray]]


#: The names every game's observation module exports (its ``__all__`` starts with them): the
#: contract's (`caylus_env.core.contract.REQUIRED`), the other constants of `LayoutConstants`,
#: its count bounds ``HIGHS`` and its ``encode`` (the checked entry point, or the kernel itself).
OBSERVER_EXPORTS: tuple[str, ...] = tuple(
    sorted({*REQUIRED["observation"], *LayoutConstants._fields, "HIGHS", "encode"})
)


class ObservationLayout:
    """The named pieces of one game's observation vector (see the module docstring).

    Args:
        pieces: ``(name, shape)`` in vector order; names are unique.
        highs: the upper bound of each piece whose entries can exceed 1 (counts): a finite
            positive number, or an array of the piece's shape (or broadcastable to it), in the
            piece's scaled units (`scaled_high`); every other entry is a one-hot, a flag or a
            fraction in ``[0, 1]``.
        revision: raise it when a piece keeps its name and shape but changes encoding (a
            scale, an order); the version digests the pieces' names and shapes by itself.
        seat_pieces, seat_column_pieces, space_pieces: the pieces indexed by relative seat
            (first or last axis) and by board space (first axis).

    Raises:
        ValueError: for a repeated or unknown piece name, a bound that is not finite and
            positive or does not fit its piece's shape, or a grouped piece whose axis does not
            have the size the group needs.
    """

    def __init__(
        self,
        pieces: Sequence[tuple[str, tuple[int, ...]]],
        highs: Mapping[str, float | np.ndarray] | None = None,
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
        self.seat_pieces = tuple(seat_pieces)
        self.seat_column_pieces = tuple(seat_column_pieces)
        self.space_pieces = tuple(space_pieces)
        for group in (
            tuple(highs or ()),
            self.seat_pieces,
            self.seat_column_pieces,
            self.space_pieces,
        ):
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
        self.highs: dict[str, np.ndarray] = {}
        for name, value in (highs or {}).items():
            try:
                piece = np.broadcast_to(np.asarray(value, np.float32), self.shapes[name])
            except ValueError:
                raise ValueError(
                    f"the bound of piece {name!r} has shape {np.shape(value)}, which does not "
                    f"fit the piece's shape {self.shapes[name]}"
                ) from None
            if not (np.isfinite(piece).all() and (piece > 0).all()):
                raise ValueError(f"the bound of piece {name!r} must be finite and positive")
            self.highs[name] = piece.copy()
            high[self.slices[name]] = piece.reshape(-1)
        high.setflags(write=False)
        #: The upper bound of every entry (the ``Box``'s ``high``; read-only, all finite).
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

    def constants(self) -> LayoutConstants:
        """The module constants of the game's observation module, to unpack in the order of
        `LayoutConstants` (``PIECE_SLICES, PIECE_SHAPES, ... = LAYOUT.constants()``)."""
        return LayoutConstants(
            self.slices, self.shapes, self.size, self.version, self.bounds, self.views
        )

    def checked_encoder(
        self,
        encode_into: Callable[[np.ndarray, int, np.ndarray], object],
        state_dtype: np.dtype | type,
        state_size: int,
        num_players_at: int,
        validate: Callable[[np.ndarray], object] | None = None,
    ) -> Callable[[np.ndarray, int], np.ndarray]:
        """The checked Python entry point ``encode(state, seat)`` around a game's compiled
        ``encode_into(state, seat, out)``.

        The kernel trusts its arguments (compiled code checks no bounds): a state of another
        dtype or size, or a seat the game does not have, would make it read or write outside
        its arrays, so the entry point refuses them first, naming what is wrong and what is
        allowed.

        Args:
            encode_into: the game's kernel; it zeroes ``out`` and writes the pieces.
            state_dtype, state_size: the game's flat state (``Game.state``):
                ``layout.STATE_DTYPE``, ``layout.STATE_SIZE``.
            num_players_at: the index of the player count in the state.
            validate: the game's own validation of a state's contents, run once the type and
                the seat are accepted, for a kernel that indexes with what the state holds
                (``functools.partial(caylus_env.core.game.check_state_array, engine)``); it
                raises for a state no position can hold.

        Returns:
            ``encode(state, seat)``: the observation of ``seat`` in ``state`` as a new float32
            array of shape ``(size,)`` (``seat = -1``: the global state).
        """
        size, dtype, shape = self.size, np.dtype(state_dtype), (int(state_size),)

        def encode(state: np.ndarray, seat: int) -> np.ndarray:
            """The observation of ``seat`` in ``state`` as a new array (``-1``: the global state).

            Args:
                state: a flat game state (``Game.state``): the game's dtype and size.
                seat: a seat of the game, 0..num_players-1, or -1 for absolute seats.

            Returns:
                A float32 array of shape ``(OBS_SIZE,)``.

            Raises:
                ValueError: naming what is wrong with ``state`` or ``seat`` and what is
                    allowed; a state whose contents no position can hold is refused by the
                    game's own validation where it has one (an ``InvalidStateError``).
            """
            if not isinstance(state, np.ndarray) or state.dtype != dtype or state.shape != shape:
                got = (
                    f"{state.dtype} array of shape {state.shape}"
                    if isinstance(state, np.ndarray)
                    else type(state).__name__
                )
                raise ValueError(
                    f"state must be a {dtype} array of shape ({shape[0]},) (Game.state), got {got}"
                )
            n = int(state[num_players_at])
            if (
                isinstance(seat, bool)
                or not isinstance(seat, (int, np.integer))
                or not -1 <= seat < n
            ):
                raise ValueError(
                    f"seat={seat!r} is not allowed; allowed: 0 to {n - 1} (a seat of this "
                    f"{n}-player game) or -1 (the global state)"
                )
            if validate is not None:
                validate(state)
            out = np.empty(size, np.float32)
            encode_into(state, int(seat), out)
            return out

        return encode


def scaled_high(count: float, scale: float = 1.0) -> np.float32:
    """The bound of a count of at most ``count`` that a kernel writes as ``count / scale``.

    The kernels divide in float64 and store the quotient as float32; rounding to nearest is
    monotone, so the same computation on the largest count bounds every entry exactly.
    """
    return np.float32(float(count) / float(scale))


def state_max(dtype: np.dtype | type) -> int:
    """The largest value a state array of integer ``dtype`` holds: the bound of a count that
    has no rules ceiling (the engines never overflow their state)."""
    return int(np.iinfo(dtype).max)


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
def bit_flags(out, base, mask, width):
    """Set ``out[base + i]`` for every bit ``i < width`` of ``mask``: a piece of ``width`` flags
    that the state packs into one field as a bit set."""
    for i in range(width):
        if (mask >> i) & 1:
            out[base + i] = 1.0


@njit(cache=True)
def one_hot(out, base, value, size):
    """Set ``out[base + value]`` when ``0 <= value < size``: one entry of a one-hot piece of
    ``size`` entries; a value out of range writes nothing, so no state makes a kernel write
    outside its piece."""
    if 0 <= value < size:
        out[base + value] = 1.0


@njit(cache=True)
def seat_flag(out, base, p, observer, n):
    """Set ``out[base + relative_seat(p)]`` when ``p`` is a player (a per-seat one-hot row)."""
    r = relative_seat(p, observer, n)
    if r >= 0:
        out[base + r] = 1.0


__all__ = [
    "MAX_PLAYERS",
    "OBSERVER_EXPORTS",
    "LayoutConstants",
    "ObservationLayout",
    "bit_flags",
    "one_hot",
    "relative_seat",
    "scaled_high",
    "seat_flag",
    "state_max",
]
