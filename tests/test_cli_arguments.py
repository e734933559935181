"""Bad command lines for every command (the table of tests/fuzz_cli.py), each in a watched
worker: a one-line error naming the argument, exit code 1 or 2, no traceback, no hang; and
``--help`` still rendered in full."""

from __future__ import annotations

import sys
from pathlib import Path

from typer.testing import CliRunner

sys.path.insert(0, str(Path(__file__).resolve().parent))
import fuzz_cli

from caylus_cli.app import app


def test_every_bad_command_line_fails_in_one_line_naming_the_argument():
    counts, examples = fuzz_cli.fuzz(jobs=2)
    assert sum(counts.values()) == len(fuzz_cli.CASES)
    assert counts["clear"] == len(fuzz_cli.CASES), (dict(counts), examples)


def test_a_parse_error_prints_one_line_and_the_help_hint():
    result = CliRunner().invoke(app, ["play", "--delay", "abc", "--agents", "random,random"])
    assert result.exit_code == 2
    assert result.stderr.splitlines() == [
        "Error: Invalid value for '--delay': Input should be a valid number, unable to parse "
        "string as a number",
        "Try 'caylus play --help' for help.",
    ]


def test_help_is_still_rendered_in_full():
    result = CliRunner().invoke(app, ["play", "--help"])
    assert result.exit_code == 0
    assert "Usage:" in result.output and "--delay" in result.output and "--agents" in result.output
    assert not result.stderr
