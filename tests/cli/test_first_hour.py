"""The first hour of a new user with the ``caylus`` command line (issue 20): help that shows every
default without type tags, ``--version``, a top-level help naming every game of the registry, one
``--progress/--no-progress`` spelling, "did you mean" for an agent and the game of an agent of
another game, a default PPO batch size that fits any ``--envs``, plain progress lines and
uncut tables when the output is a pipe, reports relative to one reference agent with the
OpenSkill ladder in report.html, and ``py.typed`` in the packages users import.

Every game-dependent check is written over the registry (``GAME_NAMES``, ``agents.registry``).
"""

from __future__ import annotations

import io
import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest
import typer
from typer.testing import CliRunner

from agents import registry
from agents.progress import PIPE_WIDTH, PlainProgress, console
from caylus_cli.app import app, app_help
from caylus_env._version import PROGRAM, __version__
from caylus_env.core.registry import GAME_NAMES, games

REPO = Path(__file__).resolve().parents[2]
runner = CliRunner()
#: Cursor movement, erase-line and colour: what a live bar writes and a log must not hold.
CONTROL = re.compile(r"\x1b\[|\r")
#: typer's type tags: ``<bool>``, ``<int>``, ``<float>``, ``<text>``, ``<path>``, ``<list[str]>``.
TYPE_TAG = re.compile(r"<(bool|int|float|str|text|path|list\[[a-z]+\])>")


def invoke(*args: object, **kwargs):
    return runner.invoke(app, [str(a) for a in args], **kwargs)


def commands() -> list[tuple[list[str], object]]:
    """Every command of the CLI with its path: ``(["train", "ppo"], command)``."""
    found = []

    def walk(path: list[str], command: object) -> None:
        subs = getattr(command, "commands", None)
        if subs:
            for name, sub in subs.items():
                walk([*path, name], sub)
        else:
            found.append((path, command))

    walk([], typer.main.get_command(app))
    return found


def flat(text: str) -> str:
    """Help text with rich's box drawing and line breaks folded into single spaces."""
    return " ".join(re.sub(r"[│╭╮╰╯─]", " ", text).split())


def only_game_agents(game: str) -> list[str]:
    """Heads of other games' agents that ``game`` does not have (from the registry)."""
    mine = set(registry.available_agents(game))
    return sorted(
        {h.partition(":")[0] for g in GAME_NAMES if g != game for h in registry.available_agents(g)}
        - {h.partition(":")[0] for h in mine}
    )


# -- help -----------------------------------------------------------------------------------------
def test_help_shows_the_default_of_every_option():
    missing = []
    for path, command in commands():
        for param in command.params:
            if param.param_type_name != "option" or param.name == "help" or param.required:
                continue
            plain_flag = param.is_flag and not param.secondary_opts  # off unless given
            if plain_flag or param.multiple:  # repeatable: none unless given
                continue
            shown = isinstance(param.show_default, str) or param.default is not None
            if not shown and "default" not in (param.help or "").lower():
                missing.append(f"{' '.join(path)} {param.opts[0]}")
    assert not missing, f"options whose help shows no default: {missing}"


def test_train_ppo_help_shows_its_ppo_defaults():
    result = invoke("train", "ppo", "--help", terminal_width=200)
    assert result.exit_code == 0
    text = flat(result.output)
    for option, default in (
        ("--n-steps", "32"),
        ("--n-epochs", "4"),
        ("--learning-rate", "0.0003"),
        ("--ent-coef", "0.01"),
        ("--gamma", "1.0"),
        ("--gae-lambda", "0.95"),
        ("--clip-range", "0.2"),
        ("--vf-coef", "0.5"),
        ("--checkpoint-every", "100000"),
        ("--shaping", "0.0"),
        ("--threads", "1"),
        ("--eval-games", "200"),
        ("--gate-games", "200"),
        ("--envs", "128"),
        ("--steps", "1000000"),
    ):
        row = re.search(rf"{option} [A-Z]+ .*?\[default: ([^\]]+)\]", text)
        assert row and row.group(1) == default, (option, row and row.group(0))
    assert "largest divisor of the rollout n_steps * envs" in text  # --batch-size's rule


def test_help_shows_no_type_tags():
    for path, _ in commands():
        result = invoke(*path, "--help", terminal_width=200)
        assert result.exit_code == 0, path
        assert not TYPE_TAG.search(result.output), (path, TYPE_TAG.search(result.output))
    play = flat(invoke("play", "--help", terminal_width=200).output)
    assert "--players INTEGER" in play and "--delay FLOAT" in play  # values keep a plain name
    assert "--board --no-board Render" in play  # a flag shows no type at all


