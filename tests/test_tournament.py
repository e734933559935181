"""The tournament harness end to end: schedules, sandboxed games, parallel runs, kill and resume,
argument checks, forfeits, the Ray backend and SPRT duels.

Every run here is real: worker processes are spawned, the resume test kills a running command
with SIGKILL, and the Ray test starts a Ray instance. The agents come from the registry plus the
``agents.tournament.testing`` plugin (a weak passer, a first-legal-action bot and faulty bots).
"""

from __future__ import annotations

import contextlib
import dataclasses
import io
import itertools
import json
import math
import os
import signal
import subprocess
import sys
import time
from collections import Counter
from pathlib import Path
from typing import Any

import pytest
from rich.console import Console

from agents import registry
from agents.tournament import schedule as schedule_module
from agents.tournament.arena import forfeit_ranks, play_game
from agents.tournament.duel import DuelSpec, run_duel
from agents.tournament.runner import (
    RunDir,
    RunMismatchError,
    TournamentError,
    TournamentSpec,
    run_tournament,
)
from agents.tournament.schedule import ScheduleError, build_schedule
from caylus_env.caylus.engine import Game, replay
from caylus_env.core.record import GameRecord

PLUGIN = "agents.tournament.testing"
REPO = Path(__file__).resolve().parents[1]


pytestmark = pytest.mark.usefixtures("private_registry")


def quiet() -> Console:
    return Console(file=io.StringIO(), width=120)


def strip_timing(record: GameRecord) -> GameRecord:
    return record.without_timings()


def read_jsonl(path: Path) -> list[GameRecord]:
    return [GameRecord.from_json(line) for line in path.read_text().splitlines() if line.strip()]


def snapshot(directory: Path) -> dict[str, tuple[bytes, int]]:
    return {p.name: (p.read_bytes(), p.stat().st_mtime_ns) for p in directory.iterdir()}


# --------------------------------------------------------------------------------------------------
# Schedules
# --------------------------------------------------------------------------------------------------


def _cells(sched: Any) -> set[int]:
    return {c for counts in sched.seat_counts().values() for c in counts}


