"""Tests for agents.stats.ratings: data model, simple summaries, Plackett–Luce fit, OpenSkill."""

from __future__ import annotations

import dataclasses
import json
import math

import numpy as np
import pytest
from scipy.optimize import check_grad
from scipy.stats import kendalltau

from agents.stats.ratings import (
    ELO_PER_NAT,
    MIN_BOOTSTRAP_BLOCKS,
    GameResult,
    InvalidResultError,
    _PLProblem,
    agent_summary,
    bootstrap_pl,
    find_separation,
    fit_plackett_luce,
    head_to_head,
    load_results,
    openskill_ladder,
    seat_separation,
    seat_table,
    separation_bound,
    shared_blocks,
    wilson_interval,
)
from caylus_env.core.registry import GAME_NAMES, game_spec

Z = 1.959964

# Ground truth of the synthetic 4-player pool (as in the design note's simulation).
TRUE_THETA = np.arange(6) * 0.15
TRUE_SEAT = np.array([0.45, 0.20, 0.0, -0.25])
NAMES = [f"a{i}" for i in range(6)]  # a0 is the weakest and the default reference.


def ranks_from_utilities(u: np.ndarray) -> list[float]:
    """Finishing ranks (1 = best) from noisy utilities; continuous noise, so no ties."""
    ranks = np.empty(len(u))
    ranks[np.argsort(-u)] = np.arange(1, len(u) + 1)
    return ranks.tolist()


def simulate_pool(n_games: int = 3000, seed: int = 7) -> list[GameResult]:
    """4-player Plackett–Luce games with seat effects and the weakest agent usually in seat 0.

    Gumbel noise on the utilities makes the finishing order exactly Plackett–Luce distributed.
    Every 4 consecutive games form one block.
    """
    rng = np.random.default_rng(seed)
    games = []
    for g in range(n_games):
        table = rng.permutation(6)[:4]
        if 0 in table and rng.random() < 0.8:
            pos = int(np.flatnonzero(table == 0)[0])
            table[[0, pos]] = table[[pos, 0]]
        u = TRUE_THETA[table] + TRUE_SEAT + rng.gumbel(size=4)
        ranks = ranks_from_utilities(u)
        games.append(
            GameResult(
                game_id=g,
                seed=g // 4,
                block=g // 4,
                num_players=4,
                seats=tuple(NAMES[i] for i in table),
                scores=tuple(int(60 - 10 * r) for r in ranks),
                ranks=tuple(ranks),
            )
        )
    return games


def simulate_two_player(
    n_games: int, gap: float, seat0: float, seed: int, repeats: int = 1
) -> list[GameResult]:
    """2-player games of "lo" vs "hi" (hi stronger by ``gap``), alternating seats.

    With ``repeats > 1`` every game is replayed identically ``repeats`` times inside one block,
    like a deterministic policy on a fixed seed.
    """
    rng = np.random.default_rng(seed)
    games = []
    for g in range(n_games):
        seats = ("lo", "hi") if g % 2 == 0 else ("hi", "lo")
        theta = np.array([gap if a == "hi" else 0.0 for a in seats])
        u = theta + np.array([seat0, -seat0]) + rng.gumbel(size=2)
        ranks = ranks_from_utilities(u)
        for rep in range(repeats):
            games.append(
                GameResult(
                    game_id=g * repeats + rep,
                    seed=g,
                    block=g,
                    num_players=2,
                    seats=seats,
                    scores=(50 if ranks[0] == 1 else 40, 50 if ranks[1] == 1 else 40),
                    ranks=tuple(ranks),
                )
            )
    return games


@pytest.fixture(scope="module")
def pool() -> list[GameResult]:
    return simulate_pool()


@pytest.fixture(scope="module")
def pool_boot(pool):
    return bootstrap_pl(pool, n_boot=200, seed=0)


