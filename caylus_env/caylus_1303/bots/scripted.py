"""Scripted Caylus 1303 bots: ``constructor`` and ``deliverer``.

Both score every legal action with compiled rules of thumb
(``caylus_env.caylus_1303.bots.scripted_kernels``) and play the best one; they differ in their
tables:

- ``constructor``: wood and stone buildings early with the Carpenter and the Stonemason (their
  prestige and the owner's prestige of every visit, rules 4.2, D19), workers on producing
  buildings, the Lawyer's residences (D3, D5) and monuments built with gold (rules 4.4);
- ``deliverer``: food-centred production taken to the Construction Site every round it has a
  bundle (5 PP a bundle and the Delivery Favor, rules 4.3), gold for the Goldsmith and the
  Jeweler, the delivery characters (Foreman, Deliveryman, Chamberlain, Goldsmith) first.

A bot reads the game only through ``game.state``, never an opponent's prestige (so it plays
the same with ``hide_opponent_pp``, D37), and is deterministic: the same position gives the
same action; ``reset(seed)`` exists for the ``Agent`` protocol and changes nothing.
"""

from __future__ import annotations

import numpy as np

from caylus_env.caylus_1303.bots import scripted_kernels as SK
from caylus_env.caylus_1303.engine import Game
from caylus_env.caylus_1303.engine import kernels as K
from caylus_env.caylus_1303.engine.actions import NUM_ACTIONS

STRATEGIES: dict[str, int] = {name: i for i, name in enumerate(SK.STRATEGY_NAMES)}
"""Scripted bot name -> its strategy row in the kernels' tables."""


class ScriptedAgent:
    """A scripted bot: the argmax of its strategy's scores over the legal actions.

    Args:
        name: the spec that made it (``constructor`` or ``deliverer``).
        strategy: the bot's strategy name (default: ``name``).

    Raises:
        ValueError: for an unknown strategy, naming the allowed ones.
    """

    def __init__(self, name: str, strategy: str | None = None) -> None:
        strategy = name if strategy is None else strategy
        if strategy not in STRATEGIES:
            raise ValueError(
                f"unknown Caylus 1303 strategy {strategy!r}; allowed: {', '.join(STRATEGIES)}"
            )
        self.name = name
        self.strategy = STRATEGIES[strategy]
        self._out = np.empty(NUM_ACTIONS, np.int64)

    def reset(self, seed: int | None = None) -> None:
        """Nothing to reset: the bot has no randomness and no memory."""

    def act(self, game: Game) -> int:
        n = K.legal_actions(game.state, self._out)
        if n == 0:
            raise ValueError(f"agent {self.name!r}: the game asks no decision ({game!r})")
        return int(self._out[SK.choose(game.state, self._out, n, self.strategy)])

    def scores(self, game: Game) -> dict[int, float]:
        """The bot's score of each legal action (for inspection and tests)."""
        n = K.legal_actions(game.state, self._out)
        scores = np.empty(n, np.float64)
        SK.score_actions(game.state, self._out, n, self.strategy, scores)
        return {int(a): float(v) for a, v in zip(self._out[:n], scores, strict=True)}


def make_scripted(spec: str, arg: str | None = None) -> ScriptedAgent:
    """Registry factory: ``constructor`` or ``deliverer`` (no argument)."""
    return ScriptedAgent(spec)
