"""Puerto Rico's bots, as the game contract lists them (``caylus_env.core.contract``).

``BOTS``: the agents this game brings, by spec head: the scripted ``shipper`` and
``builder`` (compiled rules of thumb with two weight sets: ``scripted``) and ``mcts:SIMS``
(the platform's UCT search, ``caylus_env.core.mcts``, over determinized positions, the
face-down plantations reshuffled per simulation: ``mcts`` declares Puerto Rico's parts). The game-neutral agents (``random``, trained policies) come from the platform's
agent registry (``agents.registry``). ``choose_scripted`` is the scripted bots as one
compiled kernel, which the batched training games play inside their compiled step.

Costs in the descriptions: one core of a shared development machine, medians from
``bench/agents_bench.py`` (approximate, for choosing a budget; not benchmarks).
"""

from __future__ import annotations

from caylus_env.core.contract import Bot
from caylus_env.puerto_rico.bots import scripted_kernels as SK
from caylus_env.puerto_rico.bots.mcts import MCTSAgent
from caylus_env.puerto_rico.bots.scripted import ScriptedAgent

_SCRIPTED_PLAYS = {
    "shipper": "corn and indigo production shipped with the captain, warehouses, harbor, wharf",
    "builder": "quarries, dear goods sold with markets and office, factory, large buildings",
}
_SCRIPTED_COST = (
    "about 0.001 ms a move, its moves of a whole game under 1 ms; wins >= 99% vs random "
    "at 2-5 players (docs/games/puerto_rico_agents.md)"
)
#: The scripted strategies in the order of ``choose_scripted``'s rows.
SCRIPTED = SK.STRATEGY_NAMES

BOTS: dict[str, Bot] = {
    **ScriptedAgent.bots(_SCRIPTED_PLAYS, _SCRIPTED_COST),
    "mcts": MCTSAgent.bot(
        "UCT over determinized positions (the face-down plantations reshuffled per "
        "simulation) with scripted rollouts; cost grows linearly with SIMS, about 0.1 ms per "
        "simulation (mcts:100 about 10 ms a move, 1-2 s of moves a game)"
    ),
}

choose_scripted = SK.CHOICE.choose_scripted
"""The index into ``legal[:n]`` that scripted bot ``strategy`` (a row of ``SCRIPTED``) plays in
state ``s`` (deterministic: the first best action; ``noise`` is unused)."""

__all__ = ["BOTS", "SCRIPTED", "choose_scripted"]
