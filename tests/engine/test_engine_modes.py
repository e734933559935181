"""The engine is plain NumPy under numba: it must also run uncompiled (for debugging)."""

from __future__ import annotations

import json
import os
import subprocess
import sys

from caylus_env.caylus.engine import Game, GameConfig

_SCRIPT = """
import json, random
from caylus_env.caylus.engine import Game, GameConfig
g = Game(GameConfig(num_players=3), seed=21)
r = random.Random(4)
while not g.is_terminal():
    g.apply(r.choice(g.legal_actions()))
print(json.dumps({"state": g.state.tolist(), "history": g.history}))
"""


def test_engine_gives_the_same_game_with_numba_disabled():
    env = dict(os.environ, NUMBA_DISABLE_JIT="1")
    out = subprocess.run(
        [sys.executable, "-c", _SCRIPT],
        env=env,
        capture_output=True,
        text=True,
        check=True,
        timeout=600,
    )
    slow = json.loads(out.stdout)
    g = Game(GameConfig(num_players=3), seed=21)
    for a in slow["history"]:
        g.apply(a)
    assert g.is_terminal() and g.state.tolist() == slow["state"]
