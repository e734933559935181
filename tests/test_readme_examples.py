"""The README's Python examples run as a reader runs them: each block as a script of its own.

A block whose first line is ``# NAME.py`` is a file the reader saves (the plugin module of
"Write your own agent"); it is written into a scratch directory and every other block runs
there, in order, in a fresh interpreter (``python block_N.py``), so the scripts import the saved
files from their own directory exactly as they would on the reader's machine. Process workers of
the tournament example are real spawned processes, so the example's ``__main__`` guard and its
plugin are exercised too.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from caylus_env.core.registry import GAME_NAMES, game_spec

ROOT = Path(__file__).resolve().parents[1]
SCRIPT_TIMEOUT_S = 300
"""Generous: a script's first run may compile the engine (tens of seconds) on a cold cache."""

FILE_HEADER = re.compile(r"#\s*([A-Za-z_][A-Za-z0-9_]*\.py)\s*$")


def python_blocks() -> list[str]:
    readme = (ROOT / "README.md").read_text()
    return re.findall(r"```python\n(.+?)```", readme, re.S)


def split_blocks() -> tuple[dict[str, str], list[str]]:
    """(files to save by name, scripts to run in order)."""
    files: dict[str, str] = {}
    scripts: list[str] = []
    for block in python_blocks():
        header = FILE_HEADER.match(block.splitlines()[0])
        if header:
            files[header.group(1)] = block
        else:
            scripts.append(block)
    return files, scripts


