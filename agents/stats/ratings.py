"""Tournament statistics for multi-player games: win rates, seats, crosstables and ratings.

The input is one `GameResult` per finished game (one line of a tournament's ``games.jsonl``). From a
sequence of them this module computes:

- assumption-free numbers: win rate with a Wilson 95% interval, mean rank, mean score and mean
  margin per agent (`agent_summary`), per-seat rates per player count (`seat_table`) and the
  "finished ahead of" crosstable (`head_to_head`);
- the headline rating: a batch maximum-likelihood Plackett–Luce fit over full finishing orders with
  one effect per (player count, seat) (`fit_plackett_luce`), on an Elo-like scale, with 95% CIs and
  a likelihood-of-superiority matrix from a bootstrap over seed blocks (`bootstrap_pl`);
- a live ladder with OpenSkill's Plackett–Luce model (`openskill_ladder`), for dashboards and
  matchmaking only: online ratings depend on game order and ignore seats, so final numbers should
  come from the batch fit.

Conventions used throughout:

- Ranks are 1 = best; tied players share the average of the positions they occupy (two players
  tied for first both get 1.5). A player *wins* a game when their rank equals the best rank in that
  game, so a tie for first place counts as a (shared) win for every tied player, as the rules say.
- An agent that occupies several seats of one game (self-play) is counted once per seat.
- Elo-scale numbers are ``400 / ln(10) * theta`` where ``theta`` is the Plackett–Luce log-strength,
  so a two-player expectation follows the usual logistic Elo curve.

Scores are each game's own (``GameSpec.score_word``: Caylus prestige, Puerto Rico victory
points); the statistics only compare them within a game. The module depends only on NumPy, SciPy
and OpenSkill; it knows nothing about the game engine.
"""

from __future__ import annotations

import json
import math
from collections import defaultdict
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from numbers import Integral, Real
from pathlib import Path
from typing import Any, NamedTuple

import numpy as np
import scipy.optimize
import scipy.sparse
import scipy.sparse.csgraph
from openskill.models import PlackettLuce

#: Ridge penalty on the log-strengths and seat effects: a Gaussian prior with a standard
#: deviation of 3 log-units (about 520 Elo). It keeps the fit finite and fast when an agent
#: wins or loses every game (separable data, common when bots meet ``random``) and moves
#: well-determined fits of hundreds of games by far less than their confidence intervals.
DEFAULT_L2 = 1.0 / (2.0 * 3.0**2)
ELO_PER_NAT = 400.0 / math.log(10.0)
"""Elo points per unit of Plackett–Luce log-strength (about 173.7)."""

Z95 = 1.959964
"""Two-sided 95% standard-normal quantile."""

_RANK_TOLERANCE = 1e-9

MIN_BOOTSTRAP_BLOCKS = 10
"""Fewest blocks an agent (both agents, for a difference) must have played before a bootstrap
interval is reported; below it the interval is shown as "n/a (too few games)". With ``b`` blocks
the bootstrap variance is biased low by the factor ``(b - 1) / b`` and the percentile tails take
only a few distinct values (with 2 blocks every resample can repeat one pattern of results and the
interval collapses to a point: `castle 445.9 [445.9, 445.9]` after 4 games). Ten blocks keep the
variance bias at 10% or less."""


# --------------------------------------------------------------------------------------------------
# Input data model
# --------------------------------------------------------------------------------------------------


def _is_int(value: Any) -> bool:
    return isinstance(value, Integral) and not isinstance(value, bool)


def _is_real(value: Any) -> bool:
    return isinstance(value, Real) and not isinstance(value, bool) and math.isfinite(value)


class InvalidResultError(ValueError):
    """A game result (or one of its fields) is malformed; the message names the field."""


@dataclass(frozen=True)
class GameResult:
    """The outcome of one finished game, as written to ``games.jsonl``.

    Attributes:
        game_id: Unique id of the game within a tournament; also the processing order of the
            online ladder.
        seed: Seed the game was played with.
        block: Id of the group of games that share a seed and a seat-rotation schedule. The block,
            not the game, is the independent unit for the bootstrap, because games in a block share
            their setup luck.
        num_players: Number of seats (2 or more).
        seats: Agent spec per seat index; seat 0 moves first.
        scores: Final score per seat (the game's own unit: prestige, victory points).
        ranks: Finishing rank per seat, 1 = best, ties share the average rank.
        forfeit: Per seat, whether that agent forfeited (crash, timeout, illegal action), or None
            when the harness did not record it. Forfeits are expected to be reflected in ``ranks``
            already; they are only counted, never reinterpreted.
        forfeit_reason: Per seat, the harness's reason for a forfeit (None for seats that did not
            forfeit), or None when not recorded; only listed in reports.
    """

    game_id: int
    seed: int
    block: int
    num_players: int
    seats: tuple[str, ...]
    scores: tuple[int, ...]
    ranks: tuple[float, ...]
    forfeit: tuple[bool, ...] | None = None
    forfeit_reason: tuple[str | None, ...] | None = None

    def __post_init__(self) -> None:
        for name in ("game_id", "seed", "block", "num_players"):
            if not _is_int(getattr(self, name)):
                raise InvalidResultError(
                    f"field {name!r} must be an integer, got {getattr(self, name)!r}"
                )
            object.__setattr__(self, name, int(getattr(self, name)))
        where = f"game {self.game_id}"
        n = self.num_players
        if n < 2:
            raise InvalidResultError(f"{where}: field 'num_players' must be at least 2, got {n}")
        for name in ("seats", "scores", "ranks"):
            value = getattr(self, name)
            if isinstance(value, (str, bytes)) or not isinstance(value, Sequence):
                raise InvalidResultError(f"{where}: field {name!r} must be a list, got {value!r}")
            if len(value) != n:
                raise InvalidResultError(
                    f"{where}: field {name!r} has {len(value)} entries but num_players is {n}"
                )
        if not all(isinstance(a, str) and a for a in self.seats):
            raise InvalidResultError(
                f"{where}: field 'seats' must hold non-empty strings: {self.seats!r}"
            )
        if not all(_is_int(p) for p in self.scores):
            raise InvalidResultError(f"{where}: field 'scores' must hold integers: {self.scores!r}")
        if not all(_is_real(r) for r in self.ranks):
            raise InvalidResultError(
                f"{where}: field 'ranks' must hold finite numbers: {self.ranks!r}"
            )
        object.__setattr__(self, "seats", tuple(self.seats))
        object.__setattr__(self, "scores", tuple(int(p) for p in self.scores))
        object.__setattr__(self, "ranks", tuple(float(r) for r in self.ranks))
        _check_average_ranks(self.ranks, where)
        if self.forfeit is not None:
            f = self.forfeit
            if isinstance(f, (str, bytes)) or not isinstance(f, Sequence) or len(f) != n:
                raise InvalidResultError(
                    f"{where}: field 'forfeit' must be a list of {n} booleans: {f!r}"
                )
            if not all(isinstance(x, (bool, np.bool_)) for x in f):
                raise InvalidResultError(f"{where}: field 'forfeit' must hold booleans: {f!r}")
            object.__setattr__(self, "forfeit", tuple(bool(x) for x in f))
        if self.forfeit_reason is not None:
            why = self.forfeit_reason
            if isinstance(why, (str, bytes)) or not isinstance(why, Sequence) or len(why) != n:
                raise InvalidResultError(
                    f"{where}: field 'forfeit_reason' must be a list of {n} strings or nulls: "
                    f"{why!r}"
                )
            if not all(x is None or isinstance(x, str) for x in why):
                raise InvalidResultError(
                    f"{where}: field 'forfeit_reason' must hold strings or nulls: {why!r}"
                )
            object.__setattr__(self, "forfeit_reason", tuple(why))

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> GameResult:
        """Build a result from one parsed ``games.jsonl`` line.

        Unknown keys are ignored so that the harness can add fields (end reason, timings) without
        breaking the statistics. A missing ``block`` defaults to ``game_id`` (every game its own
        block), which is the honest choice when nothing ties games together.

        Raises:
            InvalidResultError: If a required field is missing or any field is malformed; the
                message names the field.
        """
        if not isinstance(data, Mapping):
            raise InvalidResultError(
                f"a game result must be a JSON object, got {type(data).__name__}"
            )
        for key in ("game_id", "seed", "num_players", "seats", "scores", "ranks"):
            if key not in data:
                raise InvalidResultError(f"game result is missing field {key!r}")
        forfeit = data.get("forfeit")
        reason = data.get("forfeit_reason")
        return cls(
            game_id=data["game_id"],
            seed=data["seed"],
            block=data.get("block", data["game_id"]),
            num_players=data["num_players"],
            seats=_as_tuple(data["seats"], "seats"),
            scores=_as_tuple(data["scores"], "scores"),
            ranks=_as_tuple(data["ranks"], "ranks"),
            forfeit=None if forfeit is None else _as_tuple(forfeit, "forfeit"),
            forfeit_reason=None if reason is None else _as_tuple(reason, "forfeit_reason"),
        )

    def to_dict(self) -> dict[str, Any]:
        """Return the JSON-ready form read by `from_dict` (forfeit fields omitted when unknown)."""
        out: dict[str, Any] = {
            "game_id": self.game_id,
            "seed": self.seed,
            "block": self.block,
            "num_players": self.num_players,
            "seats": list(self.seats),
            "scores": list(self.scores),
            "ranks": list(self.ranks),
        }
        if self.forfeit is not None:
            out["forfeit"] = list(self.forfeit)
        if self.forfeit_reason is not None:
            out["forfeit_reason"] = list(self.forfeit_reason)
        return out

    @property
    def best_rank(self) -> float:
        """The rank of the winner(s) of this game."""
        return min(self.ranks)

    def is_win(self, seat: int) -> bool:
        """Whether ``seat`` won, alone or by sharing first place."""
        return self.ranks[seat] == self.best_rank


