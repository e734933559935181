"""``caylus dataset generate``: self-play games written as Parquet shards, resumably.

One engine for tournaments and datasets: the games are the tournament's (``schedule`` blocks,
seat rotations, seeds), played by its backends (local process pool with the watchdog, Ray, any
executor) through ``agents.tournament.worker.play_jobs`` with a decision hook (``worker``).
What differs is what the driver keeps: instead of a JSON line per game it writes shards
(``caylus_env.datasets.format.ShardWriter``) and records each finished shard in a ledger.

Schedule. With several player counts, each count ``n`` plays the first
``ceil(games / counts)`` games (rounded up to whole blocks) of the tournament schedule
``caylus tournament --players n --seed S`` with the same agents, seed and seating (so a
dataset of one player count holds exactly that tournament's games); the counts' blocks are
interleaved in turn (2, 3, 4, 5, 2, 3, ...) while a count still needs games, and dataset game
ids number the games in that order. Blocks come from ``schedule.iter_blocks``, one at a time,
so memory does not grow with the number of games.

Directory. ``run.json`` holds the arguments (`DatasetSpec.build`): starting again with the same
ones resumes, other ones are refused naming every differing field (``caylus_env.core.ledger``).
``shards.jsonl`` holds one line per finished shard (its range, counts and file digests),
appended only after both of its files were renamed into place and fsynced. A kill loses the
shards being written (their ``.tmp`` files are removed at the next start) and nothing else;
a shard is a pure function of its games, so the rerun writes the same bytes.
``manifest.json`` is written last, atomically, once every shard is in.
"""

from __future__ import annotations

import concurrent.futures as cf
import contextlib
import itertools
import json
import math
import os
import shlex
import time
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from rich.console import Console

from agents.progress import console as default_console
from agents.selfplay.worker import play_dataset_chunk, rows_item
from agents.tournament.arena import DEFAULT_MOVE_TIME_LIMIT
from agents.tournament.backends import open_backend, prewarm
from agents.tournament.chunks import run_chunks
from agents.tournament.reports import progress_bar
from agents.tournament.schedule import GameJob, ScheduleError, iter_blocks
from agents.tournament.specs import (
    RunMismatchError,
    TournamentError,
    check_agents_exist,
    check_execution,
    check_game,
    check_out_dir,
    check_time_limit,
    engine_version,
    normal_game_options,
    with_game,
)
from caylus_env.core.fileio import atomic_write_json, directory_problem
from caylus_env.core.ledger import InfoMismatchError, Ledger, LedgerError
from caylus_env.core.registry import DEFAULT_GAME, game_of, game_spec
from caylus_env.datasets.format import (
    DATASET_FORMAT,
    DECISIONS_DIR,
    DEFAULT_SHARD_GAMES,
    GAMES_DIR,
    GAMES_SCHEMA,
    MANIFEST_FILE,
    PROGRAM,
    RUN_FORMATS,
    GameRows,
    ShardWriter,
    decisions_schema,
    read_manifest,
    remove_partial_shards,
    shard_paths,
    totals,
    versions,
)
from caylus_env.datasets.verify import VerifyReport, verify_dataset

RUN_FORMAT = RUN_FORMATS[DATASET_FORMAT]
"""Format of a dataset's ``run.json``: version 2 goes with ``caylus-dataset/2`` (the games
table's ``scores`` column), so an unfinished directory of version 1 is refused rather than
finished with shards of both formats."""
RUN_FILE = "run.json"
SHARDS_FILE = "shards.jsonl"
DERIVED_FIELDS = ("scheduled_games", "shards")
MAX_DATASET_GAMES = 100_000_000
"""Most games one dataset may ask for: a hundred million games of scripted bots is about a
terabyte and years of CPU time on one core (docs/datasets.md, "Scale"); more is a typo."""
MAX_SHARD_GAMES = 1_000_000
"""Largest shard: a shard is the unit a kill loses, and a million games of 5-player bots take
several CPU days."""
GROUP_GAMES = 8192
"""Games handed to the chunk runner at once (whole shards): enough to keep every worker busy
between two calls, few enough that the pending jobs stay small."""


