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

from caylus_env.caylus_1303.bots import scripted_kernels as SK
from caylus_env.caylus_1303.engine import kernels as K
from caylus_env.caylus_1303.engine.actions import NUM_ACTIONS
from caylus_env.core import scripted


class ScriptedAgent(
    scripted.ScriptedAgent, title="Caylus 1303", kernels=K, scoring=SK, num_actions=NUM_ACTIONS
):
    """A scripted Caylus 1303 bot (``caylus_env.core.scripted.ScriptedAgent``): the argmax of its
    strategy's scores over the legal actions.

    Args:
        name: the spec that made it (``constructor`` or ``deliverer``).
        strategy: the bot's strategy name (default: ``name``).

    Raises:
        ValueError: for an unknown strategy, naming the allowed ones.
    """


STRATEGIES = ScriptedAgent.STRATEGIES
"""Scripted bot name -> its strategy row in the kernels' tables."""
make_scripted = ScriptedAgent.from_spec
"""Registry factory: ``constructor`` or ``deliverer`` (no argument)."""
