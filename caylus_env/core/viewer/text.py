"""The frame every game's text rendering shares: the heading, the decision or the end, the
sections joined into one screen of plain text.

Each game's ``rendering.render_text(game)`` (the game contract) draws its own table (Caylus's
road and castle, Puerto Rico's roles and ships) between the lines written here, so the text of
every game starts and ends alike and names its score and clock with the rulebook's words
(``GameSpec.score_word``, ``GameSpec.clock_word``). No colour codes: the text is the same in a
terminal, a log file or a test. Players are written ``p0``..``p4`` (seat numbers), ``-`` is
nobody.

Example:
    >>> from caylus_env.core.registry import game_spec
    >>> game = game_spec("caylus").new_game(seed=7)
    >>> heading(game)
    'Caylus, 4 players, seed 7: turn 1, phase placement'
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from caylus_env.core.registry import game_spec


def who(seat: int | None) -> str:
    """A seat as the text writes it: ``p2``, or ``-`` for nobody."""
    return "-" if seat is None else f"p{seat}"


def heading(game: Any) -> str:
    """``<Title>, <n> players, <seed or loaded position>: <clock> <n>, phase <phase>``."""
    spec = game_spec(game.GAME)
    seed = "loaded position" if game.seed is None else f"seed {game.seed}"
    return (
        f"{spec.title}, {game.num_players} players, {seed}: {spec.clock_word} {game.round}, "
        f"phase {game.phase}"
    )


def decision(game: Any) -> list[str]:
    """The pending decision (its kind, seat and context) with its legal actions by name; or,
    once nothing is asked, how the game ended with every seat's final score and rank."""
    spec = game_spec(game.GAME)
    asked = game.decision()
    if asked is None:
        ranks = game.ranks()
        final = ", ".join(f"p{p} {int(v)} (rank {ranks[p]:g})" for p, v in enumerate(game.scores()))
        end = "Game truncated by the decision cap" if game.is_truncated() else "Game over"
        return [f"{end}. Final {spec.score_word}: {final}"]
    context = ", ".join(f"{k}={v}" for k, v in asked.args.items())
    line = f"Decision: {asked.kind} for {who(asked.player)}"
    if context:
        line += f" ({context})"
    legal = game.legal_actions()
    names = ", ".join(game.action_to_string(a) for a in legal)
    return [line, f"Legal ({len(legal)}): {names}"]


def join(sections: Sequence[Sequence[str]]) -> str:
    """Sections of lines as one text, a blank line between sections (no trailing newline)."""
    return "\n\n".join("\n".join(lines) for lines in sections)


__all__ = ["decision", "heading", "join", "who"]
