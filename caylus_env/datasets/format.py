"""The on-disk format of a self-play dataset: its Parquet schemas, its manifest, its shard writer.

A dataset directory (``docs/datasets.md`` documents every column)::

    DIR/manifest.json               schema and engine versions, the command, counts, checksums
    DIR/games/part-00000.parquet    one row per game (GAMES_SCHEMA)
    DIR/decisions/part-00000.parquet one row per decision (`decisions_schema`)
    DIR/run.json, DIR/shards.jsonl  the generator's resumable ledger (caylus_env.core.ledger)

Shard ``k`` holds the games with ids ``k * shard_games`` to ``(k + 1) * shard_games - 1``, in
game id order, and their decisions in (game id, ply) order; its row groups end at game
boundaries chosen from the content alone (`ROW_GROUP_DECISIONS`). Nothing in a shard depends
on time, on the worker that played a game or on the order games finished in, so the same
arguments give byte-identical shards with any number of workers and any backend (with the same
pyarrow version, which is named in the files' ``created_by``). Timings live in the manifest.

Every game of the registry (``caylus_env.core.registry``) is stored the same way, through its
`caylus_env.core.contract.GameSpec` alone: the state column is the engine's flat state
(``engine.layout``: ``STATE_SIZE`` entries of ``STATE_DTYPE``, little-endian) at the moment
the agent was asked, the legal mask is ``NUM_ACTIONS`` bits, the decision kinds are the
engine's ``DECISION_NAMES`` (`state_bytes`, `mask_bytes`, `state_version`, `kinds_of` compute
them). Consecutive states of a game differ in a few entries, which zstd finds, so a decision
costs about 20 to 30 bytes on disk. Observations are not stored: the loader encodes states
with the game's own observation encoder. The manifest names the game in its ``game`` field; a
manifest without one was written before games had names and holds `DEFAULT_GAME`.

Format history: ``caylus-dataset/1`` named the games table's score column ``prestige`` (for
every game: Puerto Rico's victory points were stored under it); ``caylus-dataset/2`` names it
``scores`` and always writes the manifest's ``game`` field. Version 1 datasets keep loading,
verifying and reporting: their column is read as ``scores`` (`games_rows`, `games_columns`).
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import stat
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Any

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq

from caylus_env._version import PROGRAM, __version__
from caylus_env.core.contract import GameSpec
from caylus_env.core.fileio import fsync_path
from caylus_env.core.game import check_state_array, state_field
from caylus_env.core.registry import DEFAULT_GAME, game_of, game_spec

DATASET_FORMAT = "caylus-dataset/2"
"""Schema version of the manifest and both tables: bump it when a column is added, removed or
changes meaning (version 2: the games table's ``scores`` column, the manifest's ``game``)."""
LEGACY_FORMATS = ("caylus-dataset/1",)
"""Formats written before `DATASET_FORMAT` that readers still accept (see the module
docstring)."""
LEGACY_COLUMNS = {"prestige": "scores"}
"""Games table columns renamed since a legacy format: old name -> current name."""
RUN_FORMATS = {DATASET_FORMAT: "caylus-dataset-run/2", "caylus-dataset/1": "caylus-dataset-run/1"}
"""The format of the generator's run (``run.json``, the manifest's ``run``) that goes with each
dataset format: a run of one version never finishes into a dataset of another."""
MANIFEST_FILE = "manifest.json"
GAMES_DIR = "games"
DECISIONS_DIR = "decisions"
COMPRESSION = "zstd"
COMPRESSION_LEVEL = 3
"""zstd level 3: measured 21 bytes a decision at 0.3 ms of compression per 415-decision
Caylus game; level 9 saves 3 bytes for five times the time."""
ROW_GROUP_DECISIONS = 65_536
"""A row group is closed at the first game boundary after this many decisions (about 45 MB of
uncompressed states), which bounds the writer's memory and keeps row groups large enough for
fast scans."""
DEFAULT_SHARD_GAMES = 10_000

GAMES_SCHEMA = pa.schema(
    [
        pa.field("game_id", pa.int64(), nullable=False),
        pa.field("block", pa.int64(), nullable=False),
        pa.field("seed", pa.int64(), nullable=False),
        pa.field("num_players", pa.int8(), nullable=False),
        pa.field("options", pa.string(), nullable=False),
        pa.field("agents", pa.list_(pa.string()), nullable=False),
        pa.field("agent_seeds", pa.list_(pa.int64()), nullable=False),
        pa.field("scores", pa.list_(pa.int16()), nullable=False),
        pa.field("ranks", pa.list_(pa.float32()), nullable=False),
        pa.field("returns", pa.list_(pa.float32()), nullable=False),
        pa.field("decisions", pa.int32(), nullable=False),
        pa.field("end", pa.string(), nullable=False),
        pa.field("forfeit_seat", pa.int8(), nullable=False),
        pa.field("forfeits", pa.list_(pa.string()), nullable=False),
    ]
)
"""One row per game (see ``docs/datasets.md``); ``scores`` is each seat's final score in the
game's own unit (``GameSpec.score_word``: Caylus prestige, Puerto Rico victory points)."""

