"""Ranks and rank rewards from final scores, the same for every game.

Ranks are 1 for the best; a tie a game's tie-break does not settle shares the average of the
tied ranks, so a shared win is a shared rank 1.5 between two. A forfeit puts the offender last.
The returns are zero-sum and linear in rank. A module of its own so that the record reader,
the batched games and the harness rank games without the ``Game`` handle
(``caylus_env.core.game`` re-exports these).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np


def rank_of(scores: Sequence[int] | np.ndarray, tie_breaks: Any = None) -> np.ndarray:
    """Ranks (1 = best) by score, then by ``tie_breaks`` when given; players still tied share
    the average of their ranks (a tie for first is a shared win).

    Examples:
        >>> rank_of([10, 3, 10]).tolist()
        [1.5, 3.0, 1.5]
        >>> rank_of([10, 3, 10], [1, 0, 2]).tolist()
        [2.0, 3.0, 1.0]
    """
    s = scores.tolist() if isinstance(scores, np.ndarray) else list(scores)
    if tie_breaks is None:
        t = [0] * len(s)
    else:
        t = tie_breaks.tolist() if isinstance(tie_breaks, np.ndarray) else list(tie_breaks)
    # Seat j is ahead of seat i when (score, tie-break) of j is greater, lexicographically;
    # plain Python on the few seats of a table (NumPy's per-call cost is many times the work,
    # and this runs at every game's end).
    keys = list(zip(s, t, strict=True))
    out = []
    for me in keys:
        ahead = same = 0
        for k in keys:
            if k > me:
                ahead += 1
            elif k == me:
                same += 1
        out.append(1.0 + ahead + (same - 1) / 2.0)
    return np.array(out, np.float64)


def forfeit_ranks(ranks: Sequence[float], loser: int) -> list[float]:
    """Ranks after seat ``loser`` forfeits: it is last, the others keep the order of ``ranks``
    (the position's ranking), ties averaged.

    Examples:
        >>> forfeit_ranks([1.0, 3.0, 2.0], loser=0)
        [3.0, 2.0, 1.0]
        >>> forfeit_ranks([1.5, 1.5, 3.0], loser=2)
        [1.5, 1.5, 3.0]
    """
    n = len(ranks)
    others = [s for s in range(n) if s != loser]
    out = [float(n)] * n
    for s, r in zip(others, rank_of([-float(ranks[s]) for s in others]), strict=True):
        out[s] = float(r)
    return out


def rank_returns(ranks: np.ndarray) -> np.ndarray:
    """Zero-sum rank rewards: linear from +1 (rank 1) to -1 (last), ties averaged."""
    n = len(ranks)
    return (n + 1 - 2 * np.asarray(ranks, np.float64)) / (n - 1)


__all__ = ["forfeit_ranks", "rank_of", "rank_returns"]
