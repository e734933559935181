"""``GameRecord``: the one typed, replayable record of a game of any game, with its one writer,
its one reader and its one verifier (`replay`).

A record holds what rebuilds a game exactly (the game, its options, the seed or a start
position, the game's explicit setup, the action ids) and what it ended with (scores, ranks,
end reason), plus the optional sections that the layers above add: the tournament's match
(agents per seat, their seeds, game id, block, forfeit reasons), the timings, and the
environment's name and reward. Everything in the project reads and writes records through
this module:

- writer: `GameRecord.to_dict` / `GameRecord.to_json_line` (schema `RECORD_FORMAT`, every key
  always present, ``null`` for absent sections, so that a missing key is always an error);
- reader: `GameRecord.from_dict` / `GameRecord.from_json`, strict: a wrong type, an unknown or
  a missing key is a ``ValueError`` naming the field, the value and what is allowed. Records
  written before this schema (each game's ``GameSpec.record_formats``: Caylus's
  ``caylus-record/1`` and ``/2``, Puerto Rico's ``puerto-rico-record/1``) are read through their
  game's ``engine.read_legacy_record``, which turns them into this schema, so old files keep
  loading;
- verifier: `replay` rebuilds the game with its engine and checks every step and the end;
- `load_records`: every record of a ``.json`` (one record or a list) or JSON-lines file.

The module depends on the standard library, NumPy and the registered games' engines only.
"""

from __future__ import annotations

import json
import math
import os
import stat
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, replace
from numbers import Integral, Real
from types import MappingProxyType
from typing import Any

from caylus_env.core.errors import IllegalActionError
from caylus_env.core.ranks import forfeit_ranks
from caylus_env.core.registry import GAME_NAMES, game_spec, games

RECORD_FORMAT = "game-record/3"
"""Schema of `GameRecord.to_dict`: bump it whenever a key is added, removed or changes meaning.
Version 3 is the first shared by every game (Caylus wrote 1 and 2, Puerto Rico its own 1)."""
END_REASONS = ("terminated", "truncated", "forfeit")
"""How a recorded game ended: by its rules, cut off by its decision cap, or at an agent's
forfeit (the forfeiting seat ranked last)."""

MAX_RECORD_FILE_BYTES = 64 * 2**20
"""Largest record file `load_records` reads (64 MiB, about 60,000 tournament records of
2-player games between fast bots): a bigger file is refused before it is read, so a stray
multi-gigabyte file cannot exhaust memory. Split bigger runs into several files."""


def fail(where: str, value: Any, allowed: str) -> ValueError:
    """The reader's error: ``record field 'where' is <value>; allowed: <allowed>``."""
    try:
        text = repr(value)
    except RecursionError:  # a deeply nested value: its repr would not help anyway
        text = f"a {type(value).__name__} nested too deeply to show"
    if len(text) > 120:
        text = text[:117] + "..."
    return ValueError(f"record field {where!r} is {text}; allowed: {allowed}")


def _is_int(value: Any) -> bool:
    return isinstance(value, Integral) and not isinstance(value, bool)


def check_int(where: str, value: Any, lo: int | None = None, hi: int | None = None) -> int:
    """An integer field (``lo <= value < hi`` where given)."""
    if not _is_int(value) or (lo is not None and value < lo) or (hi is not None and value >= hi):
        bounds = "an integer" + (f" >= {lo}" if lo is not None else "")
        bounds += f" and < {hi}" if hi is not None else ""
        raise fail(where, value, bounds)
    return int(value)


def _real(where: str, value: Any, lo: float | None = None) -> float:
    if (
        isinstance(value, bool)
        or not isinstance(value, Real)
        or not math.isfinite(value)
        or (lo is not None and value < lo)
    ):
        raise fail(where, value, "a finite number" + (f" >= {lo:g}" if lo is not None else ""))
    return float(value)


def check_str(where: str, value: Any, choices: Sequence[str] | None = None) -> str:
    """A non-empty string field (one of ``choices`` where given)."""
    if not isinstance(value, str) or not value or (choices is not None and value not in choices):
        raise fail(where, value, f"one of {list(choices)}" if choices else "a non-empty string")
    return value


