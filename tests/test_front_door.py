"""The front door: ``CHANGELOG.md`` follows Keep a Changelog and its latest release is the
package's version; ``caylus_env.make`` and ``make_vector`` say what they return; the README
warns of the first run's compile time and installs ``[train]`` where its training commands
need it."""

from __future__ import annotations

import re
import typing
from datetime import date
from pathlib import Path

import caylus_env
from caylus_env._version import __version__

ROOT = Path(__file__).resolve().parents[1]
CHANGELOG = ROOT / "CHANGELOG.md"
#: A release's heading: ``## [0.3.0] - 2026-12-01``.
RELEASE = re.compile(r"^## \[(\d+)\.(\d+)\.(\d+)\] - (\d{4}-\d{2}-\d{2})$")
#: The kinds of change Keep a Changelog names.
KINDS = ("Added", "Changed", "Deprecated", "Removed", "Fixed", "Security")


def _sections() -> list[tuple[str, list[str]]]:
    """``(## heading, its lines)`` of the changelog, in order."""
    out: list[tuple[str, list[str]]] = []
    for line in CHANGELOG.read_text().splitlines():
        if line.startswith("## "):
            out.append((line, []))
        elif out:
            out[-1][1].append(line)
    return out


def test_the_changelog_follows_keep_a_changelog():
    text = CHANGELOG.read_text()
    assert text.startswith("# Changelog\n")
    assert "https://keepachangelog.com/" in text
    sections = _sections()
    assert sections[0][0] == "## [Unreleased]", "an [Unreleased] section comes first"
    releases = sections[1:]
    assert releases, "no release"
    versions, dates = [], []
    for heading, lines in releases:
        found = RELEASE.match(heading)
        assert found, f"{heading!r} is not '## [X.Y.Z] - YYYY-MM-DD'"
        versions.append(tuple(int(x) for x in found.groups()[:3]))
        dates.append(date.fromisoformat(found.group(4)))
        kinds = [line[4:] for line in lines if line.startswith("### ")]
        assert kinds and all(k in KINDS for k in kinds), (heading, kinds)
        assert len(kinds) == len(set(kinds)), (heading, kinds)
        assert any(line.startswith("- ") for line in lines), f"{heading} lists no change"
    assert versions == sorted(versions, reverse=True) and len(set(versions)) == len(versions)
    assert dates == sorted(dates, reverse=True)
    assert versions[-1] == (0, 1, 0), "the history starts at 0.1.0"


def test_the_packages_version_is_the_changelogs_latest_release():
    latest = RELEASE.match(_sections()[1][0])
    assert latest is not None
    assert ".".join(latest.groups()[:3]) == __version__ == caylus_env.__version__


def test_make_and_make_vector_say_what_they_return():
    from pettingzoo import AECEnv

    from caylus_env.core.vector import GameVectorEnv

    names = {"AECEnv": AECEnv, "GameVectorEnv": GameVectorEnv}
    made = typing.get_type_hints(caylus_env.make, localns=names)["return"]
    vector = typing.get_type_hints(caylus_env.make_vector, localns=names)["return"]
    assert made is AECEnv and vector is GameVectorEnv
    for wrapped in (True, False):
        assert isinstance(caylus_env.make("caylus", wrapped=wrapped), made)
    envs = caylus_env.make_vector("caylus", 2, num_players=2)
    try:
        assert isinstance(envs, vector)
    finally:
        envs.close()


def _readme_blocks(kind: str) -> list[str]:
    return re.findall(rf"```{kind}\n(.+?)```", (ROOT / "README.md").read_text(), re.S)


def test_the_readme_says_the_first_run_compiles_and_how_long_each_run_takes():
    readme = (ROOT / "README.md").read_text()
    quickstart = readme[readme.index("## Quickstart") : readme.index("```python")]
    assert "first run compiles" in quickstart
    assert re.search(r"83-349 s", quickstart) and re.search(
        r"later runs take about 1 s", quickstart
    )


def test_every_readme_block_with_training_commands_installs_the_train_extra_first():
    blocks = [b for b in _readme_blocks("bash") if "caylus train" in b]
    assert blocks, "the README has training commands"
    for block in blocks:
        lines = block.splitlines()
        first_train = next(i for i, line in enumerate(lines) if "caylus train" in line)
        installs = [i for i, line in enumerate(lines) if "pip install" in line and "[train" in line]
        assert installs and installs[0] < first_train, block
