"""The checkpoints shipped in the package (``ppo-2p``, ``ppo-caylus``, ``ppo-puerto-rico``,
``ppo-caylus-1303``): loadable, legal, and strong."""

from __future__ import annotations

import json

import numpy as np
import pytest

from agents.policy import SHIPPED_DIR, PolicyAgent, shipped_checkpoints
from agents.registry import describe, make_agent
from caylus_env.core.registry import game_spec
from training.league import play_match

#: The shipped checkpoints and the game each was trained on.
SHIPPED = {
    "ppo-2p": "caylus",
    "ppo-caylus": "caylus",
    "ppo-caylus-1303": "caylus_1303",
    "ppo-puerto-rico": "puerto_rico",
}


def test_every_shipped_checkpoint_is_a_built_in_agent_of_its_game():
    shipped = shipped_checkpoints()
    assert shipped == SHIPPED
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


@pytest.mark.parametrize("name", sorted(SHIPPED))
def test_a_shipped_checkpoint_records_its_command_and_is_small(name):
    cfg = json.loads((SHIPPED_DIR / name / "config.json").read_text())
    assert cfg["command"].startswith("caylus train ppo ")
    assert "/work" not in cfg["command"] and not str(cfg["parent"]).startswith("/")
    assert sum(p.stat().st_size for p in (SHIPPED_DIR / name).iterdir()) <= 5 * 1024 * 1024


@pytest.mark.parametrize("name", ["ppo-caylus", "ppo-caylus-1303", "ppo-puerto-rico"])
def test_the_policies_for_every_count_were_trained_and_beat_random_at_each(name):
    game = shipped_checkpoints()[name]
    cfg = json.loads((SHIPPED_DIR / name / "config.json").read_text())
    assert cfg["num_players"] == list(game_spec(game).player_counts)
    for n in cfg["num_players"]:
        m = play_match(
            make_agent(name, game), "random", games=40, num_players=n, seed=23, game=game
        )
        assert m.score >= 0.9, (n, m)  # the shipped figures: 0.99 to 1.00 at every count


def test_ppo_caylus_beats_economy_at_three_and_four_players():
    for n in (3, 4):
        m = play_match(
            make_agent("ppo-caylus", "caylus"),
            "economy",
            games=60,
            num_players=n,
            seed=29,
            game="caylus",
        )
        assert m.score >= 0.75, (n, m)  # shipped: 0.983 and 0.936 over 600 games each


def test_ppo_puerto_rico_beats_shipper_and_builder_at_three_players():
    for bot in ("shipper", "builder"):
        m = play_match(
            make_agent("ppo-puerto-rico", "puerto_rico"),
            bot,
            games=60,
            num_players=3,
            seed=29,
            game="puerto_rico",
        )
        assert m.score >= 0.6, (bot, m)  # the bar, on 60 fresh games