def hand_games() -> list[GameResult]:
    """Three small games whose statistics are worked out by hand in the tests."""
    return [
        GameResult.from_dict(
            {
                "game_id": 1,
                "seed": 11,
                "block": 0,
                "num_players": 3,
                "seats": ["A", "B", "C"],
                "scores": [30, 20, 10],
                "ranks": [1, 2, 3],
            }
        ),
        # A and B share first place.
        GameResult.from_dict(
            {
                "game_id": 2,
                "seed": 12,
                "block": 0,
                "num_players": 3,
                "seats": ["B", "A", "C"],
                "scores": [25, 25, 15],
                "ranks": [1.5, 1.5, 3],
            }
        ),
        GameResult.from_dict(
            {
                "game_id": 3,
                "seed": 13,
                "block": 1,
                "num_players": 2,
                "seats": ["C", "A"],
                "scores": [40, 35],
                "ranks": [1, 2],
                "forfeit": [False, True],
            }
        ),
    ]


# --------------------------------------------------------------------------------------------------
# Data model
# --------------------------------------------------------------------------------------------------


def test_game_result_round_trips_through_json():
    game = hand_games()[2]
    again = GameResult.from_dict(json.loads(json.dumps(game.to_dict())))
    assert again == game
    assert again.forfeit == (False, True)
    assert "forfeit" not in hand_games()[0].to_dict()


def test_from_dict_ignores_extra_keys_and_defaults_block_to_game_id():
    data = hand_games()[0].to_dict()
    del data["block"]
    data["end_reason"] = "terminated"
    game = GameResult.from_dict(data)
    assert game.block == game.game_id == 1


@pytest.mark.parametrize(
    ("change", "field"),
    [
        ({"seats": ["A", "B"]}, "seats"),
        ({"scores": [1, 2, "x"]}, "scores"),
        ({"ranks": [1, 1, 3]}, "ranks"),  # competition-style ties are rejected
        ({"ranks": [0, 1, 2]}, "ranks"),  # 0-based ranks are rejected
        ({"num_players": True}, "num_players"),
        ({"num_players": 1, "seats": ["A"], "scores": [1], "ranks": [1]}, "num_players"),
        ({"forfeit": [True, False]}, "forfeit"),
        ({"forfeit": [0, 0, 1]}, "forfeit"),
        ({"seed": "7"}, "seed"),
        ({"seats": "ABC"}, "seats"),
    ],
)
def test_invalid_fields_are_named(change, field):
    data = hand_games()[0].to_dict() | change
    with pytest.raises(ValueError, match=f"'{field}'"):
        GameResult.from_dict(data)


def test_missing_field_is_named():
    data = hand_games()[0].to_dict()
    del data["scores"]
    with pytest.raises(InvalidResultError, match="'scores'"):
        GameResult.from_dict(data)


def test_load_results_reads_jsonl_and_reports_bad_line(tmp_path):
    path = tmp_path / "games.jsonl"
    path.write_text("\n".join(json.dumps(g.to_dict()) for g in hand_games()) + "\n\n")
    assert load_results(path) == hand_games()
    path.write_text(json.dumps(hand_games()[0].to_dict()) + "\n{not json}\n")
    with pytest.raises(InvalidResultError, match=":2:"):
        load_results(path)


# --------------------------------------------------------------------------------------------------
# Assumption-free summaries
# --------------------------------------------------------------------------------------------------


def test_wilson_interval_known_values():
    z2n = Z * Z / 10
    # 0 of 10: lower bound 0, upper bound (z^2/n) / (1 + z^2/n).
    lo, hi = wilson_interval(0, 10)
    assert lo == 0.0
    assert hi == pytest.approx(z2n / (1 + z2n), abs=1e-12)
    assert hi == pytest.approx(0.2775, abs=1e-4)
    # 10 of 10 mirrors it.
    lo, hi = wilson_interval(10, 10)
    assert (lo, hi) == (pytest.approx(1 / (1 + z2n), abs=1e-12), 1.0)
    # 5 of 10: centre 0.5, half-width z * sqrt(0.025 + z^2 / 400) / (1 + z^2/n).
    lo, hi = wilson_interval(5, 10)
    half = Z * math.sqrt(0.025 + Z * Z / 400) / (1 + z2n)
    assert (lo, hi) == (pytest.approx(0.5 - half, abs=1e-12), pytest.approx(0.5 + half, abs=1e-12))
    assert (lo, hi) == (pytest.approx(0.2366, abs=1e-4), pytest.approx(0.7634, abs=1e-4))