def check_list(
    where: str, value: Any, item: Callable[[str, Any], Any], length: int | None = None
) -> tuple[Any, ...]:
    """A list field whose items pass ``item`` (``length`` of them where given)."""
    if isinstance(value, (str, bytes, Mapping)) or not isinstance(value, Sequence):
        raise fail(where, value, "a list")
    if length is not None and len(value) != length:
        raise fail(where, value, f"a list of {length} entries (one per seat)")
    return tuple(item(f"{where}[{i}]", v) for i, v in enumerate(value))


def _plain(value: Any, kind: type) -> bool:
    """Whether ``value`` is a list or tuple of exactly ``kind`` items (no subclass: no bool for
    int): what every record a game writes, and every JSON array, holds."""
    return type(value) in (list, tuple) and set(map(type, value)) <= {kind}


def check_action_ids(where: str, value: Any, num_actions: int) -> tuple[int, ...]:
    """A list of action ids in ``[0, num_actions)``. A list of plain ints is checked in a few
    C-level passes (a record holds hundreds of actions, and every finished game builds one);
    anything else is checked item by item, naming the first wrong one."""
    if _plain(value, int) and (not value or (min(value) >= 0 and max(value) < num_actions)):
        return tuple(value)
    return check_list(where, value, lambda w, v: check_int(w, v, 0, num_actions))


def check_names(where: str, value: Any) -> tuple[str, ...]:
    """A list of non-empty strings (`check_action_ids`' fast path, for action names)."""
    if _plain(value, str) and all(value):
        return tuple(value)
    return check_list(where, value, check_str)


def check_keys(
    where: str, data: Any, required: Sequence[str], optional: Sequence[str] = ()
) -> None:
    """Refuse a non-dict, a missing key or an unknown key, naming it and the allowed keys."""
    if not isinstance(data, Mapping):
        raise fail(where, data, "a JSON object")
    missing = [k for k in required if k not in data]
    unknown = sorted(str(k) for k in data if k not in required and k not in optional)
    allowed = ", ".join([*required, *optional])
    prefix = f"{where}." if where else ""
    if missing:
        raise ValueError(f"record field {prefix + missing[0]!r} is missing; required: {allowed}")
    if unknown:
        raise ValueError(f"record field {prefix + unknown[0]!r} is unknown; allowed: {allowed}")


def _set(obj: Any, name: str, value: Any) -> None:
    object.__setattr__(obj, name, value)


def _json_object(where: str, value: Any) -> Mapping[str, Any]:
    """A JSON object field, copied (JSON values only) and read-only."""
    if not isinstance(value, Mapping):
        raise fail(where, value, "a JSON object")
    try:
        copy = json.loads(json.dumps(dict(value), allow_nan=False))
    except (TypeError, ValueError, RecursionError):
        raise fail(where, "...", "a JSON object of JSON values") from None
    return MappingProxyType(copy)


# --------------------------------------------------------------------------------------------------
# Sections
# --------------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class FinalResult:
    """How the game ended: the score and rank per seat (1 = best, ties averaged by the game's
    rules) and the end reason (`END_REASONS`; after a forfeit the forfeiting seat is last and
    the scores are the position's)."""

    scores: tuple[int, ...]
    ranks: tuple[float, ...]
    end: str

    def __post_init__(self) -> None:
        _set(self, "scores", check_list("final.scores", self.scores, check_int))
        n = len(self.scores)
        _set(self, "ranks", check_list("final.ranks", self.ranks, _rank, n))
        _set(self, "end", check_str("final.end", self.end, END_REASONS))

    def to_dict(self) -> dict[str, Any]:
        """The ``final`` object of a record's JSON."""
        return {"scores": list(self.scores), "ranks": list(self.ranks), "end": self.end}

    @classmethod
    def from_dict(cls, data: Any) -> FinalResult:
        """Read a record's ``final`` object, refusing a missing or unknown key."""
        check_keys("final", data, ("scores", "ranks", "end"))
        return cls(data["scores"], data["ranks"], data["end"])


