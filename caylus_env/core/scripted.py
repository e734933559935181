"""``ScriptedAgent``: the agent of a game's scripted bots whose rules of thumb are one compiled
scoring of the legal actions (Puerto Rico's and Caylus 1303's ``bots/scripted_kernels``).

A game's ``bots/scripted.py`` subclasses it naming its title (for errors), its engine kernels
(``legal_actions``), its scoring kernels (``choose(s, legal, n, strategy)``, the index of the
first best action, ``score_actions(s, legal, n, strategy, out)`` and ``STRATEGY_NAMES``) and its
number of actions; its strategies (bot name -> row of its kernels' tables) are its scoring's
``STRATEGY_NAMES`` in order. The agent reads the game only through ``game.state`` and is
deterministic: the same position gives the same action, and ``reset(seed)`` exists for the
``Agent`` protocol and changes nothing.
"""

from __future__ import annotations

from collections.abc import Mapping
from types import ModuleType
from typing import Any, ClassVar

import numpy as np

from caylus_env.core.contract import Bot, scripted_bots


class ScriptedAgent:
    """A scripted bot: the argmax of its strategy's scores over the legal actions.

    A game's subclass names its parts as class keywords, e.g. ``class ScriptedAgent(
    scripted.ScriptedAgent, title="Puerto Rico", kernels=K, scoring=SK,
    num_actions=NUM_ACTIONS)``, which set the class attributes below.

    Class attributes (each game sets its own):
        TITLE: the game's name in errors (``Puerto Rico``).
        STRATEGIES: bot name -> its strategy row in the scoring kernels' tables (the rows of
            the scoring's ``STRATEGY_NAMES``).
        KERNELS: the game's engine kernels (``legal_actions``).
        SCORING: its compiled scoring (``choose``, ``score_actions``).
        NUM_ACTIONS: the size of its action space.

    Args:
        name: the spec that made it (one of ``STRATEGIES``).
        strategy: the bot's strategy name (default: ``name``).

    Raises:
        ValueError: for an unknown strategy, naming the allowed ones.
    """

    TITLE: ClassVar[str]
    STRATEGIES: ClassVar[Mapping[str, int]]
    KERNELS: ClassVar[ModuleType]
    SCORING: ClassVar[ModuleType]
    NUM_ACTIONS: ClassVar[int]

    def __init_subclass__(
        cls,
        *,
        title: str,
        kernels: ModuleType,
        scoring: ModuleType,
        num_actions: int,
        **kwargs: Any,
    ) -> None:
        super().__init_subclass__(**kwargs)
        cls.TITLE = title
        cls.STRATEGIES = {name: i for i, name in enumerate(scoring.STRATEGY_NAMES)}
        cls.KERNELS = kernels
        cls.SCORING = scoring
        cls.NUM_ACTIONS = num_actions

    def __init__(self, name: str, strategy: str | None = None) -> None:
        strategy = name if strategy is None else strategy
        if strategy not in self.STRATEGIES:
            raise ValueError(
                f"unknown {self.TITLE} strategy {strategy!r}; allowed: {', '.join(self.STRATEGIES)}"
            )
        self.name = name
        self.strategy = self.STRATEGIES[strategy]
        self._out = np.empty(self.NUM_ACTIONS, np.int64)

    @classmethod
    def from_spec(cls, spec: str, arg: str | None = None) -> ScriptedAgent:
        """Registry factory: the bot of strategy ``spec`` (it takes no argument)."""
        return cls(spec)

    @classmethod
    def bots(cls, plays: Mapping[str, str], cost: str) -> dict[str, Bot]:
        """The game's scripted entries of ``BOTS``, one per strategy in row order
        (`caylus_env.core.contract.scripted_bots`), each described as ``scripted rules of
        thumb: <plays[name]>; <cost>`` (``cost``: what a move costs, how well they play)."""
        return scripted_bots(
            cls.from_spec,
            {name: f"scripted rules of thumb: {plays[name]}; {cost}" for name in cls.STRATEGIES},
        )

    def reset(self, seed: int | None = None) -> None:
        """Nothing to reset: the bot has no randomness and no memory."""

    def act(self, game: Any) -> int:
        n = self.KERNELS.legal_actions(game.state, self._out)
        if n == 0:
            raise ValueError(f"agent {self.name!r}: the game asks no decision ({game!r})")
        return int(self._out[self.SCORING.choose(game.state, self._out, n, self.strategy)])

    def scores(self, game: Any) -> dict[int, float]:
        """The bot's score of each legal action (for inspection and tests)."""
        n = self.KERNELS.legal_actions(game.state, self._out)
        scores = np.empty(n, np.float64)
        self.SCORING.score_actions(game.state, self._out, n, self.strategy, scores)
        return {int(a): float(v) for a, v in zip(self._out[:n], scores, strict=True)}


__all__ = ["ScriptedAgent"]
