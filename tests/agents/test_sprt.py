"""Tests for agents.stats.sprt: exact LLR paths, truncation, and simulated error rates."""

from __future__ import annotations

import json
import math

import numpy as np
import pytest
import scipy.optimize

from agents.stats.sprt import (
    PSEUDO_COUNT,
    SPRT,
    elo_to_score,
    pair_score,
    score_to_elo,
    wald_expected_n,
)

WIN = math.log(0.55 / 0.50)
LOSS = math.log(0.45 / 0.50)
BOUND = math.log(0.95 / 0.05)


def run_bernoulli(p: float, runs: int, seed: int) -> tuple[float, float]:
    """Share of runs accepting H1 and mean games, for a true win probability ``p``."""
    rng = np.random.default_rng(seed)
    accepted, games = 0, 0
    for _ in range(runs):
        test = SPRT(0.5, 0.55, 0.05, 0.05)
        for outcome in (rng.random(6000) < p).tolist():
            if test.update(outcome) is not None:
                break
        assert test.decision is not None and not test.truncated
        accepted += test.decision == "H1"
        games += test.n
    return accepted / runs, games / runs


def test_bounds_and_initial_state():
    test = SPRT(0.5, 0.55, 0.05, 0.05)
    assert test.bounds == (pytest.approx(-BOUND), pytest.approx(BOUND))
    assert test.bounds[1] == pytest.approx(2.944, abs=1e-3)
    assert (test.n, test.llr, test.decision) == (0, 0.0, None)
    assert math.isnan(test.mean)


def test_bernoulli_llr_path_on_a_fixed_sequence():
    test = SPRT(0.5, 0.55)
    assert test.update(1) is None
    assert test.update(0) is None
    assert test.update(True) is None
    assert test.llr == pytest.approx(2 * WIN + LOSS)
    assert test.trace == pytest.approx([WIN, WIN + LOSS, 2 * WIN + LOSS])
    # A winning streak crosses the upper bound after ceil(2.944 / ln 1.1) = 31 wins.
    streak = SPRT(0.5, 0.55)
    assert streak.update_many([1] * 40) == "H1"
    assert streak.decided_at == math.ceil(BOUND / WIN) == 31
    assert not streak.truncated
    # And a losing streak the lower bound after ceil(2.944 / -ln 0.9) = 28 losses.
    slump = SPRT(0.5, 0.55)
    assert slump.update_many([0] * 40) == "H0"
    assert slump.decided_at == math.ceil(BOUND / -LOSS) == 28


def test_decision_is_final_but_later_results_are_recorded():
    test = SPRT(0.5, 0.55)
    test.update_many([1] * 31)
    assert test.decision == "H1"
    test.update_many([0] * 100)
    assert test.llr < test.bounds[0]
    assert (test.decision, test.decided_at, test.n) == ("H1", 31, 131)


def test_minimum_sample_delays_the_decision():
    test = SPRT(0.5, 0.55, min_n=50)
    for _ in range(49):
        assert test.update(1) is None
    assert test.update(1) == "H1"
    assert test.decided_at == 50


def test_truncation_decides_by_the_sign_of_the_llr():
    # Alternating results: LLR falls by ln(0.99) per pair and never reaches a bound in 100 games.
    down = SPRT(0.5, 0.55, max_n=100)
    assert down.update_many([1, 0] * 50) == "H0"
    assert down.truncated and down.decided_at == 100
    assert down.llr == pytest.approx(50 * (WIN + LOSS))
    # Two wins in three games: LLR rises by 2 ln 1.1 + ln 0.9 per triple.
    up = SPRT(0.5, 0.55, max_n=30)
    assert up.update_many([1, 1, 0] * 10) == "H1"
    assert up.truncated
    assert up.llr == pytest.approx(10 * (2 * WIN + LOSS))


def test_invalid_arguments_and_observations():
    with pytest.raises(ValueError):
        SPRT(0.55, 0.5)
    with pytest.raises(ValueError):
        SPRT(0.5, 0.55, alpha=0.6, beta=0.5)
    with pytest.raises(ValueError):
        SPRT(0.5, 0.55, model="trinomial")  # type: ignore[arg-type]
    with pytest.raises(ValueError):
        SPRT(0.5, 0.55, min_n=10, max_n=5)
    bern = SPRT(0.5, 0.55)
    with pytest.raises(ValueError):
        bern.update(0.5)
    assert bern.n == 0
    pairs = SPRT(0.5, 0.55, model="gsprt")
    with pytest.raises(ValueError):
        pairs.update(1.5)
    assert pairs.n == 0