def _rank(where: str, value: Any) -> float:
    return _real(where, value, 1.0)


def _forfeit_reason(where: str, value: Any) -> str | None:
    return None if value is None else check_str(where, value)


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
        _set(self, "game_id", check_int("match.game_id", self.game_id, 0))
        _set(self, "block", check_int("match.block", self.block, 0))
        _set(self, "agents", check_list("match.agents", self.agents, check_str))
        n = len(self.agents)
        _set(self, "agent_seeds", check_list("match.agent_seeds", self.agent_seeds, check_int, n))
        _set(self, "forfeits", check_list("match.forfeits", self.forfeits, _forfeit_reason, n))

    @property
    def loser(self) -> int | None:
        """The seat that forfeited (the game stops at the first forfeit), or None."""
        return next((s for s, r in enumerate(self.forfeits) if r is not None), None)

    def to_dict(self) -> dict[str, Any]:
        """The ``match`` object of a record's JSON."""
        return {
            "game_id": self.game_id,
            "block": self.block,
            "agents": list(self.agents),
            "agent_seeds": list(self.agent_seeds),
            "forfeits": list(self.forfeits),
        }

    @classmethod
    def from_dict(cls, data: Any) -> MatchInfo:
        """Read a record's ``match`` object, refusing a missing or unknown key."""
        names = ("game_id", "block", "agents", "agent_seeds", "forfeits")
        check_keys("match", data, names)
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
        _set(self, "move_time_s", check_list("timings.move_time_s", self.move_time_s, _seconds))
        _set(self, "wall_time_s", _seconds("timings.wall_time_s", self.wall_time_s))

    def to_dict(self) -> dict[str, Any]:
        """The ``timings`` object of a record's JSON."""
        return {"move_time_s": list(self.move_time_s), "wall_time_s": self.wall_time_s}

    @classmethod
    def from_dict(cls, data: Any) -> Timings:
        """Read a record's ``timings`` object, refusing a missing or unknown key."""
        check_keys("timings", data, ("move_time_s", "wall_time_s"))
        return cls(data["move_time_s"], data["wall_time_s"])


@dataclass(frozen=True)
class EnvInfo:
    """The environment a record came from: its name and the reward kind it paid."""

    name: str
    reward: str

    def __post_init__(self) -> None:
        _set(self, "name", check_str("env.name", self.name))
        _set(self, "reward", check_str("env.reward", self.reward))

    def to_dict(self) -> dict[str, Any]:
        """The ``env`` object of a record's JSON."""
        return {"name": self.name, "reward": self.reward}

    @classmethod
    def from_dict(cls, data: Any) -> EnvInfo:
        """Read a record's ``env`` object, refusing a missing or unknown key."""
        check_keys("env", data, ("name", "reward"))
        return cls(data["name"], data["reward"])


# --------------------------------------------------------------------------------------------------
# The record
# --------------------------------------------------------------------------------------------------

_SECTIONS: dict[str, Any] = {
    "final": FinalResult,
    "match": MatchInfo,
    "timings": Timings,
    "env": EnvInfo,
}