def parse_players(text: str | int | Sequence[int], game: str = DEFAULT_GAME) -> tuple[int, ...]:
    """Player counts from ``"3"``, ``"2-5"``, ``"2,4"`` (or ints), sorted, each one that
    ``game``'s rules allow (``GameSpec.player_counts``).

    Raises:
        TournamentError: (field ``players``) naming what is wrong and what is allowed.
    """
    spec = game_spec(game)
    low, high = spec.min_players, spec.max_players
    allowed = f"allowed: {spec.title} counts from {low} to {high} as N, A-B or A,B,..."
    if isinstance(text, bool):
        raise TournamentError("players", f"players={text!r}; {allowed}")
    if isinstance(text, int):
        values = [text]
    elif isinstance(text, str):
        values = []
        try:
            for part in text.split(","):
                lo, sep, hi = part.strip().partition("-")
                if sep:
                    if int(hi) < int(lo):
                        raise ValueError
                    values += list(range(int(lo), int(hi) + 1))
                else:
                    values.append(int(lo))
        except ValueError:
            raise TournamentError(
                "players", f"players={text!r} cannot be read; {allowed}"
            ) from None
    else:
        values = list(text)
    if not values or any(
        isinstance(v, bool) or not isinstance(v, int) or not low <= v <= high for v in values
    ):
        raise TournamentError("players", f"players={text!r}; {allowed}")
    return tuple(sorted(set(values)))


@dataclass(frozen=True)
class DatasetSpec:
    """Everything that determines a dataset's content (not how fast it is made).

    Attributes:
        agents: Distinct agent specs (``agents.registry.make_agent``).
        players: Player counts (`parse_players` reads ``"2-5"``).
        games: Games wanted in all; each count plays ``ceil(games / len(players))`` of them,
            rounded up to whole blocks.
        seed: Master seed.
        seating: ``"rotations"`` or ``"permutations"`` (see ``schedule``).
        move_time_limit: Seconds per ``act`` call before a forfeit; None disables it.
        game_options: ``GameConfig`` options other than the player count.
        plugins: Modules imported in the driver and every worker to register more agents.
        policy_targets: Store each acting agent's action distribution.
        shard_games: Games per shard.
        game: The game (a name of ``caylus_env.core.registry``); ``run.json`` and the manifest
            name it in their ``game`` field.
    """

    agents: tuple[str, ...]
    players: tuple[int, ...] | str | int
    games: int
    seed: int = 0
    seating: str = "rotations"
    move_time_limit: float | None = DEFAULT_MOVE_TIME_LIMIT
    game_options: Mapping[str, Any] = field(default_factory=dict)
    plugins: tuple[str, ...] = ()
    policy_targets: bool = False
    shard_games: int = DEFAULT_SHARD_GAMES
    game: str = DEFAULT_GAME

    def schedule(self) -> DatasetSchedule:
        """The games of the dataset, checked as far as the schedule needs: the game, the
        player counts, the number of games and the agents' names, seed and seating. No agent
        is created (the schedule is a function of the names alone), so a dataset of a
        plugin's agents can be verified where the plugin is not installed.

        Raises:
            TournamentError: naming the offending argument.
        """
        game = check_game(self.game)
        players = parse_players(self.players, game)
        _check_count("games", self.games, MAX_DATASET_GAMES)
        try:
            for n in players:  # checks agents, seed and seating
                next(iter_blocks(self.agents, n, self.seed, self.seating, game=game))
        except ScheduleError as err:
            raise TournamentError(err.field, str(err)) from None
        agents = tuple(a.strip() for a in self.agents)
        return DatasetSchedule(agents, players, self.games, self.seed, self.seating, game)

    def build(self) -> tuple[DatasetSchedule, dict[str, Any]]:
        """Validate everything; return the schedule and the ``run.json`` content.

        Raises:
            TournamentError: naming the offending argument.
        """
        schedule = self.schedule()
        game, players, agents = schedule.game, schedule.players, schedule.agents
        _check_count("shard_games", self.shard_games, MAX_SHARD_GAMES)
        if not isinstance(self.policy_targets, bool):
            raise TournamentError("policy_targets", "policy_targets must be True or False")
        limit = check_time_limit(self.move_time_limit)
        options = normal_game_options(players[0], self.game_options, game)
        plugins = tuple(self.plugins)
        check_agents_exist(agents, plugins, game)
        scheduled = schedule.count()
        now = versions(game)
        info = {
            "format": RUN_FORMAT,
            "kind": "dataset",
            "agents": list(agents),
            "players": list(players),
            "games": self.games,
            "seed": self.seed,
            "seating": self.seating,
            "move_time_limit": limit,
            "game_options": options,
            "plugins": list(plugins),
            "policy_targets": self.policy_targets,
            "shard_games": self.shard_games,
            "engine": engine_version(),
            "state_version": now["state_version"],
            "action_space_version": now["action_space_version"],
            "scheduled_games": scheduled,
            "shards": math.ceil(scheduled / self.shard_games),
        }
        return schedule, with_game(info, game)

    def command(self, out: str | os.PathLike[str]) -> str:
        """The ``caylus dataset generate`` command line that makes this dataset."""
        players = parse_players(self.players, self.game)
        if len(players) > 1 and list(players) == list(range(players[0], players[-1] + 1)):
            text = f"{players[0]}-{players[-1]}"
        else:
            text = ",".join(str(p) for p in players)
        args = [
            PROGRAM, "dataset", "generate",
            "--game", self.game,
            "--agents", ",".join(self.agents),
            "--players", text,
            "--games", str(self.games),
            "--out", str(out),
            "--seed", str(self.seed),
            "--shard-games", str(self.shard_games),
            "--move-time-limit", f"{self.move_time_limit or 0:g}",
        ]  # fmt: skip
        if self.seating == "permutations":
            args.append("--permutations")
        if self.policy_targets:
            args.append("--policy-targets")
        for key, value in sorted(self.game_options.items()):
            args += ["--option", f"{key}={_json(value)}"]
        for plugin in self.plugins:
            args += ["--plugin", plugin]
        return shlex.join(args)


