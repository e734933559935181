"""The public ladder: every built-in agent of every game rated in one seat-balanced tournament
per game and player count, written as one Markdown page and one plot (``caylus ladder``).

Who plays comes from the agent registry, never from a list here: every head of a game whose
``AgentInfo.ladder_spec`` is set (``random``, the game's scripted bots, the checkpoints shipped
for it, its searches at the ladder's simulation budget, ``LADDER_SIMS``). A head the registry
refuses to build at that budget and at `DEFAULT_SIMS` alike (a search that needs a checkpoint
the game does not ship) is left out, with the registry's reason on the page; one refused only
at the budget asked for makes that budget a bad argument.

Each tournament is the harness's own (``agents.tournament``): its schedule and seat rotations,
seeds, ``games.jsonl`` ledger, resume, statistics and reports, in its own directory under the
ladder's output directory. This module chooses the tournaments, keeps their wall times
(`STATE_FILE`, so a resumed ladder reports the time of all its calls), picks each game's
reference agent, and writes the page and the plot, atomically.

The output directory is untrusted (anybody can edit it), and a ladder checks every file of
it before it plays a game or writes a file: `STATE_FILE` by its strict schema
(`check_state`), each tournament's ``run.json`` and every line of its ``games.jsonl`` as
resuming it would (``agents.tournament.runner.verify_games``), each read only as a regular
file inside the directory, of a bounded size (``caylus_env.core.fileio.read_regular_file``).
A refusal is one line naming the file and what is allowed, and changes nothing.
"""

from __future__ import annotations

import io
import itertools
import os
import platform
import shlex
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime, timezone
from pathlib import Path
from typing import TYPE_CHECKING, Any

from caylus_env._version import PROGRAM
from caylus_env.core.contract import LADDER_SIMS
from caylus_env.core.registry import GAME_NAMES, game_spec

if TYPE_CHECKING:  # the harness loads numba: imported where a ladder runs, not by the CLI's help
    from rich.console import Console

    from agents.tournament.specs import PreparedRun, TournamentSpec

LADDER_FORMAT = "caylus-ladder/1"
STATE_FILE = "ladder.json"
"""In the ladder's output directory: each tournament's accumulated play time and worker counts
(the page's wall times: a resumed tournament adds the time of every call that played games)."""
STATE_KEYS = ("format", "tournaments")
"""The keys of `STATE_FILE`, exactly (`check_state`)."""
TIMING_KEYS = ("play_s", "workers")
"""The keys of each tournament's record in `STATE_FILE`, exactly (`check_state`)."""
MAX_STATE_BYTES = 1 << 20
"""Largest `STATE_FILE` read (1 MiB): its records, one per game and player count, take a
few kilobytes; a bigger file is refused unread."""
MAX_PLAY_S = 366 * 24 * 3600.0
"""Largest play time `STATE_FILE` may hold for one tournament (a year, in seconds): the
ladder's costliest tournament plays in under an hour, so a larger time is an edited file."""
DEFAULT_OUT = "runs/public-ladder"
"""Not ``runs/ladder``: the README's first tournament plays there, and a ladder's directory holds
one tournament directory per game and player count, never a tournament itself."""
DEFAULT_PAGE = "docs/ladder.md"
DEFAULT_PLOT = "docs/images/ladder.png"
DEFAULT_GAMES = 150
"""Games per tournament (rounded up to whole blocks of seat rotations): each agent of a 7-agent
game plays 40 to 110 of them (2 to 5 players), enough for ratings with two-sided intervals
between neighbours that are not very close. With `DEFAULT_SIMS`, the twelve tournaments of
the three games at 2 to 5 players take about 30 to 40 minutes on 2 cores
(``docs/tournaments.md``, section The ladder, gives the measurements)."""
DEFAULT_SIMS = 20
"""Simulations per move of every search head (``mcts:{sims}``, ``puct:{sims}``). Caylus's
``mcts`` is the ladder's costliest agent by far: about 0.4 to 0.5 s of one core per simulation
over the moves of one seat in one game (its rollouts and opponent models), so at 20 it plays
about 8 to 10 s a game and is most of the ladder's time; Puerto Rico's and Caylus 1303's cost
about 0.3 s a game at 20, ``puct`` and the checkpoints well under that."""
DEFAULT_SEED = 1000
"""Master seed of every tournament: not the tournaments' default 0, on which agents were
compared while they were being developed."""
DEFAULT_BOOTSTRAP = 200
"""Block-bootstrap resamples of each tournament's rating intervals (the tournament's default)."""
PLOT_DPI = 120

#: What the page says of a head the registry gives no ladder spec.
_LEFT_OUT = (
    "not rated: not a built-in agent (the registry gives it no ladder spec: it takes an "
    "argument of yours, such as a checkpoint path)"
)


class LadderError(ValueError):
    """A ladder argument that cannot be used; nothing was played or written.

    Attributes:
        field: The argument at fault (``game``, ``players``, ``sims``, ``out``, ``page``,
            ``plot``), as ``agents.tournament.TournamentError.field`` names a tournament's.
    """

    def __init__(self, field: str, message: str) -> None:
        super().__init__(message)
        self.field = field


@dataclass(frozen=True)
class Roster:
    """Who plays in a game's tournaments.

    Attributes:
        game: The game.
        agents: The specs rated, in the registry's order of heads.
        skipped: ``(spec, reason)`` of each head with a ladder spec that the registry refused
            to build (the reason is the registry's message).
        left_out: The syntax of each head without a ladder spec (``policy:PATH``).
    """

    game: str
    agents: tuple[str, ...]
    skipped: tuple[tuple[str, str], ...] = ()
    left_out: tuple[str, ...] = ()


@dataclass(frozen=True)
class Entry:
    """One tournament of the ladder: a game at one player count.

    Attributes:
        game: The game.
        players: Its player count.
        spec: The harness's arguments.
        prepared: The validated run (``agents.tournament.runner.prepare_tournament``).
    """

    game: str
    players: int
    spec: TournamentSpec
    prepared: PreparedRun

    @property
    def name(self) -> str:
        """The tournament's directory name and key: ``caylus-2p``."""
        return tournament_name(self.game, self.players)


@dataclass(frozen=True)
class LadderPlan:
    """A validated ladder: every tournament prepared, nothing played.

    Attributes:
        rosters: Per game, who plays.
        entries: The tournaments, by game in the registry's order, then by player count.
        games: Games per tournament asked for.
        sims: Simulations per move of the search heads.
        seed: Master seed of every tournament.
        move_time_limit: Seconds per move before a forfeit (None: no limit).
        out: The ladder's output directory.
        workers: Parallel games of each tournament.
        state: The content of its `STATE_FILE` (empty for a new ladder).
    """

    rosters: dict[str, Roster]
    entries: tuple[Entry, ...]
    games: int
    sims: int
    seed: int
    move_time_limit: float | None
    out: Path
    workers: int
    state: dict[str, Any] = field(default_factory=dict)


@dataclass
class TournamentOutcome:
    """What one tournament of the ladder produced, for the page.

    Attributes:
        entry: The tournament.
        summary: The harness's summary (``agents.stats.build_summary``) as its reports wrote it.
        wall_s: Seconds spent playing it over every call of the ladder, plus its reports.
        workers: The worker counts of the calls that played it.
        played: Games played by this call.
    """

    entry: Entry
    summary: dict[str, Any]
    wall_s: float
    workers: list[int] = field(default_factory=list)
    played: int = 0


def tournament_name(game: str, players: int) -> str:
    """A ladder tournament's directory name under the output directory: ``caylus-2p``."""
    return f"{game}-{players}p"


# --------------------------------------------------------------------------------------------------
# Arguments
# --------------------------------------------------------------------------------------------------


def parse_games(text: str | None) -> tuple[str, ...]:
    """``--game``: comma-separated game names, or None for every registered game (in the
    registry's order, the order of the page).

    Raises:
        LadderError: for an empty list or a name that is not a game's, naming the games.
    """
    if text is None:
        return tuple(GAME_NAMES)
    names = [part.strip() for part in text.split(",") if part.strip()]
    if not names:
        raise LadderError("game", f"{text!r} names no game; allowed: {', '.join(GAME_NAMES)}")
    chosen = []
    for name in names:
        try:
            chosen.append(game_spec(name).name)
        except ValueError as err:
            raise LadderError("game", str(err)) from None
    return tuple(g for g in GAME_NAMES if g in chosen)


def parse_players(text: str | None, games: Sequence[str]) -> dict[str, tuple[int, ...]]:
    """``--players``: the player counts of each game, all of its counts (``GameSpec.player_counts``)
    or those of ``text`` (``2-5``, ``3``, ``2,4``, ``2-3,5``) that it has.

    Raises:
        LadderError: for text that is not counts and ranges, a count no chosen game has, or a
            game left with none of the counts, naming what is allowed.
    """
    allowed = {g: tuple(game_spec(g).player_counts) for g in games}
    if text is None:
        return allowed
    every = sorted({n for counts in allowed.values() for n in counts})
    hint = f"allowed: counts and ranges such as 2-5, 3 or 2,4 within {every[0]}-{every[-1]}"
    asked: set[int] = set()
    for part in (p.strip() for p in text.split(",")):
        low, dash, high = part.partition("-")
        try:
            lo = int(low)
            hi = int(high) if dash else lo
        except ValueError:
            raise LadderError("players", f"{text!r} is not player counts; {hint}") from None
        if lo > hi:
            raise LadderError("players", f"{part!r} is an empty range; {hint}")
        asked.update(range(lo, hi + 1))
    stray = sorted(n for n in asked if n not in every)
    if stray:
        raise LadderError(
            "players", f"no chosen game plays {', '.join(map(str, stray))} players; {hint}"
        )
    out = {g: tuple(n for n in counts if n in asked) for g, counts in allowed.items()}
    for g, counts in out.items():
        if not counts:
            span = f"{allowed[g][0]}-{allowed[g][-1]}"
            raise LadderError(
                "players", f"{text!r} leaves {g} no player count (it plays {span}); {hint}"
            )
    return out


def roster(game: str, sims: int) -> Roster:
    """Every built-in agent of ``game`` at ``sims`` simulations per move, from the registry.

    Raises:
        LadderError: when a search head refuses ``sims`` but builds at `DEFAULT_SIMS` (the
            budget is at fault, not the head).
    """
    from agents.registry import describe, make_agent

    agents, skipped, left_out = [], [], []
    for info in describe(game):
        if info.ladder_spec is None:
            left_out.append(info.syntax)
            continue
        spec = info.ladder_spec.replace(LADDER_SIMS, str(sims))
        try:
            make_agent(spec, game)
        except ValueError as err:
            fallback = info.ladder_spec.replace(LADDER_SIMS, str(DEFAULT_SIMS))
            if fallback != spec and _builds(fallback, game):
                raise LadderError(
                    "sims", f"{sims} is refused by {game}'s {info.head}: {err}"
                ) from None
            skipped.append((spec, str(err)))
            continue
        agents.append(spec)
    return Roster(game, tuple(agents), tuple(skipped), tuple(left_out))


def _builds(spec: str, game: str) -> bool:
    from agents.registry import make_agent

    try:
        make_agent(spec, game)
    except ValueError:
        return False
    return True


def plan_ladder(
    *,
    move_time_limit: float | None,
    games: str | None = None,
    players: str | None = None,
    n_games: int = DEFAULT_GAMES,
    sims: int = DEFAULT_SIMS,
    seed: int = DEFAULT_SEED,
    out: str | os.PathLike[str] = DEFAULT_OUT,
    workers: int | None = None,
) -> LadderPlan:
    """Check every argument and every file of ``out`` and prepare every tournament, touching
    no file: ``out`` a directory (or absent) holding no tournament itself, its `STATE_FILE`
    (`check_state`), each tournament's directory (inside ``out``), its ``run.json`` and every
    line of its ledger (``agents.tournament.runner.verify_games``), so that a damaged
    directory is refused before any game is played or any file written.

    Args:
        move_time_limit: Seconds per move before a forfeit; None or 0: no limit (the
            tournaments' default is ``agents.tournament.DEFAULT_MOVE_TIME_LIMIT``).
        games: ``--game``: comma-separated names (`parse_games`); None: every game.
        players: ``--players`` (`parse_players`); None: each game's every count.
        n_games: Games per tournament.
        sims: Simulations per move of the search heads.
        seed: Master seed of every tournament.
        out: The ladder's directory; tournament ``G-Np`` plays in ``out/G-Np``.
        workers: Parallel games (default: the machine's cores).

    Raises:
        LadderError: for a bad ladder argument or a damaged `STATE_FILE` or tournament
            directory (field ``out``); TournamentError (its ``field`` naming the argument) for
            one a tournament refuses, a directory started with other arguments or a ledger
            line changed after it was written among them.
    """
    from agents.tournament.rundir import GAMES_FILE, RUN_FILE
    from agents.tournament.runner import (
        RunMismatchError,
        TournamentSpec,
        prepare_tournament,
        verify_games,
    )

    if isinstance(sims, bool) or not isinstance(sims, int) or sims < 1:
        raise LadderError("sims", f"{sims!r} is not allowed; allowed: an int >= 1")
    chosen = parse_games(games)
    counts = parse_players(players, chosen)
    if isinstance(out, str) and not out.strip():
        raise LadderError("out", f"{out!r} is empty; allowed: a directory path")
    root = Path(out)
    if os.path.lexists(root) and not root.is_dir():
        raise LadderError("out", f"{root} is not a directory; allowed: {_OUT_ALLOWED}")
    held = [name for name in (RUN_FILE, GAMES_FILE) if os.path.lexists(root / name)]
    if held:
        raise LadderError(
            "out",
            f"{root} holds a tournament ({', '.join(held)}); allowed: {_OUT_ALLOWED}",
        )
    state = _read_state(root)
    rosters = {g: roster(g, sims) for g in chosen}
    entries = []
    for g in chosen:
        if len(rosters[g].agents) < 2:
            raise LadderError(
                "game", f"{g} has fewer than two agents to rate: {', '.join(rosters[g].agents)}"
            )
        for n in counts[g]:
            _check_tournament_dir(root, tournament_name(g, n))
            spec = TournamentSpec(
                agents=rosters[g].agents,
                players=n,
                games=n_games,
                seed=seed,
                move_time_limit=move_time_limit,
                game=g,
            )
            try:
                prepared = prepare_tournament(spec, root / tournament_name(g, n), workers=workers)
            except RunMismatchError as err:
                if "agents" not in err.differences:
                    raise
                raise LadderError(
                    "out",
                    f"{err} (a ladder's agents are the registry's built-in agents at --sims: "
                    "another --sims, or a checkpoint shipped or removed since, changes them)",
                ) from None
            verify_games(prepared)  # every line of every ledger, before any game is played
            entries.append(Entry(g, n, spec, prepared))
    return LadderPlan(
        rosters=rosters,
        entries=tuple(entries),
        games=n_games,
        sims=sims,
        seed=seed,
        move_time_limit=entries[0].prepared.info["move_time_limit"],
        out=root,
        workers=entries[0].prepared.workers,
        state=state,
    )


def check_outputs(page: str | os.PathLike[str], plot: str | os.PathLike[str]) -> None:
    """The page must be a ``.md`` file and the plot a ``.png`` file, two different paths,
    neither an existing directory, each in a folder that exists or can be made and written.

    Raises:
        LadderError: naming the argument (``page`` or ``plot``) and what is allowed.
    """
    for name, path, suffix in (("page", page, ".md"), ("plot", plot, ".png")):
        p = Path(path)
        if not str(path).strip() or p.suffix.lower() != suffix:
            raise LadderError(name, f"{str(path)!r} is not allowed; allowed: a {suffix} file path")
        if p.is_dir():
            raise LadderError(name, f"{str(path)!r} is a directory; allowed: a {suffix} file path")
        folder = p.absolute().parent
        while not folder.exists() and folder != folder.parent:
            folder = folder.parent
        if not folder.is_dir() or not os.access(folder, os.W_OK | os.X_OK):
            raise LadderError(
                name, f"cannot write {str(path)!r}: {folder} is not a writable folder"
            )
    if Path(page).resolve() == Path(plot).resolve():
        raise LadderError("plot", "the plot and the page are the same file")


# --------------------------------------------------------------------------------------------------
# Running
# --------------------------------------------------------------------------------------------------


#: What ``--out`` may be, for its refusals.
_OUT_ALLOWED = (
    "a new directory or a ladder's own (it holds one tournament directory per game and player "
    "count)"
)


def _check_tournament_dir(root: Path, name: str) -> None:
    """A tournament's directory ``root/name``, where it exists, must be a directory inside the
    ladder's (a link to one elsewhere would make the ladder read and write files outside it).

    Raises:
        LadderError: (``out``) naming the path and what is allowed.
    """
    path = root / name
    if not os.path.lexists(path):
        return
    allowed = f"allowed: a tournament directory inside {root}"
    if not path.is_dir():
        raise LadderError("out", f"{path} is not a directory; {allowed}")
    real, top = path.resolve(), root.resolve()
    if top not in real.parents:
        raise LadderError("out", f"{path} leads to {real}, outside {top}; {allowed}")


def _read_state(out: Path) -> dict[str, Any]:
    """The ladder's `STATE_FILE` (an empty one for a new ladder), read by the bounded reader
    and checked by `check_state`.

    Raises:
        LadderError: (``out``) naming the file and what is wrong.
    """
    from caylus_env.core.fileio import FileRefusedError, read_json_file

    path = out / STATE_FILE
    if not os.path.lexists(path):
        return {"format": LADDER_FORMAT, "tournaments": {}}
    try:
        state = read_json_file(path, root=out, limit=MAX_STATE_BYTES)
    except FileRefusedError as err:
        raise LadderError("out", str(err)) from None
    return check_state(state, path)


def _shown(value: Any) -> str:
    """A value of `STATE_FILE` as JSON, cut short (an edited file's value can be huge)."""
    import json

    try:
        text = json.dumps(value)
    except (RecursionError, ValueError):
        text = f"a {type(value).__name__} nested too deeply to show"
    return text if len(text) <= 80 else text[:77] + "..."


