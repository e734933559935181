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
from caylus_env.datasets.games import DatasetGame, dataset_game
from caylus_env.datasets.records import pack_legal_ids, packed_decision_rows, rows_from_record
from caylus_env.engine import Game
from caylus_env.engine.record import GameRecord

_FIRST_DECISIONS = 512
"""Rows of a game's first state buffer (a game has a few hundred decisions: about 415 in
Caylus, 270 in 3-player Puerto Rico); it doubles when a longer game fills it."""


class _Collector:
    """The decision hook of one game (``arena.DecisionHook``).

    It runs on every decision, so it keeps no Python object per decision: the state is copied
    into a preallocated (doubling) ``(rows, state_size)`` buffer, and the legal mask is kept
    as the legal action ids (``Game.legal_actions()``, appended to one flat list) and their
    count, packed into masks by one vectorized call at the end of the game
    (``records.pack_legal_ids``). The states, packed masks, seats and counts are what the
    driver receives (``GameRows``).
    """

    def __init__(self, policy: bool, spec: DatasetGame) -> None:
        self.spec = spec
        self.states = np.empty((_FIRST_DECISIONS, spec.state_size), spec.layout.STATE_DTYPE)
        self.legal: list[int] = []  # every decision's legal ids, concatenated
        self.counts: list[int] = []  # legal ids per decision
        self.seats: list[int] = []
        self.policy: list[tuple[tuple[int, ...], tuple[float, ...]]] | None = [] if policy else None

    def __call__(self, game: Game, seat: int, action: int, agent: Agent) -> None:
        i = len(self.seats)
        if i == len(self.states):
            grown = np.empty((2 * i, self.spec.state_size), self.states.dtype)
            grown[:i] = self.states
            self.states = grown
        self.states[i] = game.state
        legal = game.legal_actions()
        self.legal += legal
        self.counts.append(len(legal))
        self.seats.append(seat)
        if self.policy is not None:
            self.policy.append(policy_target(agent, action))

    def rows(self, record: GameRecord) -> GameRows:  # or a Puerto Rico record
        d = len(record.actions)  # a move whose apply failed was hooked but not played
        counts = np.asarray(self.counts[:d], np.int64)
        ids = np.asarray(self.legal[: int(counts.sum())], np.int64)
        legal = pack_legal_ids(ids, counts, self.spec.num_actions)
        policy = None if self.policy is None else self.policy[:d]
        return packed_decision_rows(record, self.states[:d], legal, counts, self.seats[:d], policy)


def play_dataset_chunk(
    jobs: Sequence[Mapping[str, Any]], settings: Mapping[str, Any], token: int = 0
) -> list[tuple[GameRows, dict[str, Any]]]:
    """Play a chunk of dataset games: ``(rows, result)`` per game, in the jobs' order.

    ``settings`` are the tournament's worker settings plus ``policy_targets`` (bool).
    """
    policy = bool(settings.get("policy_targets", False))
    spec = dataset_game(game_of(settings))
    collectors: dict[int, _Collector] = {}

    def hook_for(job: Mapping[str, Any]) -> _Collector:
        collectors[int(job["game_id"])] = collector = _Collector(policy, spec)
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
