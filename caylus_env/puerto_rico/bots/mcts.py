"""``mcts:SIMS`` for Puerto Rico: the one search (``caylus_env.core.mcts``) with Puerto Rico's
parts.

Puerto Rico's one piece of hidden information is the order of the face-down plantation stack
(rules 6.8): which tiles are in it is public (the box minus the tiles in sight), their order is
not, and neither is the state of the generator that reshuffles the discards later. The
engine's ``determinize`` sorts the stack into a canonical order and reshuffles it with the
plantation generator reseeded, so the draw is a function of the public position and a seed:
the search redraws it in **every simulation** (``redraw``), one tree over every draw, and the
true order never reaches it. Because a draw can change what is legal below a settler phase
(other face-up tiles), selection looks only at the children legal in the current draw, and
UCT's parent count is each child's availability.

Puerto Rico's own parts are its rollout bots, the scripted ``shipper`` (default) and
``builder`` (``caylus_env.puerto_rico.bots.scripted_kernels``: they score the rollout moves and
order the expansions, the rollout bot's favourite first), or ``random``; its score margins are
victory points, with the tie-break of rules 5.3. The search's own defaults are its defaults:
``c`` 0.7, ``eps`` 0.1, ``margin`` 0.3, ``scale`` 10, ``cutoff`` 10,000 decisions. Spec
strings: ``mcts:SIMS``, ``mcts:SIMS:ROLLOUT`` (ROLLOUT: ``shipper``, ``builder``, ``random``),
then optional ``:key=value`` options ``c``, ``eps``, ``margin``, ``scale``, ``cutoff``, e.g.
``mcts:400:builder:c=1.0:eps=0.2``.
"""

from __future__ import annotations

from caylus_env.core import mcts
from caylus_env.core.mcts import MAX_SIMS
from caylus_env.puerto_rico.bots import scripted_kernels as SK


class MCTSAgent(mcts.MCTSAgent):
    """Puerto Rico's ``mcts:SIMS`` (see the module docstring and ``caylus_env.core.mcts``)."""

    GAME = mcts.MCTSGame("puerto_rico", SK.STRATEGY_NAMES, scoring=SK, redraw=True)


ROLLOUTS = MCTSAgent.GAME.rollouts
make_mcts = MCTSAgent.from_spec

__all__ = ["MAX_SIMS", "ROLLOUTS", "MCTSAgent", "make_mcts"]
