"""Hostile input to the harness: record files, edited ledgers, agents stuck in compiled code,
a killed driver, and arguments out of bounds. Each test is named after what it checks.

The runs here are real: pool workers are spawned, the watchdog test's agent spins in a numba
loop that no signal interrupts, and the driver-death test SIGKILLs a driver subprocess. The
record, resume and watchdog checks run on every game of the registry; the MCTS bounds are those
of Caylus's MCTS (``caylus_env.caylus.bots.mcts``), the one game-specific part.
"""

from __future__ import annotations

import concurrent.futures as cf
import contextlib
import copy
import json
import math
import os
import signal
import subprocess
import sys
import threading
import time
from concurrent.futures.process import BrokenProcessPool
from pathlib import Path

import pytest
from rich.console import Console

from agents.tournament.arena import play_game
from agents.tournament.backends import Backend, Watchdog, _LocalPool, move_watchdog_seconds
from agents.tournament.chunks import run_chunks
from agents.tournament.moveclock import HungMove
from agents.tournament.runner import TournamentError, TournamentSpec, run_tournament
from agents.tournament.schedule import MAX_GAMES, GameJob, ScheduleError, build_schedule
from agents.tournament.specs import (
    MAX_MOVE_TIME_LIMIT,
    MAX_WORKERS,
    MIN_MOVE_TIME_LIMIT,
    check_execution,
    check_time_limit,
)
from agents.tournament.testing import spin_chunk
from caylus_env.caylus.bots.mcts import MAX_SIMS, make_mcts
from caylus_env.core import record as record_module
from caylus_env.core.record import GameRecord, load_records, replay
from caylus_env.core.registry import GAME_NAMES, game_spec
from tests.conftest import warm_command, warm_kernels

PLUGIN = "agents.tournament.testing"
REPO = Path(__file__).resolve().parents[3]
SPIN_SECONDS = 600
"""How long ``test-spin`` holds a worker in compiled code: far past the watchdog's budget for a
`SPIN_MOVE_LIMIT` move limit (7 s), so a run that waits for it instead of killing it is
caught, while a run that kills it ends well within it (the game's kernels are in the cache
before the clock starts: `tests.conftest.warm_kernels`). Ten minutes, because the bound only
tells a run that waits from one that kills: at a load of 7-8 on two cores (four CPU hogs
beside ``pytest -n 2``) the two games of a run that killed the spin took more than the 120 s
this was before, starting their workers."""
SPIN_MOVE_LIMIT = 1.0
"""The move limit of the watchdog test. The move alarm fires on wall time, so it can interrupt
``act`` only while Python runs, before the spin enters compiled code: a worker kept off the CPU
that long (two test processes and their pool workers on two cores) would turn the watchdog's
kill into a plain timeout. A second is far more than such a stall."""


def quiet() -> Console:
    return Console(quiet=True)


@pytest.fixture(scope="module", params=GAME_NAMES)
def tournament_record(request: pytest.FixtureRequest) -> dict:
    """A finished 3-player tournament record of each game, as a dict."""
    record = play_game(
        ["random", "random", "random"], 3, 11, game_id=4, block=1, game=request.param
    )
    return record.to_dict()


def _num_actions(record: dict) -> int:
    return int(game_spec(record["game"]).engine().NUM_ACTIONS)


# --------------------------------------------------------------------------------------------------
# 1. Record files
# --------------------------------------------------------------------------------------------------


def _edit(record: dict, path: list, value: object) -> dict:
    out = copy.deepcopy(record)
    target = out
    for key in path[:-1]:
        target = target[key]
    target[path[-1]] = value
    return out


@pytest.mark.parametrize(
    "content, needle",
    [
        (b"null", "record 1: record field '' is None"),
        (b"[" * 100_000 + b"]" * 100_000, "nested too deeply"),
        (b'{"a":' * 50_000 + b"1" + b"}" * 50_000, "nested too deeply"),
        (b"\xff\xfe garbage", "is not UTF-8 text"),
        ("final", "record field 'final'"),
        ("seats", "allowed: a list of 1 entries (one per seat)"),
        ("ranks", "record field 'final.ranks[0]'"),
    ],
)
def test_hostile_record_files_give_a_value_error_naming_the_file_and_the_field(
    tmp_path, tournament_record, content, needle
):
    if content == "final":
        content = json.dumps(_edit(tournament_record, ["final"], [1, 2, 3])).encode()
    elif content == "seats":
        content = json.dumps(_edit(tournament_record, ["match", "agents"], ["random"])).encode()
    elif content == "ranks":
        content = json.dumps(_edit(tournament_record, ["final", "ranks"], ["1", "2", "3"]))
        content = content.encode()
    path = tmp_path / "hostile.json"
    path.write_bytes(content)
    with pytest.raises(ValueError) as err:
        load_records(path)
    assert str(path) in str(err.value) and needle in str(err.value), str(err.value)
    assert len(str(err.value)) < 600  # one readable line, not the whole file echoed