def _check_count(name: str, value: Any, most: int) -> None:
    if isinstance(value, bool) or not isinstance(value, int) or not 1 <= value <= most:
        raise TournamentError(name, f"{name}={value!r}; allowed: 1 to {most}")


def _json(value: Any) -> str:
    return json.dumps(value, separators=(",", ":"))


@dataclass(frozen=True)
class DatasetSchedule:
    """The dataset's games in game id order (see the module docstring), generated lazily."""

    agents: tuple[str, ...]
    players: tuple[int, ...]
    games: int
    seed: int
    seating: str
    game: str = DEFAULT_GAME

    @property
    def per_count(self) -> int:
        return math.ceil(self.games / len(self.players))

    def jobs(self) -> Iterator[GameJob]:
        """Every job, with its dataset game id, in order."""
        streams = {
            n: iter_blocks(self.agents, n, self.seed, self.seating, game=self.game)
            for n in self.players
        }
        played = dict.fromkeys(self.players, 0)
        game_id = 0
        while True:
            active = [n for n in self.players if played[n] < self.per_count]
            if not active:
                return
            for n in active:
                block = next(streams[n])
                played[n] += len(block)
                for job in block:
                    yield replace(job, game_id=game_id)
                    game_id += 1

    def count(self) -> int:
        """Scheduled games: one pass over the schedule (about 15 µs a game), keeping nothing."""
        return sum(1 for _ in self.jobs())


RUN_SCHEDULE_FIELDS = ("agents", "players", "games", "seed", "seating")
"""The fields of a dataset's run that its schedule is a function of (with its ``game``)."""


def run_schedule(run: Any) -> DatasetSchedule:
    """The schedule a dataset's run (the manifest's ``run``: the generator's ``run.json``)
    played: which agents sat where, on which seeds, game by game. Nothing in a dataset's
    files ties a game's agents to its seats but this, so verify checks every games row
    against it (`verify_generated`).

    Raises:
        TournamentError: naming the field of the run from which no schedule can be built.
    """
    if not isinstance(run, Mapping):
        raise TournamentError("run", f"run is {str(run)[:80]!r}; allowed: the generator's object")
    missing = [key for key in RUN_SCHEDULE_FIELDS if key not in run]
    if missing:
        raise TournamentError("run", f"the run has no {', '.join(missing)}")
    for key in ("agents", "players"):
        if not isinstance(run[key], list):
            raise TournamentError(key, f"the run's {key} is {run[key]!r}; allowed: a list")
    spec = DatasetSpec(
        agents=tuple(run["agents"]),
        players=tuple(run["players"]),
        games=run["games"],
        seed=run["seed"],
        seating=run["seating"],
        game=game_of(run),
    )
    return spec.schedule()


