"""``caylus dataset export``: a dataset's decisions as training-ready tensors in plain Parquet.

A dataset (``format``) stores engine states and bit-packed masks, which only this package can
turn into what a learner eats. The export writes what the environment gives instead, one row
per decision, readable by pyarrow, Polars, pandas, DuckDB and Hugging Face ``datasets``
without caylus_env (``docs/datasets.md``, "Export"):

    OUT/data/part-NNNNN.parquet   the rows of the dataset's shard NNNNN (`export_schema`)
    OUT/README.md                 the card: game, versions, agents, counts, columns, loading
    OUT/metadata.json             the same as data (columns, observation pieces and bounds,
                                  action names, files with their SHA-256), written last
    OUT/export.json, OUT/shards.jsonl   the run's arguments and its ledger (resuming)

What a row holds, for the decision ``step`` of game ``episode_id`` taken by seat ``player``:
``observation`` is the game's observation of the position from that seat (its encoder, the
``observation`` entry of ``raw_env.observe(f"player_{player}")``), ``action_mask`` the legal
actions (``int8``, the env's ``action_mask``), ``action`` the action played. ``reward`` is what
the AEC environment with its default ``reward="rank"`` pays the seat for the decision: what
its next ``env.last()`` returns, the rewards it collects from its action until it is asked
again or the game ends. Rewards come at the end only (``caylus_env.core.env``), so ``reward``
is 0 at every decision but the seat's last one of the game, where it is the seat's rank return
``(n + 1 - 2 * rank) / (n - 1)`` of a game that ended by its rules, 0 (and ``truncated``) of a
game cut off by its decision cap, as the env pays it. A game the tournament harness ended by a
forfeit (a crash, an illegal answer, a timeout: no env ends so) ends at its last stored
decision with the dataset's returns of its forfeit ranks (the forfeiting seat last), and
``terminated``. ``return`` is the undiscounted sum of the seat's rewards from this decision to
the end: its final reward, at every one of its decisions.

Nothing unchecked reaches a compiled kernel or a row: before any work the dataset's manifest,
versions, run and every file's schema, size and SHA-256 are checked (`prepare_export`); then
every game is replayed by the engine as ``caylus dataset verify`` replays it
(``verify._verify_shard``: every stored column, the end, the scores and ranks, the policy
targets, the schedule when the caller gives it) and its observations are encoded from the
replayed states, which are the stored ones. The first difference stops the export, naming its
game and ply; the shard being written is dropped.

Resumable and atomic as ``generate`` (``agents.selfplay.generate``): ``export.json`` holds the
arguments (the source's shard digests, the versions, the row groups), a rerun with other ones
is refused naming the fields (``caylus_env.core.ledger``); a shard grows as
``data/.part-NNNNN.parquet.tmp``, is renamed into place and fsynced, then recorded in
``shards.jsonl``. A kill loses the shard being written; the same command removes its
temporary file and exports only the missing shards. Nothing written depends on time, so a
resumed export is byte-identical to an uninterrupted one (with the same pyarrow version).

Memory is bounded by one input row group (``ROW_GROUP_DECISIONS`` decisions of stored
states), one game's replay and one output row group (`ROW_GROUP_BYTES`), whatever the
dataset's size.
"""

from __future__ import annotations

import hashlib
import json
import os
import time
from collections import Counter
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq

from caylus_env._version import __version__
from caylus_env.core.contract import GameSpec
from caylus_env.core.fileio import (
    atomic_write_json,
    atomic_write_text,
    directory_problem,
    fsync_path,
)
from caylus_env.core.ledger import InfoMismatchError, Ledger, LedgerError
from caylus_env.core.registry import game_of, game_spec
from caylus_env.datasets.format import (
    COMPRESSION,
    DatasetError,
    check_versions,
    dataset_schemas,
    file_digest,
    read_manifest,
    reading,
    regular_file,
    shard_name,
)
from caylus_env.datasets.loader import encode_observations
from caylus_env.datasets.verify import (
    Replay,
    VerifyReport,
    _Stop,
    _verify_shard,
    run_problems,
)

