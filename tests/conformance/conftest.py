"""The conformance suite: every test here runs for every registered game.

A game joins the platform by registering (``caylus_env.core.registry.GAME_PACKAGES``); these
tests then check that it keeps the game contract (``caylus_env.core.contract``) with no test
written for it: its player counts and its option sets (``GameSpec.option_sets``) come from its
spec, its agents from the agent registry. Rule scenarios stay in each game's own tests
(``tests/caylus/``, ``tests/puerto_rico/``).
"""

from __future__ import annotations

import random
from collections.abc import Iterator
from typing import Any

import pytest

from caylus_env.core.registry import GAME_NAMES, game_spec

#: Every (game, player count, option set name) the suite plays.
CASES = [
    (game, n, name)
    for game in GAME_NAMES
    for n in game_spec(game).player_counts
    for name in game_spec(game).option_sets
]


def case_id(case: tuple[str, int, str]) -> str:
    game, n, name = case
    return f"{game}-{n}p-{name}"


def options_of(game: str, name: str) -> dict[str, Any]:
    return dict(game_spec(game).option_sets[name])


def raw_env(game: str, num_players: int | None = None, **kwargs: Any) -> Any:
    """The game's ``raw_env`` (``caylus_env.make(game, wrapped=False)``)."""
    import caylus_env

    return caylus_env.make(game, wrapped=False, num_players=num_players, **kwargs)


def play_to_end(env: Any, seed: int, rng_seed: int | None = None) -> None:
    """Random legal play on a raw_env until nothing is asked any more (agents not drained)."""
    env.reset(seed=seed)
    rng = random.Random(seed if rng_seed is None else rng_seed)
    while not env.game.is_over():
        env.step(rng.choice(env.legal_actions()))


def drain(env: Any) -> None:
    """Step every finished agent out with ``None``, as PettingZoo's loop does."""
    for agent in env.agent_iter():
        _, _, termination, truncation, _ = env.last()
        assert termination or truncation, agent
        env.step(None)


def random_game(game: str, num_players: int, seed: int, **options: Any) -> Iterator[Any]:
    """A game of random legal moves, yielded at every decision (and once at the end)."""
    spec = game_spec(game)
    g = spec.new_game(spec.config(num_players, **options), seed)
    rng = random.Random(seed)
    while True:
        yield g
        if g.is_over():
            return
        g.apply(rng.choice(g.legal_actions()))


@pytest.fixture(params=GAME_NAMES)
def game(request: pytest.FixtureRequest) -> str:
    """Each registered game's name."""
    return str(request.param)