def test_version_prints_the_package_version_and_exits_0():
    result = invoke("--version")
    assert result.exit_code == 0
    assert result.output == f"{PROGRAM} {__version__}\n"
    from importlib.metadata import version

    assert version("caylus-env") == __version__


def test_top_level_help_names_every_game_of_the_registry():
    text = flat(invoke("--help", terminal_width=200).output)
    for spec in games():
        assert f"{spec.title} ({spec.name})" in text


def test_top_level_help_is_built_from_the_registry(monkeypatch):
    class Spec:
        title, name = "Agricola", "agricola"

    monkeypatch.setattr("caylus_cli.app.games", lambda: (*games(), Spec()))
    assert "Agricola (agricola)" in app_help()


def test_progress_has_one_spelling_across_every_command():
    with_progress = []
    for path, command in commands():
        for param in command.params:
            names = [*param.opts, *getattr(param, "secondary_opts", [])]
            if "--no-progress" in names or "--progress" in names:
                assert param.opts == ["--progress"], (path, names)
                assert param.secondary_opts == ["--no-progress"], (path, names)
                assert param.default is True, path
                with_progress.append(" ".join(path))
    assert set(with_progress) >= {
        "tournament",
        "duel",
        "dataset generate",
        "dataset verify",
        "train ppo",
        "train bc",
    }
    # the old train spelling --no-progress is still accepted, and turns the display off
    ppo = typer.main.get_command(app).commands["train"].commands["ppo"]
    ctx = ppo.make_context("ppo", ["--out", "x", "--no-progress"])
    assert ctx.params["progress"] is False


# -- agents: did you mean, and the game that has it -----------------------------------------------
@pytest.mark.parametrize("game", GAME_NAMES)
def test_an_unknown_agent_gets_did_you_mean_from_the_games_agents(game):
    heads = [i.head for i in registry.describe(game) if len(i.head) > 4]
    for head in heads:
        typo = head[:-1]  # the last letter dropped
        with pytest.raises(ValueError, match=r"did you mean '") as err:
            registry.make_agent(typo, game)
        assert repr(head) in str(err.value).split("did you mean")[1].split("?")[0]
    result = invoke("play", "--game", game, "--agents", f"{heads[0][:-1]},random")
    assert result.exit_code == 2
    (line,) = result.stderr.splitlines()
    assert f"did you mean {heads[0]!r}" in line


@pytest.mark.parametrize("game", GAME_NAMES)
def test_an_agent_of_another_game_gets_a_hint_naming_that_game(game, tmp_path):
    foreign = only_game_agents(game)
    assert foreign, "each game has a bot another game lacks"
    for head in foreign:
        owners = registry.games_of(head)
        with pytest.raises(ValueError) as err:
            registry.make_agent(head, game)
        for owner in owners:
            assert f"--game {owner}" in str(err.value)
    head = foreign[0]
    for args in (
        ("play", "--game", game, "--agents", f"{head},random"),
        ("tournament", "--game", game, "--agents", f"{head},random", "--players", "2",
         "--games", "2", "--out", tmp_path / "never-written"),
    ):  # fmt: skip
        result = invoke(*args)
        assert result.exit_code == 2, args
        (line,) = result.stderr.splitlines()
        assert f"--game {registry.games_of(head)[0]}" in line
    assert not (tmp_path / "never-written").exists()


# -- PPO batch size -------------------------------------------------------------------------------
def test_train_ppo_batch_size_defaults_to_a_divisor_of_the_rollout(tmp_path):
    from training.config import PPOConfig
    from training.defaults import MAX_DEFAULT_BATCH, default_batch_size

    assert PPOConfig(out=str(tmp_path / "a")).batch_size == 2048  # 32 x 128, as before
    for n_steps, envs, expected in ((32, 8, 256), (32, 96, 1536), (33, 7, 231), (64, 100, 1600)):
        cfg = PPOConfig(out=str(tmp_path / "b"), n_steps=n_steps, envs=envs)
        assert cfg.batch_size == expected == default_batch_size(n_steps, envs)
        assert (n_steps * envs) % cfg.batch_size == 0 and cfg.batch_size <= MAX_DEFAULT_BATCH
    cfg = PPOConfig(out=str(tmp_path / "c"), envs=8)
    cfg.check()  # caylus train ppo --envs 8 is accepted
    assert PPOConfig(out=str(tmp_path / "d"), envs=8, batch_size=64).batch_size == 64


def test_train_ppo_batch_size_that_does_not_divide_names_the_allowed_values(tmp_path):
    pytest.importorskip("sb3_contrib")
    out = tmp_path / "run"
    result = invoke("train", "ppo", "--out", out, "--envs", "8", "--batch-size", "100")
    assert result.exit_code == 2
    (line,) = result.stderr.splitlines()
    assert "--batch-size 100 must divide the rollout size n_steps * envs = 32 * 8 = 256" in line
    assert "allowed: 1, 2, 4, 8, 16, 32, 64, 128, 256" in line
    assert not out.exists()  # refused before any work


