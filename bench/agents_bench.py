"""Cost and strength of a game's agents on one core.

Usage: ``python bench/agents_bench.py [--game puerto_rico] [--repeats 3] [--players 2,4]
[--sims 25,100,400] [--timing-games 4] [--mcts-timing-games 1] [--games 400]
[--win-players 2,3,4,5] [--sets rules,expansion] [--mcts-games 0] [--duel A,B]
[--duel-games 400] [--quick] [--json out.json]``.

Everything comes from the game's registration (``caylus_env.core.registry``): its bots
(``bots.BOTS``: the ones that take no argument, and ``mcts:SIMS`` where the game has an
``mcts`` bot), its player counts and its named option sets (``GameSpec.option_sets``).

Figures:

- cost: each agent (``random``, the bots, ``mcts:SIMS`` for each budget) in one seat of
  ``--players``-player games, ``random`` in the others, its seat rotated; ms per move (its own
  ``act`` calls) and ms per game (the time of its moves in one game). Each figure is the median
  of ``--repeats`` runs of ``--timing-games`` games (mcts: ``--mcts-timing-games``) after a
  warm-up game (numba compiles once).
- strength: each bot against ``random`` (bot in one seat, ``random`` in the others, seats
  rotated, ``--games`` games per cell) for every player count of ``--win-players`` and every
  option set of ``--sets`` (default: all of the game's). A "win" is rank 1 of ``Game.ranks``
  (score, then the rules' tie-break); a first place shared by k seats counts 1/k (half for
  two). Intervals are Wilson 95% (``agents.stats.wilson_interval``). ``--mcts-games N`` adds
  ``mcts:SIMS`` (the smallest budget of ``--sims``) against ``random`` over N games per player
  count; ``--duel-games`` 2-player games of the two specs of ``--duel`` (default: the game's
  first two bots), seats alternating.

The games are those of ``agents.strength`` (seeded: game ``i`` has seed ``FIRST_SEED + i``), the
same as the strength tests', so the win rates are exactly reproducible (Puerto Rico's figures
of ``docs/games/puerto_rico_agents.md``: ``--game puerto_rico --sets rules,expansion``); the
timings are not. Run it alone on the machine: a second job on the same cores skews every time.
"""

from __future__ import annotations

import argparse
import json
import statistics
from collections.abc import Mapping
from typing import Any

from agents.strength import Series, play_seat, series
from caylus_env.core.registry import DEFAULT_GAME, GAME_NAMES, game_spec

MCTS = "mcts"
"""The head of the bots whose cost grows with a simulation budget (``mcts:SIMS``)."""


def cost(game: str, spec: str, num_players: int, games: int, repeats: int) -> dict[str, float]:
    """Median ms per move and per game of ``spec`` over ``repeats`` runs of ``games``."""
    play_seat(game, spec, num_players, 0)  # warm-up: compiles
    per_move, per_game = [], []
    for _ in range(repeats):
        moves, seconds = 0, 0.0
        for i in range(games):
            _, m, s = play_seat(game, spec, num_players, i)
            moves, seconds = moves + m, seconds + s
        per_move.append(1000.0 * seconds / max(1, moves))
        per_game.append(1000.0 * seconds / games)
    return {"ms_per_move": statistics.median(per_move), "ms_per_game": statistics.median(per_game)}


def _figures(r: Series) -> dict[str, float]:
    return {"games": r.games, "wins": r.wins, "rate": r.rate, "low": r.low, "high": r.high}


def _ints(text: str, name: str, low: int, high: int) -> list[int]:
    try:
        values = [int(x) for x in text.split(",")]
    except ValueError:
        values = []
    if not values or any(not low <= v <= high for v in values):
        raise SystemExit(f"--{name} {text!r} is not allowed; allowed: integers {low} to {high}")
    return values


def _sets(text: str | None, option_sets: Mapping[str, Mapping[str, Any]]) -> list[str]:
    names = list(option_sets) if text is None else [s.strip() for s in text.split(",")]
    unknown = [s for s in names if s not in option_sets]
    if not names or unknown:
        raise SystemExit(
            f"--sets {text!r} is not allowed; allowed: names of {', '.join(option_sets)}"
        )
    return names


def _print_table(title: str, header: list[str], rows: list[list[str]]) -> None:
    print(f"\n{title}\n")
    print("| " + " | ".join(header) + " |")
    print("|" + "|".join("---" for _ in header) + "|")
    for row in rows:
        print("| " + " | ".join(row) + " |")


