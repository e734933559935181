"""The checkpoints shipped in the package (``ppo-2p``): loadable, legal, and strong."""

from __future__ import annotations

import json

import numpy as np

from agents.policy import SHIPPED_DIR, PolicyAgent, shipped_checkpoints
from agents.registry import describe, make_agent
from caylus_env.core.registry import game_spec
from training.league import play_match


def test_every_shipped_checkpoint_is_a_built_in_agent_of_its_game():
    shipped = shipped_checkpoints()
    assert "ppo-2p" in shipped
    for name, game in shipped.items():
        assert name in {info.head for info in describe(game)}
        agent = make_agent(name, game)
        assert isinstance(agent, PolicyAgent) and agent.game == game
        assert make_agent(f"{name}:sample", game).temperature == 1.0


def test_ppo_2p_records_its_training_command():
    cfg = json.loads((SHIPPED_DIR / "ppo-2p" / "config.json").read_text())
    assert cfg["command"].startswith("caylus train ppo ") and cfg["num_players"] == [2]


def test_ppo_2p_is_small_enough_to_ship():
    size = sum(p.stat().st_size for p in (SHIPPED_DIR / "ppo-2p").iterdir())
    assert size <= 5 * 1024 * 1024


def test_ppo_2p_beats_random_in_a_seeded_match():
    game = shipped_checkpoints()["ppo-2p"]
    m = play_match(
        make_agent("ppo-2p", game), "random", games=60, num_players=2, seed=17, game=game
    )
    assert m.wins >= 57, m  # 95%: the bar for the shipped policy


def test_ppo_2p_greedy_play_is_deterministic():
    game = shipped_checkpoints()["ppo-2p"]
    a, b = make_agent("ppo-2p", game), make_agent("ppo-2p", game)
    size = game_spec(game).observation().OBS_SIZE
    actions = game_spec(game).engine().NUM_ACTIONS
    obs = np.random.default_rng(0).random((4, size)).astype(np.float32)
    mask = np.ones((4, actions), np.bool_)
    np.testing.assert_array_equal(
        a.act_batch(obs, mask, np.zeros(4)), b.act_batch(obs, mask, np.zeros(4))
    )
