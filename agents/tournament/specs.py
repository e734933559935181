"""The arguments of tournaments and duels, validated once, before any work.

A spec (`TournamentSpec`, ``duel.DuelSpec``) holds what determines the games; `prepare` checks
it together with how the games are to be run and the output directory, and returns a
`PreparedRun`: the schedule, the ``run.json`` content, the worker settings and the worker count.
The CLI prepares a run (so a bad argument exits before anything starts) and hands the prepared
run to ``runner.run_tournament`` or ``duel.run_duel``, which do not validate it again.

`TournamentSpec`'s fields are also ``caylus tournament``'s options (``caylus_cli.fields``):
each field's ``metadata`` holds its ``--help`` text, or names the option every command shares.
This module does not import the arena (nor its compiler), so that ``--help`` stays quick.
"""

from __future__ import annotations

import concurrent.futures as cf
import importlib.util
import math
import os
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from agents.tournament.schedule import Schedule, ScheduleError, build_schedule
from caylus_env.core.ledger import InfoMismatchError
from caylus_env.core.registry import DEFAULT_GAME, game_of, game_spec

RUN_FORMAT = "caylus-tournament-run/1"
MOVE_TIME_LIMIT = 10.0
"""A tournament's seconds per ``act`` call before a forfeit, unless its spec says otherwise: the
arena's default for one game (``arena.DEFAULT_MOVE_TIME_LIMIT``, which the tournament tests
keep equal to it), written here so that the command line shows it without importing the arena
(and the compiler)."""
BACKENDS = ("local", "ray")
DERIVED_FIELDS = ("scheduled_games", "blocks", "cycle_blocks", "schedule_hash")
"""run.json fields computed from the others; reported only when no argument explains them."""


class TournamentError(ValueError):
    """Arguments or a run directory that cannot be used; nothing was played or written.

    Attributes:
        field: The argument at fault (``"agents"``, ``"players"``, ``"out"``, ...), so that a
            command line can name its option.
    """

    def __init__(self, field: str, message: str) -> None:
        super().__init__(message)
        self.field = field


class RunMismatchError(TournamentError):
    """The run directory was started with other arguments.

    Attributes:
        differences: ``{field: (value in run.json, value now)}``.
    """

    def __init__(self, err: InfoMismatchError) -> None:
        super().__init__("out", str(err))
        self.differences = err.differences


def check_game(game: Any) -> str:
    """The name of a registered game (``caylus_env.core.registry``).

    Raises:
        TournamentError: naming the allowed games.
    """
    try:
        return game_spec(game).name
    except ValueError as err:
        raise TournamentError("game", str(err)) from None


def with_game(info: dict[str, Any], game: str) -> dict[str, Any]:
    """``info`` with a ``game`` field after ``kind``: every new ``run.json`` names its game (one
    written before the field existed, without it, is a `DEFAULT_GAME` run, and resumes as
    one: ``rundir.INFO_DEFAULTS``)."""
    out: dict[str, Any] = {}
    for key, value in info.items():
        out[key] = value
        if key == "kind":
            out["game"] = game
    return out


def normal_game_options(
    players: int, options: Mapping[str, Any] | None, game: str = DEFAULT_GAME
) -> dict[str, Any]:
    """All of ``game``'s options but the player count, defaults filled in (its ``GameConfig``),
    so ``{}`` and explicit defaults compare equal in ``run.json``.

    Raises:
        TournamentError: for an option the game does not have or a bad value, naming it and
            what is allowed.
    """
    options = dict(options or {})
    if "num_players" in options:
        raise TournamentError("game_options", "give the player count as players, not an option")
    try:
        out = game_spec(game).config(players, **options).to_dict()
    except (TypeError, ValueError) as err:
        raise TournamentError("game_options", f"bad game options: {err}") from None
    del out["num_players"]
    return out


MIN_MOVE_TIME_LIMIT = 0.01
"""Shortest per-move limit: below it the limit measures timer and scheduler noise (one Python
call of a fast bot takes about 0.01 ms, but a preempted process loses several ms), and every
game would end in a forfeit that says nothing about the agents."""
MAX_MOVE_TIME_LIMIT = 3600.0
"""Longest per-move limit (one hour): a longer one is a typo, and the worker watchdog
(``backends.move_watchdog_seconds``) waits a multiple of it before killing a hung move."""
MAX_WORKERS = 256
"""Most parallel games of one run: above it a local pool spends its time starting processes
(each loads NumPy and numba and warms the agents) and a Ray run is bounded by its cluster's
CPUs anyway; Windows' process pools stop at 61."""