_MASK_FIELD = "legal"
_STATE_FIELD = "state"
_DECISION_FIELDS = [
    pa.field("game_id", pa.int64(), nullable=False),
    pa.field("ply", pa.int16(), nullable=False),
    pa.field("seat", pa.int8(), nullable=False),
    pa.field("num_players", pa.int8(), nullable=False),
    pa.field("kind_id", pa.int8(), nullable=False),
    pa.field("kind", pa.string(), nullable=False),
    pa.field("action", pa.int16(), nullable=False),
    pa.field("num_legal", pa.int16(), nullable=False),
    pa.field(_MASK_FIELD, pa.binary(1), nullable=False),  # width: the game's (mask_bytes)
    pa.field(_STATE_FIELD, pa.binary(1), nullable=False),  # width: the game's (state_bytes)
    pa.field("ret", pa.float32(), nullable=False),
    pa.field("rank", pa.float32(), nullable=False),
    pa.field("agent", pa.string(), nullable=False),
]
POLICY_FIELDS = [
    pa.field("policy_actions", pa.list_(pa.int16())),
    pa.field("policy_probs", pa.list_(pa.float32())),
]
"""With ``--policy-targets``: the acting agent's distribution, sparse (null for a game whose
worker was killed by the watchdog, whose search results died with it)."""


# --------------------------------------------------------------------------------------------------
# What a game's stored data looks like (from its GameSpec alone)
# --------------------------------------------------------------------------------------------------


def state_dtype(spec: GameSpec) -> np.dtype:
    """The stored state's dtype: the engine's ``STATE_DTYPE``, little-endian."""
    return np.dtype(spec.engine().layout.STATE_DTYPE).newbyteorder("<")


def state_size(spec: GameSpec) -> int:
    """Entries of the game's flat state (``layout.STATE_SIZE``)."""
    return int(spec.engine().layout.STATE_SIZE)


def state_bytes(spec: GameSpec) -> int:
    """Bytes of one stored state (Caylus: 350 ``int16`` = 700)."""
    return state_size(spec) * state_dtype(spec).itemsize


def num_actions(spec: GameSpec) -> int:
    """Ids of the game's action space (the mask's width in bits)."""
    return int(spec.engine().NUM_ACTIONS)


def mask_bytes(spec: GameSpec) -> int:
    """Bytes of one bit-packed legal mask: bit ``a % 8`` of byte ``a // 8`` is action ``a``
    (``numpy.packbits(mask, bitorder="little")``; Caylus: 167 actions in 21 bytes)."""
    return (num_actions(spec) + 7) // 8


def kind_names(spec: GameSpec) -> tuple[str, ...]:
    """Decision kind names by ``kind_id`` (the engine's ``DECISION_NAMES``)."""
    return tuple(spec.engine().DECISION_NAMES)


def state_version(spec: GameSpec) -> str:
    """Digest of the game's state layout: every field's name, offset and size, and the
    per-player fields (a stored state means something only to an engine with the same layout;
    loaders refuse another one)."""
    return _layout_digest(spec.name)


@cache
def _layout_digest(game: str) -> str:
    layout = game_spec(game).engine().layout
    return hashlib.sha256(
        repr(
            [(f.name, f.offset, f.size) for f in layout.FIELDS] + list(layout.PLAYER_FIELDS)
        ).encode()
    ).hexdigest()[:8]


def kinds_of(spec: GameSpec, states: np.ndarray) -> np.ndarray:
    """The pending decision's kind id in each ``(D, STATE_SIZE)`` state: the top entry of the
    decision stack (``layout.STACK``, ``STACK_SIZE``, ``STACK_ENTRY``, ``KIND_OFFSET``)."""
    if len(states) == 0:
        return np.zeros(0, np.int8)
    lay = spec.engine().layout
    top = lay.STACK + (states[:, lay.STACK_SIZE].astype(np.int64) - 1) * lay.STACK_ENTRY
    return states[np.arange(len(states)), top + lay.KIND_OFFSET].astype(np.int8)


def field_at(spec: GameSpec, index: int) -> str:
    """The layout field holding state entry ``index`` (for a verify message)."""
    return state_field(spec.engine().layout, index)


def decisions_schema(policy_targets: bool, game: str = DEFAULT_GAME) -> pa.Schema:
    """One row per decision of ``game`` (see ``docs/datasets.md``): the ``legal`` and
    ``state`` columns are fixed-size binary of that game's mask and state widths."""
    spec = game_spec(game)
    widths = {_MASK_FIELD: mask_bytes(spec), _STATE_FIELD: state_bytes(spec)}
    fields = [
        pa.field(f.name, pa.binary(widths[f.name]), nullable=False) if f.name in widths else f
        for f in _DECISION_FIELDS
    ]
    return pa.schema(fields + (POLICY_FIELDS if policy_targets else []))


def games_columns(table: pa.Table) -> pa.Table:
    """A games table with its columns under their current names (a legacy dataset's
    ``prestige`` read as ``scores``, `LEGACY_COLUMNS`)."""
    names = [LEGACY_COLUMNS.get(n, n) for n in table.column_names]
    return table if names == table.column_names else table.rename_columns(names)


def games_rows(table: pa.Table) -> list[dict[str, Any]]:
    """The rows of a games table as dicts, under the current column names (`games_columns`)."""
    return games_columns(table).to_pylist()


