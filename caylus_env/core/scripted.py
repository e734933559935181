"""``ScriptedAgent``: the agent of a game's scripted bots whose rules of thumb are one compiled
scoring of the legal actions (Puerto Rico's and Caylus 1303's ``bots/scripted_kernels``), and
that scoring's compiled choice (`choice_kernels`).

A game's ``bots/scripted.py`` subclasses the agent naming its title (for errors), its engine
kernels (``legal_actions``), its scoring kernels and its number of actions; its strategies
(bot name -> row of its kernels' tables) are its scoring's ``STRATEGY_NAMES`` in order. The
scoring module declares ``STRATEGY_NAMES``, ``score_actions(s, legal, n, strategy, out)`` (the
strategy's score of each legal action) and ``EPS`` (how much a later action must outscore the
best so far to be preferred), and takes its ``choose(s, legal, n, strategy)``, the index of the
first best action, from `choice_kernels`. The agent reads the game only through
``game.state`` and is deterministic: the same position gives the same action, and
``reset(seed)`` exists for the ``Agent`` protocol and changes nothing.
"""

from __future__ import annotations

from collections.abc import Mapping
from types import ModuleType, SimpleNamespace
from typing import Any, ClassVar

import numpy as np

from caylus_env.core.bindings import SCORING
from caylus_env.core.contract import Bot, scripted_bots
from caylus_env.core.specialize import specialize


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


# ---------------------------------------------------------------------------------------
# Compiled templates, specialized per game by `choice_kernels`: ``SCORING`` is the game's
# scoring module (its ``score_actions`` and ``EPS``; `caylus_env.core.bindings`).
# ---------------------------------------------------------------------------------------
def choose(s, legal, n, strategy):
    """The index into ``legal[:n]`` of strategy row ``strategy``'s best action: the first on
    ties, a later action replacing the best only when it scores more than ``SCORING.EPS``
    above it (so float noise between equal rules of thumb never decides)."""
    scores = np.empty(n, np.float64)
    SCORING.score_actions(s, legal, n, strategy, scores)
    best = 0
    for i in range(1, n):
        if scores[i] > scores[best] + SCORING.EPS:
            best = i
    return best


def choose_scripted(strategy, s, legal, n, noise):
    """The game's scripted bots as one kernel (``bots.choose_scripted``, which the training
    pool plays inside its compiled step): `choose` for strategy row ``strategy``
    (deterministic: the first best action; ``noise`` is unused)."""
    return choose(s, legal, n, strategy)


def choice_kernels(game: str, scoring: ModuleType) -> SimpleNamespace:
    """`choose` and `choose_scripted` compiled for ``game`` (an identifier) over its scoring
    module ``scoring`` (its ``score_actions`` and ``EPS``), which the scoring module calls at
    its end with itself: numba reads ``scoring``'s kernels at their first call, once the
    module is loaded."""
    return specialize([choose, choose_scripted], game, {"SCORING": scoring})


__all__ = ["ScriptedAgent", "choice_kernels", "choose", "choose_scripted"]
