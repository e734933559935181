"""Golden playthroughs: replay every file in tests/playthroughs and diff it line by line.

A failure means the rules, the observation encoding or the action names changed.
If the change is intended, regenerate the files (see ``caylus_env.core.playthrough``)
and review the diff.
"""

from __future__ import annotations

import difflib
from pathlib import Path

import pytest

from caylus_env.core.playthrough import parse_playthrough, render_playthrough

DIR = Path(__file__).parent / "playthroughs"
FILES = sorted(DIR.glob("*.txt"))


def test_every_player_count_has_a_golden_playthrough():
    counts = {parse_playthrough(p.read_text())[0].num_players for p in FILES}
    assert counts == {2, 3, 4, 5}


@pytest.mark.parametrize("path", FILES, ids=[p.name for p in FILES])
def test_playthrough_replays_identically(path):
    expected = path.read_text()
    config, seed, policy_seed, actions = parse_playthrough(expected)
    actual, played = render_playthrough(config, seed, actions, policy_seed)
    assert played == actions
    if actual != expected:
        diff = "".join(
            difflib.unified_diff(
                expected.splitlines(True), actual.splitlines(True), "golden", "replayed", n=2
            )
        )
        pytest.fail(f"{path.name} differs from its replay:\n{diff[:4000]}")


def test_a_random_playthrough_is_reproduced_from_its_own_actions():
    from caylus_env.caylus.engine import GameConfig

    text, actions = render_playthrough(GameConfig(num_players=3), seed=5, policy_seed=5)
    again, _ = render_playthrough(GameConfig(num_players=3), 5, actions, 5)
    assert again == text and parse_playthrough(text)[3] == actions
