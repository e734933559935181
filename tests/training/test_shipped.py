"""The checkpoint shipped in the package (``ppo-2p``): loadable, legal, and strong."""

from __future__ import annotations

import json

import numpy as np

from agents.policy import SHIPPED_DIR, PolicyAgent
from agents.registry import describe, make_agent
from training.league import play_match


def test_ppo_2p_is_a_built_in_agent_spec_with_its_training_command():
    assert "ppo-2p" in {info.head for info in describe()}
    agent = make_agent("ppo-2p")
    assert isinstance(agent, PolicyAgent)
    cfg = json.loads((SHIPPED_DIR / "ppo-2p" / "config.json").read_text())
    assert cfg["command"].startswith("caylus train ppo ") and cfg["num_players"] == [2]
    assert make_agent("ppo-2p:sample").temperature == 1.0


def test_ppo_2p_is_small_enough_to_ship():
    size = sum(p.stat().st_size for p in (SHIPPED_DIR / "ppo-2p").iterdir())
    assert size <= 5 * 1024 * 1024


def test_ppo_2p_beats_random_in_a_seeded_match():
    m = play_match(make_agent("ppo-2p"), "random", games=60, num_players=2, seed=17)
    assert m.wins >= 57, m  # 95%: the bar for the shipped policy


def test_ppo_2p_greedy_play_is_deterministic():
    a, b = make_agent("ppo-2p"), make_agent("ppo-2p")
    from caylus_env.caylus.observation import OBS_SIZE

    obs = np.random.default_rng(0).random((4, OBS_SIZE)).astype(np.float32)
    mask = np.ones((4, 167), np.bool_)
    np.testing.assert_array_equal(
        a.act_batch(obs, mask, np.zeros(4)), b.act_batch(obs, mask, np.zeros(4))
    )
