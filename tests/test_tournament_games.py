"""The tournament harness on Puerto Rico: ``caylus tournament --game puerto_rico`` and ``duel``.

The same harness as ``tests/test_tournament.py`` (seat-balanced schedule, workers, resume after
SIGKILL, forfeits, reports), run on the second game through ``agents.tournament.games``. Runs
are real: worker processes are spawned and the resume test kills a running command. Agents
are ``random``, the Puerto Rico registry's bots that take no argument, and the game-generic
``test-*`` agents of the ``agents.tournament.testing`` plugin.
"""

from __future__ import annotations

import io
import json
import os
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

from agents.tournament.arena import play_game
from agents.tournament.duel import DuelSpec, run_duel
from agents.tournament.games import tournament_game
from agents.tournament.runner import (
    RunDir,
    TournamentError,
    TournamentSpec,
    prepare_tournament,
    run_tournament,
)
from agents.tournament.testing import register_agents
from caylus_cli.app import app
from caylus_env._version import __version__
from caylus_env.core.registry import game_info
from caylus_env.puerto_rico.engine import Game, GameConfig, GameRecord, replay
from caylus_env.puerto_rico.engine.game import RECORD_FORMAT

GAME = "puerto_rico"
PLUGIN = "agents.tournament.testing"
REPO = Path(__file__).resolve().parents[1]
PLAYERS = 3
GAMES = 36
RESULT_FILES = ("summary.json", "report.md")
"""The files a run writes from its games alone (timings never enter them)."""


def quiet() -> Console:
    return Console(file=io.StringIO(), width=120)


def registry() -> Any:
    return game_info(GAME).agents_module()


def bots() -> list[str]:
    """The registry's bots that take no argument, besides random (its scripted bots)."""
    return [
        info.head
        for info in registry().describe()
        if not info.needs_arg and info.head != "random" and not info.head.startswith("test-")
    ]


def agents() -> tuple[str, ...]:
    """random plus the bots, then game-generic test agents while there are fewer agents than
    seats."""
    names = ["random", *bots()]
    if len(names) < PLAYERS:
        register_agents()
        names += ["test-first", "test-slow:0"][: PLAYERS - len(names)]
    return tuple(names)


def spec(**changes: Any) -> TournamentSpec:
    base = {
        "agents": agents(),
        "players": PLAYERS,
        "games": GAMES,
        "seed": 5,
        "plugins": (PLUGIN,),
        "game": GAME,
    }
    return TournamentSpec(**{**base, **changes})


def without_timings(line: str) -> dict[str, Any]:
    data = json.loads(line)
    data.pop("timings")
    return data


def ledger(path: Path) -> list[dict[str, Any]]:
    """The records of a games.jsonl in game order, without their timings."""
    rows = [without_timings(line) for line in path.read_text().splitlines() if line.strip()]
    return sorted(rows, key=lambda r: r["match"]["game_id"])


@pytest.fixture(scope="module")
def pr_run(tmp_path_factory: pytest.TempPathFactory) -> Any:
    out = tmp_path_factory.mktemp("pr") / "run"
    return run_tournament(spec(), out, workers=2, progress=False, console=quiet(), n_boot=20)


# --------------------------------------------------------------------------------------------------
# A tournament
# --------------------------------------------------------------------------------------------------


def test_a_puerto_rico_tournament_completes_with_seat_balanced_standings(pr_run):
    results = pr_run.results
    assert len(results) == pr_run.schedule.games >= GAMES
    assert [r["game_id"] for r in results] == list(range(len(results)))
    seats = Counter((seat, agent) for r in results for seat, agent in enumerate(r["seats"]))
    assert {agent for _, agent in seats} == set(agents())
    assert len(set(seats.values())) == 1, f"agents sit unevenly: {seats}"
    assert len(seats) == PLAYERS * len(agents())
    standings = pr_run.summary["agents"]
    assert set(standings) == set(agents())
    assert len({a["games"] for a in standings.values()}) == 1
    info = json.loads((pr_run.out_dir / "run.json").read_text())
    assert info["game"] == GAME and list(info)[:3] == ["format", "kind", "game"]
    assert info["game_options"] == {
        k: v for k, v in GameConfig().to_dict().items() if k != "num_players"
    }


def test_its_records_are_puerto_rico_records_that_replay_to_their_scores(pr_run):
    lines = (pr_run.out_dir / "games.jsonl").read_text().splitlines()
    records = pr_run.records()
    assert len(records) == len(lines) == len(pr_run.results)
    for line, record, result in zip(sorted(lines), records, pr_run.results, strict=False):
        assert json.loads(line)["format"] == RECORD_FORMAT
        assert (record.game, record.engine) == (GAME, __version__)
        game = replay(GameRecord.from_dict(json.loads(record_line(record))))
        assert game.scores().tolist() == record.final["scores"] == result["prestige"]
        assert game.ranks().tolist() == record.final["ranks"] == result["ranks"]
        assert record.final["end"] in ("terminated", "truncated")
        assert record.match["agents"] == result["seats"]
        assert record.timings["wall_time_s"] >= 0


