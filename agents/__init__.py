"""Agents of every game: the ``Agent`` protocol, the one spec registry and the harness.

``make_agent("castle", "caylus")``, ``make_agent("mcts:400", "puerto_rico")``; ``describe(game)``
gives every spec's syntax and a line on what it plays and costs (``caylus agents --game GAME``
prints it), ``available_agents(game)`` the short heads; plugins add agents with ``register``
(declaring the paths their arguments name, ``key_paths``); ``spec_paths(spec, game)`` lists the
files a spec names, unread.
The game-neutral agents (``random``, trained policies ``policy:PATH``) live here; each game's
bots live in its folder (``caylus_env/<game>/bots/``).
"""

from agents.base import Agent
from agents.registry import (
    AgentInfo,
    available_agents,
    describe,
    game_of_spec,
    key_paths,
    make_agent,
    register,
    spec_paths,
    specs,
    unregister,
)

__all__ = [
    "Agent",
    "AgentInfo",
    "available_agents",
    "describe",
    "game_of_spec",
    "key_paths",
    "make_agent",
    "register",
    "spec_paths",
    "specs",
    "unregister",
]
