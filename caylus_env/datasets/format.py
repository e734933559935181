"""The on-disk format of a self-play dataset: its Parquet schemas, its manifest, its shard writer.

A dataset directory (``docs/datasets.md`` documents every column)::

    DIR/manifest.json               schema and engine versions, the command, counts, checksums
    DIR/games/part-00000.parquet    one row per game (GAMES_SCHEMA)
    DIR/decisions/part-00000.parquet one row per decision (DECISIONS_SCHEMA)
    DIR/run.json, DIR/shards.jsonl  the generator's resumable ledger (caylus_env.core.ledger)

Shard ``k`` holds the games with ids ``k * shard_games`` to ``(k + 1) * shard_games - 1``, in
game id order, and their decisions in (game id, ply) order; its row groups end at game
boundaries chosen from the content alone (`ROW_GROUP_DECISIONS`). Nothing in a shard depends
on time, on the worker that played a game or on the order games finished in, so the same
arguments give byte-identical shards with any number of workers and any backend (with the same
pyarrow version, which is named in the files' ``created_by``). Timings live in the manifest.

The state column is the engine's flat ``int16`` state (``caylus_env.caylus.engine.layout``, 700
bytes, little-endian) at the moment the agent was asked; consecutive states of a game differ in
a few entries, which zstd finds, so a decision costs about 20 bytes on disk. Observations are
not stored: the loader encodes states with the environment's own observation encoder.

The module's constants are Caylus's; a dataset of another game (``--game puerto_rico``) has
the same tables with that game's state and mask widths (``games.DatasetGame``), and its
manifest names the game in a ``game`` field (a Caylus manifest has none, and stays as it was).
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq

from caylus_env._version import __version__
from caylus_env.caylus.engine import layout as L
from caylus_env.caylus.engine.actions import ACTION_SPACE_VERSION, NUM_ACTIONS
from caylus_env.caylus.engine.constants import DECISION_NAMES
from caylus_env.core.registry import DEFAULT_GAME

DATASET_FORMAT = "caylus-dataset/1"
"""Schema version of the manifest and both tables: bump it when a column is added, removed or
changes meaning."""
MANIFEST_FILE = "manifest.json"
GAMES_DIR = "games"
DECISIONS_DIR = "decisions"
STATE_BYTES = L.STATE_SIZE * np.dtype(L.STATE_DTYPE).itemsize
"""Bytes of one stored state (700)."""
MASK_BYTES = (NUM_ACTIONS + 7) // 8
"""Bytes of one bit-packed legal mask (21): bit ``a % 8`` of byte ``a // 8`` is action ``a``
(``numpy.packbits(mask, bitorder="little")``)."""
STATE_VERSION = hashlib.sha256(
    repr([(f.name, f.offset, f.size) for f in L.FIELDS] + list(L.PLAYER_FIELDS)).encode()
).hexdigest()[:8]
"""Digest of the state layout (every field's name, offset and size): a stored state means
something only to an engine with the same layout; loaders refuse another one."""
KIND_NAMES: tuple[str, ...] = tuple(DECISION_NAMES)
"""Decision kind names by ``kind_id`` (``caylus_env.caylus.engine.constants.DECISION_NAMES``)."""
COMPRESSION = "zstd"
COMPRESSION_LEVEL = 3
"""zstd level 3: measured 21 bytes a decision at 0.3 ms of compression per 415-decision
game; level 9 saves 3 bytes for five times the time."""
ROW_GROUP_DECISIONS = 65_536
"""A row group is closed at the first game boundary after this many decisions (about 45 MB of
uncompressed states), which bounds the writer's memory and keeps row groups large enough for
fast scans."""
DEFAULT_SHARD_GAMES = 10_000

_LE_STATE = np.dtype(L.STATE_DTYPE).newbyteorder("<")
_KIND_ARRAY = pa.array(KIND_NAMES, pa.string())

GAMES_SCHEMA = pa.schema(
    [
        pa.field("game_id", pa.int64(), nullable=False),
        pa.field("block", pa.int64(), nullable=False),
        pa.field("seed", pa.int64(), nullable=False),
        pa.field("num_players", pa.int8(), nullable=False),
        pa.field("options", pa.string(), nullable=False),
        pa.field("agents", pa.list_(pa.string()), nullable=False),
        pa.field("agent_seeds", pa.list_(pa.int64()), nullable=False),
        pa.field("prestige", pa.list_(pa.int16()), nullable=False),
        pa.field("ranks", pa.list_(pa.float32()), nullable=False),
        pa.field("returns", pa.list_(pa.float32()), nullable=False),
        pa.field("decisions", pa.int32(), nullable=False),
        pa.field("end", pa.string(), nullable=False),
        pa.field("forfeit_seat", pa.int8(), nullable=False),
        pa.field("forfeits", pa.list_(pa.string()), nullable=False),
    ]
)
"""One row per game (see ``docs/datasets.md``)."""

_DECISION_FIELDS = [
    pa.field("game_id", pa.int64(), nullable=False),
    pa.field("ply", pa.int16(), nullable=False),
    pa.field("seat", pa.int8(), nullable=False),
    pa.field("num_players", pa.int8(), nullable=False),
    pa.field("kind_id", pa.int8(), nullable=False),
    pa.field("kind", pa.string(), nullable=False),
    pa.field("action", pa.int16(), nullable=False),
    pa.field("num_legal", pa.int16(), nullable=False),
    pa.field("legal", pa.binary(MASK_BYTES), nullable=False),
    pa.field("state", pa.binary(STATE_BYTES), nullable=False),
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


def decisions_schema(policy_targets: bool, game: str = DEFAULT_GAME) -> pa.Schema:
    """One row per decision of ``game`` (see ``docs/datasets.md``): the ``legal`` and
    ``state`` columns are fixed-size binary of that game's mask and state widths."""
    fields = list(_DECISION_FIELDS)
    if game != DEFAULT_GAME:
        from caylus_env.datasets.games import dataset_game

        spec = dataset_game(game)
        widths = {"legal": spec.mask_bytes, "state": spec.state_bytes}
        fields = [
            pa.field(f.name, pa.binary(widths[f.name]), nullable=False) if f.name in widths else f
            for f in fields
        ]
    return pa.schema(fields + (POLICY_FIELDS if policy_targets else []))


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
        states: ``(D, STATE_SIZE)`` int16, the state at each decision.
        legal: ``(D, MASK_BYTES)`` uint8, bit-packed legal masks.
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


def _gather_states(rows: Sequence[GameRows], total: int, buffer: np.ndarray | None) -> np.ndarray:
    """The states of ``rows`` in one little-endian array (in ``buffer`` when it fits)."""
    width = rows[0].states.shape[1]
    if buffer is None or buffer.size < total * width or buffer.dtype != rows[0].states.dtype:
        states = np.concatenate([r.states for r in rows])
    else:
        states = np.concatenate(
            [r.states for r in rows], out=buffer[: total * width].reshape(-1, width)
        )
    # no conversion where the states are little-endian already (every usual machine)
    return states.astype(_LE_STATE, copy=False)


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
    if game == DEFAULT_GAME:
        kind_array, mask_bytes, state_bytes = _KIND_ARRAY, MASK_BYTES, STATE_BYTES
    else:
        from caylus_env.datasets.games import dataset_game

        spec = dataset_game(game)
        kind_array = pa.array(spec.kind_names, pa.string())
        mask_bytes, state_bytes = spec.mask_bytes, spec.state_bytes
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
            np.concatenate([r.legal for r in rows]).astype(np.uint8, copy=False), mask_bytes
        ),
        "state": _fixed_binary(_gather_states(rows, total, state_buffer), state_bytes),
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


