"""SPRT duels: is one agent better than another? Seat-swapped pairs until a sequential test decides.

A duel is the two-player schedule of ``schedule`` with one composition (candidate, opponent): block
``b`` is pair ``b``, one seed played twice with the seats swapped, which cancels the seat and setup
luck of the pair. The candidate's pair score (mean of its two game scores, 1 / 0.5 / 0) feeds a
GSPRT, fishtest's pentanomial model (``agents.stats.SPRT(model="gsprt")``), of H0: expected score
``p0`` against H1: ``p1``, with a floor (``min_pairs``) and a cap (``max_pairs``, truncated SPRT)
as the design doc recommends. Games run in parallel on the same backends as tournaments, and an
output directory is a resumable ledger like a tournament's.
"""

from __future__ import annotations

import concurrent.futures as cf
import contextlib
import math
import os
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from rich.console import Console
from rich.table import Table

from agents.progress import console as default_console
from agents.tournament.arena import DEFAULT_MOVE_TIME_LIMIT
from agents.tournament.backends import open_backend, prewarm
from agents.tournament.chunks import run_chunks
from agents.tournament.reports import DUEL_FILE, progress_bar
from agents.tournament.rundir import RunDir
from agents.tournament.schedule import Schedule, ScheduleError, check_seed
from agents.tournament.specs import (
    RUN_FORMAT,
    PreparedRun,
    TournamentError,
    check_execution,
    check_game,
    check_out_dir,
    common_info,
    schedule_of,
    with_game,
    worker_settings,
)
from caylus_env.core.fileio import atomic_write_json
from caylus_env.core.registry import DEFAULT_GAME, game_of


@dataclass(frozen=True)
class DuelSpec:
    """A sequential two-agent test: is ``candidate`` better than ``opponent``?

    Games come in seat-swapped pairs on one seed; each pair's score (the candidate's mean game
    score, 1 / 0.5 / 0 per game) feeds a GSPRT (fishtest's pentanomial model) of
    H0: expected score ``p0`` against H1: ``p1``.

    Attributes:
        candidate: Agent spec under test (seat 0 in the first game of each pair).
        opponent: Agent spec it is compared to.
        p0: Expected score under H0.
        p1: Expected score under H1 (``> p0``).
        alpha: Probability of accepting H1 when H0 holds.
        beta: Probability of accepting H0 when H1 holds.
        min_pairs: No decision before this many pairs.
        max_pairs: Decide by the sign of the LLR at this many pairs (truncated SPRT).
        seed: Master seed.
        move_time_limit: As for tournaments.
        game_options: As for tournaments.
        plugins: As for tournaments.
        game: As for tournaments (``caylus_env.core.registry``).
    """

    candidate: str
    opponent: str
    p0: float = 0.5
    p1: float = 0.55
    alpha: float = 0.05
    beta: float = 0.05
    min_pairs: int = 20
    max_pairs: int = 2000
    seed: int = 0
    move_time_limit: float | None = DEFAULT_MOVE_TIME_LIMIT
    game_options: Mapping[str, Any] = field(default_factory=dict)
    plugins: tuple[str, ...] = ()
    game: str = DEFAULT_GAME

    def make_sprt(self) -> Any:
        """A fresh `agents.stats.SPRT` with these settings."""
        from agents.stats import SPRT

        return SPRT(
            self.p0,
            self.p1,
            self.alpha,
            self.beta,
            model="gsprt",
            min_n=self.min_pairs,
            max_n=self.max_pairs,
        )

    def build(self) -> tuple[Schedule, dict[str, Any]]:
        """Validate everything and return the (capped) pair schedule and ``run.json`` content.

        Raises:
            TournamentError: naming the offending argument.
        """
        game = check_game(self.game)
        if self.candidate == self.opponent:
            raise TournamentError("agents", "a duel needs two different agents")
        for name in ("min_pairs", "max_pairs"):
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, int) or value < 1:
                raise TournamentError(name, f"{name} must be an integer >= 1, got {value!r}")
        if self.max_pairs < self.min_pairs:
            raise TournamentError(
                "max_pairs", f"max_pairs={self.max_pairs} is below min_pairs={self.min_pairs}"
            )
        try:
            self.make_sprt()
        except ValueError as err:
            raise TournamentError("sprt", str(err)) from None
        try:
            check_seed(self.seed)
        except ScheduleError as err:
            raise TournamentError(err.field, str(err)) from None
        schedule = schedule_of(
            [self.candidate, self.opponent], 2, 2 * self.max_pairs, self.seed, game=game
        )
        common = common_info(schedule, self.move_time_limit, self.game_options, self.plugins, game)
        info = {
            "format": RUN_FORMAT,
            "kind": "duel",
            "agents": [self.candidate, self.opponent],
            "p0": self.p0,
            "p1": self.p1,
            "alpha": self.alpha,
            "beta": self.beta,
            "min_pairs": self.min_pairs,
            "max_pairs": self.max_pairs,
            **common,
            "schedule_hash": schedule.hash(),
        }
        return schedule, with_game(info, game)


