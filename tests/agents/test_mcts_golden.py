"""Every game's MCTS plays, from the same seed, the moves it was recorded playing, with the same
root visit counts: seeded searches of every game and player count, over the game's option
sets, for several budgets, every rollout policy and every spec option
(``tests/agents/regenerate_mcts_golden.py`` says which, and rewrites the file after an
intended change).

The searches were recorded with each game's own search, before the one search of
``caylus_env.core.mcts`` replaced them: the one search plays the same moves.
"""

from __future__ import annotations

import json

import pytest

from tests.agents.regenerate_mcts_golden import GOLDEN, cases, searches

RECORDED = json.loads(GOLDEN.read_text(encoding="utf-8")) if GOLDEN.exists() else {}


def test_the_golden_file_covers_every_game_with_a_search_and_every_player_count():
    assert sorted(RECORDED) == sorted(f"{game}/{n}" for game, n in cases())


@pytest.mark.parametrize(("game", "num_players"), cases())
def test_seeded_searches_play_the_recorded_moves_with_the_recorded_visits(game, num_players):
    recorded = RECORDED[f"{game}/{num_players}"]
    found = searches(game, num_players)
    assert len(found) == len(recorded)
    for want, got in zip(recorded, found, strict=True):
        where = f"{game}, {num_players} players, seed {want['seed']}, {want['spec']}"
        assert got == want, (
            f"{where}: the search changed; if intended: python "
            "tests/agents/regenerate_mcts_golden.py, and review the diff"
        )