EXPORT_FORMAT = "caylus-export/1"
"""Schema version of an export (its columns and ``metadata.json``): bump it when a column is
added, removed or changes meaning."""
EXPORT_RUN_FORMAT = "caylus-export-run/1"
"""Format of ``export.json``, the arguments a resumed export must repeat."""
RUN_FILE = "export.json"
LEDGER_FILE = "shards.jsonl"
DATA_DIR = "data"
CARD_FILE = "README.md"
METADATA_FILE = "metadata.json"
DISTRIBUTION = "caylus-env"
"""The package that writes exports (``pyproject.toml``'s name), as the card names it."""
REWARD_KIND = "rank"
"""The environment's default reward (``caylus_env.core.env``), the one ``reward`` follows."""
EXPORT_COMPRESSION_LEVEL = 1
"""zstd level 1 for the exported files: observations are mostly zeros and small counts, which
level 1 packs tighter than level 3 (85 against 95 bytes a row of a Caylus export with policy
targets) in 10% less time (docs/datasets.md, "Export")."""
ROW_GROUP_BYTES = 32 * 2**20
"""Uncompressed bytes of an output row group (about 4,000 Caylus rows of 8 kB): what the
writer holds, and what a reader such as ``datasets`` or ``pyarrow.parquet.ParquetFile.
iter_batches`` decodes at once."""
_FIXED_ROW_BYTES = 64
"""Bytes of a row's scalar columns (ids, seat, action, reward, flags, the agent's index), for
the row group size."""
_STATISTICS = ["episode_id", "step", "player", "num_players", "agent", "terminated", "truncated"]
"""Columns whose row group statistics are written, so a filtered scan skips row groups."""


class ExportError(DatasetError):
    """An export that cannot run as asked (a bad dataset or output directory, a dataset row
    that fails its replay); one line naming what is wrong and what is allowed."""


# --------------------------------------------------------------------------------------------------
# The exported rows
# --------------------------------------------------------------------------------------------------


def export_schema(spec: GameSpec, policy: bool) -> pa.Schema:
    """The columns of an export of ``spec``'s game (``docs/datasets.md`` documents each one):
    the observation and the masks are fixed-size lists of the game's widths, ``policy`` (the
    dataset's policy targets, dense over the actions; null for a decision without one) only
    when the dataset has them."""
    obs, actions = int(spec.observation().OBS_SIZE), int(spec.engine().NUM_ACTIONS)
    fields = [
        pa.field("episode_id", pa.int64(), nullable=False),
        pa.field("step", pa.int32(), nullable=False),
        pa.field("player", pa.int8(), nullable=False),
        pa.field("num_players", pa.int8(), nullable=False),
        pa.field("agent", pa.string(), nullable=False),
        pa.field("observation", pa.list_(pa.float32(), obs), nullable=False),
        pa.field("action_mask", pa.list_(pa.int8(), actions), nullable=False),
        pa.field("action", pa.int64(), nullable=False),
        pa.field("reward", pa.float32(), nullable=False),
        pa.field("return", pa.float32(), nullable=False),
        pa.field("terminated", pa.bool_(), nullable=False),
        pa.field("truncated", pa.bool_(), nullable=False),
        pa.field("rank", pa.float32(), nullable=False),
    ]
    if policy:
        fields.append(pa.field("policy", pa.list_(pa.float32(), actions)))
    return pa.schema(fields)


COLUMN_MEANINGS = {
    "episode_id": "the dataset's game id (the games table's game_id): one episode per game",
    "step": "index of the decision in its game, 0, 1, ... (the dataset's ply; one env step each)",
    "player": "the seat to act: the env's agent player_{player} (seat = engine player number)",
    "num_players": "players of the game",
    "agent": "the acting seat's agent spec (the dataset's agent column)",
    "observation": "the env's observation of the position for the seat to act "
    "(raw_env.observe(agent)['observation']: the game's encoder, seats relative to the seat)",
    "action_mask": "legal actions, 1 = legal (the env's action_mask)",
    "action": "the action the seat played",
    "reward": "what the AEC env with reward='rank' pays the seat for this decision (its next "
    "env.last()): 0 but at the seat's last decision of a game that ended by its rules or by "
    "a forfeit, where it is (n + 1 - 2 * rank) / (n - 1); 0 in a truncated game",
    "return": "undiscounted sum of the seat's rewards from this decision on (its final reward)",
    "terminated": "true at the seat's last decision of a game that ended by its rules or by a "
    "forfeit (the env's termination its next env.last() shows)",
    "truncated": "true at the seat's last decision of a game cut off by its decision cap",
    "rank": "the seat's final rank (1 = best, ties averaged; after a forfeit the forfeiting "
    "seat last; a truncated game ranked by its position)",
    "policy": "the dataset's policy target, dense over the actions (MCTS visit shares, an "
    "agent's distribution, one-hot for scripted bots); null where the dataset has none",
}
"""What each column means, for the card and ``metadata.json``."""


