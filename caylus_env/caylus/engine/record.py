"""``GameRecord``: the one typed, replayable record of a game, with its one writer and one reader.

A record holds what rebuilds a game exactly (options, seed or start position, the explicit
setup, the action ids) and what it ended with (final prestige, ranks, end reason), plus the
optional fields that the layers above add: the tournament's match fields (agents per seat,
their seeds, game id, block, forfeit reasons), the timings, and the environment's name and
reward. Everything else in the project reads and writes records through this module:

- writer: `GameRecord.to_dict` / `GameRecord.to_json_line` (schema `RECORD_FORMAT`, every key
  always present, ``null`` for absent sections, so that a missing key is always an error);
- reader: `GameRecord.from_dict` / `GameRecord.from_json`, strict: a wrong type, an unknown or a
  missing key is a ``ValueError`` naming the field, the value and what is allowed. It also reads
  the earlier shape `LEGACY_FORMAT` (``Game.record()`` dicts and the tournament's flat extra
  keys), so files written before this schema keep loading;
- `load_records`: every record of a ``.json`` (one record or a list) or JSON-lines file.

``caylus_env.caylus.engine.replay`` turns a record back into a game and checks it step by step.
The module depends on the standard library and the engine only (no RL library, no agents).
"""

from __future__ import annotations

import json
import math
import os
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, replace
from numbers import Integral, Real
from types import MappingProxyType
from typing import Any

import numpy as np

from caylus_env.caylus.engine.actions import NUM_ACTIONS
from caylus_env.caylus.engine.config import GameConfig

RECORD_FORMAT = "caylus-record/2"
"""Schema of `GameRecord.to_dict`: bump it whenever a key is added, removed or changes meaning."""
LEGACY_FORMAT = "caylus-record/1"
"""The flat shape written before `GameRecord` existed; read, never written."""
GAME_NAME = "caylus"
END_REASONS = ("terminated", "forfeit")
"""How a recorded game ended: the rules' end (rules 8.21 scoring done) or an agent's forfeit."""


MAX_RECORD_FILE_BYTES = 64 * 2**20
"""Largest record file `load_records` reads (64 MiB, about 60,000 tournament records of
2-player games between fast bots): a bigger file is refused before it is read, so a stray
multi-gigabyte file cannot exhaust memory. Split bigger runs into several files."""


def _fail(where: str, value: Any, allowed: str) -> ValueError:
    try:
        text = repr(value)
    except RecursionError:  # a deeply nested value: its repr would not help anyway
        text = f"a {type(value).__name__} nested too deeply to show"
    if len(text) > 120:
        text = text[:117] + "..."
    return ValueError(f"record field {where!r} is {text}; allowed: {allowed}")


def _is_int(value: Any) -> bool:
    return isinstance(value, Integral) and not isinstance(value, bool)


def _int(where: str, value: Any, lo: int | None = None, hi: int | None = None) -> int:
    if not _is_int(value) or (lo is not None and value < lo) or (hi is not None and value >= hi):
        bounds = "an integer" + (f" >= {lo}" if lo is not None else "")
        bounds += f" and < {hi}" if hi is not None else ""
        raise _fail(where, value, bounds)
    return int(value)


def _real(where: str, value: Any, lo: float | None = None) -> float:
    if (
        isinstance(value, bool)
        or not isinstance(value, Real)
        or not math.isfinite(value)
        or (lo is not None and value < lo)
    ):
        raise _fail(where, value, "a finite number" + (f" >= {lo:g}" if lo is not None else ""))
    return float(value)


def _str(where: str, value: Any, choices: Sequence[str] | None = None) -> str:
    if not isinstance(value, str) or not value or (choices is not None and value not in choices):
        raise _fail(where, value, f"one of {list(choices)}" if choices else "a non-empty string")
    return value


def _list(
    where: str, value: Any, item: Callable[[str, Any], Any], length: int | None = None
) -> tuple[Any, ...]:
    if isinstance(value, (str, bytes, Mapping)) or not isinstance(value, Sequence):
        raise _fail(where, value, "a list")
    if length is not None and len(value) != length:
        raise _fail(where, value, f"a list of {length} entries (one per seat)")
    return tuple(item(f"{where}[{i}]", v) for i, v in enumerate(value))


