"""Throughput of a game's engine, random legal play on one core, for each player count and
each of the game's option sets.

Usage: ``python bench/engine_bench.py [--game G] [--repeats 3] [--players 2,3,4,5]
[--option-set NAME ...] [--quick]``.

Figures (each the median of ``repeats`` runs after one warm-up run), per player count and
option set (``GameSpec.option_sets``, all of them by default):

- engine, one Python call per decision: the game's ``kernels.step`` then a random legal id
  from the returned list (``caylus_env.core.benchmark.engine_call_rate``, the loop of
  ``caylus bench``);
- engine, whole random games inside compiled code (``engine_compiled_rate``);
- decisions per game (mean and max over the compiled games);

and once: the state size and the time of a ``Game.clone``.

Run it alone on the machine: a second job on the same cores skews every figure.
"""

from __future__ import annotations

import argparse

from caylus_env.core import benchmark as B
from caylus_env.core.registry import DEFAULT_GAME, GAME_NAMES, game_spec


def main(game: str, players: list[int], option_sets: list[str], repeats: int, quick: bool) -> None:
    spec = game_spec(game)
    B.check_arguments(game, repeats, players)
    unknown = [name for name in option_sets if name not in spec.option_sets]
    if unknown:
        raise ValueError(f"option sets {unknown}; allowed: {', '.join(spec.option_sets)}")
    decisions = 20_000 if quick else 300_000
    games = 200 if quick else 2_000
    layout = spec.engine().layout
    size = layout.STATE_SIZE * layout.STATE_DTYPE().itemsize
    print(f"{spec.title}: state {layout.STATE_SIZE} values = {size} bytes")
    copy_s, clone_s = B.clone_seconds(game, repeats, max(players))
    print(f"state copy {copy_s * 1e6:.2f} us, Game.clone {clone_s * 1e6:.2f} us")
    head = f"{'players':>7} {'options':<24} {'step calls/s':>14} {'compiled/s':>14}"
    print(f"{head} {'decisions/game':>15} {'max':>6}")
    for n in players:
        for name in option_sets:
            options = spec.option_sets[name]
            calls = B.engine_call_rate(game, n, decisions, repeats, options)
            rate = B.engine_compiled_rate(game, n, games, repeats, options)
            lengths = B.game_lengths(game, n, games, options)
            print(
                f"{n:>7} {name:<24} {calls:>14,.0f} {rate:>14,.0f} {lengths['mean']:>15.1f} "
                f"{lengths['max']:>6}"
            )


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--game", choices=GAME_NAMES, default=DEFAULT_GAME)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--players", default=None, help="comma-separated (default: all)")
    parser.add_argument(
        "--option-set", action="append", default=None, help="repeatable (default: all)"
    )
    parser.add_argument("--quick", action="store_true", help="shorter runs (smoke check)")
    args = parser.parse_args()
    spec = game_spec(args.game)
    try:
        main(
            args.game,
            list(spec.player_counts)
            if args.players is None
            else [int(x) for x in args.players.split(",")],
            list(spec.option_sets) if args.option_set is None else args.option_set,
            args.repeats,
            args.quick,
        )
    except ValueError as err:
        parser.error(str(err))
