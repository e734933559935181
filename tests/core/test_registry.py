"""The game registry as the tools use it: names, lazy modules, records refused by another
game, and the adding-a-game guide's paths."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest

from caylus_env.core.record import replay
from caylus_env.core.registry import DEFAULT_GAME, GAME_NAMES, game_of, game_spec, record_game

REPO = Path(__file__).resolve().parents[2]


@pytest.mark.parametrize("name", GAME_NAMES)
def test_every_game_names_an_engine_with_the_common_surface(name):
    engine = game_spec(name).engine()
    for attr in (
        "Game",
        "GameConfig",
        "NUM_ACTIONS",
        "ACTION_NAMES",
        "ACTION_SPACE_VERSION",
        "DECISION_NAMES",
        "BLOCKS",
        "action_to_string",
        "string_to_action",
        "layout",
    ):
        assert hasattr(engine, attr), f"{name}: engine lacks {attr}"
    game = engine.Game(engine.GameConfig(num_players=2), seed=1)
    game.apply(game.legal_actions()[0])
    record = game.record().to_dict()
    assert record_game(record).name == name
    assert replay(record).history == game.history


def test_unknown_game_names_the_allowed_ones():
    allowed = ", ".join(GAME_NAMES)
    with pytest.raises(ValueError, match=f"unknown game 'go'; allowed: {allowed}"):
        game_spec("go")


@pytest.mark.parametrize("name", GAME_NAMES)
def test_a_record_of_another_game_is_refused_naming_both(name):
    other = next(g for g in GAME_NAMES if g != name)
    info = game_spec(name)
    record = info.new_game(info.config(3), seed=2).record().to_dict()
    title, other_title = re.escape(info.title), re.escape(game_spec(other).title)
    with pytest.raises(ValueError, match=rf"{title} record .*expected a {other_title} record"):
        record_game(record, expected=other)


def test_files_without_a_game_field_are_the_default_games():
    assert record_game({"format": "caylus-record/1"}, expected=DEFAULT_GAME).name == DEFAULT_GAME
    assert game_of({"format": "caylus-tournament-run/1"}) == DEFAULT_GAME
    for name in GAME_NAMES:
        assert game_of({"game": name}) == name


@pytest.mark.parametrize("name", GAME_NAMES)
def test_choosing_a_game_never_imports_another_games_engine(name):
    code = (
        "import sys; from caylus_env.core.registry import game_spec, GAME_NAMES; "
        f"game_spec({name!r}).engine(); "
        f"print(sorted(g for g in GAME_NAMES if g != {name!r} and "
        "any(m.startswith('caylus_env.' + g + '.') for m in sys.modules)))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"