def _keys(where: str, data: Any, required: Sequence[str], optional: Sequence[str] = ()) -> None:
    """Refuse a non-dict, a missing key or an unknown key, naming it and the allowed keys."""
    if not isinstance(data, Mapping):
        raise _fail(where, data, "a JSON object")
    missing = [k for k in required if k not in data]
    unknown = sorted(k for k in data if k not in required and k not in optional)
    allowed = ", ".join([*required, *optional])
    prefix = f"{where}." if where else ""
    if missing:
        name = f"{prefix}{missing[0]}"
        raise ValueError(f"record field {name!r} is missing; required: {allowed}")
    if unknown:
        name = f"{prefix}{unknown[0]}"
        raise ValueError(f"record field {name!r} is unknown; allowed: {allowed}")


def _set(obj: Any, name: str, value: Any) -> None:
    object.__setattr__(obj, name, value)


def _num_players(record: GameRecord) -> int:
    return int(record.options["num_players"])


# --------------------------------------------------------------------------------------------------
# Sections
# --------------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Setup:
    """The explicit setup (rules 1.3): neutral tiles on road spaces 1-6 and the first turn order.

    Stored although the seed determines it, so that a record says what the table looked like and
    a replay can check that the engine still draws the same setup from the same seed.
    """

    neutral_tiles: tuple[str, ...]
    turn_order: tuple[int, ...]

    def __post_init__(self) -> None:
        _set(self, "neutral_tiles", _list("setup.neutral_tiles", self.neutral_tiles, _str))
        _set(self, "turn_order", _list("setup.turn_order", self.turn_order, _seat_index))

    def to_dict(self) -> dict[str, Any]:
        return {"neutral_tiles": list(self.neutral_tiles), "turn_order": list(self.turn_order)}

    @classmethod
    def from_dict(cls, data: Any) -> Setup:
        _keys("setup", data, ("neutral_tiles", "turn_order"))
        return cls(data["neutral_tiles"], data["turn_order"])


def _seat_index(where: str, value: Any) -> int:
    return _int(where, value, 0)


@dataclass(frozen=True)
class FinalResult:
    """How the game ended: prestige and ranks per seat (1 = best, ties averaged, rules 8.21)
    and the end reason (`END_REASONS`; after a forfeit the forfeiting seat is ranked last)."""

    prestige: tuple[int, ...]
    ranks: tuple[float, ...]
    end: str

    def __post_init__(self) -> None:
        _set(self, "prestige", _list("final.prestige", self.prestige, _int))
        n = len(self.prestige)
        _set(self, "ranks", _list("final.ranks", self.ranks, _rank, n))
        _set(self, "end", _str("final.end", self.end, END_REASONS))

    def to_dict(self) -> dict[str, Any]:
        return {"prestige": list(self.prestige), "ranks": list(self.ranks), "end": self.end}

    @classmethod
    def from_dict(cls, data: Any) -> FinalResult:
        _keys("final", data, ("prestige", "ranks", "end"))
        return cls(data["prestige"], data["ranks"], data["end"])


def _rank(where: str, value: Any) -> float:
    return _real(where, value, 1.0)


def _forfeit_reason(where: str, value: Any) -> str | None:
    if value is None:
        return None
    return _str(where, value)


@dataclass(frozen=True)
class MatchInfo:
    """What a tournament adds to a game: who sat where and what happened to them.

    Attributes:
        game_id: Position in the run's schedule.
        block: The (seed, table) group of the game.
        agents: Agent spec per seat.
        agent_seeds: Seed given to each seat's ``agent.reset``.
        forfeits: Per seat, why that agent forfeited (crash, illegal action, timeout) or None.
    """

    game_id: int
    block: int
    agents: tuple[str, ...]
    agent_seeds: tuple[int, ...]
    forfeits: tuple[str | None, ...]

    def __post_init__(self) -> None:
        _set(self, "game_id", _int("match.game_id", self.game_id, 0))
        _set(self, "block", _int("match.block", self.block, 0))
        _set(self, "agents", _list("match.agents", self.agents, _str))
        n = len(self.agents)
        _set(self, "agent_seeds", _list("match.agent_seeds", self.agent_seeds, _int, n))
        _set(self, "forfeits", _list("match.forfeits", self.forfeits, _forfeit_reason, n))

    @property
    def loser(self) -> int | None:
        """The seat that forfeited (the game stops at the first forfeit), or None."""
        return next((s for s, r in enumerate(self.forfeits) if r is not None), None)

    def to_dict(self) -> dict[str, Any]:
        return {
            "game_id": self.game_id,
            "block": self.block,
            "agents": list(self.agents),
            "agent_seeds": list(self.agent_seeds),
            "forfeits": list(self.forfeits),
        }

    @classmethod
    def from_dict(cls, data: Any) -> MatchInfo:
        names = ("game_id", "block", "agents", "agent_seeds", "forfeits")
        _keys("match", data, names)
        return cls(*(data[k] for k in names))


