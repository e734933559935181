"""Reading a self-play dataset: pyarrow datasets, NumPy batches, a torch ``IterableDataset``.

Stable signatures (what ``caylus train bc`` builds on):

- ``open_dataset(root, table="decisions") -> pyarrow.dataset.Dataset``
- ``iter_batches(source, batch_size=1024, *, observations=True, masks=True, columns=(),
  players=None, agents=None, seats=None, outcome=None, min_return=None,
  policy_targets=None, part=(0, 1), drop_last=False) -> Iterator[dict[str, np.ndarray]]``
- ``DecisionDataset(source, batch_size=256, **the same filters)``: a torch ``IterableDataset``
  of batches ``{"obs", "mask", "action", "ret"[, "target"]}`` (tensors), split between
  ``DataLoader`` workers by row group (no row twice); use ``DataLoader(ds, batch_size=None)``.

Batches hold, in dataset order (shard, game id, ply): ``obs`` float32 ``(B, OBS_SIZE)`` (the
game's observation of the stored state from the acting seat, encoded in one compiled call,
``caylus_env.core.vector.kernels(game).encode_batch``: bit-identical to ``raw_env.observe``),
``mask`` bool ``(B, NUM_ACTIONS)``, ``action`` int64, ``seat`` int64, ``num_players`` int64,
``ret`` float32 (the acting seat's final return), ``kind`` int64 (decision kind id, names in
the manifest's ``decision_kinds``, the engine's ``DECISION_NAMES``), ``agent`` (object array
of specs), ``game_id`` int64, ``ply`` int64, and with policy targets ``target`` float32
``(B, NUM_ACTIONS)`` (dense; rows of games without targets are all zero and ``has_target`` is
False for them). ``columns`` adds other decision columns as they are stored.

Every reader takes ``game=`` (a name of ``caylus_env.core.registry``); left out, it is the game
the dataset's manifest names. Given, a dataset of another game is refused naming both. The widths are that game's
(``caylus_env.datasets.format``: `state_bytes`, `mask_bytes`), and its observation encoder is
compiled on first use only: reading states and masks needs none. `read_games` gives the games
table under its current column names (a ``caylus-dataset/1`` dataset's ``prestige`` column as
``scores``).
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Iterator, Sequence
from functools import lru_cache
from pathlib import Path
from typing import Any

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.dataset as pds

from caylus_env.core.registry import game_of, game_spec
from caylus_env.datasets.format import (
    DATASET_FORMAT,
    DECISIONS_DIR,
    GAMES_DIR,
    DatasetError,
    RowError,
    check_versions,
    dataset_schemas,
    games_columns,
    kind_names,
    mask_bytes,
    num_actions,
    read_manifest,
    reading,
    shard_files,
    state_bytes,
    stored_states,
    unpack_masks,
)

BATCH_KEYS = (
    "obs",
    "mask",
    "action",
    "seat",
    "num_players",
    "ret",
    "kind",
    "agent",
    "game_id",
    "ply",
)
"""Keys of every `iter_batches` batch (``obs`` and ``mask`` only when asked for), plus
``target`` and ``has_target`` with policy targets."""
OUTCOMES = ("win", "loss")
"""``outcome="win"``: decisions of seats that finished first alone (rank 1); ``"loss"``: last
alone (rank = number of players)."""
_BASE_COLUMNS = ["game_id", "ply", "seat", "num_players", "kind_id", "action", "ret", "agent"]
GAMES_FLOAT_COLUMNS = ("ranks", "returns")
"""The games table's float columns, whose values `read_games` checks are finite."""
ALTERED = "the dataset was altered (caylus dataset verify locates every difference)"


