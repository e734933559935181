"""``Game``: a Python handle on one game, over the compiled kernels.

The state is the flat array of ``layout``; ``Game`` adds what a Python user needs
around it: options, the seed, the history of agent actions (the replayable
record), a cached list of legal actions, errors that name what was wrong, scores,
ranks and returns. It knows nothing of RL libraries.

Example:
    >>> from caylus_env.caylus.engine import Game, GameConfig
    >>> g = Game(GameConfig(num_players=3), seed=7)
    >>> a = g.legal_actions()[0]
    >>> g.apply(a)
    >>> g.history == [a]
    True
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np

from caylus_env._version import __version__
from caylus_env.caylus.engine import kernels
from caylus_env.caylus.engine import layout as L
from caylus_env.caylus.engine.actions import NUM_ACTIONS, action_to_string
from caylus_env.caylus.engine.board import NUM_NEUTRAL
from caylus_env.caylus.engine.buildings import BUILDING_NAMES
from caylus_env.caylus.engine.config import GameConfig
from caylus_env.caylus.engine.constants import PHASE_NAMES
from caylus_env.caylus.engine.record import (
    RECORD_FORMAT,
    FinalResult,
    GameRecord,
    Setup,
    forfeit_ranks,
    rank_of,
)
from caylus_env.caylus.engine.state_dict import dict_to_state, state_to_dict

REWARD_KINDS = ("rank", "margin")
MAX_SEED = 2**63


class IllegalActionError(ValueError):
    """An action that is not legal at the current decision; the game is unchanged."""


@dataclass(frozen=True)
class Decision:
    """The pending decision: its kind, who answers it, and its context arguments."""

    kind: str
    player: int
    args: dict[str, Any]


def _check_seed(seed: Any) -> int:
    if isinstance(seed, bool) or not isinstance(seed, (int, np.integer)):
        raise ValueError(f"seed must be a non-negative int, got {seed!r}")
    if not 0 <= int(seed) < MAX_SEED:
        raise ValueError(f"seed must be in [0, 2**63), got {seed}")
    return int(seed)


class Game:
    """One game of Caylus: the state array plus options, seed and history.

    Args:
        config: the game options (player count and variants).
        seed: the setup seed (neutral tiles and first turn order), 0 <= seed < 2**63.
    """

    def __init__(self, config: GameConfig | None = None, seed: int = 0) -> None:
        self.config = config if config is not None else GameConfig()
        if not isinstance(self.config, GameConfig):
            raise ValueError(f"config must be a GameConfig, got {type(self.config).__name__}")
        self.seed: int | None = _check_seed(seed)
        c = self.config
        self.state = kernels.new_state(
            c.num_players,
            int(c.simplified_favors),
            c.lawyer_prestige,
            int(c.jeweller),
            c.house_limit,
            self.seed,
        )
        self.history: list[int] = []
        self.start: dict[str, Any] | None = None  # a loaded start position, if any
        self._legal = np.empty(NUM_ACTIONS, np.int64)
        self._num_legal = kernels.legal_actions(self.state, self._legal)

    # -- construction from positions and records -----------------------------------------
    @classmethod
    def from_state_dict(cls, data: dict[str, Any]) -> Game:
        """A game starting from any position (see ``state_dict``); runs to its next decision.

        The dict is untrusted input: it passes the whole validation layer
        (``caylus_env.caylus.engine.validate``) before any kernel runs it.

        Raises:
            InvalidStateError: (a ``ValueError``) naming the first field that is wrong and
                what is allowed; nothing is built then.
        """
        state = dict_to_state(data)
        game = cls.__new__(cls)
        game.config = GameConfig.from_dict(data["options"])
        game.seed = None
        game.state = state
        game.history = []
        game._legal = np.empty(NUM_ACTIONS, np.int64)
        game._num_legal = kernels.advance(game.state, game._legal)
        game.start = state_to_dict(game.state)
        return game

    def clone(self) -> Game:
        """An independent copy (state, history, caches); cheap: the state is 700 bytes."""
        other = Game.__new__(Game)
        other.config = self.config
        other.seed = self.seed
        other.state = self.state.copy()
        other.history = list(self.history)
        other.start = self.start
        other._legal = self._legal.copy()
        other._num_legal = self._num_legal
        return other

    # -- queries ------------------------------------------------------------------------------
    @property
    def num_players(self) -> int:
        return self.config.num_players

    def current_player(self) -> int:
        """The seat that must act now (the engine decides), or -1 at the end."""
        return int(kernels.current_player(self.state))

    def is_terminal(self) -> bool:
        return bool(kernels.is_terminal(self.state))

    def legal_actions(self) -> list[int]:
        """Sorted legal action ids of the pending decision (empty at the end)."""
        return self._legal[: self._num_legal].tolist()

    def legal_mask(self, out: np.ndarray | None = None) -> np.ndarray:
        """An int8 mask of ``NUM_ACTIONS`` entries, 1 for legal actions."""
        mask = np.zeros(NUM_ACTIONS, np.int8) if out is None else out
        if out is not None:
            mask[:] = 0
        mask[self._legal[: self._num_legal]] = 1
        return mask

    def decision(self) -> Decision | None:
        """The pending decision with its readable context, or None at the end."""
        if self.is_terminal():
            return None
        top = state_to_dict(self.state)["pending"][-1]
        args = {k: v for k, v in top.items() if k not in ("kind", "player")}
        return Decision(top["kind"], top["player"], args)

    @property
    def phase(self) -> str:
        return PHASE_NAMES[int(self.state[L.PHASE])]

    @property
    def turn(self) -> int:
        return int(self.state[L.TURN])

    def prestige(self) -> np.ndarray:
        """Prestige per seat (final prestige once the game is over)."""
        n = self.num_players
        return np.array([int(kernels.prestige(self.state, p)) for p in range(n)])

    def ranks(self) -> np.ndarray:
        """Rank per seat by prestige, ties averaged (a tie for first is a shared win)."""
        return rank_of(self.prestige())

    def returns(self, reward: str = "rank") -> np.ndarray:
        """Zero-sum rewards per seat, all zeros until the game is over.

        ``rank``: linear in the rank from +1 (first) to -1 (last), ties averaged.
        ``margin``: final prestige minus the mean prestige of the table.
        """
        if reward not in REWARD_KINDS:
            raise ValueError(f"reward={reward!r} is not allowed; allowed: {REWARD_KINDS}")
        n = self.num_players
        if not self.is_terminal():
            return np.zeros(n)
        if reward == "margin":
            p = self.prestige().astype(float)
            return p - p.mean()
        return (n + 1 - 2 * self.ranks()) / (n - 1)

    # -- acting --------------------------------------------------------------------------------
    def apply(self, action: int) -> None:
        """Apply one action of the current player, then run to the next decision.

        ``action`` is exactly an ``int`` or a NumPy integer scalar (what a policy's argmax
        gives); a ``bool``, a float, a string, bytes or a ``Decimal`` is refused, never
        rounded or parsed.

        Raises:
            IllegalActionError: naming the action, the decision and the legal actions (or
                the allowed type); the game is left unchanged.
        """
        if isinstance(action, bool) or not isinstance(action, (int, np.integer)):
            raise IllegalActionError(
                f"action {action!r} of type {type(action).__name__} is not allowed; allowed: "
                f"an int (or numpy integer) action id 0..{NUM_ACTIONS - 1}"
            )
        a = int(action)
        if not 0 <= a < NUM_ACTIONS:
            raise IllegalActionError(self._illegal_message(a))
        n = kernels.step(self.state, a, self._legal)
        if n < 0:
            self._num_legal = kernels.legal_actions(self.state, self._legal)
            raise IllegalActionError(self._illegal_message(a))
        self._num_legal = n
        self.history.append(a)

    def _illegal_message(self, a: int) -> str:
        name = f"{a} ({action_to_string(a)})" if 0 <= a < NUM_ACTIONS else f"{a} (no such id)"
        if self.is_terminal():
            return f"action {name} is illegal: the game is over"
        d = self.decision()
        legal = ", ".join(f"{x} ({action_to_string(x)})" for x in self.legal_actions())
        return (
            f"action {name} is illegal for decision {d.kind!r} of player {d.player}; legal: {legal}"
        )

    # -- records -------------------------------------------------------------------------------
    def state_dict(self) -> dict[str, Any]:
        """The whole game as a readable dict; ``load_state_dict`` is its exact inverse."""
        return state_to_dict(self.state)

    def load_state_dict(self, data: dict[str, Any]) -> None:
        """Replace this game's position; the history restarts from it.

        Raises:
            InvalidStateError: (a ``ValueError``) if the dict is not a valid position; the
                game is then unchanged (the new game is built and validated in full first).
        """
        other = Game.from_state_dict(data)
        self.__dict__.update(other.__dict__)

    def setup(self) -> dict[str, Any]:
        """The explicit setup: neutral tiles on road spaces 1-6 and the first turn order."""
        if self.seed is None:
            d = self.start
            return {
                "neutral_tiles": [d["road"][k]["building"] for k in range(NUM_NEUTRAL)],
                "turn_order": list(d["turn_order"]),
            }
        c = self.config
        probe = np.zeros(L.STATE_SIZE, L.STATE_DTYPE)
        kernels.init_game(
            probe,
            c.num_players,
            int(c.simplified_favors),
            c.lawyer_prestige,
            int(c.jeweller),
            c.house_limit,
            self.seed,
        )
        return {
            "neutral_tiles": [
                BUILDING_NAMES[probe[L.ROAD_TILE + k]] for k in range(1, NUM_NEUTRAL + 1)
            ],
            "turn_order": [int(probe[L.TURN_ORDER + i]) for i in range(c.num_players)],
        }

    def record(self) -> GameRecord:
        """The typed record (``caylus_env.caylus.engine.record``) that ``replay`` turns back into this
        exact game; ``final`` is set once the game is over (rules 8.21: ranks by prestige)."""
        final = None
        if self.is_terminal():
            prestige = self.prestige().tolist()
            final = FinalResult(prestige, self.ranks().tolist(), "terminated")
        return GameRecord(
            engine=__version__,
            options=self.config.to_dict(),
            seed=self.seed,
            setup=Setup.from_dict(self.setup()),
            actions=tuple(self.history),
            action_names=tuple(action_to_string(a) for a in self.history),
            final=final,
            start_state=self.start if self.seed is None else None,
        )

    def __repr__(self) -> str:
        d = self.decision()
        where = "game over" if d is None else f"{d.kind} for player {d.player}"
        return (
            f"Game({self.num_players}p, seed={self.seed}, turn {self.turn}, {self.phase}, {where})"
        )


def replay(record: GameRecord | Mapping[str, Any]) -> Game:
    """Rebuild a game from its record, checking every step against the engine.

    A dict goes through the one reader (`GameRecord.from_dict`). Checked: the options, the
    setup the seed gives (rules 1.3), each action's legality and its recorded name, and the
    end: a ``terminated`` record must reach the end of the game with its prestige and ranks
    (rules 8.21), a ``forfeit`` record must stop before it with its prestige and the forfeit
    ranks (the forfeiting seat last), and a record without a result must not reach the end.

    Raises:
        ValueError: naming the first step (or field) where the record and the engine disagree.
    """
    rec = record if isinstance(record, GameRecord) else GameRecord.from_dict(record)
    if rec.seed is None:
        game = Game.from_state_dict(dict(rec.start_state))
    else:
        game = Game(GameConfig.from_dict(dict(rec.options)), rec.seed)
    options = game.config.to_dict()
    differ = [k for k in options if options[k] != rec.options.get(k)]
    if differ:
        k = differ[0]
        raise ValueError(
            f"record option {k}={rec.options.get(k)!r} differs from its start position's "
            f"{options[k]!r}"
        )
    setup = game.setup()
    for key, value in rec.setup.to_dict().items():
        if value != setup[key]:
            where = f"seed {rec.seed}" if rec.seed is not None else "the start position"
            raise ValueError(
                f"record setup {key} {value} differs from the {key} of {where}: {setup[key]}"
            )
    for i, (a, name) in enumerate(zip(rec.actions, rec.action_names, strict=True)):
        if action_to_string(a) != name:
            raise ValueError(
                f"record step {i}: action {a} is {action_to_string(a)!r} but action_names[{i}] "
                f"is {name!r}"
            )
        try:
            game.apply(a)
        except IllegalActionError as e:
            raise ValueError(f"record step {i} disagrees with the engine: {e}") from None
    _check_final(rec, game)
    return game


def _check_final(rec: GameRecord, game: Game) -> None:
    """The recorded end against the replayed game (see `replay`)."""
    n = len(rec.actions)
    final = rec.final
    if final is None:
        if game.is_terminal():
            raise ValueError(f"record has no final result, but the game ends after its {n} actions")
        return
    prestige = game.prestige().tolist()
    if final.end == "terminated":
        if not game.is_terminal():
            raise ValueError(
                f"record says the game ended, but after its {n} actions the engine waits for "
                f"{game.decision().kind!r} of player {game.current_player()}"
            )
        ranks = game.ranks().tolist()
    else:
        if game.is_terminal():
            raise ValueError(f"record ends by a forfeit, but the game ends after its {n} actions")
        ranks = forfeit_ranks(prestige, rec.match.loser)
    if list(final.prestige) != prestige:
        raise ValueError(
            f"replayed final prestige {prestige} differs from the record's {list(final.prestige)}"
        )
    if list(final.ranks) != ranks:
        raise ValueError(f"replayed ranks {ranks} differ from the record's {list(final.ranks)}")


__all__ = ["RECORD_FORMAT", "Decision", "Game", "IllegalActionError", "rank_of", "replay"]
