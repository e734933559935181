"""``raw_env`` against PettingZoo connect four's ``raw_env``, finely interleaved (issue 29's
target: at least 7x).

    python bench/aec_ratio.py --games caylus,puerto_rico --players 2,3,4,5 --rounds 20

``caylus bench`` measures each layer once and the anchor after them; on a machine whose speed
drifts within seconds (a shared VM), that ratio moves by tens of percent between runs. Here
every round runs a slice of ours and a slice of connect four, in alternating order, both
through the same standard AEC loop (`caylus_env.core.benchmark.aec_run`), timed in CPU time
of this process; it prints the ratio of the total rates and the median of the per-round
ratios. Both envs are warmed up (kernels compiled or loaded) before any clock starts.
"""

from __future__ import annotations

import argparse
import statistics
import time

from caylus_env.core import benchmark as B
from caylus_env.core.registry import GAME_NAMES, game_spec

#: Decisions of one slice: ours, and connect four's (about the same CPU time each).
OUR_SLICE = 6_000
ANCHOR_SLICE = 900


def ratio(game: str, players: int, rounds: int) -> tuple[float, float, float, float]:
    """``(our rate, anchor rate, ratio of totals, median per-round ratio)``."""
    from pettingzoo.classic import connect_four_v3

    ours, anchor = B.env_maker(game, players)(), connect_four_v3.raw_env()
    B.aec_run(ours, 3_000)
    B.aec_run(anchor, 500)
    totals = {"ours": [0, 0.0], "anchor": [0, 0.0]}
    per_round = []
    for r in range(rounds):
        pairs = [("ours", ours, OUR_SLICE), ("anchor", anchor, ANCHOR_SLICE)]
        rates = {}
        for name, env, decisions in pairs if r % 2 == 0 else pairs[::-1]:
            t0 = time.process_time()
            count, _, _ = B.aec_run(env, decisions)
            spent = time.process_time() - t0
            totals[name][0] += count
            totals[name][1] += spent
            rates[name] = count / spent
        per_round.append(rates["ours"] / rates["anchor"])
    our_rate = totals["ours"][0] / totals["ours"][1]
    anchor_rate = totals["anchor"][0] / totals["anchor"][1]
    return our_rate, anchor_rate, our_rate / anchor_rate, statistics.median(per_round)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", default=",".join(GAME_NAMES), help="comma-separated")
    parser.add_argument("--players", default="2,3,4,5", help="comma-separated player counts")
    parser.add_argument("--rounds", type=int, default=20, help="alternating rounds")
    args = parser.parse_args()
    for game in args.games.split(","):
        for players in (int(p) for p in args.players.split(",")):
            if players not in game_spec(game).player_counts:
                continue
            ours, anchor, total, median = ratio(game, players, args.rounds)
            print(
                f"{game:12s} {players}p  raw_env {ours:>9,.0f}/s  connect four {anchor:>7,.0f}/s"
                f"  ratio {total:.2f} (median of rounds {median:.2f})",
                flush=True,
            )


if __name__ == "__main__":
    main()