@pytest.mark.parametrize(
    ("agents", "players", "seating"),
    [
        (["a", "b", "c"], 3, "rotations"),  # as many agents as seats
        (["a", "b", "c", "d"], 2, "rotations"),  # combinations
        (["a", "b", "c", "d", "e"], 3, "permutations"),
        (["a", "b"], 3, "rotations"),  # fewer agents than seats: self-play fill
        (["a", "b", "c"], 5, "permutations"),
        (["a"], 4, "rotations"),
    ],
)
def test_schedule_is_seat_balanced_per_cycle(agents, players, seating):
    cycle = build_schedule(agents, players, 1, seed=3, seating=seating).cycle_blocks
    long = build_schedule(agents, players, 2000, seed=3, seating=seating)
    games = sum(len(b) for b in long.block_jobs()[: 2 * cycle])
    sched = build_schedule(agents, players, games, seed=3, seating=seating)
    assert sched.balanced and sched.blocks == 2 * cycle
    assert len(_cells(sched)) == 1, sched.seat_counts()  # every (agent, seat) cell equal
    for block in sched.block_jobs():
        assert len({job.seed for job in block}) == 1  # one seed per block
        assert len({job.seats for job in block}) == len(block)  # distinct seatings
        comp = Counter(block[0].seats)
        for seat in range(players):  # inside a block each agent holds every seat equally
            assert Counter(job.seats[seat] for job in block) == Counter(
                {a: c * len(block) // players for a, c in comp.items()}
            )
    assert [j.game_id for j in sched.jobs] == list(range(sched.games))
    assert len({j.seed for j in sched.jobs}) == sched.blocks


def test_schedule_is_deterministic_and_rounds_up_to_blocks():
    a = build_schedule(["x", "y", "z"], 3, 10, seed=7)
    b = build_schedule(["x", "y", "z"], 3, 10, seed=7)
    assert a == b and a.hash() == b.hash()
    assert a.games == 12 and a.requested_games == 10 and "rounded up" in a.describe()
    assert build_schedule(["x", "y", "z"], 3, 10, seed=8).hash() != a.hash()
    # A longer run starts with the same games: the schedule is prefix-stable.
    longer = build_schedule(["x", "y", "z"], 3, 30, seed=7)
    assert longer.jobs[: a.games] == a.jobs
    # Block seeds come from SeedSequence(entropy=seed, spawn_key=(block,)).
    import numpy as np

    word = np.random.SeedSequence(entropy=7, spawn_key=(2,)).generate_state(1, np.uint64)[0]
    assert a.block_jobs()[2][0].seed == int(word) >> 1


def test_schedule_combinations_cover_every_pair_equally():
    sched = build_schedule(list("abcdef"), 3, 1, seed=0)
    full = build_schedule(list("abcdef"), 3, 3 * sched.cycle_blocks, seed=0)
    assert sched.cycle_blocks == math.comb(6, 3) and full.balanced
    tables = [frozenset(b[0].seats) for b in full.block_jobs()]
    assert len(set(tables)) == math.comb(6, 3)
    pairs = Counter(p for t in tables for p in itertools.combinations(sorted(t), 2))
    assert len(set(pairs.values())) == 1
    # The greedy order keeps every prefix close to balanced.
    counts: Counter[str] = Counter()
    for t in tables:
        counts.update(t)
        assert max(counts.values()) - min(counts.get(a, 0) for a in "abcdef") <= 2


def test_schedule_rolling_windows_when_combinations_are_too_many(monkeypatch):
    monkeypatch.setattr(schedule_module, "MAX_COMBINATIONS", 10)
    agents = [f"a{i}" for i in range(7)]
    sched = build_schedule(agents, 3, 3 * 7 * 2, seed=5)  # two cycles of 7 blocks
    assert sched.cycle_blocks == 7 and sched.balanced
    assert len(_cells(sched)) == 1
    for block in sched.block_jobs():
        assert len(set(block[0].seats)) == 3
    tables = [frozenset(b[0].seats) for b in sched.block_jobs()]
    assert tables[:7] != tables[7:]  # a fresh shuffled order per cycle


@pytest.mark.parametrize(
    ("kwargs", "field"),
    [
        ({"agents": [], "players": 2, "games": 1}, "agents"),
        ({"agents": ["a", "a"], "players": 2, "games": 1}, "agents"),
        ({"agents": ["a", "b"], "players": 1, "games": 1}, "players"),
        ({"agents": ["a", "b"], "players": 6, "games": 1}, "players"),
        ({"agents": ["a", "b"], "players": 2, "games": 0}, "games"),
        ({"agents": ["a", "b"], "players": 2, "games": 1, "seed": -1}, "seed"),
        ({"agents": ["a", "b"], "players": 2, "games": 1, "seating": "random"}, "seating"),
    ],
)
def test_schedule_rejects_bad_arguments(kwargs, field):
    with pytest.raises(ScheduleError) as err:
        build_schedule(**kwargs)
    assert err.value.field == field


# --------------------------------------------------------------------------------------------------
# One game: records and forfeits
# --------------------------------------------------------------------------------------------------


def test_play_game_record_replays_exactly():
    record = play_game(["random", "random", "random"], 3, 11, game_id=4, block=2)
    assert record.final.end == "terminated" and record.match.forfeits == (None,) * 3
    assert record.match.game_id == 4 and record.match.block == 2 and record.num_players == 3
    game = replay(json.loads(record.to_json_line()))
    assert game.is_terminal()
    assert game.prestige().tolist() == list(record.final.prestige)
    assert game.ranks().tolist() == list(record.final.ranks)
    again = play_game(["random", "random", "random"], 3, 11, game_id=4, block=2)
    assert strip_timing(again) == strip_timing(record)


def test_forfeit_ranks_put_the_loser_last_and_average_ties():
    assert forfeit_ranks([10, 3, 7], 0) == [3.0, 2.0, 1.0]
    assert forfeit_ranks([5, 5, 1, 9], 3) == [1.5, 1.5, 3.0, 4.0]


class _Tamperer:
    """Applies a move to the game it was shown instead of returning one."""

    name = "tamperer"

    def reset(self, seed: int | None = None) -> None:
        """Stateless."""

    def act(self, game: Game) -> int:
        move = game.legal_actions()[0]
        game.apply(move)
        return move


class _Swallower:
    """Sleeps past the limit and swallows the interruption: the measured time still counts."""

    name = "swallower"

    def reset(self, seed: int | None = None) -> None:
        """Stateless."""

    def act(self, game: Game) -> int:
        end = time.perf_counter() + 0.3
        while time.perf_counter() < end:
            with contextlib.suppress(BaseException):
                time.sleep(0.01)
        return game.legal_actions()[0]


_LOCAL_AGENTS = {"tamperer": _Tamperer, "swallower": _Swallower}


def _factory(spec: str) -> Any:
    """The registry, plus two faulty agents that need no plugin (the game runs in-process)."""
    return _LOCAL_AGENTS[spec]() if spec in _LOCAL_AGENTS else registry.make_agent(spec)


@pytest.mark.parametrize(
    ("bad", "reason"),
    [
        ("test-crash", "error: RuntimeError"),
        ("test-illegal", "illegal action"),
        ("test-slow:5", "timeout: act was interrupted"),
        ("tamperer", "error: the agent modified the game"),
        ("swallower", "timeout: act took"),
    ],
)
def test_faulty_agent_forfeits_in_one_game(bad, reason):
    from agents.tournament.arena import load_plugins

    load_plugins([PLUGIN])
    start = time.perf_counter()
    record = play_game(["random", bad, "random"], 3, 2, move_time_limit=0.1, agent_factory=_factory)
    assert time.perf_counter() - start < 3.0  # the slow agent was interrupted, not waited for
    assert record.final.end == "forfeit" and record.match.loser == 1
    forfeits = record.match.forfeits
    assert forfeits[0] is None and forfeits[2] is None
    assert forfeits[1].startswith(reason), forfeits
    assert record.final.ranks[1] == 3.0 and sorted(record.final.ranks) in (
        [1.0, 2.0, 3.0],
        [1.5, 1.5, 3.0],
    )
    game = replay(record)  # stopped mid-game, still an exact prefix
    assert game.prestige().tolist() == list(record.final.prestige)
    assert not game.is_terminal()


# --------------------------------------------------------------------------------------------------
# Tournaments
# --------------------------------------------------------------------------------------------------


def test_tournament_end_to_end(tmp_path):
    spec = TournamentSpec(
        agents=("random", "test-pass", "test-first"),
        players=3,
        games=12,
        seed=5,
        plugins=(PLUGIN,),
    )
    out = tmp_path / "run"
    result = run_tournament(spec, out, workers=2, progress=False, console=quiet(), n_boot=10)
    records = read_jsonl(out / "games.jsonl")
    assert len(records) == 12 == result.schedule.games == result.played
    assert sorted(r.game_id for r in records) == list(range(12))
    for r in records:
        game = replay(r)
        assert game.prestige().tolist() == list(r.final.prestige)
        assert game.ranks().tolist() == list(r.final.ranks) and r.final.end == "terminated"
    cells = Counter((agent, seat) for r in records for seat, agent in enumerate(r.match.agents))
    assert set(cells.values()) == {4} and len(cells) == 9  # 4 blocks x 1 game per seat
    for name in ("summary.json", "report.md", "ratings.png", "head_to_head.png", "run.json"):
        assert (out / name).stat().st_size > 0, name
    summary = json.loads((out / "summary.json").read_text())
    assert summary["n_games"] == 12 and summary["n_blocks"] == 4
    assert {a: s["games"] for a, s in summary["agents"].items()} == dict.fromkeys(spec.agents, 12)
    assert summary["ratings"]["reference"] == "random"
    assert summary["run"]["schedule_hash"] == result.schedule.hash()
    assert [r["game_id"] for r in result.results] == list(range(12))
    assert "actions" not in result.results[0]  # the driver keeps only the results in memory
    assert "Ratings" in (out / "report.md").read_text()
    # Run again: complete, nothing played, reports rebuilt.
    (out / "report.md").unlink()
    again = run_tournament(spec, out, workers=2, progress=False, console=quiet(), n_boot=10)
    assert again.played == 0 and (out / "report.md").exists()
    records.sort(key=lambda r: r.game_id)
    assert [strip_timing(r) for r in again.records()] == [strip_timing(r) for r in records]


def test_kill_and_resume_loses_and_repeats_nothing(tmp_path):
    out = tmp_path / "killed"
    args = [
        sys.executable, "-m", "caylus_cli", "tournament",
        "--agents", "random,test-slow:0.05", "--plugin", PLUGIN,
        "--players", "2", "--games", "48", "--seed", "9", "--workers", "2",
        "--out", str(out), "--no-progress", "--bootstrap", "0",
    ]  # fmt: skip
    games = out / "games.jsonl"
    proc = subprocess.Popen(
        args, cwd=REPO, start_new_session=True, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE
    )
    deadline = time.monotonic() + 60
    try:
        while time.monotonic() < deadline:
            if games.exists() and games.read_bytes().count(b"\n") >= 4:
                break
            assert proc.poll() is None, proc.stderr.read().decode()
            time.sleep(0.01)
        os.killpg(proc.pid, signal.SIGKILL)  # the driver and its workers
    finally:
        proc.wait(timeout=30)
    assert proc.returncode == -signal.SIGKILL
    done_before = games.read_bytes().count(b"\n")
    assert 4 <= done_before < 48, "the run was not interrupted"
    with open(games, "ab") as handle:  # a torn write, as a kill in mid-line leaves it
        handle.write(b'{"format": "caylus-record/2", "game": "caylus", "seed": 12')

    rerun = subprocess.run(args, cwd=REPO, capture_output=True, text=True, timeout=120)
    assert rerun.returncode == 0, rerun.stderr
    assert "dropped a torn last line" in rerun.stdout
    assert f"resuming: {done_before} of 48" in rerun.stdout.replace("\n", " ")
    records = read_jsonl(games)
    ids = Counter(r.game_id for r in records)
    assert sorted(ids) == list(range(48)) and set(ids.values()) == {1}

    clean = run_tournament(
        TournamentSpec(("random", "test-slow:0.05"), 2, 48, seed=9, plugins=(PLUGIN,)),
        tmp_path / "clean",
        workers=2,
        progress=False,
        console=quiet(),
        report=False,
    )
    resumed = sorted(records, key=lambda r: r.game_id)
    assert [strip_timing(r) for r in resumed] == [strip_timing(r) for r in clean.records()]
    assert (out / "summary.json").exists()


def test_mismatched_arguments_are_refused_and_files_left_alone(tmp_path):
    out = tmp_path / "run"
    spec = TournamentSpec(("random", "test-pass"), 2, 4, seed=1, plugins=(PLUGIN,))
    run_tournament(spec, out, workers=1, progress=False, console=quiet(), n_boot=0)
    before = snapshot(out)
    changed = TournamentSpec(("random", "test-pass"), 3, 4, seed=2, plugins=(PLUGIN,))
    with pytest.raises(RunMismatchError) as err:
        run_tournament(changed, out, workers=1, progress=False, console=quiet())
    assert set(err.value.differences) == {"players", "seed"}
    assert "players: run.json has 2, now 3" in str(err.value)
    assert err.value.field == "out"
    limit = TournamentSpec(
        ("random", "test-pass"), 2, 4, seed=1, plugins=(PLUGIN,), move_time_limit=1
    )
    with pytest.raises(RunMismatchError, match="move_time_limit"):
        run_tournament(limit, out, workers=1, progress=False, console=quiet())
    assert snapshot(out) == before
    # How the games are run is not part of a run's identity: another worker count resumes.
    resumed = run_tournament(spec, out, workers=2, progress=False, console=quiet(), report=False)
    assert resumed.played == 0 and len(resumed.results) == 4


def test_bad_arguments_fail_before_any_file_is_written(tmp_path):
    out = tmp_path / "never"
    cases = [
        (TournamentSpec(("random", "nobody"), 2, 4), {}, "agents"),
        (TournamentSpec(("random",), 2, 4, game_options={"jeweller": 3}), {}, "game_options"),
        (TournamentSpec(("random",), 2, 4, move_time_limit=-1), {}, "move_time_limit"),
        (TournamentSpec(("random",), 2, 4), {"workers": 0}, "workers"),
        (TournamentSpec(("random",), 2, 4), {"backend": "dask"}, "backend"),
        (TournamentSpec(("random",), 2, 4, plugins=("no.such.module",)), {}, "plugins"),
    ]
    for spec, kwargs, field in cases:
        with pytest.raises(TournamentError) as err:
            run_tournament(spec, out, progress=False, console=quiet(), **kwargs)
        assert err.value.field == field, (field, err.value)
    assert not out.exists()
    (tmp_path / "foreign").mkdir()
    (tmp_path / "foreign" / "games.jsonl").write_text("{}\n")
    with pytest.raises(TournamentError, match=r"no run\.json"):
        run_tournament(TournamentSpec(("random",), 2, 2), tmp_path / "foreign", console=quiet())


def test_corrupt_line_in_the_middle_is_refused(tmp_path):
    out = tmp_path / "run"
    spec = TournamentSpec(("random",), 2, 4, seed=3)
    run_tournament(spec, out, workers=1, progress=False, console=quiet(), report=False)
    lines = (out / "games.jsonl").read_bytes().split(b"\n")
    lines[1] = lines[1][:40]
    (out / "games.jsonl").write_bytes(b"\n".join(lines))
    with pytest.raises(TournamentError, match="line 2 is corrupt"):
        run_tournament(spec, out, workers=1, progress=False, console=quiet(), report=False)


def test_forfeits_rank_last_and_the_run_completes(tmp_path):
    agents = ("random", "test-crash", "test-illegal", "test-slow:3")
    spec = TournamentSpec(agents, 2, 12, seed=4, move_time_limit=0.2, plugins=(PLUGIN,))
    start = time.perf_counter()
    result = run_tournament(
        spec, tmp_path / "f", workers=2, progress=False, console=quiet(), n_boot=0
    )
    assert time.perf_counter() - start < 60
    assert len(result.records()) == 12
    prefixes = {
        "test-crash": "error: RuntimeError",
        "test-illegal": "illegal action",
        "test-slow:3": "timeout: act was interrupted",
    }
    for r in result.records():
        assert r.final.end == "forfeit"  # every game has a faulty agent that forfeits on its move
        loser = r.match.loser
        assert r.final.ranks[loser] == 2.0 and r.final.ranks[1 - loser] == 1.0
        assert r.match.forfeits[loser].startswith(prefixes[r.match.agents[loser]])
        assert r.match.forfeits[1 - loser] is None
        assert replay(r).prestige().tolist() == list(r.final.prestige)
    summary = json.loads((tmp_path / "f" / "summary.json").read_text())
    assert summary["agents"]["random"]["forfeits"] == 0
    assert summary["agents"]["random"]["win_rate"] == 1.0
    assert summary["run"]["forfeited_games"] == 12


@pytest.mark.ray
def test_ray_backend_gives_the_records_of_the_local_backend(tmp_path):
    import ray

    spec = TournamentSpec(("random", "test-pass", "test-first"), 2, 12, seed=8, plugins=(PLUGIN,))
    local = run_tournament(
        spec, tmp_path / "local", workers=2, progress=False, console=quiet(), report=False
    )
    ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False)
    try:
        remote = run_tournament(
            spec, tmp_path / "ray", backend="ray", progress=False, console=quiet(), n_boot=0
        )
    finally:
        ray.shutdown()
    assert [strip_timing(r) for r in remote.records()] == [strip_timing(r) for r in local.records()]
    on_disk = sorted(read_jsonl(tmp_path / "ray" / "games.jsonl"), key=lambda r: r.game_id)
    assert [strip_timing(r) for r in on_disk] == [strip_timing(r) for r in local.records()]
    assert (tmp_path / "ray" / "summary.json").exists()


