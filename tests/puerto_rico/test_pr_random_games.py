"""Randomized invariants over complete random games, 2-5 players, with and without the
expansion.

Compiled (``invariants.check_random_game``): the conservation invariants at every
decision, and at sampled decisions that the legal actions are exactly what ``step``
accepts and that a rejected action changes nothing. In Python, on a share of the games:
the state dict round trip at every decision, record replay, determinism. The default run plays
1,000 games per player count and option (mask checked every 25 decisions); the long sweep
(another 1,000 each, mask checked every 5 decisions) is marked slow.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys

import numpy as np
import pytest

from caylus_env.puerto_rico.engine import NUM_ACTIONS, Game, GameConfig, replay
from caylus_env.puerto_rico.engine import kernels as K
from caylus_env.puerto_rico.engine.invariants import (
    INVARIANT_MESSAGES,
    MASK_MISMATCH,
    REJECT_CHANGED,
    Invariant,
    check_random_game,
)
from caylus_env.puerto_rico.engine.state_dict import dict_to_state, state_to_dict

PLAYER_COUNTS = (2, 3, 4, 5)


def _explain(code: int) -> str:
    if code == MASK_MISMATCH:
        return "legal actions differ from the accepted ones"
    if code == REJECT_CHANGED:
        return "a rejected action changed the state"
    return INVARIANT_MESSAGES[Invariant(code)]


CONFIGS = [(n, e) for n in PLAYER_COUNTS for e in (False, True)]


def _sweep(num_players: int, expansion: bool, games: int, every: int, base: int) -> list[int]:
    """Random games; with the expansion, odd games draft by the players, even ones at
    random; with 2 players, odd games use the library limit."""
    lengths = []
    for g in range(games):
        draft = g % 2 if expansion else 0
        limit = g % 2 if num_players == 2 else 0
        s = K.new_state(num_players, 4000, int(expansion), draft, limit, base + g)
        code, steps = check_random_game(s, base + g, every)
        where = f"{num_players}p expansion={expansion} seed {base + g}, decision {steps}"
        assert code == 0, f"{where}: {_explain(code)}"
        assert K.is_terminal(s), f"{where}: the game did not end"
        lengths.append(steps)
    return lengths


@pytest.mark.parametrize(("num_players", "expansion"), CONFIGS)
def test_random_games_keep_the_invariants_and_the_mask_is_exact(num_players, expansion):
    lengths = _sweep(num_players, expansion, games=1000, every=25, base=10_000)
    assert min(lengths) > 50


@pytest.mark.slow
@pytest.mark.parametrize(("num_players", "expansion"), CONFIGS)
def test_random_games_keep_the_invariants_long_sweep(num_players, expansion):
    _sweep(num_players, expansion, games=1000, every=5, base=1_000_000)


@pytest.mark.parametrize(("num_players", "expansion"), CONFIGS)
def test_state_dict_round_trip_and_record_replay(num_players, expansion):
    for seed in range(2):
        g = Game(GameConfig(num_players=num_players, expansion=expansion), seed=seed)
        rng = np.random.default_rng(seed)
        while g.legal_actions():
            d = json.loads(json.dumps(g.state_dict()))
            assert (dict_to_state(d) == g.state).all()
            g.apply(int(rng.choice(g.legal_actions())))
        assert g.is_terminal()
        again = replay(json.loads(json.dumps(g.record().to_dict())))
        assert (again.state == g.state).all() and again.history == g.history


def test_a_game_from_a_mid_game_state_dict_replays():
    g = Game(GameConfig(num_players=4), seed=9)
    for _ in range(40):
        g.apply(g.legal_actions()[-1])
    h = Game.from_state_dict(g.state_dict())
    for _ in range(30):
        h.apply(h.legal_actions()[0])
    assert (replay(h.record()).state == h.state).all()


def test_same_seed_and_actions_give_the_same_game_bit_for_bit():
    runs = []
    for _ in range(2):
        g = Game(GameConfig(num_players=5), seed=123)
        rng = np.random.default_rng(4)
        while g.legal_actions():
            g.apply(int(rng.choice(g.legal_actions())))
        runs.append((g.state.tobytes(), tuple(g.history)))
    assert runs[0] == runs[1]
    other = Game(GameConfig(num_players=5), seed=124).state_dict()["plantation_stack"]
    assert other != Game(GameConfig(num_players=5), seed=123).state_dict()["plantation_stack"]


def test_clone_is_independent():
    g = Game(GameConfig(num_players=3), seed=1)
    c = g.clone()
    c.apply(c.legal_actions()[0])
    assert g.history == [] and not (g.state == c.state).all()


_PARITY = """
import numpy as np
from caylus_env.puerto_rico.engine import kernels as K
s = K.new_state(3, 4000, 1, 0, 0, 77)
K.random_playout(s, 5)
print(s.tobytes().hex())
"""


def test_engine_runs_the_same_without_the_jit():
    """The kernels are plain Python under NUMBA_DISABLE_JIT=1 and give the same game (an
    expansion game, whose draft is the players' first decisions)."""
    out = []
    for disable in ("0", "1"):
        env = dict(os.environ, NUMBA_DISABLE_JIT=disable)
        res = subprocess.run(
            [sys.executable, "-c", _PARITY], env=env, capture_output=True, text=True, check=True
        )
        out.append(res.stdout.strip())
    assert out[0] == out[1] and len(out[0]) > 0


def test_legal_mask_matches_legal_actions():
    s = K.new_state(4, 4000, 1, 0, 0, 3)
    out = np.empty(NUM_ACTIONS, np.int64)
    mask = np.ones(NUM_ACTIONS, np.int8)
    for _ in range(200):
        n = K.legal_actions(s, out)
        if n == 0:
            break
        assert K.legal_mask(s, mask) == n
        assert np.flatnonzero(mask).tolist() == out[:n].tolist()
        K.step(s, out[n // 2], out)


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
