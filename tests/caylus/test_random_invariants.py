"""Randomized Caylus-specific properties over complete random games, for every player count.

The game-neutral checklist (invariants at every decision, the mask against what ``step``
accepts, refused actions changing nothing, clones, state dicts, records) runs for every game in
the conformance suite (``tests/conformance``). Here, what only Caylus's rules say: the bailiff
never moves back (rules 4.7), the game ends within 18 turns with the towers scored (rules 4.7,
8.22), and the player asked is the one on top of the pending-decision stack. Options vary from
game to game so that the variants are covered too. ``-m slow`` runs ten times more games.
"""

from __future__ import annotations

import random

import numpy as np
import pytest

from caylus_env.caylus.engine import Game, GameConfig
from caylus_env.caylus.engine import layout as L
from caylus_env.caylus.engine.constants import Section

DEFAULT_GAMES = 300
SLOW_GAMES = 3000
MAX_TURNS = 18  # rules 4.7: the towers are scored after at most 18 turns


def random_config(n: int, rng: random.Random) -> GameConfig:
    variant = rng.random() < 0.3
    return GameConfig(
        num_players=n,
        simplified_favors=variant and rng.random() < 0.5,
        lawyer_prestige=rng.choice((4, 3)),
        jeweller=variant and rng.random() < 0.5,
        house_cap=variant and rng.random() < 0.5,
    )


def check_game(n: int, seed: int) -> int:
    """Play one random game with the Caylus checks; returns its number of decisions."""
    rng = random.Random(seed)
    game = Game(random_config(n, rng), seed=seed)
    bailiff = 0
    while not game.is_terminal():
        s = game.state
        assert s[L.BAILIFF] >= bailiff, f"seed {seed}: the bailiff moved back"
        bailiff = int(s[L.BAILIFF])
        top = L.STACK + (s[L.STACK_SIZE] - 1) * L.STACK_ENTRY
        assert game.current_player() == int(s[top + 1])
        game.apply(rng.choice(game.legal_actions()))
    assert game.turn <= MAX_TURNS and game.state[L.SCORED + Section.TOWERS] == 1
    prestige = game.prestige()
    assert game.ranks()[np.argmax(prestige)] == game.ranks().min()
    return len(game.history)


@pytest.mark.parametrize("n", [2, 3, 4, 5])
def test_random_games_keep_the_caylus_properties(n):
    lengths = [check_game(n, seed) for seed in range(DEFAULT_GAMES)]
    assert min(lengths) > 50


@pytest.mark.slow
@pytest.mark.parametrize("n", [2, 3, 4, 5])
def test_random_games_keep_the_caylus_properties_wide(n):
    for seed in range(DEFAULT_GAMES, DEFAULT_GAMES + SLOW_GAMES):
        check_game(n, seed)
