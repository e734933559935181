"""Agents are created from short spec strings: ``random``, a scripted bot's name
(``castle``, ``town``, ``economy``), ``mcts:SIMS[:ROLLOUT][:key=value...]``, a trained
checkpoint ``policy:PATH[:greedy|:sample|:temp=T]`` and the checkpoints shipped in the
package by name (``ppo-2p[:mode]``, see ``agents.policy``).

``make_agent(spec)`` validates the spec and names what is allowed when it is not.
Every registered head carries its spec syntax and a one-line description of what it
plays and what a move costs (``describe()``, printed by ``caylus agents``); plugins add
heads with ``register`` and tests remove them with ``unregister``.

The costs in the descriptions are CPU time on one core of a shared development machine,
measured over a few 2-player games in which both seats play the agent (decisions of both
seats counted): approximate, for choosing a budget, not benchmarks.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from agents.base import Agent
from agents.policy import make_policy, make_shipped, shipped_checkpoints
from agents.random_agent import RandomAgent
from caylus_env.caylus.bots.mcts import _OPTIONS as MCTS_OPTIONS
from caylus_env.caylus.bots.mcts import MAX_SIMS as MCTS_MAX_SIMS
from caylus_env.caylus.bots.mcts import ROLLOUTS, make_mcts
from caylus_env.caylus.bots.scripted import STRATEGIES, make_scripted

Factory = Callable[[str, str | None], Agent]


@dataclass(frozen=True)
class AgentInfo:
    """What ``caylus agents`` shows for one spec head.

    Attributes:
        head: the spec's first word (``mcts``).
        syntax: the spec's grammar (``mcts:SIMS[:ROLLOUT][:key=value...]``).
        description: one line: what it plays, and what a move or a game costs.
        options: the allowed arguments and options (empty for agents that take none).
        needs_arg: whether the spec needs ``:ARGUMENT`` after the head.
    """

    head: str
    syntax: str
    description: str
    options: str = ""
    needs_arg: bool = False


_SCRIPTED_COST = "about 0.03 ms a move, a whole 2-player game in about 0.01 s"
_SCRIPTED_PLAYS = {
    "castle": "castle batches and their favors first: produces food, builds a farm and a market",
    "town": "buildings: lawyer, mason, residences and prestige buildings on them",
    "economy": "a money engine (markets, peddlers, bank) turned into points; strongest script",
}
_BUILTIN: dict[str, AgentInfo] = {
    "random": AgentInfo(
        "random",
        "random",
        "uniform over the legal moves (seeded), the floor of every ladder; about 0.002 ms a move",
    ),
    **{
        name: AgentInfo(
            name,
            name,
            f"scripted one-ply search valuing {_SCRIPTED_PLAYS[name]}; {_SCRIPTED_COST}",
        )
        for name in STRATEGIES
    },
    "mcts": AgentInfo(
        "mcts",
        "mcts:SIMS[:ROLLOUT][:key=value...]",
        "UCT search with scripted rollouts and opponent models, beats economy about 3 games "
        "in 4 at mcts:60; cost grows about linearly with SIMS: mcts:50 about 0.16 s a move "
        "(a 2-player game, both seats searching, about 40 s), mcts:200 about 0.6 s a move "
        "(about 110 s a game)",
        f"SIMS: simulations per move (int, 1 to {MCTS_MAX_SIMS}); ROLLOUT: "
        + "|".join(ROLLOUTS)
        + " (default castle); keys: "
        + ", ".join(f"{key}={option.allowed()}" for key, option in MCTS_OPTIONS.items()),
        needs_arg=True,
    ),
    "policy": AgentInfo(
        "policy",
        "policy:PATH[:greedy|:sample|:temp=T]",
        "a trained network from a checkpoint directory (caylus train ppo), compiled inference, "
        "about 0.02 ms a move; refuses a checkpoint of another observation or action version",
        "PATH: a checkpoint directory; mode: greedy (default), sample, temp=T (T > 0)",
        needs_arg=True,
    ),
    **{
        name: AgentInfo(
            name,
            f"{name}[:greedy|:sample|:temp=T]",
            f"the checkpoint shipped as {name!r} (trained by the command in its config.json), "
            "as policy:PATH; about 0.02 ms a move",
        )
        for name in shipped_checkpoints()
    },
}

#: spec head -> factory(spec, argument or None)
_FACTORIES: dict[str, Factory] = {
    "random": lambda spec, arg: RandomAgent(spec),
    **{name: (lambda spec, arg: make_scripted(spec)) for name in STRATEGIES},
    "mcts": make_mcts,
    "policy": make_policy,
    **{name: make_shipped(name) for name in shipped_checkpoints()},
}
#: spec heads that need an argument after a colon (e.g. ``mcts:200``)
_NEEDS_ARG: set[str] = {"mcts", "policy"}
#: spec heads whose argument is optional (a shipped checkpoint's mode)
_OPTIONAL_ARG: set[str] = set(shipped_checkpoints())
#: spec head -> what ``describe`` shows; a head missing here was registered without one
_INFO: dict[str, AgentInfo] = dict(_BUILTIN)


def register(
    head: str,
    factory: Factory,
    needs_arg: bool = False,
    *,
    syntax: str | None = None,
    description: str = "",
    options: str = "",
) -> None:
    """Register (or replace) the factory for specs starting with ``head``.

    Args:
        head: the spec's first word: not empty, no ``:`` (it separates the argument) and no
            ``,`` or whitespace (commas separate specs on the command line).
        factory: ``factory(spec, argument or None)`` -> a new agent.
        needs_arg: whether a spec must give ``head:ARGUMENT``.
        syntax: the spec's grammar for ``caylus agents`` (default ``head`` or ``head:ARG``).
        description: one line on what the agent plays and what a move costs.
        options: the allowed arguments and options, for agents that take some.

    Raises:
        ValueError: for a head that could not be written in a spec list.
    """
    if not isinstance(head, str) or not head or any(c in head for c in ":, \t\n"):
        raise ValueError(
            f"agent head must be a non-empty word without ':', ',' or spaces, got {head!r}"
        )
    if not callable(factory):
        raise ValueError(f"agent {head!r}: factory must be callable, got {factory!r}")
    _FACTORIES[head] = factory
    if needs_arg:
        _NEEDS_ARG.add(head)
    else:
        _NEEDS_ARG.discard(head)
    default_syntax = f"{head}:ARG" if needs_arg else head
    _INFO[head] = AgentInfo(head, syntax or default_syntax, description, options, needs_arg)


def unregister(head: str) -> None:
    """Remove a registered head (a test's or a plugin's agent).

    Raises:
        ValueError: when ``head`` is not registered, naming the heads that are.
    """
    if head not in _FACTORIES:
        raise ValueError(f"no agent {head!r} is registered; registered: {', '.join(_heads())}")
    del _FACTORIES[head]
    _NEEDS_ARG.discard(head)
    _INFO.pop(head, None)


def _heads() -> list[str]:
    return sorted(_FACTORIES)


def describe() -> list[AgentInfo]:
    """Every registered head's syntax and description, sorted by head."""
    return [
        _INFO.get(head)
        or AgentInfo(
            head, f"{head}:ARG" if head in _NEEDS_ARG else head, "", "", head in _NEEDS_ARG
        )
        for head in _heads()
    ]


