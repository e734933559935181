"""``training.benchmark``: the figures of ``caylus bench --training --game G``, for every game
(the command line itself is tested with the other bench commands)."""

from __future__ import annotations

import pytest

from caylus_env.core.registry import GAME_NAMES, game_spec
from training import benchmark

games = pytest.mark.parametrize("game", GAME_NAMES)


@games
def test_policy_inference_times_one_decision_and_a_batch(game):
    figures = benchmark.policy_inference(game, repeats=1, num_games=1)
    assert figures["policy_us_per_decision"] > 0
    assert figures["policy_batch128_us_per_decision"] > 0


@games
def test_train_seconds_times_a_run_of_the_game(game, tmp_path):
    assert benchmark.train_seconds(game, "cleanrl", 2048, tmp_path, envs=64) > 0
    (run,) = tmp_path.iterdir()
    assert f'"game": "{game}"' in (run / "run.json").read_text()


@games
def test_the_table_names_the_game_and_every_figure(game):
    figures = {
        "game": game,
        "envs": 128,
        "players": 3,
        "threads": 1,
        "policy_us_per_decision": 20.0,
        "policy_batch128_us_per_decision": 10.0,
        "maskable_samples_per_s": 6000.0,
        "cleanrl_samples_per_s": 7000.0,
        "naive_samples_per_s": 1000.0,
        "ratio": 6.0,
        "cleanrl_ratio": 7.0,
    }
    text = benchmark.table(figures)
    assert f"figure ({game_spec(game).title})" in text
    assert "| MaskablePPO on PoolVecEnv (128 games of 3 players, pieces-v1" in text
    assert "| ratio | 6.0x (MaskablePPO), 7.0x (CleanRL-style) |" in text


def test_a_player_count_the_game_does_not_allow_is_refused():
    game = GAME_NAMES[0]
    with pytest.raises(ValueError, match="--players 9 is not allowed"):
        benchmark.run(game, players=9)


@pytest.mark.slow
@games
def test_every_figure_is_measured(game):
    figures = benchmark.run(game, repeats=1, quick=True)
    for key in ("maskable_samples_per_s", "cleanrl_samples_per_s", "naive_samples_per_s"):
        assert figures[key] > 0, key
