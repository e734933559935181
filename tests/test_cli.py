"""The ``caylus`` command line through typer's CliRunner: every command once, and the error paths
(exit code 2 with a message naming the option, before any work)."""

from __future__ import annotations

import json
import math
import os
import re
import subprocess
import sys
import types
from pathlib import Path

import pytest
from typer.testing import CliRunner

from agents import registry
from agents.tournament.arena import play_game
from caylus_cli.app import app

PLUGIN = "agents.tournament.testing"
runner = CliRunner()
LISTED = re.compile(r"^\s*\d+\. turn \d+ player \d+ \(")


pytestmark = pytest.mark.usefixtures("private_registry")


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
    assert len(decisions) == len(expected.actions)
    assert [line.split(" -> ")[1] for line in decisions] == list(expected.action_names)
    assert "player 0 (random)" in decisions[0] or "player 1 (random)" in decisions[0]
    for p in range(2):
        assert (
            f"player {p} (random): prestige {expected.final.prestige[p]}, "
            f"rank {expected.final.ranks[p]:g}" in result.output
        )
    assert "Game over" in result.output


def test_play_rejects_bad_arguments():
    for args, needle in [
        (("--agents", "random", "--players", "7"), "--players"),
        (("--agents", "random,nobody", "--players", "2"), "unknown agent 'nobody'"),
        (
            ("--agents", "random,castle,town", "--players", "2"),
            "3 agents (random, castle, town) given for --players 2; give at most 2",
        ),
        (("--agents", "castle"), "1 agent (castle) given and no --players"),
        (("--agents", "random,random,town,castle,economy,random"), "6 agents"),
    ]:
        result = invoke("play", *args)
        assert result.exit_code == 2 and needle in result.output, result.output
        if "--players" not in args:  # never blame an option the user did not pass
            assert "invalid value for --players" not in result.output
            assert "give one agent per seat, or --players N" in result.output


def test_replay_checks_and_shows_a_record(tmp_path):
    record = play_game(["random", "random", "random"], 3, 6, game_id=0)
    single = tmp_path / "game.json"
    single.write_text(json.dumps(record.to_dict()))
    result = invoke("replay", single, "--show")
    assert result.exit_code == 0, result.output
    assert "game 0 replayed" in result.output
    listed = [line for line in result.output.splitlines() if LISTED.match(line)]
    assert len(listed) == len(record.actions)
    assert listed[0].split(": ", 1)[1] == record.action_names[0]
    quiet = invoke("replay", single, "--quiet")
    assert quiet.exit_code == 0 and len(quiet.output) < len(result.output)

    ledger = tmp_path / "games.jsonl"
    others = [play_game(["random", "random"], 2, s, game_id=s) for s in (10, 11)]
    ledger.write_text("".join(json.dumps(r.to_dict()) + "\n" for r in others))
    picked = invoke("replay", ledger, "--game-id", "11")
    assert picked.exit_code == 0 and "game 11 replayed" in picked.output
    missing = invoke("replay", ledger, "--game-id", "99")
    assert missing.exit_code == 2
    assert "no game 99 in" in missing.output and "it holds 2 games, ids 10 to 11" in missing.output


def test_replay_refuses_malformed_and_tampered_records(tmp_path):
    broken = tmp_path / "broken.jsonl"
    good = play_game(["random", "random"], 2, 1)
    broken.write_text(json.dumps(good.to_dict()) + "\n" + '{"game_id": 1, "actions": [1, 2\n')
    result = invoke("replay", broken)
    assert result.exit_code == 2, result.output
    assert "line 2" in result.output and "valid JSON" in result.output
    not_records = tmp_path / "list.json"
    not_records.write_text("[1, 2, 3]")
    assert invoke("replay", not_records).exit_code == 2
    assert invoke("replay", tmp_path / "absent.json").exit_code == 2
    tampered = good.to_dict()
    tampered["final"]["prestige"] = [p + 1 for p in good.final.prestige]
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
    # test-pass wins every pair, and each won pair adds ln(p1 / p0) to the LLR (a Bernoulli
    # streak): H1 is accepted at the first pair past the upper bound ln((1 - beta) / alpha).
    pairs = math.ceil(math.log(0.95 / 0.05) / math.log(0.55 / 0.5))
    assert f"{2 * pairs} games in {pairs} pairs" in result.output
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
    fake = types.ModuleType("caylus_env.core.benchmark")
    fake.main = lambda **kwargs: calls.append(kwargs)
    monkeypatch.setitem(sys.modules, "caylus_env.core.benchmark", fake)
    monkeypatch.setattr(sys.modules["caylus_env"], "benchmark", fake, raising=False)
    result = invoke("bench", "--repeats", "2", "--players", "2,4", "--quick")
    assert result.exit_code == 0, result.output
    assert calls == [{"quick": True, "repeats": 2, "players": [2, 4]}]
    assert invoke("bench", "--players", "2,9").exit_code == 2
    assert invoke("bench", "--repeats", "0").exit_code == 2
    assert len(calls) == 1


