"""Throughput of a game's PettingZoo env (``raw_env``, or ``env()`` with ``--wrapped``) on one
core, with every other registered game's env timed in the same loop as anchors.

Usage: ``python bench/env_bench.py [--game G] [--repeats 5] [--players 3]
[--decisions 100000] [--option-set NAME] [--wrapped] [--no-anchor]``.

The figure is decisions per second of the standard AEC loop over whole random games, the loop
``caylus bench`` times (``caylus_env.core.benchmark.aec_run``): ``last()`` (the observation and
the action mask of the agent to act), a uniform random legal id from the mask, ``step``. The figure is the median of ``repeats`` runs after one warm-up run, against the
target of ``caylus_env.core.benchmark.TARGETS`` (``raw_env``, or ``env`` with ``--wrapped``).

As anchors, PettingZoo's connect four (its ``raw_env``, or ``env()`` with ``--wrapped``: the
same layer, with the ``[bench]`` extra's pygame) and the other registered games' envs with the
same player count (where their rules allow it) are timed in the same loop, their runs
alternating with this game's, so that the ratios stay meaningful on a loaded machine. Run it alone on the machine: a second job on the
same cores skews every figure.
"""

from __future__ import annotations

import argparse
import statistics
from collections.abc import Callable
from typing import Any

from caylus_env.core.benchmark import TARGETS, aec_run, env_maker
from caylus_env.core.registry import DEFAULT_GAME, GAME_NAMES, game_spec

#: The anchor key of PettingZoo's connect four among the timed envs.
CONNECT_FOUR = "pettingzoo_connect_four"


def _connect_four(wrapped: bool) -> Callable[[], Any] | None:
    """PettingZoo connect four's maker for the same layer (``env`` or ``raw_env``), or None
    without pygame (a missing anchor is left out, not guessed)."""
    try:
        from pettingzoo.classic import connect_four_v3
    except ImportError:
        print("anchor pettingzoo connect_four_v3 missing: pip install 'caylus-env[bench]'")
        return None
    return connect_four_v3.env if wrapped else connect_four_v3.raw_env


def alternating_rates(
    makers: dict[str, Callable[[], Any]], decisions: int, repeats: int
) -> dict[str, tuple[float, int]]:
    """Median decisions/s of each env and the games one run finishes; the envs' runs
    alternate, after one warm-up run each (compiles or loads the kernels)."""
    envs = {name: make() for name, make in makers.items()}
    rates: dict[str, list[float]] = {name: [] for name in envs}
    games: dict[str, int] = {}
    for env in envs.values():
        aec_run(env, decisions)
    for _ in range(repeats):
        for name, env in envs.items():
            count, seconds, games[name] = aec_run(env, decisions)
            rates[name].append(count / seconds)
    return {name: (statistics.median(r), games[name]) for name, r in rates.items()}


def main(
    game: str,
    players: int,
    decisions: int,
    repeats: int,
    option_set: str,
    wrapped: bool,
    anchor: bool,
) -> float:
    """Print the figure (and the anchors') and return this game's decisions/s."""
    spec = game_spec(game)
    if option_set not in spec.option_sets:
        raise ValueError(f"option set {option_set!r}; allowed: {', '.join(spec.option_sets)}")
    if players not in spec.player_counts:
        raise ValueError(f"players {players}; allowed: {spec.min_players}-{spec.max_players}")
    name = "env()" if wrapped else "raw_env"
    makers = {game: env_maker(game, players, wrapped, spec.option_sets[option_set])}
    if anchor:
        connect_four = _connect_four(wrapped)
        if connect_four is not None:
            makers[CONNECT_FOUR] = connect_four
        for other in GAME_NAMES:
            if other != game and players in game_spec(other).player_counts:
                makers[other] = env_maker(other, players, wrapped)
    results = alternating_rates(makers, decisions, repeats)
    rate, games = results[game]
    target = TARGETS["env" if wrapped else "raw_env"]
    verdict = "meets" if rate >= target else "misses"
    print(
        f"{spec.env_name}.{name}, {players} players, {option_set}: {rate:,.0f} decisions/s "
        f"(median of {repeats} runs of {decisions:,} decisions, {games} whole games each); "
        f"{verdict} the {name} target of {target:,}"
    )
    for other, (other_rate, _) in results.items():
        if other != game:
            title = (
                "pettingzoo connect_four_v3"
                if other == CONNECT_FOUR
                else (game_spec(other).env_name)
            )
            seats = 2 if other == CONNECT_FOUR else players
            print(
                f"anchor {title}.{name}, {seats} players, same loop, "
                f"alternating runs: {other_rate:,.0f} decisions/s; ratio {rate / other_rate:.2f}"
            )
    return rate


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--game", choices=GAME_NAMES, default=DEFAULT_GAME)
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--players", type=int, default=3)
    parser.add_argument("--decisions", type=int, default=100_000)
    parser.add_argument("--option-set", default="rules")
    parser.add_argument("--wrapped", action="store_true", help="time env() instead of raw_env")
    parser.add_argument("--no-anchor", action="store_true", help="skip the other games")
    args = parser.parse_args()
    try:
        main(
            args.game,
            args.players,
            args.decisions,
            args.repeats,
            args.option_set,
            args.wrapped,
            not args.no_anchor,
        )
    except ValueError as err:
        parser.error(str(err))