class ScheduleLookup:
    """``game id -> job dict`` (``GameJob.to_dict()``) of a schedule, what
    ``verify_dataset(schedule=...)`` asks, or None for an id it does not schedule. The jobs
    are walked forward once whatever order the games are asked in: shards are checked in
    order and games mostly in id order, but not always (games without decision rows come
    last in their shard), so jobs walked past are kept until asked for, and the usual order
    holds almost nothing.

    Args:
        schedule: the dataset's schedule (`run_schedule`).
    """

    def __init__(self, schedule: DatasetSchedule) -> None:
        self._jobs = schedule.jobs()
        self._skipped: dict[int, dict[str, Any]] = {}

    def __call__(self, game_id: int) -> dict[str, Any] | None:
        if game_id in self._skipped:
            return self._skipped.pop(game_id)
        for job in self._jobs:
            if job.game_id == game_id:
                return job.to_dict()
            self._skipped[job.game_id] = job.to_dict()
        return None

    def unasked(self) -> int:
        """Scheduled games never asked for (this walks the schedule to its end)."""
        return len(self._skipped) + sum(1 for _ in self._jobs)


def verify_generated(
    root: str | os.PathLike[str],
    *,
    game: str | None = None,
    on_game: Callable[[int], None] | None = None,
) -> VerifyReport:
    """What ``caylus dataset verify`` checks: ``caylus_env.datasets.verify_dataset`` with the
    schedule of the manifest's run (`run_schedule`), so every game's seed, block, agents by
    seat and agent seeds must be the schedule's (a games row whose agents were swapped, with
    the decisions' ``agent`` column to match, replays exactly and is found only here), and
    the dataset must hold every game the run schedules. A run from which no schedule can be
    built is a problem of its own: the seating is never left unchecked.

    Args:
        root: the dataset directory.
        game: the game it must hold; None: the one its manifest names.
        on_game: called with the number of games checked so far (a progress bar).

    Raises:
        DatasetError: as ``verify_dataset``, for a directory that is not a finished dataset
            of this engine's format, or of another game.
    """
    manifest = read_manifest(root)
    try:
        lookup = ScheduleLookup(run_schedule(manifest.get("run")))
    except TournamentError as err:
        return VerifyReport(
            problems=[f"the manifest's run gives no schedule to check the games against: {err}"]
        )
    report = verify_dataset(root, schedule=lookup, on_game=on_game, game=game)
    if report.ok:
        missing = lookup.unasked()
        if missing:
            report.problems.append(
                f"the manifest's run schedules {report.games + missing} games; the dataset "
                f"holds {report.games}"
            )
    return report


@dataclass
class DatasetResult:
    """What a generate call produced.

    Attributes:
        out_dir: The dataset directory.
        manifest: The manifest written.
        played: Games played by this call (the others were in finished shards already).
        shards_written: Shards written by this call.
        removed_partial: Temporary files of a killed run that were removed.
    """

    out_dir: Path
    manifest: dict[str, Any]
    played: int
    shards_written: int
    removed_partial: int


@dataclass(frozen=True)
class PreparedDataset:
    """A validated generate call (`prepare_dataset`)."""

    spec: DatasetSpec
    schedule: DatasetSchedule
    info: dict[str, Any]
    settings: dict[str, Any]
    workers: int
    backend: str
    executor: cf.Executor | None
    out_dir: Path


def _ledger(out_dir: Path) -> Ledger:
    return Ledger(out_dir, records=SHARDS_FILE, info=RUN_FILE, info_format=RUN_FORMAT)


def _check_dir(out_dir: Path, info: Mapping[str, Any]) -> dict[str, Any] | None:
    """The stored run.json if the directory holds this dataset; None for a fresh one."""
    problem = directory_problem(out_dir)
    if problem is not None:
        raise TournamentError("out", problem)
    ledger = _ledger(out_dir)
    if not ledger.info_path.exists():
        stray = [
            name for name in (MANIFEST_FILE, GAMES_DIR, DECISIONS_DIR) if (out_dir / name).exists()
        ]
        if stray:
            raise TournamentError(
                "out",
                f"{out_dir} holds {', '.join(stray)} but no {RUN_FILE}, so it cannot be matched "
                "to arguments; choose another directory",
            )
    try:
        return ledger.check_info(info, derived=DERIVED_FIELDS)
    except InfoMismatchError as err:
        raise RunMismatchError(err) from None
    except LedgerError as err:
        raise TournamentError("out", str(err)) from None