# -- agents table and the registry API ------------------------------------------------------------
def test_agents_prints_each_spec_syntax_with_what_it_plays_and_costs():
    result = invoke("agents")
    assert result.exit_code == 0, result.output
    assert "mcts:SIMS[:ROLLOUT][:key=value...]" in result.output  # brackets survive rich
    assert "mcts:ARG" not in result.output
    infos = registry.describe()
    assert {"random", "castle", "town", "economy", "mcts"} <= {i.head for i in infos}
    for info in infos:
        assert info.syntax in result.output
        assert info.description and info.description[:40] in result.output
        assert " s" in info.description or " ms" in info.description  # says what it costs
    mcts = next(i for i in infos if i.head == "mcts")
    assert "ROLLOUT: heuristic|random|" in mcts.options and "cutoff=INT" in mcts.options


def test_registry_registers_describes_and_unregisters():
    registry.register(
        "probe",
        lambda spec, arg: registry.make_agent("random"),
        needs_arg=True,
        syntax="probe:DEPTH",
        description="a probe",
        options="DEPTH: int",
    )
    infos = {info.head: info for info in registry.describe()}
    assert infos["probe"] == registry.AgentInfo(
        "probe", "probe:DEPTH", "a probe", "DEPTH: int", True
    )
    assert "probe:DEPTH" in registry.specs() and "probe:ARG" in registry.available_agents()
    with pytest.raises(ValueError, match=r"needs an argument: probe:DEPTH"):
        registry.make_agent("probe")
    assert registry.make_agent("probe:3").name == "random"
    listed = invoke("agents")
    assert "probe:DEPTH" in listed.output and "a probe" in listed.output
    registry.unregister("probe")
    assert "probe" not in {info.head for info in registry.describe()}
    with pytest.raises(ValueError, match="unknown agent 'probe:3'"):
        registry.make_agent("probe:3")
    with pytest.raises(ValueError, match="no agent 'probe' is registered; registered: castle"):
        registry.unregister("probe")
    for bad in ("", "a:b", "a,b", "a b"):
        with pytest.raises(ValueError, match="non-empty word without"):
            registry.register(bad, lambda spec, arg: None)


# -- plugins from the current directory -----------------------------------------------------------
MYBOT = """
from agents.registry import register


class FirstBot:
    def __init__(self, name):
        self.name = name

    def reset(self, seed=None):
        pass

    def act(self, game):
        return game.legal_actions()[0]


def register_agents():
    register("mybot", lambda spec, arg: FirstBot(spec), description="first legal move")
"""


def test_plugin_in_the_current_directory_loads_in_the_driver_and_the_workers(tmp_path):
    """``caylus`` (the installed script, whose sys.path[0] is its own folder) finds ./mybot.py
    without PYTHONPATH, in the driver and in spawned pool workers."""
    script = Path(sys.executable).with_name("caylus")
    assert script.exists(), "the caylus entry point is missing: pip install -e . -c constraints.txt"
    (tmp_path / "mybot.py").write_text(MYBOT)
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}

    def caylus(*args: str) -> subprocess.CompletedProcess:
        return subprocess.run(
            [str(script), *args], cwd=tmp_path, env=env, capture_output=True, text=True, timeout=600
        )

    listed = caylus("agents", "--plugin", "mybot")
    assert listed.returncode == 0, listed.stderr
    assert "mybot" in listed.stdout and "first legal move" in listed.stdout
    run = caylus(
        "tournament", "--agents", "random,mybot", "--plugin", "mybot", "--players", "2",
        "--games", "2", "--workers", "2", "--out", "run", "--no-progress", "--bootstrap", "0",
    )  # fmt: skip
    assert run.returncode == 0, run.stderr
    lines = (tmp_path / "run" / "games.jsonl").read_text().splitlines()
    assert len(lines) == 2 and all("mybot" in line for line in lines)
    missing = caylus("agents", "--plugin", "notthere")
    assert missing.returncode == 2
    assert "cannot import notthere" in missing.stderr and "current directory" in missing.stderr