def stored_games_columns(manifest: Mapping[str, Any], columns: Sequence[str]) -> list[str]:
    """The stored names of games ``columns`` (current names) in a dataset of ``manifest``'s
    format: what to ask a Parquet reader for before `games_columns` renames them back."""
    return stored_names(columns, str(manifest.get("format")))


def returns_of(ranks: Sequence[float]) -> list[float]:
    """Zero-sum returns per seat from ranks: +1 for first to -1 for last, ties averaged
    (``Game.returns("rank")``; after a forfeit the forfeit ranks, the forfeiting seat last)."""
    n = len(ranks)
    return [(n + 1 - 2 * float(r)) / (n - 1) for r in ranks]


# --------------------------------------------------------------------------------------------------
# What a worker sends per game
# --------------------------------------------------------------------------------------------------


@dataclass
class GameRows:
    """One game as its games row and its decision columns (what a worker returns).

    Attributes:
        game: The games row (``GAMES_SCHEMA`` keys).
        agents: Agent spec per seat.
        states: ``(D, STATE_SIZE)`` of the game's ``STATE_DTYPE``, the state at each decision.
        legal: ``(D, mask_bytes)`` uint8, bit-packed legal masks (`mask_bytes`).
        actions: ``(D,)`` int16.
        seats, kinds: ``(D,)`` int8.
        num_legal: ``(D,)`` int16.
        policy: Per decision ``(actions, probabilities)``, or None (no targets asked, or lost).
    """

    game: dict[str, Any]
    states: np.ndarray
    legal: np.ndarray
    actions: np.ndarray
    seats: np.ndarray
    kinds: np.ndarray
    num_legal: np.ndarray
    policy: list[tuple[tuple[int, ...], tuple[float, ...]]] | None

    def __getstate__(self) -> dict[str, Any]:
        """What a worker sends: the states compressed (`TRANSFER_CODEC`), the rest as is."""
        states = np.ascontiguousarray(self.states)
        packed = _TRANSFER.compress(states, asbytes=True)
        return {**self.__dict__, "states": (states.shape, states.dtype.str, packed)}

    def __setstate__(self, state: dict[str, Any]) -> None:
        shape, dtype, packed = state["states"]
        size = int(np.prod(shape)) * np.dtype(dtype).itemsize
        states = np.frombuffer(_TRANSFER.decompress(packed, size), dtype).reshape(shape)
        self.__dict__.update(state, states=states)


TRANSFER_CODEC = "lz4"
"""How `GameRows` states travel between processes (its pickled form): consecutive states of a
game differ in a few entries, so LZ4 shrinks a game's 264 kB of Puerto Rico states (or 290 kB
of Caylus states) 16 times for 0.06 ms in the worker and 0.03 ms in the driver, where pickling
and piping them raw cost each process about 0.35 ms (zstd level 1 packs 3 times tighter for
0.03 ms more on each side, which the smaller message does not win back). The stored bytes do
not depend on it: the driver gets back exactly the states the worker had."""
_TRANSFER = pa.Codec(TRANSFER_CODEC)


def _fixed_binary(values: np.ndarray, width: int) -> pa.Array:
    """Rows of ``values`` as fixed-size binary values, sharing the array's memory (no copy:
    the states of a row group are tens of megabytes)."""
    data = np.ascontiguousarray(values)
    return pa.FixedSizeBinaryArray.from_buffers(
        pa.binary(width), len(data), [None, pa.py_buffer(data)]
    )


def _gather_states(
    rows: Sequence[GameRows], total: int, buffer: np.ndarray | None, little: np.dtype
) -> np.ndarray:
    """The states of ``rows`` in one little-endian array (in ``buffer`` when it fits)."""
    width = rows[0].states.shape[1]
    if buffer is None or buffer.size < total * width or buffer.dtype != rows[0].states.dtype:
        states = np.concatenate([r.states for r in rows])
    else:
        states = np.concatenate(
            [r.states for r in rows], out=buffer[: total * width].reshape(-1, width)
        )
    # no conversion where the states are little-endian already (every usual machine)
    return states.astype(little, copy=False)


def games_table(rows: Sequence[GameRows]) -> pa.Table:
    return pa.Table.from_pylist([r.game for r in rows], schema=GAMES_SCHEMA)


