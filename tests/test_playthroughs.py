"""Golden playthroughs of every registered game: replay every file in tests/playthroughs and diff
it line by line.

A failure means the rules, the observation encoding, the action names or the game's compact
state text changed. If the change is intended, regenerate the files (see
``caylus_env.core.playthrough``) and review the diff. Every registered game must have a file for
each player count with its rules as printed, and one for each of its other option sets.
"""

from __future__ import annotations

import difflib
from pathlib import Path

import pytest

from caylus_env.core.playthrough import (
    FORMAT,
    RULES,
    file_name,
    option_set_of,
    parse_playthrough,
    render_playthrough,
)
from caylus_env.core.registry import GAME_NAMES, game_spec

DIR = Path(__file__).parent / "playthroughs"
FILES = sorted(DIR.glob("*.txt"))


def _covered() -> dict[str, set[tuple[int, str | None]]]:
    """Per game, the (player count, option set) of its files."""
    out: dict[str, set[tuple[int, str | None]]] = {g: set() for g in GAME_NAMES}
    for path in FILES:
        p = parse_playthrough(path.read_text(encoding="utf-8"))
        out[p.game].add((p.config.num_players, option_set_of(p.game, p.config)))
    return out


@pytest.mark.parametrize("game", GAME_NAMES)
def test_every_game_has_playthroughs_of_every_player_count_and_option_set(game):
    spec = game_spec(game)
    covered = _covered()[game]
    missing = [n for n in spec.player_counts if (n, RULES) not in covered]
    assert not missing, f"{game} has no playthrough of its rules for {missing} players"
    sets = {name for _, name in covered}
    assert set(spec.option_sets) <= sets, (
        f"{game} has no playthrough of {set(spec.option_sets) - sets}"
    )


@pytest.mark.parametrize("path", FILES, ids=[p.name for p in FILES])
def test_playthrough_replays_identically(path):
    expected = path.read_text(encoding="utf-8")
    p = parse_playthrough(expected)
    assert path.name == file_name(p.game, p.config, p.seed)
    actual, played = render_playthrough(
        p.game, p.config, p.seed, p.actions, p.policy_seed, version=p.version
    )
    assert played == p.actions
    if actual != expected:
        diff = "".join(
            difflib.unified_diff(
                expected.splitlines(True), actual.splitlines(True), "golden", "replayed", n=2
            )
        )
        pytest.fail(f"{path.name} differs from its replay:\n{diff[:4000]}")


@pytest.mark.parametrize("game", GAME_NAMES)
def test_a_random_playthrough_is_reproduced_from_its_own_actions(game):
    spec = game_spec(game)
    config = spec.config(3)
    text, actions = render_playthrough(game, config, seed=5, policy_seed=5)
    again, _ = render_playthrough(game, config, 5, actions, 5)
    parsed = parse_playthrough(text)
    assert again == text and parsed.actions == actions and parsed.game == game
    assert parsed.config == config and (parsed.seed, parsed.policy_seed) == (5, 5)
    assert text.startswith(f"format: {FORMAT}\ngame: {game}\nenv: {spec.env_name} (")
    assert f"# Step 0  round={spec.new_game(config, 5).round} " in text
    ends = ("# Game over\n", "# Game truncated\n")
    assert any(end in text for end in ends) and "\nfinal_scores = [" in text


def test_a_playthrough_that_ends_before_its_game_or_lacks_a_header_is_refused():
    game = GAME_NAMES[0]
    config = game_spec(game).config(2)
    text, actions = render_playthrough(game, config, seed=1, policy_seed=1)
    with pytest.raises(ValueError, match="ends after 3 actions, before the game does"):
        render_playthrough(game, config, 1, actions[:3])
    with pytest.raises(ValueError, match="no 'game' line"):
        parse_playthrough(text.replace(f"game: {game}\n", ""))
    with pytest.raises(ValueError, match="unknown game 'chess'"):
        parse_playthrough(text.replace(f"game: {game}\n", "game: chess\n"))
    with pytest.raises(ValueError, match="playthrough format"):
        parse_playthrough(text.replace(FORMAT, "caylus-playthrough/1"))
