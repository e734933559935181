"""The ``caylus`` typer application: shared options and helpers, and the command modules.

Every command checks its arguments before doing any work and fails with a one-line message on
stderr and exit code 2 when one is wrong (unknown agent, player count, game count, workers,
backend, an output directory started with other arguments). Failures during the work itself
exit with code 1.

Heavy modules (the tournament runner and its statistics and plotting stack, the renderer, the
benchmark) are imported inside the commands: worker processes started by ``spawn`` re-import the
main module, and ``caylus agents`` should answer at once. The commands live in one module per
command or command group, named after it (:mod:`caylus_cli.play` holds ``caylus play``,
:mod:`caylus_cli.games` ``caylus games``), listed in `COMMAND_MODULES` and imported at the end of
this module so that each registers on ``app``.
"""

from __future__ import annotations

import contextlib
import importlib
import json
import os
import sys
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Annotated, Any, NoReturn

import typer
from typer.core import TyperGroup

from caylus_env._version import PROGRAM, __version__
from caylus_env.core.registry import DEFAULT_GAME, GAME_NAMES, games


def _click_class(name: str) -> type[BaseException]:
    """Click's exception class ``name`` (``ClickException``, ``UsageError``) as this typer
    raises it: typer 0.12 to 0.15 raise click's own, later versions a vendored copy, so the
    class is found through ``typer.BadParameter``'s ancestors rather than imported."""
    return next(c for c in typer.BadParameter.__mro__ if c.__name__ == name)


_CLICK_ERROR = _click_class("ClickException")


def usage_error_line(err: BaseException) -> str:
    """What a command-line parse error prints: ``Error: <message>`` on one line (the message's
    own lines joined), as every refusal of the commands does (`_fail`): no ``Try ... --help``
    hint on a second line, no box."""
    text = err.format_message()  # type: ignore[attr-defined]
    message = "; ".join(line.strip() for line in text.splitlines() if line.strip())
    return f"Error: {message}"


#: typer's type tags (``<int>``) -> the plain metavar the help shows instead.
_PLAIN_TYPES = {"int": "INTEGER", "float": "FLOAT", "str": "TEXT", "text": "TEXT", "path": "PATH"}


def _plain_type(param: Any, ctx: Any) -> str | None:
    """What the help shows of a parameter's type: nothing for a flag (``--progress``), click's
    plain metavar (``INTEGER``, ``TEXT``, ``FLOAT``, ``PATH``) for an option with a value or
    an argument, instead of typer's ``<bool>``, ``<int>`` tags."""
    if getattr(param, "is_flag", False) or getattr(param, "count", False):
        return None
    if param.metavar is not None:
        return str(param.metavar)
    tag = str(type(param).display_type_rich(param, ctx) or "")
    inner = tag.strip("<>").removesuffix("...")
    repeated = inner.startswith("list[") or tag.endswith("...")
    inner = inner.removeprefix("list[").removesuffix("]")
    name = _PLAIN_TYPES.get(inner.lower(), inner.upper())
    return name + ("..." if repeated else "")


def plain_help(command: Any) -> None:
    """Strip typer's type tags (``<bool>``) from the help of ``command`` and of every command
    under it (`_plain_type`), its ``--help`` option included, in place."""
    import types

    for param in getattr(command, "params", ()):
        param.display_type_rich = types.MethodType(_plain_type, param)
    if hasattr(command, "get_help_option"):
        original = command.get_help_option

        def get_help_option(ctx: Any) -> Any:
            option = original(ctx)
            if option is not None:
                option.display_type_rich = types.MethodType(_plain_type, option)
            return option

        command.get_help_option = get_help_option
    for sub in getattr(command, "commands", {}).values():
        plain_help(sub)


