"""``caylus agents``: the agent specs the other commands accept, with what each plays and costs.

``--game GAME`` lists that game's agents: the platform's (``random``, ``policy:PATH``, the
shipped checkpoints of that game) and the game's own bots, from the one agent registry
(``agents.registry``).
"""

from __future__ import annotations

import typer

from caylus_cli.app import GameOption, PluginsOption, _console, _load_plugins, app
from caylus_env.core.registry import DEFAULT_GAME, game_spec


@app.command("agents")
def list_agents(plugin: PluginsOption = None, game: GameOption = DEFAULT_GAME) -> None:
    """List the agent specs (with their syntax, what they play and what a move costs)."""
    from rich.table import Table
    from rich.text import Text

    from agents.registry import describe

    spec = game_spec(game)
    _load_plugins(plugin)
    title = f"{spec.title} agent specs (use them with --game {game} in --agents, or in duels)"
    table = Table(title=title)
    table.add_column("spec", no_wrap=True)
    table.add_column("plays, and costs per move on one core")
    for agent in describe(spec.name):
        # Text cells: rich markup would eat the brackets of "mcts:SIMS[:ROLLOUT]".
        about = Text(agent.description or "(registered without a description)")
        if agent.options:
            about.append(f"\noptions: {agent.options}", style="dim")
        table.add_row(Text(agent.syntax), about)
    _console().print(table)
    typer.echo("Costs are approximate (a shared 2-core machine); mcts scales with SIMS.")
