"""``Game``: the platform's handle (``caylus_env.core.game.Game``) on a game of Caylus.

The shared handle reads every game with the same words; Caylus plugs in its kernels, its
options and its state dict, and adds its explicit setup (the neutral tiles and the first turn
order the seed draws, rules 1.3), which its records store so that a replay checks it. The
rulebook's own words stay available: ``prestige()`` is ``scores()`` (rules 8.21) and ``turn``
is ``round`` (rules 3).

Examples:
    >>> from caylus_env.caylus.engine import Game, GameConfig
    >>> g = Game(GameConfig(num_players=3), seed=7)
    >>> a = g.legal_actions()[0]
    >>> g.apply(a)
    >>> g.history == [a]
    True
"""

from __future__ import annotations

from typing import Any

import numpy as np

from caylus_env.caylus.engine import kernels
from caylus_env.caylus.engine import layout as L
from caylus_env.caylus.engine.board import NUM_NEUTRAL
from caylus_env.caylus.engine.buildings import BUILDING_NAMES
from caylus_env.core import game as core

GAME_NAME = "caylus"


class Game(core.Game, game=GAME_NAME, engine=__package__):
    """One game of Caylus: the state array plus options, seed and history.

    Args:
        config: the game options (player count and variants).
        seed: the setup seed (neutral tiles and first turn order), 0 <= seed < 2**63.
    """

    @property
    def turn(self) -> int:
        """The turn number (rules 3), the shared handle's ``round``."""
        return self.round

    def prestige(self) -> np.ndarray:
        """Prestige per seat (final prestige once the game is over): ``scores()``."""
        return self.scores()

    def setup(self) -> dict[str, Any]:
        """The explicit setup: neutral tiles on road spaces 1-6 and the first turn order."""
        if self.seed is None:
            d = self.start
            return {
                "neutral_tiles": [d["road"][k]["building"] for k in range(NUM_NEUTRAL)],
                "turn_order": list(d["turn_order"]),
            }
        probe = np.zeros(L.STATE_SIZE, L.STATE_DTYPE)
        kernels.setup(probe, self.config.kernel_options(), self.seed)
        return {
            "neutral_tiles": [
                BUILDING_NAMES[probe[L.ROAD_TILE + k]] for k in range(1, NUM_NEUTRAL + 1)
            ],
            "turn_order": [int(probe[L.TURN_ORDER + i]) for i in range(self.num_players)],
        }


__all__ = ["GAME_NAME", "Game"]
