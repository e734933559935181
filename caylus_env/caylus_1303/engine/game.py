"""``Game``: the platform's handle (``caylus_env.core.game.Game``) on a game of Caylus 1303
(reconstructed rules).

The shared handle reads every game with the same words; Caylus 1303 plugs in its kernels, its
options and its state dict. Its scores are prestige points plus 2 per gold (rules 4.6), ties
are shared (D13), its clock is the round (rules 4), and every game ends after round 9.

Examples:
    >>> from caylus_env.caylus_1303.engine import Game, GameConfig
    >>> g = Game(GameConfig(num_players=3), seed=7)
    >>> g.decision().kind
    'draft'
    >>> g.apply(g.legal_actions()[0])
    >>> len(g.history)
    1
"""

from __future__ import annotations

from caylus_env.core import game as core

GAME_NAME = "caylus_1303"


class Game(core.Game, game=GAME_NAME, engine=__package__):
    """One game of Caylus 1303: the state array plus options, seed and history.

    Args:
        config: the game options (player count, hidden prestige).
        seed: the setup seed, 0 <= seed < 2**63 (rules 3.2, D38).
    """


__all__ = ["GAME_NAME", "Game"]