def specs() -> list[str]:
    """The spec syntax of every registered head, e.g. ``['castle', 'mcts:SIMS[:ROLLOUT]...']``."""
    return [info.syntax for info in describe()]


def available_agents() -> list[str]:
    """The spec heads that can be created, ``ARG`` marking a required argument, e.g.
    ``['castle', 'mcts:ARG', 'random', ...]`` (short form of ``specs()``)."""
    return [f"{h}:ARG" if h in _NEEDS_ARG else h for h in _heads()]


def make_agent(spec: str) -> Agent:
    """Create an agent from its spec string.

    Raises:
        ValueError: naming the bad spec and the specs that exist.
    """
    if not isinstance(spec, str) or not spec.strip():
        raise ValueError(f"agent spec must be a non-empty string, got {spec!r}")
    head, _, arg = spec.strip().partition(":")
    if head not in _FACTORIES:
        raise ValueError(f"unknown agent {spec!r}; available: {', '.join(specs())}")
    if head in _NEEDS_ARG and not arg:
        example = _INFO[head].syntax if head in _INFO else f"{head}:ARG"
        raise ValueError(f"agent {head!r} needs an argument: {example}")
    if head not in _NEEDS_ARG and head not in _OPTIONAL_ARG and arg:
        raise ValueError(f"agent {head!r} takes no argument, got {spec!r}")
    return _FACTORIES[head](spec.strip(), arg or None)
