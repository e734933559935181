"""The ``caylus`` command line through typer's CliRunner: every command once, and the error paths
(exit code 2 with a message naming the option, before any work)."""

from __future__ import annotations

import json
import re
import sys
import types

import pytest
from typer.testing import CliRunner

from agents import registry
from agents.tournament.arena import play_game
from caylus_cli.app import app

PLUGIN = "agents.tournament.testing"
runner = CliRunner()
LISTED = re.compile(r"^\s*\d+\. turn \d+ player \d+ \(")


@pytest.fixture(autouse=True)
def _private_registry(monkeypatch: pytest.MonkeyPatch) -> None:
    """Keep the test agents registered here out of the registry seen by other test modules."""
    for name, copy in (("_FACTORIES", dict), ("_NEEDS_ARG", set)):
        if hasattr(registry, name):  # private to the registry: isolate when it is there
            monkeypatch.setattr(registry, name, copy(getattr(registry, name)))


def invoke(*args: str):
    return runner.invoke(app, [str(a) for a in args])


def test_agents_lists_the_registry_and_plugins():
    plain = invoke("agents")
    assert plain.exit_code == 0
    assert "random" in plain.output.split()
    with_plugin = invoke("agents", "--plugin", PLUGIN)
    assert with_plugin.exit_code == 0
    assert {"random", "test-pass", "test-slow:ARG"} <= set(with_plugin.output.split())


def test_play_runs_a_game_to_the_end_and_prints_the_result():
    result = invoke(
        "play", "--agents", "random,random", "--players", "2", "--seed", "3", "--no-step"
    )
    assert result.exit_code == 0, result.output
    expected = play_game(["random", "random"], 2, 3, agent_seeds=[3, 4])
    lines = result.output.splitlines()
    decisions = [line for line in lines if line.startswith("turn ") and " -> " in line]
    assert len(decisions) == len(expected["actions"])
    assert [line.split(" -> ")[1] for line in decisions] == expected["action_names"]
    assert "player 0 (random)" in decisions[0] or "player 1 (random)" in decisions[0]
    for p in range(2):
        assert (
            f"player {p} (random): prestige {expected['prestige'][p]}, "
            f"rank {expected['ranks'][p]:g}" in result.output
        )
    assert "Game over" in result.output


def test_play_rejects_bad_arguments():
    for args, needle in [
        (("--agents", "random", "--players", "7"), "--players"),
        (("--agents", "random,nobody", "--players", "2"), "unknown agent 'nobody'"),
        (("--agents", "random,random,random", "--players", "2"), "3 agents for 2 seats"),
    ]:
        result = invoke("play", *args)
        assert result.exit_code == 2 and needle in result.output, result.output


def test_replay_checks_and_shows_a_record(tmp_path):
    record = play_game(["random", "random", "random"], 3, 6, game_id=0)
    single = tmp_path / "game.json"
    single.write_text(json.dumps(record))
    result = invoke("replay", single, "--show")
    assert result.exit_code == 0, result.output
    assert "game 0 replayed" in result.output
    listed = [line for line in result.output.splitlines() if LISTED.match(line)]
    assert len(listed) == len(record["actions"])
    assert listed[0].split(": ", 1)[1] == record["action_names"][0]
    quiet = invoke("replay", single, "--quiet")
    assert quiet.exit_code == 0 and len(quiet.output) < len(result.output)

    ledger = tmp_path / "games.jsonl"
    others = [play_game(["random", "random"], 2, s, game_id=s) for s in (10, 11)]
    ledger.write_text("".join(json.dumps(r) + "\n" for r in others))
    picked = invoke("replay", ledger, "--game-id", "11")
    assert picked.exit_code == 0 and "game 11 replayed" in picked.output
    missing = invoke("replay", ledger, "--game-id", "99")
    assert missing.exit_code == 2 and "no game 99" in missing.output


def test_replay_refuses_malformed_and_tampered_records(tmp_path):
    broken = tmp_path / "broken.jsonl"
    good = play_game(["random", "random"], 2, 1)
    broken.write_text(json.dumps(good) + "\n" + '{"game_id": 1, "actions": [1, 2\n')
    result = invoke("replay", broken)
    assert result.exit_code == 2 and "line 2 is not valid JSON" in result.output
    not_records = tmp_path / "list.json"
    not_records.write_text("[1, 2, 3]")
    assert invoke("replay", not_records).exit_code == 2
    assert invoke("replay", tmp_path / "absent.json").exit_code == 2
    tampered = dict(good, prestige=[p + 1 for p in good["prestige"]])
    tampered["final"] = {"prestige": tampered["prestige"], "ranks": good["ranks"]}
    bad = tmp_path / "tampered.json"
    bad.write_text(json.dumps(tampered))
    result = invoke("replay", bad)
    assert result.exit_code == 1 and "does not replay" in result.output


