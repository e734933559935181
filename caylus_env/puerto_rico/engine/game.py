"""``Game``: the platform's handle (``caylus_env.core.game.Game``) on a game of Puerto Rico.

The shared handle reads every game with the same words; Puerto Rico plugs in its kernels,
its options and its state dict. Its scores are victory points (rules 5.2), ties are broken by
doubloons plus barrels (5.3), its clock is the round (3), and a game still running after
``max_decisions`` decisions is cut off: truncated, not terminated (6.9).

Examples:
    >>> from caylus_env.puerto_rico.engine import Game, GameConfig
    >>> g = Game(GameConfig(num_players=3), seed=7)
    >>> g.decision().kind
    'role'
    >>> g.apply(g.legal_actions()[0])
    >>> len(g.history)
    1
"""

from __future__ import annotations

from caylus_env.core import game as core

GAME_NAME = "puerto_rico"


class Game(core.Game, game=GAME_NAME, engine=__package__):
    """One game of Puerto Rico: the state array plus options, seed and history.

    Args:
        config: the game options (player count, truncation cap, expansion).
        seed: the seed of the plantation shuffle, 0 <= seed < 2**63 (rules 1.4).
    """


__all__ = ["GAME_NAME", "Game"]
