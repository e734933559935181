"""Agents for Puerto Rico: ``random``, the scripted ``shipper`` and ``builder``, and
determinized ``mcts:SIMS``, created from spec strings by ``agents.puerto_rico.registry``.

They follow the platform's ``agents.base.Agent`` protocol (``name``, ``reset(seed)``,
``act(game) -> int``, optional ``action_distribution()``) over a
``caylus_env.puerto_rico.engine.Game``; ``random`` is the game-generic
``agents.random_agent.RandomAgent``, which only calls ``game.legal_actions()``.
"""

from agents.puerto_rico.registry import (
    available_agents,
    describe,
    make_agent,
    register,
    specs,
    unregister,
)

__all__ = ["available_agents", "describe", "make_agent", "register", "specs", "unregister"]
