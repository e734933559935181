"""Caylus's rewards at the end of a game (rules 8.21): ties share their ranks' rewards. The
rank and margin rewards every game pays are tested in ``tests/conformance/test_env.py``."""

from __future__ import annotations

import random

from caylus_env import caylus_v0


def _finished_position(num_players: int, prestige: list[int]) -> dict:
    env = caylus_v0.raw_env(num_players=num_players)
    env.reset(seed=30 + num_players)
    rng = random.Random(30 + num_players)
    while not env.game.is_terminal():
        env.step(rng.choice(env.legal_actions()))
    d = env.state_dict()
    for p, v in enumerate(prestige):
        d["players"][p]["prestige"] = v
    return d


def test_ties_share_the_rank_rewards():
    env = caylus_v0.raw_env(num_players=3)
    env.reset(seed=0)
    env.load_state_dict(_finished_position(3, [10, 10, 5]))
    assert [env.rewards[a] for a in env.possible_agents] == [0.5, 0.5, -1.0]
    assert [env.infos[a]["rank"] for a in env.possible_agents] == [1.5, 1.5, 3.0]
    assert [env.infos[a]["final_prestige"] for a in env.possible_agents] == [10, 10, 5]
    assert all(env.terminations.values())
    two = caylus_v0.raw_env(num_players=2)
    two.reset(seed=0)
    two.load_state_dict(_finished_position(2, [7, 7]))
    assert [two.rewards[a] for a in two.possible_agents] == [0.0, 0.0]