def _fsync_dir(path: Path) -> None:
    fd = os.open(path, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


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
        self._state_buffer = np.empty(0, L.STATE_DTYPE)  # reused by every flush
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
        self._state_buffer = np.empty(0, L.STATE_DTYPE)
        files = {}
        for path in (self.games_path, self.decisions_path):
            tmp = _tmp(path)
            with open(tmp, "rb+") as handle:
                os.fsync(handle.fileno())
            os.replace(tmp, path)
            _fsync_dir(path.parent)
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
    """What the stored data means, for the loader to check (`check_versions`): for Caylus
    exactly the keys its datasets always had; another game adds ``game`` after ``format``, and
    its state, action space, observation encoder and decision kinds (``games.DatasetGame``)."""
    if game != DEFAULT_GAME:
        return _game_versions(game)
    from caylus_env.caylus.observation import OBS_SIZE, OBSERVATION_VERSION

    return {
        "format": DATASET_FORMAT,
        "engine": __version__,
        "state_version": STATE_VERSION,
        "state_size": L.STATE_SIZE,
        "action_space_version": ACTION_SPACE_VERSION,
        "num_actions": NUM_ACTIONS,
        "observation_version": OBSERVATION_VERSION,
        "observation_size": OBS_SIZE,
        "decision_kinds": list(KIND_NAMES),
    }


def _game_versions(game: str) -> dict[str, Any]:
    from caylus_env.datasets.games import dataset_game

    spec = dataset_game(game)
    obs = spec.observation_module()
    return {
        "format": DATASET_FORMAT,
        "game": spec.name,
        "engine": __version__,
        "state_version": spec.state_version,
        "state_size": spec.state_size,
        "action_space_version": spec.action_space_version,
        "num_actions": spec.num_actions,
        "observation_version": obs.OBSERVATION_VERSION,
        "observation_size": obs.OBS_SIZE,
        "decision_kinds": list(spec.kind_names),
    }


class DatasetError(ValueError):
    """A dataset directory that cannot be read as asked (missing, unfinished, another format)."""


def read_manifest(root: str | os.PathLike[str]) -> dict[str, Any]:
    """The manifest of a finished dataset.

    Raises:
        DatasetError: when ``root`` is not a finished dataset (no manifest: still being
            generated or killed) or the manifest is unreadable or of another format.
    """
    path = Path(root) / MANIFEST_FILE
    if not path.is_file():
        hint = (
            "it is being generated or was interrupted: run the same generate command again"
            if (Path(root) / "run.json").is_file()
            else "generate one with: caylus dataset generate --out DIR ..."
        )
        raise DatasetError(f"{root} is not a finished dataset (no {MANIFEST_FILE}); {hint}")
    try:
        manifest = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError) as err:
        raise DatasetError(f"cannot read {path}: {err}") from None
    if not isinstance(manifest, dict) or manifest.get("format") != DATASET_FORMAT:
        found = manifest.get("format") if isinstance(manifest, dict) else None
        raise DatasetError(f"{path} has format {found!r}; this version reads {DATASET_FORMAT!r}")
    return manifest


