"""Seeded strength measurements of any game's agents: one agent against a field.

The win-rate figures of the agent docs (``docs/games/puerto_rico_agents.md`` for Puerto Rico)
come from here, through ``bench/agents_bench.py --game NAME``, and the strength tests of each
game's agents play the same games, so a figure and its test cannot drift apart.

A game ``i`` of a series of game ``game`` (a name of ``caylus_env.core.registry``) puts the
measured agent in seat ``i % players`` (seats rotated) and the opponent spec in every other
seat; its seed is ``FIRST_SEED + i`` and seat ``q`` is reset with ``seed * SEAT_SEED_STRIDE +
q``, so a series is exactly reproducible. ``options`` are the game's options (its
``GameConfig``; one of its ``GameSpec.option_sets``, say). A "win" is rank 1 of
``Game.ranks`` (score, then the rules' tie-break); a first place shared by k seats counts 1/k
(half for two), so a series' win share lies in [0, games]. Intervals are Wilson 95%
(``agents.stats.wilson_interval``).
"""

from __future__ import annotations

import time
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from agents.registry import make_agent
from agents.stats.ratings import wilson_interval
from caylus_env.core.game import Game
from caylus_env.core.registry import game_spec

FIRST_SEED = 5000
SEAT_SEED_STRIDE = 31


@dataclass(frozen=True)
class Series:
    """The result of a series: games, win share (ties split), and its Wilson interval."""

    games: int
    wins: float
    low: float
    high: float

    @property
    def rate(self) -> float:
        return self.wins / self.games

    def __str__(self) -> str:
        return f"{100 * self.rate:.1f}% [{100 * self.low:.1f}, {100 * self.high:.1f}]"


def win_share(game: Game, seat: int) -> float:
    """1 for a sole first place, 1/k for a first place shared by k seats, else 0."""
    ranks = game.ranks()
    best = ranks.min()
    return 1.0 / int((ranks == best).sum()) if ranks[seat] == best else 0.0


def play_seat(
    game: str,
    spec: str,
    num_players: int,
    i: int,
    options: Mapping[str, Any] | None = None,
    opponent: str = "random",
) -> tuple[Game, int, float]:
    """Game ``i`` of a series of ``game``: ``spec`` in seat ``i % num_players``, ``opponent``
    elsewhere, with the game's ``options``. Returns the finished game, the agent's moves and the
    seconds its ``act`` calls took (for the costs of the bench).

    Raises:
        ValueError: for a player count the game does not allow, an unknown option or agent,
            naming what is allowed.
    """
    info = game_spec(game)
    if num_players not in info.player_counts:
        raise ValueError(
            f"num_players={num_players} is not allowed; allowed: {info.min_players} to "
            f"{info.max_players}"
        )
    config = info.config(num_players, **dict(options or {}))
    seat = i % num_players
    agents = [make_agent(opponent, info.name) for _ in range(num_players)]
    agents[seat] = make_agent(spec, info.name)
    seed = FIRST_SEED + i
    state = info.engine().Game(config, seed=seed)
    for q, agent in enumerate(agents):
        agent.reset(seed * SEAT_SEED_STRIDE + q)
    moves, seconds = 0, 0.0
    clock = time.perf_counter
    while not state.is_over():
        p = state.current_player()
        if p == seat:
            t0 = clock()
            action = agents[p].act(state)
            seconds += clock() - t0
            moves += 1
        else:
            action = agents[p].act(state)
        state.apply(action)
    return state, moves, seconds


def series(
    game: str,
    spec: str,
    num_players: int,
    games: int,
    options: Mapping[str, Any] | None = None,
    opponent: str = "random",
) -> Series:
    """Win share of ``spec`` against ``opponent`` over games ``0 .. games-1`` of ``game``.

    Raises:
        ValueError: for a bad argument (see `play_seat`; ``games`` below 1).
        RuntimeError: when a game was truncated by its decision cap: its rank would mean
            nothing.
    """
    if games < 1:
        raise ValueError(f"games={games} is not allowed; allowed: 1 or more")
    wins = 0.0
    for i in range(games):
        state, _, _ = play_seat(game, spec, num_players, i, options, opponent)
        if not state.is_terminal():
            raise RuntimeError(f"{spec} against {opponent}: game {i} was truncated")
        wins += win_share(state, i % num_players)
    low, high = wilson_interval(wins, games)
    return Series(games, wins, low, high)


__all__ = ["FIRST_SEED", "SEAT_SEED_STRIDE", "Series", "play_seat", "series", "win_share"]