def type_name(kind: pa.DataType) -> str:
    """A column type as NumPy users write it: ``float32``, ``int8[167]`` (a fixed-size list),
    ``string``."""
    if pa.types.is_fixed_size_list(kind):
        return f"{type_name(kind.value_type)}[{kind.list_size}]"
    if pa.types.is_string(kind):
        return "string"
    return np.dtype(kind.to_pandas_dtype()).name


def rows_per_group(spec: GameSpec, policy: bool, row_group_bytes: int = ROW_GROUP_BYTES) -> int:
    """Rows of an output row group: ``row_group_bytes`` of uncompressed rows of the game."""
    obs, actions = int(spec.observation().OBS_SIZE), int(spec.engine().NUM_ACTIONS)
    row = 4 * obs + actions * (1 + (4 if policy else 0)) + _FIXED_ROW_BYTES
    return max(1, row_group_bytes // row)


def _dense_policy(cols: Mapping[str, Any], d: int, actions: int) -> tuple[np.ndarray, np.ndarray]:
    """``(D, actions)`` float32 targets and a bool per row that has none (null)."""
    dense = np.zeros((d, actions), np.float32)
    missing = np.zeros(d, bool)
    for i, (acts, probs) in enumerate(
        zip(cols["policy_actions"], cols["policy_probs"], strict=True)
    ):
        if acts is None:
            missing[i] = True
        else:
            dense[i, np.asarray(acts, np.int64)] = np.asarray(probs, np.float32)
    return dense, missing


def _fixed_list(values: np.ndarray, mask: np.ndarray | None = None) -> pa.Array:
    """Rows of a 2-D array as a fixed-size list array (sharing its memory)."""
    flat = pa.array(np.ascontiguousarray(values).reshape(-1))
    return pa.FixedSizeListArray.from_arrays(
        flat, values.shape[1], mask=None if mask is None else pa.array(mask)
    )


def game_rows(
    spec: GameSpec,
    row: Mapping[str, Any],
    cols: Mapping[str, Any],
    replay: Replay,
    schema: pa.Schema,
) -> pa.Table:
    """The export rows of one checked game: its games row, its decision columns and its
    replay (``verify``'s ``on_checked`` arguments; see the module docstring for the
    rewards)."""
    states, masks = replay
    d = len(states)
    seats = np.asarray(cols["seat"], np.int64)
    n = int(row["num_players"])
    end = row["end"]
    finals = (
        np.zeros(n, np.float32) if end == "truncated" else np.asarray(row["returns"], np.float32)
    )
    last = np.zeros(d, bool)
    for seat in range(n):
        mine = np.flatnonzero(seats == seat)
        if len(mine):
            last[mine[-1]] = True
    reward = np.where(last, finals[seats], np.float32(0)).astype(np.float32)
    columns: dict[str, pa.Array] = {
        "episode_id": pa.array(np.full(d, int(row["game_id"]), np.int64)),
        "step": pa.array(np.asarray(cols["ply"], np.int32)),
        "player": pa.array(seats.astype(np.int8)),
        "num_players": pa.array(np.full(d, n, np.int8)),
        "agent": pa.array(list(cols["agent"]), pa.string()),
        "observation": _fixed_list(encode_observations(states, seats, spec.name)),
        "action_mask": _fixed_list(masks.astype(np.int8, copy=False)),
        "action": pa.array(np.asarray(cols["action"], np.int64)),
        "reward": pa.array(reward),
        "return": pa.array(finals[seats]),
        "terminated": pa.array(last & (end != "truncated")),
        "truncated": pa.array(last & (end == "truncated")),
        "rank": pa.array(np.asarray(row["ranks"], np.float32)[seats]),
    }
    if "policy" in schema.names:
        columns["policy"] = _fixed_list(*_dense_policy(cols, d, int(spec.engine().NUM_ACTIONS)))
    return pa.Table.from_pydict(columns, schema=schema)


class _PartWriter:
    """One output file, written as ``.NAME.tmp`` in row groups of exactly ``group`` rows (the
    last one smaller) whatever the games' lengths, then renamed into place by `finish`."""

    def __init__(self, path: Path, schema: pa.Schema, group: int) -> None:
        self.path = path
        self.tmp = path.with_name(f".{path.name}.tmp")
        self.group = group
        self.pending: list[pa.Table] = []
        self.held = 0
        self.rows = 0
        self.episodes = 0
        self.by_end: Counter[str] = Counter()
        self.by_players: Counter[str] = Counter()
        self.by_agent: Counter[str] = Counter()
        self.writer = pq.ParquetWriter(
            self.tmp,
            schema,
            compression=COMPRESSION,
            compression_level=EXPORT_COMPRESSION_LEVEL,
            use_dictionary=["agent"],
            write_statistics=_STATISTICS,
        )

    def add(self, table: pa.Table, row: Mapping[str, Any]) -> None:
        self.episodes += 1
        self.by_end[str(row["end"])] += 1
        self.by_players[str(row["num_players"])] += 1
        for agent, count in Counter(table["agent"].to_pylist()).items():
            self.by_agent[agent] += count
        self.pending.append(table)
        self.held += table.num_rows
        while self.held >= self.group:
            self._write(self.group)

    def _write(self, count: int) -> None:
        table = pa.concat_tables(self.pending)
        self.writer.write_table(table.slice(0, count), row_group_size=count)
        rest = table.slice(count)
        # the rest, less than a row group, copied: a slice would keep its game's arrays alive
        self.pending = [rest.combine_chunks()] if rest.num_rows else []
        self.held = rest.num_rows
        self.rows += count

    def finish(self) -> dict[str, Any]:
        if self.held:
            self._write(self.held)
        self.writer.close()
        with open(self.tmp, "rb+") as handle:
            os.fsync(handle.fileno())
        os.replace(self.tmp, self.path)
        fsync_path(self.path.parent)
        return {
            "rows": self.rows,
            "episodes": self.episodes,
            "by_end": dict(sorted(self.by_end.items())),
            "by_players": dict(sorted(self.by_players.items())),
            "by_agent": dict(sorted(self.by_agent.items())),
            **file_digest(self.path),
        }

    def abandon(self) -> None:
        """Close and remove the temporary file (a failed shard leaves nothing)."""
        try:
            self.writer.close()
        finally:
            self.tmp.unlink(missing_ok=True)


# --------------------------------------------------------------------------------------------------
# Preparing: every check before any work
# --------------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class PreparedExport:
    """A checked export (`prepare_export`): nothing was written yet."""

    root: Path
    out: Path
    game: str
    manifest: dict[str, Any]
    info: dict[str, Any]
    schema: pa.Schema
    schedule: Callable[[int], Mapping[str, Any] | None] | None


def _source_digest(manifest: Mapping[str, Any]) -> str:
    """What identifies the source's data: a digest of its shards' file digests (not of the
    manifest, which a rerun of ``generate`` rewrites with new timings)."""
    text = json.dumps(manifest["shards"], sort_keys=True, separators=(",", ":"))
    return hashlib.sha256(text.encode()).hexdigest()


def _check_files(root: Path, manifest: Mapping[str, Any]) -> None:
    """Every shard file's size and SHA-256 against the manifest (the data was not changed
    since it was generated).

    Raises:
        ExportError: naming the first file that differs.
    """
    for shard in manifest["shards"]:
        for name, digest in shard["files"].items():
            regular_file(root / name, root)
            with reading(root):
                found = file_digest(root / name)
            if found != digest:
                raise ExportError(
                    f"{root / name} is not the file its manifest lists ({found['bytes']} bytes, "
                    f"sha256 {found['sha256'][:12]}..., listed: {digest['bytes']} bytes, "
                    f"{str(digest['sha256'])[:12]}...); the dataset was altered (caylus dataset "
                    "verify locates every difference)"
                )


def _ledger(out: Path) -> Ledger:
    return Ledger(out, records=LEDGER_FILE, info=RUN_FILE, info_format=EXPORT_RUN_FORMAT)


def _check_out(root: Path, out: Path, info: Mapping[str, Any]) -> None:
    """Refuse an output directory that is the dataset's, inside it or holds it, that is not a
    directory, or that exists and is neither empty nor an export of the same arguments.

    Raises:
        ExportError: naming the directory and what is allowed.
    """
    problem = directory_problem(out)
    if problem is not None:
        raise ExportError(f"--out: {problem}")
    source, target = root.resolve(), out.resolve()
    if target == source or source in target.parents or target in source.parents:
        raise ExportError(
            f"--out {out} is the dataset directory {root}, inside it or holds it; allowed: a "
            "directory apart from the dataset (the dataset is never written to)"
        )
    if not out.is_dir():
        return
    names = sorted(os.listdir(out))
    if names and RUN_FILE not in names:
        shown = ", ".join(names[:5]) + (", ..." if len(names) > 5 else "")
        raise ExportError(
            f"--out {out} holds {shown} but no {RUN_FILE}, so it is not an export; allowed: a "
            "new or empty directory, or an unfinished export of this dataset to resume"
        )
    try:
        _ledger(out).check_info(info)
    except InfoMismatchError as err:
        raise ExportError(str(err).replace("run.json", RUN_FILE)) from None
    except LedgerError as err:
        raise ExportError(str(err)) from None


def prepare_export(
    root: str | os.PathLike[str],
    out: str | os.PathLike[str],
    *,
    game: str | None = None,
    schedule: Callable[[int], Mapping[str, Any] | None] | None = None,
    row_group_bytes: int = ROW_GROUP_BYTES,
) -> PreparedExport:
    """Check the dataset and the output directory without writing anything.

    Args:
        root: The dataset directory.
        out: The export directory (created; resumed when it holds an unfinished export of
            the same arguments).
        game: The game the dataset must hold; None: the one its manifest names.
        schedule: ``game id -> job dict`` of the dataset run's schedule (what ``caylus
            dataset verify`` checks the seating against; ``agents.selfplay.generate.
            ScheduleLookup``); None: the seating is not checked.
        row_group_bytes: Uncompressed bytes of an output row group (`ROW_GROUP_BYTES`).

    Raises:
        DatasetError: (``ExportError``) naming what is wrong with the dataset (not a finished
            dataset of this engine, another game, its manifest contradicting its run, a file
            of another schema, size or digest) or with ``out``.
    """
    path, target = Path(root), Path(out)
    manifest = read_manifest(path)
    game = game_of(manifest) if game is None else game
    check_versions(manifest, game=game)
    problems = run_problems(manifest)
    if problems:
        raise ExportError(f"{path}: {problems[0]}")
    schemas = dataset_schemas(manifest, path, game)
    policy = "policy_actions" in schemas["decisions"].names
    spec = game_spec(game)
    if (
        isinstance(row_group_bytes, bool)
        or not isinstance(row_group_bytes, int)
        or row_group_bytes < 1
    ):
        raise ValueError(f"row_group_bytes={row_group_bytes!r}; allowed: an integer >= 1")
    schema = export_schema(spec, policy)
    obs = spec.observation()
    info = {
        "format": EXPORT_RUN_FORMAT,
        "kind": "export",
        "game": spec.name,
        "engine": __version__,
        "source": {
            "format": manifest["format"],
            "engine": manifest.get("engine"),
            "shards_sha256": _source_digest(manifest),
            "games": manifest["counts"]["games"],
            "decisions": manifest["counts"]["decisions"],
            "shards": len(manifest["shards"]),
        },
        "observation_version": obs.OBSERVATION_VERSION,
        "observation_size": int(obs.OBS_SIZE),
        "action_space_version": spec.engine().ACTION_SPACE_VERSION,
        "num_actions": int(spec.engine().NUM_ACTIONS),
        "reward": REWARD_KIND,
        "columns": schema.names,
        "row_group_rows": rows_per_group(spec, policy, row_group_bytes),
        "compression": f"{COMPRESSION}:{EXPORT_COMPRESSION_LEVEL}",
    }
    _check_out(path, target, info)
    _check_files(path, manifest)
    return PreparedExport(path, target, spec.name, manifest, info, schema, schedule)


# --------------------------------------------------------------------------------------------------
# Running
# --------------------------------------------------------------------------------------------------


@dataclass
class ExportResult:
    """What an export call did.

    Attributes:
        out: The export directory.
        metadata: ``metadata.json`` as written.
        rows: Rows written by this call (the others were in finished shards already).
        shards_written: Shards written by this call.
        resumed: Shards found finished by an earlier call.
        removed_partial: Temporary files of a killed export that were removed.
        seconds: Time of this call.
    """

    out: Path
    metadata: dict[str, Any]
    rows: int
    shards_written: int
    resumed: int
    removed_partial: int
    seconds: float


def _check_entry(out: Path, entry: Any, shards: Sequence[int]) -> dict[str, Any]:
    """One ledger line, checked against the source's shards and the file on disk (its size)."""
    if not isinstance(entry, dict) or entry.get("shard") not in shards:
        raise ValueError(f"not the entry of one of the dataset's shards {list(shards)[:5]}...")
    name = f"{DATA_DIR}/{shard_name(entry['shard'])}"
    if entry.get("file") != name:
        raise ValueError(f"shard {entry['shard']} should be written to {name}")
    path = out / name
    if not path.is_file() or path.stat().st_size != entry.get("bytes"):
        raise ValueError(f"{name} is missing or not the {entry.get('bytes')} bytes the ledger says")
    for key in ("rows", "episodes"):
        if isinstance(entry.get(key), bool) or not isinstance(entry.get(key), int):
            raise ValueError(f"{key} is not a count")
    return entry


def _remove_partial(out: Path) -> int:
    folder = out / DATA_DIR
    removed = 0
    if folder.is_dir():
        for path in sorted(folder.glob(".part-*.parquet.tmp")):
            path.unlink()
            removed += 1
    return removed


def export_dataset(
    prepared: PreparedExport,
    *,
    on_rows: Callable[[int], None] | None = None,
) -> ExportResult:
    """Export (or resume exporting) a prepared dataset, then write the card and metadata.

    Args:
        prepared: From `prepare_export`.
        on_rows: Called with the decisions exported so far, finished shards included (a
            progress bar).

    Raises:
        ExportError: for an output directory another process is exporting into, a ledger
            line that was changed, or a dataset row that fails its replay (naming its game
            and ply; the shard being written is dropped, finished shards are kept).
    """
    start = time.perf_counter()
    progress = on_rows or (lambda _: None)
    run, out = prepared, prepared.out
    spec = game_spec(run.game)
    ledger = _ledger(out)
    shards = [int(s["shard"]) for s in run.manifest["shards"]]
    group = int(run.info["row_group_rows"])
    written = rows = 0
    try:
        with ledger.locked():
            if ledger.check_info(run.info) is None:
                ledger.write_info(run.info)
            lines, _ = ledger.read(check=lambda _, e: _check_entry(out, e, shards))
            done = {int(e["shard"]): e for _, e in lines}
            removed = _remove_partial(out)
            (out / DATA_DIR).mkdir(exist_ok=True)
            exported = sum(int(e["rows"]) for e in done.values())
            progress(exported)
            with ledger.appender() as append:
                for shard in run.manifest["shards"]:
                    index = int(shard["shard"])
                    if index in done:
                        _skip(run, shard)
                        continue
                    entry = _export_shard(
                        run, spec, shard, group, lambda k, base=exported: progress(base + k)
                    )
                    exported += entry["rows"]
                    rows += entry["rows"]
                    written += 1
                    line = json.dumps(entry, sort_keys=True, separators=(",", ":")) + "\n"
                    append([line])
                    done[index] = entry
            entries = [done[s] for s in shards]
            metadata = build_metadata(run, entries)
            atomic_write_text(out / CARD_FILE, card(metadata))
            atomic_write_json(out / METADATA_FILE, metadata)
    except InfoMismatchError as err:
        raise ExportError(str(err).replace("run.json", RUN_FILE)) from None
    except LedgerError as err:
        raise ExportError(str(err)) from None
    seconds = time.perf_counter() - start
    return ExportResult(out, metadata, rows, written, len(shards) - written, removed, seconds)


def _skip(run: PreparedExport, shard: Mapping[str, Any]) -> None:
    """A finished shard's games, asked of the schedule so that it walks on past them (a
    lookup that walks forward, as ``ScheduleLookup``, then keeps nothing of them)."""
    if run.schedule is not None:
        first = int(shard["first_game"])
        for gid in range(first, first + int(shard["games"])):
            run.schedule(gid)


def _export_shard(
    run: PreparedExport,
    spec: GameSpec,
    shard: Mapping[str, Any],
    group: int,
    on_rows: Callable[[int], Any],
) -> dict[str, Any]:
    """Replay-check one shard (``verify``'s check, stopping at the first problem) and write
    its checked games' rows; returns its ledger entry."""
    index = int(shard["shard"])
    name = f"{DATA_DIR}/{shard_name(index)}"
    writer = _PartWriter(run.out / name, run.schema, group)
    report = VerifyReport(max_problems=1)

    def on_checked(row: Mapping[str, Any], cols: Mapping[str, Any], replay: Replay) -> None:
        writer.add(game_rows(spec, row, cols, replay, run.schema), row)
        on_rows(writer.rows + writer.held)

    try:
        with reading(run.root):
            _verify_shard(
                run.root, shard, report, run.schedule, None, spec, run.manifest, on_checked
            )
    except _Stop:
        writer.abandon()
        raise ExportError(
            f"{run.root}: shard {index}: {report.problems[0]}; {name} was not written "
            "(caylus dataset verify lists every problem)"
        ) from None
    except BaseException:
        writer.abandon()
        raise
    return {"shard": index, "file": name, **writer.finish()}


# --------------------------------------------------------------------------------------------------
# The card and metadata.json
# --------------------------------------------------------------------------------------------------


def _merge(entries: Sequence[Mapping[str, Any]], key: str) -> dict[str, int]:
    total: Counter[str] = Counter()
    for e in entries:
        total.update(e.get(key, {}))
    return dict(sorted(total.items()))


def build_metadata(run: PreparedExport, entries: Sequence[Mapping[str, Any]]) -> dict[str, Any]:
    """``metadata.json``: everything the card says, as data (no time in it: a resumed export
    writes the same bytes)."""
    spec = game_spec(run.game)
    engine, obs = spec.engine(), spec.observation()
    dataset_run = run.manifest.get("run") or {}
    offsets = obs.LAYOUT.slices
    rows = sum(int(e["rows"]) for e in entries)
    size = sum(int(e["bytes"]) for e in entries)
    return {
        "format": EXPORT_FORMAT,
        "game": spec.name,
        "title": spec.title,
        "env": spec.env_name,
        "versions": {
            "exporter": f"{DISTRIBUTION} {__version__}",
            "dataset_format": run.manifest["format"],
            "dataset_engine": run.manifest.get("engine"),
            "state_version": run.manifest.get("state_version"),
            "observation_version": obs.OBSERVATION_VERSION,
            "action_space_version": engine.ACTION_SPACE_VERSION,
            "pyarrow": pa.__version__,
        },
        "source": {
            "command": run.manifest.get("command"),
            "agents": list(dataset_run.get("agents", [])),
            "players": list(dataset_run.get("players", [])),
            "seed": dataset_run.get("seed"),
            "policy_targets": "policy" in run.schema.names,
            "shards_sha256": run.info["source"]["shards_sha256"],
        },
        "counts": {
            "episodes": sum(int(e["episodes"]) for e in entries),
            "decisions": rows,
            "files": len(entries),
            "bytes": size,
            "bytes_per_decision": round(size / rows, 1) if rows else None,
            "episodes_by_end": _merge(entries, "by_end"),
            "episodes_by_players": _merge(entries, "by_players"),
            "decisions_by_agent": _merge(entries, "by_agent"),
        },
        "reward": {
            "kind": REWARD_KIND,
            "definition": COLUMN_MEANINGS["reward"],
            "return": COLUMN_MEANINGS["return"],
        },
        "columns": [
            {"name": f.name, "type": type_name(f.type), "meaning": COLUMN_MEANINGS[f.name]}
            for f in run.schema
        ],
        "row_group_rows": run.info["row_group_rows"],
        "observation_size": int(obs.OBS_SIZE),
        "observation_pieces": [
            {"name": name, "shape": list(shape), "start": offsets[name].start}
            for name, shape in obs.PIECES
        ],
        "observation_high": [float(v) for v in obs.BOUNDS],
        "num_actions": int(engine.NUM_ACTIONS),
        "action_names": [str(engine.action_to_string(a)) for a in range(engine.NUM_ACTIONS)],
        "files": [
            {
                "path": e["file"],
                "shard": e["shard"],
                "episodes": e["episodes"],
                "rows": e["rows"],
                "bytes": e["bytes"],
                "sha256": e["sha256"],
            }
            for e in entries
        ],
    }


def card(metadata: Mapping[str, Any]) -> str:
    """``README.md``: a Hugging Face dataset card (its YAML header names the data files, so
    ``datasets.load_dataset(OUT)`` finds them) saying what the export holds and how to load it
    without caylus_env."""
    counts, source, versions = metadata["counts"], metadata["source"], metadata["versions"]
    obs, actions = metadata["observation_size"], metadata["num_actions"]
    columns = "\n".join(
        f"| `{c['name']}` | {c['type']} | {c['meaning']} |" for c in metadata["columns"]
    )
    agents = ", ".join(f"`{a}`" for a in source["agents"]) or "(not recorded)"
    by_agent = ", ".join(f"`{a}` {n}" for a, n in counts["decisions_by_agent"].items())
    by_end = ", ".join(f"{k} {n}" for k, n in counts["episodes_by_end"].items())
    by_players = ", ".join(f"{k} players: {n}" for k, n in counts["episodes_by_players"].items())
    policy = (
        f"`policy` holds the dataset's policy targets as float32[{actions}] (null where a "
        "decision has none).\n"
        if source["policy_targets"]
        else "The dataset has no policy targets (generate it with `--policy-targets` for a "
        "`policy` column).\n"
    )
    return f"""---
configs:
- config_name: default
  data_files:
  - split: train
    path: {DATA_DIR}/part-*.parquet
tags:
- reinforcement-learning
- multi-agent
- board-games
- {metadata["game"].replace("_", "-")}
pretty_name: {metadata["title"]} self-play decisions
---

# {metadata["title"]} self-play decisions

{counts["decisions"]} decisions of {counts["episodes"]} games of {metadata["title"]} (`{metadata["game"]}`), one row per decision, exported by `caylus dataset export` ({versions["exporter"]}) from a `{versions["dataset_format"]}` dataset (caylus-env {versions["dataset_engine"]}) generated by:

```
{source["command"]}
```

- agents: {agents}; players: {", ".join(map(str, source["players"]))}
- games by end: {by_end}; by player count: {by_players}
- decisions by agent: {by_agent}
- {counts["files"]} files under `{DATA_DIR}/`, {counts["bytes"]} bytes ({counts["bytes_per_decision"]} bytes a decision)
- observation version `{versions["observation_version"]}` ({obs} float32), action space `{versions["action_space_version"]}` ({actions} actions, named in `{METADATA_FILE}`)

Row `step` of episode `episode_id` is the decision of seat `player` after the game's first `step` actions: `observation` and `action_mask` are what the `{metadata["env"]}` environment of caylus_env gives that seat there (`env.observe(f"player_{{player}}")`), `action` what it played. {policy}
## Rewards

`reward` is what the AEC environment with its default `reward="rank"` pays the seat for the decision (what its next `env.last()` returns). Rewards come at the end of a game only: `reward` is 0 at every decision but the seat's last one of the game, where it is its rank return `(n + 1 - 2 * rank) / (n - 1)` (+1 first, -1 last, ties averaged) if the game ended by its rules (`terminated`), or by a forfeit in the tournament harness (the forfeiting seat ranked last; `terminated`), and 0 if the game was cut off by its decision cap (`truncated`, as the environment pays it). `return` is the sum of the seat's rewards from the decision to the end of the game (undiscounted): its final reward, at each of its decisions. `rank` is the seat's final rank whatever the end.

## Columns

| column | type | meaning |
| --- | --- | --- |
{columns}

A seat's transitions are its rows in `step` order (group by `episode_id` and `player`): its
next observation is its next row's, and its last row has `terminated` or `truncated`.
`{METADATA_FILE}` holds the same as data: the columns, the observation's pieces (`name`,
`shape`, `start`) and upper bounds (`observation_high`, the env's `Box`), the action names
and every file's SHA-256.

## Loading

```python
import pyarrow.dataset as ds
table = ds.dataset("{DATA_DIR}", format="parquet").to_table()
obs = table["observation"].combine_chunks().flatten().to_numpy().reshape(-1, {obs})

import polars as pl
frame = pl.scan_parquet("{DATA_DIR}/*.parquet").filter(pl.col("terminated")).collect()

import datasets
hf = datasets.load_dataset("parquet", data_files="{DATA_DIR}/*.parquet", split="train")
hf = hf.with_format("numpy")  # or "torch": observation (batch, {obs}) float32

import pyarrow.parquet as pq  # batch by batch, in bounded memory
for batch in pq.ParquetFile("{DATA_DIR}/part-00000.parquet").iter_batches(4096):
    mask = batch.column("action_mask").flatten().to_numpy().reshape(-1, {actions})
```
"""


__all__ = [
    "CARD_FILE",
    "COLUMN_MEANINGS",
    "DATA_DIR",
    "EXPORT_COMPRESSION_LEVEL",
    "EXPORT_FORMAT",
    "EXPORT_RUN_FORMAT",
    "LEDGER_FILE",
    "METADATA_FILE",
    "REWARD_KIND",
    "ROW_GROUP_BYTES",
    "RUN_FILE",
    "ExportError",
    "ExportResult",
    "PreparedExport",
    "build_metadata",
    "card",
    "export_dataset",
    "export_schema",
    "game_rows",
    "prepare_export",
    "rows_per_group",
    "type_name",
]
