"""The layers and the peers stay apart.

- Every game's engine is the standard library, NumPy, numba, itself and the few core modules
  that are themselves NumPy and numba only: search code, batch simulators and other projects
  can use it without an RL stack (checked statically over every import statement, and at run
  time in a fresh interpreter that refuses to import the upper layers and heavy libraries).
- Importing one game's engine (or its environment, or its bots) loads no module of another
  game; the core imports no game at all.
- The environment package (``caylus_env``) never reaches up into the agents, training or the
  command line.
- No code outside the registry and the games' own folders branches on a game's name or is
  named after a game: the shared layers reach a game only through its ``GameSpec``.
"""

from __future__ import annotations

import ast
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from caylus_env.core import _cache
from caylus_env.core.registry import GAME_NAMES, game_spec

ROOT = Path(__file__).resolve().parents[2]
STDLIB = set(sys.stdlib_module_names)
#: Top-level modules an engine must run without.
BLOCKED = (
    "gymnasium",
    "pettingzoo",
    "torch",
    "ray",
    "agents",
    "training",
    "caylus_cli",
    "typer",
    "rich",
    "matplotlib",
    "scipy",
    "openskill",
    "pyarrow",
)
#: Layers above the environment package.
UPPER_LAYERS = {"agents", "training", "caylus_cli"}
#: The core modules an engine may use: they import the standard library, NumPy, numba and
#: each other only (checked below).
ENGINE_CORE = {
    "caylus_env.core",
    "caylus_env.core._cache",
    "caylus_env.core.actions",
    "caylus_env.core.layout",
    "caylus_env.core.loop",
    "caylus_env.core.hooks",
    "caylus_env.core.specialize",
    "caylus_env.core.config",
    "caylus_env.core.contract",
    "caylus_env.core.errors",
    "caylus_env.core.game",
    "caylus_env.core.observation",
    "caylus_env.core.ranks",
    "caylus_env.core.record",
    "caylus_env.core.registry",
    "caylus_env.core.state_checks",
    "caylus_env._version",
}
#: Where a game's name may be written as code: the registry and the games' own folders.
NAME_ALLOWED = ("caylus_env/core/registry.py", *(f"caylus_env/{g}/" for g in GAME_NAMES))
#: The folders whose code is checked for game names (tests and docs may name the games).
CODE_FOLDERS = ("caylus_env", "agents", "training", "caylus_cli", "bench")


