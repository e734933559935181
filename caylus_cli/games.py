"""``caylus play``: watch agents play one game in the terminal, and save it as a replay page.

``--game puerto_rico`` plays Puerto Rico with its own agents (``caylus agents --game
puerto_rico``); the game is made, its options checked and its agents created through the
harness's per-game adapter (``agents.tournament.games``), so that ``play`` and ``tournament``
accept the same options and agents.
"""

from __future__ import annotations

import importlib
import sys
import time
from pathlib import Path
from typing import Annotated, Any

import typer

from caylus_cli.app import (
    GameOption,
    OptionsOption,
    PluginsOption,
    _fail,
    _load_plugins,
    _parse_options,
    _split_agents,
    app,
    compile_notice,
)
from caylus_env.core.registry import DEFAULT_GAME, game_spec

#: Game name -> the module whose ``render_text(game)`` draws its board as text (imported on use:
#: a game without one yet shows its one-line repr).
RENDERERS = {
    "caylus": "caylus_env.caylus.rendering",
    "puerto_rico": "caylus_env.puerto_rico.rendering",
}
#: Game name -> the attribute of its ``Game`` counting the game's clock (Caylus turns, Puerto
#: Rico rounds, docs/rules/puerto_rico.md 3), printed with every decision.
CLOCKS = {"caylus": "turn", "puerto_rico": "round"}
#: Games whose records a viewer draws as replay pages (``caylus_env.caylus.viewer``,
#: ``caylus_env.puerto_rico.viewer``).
HTML_GAMES = ("caylus", "puerto_rico")


def _render(game: Any, name: str = DEFAULT_GAME) -> str:
    """The board of a game of ``name`` as text, or the game's one-line repr where no renderer
    is installed."""
    try:
        render_text = importlib.import_module(RENDERERS[name]).render_text
    except (ImportError, AttributeError):
        return repr(game)
    return str(render_text(game))


def _clock(game: Any, name: str = DEFAULT_GAME) -> str:
    """``turn 3`` (Caylus) or ``round 3`` (Puerto Rico): where the game is, for the log."""
    attribute = CLOCKS[name]
    return f"{attribute} {getattr(game, attribute)}"


def _scores(game: Any, name: str = DEFAULT_GAME) -> list[int]:
    """Each seat's score: Caylus prestige, Puerto Rico victory points (its rules 5.2)."""
    values = game.prestige() if name == DEFAULT_GAME else game.scores()
    return [int(v) for v in values]


def score_word(name: str = DEFAULT_GAME) -> str:
    """What a game's score is called in the final lines."""
    return "prestige" if name == DEFAULT_GAME else "score"


def _final_lines(game: Any, seats: list[str], name: str = DEFAULT_GAME) -> list[str]:
    scores = _scores(game, name)
    ranks = game.ranks().tolist()
    word = score_word(name)
    return [
        f"  player {p} ({seats[p]}): {word} {scores[p]}, rank {ranks[p]:g}"
        for p in range(len(seats))
    ]


def check_html_game(html: Path | None, name: str) -> None:
    """Refuse ``--html`` for a game the viewer does not draw yet, before any work."""
    if html is not None and name not in HTML_GAMES:
        _fail(
            f"invalid value for --html: replay pages are drawn for {', '.join(HTML_GAMES)} "
            f"only, not {game_spec(name).title} (--game {name}); leave out --html"
        )


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
    delay: Annotated[float, typer.Option(help="Seconds to pause after each decision.")] = 0.0,
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
            "(see caylus replay --html)."
        ),
    ] = None,
    game: GameOption = DEFAULT_GAME,
) -> None:
    """Watch agents play one game in the terminal, decision by decision.

    --game puerto_rico plays Puerto Rico with its own agents (--option expansion=true for the
    expansion); a Puerto Rico game cut off by its decision cap ends truncated.
    """
    from agents.tournament.games import tournament_game
    from caylus_cli.replay import check_html_out, write_html

    check_html_game(html, game)
    check_html_out(html)
    specs = _split_agents(agents)
    if not specs:
        _fail("invalid value for --agents: give at least one agent spec")
    n = _seat_count(specs, players, game)
    if delay < 0:
        _fail(f"invalid value for --delay: must be >= 0, got {delay}")
    if seed < 0:
        _fail(f"invalid value for --seed: must be >= 0, got {seed}")
    seats = [specs[s % len(specs)] for s in range(n)]
    _load_plugins(plugin)
    adapter = tournament_game(game)
    try:
        options = adapter.normal_options(n, _parse_options(option))
    except (TypeError, ValueError) as err:
        _fail(f"invalid value for --option: {err}")
    try:
        bots = [adapter.make_agent(spec) for spec in seats]
    except ValueError as err:
        _fail(f"invalid value for --agents: {err}")
    action_to_string = adapter.engine().action_to_string
    with compile_notice(*_kernel_groups(seats, game)):
        state = adapter.new_game(n, options, seed)
        for s, bot in enumerate(bots):
            bot.reset(seed + s)
        interactive = step and sys.stdin.isatty()
        last_clock = None
        while not adapter.is_over(state):
            clock = _clock(state, game)
            if board and (interactive or clock != last_clock):
                typer.echo(_render(state, game))
                last_clock = clock
            p = state.current_player()
            legal = state.legal_actions()
            try:
                action = bots[p].act(state)
            except Exception as err:
                _fail(f"player {p} ({seats[p]}) raised {type(err).__name__}: {err}", code=1)
            if isinstance(action, bool) or not isinstance(action, int) or action not in legal:
                _fail(f"player {p} ({seats[p]}) chose an illegal action {action!r}", code=1)
            name = action_to_string(action)
            typer.echo(f"{clock} {state.phase}: player {p} ({seats[p]}) -> {name}")
            state.apply(action)
            if interactive:
                input()
            elif delay:
                time.sleep(delay)
    if board:
        typer.echo(_render(state, game))
    truncated = " (truncated by the decision cap)" if _is_truncated(state) else ""
    typer.echo(
        f"Game over after {len(state.history)} decisions{truncated}. "
        f"Final {score_word(game)} and ranks:"
    )
    for line in _final_lines(state, seats, game):
        typer.echo(line)
    if html is not None:
        write_html(state.record(), html, seats, game)


def _is_truncated(game: Any) -> bool:
    """Whether a game stopped at its decision cap (Puerto Rico rules 6.9; Caylus has none)."""
    check = getattr(game, "is_truncated", None)
    return bool(check()) if check is not None else False