def prepare_dataset(
    spec: DatasetSpec,
    out_dir: str | os.PathLike[str],
    *,
    workers: int | None = None,
    backend: str = "local",
    executor: cf.Executor | None = None,
) -> PreparedDataset:
    """Check every argument and the directory without writing anything.

    Raises:
        TournamentError: naming the bad argument (``RunMismatchError`` for a directory made
            with other arguments, naming every differing field).
    """
    check_out_dir(out_dir)
    schedule, info = spec.build()
    workers = check_execution(workers, backend, executor)
    path = Path(out_dir)
    _check_dir(path, info)
    settings = {
        "num_players": schedule.players[0],
        "game_options": info["game_options"],
        "move_time_limit": info["move_time_limit"],
        "plugins": info["plugins"],
        "agents": list(info["agents"]),
        "policy_targets": info["policy_targets"],
        "game": info["game"],
    }
    return PreparedDataset(spec, schedule, info, settings, workers, backend, executor, path)


def _check_entry(out_dir: Path, entry: Any, info: Mapping[str, Any]) -> dict[str, Any]:
    """One ``shards.jsonl`` line, checked against the run and the files on disk (sizes)."""
    if not isinstance(entry, dict):
        raise ValueError("not a shard entry")
    index = entry.get("shard")
    shards, size = int(info["shards"]), int(info["shard_games"])
    if not isinstance(index, int) or not 0 <= index < shards:
        raise ValueError(f"shard {index!r} is not one of the {shards} shards of {RUN_FILE}")
    first = index * size
    games = min(size, int(info["scheduled_games"]) - first)
    if entry.get("first_game") != first or entry.get("games") != games:
        raise ValueError(f"shard {index} should hold games {first} to {first + games - 1}")
    expected = {p.relative_to(out_dir).as_posix() for p in shard_paths(out_dir, index)}
    files = entry.get("files")
    if not isinstance(files, dict) or set(files) != expected:
        raise ValueError(f"shard {index} should list the files {sorted(expected)}")
    for name, digest in files.items():
        path = out_dir / name
        if not path.is_file() or path.stat().st_size != digest.get("bytes"):
            raise ValueError(
                f"{name} is missing or not the {digest.get('bytes')} bytes the ledger says"
            )
    return entry


def generate_dataset(
    prepared: PreparedDataset,
    *,
    ray_address: str | None = None,
    progress: bool = True,
    console: Console | None = None,
    command: str | None = None,
) -> DatasetResult:
    """Generate (or resume) a dataset into ``prepared.out_dir`` and write its manifest.

    Args:
        prepared: From `prepare_dataset`.
        ray_address: Ray cluster address for ``backend="ray"`` (None: ``RAY_ADDRESS`` or a
            new local instance).
        progress: Show a progress bar.
        console: Where to print.
        command: The command line stored in the manifest (default: `DatasetSpec.command`).

    Raises:
        TournamentError: for a directory that is locked, made with other arguments, or whose
            ledger names a shard file that is missing or changed.
    """
    console = console or default_console()
    run, info, out_dir = prepared, prepared.info, prepared.out_dir
    ledger = _ledger(out_dir)
    start = time.perf_counter()
    played = 0
    written = 0
    with _locked(ledger):
        if _check_dir(out_dir, info) is None:
            ledger.write_info(info)
        try:
            lines, _ = ledger.read(check=lambda _, e: _check_entry(out_dir, e, info))
        except LedgerError as err:
            raise TournamentError("out", str(err)) from None
        done = {int(e["shard"]): e for _, e in lines}
        removed = remove_partial_shards(out_dir)
        if removed:
            console.print(f"removed {len(removed)} partial shard file(s) of an interrupted run")
        shard_games, total, shards = info["shard_games"], info["scheduled_games"], info["shards"]
        console.print(
            f"{total} games in {shards} shard(s) of up to {shard_games} games "
            f"({len(run.schedule.players)} player count(s): "
            f"{', '.join(str(n) for n in run.schedule.players)}; seed {info['seed']})"
        )
        done_games = sum(int(e["games"]) for e in done.values())
        if done:
            console.print(f"resuming: {len(done)} of {shards} shards already written")
        todo = [s for s in range(shards) if s not in done]
        if todo:
            prewarm(run.settings, console)
            with (
                ledger.appender() as append,
                progress_bar(console, progress) as bar,
                open_backend(
                    run.backend,
                    run.workers,
                    run.settings,
                    ray_address,
                    run.executor,
                    task=play_dataset_chunk,
                    item=rows_item,
                ) as backend,
            ):
                task = bar.add_task("games", total=total, completed=done_games)
                for group, jobs in _groups(run.schedule.jobs(), todo, shard_games, total):
                    writers = {
                        s: ShardWriter(
                            out_dir,
                            s,
                            s * shard_games,
                            min(shard_games, total - s * shard_games),
                            info["policy_targets"],
                            run.spec.game,
                        )
                        for s in group
                    }

                    def on_records(
                        chunk: list[tuple[GameRows, dict[str, Any]]],
                        writers: dict[int, ShardWriter] = writers,
                    ) -> bool:
                        for rows, _ in chunk:
                            shard = int(rows.game["game_id"]) // shard_games
                            writer = writers[shard]
                            writer.add(rows)
                            if writer.done:
                                entry = writer.finish()
                                del writers[shard]
                                append([_line(entry)])
                        bar.advance(task, len(chunk))
                        return False

                    try:
                        run_chunks(backend, jobs, on_records)
                    finally:
                        for writer in writers.values():
                            writer.abandon()
                    if writers:
                        raise RuntimeError(f"shards {sorted(writers)} did not receive every game")
                    played += len(jobs)
                    written += len(group)
        lines, _ = ledger.read(repair=False)
        entries = sorted((e for _, e in lines), key=lambda e: e["shard"])
        seconds = time.perf_counter() - start
        manifest = _manifest(run, entries, command, seconds, played)
        atomic_write_json(out_dir / MANIFEST_FILE, manifest)
    counts = manifest["counts"]
    console.print(
        f"wrote {out_dir}: {counts['games']} games, {counts['decisions']} decisions, "
        f"{counts['bytes']} bytes ({manifest['bytes_per_decision']:.1f} bytes a decision)"
    )
    return DatasetResult(out_dir, manifest, played, written, len(removed))


