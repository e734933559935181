"""Bad command lines for every command (the table of tests/cli/fuzz_cli.py), each in a watched
worker: a one-line error naming the argument, exit code 1 or 2, no traceback, no hang; and
``--help`` still rendered in full."""

from __future__ import annotations

import pytest
from typer.testing import CliRunner

from caylus_cli.app import app
from tests.cli import fuzz_cli


def test_every_bad_command_line_fails_in_one_line_naming_the_argument():
    counts, examples = fuzz_cli.fuzz(jobs=2)
    assert sum(counts.values()) == len(fuzz_cli.CASES)
    assert counts["clear"] == len(fuzz_cli.CASES), (dict(counts), examples)


def test_a_parse_error_prints_one_line_without_the_help_hint():
    result = CliRunner().invoke(app, ["play", "--delay", "abc", "--agents", "random,random"])
    assert result.exit_code == 2
    assert result.stderr.splitlines() == [
        "Error: Invalid value for '--delay': Input should be a valid number, unable to parse "
        "string as a number",
    ]


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["nosuch"], "Error: No such command 'nosuch'."),
        (["--bogus"], "Error: No such option: --bogus"),
        (["dataset", "bogus"], "Error: No such command 'bogus'."),
        (["dataset", "verify"], "Error: Missing argument 'directory'."),
        (["train", "match", "ppo-2p", "--games", "abc"], "Error: Invalid value for '--games'"),
        (["train", "match"], "Error: Missing argument 'checkpoint'."),
        (["tournament", "--agents", "random"], "Error: Missing option '--players'."),
    ],
)
def test_usage_errors_of_every_command_are_one_line_with_exit_code_2(args, message):
    result = CliRunner().invoke(app, args)
    assert result.exit_code == 2 and not result.stdout
    assert len(result.stderr.splitlines()) == 1, result.stderr
    assert result.stderr.startswith(message), result.stderr


@pytest.mark.parametrize(
    "command",
    [
        ["tournament", "--agents", "random", "--players", "2", "--games", "2"],
        ["duel", "random", "castle"],
        ["dataset", "generate", "--agents", "random", "--players", "2", "--games", "2"],
    ],
    ids=["tournament", "duel", "dataset-generate"],
)
@pytest.mark.parametrize("under", ["sub", "sub/deeper"])
def test_an_out_directory_under_a_regular_file_is_refused_before_any_work(tmp_path, command, under):
    afile = tmp_path / "afile"
    afile.write_text("not a directory\n")
    out = afile / under
    result = CliRunner().invoke(app, [*command, "--out", str(out), "--no-progress"])
    assert result.exit_code == 2, result.output
    assert result.stderr.splitlines() == [
        f"Error: invalid value for --out: {afile} is not a directory, so {out} cannot be created"
    ]
    assert not result.stdout  # no game was played
    assert afile.read_text() == "not a directory\n"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["afile"]


def test_help_is_still_rendered_in_full():
    result = CliRunner().invoke(app, ["play", "--help"])
    assert result.exit_code == 0
    assert "Usage:" in result.output and "--delay" in result.output and "--agents" in result.output
    assert not result.stderr