def test_tournament_command_runs_and_refuses_a_mismatched_directory(tmp_path):
    out = tmp_path / "run"
    args = ["tournament", "--agents", "random,test-first", "--plugin", PLUGIN, "--players", "2"]
    result = invoke(
        *args, "--games", "3", "--out", out, "--workers", "1", "--no-progress", "--bootstrap", "5"
    )
    assert result.exit_code == 0, result.output
    assert "4 games in 2 blocks" in result.output and "rounded up" in result.output
    assert len((out / "games.jsonl").read_text().splitlines()) == 4
    for name in ("summary.json", "report.md", "ratings.png", "head_to_head.png"):
        assert (out / name).exists()
    before = {p.name: p.read_bytes() for p in out.iterdir()}
    mismatch = invoke(*args, "--games", "3", "--out", out, "--seed", "5", "--workers", "1")
    assert mismatch.exit_code == 2
    assert "--out" in mismatch.output and "seed: run.json has 0, now 5" in mismatch.output
    assert {p.name: p.read_bytes() for p in out.iterdir()} == before


@pytest.mark.parametrize(
    ("args", "needle"),
    [
        (("--agents", "random,nobody", "--players", "2", "--games", "4"), "unknown agent"),
        (("--agents", "random", "--players", "1", "--games", "4"), "--players"),
        (("--agents", "random", "--players", "6", "--games", "4"), "2 to 5"),
        (("--agents", "random", "--players", "2", "--games", "0"), "--games"),
        (("--agents", "random", "--players", "2", "--games", "4", "--workers", "0"), "--workers"),
        (("--agents", "random", "--players", "2", "--games", "4", "--backend", "mpi"), "--backend"),
        (("--agents", "random", "--players", "2", "--games", "4", "--option", "x"), "--option"),
        (
            ("--agents", "random", "--players", "2", "--games", "4", "--plugin", "no_such"),
            "--plugin",
        ),
    ],
)
def test_tournament_bad_arguments_exit_2_before_any_work(tmp_path, args, needle):
    out = tmp_path / "out"
    result = invoke("tournament", *args, "--out", out)
    assert result.exit_code == 2, result.output
    assert needle in result.output and result.output.startswith("Error:")
    assert not out.exists()


def test_duel_command_decides_and_validates(tmp_path):
    out = tmp_path / "duel"
    result = invoke(
        "duel", "test-pass", "random", "--plugin", PLUGIN, "--workers", "1", "--out", out,
        "--no-progress", "--max-pairs", "200",
    )  # fmt: skip
    assert result.exit_code == 0, result.output
    assert "H1 accepted" in result.output and "LLR" in result.output
    assert "40 games in 20 pairs" in result.output
    assert json.loads((out / "duel.json").read_text())["sprt"]["decision"] == "H1"
    same = invoke("duel", "random", "random")
    assert same.exit_code == 2 and "two different agents" in same.output
    bounds = invoke("duel", "random", "test-pass", "--plugin", PLUGIN, "--p0", "0.6", "--p1", "0.5")
    assert bounds.exit_code == 2 and "p0" in bounds.output
    mismatch = invoke(
        "duel", "test-pass", "random", "--plugin", PLUGIN, "--out", out, "--seed", "1"
    )
    assert mismatch.exit_code == 2 and "seed" in mismatch.output


def test_bench_delegates_to_the_benchmark_module(monkeypatch):
    calls = []
    fake = types.ModuleType("caylus_env.benchmark")
    fake.main = lambda **kwargs: calls.append(kwargs)
    monkeypatch.setitem(sys.modules, "caylus_env.benchmark", fake)
    monkeypatch.setattr(sys.modules["caylus_env"], "benchmark", fake, raising=False)
    result = invoke("bench", "--repeats", "2", "--players", "2,4", "--quick")
    assert result.exit_code == 0, result.output
    assert calls == [{"quick": True, "repeats": 2, "players": [2, 4]}]
    assert invoke("bench", "--players", "2,9").exit_code == 2
    assert invoke("bench", "--repeats", "0").exit_code == 2
    assert len(calls) == 1
