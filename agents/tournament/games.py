"""What the harness needs to know about each game: one small adapter per game of the platform.

The schedule, the move clock, the forfeits, the ledger, the backends and the statistics do not
depend on the game; making a game, creating its agents, and writing, reading and checking its
records do. A `TournamentGame` holds exactly those parts, so the arena, the run directory and
the reports stay game-generic and ask `tournament_game(name)` (names of ``caylus_env.core.registry``):

- `CaylusGame`: the original harness's code moved here unchanged, so Caylus runs write the same
  bytes as before (``caylus_env.core.record.GameRecord``, schema ``caylus-record/2``);
- `PuertoRicoGame`: ``caylus_env.puerto_rico.engine`` records (``puerto-rico-record/1``) with
  the optional ``match`` and ``timings`` sections; a game cut off by the engine's decision cap
  (docs/rules/puerto_rico.md 6.9) ends ``truncated`` and is ranked by its position, like the
  engine's own records; its replay pages come from ``caylus_env.puerto_rico.viewer``.

A game's agents come from its registry (``GameInfo.agents_module``), engines and registries are
imported on first use, and a run directory's ``run.json`` names its game in a ``game`` field
(left out for Caylus, whose runs predate it: absent means Caylus, as in records).
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import fields, replace
from functools import cache
from pathlib import Path
from types import ModuleType
from typing import Any, NamedTuple

from caylus_env.core.contract import GameSpec
from caylus_env.core.registry import DEFAULT_GAME, game_spec, record_game


class RecordView(NamedTuple):
    """The tournament fields of a record, whichever game wrote it (what a resume checks)."""

    game_id: int
    block: int
    agents: tuple[str, ...]
    agent_seeds: tuple[int, ...]
    seed: int | None
    engine: str
    options: Mapping[str, Any]


def game_of(info: Mapping[str, Any]) -> str:
    """The game of a ``run.json`` (or worker settings): its ``game`` field, Caylus if absent."""
    return str(info.get("game", DEFAULT_GAME))


def _parse_json(raw: str | bytes) -> Any:
    """``json.loads`` whose every failure is a ``ValueError`` (deep nesting included)."""
    try:
        return json.loads(raw)
    except RecursionError:
        raise ValueError("a game record nested too deeply to parse") from None
    except ValueError as err:  # JSONDecodeError and UnicodeDecodeError
        raise ValueError(f"a game record must be valid JSON: {err}") from None


class TournamentGame:
    """The game-specific part of the harness (see the module docstring); one per game.

    Attributes:
        name: The game's name (``caylus_env.core.registry``).
        replay_pages: Whether reports write a replay page per sampled game (``caylus_env.caylus.viewer``).
        score_note: How to read the game's scores in the shared "prestige" columns, for a game
            whose score is not Caylus's prestige (None for Caylus).
    """

    name: str = DEFAULT_GAME
    replay_pages: bool = False
    score_note: str | None = None

    @property
    def info(self) -> GameSpec:
        return game_spec(self.name)

    def engine(self) -> ModuleType:
        """The rules engine, imported on first use."""
        return self.info.engine()

    def make_agent(self, spec: str) -> Any:
        """An agent of this game's registry.

        Raises:
            ValueError: for an unknown spec, naming this game's agents.
        """
        from agents.registry import make_agent

        return make_agent(spec, self.name)

    def new_game(self, num_players: int, options: Mapping[str, Any], seed: int) -> Any:
        """A fresh game of ``num_players`` with the other ``options`` on setup ``seed``."""
        engine = self.engine()
        return engine.Game(engine.GameConfig(num_players=int(num_players), **options), seed)

    def normal_options(self, players: int, options: Mapping[str, Any]) -> dict[str, Any]:
        """All game options but the player count, defaults filled in (``{}`` equals explicit
        defaults in ``run.json``).

        Raises:
            ValueError: for an option the game does not have or a bad value, naming it.
        """
        raise NotImplementedError

    def is_over(self, game: Any) -> bool:
        """Whether no seat is asked for a move any more."""
        return bool(game.is_terminal())

    def action_name(self, action: int) -> str:
        """The stable name of an action id (``ValueError`` when it has none)."""
        return str(self.engine().action_to_string(action))

    def finish(
        self,
        game: Any,
        reasons: Sequence[str | None],
        *,
        game_id: int,
        block: int,
        seats: Sequence[str],
        agent_seeds: Sequence[int],
        move_time: Sequence[float],
        wall_time: float,
    ) -> Any:
        """The tournament record of a game that ended or stopped at the first forfeit
        (``reasons``: per seat why it forfeited, or None)."""
        raise NotImplementedError

    def parse(self, raw: str | bytes) -> Any:
        """One JSON record of this game, by the engine's strict reader.

        Raises:
            ValueError: for text that is not a record of this game (another game's record is
                refused by ``caylus_env.core.registry.record_game``, naming both games).
        """
        raise NotImplementedError

    def to_line(self, record: Any) -> str:
        """The record as one compact, newline-terminated ``games.jsonl`` line."""
        return json.dumps(record.to_dict(), separators=(",", ":"), allow_nan=False) + "\n"

    def game_id(self, record: Any) -> int | None:
        """The record's game id in its run, None outside tournaments."""
        raise NotImplementedError

    def view(self, record: Any) -> RecordView:
        """The tournament fields of a finished tournament record.

        Raises:
            ValueError: for a record without its match or final section.
        """
        raise NotImplementedError

    def result_of(self, record: Any) -> dict[str, Any]:
        """The flat result the statistics read (``arena.RESULT_FIELDS``)."""
        raise NotImplementedError

    def replay(self, record: Any) -> Any:
        """Replay a record with the engine, checking every step and its end."""
        return self.engine().replay(record)

    def write_page(self, record: Any, path: Path) -> None:
        """Write the record's self-contained replay page (the game's viewer) to ``path``,
        atomically.

        Raises:
            ValueError: if the record does not replay exactly (nothing is written then).
        """
        raise NotImplementedError