def open_dataset(
    root: str | os.PathLike[str], table: str = "decisions", *, game: str | None = None
) -> pds.Dataset:
    """A pyarrow dataset over one table of a finished dataset, in shard order.

    Args:
        root: The dataset directory (it must hold ``manifest.json``).
        table: ``"decisions"`` or ``"games"``.
        game: The game the dataset must hold (``caylus_env.core.registry``); None: the game
            its manifest names.

    Raises:
        DatasetError: for a directory that is not a finished dataset, a dataset of another
            game (naming both), or one whose state layout or action space is not this
            engine's.
    """
    path = Path(root)
    manifest = read_manifest(path)
    game = game_of(manifest) if game is None else game
    check_versions(manifest, game=game)
    if table not in (DECISIONS_DIR, GAMES_DIR):
        raise DatasetError(f"table={table!r}; allowed: {DECISIONS_DIR!r}, {GAMES_DIR!r}")
    schemas = dataset_schemas(manifest, path, game)
    # a legacy games table is read with its stored column names (games_columns renames them)
    schema = (
        schemas[table] if table == DECISIONS_DIR or manifest["format"] == DATASET_FORMAT else None
    )
    with reading(path):
        return pds.dataset(shard_files(manifest, path, table), format="parquet", schema=schema)


def read_games(root: str | os.PathLike[str], *, game: str | None = None) -> pa.Table:
    """The games table, one row per game, in game id order, under the current column names
    (``scores``, also for a ``caylus-dataset/1`` dataset, which stored them as ``prestige``).

    Raises:
        DatasetError: as `open_dataset`, and for a game whose ranks or returns are not all
            finite numbers (`GAMES_FLOAT_COLUMNS`).
    """
    dataset = open_dataset(root, GAMES_DIR, game=game)
    with reading(root):
        table = games_columns(dataset.to_table())
    for name in GAMES_FLOAT_COLUMNS:
        values = table[name].combine_chunks()
        if not np.isfinite(pc.list_flatten(values).to_numpy(zero_copy_only=False)).all():
            lists = values.to_pylist()
            row = next(i for i, v in enumerate(lists) if not np.isfinite(v).all())
            raise DatasetError(
                f"game {table['game_id'][row].as_py()}: {name} {lists[row]} are not all finite "
                f"numbers; {ALTERED}"
            )
    return table


def _values(name: str, value: Any, kind: type) -> list[Any]:
    values = (
        [value]
        if isinstance(value, (kind, np.integer)) and not isinstance(value, bool)
        else list(value)
    )
    if not values or any(
        isinstance(v, bool) or not isinstance(v, (kind, np.integer)) for v in values
    ):
        raise ValueError(f"{name}={value!r}; allowed: a {kind.__name__} or a list of them")
    return [kind(v) if kind is not str else v for v in values]


def decision_filter(
    players: int | Iterable[int] | None = None,
    agents: str | Iterable[str] | None = None,
    seats: int | Iterable[int] | None = None,
    outcome: str | None = None,
    min_return: float | None = None,
) -> pc.Expression | None:
    """The pyarrow filter of `iter_batches`' arguments (None: every row).

    Raises:
        ValueError: naming a bad filter value and what is allowed.
    """
    parts = []
    if players is not None:
        parts.append(pc.field("num_players").isin(_values("players", players, int)))
    if agents is not None:
        parts.append(pc.field("agent").isin(_values("agents", agents, str)))
    if seats is not None:
        parts.append(pc.field("seat").isin(_values("seats", seats, int)))
    if outcome is not None:
        if outcome not in OUTCOMES:
            raise ValueError(f"outcome={outcome!r}; allowed: {', '.join(OUTCOMES)} or None")
        if outcome == "win":
            parts.append(pc.field("rank") == 1.0)
        else:
            parts.append(pc.field("rank") == pc.cast(pc.field("num_players"), pa.float32()))
    if min_return is not None:
        if (
            isinstance(min_return, bool)
            or not isinstance(min_return, (int, float))
            or not np.isfinite(min_return)
        ):
            raise ValueError(f"min_return={min_return!r}; allowed: a number from -1 to 1")
        parts.append(pc.field("ret") >= float(min_return))
    if not parts:
        return None
    expr = parts[0]
    for p in parts[1:]:
        expr = expr & p
    return expr