@dataclass(frozen=True)
class GameRecord:
    """One game, replayable exactly by `replay` (see the module docstring).

    Attributes:
        game: The game's registered name (``caylus_env.core.registry``).
        engine: Version of ``caylus_env`` that played it.
        options: All of the game's ``GameConfig`` options, defaults filled in (read-only).
        seed: Setup seed, or None for a game started from ``start_state``.
        setup: The game's explicit setup (``Game.setup()``: what the seed drew, stored so that
            a replay checks the engine still draws it), or None for a game that states none.
        actions: Action ids in the order they were applied.
        action_names: Their stable names (``action_to_string``), for people and for a check.
        final: How the game ended, None while it is unfinished.
        start_state: The start position (a ``state_dict``) when there is no seed.
        match: Tournament fields (None outside tournaments).
        timings: Measured times (None when nothing was timed).
        env: Environment name and reward (None outside the PettingZoo env).
        format: Schema version, always `RECORD_FORMAT` in memory.
    """

    game: str
    engine: str
    options: Mapping[str, Any]
    seed: int | None
    setup: Mapping[str, Any] | None
    actions: tuple[int, ...]
    action_names: tuple[str, ...]
    final: FinalResult | None = None
    start_state: Mapping[str, Any] | None = None
    match: MatchInfo | None = None
    timings: Timings | None = None
    env: EnvInfo | None = None
    format: str = RECORD_FORMAT
    __iter__ = None  # type: ignore[assignment]  # __getitem__ is by key: not iterable

    def __post_init__(self) -> None:
        check_str("format", self.format, (RECORD_FORMAT,))
        try:
            spec = game_spec(self.game)
        except ValueError:
            raise fail("game", self.game, f"a registered game: {list(GAME_NAMES)}") from None
        check_str("engine", self.engine)
        engine = spec.engine()
        if not isinstance(self.options, Mapping):
            raise fail("options", self.options, f"a JSON object of {spec.title} options")
        try:
            options = engine.GameConfig.from_dict(dict(self.options)).to_dict()
        except (TypeError, ValueError) as err:
            raise fail("options", dict(self.options), f"{spec.title} options ({err})") from None
        _set(self, "options", MappingProxyType(options))
        n = options["num_players"]
        if self.seed is None:
            if not isinstance(self.start_state, Mapping):
                raise fail("start_state", self.start_state, "a state dict when seed is null")
        else:
            _set(self, "seed", check_int("seed", self.seed, 0))  # the upper bound: Game()
            if self.start_state is not None:
                raise fail("start_state", "...", "null when the record has a seed")
        if self.setup is not None:
            _set(self, "setup", _json_object("setup", self.setup))
        for name, kind in _SECTIONS.items():
            value = getattr(self, name)
            if value is not None and not isinstance(value, kind):
                raise fail(name, value, f"a {kind.__name__} or null")
        _set(self, "actions", check_action_ids("actions", self.actions, int(engine.NUM_ACTIONS)))
        _set(self, "action_names", check_names("action_names", self.action_names))
        if len(self.action_names) != len(self.actions):
            raise fail(
                "action_names",
                f"{len(self.action_names)} names",
                f"one name per action ({len(self.actions)})",
            )
        for name, values in self._per_seat():
            if len(values) != n:
                raise fail(name, list(values), f"one entry per seat ({n}, options.num_players)")
        self._check_end()

    def _per_seat(self) -> list[tuple[str, Sequence[Any]]]:
        out: list[tuple[str, Sequence[Any]]] = []
        if self.final is not None:
            out += [("final.scores", self.final.scores), ("final.ranks", self.final.ranks)]
        if self.match is not None:
            out += [("match.agents", self.match.agents)]
        if self.timings is not None:
            out += [("timings.move_time_s", self.timings.move_time_s)]
        return out

    def _check_end(self) -> None:
        loser = self.match.loser if self.match is not None else None
        if loser is not None and (self.final is None or self.final.end != "forfeit"):
            raise fail(
                "final.end",
                None if self.final is None else self.final.end,
                f"'forfeit', since match.forfeits names seat {loser}",
            )
        if self.final is not None and self.final.end == "forfeit" and loser is None:
            raise fail(
                "final.end", "forfeit", "'terminated' or 'truncated': no seat forfeited in "
                "match.forfeits"
            )  # fmt: skip

    # -- derived views -----------------------------------------------------------------------
    @property
    def num_players(self) -> int:
        return int(self.options["num_players"])

    @property
    def num_moves(self) -> int:
        return len(self.actions)

    @property
    def game_id(self) -> int | None:
        return None if self.match is None else self.match.game_id

    @property
    def loser(self) -> int | None:
        """The seat whose forfeit stopped the game, or None."""
        return None if self.match is None else self.match.loser

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
            "scores": list(final.scores),
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
            "setup": None if self.setup is None else dict(self.setup),
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
        """Parse a record dict of schema `RECORD_FORMAT`, or of a format a game wrote before
        it (read through that game's ``engine.read_legacy_record``).

        Raises:
            ValueError: naming the field, its value and what is allowed.
        """
        if not isinstance(data, Mapping):
            raise fail("", data, "a JSON object (a game record)")
        fmt = data.get("format")
        if not isinstance(fmt, str):
            raise fail("format", fmt, f"a record format's name, such as {RECORD_FORMAT!r}")
        if fmt != RECORD_FORMAT:
            legacy = {f: spec for spec in games() for f in spec.record_formats}
            if fmt not in legacy:
                raise fail("format", fmt, f"{[RECORD_FORMAT, *legacy]}")
            data = legacy[fmt].engine().read_legacy_record(data)
        check_keys("", data, _RECORD_KEYS)
        values = {k: data[k] for k in _RECORD_KEYS}
        for name, kind in _SECTIONS.items():
            if values[name] is not None:
                values[name] = kind.from_dict(values[name])
        if values["start_state"] is not None and not isinstance(values["start_state"], Mapping):
            raise fail("start_state", values["start_state"], "a state dict or null")
        if not isinstance(values["game"], str):
            raise fail("game", values["game"], "a registered game's name")
        return cls(**values)

    @classmethod
    def from_json(cls, text: str | bytes) -> GameRecord:
        """Parse one JSON record (a ``games.jsonl`` line or a ``.json`` file's text).

        Raises:
            ValueError: for text that is not JSON (bad UTF-8 included), JSON nested too deeply
                for Python's parser (a ``RecursionError`` there, turned into this), or a record
                that `from_dict` refuses.
        """
        return cls.from_dict(parse_json(text))


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


