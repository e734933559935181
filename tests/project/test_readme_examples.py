"""The README and the docs pages can be run top to bottom, as a reader runs them.

Python: every block of the README and of the docs pages that show the public API (the
quickstarts, the environments, the agent plugin, the game pages) runs as a script of its own in
a fresh interpreter, in page order, in a scratch directory per page. A block whose first line is
``# NAME.py`` is a file the reader saves (the plugin module of "Write your own agent"); it is
written into that directory, so the scripts import it exactly as they would on the reader's
machine, and the tournament's spawned workers import it too.

Commands: the README's ``caylus`` commands read only what an earlier command of the README
wrote and write only under ``runs/``; every docs page's commands write only under ``runs/``.
Behind ``-m slow``, the README's first hour runs for real, in order, in a scratch directory
(the tournaments shortened), once without and once with its training commands.
"""

from __future__ import annotations

import itertools
import json
import os
import re
import shlex
import subprocess
import sys
from pathlib import Path

import pytest

from agents.policy import shipped_checkpoints
from caylus_env.core.registry import GAME_NAMES, game_spec
from tests.conftest import warm_kernels

ROOT = Path(__file__).resolve().parents[2]
DOCS = ROOT / "docs"
SCRIPT_TIMEOUT_S = 300
"""A hang backstop: the engine and env kernels are compiled before (`_warm`)."""

#: The pages whose Python blocks run here (docs/positions.md's run in tests/core/test_positions.py;
#: the training and dataset pages' blocks are minutes of work and run in their own tests).
PAGES = (
    "README.md",
    "docs/getting-started.md",
    "docs/environments.md",
    "docs/agents.md",
    "docs/games/caylus.md",
    "docs/games/puerto_rico.md",
)
FILE_HEADER = re.compile(r"#\s*([A-Za-z_][A-Za-z0-9_]*\.py)\s*$")
CAYLUS = Path(sys.executable).with_name("caylus")
#: The one documented write outside runs/: how the shipped checkpoint was published into the
#: package (docs/training/caylus.md).
#: The shipped checkpoints: their pages' export commands publish into the package.
PUBLISHED = tuple(f"agents/checkpoints/{name}" for name in sorted(shipped_checkpoints()))


def python_blocks(page: str) -> list[str]:
    return re.findall(r"```python\n(.+?)```", (ROOT / page).read_text(), re.S)


def split_blocks(page: str) -> tuple[dict[str, str], list[str]]:
    """(files to save by name, scripts to run in order) of one page."""
    files: dict[str, str] = {}
    scripts: list[str] = []
    for block in python_blocks(page):
        header = FILE_HEADER.match(block.splitlines()[0])
        if header:
            files[header.group(1)] = block
        else:
            scripts.append(block)
    return files, scripts


@pytest.fixture(scope="module", autouse=True)
def _warm() -> None:
    """Every game's engine and environment kernels in the cache before a script's clock."""
    warm_kernels(*GAME_NAMES, envs=True)


