"""The rules link of ``caylus serve`` works from a wheel install: the wheel built from this
tree holds every game's rules page (``docs/rules/``) as package data, and a server imported
from that wheel alone, installed into a directory of its own with no ``docs/`` folder anywhere
near it, serves each page (``caylus_env.core.serve.rules``, ``importlib.resources``)."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import zipfile
from dataclasses import replace
from pathlib import Path

import pytest

from caylus_env.core.registry import GAME_NAMES, game_spec
from caylus_env.core.serve.rules import rules_markdown, rules_name
from tests.serve.conftest import HANG_S

ROOT = Path(__file__).resolve().parents[2]

#: Run with the wheel's packages only: serve every game's rules page and print what came back.
SERVE_FROM_WHEEL = """
import http.client, json, sys
from pathlib import Path
import caylus_env
site = Path(sys.argv[1]).resolve()
assert Path(caylus_env.__file__).resolve().is_relative_to(site), caylus_env.__file__
assert not any((p / "docs" / "rules").exists() for p in Path(caylus_env.__file__).parents)
from caylus_cli.serve import RegistryAgents
from caylus_env.core.registry import GAME_NAMES
from caylus_env.core.serve import PlayServer
server = PlayServer(RegistryAgents([]), site / "saved", port=0)
server.start()
out = {}
for game in GAME_NAMES:
    conn = http.client.HTTPConnection("127.0.0.1", server.port, timeout=60)
    conn.request("GET", "/rules/" + game)
    answer = conn.getresponse()
    out[game] = [answer.status, answer.read().decode()]
server.close()
print(json.dumps(out))
"""


def _tree(dest: Path) -> Path:
    """A copy of this working tree's files (tracked and new, not ignored), links kept."""
    listed = subprocess.run(
        ["git", "ls-files", "-z", "--cached", "--others", "--exclude-standard"],
        cwd=ROOT,
        capture_output=True,
        check=True,
        timeout=HANG_S,
    ).stdout.split(b"\0")
    for name in filter(None, listed):
        source = ROOT / os.fsdecode(name)
        if not source.exists() and not source.is_symlink():
            continue  # deleted in the working tree
        target = dest / os.fsdecode(name)
        target.parent.mkdir(parents=True, exist_ok=True)
        if source.is_symlink():
            target.symlink_to(os.readlink(source))
        else:
            shutil.copy2(source, target)
    return dest


@pytest.fixture(scope="module")
def wheel(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The wheel of this tree, built in a copy of it (the build writes nothing here)."""
    tree = _tree(tmp_path_factory.mktemp("tree"))
    out = tmp_path_factory.mktemp("wheel")
    subprocess.run(
        [sys.executable, "-m", "pip", "wheel", "--no-deps", "--no-build-isolation",
         "--no-index", "-q", "-w", str(out), str(tree)],
        check=True,
        capture_output=True,
        timeout=HANG_S * 3,
    )  # fmt: skip
    (built,) = out.glob("caylus_env-*.whl")
    return built


def test_the_wheel_holds_every_games_rules_page_as_a_file(wheel):
    with zipfile.ZipFile(wheel) as z:
        for game in GAME_NAMES:
            name = rules_name(game_spec(game))
            shipped = z.read(f"caylus_env/core/serve/rules/{name}").decode()
            assert shipped == (ROOT / game_spec(game).rules_doc).read_text()


def test_a_server_installed_from_the_wheel_serves_the_rules_without_a_docs_folder(wheel, tmp_path):
    site = tmp_path / "site"
    subprocess.run(
        [sys.executable, "-m", "pip", "install", "--no-deps", "--no-index", "-q", "--target",
         str(site), str(wheel)],
        check=True,
        capture_output=True,
        timeout=HANG_S * 3,
    )  # fmt: skip
    env = {**os.environ, "PYTHONPATH": str(site)}
    proc = subprocess.run(
        [sys.executable, "-c", SERVE_FROM_WHEEL, str(site)],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
        timeout=HANG_S,
    )
    assert proc.returncode == 0, proc.stderr[-3000:]
    pages = json.loads(proc.stdout)
    for game in GAME_NAMES:
        status, page = pages[game]
        assert status == 200, page[:300]
        heading = rules_markdown(game_spec(game)).splitlines()[0].removeprefix("# ")
        assert f">{heading}</h1>" in page


def test_a_rules_doc_outside_the_shipped_folder_is_refused_naming_it():
    spec = replace(game_spec("caylus"), rules_doc="docs/caylus-rules.md")
    with pytest.raises(ValueError, match=r"'docs/caylus-rules.md' is not a page of docs/rules/"):
        rules_name(spec)


def test_every_games_rules_doc_is_a_page_the_package_ships():
    for game in GAME_NAMES:
        spec = game_spec(game)
        assert rules_markdown(spec) == (ROOT / spec.rules_doc).read_text()