def decisions_table(
    rows: Sequence[GameRows],
    policy_targets: bool,
    game: str = DEFAULT_GAME,
    *,
    state_buffer: np.ndarray | None = None,
) -> pa.Table:
    """The decision rows of ``rows``' games of ``game``, in their order (ply order within a
    game).

    ``state_buffer``: a flat ``int16`` array that the states are gathered into when it is
    large enough (`ShardWriter` keeps one), so that a row group's tens of megabytes of states
    do not take fresh memory, and its page faults, at every flush; the table's ``state``
    column then shares that memory, so it must be used (written) before the buffer is reused.
    """
    schema = decisions_schema(policy_targets, game)
    spec = game_spec(game)
    kind_array = pa.array(kind_names(spec), pa.string())
    counts = [len(r.actions) for r in rows]
    total = sum(counts)
    if total == 0:
        return schema.empty_table()
    game_ids = np.repeat([r.game["game_id"] for r in rows], counts).astype(np.int64)
    ply = np.concatenate([np.arange(c, dtype=np.int16) for c in counts])
    seats = np.concatenate([r.seats for r in rows]).astype(np.int8)
    kinds = np.concatenate([r.kinds for r in rows]).astype(np.int8)
    n = np.repeat([r.game["num_players"] for r in rows], counts).astype(np.int8)
    ret = np.concatenate([np.asarray(r.game["returns"], np.float32)[r.seats] for r in rows])
    rank = np.concatenate([np.asarray(r.game["ranks"], np.float32)[r.seats] for r in rows])
    offsets = np.cumsum([0] + [len(r.game["agents"]) for r in rows[:-1]])
    agent_index = np.concatenate(
        [np.asarray(r.seats, np.int64) + off for r, off in zip(rows, offsets, strict=True)]
    )
    all_agents = pa.array([a for r in rows for a in r.game["agents"]], pa.string())
    columns: dict[str, pa.Array] = {
        "game_id": pa.array(game_ids),
        "ply": pa.array(ply),
        "seat": pa.array(seats),
        "num_players": pa.array(n),
        "kind_id": pa.array(kinds),
        "kind": kind_array.take(pa.array(kinds.astype(np.int32))),
        "action": pa.array(np.concatenate([r.actions for r in rows]).astype(np.int16)),
        "num_legal": pa.array(np.concatenate([r.num_legal for r in rows]).astype(np.int16)),
        "legal": _fixed_binary(
            np.concatenate([r.legal for r in rows]).astype(np.uint8, copy=False), mask_bytes(spec)
        ),
        "state": _fixed_binary(
            _gather_states(rows, total, state_buffer, state_dtype(spec)), state_bytes(spec)
        ),
        "ret": pa.array(ret),
        "rank": pa.array(rank),
        "agent": all_agents.take(pa.array(agent_index)),
    }
    if policy_targets:
        p_actions: list[Any] = []
        p_probs: list[Any] = []
        for r, c in zip(rows, counts, strict=True):
            if r.policy is None:
                p_actions += [None] * c
                p_probs += [None] * c
            else:
                p_actions += [list(a) for a, _ in r.policy]
                p_probs += [list(p) for _, p in r.policy]
        columns["policy_actions"] = pa.array(p_actions, pa.list_(pa.int16()))
        columns["policy_probs"] = pa.array(p_probs, pa.list_(pa.float32()))
    return pa.Table.from_pydict(columns, schema=schema)


# --------------------------------------------------------------------------------------------------
# Shards
# --------------------------------------------------------------------------------------------------


def shard_name(index: int) -> str:
    return f"part-{index:05d}.parquet"


def shard_paths(root: Path, index: int) -> tuple[Path, Path]:
    """``(games file, decisions file)`` of shard ``index``."""
    return root / GAMES_DIR / shard_name(index), root / DECISIONS_DIR / shard_name(index)


def _tmp(path: Path) -> Path:
    return path.with_name(f".{path.name}.tmp")


def remove_partial_shards(root: Path) -> list[Path]:
    """Delete what a killed writer left (``.part-*.parquet.tmp``); returns what was removed."""
    removed = []
    for sub in (GAMES_DIR, DECISIONS_DIR):
        folder = root / sub
        if folder.is_dir():
            for path in sorted(folder.glob(".part-*.parquet.tmp")):
                path.unlink()
                removed.append(path)
    return removed


def file_digest(path: Path) -> dict[str, Any]:
    """``{"bytes": size, "sha256": hex}`` of a file, read in blocks."""
    h = hashlib.sha256()
    size = 0
    with open(path, "rb") as handle:
        while block := handle.read(1 << 20):
            h.update(block)
            size += len(block)
    return {"bytes": size, "sha256": h.hexdigest()}


