"""Agents are created from short spec strings: ``random``, a scripted bot's name
(``castle``, ``town``, ``economy``), ``mcts:SIMS`` (and later ``policy:PATH``).

``make_agent(spec)`` validates the spec and names what is allowed when it is not.
``mcts`` also accepts ``mcts:SIMS:ROLLOUT[:key=value...]`` (see ``agents.mcts``).
"""

from __future__ import annotations

from collections.abc import Callable

from agents.base import Agent
from agents.mcts import make_mcts
from agents.random_agent import RandomAgent
from agents.scripted import STRATEGIES, make_scripted

#: spec head -> factory(spec, argument or None)
_FACTORIES: dict[str, Callable[[str, str | None], Agent]] = {
    "random": lambda spec, arg: RandomAgent(spec),
    **{name: (lambda spec, arg: make_scripted(spec)) for name in STRATEGIES},
    "mcts": make_mcts,
}
#: spec heads that need an argument after a colon (e.g. ``mcts:200``)
_NEEDS_ARG: set[str] = {"mcts"}


def register(head: str, factory: Callable[[str, str | None], Agent], needs_arg: bool = False):
    """Register a factory for specs starting with ``head``."""
    _FACTORIES[head] = factory
    if needs_arg:
        _NEEDS_ARG.add(head)


def available_agents() -> list[str]:
    """The spec heads that can be created, e.g. ``['mcts:SIMS', 'random', ...]``."""
    return sorted(f"{h}:ARG" if h in _NEEDS_ARG else h for h in _FACTORIES)


def make_agent(spec: str) -> Agent:
    """Create an agent from its spec string.

    Raises:
        ValueError: naming the bad spec and the specs that exist.
    """
    if not isinstance(spec, str) or not spec.strip():
        raise ValueError(f"agent spec must be a non-empty string, got {spec!r}")
    head, _, arg = spec.strip().partition(":")
    if head not in _FACTORIES:
        raise ValueError(f"unknown agent {spec!r}; available: {', '.join(available_agents())}")
    if head in _NEEDS_ARG and not arg:
        raise ValueError(f"agent {head!r} needs an argument, e.g. '{head}:200'")
    if head not in _NEEDS_ARG and arg:
        raise ValueError(f"agent {head!r} takes no argument, got {spec!r}")
    return _FACTORIES[head](spec.strip(), arg or None)
