"""The layers stay apart: engine < environment < agents, training < command line.

The engine (``caylus_env.caylus.engine``) is numpy and numba only, so that search code, batch
simulators and other projects can use it without an RL stack; the environment package
(``caylus_env``) never reaches up into the agents, training or the command line; only
``caylus_cli`` imports every layer. Checked twice: statically over the source (every import
statement, relative ones resolved), and at run time in a fresh interpreter that refuses to
import the upper layers and the heavy libraries.
"""

from __future__ import annotations

import ast
import subprocess
import sys
import textwrap
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
STDLIB = set(sys.stdlib_module_names)

#: Top-level modules the engine and the bare ``caylus_env`` import must run without.
BLOCKED = (
    "gymnasium",
    "pettingzoo",
    "torch",
    "ray",
    "agents",
    "training",
    "typer",
    "rich",
    "matplotlib",
    "scipy",
    "openskill",
)
#: Layers above the environment package.
UPPER_LAYERS = {"agents", "training", "caylus_cli"}


def _module_name(path: Path) -> str:
    parts = list(path.relative_to(ROOT).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def _imports(path: Path) -> list[tuple[int, str]]:
    """``(line, absolute module name)`` of every import in the repository file ``path``."""
    module = _module_name(path)
    package = module if path.name == "__init__.py" else module.rpartition(".")[0]
    return _imports_in(path.read_text(encoding="utf-8"), package, str(path))


def _imports_in(source: str, package: str, filename: str = "<test>") -> list[tuple[int, str]]:
    """``(line, absolute module name)`` of every import in ``source``, a module of ``package``.

    Relative imports are resolved; ``from pkg import name`` yields ``pkg.name`` (the name may be
    a submodule); ``importlib.import_module("literal")`` calls count too.
    """
    found: list[tuple[int, str]] = []
    for node in ast.walk(ast.parse(source, filename=filename)):
        if isinstance(node, ast.Import):
            found += [(node.lineno, a.name) for a in node.names]
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                parts = package.split(".")
                parts = parts[: len(parts) - (node.level - 1)]
                base = ".".join(parts + ([node.module] if node.module else []))
            else:
                base = node.module or ""
            found += [(node.lineno, f"{base}.{a.name}") for a in node.names]
        elif (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Attribute | ast.Name)
            and getattr(node.func, "attr", getattr(node.func, "id", "")) == "import_module"
            and node.args
            and isinstance(node.args[0], ast.Constant)
            and isinstance(node.args[0].value, str)
        ):
            found.append((node.lineno, node.args[0].value))
    return sorted(found)


def _sources(folder: str) -> list[Path]:
    paths = sorted(p for p in (ROOT / folder).rglob("*.py") if "__pycache__" not in p.parts)
    assert paths, f"no sources under {folder}"
    return paths


def test_import_resolution_sees_relative_and_dynamic_imports():
    """The static checks below would pass vacuously if the resolver missed imports."""
    source = (
        "import numpy as np\nfrom . import layout\nfrom ..env import x\n"
        "import importlib\nimportlib.import_module('agents.registry')\n"
    )
    names = [name for _, name in _imports_in(source, "caylus_env.caylus.engine")]
    assert names == [
        "numpy",
        "caylus_env.caylus.engine.layout",
        "caylus_env.caylus.env.x",
        "importlib",
        "agents.registry",
    ]


def test_environment_package_never_imports_the_upper_layers():
    bad = [
        f"{path.relative_to(ROOT)}:{line} imports {name}"
        for path in _sources("caylus_env")
        for line, name in _imports(path)
        if name.split(".")[0] in UPPER_LAYERS
    ]
    assert not bad, "caylus_env must not depend on agents, training or caylus_cli:\n" + "\n".join(
        bad
    )


def _engine_may_import(name: str) -> bool:
    top = name.split(".")[0]
    if top in STDLIB or top in {"numpy", "numba"}:
        return True
    if name == "caylus_env.caylus.engine" or name.startswith("caylus_env.caylus.engine."):
        return True
    # The version string: caylus_env/_version.py imports nothing, and the parent package
    # ``caylus_env`` is imported anyway before any of its subpackages (and is lazy).
    return name in {"caylus_env._version", "caylus_env._version.__version__"} or (
        name == "caylus_env.__version__"
    )


def test_engine_imports_only_stdlib_numpy_numba_and_itself():
    bad = [
        f"{path.relative_to(ROOT)}:{line} imports {name}"
        for path in _sources("caylus_env/caylus/engine")
        for line, name in _imports(path)
        if not _engine_may_import(name)
    ]
    assert not bad, "the engine may import only the standard library, numpy, numba and " + (
        "caylus_env.caylus.engine.*:\n" + "\n".join(bad)
    )


BLOCKED_RUN = textwrap.dedent(
    """
    import sys

    BLOCKED = {blocked!r}

    class Blocker:
        def find_spec(self, name, path=None, target=None):
            if name.split(".")[0] in BLOCKED:
                raise ImportError(f"layer test: {{name}} is blocked", name=name)
            return None

    sys.meta_path.insert(0, Blocker())

    import numpy as np

    import caylus_env.caylus.engine
    from caylus_env.caylus.engine import Game, GameConfig, kernels
    from caylus_env.caylus.engine.actions import NUM_ACTIONS

    rng = np.random.default_rng(7)

    game = Game(GameConfig(num_players=3), seed=11)
    while not game.is_terminal():
        legal = game.legal_actions()
        game.apply(int(legal[rng.integers(len(legal))]))
    assert len(game.history) > 100, len(game.history)
    assert len(game.ranks()) == 3

    c = GameConfig(num_players=2)
    s = kernels.new_state(
        c.num_players, int(c.simplified_favors), c.lawyer_prestige, int(c.jeweller),
        c.house_limit, 5,
    )
    out = np.empty(NUM_ACTIONS, np.int64)
    n = kernels.legal_actions(s, out)
    decisions = 0
    while not kernels.is_terminal(s):
        assert n > 0
        assert kernels.step(s, out[rng.integers(n)], out) != kernels.ILLEGAL
        n = kernels.legal_actions(s, out)
        decisions += 1
    ret = np.zeros(2)
    kernels.returns(s, ret)
    assert decisions > 100 and ret.sum() == 0.0, (decisions, ret)

    import caylus_env

    assert caylus_env.__version__
    assert {{"__version__", "Game", "caylus_v0"}} <= set(dir(caylus_env))
    loaded = sorted(m for m in sys.modules if m.split(".")[0] in BLOCKED)
    assert not loaded, loaded
    print("layers ok", len(game.history), decisions, caylus_env.__version__)
    """
)


def test_engine_and_package_import_without_the_upper_layers():
    code = BLOCKED_RUN.format(blocked=set(BLOCKED))
    proc = subprocess.run(
        [sys.executable, "-c", code],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.startswith("layers ok"), proc.stdout


def test_blocker_really_blocks():
    """The run-time check proves something only if the blocker stops a blocked import."""
    code = BLOCKED_RUN.format(blocked=set(BLOCKED)).split("import numpy as np")[0]
    code += "import caylus_env\ncaylus_env.caylus_v0\n"
    proc = subprocess.run(
        [sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, timeout=120
    )
    assert proc.returncode != 0
    assert "layer test:" in proc.stderr and "is blocked" in proc.stderr
