"""Every registered game's state-dict loader: hostile state dicts are refused with a clear
one-line ValueError, or played on safely (never a crash, a hang, an out-of-bounds access, a
corrupted game, an observation outside its space, or a position its own loader refuses).

The fuzzer is ``tests/conformance/fuzz_states`` (written once over the game contract); each case
runs in a watched worker process. The smoke runs 120 cases per game; the long runs, with and without
``NUMBA_BOUNDSCHECK=1`` (whose kernels compile in a cache of their own, a minute per game), are
behind ``slow``.
"""

from __future__ import annotations

import pytest

from caylus_env.core.registry import GAME_NAMES, game_spec
from tests.conformance.fuzz_states import fuzz, sample_positions

FAILURES = ("other", "corrupt", "crash", "hang")


@pytest.fixture(scope="module", params=GAME_NAMES)
def sampled(request):
    return request.param, sample_positions(request.param, seed=11)


def test_sampled_positions_cover_the_game_and_reload_unchanged(sampled):
    game, pool = sampled
    spec = game_spec(game)
    engine = spec.engine()
    assert {len(d["players"]) for d in pool} == set(spec.player_counts)
    tops = {d["pending"][-1]["kind"] for d in pool if d["pending"]}
    assert len(tops) >= len(engine.DECISION_NAMES) * 3 // 4, sorted(tops)
    for d in pool:  # valid controls: every position the engine reached loads back as it was
        assert engine.Game.from_state_dict(d).state_dict()["pending"][:-1] == d["pending"][:-1]
    if spec.truncating_options is not None:
        assert any(engine.Game.from_state_dict(d).is_truncated() for d in pool)


def test_fuzzed_state_dicts_are_refused_clearly_or_played_safely(sampled):
    game, pool = sampled
    counts, examples = fuzz(game, 120, seed=11, jobs=2, pool=pool)
    assert sum(counts.values()) == 120
    assert all(counts[o] == 0 for o in FAILURES), (counts, examples)
    assert counts["clear"] > 0 and counts["accepted"] > 0, counts  # both paths exercised


@pytest.mark.slow
def test_fuzzed_state_dicts_never_index_out_of_bounds_under_numba_boundscheck(sampled):
    game, pool = sampled
    counts, examples = fuzz(game, 40, seed=12, jobs=1, boundscheck=True, pool=pool)
    assert all(counts[o] == 0 for o in FAILURES), (counts, examples)


@pytest.mark.slow
@pytest.mark.parametrize("game", GAME_NAMES)
@pytest.mark.parametrize("seed", [21, 22])
def test_many_more_fuzzed_state_dicts(game, seed):
    counts, examples = fuzz(game, 4000, seed=seed, jobs=2)
    assert all(counts[o] == 0 for o in FAILURES), (counts, examples)


@pytest.mark.slow
@pytest.mark.parametrize("game", GAME_NAMES)
def test_many_more_fuzzed_state_dicts_under_numba_boundscheck(game):
    counts, examples = fuzz(game, 2000, seed=31, jobs=2, boundscheck=True)
    assert all(counts[o] == 0 for o in FAILURES), (counts, examples)