def _seconds(where: str, value: Any) -> float:
    return _real(where, value, 0.0)


@dataclass(frozen=True)
class Timings:
    """Measured times: total ``act`` seconds per seat (numba compile time excluded) and the
    game's wall time. The only part of a record that differs between two runs of one game."""

    move_time_s: tuple[float, ...]
    wall_time_s: float

    def __post_init__(self) -> None:
        _set(self, "move_time_s", _list("timings.move_time_s", self.move_time_s, _seconds))
        _set(self, "wall_time_s", _seconds("timings.wall_time_s", self.wall_time_s))

    def to_dict(self) -> dict[str, Any]:
        return {"move_time_s": list(self.move_time_s), "wall_time_s": self.wall_time_s}

    @classmethod
    def from_dict(cls, data: Any) -> Timings:
        _keys("timings", data, ("move_time_s", "wall_time_s"))
        return cls(data["move_time_s"], data["wall_time_s"])


@dataclass(frozen=True)
class EnvInfo:
    """The environment a record came from: its name and the reward kind it paid."""

    name: str
    reward: str

    def __post_init__(self) -> None:
        _set(self, "name", _str("env.name", self.name))
        _set(self, "reward", _str("env.reward", self.reward))

    def to_dict(self) -> dict[str, Any]:
        return {"name": self.name, "reward": self.reward}

    @classmethod
    def from_dict(cls, data: Any) -> EnvInfo:
        _keys("env", data, ("name", "reward"))
        return cls(data["name"], data["reward"])


# --------------------------------------------------------------------------------------------------
# The record
# --------------------------------------------------------------------------------------------------

_SECTIONS: dict[str, Any] = {
    "setup": Setup,
    "final": FinalResult,
    "match": MatchInfo,
    "timings": Timings,
    "env": EnvInfo,
}


