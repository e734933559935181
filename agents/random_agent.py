"""``random``: uniform over the legal actions, seeded (the floor of every ladder), for every
game."""

from __future__ import annotations

import random

from caylus_env.core.game import Game


class RandomAgent:
    """Picks uniformly among the legal actions with its own seeded generator."""

    def __init__(self, name: str = "random", seed: int | None = None) -> None:
        self.name = name
        self.reset(seed)

    def reset(self, seed: int | None = None) -> None:
        self._rng = random.Random(seed)
        self._legal: tuple[int, ...] = ()

    def act(self, game: Game) -> int:
        legal = game.legal_actions()
        self._legal = tuple(legal)
        return legal[self._rng.randrange(len(legal))]

    def action_distribution(self) -> tuple[tuple[int, ...], tuple[float, ...]] | None:
        """Uniform over the legal actions of the last ``act`` (None before any)."""
        if not self._legal:
            return None
        return self._legal, (1.0 / len(self._legal),) * len(self._legal)