def check_time_limit(value: Any) -> float | None:
    """The per-move limit in seconds; 0 or None mean no limit.

    Raises:
        TournamentError: for a non-number, NaN, infinity, a negative value, or one outside
            [`MIN_MOVE_TIME_LIMIT`, `MAX_MOVE_TIME_LIMIT`].
    """
    if value is None:
        return None
    allowed = f"allowed: 0 (no limit) or {MIN_MOVE_TIME_LIMIT:g} to {MAX_MOVE_TIME_LIMIT:g} seconds"
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value):
        raise TournamentError("move_time_limit", f"move_time_limit={value!r}; {allowed}")
    if value == 0:
        return None
    if not MIN_MOVE_TIME_LIMIT <= value <= MAX_MOVE_TIME_LIMIT:
        raise TournamentError("move_time_limit", f"move_time_limit={value!r}; {allowed}")
    return float(value)


def check_out_dir(out_dir: Any) -> None:
    """An output directory must be named: an empty string would write into the current one.

    Raises:
        TournamentError: for an empty or blank path string.
    """
    if isinstance(out_dir, str) and not out_dir.strip():
        raise TournamentError(
            "out", f"out={out_dir!r} is empty; allowed: a directory path (use . explicitly)"
        )


def check_agents_exist(
    specs: Sequence[str], plugins: Sequence[str], game: str = DEFAULT_GAME
) -> None:
    """Create each agent once in the driver, so a typo fails here and not in every worker
    (the registry's error names ``game``'s agents, and the game that has the spec when it is
    another one's)."""
    from agents.registry import make_agent
    from agents.tournament.arena import load_plugins

    try:
        load_plugins(plugins)
    except ImportError as err:
        raise TournamentError("plugins", f"cannot import agent plugin: {err}") from None
    for spec in specs:
        try:
            make_agent(spec, game)
        except ValueError as err:
            raise TournamentError("agents", str(err)) from None


def engine_version() -> str:
    from caylus_env._version import __version__

    return __version__


def check_execution(workers: Any, backend: str, executor: cf.Executor | None = None) -> int:
    """Validate how the games are to be run; returns the worker count.

    Raises:
        TournamentError: for a bad worker count, an unknown backend, or ray not installed.
    """
    if workers is None:
        workers = os.cpu_count() or 1
        workers = min(workers, MAX_WORKERS)
    if isinstance(workers, bool) or not isinstance(workers, int) or not 1 <= workers <= MAX_WORKERS:
        raise TournamentError(
            "workers", f"workers={workers!r} is not allowed; allowed: 1 to {MAX_WORKERS}"
        )
    if executor is None:
        if backend not in BACKENDS:
            raise TournamentError(
                "backend", f"backend={backend!r} is not allowed; allowed: {', '.join(BACKENDS)}"
            )
        if backend == "ray" and importlib.util.find_spec("ray") is None:
            raise TournamentError(
                "backend", "backend 'ray' needs ray: pip install -e '.[ray]' (in the checkout)"
            )
    return workers


def schedule_of(
    agents: Sequence[str],
    players: int,
    games: int,
    seed: int,
    seating: str = "rotations",
    game: str = DEFAULT_GAME,
) -> Schedule:
    try:
        return build_schedule(list(agents), players, games, seed, seating, game=game)
    except ScheduleError as err:
        raise TournamentError(err.field, str(err)) from None


def common_info(
    schedule: Schedule,
    move_time_limit: Any,
    game_options: Any,
    plugins: Sequence[str],
    game: str = DEFAULT_GAME,
) -> dict[str, Any]:
    """The run.json fields shared by tournaments and duels (validated)."""
    limit = check_time_limit(move_time_limit)
    options = normal_game_options(schedule.players, game_options, game)
    plugins = tuple(plugins)
    check_agents_exist(schedule.agents, plugins, game)
    return {
        "seed": schedule.master_seed,
        "move_time_limit": limit,
        "game_options": options,
        "plugins": list(plugins),
        "engine": engine_version(),
    }


def worker_settings(info: Mapping[str, Any], players: int) -> dict[str, Any]:
    """What every worker needs besides its jobs (plain data: it crosses process boundaries)."""
    return {
        "game": game_of(info),
        "num_players": players,
        "game_options": info["game_options"],
        "move_time_limit": info["move_time_limit"],
        "plugins": info["plugins"],
        "agents": list(info["agents"]),
    }


