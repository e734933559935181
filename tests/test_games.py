"""The game registry: names, lazy modules, and records refused by the other game."""

from __future__ import annotations

import subprocess
import sys

import pytest

from caylus_env.core.registry import GAME_NAMES, game_info, record_game


def test_every_game_names_an_engine_with_the_common_surface():
    for name in GAME_NAMES:
        engine = game_info(name).engine_module()
        for attr in (
            "Game",
            "GameConfig",
            "GameRecord",
            "IllegalActionError",
            "replay",
            "NUM_ACTIONS",
            "ACTION_NAMES",
            "BLOCKS",
            "action_to_string",
            "string_to_action",
        ):
            assert hasattr(engine, attr), f"{name}: engine lacks {attr}"
        game = engine.Game(engine.GameConfig(num_players=2), seed=1)
        game.apply(game.legal_actions()[0])
        record = game.record().to_dict()
        assert record_game(record).name == name
        assert engine.replay(record).history == game.history


def test_unknown_game_names_the_allowed_ones():
    with pytest.raises(ValueError, match="unknown game 'go'; allowed: caylus, puerto_rico"):
        game_info("go")


def test_a_record_of_the_other_game_is_refused_naming_both():
    from caylus_env.puerto_rico.engine import Game, GameConfig

    record = Game(GameConfig(num_players=3), seed=2).record().to_dict()
    with pytest.raises(ValueError, match=r"Puerto Rico record .*expected a Caylus record"):
        record_game(record, expected="caylus")
    assert record_game({"format": "caylus-record/1"}, expected="caylus").name == "caylus"


def test_choosing_caylus_never_imports_the_puerto_rico_engine():
    code = (
        "import sys; from caylus_env.core.registry import game_info; "
        "game_info('caylus').engine_module(); "
        "print(any(m.startswith('caylus_env.puerto_rico') for m in sys.modules))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"
