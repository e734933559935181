"""Run tournaments: a prepared spec, a resumable run directory, a backend, reports.

The pieces live in their own modules, and the duel uses the same ones:

- ``specs``: the arguments, validated once (`prepare_tournament` returns a ``PreparedRun``);
- ``rundir``: ``run.json`` and the ``games.jsonl`` ledger (``caylus_env.core.ledger``): resume, torn
  line repair, extension to more games, forfeited games replaced in place;
- ``backends``: local processes, Ray or any executor, and the compile warm-up;
- ``chunks``: games cut into chunks that keep a backend busy;
- ``reports``: the progress bar and the statistics reports.
"""

from __future__ import annotations

import concurrent.futures as cf
import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from rich.console import Console

from agents.progress import console as default_console
from agents.tournament.backends import open_backend, prewarm
from agents.tournament.chunks import run_chunks
from agents.tournament.reports import progress_bar, report_reference, write_reports
from agents.tournament.rundir import GAMES_FILE, RunDir, read_records
from agents.tournament.schedule import Schedule
from agents.tournament.specs import (
    BACKENDS,
    PreparedRun,
    RunMismatchError,
    TournamentError,
    TournamentSpec,
    check_execution,
    check_game,
    check_out_dir,
    worker_settings,
)
from caylus_env.core.registry import DEFAULT_GAME, game_of


@dataclass
class TournamentResult:
    """What a tournament run produced.

    Attributes:
        schedule: The full schedule.
        results: The ``arena.RESULT_FIELDS`` of every game of the run, ordered by ``game_id``.
        played: Games played by this call (the others were resumed from ``games.jsonl``).
        replayed: Forfeited games played again by this call (``replay_forfeits``).
        repaired: Whether a torn last line of ``games.jsonl`` was dropped.
        summary: The ``agents.stats`` summary (None when reports were disabled).
        out_dir: The run directory.
        game: The game played (``caylus_env.core.registry``).
    """

    schedule: Schedule
    results: list[dict[str, Any]]
    played: int
    repaired: bool
    summary: dict[str, Any] | None
    out_dir: Path
    replayed: int = 0
    game: str = DEFAULT_GAME

    def records(self) -> list[Any]:
        """The complete game records (of the game's engine), read from ``games.jsonl``,
        ordered by ``game_id``."""
        return read_records(self.out_dir / GAMES_FILE, self.game)


def prepare_tournament(
    spec: TournamentSpec,
    out_dir: str | os.PathLike[str],
    *,
    workers: int | None = None,
    backend: str = "local",
    executor: cf.Executor | None = None,
) -> PreparedRun:
    """Check every argument and the output directory without touching any file.

    Raises:
        TournamentError: naming the bad argument (``RunMismatchError`` for a directory started
            with different arguments, other than more games).
    """
    check_out_dir(out_dir)
    RunDir(out_dir, check_game(spec.game)).check_game(spec.game)
    schedule, info = spec.build()
    workers = check_execution(workers, backend, executor)
    resumes, extends = RunDir(out_dir, game_of(info)).extends(info, schedule)
    return PreparedRun(
        schedule=schedule,
        info=info,
        settings=worker_settings(info, schedule.players),
        workers=workers,
        backend=backend,
        executor=executor,
        out_dir=Path(out_dir),
        resumes=resumes,
        extends=extends,
    )


def verify_games(run: PreparedRun) -> int:
    """Check every finished game of a prepared run's ledger as resuming it would
    (``RunDir.load_games``: the scheduled games, the run's engine and options, an exact
    replay), changing no file: a torn last line is left for the run to drop. A caller that
    prepares several runs (``caylus ladder``) refuses a damaged one before any is played.

    Returns:
        The number of games already played.

    Raises:
        TournamentError: (field ``out``) naming the line refused, as resuming would.
    """
    if not run.resumes:
        return 0
    jobs = {job.game_id: job for job in run.schedule.jobs}
    done, _ = RunDir(run.out_dir, game_of(run.info)).load_games(jobs, run.info, repair=False)
    return len(done)