@dataclass(frozen=True)
class TournamentSpec:
    """Everything that determines a tournament's games (not how fast they are played).

    Attributes:
        agents: Distinct agent specs of the game (``agents.registry.make_agent(spec, game)``).
        players: Seats per table (the game's ``min_players`` to ``max_players``).
        games: Games wanted; rounded up to whole blocks.
        seed: Master seed.
        seating: ``"rotations"`` or ``"permutations"`` (see ``schedule``).
        move_time_limit: Seconds per ``act`` call before a forfeit; None disables it.
        game_options: `GameConfig` options other than the player count.
        plugins: Modules imported in the driver and every worker to register more agents.
        game: The game (a name of ``caylus_env.core.registry``).

    The fields are ``caylus tournament``'s options too: ``metadata`` holds the ``--help`` of
    the first four and how the command line reads them; ``seed``, ``move_time_limit``,
    ``game_options`` (``--option``), ``plugins`` (``--plugin``) and ``game`` are the options
    every command shares (``caylus_cli.app``).
    """

    agents: tuple[str, ...] = field(
        metadata={
            "help": "Comma-separated agent specs, e.g. random,castle,mcts:200; the first is the "
            "reference of the reports unless --reference names another.",
            "cli_type": str,
        }
    )
    players: int = field(metadata={"help": "Players per game, 2 to 5."})
    games: int = field(metadata={"help": "Total games, rounded up to whole blocks."})
    seed: int = 0
    seating: str = field(
        default="rotations",
        metadata={
            "help": "Seat each block in every order of its table (players! games) instead of "
            "its players cyclic rotations.",
            "flags": ("--permutations/--rotations",),
            "cli_type": bool,
            "cli_default": False,
        },
    )
    move_time_limit: float | None = MOVE_TIME_LIMIT
    game_options: Mapping[str, Any] = field(default_factory=dict, metadata={"cli_default": None})
    plugins: tuple[str, ...] = field(default=(), metadata={"cli_default": None})
    game: str = field(default=DEFAULT_GAME, metadata={"cli_default": None})

    def build(self) -> tuple[Schedule, dict[str, Any]]:
        """Validate everything and return the schedule and the ``run.json`` content.

        Raises:
            TournamentError: naming the offending argument.
        """
        game = check_game(self.game)
        schedule = schedule_of(self.agents, self.players, self.games, self.seed, self.seating, game)
        common = common_info(schedule, self.move_time_limit, self.game_options, self.plugins, game)
        info = {
            "format": RUN_FORMAT,
            "kind": "tournament",
            "agents": list(schedule.agents),
            "players": schedule.players,
            "games": schedule.requested_games,
            "seed": common["seed"],
            "seating": schedule.seating,
            "move_time_limit": common["move_time_limit"],
            "game_options": common["game_options"],
            "plugins": common["plugins"],
            "engine": common["engine"],
            "scheduled_games": schedule.games,
            "blocks": schedule.blocks,
            "cycle_blocks": schedule.cycle_blocks,
            "schedule_hash": schedule.hash(),
        }
        return schedule, with_game(info, game)


@dataclass(frozen=True)
class PreparedRun:
    """A validated run: build it with ``runner.prepare_tournament`` or ``duel.prepare_duel``.

    Attributes:
        schedule: The games.
        info: The ``run.json`` content.
        settings: The worker settings (`worker_settings`).
        workers: Parallel games.
        backend: ``"local"`` or ``"ray"`` (unused with an executor).
        executor: An executor to run the games on, if any.
        out_dir: The run directory, if any.
        resumes: Whether the directory already holds this run (or a shorter one it extends).
        extends: The ``run.json`` of a shorter run of the same arguments that this run extends.
    """

    schedule: Schedule
    info: dict[str, Any]
    settings: dict[str, Any]
    workers: int
    backend: str
    executor: cf.Executor | None
    out_dir: Any
    resumes: bool
    extends: dict[str, Any] | None = None


__all__ = [
    "BACKENDS",
    "DERIVED_FIELDS",
    "MAX_MOVE_TIME_LIMIT",
    "MAX_WORKERS",
    "MIN_MOVE_TIME_LIMIT",
    "MOVE_TIME_LIMIT",
    "RUN_FORMAT",
    "PreparedRun",
    "RunMismatchError",
    "TournamentError",
    "TournamentSpec",
    "check_agents_exist",
    "check_execution",
    "check_game",
    "check_out_dir",
    "check_time_limit",
    "common_info",
    "engine_version",
    "normal_game_options",
    "schedule_of",
    "with_game",
    "worker_settings",
]