def test_any_executor_can_run_the_games(tmp_path):
    from concurrent.futures import ThreadPoolExecutor

    spec = TournamentSpec(("random", "test-first"), 2, 6, seed=2, plugins=(PLUGIN,))
    with ThreadPoolExecutor(2) as pool:
        threaded = run_tournament(
            spec, tmp_path / "t", executor=pool, progress=False, console=quiet(), report=False
        )
    direct = [
        play_game(j.seats, 2, j.seed, game_id=j.game_id, block=j.block, agent_seeds=j.agent_seeds)
        for j in build_schedule(spec.agents, 2, 6, seed=2).jobs
    ]
    assert [strip_timing(r) for r in threaded.records()] == [strip_timing(r) for r in direct]


# --------------------------------------------------------------------------------------------------
# Duels
# --------------------------------------------------------------------------------------------------


def test_duel_sprt_stops_early_with_the_right_decision(tmp_path):
    out = tmp_path / "duel"
    better = DuelSpec("test-pass", "random", max_pairs=500, plugins=(PLUGIN,))
    console = quiet()
    result = run_duel(better, out, workers=2, progress=False, console=console)
    assert result.decision == "H1" and not result.sprt.truncated
    assert result.games == 2 * result.sprt.n < 2 * better.max_pairs
    trace, upper = list(result.sprt.trace), result.sprt.bounds[1]
    # It stops at the first pair whose LLR crosses the upper bound (not before the floor).
    assert result.sprt.n >= better.min_pairs and trace[-1] >= upper
    assert all(llr < upper for llr in trace[better.min_pairs - 1 : -1])
    records = read_jsonl(out / "games.jsonl")
    assert len(records) == result.games
    for first, second in zip(records[::2], records[1::2], strict=True):
        assert first.seed == second.seed and first.match.agents == second.match.agents[::-1]
    duel = json.loads((out / "duel.json").read_text())
    assert duel["sprt"]["decision"] == "H1" and len(duel["trace"]) == result.sprt.n
    text = console.file.getvalue()
    assert "H1 accepted" in text and "LLR" in text
    # Resuming a decided duel plays nothing and reaches the same verdict.
    again = run_duel(better, out, workers=2, progress=False, console=quiet())
    assert again.played == 0 and again.decision == "H1" and again.sprt.n == result.sprt.n

    worse = DuelSpec("random", "test-pass", max_pairs=500, plugins=(PLUGIN,))
    flipped = run_duel(worse, workers=1, progress=False, console=quiet())
    assert flipped.decision == "H0" and flipped.games < 2 * worse.max_pairs
    wins, draws, losses = flipped.wins_draws_losses()
    assert wins + draws / 2 < losses


