"""``Game``: a Python handle on one Puerto Rico game, over the compiled kernels.

The state is the flat array of ``layout``; ``Game`` adds the options, the seed, the
history of agent actions (the replayable record), a cached list of legal actions, errors
that name what was wrong, scores, ranks and returns. It knows nothing of RL libraries.

Example:
    >>> from caylus_env.puerto_rico.engine import Game, GameConfig
    >>> g = Game(GameConfig(num_players=3), seed=7)
    >>> g.decision().kind
    'role'
    >>> g.apply(g.legal_actions()[0])
    >>> len(g.history)
    1
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np

from caylus_env._version import __version__
from caylus_env.puerto_rico.engine import kernels
from caylus_env.puerto_rico.engine import layout as L
from caylus_env.puerto_rico.engine.actions import NUM_ACTIONS, action_to_string
from caylus_env.puerto_rico.engine.config import GameConfig
from caylus_env.puerto_rico.engine.constants import PHASE_NAMES
from caylus_env.puerto_rico.engine.state_dict import InvalidStateError, dict_to_state, state_to_dict

GAME_NAME = "puerto_rico"
RECORD_FORMAT = "puerto-rico-record/1"
REWARD_KINDS = ("rank", "margin")
MAX_SEED = 2**63
END_KINDS = ("terminated", "truncated")
FORFEIT = "forfeit"
"""The end of a tournament game stopped at an agent's forfeit (its record has a ``match``)."""
MATCH_KEYS = ("game_id", "block", "agents", "agent_seeds", "forfeits")
TIMINGS_KEYS = ("move_time_s", "wall_time_s")


class IllegalActionError(ValueError):
    """An action that is not legal at the current decision; the game is unchanged."""


@dataclass(frozen=True)
class Decision:
    """The pending decision: its kind, who answers it, and its argument if it has one."""

    kind: str
    player: int
    args: dict[str, Any]


def _check_seed(seed: Any) -> int:
    if isinstance(seed, bool) or not isinstance(seed, (int, np.integer)):
        raise ValueError(f"seed must be a non-negative int, got {seed!r}")
    if not 0 <= int(seed) < MAX_SEED:
        raise ValueError(f"seed must be in [0, 2**63), got {seed}")
    return int(seed)


def rank_of(keys: Any) -> np.ndarray:
    """Ranks (1 = best); tied players share the average of their ranks (rules 5.3)."""
    keys = np.asarray(keys)
    better = (keys[None, :] > keys[:, None]).sum(axis=1)
    tied = (keys[None, :] == keys[:, None]).sum(axis=1) - 1
    return 1.0 + better + tied / 2.0


def forfeit_ranks(ranks: Any, loser: int) -> list[float]:
    """Ranks after seat ``loser`` forfeits: it is last, the others keep the order of ``ranks``
    (the position's ranking, rules 5.3), ties averaged.

    Example:
        >>> forfeit_ranks([1.0, 3.0, 2.0], loser=0)
        [3.0, 2.0, 1.0]
    """
    n = len(ranks)
    others = [s for s in range(n) if s != loser]
    out = [float(n)] * n
    for s, r in zip(others, rank_of([-float(ranks[s]) for s in others]), strict=True):
        out[s] = float(r)
    return out


def _is_int(v: Any) -> bool:
    return isinstance(v, int) and not isinstance(v, bool)


def _is_seconds(v: Any) -> bool:
    return isinstance(v, (int, float)) and not isinstance(v, bool) and 0 <= v < float("inf")


def _check_section(name: str, value: Any, n: Any) -> None:
    """Refuse a malformed ``match`` or ``timings`` section, naming the field and what is allowed."""
    keys = MATCH_KEYS if name == "match" else TIMINGS_KEYS
    if not isinstance(value, dict) or set(value) != set(keys):
        got = sorted(value) if isinstance(value, dict) else type(value).__name__
        raise ValueError(f"record {name} must be None or a dict of keys {list(keys)}, got {got}")
    per_seat = ("agents", "agent_seeds", "forfeits") if name == "match" else ("move_time_s",)
    for key in per_seat:
        if not isinstance(value[key], list) or len(value[key]) != n:
            raise ValueError(
                f"record {name}.{key} is {value[key]!r}; allowed: a list of one entry per seat "
                f"({n}, options.num_players)"
            )
    checks = {
        "game_id": (_is_int(value.get("game_id")) and value["game_id"] >= 0, "an int >= 0"),
        "block": (_is_int(value.get("block")) and value["block"] >= 0, "an int >= 0"),
        "agents": (all(isinstance(a, str) and a for a in value.get("agents", ())), "names"),
        "agent_seeds": (all(_is_int(x) for x in value.get("agent_seeds", ())), "ints"),
        "forfeits": (
            all(x is None or (isinstance(x, str) and x) for x in value.get("forfeits", ())),
            "reasons (non-empty strings) or None",
        ),
        "move_time_s": (all(_is_seconds(x) for x in value.get("move_time_s", ())), "seconds"),
        "wall_time_s": (_is_seconds(value.get("wall_time_s")), "seconds (a number >= 0)"),
    }
    for key in keys:
        ok, allowed = checks[key]
        if not ok:
            raise ValueError(f"record {name}.{key} is {value[key]!r}; allowed: {allowed}")


