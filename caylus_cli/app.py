"""The ``caylus`` typer application: shared options and helpers, and the command modules.

Every command checks its arguments before doing any work and fails with a one-line message on
stderr and exit code 2 when one is wrong (unknown agent, player count, game count, workers,
backend, an output directory started with other arguments). Failures during the work itself
exit with code 1.

Heavy modules (the tournament runner and its statistics and plotting stack, the renderer, the
benchmark) are imported inside the commands: worker processes started by ``spawn`` re-import the
main module, and ``caylus agents`` should answer at once. The commands live in one module per
group (:mod:`caylus_cli.tournament`, :mod:`caylus_cli.games`, :mod:`caylus_cli.bench`,
:mod:`caylus_cli.agents`), imported at the end of this module so that each registers on ``app``.
"""

from __future__ import annotations

import importlib
import json
import sys
from typing import Annotated, Any, NoReturn

import typer

app = typer.Typer(
    name="caylus",
    help="Caylus for 2-5 players: tournaments, SPRT duels, watching and replaying games.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
)

#: Spec field named by a TournamentError -> the option that sets it.
_OPTION_OF = {
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
    "min_pairs": "--min-pairs",
    "max_pairs": "--max-pairs",
    "sprt": "--p0/--p1/--alpha/--beta",
}

PluginsOption = Annotated[
    list[str] | None,
    typer.Option(
        "--plugin",
        help="Module to import (in the driver and every worker) that registers more agents; "
        "repeatable, e.g. --plugin agents.tournament.testing.",
    ),
]
OptionsOption = Annotated[
    list[str] | None,
    typer.Option(
        "--option",
        help="Game option KEY=VALUE (JSON value), e.g. --option jeweller=true; repeatable.",
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
    typer.Option(help="Seconds an agent may think per move before it forfeits (0: no limit)."),
]
ProgressOption = Annotated[bool, typer.Option("--progress/--no-progress", help="Progress bar.")]


def _fail(message: str, code: int = 2) -> NoReturn:
    """Print ``message`` to stderr and exit: 2 for bad arguments, 1 for failed work."""
    typer.echo(f"Error: {message}", err=True)
    raise typer.Exit(code)


def _console() -> Any:
    """A rich console; off a terminal (logs, pipes) wide enough that tables are not cut."""
    from rich.console import Console

    return Console() if sys.stdout.isatty() else Console(width=160)


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
        except ValueError:
            value = raw
        out[key.strip()] = value
    return out


def _load_plugins(plugins: list[str] | None) -> None:
    from agents.tournament.arena import load_plugins

    try:
        load_plugins(plugins or [])
    except ImportError as err:
        _fail(f"invalid value for --plugin: cannot import {err.name or err}: {err}")


def _bad_argument(err: Exception) -> NoReturn:
    field = getattr(err, "field", "")
    option = _OPTION_OF.get(field, field)
    _fail(f"invalid value for {option}: {err}" if option else str(err))


#: The command modules, in the order ``caylus --help`` lists them. Each registers its commands on
#: ``app`` when imported and imports the helpers above, so they are imported last.
COMMAND_MODULES = ("tournament", "games", "bench", "agents")

for _name in COMMAND_MODULES:
    importlib.import_module(f"caylus_cli.{_name}")
