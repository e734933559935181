"""Every game's MCTS bot gives the raw root visit counts of its last search
(``visit_counts()``, shown by ``caylus serve``), and its ``action_distribution()`` is them
normalised."""

from __future__ import annotations

import pytest

from agents.registry import make_agent
from caylus_env.core.registry import GAME_NAMES, game_spec


@pytest.mark.parametrize("game", GAME_NAMES)
def test_mcts_visit_counts_are_the_counts_behind_its_distribution(game):
    spec = game_spec(game)
    g = spec.new_game(spec.config(2), 4)
    agent = make_agent("mcts:24", game)
    agent.reset(0)
    assert agent.visit_counts() is None
    while len(g.legal_actions()) < 2:
        g.apply(g.legal_actions()[0])
    action = agent.act(g)
    actions, counts = agent.visit_counts()
    assert action in actions and set(actions) <= set(g.legal_actions())
    assert all(isinstance(c, int) and c >= 0 for c in counts) and sum(counts) >= 2
    dist = dict(zip(*agent.action_distribution(), strict=True))
    total = sum(counts)
    assert dist == pytest.approx({a: c / total for a, c in zip(actions, counts, strict=True)})
    agent.reset(1)
    assert agent.visit_counts() is None
