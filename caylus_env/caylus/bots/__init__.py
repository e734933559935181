"""Caylus's bots, as the game contract lists them (``caylus_env.core.contract``).

``BOTS``: the agents this game brings, by spec head: the scripted ``castle``, ``town`` and
``economy`` (one decision procedure, three strategies: ``scripted``) and ``mcts:SIMS`` (the
platform's UCT search, ``caylus_env.core.mcts``, with Caylus's rollout bots and defaults:
``mcts`` and ``rollouts``). The game-neutral agents (``random``,
trained policies) come from the platform's agent registry (``agents.registry``).
``choose_scripted`` is the scripted bots as one compiled kernel, which the batched training
games play inside their compiled step.

The costs in the descriptions are CPU time on one core of a shared development machine,
measured over a few 2-player games in which both seats play the agent (decisions of both
seats counted): approximate, for choosing a budget, not benchmarks.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from caylus_env.caylus.bots import scripted_kernels as SK
from caylus_env.caylus.bots.mcts import MCTSAgent
from caylus_env.caylus.bots.scripted import STRATEGIES, make_scripted
from caylus_env.core.contract import Bot

_SCRIPTED_COST = "about 0.03 ms a move, a whole 2-player game in about 0.01 s"
_SCRIPTED_PLAYS = {
    "castle": "castle batches and their favors first: produces food, builds a farm and a market",
    "town": "buildings: lawyer, mason, residences and prestige buildings on them",
    "economy": "a money engine (markets, peddlers, bank) turned into points; strongest script",
}
#: The scripted strategies in the order of ``choose_scripted``'s rows.
SCRIPTED = tuple(STRATEGIES)
_WEIGHTS = np.stack([STRATEGIES[name].to_array() for name in SCRIPTED])

BOTS: dict[str, Bot] = {
    **{
        name: Bot(
            name,
            make_scripted,
            name,
            f"scripted one-ply search valuing {_SCRIPTED_PLAYS[name]}; {_SCRIPTED_COST}",
            scripted=i,
        )
        for i, name in enumerate(SCRIPTED)
    },
    "mcts": MCTSAgent.bot(
        "UCT search with scripted rollouts and opponent models, beats economy about 3 games "
        "in 4 at mcts:60; cost grows about linearly with SIMS: mcts:50 about 0.16 s a move "
        "(a 2-player game, both seats searching, about 40 s), mcts:200 about 0.6 s a move "
        "(about 110 s a game)"
    ),
}


@njit(cache=True)
def choose_scripted(strategy, s, legal, n, noise):
    """The index into ``legal[:n]`` that scripted bot ``strategy`` (a row of ``SCRIPTED``)
    plays in state ``s``; its ties go to the largest of ``noise[:n]`` (uniform draws)."""
    return SK.choose(s, legal, n, _WEIGHTS[strategy], SK.MAX_DEPTH, noise)


__all__ = ["BOTS", "SCRIPTED", "choose_scripted"]
