"""Every setting is declared once, as a dataclass field: ``caylus train ppo``'s options are
``PPOConfig``'s fields (``caylus_cli.fields``), with their defaults and help."""

from __future__ import annotations

import dataclasses
import shlex
import subprocess
import sys
from dataclasses import dataclass, field
from pathlib import Path

import pytest
import typer
from typer.main import get_command
from typer.testing import CliRunner

from caylus_cli.app import app
from caylus_cli.fields import field_parameters, from_fields
from training.config import PPOConfig
from training.defaults import BATCH_SIZE_RULE

ROOT = Path(__file__).resolve().parents[2]


def _command(*path: str):
    command = get_command(app)
    for name in path:
        command = command.commands[name]
    return command


def _options(command) -> dict[str, object]:
    """The command's options by their first long name."""
    return {p.opts[0]: p for p in command.params if p.opts[0] != "--help"}


def test_every_ppo_setting_is_an_option_with_its_fields_default_and_help():
    options = _options(_command("train", "ppo"))
    shared = {"progress", "game"}
    expected = [f for f in dataclasses.fields(PPOConfig) if f.metadata.get("option", True)]
    assert list(options) == [f"--{f.name.replace('_', '-')}" for f in expected]
    for f, (name, option) in zip(expected, options.items(), strict=True):
        default = None if f.default is dataclasses.MISSING else f.default
        assert option.default == default, name
        if f.name not in shared:
            assert option.help == f.metadata["help"], name
    assert options["--resume"].is_flag and options["--resume"].secondary_opts == []
    assert options["--batch-size"].show_default == BATCH_SIZE_RULE
    assert "--command" not in options


def test_the_command_line_gives_each_setting_to_the_config_by_name(monkeypatch, tmp_path):
    import training.ppo
    import training.runs

    got = {}
    monkeypatch.setattr(training.ppo, "train", lambda cfg: got.setdefault("cfg", cfg) and "x")
    monkeypatch.setattr(training.runs, "check_run_game", lambda out, game: None)
    args = ["train", "ppo", "--out", str(tmp_path / "r"), "--ent-coef", "0.25", "--resume"]
    args += ["--arch", '{"name": "mlp-v1", "layers": [8]}', "--players", "2-3", "--no-progress"]
    # run.json records the command as typed: the program's name and its arguments (sys.argv,
    # which CliRunner leaves as pytest's own, so it is set here as a shell would)
    monkeypatch.setattr(sys, "argv", ["/usr/bin/caylus", *args])
    result = CliRunner().invoke(app, args)
    assert result.exit_code == 0, result.output
    cfg = got["cfg"]
    assert (cfg.ent_coef, cfg.resume, cfg.progress, cfg.players) == (0.25, True, False, [2, 3])
    assert cfg.arch == {"name": "mlp-v1", "layers": [8]} and cfg.steps == 1_000_000
    assert cfg.command == shlex.join(["caylus", *args])


@dataclass
class _Toy:
    """A command's arguments, to build options from."""

    out: str = field(metadata={"help": "Where."})
    new_coef: float = field(default=0.5, metadata={"help": "A new coefficient."})
    sizes: list[int] | None = field(default=None, metadata={"help": "Sizes.", "cli_type": str})
    fast: bool = field(default=False, metadata={"help": "Go fast.", "flags": ("--fast",)})
    mode: str = field(default="a", metadata={"help": "Mode.", "show_default": "the first one"})
    derived: str = field(default="", metadata={"option": False})


def _toy_app(seen: dict) -> typer.Typer:
    toy = typer.Typer()

    @toy.command()
    @from_fields(_Toy)
    def run(values: dict, *, extra: int = 3) -> None:
        """Run the toy."""
        seen.update(values, extra=extra)

    @toy.callback()
    def _main() -> None:
        """A group of commands (typer runs a lone command without its name)."""

    return toy


def test_a_new_setting_is_one_field_with_its_option_default_and_help():
    seen: dict = {}
    runner = CliRunner()
    result = runner.invoke(_toy_app(seen), ["run", "--out", "o", "--new-coef", "0.75", "--fast"])
    assert result.exit_code == 0, result.output
    assert seen == {
        "out": "o", "new_coef": 0.75, "sizes": None, "fast": True, "mode": "a", "extra": 3
    }  # fmt: skip
    helped = runner.invoke(_toy_app({}), ["run", "--help"], terminal_width=200).output
    for text in ("A new coefficient.", "[default: 0.5]", "[default: (the first one)]", "--extra"):
        assert text in helped, text
    assert "--derived" not in helped and "--no-fast" not in helped
    assert "[required]" in helped


def test_an_option_without_help_is_refused_naming_the_field():
    @dataclass
    class Bare:
        coef: float = 0.1

    with pytest.raises(ValueError, match=r"Bare\.coef is an option without help"):
        field_parameters(Bare)


def test_the_command_line_loads_no_numba_torch_or_arena():
    code = (
        "import sys, caylus_cli.app\n"
        "loaded = {'numba', 'torch', 'agents.tournament.arena', 'agents.policy'} & set(sys.modules)\n"
        "assert not loaded, loaded\n"
    )
    proc = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr
