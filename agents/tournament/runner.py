"""Run tournaments: schedule, parallel workers, a crash-safe ledger, reports.

The driver owns the run directory (design doc (d), "the driver owns the ledger"):

- ``run.json``: the arguments that determine the games (agents, players, games, seed, seating,
  move time limit, game options, plugins, engine version) and the hash of the schedule they
  produce, written atomically (temporary file + ``os.replace``). Starting again with the same
  arguments resumes; different arguments are refused, naming the fields, before anything is
  touched.
- ``games.jsonl``: one complete, replayable game record per line, appended as soon as a
  worker returns it (written, flushed and fsynced once per returned chunk). On resume, games
  already there are skipped by ``game_id``; a torn last line left by a kill is dropped (the file
  is rewritten atomically without it) and the game is simply played again, which reproduces it
  exactly because every game is a pure function of its scheduled job.
- ``summary.json``, ``report.md``, ``ratings.png``, ``head_to_head.png``: the statistics of
  ``agents.stats``, recomputed from all records whenever a run finishes (also when a resumed run
  finds nothing left to play).

An exclusive ``flock`` on the directory keeps two drivers from writing the same ledger.

Work is cut into chunks of games sized to about `TARGET_CHUNK_SECONDS` of play each (one game
per task would spend more time on inter-process messages than on random agents' games) and run
by a backend: ``local`` (a ``ProcessPoolExecutor`` over spawned workers with native thread pools
pinned to one thread), ``ray`` (``ray.remote`` tasks on a local instance or a cluster; ray is an
optional dependency imported only here), or any ``concurrent.futures.Executor`` passed in (a Dask
client's ``get_executor()``, for instance). Results are consumed as they complete.
"""

from __future__ import annotations

import concurrent.futures as cf
import contextlib
import importlib.util
import json
import math
import multiprocessing.context
import os
from collections import deque
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from rich.console import Console
from rich.progress import (
    BarColumn,
    MofNCompleteColumn,
    Progress,
    ProgressColumn,
    Task,
    TextColumn,
    TimeElapsedColumn,
    TimeRemainingColumn,
)
from rich.text import Text

from agents.registry import make_agent
from agents.tournament.arena import (
    DEFAULT_MOVE_TIME_LIMIT,
    init_worker,
    load_plugins,
    play_chunk,
    result_of,
    single_thread_env,
)
from agents.tournament.schedule import (
    GameJob,
    Schedule,
    ScheduleError,
    build_schedule,
)
from caylus_env.engine import GameConfig
from caylus_env.fileio import atomic_write_bytes, atomic_write_json

try:
    import fcntl
except ImportError:  # not POSIX: runs work, but two drivers on one directory are not detected
    fcntl = None  # type: ignore[assignment]

RUN_FORMAT = "caylus-tournament-run/1"
GAMES_FILE = "games.jsonl"
RUN_FILE = "run.json"
SUMMARY_FILE = "summary.json"
REPORT_FILE = "report.md"
RATINGS_PLOT = "ratings.png"
HEAD_TO_HEAD_PLOT = "head_to_head.png"
DUEL_FILE = "duel.json"
BACKENDS = ("local", "ray")

TARGET_CHUNK_SECONDS = 0.25
"""Work per task: long enough that messaging costs little, short enough that a kill loses
little and the progress bar moves."""
MAX_CHUNK = 256
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

    def __init__(self, path: Path, differences: dict[str, tuple[Any, Any]]) -> None:
        self.differences = differences
        parts = "; ".join(
            f"{name}: run.json has {json.dumps(old)}, now {json.dumps(new)}"
            for name, (old, new) in differences.items()
        )
        super().__init__(
            "out",
            f"{path} holds a run started with different arguments ({parts}); "
            "repeat the original arguments to resume it, or choose another output directory",
        )


# --------------------------------------------------------------------------------------------------
# Specs: the arguments that determine the games
# --------------------------------------------------------------------------------------------------


def normal_game_options(players: int, options: Mapping[str, Any] | None) -> dict[str, Any]:
    """All game options with defaults filled in, so ``{}`` and explicit defaults compare equal."""
    options = dict(options or {})
    if "num_players" in options:
        raise TournamentError("game_options", "give the player count as players, not an option")
    try:
        config = GameConfig.from_dict({**options, "num_players": players})
    except (TypeError, ValueError) as err:
        raise TournamentError("game_options", f"bad game options: {err}") from None
    out = config.to_dict()
    del out["num_players"]
    return out


