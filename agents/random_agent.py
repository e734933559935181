"""``random``: uniform over the legal actions, seeded (the floor of every ladder)."""

from __future__ import annotations

import random

from caylus_env.engine import Game


class RandomAgent:
    """Picks uniformly among the legal actions with its own seeded generator."""

    def __init__(self, name: str = "random", seed: int | None = None) -> None:
        self.name = name
        self._rng = random.Random(seed)

    def reset(self, seed: int | None = None) -> None:
        self._rng = random.Random(seed)

    def act(self, game: Game) -> int:
        legal = game.legal_actions()
        return legal[self._rng.randrange(len(legal))]
