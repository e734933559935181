"""Untrusted state dicts: a mutated position is either refused with a ``ValueError`` naming
the problem, or it is a game the engine plays to its end keeping every invariant. Never a
crash, a hang or a silently inconsistent game."""

from __future__ import annotations

import copy
import random

import numpy as np

from caylus_env.puerto_rico.engine import Game, GameConfig
from caylus_env.puerto_rico.engine.invariants import check_random_game

VALUES = [-1, 0, 1, 2, 3, 7, 12, 40, 200, None, True, "corn", "x", [], {}, 1.5]


def _leaves(d, path=()):
    if isinstance(d, dict):
        for k, v in d.items():
            yield from _leaves(v, (*path, k))
    elif isinstance(d, list) and d:
        for i, v in enumerate(d):
            yield from _leaves(v, (*path, i))
    else:
        yield path


def _set(d, path, value):
    for k in path[:-1]:
        d = d[k]
    d[path[-1]] = value


def _positions():
    out = []
    for n, expansion in [(n, e) for n in (2, 3, 4, 5) for e in (False, True)]:
        g = Game(GameConfig(num_players=n, expansion=expansion), seed=n)
        rng = np.random.default_rng(n)
        while g.legal_actions():
            if rng.random() < 0.03:
                out.append(g.state_dict())
            g.apply(int(rng.choice(g.legal_actions())))
    return out


def test_mutated_state_dicts_are_refused_or_played_consistently():
    rnd = random.Random(0)
    positions = _positions()
    accepted = refused = 0
    for i in range(600):
        d = copy.deepcopy(rnd.choice(positions))
        path = rnd.choice(list(_leaves(d)))
        _set(d, path, rnd.choice(VALUES))
        try:
            g = Game.from_state_dict(d)
        except ValueError:
            refused += 1
            continue
        accepted += 1
        s = g.state.copy()
        code, _ = check_random_game(s, i, 50)
        assert code == 0, f"mutation {path} accepted but broke invariant {code}"
    assert refused > 200 and accepted > 30, (refused, accepted)