# -- progress and tables when the output is not a terminal ----------------------------------------
def test_one_progress_library_rich_through_agents_progress():
    """No tqdm anywhere; rich's Progress is built only by agents.progress.PlainProgress (so
    every bar turns into plain lines off a terminal)."""
    import ast

    offenders = []
    for top in ("caylus_env", "caylus_cli", "agents", "training"):
        for path in (REPO / top).rglob("*.py"):
            tree = ast.parse(path.read_text("utf-8"))
            for node in ast.walk(tree):
                if isinstance(node, ast.Import | ast.ImportFrom):
                    names = [a.name for a in node.names]
                    module = getattr(node, "module", None) or ""
                    if module.startswith("tqdm") or any(n.startswith("tqdm") for n in names):
                        offenders.append(f"{path.relative_to(REPO)}: imports tqdm")
                if (
                    isinstance(node, ast.Call)
                    and isinstance(node.func, ast.Name)
                    and node.func.id == "Progress"
                    and path.name != "progress.py"
                ):
                    offenders.append(f"{path.relative_to(REPO)}:{node.lineno}: rich Progress(")
    assert not offenders, offenders
    deps = (REPO / "pyproject.toml").read_text().split("dependencies = [")[1].split("]")[0]
    assert '"tqdm' not in deps


def test_plain_progress_prints_lines_without_control_characters_off_a_terminal():
    out = io.StringIO()
    with PlainProgress(console=console(out), interval=0.0) as bar:
        task = bar.add_task("games", total=4)
        for _ in range(4):
            bar.advance(task)
    lines = out.getvalue().splitlines()
    assert [line.split(",")[0] for line in lines] == [
        f"games {k}/4 ({25 * k}%)" for k in (1, 2, 3, 4)
    ]
    assert not CONTROL.search(out.getvalue())
    quiet = io.StringIO()
    with PlainProgress(console=console(quiet), enabled=False) as bar:
        bar.advance(bar.add_task("games", total=2), 2)
    assert quiet.getvalue() == ""


def test_plain_progress_lines_are_spaced_by_the_interval():
    out = io.StringIO()
    with PlainProgress(console=console(out), interval=3600.0) as bar:
        task = bar.add_task("games", total=1000)
        for _ in range(999):
            bar.advance(task)
        bar.advance(task)  # completion always says so
    lines = out.getvalue().splitlines()
    assert len(lines) == 1 and lines[0].startswith("games 1,000/1,000 (100%)")


def test_a_piped_tournament_prints_plain_progress_and_says_what_follows_the_bar(tmp_path):
    game = GAME_NAMES[0]
    bot = next(i.head for i in registry.describe(game) if not i.needs_arg and i.head != "random")
    env = {k: v for k, v in os.environ.items() if k not in ("FORCE_COLOR", "TTY_COMPATIBLE")}
    run = subprocess.run(
        [sys.executable, "-m", "caylus_cli", "tournament", "--game", game, "--agents",
         f"random,{bot}", "--players", "2", "--games", "4", "--workers", "1", "--out", "run",
         "--bootstrap", "0"],
        cwd=tmp_path, env={**env, "PYTHONPATH": str(REPO)}, capture_output=True, text=True,
        timeout=600,
    )  # fmt: skip
    assert run.returncode == 0, run.stderr
    assert not CONTROL.search(run.stdout)
    lines = run.stdout.splitlines()
    done = [i for i, line in enumerate(lines) if line.startswith("games 4/4 (100%)")]
    assert len(done) == 1, run.stdout
    assert lines[done[0] + 1].startswith("computing the ratings of 4 games and writing")


def test_a_duel_says_why_its_bar_stops_short_of_its_end(tmp_path):
    result = invoke(
        "duel", "test-pass", "random", "--game", GAME_NAMES[0], "--plugin",
        "agents.tournament.testing", "--workers", "1", "--out", tmp_path / "duel", "--p1", "0.9",
        "--min-pairs", "2", "--max-pairs", "200",
    )  # fmt: skip
    assert result.exit_code == 0, result.output
    decided = json.loads((tmp_path / "duel" / "duel.json").read_text())
    pairs = decided["sprt"]["decided_at"]
    assert f"SPRT decided (H1) after {pairs} pairs; stopping the games still running" in (
        result.output
    )
    assert not CONTROL.search(result.output)