def test_wilson_interval_edge_cases():
    assert wilson_interval(0, 0) == (0.0, 1.0)
    lo, hi = wilson_interval(3, 40)
    lo2, hi2 = wilson_interval(37, 40)
    assert (lo, hi) == (pytest.approx(1 - hi2), pytest.approx(1 - lo2))
    with pytest.raises(ValueError):
        wilson_interval(11, 10)
    with pytest.raises(ValueError):
        wilson_interval(1, -1)


def test_agent_summary_hand_computed():
    s = agent_summary(hand_games())
    assert list(s) == ["A", "B", "C"]
    a, b, c = s["A"], s["B"], s["C"]
    # A: won game 1, shared first in game 2 (a win), lost game 3.
    assert (a["games"], a["wins"], a["forfeits"]) == (3, 2, 1)
    assert a["win_rate"] == pytest.approx(2 / 3)
    assert a["win_ci"] == wilson_interval(2, 3)
    assert a["mean_rank"] == pytest.approx((1 + 1.5 + 2) / 3)
    assert a["mean_score"] == pytest.approx(30)
    # Margins: 30 - 20, 25 - 25, 35 - 40.
    assert a["mean_margin"] == pytest.approx(5 / 3)
    assert (b["games"], b["wins"]) == (2, 1)
    assert b["mean_rank"] == pytest.approx(1.75)
    assert b["mean_score"] == pytest.approx(22.5)
    assert b["mean_margin"] == pytest.approx(-5)
    assert (c["games"], c["wins"], c["forfeits"]) == (3, 1, 0)
    assert c["mean_rank"] == pytest.approx(7 / 3)
    assert c["mean_score"] == pytest.approx(65 / 3)
    assert c["mean_margin"] == pytest.approx((-20 - 10 + 5) / 3)


def test_agent_summary_counts_self_play_once_per_seat():
    games = [
        GameResult(
            game_id=0,
            seed=0,
            block=0,
            num_players=3,
            seats=("A", "A", "B"),
            scores=(10, 12, 12),
            ranks=(3, 1.5, 1.5),
        )
    ]
    s = agent_summary(games)
    assert (s["A"]["games"], s["A"]["wins"]) == (2, 1)
    assert s["A"]["mean_rank"] == pytest.approx(2.25)
    # Seat 0: 10 - 12; seat 1: 12 - 12 (the best *other* seat, here B).
    assert s["A"]["mean_margin"] == pytest.approx(-1)
    assert (s["B"]["games"], s["B"]["wins"], s["B"]["mean_margin"]) == (1, 1, 0)


def test_seat_table_hand_computed():
    t = seat_table(hand_games())
    assert sorted(t) == [2, 3]
    assert t[3][0] == {"games": 2, "wins": 2, "win_rate": 1.0, "mean_rank": 1.25}
    assert t[3][1] == {"games": 2, "wins": 1, "win_rate": 0.5, "mean_rank": 1.75}
    assert t[3][2] == {"games": 2, "wins": 0, "win_rate": 0.0, "mean_rank": 3.0}
    assert t[2][0] == {"games": 1, "wins": 1, "win_rate": 1.0, "mean_rank": 1.0}
    assert t[2][1] == {"games": 1, "wins": 0, "win_rate": 0.0, "mean_rank": 2.0}


def test_head_to_head_hand_computed():
    agents, m, n = head_to_head(hand_games())
    assert agents == ("A", "B", "C")
    # A vs B: ahead in game 1, tied in game 2.
    assert m[0, 1] == pytest.approx(0.75)
    assert m[1, 0] == pytest.approx(0.25)
    # A vs C: ahead in games 1 and 2, behind in game 3.
    assert m[0, 2] == pytest.approx(2 / 3)
    assert m[2, 0] == pytest.approx(1 / 3)
    assert m[1, 2] == 1.0
    assert m[2, 1] == 0.0
    assert n.tolist() == [[0, 2, 3], [2, 0, 2], [3, 2, 0]]
    assert np.isnan(np.diag(m)).all()


def test_head_to_head_is_nan_where_agents_never_met():
    stranger = GameResult(
        game_id=9, seed=9, block=9, num_players=2, seats=("C", "D"), scores=(1, 2), ranks=(2, 1)
    )
    games = [*hand_games(), stranger]
    agents, m, n = head_to_head(games)
    d = agents.index("D")
    assert np.isnan(m[d, 0]) and np.isnan(m[0, d]) and n[d, 0] == 0
    assert m[d, 2] == 1.0