@dataclass(frozen=True)
class GameRecord:
    """One game, replayable exactly by ``caylus_env.caylus.engine.replay`` (see the module docstring).

    Attributes:
        engine: Version of ``caylus_env`` that played it.
        options: All `GameConfig` options, defaults filled in (read-only mapping).
        seed: Setup seed, or None for a game started from ``start_state``.
        start_state: The start position (a ``state_dict``) when there is no seed.
        setup: The explicit setup the seed (or start position) gave.
        actions: Action ids in the order they were applied.
        action_names: Their stable names (``action_to_string``), for people and for a check.
        final: How the game ended, None while it is unfinished.
        match: Tournament fields (None outside tournaments).
        timings: Measured times (None when nothing was timed).
        env: Environment name and reward (None outside the PettingZoo env).
        format: Schema version, always `RECORD_FORMAT` in memory.
        game: Always `GAME_NAME`.
    """

    engine: str
    options: Mapping[str, Any]
    seed: int | None
    setup: Setup
    actions: tuple[int, ...]
    action_names: tuple[str, ...]
    final: FinalResult | None = None
    start_state: Mapping[str, Any] | None = None
    match: MatchInfo | None = None
    timings: Timings | None = None
    env: EnvInfo | None = None
    format: str = RECORD_FORMAT
    game: str = GAME_NAME
    __iter__ = None  # type: ignore[assignment]  # __getitem__ is by key: not iterable

    def __post_init__(self) -> None:
        _str("format", self.format, (RECORD_FORMAT,))
        _str("game", self.game, (GAME_NAME,))
        _str("engine", self.engine)
        if not isinstance(self.options, Mapping):
            raise _fail("options", self.options, "a JSON object of GameConfig options")
        try:
            options = GameConfig.from_dict(dict(self.options)).to_dict()
        except (TypeError, ValueError) as err:
            raise _fail("options", dict(self.options), f"GameConfig options ({err})") from None
        _set(self, "options", MappingProxyType(options))
        n = options["num_players"]
        if self.seed is None:
            if not isinstance(self.start_state, Mapping):
                raise _fail("start_state", self.start_state, "a state dict when seed is null")
        else:
            _set(self, "seed", _int("seed", self.seed, 0))  # the upper bound: Game()
            if self.start_state is not None:
                raise _fail("start_state", "...", "null when the record has a seed")
        for name, kind in _SECTIONS.items():
            value = getattr(self, name)
            if value is not None and not isinstance(value, kind):
                raise _fail(name, value, f"a {kind.__name__} or null")
        if self.setup is None:
            raise _fail("setup", None, "a Setup")
        _set(self, "actions", _list("actions", self.actions, _action))
        _set(self, "action_names", _list("action_names", self.action_names, _str))
        if len(self.action_names) != len(self.actions):
            raise _fail(
                "action_names",
                f"{len(self.action_names)} names",
                f"one name per action ({len(self.actions)})",
            )
        for name, values in self._per_seat():
            if len(values) != n:
                raise _fail(name, list(values), f"one entry per seat ({n}, options.num_players)")
        self._check_end()

    def _per_seat(self) -> list[tuple[str, Sequence[Any]]]:
        out: list[tuple[str, Sequence[Any]]] = [("setup.turn_order", self.setup.turn_order)]
        if self.final is not None:
            out += [("final.prestige", self.final.prestige), ("final.ranks", self.final.ranks)]
        if self.match is not None:
            out += [("match.agents", self.match.agents)]
        if self.timings is not None:
            out += [("timings.move_time_s", self.timings.move_time_s)]
        return out

    def _check_end(self) -> None:
        loser = self.match.loser if self.match is not None else None
        if loser is not None and (self.final is None or self.final.end != "forfeit"):
            raise _fail(
                "final.end",
                None if self.final is None else self.final.end,
                f"'forfeit', since match.forfeits names seat {loser}",
            )
        if self.final is not None and self.final.end == "forfeit" and loser is None:
            raise _fail("final.end", "forfeit", "'terminated': no seat forfeited in match.forfeits")

    # -- derived views -----------------------------------------------------------------------
    @property
    def num_players(self) -> int:
        return _num_players(self)

    @property
    def num_moves(self) -> int:
        return len(self.actions)

    @property
    def game_id(self) -> int | None:
        return None if self.match is None else self.match.game_id

    def result(self) -> dict[str, Any]:
        """The flat result of a finished tournament game (``match`` and ``final`` set): what the
        statistics read (``agents.stats.GameResult.from_dict``)."""
        match, final = self.match, self.final
        if match is None or final is None:
            raise ValueError("result() needs a finished tournament record (match and final set)")
        return {
            "game_id": match.game_id,
            "seed": self.seed,
            "block": match.block,
            "num_players": self.num_players,
            "seats": list(match.agents),
            "prestige": list(final.prestige),
            "ranks": list(final.ranks),
            "forfeit": [r is not None for r in match.forfeits],
            "forfeit_reason": list(match.forfeits),
            "end": final.end,
            "wall_time_s": self.timings.wall_time_s if self.timings is not None else 0.0,
        }

    def without_timings(self) -> GameRecord:
        """This record without its timings: equal for two runs of the same game."""
        return replace(self, timings=None)

    # -- the one writer ----------------------------------------------------------------------
    def to_dict(self) -> dict[str, Any]:
        """The JSON-ready dict of schema `RECORD_FORMAT` (every key present)."""
        return {
            "format": self.format,
            "game": self.game,
            "engine": self.engine,
            "options": dict(self.options),
            "seed": self.seed,
            "start_state": None if self.start_state is None else dict(self.start_state),
            "setup": self.setup.to_dict(),
            "actions": list(self.actions),
            "action_names": list(self.action_names),
            "final": None if self.final is None else self.final.to_dict(),
            "match": None if self.match is None else self.match.to_dict(),
            "timings": None if self.timings is None else self.timings.to_dict(),
            "env": None if self.env is None else self.env.to_dict(),
        }

    def to_json_line(self) -> str:
        """One compact JSON line, newline-terminated (a line of a ``games.jsonl`` ledger)."""
        return json.dumps(self.to_dict(), separators=(",", ":"), allow_nan=False) + "\n"

    def __getitem__(self, key: str) -> Any:
        """Read-only ``record["final"]`` access to `to_dict`, for code written when records
        were dicts; new code uses the attributes."""
        data = self.to_dict()
        if key not in data:
            raise KeyError(f"{key!r} is not a record key; keys: {', '.join(data)}")
        return data[key]

    # -- the one reader ----------------------------------------------------------------------
    @classmethod
    def from_dict(cls, data: Any) -> GameRecord:
        """Parse a record dict of schema `RECORD_FORMAT` or `LEGACY_FORMAT`.

        Raises:
            ValueError: naming the field, its value and what is allowed.
        """
        if not isinstance(data, Mapping):
            raise _fail("", data, "a JSON object (a game record)")
        fmt = data.get("format")
        if fmt == LEGACY_FORMAT:
            return _from_legacy(data)
        if fmt != RECORD_FORMAT:
            raise _fail("format", fmt, f"{RECORD_FORMAT!r} or {LEGACY_FORMAT!r}")
        names = _RECORD_KEYS
        _keys("", data, names)
        values = {k: data[k] for k in names}
        for name, kind in _SECTIONS.items():
            if values[name] is not None:
                values[name] = kind.from_dict(values[name])
        if values["start_state"] is not None and not isinstance(values["start_state"], Mapping):
            raise _fail("start_state", values["start_state"], "a state dict or null")
        return cls(**values)

    @classmethod
    def from_json(cls, text: str | bytes) -> GameRecord:
        """Parse one JSON record (a ``games.jsonl`` line or a ``.json`` file's text).

        Raises:
            ValueError: for text that is not JSON (bad UTF-8 included), JSON nested too deeply
                for Python's parser (a ``RecursionError`` there, turned into this), or a record
                that `from_dict` refuses.
        """
        return cls.from_dict(_parse_json(text))


