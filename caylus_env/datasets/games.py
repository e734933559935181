"""What a dataset needs to know about each game: widths, versions, kinds and the replay calls.

The tables, the shard writer, ``verify``, the loader and the statistics are the same for every
game of the platform (``caylus_env.core.registry``); what differs is the state (its layout and width),
the action space (the mask's width), the decision kinds, how a game is started and how its
end is ranked. A `DatasetGame` holds exactly those parts, built on first use so that reading a
Caylus dataset never imports (or compiles) Puerto Rico, and the other way round:

- Caylus: ``caylus_env.caylus.engine`` (350 ``int16`` state entries, 167 actions, ranks by prestige,
  rules 8.21);
- Puerto Rico: ``caylus_env.puerto_rico.engine`` (its own flat ``int16`` state, its action
  space and the decision schema ``decisions.SCHEMA``); its victory points fill the games
  table's ``prestige`` column (docs/rules/puerto_rico.md 5.2), ranks break ties by doubloons
  plus goods (5.3), and a game cut off by the decision cap (6.9) ends ``truncated``, ranked
  by its position.

A dataset's manifest names its game in a ``game`` field, left out for Caylus, whose datasets
predate it (absent means Caylus, as in records and tournament ``run.json`` files).
"""

from __future__ import annotations

import hashlib
import importlib
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from functools import cache
from types import ModuleType
from typing import Any

import numpy as np

from caylus_env.core.registry import DEFAULT_GAME, GAME_NAMES, game_spec


@dataclass(frozen=True)
class DatasetGame:
    """The game-specific part of a dataset (see the module docstring); one per game.

    Attributes:
        name: The game's name (``caylus_env.core.registry``; the manifest's ``game`` field).
        title: The name people use (in error messages).
        engine: The rules engine module (``Game``, ``GameConfig``, ``IllegalActionError``).
        layout: The state layout module (``STATE_SIZE``, ``STATE_DTYPE``, ``FIELDS``,
            ``PLAYER_FIELDS``, ``STACK``, ``STACK_SIZE``, ``STACK_ENTRY``).
        state_size: Entries of the flat state.
        state_bytes: Bytes of one stored state (``int16``, little-endian).
        state_version: Digest of the layout (every field's name, offset and size).
        num_actions: Ids of the action space.
        mask_bytes: Bytes of a bit-packed legal mask.
        action_space_version: The action codec's version.
        kind_names: Decision kind names by kind id.
        kind_offset: Index of the kind in a pending-decision stack entry.
        observation: Module of the observation encoder (imported on first use).
        action_to_string: The stable name of an action id.
    """

    name: str
    title: str
    engine: ModuleType
    layout: ModuleType
    state_size: int
    state_bytes: int
    state_version: str
    num_actions: int
    mask_bytes: int
    action_space_version: str
    kind_names: tuple[str, ...]
    kind_offset: int
    observation: str
    action_to_string: Callable[[int], str]

    @property
    def is_default(self) -> bool:
        """Caylus: its manifests and ``run.json`` files have no ``game`` field."""
        return self.name == DEFAULT_GAME

    def observation_module(self) -> ModuleType:
        """The observation encoder (``OBS_SIZE``, ``OBSERVATION_VERSION``, ``encode``)."""
        return importlib.import_module(self.observation)

    def kinds_of(self, states: np.ndarray) -> np.ndarray:
        """The pending decision's kind id in each ``(D, state_size)`` state (top of the
        stack, as both engines keep it)."""
        if len(states) == 0:
            return np.zeros(0, np.int8)
        lay = self.layout
        top = lay.STACK + (states[:, lay.STACK_SIZE].astype(np.int64) - 1) * lay.STACK_ENTRY
        return states[np.arange(len(states)), top + self.kind_offset].astype(np.int8)

    def field_at(self, index: int) -> str:
        """The layout field holding state entry ``index`` (a verify message)."""
        for f in self.layout.FIELDS:
            if f.offset <= index < f.offset + f.size:
                return f"{f.name}[{index - f.offset}]" if f.size > 1 else f.name
        return f"entry {index}"

    def new_game(self, options: Mapping[str, Any], seed: int) -> Any:
        """A fresh game from a games row's options (``num_players`` included) and seed."""
        return self.engine.Game(self.engine.GameConfig.from_dict(dict(options)), int(seed))

    def fill_mask(self, game: Any, out: np.ndarray) -> None:
        """Write the game's legal mask into ``out`` (``num_actions`` int8)."""
        if self.is_default:
            game.legal_mask(out)
        else:
            out[:] = game.legal_mask()

    def scores(self, game: Any) -> list[int]:
        """The games table's ``prestige`` column: Caylus prestige, Puerto Rico victory points
        (docs/rules/puerto_rico.md 5.2)."""
        values = game.prestige() if self.is_default else game.scores()
        return [int(v) for v in values]

    def end_of(self, game: Any) -> str | None:
        """How the game ended by its rules: ``terminated``, ``truncated`` (Puerto Rico's
        decision cap, docs/rules/puerto_rico.md 6.9) or None while a seat is asked."""
        if game.is_terminal():
            return "terminated"
        if not self.is_default and game.is_truncated():
            return "truncated"
        return None

    def ranks(self, game: Any, forfeit_seat: int | None) -> list[float]:
        """The ranks a game's end gives (1 = best, ties averaged): by prestige for Caylus
        (rules 8.21), by victory points then doubloons plus goods for Puerto Rico
        (docs/rules/puerto_rico.md 5.3); after a forfeit that seat is last."""
        if self.is_default:
            from caylus_env.core.record import forfeit_ranks, rank_of

            prestige = self.scores(game)
            if forfeit_seat is None:
                return [float(r) for r in rank_of(prestige)]
            return [float(r) for r in forfeit_ranks(prestige, forfeit_seat)]
        from caylus_env.puerto_rico.engine.game import forfeit_ranks as pr_forfeit_ranks

        ranks = game.ranks().tolist()
        if forfeit_seat is None:
            return [float(r) for r in ranks]
        return [float(r) for r in pr_forfeit_ranks(ranks, forfeit_seat)]

    @property
    def ends(self) -> tuple[str, ...]:
        """The ``end`` values a games row may hold."""
        return (
            ("terminated", "forfeit") if self.is_default else ("terminated", "truncated", "forfeit")
        )