def check_state(state: Any, path: str | os.PathLike[str] = STATE_FILE) -> dict[str, Any]:
    """``state``, the content of a `STATE_FILE`, if it is what `run_ladder` writes: exactly
    the keys `STATE_KEYS`, ``format`` `LADDER_FORMAT`, and ``tournaments`` mapping names of
    the ladder's tournaments (`tournament_name` of a registered game and one of its player
    counts) to exactly the keys `TIMING_KEYS`: ``play_s`` a finite number of seconds from 0
    to `MAX_PLAY_S`, ``workers`` the distinct worker counts of the calls that played it
    (each from 1 to ``agents.tournament.specs.MAX_WORKERS``), in increasing order, at least
    one. The page prints these values, so nothing else is allowed.

    Raises:
        LadderError: (``out``) naming the file, the field, its value and what is allowed.
    """
    from agents.tournament.specs import MAX_WORKERS

    def bad(where: str, value: Any, allowed: str) -> LadderError:
        return LadderError("out", f"{path}: {where} is {_shown(value)}; allowed: {allowed}")

    def keys(where: str, held: Mapping[str, Any], wanted: Sequence[str]) -> None:
        if sorted(held) != sorted(wanted):
            raise LadderError(
                "out",
                f"{path}: {where} has the keys {_shown(sorted(held))}; allowed: exactly "
                f"{', '.join(wanted)}",
            )

    if not isinstance(state, dict) or state.get("format") != LADDER_FORMAT:
        raise LadderError(
            "out", f"{path} is not a {LADDER_FORMAT} file; allowed: a ladder's own directory"
        )
    keys("the file", state, STATE_KEYS)
    tournaments = state["tournaments"]
    if not isinstance(tournaments, dict):
        raise bad("tournaments", tournaments, "an object of each tournament's timings")
    names = [tournament_name(g, n) for g in GAME_NAMES for n in game_spec(g).player_counts]
    for name, record in tournaments.items():
        if name not in names:
            raise bad("a tournament's name", name, f"one of {', '.join(names)}")
        where = f"tournaments.{name}"
        if not isinstance(record, dict):
            raise bad(where, record, f"an object with exactly {', '.join(TIMING_KEYS)}")
        keys(where, record, TIMING_KEYS)
        play_s = record["play_s"]
        if (
            isinstance(play_s, bool)
            or not isinstance(play_s, (int, float))
            or not 0 <= play_s <= MAX_PLAY_S  # NaN compares false
        ):
            raise bad(
                f"{where}.play_s", play_s, f"seconds, a number from 0 to {MAX_PLAY_S:.0f} (a year)"
            )
        workers = record["workers"]
        if (
            not isinstance(workers, list)
            or not workers
            or any(isinstance(w, bool) or not isinstance(w, int) for w in workers)
            or not all(1 <= w <= MAX_WORKERS for w in workers)
            or any(a >= b for a, b in itertools.pairwise(workers))
        ):
            raise bad(
                f"{where}.workers",
                workers,
                f"a list of distinct worker counts from 1 to {MAX_WORKERS}, in increasing "
                "order, at least one",
            )
    return state


def _write_state(out: Path, state: Mapping[str, Any]) -> None:
    from caylus_env.core.fileio import atomic_write_json

    atomic_write_json(out / STATE_FILE, state)


def references(results_by_count: Sequence[Sequence[Mapping[str, Any]]]) -> list[str]:
    """The reference agent (Elo 0) of each of a game's tournaments: the game's middle agent by
    mean Plackett-Luce strength over its tournaments (each fit centred on its agents' mean;
    ties: by name), the same for every tournament when one agent near the middle played in
    all of them (the nearest to the middle that did), else each tournament's nearest one.

    ``random`` never beats the scripted bots, so every rating relative to it would be a
    one-sided bound; an agent from the middle of the ladder wins and loses against the
    others, so most ratings get a two-sided interval. One agent per game keeps the player
    counts of its panel comparable.
    """
    from agents.stats import fit_plackett_luce

    strengths: dict[str, list[float]] = {}
    seated = []
    for results in results_by_count:
        theta = fit_plackett_luce(results).theta
        centre = sum(theta.values()) / len(theta)
        for agent, value in theta.items():
            strengths.setdefault(agent, []).append(value - centre)
        seated.append(set(theta))
    mean = {a: sum(v) / len(v) for a, v in strengths.items()}
    order = sorted(mean, key=lambda a: (-mean[a], a))
    middle = len(order) // 2
    near = sorted(order, key=lambda a: (abs(order.index(a) - middle), order.index(a)))
    everywhere = [a for a in near if all(a in agents for agents in seated)]
    if everywhere:
        return [everywhere[0]] * len(seated)
    return [next(a for a in near if a in agents) for agents in seated]


