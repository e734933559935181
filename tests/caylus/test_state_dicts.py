"""Caylus state dicts found by the fuzzer (``tests/conformance/fuzz_states``, run for every game by
``tests/conformance/test_state_dict_fuzz.py``): each class it found, as a scenario."""

from __future__ import annotations

import copy

import numpy as np
import pytest

from caylus_env.caylus.engine import Game, GameConfig, InvalidStateError


def _alchemist_position() -> dict:
    """A seeded game played until the alchemist asks for its cubes."""
    for seed in range(400):
        game = Game(GameConfig(num_players=3), seed=seed)
        rng = np.random.default_rng(seed)
        while not game.is_over():
            if game.decision().kind == "alchemist_pay":
                return game.state_dict()
            legal = game.legal_actions()
            names = [game.action_to_string(a) for a in legal]
            prefer = [a for a, s in zip(legal, names, strict=True) if "alchemist" in s]
            prefer += [a for a, s in zip(legal, names, strict=True) if s.startswith("option")]
            game.apply(prefer[-1] if prefer else legal[int(rng.integers(len(legal)))])
    raise AssertionError("no seeded game reached an alchemist_pay decision")


@pytest.fixture(scope="module")
def alchemist():
    return _alchemist_position()


def test_alchemist_pay_position_plays_to_a_game_over_its_loader_takes_back(alchemist):
    assert [e["kind"] for e in alchemist["pending"]] == ["finish_space", "alchemist_pay"]
    game = Game.from_state_dict(alchemist)
    rng = np.random.default_rng(0)
    while not game.is_over():
        legal = game.legal_actions()
        game.apply(legal[int(rng.integers(len(legal)))])
        Game.from_state_dict(game.state_dict())  # every position on the way loads back


def test_activation_decision_without_its_finish_space_leaving_a_worker_is_refused(alchemist):
    # Without the procedure beneath it nothing would send the alchemist's worker home: it
    # would stay on the road to the end of the game (rules 4, phase 5).
    d = copy.deepcopy(alchemist)
    d["pending"] = [e for e in d["pending"] if e["kind"] != "finish_space"]
    with pytest.raises(InvalidStateError, match="that worker went home already"):
        Game.from_state_dict(d)


def test_deeply_nested_value_is_refused_with_a_value_error(alchemist):
    d = copy.deepcopy(alchemist)
    deep: object = 0
    for _ in range(5000):
        deep = [deep]
    d["players"][0]["money"] = deep
    with pytest.raises(InvalidStateError, match="nested too deeply"):
        Game.from_state_dict(d)