def _fragments(dataset: pds.Dataset, part: tuple[int, int]) -> list[Any]:
    """Row groups of the dataset, in order, every ``count``-th from ``index``."""
    index, count = part
    if (
        isinstance(count, bool)
        or not isinstance(count, int)
        or not isinstance(index, int)
        or count < 1
        or not 0 <= index < count
    ):
        raise ValueError(f"part={part!r}; allowed: (index, count) with 0 <= index < count")
    groups = [g for f in dataset.get_fragments() for g in f.split_by_row_group()]
    return groups[index::count]


def encode_observations(states: np.ndarray, seats: np.ndarray, game: str) -> np.ndarray:
    """``(B, OBS_SIZE)`` float32: each state encoded from its seat by the game's observation
    encoder, in one compiled call (``caylus_env.core.vector.kernels(game).encode_batch``)."""
    from caylus_env.core.vector import kernels

    spec = game_spec(game)
    out = np.empty((len(states), spec.observation().OBS_SIZE), np.float32)
    kernels(spec.name).encode_batch(
        np.ascontiguousarray(states), np.ascontiguousarray(seats, np.int64), out
    )
    return out


def dense_targets(
    actions: pa.Array, probs: pa.Array, num_actions: int
) -> tuple[np.ndarray, np.ndarray]:
    """Sparse ``(action, probability)`` lists as ``(B, num_actions)`` float32 and a bool
    ``has_target`` per row (False where the list is null)."""
    b = len(actions)
    out = np.zeros((b, num_actions), np.float32)
    valid = np.asarray(actions.is_valid().to_numpy(zero_copy_only=False), bool)
    lengths = pc.fill_null(pc.list_value_length(actions), 0).to_numpy()
    lengths_p = pc.fill_null(pc.list_value_length(probs), 0).to_numpy()
    both = valid == np.asarray(probs.is_valid().to_numpy(zero_copy_only=False), bool)
    cols = pc.list_flatten(actions).to_numpy(zero_copy_only=False)
    vals = pc.list_flatten(probs).to_numpy(zero_copy_only=False)
    bad = np.flatnonzero(~both | (lengths != lengths_p))
    if not len(bad) and len(cols):
        wrong = (cols < 0) | (cols >= num_actions) | ~np.isfinite(vals) | (vals < 0)
        bad = np.repeat(np.arange(b), lengths)[wrong]
    if len(bad):
        raise RowError(
            int(bad[0]),
            f"the stored policy target is not a distribution over action ids 0 to "
            f"{num_actions - 1}",
        )
    rows = np.repeat(np.arange(b), lengths)
    out[rows, cols.astype(np.int64)] = vals.astype(np.float32)
    return out, valid


def _source(
    source: str | os.PathLike[str] | pds.Dataset, game: str | None
) -> tuple[pds.Dataset, str]:
    """The decisions of ``source`` and their game: a directory's manifest names it (and must
    name ``game`` when given); a pyarrow dataset given directly has no manifest, so ``game``
    must be given and its state and mask widths must be that game's."""
    if not isinstance(source, pds.Dataset):
        if game is None:
            game = game_of(read_manifest(Path(source)))
        return open_dataset(source, game=game), game
    if game is None:
        raise ValueError(
            "a pyarrow dataset has no manifest to name its game: pass game=<the game it was "
            "generated for> (caylus games lists them)"
        )
    spec = game_spec(game)
    schema = source.schema
    for name, width in (("state", state_bytes(spec)), ("legal", mask_bytes(spec))):
        if name in schema.names:
            found = getattr(schema.field(name).type, "byte_width", None)
            if found != width:
                raise DatasetError(
                    f"column {name} holds {found}-byte values; a {spec.title} dataset "
                    f"(game {spec.name!r}) has {width}: pass the game it was generated for"
                )
    return source, spec.name