def test_a_record_file_over_the_size_cap_is_refused_before_it_is_read(tmp_path, monkeypatch):
    path = tmp_path / "huge.jsonl"
    with open(path, "wb") as handle:  # sparse: 64 MiB + 1 byte of zeros costs no disk
        handle.truncate(record_module.MAX_RECORD_FILE_BYTES + 1)
    opened = []
    real_open = open
    monkeypatch.setattr("builtins.open", lambda *a, **k: opened.append(a[0]) or real_open(*a, **k))
    with pytest.raises(ValueError, match=r"allowed: record files up to 67108864 bytes"):
        load_records(path)
    assert str(path) not in map(str, opened)


def test_a_changed_action_is_reported_at_the_step_where_it_was_changed(tournament_record):
    for step in (0, 17, len(tournament_record["actions"]) - 1):
        changed = copy.deepcopy(tournament_record)
        changed["actions"][step] = (changed["actions"][step] + 1) % _num_actions(changed)
        with pytest.raises(ValueError, match=rf"^record step {step}: action "):
            replay(changed)


def test_a_record_whose_options_changed_does_not_replay(tournament_record):
    changed = _edit(tournament_record, ["options", "num_players"], 4)
    with pytest.raises(ValueError, match=r"one entry per seat \(4, options.num_players\)"):
        replay(changed)


# --------------------------------------------------------------------------------------------------
# 3. A resumed run trusts no ledger line it has not replayed
# --------------------------------------------------------------------------------------------------


def _small_run(out: Path, game: str, **options: object) -> list[bytes]:
    spec = TournamentSpec(
        ("random", "test-first"), 2, 4, seed=3, plugins=(PLUGIN,), game=game, **options
    )
    with cf.ThreadPoolExecutor(1) as pool:
        run_tournament(spec, out, executor=pool, progress=False, console=quiet(), report=False)
    return (out / "games.jsonl").read_bytes().splitlines(keepends=True)


def _resume(out: Path, game: str) -> None:
    _small_run(out, game)


def _tamper_score(line: bytes) -> bytes:
    data = json.loads(line)
    data["final"]["scores"][0] += 1
    return (json.dumps(data) + "\n").encode()


def _flip_action_digit(line: bytes) -> bytes:
    data = json.loads(line)
    i = len(data["actions"]) // 2
    old = data["actions"][i]
    new = int(str(old)[::-1] + "0") % 100
    data["actions"][i] = new if new != old else (old + 1) % 100
    return (json.dumps(data) + "\n").encode()


def _variant(game: str) -> tuple[str, object]:
    """An option of ``game`` and a value of it other than the default (from its named option
    sets, ``GameSpec.option_sets``)."""
    info = game_spec(game)
    defaults = info.options()
    for options in info.option_sets.values():
        for key, value in options.items():
            if defaults[key] != value:
                return key, value
    raise AssertionError(f"{game} has no option set that changes an option")


@pytest.mark.parametrize("game", GAME_NAMES)
def test_resume_refuses_an_edited_score_a_flipped_digit_and_lines_of_another_run(game, tmp_path):
    lines = _small_run(tmp_path / "good", game)
    key, value = _variant(game)
    other = _small_run(tmp_path / "other", game, game_options={key: value})
    cases = [
        (1, _tamper_score(lines[1]), "replayed final scores"),
        (2, _flip_action_digit(lines[2]), "does not replay: record step"),
        (3, other[3], f"options.{key}: the ledger has {value!r}"),
    ]
    for lineno, bad, needle in cases:
        out = tmp_path / f"case{lineno}"
        out.mkdir()
        (out / "run.json").write_bytes((tmp_path / "good" / "run.json").read_bytes())
        edited = list(lines)
        edited[lineno] = bad
        (out / "games.jsonl").write_bytes(b"".join(edited))
        with pytest.raises(TournamentError) as err:
            _resume(out, game)
        message = str(err.value)
        assert f"line {lineno + 1} was changed after it was written" in message, message
        assert needle in message, message
        assert (out / "games.jsonl").read_bytes() == b"".join(edited)  # left as it was
    _resume(tmp_path / "good", game)  # the untouched ledger resumes


