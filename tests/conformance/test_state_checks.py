"""Every game's state-dict reader refuses what the shared checks refuse, in the same words
(``caylus_env.core.state_checks``): a dict's unknown keys whatever their type, and a value
nested too deeply to read."""

from __future__ import annotations

import pytest

from caylus_env.core.errors import InvalidStateError
from caylus_env.core.registry import GAME_NAMES, game_spec
from caylus_env.core.state_checks import TOO_DEEP

#: Deeper than Python's recursion limit, so reading the value recurses too far.
DEPTH = 5000


def _start(game: str) -> dict:
    engine = game_spec(game).engine()
    return engine.Game(engine.GameConfig(num_players=2), seed=1).state_dict()


def _nested(depth: int) -> object:
    deep: object = 0
    for _ in range(depth):
        deep = [deep]
    return deep


@pytest.mark.parametrize("game", GAME_NAMES)
def test_unknown_keys_of_mixed_types_are_refused_naming_each(game):
    engine = game_spec(game).engine()
    with pytest.raises(InvalidStateError) as refused:
        engine.Game.from_state_dict({**_start(game), 1: 0, "x": 0})
    message = str(refused.value)
    assert "\n" not in message
    assert "1" in message and "'x'" in message, message


@pytest.mark.parametrize("game", GAME_NAMES)
def test_a_value_nested_too_deeply_is_refused_in_the_same_words_by_every_game(game):
    engine = game_spec(game).engine()
    d = _start(game)
    d["options"] = {**d["options"], "num_players": _nested(DEPTH)}
    with pytest.raises(InvalidStateError) as refused:
        engine.Game.from_state_dict(d)
    assert str(refused.value) == f"state dict: {TOO_DEEP}"