class CaylusGame(TournamentGame):
    """Caylus: the harness's original code, moved here without a change in what it writes."""

    name = "caylus"
    replay_pages = True

    def write_page(self, record: Any, path: Path) -> None:
        from caylus_env.caylus.viewer import write_replay_html

        write_replay_html(record, path)

    def normal_options(self, players: int, options: Mapping[str, Any]) -> dict[str, Any]:
        from caylus_env.caylus.engine import GameConfig

        config = GameConfig.from_dict({**options, "num_players": players})
        out = config.to_dict()
        del out["num_players"]
        return out

    def finish(
        self,
        game: Any,
        reasons: Sequence[str | None],
        *,
        game_id: int,
        block: int,
        seats: Sequence[str],
        agent_seeds: Sequence[int],
        move_time: Sequence[float],
        wall_time: float,
    ) -> Any:
        from caylus_env.core.record import FinalResult, MatchInfo, Timings, forfeit_ranks

        record = game.record()
        loser = next((s for s, r in enumerate(reasons) if r is not None), None)
        final = record.final
        if loser is not None:
            prestige = [int(x) for x in game.prestige()]
            final = FinalResult(prestige, forfeit_ranks(prestige, loser), "forfeit")
        return replace(
            record,
            final=final,
            match=MatchInfo(int(game_id), int(block), list(seats), list(agent_seeds), reasons),
            timings=Timings([round(t, 6) for t in move_time], round(wall_time, 6)),
        )

    def parse(self, raw: str | bytes) -> Any:
        from caylus_env.core.record import GameRecord

        data = _parse_json(raw)
        if isinstance(data, Mapping):
            record_game(data, self.name)
        return GameRecord.from_dict(data)

    def to_line(self, record: Any) -> str:
        return str(record.to_json_line())

    def game_id(self, record: Any) -> int | None:
        return record.game_id

    def view(self, record: Any) -> RecordView:
        match = record.match
        if match is None or record.final is None:
            raise ValueError("not a finished tournament game (no match or final section)")
        return RecordView(
            match.game_id,
            match.block,
            tuple(match.agents),
            tuple(match.agent_seeds),
            record.seed,
            record.engine,
            record.options,
        )

    def result_of(self, record: Any) -> dict[str, Any]:
        return dict(record.result())


