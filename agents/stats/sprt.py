"""Sequential probability ratio tests for gating a candidate agent, in the style of fishtest.

A gate asks "is the candidate's expected score ``p0`` (no better) or ``p1`` (better by the margin
we care about)?" and stops as soon as the evidence is strong enough, which on average costs about
half the games of a fixed-size test with the same error rates. Two tests share one class, `SPRT`:

- ``model="bernoulli"``: Wald's SPRT on independent win/loss outcomes. Each win adds
  ``ln(p1 / p0)`` to the log-likelihood ratio (LLR), each loss ``ln((1 - p1) / (1 - p0))``.
- ``model="gsprt"``: a generalised SPRT on the scores of independent *blocks*. For two players a
  block is a pair of games on one seed with the seats swapped, and the pair score
  ``(score of game 1 + score of game 2) / 2`` lies in {0, 0.25, 0.5, 0.75, 1} (fishtest's
  pentanomial model). Pairs cancel most of the seat and setup luck, and treating the pair rather
  than the game as the unit keeps the variance honest. Any block score in [0, 1] is accepted, so
  the same test serves N-player seat-rotated blocks (block score in {0, 1/N, ..., 1}).

  The LLR is the generalised likelihood ratio of the *multinomial* over the observed score values,
  as in fishtest's ``LLRcalc``: for each hypothesis the block-score distribution is the
  maximum-likelihood one among those whose mean is ``p0`` (or ``p1``), and
  ``LLR = sum_i n_i ln(q1_i / q0_i)`` over the observed values ``i``. The constrained maximum has
  the empirical-likelihood form ``q_i = f_i / (1 + lambda (x_i - p))``, with ``lambda`` the root
  of ``sum_i f_i (x_i - p) / (1 + lambda (x_i - p)) = 0`` (`_constrained_mle`).

  The empirical distribution alone cannot have a mean it does not span: when every block scored
  0 (a weak candidate losing every game) no distribution on {0} has mean 0.5. Like fishtest's
  ``regularize`` (which gives empty pentanomial cells a count of 1e-3) the test adds a pseudo-count
  of `PSEUDO_COUNT` blocks at each end of the score range, 0 and 1, which any block can score.
  That is a vanishingly weak prior, but it makes the LLR finite and meaningful in every case: after
  ``n`` blocks that all scored 0 it is ``n ln((1 - p1) / (1 - p0))``, exactly the evidence of ``n``
  straight losses in the Bernoulli test (-0.105 per block for 0.50 against 0.55). The usual
  shortcut ``n (p1 - p0) (2 mean - p0 - p1) / (2 var)`` (a normal approximation of the same GLR)
  divides by the sample variance instead, which is 0 when all blocks score the same, so no
  variance floor makes it meaningful there (a floor of 1e-6 gave -525,000 after 20 lost pairs).

Both tests stop when the LLR leaves ``(ln(beta / (1 - alpha)), ln((1 - beta) / alpha))``: "H1" at
the upper bound (candidate better), "H0" at the lower. ``min_n`` keeps early lucky streaks from
deciding (the GSPRT's empirical distribution is unreliable on a handful of blocks, so it defaults to
`GSPRT_DEFAULT_MIN_N` there; the design note recommends about 100 blocks for gating), and
``max_n`` truncates the long tail: at the cap the test decides by the sign of the LLR and flags
the decision as truncated. A decision is final; later updates still move the LLR and counts, so results that
were already in flight can be recorded, but never change the verdict.
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from typing import Any, Literal

import scipy.optimize
import scipy.stats

Model = Literal["bernoulli", "gsprt"]
Decision = Literal["H0", "H1"]

GSPRT_DEFAULT_MIN_N = 20
"""Default floor of the GSPRT: its LLR fits the score distribution to the blocks seen so far, which
after one block is a single point and for a handful is very noisy, so a tiny sample could otherwise
decide."""

PSEUDO_COUNT = 1e-3
"""Blocks of prior weight the GSPRT puts at each end of the score range (0 and 1); fishtest's
``regularize`` uses the same 1e-3 for empty pentanomial cells. See the module docstring."""


def _constrained_mle(
    values: list[float], weights: list[float], mean: float, guess: float | None = None
) -> tuple[list[float], float]:
    """Denominators ``d_i`` of the maximum-likelihood distribution ``q_i = f_i / d_i`` with mean
    ``mean``, over ``values`` that include 0 and 1 with positive weight (see the module docstring).

    ``d_i = 1 + lambda (x_i - mean)`` must stay positive. The root is sought in ``u = ln t``, with
    ``t`` the denominator of the end of the range the root approaches (1 when the weighted mean
    is below ``mean``, else 0): that avoids cancellation where ``t`` is tiny, and since
    ``q = f / t <= 1`` at that end the root lies in ``[ln f_end, 0]``, a bracket known in advance.
    Newton steps, warm-started from ``guess`` (the previous root) and replaced by bisection
    whenever they would leave the bracket, take a handful of iterations per update.

    Returns:
        The denominators and the root ``u`` (the next call's ``guess``).
    """
    total = sum(weights)
    freq = [w / total for w in weights]
    gap = sum(f * x for f, x in zip(freq, values, strict=True)) - mean
    if gap == 0.0:
        return [1.0] * len(values), 0.0
    # h(u) = sign * g(lambda(u)) increases with u, is <= 0 at u = ln f_end and equals |gap| at 0.
    if gap < 0.0:  # lambda < 0; the end x = 1 has d = t
        end, scale, sign = values.index(1.0), 1.0 - mean, -1.0
    else:  # lambda > 0; the end x = 0 has d = t
        end, scale, sign = values.index(0.0), -mean, 1.0
    lo, hi = math.log(freq[end]), 0.0

    def denominators(u: float) -> list[float]:
        t = math.exp(u)
        lam = (t - 1.0) / scale
        return [t if i == end else 1.0 + lam * (x - mean) for i, x in enumerate(values)]

    u = guess if guess is not None and lo < guess < hi else 0.5 * (lo + hi)
    for _ in range(200):
        dens = denominators(u)
        terms = [f * (x - mean) / d for f, x, d in zip(freq, values, dens, strict=True)]
        h = sign * sum(terms)
        if abs(h) <= 1e-13:
            break
        if h < 0.0:
            lo = u
        else:
            hi = u
        # dh/du = sign * g'(lambda) * dlambda/du, with g' = -sum f (x - mean)^2 / d^2.
        slope = (
            -sign
            * math.exp(u)
            / scale
            * sum(term * (x - mean) / d for term, x, d in zip(terms, values, dens, strict=True))
        )
        step = u - h / slope if slope > 0.0 else math.nan
        u_next = step if lo < step < hi else 0.5 * (lo + hi)
        if abs(u_next - u) <= 1e-13 or hi - lo <= 1e-13:
            u = u_next
            dens = denominators(u)
            break
        u = u_next
    return dens, u


def score_to_elo(score: float) -> float:
    """Logistic Elo difference whose expected score is ``score`` (0 < score < 1)."""
    if not 0.0 < score < 1.0:
        raise ValueError(f"score must lie in (0, 1), got {score!r}")
    return -400.0 * math.log10(1.0 / score - 1.0)


def elo_to_score(elo: float) -> float:
    """Expected score of a logistic Elo difference, e.g. to set ``p1`` from an Elo margin."""
    return 1.0 / (1.0 + 10.0 ** (-elo / 400.0))


def pair_score(first: float, second: float) -> float:
    """Score of a seat-swapped pair from the candidate's score in each game (1, 0.5 or 0)."""
    for value in (first, second):
        if not 0.0 <= value <= 1.0:
            raise ValueError(f"game scores must lie in [0, 1], got {value!r}")
    return (first + second) / 2.0


class SPRT:
    """A truncated (G)SPRT on the candidate's expected score; see the module docstring.

    Examples:
        >>> test = SPRT(p0=0.5, p1=0.55, model="bernoulli")
        >>> for outcome in (1, 0, 1):
        ...     decision = test.update(outcome)
        >>> test.n, test.decision
        (3, None)

    Args:
        p0: Expected score under H0.
        p1: Expected score under H1; must exceed ``p0``.
        alpha: Probability of accepting H1 when H0 holds.
        beta: Probability of accepting H0 when H1 holds.
        model: ``"bernoulli"`` for win/loss outcomes, ``"gsprt"`` for block scores.
        min_n: No decision before this many observations. None means 0 for ``"bernoulli"`` and
            `GSPRT_DEFAULT_MIN_N` for ``"gsprt"``.
        max_n: Decide by the sign of the LLR once this many observations arrived (None: never).
    """

    def __init__(
        self,
        p0: float = 0.5,
        p1: float = 0.55,
        alpha: float = 0.05,
        beta: float = 0.05,
        *,
        model: Model = "bernoulli",
        min_n: int | None = None,
        max_n: int | None = None,
    ) -> None:
        if not 0.0 < p0 < p1 < 1.0:
            raise ValueError(f"need 0 < p0 < p1 < 1, got p0={p0!r}, p1={p1!r}")
        if not (0.0 < alpha < 1.0 and 0.0 < beta < 1.0 and alpha + beta < 1.0):
            raise ValueError(f"need 0 < alpha, beta and alpha + beta < 1, got {alpha!r}, {beta!r}")
        if model not in ("bernoulli", "gsprt"):
            raise ValueError(f"model must be 'bernoulli' or 'gsprt', got {model!r}")
        if min_n is None:
            min_n = GSPRT_DEFAULT_MIN_N if model == "gsprt" else 0
        if min_n < 0 or (max_n is not None and max_n < max(min_n, 1)):
            raise ValueError(f"need 0 <= min_n <= max_n and max_n >= 1, got {min_n!r}, {max_n!r}")
        self.p0 = float(p0)
        self.p1 = float(p1)
        self.alpha = float(alpha)
        self.beta = float(beta)
        self.model: Model = model
        self.min_n = int(min_n)
        self.max_n = None if max_n is None else int(max_n)
        self._lower = math.log(beta / (1.0 - alpha))
        self._upper = math.log((1.0 - beta) / alpha)
        self._win_step = math.log(p1 / p0)
        self._loss_step = math.log((1.0 - p1) / (1.0 - p0))
        self._n = 0
        self._llr = 0.0
        self._total = 0.0
        self._mean = 0.0
        self._m2 = 0.0
        self._counts: dict[float, int] = {}
        self._roots: list[float | None] = [None, None]  # warm starts of the two constrained fits
        self._decision: Decision | None = None
        self._decided_at: int | None = None
        self._truncated = False
        self.trace: list[float] = []
        """LLR after each observation, for plots and logs."""

    @property
    def n(self) -> int:
        """Number of observations (games for Bernoulli, blocks for the GSPRT)."""
        return self._n

    @property
    def llr(self) -> float:
        """Current log-likelihood ratio of H1 against H0."""
        return self._llr

    @property
    def bounds(self) -> tuple[float, float]:
        """``(lower, upper)`` LLR stopping bounds."""
        return (self._lower, self._upper)

    @property
    def decision(self) -> Decision | None:
        """The verdict: "H1" (candidate better), "H0" (not better) or None while undecided."""
        return self._decision

    @property
    def decided_at(self) -> int | None:
        """Observation count at which the decision was taken."""
        return self._decided_at

    @property
    def truncated(self) -> bool:
        """Whether the decision came from the ``max_n`` cap rather than a bound."""
        return self._truncated

    @property
    def mean(self) -> float:
        """Mean score so far (NaN before the first observation)."""
        return self._total / self._n if self._n else math.nan

    @property
    def variance(self) -> float:
        """Population variance of the scores so far (NaN before the first observation)."""
        return self._m2 / self._n if self._n else math.nan

    def update(self, x: float) -> Decision | None:
        """Add one observation and return the (possibly still pending) decision.

        Args:
            x: For ``"bernoulli"``, 1/True for a win and 0/False for a loss. For ``"gsprt"``,
                a block score in [0, 1], e.g. from `pair_score`; games that can end in a shared
                win (score 0.5) need the GSPRT, since a Bernoulli outcome has no draws.

        Raises:
            ValueError: If ``x`` is not a valid observation for the model.
        """
        if self.model == "bernoulli":
            if x not in (0, 1):
                raise ValueError(f"Bernoulli outcomes must be 0 or 1, got {x!r}")
        elif not 0.0 <= x <= 1.0:
            raise ValueError(f"block scores must lie in [0, 1], got {x!r}")
        x = float(x)
        self._n += 1
        n = self._n
        self._total += x
        delta = x - self._mean
        self._mean += delta / n
        self._m2 += delta * (x - self._mean)
        self._counts[x] = self._counts.get(x, 0) + 1
        if self.model == "bernoulli":
            self._llr += self._win_step if x == 1.0 else self._loss_step
        else:
            self._llr = self._glr()
        self.trace.append(self._llr)
        if self._decision is None and n >= self.min_n:
            if self._llr >= self._upper:
                self._decide("H1")
            elif self._llr <= self._lower:
                self._decide("H0")
            elif self.max_n is not None and n >= self.max_n:
                self._truncated = True
                self._decide("H1" if self._llr > 0.0 else "H0")
        return self._decision

    def _regularised(self) -> tuple[list[float], list[float]]:
        """Observed score values with their counts, plus `PSEUDO_COUNT` at 0 and at 1."""
        counts = dict(self._counts)
        for end in (0.0, 1.0):
            counts[end] = counts.get(end, 0) + PSEUDO_COUNT
        values = sorted(counts)
        return values, [counts[v] for v in values]

    def _glr(self) -> float:
        """Generalised log-likelihood ratio of mean ``p1`` against ``p0`` (module docstring)."""
        values, weights = self._regularised()
        d0, self._roots[0] = _constrained_mle(values, weights, self.p0, self._roots[0])
        d1, self._roots[1] = _constrained_mle(values, weights, self.p1, self._roots[1])
        return sum(w * math.log(a / b) for w, a, b in zip(weights, d0, d1, strict=True))

    def score_interval(self, level: float = 0.95) -> tuple[float, float]:
        """Empirical-likelihood interval for the expected score (per game or per block).

        The set of means ``p`` whose constrained maximum likelihood (the same fit as the GSPRT's,
        pseudo-counts included) lies within ``chi2_1(level) / 2`` of the unconstrained one: Owen's
        empirical likelihood, which for win/loss outcomes is the binomial likelihood-ratio interval.
        It never has zero width: 40 lost pairs give about [0, 0.047], where a normal interval
        around a sample variance of 0 would claim certainty.

        Returns:
            ``(lo, hi)`` inside [0, 1]; ``(0.0, 1.0)`` before the first observation.

        Raises:
            ValueError: If ``level`` is not in (0, 1).
        """
        if not 0.0 < level < 1.0:
            raise ValueError(f"level must lie in (0, 1), got {level!r}")
        if self._n == 0:
            return (0.0, 1.0)
        values, weights = self._regularised()
        centre = sum(v * w for v, w in zip(values, weights, strict=True)) / sum(weights)
        limit = 0.5 * float(scipy.stats.chi2.ppf(level, 1))

        def excess(p: float) -> float:
            dens, _ = _constrained_mle(values, weights, p)
            return sum(w * math.log(d) for w, d in zip(weights, dens, strict=True)) - limit

        tiny = 1e-12
        lo = 0.0 if excess(tiny) <= 0.0 else scipy.optimize.brentq(excess, tiny, centre)
        hi = 1.0 if excess(1.0 - tiny) <= 0.0 else scipy.optimize.brentq(excess, centre, 1 - tiny)
        return (float(lo), float(hi))

    def update_many(self, xs: Iterable[float]) -> Decision | None:
        """Add several observations in order; return the decision afterwards."""
        for x in xs:
            self.update(x)
        return self._decision

    def _decide(self, decision: Decision) -> None:
        self._decision = decision
        self._decided_at = self._n

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready state and settings (the LLR trace excluded; it is in `trace`).

        ``score_ci`` is the 95% `score_interval` of the expected score.
        """
        mean = self.mean
        var = self.variance
        return {
            "model": self.model,
            "p0": self.p0,
            "p1": self.p1,
            "elo0": score_to_elo(self.p0),
            "elo1": score_to_elo(self.p1),
            "alpha": self.alpha,
            "beta": self.beta,
            "min_n": self.min_n,
            "max_n": self.max_n,
            "n": self._n,
            "mean": None if math.isnan(mean) else mean,
            "variance": None if math.isnan(var) else var,
            "score_ci": list(self.score_interval()),
            "llr": self._llr,
            "bounds": [self._lower, self._upper],
            "decision": self._decision,
            "decided_at": self._decided_at,
            "truncated": self._truncated,
        }


def wald_expected_n(
    p: float, p0: float, p1: float, alpha: float = 0.05, beta: float = 0.05
) -> float:
    """Wald's approximation of the expected sample size of the Bernoulli SPRT when the truth is p.

    Ignores the overshoot past the bounds, so simulated means run a few percent higher. Used to plan
    budgets (``p = p0`` and ``p = p1`` give about 527 and 529 games for 0.50 vs 0.55).

    Returns:
        Expected number of games for an untruncated test.
    """
    if not 0.0 < p0 < p1 < 1.0 or not 0.0 < p < 1.0:
        raise ValueError(f"need 0 < p0 < p1 < 1 and 0 < p < 1, got {p!r}, {p0!r}, {p1!r}")
    log_a = math.log((1.0 - beta) / alpha)
    log_b = math.log(beta / (1.0 - alpha))
    win = math.log(p1 / p0)
    loss = math.log((1.0 - p1) / (1.0 - p0))
    drift = p * win + (1.0 - p) * loss
    if abs(drift) < 1e-12:
        return -log_a * log_b / (p * win * win + (1.0 - p) * loss * loss)

    # Operating characteristic: h != 0 solves E[exp(h * step)] = 1; P(accept H0) follows from h.
    def moment(h: float) -> float:
        return p * math.exp(h * win) + (1.0 - p) * math.exp(h * loss) - 1.0

    sign = 1.0 if drift < 0 else -1.0
    upper = 1.0
    while moment(sign * upper) <= 0.0:
        upper *= 2.0
    h = sign * scipy.optimize.brentq(lambda t: moment(sign * t), 1e-6, upper)
    accept_h0 = (math.exp(h * log_a) - 1.0) / (math.exp(h * log_a) - math.exp(h * log_b))
    return (accept_h0 * log_b + (1.0 - accept_h0) * log_a) / drift