@pytest.mark.parametrize("game", GAME_NAMES)
def test_an_extension_refused_for_an_edited_line_leaves_run_json_as_it_was(game, tmp_path):
    """The ledger is checked before ``run.json`` is rewritten for more games: a refused
    extension changes no file, so the original command still resumes."""
    out = tmp_path / "run"
    lines = _small_run(out, game)
    lines[1] = _tamper_score(lines[1])
    (out / "games.jsonl").write_bytes(b"".join(lines))
    before = {path.name: path.read_bytes() for path in out.iterdir()}
    spec = TournamentSpec(("random", "test-first"), 2, 8, seed=3, plugins=(PLUGIN,), game=game)
    with (
        pytest.raises(TournamentError, match="line 2 was changed after it was written"),
        cf.ThreadPoolExecutor(1) as pool,
    ):
        run_tournament(spec, out, executor=pool, progress=False, console=quiet(), report=False)
    assert {path.name: path.read_bytes() for path in out.iterdir()} == before


# --------------------------------------------------------------------------------------------------
# 2. The watchdog ends moves that no alarm can interrupt
# --------------------------------------------------------------------------------------------------


@pytest.mark.parametrize("game", GAME_NAMES)
def test_watchdog_kills_a_worker_spinning_in_numba_and_records_the_forfeit_of_its_seat(
    game, tmp_path
):
    spec = TournamentSpec(
        (f"test-spin:{SPIN_SECONDS}", "test-first"),
        2,
        2,
        seed=1,
        move_time_limit=SPIN_MOVE_LIMIT,
        plugins=(PLUGIN,),
        game=game,
    )
    warm_kernels(game)  # the clock measures the run, not numba compiling the game cold
    start = time.monotonic()
    result = run_tournament(
        spec, tmp_path / "spin", workers=2, progress=False, console=quiet(), report=False
    )
    elapsed = time.monotonic() - start
    assert elapsed < SPIN_SECONDS, "the run waited for the spinning agent instead of killing it"
    budget = move_watchdog_seconds(SPIN_MOVE_LIMIT)
    records = result.records()
    assert [r.game_id for r in records] == [0, 1]
    for record in records:
        seat = record.match.agents.index(f"test-spin:{SPIN_SECONDS}")
        assert record.final.end == "forfeit" and record.match.loser == seat
        reason = record.match.forfeits[seat]
        assert "driver's watchdog killed the worker" in reason and f"{budget:g} s" in reason, reason
        # the hung move was cut at the budget, far from the spin's end (a figure the workers'
        # compile time, cold cache or warm, does not enter)
        assert budget <= record.timings.move_time_s[seat] < SPIN_SECONDS / 2
        replay(record)  # the rebuilt game is exactly the one the worker was playing
    again = run_tournament(
        spec, tmp_path / "spin", workers=2, progress=False, console=quiet(), report=False
    )
    assert again.played == 0  # the forfeits replay, so a resume accepts them


class _UnseeingPool:
    """A backend whose chunks never end by themselves until `stop`: like a process pool that
    never noticed the watchdog's kill (see `test_a_local_pool_stops_...`). Game 0 hangs;
    after `restart`, chunks finish at once."""

    def __init__(self) -> None:
        self.futures: list[cf.Future] = []
        self.restarted = False
        self.kills = 0

    def submit(self, jobs: list[dict]) -> cf.Future:
        future: cf.Future = cf.Future()
        if self.restarted:
            future.set_result([(b"played", {"game_id": j["game_id"]}) for j in jobs])
        else:
            self.futures.append(future)
        return future

    def kill_hung(self) -> list[HungMove] | None:
        if self.restarted or self.kills:
            return None
        self.kills += 1
        return [HungMove(0, 1, 0, 0, (), (7.5, 0.0), 7.5, 8.0)]

    def stop(self) -> None:
        for future in self.futures:
            if not future.done():
                future.set_exception(BrokenProcessPool("killed"))

    def restart(self) -> None:
        self.restarted = True

    def backend(self) -> Backend:
        def record(job: dict, move: HungMove) -> tuple[bytes, dict]:
            return b"forfeit", {"game_id": job["game_id"]}

        watchdog = Watchdog(7.0, 0.01, self.kill_hung, record, self.stop, self.restart)
        return Backend(self.submit, 2, lambda: None, watchdog)


