"""Self-play datasets: read, verify, summarise and export what ``caylus dataset generate`` writes.

The format (``format``, ``docs/datasets.md``) is plain Parquet that pyarrow, pandas, polars,
DuckDB and Hugging Face ``datasets`` open directly; this package adds what those do not know:
observations encoded from the stored states by the environment's own encoder
(`iter_batches`, `DecisionDataset`), the replay check (`verify_dataset`), the summary
(`dataset_stats`), one game's decisions (`inspect_game`) and the export of the decisions as
the environment's tensors in plain Parquet (`prepare_export`, `export_dataset`). Every reader
takes ``game=`` (a name of ``caylus_env.core.registry``, ``DEFAULT_GAME`` when left out); what
differs between games (state and mask widths, decision kinds, the replay) comes from the
game's ``GameSpec`` (``format``). Generating a dataset needs the agents and lives above this layer
(``agents.selfplay``). Submodules are imported on first use; torch only by `DecisionDataset`.
"""

from __future__ import annotations

import importlib
from typing import Any

_NAMES = {
    "open_dataset": "loader",
    "iter_batches": "loader",
    "read_games": "loader",
    "DecisionDataset": "loader",
    "BATCH_KEYS": "loader",
    "verify_dataset": "verify",
    "VerifyReport": "verify",
    "dataset_stats": "stats",
    "inspect_game": "stats",
    "prepare_export": "export",
    "export_dataset": "export",
    "ExportError": "export",
    "read_manifest": "format",
    "DatasetError": "format",
    "DATASET_FORMAT": "format",
}


def __getattr__(name: str) -> Any:
    module = _NAMES.get(name)
    if module is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    return getattr(importlib.import_module(f"caylus_env.datasets.{module}"), name)


def __dir__() -> list[str]:
    return sorted([*globals(), *_NAMES])


__all__ = sorted(_NAMES)