class ShardWriter:
    """Writes one shard (its games file and its decisions file) from games arriving in any
    order: each game waits until every lower game id of the shard has been written, so rows
    are in game id order, and row groups end where the content says (`ROW_GROUP_DECISIONS`).

    The files grow as ``.part-NNNNN.parquet.tmp`` and are renamed into place, fsynced, by
    `finish` once the last game is in: a kill leaves temporary files only (removed by
    `remove_partial_shards` at the next start) or whole shards.

    Args:
        root: The dataset directory.
        index: The shard number.
        first: Its first game id.
        count: Its number of games.
        policy_targets: Whether decisions carry the policy columns.
        game: The game of the dataset (``caylus_env.core.registry``).
    """

    def __init__(
        self,
        root: Path,
        index: int,
        first: int,
        count: int,
        policy_targets: bool,
        game: str = DEFAULT_GAME,
    ) -> None:
        self.root = root
        self.game = game
        self.index = index
        self.first = first
        self.count = count
        self.policy_targets = policy_targets
        self.next = first
        self.pending: dict[int, GameRows] = {}
        self.batch: list[GameRows] = []
        self.batch_decisions = 0
        self.decisions = 0
        self._state_buffer = np.empty(0, np.int16)  # reused by every flush (its dtype: _flush)
        self.games_path, self.decisions_path = shard_paths(root, index)
        for path in (self.games_path, self.decisions_path):
            path.parent.mkdir(parents=True, exist_ok=True)
        self._games = pq.ParquetWriter(_tmp(self.games_path), GAMES_SCHEMA, **_WRITE_OPTIONS)
        self._decisions = pq.ParquetWriter(
            _tmp(self.decisions_path), decisions_schema(policy_targets, game), **_WRITE_OPTIONS
        )

    @property
    def done(self) -> bool:
        return self.next == self.first + self.count

    def add(self, rows: GameRows) -> None:
        gid = int(rows.game["game_id"])
        if not self.first <= gid < self.first + self.count or gid < self.next:
            raise ValueError(f"shard {self.index}: game {gid} is not one it is waiting for")
        self.pending[gid] = rows
        while self.next in self.pending:
            game = self.pending.pop(self.next)
            self.batch.append(game)
            self.batch_decisions += len(game.actions)
            self.next += 1
            if self.batch_decisions >= ROW_GROUP_DECISIONS or self.done:
                self._flush()

    def _flush(self) -> None:
        if not self.batch:
            return
        self._games.write_table(games_table(self.batch), row_group_size=len(self.batch))
        need = self.batch_decisions * self.batch[0].states.shape[1]
        if self._state_buffer.size < need:  # room for the next, slightly larger, row groups
            self._state_buffer = np.empty(need + need // 8, self.batch[0].states.dtype)
        table = decisions_table(
            self.batch, self.policy_targets, self.game, state_buffer=self._state_buffer
        )
        self._decisions.write_table(table, row_group_size=max(1, table.num_rows))
        self.decisions += table.num_rows
        self.batch, self.batch_decisions = [], 0

    def finish(self) -> dict[str, Any]:
        """Close both files, move them into place, and return the shard's ledger entry."""
        if not self.done:
            raise RuntimeError(f"shard {self.index} is missing game {self.next}")
        self._flush()
        self._games.close()
        self._decisions.close()
        self._state_buffer = np.empty(0, np.int16)
        files = {}
        for path in (self.games_path, self.decisions_path):
            tmp = _tmp(path)
            with open(tmp, "rb+") as handle:
                os.fsync(handle.fileno())
            os.replace(tmp, path)
            fsync_path(path.parent)
            files[path.relative_to(self.root).as_posix()] = file_digest(path)
        return {
            "shard": self.index,
            "first_game": self.first,
            "games": self.count,
            "decisions": self.decisions,
            "files": files,
        }

    def abandon(self) -> None:
        """Close the temporary files (an interrupted run); the next start removes them."""
        for writer in (self._games, self._decisions):
            # a writer that already failed is left: its temporary file goes at the restart
            with contextlib.suppress(Exception):
                writer.close()


_WRITE_OPTIONS: dict[str, Any] = {
    "compression": COMPRESSION,
    "compression_level": COMPRESSION_LEVEL,
    "use_dictionary": ["kind", "agent", "end", "options", "forfeits", "agents"],
    "write_statistics": ["game_id", "seat", "num_players", "kind_id", "ret", "rank", "agent"],
}
"""Dictionary encoding for the repeated strings only (the states and masks are unique bytes:
a dictionary would only cost time); statistics for the columns that filters read, so a
filtered scan skips row groups."""


# --------------------------------------------------------------------------------------------------
# Manifest
# --------------------------------------------------------------------------------------------------


def versions(game: str = DEFAULT_GAME) -> dict[str, Any]:
    """What the stored data of ``game`` means, for the loader to check (`check_versions`): the
    format, the game, the engine version, its state layout, action space, observation encoder
    and decision kinds (the manifest's first keys)."""
    spec = game_spec(game)
    obs = spec.observation()
    return {
        "format": DATASET_FORMAT,
        "game": spec.name,
        "engine": __version__,
        "state_version": state_version(spec),
        "state_size": state_size(spec),
        "action_space_version": spec.engine().ACTION_SPACE_VERSION,
        "num_actions": num_actions(spec),
        "observation_version": obs.OBSERVATION_VERSION,
        "observation_size": int(obs.OBS_SIZE),
        "decision_kinds": list(kind_names(spec)),
    }


class DatasetError(ValueError):
    """A dataset directory that cannot be read as asked (missing, unfinished, another format)."""


MAX_MANIFEST_BYTES = 16 * 2**20
"""Largest manifest read (16 MiB: a dataset of a million shards' checksums); a bigger file is
refused unread."""


def regular_file(path: Path, root: Path | None = None) -> os.stat_result:
    """The status of ``path``, which must be a regular file (inside ``root`` where given, links
    resolved): a FIFO, a device such as ``/dev/zero``, a directory or a file outside the
    dataset is refused before it is opened (nothing blocks, nothing endless is read, and a
    dataset never reads files outside its directory).

    Raises:
        DatasetError: naming the path and what it is.
    """
    try:
        info = os.stat(path)
    except OSError as err:
        raise DatasetError(f"cannot read {path}: {err.strerror or err}") from None
    if not stat.S_ISREG(info.st_mode):
        what = "a directory" if stat.S_ISDIR(info.st_mode) else "not a regular file"
        raise DatasetError(f"{path} is {what}; a dataset holds regular files only")
    if root is not None:
        real, inside = os.path.realpath(path), os.path.realpath(root)
        if os.path.commonpath([real, inside]) != inside:
            raise DatasetError(
                f"{path} leads to {real}, outside the dataset directory {inside}; a dataset "
                "reads files inside its directory only"
            )
    return info


class RowError(DatasetError):
    """A stored row that is not what the game could have written (``row``: its index in the
    batch read; ``reason``: what is wrong)."""

    def __init__(self, row: int, reason: str) -> None:
        super().__init__(f"row {row}: {reason}")
        self.row, self.reason = row, reason


def read_manifest(root: str | os.PathLike[str]) -> dict[str, Any]:
    """The manifest of a finished dataset (of `DATASET_FORMAT` or a `LEGACY_FORMATS` one),
    checked for its shape (`check_manifest`).

    The manifest is untrusted: it must be a regular file of at most `MAX_MANIFEST_BYTES`
    (a FIFO or ``/dev/zero`` is refused unread), JSON nested too deeply is an error.

    Raises:
        DatasetError: when ``root`` is not a finished dataset (no manifest: still being
            generated or killed) or the manifest is unreadable, malformed or of another
            format.
    """
    path = Path(root) / MANIFEST_FILE
    if not os.path.lexists(path):
        hint = (
            "it is being generated or was interrupted: run the same generate command again"
            if (Path(root) / "run.json").is_file()
            else "generate one with: caylus dataset generate --out DIR ..."
        )
        raise DatasetError(f"{root} is not a finished dataset (no {MANIFEST_FILE}); {hint}")
    info = regular_file(path)
    if info.st_size > MAX_MANIFEST_BYTES:
        raise DatasetError(
            f"{path} is {info.st_size} bytes; allowed: manifests up to {MAX_MANIFEST_BYTES} bytes"
        )
    try:
        with open(path, "rb") as handle:
            text = handle.read(MAX_MANIFEST_BYTES + 1).decode("utf-8")
        manifest = json.loads(text)
    except RecursionError:
        raise DatasetError(f"cannot read {path}: JSON nested too deeply") from None
    except (OSError, ValueError) as err:
        raise DatasetError(f"cannot read {path}: {err}") from None
    readable = (DATASET_FORMAT, *LEGACY_FORMATS)
    found = manifest.get("format") if isinstance(manifest, dict) else None
    if not isinstance(found, str) or found not in readable:
        raise DatasetError(
            f"{path} has format {found!r}; this version reads {', '.join(map(repr, readable))}"
        )
    check_manifest(manifest, path)
    return manifest


def _count(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool) and value >= 0


def check_manifest(manifest: Mapping[str, Any], path: Any = MANIFEST_FILE) -> None:
    """Refuse a manifest whose fields the tools rely on are missing or malformed: ``game`` a
    string (present in every `DATASET_FORMAT` manifest; older ones without it hold
    `DEFAULT_GAME`), ``counts`` games and decisions counts, ``shards`` a list of
    shards each with its number, first game, games and decisions counts and exactly its two
    files (``games/part-NNNNN.parquet`` and ``decisions/part-NNNNN.parquet`` of its number,
    each with ``bytes`` and ``sha256``): no path leads out of the dataset.

    Raises:
        DatasetError: naming the field and what is allowed.
    """

    def bad(field: str, value: Any, allowed: str) -> DatasetError:
        text = repr(value)
        text = text if len(text) <= 80 else text[:77] + "..."
        return DatasetError(f"{path}: {field} is {text}; allowed: {allowed}")

    if "game" in manifest and not isinstance(manifest["game"], str):
        raise bad("game", manifest["game"], "a game's name (caylus games lists them)")
    if "game" not in manifest and manifest.get("format") == DATASET_FORMAT:
        raise DatasetError(
            f"{path}: game is missing; allowed: a game's name (caylus games lists them), which "
            f"a {DATASET_FORMAT} manifest always has"
        )
    counts = manifest.get("counts")
    if not isinstance(counts, dict) or not all(
        _count(counts.get(k)) for k in ("games", "decisions")
    ):
        raise bad("counts", counts, "an object with games and decisions counts")
    shards = manifest.get("shards")
    if not isinstance(shards, list):
        raise bad("shards", shards, "a list of shards")
    seen = set()
    for i, shard in enumerate(shards):
        where = f"shards[{i}]"
        if not isinstance(shard, dict):
            raise bad(where, shard, "an object")
        for key in ("shard", "first_game", "games", "decisions"):
            if not _count(shard.get(key)):
                raise bad(f"{where}.{key}", shard.get(key), "an integer >= 0")
        index = shard["shard"]
        if index in seen:
            raise bad(f"{where}.shard", index, "a shard number listed once")
        seen.add(index)
        files = shard.get("files")
        wanted = {f"{table}/{shard_name(index)}" for table in (GAMES_DIR, DECISIONS_DIR)}
        if not isinstance(files, dict) or set(files) != wanted:
            raise bad(f"{where}.files", files, f"exactly {sorted(wanted)}")
        for name, digest in files.items():
            if (
                not isinstance(digest, dict)
                or not _count(digest.get("bytes"))
                or not isinstance(digest.get("sha256"), str)
            ):
                raise bad(f"{where}.files[{name!r}]", digest, "{bytes, sha256}")
    for key in ("games", "decisions"):  # a count no tool would ever reach is refused here
        total = sum(shard[key] for shard in shards)
        if total != counts[key]:
            raise bad(f"counts.{key}", counts[key], f"the sum over its shards, {total}")


def check_game(manifest: Mapping[str, Any], game: str = DEFAULT_GAME) -> None:
    """Refuse a dataset of another game than ``game``, naming both (a Puerto Rico dataset
    opened by code that expects Caylus says so, and how to ask for it).

    Raises:
        DatasetError: naming the dataset's game and the one expected.
    """
    try:
        expected = game_spec(game)
        held = game_spec(game_of(manifest))
    except ValueError as err:
        raise DatasetError(str(err)) from None
    if held.name != expected.name:
        raise DatasetError(
            f"this is a {held.title} dataset (game {held.name!r}); expected a {expected.title} "
            f"dataset (game {expected.name!r}): pass --game {held.name} "
            f"(game={held.name!r} in Python)"
        )


def check_versions(manifest: Mapping[str, Any], *, game: str = DEFAULT_GAME) -> None:
    """Refuse a dataset of another game, or whose states or actions mean something else to
    this engine.

    The game must be ``game`` (`check_game`), the state layout and size, the action space
    and its size and the decision kinds must be this engine's; the observation version may differ, since
    observations are encoded from the states at load time, by the encoder of this build (so
    reading states and masks imports no observation encoder).

    Raises:
        DatasetError: naming both games, or the version that differs and both values.
    """
    check_game(manifest, game)
    spec = game_spec(game)
    now = {
        "state_version": state_version(spec),
        "state_size": state_size(spec),
        "action_space_version": spec.engine().ACTION_SPACE_VERSION,
        "num_actions": num_actions(spec),
        "decision_kinds": list(kind_names(spec)),
    }
    for key, value in now.items():
        if manifest.get(key) != value:
            raise DatasetError(
                f"the dataset has {key} {manifest.get(key)!r} but this engine has {value!r}; "
                f"read it with caylus-env {manifest.get('engine')!r} or generate it again"
            )


def shard_files(manifest: Mapping[str, Any], root: Path, table: str) -> list[str]:
    """The Parquet files of one table (``games`` or ``decisions``), in shard order, each a
    regular file inside ``root`` (`regular_file`; the manifest's shape is `check_manifest`'s).

    Raises:
        DatasetError: naming a file that is missing, special or outside the dataset.
    """
    if table not in (GAMES_DIR, DECISIONS_DIR):
        raise ValueError(f"table={table!r}; allowed: {GAMES_DIR!r}, {DECISIONS_DIR!r}")
    out = []
    for shard in manifest["shards"]:
        for name in shard["files"]:
            if name.startswith(f"{table}/"):
                regular_file(root / name, root)
                out.append(str(root / name))
    return out


def stored_names(names: Sequence[str], dataset_format: str = DATASET_FORMAT) -> list[str]:
    """The column ``names`` (current names) as a file of ``dataset_format`` stores them (a
    legacy format's old names, `LEGACY_COLUMNS`)."""
    if dataset_format == DATASET_FORMAT:
        return list(names)
    old = {new: old for old, new in LEGACY_COLUMNS.items()}
    return [old.get(n, n) for n in names]


def check_schema(
    path: str | os.PathLike[str], expected: pa.Schema, dataset_format: str = DATASET_FORMAT
) -> pa.Schema:
    """The schema of the Parquet file at ``path``, which must be ``expected``'s as a file of
    ``dataset_format`` stores it (`stored_names`): the same columns under that format's
    names, in order, of the same types (a widened type, an extra or a missing column is
    refused, and so is a column under another format's name: a manifest whose format was
    changed does not describe its files). Read from the file's footer only.

    Raises:
        DatasetError: naming the file and the first column that differs.
    """
    try:
        found = pq.read_schema(path)
    except (pa.ArrowException, OSError) as err:
        raise DatasetError(f"{path} is not a readable Parquet file: {err}") from None
    names, wanted = list(found.names), stored_names(expected.names, dataset_format)
    if names != wanted:
        extra = [n for n in names if n not in wanted]
        missing = [n for n in wanted if n not in names]
        raise DatasetError(
            f"{path} has columns {names}; a {dataset_format} file has {wanted}"
            + (f" (extra: {extra})" if extra else "")
            + (f" (missing: {missing})" if missing else "")
        )
    for name, have in zip(expected.names, found, strict=True):
        want = expected.field(name).type
        if have.type != want:
            raise DatasetError(
                f"{path}: column {have.name} is of type {have.type}; expected {want}"
            )
    return found


def dataset_schemas(manifest: Mapping[str, Any], root: Path, game: str) -> dict[str, pa.Schema]:
    """The expected schema of each table of a dataset of ``game``, every shard file checked
    against it as the manifest's format stores it (`check_schema`; the decisions' policy
    columns when the manifest lists them).

    Raises:
        DatasetError: naming a file that is missing, special, outside the dataset, not
            Parquet, or of another schema.
    """
    columns = manifest.get("columns")
    listed = columns.get(DECISIONS_DIR, []) if isinstance(columns, dict) else []
    policy = isinstance(listed, list) and "policy_actions" in listed
    schemas = {GAMES_DIR: GAMES_SCHEMA, DECISIONS_DIR: decisions_schema(policy, game)}
    for table, schema in schemas.items():
        for path in shard_files(manifest, root, table):
            check_schema(path, schema, str(manifest["format"]))
    return schemas


@contextlib.contextmanager
def reading(what: Any) -> Any:
    """Turn what pyarrow or the file system raise while a dataset is read (a truncated or
    overwritten shard, a file removed meanwhile) into a `DatasetError` naming ``what``."""
    try:
        yield
    except DatasetError:
        raise
    except (pa.ArrowException, OSError) as err:
        text = str(err).splitlines()[0] if str(err) else type(err).__name__
        raise DatasetError(f"cannot read the dataset {what}: {text}") from None


def stored_states(spec: GameSpec, raw: np.ndarray) -> np.ndarray:
    """``(D, STATE_SIZE)`` states of ``game`` in the engine's dtype from stored rows (``(D,
    state_bytes)`` uint8), each one checked to be a position of the game before any kernel
    reads it (`caylus_env.core.game.check_state_array`: the game's own state-dict round trip
    must give back exactly the stored entries), so an edited state (a seat, an index or a count out of range) is refused
    rather than read out of bounds by a compiled observation encoder. The round trip costs
    about 0.4 to 0.5 ms a row; a row found valid is remembered for the process by a 128-bit
    BLAKE2b digest of its bytes (up to `MAX_VALIDATED_ROWS`), so later epochs over the same
    rows pay about a microsecond a row.

    Raises:
        RowError: naming the row and what is wrong with its state.
    """
    engine = spec.engine()
    native = engine.layout.STATE_DTYPE
    states = np.ascontiguousarray(raw).view(state_dtype(spec)).astype(native)
    states = states.reshape(len(raw), state_size(spec))
    person = spec.name.encode()[:16]
    for i, s in enumerate(states):
        key = hashlib.blake2b(raw[i].tobytes(), digest_size=16, person=person).digest()
        if key in _VALIDATED:
            continue
        try:
            check_state_array(engine, s)
        except ValueError as err:
            raise RowError(i, f"the stored state is not a {spec.title} position: {err}") from None
        if len(_VALIDATED) < MAX_VALIDATED_ROWS:
            _VALIDATED.add(key)
    return states


MAX_VALIDATED_ROWS = 4_000_000
"""Rows `stored_states` remembers as valid (about 100 bytes each: 400 MB at most)."""
_VALIDATED: set[bytes] = set()


def totals(entries: Iterable[Mapping[str, Any]]) -> dict[str, int]:
    games = decisions = size = 0
    for e in entries:
        games += int(e["games"])
        decisions += int(e["decisions"])
        size += sum(int(f["bytes"]) for f in e["files"].values())
    return {"games": games, "decisions": decisions, "bytes": size}


def pack_masks(masks: np.ndarray) -> np.ndarray:
    """``(D, NUM_ACTIONS)`` 0/1 masks as ``(D, mask_bytes)`` bytes, little bit order."""
    return np.packbits(masks.astype(bool), axis=1, bitorder="little")


def pack_legal_ids(ids: np.ndarray, counts: np.ndarray, num_actions: int) -> np.ndarray:
    """Packed masks (`pack_masks`' bytes) of ``D`` decisions given by their legal action ids:
    ``counts[i]`` ids of decision ``i``, concatenated in ``ids``, each id once per decision
    (what ``Game.legal_actions()`` returns). One vectorized call for a whole game, where a
    mask per decision would cost an array each (why a worker records ids, not masks)."""
    d = len(counts)
    flat = np.zeros(d * num_actions, bool)
    flat[np.repeat(np.arange(d, dtype=np.int64) * num_actions, counts) + ids] = True
    return np.packbits(flat.reshape(d, num_actions), axis=1, bitorder="little")


def unpack_masks(packed: np.ndarray, game: str) -> np.ndarray:
    """Inverse of `pack_masks`: ``(D, NUM_ACTIONS)`` bool (``game``'s action count)."""
    count = num_actions(game_spec(game))
    return np.unpackbits(packed, axis=1, count=count, bitorder="little").astype(bool)


__all__ = [
    "COMPRESSION",
    "COMPRESSION_LEVEL",
    "DATASET_FORMAT",
    "DECISIONS_DIR",
    "DEFAULT_SHARD_GAMES",
    "GAMES_DIR",
    "GAMES_SCHEMA",
    "LEGACY_COLUMNS",
    "LEGACY_FORMATS",
    "MANIFEST_FILE",
    "POLICY_FIELDS",
    "PROGRAM",
    "ROW_GROUP_DECISIONS",
    "RUN_FORMATS",
    "TRANSFER_CODEC",
    "DatasetError",
    "GameRows",
    "RowError",
    "ShardWriter",
    "check_game",
    "check_manifest",
    "check_schema",
    "check_versions",
    "dataset_schemas",
    "decisions_schema",
    "decisions_table",
    "field_at",
    "file_digest",
    "games_columns",
    "games_rows",
    "games_table",
    "kind_names",
    "kinds_of",
    "mask_bytes",
    "num_actions",
    "pack_legal_ids",
    "pack_masks",
    "read_manifest",
    "reading",
    "regular_file",
    "remove_partial_shards",
    "returns_of",
    "shard_files",
    "shard_name",
    "shard_paths",
    "state_bytes",
    "state_dtype",
    "state_size",
    "state_version",
    "stored_games_columns",
    "stored_names",
    "stored_states",
    "totals",
    "unpack_masks",
    "versions",
]