def check_time_limit(value: Any) -> float | None:
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not value >= 0:
        raise TournamentError(
            "move_time_limit", f"move_time_limit must be a number >= 0, got {value!r}"
        )
    return float(value) or None


def check_agents_exist(specs: Sequence[str], plugins: Sequence[str]) -> None:
    """Create each agent once in the driver, so a typo fails here and not in every worker."""
    try:
        load_plugins(plugins)
    except ImportError as err:
        raise TournamentError("plugins", f"cannot import agent plugin: {err}") from None
    for spec in specs:
        try:
            make_agent(spec)
        except ValueError as err:
            raise TournamentError("agents", str(err)) from None


@dataclass(frozen=True)
class TournamentSpec:
    """Everything that determines a tournament's games (not how fast they are played).

    Attributes:
        agents: Distinct agent specs (``agents.registry.make_agent``).
        players: Seats per table, 2 to 5.
        games: Games wanted; rounded up to whole blocks.
        seed: Master seed.
        seating: ``"rotations"`` or ``"permutations"`` (see ``schedule``).
        move_time_limit: Seconds per ``act`` call before a forfeit; None disables it.
        game_options: `GameConfig` options other than the player count.
        plugins: Modules imported in the driver and every worker to register more agents.
    """

    agents: tuple[str, ...]
    players: int
    games: int
    seed: int = 0
    seating: str = "rotations"
    move_time_limit: float | None = DEFAULT_MOVE_TIME_LIMIT
    game_options: Mapping[str, Any] = field(default_factory=dict)
    plugins: tuple[str, ...] = ()

    def build(self) -> tuple[Schedule, dict[str, Any]]:
        """Validate everything and return the schedule and the ``run.json`` content.

        Raises:
            TournamentError: naming the offending argument.
        """
        try:
            schedule = build_schedule(
                list(self.agents), self.players, self.games, self.seed, self.seating
            )
        except ScheduleError as err:
            raise TournamentError(err.field, str(err)) from None
        limit = check_time_limit(self.move_time_limit)
        options = normal_game_options(schedule.players, self.game_options)
        plugins = tuple(self.plugins)
        check_agents_exist(schedule.agents, plugins)
        info = {
            "format": RUN_FORMAT,
            "kind": "tournament",
            "agents": list(schedule.agents),
            "players": schedule.players,
            "games": schedule.requested_games,
            "seed": schedule.master_seed,
            "seating": schedule.seating,
            "move_time_limit": limit,
            "game_options": options,
            "plugins": list(plugins),
            "engine": engine_version(),
            "scheduled_games": schedule.games,
            "blocks": schedule.blocks,
            "cycle_blocks": schedule.cycle_blocks,
            "schedule_hash": schedule.hash(),
        }
        return schedule, info


def engine_version() -> str:
    from caylus_env import __version__

    return __version__


def check_execution(workers: Any, backend: str, executor: cf.Executor | None = None) -> int:
    """Validate how the games are to be run; returns the worker count.

    Raises:
        TournamentError: for a bad worker count, an unknown backend, or ray not installed.
    """
    if workers is None:
        workers = os.cpu_count() or 1
    if isinstance(workers, bool) or not isinstance(workers, int) or workers < 1:
        raise TournamentError("workers", f"workers must be an integer >= 1, got {workers!r}")
    if executor is None:
        if backend not in BACKENDS:
            raise TournamentError(
                "backend", f"backend={backend!r} is not allowed; allowed: {', '.join(BACKENDS)}"
            )
        if backend == "ray" and importlib.util.find_spec("ray") is None:
            raise TournamentError(
                "backend", "backend 'ray' needs ray: pip install 'caylus-env[ray]'"
            )
    return workers


# --------------------------------------------------------------------------------------------------
# The run directory
# --------------------------------------------------------------------------------------------------


def _record_matches_job(record: Mapping[str, Any], job: GameJob) -> bool:
    return (
        record.get("block") == job.block
        and record.get("seed") == job.seed
        and record.get("seats") == list(job.seats)
        and record.get("agent_seeds") == list(job.agent_seeds)
    )


