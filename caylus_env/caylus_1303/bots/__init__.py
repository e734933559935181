"""Caylus 1303's bots, as the game contract lists them (``caylus_env.core.contract``).

``BOTS``: the agents this game brings, by spec head: the scripted ``constructor`` and
``deliverer`` (compiled rules of thumb with two tables: ``scripted``) and ``mcts:SIMS`` (the
platform's UCT search, ``caylus_env.core.mcts``, with scripted rollouts; the game has no chance
after setup, and with ``hide_opponent_pp`` the search replaces the opponents' prestige by its
own, D37: ``mcts`` declares Caylus 1303's parts). The game-neutral agents
(``random``, trained policies) come from the platform's agent registry (``agents.registry``).
``choose_scripted`` is the scripted bots as one compiled kernel, which the batched training
games play inside their compiled step.

Costs in the descriptions: one core of a shared development machine (approximate, for
choosing a budget; not benchmarks).
"""

from __future__ import annotations

from caylus_env.caylus_1303.bots import scripted_kernels as SK
from caylus_env.caylus_1303.bots.mcts import MCTSAgent
from caylus_env.caylus_1303.bots.scripted import ScriptedAgent
from caylus_env.core.contract import Bot

_SCRIPTED_PLAYS = {
    "constructor": "wood and stone buildings with the Carpenter and Stonemason, the Lawyer's "
    "residences, monuments with gold",
    "deliverer": "food-centred production delivered at the Construction Site every round, "
    "gold for the Goldsmith and Jeweler",
}
_SCRIPTED_COST = (
    "about 0.002 ms a move, its moves of a whole game under 1 ms; wins >= 99.7% vs random at "
    "2-5 players (400 games each, Wilson 95% lower bound >= 98.6%)"
)
#: The scripted strategies in the order of ``choose_scripted``'s rows.
SCRIPTED = SK.STRATEGY_NAMES

BOTS: dict[str, Bot] = {
    **ScriptedAgent.bots(_SCRIPTED_PLAYS, _SCRIPTED_COST),
    "mcts": MCTSAgent.bot(
        "UCT with scripted rollouts (with hidden prestige it gives every opponent its own "
        "prestige, D37); cost grows linearly with SIMS, about 0.1-0.2 ms per simulation (a "
        "compiled rollout): mcts:100 about 9 ms a move at 2 players, 18 ms at 4"
    ),
}

choose_scripted = SK.CHOICE.choose_scripted
"""The index into ``legal[:n]`` that scripted bot ``strategy`` (a row of ``SCRIPTED``) plays in
state ``s`` (deterministic: the first best action; ``noise`` is unused)."""

__all__ = ["BOTS", "SCRIPTED", "choose_scripted"]