def prepare_duel(
    spec: DuelSpec,
    out_dir: str | os.PathLike[str] | None = None,
    *,
    workers: int | None = None,
    backend: str = "local",
    executor: cf.Executor | None = None,
) -> PreparedRun:
    """Check every argument and the output directory (if any) without touching any file.

    Raises:
        TournamentError: naming the bad argument.
    """
    check_out_dir(out_dir)
    if out_dir is not None:
        RunDir(out_dir, check_game(spec.game)).check_game(spec.game)
    schedule, info = spec.build()
    workers = check_execution(workers, backend, executor)
    resumes = RunDir(out_dir, game_of(info)).check(info) if out_dir is not None else False
    return PreparedRun(
        schedule=schedule,
        info=info,
        settings=worker_settings(info, 2),
        workers=workers,
        backend=backend,
        executor=executor,
        out_dir=Path(out_dir) if out_dir is not None else None,
        resumes=resumes,
    )


@dataclass
class DuelResult:
    """What a duel produced.

    Attributes:
        candidate: The agent under test.
        sprt: The `agents.stats.SPRT` after the last pair (``trace`` holds the LLR per pair).
        pair_scores: The candidate's score of each pair, in pair order.
        results: The results (``arena.RESULT_FIELDS``) of the games of those pairs, two per
            pair in ``game_id`` order; the complete records are in ``games.jsonl`` when the
            duel had an output directory.
        played: Games played by this call.
        out_dir: The run directory, if any.
    """

    candidate: str
    sprt: Any
    pair_scores: list[float]
    results: list[dict[str, Any]]
    played: int
    out_dir: Path | None

    @property
    def decision(self) -> str | None:
        return self.sprt.decision

    @property
    def games(self) -> int:
        return len(self.results)

    def wins_draws_losses(self) -> tuple[int, int, int]:
        """The candidate's game results."""
        w = d = lo = 0
        for r in self.results:
            seat = r["seats"].index(self.candidate)
            score = _game_score(r, seat)
            w, d, lo = w + (score == 1.0), d + (score == 0.5), lo + (score == 0.0)
        return w, d, lo

    def to_dict(self) -> dict[str, Any]:
        """The duel's result as JSON: the SPRT and its trace, the pair scores, the games and the
        candidate's wins, draws, losses and score."""
        w, d, lo = self.wins_draws_losses()
        return {
            "sprt": self.sprt.to_dict(),
            "trace": list(self.sprt.trace),
            "pair_scores": self.pair_scores,
            "games": self.games,
            "candidate_wins": w,
            "draws": d,
            "candidate_losses": lo,
            "score": (w + 0.5 * d) / self.games if self.games else None,
        }


def _discard(lines: Sequence[bytes]) -> None:
    """Where a duel without an output directory sends its records."""


def _game_score(record: Mapping[str, Any], seat: int) -> float:
    """1 for finishing ahead of the other seat, 0.5 for a tie, 0 for behind (2 players)."""
    mine = record["ranks"][seat]
    other = record["ranks"][1 - seat]
    return 1.0 if mine < other else 0.5 if mine == other else 0.0