def constrained_loglik(values, weights, mean: float) -> float:
    """Max of sum w ln q over distributions q on ``values`` with the given mean, by SLSQP.

    An independent, brute-force computation of what the GSPRT solves in closed form.
    """
    x = np.asarray(values, float)
    w = np.asarray(weights, float)
    result = scipy.optimize.minimize(
        lambda q: -np.sum(w * np.log(np.maximum(q, 1e-300))),
        np.full(len(x), 1.0 / len(x)),
        method="SLSQP",
        bounds=[(1e-12, 1.0)] * len(x),
        constraints=[
            {"type": "eq", "fun": lambda q: np.sum(q) - 1.0},
            {"type": "eq", "fun": lambda q: q @ x - mean},
        ],
        options={"ftol": 1e-14, "maxiter": 500},
    )
    assert result.success, result.message
    return -result.fun


def test_gsprt_llr_is_the_multinomial_glr_with_pseudo_counts():
    test = SPRT(0.5, 0.55, model="gsprt")
    data = [1.0, 0.75, 0.5, 0.75, 0.25]
    test.update_many(data)
    assert test.mean == pytest.approx(0.65)
    assert test.variance == pytest.approx(0.065)
    # Observed values with their counts, plus the pseudo-counts at both ends of [0, 1].
    values = [0.0, 0.25, 0.5, 0.75, 1.0]
    weights = [PSEUDO_COUNT, 1, 1, 2, 1 + PSEUDO_COUNT]
    expected = constrained_loglik(values, weights, 0.55) - constrained_loglik(values, weights, 0.5)
    assert test.llr == pytest.approx(expected, abs=1e-6)
    assert 0.0 < test.llr < test.bounds[1]
    # After one block the fitted distribution is almost a point: a single 1.0 is evidence of one
    # win, ln(0.55 / 0.5), not the 24,000 the normal approximation's tiny variance gave.
    assert test.trace[0] == pytest.approx(math.log(0.55 / 0.5), abs=1e-3)
    assert test.min_n == 20 and test.decision is None


def test_gsprt_identical_scores_give_the_llr_of_straight_losses():
    # `caylus duel random castle --sprt` lost every pair: the LLR printed -525000 (a 1e-6 variance
    # floor). Every block scoring 0 is now exactly the evidence of as many lost Bernoulli games.
    test = SPRT(0.5, 0.55, model="gsprt")
    test.update_many([0.0] * 19)
    assert test.llr == pytest.approx(19 * LOSS, rel=1e-4)
    assert test.decision is None  # below the default floor of 20 blocks
    test.update_many([0.0] * 21)
    assert test.llr == pytest.approx(40 * LOSS, rel=1e-4)
    assert test.decided_at == math.ceil(BOUND / -LOSS) == 28
    assert all(math.isfinite(v) and v >= 40 * LOSS - 1e-3 for v in test.trace)
    # All draws (0.5 = p0): the best mean-0.55 distribution moves 10% of the mass to 1.
    draws = SPRT(0.5, 0.55, model="gsprt")
    draws.update_many([0.5] * 40)
    assert draws.llr == pytest.approx(40 * math.log(0.9), rel=1e-2)
    # A candidate that wins every pair gains ln(p1 / p0) per pair.
    wins = SPRT(0.5, 0.55, model="gsprt")
    wins.update_many([1.0] * 40)
    assert wins.llr == pytest.approx(40 * WIN, rel=1e-3)
    assert wins.decision == "H1"


def test_score_interval_is_never_degenerate():
    losses = SPRT(0.5, 0.55, model="gsprt")
    assert losses.score_interval() == (0.0, 1.0)
    losses.update_many([0.0] * 40)
    lo, hi = losses.score_interval()
    # -40 ln(1 - hi) = chi2_1(0.95) / 2, up to the pseudo-counts.
    assert lo == 0.0
    assert hi == pytest.approx(1.0 - math.exp(-1.920729 / 40), abs=1e-3)
    # For win/loss outcomes it is the binomial likelihood-ratio interval.
    games = SPRT(0.5, 0.55)
    games.update_many([1, 0, 1, 1])

    def drop(p: float) -> float:
        return 3 * math.log(p / 0.75) + math.log((1 - p) / 0.25) + 1.920729

    expected = (
        scipy.optimize.brentq(drop, 1e-9, 0.75),
        scipy.optimize.brentq(drop, 0.75, 1 - 1e-9),
    )
    assert games.score_interval() == pytest.approx(expected, abs=2e-3)
    mixed = SPRT(0.5, 0.55, model="gsprt")
    mixed.update_many([1.0, 0.75, 0.5, 0.75, 0.25] * 8)
    lo, hi = mixed.score_interval()
    assert lo < 0.65 < hi and hi - lo < 0.2
    with pytest.raises(ValueError, match="level"):
        mixed.score_interval(1.5)


def test_gsprt_error_rates_on_simulated_pentanomial_pairs():
    scores = np.array([0.0, 0.25, 0.5, 0.75, 1.0])
    # Pair-score distributions with mean exactly 0.50 and 0.55.
    h0 = np.array([0.05, 0.2, 0.5, 0.2, 0.05])
    h1 = np.array([0.03, 0.16, 0.48, 0.24, 0.09])
    assert scores @ h0 == pytest.approx(0.5)
    assert scores @ h1 == pytest.approx(0.55)
    rng = np.random.default_rng(11)
    rates = []
    for probs in (h0, h1):
        accepted = 0
        for _ in range(600):
            test = SPRT(0.5, 0.55, model="gsprt", min_n=20)
            for x in rng.choice(scores, size=4000, p=probs).tolist():
                if test.update(x) is not None:
                    break
            accepted += test.decision == "H1"
        rates.append(accepted / 600)
    assert rates[0] < 0.08
    assert rates[1] > 0.92