def test_the_driver_stops_a_pool_whose_worker_it_killed_before_waiting_on_its_chunks():
    pool = _UnseeingPool()
    jobs = [GameJob(i, i, 1, ("a", "b"), (1, 2), 0) for i in range(4)]
    got: list[tuple[bytes, dict]] = []

    def consume(chunk: list[tuple[bytes, dict]]) -> bool:
        got.extend(chunk)
        return False

    driver = threading.Thread(target=run_chunks, args=(pool.backend(), jobs, consume), daemon=True)
    driver.start()
    driver.join(timeout=60)
    assert not driver.is_alive(), "the driver waited on chunks of a pool that never fails them"
    assert sorted((r["game_id"], line) for line, r in got) == [
        (0, b"forfeit"),
        (1, b"played"),
        (2, b"played"),
        (3, b"played"),
    ]


def test_a_local_pool_stops_when_its_last_started_worker_is_killed_while_the_others_spin(
    tmp_path,
):
    """``ProcessPoolExecutor`` starts spawned workers on demand and watches only those it had
    when its manager thread last woke, so it never sees the kill of a worker started after
    that while the others are stuck: `_LocalPool.stop` must end every chunk all the same."""
    settings = {"plugins": (PLUGIN,), "agents": (), "num_players": 2, "move_time_limit": 1.0}
    pool = _LocalPool(2, settings, task=spin_chunk)
    started = [tmp_path / "first", tmp_path / "second"]
    futures = []
    try:
        for i, path in enumerate(started):
            job = {"game_id": i, "seconds": SPIN_SECONDS, "started": str(path)}
            futures.append(pool.submit([job]))
            deadline = time.monotonic() + 600  # a worker's start, at any load
            while not path.exists() and time.monotonic() < deadline:
                time.sleep(0.05)
            assert path.exists(), "a pool worker did not start its chunk"
        pids = [int(path.read_text()) for path in started]
        os.kill(pids[1], signal.SIGKILL)  # what the watchdog does to a hung worker
        stopper = threading.Thread(target=pool.stop, daemon=True)
        stopper.start()
        stopper.join(timeout=120)
        assert not stopper.is_alive(), "stopping the pool waited for the spinning worker"
        for future in futures:
            assert isinstance(future.exception(timeout=0), BrokenProcessPool)
        assert not _alive(pids[0]), "the other worker, still spinning, was left running"
    finally:
        for process in list((pool.pool._processes or {}).values()):
            process.kill()
        pool.close()


# --------------------------------------------------------------------------------------------------
# 4. Workers die with the driver
# --------------------------------------------------------------------------------------------------


def _children(pid: int) -> set[int]:
    try:
        import psutil
    except ImportError:
        out = set()
        for entry in os.listdir("/proc"):
            if entry.isdigit():
                try:
                    stat = Path(f"/proc/{entry}/stat").read_text()
                except OSError:
                    continue
                if int(stat.rsplit(")", 1)[1].split()[1]) == pid:
                    out.add(int(entry))
        return out
    try:
        return {p.pid for p in psutil.Process(pid).children()}
    except psutil.NoSuchProcess:
        return set()


def _alive(pid: int) -> bool:
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        try:
            os.kill(pid, 0)
        except ProcessLookupError:
            return False
        return True
    return stat.rsplit(")", 1)[1].split()[0] != "Z"


def test_pool_workers_and_the_resource_tracker_exit_when_the_driver_is_sigkilled(tmp_path):
    out = tmp_path / "run"
    args = [
        sys.executable, "-m", "caylus_cli", "tournament",
        "--agents", "random,test-slow:0.05", "--plugin", PLUGIN,
        "--players", "2", "--games", "400", "--workers", "2",
        "--out", str(out), "--no-progress", "--bootstrap", "0",
    ]  # fmt: skip
    warm_command(args, tmp_path / "warm", cwd=REPO, games="4")  # the deadline measures games
    proc = subprocess.Popen(
        args, cwd=REPO, start_new_session=True, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE
    )
    games = out / "games.jsonl"
    children: set[int] = set()
    try:
        deadline = time.monotonic() + 120
        while time.monotonic() < deadline:
            children = _children(proc.pid)
            if len(children) >= 3 and games.exists() and games.read_bytes().count(b"\n") >= 2:
                break  # two workers and the resource tracker, and games being played
            assert proc.poll() is None, proc.stderr.read().decode()
            time.sleep(0.05)
        assert len(children) >= 3, f"workers not seen: {children}"
        os.kill(proc.pid, signal.SIGKILL)  # the driver only, not its process group
        proc.wait(timeout=30)
        deadline = time.monotonic() + 15
        while time.monotonic() < deadline and any(_alive(c) for c in children):
            time.sleep(0.1)
        left = [c for c in children if _alive(c)]
        assert not left, f"processes outlived the driver: {left}"
    finally:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(proc.pid, signal.SIGKILL)