def test_duel_rejects_bad_arguments():
    for spec, field in [
        (DuelSpec("random", "random"), "agents"),
        (DuelSpec("random", "nobody"), "agents"),
        (DuelSpec("random", "test-first", p0=0.6, p1=0.55, plugins=(PLUGIN,)), "sprt"),
        (DuelSpec("random", "test-first", min_pairs=10, max_pairs=5), "max_pairs"),
    ]:
        with pytest.raises(TournamentError) as err:
            run_duel(spec, progress=False, console=quiet())
        assert err.value.field == field


def test_run_dir_reads_nothing_from_a_fresh_directory(tmp_path):
    assert RunDir(tmp_path / "new").read_info() is None
    assert not (tmp_path / "new").exists()


# --------------------------------------------------------------------------------------------------
# Replaying forfeits, extending runs, cold compile caches
# --------------------------------------------------------------------------------------------------


def test_replay_forfeits_replaces_the_forfeited_records_in_place(tmp_path, monkeypatch):
    from agents.tournament.testing import FLAKY_ENV

    spec = TournamentSpec(("random", "test-flaky"), 2, 4, seed=6, plugins=(PLUGIN,))
    out = tmp_path / "run"
    monkeypatch.setenv(FLAKY_ENV, "1")  # the spawned workers inherit it: every game forfeits
    first = run_tournament(spec, out, workers=2, progress=False, console=quiet(), n_boot=0)
    assert [r.final.end for r in first.records()] == ["forfeit"] * 4
    monkeypatch.delenv(FLAKY_ENV)
    resumed = run_tournament(spec, out, workers=2, progress=False, console=quiet(), n_boot=0)
    assert resumed.played == 0  # resuming alone does not replay forfeits
    replayed = run_tournament(
        spec, out, workers=2, progress=False, console=quiet(), n_boot=0, replay_forfeits=True
    )
    assert replayed.played == 4 and replayed.replayed == 4
    lines_before = (out / "games.jsonl").read_bytes().count(b"\n")
    records = sorted(read_jsonl(out / "games.jsonl"), key=lambda r: r.game_id)
    assert lines_before == 4 and [r.game_id for r in records] == [0, 1, 2, 3]  # one per game
    assert all(r.final.end == "terminated" for r in records)
    clean = run_tournament(
        spec, tmp_path / "clean", workers=1, progress=False, console=quiet(), report=False
    )
    assert [strip_timing(r) for r in records] == [strip_timing(r) for r in clean.records()]
    summary = json.loads((out / "summary.json").read_text())
    assert summary["run"]["forfeited_games"] == 0
    assert [r["end"] for r in replayed.results] == ["terminated"] * 4


