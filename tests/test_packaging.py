"""The README's two commands and CI stay in sync; the engine stays free of RL libraries."""

from __future__ import annotations

import ast
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def _test_command() -> str:
    readme = (ROOT / "README.md").read_text()
    blocks = re.findall(r"```bash\n(.+?)\n```", readme, re.S)
    commands = [b for b in blocks if "pytest" in b]
    assert len(commands) == 1, "the README must give exactly one test command"
    return commands[0].strip()


def test_ci_runs_the_readme_test_command():
    ci = (ROOT / ".ci" / "run").read_text()
    assert _test_command() in ci


def test_readme_commands_pin_torch_through_the_constraints_file():
    readme = (ROOT / "README.md").read_text()
    for block in re.findall(r"```bash\n(.+?)\n```", readme, re.S):
        if "pip install" in block:
            assert "-c constraints.txt" in block
    assert (ROOT / "constraints.txt").read_text().strip() == "torch==2.13.0"


def test_engine_imports_only_stdlib_numpy_and_numba():
    allowed = {"numpy", "numba", "caylus_env"}
    import sys

    stdlib = set(sys.stdlib_module_names)
    for path in (ROOT / "caylus_env" / "engine").glob("*.py"):
        tree = ast.parse(path.read_text())
        for node in ast.walk(tree):
            names = []
            if isinstance(node, ast.Import):
                names = [a.name for a in node.names]
            elif isinstance(node, ast.ImportFrom) and node.level == 0:
                names = [node.module]
            for name in names:
                top = name.split(".")[0]
                assert top in allowed or top in stdlib, f"{path.name} imports {name}"