@contextlib.contextmanager
def _locked(ledger: Ledger) -> Iterator[None]:
    """The ledger's directory lock, its refusal as a `TournamentError` on ``out``."""
    try:
        with ledger.locked():
            yield
    except LedgerError as err:
        raise TournamentError("out", str(err)) from None


def _line(entry: Mapping[str, Any]) -> bytes:
    return (json.dumps(entry, separators=(",", ":"), sort_keys=True) + "\n").encode("utf-8")


def _groups(
    jobs: Iterator[GameJob], todo: Sequence[int], shard_games: int, total: int
) -> Iterator[tuple[list[int], list[GameJob]]]:
    """Consecutive shards still to write, about `GROUP_GAMES` games at a time, with their
    jobs (the jobs of finished shards are skipped without being kept)."""
    todo_set = set(todo)
    group: list[int] = []
    batch: list[GameJob] = []
    for shard, shard_jobs in itertools.groupby(jobs, key=lambda j: j.game_id // shard_games):
        if shard not in todo_set:
            for _ in shard_jobs:
                pass
            continue
        group.append(shard)
        batch.extend(shard_jobs)
        if len(batch) >= GROUP_GAMES:
            yield group, batch
            group, batch = [], []
    if group:
        yield group, batch


def _manifest(
    run: PreparedDataset,
    entries: list[dict[str, Any]],
    command: str | None,
    seconds: float,
    played: int,
) -> dict[str, Any]:
    count = totals(entries)
    return {
        **versions(run.spec.game),
        "command": command or run.spec.command(run.out_dir),
        "run": run.info,
        "counts": {**count, "shards": len(entries)},
        "bytes_per_decision": count["bytes"] / max(1, count["decisions"]),
        "columns": {
            "games": GAMES_SCHEMA.names,
            "decisions": decisions_schema(run.info["policy_targets"], run.spec.game).names,
        },
        "shards": entries,
        "generation": {
            "seconds": round(seconds, 3),
            "games_played": played,
            "games_per_second": round(played / seconds, 3) if played and seconds > 0 else None,
            "workers": run.workers,
            "backend": run.backend if run.executor is None else "executor",
        },
    }


__all__ = [
    "MAX_DATASET_GAMES",
    "MAX_SHARD_GAMES",
    "RUN_FORMAT",
    "RUN_SCHEDULE_FIELDS",
    "SHARDS_FILE",
    "DatasetResult",
    "DatasetSchedule",
    "DatasetSpec",
    "PreparedDataset",
    "ScheduleLookup",
    "generate_dataset",
    "parse_players",
    "prepare_dataset",
    "run_schedule",
    "verify_generated",
]