def run_script(source: str, name: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    path = cwd / name
    path.write_text(source)
    # One BLAS/OpenMP thread, as CI runs (.ci/run): torch's threads fight the other tests' for
    # the cores otherwise (the MaskablePPO example: 2 s alone, 30 s on a busy 2-core machine).
    env = {**os.environ, "PYTHONHASHSEED": "0", "MPLBACKEND": "Agg", "OMP_NUM_THREADS": "1"}
    return subprocess.run(
        [sys.executable, path.name],
        cwd=cwd,
        env=env,
        capture_output=True,
        text=True,
        timeout=SCRIPT_TIMEOUT_S,
        check=False,
    )


def run_page(page: str, cwd: Path) -> list[tuple[str, subprocess.CompletedProcess[str]]]:
    files, scripts = split_blocks(page)
    for name, source in files.items():
        (cwd / name).write_text(source)
    results = []
    for i, source in enumerate(scripts):
        proc = run_script(source, f"block_{i}.py", cwd)
        assert proc.returncode == 0, (
            f"{page} block {i} failed:\n{source}\n--- stderr ---\n{proc.stderr}"
        )
        results.append((source, proc))
    return results


def test_readme_has_the_documented_examples():
    _, scripts = split_blocks("README.md")
    # Games are peers: the quickstarts reach both through the platform's entry points.
    assert any('caylus_env.make("caylus"' in s for s in scripts)
    assert any('caylus_env.make("puerto_rico"' in s for s in scripts)
    assert any('caylus_env.make_vector("puerto_rico"' in s for s in scripts)
    # Seeded quickstarts: the game through reset(seed=...), the moves through their own generator.
    for source in scripts:
        if "agent_iter()" in source:
            assert re.search(r"reset\(seed=\d+\)", source), source
            assert "default_rng(" in source or ".seed(" in source, source


def test_docs_have_the_documented_examples():
    files, scripts = split_blocks("docs/agents.md")
    assert "mybot.py" in files, "'Write your own agent' saves mybot.py"
    assert any('if __name__ == "__main__":' in s and "run_tournament" in s for s in scripts)
    _, env_scripts = split_blocks("docs/environments.md")
    assert any("GameVecEnv(" in s and "MaskablePPO" in s for s in env_scripts)
    assert any("caylus_env.make_vector(" in s for s in env_scripts)


@pytest.fixture(scope="module")
def readme_run(tmp_path_factory) -> list[tuple[str, subprocess.CompletedProcess[str]]]:
    return run_page("README.md", tmp_path_factory.mktemp("readme"))


def _output(run: list[tuple[str, subprocess.CompletedProcess[str]]], marker: str) -> str:
    return next(p.stdout for s, p in run if marker in s)


def test_readme_quickstarts_print_the_final_result(readme_run):
    line = _output(readme_run, 'caylus_env.make("caylus"').strip().splitlines()[-1]
    assert re.fullmatch(r"final prestige \[[\d ]+\] ranks \[[\d. ]+\]", line), line
    line = _output(readme_run, 'caylus_env.make("puerto_rico"').strip().splitlines()[-1]
    assert re.fullmatch(r"victory points \[[\d ]+\] ranks \[[\d. ]+\]", line), line


def test_readme_quickstarts_are_reproducible(readme_run, tmp_path):
    """The README says the quickstarts print the same game every time: a second run agrees."""
    for marker in ('caylus_env.make("caylus"', 'caylus_env.make("puerto_rico"'):
        source, first = next((s, p) for s, p in readme_run if marker in s)
        again = run_script(source, "again.py", tmp_path)
        assert again.returncode == 0, again.stderr
        assert again.stdout == first.stdout


def test_readme_vector_example_steps_puerto_rico_games_to_their_end(readme_run):
    out = _output(readme_run, 'caylus_env.make_vector("puerto_rico"')
    match = re.fullmatch(r"\(64, 789\) \(64, 223\) (\d+) games finished", out.strip())
    assert match and int(match.group(1)) > 0, out


def test_getting_started_examples_run(tmp_path):
    run = run_page("docs/getting-started.md", tmp_path)
    out = _output(run, "record.final.scores").strip().splitlines()[-1]
    assert re.fullmatch(r"caylus prestige \(\d+, \d+, \d+\) ranks \([\d., ]+\)", out), out


def test_environments_examples_run(tmp_path):
    pytest.importorskip("sb3_contrib")  # the [train] extra, installed by the test command
    run = run_page("docs/environments.md", tmp_path)
    assert _output(run, "MaskablePPO").split() == ["(16,", "2004)", "(16,", "167)", "(16,)"]
    out = _output(run, "caylus_env.puerto_rico.engine import").strip()
    assert re.search(r"victory points \[[\d ]+\] round \d+$", out), out


@pytest.mark.parametrize("page", ["docs/games/caylus.md", "docs/games/puerto_rico.md"])
def test_game_page_examples_run(page, tmp_path):
    run = run_page(page, tmp_path)
    assert run, f"{page} has no Python example"


def test_agents_page_examples_run(tmp_path):
    run = run_page("docs/agents.md", tmp_path)
    out = _output(run, 'make_agent("greedy", "caylus")')
    assert re.search(r"^prestige \[ *\d+ +\d+\] ranks \[", out, re.M), out
    rows = dict(re.findall(r"^(\w+) +win rate (\d\.\d\d)", _output(run, "run_tournament"), re.M))
    assert set(rows) == {"greedy", "random", "castle"}, rows
    assert all(0.0 <= float(v) <= 1.0 for v in rows.values())


@pytest.mark.parametrize("game_name", GAME_NAMES)
def test_greedy_agent_follows_the_protocol_and_leaves_the_game_alone(
    game_name, tmp_path, monkeypatch
):
    """The example agent itself, in every game (the page says it plays them all): legal
    answers, the game it is shown unchanged, seeded."""
    files, _ = split_blocks("docs/agents.md")
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


# -- commands ------------------------------------------------------------------------------------


def bash_commands(page: str) -> list[list[str]]:
    """The ``caylus`` command lines of a page's bash blocks, continuation lines joined, as
    argument lists (comments dropped); the two install commands' last step included."""
    commands = []
    for block in re.findall(r"```bash\n(.+?)```", (ROOT / page).read_text(), re.S):
        for line in block.replace("\\\n", " ").splitlines():
            line = line.split("&&")[-1].strip()
            if line.startswith("caylus "):
                commands.append(shlex.split(line, comments=True))
    return commands


def paths_of(args: list[str]) -> tuple[list[str], list[str]]:
    """(paths the command writes, paths it reads)."""
    writes, reads = [], []
    for flag, value in itertools.pairwise(args):
        if flag in ("--out", "--html", "--json", "--save-dir"):
            writes.append(value)
        elif flag in ("--dataset", "--init", "--checkpoints"):
            reads.append(value)
        elif flag == "--agents":
            reads += [a.split(":", 1)[1] for a in value.split(",") if a.startswith("policy:")]
    if args[1] == "replay" or args[1:3] in (["dataset", "verify"], ["dataset", "stats"]):
        reads.append(
            next(a for a in args[2:] if not a.startswith("-") and a not in ("verify", "stats"))
        )
    if args[1:3] == ["dataset", "inspect"]:
        reads.append(args[3])
    if args[1:3] == ["train", "export"]:
        reads.append(args[3])
        writes.append(args[4])
    return writes, reads


def test_readme_commands_read_only_what_an_earlier_command_wrote():
    """Top to bottom: 'See a game' replays what the main job wrote, the dataset commands read the
    dataset generated just before them, the trained checkpoints come from the training runs."""
    written: list[str] = []
    commands = bash_commands("README.md")
    assert commands[0][1] == "tournament", "the main job comes first"
    for args in commands:
        writes, reads = paths_of(args)
        for path in reads:
            assert any(path == w or path.startswith(w.rstrip("/") + "/") for w in written), (
                f"{shlex.join(args)} reads {path}, which no earlier README command writes"
            )
        written += writes


@pytest.mark.parametrize(
    "page", ["README.md", *sorted(str(p.relative_to(ROOT)) for p in DOCS.rglob("*.md"))]
)
def test_commands_write_only_under_runs(page):
    for args in bash_commands(page):
        writes, _ = paths_of(args)
        for path in writes:
            assert path.startswith("runs/") or path in PUBLISHED, (
                f"{page}: {shlex.join(args)} writes {path}"
            )


def test_readme_ppo_checkpoint_is_the_one_the_run_writes():
    """The first hour plays ``step-N`` of its PPO run: N is --steps rounded up to whole rollouts
    of ``n_steps * envs`` decisions, as the trainer does."""
    from training.config import PPOConfig

    commands = bash_commands("README.md")
    ppo = next(a for a in commands if a[1:3] == ["train", "ppo"])
    flags = dict(zip(ppo[3::2], ppo[4::2], strict=True))
    rollout = PPOConfig.n_steps * int(flags["--envs"])
    last = -(-int(flags["--steps"]) // rollout) * rollout
    played = [r for a in commands for r in paths_of(a)[1] if r.startswith(flags["--out"])]
    assert played == [f"{flags['--out']}/checkpoints/step-{last:012d}"], played


def _run_first_hour(tmp_path: Path, groups: tuple[str, ...]) -> dict[str, str]:
    """The README's commands of the chosen groups (``tournament``, ``dataset``, ...) in order in
    ``tmp_path``, skipping those that read what a skipped command writes; tournaments play 16
    games (the first hour replays game 12 of the main job)."""
    outputs: dict[str, str] = {}
    written: list[str] = []
    for args in bash_commands("README.md"):
        writes, reads = paths_of(args)
        if args[1] not in groups or not all(
            any(r == w or r.startswith(w + "/") for w in written) for r in reads
        ):
            continue
        if args[1] == "tournament":
            args[args.index("--games") + 1] = "16"
        proc = subprocess.run(
            [str(CAYLUS), *args[1:]],
            cwd=tmp_path,
            env={**os.environ, "COLUMNS": "200"},
            capture_output=True,
            text=True,
            timeout=SCRIPT_TIMEOUT_S,
            check=False,
        )
        assert proc.returncode == 0, f"{shlex.join(args)}\n{proc.stdout}\n{proc.stderr}"
        outputs[shlex.join(args)] = proc.stdout
        written += writes
    return outputs


@pytest.mark.slow  # about 35 s on 2 busy cores; the order and the paths are checked above
def test_readme_first_hour_runs_in_order(tmp_path):
    """Everything of the first hour but training: the pages and the dataset it promises."""
    out = _run_first_hour(tmp_path, ("tournament", "play", "replay", "dataset"))
    runs = tmp_path / "runs"
    for page in ("game.html", "game-12.html", "game-7.html", "ladder-small/report.html"):
        assert (runs / page).stat().st_size > 10_000, page
    generate = next(v for k, v in out.items() if "dataset generate" in k)
    assert "20 games, 7503 decisions" in generate, generate
    assert "replay exactly" in next(v for k, v in out.items() if "dataset verify" in k)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["runs"], "outputs outside runs/"


@pytest.mark.slow
def test_readme_first_hour_trains_what_it_plays(tmp_path):
    """The whole first hour, training included: the checkpoints the last tournament plays exist."""
    pytest.importorskip("sb3_contrib")
    _run_first_hour(tmp_path, ("tournament", "dataset", "train"))
    summary = json.loads((tmp_path / "runs/trained-vs-random/summary.json").read_text())
    assert len(summary["agents"]) == 3
    assert sorted(p.name for p in tmp_path.iterdir()) == ["runs"], "outputs outside runs/"


def test_plugin_commands_run_from_the_directory_of_the_plugin(tmp_path):
    """The agents page's ``caylus ... --plugin mybot`` lines, run where ``mybot.py`` was saved
    (the tournament with fewer games): the console script finds the module in the current
    directory, in the driver and in the spawned workers."""
    files, _ = split_blocks("docs/agents.md")
    (tmp_path / "mybot.py").write_text(files["mybot.py"])
    lines = [a for a in bash_commands("docs/agents.md") if "--plugin" in a and "mybot" in a]
    assert [a[1] for a in lines] == ["agents", "tournament"]
    outputs = []
    for args in lines:
        args = args[1:]
        if args[0] == "tournament":
            args[args.index("--games") + 1] = "6"
            args += ["--workers", "2", "--no-progress"]
        proc = subprocess.run(
            [str(CAYLUS), *args],
            cwd=tmp_path,
            env={**os.environ, "COLUMNS": "200"},  # table rows on one line each
            capture_output=True,
            text=True,
            timeout=SCRIPT_TIMEOUT_S,
            check=False,
        )
        assert proc.returncode == 0, f"{args}\n{proc.stdout}\n{proc.stderr}"
        outputs.append(proc.stdout)
    assert re.search(r"greedy\s.*one-move lookahead on its own score", outputs[0]), outputs[0]
    summary = json.loads((tmp_path / "runs" / "greedy" / "summary.json").read_text())
    assert set(summary["agents"]) == {"greedy", "random", "castle"}
    assert sum(row["games"] for row in summary["agents"].values()) == 6 * 3