_RECORD_KEYS = (
    "format",
    "game",
    "engine",
    "options",
    "seed",
    "start_state",
    "setup",
    "actions",
    "action_names",
    "final",
    "match",
    "timings",
    "env",
)
"""The keys of `GameRecord.to_dict`, in the order it writes them."""


def _parse_json(text: str | bytes) -> Any:
    """``json.loads`` whose every failure is a ``ValueError`` naming what is wrong."""
    try:
        return json.loads(text)
    except RecursionError:
        raise ValueError(
            "a game record must be valid JSON: it is nested too deeply to parse (a record "
            "nests a few levels only)"
        ) from None
    except ValueError as err:  # JSONDecodeError and UnicodeDecodeError
        raise ValueError(f"a game record must be valid JSON: {err}") from None


def _action(where: str, value: Any) -> int:
    return _int(where, value, 0, NUM_ACTIONS)


_LEGACY_GAME = ("format", "engine", "options", "seed", "setup", "actions", "action_names")
_LEGACY_OPTIONAL = ("start_state", "final", "env")
_LEGACY_MATCH = (
    "game_id",
    "block",
    "num_players",
    "seats",
    "agent_seeds",
    "prestige",
    "ranks",
    "forfeit",
    "forfeit_reason",
    "end",
    "num_moves",
    "move_time_s",
    "wall_time_s",
)


def _from_legacy(data: Mapping[str, Any]) -> GameRecord:
    """Read the `LEGACY_FORMAT` shape: ``Game.record()`` keys, plus either all or none of the
    tournament's flat keys; redundant copies (``num_players``, ``forfeit``, ``num_moves``, the
    final prestige) must agree with each other."""
    is_match = any(k in data for k in _LEGACY_MATCH)
    _keys("", data, _LEGACY_GAME + (_LEGACY_MATCH if is_match else ()), _LEGACY_OPTIONAL)
    final = data.get("final")
    if final is not None:
        _keys("final", final, ("prestige", "ranks"))
    match = timings = None
    if is_match:
        match = MatchInfo(
            data["game_id"], data["block"], data["seats"], data["agent_seeds"],
            data["forfeit_reason"],
        )  # fmt: skip
        timings = Timings(data["move_time_s"], data["wall_time_s"])
        forfeit = _list("forfeit", data["forfeit"], lambda w, v: v)
        if list(forfeit) != [r is not None for r in match.forfeits]:
            raise _fail("forfeit", data["forfeit"], "a seat's forfeit_reason is not null")
        if final is not None and final["prestige"] != data["prestige"]:
            raise _fail("prestige", data["prestige"], f"final.prestige {final['prestige']}")
        if data["num_moves"] != len(data["actions"]):
            raise _fail("num_moves", data["num_moves"], f"len(actions) = {len(data['actions'])}")
        options = data["options"]
        if isinstance(options, Mapping) and data["num_players"] != options.get("num_players"):
            raise _fail("num_players", data["num_players"], "options.num_players")
        result: FinalResult | None = FinalResult(data["prestige"], data["ranks"], data["end"])
    else:
        result = (
            None if final is None else FinalResult(final["prestige"], final["ranks"], "terminated")
        )
    env = data.get("env")
    return GameRecord(
        engine=data["engine"],
        options=data["options"] if isinstance(data["options"], Mapping) else {},
        seed=data["seed"],
        setup=Setup.from_dict(data["setup"]),
        actions=data["actions"],
        action_names=data["action_names"],
        final=result,
        start_state=data.get("start_state"),
        match=match,
        timings=timings,
        env=None if env is None else EnvInfo.from_dict(env),
    )


