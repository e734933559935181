"""What a dataset worker runs: the tournament's games, with every decision recorded.

`play_dataset_chunk` is the backends' chunk task (``backends.open_backend(task=...)``): it
plays its games with ``arena.play_jobs`` (so forfeits, the move clock, the watchdog's move
slots and the warm-up are the tournament's) and a `_Collector` hooked on every accepted move
keeps the state the agent was shown, the legal mask, the seat and, with policy targets, the
agent's distribution (``agents.base.policy_target``). It returns, per game, the dataset rows
(``caylus_env.datasets.format.GameRows``) and the record's ``result()`` (which the chunk sizing
reads). Hooks cost no agent time: they run outside the move clock.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

from agents.base import Agent, policy_target
from agents.tournament.arena import play_jobs
from agents.tournament.games import game_of, tournament_game
from caylus_env.datasets.format import GameRows
from caylus_env.datasets.records import decision_rows, rows_from_record
from caylus_env.engine import Game
from caylus_env.engine.record import GameRecord


class _Collector:
    """The decision hook of one game (``arena.DecisionHook``)."""

    def __init__(self, policy: bool) -> None:
        self.states: list[np.ndarray] = []
        self.masks: list[np.ndarray] = []
        self.seats: list[int] = []
        self.policy: list[tuple[tuple[int, ...], tuple[float, ...]]] | None = [] if policy else None

    def __call__(self, game: Game, seat: int, action: int, agent: Agent) -> None:
        self.states.append(game.state.copy())
        self.masks.append(game.legal_mask())
        self.seats.append(seat)
        if self.policy is not None:
            self.policy.append(policy_target(agent, action))

    def rows(self, record: GameRecord) -> GameRows:  # or a Puerto Rico record
        d = len(record.actions)  # a move whose apply failed was hooked but not played
        if d == 0:  # a forfeit before the first move (shaped by the record's game)
            return decision_rows(record, [], [], [], [])
        policy = None if self.policy is None else self.policy[:d]
        return decision_rows(
            record, np.stack(self.states[:d]), np.stack(self.masks[:d]), self.seats[:d], policy
        )


def play_dataset_chunk(
    jobs: Sequence[Mapping[str, Any]], settings: Mapping[str, Any], token: int = 0
) -> list[tuple[GameRows, dict[str, Any]]]:
    """Play a chunk of dataset games: ``(rows, result)`` per game, in the jobs' order.

    ``settings`` are the tournament's worker settings plus ``policy_targets`` (bool).
    """
    policy = bool(settings.get("policy_targets", False))
    collectors: dict[int, _Collector] = {}

    def hook_for(job: Mapping[str, Any]) -> _Collector:
        collectors[int(job["game_id"])] = collector = _Collector(policy)
        return collector

    records = play_jobs(jobs, settings, token, hook_for)
    adapter = tournament_game(game_of(settings))
    return [
        (collectors[int(adapter.game_id(r) or 0)].rows(r), adapter.result_of(r)) for r in records
    ]


def rows_item(record: GameRecord) -> tuple[GameRows, dict[str, Any]]:
    """The rows of a game the watchdog ended (its worker, and the agents' policy targets,
    died with it): replayed from the record (``backends.open_backend(item=...)``)."""
    return rows_from_record(record), tournament_game(record.game).result_of(record)


__all__ = ["play_dataset_chunk", "rows_item"]
