"""The one agent interface used everywhere: tournaments, the CLI, training opponents.

An agent of any game sees it through a read-only ``Game`` (``caylus_env.core.game.Game``, the
handle every game shares): ``game.legal_actions()``, ``game.legal_mask()``,
``game.decision()``, ``game.state`` (the flat engine array), ``game.current_player()``, and,
for learned policies, the game's observation encodings of it. It returns one legal action id.
Agents must not mutate the game they are given; search agents work on ``game.clone()``, and
an agent of a game with hidden information (Puerto Rico's face-down plantations) never reads
it: its search redraws it (the game's kernels say how).
"""

from __future__ import annotations

import math
from typing import Protocol, runtime_checkable

from caylus_env.core.game import Game


@runtime_checkable
class Agent(Protocol):
    """What every agent provides.

    Attributes:
        name: the spec string that created it (e.g. ``"random"``, ``"mcts:200"``).
    """

    name: str

    def reset(self, seed: int | None = None) -> None:
        """Start a new game; ``seed`` fixes any randomness of the agent."""

    def act(self, game: Game) -> int:
        """Return a legal action id for ``game.current_player()``."""


Distribution = tuple[tuple[int, ...], tuple[float, ...]]
"""A sparse distribution over action ids: ``(actions, probabilities)``, probabilities >= 0
summing to 1, actions distinct and legal."""


@runtime_checkable
class DistributionAgent(Agent, Protocol):
    """An agent that can say which distribution its last move came from (optional).

    Self-play datasets store it as the policy target of each decision (``caylus dataset
    generate --policy-targets``): MCTS gives its root visit counts, ``random`` the uniform
    distribution over the legal actions, a policy network its probabilities. An agent
    without the method, or whose method returns None, is taken to have played its action
    with certainty (`policy_target`): exact for deterministic agents such as the scripted
    bots, whose choice is an argmax of their action values.
    """

    def action_distribution(self) -> Distribution | None:
        """The distribution behind the action returned by the last ``act`` call."""


def policy_target(agent: object, action: int) -> Distribution:
    """The agent's distribution for the move it just made (``action``): its
    ``action_distribution()`` when it has one, else one-hot on ``action`` (see
    `DistributionAgent`).

    Raises:
        ValueError: for a distribution that is not one (lengths differ, a negative or
            non-finite probability, probabilities not summing to 1, a repeated action, or the
            action played not in it), naming the agent.
    """
    method = getattr(agent, "action_distribution", None)
    dist = method() if callable(method) else None
    if dist is None:
        return (int(action),), (1.0,)
    actions, probs = tuple(int(a) for a in dist[0]), tuple(float(p) for p in dist[1])
    name = getattr(agent, "name", type(agent).__name__)
    total = math.fsum(probs)
    if (
        len(actions) != len(probs)
        or not actions
        or len(set(actions)) != len(actions)
        or any(not math.isfinite(p) or p < 0.0 for p in probs)
        or abs(total - 1.0) > 1e-6
        or int(action) not in actions
    ):
        raise ValueError(
            f"agent {name!r}: action_distribution() gave {len(actions)} actions and "
            f"{len(probs)} probabilities summing to {total:g}; allowed: distinct actions, "
            f"including the action played ({int(action)}), with finite probabilities >= 0 "
            "summing to 1"
        )
    return actions, probs
