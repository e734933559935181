"""AgileRL 2.58 trains on the registered Gymnasium env with no glue: the AgileRL example of
``docs/integrations.md`` (AgileRL's own ``make_vect_envs`` making ``caylus_env/Caylus-v0`` by
id in subprocesses, its ``train_off_policy`` training a DQN that reads the masks from
``info["action_mask"]``) runs as the page gives it.

AgileRL 2.58 pins ``pettingzoo<1.27`` (this project is tested with 1.27) and brings jax,
wandb and more, so it runs in a virtual environment of its own, built on first use under the
user cache folder (``$XDG_CACHE_HOME/caylus-env/tests``) and reused while the pins and the
checkout stay the same: ``agilerl==2.58.0``, ``pettingzoo==1.26.1`` and ``peft==0.21.0``
(AgileRL 2.58 imports it from ``agilerl.algorithms`` but declares it in extras only), torch
through ``constraints.txt`` (the tested 2.13.0), then this checkout with ``pip install -c
constraints.txt -e``. Slow (``-m slow``): building the environment downloads about 2 GB.
"""

from __future__ import annotations

import hashlib
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

pytestmark = pytest.mark.slow

ROOT = Path(__file__).resolve().parents[2]
CONSTRAINTS = ROOT / "constraints.txt"
#: What the environment holds besides this checkout (torch comes from the constraints).
PINS = ("agilerl==2.58.0", "pettingzoo==1.26.1", "peft==0.21.0")
#: Hang backstops, never a measure: pip's downloads and installs, and the example once the
#: kernels are compiled (`_warm`).
INSTALL_TIMEOUT_S = 3600
SCRIPT_TIMEOUT_S = 1200


def _cache_root() -> Path:
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "caylus-env" / "tests"


def _run(args: list[str], **kwargs) -> subprocess.CompletedProcess[str]:
    return subprocess.run(args, capture_output=True, text=True, check=False, **kwargs)


@pytest.fixture(scope="module")
def agilerl_python() -> Path:
    """The Python of the AgileRL environment, built if missing (a stamp file marks a
    complete build; a partial one is removed and built again)."""
    key = hashlib.sha256(
        repr((PINS, CONSTRAINTS.read_text(), str(ROOT), sys.version_info[:2])).encode()
    ).hexdigest()[:12]
    venv = _cache_root() / f"agilerl-{key}"
    python = venv / "bin" / "python"
    stamp = venv / "complete"
    if not stamp.is_file():
        shutil.rmtree(venv, ignore_errors=True)
        venv.parent.mkdir(parents=True, exist_ok=True)
        steps = [
            [sys.executable, "-m", "venv", str(venv)],
            [str(python), "-m", "pip", "install", "-q", "-c", str(CONSTRAINTS), "torch", *PINS],
            [str(python), "-m", "pip", "install", "-q", "-c", str(CONSTRAINTS), "-e", str(ROOT)],
        ]
        for args in steps:
            done = _run(args, timeout=INSTALL_TIMEOUT_S)
            assert done.returncode == 0, f"{' '.join(args)}:\n{done.stderr[-4000:]}"
        stamp.write_text("\n".join(PINS) + "\n")
    return python


def _agilerl_example() -> str:
    page = (ROOT / "docs" / "integrations.md").read_text()
    section = page.split("\n## AgileRL", 1)[1].split("\n## ", 1)[0]
    blocks = re.findall(r"```python\n(.+?)```", section, re.S)
    assert len(blocks) == 1, "the AgileRL section has one Python example"
    return blocks[0]


WARM = (
    "import gymnasium, numpy as np\nimport caylus_env\n"
    "env = gymnasium.make('caylus_env/Caylus-v0', num_players=2)\n"
    "obs, info = env.reset(seed=0)\nfor _ in range(20):\n"
    "    obs, r, term, trunc, info = env.step(int(np.flatnonzero(info['action_mask'])[0]))\n"
    "    if term or trunc:\n        obs, info = env.reset()\n"
    "import agilerl.algorithms, agilerl.training.train_off_policy\n"
    "import pettingzoo\nprint(pettingzoo.__version__)\n"
)


def test_the_agilerl_example_trains_on_the_registered_env_with_no_glue(agilerl_python, tmp_path):
    # Compile the kernels (or load them from the cache) before the example's backstop runs.
    warm = _run([str(agilerl_python), "-c", WARM], cwd=tmp_path)
    assert warm.returncode == 0, warm.stderr[-4000:]
    assert warm.stdout.strip() == "1.26.1"  # the PettingZoo AgileRL pins, not the project's
    script = tmp_path / "agilerl_example.py"
    script.write_text(_agilerl_example())
    proc = _run(
        [str(agilerl_python), script.name],
        cwd=tmp_path,
        timeout=SCRIPT_TIMEOUT_S,
        env={**os.environ, "OMP_NUM_THREADS": "1"},
    )
    assert proc.returncode == 0, proc.stderr[-4000:]  # illegal="raise": every move was legal
    match = re.search(r"^steps (\d+) fitness (-?\d+(?:\.\d+)?)$", proc.stdout, re.M)
    assert match, proc.stdout
    assert int(match.group(1)) >= 2000 and -1.0 <= float(match.group(2)) <= 1.0