class RunDir:
    """The files of one run: ``run.json``, ``games.jsonl`` and the reports."""

    def __init__(self, path: str | os.PathLike[str]) -> None:
        self.path = Path(path)
        self.run_path = self.path / RUN_FILE
        self.games_path = self.path / GAMES_FILE

    def read_info(self) -> dict[str, Any] | None:
        """The stored ``run.json``, or None for a fresh directory.

        Raises:
            TournamentError: if the directory is unusable (a file, unreadable ``run.json``, or
                games without a ``run.json``).
        """
        if self.path.exists() and not self.path.is_dir():
            raise TournamentError("out", f"{self.path} exists and is not a directory")
        if not self.run_path.exists():
            if self.games_path.exists():
                raise TournamentError(
                    "out",
                    f"{self.path} has a {GAMES_FILE} but no {RUN_FILE}, so its games cannot be "
                    "matched to arguments; choose another output directory",
                )
            return None
        try:
            info = json.loads(self.run_path.read_text(encoding="utf-8"))
        except (OSError, ValueError) as err:
            raise TournamentError("out", f"cannot read {self.run_path}: {err}") from None
        if not isinstance(info, dict) or info.get("format") != RUN_FORMAT:
            raise TournamentError(
                "out", f"{self.run_path} is not a {RUN_FORMAT} file; choose another directory"
            )
        return info

    def check(self, info: Mapping[str, Any]) -> bool:
        """Compare the stored arguments with ``info``; True when a run already exists.

        Raises:
            RunMismatchError: naming every differing argument.
        """
        stored = self.read_info()
        if stored is None:
            return False
        keys = [k for k in info if k not in DERIVED_FIELDS] + [
            k for k in stored if k not in info and k not in DERIVED_FIELDS
        ]
        diff = {k: (stored.get(k), info.get(k)) for k in keys if stored.get(k) != info.get(k)}
        if not diff:
            diff = {
                k: (stored.get(k), info.get(k))
                for k in DERIVED_FIELDS
                if k in info and stored.get(k) != info.get(k)
            }
        if diff:
            raise RunMismatchError(self.path, diff)
        return True

    @contextlib.contextmanager
    def locked(self) -> Iterator[None]:
        """Hold an exclusive lock on the directory (released by the kernel if the process dies).

        Raises:
            TournamentError: if another process holds it.
        """
        self.path.mkdir(parents=True, exist_ok=True)
        if fcntl is None:
            yield
            return
        fd = os.open(self.path, os.O_RDONLY)
        try:
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except BlockingIOError:
                raise TournamentError(
                    "out", f"{self.path} is in use by another running tournament"
                ) from None
            yield
        finally:
            os.close(fd)

    def load_games(
        self,
        jobs: Mapping[int, GameJob],
        keep: Callable[[dict[str, Any]], dict[str, Any]] | None = None,
    ) -> tuple[dict[int, dict[str, Any]], bool]:
        """Read the finished games, dropping a torn last line; returns ``(records, repaired)``.

        ``keep`` maps each checked record to what is returned for it (e.g. `result_of`, so a
        long run's records need not all be held in memory).

        A last line that is unterminated or not valid JSON is what a kill during a write leaves;
        it is removed by rewriting the file atomically (its game is simply played again). Any
        other damage is refused rather than guessed at.

        Raises:
            TournamentError: for a corrupt line before the end, a duplicate game, or a game
                that is not the scheduled one.
        """
        if not self.games_path.exists():
            return {}, False
        data = self.games_path.read_bytes()
        lines = data.split(b"\n")
        body, tail = lines[:-1], lines[-1]
        keep_bytes = len(data) - len(tail)
        records: dict[int, dict[str, Any]] = {}
        torn = bool(tail)
        for i, raw in enumerate(body):
            if not raw.strip():
                continue
            try:
                record = json.loads(raw)
                if not isinstance(record, dict):
                    raise ValueError("not a JSON object")
            except ValueError as err:
                if i == len(body) - 1 and not tail:
                    torn = True
                    keep_bytes -= len(raw) + 1
                    break
                raise TournamentError(
                    "out",
                    f"{self.games_path} line {i + 1} is corrupt ({err}) and is not a torn final "
                    "line; repair or remove the file",
                ) from None
            game_id = record.get("game_id")
            job = jobs.get(game_id) if isinstance(game_id, int) else None
            if job is None or not _record_matches_job(record, job):
                raise TournamentError(
                    "out",
                    f"{self.games_path} line {i + 1} (game_id {game_id!r}) is not a game of the "
                    f"schedule in {RUN_FILE}",
                )
            if game_id in records:
                raise TournamentError(
                    "out", f"{self.games_path} holds game_id {game_id} twice (line {i + 1})"
                )
            records[game_id] = record if keep is None else keep(record)
        if torn:
            atomic_write_bytes(self.games_path, data[:keep_bytes])
        return records, torn

    @contextlib.contextmanager
    def appender(self) -> Iterator[Callable[[Sequence[bytes]], None]]:
        """A function that appends JSON lines (records serialised by the workers), written,
        flushed and fsynced once per call."""
        self.path.mkdir(parents=True, exist_ok=True)
        with open(self.games_path, "ab") as handle:

            def append(lines: Sequence[bytes]) -> None:
                if not lines:
                    return
                handle.write(b"".join(lines))
                handle.flush()
                os.fsync(handle.fileno())

            yield append


