"""Scripted Puerto Rico bots: ``shipper`` and ``builder``.

Both score every legal action with compiled rules of thumb (``caylus_env.puerto_rico.bots.scripted_kernels``)
and play the best one; they differ in their weights:

- ``shipper``: corn and indigo plantations with their production buildings, the craftsman
  and the captain, warehouses, harbor and wharf: victory points by shipping (rules 4.4,
  4.6); it keeps corn and indigo for the ships instead of selling them.
- ``builder``: quarries and dear goods (tobacco, coffee), the trader with markets and the
  office, the factory, then large buildings (guild hall, city hall, residence): victory
  points by building (rules 4.3, 4.5, 2.5).

A bot reads the game only through ``game.state`` (never the face-down plantation order,
which no rule of thumb looks at) and is deterministic: the same position gives the same
action; ``reset(seed)`` exists for the ``Agent`` protocol and changes nothing.
"""

from __future__ import annotations

from caylus_env.core import scripted
from caylus_env.puerto_rico.bots import scripted_kernels as SK
from caylus_env.puerto_rico.engine import kernels as K
from caylus_env.puerto_rico.engine.actions import NUM_ACTIONS


class ScriptedAgent(
    scripted.ScriptedAgent, title="Puerto Rico", kernels=K, scoring=SK, num_actions=NUM_ACTIONS
):
    """A scripted Puerto Rico bot (``caylus_env.core.scripted.ScriptedAgent``): the argmax of its
    strategy's scores over the legal actions.

    Args:
        name: the spec that made it (``shipper`` or ``builder``).
        strategy: the bot's strategy name (default: ``name``).

    Raises:
        ValueError: for an unknown strategy, naming the allowed ones.
    """


STRATEGIES = ScriptedAgent.STRATEGIES
"""Scripted bot name -> its strategy row in the kernels' tables."""
make_scripted = ScriptedAgent.from_spec
"""Registry factory: ``shipper`` or ``builder`` (no argument)."""
