"""What every game's position builder (its ``positions`` module, ``caylus_env.core.contract``)
shares: playing a position forward by the actions' stable names, and listing the legal ones.

A game's ``positions`` module builds its own state dicts (``position`` and its editing
helpers) and its ``start(d)`` (its ``Game.from_state_dict``); these two work on any game's
handle through ``Game.action_to_string`` / ``Game.string_to_action``, so scenario tests read
the same in every game.
"""

from __future__ import annotations

from caylus_env.core.game import Game


def play(game: Game, *names: str) -> None:
    """Apply actions given by their stable names, in order.

    Raises:
        ValueError: for a name that is no action of the game (``string_to_action``), or
            ``IllegalActionError`` for one not legal now; the actions before it stay applied.
    """
    for name in names:
        game.apply(game.string_to_action(name))


def legal_names(game: Game) -> list[str]:
    """The stable names of the legal actions, in action id order."""
    return [game.action_to_string(a) for a in game.legal_actions()]


__all__ = ["legal_names", "play"]