def _as_tuple(value: Any, name: str) -> tuple[Any, ...]:
    if isinstance(value, (str, bytes)) or not isinstance(value, Sequence):
        raise InvalidResultError(f"field {name!r} must be a list, got {value!r}")
    return tuple(value)


def _check_average_ranks(ranks: Sequence[float], where: str) -> None:
    """Reject ranks that do not follow the "ties share the average position" convention.

    Catching 0-based or competition-style ranks (1, 1, 3) here matters because every statistic
    downstream, from mean rank to the tie groups of the likelihood, silently depends on it.
    """
    values = sorted(ranks)
    position = 1
    i = 0
    while i < len(values):
        j = i
        while j < len(values) and abs(values[j] - values[i]) <= _RANK_TOLERANCE:
            j += 1
        expected = position + (j - i - 1) / 2.0
        if abs(values[i] - expected) > _RANK_TOLERANCE:
            raise InvalidResultError(
                f"{where}: field 'ranks' {list(ranks)!r} is not a ranking with 1 = best and ties "
                "sharing the average rank (two players tied for first both get 1.5)"
            )
        position += j - i
        i = j


def coerce_results(results: Iterable[GameResult | Mapping[str, Any]]) -> list[GameResult]:
    """Return ``results`` as a list of `GameResult`, parsing dicts with `GameResult.from_dict`."""
    out = []
    for item in results:
        out.append(item if isinstance(item, GameResult) else GameResult.from_dict(item))
    return out


def load_results(path: str | Path) -> list[GameResult]:
    """Read a ``games.jsonl`` file (one JSON object per line; blank lines are skipped).

    A line is either a tournament's game record (``caylus_env.core.record.GameRecord``, read
    by its one strict reader) or a flat result (``GameResult.to_dict``).

    Raises:
        InvalidResultError: On malformed JSON or an invalid result; the message names the line.
    """
    from caylus_env.core.record import GameRecord

    out = []
    with open(path, encoding="utf-8") as handle:
        for lineno, line in enumerate(handle, start=1):
            if not line.strip():
                continue
            try:
                data = json.loads(line)
                if isinstance(data, Mapping) and "format" in data:
                    data = GameRecord.from_dict(data).result()
                out.append(GameResult.from_dict(data))
            except (ValueError, json.JSONDecodeError) as err:
                raise InvalidResultError(f"{path}:{lineno}: {err}") from err
    return out


def _agents_of(results: Sequence[GameResult]) -> list[str]:
    return sorted({agent for r in results for agent in r.seats})


def _require_results(results: Iterable[GameResult | Mapping[str, Any]]) -> list[GameResult]:
    games = coerce_results(results)
    if not games:
        raise ValueError("no game results given")
    return games


# --------------------------------------------------------------------------------------------------
# Assumption-free summaries
# --------------------------------------------------------------------------------------------------


def wilson_interval(successes: float, n: int, z: float = Z95) -> tuple[float, float]:
    """Wilson score interval for a binomial proportion.

    Preferred over the normal (Wald) interval because it stays inside [0, 1] and keeps its coverage
    near 0% and 100%, which is where win rates against weak baselines live. In this package a
    success is a win, and a shared first place counts as a win (the rules call a tie for first
    place a shared win).

    Args:
        successes: Number of successes, 0 <= successes <= n.
        n: Number of trials.
        z: Standard-normal quantile; the default gives a two-sided 95% interval.

    Returns:
        ``(lo, hi)``; ``(0.0, 1.0)`` when ``n == 0`` since nothing is known then.
    """
    if not _is_int(n) or n < 0:
        raise ValueError(f"n must be a non-negative integer, got {n!r}")
    if not _is_real(successes) or not 0 <= successes <= n:
        raise ValueError(f"successes must lie in [0, n={n}], got {successes!r}")
    if n == 0:
        return (0.0, 1.0)
    p = successes / n
    z2 = z * z
    denom = 1.0 + z2 / n
    centre = p + z2 / (2.0 * n)
    half = z * math.sqrt(p * (1.0 - p) / n + z2 / (4.0 * n * n))
    lo = 0.0 if successes == 0 else max(0.0, (centre - half) / denom)
    hi = 1.0 if successes == n else min(1.0, (centre + half) / denom)
    return (lo, hi)