def test_duel_errors_name_the_duel_arguments_not_tournament_options():
    same = invoke("duel", "random", "random")
    assert same.exit_code == 2
    assert "invalid value for CANDIDATE/OPPONENT: a duel needs two different agents" in same.output
    unknown = invoke("duel", "random", "nobody")
    assert unknown.exit_code == 2 and "CANDIDATE/OPPONENT" in unknown.output
    for result in (same, unknown):
        assert "--agents" not in result.output and "--players" not in result.output


# -- compile notice -------------------------------------------------------------------------------
def test_compile_notice_speaks_once_and_only_when_numba_compiles(capsys):
    from numba import njit

    from agents.tournament.backends import COLD_COMPILE_SECONDS
    from caylus_cli.app import compile_notice

    @njit
    def twice(x):
        return 2 * x

    with compile_notice("engine", "scripted"):
        assert twice(21) == 42  # compiled now
        assert twice(2.5) == 5.0  # a second compilation: no second message
    estimate = COLD_COMPILE_SECONDS["engine"] + COLD_COMPILE_SECONDS["scripted"]
    err = capsys.readouterr().err
    assert err.count("compiling kernels") == 1
    assert f"compiling kernels (first run only, about {estimate:.0f} s)" in err
    with compile_notice("engine"):
        assert twice(5) == 10  # already compiled in this process
    assert "compiling" not in capsys.readouterr().err
    with pytest.raises(ValueError, match="unknown kernel groups"), compile_notice("gpu"):
        pass


def test_compile_notice_is_silent_on_a_numba_cache_hit(tmp_path):
    (tmp_path / "kern.py").write_text(
        "from numba import njit\n\n\n@njit(cache=True)\ndef twice(x):\n    return 2 * x\n"
    )
    code = (
        "from caylus_cli.app import compile_notice\nimport kern\n"
        "with compile_notice('engine'):\n    assert kern.twice(21) == 42\n"
    )
    env = dict(
        os.environ,
        NUMBA_CACHE_DIR=str(tmp_path / "cache"),
        PYTHONPATH=os.pathsep.join([str(tmp_path), str(Path(__file__).resolve().parents[1])]),
    )
    runs = [
        subprocess.run(
            [sys.executable, "-c", code], cwd=tmp_path, env=env, capture_output=True, text=True
        )
        for _ in range(2)
    ]
    assert [r.returncode for r in runs] == [0, 0], runs[0].stderr + runs[1].stderr
    assert "compiling kernels" in runs[0].stderr  # cold cache
    assert "compiling kernels" not in runs[1].stderr  # loaded from the cache


def test_play_estimates_the_kernels_its_agents_compile():
    from caylus_cli.games import _kernel_groups

    assert set(_kernel_groups(["random", "random"])) == {"engine"}
    assert set(_kernel_groups(["random", "economy"])) == {"engine", "scripted"}
    assert set(_kernel_groups(["mcts:5", "random"])) == {"engine", "scripted", "mcts"}


