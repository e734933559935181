"""Text rendering of every game: the shared frame (heading, decision, end) drawn for every
registered game by its ``rendering`` module. Each game's own table is checked in its folder:
``tests/caylus/test_rendering.py``, ``tests/puerto_rico/test_rendering.py``,
``tests/caylus_1303/test_rendering.py``.
"""

from __future__ import annotations

import random

import numpy as np
import pytest

from caylus_env.core.registry import GAME_NAMES, game_spec


def _random_game(game: str, num_players: int, seed: int, decisions: int | None = None):
    """A game of ``game`` played at random from ``seed``: to its end, or ``decisions`` moves."""
    spec = game_spec(game)
    g = spec.new_game(spec.config(num_players), seed)
    rng = random.Random(seed)
    while not g.is_over() and (decisions is None or len(g.history) < decisions):
        g.apply(rng.choice(g.legal_actions()))
    return g


def _render(game) -> str:
    return game_spec(game.GAME).module("rendering").render_text(game)


# -- every game --------------------------------------------------------------------------------
@pytest.mark.parametrize("game", GAME_NAMES)
def test_the_heading_names_the_game_players_seed_clock_and_phase(game):
    spec = game_spec(game)
    g = spec.new_game(spec.config(3), seed=7)
    text = _render(g)
    clock = f"{spec.clock_word} {g.round}"
    assert text.startswith(f"{spec.title}, 3 players, seed 7: {clock}, phase {g.phase}\n")
    assert "\x1b" not in text  # plain text, no colour codes
    loaded = spec.engine().Game.from_state_dict(_random_game(game, 3, 9, 40).state_dict())
    assert _render(loaded).startswith(f"{spec.title}, 3 players, loaded position: ")


@pytest.mark.parametrize("game", GAME_NAMES)
def test_the_decision_and_its_legal_action_names(game):
    g = _random_game(game, 3, seed=2, decisions=30)
    text = _render(g)
    decision = g.decision()
    assert f"Decision: {decision.kind} for p{decision.player}" in text
    legal_line = next(line for line in text.splitlines() if line.startswith("Legal ("))
    names = [g.action_to_string(a) for a in g.legal_actions()]
    assert legal_line == f"Legal ({len(names)}): {', '.join(names)}"


@pytest.mark.parametrize("game", GAME_NAMES)
@pytest.mark.parametrize("num_players", [2, 5])
def test_rendering_reads_only_and_the_end_shows_scores_and_ranks(game, num_players):
    spec = game_spec(game)
    g = spec.new_game(spec.config(num_players), seed=num_players)
    rng = random.Random(num_players)
    while not g.is_over():
        state, history = g.state.copy(), list(g.history)
        assert _render(g) == _render(g)
        assert np.array_equal(g.state, state) and g.history == history
        g.apply(rng.choice(g.legal_actions()))
    text = _render(g)
    end = "Game truncated by the decision cap" if g.is_truncated() else "Game over"
    final = ", ".join(
        f"p{p} {v} (rank {r:g})" for p, (v, r) in enumerate(zip(g.scores(), g.ranks(), strict=True))
    )
    assert f"{end}. Final {spec.score_word}: {final}" in text.splitlines()
    assert "Legal (" not in text and "Decision:" not in text


@pytest.mark.parametrize(
    "game", [g for g in GAME_NAMES if game_spec(g).truncating_options is not None]
)
def test_a_truncated_game_says_so(game):
    spec = game_spec(game)
    g = spec.new_game(spec.config(3, **spec.truncating_options), seed=2)
    rng = random.Random(2)
    while not g.is_over():
        g.apply(rng.choice(g.legal_actions()))
    assert g.is_truncated()
    assert f"Game truncated by the decision cap. Final {spec.score_word}: " in _render(g)