def test_piped_tables_print_long_agent_names_whole():
    game = GAME_NAMES[0]
    head = "a-very-long-agent-name-" + "x" * 120
    about = "plays " + "the longest description anyone wrote, " * 6 + "to the end"
    registry.register(head, lambda spec, arg: None, game=game, description=about)
    try:
        result = invoke("agents", "--game", game)
    finally:
        registry.unregister(head, game)
    assert result.exit_code == 0
    row = next(line for line in result.output.splitlines() if head in line)
    assert about in row  # one line: neither wrapped at 80 columns nor cut with an ellipsis
    assert "…" not in result.output
    assert console(io.StringIO()).width == PIPE_WIDTH


def test_piped_report_tables_are_not_cut():
    from agents.stats.report import build_summary, print_summary

    long = "policy:runs/" + "nested/" * 20 + "step-1000000"
    results = []
    for k in range(8):
        seats = ["random", long] if k % 2 == 0 else [long, "random"]
        scores = [10, 30] if seats[0] == "random" else [30, 10]
        ranks = [2.0, 1.0] if seats[0] == "random" else [1.0, 2.0]
        results.append(
            {"game_id": k, "seed": k, "block": k // 2, "seats": seats, "scores": scores, "ranks": ranks,
             "end": "terminated", "forfeit": [False, False], "forfeit_reason": [None, None],
             "num_players": 2}
        )  # fmt: skip
    out = io.StringIO()
    print_summary(build_summary(results, n_boot=0, reference="random"), console(out))
    text = out.getvalue()
    assert long in text and "…" not in text
    assert not CONTROL.search(text)


# -- report.html: one reference, and the OpenSkill ladder -----------------------------------------
@pytest.mark.parametrize("game", GAME_NAMES)
def test_report_tables_and_plot_share_one_reference_and_html_has_openskill(game, tmp_path):
    from agents.stats.report import ratings_figure

    bot = next(i.head for i in registry.describe(game) if not i.needs_arg and i.head != "random")
    out = tmp_path / "run"
    args = ["tournament", "--game", game, "--agents", f"{bot},random", "--players", "2",
            "--games", "2", "--workers", "1", "--out", out, "--bootstrap", "0", "--no-progress"]  # fmt: skip
    result = invoke(*args)
    assert result.exit_code == 0, result.output
    summary = json.loads((out / "summary.json").read_text())
    assert summary["ratings"]["reference"] == bot  # the first agent of --agents
    page = (out / "report.html").read_text()
    assert f"relative to the reference {bot} = 0" in page
    assert ratings_figure(summary).axes[0].get_xlabel().startswith(f"Elo difference to {bot} ")
    assert '<h2 id="openskill">OpenSkill ladder</h2>' in page
    ladder = page.split('id="openskill"')[1].split("</table>")[0]
    for agent in (bot, "random"):
        assert f"<td>{agent}</td>" in ladder
    # --reference names another agent: the same run is reported again from it, nothing replayed
    again = invoke(*args, "--reference", "random")
    assert again.exit_code == 0, again.output
    summary = json.loads((out / "summary.json").read_text())
    assert summary["ratings"]["reference"] == "random"
    assert "relative to the reference random = 0" in (out / "report.html").read_text()
    assert len((out / "games.jsonl").read_text().splitlines()) == 2


def test_reference_that_is_not_an_agent_of_the_run_is_refused_before_any_work(tmp_path):
    out = tmp_path / "run"
    bot = next(i.head for i in registry.describe(GAME_NAMES[0]) if i.head != "random")
    result = invoke(
        "tournament", "--agents", f"random,{bot}", "--players", "2", "--games", "2", "--out",
        out, "--reference", "nobody", "--game", GAME_NAMES[0],
    )  # fmt: skip
    assert result.exit_code == 2
    (line,) = result.stderr.splitlines()
    assert line.startswith("Error: invalid value for --reference: 'nobody' is not an agent")
    assert not out.exists()


def test_report_reference_rule():
    from agents.tournament.reports import report_reference

    info = {"agents": ["economy", "random", "castle"]}
    assert report_reference(info) == "economy"
    assert report_reference(info, "castle") == "castle"
    with pytest.raises(ValueError, match="allowed: economy, random, castle"):
        report_reference(info, "nobody")


# -- packaging ------------------------------------------------------------------------------------
def test_py_typed_ships_with_every_package_users_import():
    from importlib.resources import files

    import tomllib

    declared = tomllib.loads((REPO / "pyproject.toml").read_text())["tool"]["setuptools"][
        "package-data"
    ]
    for package in ("caylus_env", "agents", "training"):
        assert (REPO / package / "py.typed").is_file(), package
        assert "py.typed" in declared.get(package, []), package
        assert files(package).joinpath("py.typed").is_file()