def test_tournament_command_replays_forfeits_and_extends_a_run(tmp_path, monkeypatch):
    from agents.tournament.testing import FLAKY_ENV
    from caylus_env.core.record import load_records

    out = tmp_path / "run"
    args = ["tournament", "--agents", "random,test-flaky", "--plugin", PLUGIN, "--players", "2"]
    common = ["--out", out, "--workers", "1", "--no-progress", "--bootstrap", "0"]
    monkeypatch.setenv(FLAKY_ENV, "1")
    first = invoke(*args, "--games", "2", *common)
    assert first.exit_code == 0, first.output
    assert "2 game(s) ended by a forfeit" in first.output
    monkeypatch.delenv(FLAKY_ENV)
    replayed = invoke(*args, "--games", "2", *common, "--replay-forfeits")
    assert replayed.exit_code == 0, replayed.output
    assert "replaying 2 forfeited game(s)" in replayed.output
    assert [r.final.end for r in load_records(out / "games.jsonl")] == ["terminated"] * 2
    longer = invoke(*args, "--games", "4", *common)
    assert longer.exit_code == 0, longer.output
    assert "extending the run from 2 to 4 games" in longer.output
    assert sorted(r.game_id for r in load_records(out / "games.jsonl")) == [0, 1, 2, 3]
    shorter = invoke(*args, "--games", "2", *common)
    assert shorter.exit_code == 2 and "games: run.json has 4, now 2" in shorter.output


@pytest.mark.parametrize(
    ("content", "code", "needle"),
    [
        (b"null", 2, "record field '' is None"),
        (b"[" * 100_000 + b"]" * 100_000, 2, "nested too deeply"),
        (b"\xff\xfe", 2, "is not UTF-8 text"),
        ("prestige", 1, "replayed final prestige"),
        ("action", 1, "record step 3: action"),
    ],
)
def test_replay_verifies_before_printing_and_fails_with_one_line(tmp_path, content, code, needle):
    good = play_game(["random", "random"], 2, 1).to_dict()
    if content == "prestige":
        good["final"]["prestige"][1] += 1
        content = json.dumps(good).encode()
    elif content == "action":
        good["actions"][3] = (good["actions"][3] + 1) % 100
        content = json.dumps(good).encode()
    path = tmp_path / "hostile.json"
    path.write_bytes(content)
    result = invoke("replay", path, "--show")
    assert result.exit_code == code, result.output
    lines = [line for line in result.output.splitlines() if line.strip()]
    assert len(lines) == 1 and lines[0].startswith("Error:") and needle in lines[0], lines
    assert isinstance(result.exception, SystemExit)  # no traceback


@pytest.mark.parametrize(
    ("args", "needle"),
    [
        (("--out", ""), "invalid value for --out: out='' is empty"),
        (("--out", "o", "--games", "10000000"), "--games: games=10000000 is too many"),
        (("--out", "o", "--workers", "100000"), "--workers: workers=100000 is not allowed"),
        (("--out", "o", "--move-time-limit", "1e-9"), "--move-time-limit: move_time_limit=1e-09"),
        (("--out", "o", "--move-time-limit", "nan"), "--move-time-limit: move_time_limit=nan"),
        (("--out", "o", "--move-time-limit", "inf"), "--move-time-limit: move_time_limit=inf"),
        (("--out", "o", "--move-time-limit", "7200"), "allowed: 0 (no limit) or 0.01 to 3600"),
        (("--out", "o", "--agents", "random,mcts:10:c=nan"), "bad value 'nan' for c"),
        (("--out", "o", "--agents", "random,mcts:10000000"), "SIMS=10000000; allowed: 1 to"),
        (("--out", "o", "--agents", "random,mcts:10:depth=99"), "for depth; allowed: INT"),
    ],
)
def test_tournament_bounds_exit_2_with_one_line_naming_the_option_before_any_work(
    tmp_path, monkeypatch, args, needle
):
    monkeypatch.chdir(tmp_path)
    agents = ("--agents", "random") if "--agents" not in args else ()
    result = invoke("tournament", *agents, "--players", "2", "--games", "2", *args)
    assert result.exit_code == 2, result.output
    lines = [line for line in result.output.splitlines() if line.strip()]
    assert len(lines) == 1 and lines[0].startswith("Error:") and needle in lines[0], lines
    assert os.listdir(tmp_path) == []  # nothing written, not even into the current directory


def test_duel_refuses_an_empty_out_before_any_work(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    result = invoke("duel", "random", "castle", "--out", "", "--max-pairs", "2", "--min-pairs", "1")
    assert result.exit_code == 2 and "invalid value for --out: out='' is empty" in result.output
    assert os.listdir(tmp_path) == []
