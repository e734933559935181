"""``caylus games``: the registered games, one line each (name, title, player counts, options).

Every other command takes one of these names as ``--game``; the list comes from the registry
(``caylus_env.core.registry``), so a newly registered game shows up here by itself.
"""

from __future__ import annotations

import typer

from caylus_cli.app import app


@app.command("games")
def list_games() -> None:
    """List the registered games: name, title, player counts and options with defaults."""
    from caylus_env.core.registry import games

    for spec in games():
        options = ", ".join(f"{k}={v!r}" for k, v in spec.options().items()) or "none"
        typer.echo(
            f"{spec.name}: {spec.title} ({spec.env_name}), {spec.min_players}-"
            f"{spec.max_players} players; options: {options}"
        )
