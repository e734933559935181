"""Every registered game keeps the game contract (``caylus_env.core.contract``): its folder
provides every module and name, its engine every kernel; its spec's facts are consistent; the
registry, ``caylus games`` and ``caylus_env.make`` see it; and the guide to adding a game
(``docs/adding-a-game.md``) names only paths that exist."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

import caylus_env
from caylus_env.core.checks import check_game
from caylus_env.core.contract import PARTS, GameSpec
from caylus_env.core.registry import GAME_NAMES, GAME_PACKAGES, game_spec, games, record_game

ROOT = Path(__file__).resolve().parents[2]


def test_every_game_provides_the_whole_contract(game):
    assert check_game(game_spec(game)) == []


def test_check_game_names_what_is_missing(game):
    spec = game_spec(game)
    broken = GameSpec(**{**spec.__dict__, "package": "caylus_env.core"})
    missing = check_game(broken)
    assert any("caylus_env.core.engine cannot be imported" in m for m in missing)


def test_the_registry_is_one_line_per_game_folder():
    assert tuple(p.rpartition(".")[2] for p in GAME_PACKAGES) == GAME_NAMES
    assert [s.name for s in games()] == list(GAME_NAMES)
    for spec in games():
        assert spec.package == f"caylus_env.{spec.name}"
        assert (ROOT / spec.package.replace(".", "/")).is_dir()
        assert (ROOT / "caylus_env" / f"{spec.env_name}.py").is_file()  # the one shim
    with pytest.raises(ValueError, match=r"unknown game 'go'; allowed: "):
        game_spec("go")


def test_spec_facts_are_consistent(game):
    spec = game_spec(game)
    engine = spec.engine()
    assert spec.min_players <= spec.default_players <= spec.max_players
    assert spec.min_players == engine.GameConfig.MIN_PLAYERS
    assert spec.max_players == engine.GameConfig.MAX_PLAYERS
    assert "rules" in spec.option_sets and spec.option_sets["rules"] == {}
    for name, options in spec.option_sets.items():
        assert set(options) <= set(spec.options()), name
        spec.config(spec.min_players, **options)  # valid
    if spec.truncating_options is not None:
        assert set(spec.truncating_options) <= set(spec.options())
    assert (ROOT / spec.rules_doc).is_file()
    assert spec.env_name == spec.module("env").ENV_NAME
    assert spec.title and spec.summary and spec.score_word and spec.clock_word
    for part in PARTS:
        assert spec.module(part).__doc__, f"{spec.package}.{part} has no docstring"


def test_records_name_their_game(game):
    other = [g for g in GAME_NAMES if g != game]
    assert record_game({"game": game}, expected=game).name == game
    for g in other:
        with pytest.raises(ValueError, match=f"pass --game {game}"):
            record_game({"game": game}, expected=g)


def test_caylus_games_lists_every_game():
    from typer.testing import CliRunner

    from caylus_cli.app import app

    result = CliRunner().invoke(app, ["games"])
    assert result.exit_code == 0, result.output
    lines = result.output.strip().splitlines()
    assert len(lines) == len(GAME_NAMES)
    for spec, line in zip(games(), lines, strict=True):
        assert line.startswith(f"{spec.name}: {spec.title}")
        assert f"{spec.min_players}-{spec.max_players} players" in line
        for option in spec.options():
            assert f"{option}=" in line


def test_make_and_make_vector_serve_every_game(game):
    spec = game_spec(game)
    env = caylus_env.make(game, num_players=spec.min_players)
    env.reset(seed=0)
    assert env.unwrapped.metadata["name"] == spec.env_name
    vec = caylus_env.make_vector(game, 3, num_players=spec.max_players)
    obs, info = vec.reset(seed=0)
    assert obs["observation"].shape == (3, spec.observation().OBS_SIZE)
    assert vec.action_masks().shape == (3, spec.engine().NUM_ACTIONS)
    assert (info["action_mask"] == obs["action_mask"]).all()


def test_the_guide_to_adding_a_game_names_only_existing_paths():
    text = (ROOT / "docs" / "adding-a-game.md").read_text()
    paths = set(
        re.findall(
            r"`((?:caylus_env|agents|training|caylus_cli|tests|docs|bench)/[^`\s*<>]+)`", text
        )
    )
    assert len(paths) > 20
    missing = sorted(p for p in paths if not (ROOT / p.rstrip("/")).exists())
    assert not missing, missing
    for phrase in ("one folder", "one registration line", "one shim"):
        assert phrase in text