def test_a_run_extends_to_more_games_without_replaying_and_refuses_other_changes(tmp_path):
    out = tmp_path / "run"
    spec = TournamentSpec(("random", "test-first"), 2, 4, seed=2, plugins=(PLUGIN,))
    run_tournament(spec, out, workers=1, progress=False, console=quiet(), report=False)
    before = (out / "games.jsonl").read_bytes()
    longer = dataclasses.replace(spec, games=8)
    console = quiet()
    extended = run_tournament(longer, out, workers=2, progress=False, console=console, n_boot=0)
    assert extended.played == 4 and len(extended.results) == 8
    assert (out / "games.jsonl").read_bytes().startswith(before)  # the first 4 untouched
    assert "extending the run from 4 to 8 games" in console.file.getvalue()
    assert json.loads((out / "run.json").read_text())["games"] == 8
    fresh = run_tournament(
        longer, tmp_path / "fresh", workers=1, progress=False, console=quiet(), report=False
    )
    assert [strip_timing(r) for r in extended.records()] == [
        strip_timing(r) for r in fresh.records()
    ]
    snap = snapshot(out)
    with pytest.raises(RunMismatchError) as err:  # fewer games is not an extension
        run_tournament(spec, out, workers=1, progress=False, console=quiet())
    assert set(err.value.differences) == {"games"}
    other = dataclasses.replace(spec, games=12, seed=3)
    with pytest.raises(RunMismatchError) as err:  # more games with another seed is refused
        run_tournament(other, out, workers=1, progress=False, console=quiet())
    assert {"seed", "games"} <= set(err.value.differences)
    limit = dataclasses.replace(spec, games=12, move_time_limit=2.0)
    with pytest.raises(RunMismatchError) as err:
        run_tournament(limit, out, workers=1, progress=False, console=quiet())
    assert set(err.value.differences) == {"move_time_limit"}
    assert snapshot(out) == snap