def run_script(source: str, name: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    path = cwd / name
    path.write_text(source)
    env = {**os.environ, "PYTHONHASHSEED": "0", "MPLBACKEND": "Agg"}
    return subprocess.run(
        [sys.executable, path.name],
        cwd=cwd,
        env=env,
        capture_output=True,
        text=True,
        timeout=SCRIPT_TIMEOUT_S,
        check=False,
    )


def test_readme_has_the_documented_examples():
    files, scripts = split_blocks()
    assert "mybot.py" in files, "the 'Write your own agent' example saves mybot.py"
    assert len(scripts) >= 4, "quickstart, engine, agent try-out and tournament scripts"
    assert any('if __name__ == "__main__":' in s and "run_tournament" in s for s in scripts)
    # Games are peers: the examples reach both through the platform's entry points.
    assert any('caylus_env.make("caylus"' in s for s in scripts)
    assert any('caylus_env.make("puerto_rico"' in s for s in scripts)
    assert any('caylus_env.make_vector("puerto_rico"' in s for s in scripts)


@pytest.fixture(scope="module")
def readme_run(tmp_path_factory) -> list[tuple[str, subprocess.CompletedProcess[str]]]:
    """Every script block run once, in README order, next to the saved files."""
    cwd = tmp_path_factory.mktemp("readme")
    files, scripts = split_blocks()
    for name, source in files.items():
        (cwd / name).write_text(source)
    return [(s, run_script(s, f"block_{i}.py", cwd)) for i, s in enumerate(scripts)]


def test_every_python_block_runs(readme_run):
    for source, proc in readme_run:
        assert proc.returncode == 0, (
            f"README block failed:\n{source}\n--- stderr ---\n{proc.stderr}"
        )


def test_quickstart_prints_the_final_result(readme_run):
    out = next(p.stdout for s, p in readme_run if 'caylus_env.make("caylus"' in s)
    line = out.strip().splitlines()[-1]
    assert re.fullmatch(r"final prestige \[[\d ]+\] ranks \[[\d. ]+\]", line), line


def test_puerto_rico_quickstart_prints_the_final_result(readme_run):
    out = next(p.stdout for s, p in readme_run if 'caylus_env.make("puerto_rico"' in s)
    line = out.strip().splitlines()[-1]
    assert re.fullmatch(r"victory points \[[\d ]+\] ranks \[[\d. ]+\]", line), line


def test_vector_example_steps_puerto_rico_games_to_their_end(readme_run):
    out = next(p.stdout for s, p in readme_run if 'caylus_env.make_vector("puerto_rico"' in s)
    match = re.fullmatch(r"\(64, 789\) \(64, 223\) (\d+) games finished", out.strip())
    assert match and int(match.group(1)) > 0, out


def test_engine_example_prints_its_record(readme_run):
    out = next(p.stdout for s, p in readme_run if "record.final.scores" in s)
    line = out.strip().splitlines()[-1]
    assert re.fullmatch(r"caylus prestige \(\d+, \d+, \d+\) ranks \([\d., ]+\)", line), line


def test_greedy_agent_plays_a_whole_game(readme_run):
    out = next(p.stdout for s, p in readme_run if 'make_agent("greedy", "caylus")' in s)
    assert re.search(r"^prestige \[ *\d+ +\d+\] ranks \[", out, re.M), out


def test_tournament_example_ranks_the_plugin_agent(readme_run):
    out = next(p.stdout for s, p in readme_run if "run_tournament" in s)
    rows = dict(re.findall(r"^(\w+) +win rate (\d\.\d\d)", out, re.M))
    assert set(rows) == {"greedy", "random", "castle"}, out
    assert all(0.0 <= float(v) <= 1.0 for v in rows.values())


@pytest.mark.parametrize("game_name", GAME_NAMES)
def test_greedy_agent_follows_the_protocol_and_leaves_the_game_alone(
    game_name, tmp_path, monkeypatch
):
    """The example agent itself, in every game (the README says it plays them all): legal
    answers, the game it is shown unchanged, seeded."""
    files, _ = split_blocks()
    (tmp_path / "mybot.py").write_text(files["mybot.py"])
    monkeypatch.syspath_prepend(str(tmp_path))
    import importlib

    from agents import Agent
    from agents.registry import make_agent, unregister

    engine = game_spec(game_name).engine()
    sys.modules.pop("mybot", None)
    mybot = importlib.import_module("mybot")
    mybot.register_agents()
    try:
        moves = []
        for _ in range(2):
            agent = make_agent("greedy", game_name)
            assert isinstance(agent, Agent) and agent.name == "greedy"
            agent.reset(seed=5)
            game = engine.Game(engine.GameConfig(num_players=3), seed=2)
            played = []
            for _ in range(40):
                before = game.state.copy()
                action = agent.act(game)
                assert action in game.legal_actions()
                assert (game.state == before).all(), "act changed the game it was shown"
                game.apply(action)
                played.append(action)
            moves.append(played)
        assert moves[0] == moves[1], "same seed, same game: the same moves"
    finally:
        unregister("greedy")
        sys.modules.pop("mybot", None)


def test_plugin_commands_run_from_the_directory_of_the_plugin(tmp_path):
    """The README's ``caylus ... --plugin mybot`` lines, run where ``mybot.py`` was saved (the
    tournament with fewer games): the console script finds the module in the current directory,
    in the driver and in the spawned workers."""
    files, _ = split_blocks()
    (tmp_path / "mybot.py").write_text(files["mybot.py"])
    readme = (ROOT / "README.md").read_text()
    lines = [
        line
        for block in re.findall(r"```bash\n(.+?)```", readme, re.S)
        for line in block.splitlines()
        if line.startswith("caylus ") and "--plugin mybot" in line
    ]
    assert [line.split()[1] for line in lines] == ["agents", "tournament"]
    caylus = Path(sys.executable).with_name("caylus")
    outputs = []
    for line in lines:
        args = re.sub(r"--games \d+", "--games 6", line).split()[1:]
        if args[0] == "tournament":
            args += ["--workers", "2", "--no-progress"]
        proc = subprocess.run(
            [str(caylus), *args],
            cwd=tmp_path,
            env={**os.environ, "COLUMNS": "200"},  # table rows on one line each
            capture_output=True,
            text=True,
            timeout=SCRIPT_TIMEOUT_S,
            check=False,
        )
        assert proc.returncode == 0, f"{line}\n{proc.stdout}\n{proc.stderr}"
        outputs.append(proc.stdout)
    assert re.search(r"greedy\s.*one-move lookahead on its own score", outputs[0]), outputs[0]
    summary = json.loads((tmp_path / "runs" / "greedy" / "summary.json").read_text())
    assert set(summary["agents"]) == {"greedy", "random", "castle"}
    assert sum(row["games"] for row in summary["agents"].values()) == 6 * 3
