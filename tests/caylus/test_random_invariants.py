"""Randomized invariants over complete random games, for every player count.

OpenSpiel's ``RandomSimulation`` checklist adapted to Caylus: at every decision
the legal actions are sorted, unique and at least two (single choices are
applied by the engine), the state passes ``check_invariants``, an illegal action
is refused without changing anything, the bailiff and the turn never go back;
at sampled decisions the mask equals what ``step`` accepts for every id and the
``state_dict`` round trip is exact; every game ends within 18 turns and its
record replays to the same state. Options vary from game to game so that the
variants are covered too. ``-m slow`` runs ten times more games.
"""

from __future__ import annotations

import random

import numpy as np
import pytest

from caylus_env.caylus.engine import (
    NUM_ACTIONS,
    Game,
    GameConfig,
    IllegalActionError,
    kernels,
    replay,
)
from caylus_env.caylus.engine import layout as L
from caylus_env.caylus.engine.invariants import (
    INVARIANT_MESSAGES,
    accepted_actions,
    check_invariants,
)

DEFAULT_GAMES = 1000
SLOW_GAMES = 10000
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
    """Play one random game with every check; returns its number of decisions."""
    rng = random.Random(seed)
    game = Game(random_config(n, rng), seed=seed)
    out = np.empty(NUM_ACTIONS, np.int64)
    accepted = np.zeros(NUM_ACTIONS, np.int64)
    sampled = {rng.randrange(1, 200) for _ in range(2)} | {1, 2, 4, 8, 16, 32, 64, 128}
    bailiff = turn = 0
    step_index = 0
    while not game.is_terminal():
        legal = game.legal_actions()
        assert len(legal) >= 2, f"seed {seed}: a decision with {legal}"
        assert legal == sorted(set(legal))
        s = game.state
        code = check_invariants(s)
        assert code == 0, f"seed {seed} step {step_index}: {INVARIANT_MESSAGES[code]}"
        assert s[L.BAILIFF] >= bailiff and s[L.TURN] >= turn
        bailiff, turn = int(s[L.BAILIFF]), int(s[L.TURN])
        assert game.current_player() == int(s[L.STACK + (s[L.STACK_SIZE] - 1) * 4 + 1])
        legal_set = set(legal)
        bad = rng.randrange(NUM_ACTIONS)
        while bad in legal_set:
            bad = rng.randrange(NUM_ACTIONS)
        probe = s.copy()
        assert kernels.step(probe, bad, out) == kernels.ILLEGAL
        assert np.array_equal(probe, s)
        if step_index in sampled:
            assert accepted_actions(s, accepted) == len(legal)
            assert np.flatnonzero(accepted).tolist() == legal
            assert np.array_equal(Game.from_state_dict(game.state_dict()).state, s)
            before = s.copy()
            with pytest.raises(IllegalActionError):
                game.apply(bad)
            assert np.array_equal(game.state, before) and len(game.history) == step_index
        game.apply(rng.choice(legal))
        step_index += 1
    assert check_invariants(game.state) == 0
    assert game.turn <= MAX_TURNS and game.state[L.SCORED + 2] == 1
    assert game.legal_actions() == [] and game.current_player() == -1
    assert np.array_equal(replay(game.record()).state, game.state)
    returns = game.returns()
    assert abs(returns.sum()) < 1e-9 and returns.max() <= 1 and returns.min() >= -1
    prestige = game.prestige()
    assert game.ranks()[np.argmax(prestige)] == game.ranks().min()
    return step_index


@pytest.mark.parametrize("n", [2, 3, 4, 5])
def test_random_games_keep_every_invariant(n):
    lengths = [check_game(n, seed) for seed in range(DEFAULT_GAMES)]
    assert min(lengths) > 50


@pytest.mark.slow
@pytest.mark.parametrize("n", [2, 3, 4, 5])
def test_random_games_keep_every_invariant_wide(n):
    for seed in range(DEFAULT_GAMES, DEFAULT_GAMES + SLOW_GAMES):
        check_game(n, seed)