COLD_GAME = """
import sys
from agents.tournament.arena import compile_clock, play_game
clock = compile_clock()
record = play_game(["random", "random"], 2, 5, move_time_limit=0.05)
assert clock.compiles > 0, "the cache was not cold"
sys.stdout.write(record.to_json_line())
"""


def test_a_cold_compile_cache_changes_no_game_and_no_summary(tmp_path):
    env = {**os.environ, "NUMBA_CACHE_DIR": str(tmp_path / "numba-cache")}
    # One game, compiled from scratch inside timed moves of 0.05 s: the timer must neither
    # interrupt the compiler nor count its time, so the game is the warm game.
    cold = subprocess.run(
        [sys.executable, "-c", COLD_GAME], cwd=REPO, env=env, capture_output=True, text=True
    )
    assert cold.returncode == 0, cold.stderr
    assert "Exception ignored" not in cold.stderr
    warm = play_game(["random", "random"], 2, 5, move_time_limit=0.05)
    assert strip_timing(GameRecord.from_json(cold.stdout)) == strip_timing(warm)
    assert warm.final.end == "terminated"

    fresh_env = {**os.environ, "NUMBA_CACHE_DIR": str(tmp_path / "numba-cache-2")}
    args = [
        sys.executable, "-m", "caylus_cli", "tournament",
        "--agents", "random,castle", "--players", "2", "--games", "6", "--seed", "1",
        "--workers", "2", "--no-progress", "--bootstrap", "20", "--move-time-limit", "0.5",
    ]  # fmt: skip
    runs = {}
    for name in ("cold", "warm"):
        done = subprocess.run(
            [*args, "--out", str(tmp_path / name)],
            cwd=REPO,
            env=fresh_env,
            capture_output=True,
            text=True,
            timeout=400,
        )
        assert done.returncode == 0, done.stderr
        runs[name] = done.stdout
    assert "compiling kernels (first run only, about" in runs["cold"]
    assert "compiling kernels" not in runs["warm"]
    cold_summary = json.loads((tmp_path / "cold" / "summary.json").read_text())
    assert cold_summary["run"]["forfeited_games"] == 0
    assert cold_summary == json.loads((tmp_path / "warm" / "summary.json").read_text())
