"""``Game``: the one Python handle on a game, over the game's compiled kernels.

Every game's ``engine.Game`` is this class with its engine plugged in (its name and its engine
package, see `Game`), so every tool reads every game with the same words: ``scores()``
(the rulebook's own word, prestige or victory points, is the game's ``score_word``),
``round`` (its ``clock_word``: Caylus's turns, Puerto Rico's rounds), ``legal_actions()``,
``legal_mask(out=None)``, ``apply``, ``clone``, ``state_dict()`` / ``from_state_dict``,
``record()``, ``is_terminal()`` / ``is_truncated()`` / ``is_over()``, ``ranks()``,
``returns()`` and ``current_player()``. The state is the game's flat array; the handle adds
the options, the seed, the history of agent actions (the replayable record), a cached list of
legal actions, errors that name what was wrong, scores, ranks and returns. It knows nothing of
RL libraries.

Examples:
    >>> from caylus_env.caylus.engine import Game, GameConfig
    >>> g = Game(GameConfig(num_players=3), seed=7)
    >>> a = g.legal_actions()[0]
    >>> g.apply(a)
    >>> g.history == [a]
    True
"""

from __future__ import annotations

import importlib
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from types import ModuleType
from typing import Any, ClassVar

import numpy as np

from caylus_env._version import __version__
from caylus_env.core.config import GameConfig
from caylus_env.core.errors import IllegalActionError, InvalidStateError
from caylus_env.core.ranks import forfeit_ranks, rank_of, rank_returns

#: The reward kinds of ``returns`` (and of the environments' ``reward`` argument).
REWARD_KINDS = ("rank", "margin")
#: Seeds are ``0 <= seed < MAX_SEED`` (the kernels take a signed 64-bit seed).
MAX_SEED = 2**63
# int64 as a dtype object: ``np.zeros(n, np.int64)`` converts the scalar type at every call,
# which costs as much as the allocation (a Game is made at every reset, scored at every end).
_INT64 = np.dtype(np.int64)


@dataclass(frozen=True)
class Decision:
    """The pending decision: its kind, who answers it, and its context arguments."""

    kind: str
    player: int
    args: dict[str, Any]


def check_seed(seed: Any) -> int:
    """``seed`` as an int in ``[0, MAX_SEED)``.

    Raises:
        ValueError: for a bool, a non-integer or a seed out of range, naming it.
    """
    if isinstance(seed, bool) or not isinstance(seed, (int, np.integer)):
        raise ValueError(f"seed must be a non-negative int, got {seed!r}")
    if not 0 <= int(seed) < MAX_SEED:
        raise ValueError(f"seed must be in [0, 2**63), got {seed}")
    return int(seed)


#: Where a game's ``Game`` finds each of its class attributes in its engine package
#: (`Game.__init_subclass__`): ``attribute: (module of the package, name in it)``, the name
#: None for the module itself. The modules are those every engine holds
#: (docs/adding-a-game.md).
ENGINE_BINDINGS: dict[str, tuple[str, str | None]] = {
    "CONFIG": ("config", "GameConfig"),
    "KERNELS": ("kernels", None),
    "LAYOUT": ("layout", None),
    "NUM_ACTIONS": ("actions", "NUM_ACTIONS"),
    "PHASE_NAMES": ("constants", "PHASE_NAMES"),
    "action_to_string": ("actions", "action_to_string"),
    "string_to_action": ("actions", "string_to_action"),
    "state_to_dict": ("state_dict", "state_to_dict"),
    "dict_to_state": ("state_dict", "dict_to_state"),
}
#: The bound attributes that are functions (static methods of the class).
_STATIC_BINDINGS = ("action_to_string", "string_to_action", "state_to_dict", "dict_to_state")