def iter_batches(
    source: str | os.PathLike[str] | pds.Dataset,
    batch_size: int = 1024,
    *,
    observations: bool = True,
    masks: bool = True,
    columns: Sequence[str] = (),
    players: int | Iterable[int] | None = None,
    agents: str | Iterable[str] | None = None,
    seats: int | Iterable[int] | None = None,
    outcome: str | None = None,
    min_return: float | None = None,
    policy_targets: bool | None = None,
    part: tuple[int, int] = (0, 1),
    drop_last: bool = False,
    game: str | None = None,
) -> Iterator[dict[str, np.ndarray]]:
    """Decision batches of NumPy arrays (keys in the module docstring), in dataset order.

    Args:
        source: A dataset directory or `open_dataset`'s result.
        batch_size: Rows per batch (the last one may be smaller unless ``drop_last``).
        observations: Encode ``obs`` from the stored states.
        masks: Unpack ``mask`` from the stored bits.
        columns: Further decision columns to include, as stored (``state``, ``rank``, ...).
        players, agents, seats: Keep decisions of these player counts, agent specs, seats.
        outcome: ``"win"`` or ``"loss"`` (`OUTCOMES`): keep decisions of seats that ended so.
        min_return: Keep decisions whose acting seat's return is at least this.
        policy_targets: Add dense ``target`` (and ``has_target``); None: when the dataset
            has them.
        part: ``(index, count)``: read only every ``count``-th row group from ``index``
            (how parallel readers split a dataset without sharing a row).
        drop_last: Drop a last batch smaller than ``batch_size``.
        game: The game the dataset must hold (``caylus_env.core.registry``): its widths, and its
            observation encoder for ``obs``; None: the game its manifest names (required for
            a pyarrow dataset given directly).

    Raises:
        ValueError: for a bad argument (before reading anything); DatasetError for a
            directory that is not a dataset or lacks the policy columns asked for.
    """
    if isinstance(batch_size, bool) or not isinstance(batch_size, int) or batch_size < 1:
        raise ValueError(f"batch_size={batch_size!r}; allowed: an integer >= 1")
    dataset, game = _source(source, game)
    expr = decision_filter(players, agents, seats, outcome, min_return)
    names = set(dataset.schema.names)
    has_policy = "policy_actions" in names
    if policy_targets is None:
        policy_targets = has_policy
    elif policy_targets and not has_policy:
        raise DatasetError(
            "policy_targets=True but the dataset has no policy columns; generate it with "
            "--policy-targets"
        )
    unknown = [c for c in columns if c not in names]
    if unknown:
        raise ValueError(f"columns {unknown} are not decision columns; allowed: {sorted(names)}")
    read = list(_BASE_COLUMNS)
    if observations:
        read.append("state")
    if masks:
        read.append("legal")
    if policy_targets:
        read += ["policy_actions", "policy_probs"]
    read += [c for c in columns if c not in read]
    pending: list[pa.RecordBatch] = []
    held = 0
    where = source if not isinstance(source, pds.Dataset) else "given"
    for fragment in _fragments(dataset, part):
        with reading(where):
            batches = list(fragment.to_batches(columns=read, filter=expr, batch_size=batch_size))
        for batch in batches:
            if batch.num_rows == 0:
                continue
            pending.append(batch)
            held += batch.num_rows
            while held >= batch_size:
                table = pa.Table.from_batches(pending)
                yield _convert(
                    table.slice(0, batch_size), observations, masks, policy_targets, columns, game
                )
                rest = table.slice(batch_size)
                pending = rest.to_batches() if rest.num_rows else []
                held = rest.num_rows
    if held and not drop_last:
        yield _convert(
            pa.Table.from_batches(pending), observations, masks, policy_targets, columns, game
        )


