"""Seeded strength measurements of Puerto Rico agents: one agent against a field.

The win-rate figures of ``docs/puerto_rico_agents.md`` come from here, through
``bench/pr_agents_bench.py``, and the strength tests of
``tests/puerto_rico/test_pr_agents.py`` play the same games, so a figure and its test
cannot drift apart.

A game ``i`` of a series puts the measured agent in seat ``i % players`` (seats rotated)
and the opponent spec in every other seat; its seed is ``FIRST_SEED + i`` and seat ``q``
is reset with ``seed * SEAT_SEED_STRIDE + q``, so a series is exactly reproducible. A
"win" is rank 1 of ``Game.ranks`` (score, then doubloons plus barrels,
docs/rules/puerto_rico.md 5.3); a first place shared by k seats counts 1/k (half for
two), so a series' win share lies in [0, games]. Intervals are Wilson 95%
(``agents.stats.wilson_interval``).
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from typing import Any

from agents.puerto_rico.registry import make_agent

from agents.stats.ratings import wilson_interval
from caylus_env.puerto_rico.engine import Game, GameConfig
from caylus_env.puerto_rico.engine.constants import MAX_PLAYERS, MIN_PLAYERS

FIRST_SEED = 5000
SEAT_SEED_STRIDE = 31
#: Named game settings: the base game, and the expansion with the players' draft (rules 7.1).
SETTINGS: dict[str, dict[str, Any]] = {
    "base": {},
    "expansion": {"expansion": True, "draft": "players"},
}


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


def config(num_players: int, setting: str = "base") -> GameConfig:
    """The options of a setting of ``SETTINGS``.

    Raises:
        ValueError: naming an unknown setting and the allowed ones.
    """
    if setting not in SETTINGS:
        raise ValueError(f"setting {setting!r} is not allowed; allowed: {', '.join(SETTINGS)}")
    return GameConfig(num_players=num_players, **SETTINGS[setting])


def win_share(game: Game, seat: int) -> float:
    """1 for a sole first place, 1/k for a first place shared by k seats, else 0."""
    ranks = game.ranks()
    best = ranks.min()
    return 1.0 / int((ranks == best).sum()) if ranks[seat] == best else 0.0


def play_seat(
    spec: str, num_players: int, i: int, setting: str = "base", opponent: str = "random"
) -> tuple[Game, int, float]:
    """Game ``i`` of a series: ``spec`` in seat ``i % num_players``, ``opponent``
    elsewhere. Returns the finished game, the agent's moves and the seconds its ``act``
    calls took (for the costs of the bench)."""
    if not MIN_PLAYERS <= num_players <= MAX_PLAYERS:
        raise ValueError(
            f"num_players={num_players} is not allowed; allowed: {MIN_PLAYERS} to {MAX_PLAYERS}"
        )
    seat = i % num_players
    agents = [make_agent(opponent) for _ in range(num_players)]
    agents[seat] = make_agent(spec)
    seed = FIRST_SEED + i
    game = Game(config(num_players, setting), seed=seed)
    for q, agent in enumerate(agents):
        agent.reset(seed * SEAT_SEED_STRIDE + q)
    moves, seconds = 0, 0.0
    clock = time.perf_counter
    while not (game.is_terminal() or game.is_truncated()):
        p = game.current_player()
        if p == seat:
            t0 = clock()
            action = agents[p].act(game)
            seconds += clock() - t0
            moves += 1
        else:
            action = agents[p].act(game)
        game.apply(action)
    return game, moves, seconds


def series(
    spec: str, num_players: int, games: int, setting: str = "base", opponent: str = "random"
) -> Series:
    """Win share of ``spec`` against ``opponent`` over games ``0 .. games-1``.

    Raises:
        RuntimeError: when a game was truncated (rules 6.9): its rank would mean nothing.
    """
    if games < 1:
        raise ValueError(f"games={games} is not allowed; allowed: 1 or more")
    wins = 0.0
    for i in range(games):
        game, _, _ = play_seat(spec, num_players, i, setting, opponent)
        if not game.is_terminal():
            raise RuntimeError(f"{spec} against {opponent}: game {i} was truncated")
        wins += win_share(game, i % num_players)
    low, high = wilson_interval(wins, games)
    return Series(games, wins, low, high)