def run_ladder(
    plan: LadderPlan,
    *,
    page: str | os.PathLike[str] = DEFAULT_PAGE,
    plot: str | os.PathLike[str] = DEFAULT_PLOT,
    command: str,
    console: Console | None = None,
    progress: bool = True,
    n_boot: int = DEFAULT_BOOTSTRAP,
) -> list[TournamentOutcome]:
    """Play (or resume) every tournament of ``plan``, write each one's reports relative to its
    game's `references`, then the page and the plot.

    Args:
        plan: From `plan_ladder`.
        page: The Markdown page.
        plot: The PNG plot (the page links it by its path relative to the page).
        command: The command line that reproduces the page, shown on it.
        console: Where progress goes (stdout by default).
        progress: Show each tournament's progress bar.
        n_boot: Block-bootstrap resamples of each tournament's rating intervals.

    Returns:
        Each tournament's outcome, in the plan's order.
    """
    from rich.console import Console

    from agents.progress import console as default_console
    from agents.tournament.reports import write_reports
    from agents.tournament.runner import TournamentError, run_tournament

    check_outputs(page, plot)
    console = console or default_console()
    state = {**plan.state, "tournaments": dict(plan.state["tournaments"])}
    timings = state["tournaments"]
    played: dict[str, tuple[list[dict[str, Any]], int]] = {}
    for entry in plan.entries:
        console.print(f"[bold]{entry.name}[/bold]: {', '.join(entry.spec.agents)}")
        record = timings.get(entry.name) if entry.prepared.resumes else None
        record = dict(record or {"play_s": 0.0, "workers": []})
        start = time.perf_counter()
        result = None
        refused = False
        try:
            result = run_tournament(
                entry.prepared, progress=progress, console=console, report=False
            )
        except TournamentError:
            # Refused before any game (its directory locked or changed since the plan): it
            # played nothing, so its timings are not touched.
            refused = True
            raise
        finally:
            # A call that found every game played adds nothing: the page times the games.
            if not refused and (result is None or result.played or entry.name not in timings):
                record["play_s"] = float(record["play_s"]) + time.perf_counter() - start
                record["workers"] = sorted({*record["workers"], plan.workers})
            if not refused and timings.get(entry.name) != record:
                timings[entry.name] = record
                plan.out.mkdir(parents=True, exist_ok=True)
                _write_state(plan.out, state)
        played[entry.name] = (result.results, result.played)
    outcomes = []
    quiet = Console(quiet=True)
    for g in plan.rosters:
        entries = [e for e in plan.entries if e.game == g]
        chosen = references([played[e.name][0] for e in entries])
        for entry, reference in zip(entries, chosen, strict=True):
            results, count = played[entry.name]
            start = time.perf_counter()
            summary = write_reports(
                results, entry.prepared.out_dir, entry.prepared.info, quiet, n_boot, reference
            )
            record = timings[entry.name]
            outcomes.append(
                TournamentOutcome(
                    entry,
                    summary,
                    float(record["play_s"]) + time.perf_counter() - start,
                    list(record["workers"]),
                    count,
                )
            )
            console.print(f"wrote the reports of {entry.name} in {entry.prepared.out_dir}")
    write_plot(outcomes, plot)
    write_page(outcomes, plan, page=page, plot=plot, command=command, n_boot=n_boot)
    console.print(f"wrote {page} and {plot}")
    return outcomes


# --------------------------------------------------------------------------------------------------
# The page
# --------------------------------------------------------------------------------------------------


def _minutes(seconds: float) -> str:
    return f"{seconds / 60:.1f} min" if seconds >= 60 else f"{seconds:.0f} s"


def tournament_command(entry: Entry, reference: str, n_boot: int) -> str:
    """The ``caylus tournament`` command that plays (or, once played, reports again) the same
    games in the same directory as the ladder did."""
    limit = entry.spec.move_time_limit
    args = [
        PROGRAM,
        "tournament",
        "--game",
        entry.game,
        "--agents",
        ",".join(entry.spec.agents),
        "--players",
        str(entry.players),
        "--games",
        str(entry.spec.games),
        "--seed",
        str(entry.spec.seed),
        "--move-time-limit",
        f"{0 if limit is None else limit:g}",
        "--bootstrap",
        str(n_boot),
        "--reference",
        reference,
        "--out",
        str(entry.prepared.out_dir),
    ]
    return shlex.join(args)


def _agent_table(summary: Mapping[str, Any], roster_agents: Sequence[str]) -> list[str]:
    """The ladder table of one tournament: the harness's rating cells (``report.md``'s), the
    win rate with its Wilson interval, the mean rank and the games; an agent of the roster
    that no game seated (fewer games than the tables of one cycle) gets a row saying so."""
    from agents.stats.report import _fmt, _fmt_ci, _md_table, _rating_rows

    agents = summary["agents"]
    rows = []
    for rank, agent, elo, ci, vs_next, games, _ in _rating_rows(summary):
        a = agents[agent]
        win = f"{_fmt(a['win_rate'])} {_fmt_ci(a['win_ci'])}"
        rows.append([rank, f"`{agent}`", elo, ci, vs_next, win, _fmt(a["mean_rank"], 2), games])
    for agent in roster_agents:
        if agent not in agents:
            unseated = "not seated: too few games for every agent to play"
            rows.append(["—", f"`{agent}`", "—", unseated, "—", "—", "—", "0"])
    header = [
        "#",
        "Agent",
        "Elo",
        "95% CI",
        "vs next [95% CI]",
        "Win rate [Wilson 95% CI]",
        "Mean rank",
        "Games",
    ]
    return _md_table(header, rows)