# --------------------------------------------------------------------------------------------------
# Plackett–Luce
# --------------------------------------------------------------------------------------------------


def test_pl_recovers_order_and_seat_effects_under_biased_seating(pool):
    fit = fit_plackett_luce(pool)
    assert fit.converged
    assert fit.reference == "a0" and fit.theta["a0"] == 0.0
    estimates = [fit.theta[a] for a in NAMES]
    assert kendalltau(estimates, TRUE_THETA).statistic == pytest.approx(1.0)
    assert np.abs(np.array(estimates) - TRUE_THETA).max() < 0.12
    centred = TRUE_SEAT - TRUE_SEAT.mean()
    assert sum(fit.seat_effects[4]) == pytest.approx(0.0, abs=1e-12)
    assert np.abs(np.array(fit.seat_effects[4]) - centred).max() < 0.1
    assert fit.elo["a5"] == pytest.approx(ELO_PER_NAT * fit.theta["a5"])


def test_pl_two_player_sign_and_magnitude():
    games = simulate_two_player(4000, gap=0.5, seat0=0.15, seed=3)
    fit = fit_plackett_luce(games, reference="lo")
    assert fit.theta["hi"] == pytest.approx(0.5, abs=0.1)
    assert fit.seat_effects[2][0] == pytest.approx(0.15, abs=0.05)
    # On the Elo scale a 2-player win probability follows the logistic Elo curve.
    p = fit.predict_win(["hi", "lo"])
    elo_gap = fit.elo["hi"] + fit.seat_elo[2][0] - fit.seat_elo[2][1]
    assert p[0] == pytest.approx(1 / (1 + 10 ** (-elo_gap / 400)))
    assert sum(p) == pytest.approx(1.0)


def test_pl_reference_only_shifts_strengths(pool):
    # Exact for the likelihood itself; the default ridge prior is centred on the reference,
    # so the invariance is checked with a negligible penalty.
    a = fit_plackett_luce(pool, l2=1e-8)
    b = fit_plackett_luce(pool, reference="a3", l2=1e-8)
    assert b.theta["a3"] == 0.0
    for name in NAMES:
        assert b.theta[name] - b.theta["a0"] == pytest.approx(a.theta[name], abs=1e-5)
    with pytest.raises(ValueError, match="reference"):
        fit_plackett_luce(pool, reference="nobody")


def test_pl_gradient_matches_finite_differences():
    games = simulate_pool(200, seed=1) + simulate_two_player(50, 0.3, 0.1, seed=2)
    games.append(
        GameResult(
            game_id=10_000,
            seed=0,
            block=0,
            num_players=4,
            seats=("a1", "a2", "lo", "hi"),
            scores=(5, 5, 3, 3),
            ranks=(1.5, 1.5, 3.5, 3.5),
        )
    )
    problem = _PLProblem(games, None)
    rng = np.random.default_rng(0)
    weights = rng.integers(0, 3, problem.n_games).astype(float)
    beta = rng.normal(scale=0.4, size=problem.n_params)
    err = check_grad(
        lambda x: problem.objective(x, weights, 1e-2)[0],
        lambda x: problem.objective(x, weights, 1e-2)[1],
        beta,
    )
    assert err < 1e-6


def test_pl_tied_players_get_equal_strength_and_all_tied_games_are_ignored():
    games = []
    for g in range(60):
        seats = [("A", "B", "C"), ("B", "C", "A"), ("C", "A", "B")][g % 3]
        ranks = [1.5 if s in ("A", "B") else 3.0 for s in seats]
        if g % 4 == 0:  # C sometimes wins so that every strength stays finite
            ranks = [1.0 if s == "C" else 2.5 for s in seats]
        games.append(
            GameResult(
                game_id=g,
                seed=g,
                block=g,
                num_players=3,
                seats=seats,
                scores=(1, 1, 1),
                ranks=tuple(ranks),
            )
        )
    fit = fit_plackett_luce(games, reference="C")
    assert fit.theta["A"] == pytest.approx(fit.theta["B"], abs=1e-6)
    assert fit.theta["A"] > 0.5
    all_tied = GameResult(
        game_id=999,
        seed=0,
        block=0,
        num_players=3,
        seats=("A", "C", "B"),
        scores=(1, 1, 1),
        ranks=(2, 2, 2),
    )
    again = fit_plackett_luce([*games, all_tied], reference="C")
    assert again.theta["A"] == pytest.approx(fit.theta["A"], abs=1e-6)
    assert again.loglik == pytest.approx(fit.loglik, abs=1e-6)