def record_line(record: GameRecord) -> str:
    return json.dumps(record.to_dict())


def test_its_reports_link_puerto_rico_replay_pages_and_say_what_the_scores_are(pr_run):
    out = pr_run.out_dir
    for name in ("summary.json", "report.md", "report.html", "ratings.png", "head_to_head.png"):
        assert (out / name).exists(), name
    report = (out / "report.md").read_text()
    assert "## Puerto Rico" in report and "victory points" in report
    page = (out / "report.html").read_text()
    assert "victory points" in page
    pages = sorted(out.glob("game-*.html"))
    assert pages, "a Puerto Rico run writes replay pages of its sampled games"
    records = {r.match["game_id"]: r for r in pr_run.records()}
    for path in pages:
        assert f'href="{path.name}"' in page, path.name
        html = path.read_text()
        assert "<svg" in html and "http://" not in html.replace("http://www.w3.org", "")
        gid = int(path.stem.split("-")[1])
        for seat, agent in enumerate(records[gid].match["agents"]):
            assert agent in html, (gid, seat, agent)


def test_the_same_command_twice_writes_identical_results(pr_run, tmp_path):
    again = run_tournament(
        spec(), tmp_path / "again", workers=1, progress=False, console=quiet(), n_boot=20
    )
    for name in RESULT_FILES:
        assert (again.out_dir / name).read_bytes() == (pr_run.out_dir / name).read_bytes(), name
    assert ledger(again.out_dir / "games.jsonl") == ledger(pr_run.out_dir / "games.jsonl")


def test_a_killed_run_resumes_to_the_results_of_an_uninterrupted_one(tmp_path):
    out = tmp_path / "killed"
    args = [
        sys.executable, "-m", "caylus_cli", "tournament", "--game", GAME,
        "--agents", "random,test-slow:0.05", "--players", "2", "--games", "48",
        "--seed", "9", "--workers", "2", "--plugin", PLUGIN, "--bootstrap", "0",
        "--out", str(out), "--no-progress",
    ]  # fmt: skip
    games = out / "games.jsonl"
    proc = subprocess.Popen(
        args, cwd=REPO, start_new_session=True, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE
    )
    try:
        deadline = time.monotonic() + 60
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
        handle.write(b'{"format": "puerto-rico-record/1", "game": "puerto_rico", "seed": 1')

    rerun = subprocess.run(args, cwd=REPO, capture_output=True, text=True, timeout=120)
    assert rerun.returncode == 0, rerun.stderr
    assert "dropped a torn last line" in rerun.stdout
    assert f"resuming: {done_before} of 48" in rerun.stdout.replace("\n", " ")

    clean = run_tournament(
        TournamentSpec(("random", "test-slow:0.05"), 2, 48, 9, plugins=(PLUGIN,), game=GAME),
        tmp_path / "clean",
        workers=2,
        progress=False,
        console=quiet(),
        n_boot=0,
    )
    assert ledger(games) == ledger(clean.out_dir / "games.jsonl")
    assert (out / "summary.json").read_bytes() == (clean.out_dir / "summary.json").read_bytes()


# --------------------------------------------------------------------------------------------------
# Refusals
# --------------------------------------------------------------------------------------------------


def test_a_run_directory_is_resumed_with_its_own_game_only(pr_run, tmp_path):
    before = {p.name: p.read_bytes() for p in pr_run.out_dir.iterdir()}
    caylus = TournamentSpec(("random", "castle", "town"), PLAYERS, GAMES, 5)
    with pytest.raises(TournamentError) as err:
        prepare_tournament(caylus, pr_run.out_dir)
    assert err.value.field == "game"
    assert "run.json field game is 'puerto_rico'" in str(err.value)
    assert "--game puerto_rico" in str(err.value)
    result = CliRunner().invoke(
        app, ["tournament", "--agents", "random,castle,town", "--players", "3", "--games", "36",
              "--seed", "5", "--out", str(pr_run.out_dir)],
    )  # fmt: skip
    assert result.exit_code == 2
    assert "field game is 'puerto_rico'" in " ".join(result.output.split())
    assert {p.name: p.read_bytes() for p in pr_run.out_dir.iterdir()} == before

    # And a Caylus run directory (run.json without a game field) refuses Puerto Rico.
    _, info = caylus.build()
    RunDir(tmp_path / "caylus").write_info(info)
    with pytest.raises(TournamentError) as err:
        prepare_tournament(spec(), tmp_path / "caylus")
    assert err.value.field == "game"
    assert "holds a Caylus run (run.json field game is 'caylus')" in str(err.value)


