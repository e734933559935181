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
  than the game as the unit keeps the variance honest. The LLR uses fishtest's normal
  approximation over the empirical score distribution:
  ``LLR = n (p1 - p0) (2 mean - p0 - p1) / (2 var)``, with ``mean`` and ``var`` the sample mean
  and (population) variance of the block scores. Any block score in [0, 1] is accepted, so the
  same test serves N-player seat-rotated blocks (block score in {0, 1/N, ..., 1}).

Both tests stop when the LLR leaves ``(ln(beta / (1 - alpha)), ln((1 - beta) / alpha))``: "H1" at
the upper bound (candidate better), "H0" at the lower. ``min_n`` keeps early lucky streaks from
deciding (the GSPRT's variance is unreliable on a handful of blocks, so it defaults to
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

Model = Literal["bernoulli", "gsprt"]
Decision = Literal["H0", "H1"]

GSPRT_DEFAULT_MIN_N = 20
"""Default floor of the GSPRT: its LLR divides by the sample variance of the block scores, which
is 0 after one block and very noisy for a handful, so a tiny sample could otherwise decide."""


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

    Example:
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
        var_floor: Smallest variance the GSPRT divides by, so identical early scores give a large
            but finite LLR.
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
        var_floor: float = 1e-6,
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
        if var_floor <= 0.0:
            raise ValueError(f"var_floor must be positive, got {var_floor!r}")
        self.p0 = float(p0)
        self.p1 = float(p1)
        self.alpha = float(alpha)
        self.beta = float(beta)
        self.model: Model = model
        self.min_n = int(min_n)
        self.max_n = None if max_n is None else int(max_n)
        self.var_floor = float(var_floor)
        self._lower = math.log(beta / (1.0 - alpha))
        self._upper = math.log((1.0 - beta) / alpha)
        self._win_step = math.log(p1 / p0)
        self._loss_step = math.log((1.0 - p1) / (1.0 - p0))
        self._n = 0
        self._llr = 0.0
        self._total = 0.0
        self._mean = 0.0
        self._m2 = 0.0
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
        self._n += 1
        n = self._n
        if self.model == "bernoulli":
            if x == 1:
                self._llr += self._win_step
            elif x == 0:
                self._llr += self._loss_step
            else:
                self._n -= 1
                raise ValueError(f"Bernoulli outcomes must be 0 or 1, got {x!r}")
            self._total += x
        else:
            if not 0.0 <= x <= 1.0:
                self._n -= 1
                raise ValueError(f"block scores must lie in [0, 1], got {x!r}")
            self._total += x
            delta = x - self._mean
            self._mean += delta / n
            self._m2 += delta * (x - self._mean)
            var = max(self._m2 / n, self.var_floor)
            self._llr = (
                n * (self.p1 - self.p0) * (2.0 * self._mean - self.p0 - self.p1) / (2.0 * var)
            )
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

    def update_many(self, xs: Iterable[float]) -> Decision | None:
        """Add several observations in order; return the decision afterwards."""
        for x in xs:
            self.update(x)
        return self._decision

    def _decide(self, decision: Decision) -> None:
        self._decision = decision
        self._decided_at = self._n

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready state and settings (the LLR trace excluded; it is in `trace`)."""
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
