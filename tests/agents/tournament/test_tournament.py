"""The tournament harness end to end, on every game of the registry: schedules, sandboxed games,
parallel runs, kill and resume, argument checks, forfeits, the Ray backend, SPRT duels, and run
directories written before games had names.

Every run here is real: worker processes are spawned, the resume test kills a running command
with SIGKILL, and the Ray test starts a Ray instance. The tests are written once, over
``caylus_env.core.registry.GAME_NAMES``: each game's agents are ``random``, its own bots that
take no argument (``agents.registry.available_agents``) and the ``test-*`` agents of the
``agents.tournament.testing`` plugin (a weak passer, a first-legal-action bot and faulty bots,
registered for every game), so a newly registered game is checked by the same code.
"""

from __future__ import annotations

import contextlib
import dataclasses
import io
import itertools
import json
import math
import os
import re
import shutil
import signal
import subprocess
import sys
import time
from collections import Counter
from pathlib import Path
from typing import Any

import pytest
from rich.console import Console
from typer.testing import CliRunner

from agents import registry
from agents.stats import load_results
from agents.tournament import schedule as schedule_module
from agents.tournament.arena import forfeit_ranks, load_plugins, play_game
from agents.tournament.duel import DuelSpec, run_duel
from agents.tournament.runner import (
    RunDir,
    RunMismatchError,
    TournamentError,
    TournamentSpec,
    prepare_tournament,
    run_tournament,
)
from agents.tournament.schedule import ScheduleError, build_schedule
from agents.tournament.testing import FLAKY_ENV, register_agents
from caylus_cli.app import app
from caylus_env._version import __version__
from caylus_env.core.game import Game
from caylus_env.core.record import RECORD_FORMAT, GameRecord, replay
from caylus_env.core.registry import DEFAULT_GAME, GAME_NAMES, game_of, game_spec
from tests.conftest import harness_games, init_local_ray, warm_command

PLUGIN = "agents.tournament.testing"
REPO = Path(__file__).resolve().parents[3]
LEGACY = REPO / "tests" / "legacy"
PLAYERS = 3
GAMES = 36
RESULT_FILES = ("summary.json", "report.md")
"""The files a run writes from its games alone (timings never enter them)."""
OTHER = {g: next(o for o in (*GAME_NAMES[1:], GAME_NAMES[0]) if o != g) for g in GAME_NAMES}
"""Each game's neighbour in the registry: the 'other game' of the refusal tests."""
LEGACY_RUNS = sorted(p.name for p in LEGACY.glob("*_tournament"))
"""Tournament run directories written before the shared record and the run.json game field."""

per_game = pytest.mark.parametrize("game", GAME_NAMES)


def quiet() -> Console:
    return Console(file=io.StringIO(), width=120)


def strip_timing(record: GameRecord) -> GameRecord:
    return record.without_timings()


def read_jsonl(path: Path) -> list[GameRecord]:
    return [GameRecord.from_json(line) for line in path.read_text().splitlines() if line.strip()]


def snapshot(directory: Path) -> dict[str, tuple[bytes, int]]:
    return {p.name: (p.read_bytes(), p.stat().st_mtime_ns) for p in directory.iterdir()}


def bots(game: str) -> list[str]:
    """The game's own bots that take no argument (its scripted bots), from the registry."""
    own = game_spec(game).module("bots").BOTS
    return [head for head in registry.available_agents(game) if head in own]


def field(game: str, players: int = PLAYERS) -> tuple[str, ...]:
    """``random`` and the game's bots, then game-generic test agents while there are fewer
    agents than seats."""
    names = ["random", *bots(game)]
    if len(names) < players:
        register_agents()
        names += ["test-first", "test-slow:0"][: players - len(names)]
    return tuple(names)


def spec(game: str, **changes: Any) -> TournamentSpec:
    base = {
        "agents": field(game),
        "players": PLAYERS,
        "games": GAMES,
        "seed": 5,
        "plugins": (PLUGIN,),
        "game": game,
    }
    return TournamentSpec(**{**base, **changes})


def ledger(path: Path) -> list[GameRecord]:
    """The records of a games.jsonl in game order, without their timings."""
    return sorted((strip_timing(r) for r in read_jsonl(path)), key=lambda r: r.game_id)