def _fixed_bytes(column: pa.ChunkedArray, width: int) -> np.ndarray:
    array = column.combine_chunks() if isinstance(column, pa.ChunkedArray) else column
    buf = array.buffers()[1]
    data = np.frombuffer(buf, np.uint8, count=(array.offset + len(array)) * width)
    return data[array.offset * width :].reshape(len(array), width)


def _convert(
    table: pa.Table,
    observations: bool,
    masks: bool,
    policy_targets: bool,
    columns: Sequence[str],
    game: str,
) -> dict[str, np.ndarray]:
    seat = table["seat"].to_numpy().astype(np.int64)
    spec = game_spec(game)
    s_bytes, m_bytes = state_bytes(spec), mask_bytes(spec)
    out: dict[str, np.ndarray] = {
        "action": table["action"].to_numpy().astype(np.int64),
        "seat": seat,
        "num_players": table["num_players"].to_numpy().astype(np.int64),
        "ret": table["ret"].to_numpy().astype(np.float32),
        "kind": table["kind_id"].to_numpy().astype(np.int64),
        "agent": np.asarray(table["agent"].to_pylist(), dtype=object),
        "game_id": table["game_id"].to_numpy().astype(np.int64),
        "ply": table["ply"].to_numpy().astype(np.int64),
    }
    try:
        _check_rows(out, spec)
        if masks:
            out["mask"] = unpack_masks(_fixed_bytes(table["legal"], m_bytes), game)
            taken = out["mask"][np.arange(len(seat)), out["action"]]
            if not taken.all():
                i = int(np.flatnonzero(~taken)[0])
                raise RowError(i, "the stored action is not legal by its stored mask")
        if observations:
            states = stored_states(spec, _fixed_bytes(table["state"], s_bytes))
            current = spec.engine().kernels.current_player
            acting = np.fromiter((current(s) for s in states), np.int64, len(states))
            if (acting != seat).any():
                i = int(np.flatnonzero(acting != seat)[0])
                raise RowError(
                    i, f"seat {int(seat[i])} acts, but its stored state asks seat {int(acting[i])}"
                )
            out["obs"] = encode_observations(states, seat, game)
        if policy_targets:
            actions = table["policy_actions"].combine_chunks()
            probs = table["policy_probs"].combine_chunks()
            out["target"], out["has_target"] = dense_targets(actions, probs, num_actions(spec))
    except RowError as err:
        raise DatasetError(
            f"game {int(out['game_id'][err.row])} ply {int(out['ply'][err.row])}: {err.reason}; "
            f"{ALTERED}"
        ) from None
    for name in columns:
        if name == "rank":
            _check_ranks(table["rank"].to_numpy(), out)
        if name in ("state", "legal"):
            width = s_bytes if name == "state" else m_bytes
            out[name] = np.array(_fixed_bytes(table[name], width))
        elif name not in out:
            out[name] = table[name].to_numpy(zero_copy_only=False)
    return out


def _check_rows(out: dict[str, np.ndarray], spec: Any) -> None:
    """Refuse decision rows whose player count, seat, decision kind or action is outside the
    game's ranges (before any of them indexes an array), or whose return is not a finite
    number from -1 to 1 (what ``returns_of`` gives: a NaN would reach a value loss), naming
    the first row."""
    n = out["num_players"]
    checks = (
        ("player count", n, (n < spec.min_players) | (n > spec.max_players)),
        ("seat", out["seat"], (out["seat"] < 0) | (out["seat"] >= n)),
        ("decision kind", out["kind"], (out["kind"] < 0) | (out["kind"] >= len(kind_names(spec)))),
        ("action", out["action"], (out["action"] < 0) | (out["action"] >= num_actions(spec))),
    )
    for what, values, wrong in checks:
        if wrong.any():
            i = int(np.flatnonzero(wrong)[0])
            raise RowError(i, f"{what} {int(values[i])} is out of the game's range")
    ret = out["ret"]
    wrong = ~np.isfinite(ret) | (ret < -1.0) | (ret > 1.0)  # returns_of's range
    if wrong.any():
        i = int(np.flatnonzero(wrong)[0])
        raise RowError(i, f"return {float(ret[i])} is not a number from -1 to 1")