def run_duel(
    spec: DuelSpec | PreparedRun,
    out_dir: str | os.PathLike[str] | None = None,
    *,
    workers: int | None = None,
    backend: str = "local",
    ray_address: str | None = None,
    executor: cf.Executor | None = None,
    progress: bool = True,
    console: Console | None = None,
    duel_spec: DuelSpec | None = None,
) -> DuelResult:
    """Play seat-swapped pairs until the SPRT decides (or ``max_pairs``), in pair order.

    Pairs are played in parallel but fed to the test strictly in pair order, so the decision and
    the number of pairs do not depend on the number of workers; pairs finished after the
    decision are discarded. With ``out_dir`` the fed pairs go to ``games.jsonl`` and the test to
    ``duel.json``, and an interrupted duel resumes like a tournament. ``spec`` may be a run
    prepared by `prepare_duel` (``duel_spec`` then names the `DuelSpec`; the other arguments
    come from the prepared run).

    Raises:
        TournamentError: for bad arguments or an unusable directory, before any work.
    """
    console = console or default_console()
    if isinstance(spec, PreparedRun):
        run = spec
        if duel_spec is None:
            raise TournamentError("spec", "run_duel with a prepared run needs its duel_spec")
        spec = duel_spec
    else:
        run = prepare_duel(spec, out_dir, workers=workers, backend=backend, executor=executor)
    schedule, info = run.schedule, run.info
    run_dir = RunDir(run.out_dir, game_of(info)) if run.out_dir is not None else None
    sprt = spec.make_sprt()
    blocks = schedule.block_jobs()
    fed: list[dict[str, Any]] = []
    pair_scores: list[float] = []

    def feed(pair: list[dict[str, Any]]) -> None:
        first, second = sorted(pair, key=lambda r: r["game_id"])
        score = (_game_score(first, 0) + _game_score(second, 1)) / 2.0
        pair_scores.append(score)
        sprt.update(score)
        fed.extend((first, second))

    with contextlib.ExitStack() as stack:
        append: Callable[[Sequence[bytes]], None] = _discard
        if run_dir is not None:
            stack.enter_context(run_dir.locked())
            if not run_dir.check(info):
                run_dir.write_info(info)
            jobs = {job.game_id: job for job in schedule.jobs}
            lines, _ = run_dir.load_games(jobs, info)
            done = {gid: result for gid, (_, result) in lines.items()}
            for pair in blocks:
                if sprt.decision is not None or not all(j.game_id in done for j in pair):
                    break
                feed([done[j.game_id] for j in pair])
            if fed:
                console.print(f"resuming: {len(fed) // 2} pairs already played")
            if len(done) > len(fed):
                raise TournamentError(
                    "out",
                    f"{run_dir.games_path} holds games beyond the sequence of complete pairs "
                    "(it was edited); choose another output directory",
                )
            append = stack.enter_context(run_dir.appender())
        next_block = len(fed) // 2
        played = 0
        if sprt.decision is None:
            todo = [job for pair in blocks[next_block:] for job in pair]
            prewarm(run.settings, console)
            waiting: dict[int, list[tuple[bytes, dict[str, Any]]]] = {}
            said: list[bool] = []
            bar = stack.enter_context(progress_bar(console, progress))
            task = bar.add_task("pairs", total=spec.max_pairs, completed=next_block)

            def on_records(chunk: list[tuple[bytes, dict[str, Any]]]) -> bool:
                nonlocal next_block, played
                played += len(chunk)
                for line, r in chunk:
                    waiting.setdefault(r["block"], []).append((line, r))
                while sprt.decision is None and len(waiting.get(next_block, ())) == 2:
                    pair = sorted(waiting.pop(next_block), key=lambda item: item[1]["game_id"])
                    feed([r for _, r in pair])
                    append([line for line, _ in pair])
                    next_block += 1
                    bar.update(task, advance=1, description=f"pairs (LLR {sprt.llr:+.2f})")
                if sprt.decision is not None and not said:  # the bar stops short: say why
                    said.append(True)
                    console.print(
                        f"SPRT decided ({sprt.decision}) after {next_block} pairs; stopping "
                        "the games still running...",
                        highlight=False,
                    )
                return sprt.decision is not None

            runner = stack.enter_context(
                open_backend(run.backend, run.workers, run.settings, ray_address, run.executor)
            )
            run_chunks(runner, todo, on_records)
    result = DuelResult(
        spec.candidate, sprt, pair_scores, fed, played, run_dir.path if run_dir else None
    )
    if run_dir is not None:
        atomic_write_json(run_dir.path / DUEL_FILE, {"run": info, **result.to_dict()})
    print_duel(result, spec, console)
    return result


