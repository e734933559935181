"""Cost and strength of the Puerto Rico agents on one core.

Usage: ``python bench/pr_agents_bench.py [--repeats 3] [--players 2,4] [--sims 25,100,400]
[--timing-games 4] [--mcts-timing-games 1] [--games 400] [--win-players 2,3,4,5]
[--mcts-games 0] [--duel shipper,builder] [--duel-games 400] [--quick] [--json out.json]``.

Figures:

- cost: each agent (``random``, the scripted bots, ``mcts:SIMS`` for each budget) in one
  seat of ``--players``-player games, ``random`` in the others, its seat rotated; ms per
  move (its own ``act`` calls) and ms per game (the time of its moves in one game). Each
  figure is the median of ``--repeats`` runs of ``--timing-games`` games (mcts:
  ``--mcts-timing-games``) after a warm-up game (numba compiles once).
- strength: each scripted bot against ``random`` (bot in one seat, ``random`` in the
  others, seats rotated, ``--games`` games per setting) for every player count of
  ``--win-players``, without and with the expansion (draft by the players, rules 7.1).
  A "win" is rank 1 of ``Game.ranks`` (score, then doubloons plus barrels, rules 5.3); a
  first place shared by k seats counts 1/k (half for two). Intervals are Wilson 95%
  (``agents.stats.wilson_interval``). ``--mcts-games N`` adds ``mcts:SIMS`` (the smallest
  budget of ``--sims``) against ``random`` over N games per player count;
  ``--duel-games`` 2-player games of the two specs of ``--duel`` (default ``shipper``
  against ``builder``), seats alternating.

The games are those of ``agents.puerto_rico.strength`` (seeded: game ``i`` has seed
``FIRST_SEED + i``), the same as the strength tests', so the win rates are exactly
reproducible; the timings are not. Run it alone on the machine: a second job on the same
cores skews every time.
"""

from __future__ import annotations

import argparse
import json
import statistics

from agents.puerto_rico.strength import SETTINGS, Series, play_seat, series
from caylus_env.puerto_rico.bots.scripted import STRATEGIES
from caylus_env.puerto_rico.engine.constants import MAX_PLAYERS, MIN_PLAYERS


def cost(spec: str, num_players: int, games: int, repeats: int) -> dict[str, float]:
    """Median ms per move and per game of ``spec`` over ``repeats`` runs of ``games``."""
    play_seat(spec, num_players, 0)  # warm-up: compiles
    per_move, per_game = [], []
    for _ in range(repeats):
        moves, seconds = 0, 0.0
        for i in range(games):
            _, m, s = play_seat(spec, num_players, i)
            moves, seconds = moves + m, seconds + s
        per_move.append(1000.0 * seconds / moves)
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


def _print_table(title: str, header: list[str], rows: list[list[str]]) -> None:
    print(f"\n{title}\n")
    print("| " + " | ".join(header) + " |")
    print("|" + "|".join("---" for _ in header) + "|")
    for row in rows:
        print("| " + " | ".join(row) + " |")


def main(argv: list[str] | None = None) -> dict[str, object]:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=3, help="timing runs (median)")
    parser.add_argument("--players", default="2,4", help="player counts of the timings")
    parser.add_argument("--sims", default="25,100,400", help="mcts budgets to time")
    parser.add_argument("--timing-games", type=int, default=4, help="games per timing run")
    parser.add_argument(
        "--mcts-timing-games", type=int, default=1, help="games per timing run of mcts"
    )
    parser.add_argument("--games", type=int, default=400, help="games per win-rate setting")
    parser.add_argument("--win-players", default="2,3,4,5", help="player counts of win rates")
    parser.add_argument("--mcts-games", type=int, default=0, help="mcts vs random games")
    parser.add_argument("--duel", default="shipper,builder", help="two specs for the duel")
    parser.add_argument("--duel-games", type=int, default=400, help="games of the duel")
    parser.add_argument("--quick", action="store_true", help="short runs (a smoke check)")
    parser.add_argument("--json", default=None, help="also write the figures to this file")
    args = parser.parse_args(argv)
    players = _ints(args.players, "players", MIN_PLAYERS, MAX_PLAYERS)
    win_players = _ints(args.win_players, "win-players", MIN_PLAYERS, MAX_PLAYERS)
    sims = _ints(args.sims, "sims", 1, 100_000)
    for name in ("repeats", "timing_games", "mcts_timing_games", "games"):
        if getattr(args, name) < 1:
            raise SystemExit(f"--{name.replace('_', '-')} must be at least 1")
    if args.quick:
        args.repeats, args.timing_games, args.mcts_timing_games, args.games = 1, 1, 1, 20
        args.duel_games = 20
        sims = sims[:1]
    bots = list(STRATEGIES)
    timed = ["random", *bots, *(f"mcts:{n}" for n in sims)]
    figures: dict[str, object] = {"cost": {}, "strength": {}}

    rows = []
    for spec in timed:
        for n in players:
            games = args.mcts_timing_games if spec.startswith("mcts") else args.timing_games
            c = cost(spec, n, games, args.repeats)
            figures["cost"][f"{spec}/{n}p"] = c  # type: ignore[index]
            rows.append([spec, str(n), f"{c['ms_per_move']:.4f}", f"{c['ms_per_game']:.1f}"])
            print(f"timed {spec} {n}p", flush=True)
    _print_table(
        f"Cost (median of {args.repeats} runs of {args.timing_games} games, mcts "
        f"{args.mcts_timing_games}; the agent in one seat, random in the others)",
        ["agent", "players", "ms per move", "ms per game (its moves)"],
        rows,
    )

    rows = []
    contenders: list[tuple[str, str, int]] = [
        (bot, setting, args.games) for bot in bots for setting in SETTINGS
    ]
    if args.mcts_games > 0:
        contenders.append((f"mcts:{sims[0]}", "base", args.mcts_games))
    for spec, setting, games in contenders:
        row = [spec, setting]
        for n in win_players:
            r = series(spec, n, games, setting)
            figures["strength"][f"{spec}/{setting}/{n}p"] = _figures(r)  # type: ignore[index]
            row.append(str(r))
        rows.append(row)
    _print_table(
        f"Win rate against random ({args.games} games per cell, mcts {args.mcts_games}; "
        "a shared first place counts 1/k; Wilson 95%)",
        ["agent", "setting", *(f"{n} players" for n in win_players)],
        rows,
    )
    if args.duel_games > 0:
        duelists = args.duel.split(",")
        if len(duelists) != 2:
            raise SystemExit(f"--duel {args.duel!r} is not allowed; allowed: two specs A,B")
        first, second = duelists
        r = series(first, 2, args.duel_games, opponent=second)
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
