"""Tournament statistics for multi-player Caylus games: win rates, seats, crosstables and ratings.

The input is one `GameResult` per finished game (one line of a tournament's ``games.jsonl``). From a
sequence of them this module computes:

- assumption-free numbers: win rate with a Wilson 95% interval, mean rank, mean prestige and mean
  margin per agent (`agent_summary`), per-seat rates per player count (`seat_table`) and the
  "finished ahead of" crosstable (`head_to_head`);
- the headline rating: a batch maximum-likelihood Plackett–Luce fit over full finishing orders with
  one effect per (player count, seat) (`fit_plackett_luce`), on an Elo-like scale, with 95% CIs and
  a likelihood-of-superiority matrix from a bootstrap over seed blocks (`bootstrap_pl`);
- a live ladder with OpenSkill's Plackett–Luce model (`openskill_ladder`), for dashboards and
  matchmaking only: online ratings depend on game order and ignore seats, so final numbers should
  come from the batch fit (see shared/design/evaluation-datasets-scale.md, section (b)).

Conventions used throughout:

- Ranks are 1 = best; tied players share the average of the positions they occupy (two players
  tied for first both get 1.5). A player *wins* a game when their rank equals the best rank in that
  game, so a tie for first place counts as a (shared) win for every tied player, as the rules say.
- An agent that occupies several seats of one game (self-play) is counted once per seat.
- Elo-scale numbers are ``400 / ln(10) * theta`` where ``theta`` is the Plackett–Luce log-strength,
  so a two-player expectation follows the usual logistic Elo curve.

The module depends only on NumPy, SciPy and OpenSkill; it knows nothing about the game engine.
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
        prestige: Final prestige per seat.
        ranks: Finishing rank per seat, 1 = best, ties share the average rank.
        forfeit: Per seat, whether that agent forfeited (crash, timeout, illegal action), or None
            when the harness did not record it. Forfeits are expected to be reflected in ``ranks``
            already; they are only counted, never reinterpreted.
    """

    game_id: int
    seed: int
    block: int
    num_players: int
    seats: tuple[str, ...]
    prestige: tuple[int, ...]
    ranks: tuple[float, ...]
    forfeit: tuple[bool, ...] | None = None

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
        for name in ("seats", "prestige", "ranks"):
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
        if not all(_is_int(p) for p in self.prestige):
            raise InvalidResultError(
                f"{where}: field 'prestige' must hold integers: {self.prestige!r}"
            )
        if not all(_is_real(r) for r in self.ranks):
            raise InvalidResultError(
                f"{where}: field 'ranks' must hold finite numbers: {self.ranks!r}"
            )
        object.__setattr__(self, "seats", tuple(self.seats))
        object.__setattr__(self, "prestige", tuple(int(p) for p in self.prestige))
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
        for key in ("game_id", "seed", "num_players", "seats", "prestige", "ranks"):
            if key not in data:
                raise InvalidResultError(f"game result is missing field {key!r}")
        forfeit = data.get("forfeit")
        return cls(
            game_id=data["game_id"],
            seed=data["seed"],
            block=data.get("block", data["game_id"]),
            num_players=data["num_players"],
            seats=_as_tuple(data["seats"], "seats"),
            prestige=_as_tuple(data["prestige"], "prestige"),
            ranks=_as_tuple(data["ranks"], "ranks"),
            forfeit=None if forfeit is None else _as_tuple(forfeit, "forfeit"),
        )

    def to_dict(self) -> dict[str, Any]:
        """Return the JSON-ready form read by `from_dict` (``forfeit`` omitted when unknown)."""
        out: dict[str, Any] = {
            "game_id": self.game_id,
            "seed": self.seed,
            "block": self.block,
            "num_players": self.num_players,
            "seats": list(self.seats),
            "prestige": list(self.prestige),
            "ranks": list(self.ranks),
        }
        if self.forfeit is not None:
            out["forfeit"] = list(self.forfeit)
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

    Raises:
        InvalidResultError: On malformed JSON or an invalid result; the message names the line.
    """
    out = []
    with open(path, encoding="utf-8") as handle:
        for lineno, line in enumerate(handle, start=1):
            if not line.strip():
                continue
            try:
                out.append(GameResult.from_dict(json.loads(line)))
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
    """Per-agent games, wins, Wilson win-rate interval, mean rank, prestige and margin.

    The margin of a seat is its prestige minus the best prestige among the *other* seats of the
    game, so it is positive exactly when the seat finished strictly ahead on prestige and tells how
    close the games were. Self-play counts once per seat.

    Returns:
        ``{agent: {"games", "wins", "forfeits", "win_rate", "win_ci", "mean_rank",
        "mean_prestige", "mean_margin"}}`` sorted by agent name.
    """
    games = _require_results(results)
    acc: dict[str, dict[str, float]] = defaultdict(
        lambda: {"games": 0, "wins": 0, "forfeits": 0, "rank": 0.0, "prestige": 0.0, "margin": 0.0}
    )
    for r in games:
        for seat, agent in enumerate(r.seats):
            best_other = max(p for s, p in enumerate(r.prestige) if s != seat)
            a = acc[agent]
            a["games"] += 1
            a["wins"] += int(r.is_win(seat))
            a["forfeits"] += int(bool(r.forfeit and r.forfeit[seat]))
            a["rank"] += r.ranks[seat]
            a["prestige"] += r.prestige[seat]
            a["margin"] += r.prestige[seat] - best_other
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
            "mean_prestige": a["prestige"] / n,
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
    for b in range(n_boot):
        draws = np.bincount(rng.integers(0, n_blocks, n_blocks), minlength=n_blocks)
        weights = draws[game_block].astype(float)
        result = problem.solve(weights, l2, x0=full.x)
        theta, delta = problem.unpack(result.x)
        raw_theta[b] = theta
        present[b] = np.bincount(problem.entry_agent, weights[problem.entry_game], k) > 0
        for n in problem.player_counts:
            if weights[problem.games_per_count[n]].sum() > 0:
                o = problem.seat_offset[n]
                seat_samples[n][b] = delta[o : o + n]

    theta_samples = np.where(present & present[:, [ref]], raw_theta, np.nan)
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