def check_game(manifest: Mapping[str, Any], game: str = DEFAULT_GAME) -> None:
    """Refuse a dataset of another game than ``game``, naming both (a Puerto Rico dataset
    opened by code that expects Caylus says so, and how to ask for it).

    Raises:
        DatasetError: naming the dataset's game and the one expected.
    """
    from caylus_env.datasets.games import dataset_game, game_of_manifest

    try:
        expected = dataset_game(game)
        held = dataset_game(game_of_manifest(manifest))
    except ValueError as err:
        raise DatasetError(str(err)) from None
    if held.name != expected.name:
        raise DatasetError(
            f"this is a {held.title} dataset (game {held.name!r}); expected a {expected.title} "
            f"dataset (game {expected.name!r}): pass --game {held.name} "
            f"(game={held.name!r} in Python)"
        )


def check_versions(
    manifest: Mapping[str, Any], *, observations: bool = True, game: str = DEFAULT_GAME
) -> None:
    """Refuse a dataset of another game, or whose states or actions mean something else to
    this engine.

    The game must be ``game`` (`check_game`), the state layout and the action space must match
    (`STATE_VERSION`, ``ACTION_SPACE_VERSION``, or the other game's); the observation version
    may differ, since observations are encoded from the states at load time, by the encoder of
    this build.

    Raises:
        DatasetError: naming both games, or the version that differs and both values.
    """
    check_game(manifest, game)
    now = versions(game) if game == DEFAULT_GAME else _stored_versions(game)
    for key in ("state_version", "action_space_version", "decision_kinds"):
        if manifest.get(key) != now[key]:
            raise DatasetError(
                f"the dataset has {key} {manifest.get(key)!r} but this engine has {now[key]!r}; "
                f"read it with caylus-env {manifest.get('engine')!r} or generate it again"
            )


def _stored_versions(game: str) -> dict[str, Any]:
    """What `check_versions` compares for another game: no observation encoder needed to
    read states and masks."""
    from caylus_env.datasets.games import dataset_game

    spec = dataset_game(game)
    return {
        "state_version": spec.state_version,
        "action_space_version": spec.action_space_version,
        "decision_kinds": list(spec.kind_names),
    }


def shard_files(manifest: Mapping[str, Any], root: Path, table: str) -> list[str]:
    """The Parquet files of one table (``games`` or ``decisions``), in shard order."""
    if table not in (GAMES_DIR, DECISIONS_DIR):
        raise ValueError(f"table={table!r}; allowed: {GAMES_DIR!r}, {DECISIONS_DIR!r}")
    out = []
    for shard in manifest["shards"]:
        for name in shard["files"]:
            if name.startswith(f"{table}/"):
                out.append(str(root / name))
    return out


def totals(entries: Iterable[Mapping[str, Any]]) -> dict[str, int]:
    games = decisions = size = 0
    for e in entries:
        games += int(e["games"])
        decisions += int(e["decisions"])
        size += sum(int(f["bytes"]) for f in e["files"].values())
    return {"games": games, "decisions": decisions, "bytes": size}


__all__ = [
    "COMPRESSION",
    "COMPRESSION_LEVEL",
    "DATASET_FORMAT",
    "DECISIONS_DIR",
    "DEFAULT_SHARD_GAMES",
    "GAMES_DIR",
    "GAMES_SCHEMA",
    "KIND_NAMES",
    "MANIFEST_FILE",
    "MASK_BYTES",
    "POLICY_FIELDS",
    "ROW_GROUP_DECISIONS",
    "STATE_BYTES",
    "STATE_VERSION",
    "TRANSFER_CODEC",
    "DatasetError",
    "GameRows",
    "ShardWriter",
    "check_game",
    "check_versions",
    "decisions_schema",
    "decisions_table",
    "file_digest",
    "games_table",
    "read_manifest",
    "remove_partial_shards",
    "returns_of",
    "shard_files",
    "shard_name",
    "shard_paths",
    "totals",
    "versions",
]