class PuertoRicoGame(TournamentGame):
    """Puerto Rico: records of ``caylus_env.puerto_rico.engine`` with the tournament sections.

    Its scores take the place of Caylus's prestige in the results (the statistics' "prestige"
    columns are victory points), and ranks are the engine's (score, then doubloons plus goods,
    as the Puerto Rico rules document's section on the winner says).
    """

    name = "puerto_rico"
    replay_pages = True

    def write_page(self, record: Any, path: Path) -> None:
        from caylus_env.puerto_rico.viewer import write_replay_page

        write_replay_page(record, path)

    @property
    def score_note(self) -> str:  # type: ignore[override]
        from caylus_env.puerto_rico import SCORE_NOTE

        return SCORE_NOTE

    def normal_options(self, players: int, options: Mapping[str, Any]) -> dict[str, Any]:
        config_class = self.engine().GameConfig
        allowed = [f.name for f in fields(config_class) if f.name != "num_players"]
        unknown = sorted(k for k in options if k not in allowed)
        if unknown:
            raise ValueError(
                f"unknown Puerto Rico option {unknown[0]!r}; allowed: {', '.join(allowed)}"
            )
        out = config_class(num_players=players, **options).to_dict()
        del out["num_players"]
        return out

    def is_over(self, game: Any) -> bool:
        return bool(game.is_terminal() or game.is_truncated())

    def finish(
        self,
        game: Any,
        reasons: Sequence[str | None],
        *,
        game_id: int,
        block: int,
        seats: Sequence[str],
        agent_seeds: Sequence[int],
        move_time: Sequence[float],
        wall_time: float,
    ) -> Any:
        from caylus_env.puerto_rico.engine.game import FORFEIT, forfeit_ranks

        record = game.record()
        final = record.final
        loser = next((s for s, r in enumerate(reasons) if r is not None), None)
        if loser is not None:
            ranks = forfeit_ranks(game.ranks().tolist(), loser)
            final = {"end": FORFEIT, "scores": game.scores().tolist(), "ranks": ranks}
        return replace(
            record,
            final=final,
            match={
                "game_id": int(game_id),
                "block": int(block),
                "agents": [str(s) for s in seats],
                "agent_seeds": [int(x) for x in agent_seeds],
                "forfeits": list(reasons),
            },
            timings={
                "move_time_s": [round(float(t), 6) for t in move_time],
                "wall_time_s": round(float(wall_time), 6),
            },
        )

    def parse(self, raw: str | bytes) -> Any:
        data = _parse_json(raw)
        record_game(data, self.name)
        return self.engine().GameRecord.from_dict(data)

    def game_id(self, record: Any) -> int | None:
        return None if record.match is None else int(record.match["game_id"])

    def view(self, record: Any) -> RecordView:
        match = record.match
        if match is None or record.final is None:
            raise ValueError("not a finished tournament game (no match or final section)")
        return RecordView(
            match["game_id"],
            match["block"],
            tuple(match["agents"]),
            tuple(match["agent_seeds"]),
            record.seed,
            record.engine,
            record.options,
        )

    def result_of(self, record: Any) -> dict[str, Any]:
        match, final, timings = record.match, record.final, record.timings
        if match is None or final is None:
            raise ValueError("result_of needs a finished tournament record (match and final set)")
        return {
            "game_id": match["game_id"],
            "seed": record.seed,
            "block": match["block"],
            "num_players": int(record.options["num_players"]),
            "seats": list(match["agents"]),
            "prestige": list(final["scores"]),
            "ranks": list(final["ranks"]),
            "forfeit": [r is not None for r in match["forfeits"]],
            "forfeit_reason": list(match["forfeits"]),
            "end": final["end"],
            "wall_time_s": timings["wall_time_s"] if timings is not None else 0.0,
        }


_ADAPTERS: dict[str, type[TournamentGame]] = {"caylus": CaylusGame, "puerto_rico": PuertoRicoGame}


@cache
def tournament_game(name: str = DEFAULT_GAME) -> TournamentGame:
    """The adapter of the game called ``name``.

    Raises:
        ValueError: for a name that is not a game of the platform (``caylus_env.core.registry``'s
            error, listing the allowed ones), or a game the harness has no adapter for.
    """
    info = game_spec(name)
    adapter = _ADAPTERS.get(info.name)
    if adapter is None:
        raise ValueError(
            f"tournaments of {info.title} are not supported yet; supported: {', '.join(_ADAPTERS)}"
        )
    return adapter()


__all__ = [
    "CaylusGame",
    "PuertoRicoGame",
    "RecordView",
    "TournamentGame",
    "game_of",
    "tournament_game",
]