class Game:
    """One game: the state array plus options, seed and history (see the module docstring).

    A game's engine subclasses it with its name and its engine package,
    ``class Game(core.Game, game="puerto_rico", engine=__package__)``, and the class reads
    these attributes from that package's modules (`ENGINE_BINDINGS`), so no game writes the
    list again:

    Attributes:
        GAME: the game's name (the records' ``game`` field).
        CONFIG: its ``GameConfig`` class (``config``).
        KERNELS: its compiled kernel module (``kernels``; ``caylus_env.core.contract``).
        LAYOUT: its state layout module (``layout``: ``STATE_SIZE``, ``STATE_DTYPE``,
            ``PHASE``).
        NUM_ACTIONS: the size of its action space (``actions``).
        PHASE_NAMES: phase names by the state's ``PHASE`` value (``constants``).
        action_to_string, string_to_action: the stable name of an action id, and back
            (``actions``).
        state_to_dict, dict_to_state: its state dict codec (``state_dict``;
            ``dict_to_state`` validates).

    Args:
        config: the game options (default: the game's defaults).
        seed: the setup seed, ``0 <= seed < 2**63``.
    """

    def __init_subclass__(
        cls, *, game: str | None = None, engine: str | None = None, **kwargs: Any
    ) -> None:
        """Bind a game's attributes from its engine package (see the class docstring); a
        subclass without ``engine`` (a subclass of a game's ``Game``) inherits them."""
        super().__init_subclass__(**kwargs)
        if engine is None:
            return
        if not game:
            raise TypeError(f"{cls.__qualname__}: a game's Game names its game (game=...)")
        cls.GAME = game
        for attribute, (module, name) in ENGINE_BINDINGS.items():
            value = importlib.import_module(f"{engine}.{module}")
            if name is not None:
                value = getattr(value, name)
            setattr(cls, attribute, staticmethod(value) if attribute in _STATIC_BINDINGS else value)

    GAME: ClassVar[str]
    CONFIG: ClassVar[type[GameConfig]]
    KERNELS: ClassVar[ModuleType]
    LAYOUT: ClassVar[ModuleType]
    NUM_ACTIONS: ClassVar[int]
    PHASE_NAMES: ClassVar[Sequence[str]]
    action_to_string: ClassVar[Callable[[int], str]]
    string_to_action: ClassVar[Callable[[str], int]]
    state_to_dict: ClassVar[Callable[[np.ndarray], dict[str, Any]]]
    dict_to_state: ClassVar[Callable[[Any], np.ndarray]]

    def __init__(self, config: GameConfig | None = None, seed: int = 0) -> None:
        self.config = config if config is not None else self.CONFIG()
        if not isinstance(self.config, self.CONFIG):
            raise ValueError(
                f"config must be a {self.CONFIG.__module__}.GameConfig, got "
                f"{type(self.config).__module__}.{type(self.config).__name__}"
            )
        self.seed: int | None = check_seed(seed)
        self.state = np.zeros(self.LAYOUT.STATE_SIZE, self.LAYOUT.STATE_DTYPE)
        self.KERNELS.setup(self.state, self.config.kernel_options(), self.seed)
        self.history: list[int] = []
        self.start: dict[str, Any] | None = None  # a loaded start position, if any
        self._legal = np.empty(self.NUM_ACTIONS, _INT64)
        self._num_legal = int(self.KERNELS.advance(self.state, self._legal))
        self._bind()

    # -- construction from positions ----------------------------------------------------------
    @classmethod
    def from_state_dict(cls, data: dict[str, Any]) -> Game:
        """A game starting from any position (a ``state_dict``); runs to its next decision.

        The dict is untrusted input: it passes the game's whole validation (``dict_to_state``)
        before any kernel runs it.

        Raises:
            InvalidStateError: (a ``ValueError``) naming the first field that is wrong and what
                is allowed, or saying that no decision can be reached from the position;
                nothing is built then.
        """
        state = cls.dict_to_state(data)
        game = cls.__new__(cls)
        game.config = cls.CONFIG.from_dict(data["options"])
        game.seed = None
        game.state = state
        game.history = []
        game._legal = np.empty(cls.NUM_ACTIONS, np.int64)
        game._bind()
        try:
            game._num_legal = int(cls.KERNELS.advance(game.state, game._legal))
        except RuntimeError as err:  # the engine's safety net: no decision can be reached
            raise InvalidStateError(f"state dict cannot be played on: {err}") from None
        game.start = cls.state_to_dict(game.state)
        return game

    @classmethod
    def legal_actions_at(cls, data: dict[str, Any]) -> list[int]:
        """The legal actions of the first decision a position asks, *before* the engine
        answers it: ``from_state_dict`` applies a decision that has one legal action by itself
        (every game's ``advance``), so its game never shows that set; this does (for scenario
        tests and tools that check what a forced decision allowed). ``[]`` when the position
        asks nothing (the game is over). Nothing is built and ``data`` is not changed.

        Raises:
            InvalidStateError: as ``from_state_dict`` (the same validation, first).
        """
        state = cls.dict_to_state(data)
        out = np.empty(cls.NUM_ACTIONS, np.int64)
        try:
            n = int(cls.KERNELS.next_decision(state, out))
        except RuntimeError as err:  # the engine's safety net, as in from_state_dict
            raise InvalidStateError(f"state dict cannot be played on: {err}") from None
        return out[:n].tolist()

    def _bind(self) -> None:
        """Hold what every decision calls on the instance: the game's ``step`` and
        ``current_player`` kernels and its action count. An instance attribute is Python's
        cheapest lookup, and ``apply``, ``legal_mask`` and ``current_player`` run once per
        decision of every env (the class-then-module lookup cost the AEC loop 2 to 4%)."""
        self._step = self.KERNELS.step
        self._current = self.KERNELS.current_player
        self._num_actions = self.NUM_ACTIONS

    def clone(self) -> Game:
        """An independent copy (state, history, caches); cheap: the state is under 1 KB."""
        other = self.__class__.__new__(self.__class__)
        other.__dict__.update(self.__dict__)
        other.state = self.state.copy()
        other.history = list(self.history)
        other._legal = self._legal.copy()
        return other

    # -- queries ------------------------------------------------------------------------------
    @property
    def num_players(self) -> int:
        return self.config.num_players

    @property
    def phase(self) -> str:
        """The name of the current phase."""
        return str(self.PHASE_NAMES[int(self.state[self.LAYOUT.PHASE])])

    @property
    def round(self) -> int:
        """The game's clock (its rulebook's ``clock_word``: a turn, a round)."""
        return int(self.KERNELS.clock(self.state))

    def current_player(self) -> int:
        """The seat that must act now (the engine decides), or -1 when nothing is asked."""
        return int(self._current(self.state))

    def is_terminal(self) -> bool:
        """The game ended by its rules."""
        return bool(self.KERNELS.is_terminal(self.state))

    def is_truncated(self) -> bool:
        """The game was cut off by its decision cap before it ended (never, for a game
        without one)."""
        return bool(self.KERNELS.is_truncated(self.state))

    def is_over(self) -> bool:
        """No seat is asked for a move any more: terminated or truncated."""
        return self.is_terminal() or self.is_truncated()

    def legal_actions(self) -> list[int]:
        """Sorted legal action ids of the pending decision (empty when nothing is asked)."""
        return self._legal[: self._num_legal].tolist()

    def legal_mask(self, out: np.ndarray | None = None) -> np.ndarray:
        """An ``int8`` mask of ``NUM_ACTIONS`` entries, 1 for legal actions (written into
        ``out`` when given)."""
        if out is None:
            mask = np.zeros(self._num_actions, np.int8)
        else:
            mask = out
            mask[:] = 0
        mask[self._legal[: self._num_legal]] = 1
        return mask

    def decision(self) -> Decision | None:
        """The pending decision with its readable context, or None when nothing is asked."""
        if self._num_legal == 0:
            return None
        top = self.state_to_dict(self.state)["pending"][-1]
        args = {k: v for k, v in top.items() if k not in ("kind", "player")}
        return Decision(top["kind"], top["player"], args)

    def scores(self) -> np.ndarray:
        """Each seat's score as if the game ended now (its final score once it is over)."""
        out = np.zeros(self.num_players, _INT64)
        self.KERNELS.scores(self.state, out)
        return out

    def tie_breaks(self) -> np.ndarray:
        """Each seat's tie-break by the rules (all 0 for a game whose ties stand)."""
        out = np.zeros(self.num_players, _INT64)
        self.KERNELS.tie_breaks(self.state, out)
        return out

    def ranks(self) -> np.ndarray:
        """Rank per seat by score, then tie-break, ties averaged (1 = best)."""
        return rank_of(self.scores(), self.tie_breaks())

    def returns(
        self,
        reward: str = "rank",
        *,
        scores: np.ndarray | None = None,
        ranks: np.ndarray | None = None,
    ) -> np.ndarray:
        """Zero-sum rewards per seat, all zeros until the game has ended by its rules (a
        truncated game pays zeros).

        ``rank``: linear in the rank from +1 (first) to -1 (last), ties averaged.
        ``margin``: final score minus the mean score of the table.

        ``scores`` and ``ranks`` are this game's own `scores` and `ranks` when the caller holds
        them already (the environment's end of game), so they are not computed twice.
        """
        if reward not in REWARD_KINDS:
            raise ValueError(f"reward={reward!r} is not allowed; allowed: {REWARD_KINDS}")
        if not self.is_terminal():
            return np.zeros(self.num_players)
        if reward == "margin":
            v = (self.scores() if scores is None else scores).astype(float)
            return v - v.mean()
        return rank_returns(self.ranks() if ranks is None else ranks)

    # -- acting ---------------------------------------------------------------------------------
    def apply(self, action: int) -> None:
        """Apply one action of the current player, then run to the next decision.

        ``action`` is exactly an ``int`` or a NumPy integer scalar (what a policy's argmax
        gives); a ``bool``, a float, a string, bytes or a ``Decimal`` is refused, never
        rounded or parsed.

        Raises:
            IllegalActionError: naming the action, the decision and the legal actions (or the
                allowed type); the game is left unchanged.
        """
        a = self._action_id(action)
        n = self._step(self.state, a, self._legal)
        if n < 0:
            self._refuse(a)
        self._num_legal = n  # compiled kernels return Python ints
        self.history.append(a)

    def apply_observed(self, action: int, step_observe: Any, obs: np.ndarray, mask: Any) -> int:
        """`apply`, with the next mover's observation and mask written in the same compiled
        call: ``step_observe(state, action, legal, obs, mask)`` is the AEC environment's
        kernel (``caylus_env.core.aec``: the step, the forced moves, the next mover, its
        observation into ``obs`` and its ``int8`` mask into ``mask``, in one call per
        decision). Nothing is written into ``obs`` or ``mask`` once the game is over.

        Returns:
            The next mover's seat, or -1 when nothing is asked.

        Raises:
            IllegalActionError: as `apply`; the game is left unchanged.
        """
        if type(action) is int and 0 <= action < self._num_actions:
            a = action  # the AEC loop's plain int: `_action_id`'s checks, in one test
        else:
            a = self._action_id(action)
        player, n = step_observe(self.state, a, self._legal, obs, mask)
        if n < 0:
            self._refuse(a)
        self._num_legal = n
        self.history.append(a)
        return player

    def _action_id(self, action: Any) -> int:
        """``action`` as an action id in range, or the `apply` refusal naming it."""
        if isinstance(action, bool) or not isinstance(action, (int, np.integer)):
            raise IllegalActionError(
                f"action {action!r} of type {type(action).__name__} is not allowed; allowed: "
                f"an int (or numpy integer) action id 0..{self.NUM_ACTIONS - 1}"
            )
        a = int(action)
        if not 0 <= a < self._num_actions:
            raise IllegalActionError(self._illegal_message(a))
        return a

    def _refuse(self, a: int) -> None:
        """Refuse an illegal ``a`` (the state was not changed; the legal cache is refreshed)."""
        self._num_legal = int(self.KERNELS.legal_actions(self.state, self._legal))
        raise IllegalActionError(self._illegal_message(a))

    def _illegal_message(self, a: int) -> str:
        if 0 <= a < self.NUM_ACTIONS:
            name = f"{a} ({self.action_to_string(a)})"
        else:
            name = f"{a} (no such id)"
        d = self.decision()
        if d is None:
            why = "truncated" if self.is_truncated() else "over"
            return f"action {name} is illegal: the game is {why}"
        legal = ", ".join(f"{x} ({self.action_to_string(x)})" for x in self.legal_actions())
        return (
            f"action {name} is illegal for decision {d.kind!r} of player {d.player}; legal: {legal}"
        )

    # -- positions and records ------------------------------------------------------------------
    def state_dict(self) -> dict[str, Any]:
        """The whole game as a readable dict; ``from_state_dict`` is its exact inverse."""
        return self.state_to_dict(self.state)

    def load_state_dict(self, data: dict[str, Any]) -> None:
        """Replace this game's position; the history restarts from it.

        Raises:
            InvalidStateError: (a ``ValueError``) if the dict is not a valid position; the
                game is then unchanged (the new game is built and validated in full first).
        """
        other = self.from_state_dict(data)
        self.__dict__.update(other.__dict__)

    def setup(self) -> dict[str, Any] | None:
        """The explicit setup a record stores beside the seed (so that a replay checks the
        engine still draws it), or None for a game whose setup is not worth stating."""
        return None

    def record(self, **fields: Any) -> Any:
        """The `caylus_env.core.record.GameRecord` that ``replay`` turns back into this exact
        game; ``final`` is set once the game is over (terminated or truncated).

        Args:
            **fields: more of the record's fields (a tournament's ``match`` and ``timings``, or
                a ``final`` that replaces the game's own, as after a forfeit), set in the same
                construction so that the record is checked once.
        """
        from caylus_env.core.record import FinalResult, GameRecord

        final = None
        if "final" in fields:
            final = fields.pop("final")
        elif self.is_over():
            end = "terminated" if self.is_terminal() else "truncated"
            final = FinalResult(self.scores().tolist(), self.ranks().tolist(), end)
        return GameRecord(
            game=self.GAME,
            engine=__version__,
            options=self.config.to_dict(),
            seed=self.seed,
            setup=self.setup(),
            actions=tuple(self.history),
            action_names=tuple(self.action_to_string(a) for a in self.history),
            final=final,
            start_state=self.start if self.seed is None else None,
            **fields,
        )

    def __repr__(self) -> str:
        from caylus_env.core.registry import game_spec

        d = self.decision()
        where = "game over" if d is None else f"{d.kind} for player {d.player}"
        clock = f"{game_spec(self.GAME).clock_word} {self.round}"
        return f"Game({self.GAME}, {self.num_players}p, seed={self.seed}, {clock}, {where})"


