"""Caylus 1303 says that its rules are reconstructed wherever a user meets it (rules 1: the
official rulebook stops inside Phase 3): its title, the env's metadata, ``caylus games``, its
documentation pages; and every decision of its rules document is one row of the ``RULES``
table with a confidence (D1-D39)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import caylus_env
from caylus_env.caylus_1303.engine import RULES
from caylus_env.caylus_1303.engine.rules import BY_NUMBER, CONFIDENCES, value
from caylus_env.core.registry import game_spec

ROOT = Path(__file__).resolve().parents[2]
WORDS = "Caylus 1303 (reconstructed rules)"


def test_title_env_metadata_and_games_command_say_reconstructed_rules():
    assert game_spec("caylus_1303").title == WORDS
    env = caylus_env.make("caylus_1303", num_players=2)
    assert env.unwrapped.metadata["ruleset"] == WORDS
    assert env.unwrapped.metadata["name"] == "caylus_1303_v0"
    out = subprocess.run(
        [sys.executable, "-m", "caylus_cli", "games"], capture_output=True, text=True, check=True
    ).stdout
    assert f"caylus_1303: {WORDS} (caylus_1303_v0)" in out


def test_the_docs_and_the_env_page_say_reconstructed_rules():
    for page in ("docs/rules/caylus_1303.md", "docs/games/caylus_1303.md", "README.md"):
        assert "reconstructed rules" in (ROOT / page).read_text(encoding="utf-8"), page
    from caylus_env.caylus_1303 import env as env_page

    assert f"# {WORDS}" in env_page.__doc__


def test_rules_table_rows_are_named_numbered_and_rated():
    """D1-D39: one row each, a key, a value, what it fills and a confidence."""
    assert sorted(BY_NUMBER) == list(range(1, 40))
    for key, decision in RULES.items():
        assert decision.key == key and decision.fills and decision.confidence in CONFIDENCES
        assert value(key) is decision.value


def test_an_unknown_decision_key_is_refused_naming_the_known_ones():
    try:
        value("lawyer_price")
    except KeyError as err:
        assert "lawyer_cost" in str(err)
    else:
        raise AssertionError("an unknown key was accepted")
