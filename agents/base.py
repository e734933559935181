"""The one agent interface used everywhere: tournaments, the CLI, training opponents.

An agent sees the whole game through a read-only ``Game`` (Caylus has no hidden
information after setup): ``game.legal_actions()``, ``game.legal_mask()``,
``game.decision()``, ``game.state`` (the flat engine array), ``game.current_player()``,
and, for learned policies, ``caylus_env.observation`` encodings of it. It returns
one legal action id. Agents must not mutate the game they are given; search
agents work on ``game.clone()``.
"""

from __future__ import annotations

from typing import Protocol, runtime_checkable

from caylus_env.engine import Game


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