_SPARKS = "▁▂▃▄▅▆▇█"


def sparkline(
    values: Sequence[float],
    width: int = 60,
    lo: float | None = None,
    hi: float | None = None,
) -> str:
    """The values as a one-line bar chart, resampled to at most ``width`` characters.

    ``lo`` and ``hi`` fix the scale (values outside are clipped), so that a trace drawn between
    its stopping bounds shows how close it came to them; by default the scale is the values' range.
    """
    if not values:
        return ""
    step = max(1, math.ceil(len(values) / width))
    points = [values[min(i + step - 1, len(values) - 1)] for i in range(0, len(values), step)]
    lo = min(points) if lo is None else lo
    hi = max(points) if hi is None else hi
    span = hi - lo or 1.0
    top = len(_SPARKS) - 1
    return "".join(_SPARKS[min(top, max(0, int((v - lo) / span * top)))] for v in points)


def print_duel(result: DuelResult, spec: DuelSpec, console: Console) -> None:
    """Print the LLR trace, the decision, the games played and the score."""
    sprt = result.sprt
    lower, upper = sprt.bounds
    trace = list(sprt.trace)
    table = Table(title=f"SPRT LLR trace: {spec.candidate} vs {spec.opponent}")
    table.add_column("pair", justify="right")
    table.add_column("LLR", justify="right")
    table.add_column("mean pair score", justify="right")
    checkpoints = (
        sorted({max(1, round(len(trace) * k / 10)) for k in range(1, 11)}) if trace else []
    )
    for n in checkpoints:
        mean = sum(result.pair_scores[:n]) / n
        table.add_row(str(n), f"{trace[n - 1]:+.3f}", f"{mean:.3f}")
    console.print(table)
    if trace:
        scale = (min(lower, *trace), max(upper, *trace))
        console.print(
            f"LLR {sparkline(trace, lo=scale[0], hi=scale[1])}  scale [{scale[0]:+.2f}, "
            f"{scale[1]:+.2f}], bounds [{lower:+.2f}, {upper:+.2f}]"
        )
    w, d, lo = result.wins_draws_losses()
    games = result.games
    score = (w + 0.5 * d) / games if games else float("nan")
    hypotheses = f"H0: expected score {spec.p0:g}, H1: {spec.p1:g}"
    if sprt.n:
        ci_lo, ci_hi = sprt.score_interval()
        measured = (
            f"measured score {sprt.mean:.3f}, 95% CI [{ci_lo:.3f}, {ci_hi:.3f}] over {sprt.n} "
            f"pairs; {hypotheses}"
        )
    else:
        measured = hypotheses
    verdict = {
        "H1": f"H1 accepted: {spec.candidate} is better than {spec.opponent} ({measured})",
        "H0": f"H0 accepted: {spec.candidate} is not better than {spec.opponent} ({measured})",
        None: f"no decision ({measured})",
    }[sprt.decision]
    if sprt.truncated and spec.min_pairs == spec.max_pairs:
        verdict += f" (fixed length: by the sign of the LLR after {spec.max_pairs} pairs)"
    elif sprt.truncated:
        verdict += f" (truncated at max_pairs={spec.max_pairs}: by the sign of the LLR)"
    console.print(verdict)
    if sprt.decision is not None and not sprt.truncated:
        console.print(
            "(the interval is the empirical-likelihood one; a test that stopped at a bound biases "
            "the measured score toward its verdict, so estimate with min_pairs = max_pairs)"
        )
    console.print(
        f"{games} games in {games // 2} pairs; {spec.candidate}: {w} wins, {d} draws, {lo} losses, "
        f"score {score:.3f}; LLR {sprt.llr:+.3f}"
    )


__all__ = ["DuelResult", "DuelSpec", "prepare_duel", "print_duel", "run_duel", "sparkline"]