@dataclass(frozen=True)
class GameRecord:
    """A replayable game: options, seed (or start position) and the agents' actions.

    ``final`` is ``None`` for an unfinished game, else ``{"end": "terminated" or
    "truncated", "scores": [...], "ranks": [...]}``; a tournament game stopped by an agent's
    forfeit ends ``"forfeit"`` with the scores of that position and `forfeit_ranks`.

    A tournament adds two sections, written only when present (so ``Game.record()`` keeps its
    shape), as in Caylus records: ``match`` (``game_id``, ``block``, ``agents`` and
    ``agent_seeds`` per seat, and per seat the reason it forfeited or None) and ``timings``
    (``act`` seconds per seat, wall seconds: the only part two runs of one game differ in).
    """

    options: dict[str, Any]
    seed: int | None
    actions: tuple[int, ...]
    action_names: tuple[str, ...]
    final: dict[str, Any] | None = None
    start_state: dict[str, Any] | None = None
    engine: str = __version__
    game: str = GAME_NAME
    format: str = RECORD_FORMAT
    match: dict[str, Any] | None = None
    timings: dict[str, Any] | None = None

    @property
    def loser(self) -> int | None:
        """The seat whose forfeit stopped the game (``match.forfeits``), or None."""
        if self.match is None:
            return None
        return next((s for s, r in enumerate(self.match["forfeits"]) if r is not None), None)

    def to_dict(self) -> dict[str, Any]:
        out = {
            "format": self.format,
            "game": self.game,
            "engine": self.engine,
            "options": dict(self.options),
            "seed": self.seed,
            "start_state": self.start_state,
            "actions": list(self.actions),
            "action_names": list(self.action_names),
            "final": self.final,
        }
        for name in ("match", "timings"):
            if getattr(self, name) is not None:
                out[name] = getattr(self, name)
        return out

    @classmethod
    def from_dict(cls, d: Any) -> GameRecord:
        """The record of a dict; refuses another game's record or format by name."""
        if not isinstance(d, Mapping):
            raise ValueError(f"a record must be a dict, got {type(d).__name__}")
        if d.get("game") != GAME_NAME:
            raise ValueError(f"record is for game {d.get('game')!r}, not {GAME_NAME!r}")
        if d.get("format") != RECORD_FORMAT:
            raise ValueError(f"record format {d.get('format')!r} is not {RECORD_FORMAT!r}")
        keys = {
            "format", "game", "engine", "options", "seed", "start_state", "actions",
            "action_names", "final",
        }  # fmt: skip
        if not keys <= set(d) or not set(d) <= keys | {"match", "timings"}:
            raise ValueError(
                f"record has keys {sorted(d)}; expected {sorted(keys)}, optionally with "
                "match and timings"
            )
        actions = d["actions"]
        names = d["action_names"]
        if not isinstance(actions, list) or not all(
            isinstance(a, int) and not isinstance(a, bool) for a in actions
        ):
            raise ValueError("record actions must be a list of ints")
        if not isinstance(names, list) or len(names) != len(actions):
            raise ValueError("record action_names must be a list as long as actions")
        if (d["seed"] is None) == (d["start_state"] is None):
            raise ValueError("a record has either a seed or a start_state, exactly one")
        final = d["final"]
        if final is not None and (
            not isinstance(final, dict)
            or set(final) != {"end", "scores", "ranks"}
            or final["end"] not in (*END_KINDS, FORFEIT)
        ):
            raise ValueError(f"record final must be None or {{end, scores, ranks}}, got {final!r}")
        n = d["options"].get("num_players") if isinstance(d["options"], dict) else None
        for name in ("match", "timings"):
            if d.get(name) is not None:
                _check_section(name, d[name], n)
        record = cls(
            options=dict(d["options"]),
            seed=None if d["seed"] is None else _check_seed(d["seed"]),
            actions=tuple(actions),
            action_names=tuple(names),
            final=final,
            start_state=d["start_state"],
            engine=str(d["engine"]),
            match=d.get("match"),
            timings=d.get("timings"),
        )
        loser = record.loser
        if (final is not None and final["end"] == FORFEIT) != (loser is not None):
            who = "no seat" if loser is None else f"seat {loser}"
            end = None if final is None else final["end"]
            raise ValueError(
                f"record final.end is {end!r} but match.forfeits names {who}; allowed: end "
                f"{FORFEIT!r} exactly when a seat forfeited"
            )
        return record


