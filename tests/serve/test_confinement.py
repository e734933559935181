"""``caylus serve`` reads only checkpoints under its ``--checkpoints`` directories: every path
an agent spec names (``policy:PATH``, ``puct:SIMS:ckpt=PATH``, a plugin's declared paths) is
resolved, links followed, and one outside every directory is refused before anything touches
it, with the same line whether it exists, is a file, a directory or a link; the shipped
checkpoints, named by name, and the checkpoints inside the directories are loaded."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from agents import registry
from agents.policy import SHIPPED_DIR
from agents.random_agent import RandomAgent
from caylus_cli.serve import RegistryAgents
from tests.serve.conftest import Client

#: A seed at which seat 0 moves first in Caylus: the agent of seat 1 is made, not run.
HUMAN_FIRST = 1
#: The spec forms that name a checkpoint directory, ``{}`` standing for the path.
PATH_SPECS = ("policy:{}", "policy:{}:sample", "puct:2:ckpt={}", "puct:2:c=2:ckpt={}:temp=1")


def _checkpoint(where: Path) -> Path:
    """A loadable Caylus checkpoint at ``where`` (a copy of the shipped ``ppo-2p``)."""
    shutil.copytree(SHIPPED_DIR / "ppo-2p", where)
    return where


def _create(client: Client, spec: str) -> tuple[int, dict]:
    body = {"game": "caylus", "players": 2, "seats": ["human", spec], "seed": HUMAN_FIRST}
    return client.call("POST", "/api/games", body)


def _outside_paths(tmp_path: Path) -> dict[str, str]:
    """Paths outside the server's directory ``tmp_path/checkpoints``, of every kind: a
    loadable checkpoint, a missing path, a regular file, a plain directory, a link inside the
    directory to the checkpoint outside, and a ``..`` walk out of it."""
    root = tmp_path / "checkpoints"
    outside = _checkpoint(tmp_path / "outside" / "ck")
    (tmp_path / "outside" / "file.txt").write_text("not a checkpoint")
    (root / "link").symlink_to(outside, target_is_directory=True)
    return {
        "checkpoint": str(outside),
        "missing": str(tmp_path / "outside" / "missing"),
        "file": str(tmp_path / "outside" / "file.txt"),
        "directory": str(tmp_path / "outside"),
        "link inside": str(root / "link"),
        "dot-dot": str(root / ".." / "outside" / "ck"),
        "system": "/etc",
    }


@pytest.mark.parametrize("form", PATH_SPECS)
def test_a_path_outside_the_checkpoint_directories_is_refused_alike_whatever_it_is(
    client, tmp_path, form
):
    """The refusal names the spec and the allowed directories, and reads the same for an
    existing checkpoint, a missing path, a file, a directory and a link out of the
    directory: it tells nothing of the disk outside."""
    answers = {}
    for kind, path in _outside_paths(tmp_path).items():
        status, answer = _create(client, form.format(path))
        assert status == 400, (kind, answer)
        assert set(answer) == {"error"} and "\n" not in answer["error"], answer
        answers[kind] = answer["error"].replace(path, "PATH")
    assert len(client.server.sessions) == 0
    first = answers["checkpoint"]
    assert "outside the checkpoint directories" in first
    assert str((tmp_path / "checkpoints").resolve()) in first
    assert all(text == first for text in answers.values()), answers


def test_checkpoints_inside_the_directories_and_the_shipped_names_are_loaded(
    client, tmp_path, monkeypatch
):
    mine = _checkpoint(tmp_path / "checkpoints" / "mine")
    monkeypatch.chdir(tmp_path)
    specs = [form.format(mine) for form in PATH_SPECS]
    specs += ["policy:checkpoints/mine", "puct:2:ckpt=checkpoints/mine"]  # relative to the cwd
    specs += ["ppo-2p", "puct:2", "puct:2:ckpt=ppo-2p", "puct:2:ckpt=ppo-caylus"]
    for spec in specs:
        status, view = _create(client, spec)
        assert status == 201, (spec, view)
        assert view["seats"][1]["name"] == spec


def test_a_link_inside_a_directory_to_a_checkpoint_inside_it_is_loaded(client, tmp_path):
    root = tmp_path / "checkpoints"
    _checkpoint(root / "real")
    (root / "alias").symlink_to(root / "real", target_is_directory=True)
    for form in PATH_SPECS:
        status, view = _create(client, form.format(root / "alias"))
        assert status == 201, view


def test_a_plugin_agent_that_declares_a_path_argument_is_confined_too(client, tmp_path):
    """A test-registered agent whose ``model=PATH`` names a file: the server refuses one
    outside its directories before the agent's factory runs, and makes one inside."""
    made = []

    def factory(spec: str, arg: str | None) -> RandomAgent:
        made.append(spec)
        return RandomAgent(spec)

    registry.register(
        "filebot", factory, needs_arg=True, game="caylus", paths=registry.key_paths("model")
    )
    outside = tmp_path / "outside.bin"
    outside.write_bytes(b"weights")
    inside = tmp_path / "checkpoints" / "model.bin"
    for path in (outside, tmp_path / "missing.bin"):
        status, answer = _create(client, f"filebot:1:model={path}")
        assert status == 400 and "outside the checkpoint directories" in answer["error"]
    assert made == []
    status, view = _create(client, f"filebot:1:model={inside}")
    assert status == 201, view
    assert made and set(made) == {f"filebot:1:model={inside}"}  # checked, then the seat's


def test_without_checkpoint_directories_every_path_is_refused_and_shipped_names_load(tmp_path):
    agents = RegistryAgents([])
    with pytest.raises(ValueError, match="none: start caylus serve --checkpoints DIR"):
        agents.make(f"puct:2:ckpt={_checkpoint(tmp_path / 'ck')}", "caylus")
    assert agents.make("puct:2:ckpt=ppo-2p", "caylus").sims == 2


def test_the_page_lists_the_checkpoints_inside_the_directories_and_no_link_out(client, tmp_path):
    root = tmp_path / "checkpoints"
    mine = _checkpoint(root / "runs" / "mine")
    (root / "away").symlink_to(_checkpoint(tmp_path / "elsewhere"), target_is_directory=True)
    (root / "broken").mkdir()
    (root / "broken" / "config.json").write_text("{")
    status, catalog = client.call("GET", "/api/catalog")
    assert status == 200
    caylus = next(g for g in catalog["games"] if g["name"] == "caylus")
    listed = [a["spec"] for a in caylus["agents"] if a["spec"].startswith("policy:/")]
    assert listed == [f"policy:{mine.resolve()}"]


@pytest.mark.parametrize("form", PATH_SPECS)
def test_a_path_inside_the_directories_that_the_system_refuses_is_a_400_naming_it(
    client, tmp_path, form
):
    """A name over the system's limit inside a directory: ``Path.is_dir`` raises for it (not
    False), which the checkpoint readers turn into their refusal, not an internal error."""
    spec = form.format(tmp_path / "checkpoints" / ("x" * 300))
    status, answer = _create(client, spec)
    assert status == 400, answer
    assert "seat 1:" in answer["error"] and "x" * 50 in answer["error"]