def parse_json(text: str | bytes) -> Any:
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


# --------------------------------------------------------------------------------------------------
# The verifier
# --------------------------------------------------------------------------------------------------


def replay(record: GameRecord | Mapping[str, Any]) -> Any:
    """Rebuild a game (its engine's ``Game``) from its record, checking every step against the
    engine.

    A dict goes through the one reader (`GameRecord.from_dict`). Checked: the options against
    the start position's, the setup the seed gives, each action's legality and its recorded
    name, and the end: a ``terminated`` (``truncated``) record must reach the end of the game
    by its rules (its decision cap) with its scores and ranks, a ``forfeit`` record must stop
    before it with the position's scores and the forfeit ranks (the forfeiting seat last), and
    a record without a result must not reach the end.

    A record written by an engine older than one of the game's added choices
    (``engine.ADDED_CHOICES``: a decision the engine answered by itself then) replays with the
    old answer played where today's engine asks (`added_choices`): the replayed game's
    ``history`` then holds those answers beside the record's actions.

    Raises:
        ValueError: naming the first step (or field) where the record and the engine disagree.
    """
    rec = record if isinstance(record, GameRecord) else GameRecord.from_dict(record)
    engine = game_spec(rec.game).engine()
    if rec.seed is None:
        game = engine.Game.from_state_dict(dict(rec.start_state))
    else:
        game = engine.Game(engine.GameConfig.from_dict(dict(rec.options)), rec.seed)
    options = game.config.to_dict()
    differ = [k for k in options if options[k] != rec.options.get(k)]
    if differ:
        k = differ[0]
        raise ValueError(
            f"record option {k}={rec.options.get(k)!r} differs from its start position's "
            f"{options[k]!r}"
        )
    setup = game.setup()
    recorded = None if rec.setup is None else dict(rec.setup)
    if recorded != setup:
        where = f"seed {rec.seed}" if rec.seed is not None else "the start position"
        keys = sorted(set(recorded or {}) | set(setup or {}))
        key = next((k for k in keys if (recorded or {}).get(k) != (setup or {}).get(k)), None)
        what = f"setup {key}" if key is not None else "setup"
        raise ValueError(
            f"record {what} {(recorded or {}).get(key, recorded)} differs from the {what} of "
            f"{where}: {(setup or {}).get(key, setup)}"
        )
    added = added_choices(engine, rec.engine)
    for i, (a, name) in enumerate(zip(rec.actions, rec.action_names, strict=True)):
        if engine.action_to_string(a) != name:
            raise ValueError(
                f"record step {i}: action {a} is {engine.action_to_string(a)!r} but "
                f"action_names[{i}] is {name!r}"
            )
        _answer_added(game, added, a)
        try:
            game.apply(a)
        except IllegalActionError as e:
            raise ValueError(f"record step {i} disagrees with the engine: {e}") from None
    _answer_added(game, added, None)
    _check_final(rec, game)
    return game


