"""Agents for Caylus: the ``Agent`` protocol, the spec registry and the built-in bots.

``make_agent("castle")``, ``make_agent("mcts:400")``; ``describe()`` gives every registered
spec's syntax and a line on what it plays and costs (``caylus agents`` prints it),
``available_agents()`` the short heads (``random``, the scripted ``castle``/``town``/
``economy``, ``mcts:ARG``); plugins add agents with ``register``.
"""

from agents.base import Agent
from agents.registry import (
    AgentInfo,
    available_agents,
    describe,
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
    "make_agent",
    "register",
    "specs",
    "unregister",
]