# --------------------------------------------------------------------------------------------------
# Backends
# --------------------------------------------------------------------------------------------------


@contextlib.contextmanager
def _environ(values: Mapping[str, str]) -> Iterator[None]:
    saved = {k: os.environ.get(k) for k in values}
    os.environ.update(values)
    try:
        yield
    finally:
        for k, v in saved.items():
            if v is None:
                os.environ.pop(k, None)
            else:
                os.environ[k] = v


class _WorkerProcess(multiprocessing.context.SpawnProcess):
    """A spawned worker that starts with native thread pools pinned to one thread.

    The variables must be in the environment the interpreter starts with, because numpy's BLAS
    reads them when it is first imported (before any initializer runs); the driver's own
    environment is changed only for the instant of the spawn.
    """

    def start(self) -> None:
        with _environ(single_thread_env()):
            super().start()


class _WorkerContext(multiprocessing.context.SpawnContext):
    """Spawn, not fork: the driver may hold threads (progress bar, Ray) that fork would copy
    in an arbitrary state, and spawned workers behave the same on every platform."""

    Process = _WorkerProcess


@dataclass
class _Backend:
    """Where chunks of games run: ``submit(jobs)`` returns a future of their records; ``slots``
    is how many run at once (the driver keeps twice as many in flight); ``close`` abandons
    queued work on errors."""

    submit: Callable[[list[dict[str, Any]]], cf.Future]
    slots: int
    close: Callable[[], None]


@contextlib.contextmanager
def open_backend(
    backend: str,
    workers: int,
    settings: dict[str, Any],
    ray_address: str | None,
    executor: cf.Executor | None,
) -> Iterator[_Backend]:
    """Start the backend for one run and stop it afterwards.

    For Ray, an instance that is already initialised (a notebook, a test, a cluster connection
    made by the caller) is used and left running; otherwise one is started from ``ray_address``
    (or ``RAY_ADDRESS``, or a new local instance with ``workers`` CPUs) and shut down at the end.
    """
    if executor is not None:
        yield _Backend(
            lambda jobs: executor.submit(play_chunk, jobs, settings), workers, lambda: None
        )
        return
    if backend == "local":
        pool = cf.ProcessPoolExecutor(
            max_workers=workers,
            mp_context=_WorkerContext(),
            initializer=init_worker,
            initargs=(tuple(settings["plugins"]),),
        )
        try:
            yield _Backend(
                lambda jobs: pool.submit(play_chunk, jobs, settings),
                workers,
                lambda: pool.shutdown(wait=False, cancel_futures=True),
            )
        finally:
            pool.shutdown(wait=True, cancel_futures=True)
        return
    import ray  # optional dependency: imported only when asked for

    started = False
    if not ray.is_initialized():
        kwargs: dict[str, Any] = {"include_dashboard": False, "log_to_driver": True}
        if ray_address is None and not os.environ.get("RAY_ADDRESS"):
            kwargs["num_cpus"] = workers
        ray.init(address=ray_address, **kwargs)
        started = True
    try:
        remote = ray.remote(num_cpus=1)(play_chunk).options(
            runtime_env={"env_vars": single_thread_env()}
        )
        slots = max(1, int(ray.cluster_resources().get("CPU", workers)))
        yield _Backend(lambda jobs: remote.remote(jobs, settings).future(), slots, lambda: None)
    finally:
        if started:
            ray.shutdown()


class _RateColumn(ProgressColumn):
    """Games per second (rich's built-in speed column formats bytes)."""

    def render(self, task: Task) -> Text:
        speed = task.finished_speed or task.speed
        return Text("" if speed is None else f"{speed:.1f} games/s", style="progress.data.speed")


