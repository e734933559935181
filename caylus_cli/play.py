"""``caylus play``: watch agents play one game in the terminal, and save it as a replay page.

``--game NAME`` plays any registered game (``caylus games``) with its own agents (``caylus
agents --game NAME``). Everything about the game comes from its ``GameSpec``
(``caylus_env.core.registry``): the options are its ``GameConfig``'s, the agents the agent
registry's, the board its rendering module's ``render_text``, the clock and score words its
``clock_word`` and ``score_word``; the harness makes and plays the game
(``agents.tournament.arena.new_game``), so ``play`` and ``tournament`` accept the same options
and agents.
"""

from __future__ import annotations

import sys
import time
from pathlib import Path
from typing import Annotated

import typer

from caylus_cli.app import (
    AgentsGameOption,
    OptionsOption,
    PluginsOption,
    _fail,
    _load_plugins,
    _parse_options,
    _split_agents,
    agents_game,
    app,
    compile_notice,
)
from caylus_cli.show import clock, final_lines, render
from caylus_env.core.registry import DEFAULT_GAME, game_spec

MAX_DELAY_S = 60.0
"""Longest ``play --delay`` (seconds between decisions)."""


def _seat_count(specs: list[str], players: int | None, name: str = DEFAULT_GAME) -> int:
    """How many seats a ``play`` has: ``--players``, or one per agent when it is not given.

    Fails naming what the user actually gave: the number of agents, and ``--players`` only when
    it was passed.
    """
    info = game_spec(name)
    low, high = info.min_players, info.max_players
    given = f"{len(specs)} agent{'s' if len(specs) != 1 else ''} ({', '.join(specs)})"
    if players is None:
        if not low <= len(specs) <= high:
            _fail(
                f"invalid value for --agents: {given} given and no --players; {info.title} is "
                f"played by {low} to {high}: give one agent per seat, or --players N to "
                "cycle the agents over N seats"
            )
        return len(specs)
    if not low <= players <= high:
        _fail(
            f"invalid value for --players: {players} is not allowed; {info.title} is played by "
            f"{low} to {high}"
        )
    if len(specs) > players:
        _fail(
            f"invalid value for --agents: {given} given for --players {players}; give at most "
            f"{players} (fewer are cycled to fill the seats)"
        )
    return players


def _kernel_groups(seats: list[str], name: str = DEFAULT_GAME) -> list[str]:
    """The compiled kernel families a game between ``seats`` uses (MCTS also runs the scripted
    bots, in its rollouts and move ordering)."""
    from agents.tournament.backends import kernel_families

    return kernel_families(seats, name)


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
    delay: Annotated[
        float, typer.Option(help="Seconds to pause after each decision (0 to 60).")
    ] = 0.0,
    board: Annotated[
        bool,
        typer.Option(
            "--board/--no-board",
            help="Render the board at every new turn or round (every decision with --step).",
        ),
    ] = True,
    option: OptionsOption = None,
    plugin: PluginsOption = None,
    html: Annotated[
        Path | None,
        typer.Option(
            help="Also write the game as a self-contained HTML replay page to this file "
            "(see caylus replay --html; default: no page)."
        ),
    ] = None,
    game: AgentsGameOption = None,
) -> None:
    """Watch agents play one game in the terminal, decision by decision.

    --game NAME plays that game with its own agents (caylus agents --game NAME lists them);
    a game cut off by its decision cap ends truncated.
    """
    from agents.registry import make_agent
    from agents.tournament.arena import new_game
    from caylus_cli.show import check_html_out, write_html

    check_html_out(html)
    specs = _split_agents(agents)
    if not specs:
        _fail("invalid value for --agents: give at least one agent spec")
    game = agents_game(game, specs)
    n = _seat_count(specs, players, game)
    if not 0 <= delay <= MAX_DELAY_S:  # NaN too
        _fail(f"invalid value for --delay: {delay}; allowed: 0 to {MAX_DELAY_S:g} seconds")
    if not 0 <= seed < 2**63:
        _fail(f"invalid value for --seed: {seed}; allowed: 0 to 2**63 - 1")
    seats = [specs[s % len(specs)] for s in range(n)]
    _load_plugins(plugin)
    spec = game_spec(game)
    try:
        config = spec.config(n, **_parse_options(option))
    except (TypeError, ValueError) as err:
        _fail(f"invalid value for --option: {err}")
    try:
        bots = [make_agent(agent, game) for agent in seats]
    except ValueError as err:
        _fail(f"invalid value for --agents: {err}")
    options = {k: v for k, v in config.to_dict().items() if k != "num_players"}
    with compile_notice(*_kernel_groups(seats, game)):
        state = new_game(game, n, options, seed)
        for s, bot in enumerate(bots):
            bot.reset(seed + s)
        interactive = step and sys.stdin.isatty()
        last_clock = None
        while not state.is_over():
            now = clock(state)
            if board and (interactive or now != last_clock):
                typer.echo(render(state))
                last_clock = now
            p = state.current_player()
            legal = state.legal_actions()
            try:
                action = bots[p].act(state)
            except Exception as err:
                _fail(f"player {p} ({seats[p]}) raised {type(err).__name__}: {err}", code=1)
            if isinstance(action, bool) or not isinstance(action, int) or action not in legal:
                _fail(f"player {p} ({seats[p]}) chose an illegal action {action!r}", code=1)
            name = state.action_to_string(action)
            typer.echo(f"{now} {state.phase}: player {p} ({seats[p]}) -> {name}")
            state.apply(action)
            if interactive:
                input()
            elif delay:
                time.sleep(delay)
    if board:
        typer.echo(render(state))
    truncated = " (truncated by the decision cap)" if state.is_truncated() else ""
    typer.echo(
        f"Game over after {len(state.history)} decisions{truncated}. "
        f"Final {spec.score_word} and ranks:"
    )
    for line in final_lines(state, seats, state.scores().tolist(), state.ranks().tolist()):
        typer.echo(line)
    if html is not None:
        write_html(state.record(), html, seats)