def render_page(
    outcomes: Sequence[TournamentOutcome],
    plan: LadderPlan,
    *,
    plot_link: str,
    command: str,
    n_boot: int,
    when: datetime,
) -> str:
    """The ladder page as Markdown (`write_page` writes it)."""
    from agents.stats.report import _separation_lines

    total = sum(o.wall_s for o in outcomes)
    cpus = os.cpu_count() or 1
    lines = [
        "# Ladder",
        "",
        "<!-- Written by caylus ladder: edit the command, not this page. -->",
        "",
        "Every built-in agent of every game, rated in one seat-balanced tournament per game and "
        "player count ([Tournaments](tournaments.md#the-ladder)): `random`, each game's scripted "
        "bots and shipped checkpoints, and its searches at the same simulation budget, as the "
        "agent registry lists them (`caylus agents --game NAME`). This page and its plot come "
        "from one command:",
        "",
        "```bash",
        command,
        "```",
        "",
        f"- Written {when.strftime('%Y-%m-%d %H:%M')} UTC on a machine with {cpus} CPU"
        f"{'s' if cpus != 1 else ''} ({platform.machine() or 'unknown'}, Python "
        f"{platform.python_version()}), {plan.workers} worker"
        f"{'s' if plan.workers != 1 else ''}; total wall time {_minutes(total)}.",
        f"- {plan.games} games per tournament, rounded up to whole blocks (every seed is played "
        "in every seat rotation of its table); master seed "
        f"{plan.seed}; search heads at {plan.sims} simulation{'s' if plan.sims != 1 else ''} "
        "per move (`--sims`); "
        + (
            "no move time limit."
            if plan.move_time_limit is None
            else f"{plan.move_time_limit:g} s per move before a forfeit."
        ),
        f"- Budget: the defaults are `--games {DEFAULT_GAMES} --sims {DEFAULT_SIMS}`"
        + (" (this page's)" if (plan.games, plan.sims) == (DEFAULT_GAMES, DEFAULT_SIMS) else "")
        + ": the whole ladder in about 30 to 40 minutes with 2 workers on 2 cores, most of it "
        "Caylus's `mcts` ([the costs](tournaments.md#the-ladder)).",
        "- Elo: the harness's Plackett-Luce rating with one effect per (player count, seat), "
        "relative to one reference agent per game (Elo 0): the middle agent of that game's "
        "ladder, so that most ratings get a two-sided interval. 95% CI: "
        + (
            f"percentile interval over {n_boot} block-bootstrap resamples (blocks: the seat "
            "rotations of one seed); > X and < X are one-sided bounds where two agents never "
            "met on equal terms (one never finished behind the other)."
            if n_boot
            else "none (no bootstrap resamples were asked for)."
        ),
        "- Win rate: the share of games won (a shared first place counts as a win), with its "
        "Wilson 95% interval; mean rank: 1 is first.",
        "- Each tournament's directory holds its games (`games.jsonl`, replayable) and its "
        "full report (`report.md`, `report.html`: seats, head-to-head, forfeits).",
        "",
        f"![Ratings per game and player count]({plot_link})",
        "",
    ]
    for g, roster_ in plan.rosters.items():
        spec = game_spec(g)
        lines += [f"## {spec.title}", ""]
        lines += ["Rated: " + ", ".join(f"`{a}`" for a in roster_.agents) + ".", ""]
        notes = [f"- Not rated: `{spec_text}`: {reason}" for spec_text, reason in roster_.skipped]
        notes += [f"- `{syntax}`: {_LEFT_OUT}." for syntax in roster_.left_out]
        lines += [*notes, ""] if notes else []
        for o in (o for o in outcomes if o.entry.game == g):
            s = o.summary
            reference = s["ratings"]["reference"]
            forfeits = s["run"].get("forfeited_games", 0)
            workers = " and ".join(map(str, o.workers))
            plural = "s" if o.workers != [1] else ""
            lines += [
                f"### {spec.title}, {o.entry.players} players",
                "",
                f"{s['n_games']} games in {s['n_blocks']} blocks, reference `{reference}`, "
                f"{forfeits} forfeited; wall time {_minutes(o.wall_s)} with {workers} "
                f"worker{plural}; directory `{o.entry.prepared.out_dir}`.",
                "",
                *_agent_table(s, roster_.agents),
            ]
            for line in _separation_lines(s):
                lines += [line, ""]
            lines += [
                "The same games as one tournament:",
                "",
                "```bash",
                tournament_command(o.entry, reference, n_boot),
                "```",
                "",
            ]
    return "\n".join(lines).rstrip("\n") + "\n"


def write_page(
    outcomes: Sequence[TournamentOutcome],
    plan: LadderPlan,
    *,
    page: str | os.PathLike[str],
    plot: str | os.PathLike[str],
    command: str,
    n_boot: int,
) -> None:
    """Write `render_page` to ``page`` atomically, linking ``plot`` relative to it."""
    from caylus_env.core.fileio import atomic_write_text

    link = Path(os.path.relpath(Path(plot).resolve(), Path(page).resolve().parent)).as_posix()
    text = render_page(
        outcomes,
        plan,
        plot_link=link,
        command=command,
        n_boot=n_boot,
        when=datetime.now(timezone.utc),
    )
    atomic_write_text(page, text)


# --------------------------------------------------------------------------------------------------
# The plot
# --------------------------------------------------------------------------------------------------