def progress_bar(console: Console, enabled: bool) -> Progress:
    """A progress bar with games done, games per second, time spent and time left."""
    return Progress(
        TextColumn("[progress.description]{task.description}"),
        BarColumn(),
        MofNCompleteColumn(),
        _RateColumn(),
        TimeElapsedColumn(),
        TextColumn("left"),
        TimeRemainingColumn(),
        console=console,
        disable=not enabled,
    )


def run_chunks(
    backend: _Backend,
    jobs: Sequence[GameJob],
    on_records: Callable[[list[tuple[bytes, dict[str, Any]]]], bool],
) -> None:
    """Play ``jobs`` (in order of submission) and pass each returned chunk, a list of
    ``(json line, result)`` pairs from `play_chunk`, to ``on_records``, which returns True to
    stop early (pending work is then abandoned)."""
    pending = deque(job.to_dict() for job in jobs)
    in_flight: set[cf.Future] = set()
    per_game: float | None = None  # moving average of the seconds per game in the workers
    try:
        while pending or in_flight:
            while pending and len(in_flight) < 2 * backend.slots:
                if per_game is not None:
                    size = int(TARGET_CHUNK_SECONDS / max(per_game, 1e-6))
                else:
                    size = 1
                # Leave work for every slot at the end of the run.
                size = max(1, min(size, MAX_CHUNK, math.ceil(len(pending) / backend.slots)))
                chunk = [pending.popleft() for _ in range(min(size, len(pending)))]
                in_flight.add(backend.submit(chunk))
            done, in_flight = cf.wait(in_flight, return_when=cf.FIRST_COMPLETED)
            for future in done:
                chunk = future.result()
                if chunk:
                    # A moving average forgets the first games' one-off costs (JIT, caches).
                    mean = sum(float(r.get("wall_time_s", 0.0)) for _, r in chunk) / len(chunk)
                    per_game = mean if per_game is None else 0.5 * per_game + 0.5 * mean
                if on_records(chunk):
                    for f in in_flight:
                        f.cancel()
                    return
    except BaseException:
        for f in in_flight:
            f.cancel()
        backend.close()
        raise


# --------------------------------------------------------------------------------------------------
# Tournaments
# --------------------------------------------------------------------------------------------------


def read_records(path: str | os.PathLike[str]) -> list[dict[str, Any]]:
    """Every complete record of a ``games.jsonl``, ordered by ``game_id``."""
    out = []
    with open(path, "rb") as handle:
        for line in handle:
            if line.endswith(b"\n") and line.strip():
                out.append(json.loads(line))
    return sorted(out, key=lambda r: r["game_id"])


@dataclass
class TournamentResult:
    """What a tournament run produced.

    Attributes:
        schedule: The full schedule.
        results: The ``arena.RESULT_FIELDS`` of every game of the run, ordered by ``game_id``.
        played: Games played by this call (the others were resumed from ``games.jsonl``).
        repaired: Whether a torn last line of ``games.jsonl`` was dropped.
        summary: The ``agents.stats`` summary (None when reports were disabled).
        out_dir: The run directory.
    """

    schedule: Schedule
    results: list[dict[str, Any]]
    played: int
    repaired: bool
    summary: dict[str, Any] | None
    out_dir: Path

    def records(self) -> list[dict[str, Any]]:
        """The complete game records, read from ``games.jsonl``, ordered by ``game_id``."""
        return read_records(self.out_dir / GAMES_FILE)


def prepare_tournament(
    spec: TournamentSpec,
    out_dir: str | os.PathLike[str],
    *,
    workers: int | None = None,
    backend: str = "local",
    executor: cf.Executor | None = None,
) -> tuple[Schedule, dict[str, Any], int]:
    """Check every argument and the output directory without touching any file.

    Returns:
        ``(schedule, run_info, workers)``.

    Raises:
        TournamentError: naming the bad argument (``RunMismatchError`` for a directory started
            with different arguments).
    """
    schedule, info = spec.build()
    workers = check_execution(workers, backend, executor)
    RunDir(out_dir).check(info)
    return schedule, info, workers