def run_tournament(
    spec: TournamentSpec | PreparedRun,
    out_dir: str | os.PathLike[str] | None = None,
    *,
    workers: int | None = None,
    backend: str = "local",
    ray_address: str | None = None,
    executor: cf.Executor | None = None,
    progress: bool = True,
    console: Console | None = None,
    n_boot: int = 200,
    report: bool = True,
    replay_forfeits: bool = False,
    reference: str | None = None,
) -> TournamentResult:
    """Play (or resume, or extend) a tournament into ``out_dir`` and write its reports.

    Args:
        spec: The arguments that determine the games, or a run already prepared by
            `prepare_tournament` (then ``out_dir``, ``workers``, ``backend`` and ``executor``
            come from it and are not validated again).
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
        replay_forfeits: Play the games that ended by a forfeit again and replace their
            records in ``games.jsonl`` (one record per game id; the reports use the new ones).
        reference: The agent every rating of the reports is relative to (Elo 0), tables and
            plot alike; None: the run's first agent (``reports.report_reference``).

    Raises:
        TournamentError: for bad arguments or an unusable directory, before any work.
    """
    console = console or default_console()
    if isinstance(spec, PreparedRun):
        run = spec
    else:
        if out_dir is None:
            raise TournamentError("out", "a tournament needs an output directory")
        run = prepare_tournament(spec, out_dir, workers=workers, backend=backend, executor=executor)
    schedule, info = run.schedule, run.info
    try:  # before any work: an agent the run does not have is refused here
        report_reference(info, reference)
    except ValueError as err:
        raise TournamentError("reference", str(err)) from None
    run_dir = RunDir(run.out_dir, game_of(info))
    jobs = {job.game_id: job for job in schedule.jobs}
    replaced: dict[int, bytes] = {}
    with run_dir.locked():
        resumes, extends = run_dir.extends(info, schedule)  # under the lock this time
        done, repaired = run_dir.load_games(jobs, info)  # a refused line leaves run.json as is
        if not resumes or extends is not None:
            run_dir.write_info(info)
        results = {gid: result for gid, (_, result) in done.items()}
        console.print(schedule.describe())
        if repaired:
            console.print(f"dropped a torn last line of {run_dir.games_path} (killed run)")
        if extends is not None:
            console.print(
                f"extending the run from {extends['games']} to {info['games']} games requested"
            )
        if results:
            console.print(f"resuming: {len(results)} of {schedule.games} games already played")
        redo = {gid for gid, r in results.items() if replay_forfeits and r["end"] == "forfeit"}
        if redo:
            console.print(f"replaying {len(redo)} forfeited game(s)")
        todo = [job for job in schedule.jobs if job.game_id not in results or job.game_id in redo]
        if todo:
            prewarm(run.settings, console)
            try:
                with (
                    run_dir.appender() as append,
                    progress_bar(console, progress) as bar,
                    open_backend(
                        run.backend, run.workers, run.settings, ray_address, run.executor
                    ) as runner,
                ):
                    task = bar.add_task(
                        "games", total=schedule.games, completed=len(results) - len(redo)
                    )

                    def on_records(chunk: list[tuple[bytes, dict[str, Any]]]) -> bool:
                        fresh = []
                        for line, r in chunk:
                            gid = r["game_id"]
                            if gid in redo:
                                replaced[done[gid][0]] = line
                            else:
                                fresh.append(line)
                            results[gid] = r
                        append(fresh)
                        bar.advance(task, len(chunk))
                        return False

                    run_chunks(runner, todo, on_records)
            finally:
                # Replayed games already finished are kept even if the run is interrupted.
                run_dir.replace_games(replaced)
        ordered = [results[i] for i in sorted(results)]
        summary = (
            write_reports(ordered, run_dir.path, info, console, n_boot, reference)
            if report
            else None
        )
    return TournamentResult(
        schedule,
        ordered,
        len(todo),
        repaired,
        summary,
        run_dir.path,
        replayed=len(replaced),
        game=run_dir.game,
    )


__all__ = [
    "BACKENDS",
    "PreparedRun",
    "RunDir",
    "RunMismatchError",
    "TournamentError",
    "TournamentResult",
    "TournamentSpec",
    "check_execution",
    "prepare_tournament",
    "read_records",
    "run_tournament",
    "verify_games",
    "write_reports",
]