def agent_summary(
    results: Iterable[GameResult | Mapping[str, Any]], z: float = Z95
) -> dict[str, dict[str, Any]]:
    """Per-agent games, wins, Wilson win-rate interval, mean rank, score and margin.

    The margin of a seat is its score minus the best score among the *other* seats of the game,
    so it is positive exactly when the seat finished strictly ahead on score and tells how close
    the games were. Self-play counts once per seat.

    Returns:
        ``{agent: {"games", "wins", "forfeits", "win_rate", "win_ci", "mean_rank",
        "mean_score", "mean_margin"}}`` sorted by agent name.
    """
    games = _require_results(results)
    acc: dict[str, dict[str, float]] = defaultdict(
        lambda: {"games": 0, "wins": 0, "forfeits": 0, "rank": 0.0, "score": 0.0, "margin": 0.0}
    )
    for r in games:
        for seat, agent in enumerate(r.seats):
            best_other = max(p for s, p in enumerate(r.scores) if s != seat)
            a = acc[agent]
            a["games"] += 1
            a["wins"] += int(r.is_win(seat))
            a["forfeits"] += int(bool(r.forfeit and r.forfeit[seat]))
            a["rank"] += r.ranks[seat]
            a["score"] += r.scores[seat]
            a["margin"] += r.scores[seat] - best_other
    out = {}
    for agent in sorted(acc):
        a = acc[agent]
        n = int(a["games"])
        wins = int(a["wins"])
        out[agent] = {
            "games": n,
            "wins": wins,
            "forfeits": int(a["forfeits"]),
            "win_rate": wins / n,
            "win_ci": wilson_interval(wins, n, z),
            "mean_rank": a["rank"] / n,
            "mean_score": a["score"] / n,
            "mean_margin": a["margin"] / n,
        }
    return out


def seat_table(
    results: Iterable[GameResult | Mapping[str, Any]],
) -> dict[int, dict[int, dict[str, Any]]]:
    """Win rate and mean rank of each seat, per player count, whoever sat there.

    With a seat-balanced schedule this measures the residual turn-order advantage directly.

    Returns:
        ``{num_players: {seat: {"games", "wins", "win_rate", "mean_rank"}}}``.
    """
    games = _require_results(results)
    acc: dict[int, list[list[float]]] = {}
    for r in games:
        rows = acc.setdefault(r.num_players, [[0, 0, 0.0] for _ in range(r.num_players)])
        for seat in range(r.num_players):
            rows[seat][0] += 1
            rows[seat][1] += int(r.is_win(seat))
            rows[seat][2] += r.ranks[seat]
    return {
        n: {
            seat: {
                "games": int(g),
                "wins": int(w),
                "win_rate": w / g,
                "mean_rank": rank / g,
            }
            for seat, (g, w, rank) in enumerate(acc[n])
        }
        for n in sorted(acc)
    }


class HeadToHead(NamedTuple):
    """The "finished ahead of" crosstable.

    Attributes:
        agents: Agent names, sorted; index order of both matrices.
        matrix: ``matrix[i, j]`` is the share of seat pairings at a shared table in which agent
            ``i`` finished strictly ahead of agent ``j`` (a tie counts 0.5); NaN where the two never
            met and on the diagonal.
        counts: ``counts[i, j]`` is the number of such pairings (symmetric).
    """

    agents: tuple[str, ...]
    matrix: np.ndarray
    counts: np.ndarray


def head_to_head(results: Iterable[GameResult | Mapping[str, Any]]) -> HeadToHead:
    """Crosstable of how often each agent finished ahead of each other agent at a shared table.

    Every pair of seats held by *different* agents in a game is one pairing, so an agent that holds
    two seats meets each opponent twice in that game (consistent with counting once per seat).
    Pairings of an agent with itself carry no information and are skipped.
    """
    games = _require_results(results)
    agents = _agents_of(games)
    index = {a: i for i, a in enumerate(agents)}
    k = len(agents)
    score = np.zeros((k, k))
    counts = np.zeros((k, k), dtype=np.int64)
    for r in games:
        for s in range(r.num_players):
            for t in range(s + 1, r.num_players):
                i, j = index[r.seats[s]], index[r.seats[t]]
                if i == j:
                    continue
                rs, rt = r.ranks[s], r.ranks[t]
                share = 1.0 if rs < rt else 0.0 if rs > rt else 0.5
                score[i, j] += share
                score[j, i] += 1.0 - share
                counts[i, j] += 1
                counts[j, i] += 1
    with np.errstate(invalid="ignore", divide="ignore"):
        matrix = np.where(counts > 0, score / np.maximum(counts, 1), np.nan)
    return HeadToHead(tuple(agents), matrix, counts)


# --------------------------------------------------------------------------------------------------
# Separation: where the data cannot pin a rating gap down
# --------------------------------------------------------------------------------------------------