def _state_version(layout: ModuleType) -> str:
    """Digest of a state layout: every field's name, offset and size, and the per-player
    fields (a stored state means something only to an engine with the same layout)."""
    return hashlib.sha256(
        repr(
            [(f.name, f.offset, f.size) for f in layout.FIELDS] + list(layout.PLAYER_FIELDS)
        ).encode()
    ).hexdigest()[:8]


def _caylus() -> DatasetGame:
    from caylus_env.caylus.engine import layout
    from caylus_env.caylus.engine.actions import ACTION_SPACE_VERSION, NUM_ACTIONS, action_to_string
    from caylus_env.caylus.engine.constants import DECISION_NAMES

    engine = game_spec("caylus").engine()
    return DatasetGame(
        name="caylus",
        title=game_spec("caylus").title,
        engine=engine,
        layout=layout,
        state_size=layout.STATE_SIZE,
        state_bytes=layout.STATE_SIZE * np.dtype(layout.STATE_DTYPE).itemsize,
        state_version=_state_version(layout),
        num_actions=NUM_ACTIONS,
        mask_bytes=(NUM_ACTIONS + 7) // 8,
        action_space_version=ACTION_SPACE_VERSION,
        kind_names=tuple(DECISION_NAMES),
        kind_offset=0,  # decisions.E_KIND: the kind is the first value of an entry
        observation="caylus_env.caylus.observation",
        action_to_string=action_to_string,
    )


def _puerto_rico() -> DatasetGame:
    from caylus_env.puerto_rico.engine import layout
    from caylus_env.puerto_rico.engine.actions import (
        ACTION_SPACE_VERSION,
        NUM_ACTIONS,
        action_to_string,
    )
    from caylus_env.puerto_rico.engine.decisions import E_KIND, SCHEMA

    engine = game_spec("puerto_rico").engine()
    return DatasetGame(
        name="puerto_rico",
        title=game_spec("puerto_rico").title,
        engine=engine,
        layout=layout,
        state_size=layout.STATE_SIZE,
        state_bytes=layout.STATE_BYTES,
        state_version=_state_version(layout),
        num_actions=NUM_ACTIONS,
        mask_bytes=(NUM_ACTIONS + 7) // 8,
        action_space_version=ACTION_SPACE_VERSION,
        kind_names=tuple(e.name for e in SCHEMA),
        kind_offset=E_KIND,
        observation="caylus_env.puerto_rico.observation",
        action_to_string=action_to_string,
    )


_BUILDERS: dict[str, Callable[[], DatasetGame]] = {"caylus": _caylus, "puerto_rico": _puerto_rico}


@cache
def dataset_game(name: str = DEFAULT_GAME) -> DatasetGame:
    """The dataset part of the game called ``name``.

    Raises:
        ValueError: for a name that is not a game of the platform (listing the allowed ones),
            or a game datasets do not support yet.
    """
    info = game_spec(name)
    builder = _BUILDERS.get(info.name)
    if builder is None:
        raise ValueError(
            f"datasets of {info.title} are not supported yet; supported: {', '.join(_BUILDERS)}"
        )
    return builder()


def game_of_manifest(manifest: Mapping[str, Any]) -> str:
    """The game of a manifest or ``run.json``: its ``game`` field, Caylus when absent."""
    return str(manifest.get("game", DEFAULT_GAME))


def record_game_name(record: Any) -> str:
    """The game a record (either engine's ``GameRecord``) belongs to."""
    return str(getattr(record, "game", DEFAULT_GAME))


def supported_games() -> Sequence[str]:
    """Games datasets can hold (all of ``caylus_env.core.registry``)."""
    return tuple(g for g in GAME_NAMES if g in _BUILDERS)


__all__ = [
    "DatasetGame",
    "dataset_game",
    "game_of_manifest",
    "record_game_name",
    "supported_games",
]
