"""``caylus agents``: the agent specs the other commands accept."""

from __future__ import annotations

import typer

from caylus_cli.app import PluginsOption, _load_plugins, app


@app.command("agents")
def list_agents(plugin: PluginsOption = None) -> None:
    """List the agent specs that can be used (ARG marks a required argument, e.g. mcts:200)."""
    from agents.registry import available_agents

    _load_plugins(plugin)
    for spec in available_agents():
        typer.echo(spec)
