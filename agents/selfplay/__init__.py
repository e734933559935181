"""Self-play datasets: the tournament harness's games, every decision kept (``caylus dataset``).

- `worker`: what a worker process runs: the tournament worker's ``play_jobs``
  (``agents.tournament.worker``) with a decision hook that keeps the state, legal mask and
  (optionally) the agent's policy target at every move;
- `generate`: the driver: the dataset's schedule (the tournament's, per player count), shards
  written in game id order, the resumable ledger and the manifest.

The format, the loader and ``verify`` live in ``caylus_env.datasets`` (no agents needed to read
a dataset); this package needs the agents and the harness, so it sits in their layer.
"""

from __future__ import annotations

from typing import Any

_GENERATE_NAMES = (
    "DatasetResult",
    "DatasetSpec",
    "generate_dataset",
    "parse_players",
    "prepare_dataset",
)


def __getattr__(name: str) -> Any:
    if name in _GENERATE_NAMES:
        from agents.selfplay import generate

        return getattr(generate, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


__all__ = list(_GENERATE_NAMES)
