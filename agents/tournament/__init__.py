"""Tournament harness: seat-balanced schedules, sandboxed games, parallel resumable runs.

The harness is written once for every game of ``caylus_env.core.registry``: a run names its
game, which is reached through its ``GameSpec`` (its engine's ``Game``), the agent registry
(``agents.registry.make_agent(spec, game)``) and the one record (``caylus_env.core.record``).

- `schedule`: which agents sit where, on which seed, grouped into blocks (pure and deterministic);
- `arena`: the game loop: one game between agents with forfeits for crashes, illegal actions
  and timeouts, returning a replayable `GameRecord`;
- `moveclock`: what times a move: numba's compile time (left out), the ``SIGALRM`` deadline,
  and the shared-memory move slots that the driver's watchdog reads;
- `worker`: what a worker process runs: its set-up (threads, plugins), the compile warm-up,
  chunks of games, and the record of a game whose worker the watchdog killed;
- `specs`: the arguments of a run, validated once into a `PreparedRun`;
- `rundir`: ``run.json`` and the crash-safe ``games.jsonl`` ledger (``caylus_env.core.ledger``);
- `backends`: local processes, Ray or any executor; `chunks`: work cut into chunks;
  `reports`: progress bar and the reports of ``agents.stats``;
- `runner`: tournaments from those pieces (resume, extension, forfeited games replayed);
- `duel`: two agents in seat-swapped pairs until an SPRT decides, on the same pieces;
- `testing`: a weak baseline and deliberately faulty agents for checking the harness.

Every module is imported on first use only: workers need just the schedule, the arena and the
worker module, and should not pay for the statistics and plotting stack at start-up, and the
command line reads a tournament's settings (``specs``) without loading the arena and its
compiler.
"""

from __future__ import annotations

import importlib
from typing import Any

_ARENA_NAMES = ("DEFAULT_MOVE_TIME_LIMIT", "TIMING_FIELDS", "forfeit_ranks", "play_game")
_SCHEDULE_NAMES = ("GameJob", "Schedule", "ScheduleError", "build_schedule")
_DUEL_NAMES = ("DuelResult", "DuelSpec", "prepare_duel", "run_duel")
_RUNNER_NAMES = (
    "PreparedRun",
    "RunDir",
    "RunMismatchError",
    "TournamentError",
    "TournamentResult",
    "TournamentSpec",
    "prepare_tournament",
    "read_records",
    "run_tournament",
)


#: Which module of the package defines each name the package exports.
_HOME = {
    **dict.fromkeys(_ARENA_NAMES, "arena"),
    **dict.fromkeys(_SCHEDULE_NAMES, "schedule"),
    **dict.fromkeys(_RUNNER_NAMES, "runner"),
    **dict.fromkeys(_DUEL_NAMES, "duel"),
}


def __getattr__(name: str) -> Any:
    if name in _HOME:
        return getattr(importlib.import_module(f"{__name__}.{_HOME[name]}"), name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


__all__ = [
    "DEFAULT_MOVE_TIME_LIMIT",
    "TIMING_FIELDS",
    "GameJob",
    "Schedule",
    "ScheduleError",
    "build_schedule",
    "forfeit_ranks",
    "play_game",
    *_DUEL_NAMES,
    *_RUNNER_NAMES,
]
