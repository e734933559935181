"""``caylus play``: watch agents play one game in the terminal, and save it as a replay page."""

from __future__ import annotations

import sys
import time
from pathlib import Path
from typing import Annotated, Any

import typer

from caylus_cli.app import (
    OptionsOption,
    PluginsOption,
    _fail,
    _load_plugins,
    _parse_options,
    _split_agents,
    app,
    compile_notice,
)


def _render(game: Any) -> str:
    """The board as text, or the game's one-line repr where no renderer is installed."""
    try:
        from caylus_env.rendering import render_text
    except ImportError:
        return repr(game)
    return render_text(game)


def _final_lines(game: Any, seats: list[str]) -> list[str]:
    prestige = game.prestige().tolist()
    ranks = game.ranks().tolist()
    return [
        f"  player {p} ({seats[p]}): prestige {prestige[p]}, rank {ranks[p]:g}"
        for p in range(len(seats))
    ]


def _seat_count(specs: list[str], players: int | None) -> int:
    """How many seats a ``play`` has: ``--players``, or one per agent when it is not given.

    Fails naming what the user actually gave: the number of agents, and ``--players`` only when
    it was passed.
    """
    from caylus_env.engine.constants import MAX_PLAYERS, MIN_PLAYERS

    given = f"{len(specs)} agent{'s' if len(specs) != 1 else ''} ({', '.join(specs)})"
    if players is None:
        if not MIN_PLAYERS <= len(specs) <= MAX_PLAYERS:
            _fail(
                f"invalid value for --agents: {given} given and no --players; Caylus is played "
                f"by {MIN_PLAYERS} to {MAX_PLAYERS}: give one agent per seat, or --players N to "
                "cycle the agents over N seats"
            )
        return len(specs)
    if not MIN_PLAYERS <= players <= MAX_PLAYERS:
        _fail(
            f"invalid value for --players: {players} is not allowed; Caylus is played by "
            f"{MIN_PLAYERS} to {MAX_PLAYERS}"
        )
    if len(specs) > players:
        _fail(
            f"invalid value for --agents: {given} given for --players {players}; give at most "
            f"{players} (fewer are cycled to fill the seats)"
        )
    return players


def _kernel_groups(seats: list[str]) -> list[str]:
    """The compiled kernel families a game between ``seats`` uses (MCTS also runs the scripted
    bots, in its rollouts and move ordering)."""
    from agents.tournament.backends import kernel_families

    return kernel_families(seats)


@app.command()
def play(
    agents: Annotated[
        str, typer.Option(help="Comma-separated agent specs, one per seat (cycled to fill).")
    ],
    players: Annotated[
        int | None, typer.Option(help="Players, 2 to 5 (default: one per agent).")
    ] = None,
    seed: Annotated[int, typer.Option(help="Game seed; agent seeds are seed + seat.")] = 0,
    step: Annotated[
        bool, typer.Option("--step/--no-step", help="Wait for Enter after each decision.")
    ] = False,
    delay: Annotated[float, typer.Option(help="Seconds to pause after each decision.")] = 0.0,
    board: Annotated[
        bool,
        typer.Option(
            "--board/--no-board",
            help="Render the board at every new turn (every decision with --step).",
        ),
    ] = True,
    option: OptionsOption = None,
    plugin: PluginsOption = None,
    html: Annotated[
        Path | None,
        typer.Option(
            help="Also write the game as a self-contained HTML replay page to this file "
            "(see caylus replay --html)."
        ),
    ] = None,
) -> None:
    """Watch agents play one game in the terminal, decision by decision."""
    from agents.registry import make_agent
    from caylus_cli.replay import check_html_out, write_html
    from caylus_env.engine import Game, GameConfig, action_to_string

    check_html_out(html)
    specs = _split_agents(agents)
    if not specs:
        _fail("invalid value for --agents: give at least one agent spec")
    n = _seat_count(specs, players)
    if delay < 0:
        _fail(f"invalid value for --delay: must be >= 0, got {delay}")
    if seed < 0:
        _fail(f"invalid value for --seed: must be >= 0, got {seed}")
    seats = [specs[s % len(specs)] for s in range(n)]
    _load_plugins(plugin)
    try:
        config = GameConfig.from_dict({**_parse_options(option), "num_players": n})
    except (TypeError, ValueError) as err:
        _fail(f"invalid value for --option: {err}")
    try:
        bots = [make_agent(spec) for spec in seats]
    except ValueError as err:
        _fail(f"invalid value for --agents: {err}")
    with compile_notice(*_kernel_groups(seats)):
        game = Game(config, seed)
        for s, bot in enumerate(bots):
            bot.reset(seed + s)
        interactive = step and sys.stdin.isatty()
        last_turn = None
        while not game.is_terminal():
            if board and (interactive or game.turn != last_turn):
                typer.echo(_render(game))
                last_turn = game.turn
            p = game.current_player()
            legal = game.legal_actions()
            try:
                action = bots[p].act(game)
            except Exception as err:
                _fail(f"player {p} ({seats[p]}) raised {type(err).__name__}: {err}", code=1)
            if isinstance(action, bool) or not isinstance(action, int) or action not in legal:
                _fail(f"player {p} ({seats[p]}) chose an illegal action {action!r}", code=1)
            name = action_to_string(action)
            typer.echo(f"turn {game.turn} {game.phase}: player {p} ({seats[p]}) -> {name}")
            game.apply(action)
            if interactive:
                input()
            elif delay:
                time.sleep(delay)
    if board:
        typer.echo(_render(game))
    typer.echo(f"Game over after {len(game.history)} decisions. Final prestige and ranks:")
    for line in _final_lines(game, seats):
        typer.echo(line)
    if html is not None:
        write_html(game.record(), html, seats)