# --------------------------------------------------------------------------------------------------
# 5. Bounds
# --------------------------------------------------------------------------------------------------


@pytest.mark.parametrize("value", [1e-9, MIN_MOVE_TIME_LIMIT / 2, -1, math.nan, math.inf, 1e9])
def test_move_time_limit_out_of_range_is_refused_naming_the_range(value):
    with pytest.raises(TournamentError) as err:
        check_time_limit(value)
    assert err.value.field == "move_time_limit"
    assert f"{MIN_MOVE_TIME_LIMIT:g} to {MAX_MOVE_TIME_LIMIT:g} seconds" in str(err.value)


def test_move_time_limit_zero_still_means_no_limit_and_the_bounds_are_allowed():
    assert check_time_limit(0) is None and check_time_limit(None) is None
    assert check_time_limit(MIN_MOVE_TIME_LIMIT) == MIN_MOVE_TIME_LIMIT
    assert check_time_limit(MAX_MOVE_TIME_LIMIT) == MAX_MOVE_TIME_LIMIT
    assert move_watchdog_seconds(None) is None


@pytest.mark.parametrize("workers", [0, -1, MAX_WORKERS + 1, 10**6, True, 2.5])
def test_workers_out_of_range_are_refused_naming_the_maximum(workers):
    with pytest.raises(TournamentError, match=rf"allowed: 1 to {MAX_WORKERS}") as err:
        check_execution(workers, "local")
    assert err.value.field == "workers"


def test_games_over_the_cap_are_refused_before_any_schedule_is_built():
    start = time.monotonic()
    with pytest.raises(ScheduleError, match=rf"allowed: 1 to {MAX_GAMES} games") as err:
        build_schedule(["random", "first"], 2, 10_000_000)
    assert err.value.field == "games"
    assert time.monotonic() - start < 5  # refused, not built (building takes minutes)


@pytest.mark.parametrize(
    "spec, needle",
    [
        ("mcts:nan", f"SIMS must be an int from 1 to {MAX_SIMS}"),
        (f"mcts:{MAX_SIMS + 1}", f"allowed: 1 to {MAX_SIMS}"),
        ("mcts:0", f"allowed: 1 to {MAX_SIMS}"),
        ("mcts:10:c=nan", "for c; allowed: FLOAT in [0, 100]"),
        ("mcts:10:c=inf", "for c; allowed: FLOAT in [0, 100]"),
        ("mcts:10:c=-1", "for c; allowed: FLOAT in [0, 100]"),
        ("mcts:10:cutoff=-5", "for cutoff; allowed: INT in [1, 100000]"),
        ("mcts:10:scale=0", "for scale; allowed: FLOAT in [0.01, 1000]"),
        ("mcts:10:margin=1e300", "for margin; allowed: FLOAT in [0, 1]"),
        ("mcts:10:widen=-inf", "for widen; allowed: FLOAT in [0, 100]"),
        ("mcts:10:power=3", "for power; allowed: FLOAT in [0, 2]"),
        ("mcts:10:depth=100000", "for depth; allowed: INT in [0, 8]"),
        ("mcts:10:depth=1.5", "for depth; allowed: INT in [0, 8]"),
    ],
)
def test_mcts_options_out_of_range_are_refused_with_the_allowed_range(spec, needle):
    with pytest.raises(ValueError) as err:
        make_mcts(spec, spec.partition(":")[2])
    assert needle in str(err.value) and repr(spec) in str(err.value)


def test_mcts_options_at_their_bounds_are_accepted():
    agent = make_mcts("x", "1:heuristic:c=100:cutoff=1:scale=0.01:margin=1:widen=0:depth=8")
    assert (agent.sims, agent.c, agent.max_rollout, agent.scale) == (1, 100.0, 1, 0.01)
    assert (agent.margin, agent.widen, agent.bot_depth) == (1.0, 0.0, 8)
    assert make_mcts("x", f"{MAX_SIMS}").sims == MAX_SIMS


def test_a_record_action_name_mismatch_names_both(tournament_record):
    changed = copy.deepcopy(tournament_record)
    engine = game_spec(changed["game"]).engine()
    other = (changed["actions"][5] + 1) % _num_actions(changed)
    changed["action_names"][5] = engine.action_to_string(other)
    with pytest.raises(ValueError, match=r"^record step 5: action \d+ is '.*' but action_names"):
        replay(GameRecord.from_dict(changed))