def test_bernoulli_error_rates_and_average_length_match_wald():
    # Wald: E[n | H0] = (alpha ln A + (1 - alpha) ln B) / E[step | p0], with ln A = -ln B = 2.944.
    expected_h0 = (0.05 * BOUND - 0.95 * BOUND) / (0.5 * WIN + 0.5 * LOSS)
    assert expected_h0 == pytest.approx(527, abs=1)
    assert wald_expected_n(0.5, 0.5, 0.55) == pytest.approx(expected_h0)
    expected_h1 = wald_expected_n(0.55, 0.5, 0.55)
    assert expected_h1 == pytest.approx(529, abs=1)

    type_1, mean_h0 = run_bernoulli(0.50, runs=2000, seed=1)
    power, mean_h1 = run_bernoulli(0.55, runs=2000, seed=2)
    assert type_1 == pytest.approx(0.05, abs=0.02)
    assert 1.0 - power == pytest.approx(0.05, abs=0.02)
    assert mean_h0 == pytest.approx(expected_h0, rel=0.15)
    assert mean_h1 == pytest.approx(expected_h1, rel=0.15)


def test_wald_expected_n_peaks_between_the_hypotheses():
    middle = wald_expected_n(0.525, 0.5, 0.55)
    assert middle > wald_expected_n(0.5, 0.5, 0.55)
    assert middle > wald_expected_n(0.55, 0.5, 0.55)
    assert wald_expected_n(0.6, 0.5, 0.55) < 300


def test_helpers():
    assert pair_score(1, 0.5) == 0.75
    assert {pair_score(a, b) for a in (0, 0.5, 1) for b in (0, 0.5, 1)} == {0, 0.25, 0.5, 0.75, 1}
    with pytest.raises(ValueError):
        pair_score(2, 0)
    assert score_to_elo(0.55) == pytest.approx(34.86, abs=0.01)
    assert elo_to_score(score_to_elo(0.3)) == pytest.approx(0.3)


def test_to_dict_is_json_ready():
    test = SPRT(0.5, 0.55, model="gsprt", min_n=5, max_n=10)
    assert json.loads(json.dumps(test.to_dict()))["mean"] is None
    test.update_many([0.75] * 3)
    state = json.loads(json.dumps(test.to_dict(), allow_nan=False))
    assert state["n"] == 3
    assert state["mean"] == pytest.approx(0.75)
    assert state["elo1"] == pytest.approx(34.86, abs=0.01)
    assert state["decision"] is None and state["truncated"] is False
    lo, hi = state["score_ci"]
    assert 0.0 < lo < 0.75 < hi <= 1.0


def test_print_duel_quotes_the_measured_score_and_a_finite_llr():
    from rich.console import Console

    from agents.tournament.duel import DuelResult, DuelSpec, print_duel, sparkline

    # Every pair lost, as `caylus duel random castle --sprt` did: each game ranks castle first.
    spec = DuelSpec("random", "castle", min_pairs=20, max_pairs=40)
    sprt = spec.make_sprt()
    records = []
    for pair in range(30):
        for k, seats in enumerate((["random", "castle"], ["castle", "random"])):
            ranks = [2.0, 1.0] if seats[0] == "random" else [1.0, 2.0]
            records.append({"game_id": 2 * pair + k, "seats": seats, "ranks": ranks})
        if sprt.decision is None:
            sprt.update(0.0)
    fed = records[: 2 * sprt.n]
    result = DuelResult("random", sprt, [0.0] * sprt.n, fed, len(fed), None)
    console = Console(record=True, width=200)
    print_duel(result, spec, console)
    text = console.export_text()
    assert sprt.decision == "H0" and sprt.n == 28
    verdict = next(line for line in text.splitlines() if "accepted" in line)
    assert verdict.startswith("H0 accepted: random is not better than castle")
    lo, hi = sprt.score_interval()
    assert lo == 0.0
    assert f"measured score 0.000, 95% CI [0.000, {hi:.3f}] over 28 pairs" in verdict
    assert "H0: expected score 0.5, H1: 0.55" in verdict
    assert f"LLR {28 * LOSS:+.3f}" in text and "-525" not in text
    # The sparkline is drawn on a scale that holds both stopping bounds.
    assert sparkline([0.0, -1.0, -3.0], lo=-3.0, hi=3.0) == "▄▃▁"
    assert sparkline([5.0], lo=-1.0, hi=1.0) == "█"
    assert sparkline([1.0, 2.0]) == "▁█"
