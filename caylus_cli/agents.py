"""``caylus agents``: the agent specs the other commands accept, with what each plays and costs."""

from __future__ import annotations

import typer

from caylus_cli.app import PluginsOption, _console, _load_plugins, app


@app.command("agents")
def list_agents(plugin: PluginsOption = None) -> None:
    """List the agent specs (with their syntax, what they play and what a move costs)."""
    from rich.table import Table
    from rich.text import Text

    from agents.registry import describe

    _load_plugins(plugin)
    table = Table(title="agent specs (use them in --agents, or as duel arguments)")
    table.add_column("spec", no_wrap=True)
    table.add_column("plays, and costs per move on one core")
    for info in describe():
        # Text cells: rich markup would eat the brackets of "mcts:SIMS[:ROLLOUT]".
        about = Text(info.description or "(registered without a description)")
        if info.options:
            about.append(f"\noptions: {info.options}", style="dim")
        table.add_row(Text(info.syntax), about)
    _console().print(table)
    typer.echo("Costs are approximate (a shared 2-core machine); mcts scales with SIMS.")