def main(argv: list[str] | None = None) -> dict[str, object]:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--game", default=DEFAULT_GAME, help=f"one of {', '.join(GAME_NAMES)}")
    parser.add_argument("--repeats", type=int, default=3, help="timing runs (median)")
    parser.add_argument("--players", default="2,4", help="player counts of the timings")
    parser.add_argument("--sims", default="25,100,400", help="mcts budgets to time")
    parser.add_argument("--timing-games", type=int, default=4, help="games per timing run")
    parser.add_argument(
        "--mcts-timing-games", type=int, default=1, help="games per timing run of mcts"
    )
    parser.add_argument("--games", type=int, default=400, help="games per win-rate cell")
    parser.add_argument("--win-players", default="2,3,4,5", help="player counts of win rates")
    parser.add_argument("--sets", default=None, help="option sets of the win rates (default all)")
    parser.add_argument("--mcts-games", type=int, default=0, help="mcts vs random games")
    parser.add_argument("--duel", default=None, help="two specs for the duel (default: 2 bots)")
    parser.add_argument("--duel-games", type=int, default=400, help="games of the duel")
    parser.add_argument("--quick", action="store_true", help="short runs (a smoke check)")
    parser.add_argument("--json", default=None, help="also write the figures to this file")
    args = parser.parse_args(argv)
    try:
        info = game_spec(args.game)
    except ValueError as err:
        raise SystemExit(f"--game: {err}") from None
    game = info.name
    low, high = info.min_players, info.max_players
    players = _ints(args.players, "players", low, high)
    win_players = _ints(args.win_players, "win-players", low, high)
    sims = _ints(args.sims, "sims", 1, 100_000)
    sets = _sets(args.sets, info.option_sets)
    for name in ("repeats", "timing_games", "mcts_timing_games", "games"):
        if getattr(args, name) < 1:
            raise SystemExit(f"--{name.replace('_', '-')} must be at least 1")
    if args.quick:
        args.repeats, args.timing_games, args.mcts_timing_games, args.games = 1, 1, 1, 20
        args.duel_games = 20
        sims = sims[:1]
    all_bots = info.module("bots").BOTS
    duelists = args.duel.split(",") if args.duel is not None else []
    if args.duel is not None and len(duelists) != 2:
        raise SystemExit(f"--duel {args.duel!r} is not allowed; allowed: two specs A,B")
    bots = [head for head, bot in all_bots.items() if not bot.needs_arg]
    duelists = duelists or bots[:2]
    searched = [f"{MCTS}:{n}" for n in sims] if MCTS in all_bots else []
    timed = ["random", *bots, *searched]
    figures: dict[str, Any] = {"game": game, "cost": {}, "strength": {}}

    rows = []
    for spec in timed:
        for n in players:
            games = args.mcts_timing_games if spec.startswith(MCTS) else args.timing_games
            c = cost(game, spec, n, games, args.repeats)
            figures["cost"][f"{spec}/{n}p"] = c
            rows.append([spec, str(n), f"{c['ms_per_move']:.4f}", f"{c['ms_per_game']:.1f}"])
            print(f"timed {spec} {n}p", flush=True)
    _print_table(
        f"{info.title}: cost (median of {args.repeats} runs of {args.timing_games} games, mcts "
        f"{args.mcts_timing_games}; the agent in one seat, random in the others)",
        ["agent", "players", "ms per move", "ms per game (its moves)"],
        rows,
    )

    rows = []
    contenders: list[tuple[str, str, int]] = [
        (bot, option_set, args.games) for bot in bots for option_set in sets
    ]
    if args.mcts_games > 0 and searched:
        contenders.append((searched[0], sets[0], args.mcts_games))
    for spec, option_set, games in contenders:
        row = [spec, option_set]
        for n in win_players:
            r = series(game, spec, n, games, info.option_sets[option_set])
            figures["strength"][f"{spec}/{option_set}/{n}p"] = _figures(r)
            row.append(str(r))
        rows.append(row)
    _print_table(
        f"{info.title}: win rate against random ({args.games} games per cell, mcts "
        f"{args.mcts_games}; a shared first place counts 1/k; Wilson 95%)",
        ["agent", "option set", *(f"{n} players" for n in win_players)],
        rows,
    )
    if args.duel_games > 0 and 2 in info.player_counts and len(duelists) == 2:
        first, second = duelists
        r = series(game, first, 2, args.duel_games, opponent=second)
        figures["duel"] = {f"{first}/{second}/2p": _figures(r)}
        print(
            f"\n{first} against {second}, 2 players, {args.duel_games} games, seats "
            f"alternating: {first} wins {r}"
        )
    if args.json:
        with open(args.json, "w") as f:
            json.dump(figures, f, indent=2)
    return figures


if __name__ == "__main__":
    main()