def _version(text: str) -> tuple[int, ...] | None:
    """``"0.3.0"`` as ``(0, 3, 0)``; None for a version that is not dotted numbers."""
    parts = text.split(".")
    return tuple(int(p) for p in parts) if all(p.isdigit() for p in parts) else None


def added_choices(engine: Any, written_by: str) -> list[range]:
    """The action ids of the choices the game's engine added (``engine.ADDED_CHOICES``,
    `caylus_env.core.contract.AddedChoice`) after the version ``written_by`` that wrote a
    record: the decisions whose old answer `replay` makes explicit; empty for a record of
    this version or a later one, or whose version is not dotted numbers (replayed as it is)."""
    mine = _version(written_by)
    if mine is None:
        return []
    out = []
    for choice in getattr(engine, "ADDED_CHOICES", ()):
        since = _version(choice.since)
        if since is not None and mine < since:
            start, size = engine.BLOCKS[choice.block]
            out.append(range(start, start + size))
    return out


def _answer_added(game: Any, added: list[range], recorded: int | None) -> None:
    """Play the old answer (the first legal action) of every added choice the game asks before
    the ``recorded`` action (None: after the last one), as the old engine did by itself."""
    while added and not game.is_over():
        legal = game.legal_actions()
        if recorded in legal or not all(any(a in r for r in added) for a in legal):
            return
        game.apply(legal[0])


def _check_final(rec: GameRecord, game: Any) -> None:
    """The recorded end against the replayed game (see `replay`)."""
    n = len(rec.actions)
    final = rec.final
    if final is None:
        if game.is_over():
            raise ValueError(f"record has no final result, but the game ends after its {n} actions")
        return
    scores = game.scores().tolist()
    ranks = game.ranks().tolist()
    if final.end == "forfeit":
        if game.is_over():
            raise ValueError(f"record ends by a forfeit, but the game ends after its {n} actions")
        ranks = forfeit_ranks(ranks, rec.match.loser)
    else:
        ended = game.is_terminal() if final.end == "terminated" else game.is_truncated()
        if not ended:
            d = game.decision()
            now = (
                "has ended otherwise" if d is None else f"waits for {d.kind!r} of player {d.player}"
            )
            raise ValueError(
                f"record says the game ended ({final.end}), but after its {n} actions the "
                f"engine {now}"
            )
    if list(final.scores) != scores:
        raise ValueError(
            f"replayed final scores {scores} differ from the record's {list(final.scores)}"
        )
    if list(final.ranks) != ranks:
        raise ValueError(f"replayed ranks {ranks} differ from the record's {list(final.ranks)}")


def load_records(path: str | os.PathLike[str]) -> list[GameRecord]:
    """Every record of a file: one JSON record, a JSON list of records, or JSON lines.

    The file is untrusted: one larger than `MAX_RECORD_FILE_BYTES` is refused before it is
    read, and bad UTF-8, JSON nested too deeply to parse, and any field the strict reader
    refuses are ``ValueError`` s, never other exceptions.

    Raises:
        ValueError: naming the file, the record or line and what is wrong.
        OSError: when the file cannot be opened or read.
    """
    info = os.stat(path)
    size = info.st_size
    if not stat.S_ISREG(info.st_mode):  # a FIFO blocks, /dev/zero never ends: never opened
        raise ValueError(f"{path} is not a regular file; allowed: a record file")
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
        whole = parse_json(text)
    except ValueError:
        # Not one JSON document: read it as JSON lines (a games.jsonl ledger).
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
    "MAX_RECORD_FILE_BYTES",
    "RECORD_FORMAT",
    "EnvInfo",
    "FinalResult",
    "GameRecord",
    "MatchInfo",
    "Timings",
    "added_choices",
    "check_action_ids",
    "check_int",
    "check_keys",
    "check_list",
    "check_names",
    "check_str",
    "fail",
    "load_records",
    "parse_json",
    "replay",
]
