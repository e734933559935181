"""The Puerto Rico engine imports only the standard library, NumPy, numba and the
project's own engine packages, and runs with the RL stack blocked (as tests/test_layers.py
checks for the Caylus engine)."""

from __future__ import annotations

import ast
import subprocess
import sys
import textwrap
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
ENGINE = ROOT / "caylus_env" / "puerto_rico" / "engine"
STDLIB = set(sys.stdlib_module_names)
BLOCKED = ("gymnasium", "pettingzoo", "torch", "ray", "agents", "training", "typer", "rich")


def _allowed(name: str) -> bool:
    top = name.split(".")[0]
    if top in STDLIB or top in {"numpy", "numba"}:
        return True
    return (
        name.startswith("caylus_env.puerto_rico")
        or name in {"caylus_env._version", "caylus_env._version.__version__"}
        # the shared numba cache keying (caylus_env/core/_cache.py imports only numba)
        or name in {"caylus_env.caylus.engine", "caylus_env.core._cache"}
    )


def test_engine_imports_only_stdlib_numpy_numba_and_itself():
    bad = []
    paths = sorted(p for p in ENGINE.rglob("*.py") if "__pycache__" not in p.parts)
    assert len(paths) > 10
    for path in paths:
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            names = []
            if isinstance(node, ast.Import):
                names = [a.name for a in node.names]
            elif isinstance(node, ast.ImportFrom):
                assert node.level == 0, f"{path}: relative import"
                names = [node.module or ""]
            bad += [f"{path.relative_to(ROOT)}:{node.lineno} {n}" for n in names if not _allowed(n)]
    assert not bad, "\n".join(bad)


RUN = textwrap.dedent(
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
    from caylus_env.puerto_rico.engine import Game, GameConfig

    rng = np.random.default_rng(3)
    game = Game(GameConfig(num_players=4), seed=2)
    while game.legal_actions():
        game.apply(int(rng.choice(game.legal_actions())))
    assert game.is_terminal()
    loaded = sorted(m for m in sys.modules if m.split(".")[0] in BLOCKED)
    assert not loaded, loaded
    print("layers ok", len(game.history))
    """
)


def test_engine_runs_with_the_rl_stack_blocked():
    proc = subprocess.run(
        [sys.executable, "-c", RUN.format(blocked=set(BLOCKED))],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.startswith("layers ok")


def test_blocker_really_blocks():
    code = RUN.format(blocked=set(BLOCKED)).split("import numpy as np")[0] + "import torch\n"
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert proc.returncode != 0 and "is blocked" in proc.stderr


#: Engine modules no kernel reads (plain Python around the kernels).
PLAIN_PYTHON = {"config.py", "game.py", "kernels.py", "state_dict.py", "__init__.py"}


def test_every_module_the_kernels_read_keys_the_compile_cache():
    """The numba cache directory is keyed by the sources of compiled code, found by the
    word "numba" outside caylus_env/caylus/engine (caylus_env/core/_cache.py). A table module
    the kernels read must be found too, or editing it would leave stale kernels."""
    from caylus_env.core._cache import is_compiled_source

    missing = []
    for path in sorted(ENGINE.rglob("*.py")):
        if path.name in PLAIN_PYTHON or "__pycache__" in path.parts:
            continue
        if not is_compiled_source(path.relative_to(ROOT), path.read_bytes()):
            missing.append(str(path.relative_to(ROOT)))
    assert not missing, missing
