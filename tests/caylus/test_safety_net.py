"""The compiled safety net: loops that depend on state values are bounded, so a state that
slipped past validation ends in an error, never in a hang that Ctrl-C cannot stop.

Each case runs in a subprocess with a watchdog, so a regression fails instead of hanging.
"""

from __future__ import annotations

import subprocess
import sys

import pytest

from tests.conftest import warm_kernels

_PRELUDE = """
import numpy as np
from caylus_env.caylus.engine import Game, GameConfig, kernels
from caylus_env.caylus.engine import layout as L
from caylus_env.caylus.engine.state import player_field
s = Game(GameConfig(num_players=3), seed=5).state.copy()
out = np.empty(256, np.int64)
s[L.STACK_SIZE] = 0
"""

CASES = {
    "a phase number that names no phase": "s[L.PHASE] = 0",
    "every player passed but the bridge counts none": (
        "s[L.PHASE] = 2\n"
        "s[L.NUM_PASSED] = 0\n"
        "for p in range(3):\n"
        "    s[player_field(p, L.P_PASSED)] = 1"
    ),
}


@pytest.mark.parametrize("corruption", list(CASES.values()), ids=list(CASES))
def test_advance_on_an_inconsistent_state_raises_instead_of_hanging(corruption):
    warm_kernels("caylus")  # the watchdog measures the loop, not numba compiling it
    script = (
        _PRELUDE
        + corruption
        + """
try:
    kernels.advance(s, out)
except RuntimeError as e:
    print("raised:", e)
else:
    print("no error")
"""
    )
    done = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, timeout=300
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith("raised: caylus engine:"), done.stdout
