"""Puerto Rico's one piece of hidden information, the order of the face-down plantations
(docs/rules/puerto_rico.md 6.8): search redraws it (``kernels.resample_hidden``), and nothing
else of the position changes. What the observer, the rendering and the replay page show of it
is tested with each of them."""

from __future__ import annotations

from caylus_env.puerto_rico.engine import Game, GameConfig
from caylus_env.puerto_rico.engine import kernels as K
from caylus_env.puerto_rico.engine.state_dict import state_to_dict


def test_resample_hidden_changes_only_the_face_down_order():
    g = Game(GameConfig(num_players=3), seed=8)
    for _ in range(60):
        g.apply(g.legal_actions()[0])
    before = g.state_dict()
    s = g.state.copy()
    K.resample_hidden(s, 99)
    after = state_to_dict(s)
    assert sorted(after["plantation_stack"]) == sorted(before["plantation_stack"])
    assert after["plantation_stack"] != before["plantation_stack"]
    for key in ("rng", "plantation_stack"):
        before.pop(key), after.pop(key)
    assert after == before and K.check_invariants(s) == 0