class Game:
    """One game of Puerto Rico: the state array plus options, seed and history.

    Args:
        config: the game options (player count, truncation cap).
        seed: the seed of the plantation shuffle, 0 <= seed < 2**63 (rules 1.4).
    """

    def __init__(self, config: GameConfig | None = None, seed: int = 0) -> None:
        self.config = config if config is not None else GameConfig()
        if not isinstance(self.config, GameConfig):
            raise ValueError(f"config must be a GameConfig, got {type(self.config).__name__}")
        self.seed: int | None = _check_seed(seed)
        self.state = kernels.new_state(*self.config.kernel_args(), self.seed)
        self.history: list[int] = []
        self.start: dict[str, Any] | None = None
        self._legal = np.empty(NUM_ACTIONS, np.int64)
        self._num_legal = kernels.legal_actions(self.state, self._legal)

    @classmethod
    def from_state_dict(cls, data: dict[str, Any]) -> Game:
        """A game starting from any position (see ``state_dict``); runs to its next decision.

        Raises:
            InvalidStateError: (a ``ValueError``) naming what is wrong; nothing is built.
        """
        state = dict_to_state(data)
        game = cls.__new__(cls)
        game.config = GameConfig.from_dict(data["options"])
        game.seed = None
        game.state = state
        game.history = []
        game._legal = np.empty(NUM_ACTIONS, np.int64)
        try:
            game._num_legal = kernels.advance(game.state, game._legal)
        except RuntimeError as e:  # the engine's safety net: no decision can be reached
            raise InvalidStateError(f"state dict cannot be played on: {e}") from None
        game.start = state_to_dict(game.state)
        return game

    def clone(self) -> Game:
        """An independent copy (state, history, caches); cheap: the state is under 1 KB."""
        other = Game.__new__(Game)
        other.__dict__.update(self.__dict__)
        other.state = self.state.copy()
        other.history = list(self.history)
        other._legal = self._legal.copy()
        return other

    # -- queries -------------------------------------------------------------------------------
    @property
    def num_players(self) -> int:
        return self.config.num_players

    @property
    def phase(self) -> str:
        return PHASE_NAMES[int(self.state[L.PHASE])]

    @property
    def round(self) -> int:
        return int(self.state[L.ROUND])

    def current_player(self) -> int:
        """The seat that must act now (the engine decides), or -1 at the end."""
        return int(kernels.current_player(self.state))

    def is_terminal(self) -> bool:
        """The game ended by its rules (rules 5.1)."""
        return bool(kernels.is_terminal(self.state))

    def is_truncated(self) -> bool:
        """The game was cut off by the decision cap before it ended (rules 6.9)."""
        return bool(kernels.is_truncated(self.state))

    def legal_actions(self) -> list[int]:
        """Sorted legal action ids of the pending decision (empty at the end)."""
        return self._legal[: self._num_legal].tolist()

    def legal_mask(self) -> np.ndarray:
        """An int8 mask of ``NUM_ACTIONS`` entries, 1 for legal actions."""
        mask = np.zeros(NUM_ACTIONS, np.int8)
        mask[self._legal[: self._num_legal]] = 1
        return mask

    def decision(self) -> Decision | None:
        """The pending decision with its readable argument, or None when nothing is asked."""
        if self._num_legal == 0:
            return None
        top = state_to_dict(self.state)["pending"][-1]
        args = {k: v for k, v in top.items() if k not in ("kind", "player")}
        return Decision(top["kind"], top["player"], args)

    def scores(self) -> np.ndarray:
        """Victory points per seat as if the game ended now (rules 5.2)."""
        out = np.zeros(self.num_players, np.int64)
        kernels.scores(self.state, out)
        return out

    def ranks(self) -> np.ndarray:
        """Rank per seat by score, then doubloons plus barrels, ties averaged (rules 5.3)."""
        n = self.num_players
        tie = [int(kernels.tie_break(self.state, p)) for p in range(n)]
        keys = [int(v) * 10000 + t for v, t in zip(self.scores(), tie, strict=True)]
        return rank_of(keys)

    def returns(self, reward: str = "rank") -> np.ndarray:
        """Zero-sum rewards per seat, all zeros until the game is over (truncated: zeros).

        ``rank``: linear in the rank from +1 (first) to -1 (last), ties averaged.
        ``margin``: final score minus the mean score of the table.
        """
        if reward not in REWARD_KINDS:
            raise ValueError(f"reward={reward!r} is not allowed; allowed: {REWARD_KINDS}")
        n = self.num_players
        if not self.is_terminal():
            return np.zeros(n)
        if reward == "margin":
            v = self.scores().astype(float)
            return v - v.mean()
        ret = np.zeros(n)
        kernels.returns(self.state, ret)
        return ret

    # -- acting ----------------------------------------------------------------------------------
    def apply(self, action: int) -> None:
        """Apply one action of the current player, then run to the next decision.

        Raises:
            IllegalActionError: naming the action, the decision and the legal actions (or the
                allowed type); the game is left unchanged.
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
        d = self.decision()
        if d is None:
            why = "truncated" if self.is_truncated() else "over"
            return f"action {name} is illegal: the game is {why}"
        legal = ", ".join(f"{x} ({action_to_string(x)})" for x in self.legal_actions())
        return (
            f"action {name} is illegal for decision {d.kind!r} of player {d.player}; legal: {legal}"
        )

    # -- records ---------------------------------------------------------------------------------
    def state_dict(self) -> dict[str, Any]:
        """The whole game as a readable dict; ``from_state_dict`` is its exact inverse."""
        return state_to_dict(self.state)

    def record(self) -> GameRecord:
        """The record ``replay`` turns back into this exact game."""
        final = None
        if self.is_terminal() or self.is_truncated():
            final = {
                "end": "terminated" if self.is_terminal() else "truncated",
                "scores": self.scores().tolist(),
                "ranks": self.ranks().tolist(),
            }
        return GameRecord(
            options=self.config.to_dict(),
            seed=self.seed,
            actions=tuple(self.history),
            action_names=tuple(action_to_string(a) for a in self.history),
            final=final,
            start_state=self.start if self.seed is None else None,
        )

    def __repr__(self) -> str:
        d = self.decision()
        where = "game over" if d is None else f"{d.kind} for player {d.player}"
        return f"Game({self.num_players}p, seed={self.seed}, round {self.round}, {where})"


def replay(record: GameRecord | Mapping[str, Any]) -> Game:
    """Rebuild a game from its record, checking every step and the end against the engine.

    Raises:
        ValueError: naming the first step (or field) where the record and the engine disagree.
    """
    rec = record if isinstance(record, GameRecord) else GameRecord.from_dict(record)
    if rec.seed is None:
        game = Game.from_state_dict(dict(rec.start_state))
        if game.config.to_dict() != dict(rec.options):
            raise ValueError(
                f"record options {rec.options} differ from its start position's "
                f"{game.config.to_dict()}"
            )
    else:
        game = Game(GameConfig.from_dict(dict(rec.options)), rec.seed)
    for i, (a, name) in enumerate(zip(rec.actions, rec.action_names, strict=True)):
        if not 0 <= a < NUM_ACTIONS or action_to_string(a) != name:
            raise ValueError(f"record step {i}: action {a} does not have the name {name!r}")
        try:
            game.apply(a)
        except IllegalActionError as e:
            raise ValueError(f"record step {i} disagrees with the engine: {e}") from None
    replayed = game.record().final
    loser = rec.loser
    if loser is not None and replayed is None:  # stopped at a forfeit: the position's result
        ranks = forfeit_ranks(game.ranks().tolist(), loser)
        replayed = {"end": FORFEIT, "scores": game.scores().tolist(), "ranks": ranks}
    if replayed != rec.final:
        raise ValueError(f"replayed end {replayed} differs from the record's {rec.final}")
    return game


__all__ = [
    "Decision",
    "Game",
    "GameRecord",
    "IllegalActionError",
    "forfeit_ranks",
    "rank_of",
    "replay",
]