def state_field(layout: Any, index: int) -> str:
    """The layout field holding state entry ``index``, e.g. ``players[3]`` (for messages)."""
    for f in layout.FIELDS:
        if f.offset <= index < f.offset + f.size:
            return f"{f.name}[{index - f.offset}]" if f.size > 1 else f.name
    return f"entry {index}"


def check_state_array(engine: ModuleType, s: np.ndarray) -> dict[str, Any]:
    """Refuse a state array read from a file unless it is a position its game's own validation
    accepts; return its state dict.

    Whatever comes from a file (a checkpoint's saved games, a dataset's stored states) must
    pass here before a compiled kernel reads it: an edited seat, index or count would make a
    kernel read outside its arrays. The stack size is checked first (the game's state-dict
    writer reads the stack's entries in compiled code); then the array goes through the
    game's state-dict round trip (``engine.state_to_dict``, then ``engine.dict_to_state``:
    every field's domain, the invariants, a decision that can be answered), which must give
    back the same entries, value for value.

    Args:
        engine: the game's engine module (``game_spec(name).engine()``).
        s: one state, in the engine's dtype and shape.

    Raises:
        InvalidStateError: naming what is wrong (the stack size, the validation's own
            message, or the first field whose value no position can hold).
    """
    layout = engine.layout
    if s.dtype != np.dtype(layout.STATE_DTYPE) or s.shape != (layout.STATE_SIZE,):
        raise InvalidStateError(
            f"an array of {s.dtype} {s.shape}; a state is {np.dtype(layout.STATE_DTYPE)} "
            f"({layout.STATE_SIZE},)"
        )
    stack = next(f for f in layout.FIELDS if f.offset == layout.STACK)
    capacity = stack.size // layout.STACK_ENTRY
    size = int(s[layout.STACK_SIZE])
    if not 0 <= size <= capacity:
        raise InvalidStateError(
            f"its decision stack holds {size} entries; allowed: 0 to {capacity}"
        )
    try:
        d = engine.state_to_dict(s.copy())
        again = engine.dict_to_state(d)
    except (ValueError, TypeError, KeyError, IndexError, OverflowError) as err:
        raise InvalidStateError(str(err)) from None
    if not np.array_equal(again, s):
        j = int(np.flatnonzero(again != s)[0])
        raise InvalidStateError(
            f"{state_field(layout, j)} is {int(s[j])}, its position gives {int(again[j])}"
        )
    return d


__all__ = [
    "MAX_SEED",
    "REWARD_KINDS",
    "Decision",
    "Game",
    "IllegalActionError",
    "InvalidStateError",
    "check_seed",
    "check_state_array",
    "forfeit_ranks",
    "rank_of",
    "rank_returns",
    "state_field",
]