def _module_name(path: Path) -> str:
    parts = list(path.relative_to(ROOT).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


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


def _imports(path: Path) -> list[tuple[int, str]]:
    module = _module_name(path)
    package = module if path.name == "__init__.py" else module.rpartition(".")[0]
    return _imports_in(path.read_text(encoding="utf-8"), package, str(path))


def _sources(folder: str) -> list[Path]:
    paths = sorted(p for p in (ROOT / folder).rglob("*.py") if "__pycache__" not in p.parts)
    assert paths, f"no sources under {folder}"
    return paths


def _within(name: str, modules: set[str]) -> bool:
    """``name`` is one of ``modules`` or a name defined in one of them."""
    return name in modules or name.rpartition(".")[0] in modules


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


def _engine_may_import(name: str, package: str) -> bool:
    top = name.split(".")[0]
    if top in STDLIB or top in {"numpy", "numba"}:
        return True
    if name == package or name.startswith(package + "."):
        return True
    return _within(name, ENGINE_CORE)


@pytest.mark.parametrize("game", GAME_NAMES)
def test_engine_imports_only_stdlib_numpy_numba_itself_and_the_engine_core(game):
    package = f"{game_spec(game).package}.engine"
    folder = package.replace(".", "/")
    bad = [
        f"{path.relative_to(ROOT)}:{line} imports {name}"
        for path in _sources(folder)
        for line, name in _imports(path)
        if not _engine_may_import(name, package)
    ]
    assert not bad, "an engine may import only the standard library, numpy, numba, itself " + (
        "and the engine core:\n" + "\n".join(bad)
    )


def test_the_engine_core_imports_only_stdlib_numpy_numba_and_itself():
    bad = []
    for module in sorted(ENGINE_CORE - {"caylus_env._version"}):
        path = ROOT / (module.replace(".", "/") + ".py")
        if not path.exists():
            path = ROOT / module.replace(".", "/") / "__init__.py"
        for line, name in _imports(path):
            top = name.split(".")[0]
            if not (top in STDLIB or top in {"numpy", "numba"} or _within(name, ENGINE_CORE)):
                bad.append(f"{path.relative_to(ROOT)}:{line} imports {name}")
    assert not bad, "\n".join(bad)


def test_the_core_imports_no_game():
    bad = [
        f"{path.relative_to(ROOT)}:{line} imports {name}"
        for path in _sources("caylus_env/core")
        for line, name in _imports(path)
        if any(name.startswith(game_spec(g).package) for g in GAME_NAMES)
    ]
    assert not bad, "the core reaches a game only through the registry:\n" + "\n".join(bad)


def test_a_game_folder_imports_no_other_game():
    bad = []
    for game in GAME_NAMES:
        others = [game_spec(g).package for g in GAME_NAMES if g != game]
        for path in _sources(game_spec(game).package.replace(".", "/")):
            for line, name in _imports(path):
                if any(name == o or name.startswith(o + ".") for o in others):
                    bad.append(f"{path.relative_to(ROOT)}:{line} imports {name}")
    assert not bad, "\n".join(bad)


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


ISOLATED_RUN = textwrap.dedent(
    """
    import sys

    BLOCKED = {blocked!r}

    class Blocker:
        def find_spec(self, name, path=None, target=None):
            if name.split(".")[0] in BLOCKED:
                raise ImportError(f"layer test: {{name}} is blocked", name=name)
            return None

    sys.meta_path.insert(0, Blocker())

    import importlib
    import numpy as np

    engine = importlib.import_module({package!r} + ".engine")
    game = engine.Game(seed=11)
    rng = np.random.default_rng(7)
    while not game.is_over():
        legal = game.legal_actions()
        game.apply(int(legal[rng.integers(len(legal))]))
    assert len(game.history) > 50, len(game.history)
    record = engine.replay(game.record().to_dict())
    assert (record.state == game.state).all()
    bots = importlib.import_module({package!r} + ".bots")
    importlib.import_module({package!r} + ".observation")
    importlib.import_module({package!r} + ".rendering")
    loaded = sorted(m for m in sys.modules if m.split(".")[0] in BLOCKED)
    assert not loaded, loaded
    others = sorted(m for m in sys.modules if any(m == o or m.startswith(o + ".") for o in {others!r}))
    assert not others, others
    from caylus_env.core import _cache
    print("isolated ok", len(game.history), sorted(bots.BOTS), _cache.CACHE_DIR)
    """
)


@pytest.mark.parametrize("game", GAME_NAMES)
def test_a_game_runs_alone_without_the_upper_layers_or_another_game(game):
    spec = game_spec(game)
    others = [game_spec(g).package for g in GAME_NAMES if g != game]
    code = ISOLATED_RUN.format(blocked=set(BLOCKED), package=spec.package, others=others)
    proc = subprocess.run(
        [sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, timeout=900
    )
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.startswith("isolated ok"), proc.stdout
    # the blocked packages' sources are still part of the tree: the run shares the kernel cache
    # of every other run of it rather than compiling the game from scratch
    assert proc.stdout.split()[-1] == str(_cache.CACHE_DIR), proc.stdout


@pytest.mark.parametrize("game", GAME_NAMES)
def test_a_game_env_loads_no_other_game(game):
    others = [game_spec(g).package for g in GAME_NAMES if g != game]
    code = (
        "import sys, caylus_env\n"
        f"env = caylus_env.make({game!r}, num_players=3)\nenv.reset(seed=1)\n"
        f"from agents.registry import make_agent\nmake_agent('random', {game!r})\n"
        f"bad = [m for m in sys.modules if any(m == o or m.startswith(o + '.') for o in {others!r})]\n"
        "assert not bad, bad\nprint('ok')\n"
    )
    proc = subprocess.run(
        [sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, timeout=900
    )
    assert proc.returncode == 0 and proc.stdout.strip() == "ok", proc.stderr


def test_blocker_really_blocks():
    """The run-time check proves something only if the blocker stops a blocked import."""
    code = ISOLATED_RUN.format(blocked=set(BLOCKED), package="x", others=[]).split(
        "import importlib"
    )[0]
    code += "import caylus_env\ncaylus_env.make\nimport gymnasium\n"
    proc = subprocess.run(
        [sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, timeout=120
    )
    assert proc.returncode != 0
    assert "layer test:" in proc.stderr and "is blocked" in proc.stderr


# -- no game-name branches outside the registry and the games' folders ------------------------------
def _docstrings(tree: ast.AST) -> set[int]:
    """The ids of the string constants that are docstrings (module, class, function)."""
    out = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Module | ast.ClassDef | ast.FunctionDef | ast.AsyncFunctionDef):
            body = node.body
            if body and isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant):
                out.add(id(body[0].value))
    return out


def game_names_in_code(source: str, names: set[str]) -> list[int]:
    """Lines where ``source`` writes a game's name as a string in code (a comparison, a dict
    key, an argument...): any string constant that is not a docstring and equals a name or
    names it as ``name:`` / ``name_v0``."""
    tree = ast.parse(source)
    docs = _docstrings(tree)
    # The command's own name (``caylus``, which is also a game's) is written once, as PROGRAM.
    for node in ast.walk(tree):
        if isinstance(node, ast.Assign) and any(
            isinstance(t, ast.Name) and t.id == "PROGRAM" for t in node.targets
        ):
            docs.add(id(node.value))
    lines = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Constant) and isinstance(node.value, str) and id(node) not in docs:
            text = node.value.strip()
            if text in names or any(text == f"{n}_v0" for n in names):
                lines.append(node.lineno)
    return sorted(lines)


def test_the_game_name_scanner_finds_branches():
    """The check below would pass vacuously if the scanner missed a branch."""
    source = (
        '"""Mentions caylus in prose."""\n'
        'if game == "caylus":\n    pass\n'
        'TABLE = {"puerto_rico": 1}\n'
        'def f():\n    """puerto_rico"""\n    return "a caylus game"\n'
    )
    assert game_names_in_code(source, {"caylus", "puerto_rico"}) == [2, 4]


def test_no_game_name_branch_outside_the_registry_and_the_games_folders():
    names = set(GAME_NAMES)
    bad = []
    for folder in CODE_FOLDERS:
        for path in _sources(folder):
            rel = path.relative_to(ROOT).as_posix()
            if rel.startswith(NAME_ALLOWED):
                continue
            for line in game_names_in_code(path.read_text(encoding="utf-8"), names):
                bad.append(f"{rel}:{line}")
    assert not bad, (
        "a game's name is written in shared code (reach the game through "
        "caylus_env.core.registry.game_spec instead):\n" + "\n".join(bad)
    )


def test_no_shared_module_is_named_after_a_game():
    names = set(GAME_NAMES)
    bad = []
    for folder in CODE_FOLDERS:
        for path in (ROOT / folder).rglob("*"):
            rel = path.relative_to(ROOT).as_posix()
            inside = (rel + "/").startswith(NAME_ALLOWED)
            shim = path.suffix == ".py" and any(path.stem == f"{n}_v0" for n in names)
            if "__pycache__" in rel or inside or shim or path.suffix not in ("", ".py"):
                continue
            if path.stem in names:
                bad.append(rel)
    assert not bad, "shared code named after a game (move it into the game's folder):\n" + (
        "\n".join(bad)
    )
