"""Agents for Caylus: the ``Agent`` protocol, the spec registry and the built-in bots.

``make_agent("castle")``, ``make_agent("mcts:400")``; ``available_agents()`` lists the
spec heads (``random``, the scripted ``castle``/``town``/``economy``, ``mcts:SIMS``).
"""

from agents.base import Agent
from agents.registry import available_agents, make_agent

__all__ = ["Agent", "available_agents", "make_agent"]
