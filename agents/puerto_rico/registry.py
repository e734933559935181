"""Puerto Rico agents from short spec strings: ``random``, the scripted ``shipper`` and
``builder``, and ``mcts:SIMS[:ROLLOUT][:key=value...]``.

The same API as ``agents.registry`` (Caylus's), so the tournament and the CLI resolve a
spec through ``caylus_env.core.registry.game_info(game).agents_module()`` whatever the game:
``make_agent(spec)`` validates the spec and names what is allowed when it is not;
``describe()`` gives every head's syntax and a line on what it plays and costs;
``available_agents()`` and ``specs()`` list the heads; plugins add heads with
``register`` and remove them with ``unregister``. The two registries are separate: a
Caylus head is unknown here, and the reverse.

Costs in the descriptions: one core of a shared development machine, medians from
``bench/pr_agents_bench.py`` (approximate, for choosing a budget; not benchmarks).
"""

from __future__ import annotations

from collections.abc import Callable

from agents.base import Agent
from agents.puerto_rico.policy import make_policy
from agents.random_agent import RandomAgent
from agents.registry import AgentInfo
from caylus_env.puerto_rico.bots.mcts import _OPTIONS as MCTS_OPTIONS
from caylus_env.puerto_rico.bots.mcts import MAX_SIMS as MCTS_MAX_SIMS
from caylus_env.puerto_rico.bots.mcts import ROLLOUTS, make_mcts
from caylus_env.puerto_rico.bots.scripted import STRATEGIES, make_scripted

Factory = Callable[[str, str | None], Agent]

_SCRIPTED_PLAYS = {
    "shipper": "corn and indigo production shipped with the captain, warehouses, harbor, wharf",
    "builder": "quarries, dear goods sold with markets and office, factory, large buildings",
}
_SCRIPTED_COST = (
    "about 0.001 ms a move, its moves of a whole game under 1 ms; wins >= 99% vs random "
    "at 2-5 players (docs/puerto_rico_agents.md)"
)
_BUILTIN: dict[str, AgentInfo] = {
    "random": AgentInfo(
        "random",
        "random",
        "uniform over the legal moves (seeded), the floor of every ladder; about 0.001 ms a move",
    ),
    **{
        name: AgentInfo(
            name, name, f"scripted rules of thumb: {_SCRIPTED_PLAYS[name]}; {_SCRIPTED_COST}"
        )
        for name in STRATEGIES
    },
    "mcts": AgentInfo(
        "mcts",
        "mcts:SIMS[:ROLLOUT][:key=value...]",
        "UCT over determinized positions (the face-down plantations reshuffled per "
        "simulation) with scripted rollouts; cost grows linearly with SIMS, about 0.1 ms per "
        "simulation (mcts:100 about 10 ms a move, 1-2 s of moves a game)",
        f"SIMS: simulations per move (int, 1 to {MCTS_MAX_SIMS}); ROLLOUT: "
        + "|".join(ROLLOUTS)
        + " (default shipper); keys: "
        + ", ".join(f"{key}={option.allowed()}" for key, option in MCTS_OPTIONS.items()),
        needs_arg=True,
    ),
}

#: spec head -> factory(spec, argument or None)
_FACTORIES: dict[str, Factory] = {
    "random": lambda spec, arg: RandomAgent(spec),
    **{name: make_scripted for name in STRATEGIES},
    "mcts": make_mcts,
}
#: spec heads that need an argument after a colon (e.g. ``mcts:200``)
_NEEDS_ARG: set[str] = {"mcts"}
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
    """Register (or replace) the factory for Puerto Rico specs starting with ``head``.

    Args:
        head: the spec's first word: not empty, no ``:`` (it separates the argument) and no
            ``,`` or whitespace (commas separate specs on the command line).
        factory: ``factory(spec, argument or None)`` -> a new agent.
        needs_arg: whether a spec must give ``head:ARGUMENT``.
        syntax: the spec's grammar (default ``head`` or ``head:ARG``).
        description: one line on what the agent plays and what a move costs.
        options: the allowed arguments and options, for agents that take some.

    Raises:
        ValueError: for a head that could not be written in a spec list, or a factory that
            is not callable.
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
        raise ValueError(
            f"no Puerto Rico agent {head!r} is registered; registered: {', '.join(_heads())}"
        )
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
    """The spec syntax of every registered head, e.g. ``['builder', 'mcts:SIMS...', ...]``."""
    return [info.syntax for info in describe()]


def available_agents() -> list[str]:
    """The spec heads that can be created, ``ARG`` marking a required argument, e.g.
    ``['builder', 'mcts:ARG', 'random', 'shipper']`` (short form of ``specs()``)."""
    return [f"{h}:ARG" if h in _NEEDS_ARG else h for h in _heads()]


def make_agent(spec: str) -> Agent:
    """Create a Puerto Rico agent from its spec string.

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
    if head not in _NEEDS_ARG and arg:
        raise ValueError(f"agent {head!r} takes no argument, got {spec!r}")
    return _FACTORIES[head](spec.strip(), arg or None)


register(
    "policy",
    make_policy,
    needs_arg=True,
    syntax="policy:PATH[:greedy|:sample|:temp=T]",
    description="a trained network from a checkpoint of caylus train ppo --game puerto_rico, "
    "compiled inference; refuses another game's checkpoint (agents.puerto_rico.policy)",
    options="PATH: a checkpoint directory; mode: greedy (default), sample, temp=T (T > 0)",
)