def ladder_figure(outcomes: Sequence[TournamentOutcome]) -> Any:
    """One panel per game: each agent's Elo relative to its game's reference, one marker per
    player count with its 95% interval; a one-sided bound (never behind, never ahead) is a
    triangle at the bound pointing where the rating lies; an n/a interval an open marker."""
    from matplotlib.figure import Figure

    games = list(dict.fromkeys(o.entry.game for o in outcomes))
    fig = Figure(figsize=(9.0, 3.2 * len(games) + 0.6), layout="constrained")
    axes = fig.subplots(len(games), 1, squeeze=False)[:, 0]
    counts = sorted({o.entry.players for o in outcomes})
    colors = {n: f"C{i}" for i, n in enumerate(counts)}
    for ax, g in zip(axes, games, strict=True):
        mine = [o for o in outcomes if o.entry.game == g]
        refs = {o.summary["ratings"]["reference"] for o in mine}
        reference = refs.pop() if len(refs) == 1 else "each count's reference"
        agents = _panel_order(mine)
        width = 0.7 / max(len(mine), 1)
        for k, o in enumerate(mine):
            dx = (k - (len(mine) - 1) / 2) * width
            color = colors[o.entry.players]
            ratings = o.summary["ratings"]["agents"]
            for x, agent in enumerate(agents):
                if agent in ratings:  # else no game of this count seated it
                    _draw_rating(ax, x + dx, ratings[agent], color)
            ax.plot([], [], "o", color=color, linestyle="none", label=f"{o.entry.players} players")
        for marker, label in _MARKERS:
            fill = "grey" if marker == "D" else "white"
            ax.plot([], [], marker, color="grey", mfc=fill, linestyle="none", label=label)
        ax.axhline(0.0, color="grey", linestyle="--", linewidth=1)
        ax.set_xticks(range(len(agents)), agents, rotation=20, ha="right")
        ax.set_xlim(-0.5, len(agents) - 0.5)
        ax.set_ylabel(f"Elo vs {reference}")
        ax.set_title(f"{game_spec(g).title}: rating with 95% interval per player count")
        ax.grid(axis="y", alpha=0.3)
        ax.legend(fontsize=7, loc="center left", bbox_to_anchor=(1.01, 0.5))
    return fig


#: The legend's key to the markers that are not a rating with its interval (`_draw_rating`).
_MARKERS = (
    ("D", "reference (Elo 0)"),
    ("^", "lower bound (never behind)"),
    ("v", "upper bound (never ahead)"),
    ("o", "no interval (too few games)"),
)


def _panel_order(outcomes: Sequence[TournamentOutcome]) -> list[str]:
    """A game's agents, best first by their mean Elo over its player counts."""
    totals: dict[str, float] = {}
    for o in outcomes:
        for agent, r in o.summary["ratings"]["agents"].items():
            totals[agent] = totals.get(agent, 0.0) + float(r["elo"])
    return sorted(totals, key=lambda a: (-totals[a], a))


def _draw_rating(ax: Any, x: float, rating: Mapping[str, Any], color: str) -> None:
    """One agent's rating at one player count (a row of ``summary["ratings"]["agents"]``)."""
    contrast = rating.get("vs_reference")
    if contrast is None:  # the reference itself
        ax.plot([x], [0.0], "D", color=color)
    elif contrast["kind"] == "interval":
        lo, hi, elo = contrast["lo"], contrast["hi"], contrast["elo"]
        ax.errorbar([x], [elo], yerr=[[elo - lo], [hi - elo]], fmt="o", capsize=3, color=color)
    elif contrast["kind"] == "lower":
        ax.plot([x], [contrast["lo"]], "^", color=color, mfc="white")
    elif contrast["kind"] == "upper":
        ax.plot([x], [contrast["hi"]], "v", color=color, mfc="white")
    else:
        ax.plot([x], [contrast["elo"]], "o", color=color, mfc="white")


def write_plot(outcomes: Sequence[TournamentOutcome], path: str | os.PathLike[str]) -> None:
    """Save `ladder_figure` as a PNG atomically; the same summaries give the same bytes (Agg,
    no date in the file)."""
    from matplotlib.backends.backend_agg import FigureCanvasAgg

    from caylus_env.core.fileio import atomic_write_bytes

    fig = ladder_figure(outcomes)
    FigureCanvasAgg(fig)
    buffer = io.BytesIO()
    fig.savefig(buffer, format="png", dpi=PLOT_DPI, metadata={"Software": None})
    atomic_write_bytes(path, buffer.getvalue())


__all__ = [
    "DEFAULT_BOOTSTRAP",
    "DEFAULT_GAMES",
    "DEFAULT_OUT",
    "DEFAULT_PAGE",
    "DEFAULT_PLOT",
    "DEFAULT_SEED",
    "DEFAULT_SIMS",
    "MAX_PLAY_S",
    "MAX_STATE_BYTES",
    "STATE_FILE",
    "STATE_KEYS",
    "TIMING_KEYS",
    "Entry",
    "LadderError",
    "LadderPlan",
    "Roster",
    "TournamentOutcome",
    "check_outputs",
    "check_state",
    "ladder_figure",
    "parse_games",
    "parse_players",
    "plan_ladder",
    "references",
    "render_page",
    "roster",
    "run_ladder",
    "tournament_command",
    "tournament_name",
    "write_page",
    "write_plot",
]
