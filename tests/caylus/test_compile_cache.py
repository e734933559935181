"""The kernels' on-disk cache follows the sources: an edit anywhere gives a fresh cache.

numba invalidates a cached function only when its own file changes, while a compiled
kernel embeds every kernel it calls from other modules; ``caylus_env.core._cache`` keys
the whole cache directory by a digest of the sources instead.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from caylus_env.core import _cache

COLD_S = 3600
"""Backstop of the runs that compile into an empty cache on purpose (a cold compile, not a
hang, on a machine at any load)."""


def _tree(root: Path, body: str) -> Path:
    pkg = root / "pkg"
    (pkg / "sub").mkdir(parents=True)
    (pkg / "__init__.py").write_text("")
    (pkg / "sub" / "rules.py").write_text(body)
    return pkg


def test_the_digest_changes_with_any_compiled_source_edit_and_only_then(tmp_path):
    pkg = _tree(tmp_path, "from numba import njit\nX = 1\n")
    (pkg / "cli.py").write_text("print('plain python')\n")
    before = _cache.source_digest([pkg])
    assert _cache.source_digest([pkg]) == before  # stable
    (pkg / "sub" / "rules.py").write_text("from numba import njit\nX = 2\n")  # deep edit
    assert _cache.source_digest([pkg]) != before
    (pkg / "sub" / "rules.py").write_text("from numba import njit\nX = 1\n")
    assert _cache.source_digest([pkg]) == before
    (pkg / "cli.py").write_text("print('edited')\n")  # no kernel can embed this module
    assert _cache.source_digest([pkg]) == before


@pytest.mark.parametrize("engine", [("caylus", "engine"), ("puerto_rico", "engine")])
def test_every_engine_module_is_covered_even_without_numba(tmp_path, engine):
    folder = tmp_path.joinpath("caylus_env", *engine)
    folder.mkdir(parents=True)
    (folder / "constants.py").write_text("PRESTIGE = 1\n")
    before = _cache.source_digest([tmp_path / "caylus_env"])
    (folder / "constants.py").write_text("PRESTIGE = 2\n")  # a table a kernel reads
    assert _cache.source_digest([tmp_path / "caylus_env"]) != before


def test_kernels_are_cached_under_the_directory_of_this_source_version(tmp_path):
    script = (
        "import os, numba\n"
        "from caylus_env.core import _cache\n"
        "from caylus_env.caylus.engine import GameConfig, kernels\n"
        "kernels.play_random_games(GameConfig(num_players=2).kernel_options(), 1, 1)\n"
        "print(os.environ['NUMBA_CACHE_DIR'], numba.config.CACHE_DIR, _cache.CACHE_DIR)\n"
    )
    env = dict(os.environ, NUMBA_CACHE_DIR=str(tmp_path))
    done = subprocess.run(  # compiles cold by design: the timeout is only a hang backstop
        [sys.executable, "-c", script], env=env, capture_output=True, text=True, timeout=COLD_S
    )
    assert done.returncode == 0, done.stderr
    env_dir, config_dir, chosen = done.stdout.split()
    assert env_dir == config_dir == chosen
    chosen = Path(chosen)
    assert chosen.parent == tmp_path and chosen.name.startswith(_cache.PREFIX)
    assert chosen.name == _cache.PREFIX + _cache.source_digest(_cache._package_roots())
    assert any(chosen.rglob("*.nbi")), "the kernels were not cached there"
    # A worker process started with the chosen directory keeps it (no nested digest).
    again = subprocess.run(
        [sys.executable, "-c", script],
        env=dict(os.environ, NUMBA_CACHE_DIR=str(chosen)),
        capture_output=True,
        text=True,
        timeout=COLD_S,
    )
    assert again.returncode == 0, again.stderr
    assert again.stdout.split()[0] == str(chosen)
