"""``mcts:SIMS`` for Caylus 1303: the one search (``caylus_env.core.mcts``) with Caylus 1303's
parts.

After setup Caylus 1303 has no chance (rules 4.7). Its one piece of hidden information is
optional: with ``hide_opponent_pp`` (D37, ``layout.OPT_HIDE_PP``) the prestige tokens are face
down, and the search must not use the opponents' true prestige. The engine's ``determinize``
replaces every opponent's prestige by the searcher's own, an uninformed estimate (they all
started at 0 and score in the same units) that draws nothing, so the search determinizes the
root **once per move** and its nodes keep their positions; a leaf's value is the rank of the
final scores in it. The true totals never reach the search: its move is the same whatever the
opponents' prestige is (``tests/caylus_1303/test_c1303_bots.py`` checks it). Without the option
every total is public (anyone can count the public gains, D37) and the root is the real state.

Caylus 1303's own parts are its rollout bots, the scripted ``constructor`` (default) and
``deliverer`` (``caylus_env.caylus_1303.bots.scripted_kernels``: they score the rollout moves
and order the expansions, the rollout bot's favourite first), or ``random``; its score margins
are prestige points (ties shared, D13). The search's own defaults are its defaults: ``c`` 0.7,
``eps`` 0.1, ``margin`` 0.3, ``scale`` 10, ``cutoff`` 10,000 decisions. Spec strings:
``mcts:SIMS``, ``mcts:SIMS:ROLLOUT``, then optional ``:key=value`` options ``c``, ``eps``,
``margin``, ``scale``, ``cutoff``, e.g. ``mcts:400:deliverer:c=1.0:eps=0.2``.
"""

from __future__ import annotations

from caylus_env.caylus_1303.bots import scripted_kernels as SK
from caylus_env.core import mcts
from caylus_env.core.mcts import MAX_SIMS


class MCTSAgent(mcts.MCTSAgent):
    """Caylus 1303's ``mcts:SIMS`` (see the module docstring and ``caylus_env.core.mcts``)."""

    GAME = mcts.MCTSGame("caylus_1303", SK.STRATEGY_NAMES, scoring=SK)


ROLLOUTS = MCTSAgent.GAME.rollouts
make_mcts = MCTSAgent.from_spec

__all__ = ["MAX_SIMS", "ROLLOUTS", "MCTSAgent", "make_mcts"]