def rank_of(prestige: Sequence[int] | np.ndarray) -> np.ndarray:
    """Ranks (1 = best); tied players share the average of their ranks (rules 8.21).

    Example:
        >>> rank_of([10, 3, 10]).tolist()
        [1.5, 3.0, 1.5]
    """
    prestige = np.asarray(prestige)
    better = (prestige[None, :] > prestige[:, None]).sum(axis=1)
    tied = (prestige[None, :] == prestige[:, None]).sum(axis=1) - 1
    return 1.0 + better + tied / 2.0


def forfeit_ranks(prestige: Sequence[int], loser: int) -> list[float]:
    """Ranks after a forfeit: the loser is last, the others by prestige with ties averaged.

    Example:
        >>> forfeit_ranks([10, 3, 7], loser=0)
        [3.0, 2.0, 1.0]
        >>> forfeit_ranks([5, 5, 1], loser=2)
        [1.5, 1.5, 3.0]
    """
    n = len(prestige)
    others = [s for s in range(n) if s != loser]
    ranks = [0.0] * n
    for s, r in zip(others, rank_of([prestige[s] for s in others]), strict=True):
        ranks[s] = float(r)
    ranks[loser] = float(n)
    return ranks


def load_records(path: str | os.PathLike[str]) -> list[GameRecord]:
    """Every record of a file: one JSON record, a JSON list of records, or JSON lines.

    The file is untrusted: one larger than `MAX_RECORD_FILE_BYTES` is refused before it is
    read, and bad UTF-8, JSON nested too deeply to parse, and any field the strict reader
    refuses are ``ValueError`` s, never other exceptions.

    Raises:
        ValueError: naming the file, the record or line and what is wrong.
        OSError: when the file cannot be opened or read.
    """
    size = os.stat(path).st_size
    if size > MAX_RECORD_FILE_BYTES:
        raise ValueError(
            f"{path} is {size} bytes; allowed: record files up to {MAX_RECORD_FILE_BYTES} bytes "
            f"({MAX_RECORD_FILE_BYTES // 2**20} MiB): split it"
        )
    with open(path, "rb") as handle:
        data = handle.read(MAX_RECORD_FILE_BYTES + 1)
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as err:
        raise ValueError(f"{path} is not UTF-8 text: {err}") from None
    missing = object()
    try:
        whole = _parse_json(text)
    except ValueError:
        whole = missing
    if whole is not missing:
        items = whole if isinstance(whole, list) else [whole]
        out = []
        for i, item in enumerate(items):
            try:
                out.append(GameRecord.from_dict(item))
            except ValueError as err:
                raise ValueError(f"{path} record {i + 1}: {err}") from None
        return out
    out = []
    for lineno, line in enumerate(text.splitlines(), start=1):
        if not line.strip():
            continue
        try:
            out.append(GameRecord.from_json(line))
        except ValueError as err:
            raise ValueError(f"{path} line {lineno}: {err}") from None
    return out


__all__ = [
    "END_REASONS",
    "GAME_NAME",
    "LEGACY_FORMAT",
    "MAX_RECORD_FILE_BYTES",
    "RECORD_FORMAT",
    "EnvInfo",
    "FinalResult",
    "GameRecord",
    "MatchInfo",
    "Setup",
    "Timings",
    "forfeit_ranks",
    "load_records",
    "rank_of",
]