def _check_ranks(rank: np.ndarray, out: dict[str, np.ndarray]) -> None:
    """Refuse stored ranks (asked for in ``columns``) that are not a finite number from 1 to
    the player count, naming the first row."""
    wrong = ~np.isfinite(rank) | (rank < 1.0) | (rank > out["num_players"])
    if wrong.any():
        i = int(np.flatnonzero(wrong)[0])
        raise DatasetError(
            f"game {int(out['game_id'][i])} ply {int(out['ply'][i])}: rank {float(rank[i])} is "
            f"not a number from 1 to the player count; {ALTERED}"
        )


@lru_cache(maxsize=1)
def _decision_dataset_class() -> type:
    """Build `DecisionDataset` on first use: torch is an optional dependency (``[train]``)."""
    try:
        import torch
        from torch.utils.data import IterableDataset, get_worker_info
    except ImportError:
        raise ImportError(
            "DecisionDataset needs torch: pip install -e '.[train]' (in the checkout)"
        ) from None

    class DecisionDataset(IterableDataset):
        """Decision batches as torch tensors: ``obs``, ``mask``, ``action``, ``ret`` (and
        ``target``, ``has_target`` with policy targets), for imitation and value learning.

        Each ``DataLoader`` worker reads its own share of the row groups
        (``torch.utils.data.get_worker_info``), so no row is read twice; batches are already
        batched: use ``DataLoader(dataset, batch_size=None)``.

        Args:
            source: A dataset directory or `open_dataset`'s result.
            batch_size: Rows per batch.
            **filters: `iter_batches`' ``players``, ``agents``, ``seats``, ``outcome``,
                ``min_return``, ``policy_targets``, ``drop_last`` and ``game``.
        """

        def __init__(
            self,
            source: str | os.PathLike[str] | pds.Dataset,
            batch_size: int = 256,
            **filters: Any,
        ) -> None:
            allowed = {
                "players",
                "agents",
                "seats",
                "outcome",
                "min_return",
                "policy_targets",
                "drop_last",
                "game",
            }
            unknown = sorted(set(filters) - allowed)
            if unknown:
                raise TypeError(
                    f"unknown DecisionDataset arguments {unknown}; allowed: {sorted(allowed)}"
                )
            self.dataset, filters["game"] = _source(source, filters.get("game"))
            self.batch_size = batch_size
            self.filters = filters
            decision_filter(
                filters.get("players"),
                filters.get("agents"),
                filters.get("seats"),
                filters.get("outcome"),
                filters.get("min_return"),
            )  # refuse bad filters here, not in a worker

        def __iter__(self) -> Iterator[dict[str, Any]]:
            info = get_worker_info()
            part = (0, 1) if info is None else (info.id, info.num_workers)
            for batch in iter_batches(
                self.dataset,
                self.batch_size,
                part=part,
                **self.filters,
            ):
                item = {
                    "obs": torch.from_numpy(batch["obs"]),
                    "mask": torch.from_numpy(batch["mask"]),
                    "action": torch.from_numpy(batch["action"]),
                    "ret": torch.from_numpy(batch["ret"]),
                }
                if "target" in batch:
                    item["target"] = torch.from_numpy(batch["target"])
                    item["has_target"] = torch.from_numpy(batch["has_target"])
                yield item

    return DecisionDataset


def __getattr__(name: str) -> Any:
    if name == "DecisionDataset":
        return _decision_dataset_class()
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


__all__ = [
    "ALTERED",
    "BATCH_KEYS",
    "GAMES_FLOAT_COLUMNS",
    "OUTCOMES",
    "DecisionDataset",  # noqa: F822 (built on first access: torch is optional)
    "decision_filter",
    "dense_targets",
    "encode_observations",
    "iter_batches",
    "open_dataset",
    "read_games",
]
