"""What ``caylus play`` and ``caylus replay`` both show: a board as text, the clock, the final
lines, and the replay page written next to them. One module both commands import, so neither
command imports the other.

Everything game-specific comes from the game's ``GameSpec`` (``caylus_env.core.registry``): its
rendering module's ``render_text``, its ``clock_word`` and its ``score_word``.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

import typer

from caylus_cli.app import _fail
from caylus_env.core.registry import game_spec


def render(game: Any) -> str:
    """The board of a game as text (its game's ``rendering.render_text``)."""
    return str(game_spec(game.GAME).module("rendering").render_text(game))


def clock(game: Any) -> str:
    """Where the game is, in its rulebook's word: ``turn 3`` (Caylus), ``round 3`` (Puerto
    Rico)."""
    return f"{game_spec(game.GAME).clock_word} {game.round}"


def final_lines(game: Any, seats: list[str], scores: list[int], ranks: list[float]) -> list[str]:
    """One line per seat: its agent, its score in the game's word and its rank."""
    word = game_spec(game.GAME).score_word
    return [
        f"  player {p} ({seats[p]}): {word} {scores[p]}, rank {ranks[p]:g}"
        for p in range(len(seats))
    ]


HTML_SUFFIXES = (".html", ".htm")


def check_html_out(path: Path | None, option: str = "--html") -> Path | None:
    """The ``--html`` output path, refused before any work when it cannot be a page: not an
    ``.html``/``.htm`` name, an existing directory, or under a path that is not a directory."""
    if path is None:
        return None
    if path.suffix.lower() not in HTML_SUFFIXES:
        _fail(
            f"invalid value for {option}: {path} does not end in .html; allowed: a file name "
            "ending in .html or .htm"
        )
    if path.is_dir():
        _fail(f"invalid value for {option}: {path} is a directory; allowed: a file name")
    parent = next((p for p in path.absolute().parents if p.exists()), None)
    if parent is not None and not parent.is_dir():
        _fail(
            f"invalid value for {option}: {parent} is not a directory, so {path} cannot be written"
        )
    return path


def write_html(record: Any, path: Path, agents: Sequence[str] | None = None) -> None:
    """Write the replay page of ``record`` (checked by the engine first; the page shows
    ``agents`` as the seats' names) and say where."""
    from caylus_env.core.viewer import write_replay_page

    try:
        write_replay_page(record, path, names=None if agents is None else list(agents))
        size = path.stat().st_size
    except OSError as err:
        _fail(f"cannot write {path}: {err}", code=1)
    typer.echo(f"wrote {path} ({size / 1024:.0f} KiB, {len(record.actions) + 1} steps)")