@pytest.fixture(scope="module", params=GAME_NAMES)
def run(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> Any:
    """A 3-player tournament of each game between random and its bots."""
    out = tmp_path_factory.mktemp(request.param) / "run"
    return run_tournament(
        spec(request.param), out, workers=2, progress=False, console=quiet(), n_boot=20
    )


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
    ("kwargs", "field_name"),
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
def test_schedule_rejects_bad_arguments(kwargs, field_name):
    with pytest.raises(ScheduleError) as err:
        build_schedule(**kwargs)
    assert err.value.field == field_name


@per_game
def test_schedule_allows_the_player_counts_of_its_game_only(game):
    info = game_spec(game)
    for n in info.player_counts:
        assert build_schedule(["a", "b"], n, 1, game=game).players == n
    for n in (info.min_players - 1, info.max_players + 1):
        with pytest.raises(ScheduleError, match=f"{re.escape(info.title)} is played by") as err:
            build_schedule(["a", "b"], n, 1, game=game)
        assert err.value.field == "players"


# --------------------------------------------------------------------------------------------------
# One game: records and forfeits
# --------------------------------------------------------------------------------------------------


@per_game
def test_play_game_record_replays_exactly(game):
    record = play_game(["random", "random", "random"], 3, 11, game_id=4, block=2, game=game)
    assert record.game == game and record.format == RECORD_FORMAT
    assert record.final.end in ("terminated", "truncated")
    assert record.match.forfeits == (None,) * 3
    assert record.match.game_id == 4 and record.match.block == 2 and record.num_players == 3
    replayed = replay(json.loads(record.to_json_line()))
    assert replayed.is_over()
    assert replayed.scores().tolist() == list(record.final.scores) == record.result()["scores"]
    assert replayed.ranks().tolist() == list(record.final.ranks)
    again = play_game(["random", "random", "random"], 3, 11, game_id=4, block=2, game=game)
    assert strip_timing(again) == strip_timing(record)


def test_forfeit_ranks_put_the_loser_last_and_keep_the_others_order():
    assert forfeit_ranks([1.0, 3.0, 2.0], 0) == [3.0, 2.0, 1.0]
    assert forfeit_ranks([2.5, 2.5, 4.0, 1.0], 3) == [1.5, 1.5, 3.0, 4.0]


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


@per_game
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
def test_faulty_agent_forfeits_in_one_game(game, bad, reason):
    load_plugins([PLUGIN])

    def factory(spec: str) -> Any:
        """The registry, plus two faulty agents that need no plugin (the game is in-process)."""
        return _LOCAL_AGENTS[spec]() if spec in _LOCAL_AGENTS else registry.make_agent(spec, game)

    start = time.perf_counter()
    record = play_game(
        ["random", bad, "random"], 3, 2, move_time_limit=0.1, agent_factory=factory, game=game
    )
    assert time.perf_counter() - start < 3.0  # the slow agent was interrupted, not waited for
    assert record.final.end == "forfeit" and record.match.loser == 1
    forfeits = record.match.forfeits
    assert forfeits[0] is None and forfeits[2] is None
    assert forfeits[1].startswith(reason), forfeits
    assert record.final.ranks[1] == 3.0 and sorted(record.final.ranks) in (
        [1.0, 2.0, 3.0],
        [1.5, 1.5, 3.0],
    )
    replayed = replay(GameRecord.from_json(record.to_json_line()))  # an exact prefix
    assert replayed.scores().tolist() == list(record.final.scores)
    assert not replayed.is_over()


@per_game
def test_a_record_that_ends_by_forfeit_needs_a_forfeiting_seat(game):
    record = game_spec(game).new_game(game_spec(game).config(2), seed=1).record().to_dict()
    record["final"] = {"end": "forfeit", "scores": [0, 0], "ranks": [1.5, 1.5]}
    with pytest.raises(ValueError, match=r"no seat forfeited in match\.forfeits"):
        GameRecord.from_dict(record)
    record["match"] = {"game_id": 0, "block": 0, "agents": ["a", "b"], "agent_seeds": [1, 2],
                       "forfeits": [None]}  # fmt: skip
    with pytest.raises(ValueError, match=r"'match.forfeits' is \[None\]; allowed: a list of 2"):
        GameRecord.from_dict(record)


# --------------------------------------------------------------------------------------------------
# A tournament of each game
# --------------------------------------------------------------------------------------------------


def test_a_tournament_completes_with_seat_balanced_standings(run):
    game = run.game
    results = run.results
    assert len(results) == run.schedule.games >= GAMES
    assert [r["game_id"] for r in results] == list(range(len(results)))
    seats = Counter((seat, agent) for r in results for seat, agent in enumerate(r["seats"]))
    assert {agent for _, agent in seats} == set(field(game))
    assert len(set(seats.values())) == 1, f"agents sit unevenly: {seats}"
    assert len(seats) == PLAYERS * len(field(game))
    standings = run.summary["agents"]
    assert set(standings) == set(field(game))
    assert len({a["games"] for a in standings.values()}) == 1
    info = json.loads((run.out_dir / "run.json").read_text())
    assert info["game"] == game and list(info)[:3] == ["format", "kind", "game"]
    defaults = game_spec(game).config(PLAYERS).to_dict()
    assert info["game_options"] == {k: v for k, v in defaults.items() if k != "num_players"}


def test_its_records_replay_to_their_scores(run):
    lines = (run.out_dir / "games.jsonl").read_text().splitlines()
    records = run.records()
    assert len(records) == len(lines) == len(run.results)
    for record, result in zip(records, run.results, strict=True):
        assert json.loads(record.to_json_line())["format"] == RECORD_FORMAT
        assert (record.game, record.engine) == (run.game, __version__)
        replayed = replay(GameRecord.from_json(record.to_json_line()))
        assert replayed.scores().tolist() == list(record.final.scores) == result["scores"]
        assert replayed.ranks().tolist() == list(record.final.ranks) == result["ranks"]
        assert record.final.end in ("terminated", "truncated")
        assert list(record.match.agents) == result["seats"]
        assert record.timings.wall_time_s >= 0


def test_its_reports_link_replay_pages_and_name_the_score_in_the_games_word(run):
    info = game_spec(run.game)
    out = run.out_dir
    for name in ("summary.json", "report.md", "report.html", "ratings.png", "head_to_head.png"):
        assert (out / name).exists(), name
    summary = json.loads((out / "summary.json").read_text())
    assert summary["score_word"] == info.score_word
    assert all("mean_score" in a for a in summary["agents"].values())
    report = (out / "report.md").read_text()
    assert f"| Mean {info.score_word} |" in report
    for other in GAME_NAMES:  # no other game's word for its scores
        word = game_spec(other).score_word
        assert word == info.score_word or word not in report, word
    page = (out / "report.html").read_text()
    assert f"Final {info.score_word}" in page and f"{info.title}:" in page
    pages = sorted(out.glob("game-*.html"))
    assert pages, "a run writes replay pages of its sampled games"
    records = {r.game_id: r for r in run.records()}
    for path in pages:
        assert f'href="{path.name}"' in page, path.name
        html = path.read_text()
        assert "<svg" in html and "http://" not in html.replace("http://www.w3.org", "")
        gid = int(path.stem.split("-")[1])
        for seat, agent in enumerate(records[gid].match.agents):
            assert agent in html, (gid, seat, agent)


def test_the_same_command_twice_writes_identical_results(run, tmp_path):
    again = run_tournament(
        spec(run.game), tmp_path / "again", workers=1, progress=False, console=quiet(), n_boot=20
    )
    for name in RESULT_FILES:
        assert (again.out_dir / name).read_bytes() == (run.out_dir / name).read_bytes(), name
    # The ledgers differ in their timings only (and in line order: workers finish in any order).
    assert ledger(again.out_dir / "games.jsonl") == ledger(run.out_dir / "games.jsonl")


@per_game
def test_tournament_end_to_end(game, tmp_path):
    agents = ("random", "test-pass", "test-first")
    tour = TournamentSpec(agents, 3, 12, seed=5, plugins=(PLUGIN,), game=game)
    out = tmp_path / "run"
    result = run_tournament(tour, out, workers=2, progress=False, console=quiet(), n_boot=10)
    records = read_jsonl(out / "games.jsonl")
    assert len(records) == 12 == result.schedule.games == result.played
    assert sorted(r.game_id for r in records) == list(range(12))
    for r in records:
        replayed = replay(r)
        assert replayed.scores().tolist() == list(r.final.scores)
        assert replayed.ranks().tolist() == list(r.final.ranks)
        assert r.final.end in ("terminated", "truncated")
    cells = Counter((agent, seat) for r in records for seat, agent in enumerate(r.match.agents))
    assert set(cells.values()) == {4} and len(cells) == 9  # 4 blocks x 1 game per seat
    for name in ("summary.json", "report.md", "ratings.png", "head_to_head.png", "run.json"):
        assert (out / name).stat().st_size > 0, name
    summary = json.loads((out / "summary.json").read_text())
    assert summary["n_games"] == 12 and summary["n_blocks"] == 4
    assert {a: s["games"] for a, s in summary["agents"].items()} == dict.fromkeys(agents, 12)
    assert summary["ratings"]["reference"] == "random"
    assert summary["run"]["schedule_hash"] == result.schedule.hash()
    assert [r["game_id"] for r in result.results] == list(range(12))
    assert "actions" not in result.results[0]  # the driver keeps only the results in memory
    assert "Ratings" in (out / "report.md").read_text()
    # Run again: complete, nothing played, reports rebuilt.
    (out / "report.md").unlink()
    again = run_tournament(tour, out, workers=2, progress=False, console=quiet(), n_boot=10)
    assert again.played == 0 and (out / "report.md").exists()
    records.sort(key=lambda r: r.game_id)
    assert [strip_timing(r) for r in again.records()] == [strip_timing(r) for r in records]


@pytest.mark.parametrize("game", harness_games())
def test_kill_and_resume_loses_and_repeats_nothing(game, tmp_path):
    out = tmp_path / "killed"
    args = [
        sys.executable, "-m", "caylus_cli", "tournament", "--game", game,
        "--agents", "random,test-slow:0.05", "--plugin", PLUGIN,
        "--players", "2", "--games", "48", "--seed", "9", "--workers", "2",
        "--out", str(out), "--no-progress", "--bootstrap", "0",
    ]  # fmt: skip
    games = out / "games.jsonl"
    warm_command(args, tmp_path / "warm", cwd=REPO, games="4")  # the deadline measures games
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
        handle.write(f'{{"format": "{RECORD_FORMAT}", "game": "{game}", "seed": 12'.encode())

    rerun = subprocess.run(args, cwd=REPO, capture_output=True, text=True, timeout=120)
    assert rerun.returncode == 0, rerun.stderr
    assert "dropped a torn last line" in rerun.stdout
    assert f"resuming: {done_before} of 48" in rerun.stdout.replace("\n", " ")
    records = read_jsonl(games)
    ids = Counter(r.game_id for r in records)
    assert sorted(ids) == list(range(48)) and set(ids.values()) == {1}

    clean = run_tournament(
        TournamentSpec(("random", "test-slow:0.05"), 2, 48, 9, plugins=(PLUGIN,), game=game),
        tmp_path / "clean",
        workers=2,
        progress=False,
        console=quiet(),
        n_boot=0,
    )
    assert ledger(games) == ledger(clean.out_dir / "games.jsonl")
    assert (out / "summary.json").read_bytes() == (clean.out_dir / "summary.json").read_bytes()


@per_game
def test_mismatched_arguments_are_refused_and_files_left_alone(game, tmp_path):
    out = tmp_path / "run"
    tour = TournamentSpec(("random", "test-pass"), 2, 4, seed=1, plugins=(PLUGIN,), game=game)
    run_tournament(tour, out, workers=1, progress=False, console=quiet(), n_boot=0)
    before = snapshot(out)
    changed = dataclasses.replace(tour, players=3, seed=2)
    with pytest.raises(RunMismatchError) as err:
        run_tournament(changed, out, workers=1, progress=False, console=quiet())
    assert set(err.value.differences) == {"players", "seed"}
    assert "players: run.json has 2, now 3" in str(err.value)
    assert err.value.field == "out"
    limit = dataclasses.replace(tour, move_time_limit=1)
    with pytest.raises(RunMismatchError, match="move_time_limit"):
        run_tournament(limit, out, workers=1, progress=False, console=quiet())
    assert snapshot(out) == before
    # How the games are run is not part of a run's identity: another worker count resumes.
    resumed = run_tournament(tour, out, workers=2, progress=False, console=quiet(), report=False)
    assert resumed.played == 0 and len(resumed.results) == 4


@per_game
def test_bad_arguments_fail_before_any_file_is_written(game, tmp_path):
    out = tmp_path / "never"
    option = next(iter(game_spec(game).options()))
    cases = [
        (TournamentSpec(("random", "nobody"), 2, 4, game=game), {}, "agents"),
        (TournamentSpec(("random",), 2, 4, game_options={option: []}, game=game), {}, "game_options"),
        (TournamentSpec(("random",), 2, 4, game_options={"no_such": 1}, game=game), {},
         "game_options"),
        (TournamentSpec(("random",), 2, 4, move_time_limit=-1, game=game), {}, "move_time_limit"),
        (TournamentSpec(("random",), 2, 4, game=game), {"workers": 0}, "workers"),
        (TournamentSpec(("random",), 2, 4, game=game), {"backend": "dask"}, "backend"),
        (TournamentSpec(("random",), 2, 4, plugins=("no.such.module",), game=game), {}, "plugins"),
        (TournamentSpec(("random",), 2, 4, game="chess"), {}, "game"),
    ]  # fmt: skip
    for tour, kwargs, field_name in cases:
        with pytest.raises(TournamentError) as err:
            run_tournament(tour, out, progress=False, console=quiet(), **kwargs)
        assert err.value.field == field_name, (field_name, err.value)
    assert not out.exists()
    (tmp_path / "foreign").mkdir()
    (tmp_path / "foreign" / "games.jsonl").write_text("{}\n")
    with pytest.raises(TournamentError, match=r"no run\.json"):
        run_tournament(
            TournamentSpec(("random",), 2, 2, game=game), tmp_path / "foreign", console=quiet()
        )


@per_game
def test_unknown_game_options_name_the_games_options(game):
    with pytest.raises(TournamentError, match="unknown game options") as err:
        spec(game, game_options={"no_such_option": True}).build()
    assert err.value.field == "game_options"
    for option in game_spec(game).options():
        assert option in str(err.value)


@per_game
def test_corrupt_line_in_the_middle_is_refused(game, tmp_path):
    out = tmp_path / "run"
    tour = TournamentSpec(("random",), 2, 4, seed=3, game=game)
    run_tournament(tour, out, workers=1, progress=False, console=quiet(), report=False)
    lines = (out / "games.jsonl").read_bytes().split(b"\n")
    lines[1] = lines[1][:40]
    (out / "games.jsonl").write_bytes(b"\n".join(lines))
    with pytest.raises(TournamentError, match="line 2 is corrupt"):
        run_tournament(tour, out, workers=1, progress=False, console=quiet(), report=False)


@per_game
def test_forfeits_rank_last_and_the_run_completes(game, tmp_path):
    agents = ("random", "test-crash", "test-illegal", "test-slow:3")
    tour = TournamentSpec(agents, 2, 12, seed=4, move_time_limit=0.2, plugins=(PLUGIN,), game=game)
    start = time.perf_counter()
    result = run_tournament(
        tour, tmp_path / "f", workers=2, progress=False, console=quiet(), n_boot=0
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
        assert replay(r).scores().tolist() == list(r.final.scores)
    summary = json.loads((tmp_path / "f" / "summary.json").read_text())
    assert summary["agents"]["random"]["forfeits"] == 0
    assert summary["agents"]["random"]["win_rate"] == 1.0
    assert summary["run"]["forfeited_games"] == 12


@pytest.mark.ray
@pytest.mark.parametrize("game", harness_games())
def test_ray_backend_gives_the_records_of_the_local_backend(game, tmp_path):
    import ray

    tour = TournamentSpec(
        ("random", "test-pass", "test-first"), 2, 12, seed=8, plugins=(PLUGIN,), game=game
    )
    local = run_tournament(
        tour, tmp_path / "local", workers=2, progress=False, console=quiet(), report=False
    )
    init_local_ray()
    try:
        remote = run_tournament(
            tour, tmp_path / "ray", backend="ray", progress=False, console=quiet(), n_boot=0
        )
    finally:
        ray.shutdown()
    assert [strip_timing(r) for r in remote.records()] == [strip_timing(r) for r in local.records()]
    on_disk = sorted(read_jsonl(tmp_path / "ray" / "games.jsonl"), key=lambda r: r.game_id)
    assert [strip_timing(r) for r in on_disk] == [strip_timing(r) for r in local.records()]
    assert (tmp_path / "ray" / "summary.json").exists()


@per_game
def test_any_executor_can_run_the_games(game, tmp_path):
    from concurrent.futures import ThreadPoolExecutor

    tour = TournamentSpec(("random", "test-first"), 2, 6, seed=2, plugins=(PLUGIN,), game=game)
    with ThreadPoolExecutor(2) as pool:
        threaded = run_tournament(
            tour, tmp_path / "t", executor=pool, progress=False, console=quiet(), report=False
        )
    direct = [
        play_game(
            j.seats,
            2,
            j.seed,
            game_id=j.game_id,
            block=j.block,
            agent_seeds=j.agent_seeds,
            game=game,
        )
        for j in build_schedule(tour.agents, 2, 6, seed=2, game=game).jobs
    ]
    assert [strip_timing(r) for r in threaded.records()] == [strip_timing(r) for r in direct]


# --------------------------------------------------------------------------------------------------
# One directory, one game
# --------------------------------------------------------------------------------------------------


def test_a_run_directory_is_resumed_with_its_own_game_only(run, tmp_path):
    game, other = run.game, OTHER[run.game]
    title = game_spec(game).title
    before = {p.name: p.read_bytes() for p in run.out_dir.iterdir()}
    foreign = TournamentSpec(field(other), PLAYERS, GAMES, 5, plugins=(PLUGIN,), game=other)
    with pytest.raises(TournamentError) as err:
        prepare_tournament(foreign, run.out_dir)
    assert err.value.field == "game"
    assert f"holds a {title} run (run.json field game is {game!r})" in str(err.value)
    assert f"--game {game}" in str(err.value)
    result = CliRunner().invoke(
        app, ["tournament", "--game", other, "--agents", ",".join(field(other)),
              "--plugin", PLUGIN, "--players", str(PLAYERS), "--games", str(GAMES), "--seed", "5",
              "--out", str(run.out_dir)],
    )  # fmt: skip
    assert result.exit_code == 2
    assert f"field game is {game!r}" in " ".join(result.output.split())
    assert {p.name: p.read_bytes() for p in run.out_dir.iterdir()} == before
    # A run.json without a game field is a run of the default game.
    _, info = foreign.build()
    del info["game"]
    RunDir(tmp_path / "old").write_info(info)
    wanted = next(g for g in GAME_NAMES if g != DEFAULT_GAME)
    with pytest.raises(TournamentError) as err:
        prepare_tournament(spec(wanted), tmp_path / "old")
    assert f"(run.json field game is {DEFAULT_GAME!r})" in str(err.value)


def test_a_record_of_the_other_game_in_the_ledger_is_refused(run, tmp_path):
    game, other = run.game, OTHER[run.game]
    out = tmp_path / "copy"
    shutil.copytree(run.out_dir, out)
    lines = (out / "games.jsonl").read_text().splitlines(keepends=True)
    foreign = play_game(["random", "random"], 2, 1, game=other)
    lines[0] = foreign.to_json_line()
    (out / "games.jsonl").write_text("".join(lines))
    with pytest.raises(
        TournamentError, match=f"this is a {re.escape(game_spec(other).title)} record"
    ) as err:
        run_tournament(spec(game), out, workers=1, progress=False, console=quiet(), report=False)
    assert f"expected a {game_spec(game).title} record" in str(err.value)


@per_game
def test_a_bad_agent_spec_exits_2_naming_the_games_agents(game, tmp_path):
    out = tmp_path / "bad"
    result = CliRunner().invoke(
        app, ["tournament", "--game", game, "--agents", "random,no-such-bot", "--players", "2",
              "--games", "6", "--out", str(out)],
    )  # fmt: skip
    assert result.exit_code == 2, result.output
    text = " ".join(result.output.split())
    assert f"invalid value for --agents: unknown {game_spec(game).title} agent" in text
    for info in registry.describe(game):
        assert info.syntax in text.partition("available:")[2], info.syntax
    assert not out.exists()
    foreign = next(b for b in bots(OTHER[game]) if b not in registry.available_agents(game))
    result = CliRunner().invoke(
        app, ["tournament", "--game", game, "--agents", f"random,{foreign}", "--players", "2",
              "--games", "6", "--out", str(out)],
    )  # fmt: skip
    assert result.exit_code == 2
    assert f"is an agent of {OTHER[game]}: pass --game" in " ".join(result.output.split())
    unknown = CliRunner().invoke(app, ["tournament", "--game", "chess", "--agents", "random",
                                       "--players", "2", "--games", "2", "--out", str(out)])  # fmt: skip
    assert unknown.exit_code == 2 and all(g in unknown.output for g in GAME_NAMES)


# --------------------------------------------------------------------------------------------------
# Duels
# --------------------------------------------------------------------------------------------------


@per_game
def test_duel_sprt_stops_early_with_the_right_decision(game, tmp_path):
    out = tmp_path / "duel"
    bot = bots(game)[0]  # a scripted bot beats random (each game's agent docs)
    better = DuelSpec(bot, "random", max_pairs=500, plugins=(PLUGIN,), game=game)
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

    worse = DuelSpec("random", bot, max_pairs=500, plugins=(PLUGIN,), game=game)
    flipped = run_duel(worse, workers=1, progress=False, console=quiet())
    assert flipped.decision == "H0" and flipped.games < 2 * worse.max_pairs
    wins, draws, losses = flipped.wins_draws_losses()
    assert wins + draws / 2 < losses


@per_game
def test_a_duel_plays_seat_swapped_pairs_and_resumes_from_the_command_line(game, tmp_path):
    opponent = (bots(game) or ["test-first"])[0]
    register_agents()
    duel = DuelSpec("random", opponent, min_pairs=6, max_pairs=6, plugins=(PLUGIN,), game=game)
    result = run_duel(duel, tmp_path / "duel", workers=2, progress=False, console=quiet())
    assert result.games == 12 and result.sprt.n == 6
    records = [json.loads(line) for line in (tmp_path / "duel" / "games.jsonl").open()]
    assert [r["match"]["agents"] for r in records[:2]] == [
        ["random", opponent],
        [opponent, "random"],
    ]
    assert records[0]["seed"] == records[1]["seed"]
    assert all(r["game"] == game for r in records)
    assert json.loads((tmp_path / "duel" / "run.json").read_text())["game"] == game
    cli = CliRunner().invoke(
        app, ["duel", "random", opponent, "--game", game, "--fixed", "--max-pairs", "6",
              "--plugin", PLUGIN, "--workers", "2", "--out", str(tmp_path / "duel"),
              "--no-progress"],
    )  # fmt: skip
    assert cli.exit_code == 0, cli.output
    assert "resuming: 6 pairs already played" in cli.output


@per_game
def test_duel_rejects_bad_arguments(game):
    for duel, field_name in [
        (DuelSpec("random", "random", game=game), "agents"),
        (DuelSpec("random", "nobody", game=game), "agents"),
        (DuelSpec("random", "test-first", p0=0.6, p1=0.55, plugins=(PLUGIN,), game=game), "sprt"),
        (DuelSpec("random", "test-first", min_pairs=10, max_pairs=5, game=game), "max_pairs"),
        (DuelSpec("random", "test-first", game="chess"), "game"),
    ]:
        with pytest.raises(TournamentError) as err:
            run_duel(duel, progress=False, console=quiet())
        assert err.value.field == field_name


def test_run_dir_reads_nothing_from_a_fresh_directory(tmp_path):
    assert RunDir(tmp_path / "new").read_info() is None
    assert not (tmp_path / "new").exists()


# --------------------------------------------------------------------------------------------------
# Replaying forfeits, extending runs, cold compile caches
# --------------------------------------------------------------------------------------------------


@per_game
def test_replay_forfeits_replaces_the_forfeited_records_in_place(game, tmp_path, monkeypatch):
    tour = TournamentSpec(("random", "test-flaky"), 2, 4, seed=6, plugins=(PLUGIN,), game=game)
    out = tmp_path / "run"
    monkeypatch.setenv(FLAKY_ENV, "1")  # the spawned workers inherit it: every game forfeits
    first = run_tournament(tour, out, workers=2, progress=False, console=quiet(), n_boot=0)
    assert [r.final.end for r in first.records()] == ["forfeit"] * 4
    monkeypatch.delenv(FLAKY_ENV)
    resumed = run_tournament(tour, out, workers=2, progress=False, console=quiet(), n_boot=0)
    assert resumed.played == 0  # resuming alone does not replay forfeits
    replayed = run_tournament(
        tour, out, workers=2, progress=False, console=quiet(), n_boot=0, replay_forfeits=True
    )
    assert replayed.played == 4 and replayed.replayed == 4
    lines_before = (out / "games.jsonl").read_bytes().count(b"\n")
    records = sorted(read_jsonl(out / "games.jsonl"), key=lambda r: r.game_id)
    assert lines_before == 4 and [r.game_id for r in records] == [0, 1, 2, 3]  # one per game
    assert all(r.final.end != "forfeit" for r in records)
    clean = run_tournament(
        tour, tmp_path / "clean", workers=1, progress=False, console=quiet(), report=False
    )
    assert [strip_timing(r) for r in records] == [strip_timing(r) for r in clean.records()]
    summary = json.loads((out / "summary.json").read_text())
    assert summary["run"]["forfeited_games"] == 0
    assert all(r["end"] != "forfeit" for r in replayed.results)


@per_game
def test_a_run_extends_to_more_games_without_replaying_and_refuses_other_changes(game, tmp_path):
    out = tmp_path / "run"
    tour = TournamentSpec(("random", "test-first"), 2, 4, seed=2, plugins=(PLUGIN,), game=game)
    run_tournament(tour, out, workers=1, progress=False, console=quiet(), report=False)
    before = (out / "games.jsonl").read_bytes()
    longer = dataclasses.replace(tour, games=8)
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
        run_tournament(tour, out, workers=1, progress=False, console=quiet())
    assert set(err.value.differences) == {"games"}
    other = dataclasses.replace(tour, games=12, seed=3)
    with pytest.raises(RunMismatchError) as err:  # more games with another seed is refused
        run_tournament(other, out, workers=1, progress=False, console=quiet())
    assert {"seed", "games"} <= set(err.value.differences)
    limit = dataclasses.replace(tour, games=12, move_time_limit=2.0)
    with pytest.raises(RunMismatchError) as err:
        run_tournament(limit, out, workers=1, progress=False, console=quiet())
    assert set(err.value.differences) == {"move_time_limit"}
    assert snapshot(out) == snap


COLD_GAME = """
import sys
from agents.tournament.arena import play_game
from agents.tournament.moveclock import compile_clock
clock = compile_clock()
record = play_game(["random", "random"], 2, 5, move_time_limit=0.05, game=sys.argv[1])
assert clock.compiles > 0, "the cache was not cold"
sys.stdout.write(record.to_json_line())
"""


def test_a_cold_compile_cache_changes_no_game_and_no_summary(tmp_path):
    """The compile clock's mechanism, on the default game (every game's kernels go through the
    same numba cache and the same clock)."""
    game = DEFAULT_GAME
    env = {**os.environ, "NUMBA_CACHE_DIR": str(tmp_path / "numba-cache")}
    # One game, compiled from scratch inside timed moves of 0.05 s: the timer must neither
    # interrupt the compiler nor count its time, so the game is the warm game.
    cold = subprocess.run(
        [sys.executable, "-c", COLD_GAME, game], cwd=REPO, env=env, capture_output=True, text=True
    )
    assert cold.returncode == 0, cold.stderr
    assert "Exception ignored" not in cold.stderr
    warm = play_game(["random", "random"], 2, 5, move_time_limit=0.05, game=game)
    assert strip_timing(GameRecord.from_json(cold.stdout)) == strip_timing(warm)
    assert warm.final.end == "terminated"

    # The same cache: the engine is in it now, the bot's kernels are not, so the first run
    # still compiles (and says so) and the second does not.
    args = [
        sys.executable, "-m", "caylus_cli", "tournament", "--game", game,
        "--agents", f"random,{bots(game)[0]}", "--players", "2", "--games", "6", "--seed", "1",
        "--workers", "2", "--no-progress", "--bootstrap", "20", "--move-time-limit", "0.5",
    ]  # fmt: skip
    runs = {}
    for name in ("cold", "warm"):
        done = subprocess.run(
            [*args, "--out", str(tmp_path / name)],
            cwd=REPO,
            env=env,
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


# --------------------------------------------------------------------------------------------------
# Run directories written before games had names (tests/legacy)
# --------------------------------------------------------------------------------------------------


def _legacy_spec(info: dict[str, Any], games: int | None = None) -> TournamentSpec:
    return TournamentSpec(
        tuple(info["agents"]),
        info["players"],
        info["games"] if games is None else games,
        info["seed"],
        info["seating"],
        info["move_time_limit"],
        info["game_options"],
        tuple(info["plugins"]),
        game_of(info),
    )


@pytest.mark.parametrize("name", LEGACY_RUNS)
def test_an_old_run_directory_reads_replays_and_refuses_to_mix_engine_versions(name, tmp_path):
    """A run directory written by the engine before the games became peers (version 0.1.0):
    its records (an old record format) load and replay, its results feed the statistics, and
    a resume with this engine is refused naming both versions, since one run holds the games of
    one engine (``run.json``'s ``engine``); nothing of the directory changes."""
    out = tmp_path / name
    shutil.copytree(LEGACY / name, out)
    before = {p.name: p.read_bytes() for p in out.iterdir()}
    info = json.loads(before["run.json"])
    game = game_of(info)
    old = sorted(read_jsonl(out / "games.jsonl"), key=lambda r: r.game_id)
    assert len(old) == info["scheduled_games"] and all(r.game == game for r in old)
    for record in old:
        assert replay(record).is_over()
    results = load_results(out / "games.jsonl")
    assert [list(r.scores) for r in results] == [list(r.final.scores) for r in old]
    with pytest.raises(RunMismatchError, match=f'engine: run.json has "{info["engine"]}", now'):
        run_tournament(_legacy_spec(info), out, workers=1, progress=False, console=quiet())
    assert {p.name: p.read_bytes() for p in out.iterdir()} == before


# -- the spec's fields are the command's options ---------------------------------------------
#: The spec's fields whose option every command shares (``caylus_cli.app``), by option name.
SHARED_OPTIONS = {
    "seed": "--seed",
    "move_time_limit": "--move-time-limit",
    "game_options": "--option",
    "plugins": "--plugin",
    "game": "--game",
}


def test_every_tournament_spec_field_is_an_option_of_caylus_tournament():
    from typer.main import get_command

    from agents.tournament.specs import MOVE_TIME_LIMIT

    command = get_command(app).commands["tournament"]
    options = {p.name: p for p in command.params}
    fields = dataclasses.fields(TournamentSpec)
    assert [p.name for p in command.params][: len(fields)] == [f.name for f in fields]
    for f in fields:
        option = options[f.name]
        if f.name in SHARED_OPTIONS:
            assert option.opts == [SHARED_OPTIONS[f.name]], f.name
        else:
            assert option.help == f.metadata["help"], f.name
    assert options["move_time_limit"].default == MOVE_TIME_LIMIT
    assert options["seating"].opts == ["--permutations"]
    assert options["seating"].secondary_opts == ["--rotations"]
    assert options["agents"].required and options["players"].required


def test_a_tournaments_default_time_limit_is_the_arenas():
    from agents.tournament.arena import DEFAULT_MOVE_TIME_LIMIT
    from agents.tournament.specs import MOVE_TIME_LIMIT

    spec = TournamentSpec(("random",), 2, 2)
    assert spec.move_time_limit == MOVE_TIME_LIMIT == DEFAULT_MOVE_TIME_LIMIT


def test_the_tournament_spec_loads_without_the_arena():
    code = (
        "import sys\nfrom agents.tournament.specs import TournamentSpec\n"
        "loaded = {'numba', 'agents.tournament.arena'} & set(sys.modules)\n"
        "assert not loaded, loaded\n"
        "from agents.tournament import play_game, build_schedule, TournamentSpec as T\n"
        "assert T is TournamentSpec and 'agents.tournament.arena' in sys.modules\n"
    )
    proc = subprocess.run([sys.executable, "-c", code], cwd=REPO, capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr


def test_the_tournament_command_builds_the_spec_from_its_options(monkeypatch, tmp_path):
    import agents.tournament.runner as runner

    seen = {}

    def prepare(spec, out, **kwargs):
        seen["spec"] = spec
        raise TournamentError("out", "stop here")

    monkeypatch.setattr(runner, "prepare_tournament", prepare)
    args = ["tournament", "--agents", "random, castle", "--players", "3", "--games", "6"]
    args += ["--out", str(tmp_path / "t"), "--permutations", "--option", "jeweller=true"]
    args += ["--move-time-limit", "0", "--seed", "4"]
    result = CliRunner().invoke(app, args)
    assert result.exit_code == 2 and "stop here" in result.output
    assert seen["spec"] == TournamentSpec(
        ("random", "castle"),
        3,
        6,
        seed=4,
        seating="permutations",
        move_time_limit=0.0,
        game_options={"jeweller": True},
        plugins=(),
        game="caylus",
    )
