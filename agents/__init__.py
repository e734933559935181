"""Agents of every game: the ``Agent`` protocol, the one spec registry and the harness.

``make_agent("castle", "caylus")``, ``make_agent("mcts:400", "puerto_rico")``; ``describe(game)``
gives every spec's syntax and a line on what it plays and costs (``caylus agents --game GAME``
prints it), ``available_agents(game)`` the short heads; plugins add agents with ``register``.
The game-neutral agents (``random``, trained policies ``policy:PATH``) live here; each game's
bots live in its folder (``caylus_env/<game>/bots/``).
"""

from agents.base import Agent
from agents.registry import (
    AgentInfo,
    available_agents,
    describe,
    game_of_spec,
    make_agent,
    register,
    specs,
    unregister,
)

__all__ = [
    "Agent",
    "AgentInfo",
    "available_agents",
    "describe",
    "game_of_spec",
    "make_agent",
    "register",
    "specs",
    "unregister",
]