def _level_pairs(
    games: Sequence[GameResult], key: Any
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Directed "finished ahead of or level with" pairs ``(game, i, j)`` between the units that
    ``key(game, seat)`` maps seats to (agent or seat indices); pairs of a unit with itself are
    skipped. A tie gives both directions."""
    pg, pi, pj = [], [], []
    for g, r in enumerate(games):
        units = [key(r, s) for s in range(r.num_players)]
        for s in range(r.num_players):
            for t in range(r.num_players):
                if s != t and units[s] != units[t] and r.ranks[s] <= r.ranks[t]:
                    pg.append(g)
                    pi.append(units[s])
                    pj.append(units[t])
    return (np.asarray(pg, np.int64), np.asarray(pi, np.int64), np.asarray(pj, np.int64))


def _strong_components(k: int, pi: np.ndarray, pj: np.ndarray) -> np.ndarray:
    """Strongly connected component label of each of ``k`` nodes of the graph ``pi -> pj``."""
    graph = scipy.sparse.csr_array((np.ones(len(pi)), (pi, pj)), shape=(k, k))
    _, labels = scipy.sparse.csgraph.connected_components(graph, directed=True, connection="strong")
    return labels


class Separation(NamedTuple):
    """Groups of agents whose rating gaps the data leave unbounded (quasi-complete separation).

    Draw an arrow from agent ``i`` to agent ``j`` whenever ``i`` finished ahead of or level with
    ``j`` at a shared table. The Plackett–Luce (Bradley–Terry for two players) maximum likelihood
    of the gap between two agents is finite exactly when each can reach the other along arrows
    (Ford's condition), i.e. when both lie in one strongly connected *group*. Between groups the
    likelihood keeps growing as the gap grows: an agent (or group) that never finished behind the
    rest has an infinite estimate, and whatever finite number a fit prints is set by its prior
    (`DEFAULT_L2`), not by the games. Only a one-sided bound can be given there
    (`PLBootstrap.difference`).

    Attributes:
        agents: Agent names, sorted (index order of ``group_of`` and ``above``).
        groups: The groups, best first (an order compatible with the arrows between groups).
        group_of: Index into ``groups`` of each agent.
        above: ``above[a, b]`` is True when group ``a`` reaches group ``b`` and not back: every
            member of ``a`` is rated above every member of ``b`` with an unbounded gap.
    """

    agents: tuple[str, ...]
    groups: tuple[tuple[str, ...], ...]
    group_of: dict[str, int]
    above: np.ndarray

    @property
    def separated(self) -> bool:
        """Whether some rating gap is unbounded (more than one group)."""
        return len(self.groups) > 1

    def order(self, a: str, b: str) -> int | None:
        """+1 if ``a``'s group is above ``b``'s, -1 if below, 0 if one group, None if the two
        groups are not linked by any chain of games."""
        ga, gb = self.group_of[a], self.group_of[b]
        if ga == gb:
            return 0
        if self.above[ga, gb]:
            return 1
        if self.above[gb, ga]:
            return -1
        return None


def _separation_of(
    games: Sequence[GameResult], agents: Sequence[str], hint: np.ndarray
) -> Separation:
    """`Separation` of ``games``; groups linked by no chain are ordered by ``hint`` (strengths)."""
    index = {a: i for i, a in enumerate(agents)}
    k = len(agents)
    _, pi, pj = _level_pairs(games, lambda r, s: index[r.seats[s]])
    labels = _strong_components(k, pi, pj)
    n_groups = int(labels.max()) + 1 if k else 0
    reach = np.eye(n_groups, dtype=bool)
    reach[labels[pi], labels[pj]] = True
    for m in range(n_groups):  # transitive closure (Warshall); the number of groups is small
        reach |= reach[:, [m]] & reach[[m], :]
    above = reach & ~reach.T

    # Best first: more groups below, then stronger on average, then by name.
    def sort_key(g: int) -> tuple[int, float, str]:
        members = np.flatnonzero(labels == g)
        return (-int(above[g].sum()), -float(hint[members].mean()), agents[members[0]])

    order = sorted(range(n_groups), key=sort_key)
    rank = {g: i for i, g in enumerate(order)}
    groups = tuple(tuple(agents[i] for i in range(k) if labels[i] == g) for g in order)
    return Separation(
        agents=tuple(agents),
        groups=groups,
        group_of={a: rank[int(labels[i])] for i, a in enumerate(agents)},
        above=above[np.ix_(order, order)],
    )


def find_separation(results: Iterable[GameResult | Mapping[str, Any]]) -> Separation:
    """Find the groups of agents between which the games leave rating gaps unbounded.

    Groups are ordered best first; groups that no chain of games links are ordered by their
    members' win rates (they are not comparable: `Separation.order` returns None for them).
    """
    games = _require_results(results)
    agents = _agents_of(games)
    table = agent_summary(games)
    return _separation_of(games, agents, np.array([table[a]["win_rate"] for a in agents]))


def seat_separation(results: Iterable[GameResult | Mapping[str, Any]]) -> dict[int, bool]:
    """Per player count, whether the seats are separated (some seat, or group of seats, never
    finished behind the others), which leaves the seat effects of that count unbounded."""
    games = _require_results(results)
    out = {}
    for n in sorted({r.num_players for r in games}):
        subset = [r for r in games if r.num_players == n]
        _, pi, pj = _level_pairs(subset, lambda r, s: s)
        out[n] = bool(_strong_components(n, pi, pj).max() > 0)
    return out


def shared_blocks(results: Iterable[GameResult | Mapping[str, Any]]) -> dict[tuple[str, str], int]:
    """Number of distinct blocks in which each pair of different agents sat at one table."""
    games = _require_results(results)
    blocks: dict[tuple[str, str], set[int]] = defaultdict(set)
    for r in games:
        for a in set(r.seats):
            for b in set(r.seats):
                if a != b:
                    blocks[(a, b)].add(r.block)
    return {pair: len(ids) for pair, ids in blocks.items()}


def separation_bound(blocks: int, level: float = 0.95) -> float | None:
    """One-sided bound on the log-strength gap of two agents when one never finished behind the
    other, from the number of blocks in which they met; None when those are too few for any
    positive bound.

    Under Plackett–Luce the chance that A finishes ahead of B at a shared table is
    ``p = 1 / (1 + exp(-(theta_A - theta_B)))`` whoever else sits there, and A ahead of B in all
    of a block's games has chance at most ``p``. So ``m`` such blocks have chance at most
    ``p ** m``, and every ``p`` below ``p_lo = ((1 - level) / 2) ** (1 / m)`` is rejected at the
    tail a two-sided ``level`` interval leaves on each side. The bound is ``logit(p_lo)``; it
    ignores seat effects (a seat-balanced schedule cancels them) and counts blocks, not games,
    because games of a block are not independent. When ``p_lo <= 1/2`` the games cannot even show
    that A is the stronger at that level, and the bound is None ("too few games").

    Examples:
        150 blocks give ``p_lo = 0.9757`` (about 641 Elo); 2 blocks give no bound.
    """
    if blocks <= 0:
        return None
    p_lo = (0.5 * (1.0 - level)) ** (1.0 / blocks)
    if p_lo <= 0.5:
        return None
    return math.log(p_lo / (1.0 - p_lo))


# --------------------------------------------------------------------------------------------------
# Plackett–Luce with seat effects
# --------------------------------------------------------------------------------------------------


class _PLProblem:
    """The design of a Plackett–Luce likelihood, built once and re-weighted for the bootstrap.

    Model: seat ``s`` of an ``N``-player game has utility ``u = theta[agent] + delta[N, s]``. A
    finishing order with tie groups ``G_1, G_2, ...`` (best first) is scored stage by stage: stage
    ``j`` picks the group ``G_j`` out of the *risk set* ``R_j`` (players not yet placed) with the
    Breslow approximation ``exp(sum_{G_j} u) / (sum_{R_j} exp u) ** |G_j|``. Without ties this is
    exactly the Plackett–Luce likelihood. With ties it approximates the probability that the tied
    players take the next positions in some order, without enumerating orderings (exact averaging
    costs ``|G|!`` terms) and without random tie-breaks (which would make the fit non-deterministic).
    The last group is never scored: whoever remains fills the remaining positions with
    probability 1, so a tie for last carries no information.

    Parameters: ``theta`` of every agent but the reference (fixed at 0), then for each player count
    ``N`` the first ``N - 1`` seat effects (the last is minus their sum, so effects sum to zero).
    """

    def __init__(self, games: Sequence[GameResult], reference: str | None) -> None:
        self.agents = _agents_of(games)
        if reference is None:
            reference = self.agents[0]
        if reference not in self.agents:
            raise ValueError(f"reference agent {reference!r} played no game")
        self.reference = reference
        agent_index = {a: i for i, a in enumerate(self.agents)}
        k = len(self.agents)
        self.free_agents = np.array([i for i in range(k) if self.agents[i] != reference], int)

        self.player_counts = sorted({r.num_players for r in games})
        self.seat_offset: dict[int, int] = {}
        offset = 0
        for n in self.player_counts:
            self.seat_offset[n] = offset
            offset += n
        self.n_delta = offset
        n_eta = sum(n - 1 for n in self.player_counts)
        basis = np.zeros((self.n_delta, n_eta))
        col = 0
        for n in self.player_counts:
            o = self.seat_offset[n]
            for s in range(n - 1):
                basis[o + s, col + s] = 1.0
                basis[o + n - 1, col + s] = -1.0
            col += n - 1
        self.basis = basis
        self.n_params = len(self.free_agents) + n_eta

        entry_agent, entry_delta, entry_game, chosen = [], [], [], []
        stage_game, stage_size, rows, cols = [], [], [], []
        entry = 0
        for g, r in enumerate(games):
            first = entry
            for seat, agent in enumerate(r.seats):
                entry_agent.append(agent_index[agent])
                entry_delta.append(self.seat_offset[r.num_players] + seat)
                entry_game.append(g)
                chosen.append(0.0)
            entry += r.num_players
            groups = _tie_groups(r.ranks)
            for j, group in enumerate(groups[:-1]):
                stage = len(stage_game)
                stage_game.append(g)
                stage_size.append(len(group))
                for seat in group:
                    chosen[first + seat] = 1.0
                for later in groups[j:]:
                    for seat in later:
                        rows.append(stage)
                        cols.append(first + seat)
        self.n_games = len(games)
        self.entry_agent = np.asarray(entry_agent, dtype=np.int64)
        self.entry_delta = np.asarray(entry_delta, dtype=np.int64)
        self.entry_game = np.asarray(entry_game, dtype=np.int64)
        self.chosen = np.asarray(chosen)
        self.stage_game = np.asarray(stage_game, dtype=np.int64)
        self.stage_size = np.asarray(stage_size, dtype=float)
        risk = scipy.sparse.csr_array(
            (np.ones(len(rows)), (np.asarray(rows, np.int64), np.asarray(cols, np.int64))),
            shape=(len(stage_game), entry),
        )
        self.risk = risk
        self.risk_t = risk.T.tocsr()
        self.games_per_count = {
            n: np.array([r.num_players == n for r in games]) for n in self.player_counts
        }

    def unpack(self, beta: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Return the full agent strengths (reference = 0) and the full seat-effect vector."""
        theta = np.zeros(len(self.agents))
        theta[self.free_agents] = beta[: len(self.free_agents)]
        delta = self.basis @ beta[len(self.free_agents) :]
        return theta, delta

    def objective(
        self, beta: np.ndarray, weights: np.ndarray, l2: float
    ) -> tuple[float, np.ndarray]:
        """Penalised negative log-likelihood per game and its analytic gradient."""
        theta, delta = self.unpack(beta)
        u = theta[self.entry_agent] + delta[self.entry_delta]
        shift = u.max()
        eu = np.exp(u - shift)
        risk_sum = self.risk @ eu
        w_stage = weights[self.stage_game] * self.stage_size
        w_entry = weights[self.entry_game] * self.chosen
        # Elementwise products and sums instead of `@`: a long BLAS dot product wakes OpenBLAS's
        # thread pool, whose spinning threads slowed each L-BFGS step about 15-fold on a 2-core box.
        loglik = np.sum(w_entry * u) - np.sum(w_stage * (np.log(risk_sum) + shift))
        grad_u = w_entry - eu * (self.risk_t @ (w_stage / risk_sum))
        grad_theta = np.bincount(self.entry_agent, grad_u, minlength=len(self.agents))
        grad_delta = np.bincount(self.entry_delta, grad_u, minlength=self.n_delta)
        grad = np.concatenate([grad_theta[self.free_agents], self.basis.T @ grad_delta])
        total = weights.sum()
        value = (-loglik + l2 * beta @ beta) / total
        return value, (-grad + 2.0 * l2 * beta) / total

    def loglik(self, beta: np.ndarray, weights: np.ndarray) -> float:
        """Unpenalised log-likelihood (Breslow ties) of the weighted games."""
        value, _ = self.objective(beta, weights, 0.0)
        return -value * weights.sum()

    def solve(
        self, weights: np.ndarray, l2: float, x0: np.ndarray | None = None
    ) -> scipy.optimize.OptimizeResult:
        """Minimise the objective with L-BFGS from ``x0`` (zeros by default)."""
        start = np.zeros(self.n_params) if x0 is None else x0
        if self.n_params == 0:
            return scipy.optimize.OptimizeResult(x=start, success=True, nit=0, message="no params")
        return scipy.optimize.minimize(
            self.objective,
            start,
            args=(weights, l2),
            jac=True,
            method="L-BFGS-B",
            options={"maxiter": 2000, "gtol": 1e-8, "ftol": 1e-13, "maxcor": 20},
        )


def _tie_groups(ranks: Sequence[float]) -> list[list[int]]:
    """Seats grouped by equal rank, best group first."""
    groups: dict[float, list[int]] = defaultdict(list)
    for seat, rank in enumerate(ranks):
        groups[round(rank, 6)].append(seat)
    return [groups[key] for key in sorted(groups)]


@dataclass(frozen=True)
class PLFit:
    """A fitted Plackett–Luce model with seat effects.

    Attributes:
        agents: Agent names, sorted.
        theta: Log-strength per agent; the reference agent is 0 by construction.
        seat_effects: Per player count, the log-utility offset of each seat (sums to zero).
        reference: The agent whose strength is fixed at 0.
        loglik: Log-likelihood at the optimum (Breslow ties, penalty excluded).
        n_games: Number of games fitted.
        l2: The L2 penalty used.
        converged: Whether L-BFGS reported convergence.
        iterations: L-BFGS iterations used.
    """

    agents: tuple[str, ...]
    theta: dict[str, float]
    seat_effects: dict[int, tuple[float, ...]]
    reference: str
    loglik: float
    n_games: int
    l2: float
    converged: bool
    iterations: int

    @property
    def elo(self) -> dict[str, float]:
        """Strengths on the Elo scale (``400 / ln 10 * theta``), reference at 0."""
        return {a: ELO_PER_NAT * t for a, t in self.theta.items()}

    @property
    def seat_elo(self) -> dict[int, tuple[float, ...]]:
        """Seat effects on the Elo scale."""
        return {n: tuple(ELO_PER_NAT * d for d in eff) for n, eff in self.seat_effects.items()}

    def predict_win(self, seats: Sequence[str]) -> list[float]:
        """Model probability that each seat finishes first, for a table seated as ``seats``.

        Raises:
            ValueError: If an agent or the player count was not part of the fit.
        """
        n = len(seats)
        if n not in self.seat_effects:
            raise ValueError(f"no seat effects were fitted for {n}-player games")
        missing = [a for a in seats if a not in self.theta]
        if missing:
            raise ValueError(f"agents not in the fit: {missing}")
        u = np.array([self.theta[a] + self.seat_effects[n][s] for s, a in enumerate(seats)])
        p = np.exp(u - u.max())
        return list(p / p.sum())

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready form (player counts become string keys)."""
        return {
            "reference": self.reference,
            "agents": {
                a: {"theta": self.theta[a], "elo": ELO_PER_NAT * self.theta[a]} for a in self.agents
            },
            "seat_effects": {
                str(n): [{"theta": d, "elo": ELO_PER_NAT * d} for d in eff]
                for n, eff in self.seat_effects.items()
            },
            "loglik": self.loglik,
            "n_games": self.n_games,
            "l2": self.l2,
            "converged": self.converged,
            "iterations": self.iterations,
        }


def _make_fit(
    problem: _PLProblem, beta: np.ndarray, weights: np.ndarray, l2: float, result: Any
) -> PLFit:
    theta, delta = problem.unpack(beta)
    seat_effects = {
        n: tuple(float(x) for x in delta[problem.seat_offset[n] : problem.seat_offset[n] + n])
        for n in problem.player_counts
    }
    return PLFit(
        agents=tuple(problem.agents),
        theta={a: float(t) for a, t in zip(problem.agents, theta, strict=True)},
        seat_effects=seat_effects,
        reference=problem.reference,
        loglik=float(problem.loglik(beta, weights)),
        n_games=problem.n_games,
        l2=l2,
        converged=bool(result.success),
        iterations=int(result.nit),
    )


def fit_plackett_luce(
    results: Iterable[GameResult | Mapping[str, Any]],
    reference: str | None = None,
    l2: float = DEFAULT_L2,
) -> PLFit:
    """Batch maximum-likelihood Plackett–Luce fit with per-(player count, seat) effects.

    Agent strengths are shared across player counts while each player count gets its own seat
    effects, because turn-order advantage differs between a 2- and a 5-player table but an agent's
    skill should not. Seat effects are what keep the ranking right when seating is unbalanced
    (e.g. the weakest agent usually first): a seat-blind fit credits the seat to the agent.

    Args:
        results: Finished games.
        reference: Agent whose strength is fixed at 0 (e.g. a frozen baseline bot); defaults to
            the alphabetically first agent.
        l2: Ridge penalty on all free parameters, added to the total negative log-likelihood. It
            keeps estimates finite when the pool is disconnected or an agent never loses, and is
            negligible otherwise.

    Returns:
        The fitted `PLFit`. Ties use the Breslow approximation described in `_PLProblem`.
    """
    games = _require_results(results)
    problem = _PLProblem(games, reference)
    weights = np.ones(len(games))
    result = problem.solve(weights, l2)
    return _make_fit(problem, result.x, weights, l2, result)


class Contrast(NamedTuple):
    """What the games say about a gap in log-strength (agent minus agent, or a seat effect).

    Attributes:
        kind: ``"interval"`` (two-sided percentile interval ``[lo, hi]``), ``"lower"`` (the gap
            exceeds ``lo``: separated, see `Separation`), ``"upper"`` (the gap is below ``hi``),
            or ``"none"`` (nothing reliable; ``note`` says why).
        estimate: The point estimate of the gap (set by the prior when separated).
        lo: Lower end or bound, or None.
        hi: Upper end or bound, or None.
        note: Why a bound or no interval is given ("" for a plain interval).
    """

    kind: str
    estimate: float
    lo: float | None
    hi: float | None
    note: str

    def scaled(self, factor: float) -> Contrast:
        """The same contrast with every number multiplied by a positive ``factor`` (e.g. Elo)."""
        return Contrast(
            self.kind,
            factor * self.estimate,
            None if self.lo is None else factor * self.lo,
            None if self.hi is None else factor * self.hi,
            self.note,
        )


TOO_FEW_GAMES = "n/a (too few games)"


def _interval_or_none(samples: np.ndarray, estimate: float, level: float, blocks: int) -> Contrast:
    """A percentile interval, unless too few blocks or a zero width make it meaningless."""
    if blocks < MIN_BOOTSTRAP_BLOCKS:
        return Contrast("none", estimate, None, None, f"{TOO_FEW_GAMES}: {blocks} blocks")
    lo, hi = _percentile_ci(samples, level)
    if math.isnan(lo):
        return Contrast("none", estimate, None, None, "n/a (never estimable)")
    if hi - lo <= _DEGENERATE_WIDTH:
        return Contrast("none", estimate, None, None, f"{TOO_FEW_GAMES}: degenerate bootstrap")
    return Contrast("interval", estimate, lo, hi, "")


def separated_difference(
    separation: Separation,
    shared: Mapping[tuple[str, str], int],
    a: str,
    b: str,
    estimate: float,
    level: float = 0.95,
) -> Contrast | None:
    """The gap ``theta_a - theta_b`` when ``a`` and ``b`` lie in different `Separation` groups
    (rule 1 of `PLBootstrap.difference`), or None when they share a group."""
    order = separation.order(a, b)
    if order == 0:
        return None
    if order is None:
        return Contrast("none", estimate, None, None, "n/a (not linked by any games)")
    better, worse = (a, b) if order > 0 else (b, a)
    met = shared.get((a, b), 0)
    how = f"{worse} never finished ahead of {better} ({met} blocks)"
    if met == 0:
        how = f"{better}'s group never finished behind {worse}'s; the two never met"
    bound = separation_bound(met, level)
    if bound is None:
        return Contrast("none", estimate, None, None, f"{TOO_FEW_GAMES}: {how}")
    if order > 0:
        return Contrast("lower", estimate, bound, None, how)
    return Contrast("upper", estimate, None, -bound, how)


_DEGENERATE_WIDTH = 1e-6
"""Bootstrap intervals narrower than this (log-strength units, 0.0002 Elo) come from resamples
that all repeat one pattern of results, not from precise data, and are never reported."""


@dataclass(frozen=True)
class PLBootstrap:
    """Block-bootstrap uncertainty of a `PLFit`.

    Attributes:
        fit: The point estimate on all games.
        n_boot: Number of resamples.
        n_blocks: Number of distinct blocks resampled.
        level: Confidence level of the percentile intervals.
        seed: Seed of the resampling generator.
        theta_samples: ``(n_boot, n_agents)`` strengths relative to the reference, NaN in a
            resample that lacks the agent or the reference.
        seat_samples: Per player count, ``(n_boot, N)`` seat effects, NaN in resamples without
            games of that size.
        theta_ci: Per agent, the percentile interval of its strength (NaN when never estimable).
        seat_ci: Per player count, the interval of each seat effect.
        los: ``los[i, j]`` is the share of resamples (holding both agents) with
            ``theta_i > theta_j``; the likelihood of superiority. NaN on the diagonal.
        present: ``(n_boot, n_agents)``, whether each resample holds games of each agent.
        raw_theta: ``(n_boot, n_agents)`` strengths of each refit (reference 0, also where the
            resample lacks an agent); differences of present agents are meaningful.
        separation: The `Separation` of the full data.
        pair_separated: ``[i, j]`` share of the resamples holding both agents in which they fall
            in different groups (NaN where none holds both).
        agent_blocks: Distinct blocks each agent played in.
        shared: Distinct blocks in which each pair of agents met (`shared_blocks`).
        seat_separated: Per player count, whether the seats are separated (`seat_separation`).
        count_blocks: Per player count, distinct blocks with games of that size.

    ``theta_ci`` and ``seat_ci`` are the raw percentile intervals. What should be *reported* are
    `difference` and `seat_interval`, which replace an interval by a bound where the data are
    separated and by "n/a (too few games)" where the bootstrap cannot be trusted.
    """

    fit: PLFit
    n_boot: int
    n_blocks: int
    level: float
    seed: int
    theta_samples: np.ndarray
    seat_samples: dict[int, np.ndarray]
    theta_ci: dict[str, tuple[float, float]]
    seat_ci: dict[int, tuple[tuple[float, float], ...]]
    los: np.ndarray
    present: np.ndarray
    raw_theta: np.ndarray
    separation: Separation
    pair_separated: np.ndarray
    agent_blocks: dict[str, int]
    shared: dict[tuple[str, str], int]
    seat_separated: dict[int, bool]
    count_blocks: dict[int, int]

    def difference(self, a: str, b: str) -> Contrast:
        """The log-strength gap ``theta_a - theta_b`` as the games support it.

        The rule, in order:

        1. ``a`` and ``b`` in different `Separation` groups: the gap is unbounded on one side, so
           only a one-sided bound is given (``"lower"`` when ``a``'s group is above), from the
           blocks in which the two met (`separation_bound`); "n/a (too few games)" when those
           give no positive bound, and "n/a (not linked by any games)" when no chain of games
           links the groups.
        2. Fewer than `MIN_BOOTSTRAP_BLOCKS` blocks for either agent: "n/a (too few games)".
        3. More than the tail share ``(1 - level) / 2`` of the resamples separate the two: an
           end of the percentile interval would be set by the prior, not the games, so
           "n/a (too few games)".
        4. A zero-width percentile interval (every resample repeats one pattern): likewise.
        5. Otherwise the percentile interval of the differences over the resamples holding both.

        Raises:
            ValueError: If an agent is not part of the fit.
        """
        agents = self.fit.agents
        for name in (a, b):
            if name not in agents:
                raise ValueError(f"agent {name!r} is not in the fit; agents are {list(agents)}")
        estimate = self.fit.theta[a] - self.fit.theta[b]
        if a == b:
            return Contrast("interval", 0.0, 0.0, 0.0, "")
        separated = separated_difference(self.separation, self.shared, a, b, estimate, self.level)
        if separated is not None:
            return separated
        i, j = agents.index(a), agents.index(b)
        blocks = min(self.agent_blocks[a], self.agent_blocks[b])
        tail = 0.5 * (1.0 - self.level)
        if blocks >= MIN_BOOTSTRAP_BLOCKS and self.pair_separated[i, j] > tail:
            share = self.pair_separated[i, j]
            return Contrast(
                "none",
                estimate,
                None,
                None,
                f"{TOO_FEW_GAMES}: {100 * share:.0f}% of resamples separate them",
            )
        both = self.present[:, i] & self.present[:, j]
        samples = self.raw_theta[both, i] - self.raw_theta[both, j]
        return _interval_or_none(samples, estimate, self.level, blocks)

    def seat_interval(self, num_players: int, seat: int) -> Contrast:
        """The seat effect as the games support it: "n/a" when the seats of that player count
        are separated (`seat_separation`), when fewer than `MIN_BOOTSTRAP_BLOCKS` blocks had
        that many players, or when the bootstrap interval has zero width."""
        estimate = self.fit.seat_effects[num_players][seat]
        if self.seat_separated[num_players]:
            return Contrast(
                "none", estimate, None, None, "n/a (a seat never finished behind the others)"
            )
        return _interval_or_none(
            self.seat_samples[num_players][:, seat],
            estimate,
            self.level,
            self.count_blocks[num_players],
        )

    @property
    def elo_ci(self) -> dict[str, tuple[float, float]]:
        """Strength intervals on the Elo scale."""
        return {a: (ELO_PER_NAT * lo, ELO_PER_NAT * hi) for a, (lo, hi) in self.theta_ci.items()}

    @property
    def seat_elo_ci(self) -> dict[int, tuple[tuple[float, float], ...]]:
        """Seat-effect intervals on the Elo scale."""
        return {
            n: tuple((ELO_PER_NAT * lo, ELO_PER_NAT * hi) for lo, hi in cis)
            for n, cis in self.seat_ci.items()
        }


def _percentile_ci(samples: np.ndarray, level: float) -> tuple[float, float]:
    valid = samples[~np.isnan(samples)]
    if valid.size == 0:
        return (math.nan, math.nan)
    tail = 50.0 * (1.0 - level)
    lo, hi = np.percentile(valid, [tail, 100.0 - tail])
    return (float(lo), float(hi))


def bootstrap_pl(
    results: Iterable[GameResult | Mapping[str, Any]],
    n_boot: int = 200,
    seed: int = 0,
    reference: str | None = None,
    l2: float = DEFAULT_L2,
    level: float = 0.95,
) -> PLBootstrap:
    """Percentile confidence intervals and LOS for the seat-aware Plackett–Luce fit.

    Whole blocks (games sharing a seed and seat rotation) are resampled with replacement, because
    games of one block share setup luck and are not independent; resampling single games would
    understate the uncertainty. A resample is expressed as integer game weights, so the design is
    built once and each refit warm-starts from the full-data optimum. The result depends only on
    the games and ``seed``.

    Args:
        results: Finished games.
        n_boot: Number of resamples.
        seed: Seed of the resampling generator (``numpy.random.default_rng``).
        reference: Agent fixed at 0, as in `fit_plackett_luce`.
        l2: Ridge penalty, as in `fit_plackett_luce`.
        level: Confidence level of the percentile intervals.
    """
    if not _is_int(n_boot) or n_boot < 1:
        raise ValueError(f"n_boot must be a positive integer, got {n_boot!r}")
    if not 0.0 < level < 1.0:
        raise ValueError(f"level must lie in (0, 1), got {level!r}")
    games = _require_results(results)
    problem = _PLProblem(games, reference)
    ones = np.ones(len(games))
    full = problem.solve(ones, l2)
    fit = _make_fit(problem, full.x, ones, l2, full)

    block_ids = sorted({r.block for r in games})
    block_index = {b: i for i, b in enumerate(block_ids)}
    game_block = np.array([block_index[r.block] for r in games])
    n_blocks = len(block_ids)
    k = len(problem.agents)
    ref = problem.agents.index(problem.reference)
    rng = np.random.default_rng(seed)

    raw_theta = np.empty((n_boot, k))
    present = np.zeros((n_boot, k), dtype=bool)
    seat_samples = {n: np.full((n_boot, n), np.nan) for n in problem.player_counts}
    resample_weights: list[np.ndarray] = []
    for b in range(n_boot):
        draws = np.bincount(rng.integers(0, n_blocks, n_blocks), minlength=n_blocks)
        weights = draws[game_block].astype(float)
        resample_weights.append(weights)
        result = problem.solve(weights, l2, x0=full.x)
        theta, delta = problem.unpack(result.x)
        raw_theta[b] = theta
        present[b] = np.bincount(problem.entry_agent, weights[problem.entry_game], k) > 0
        for n in problem.player_counts:
            if weights[problem.games_per_count[n]].sum() > 0:
                o = problem.seat_offset[n]
                seat_samples[n][b] = delta[o : o + n]

    theta_samples = np.where(present & present[:, [ref]], raw_theta, np.nan)
    agent_index = {a: i for i, a in enumerate(problem.agents)}
    pair_game, pair_i, pair_j = _level_pairs(games, lambda r, s: agent_index[r.seats[s]])
    separated_count = np.zeros((k, k))
    both_count = np.zeros((k, k))
    for b in range(n_boot):
        keep = resample_weights[b][pair_game] > 0
        labels = _strong_components(k, pair_i[keep], pair_j[keep])
        both = present[b][:, None] & present[b][None, :]
        both_count += both
        separated_count += both & (labels[:, None] != labels[None, :])
    with np.errstate(invalid="ignore", divide="ignore"):
        pair_separated = np.where(both_count > 0, separated_count / both_count, np.nan)
    theta_ci = {a: _percentile_ci(theta_samples[:, i], level) for i, a in enumerate(problem.agents)}
    seat_ci = {
        n: tuple(_percentile_ci(s[:, j], level) for j in range(n)) for n, s in seat_samples.items()
    }
    los = np.full((k, k), np.nan)
    for i in range(k):
        for j in range(k):
            both = present[:, i] & present[:, j]
            if i == j or not both.any():
                continue
            diff = raw_theta[both, i] - raw_theta[both, j]
            los[i, j] = float(np.mean((diff > 0) + 0.5 * (diff == 0)))
    return PLBootstrap(
        fit=fit,
        n_boot=n_boot,
        n_blocks=n_blocks,
        level=level,
        seed=seed,
        theta_samples=theta_samples,
        seat_samples=seat_samples,
        theta_ci=theta_ci,
        seat_ci=seat_ci,
        los=los,
        present=present,
        raw_theta=raw_theta,
        separation=_separation_of(games, problem.agents, np.array(list(fit.theta.values()))),
        pair_separated=pair_separated,
        agent_blocks={a: len({r.block for r in games if a in r.seats}) for a in problem.agents},
        shared=shared_blocks(games),
        seat_separated=seat_separation(games),
        count_blocks={
            n: len({r.block for r in games if r.num_players == n}) for n in problem.player_counts
        },
    )


# --------------------------------------------------------------------------------------------------
# OpenSkill live ladder
# --------------------------------------------------------------------------------------------------


def _dense_ranks(ranks: Sequence[float]) -> list[int]:
    """Map average ranks to dense integer ranks (1.5, 1.5, 3 -> 1, 1, 2).

    OpenSkill 6.2 does not treat fractional ranks as positions (ranks 1, 1.5, 1.5 produce no
    update at all), while equal integers are handled as ties; dense integers keep the order and the
    ties, which is all a rank-based update uses.
    """
    order = {value: i + 1 for i, value in enumerate(sorted({round(r, 6) for r in ranks}))}
    return [order[round(r, 6)] for r in ranks]


def openskill_ladder(
    results: Iterable[GameResult | Mapping[str, Any]], tau: float = 0.0
) -> dict[str, dict[str, float]]:
    """Online OpenSkill Plackett–Luce ratings, updated game by game in ``game_id`` order.

    Meant for dashboards and matchmaking while a tournament runs. ``tau`` is OpenSkill's skill
    drift; 0 suits frozen checkpoints, whose skill does not change between games. Each seat is a
    one-player team. When an agent holds several seats of one game its new rating is the mean of
    the seats' updated ``mu`` and ``sigma``, so a game against itself leaves ``mu`` unchanged.

    Returns:
        ``{agent: {"mu", "sigma", "ordinal", "games"}}`` sorted best first by ordinal
        (``mu - 3 sigma``, OpenSkill's conservative estimate).
    """
    games = _require_results(results)
    model = PlackettLuce(tau=tau)
    ratings: dict[str, Any] = {}
    played: dict[str, int] = defaultdict(int)
    for r in sorted(games, key=lambda g: g.game_id):
        # A fresh copy per seat: OpenSkill updates rating objects in place, so one object in two
        # seats of a self-play game would absorb both updates.
        current = [ratings.setdefault(a, model.rating(name=a)) for a in r.seats]
        teams = [
            [model.rating(mu=c.mu, sigma=c.sigma, name=a)]
            for a, c in zip(r.seats, current, strict=True)
        ]
        updated = model.rate(teams, ranks=_dense_ranks(r.ranks))
        per_agent: dict[str, list[Any]] = defaultdict(list)
        for agent, team in zip(r.seats, updated, strict=True):
            per_agent[agent].append(team[0])
            played[agent] += 1
        for agent, new in per_agent.items():
            mu = sum(x.mu for x in new) / len(new)
            sigma = sum(x.sigma for x in new) / len(new)
            ratings[agent] = model.rating(mu=mu, sigma=sigma, name=agent)
    table = {
        a: {
            "mu": float(rating.mu),
            "sigma": float(rating.sigma),
            "ordinal": float(rating.ordinal()),
            "games": played[a],
        }
        for a, rating in ratings.items()
    }
    return dict(sorted(table.items(), key=lambda item: (-item[1]["ordinal"], item[0])))