def run_tournament(
    spec: TournamentSpec,
    out_dir: str | os.PathLike[str],
    *,
    workers: int | None = None,
    backend: str = "local",
    ray_address: str | None = None,
    executor: cf.Executor | None = None,
    progress: bool = True,
    console: Console | None = None,
    n_boot: int = 200,
    report: bool = True,
) -> TournamentResult:
    """Play (or resume) a tournament into ``out_dir`` and write its reports.

    Args:
        spec: The arguments that determine the games.
        out_dir: Run directory (created if needed).
        workers: Parallel games; defaults to the machine's cores (for Ray: the local instance's
            CPUs; a cluster's CPUs bound the tasks in flight).
        backend: ``"local"`` or ``"ray"``; ignored when ``executor`` is given.
        ray_address: Ray cluster address (``"auto"``, ``"HOST:PORT"``); None starts a local
            instance unless ``RAY_ADDRESS`` is set or Ray is already initialised.
        executor: Any ``concurrent.futures.Executor`` to run the games on instead.
        progress: Show a progress bar.
        console: Where to print (stdout by default).
        n_boot: Block-bootstrap resamples of the rating fit.
        report: Compute and write the statistics and reports.

    Raises:
        TournamentError: for bad arguments or an unusable directory, before any work.
    """
    console = console or Console()
    schedule, info, workers = prepare_tournament(
        spec, out_dir, workers=workers, backend=backend, executor=executor
    )
    run_dir = RunDir(out_dir)
    jobs = {job.game_id: job for job in schedule.jobs}
    with run_dir.locked():
        if not run_dir.check(info):
            atomic_write_json(run_dir.run_path, info)
        results, repaired = run_dir.load_games(jobs, keep=result_of)
        console.print(schedule.describe())
        if repaired:
            console.print(f"dropped a torn last line of {run_dir.games_path} (killed run)")
        if results:
            console.print(f"resuming: {len(results)} of {schedule.games} games already played")
        todo = [job for job in schedule.jobs if job.game_id not in results]
        settings = {
            "num_players": schedule.players,
            "game_options": info["game_options"],
            "move_time_limit": info["move_time_limit"],
            "plugins": info["plugins"],
        }
        if todo:
            with (
                run_dir.appender() as append,
                progress_bar(console, progress) as bar,
                open_backend(backend, workers, settings, ray_address, executor) as runner,
            ):
                task = bar.add_task("games", total=schedule.games, completed=len(results))

                def on_records(chunk: list[tuple[bytes, dict[str, Any]]]) -> bool:
                    append([line for line, _ in chunk])
                    for _, r in chunk:
                        results[r["game_id"]] = r
                    bar.advance(task, len(chunk))
                    return False

                run_chunks(runner, todo, on_records)
        ordered = [results[i] for i in sorted(results)]
        summary = write_reports(ordered, run_dir.path, info, console, n_boot) if report else None
    return TournamentResult(schedule, ordered, len(todo), repaired, summary, run_dir.path)


def write_reports(
    records: Sequence[Mapping[str, Any]],
    out_dir: Path,
    info: Mapping[str, Any],
    console: Console,
    n_boot: int = 200,
) -> dict[str, Any]:
    """Compute the statistics of ``agents.stats``, print them, and write the report files."""
    from agents import stats

    agents = list(info["agents"])
    reference = "random" if "random" in agents else None
    summary = stats.build_summary(
        records, n_boot=n_boot, seed=int(info["seed"]), reference=reference
    )
    summary["run"] = dict(info)
    forfeits = sum(1 for r in records if r.get("end") == "forfeit")
    summary["run"]["forfeited_games"] = forfeits
    stats.write_summary_json(summary, out_dir / SUMMARY_FILE)
    stats.write_markdown_report(summary, out_dir / REPORT_FILE)
    stats.plot_ratings(summary, out_dir / RATINGS_PLOT)
    stats.plot_head_to_head(summary, out_dir / HEAD_TO_HEAD_PLOT)
    stats.print_summary(summary, console)
    if forfeits:
        console.print(f"{forfeits} game(s) ended by a forfeit; reasons are in {GAMES_FILE}")
    console.print(
        f"wrote {SUMMARY_FILE}, {REPORT_FILE}, {RATINGS_PLOT} and {HEAD_TO_HEAD_PLOT} in {out_dir}"
    )
    return summary


__all__ = [
    "BACKENDS",
    "RunDir",
    "RunMismatchError",
    "TournamentError",
    "TournamentResult",
    "TournamentSpec",
    "check_execution",
    "prepare_tournament",
    "read_records",
    "run_tournament",
    "write_reports",
]