class OneLineErrors(TyperGroup):
    """The top-level group: a parse error of any command (an unknown option, a value of the
    wrong type, a missing argument) prints `usage_error_line` instead of the multi-line box
    of typer's rich formatter and click's help hint, and exits 2; ``--help`` is still rendered
    by rich, without typer's type tags (`plain_help`)."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        plain_help(self)

    def main(  # type: ignore[override]
        self,
        args: Sequence[str] | None = None,
        prog_name: str | None = None,
        complete_var: str | None = None,
        standalone_mode: bool = True,
        windows_expand_args: bool = True,
        **extra: Any,
    ) -> Any:
        if not standalone_mode:
            return super().main(
                args, prog_name, complete_var, standalone_mode, windows_expand_args, **extra
            )
        try:
            code = super().main(args, prog_name, complete_var, False, windows_expand_args, **extra)
        except _CLICK_ERROR as err:
            # no_args_is_help: the help was printed when the error was made
            if type(err).__name__ != "NoArgsIsHelpError":
                typer.echo(usage_error_line(err), err=True)
            sys.exit(err.exit_code)  # type: ignore[attr-defined]
        except typer.Abort:
            typer.echo("Aborted!", err=True)
            sys.exit(1)
        except typer.Exit as done:
            sys.exit(done.exit_code)
        sys.exit(code if isinstance(code, int) else 0)


def app_help() -> str:
    """The top-level help: every registered game (from the registry, in registration order)
    and what the commands do with each."""
    names = ", ".join(f"{spec.title} ({spec.name})" for spec in games())
    return (
        f"Board games for RL: {names}. For every game: tournaments and SPRT duels between "
        "agents, watching, replaying and playing games in the browser, self-play datasets, "
        "training; --game NAME picks the game (caylus games lists them, caylus agents --game "
        "NAME its agents)."
    )


app = typer.Typer(
    name=PROGRAM,
    help=app_help(),
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
    cls=OneLineErrors,
)

#: The subcommand of this invocation (``duel``), recorded by ``_record_command`` so that error
#: messages can name that command's own options.
_invoked: dict[str, str | None] = {"command": None}


def _print_version(value: bool) -> None:
    """``--version``: print the program and the package version, and exit 0."""
    if value:
        typer.echo(f"{PROGRAM} {__version__}")
        raise typer.Exit(0)


@app.callback()
def _record_command(
    ctx: typer.Context,
    version: Annotated[
        bool,
        typer.Option(
            "--version",
            help="Print the version and exit.",
            callback=_print_version,
            is_eager=True,
        ),
    ] = False,
) -> None:
    _invoked["command"] = ctx.invoked_subcommand


#: Spec field named by a TournamentError -> the option that sets it, per command: a duel has no
#: --agents or --players (its two agents are arguments, it is always 2-player) and no --games.
_OPTION_OF: dict[str, dict[str, str]] = {
    "tournament": {
        "agents": "--agents",
        "players": "--players",
        "games": "--games",
        "seed": "--seed",
        "seating": "--permutations",
        "workers": "--workers",
        "backend": "--backend",
        "out": "--out",
        "move_time_limit": "--move-time-limit",
        "game_options": "--option",
        "plugins": "--plugin",
        "game": "--game",
        "reference": "--reference",
    },
    "ladder": {
        "game": "--game",
        "players": "--players",
        "games": "--games",
        "sims": "--sims",
        "seed": "--seed",
        "workers": "--workers",
        "out": "--out",
        "page": "--page",
        "plot": "--plot",
        "move_time_limit": "--move-time-limit",
        "agents": "--sims",
    },
    "duel": {
        "agents": "CANDIDATE/OPPONENT",
        "games": "--max-pairs",
        "seed": "--seed",
        "workers": "--workers",
        "backend": "--backend",
        "out": "--out",
        "move_time_limit": "--move-time-limit",
        "game_options": "--option",
        "plugins": "--plugin",
        "min_pairs": "--min-pairs",
        "max_pairs": "--max-pairs",
        "sprt": "--p0/--p1 (or --elo0/--elo1), --alpha, --beta",
        "game": "--game",
    },
}


def _plugins_importable(values: list[str] | None) -> list[str] | None:
    """``--plugin`` callback: make modules in the current directory importable as plugins.

    The installed ``caylus`` script puts its own folder, not the current directory, first on
    ``sys.path``, so ``--plugin mybot`` for a ``./mybot.py`` would fail. The current directory
    (absolute, so a later ``chdir`` changes nothing) goes on ``sys.path`` here, which spawned
    pool workers inherit, and on ``PYTHONPATH``, which Ray workers started from this process
    and any other child interpreter read.
    """
    if values:
        cwd = str(Path.cwd().resolve())
        if cwd not in sys.path:
            sys.path.insert(0, cwd)
        paths = [p for p in os.environ.get("PYTHONPATH", "").split(os.pathsep) if p]
        if cwd not in paths:
            os.environ["PYTHONPATH"] = os.pathsep.join([cwd, *paths])
    return values


PluginsOption = Annotated[
    list[str] | None,
    typer.Option(
        "--plugin",
        help="Module to import (in the driver and every worker) that registers more agents; "
        "modules in the current directory count; repeatable, e.g. --plugin mybot.",
        callback=_plugins_importable,
    ),
]
OptionsOption = Annotated[
    list[str] | None,
    typer.Option(
        "--option",
        help="Game option KEY=VALUE (JSON value), e.g. --option jeweller=true; repeatable.",
    ),
]


def _game_known(value: str) -> str:
    """``--game``: refused before any work unless it names a game of the platform."""
    from caylus_env.core.registry import game_spec

    try:
        return game_spec(value).name
    except ValueError as err:
        raise typer.BadParameter(str(err)) from None


GameOption = Annotated[
    str,
    typer.Option(
        "--game",
        help="Game to play (caylus games lists them).",
        callback=_game_known,
    ),
]


def _maybe_game_known(value: str | None) -> str | None:
    """``--game`` that may be left out (the command infers it): None, or a known game."""
    return None if value is None else _game_known(value)


AgentsGameOption = Annotated[
    str | None,
    typer.Option(
        "--game",
        help="Game to play (default: the one game the agents belong to, e.g. castle: caylus, "
        f"shipper: puerto_rico; else {DEFAULT_GAME}; caylus games lists them).",
        callback=_maybe_game_known,
    ),
]


def agents_game(game: str | None, specs: Sequence[str]) -> str:
    """The game a command's agents play: ``--game`` when given; else the one game whose agents
    include every spec's head (``castle``: Caylus's, ``shipper``: Puerto Rico's); else
    `DEFAULT_GAME`, the game the commands played before ``--game`` existed."""
    if game is not None:
        return game
    from agents.registry import games_of

    common = set(GAME_NAMES)
    for spec in specs:
        common &= set(games_of(spec.strip().partition(":")[0]))
    return common.pop() if len(common) == 1 else DEFAULT_GAME


FileGameOption = Annotated[
    str | None,
    typer.Option(
        "--game",
        help="The game the file must hold (default: the game it names; caylus games lists them).",
        callback=_maybe_game_known,
    ),
]

SeedOption = Annotated[int, typer.Option(help="Master seed of every game and agent seed.")]
WorkersOption = Annotated[
    int | None,
    typer.Option(help="Games played in parallel (default: the machine's cores)."),
]
BackendOption = Annotated[str, typer.Option(help="Where games run: local (process pool) or ray.")]
RayAddressOption = Annotated[
    str | None,
    typer.Option(help="Ray cluster address (auto, HOST:PORT); default: RAY_ADDRESS or local."),
]
TimeLimitOption = Annotated[
    float,
    typer.Option(
        help="Seconds an agent may think per move before it forfeits: 0.01 to 3600, or 0 for "
        "no limit. A move stuck in compiled code past twice the limit plus 5 s gets its "
        "worker killed by the driver's watchdog (a forfeit)."
    ),
]
ProgressOption = Annotated[
    bool,
    typer.Option(
        "--progress/--no-progress",
        help="Progress display: a live bar on a terminal, a plain line every few seconds "
        "when the output is a file or a pipe.",
    ),
]


def _fail(message: str, code: int = 2) -> NoReturn:
    """Print ``message`` to stderr and exit: 2 for bad arguments, 1 for failed work."""
    typer.echo(f"Error: {message}", err=True)
    raise typer.Exit(code)


def _console() -> Any:
    """The commands' rich console (`agents.progress.console`): on a terminal its width; off
    a terminal (logs, pipes) no width limit, so tables are neither wrapped nor cut."""
    from agents.progress import console

    return console()


def _split_agents(text: str) -> list[str]:
    return [a.strip() for a in text.split(",") if a.strip()]


def _parse_options(items: list[str] | None) -> dict[str, Any]:
    """``KEY=VALUE`` pairs with JSON values (``true``, ``3``); bare words stay strings."""
    out: dict[str, Any] = {}
    for item in items or []:
        key, sep, raw = item.partition("=")
        if not sep or not key.strip():
            _fail(f"invalid value for --option: {item!r} is not KEY=VALUE")
        try:
            value = json.loads(raw)
        except RecursionError:
            _fail(f"invalid value for --option: {key.strip()}=... is JSON nested too deeply")
        except ValueError:
            value = raw
        out[key.strip()] = value
    return out


def _load_plugins(plugins: list[str] | None) -> None:
    from agents.tournament.arena import load_plugins

    try:
        load_plugins(plugins or [])
    except ImportError as err:
        _fail(
            f"invalid value for --plugin: cannot import {err.name or err}: {err} (give a module "
            "name on the Python path or in the current directory: --plugin mybot for ./mybot.py)"
        )


@contextlib.contextmanager
def compile_notice(*parts: str) -> Iterator[None]:
    """Say on stderr, once, when numba starts compiling kernels, instead of a silent pause.

    numba raises its ``numba:compile`` event only when a kernel is not in its on-disk cache
    (a cache hit loads the machine code and raises none), so the message appears exactly on a
    cold or stale cache: the first run after installing or after the engine changed. ``parts``
    name the kernel families (``agents.tournament.backends.COLD_COMPILE_SECONDS``, the one table
    of the estimates) the command will compile.
    """
    from numba.core import event

    from agents.tournament.backends import COLD_COMPILE_SECONDS

    unknown = [part for part in parts if part not in COLD_COMPILE_SECONDS]
    if unknown:
        raise ValueError(f"unknown kernel groups {unknown}; known: {sorted(COLD_COMPILE_SECONDS)}")
    estimate = sum(COLD_COMPILE_SECONDS[part] for part in parts)

    class _FirstCompile(event.Listener):
        said = False

        def on_start(self, ev: Any) -> None:
            if not self.said:
                self.said = True
                typer.echo(
                    f"compiling kernels (first run only, about {estimate:.0f} s)...", err=True
                )

        def on_end(self, ev: Any) -> None:
            """Only the start of the first compilation is announced."""

    with event.install_listener("numba:compile", _FirstCompile()):
        yield


def _bad_argument(err: Exception) -> NoReturn:
    """Fail naming the option of the running command that sets the offending spec field."""
    field = getattr(err, "field", "")
    option = _OPTION_OF.get(_invoked["command"], {}).get(field, field)
    _fail(f"invalid value for {option}: {err}" if option else str(err))


COMMAND_MODULES = (
    "games",
    "tournament",
    "ladder",
    "play",
    "replay",
    "serve",
    "bench",
    "agents",
    "dataset",
    "train",
)
"""The modules of ``caylus_cli`` that define the commands, in the order ``caylus --help`` lists
them (typer lists commands in the order they were registered).

Each module is named after its command (``play.py`` holds ``caylus play``; a group's module its
group: ``dataset.py`` holds ``caylus dataset generate|verify|stats|inspect``) and registers it on
``app`` when imported (``@app.command()``, or ``app.add_typer`` for a group). The modules import
the shared options and helpers above, so they are imported here, at the end of this module:
importing ``caylus_cli.app`` (the ``caylus`` entry point, ``pyproject.toml``) then yields the app
with every command on it, and nothing else has to import them.

A new command joins by its own module ``caylus_cli/<command>.py`` registering on ``app``, and
its name here, where ``caylus --help`` should list it; then a row in ``docs/cli.md``.
``tests/test_cli.py`` reads the commands from the app itself, so the new one is checked at once
(its ``--help``, and the refusal of an unknown ``--game`` before any work).
"""

for _name in COMMAND_MODULES:
    importlib.import_module(f"caylus_cli.{_name}")