def test_a_record_of_the_other_game_in_the_ledger_is_refused(pr_run, tmp_path):
    out = tmp_path / "copy"
    shutil.copytree(pr_run.out_dir, out)
    lines = (out / "games.jsonl").read_text().splitlines(keepends=True)
    first = json.loads(lines[0])
    first.update(format="caylus-record/2", game="caylus")
    lines[0] = json.dumps(first) + "\n"
    (out / "games.jsonl").write_text("".join(lines))
    with pytest.raises(TournamentError, match="this is a Caylus record") as err:
        run_tournament(spec(), out, workers=1, progress=False, console=quiet(), report=False)
    assert "expected a Puerto Rico record" in str(err.value)
    with pytest.raises(ValueError, match="this is a Puerto Rico record"):
        tournament_game("caylus").parse(lines[1])


def test_a_bad_agent_spec_for_puerto_rico_exits_2_naming_its_agents(tmp_path):
    out = tmp_path / "bad"
    result = CliRunner().invoke(
        app, ["tournament", "--game", GAME, "--agents", "random,no-such-bot", "--players", "3",
              "--games", "6", "--out", str(out)],
    )  # fmt: skip
    assert result.exit_code == 2, result.output
    text = " ".join(result.output.split())
    assert "invalid value for --agents: Puerto Rico: unknown agent 'no-such-bot'" in text
    for info in registry().describe():
        assert info.head in text.partition("available:")[2], info.head
    assert not out.exists()
    unknown = CliRunner().invoke(app, ["tournament", "--game", "chess", "--agents", "random",
                                       "--players", "2", "--games", "2", "--out", str(out)])  # fmt: skip
    assert unknown.exit_code == 2 and "puerto_rico" in unknown.output


def test_unknown_game_options_name_the_puerto_rico_options():
    with pytest.raises(TournamentError, match="allowed: max_decisions, expansion") as err:
        spec(game_options={"jeweller": True}).build()
    assert err.value.field == "game_options"


# --------------------------------------------------------------------------------------------------
# Forfeits, duels
# --------------------------------------------------------------------------------------------------


def test_forfeits_rank_the_forfeiting_seat_last_and_replay():
    register_agents()
    cases = {
        "test-crash": "error: RuntimeError",
        "test-illegal": "illegal action",
        "test-slow:0.3": "timeout",
    }
    for bad, reason in cases.items():
        record = play_game(["random", bad, "random"], seed=3, move_time_limit=0.05, game=GAME)
        assert record.final["end"] == "forfeit"
        assert record.match["forfeits"][1].startswith(reason), record.match["forfeits"]
        assert record.final["ranks"][1] == 3.0
        game = replay(GameRecord.from_dict(json.loads(json.dumps(record.to_dict()))))
        assert not game.is_terminal()
        assert game.scores().tolist() == record.final["scores"]


def test_a_record_that_ends_by_forfeit_needs_a_forfeiting_seat():
    record = Game(GameConfig(num_players=2), seed=1).record().to_dict()
    assert set(record) == {
        "format",
        "game",
        "engine",
        "options",
        "seed",
        "start_state",
        "actions",
        "action_names",
        "final",
    }  # fmt: skip  (the engine's own records keep their shape)
    record["final"] = {"end": "forfeit", "scores": [0, 0], "ranks": [1.5, 1.5]}
    with pytest.raises(ValueError, match=r"match\.forfeits names no seat"):
        GameRecord.from_dict(record)
    record["match"] = {"game_id": 0, "block": 0, "agents": ["a", "b"], "agent_seeds": [1, 2],
                       "forfeits": [None]}  # fmt: skip
    with pytest.raises(ValueError, match=r"match.forfeits is \[None\]; allowed: a list of one"):
        GameRecord.from_dict(record)


def test_a_puerto_rico_duel_plays_seat_swapped_pairs(tmp_path):
    opponent = (bots() or ["test-first"])[0]
    register_agents()
    duel = DuelSpec("random", opponent, min_pairs=6, max_pairs=6, plugins=(PLUGIN,), game=GAME)
    result = run_duel(duel, tmp_path / "duel", workers=2, progress=False, console=quiet())
    assert result.games == 12 and result.sprt.n == 6
    records = [json.loads(line) for line in (tmp_path / "duel" / "games.jsonl").open()]
    assert [r["match"]["agents"] for r in records[:2]] == [
        ["random", opponent],
        [opponent, "random"],
    ]
    assert records[0]["seed"] == records[1]["seed"]
    assert all(r["game"] == GAME for r in records)
    assert json.loads((tmp_path / "duel" / "run.json").read_text())["game"] == GAME
    cli = CliRunner().invoke(
        app, ["duel", "random", opponent, "--game", GAME, "--fixed", "--max-pairs", "6",
              "--plugin", PLUGIN, "--workers", "2", "--out", str(tmp_path / "duel"),
              "--no-progress"],
    )  # fmt: skip
    assert cli.exit_code == 0, cli.output
    assert "resuming: 6 pairs already played" in cli.output