def test_pl_l2_keeps_an_undefeated_agent_finite():
    games = [
        GameResult(
            game_id=g,
            seed=g,
            block=g,
            num_players=2,
            seats=("X", "Y") if g % 2 else ("Y", "X"),
            scores=(1, 0) if g % 2 else (0, 1),
            ranks=(1, 2) if g % 2 else (2, 1),
        )
        for g in range(40)
    ]
    fit = fit_plackett_luce(games, reference="Y")
    # Separable data: the default prior (sd 3 log-units) keeps X finite but far ahead.
    assert 3 < fit.theta["X"] < 10 and fit.converged


def test_bootstrap_cis_cover_truth_and_los_separates_extremes(pool_boot):
    covered = [
        pool_boot.theta_ci[a][0] <= t <= pool_boot.theta_ci[a][1]
        for a, t in zip(NAMES[1:], TRUE_THETA[1:], strict=True)
    ]
    centred = TRUE_SEAT - TRUE_SEAT.mean()
    covered += [lo <= t <= hi for t, (lo, hi) in zip(centred, pool_boot.seat_ci[4], strict=True)]
    assert sum(covered) >= len(covered) - 1, covered
    assert pool_boot.theta_ci["a0"] == (0.0, 0.0)
    i, j = NAMES.index("a5"), NAMES.index("a0")
    assert pool_boot.los[i, j] > 0.95
    assert pool_boot.los[j, i] < 0.05
    off = ~np.eye(6, dtype=bool)
    assert np.allclose(pool_boot.los[off] + pool_boot.los.T[off], 1.0)
    lo, hi = pool_boot.elo_ci["a5"]
    assert (lo, hi) == pytest.approx(tuple(ELO_PER_NAT * x for x in pool_boot.theta_ci["a5"]))


def test_bootstrap_is_deterministic_for_a_seed(pool):
    games = pool[:400]
    a = bootstrap_pl(games, n_boot=20, seed=5)
    b = bootstrap_pl(games, n_boot=20, seed=5)
    c = bootstrap_pl(games, n_boot=20, seed=6)
    assert np.array_equal(a.theta_samples, b.theta_samples, equal_nan=True)
    assert a.theta_ci == b.theta_ci
    assert not np.array_equal(a.theta_samples, c.theta_samples, equal_nan=True)


def test_block_bootstrap_widens_intervals_for_correlated_games():
    # Each game replayed 4 times in one block carries the information of one game; resampling
    # blocks sees that, resampling single games (each its own block) would not.
    blocked = simulate_two_player(300, gap=0.3, seat0=0.0, seed=4, repeats=4)
    as_games = [dataclasses.replace(g, block=g.game_id) for g in blocked]
    wide = bootstrap_pl(blocked, n_boot=100, seed=1, reference="lo").theta_ci["hi"]
    narrow = bootstrap_pl(as_games, n_boot=100, seed=1, reference="lo").theta_ci["hi"]
    ratio = (wide[1] - wide[0]) / (narrow[1] - narrow[0])
    assert ratio > 1.5


# --------------------------------------------------------------------------------------------------
# OpenSkill ladder
# --------------------------------------------------------------------------------------------------


def test_openskill_ladder_orders_a_clear_pool(pool):
    ladder = openskill_ladder(pool[:600])
    assert next(iter(ladder)) == "a5"
    assert ladder["a5"]["mu"] > ladder["a0"]["mu"]
    assert ladder["a5"]["ordinal"] == pytest.approx(ladder["a5"]["mu"] - 3 * ladder["a5"]["sigma"])
    assert sum(r["games"] for r in ladder.values()) == 600 * 4


def test_openskill_ladder_uses_game_id_order_and_handles_ties_and_self_play():
    games = hand_games()
    assert openskill_ladder(games) == openskill_ladder(games[::-1])
    tie = GameResult(
        game_id=0,
        seed=0,
        block=0,
        num_players=3,
        seats=("P", "Q", "R"),
        scores=(3, 3, 1),
        ranks=(1.5, 1.5, 3),
    )
    ladder = openskill_ladder([tie])
    assert ladder["P"]["mu"] == pytest.approx(ladder["Q"]["mu"])
    assert ladder["P"]["mu"] > 25.0 > ladder["R"]["mu"]
    mirror = GameResult(
        game_id=0, seed=0, block=0, num_players=2, seats=("S", "S"), scores=(3, 1), ranks=(1, 2)
    )
    assert openskill_ladder([mirror])["S"]["mu"] == pytest.approx(25.0)


# --------------------------------------------------------------------------------------------------
# Separation and honest intervals
# --------------------------------------------------------------------------------------------------


def duel_games(n_games: int, winner: str, loser: str, first: int = 0) -> list[GameResult]:
    """2-player games in seat-swapped pairs (block = pair) that ``winner`` always wins."""
    games = []
    for g in range(first, first + n_games):
        seats = (winner, loser) if g % 2 == 0 else (loser, winner)
        ranks = (1.0, 2.0) if seats[0] == winner else (2.0, 1.0)
        scores = (30, 20) if ranks[0] == 1.0 else (20, 30)
        games.append(GameResult(g, g // 2, g // 2, 2, seats, scores, ranks))
    return games


def test_separation_finds_groups_that_never_lose_or_never_win():
    rng = np.random.default_rng(3)
    games = duel_games(60, "town", "random") + duel_games(60, "castle", "random", first=60)
    for g in range(120, 240):  # castle and town beat each other: one group
        seats = ("castle", "town") if g % 2 == 0 else ("town", "castle")
        ranks = (1.0, 2.0) if rng.random() < 0.5 else (2.0, 1.0)
        games.append(GameResult(g, g // 2, g // 2, 2, seats, (1, 0), ranks))
    sep = find_separation(games)
    assert sep.separated
    assert sep.groups == (("castle", "town"), ("random",))
    assert sep.order("town", "random") == 1 and sep.order("random", "castle") == -1
    assert sep.order("town", "castle") == 0
    assert not find_separation(games[120:]).separated
    # Two pools that never met are not comparable at all.
    apart = duel_games(4, "a", "b") + duel_games(4, "c", "d", first=4)
    assert find_separation(apart).order("a", "c") is None
    # A tie links two agents both ways.
    tie = GameResult(99, 99, 99, 2, ("random", "town"), (5, 5), (1.5, 1.5))
    assert not find_separation([*duel_games(10, "town", "random"), tie]).separated
    # Seats: the first seat winning every game leaves the seat effect unbounded.
    first_wins = [
        GameResult(g, g, g, 2, ("x", "y")[:: 1 - 2 * (g % 2)], (2, 1), (1.0, 2.0))
        for g in range(10)
    ]
    assert seat_separation(first_wins) == {2: True}
    assert seat_separation(duel_games(10, "x", "y")) == {2: False}


def test_never_winning_agent_gets_a_one_sided_bound_not_a_narrow_interval():
    # The trial: town beat random in all 300 games (150 seat-swapped pairs) and was shown as
    # 772 [740, 804]. The raw bootstrap interval is that narrow because every resample is
    # separated too and the prior alone sets the value.
    games = duel_games(300, "town", "random")
    boot = bootstrap_pl(games, n_boot=60, seed=0, reference="random")
    lo, hi = boot.elo_ci["town"]
    assert hi - lo < 50  # the misleading raw interval
    gap = boot.difference("town", "random")
    assert gap.kind == "lower" and gap.hi is None
    # 150 blocks: P(ahead)^150 = 2.5% gives p = 0.9757, about 641 Elo.
    p_lo = 0.025 ** (1 / 150)
    assert gap.lo == pytest.approx(math.log(p_lo / (1 - p_lo)))
    assert ELO_PER_NAT * gap.lo == pytest.approx(641, abs=1)
    assert "random never finished ahead of town (150 blocks)" in gap.note
    back = boot.difference("random", "town")
    assert back.kind == "upper" and back.hi == pytest.approx(-gap.lo)
    assert shared_blocks(games) == {("town", "random"): 150, ("random", "town"): 150}
    assert separation_bound(150) == pytest.approx(gap.lo)


def test_few_games_never_give_a_zero_width_interval():
    # The trial's 4-game run printed `castle 445.9 [445.9, 445.9]`.
    four = duel_games(4, "castle", "random")
    boot = bootstrap_pl(four, n_boot=50, seed=0, reference="random")
    assert boot.theta_ci["castle"][0] == boot.theta_ci["castle"][1]  # the raw interval
    gap = boot.difference("castle", "random")
    assert gap.kind == "none" and gap.lo is None and gap.hi is None
    assert gap.note.startswith("n/a (too few games)")
    assert separation_bound(2) is None  # 2 blocks cannot even show castle is stronger
    # Not separated, but below the minimum number of blocks.
    mixed = simulate_two_player(2 * (MIN_BOOTSTRAP_BLOCKS - 1), gap=0.0, seat0=0.0, seed=1)
    mixed = [dataclasses.replace(g, block=g.game_id // 2) for g in mixed]
    small = bootstrap_pl(mixed, n_boot=50, seed=0, reference="lo")
    assert not small.separation.separated
    assert small.difference("hi", "lo").kind == "none"
    assert small.seat_interval(2, 0).kind == "none"
    # One block of two split games: every resample is identical, a zero-width interval.
    split = [
        GameResult(0, 0, 0, 2, ("p", "q"), (2, 1), (1.0, 2.0)),
        GameResult(1, 0, 0, 2, ("q", "p"), (2, 1), (1.0, 2.0)),
    ]
    assert bootstrap_pl(split, n_boot=20).difference("q", "p").kind == "none"


def test_resamples_that_separate_a_pair_give_no_interval():
    # 12 pairs, "hi" wins 23 of 24 games: connected, but many resamples drop the one loss.
    games = duel_games(24, "hi", "lo")
    games[5] = dataclasses.replace(games[5], ranks=(1.0, 2.0), scores=(30, 20))
    boot = bootstrap_pl(games, n_boot=100, seed=2, reference="lo")
    assert not boot.separation.separated
    i, j = boot.fit.agents.index("hi"), boot.fit.agents.index("lo")
    assert boot.pair_separated[i, j] == pytest.approx((11 / 12) ** 12, abs=0.12)
    gap = boot.difference("hi", "lo")
    assert gap.kind == "none" and "resamples separate them" in gap.note
    # A clear but connected pool keeps its two-sided interval.
    clear = simulate_two_player(400, gap=0.5, seat0=0.1, seed=3)
    boot = bootstrap_pl(clear, n_boot=60, seed=0, reference="lo")
    gap = boot.difference("hi", "lo")
    assert gap.kind == "interval" and gap.lo < gap.estimate < gap.hi
    assert gap.lo < 0.5 < gap.hi
    seat = boot.seat_interval(2, 0)
    assert seat.kind == "interval" and seat.lo < 0.1 < seat.hi
    with pytest.raises(ValueError, match="not in the fit"):
        boot.difference("hi", "nobody")


def test_forfeit_reason_round_trips_and_is_validated():
    data = {
        "game_id": 7,
        "seed": 1,
        "num_players": 2,
        "seats": ["a", "b"],
        "scores": [3, 9],
        "ranks": [2, 1],
        "forfeit": [True, False],
        "forfeit_reason": ["timeout: act took 11 s", None],
    }
    game = GameResult.from_dict(data)
    assert game.forfeit_reason == ("timeout: act took 11 s", None)
    assert GameResult.from_dict(json.loads(json.dumps(game.to_dict()))) == game
    with pytest.raises(InvalidResultError, match="forfeit_reason"):
        GameResult.from_dict({**data, "forfeit_reason": [3, None]})


@pytest.mark.parametrize("game", GAME_NAMES)
def test_load_results_reads_the_game_records_a_tournament_writes(game, tmp_path):
    from agents.tournament.arena import play_game

    bot = next(iter(game_spec(game).module("bots").BOTS))
    records = [play_game(["random", bot], seed=s, game_id=s, block=s, game=game) for s in range(3)]
    path = tmp_path / "games.jsonl"
    path.write_text("".join(r.to_json_line() + "\n" for r in records))
    results = load_results(path)
    assert [r.game_id for r in results] == [0, 1, 2]
    for record, result in zip(records, results, strict=True):
        assert list(result.scores) == list(record.final.scores)
        assert list(result.seats) == ["random", bot]
