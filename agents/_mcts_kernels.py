"""Compiled rollouts for ``agents.mcts``: returns, a light heuristic policy, cut-offs.

A rollout plays a copied state forward and returns one value per seat in [-1, 1]:

- at the end of the game, the rank-based returns of ``Game.returns`` (first +1,
  last -1, linear in between, ties averaged), optionally mixed with their soft
  version below computed from the final prestige (``final_returns``, ``margin``);
- when a rollout is cut off before the end (``max_decisions``), a soft version of
  the same: each seat's estimated final prestige ``v`` (the scripted bots' value
  function, ``agents.scripted._kernels.player_value``) is compared with every other
  seat's through ``tanh((v_i - v_j) / scale)`` and averaged, which tends to the
  rank return as the margins grow.

Policies: ``POLICY_RANDOM`` (uniform, as ``rules.random_playout``),
``POLICY_HEURISTIC`` (``light_choice``: cheap rules of thumb, no lookahead) and
``POLICY_BOT`` (the scripted bots' one-ply search, one weight row per seat, so
each seat may follow a different bot; strong but about sixty times slower). All randomness comes from numba's generator (``rules.seed_playouts``).
"""

from __future__ import annotations

import math

import numpy as np
from numba import njit

from agents.scripted import _kernels as SK
from caylus_env.engine import rules
from caylus_env.engine.actions import (
    ACT_BATCH,
    ACT_BUILD,
    ACT_DECLINE,
    ACT_JOUST,
    ACT_PASS,
    ACT_PAY,
    ACT_PLACE,
    BATCH_A,
    BATCH_B,
    BUILDING_OF_BUILD,
    NUM_ACTIONS,
)
from caylus_env.engine.board import (
    ROAD_TARGET_BASE,
    TARGET_CASTLE,
    TARGET_GATE,
    TARGET_GUILD,
    TARGET_INN,
    TARGET_JOUST,
    TARGET_STABLES,
    TARGET_TRADING_POST,
)
from caylus_env.engine.buildings import (
    B_EFFECT,
    B_OPTIONS,
    B_PRESTIGE,
    BuildingId,
)
from caylus_env.engine.layout import (
    NUM_PASSED,
    NUM_PLAYERS,
    P_CUBES,
    P_MONEY,
    P_PRESTIGE,
    PHASE,
    PLAYER_STRIDE,
    PLAYERS,
    PROVOST,
    ROAD_OWNER,
    ROAD_TILE,
    STACK,
    STACK_ENTRY,
    STACK_SIZE,
)
from caylus_env.engine.rules import (  # the engine's int constants, shared with its kernels
    CLOTH,
    D_ALCHEMIST_PAY,
    D_BUILD,
    D_CASTLE,
    D_FAVOR_COLUMN,
    D_FAVOR_GIVE,
    D_GUILD,
    D_INN,
    D_JOUST,
    D_LAWYER,
    D_MARKET,
    D_OPTION,
    D_PAY_ANY,
    D_PEDDLER,
    D_PLACE,
    D_PROVOST,
    E_BUILD_PRESTIGE,
    E_BUILD_STONE,
    E_BUILD_WOOD,
    E_LAWYER,
    E_MARKET,
    E_OPTIONS,
    E_PEDDLER,
    E_PRODUCE,
    FOOD,
    GOLD,
    PH_GAME_OVER,
    STONE,
    WOOD,
)

POLICY_RANDOM = 0
POLICY_HEURISTIC = 1
POLICY_BOT = 2


RESIDENCE = SK.RESIDENCE
GOLD_MINE = int(BuildingId.GOLD_MINE)
GOLD_MINE_BONUS = 1.0
PASS_SCORE = 0.6
PRICE_WEIGHT = 0.6
TEMPERATURE = 0.6  # Gumbel noise scale of the placement choice
RANDOM_SHARE = 0.05  # share of fully random choices (exploration in rollouts)


@njit(cache=True)
def _cube(s, p, r):
    return np.int64(s[PLAYERS + p * PLAYER_STRIDE + P_CUBES + r])


@njit(cache=True)
def _money(s, p):
    return np.int64(s[PLAYERS + p * PLAYER_STRIDE + P_MONEY])


@njit(cache=True)
def rank_returns(s, ret):
    """Write ``Game.returns('rank')`` of a finished game into ``ret`` (one per seat)."""
    n = np.int64(s[NUM_PLAYERS])
    for i in range(n):
        pi = s[PLAYERS + i * PLAYER_STRIDE + P_PRESTIGE]
        acc = 0.0
        for j in range(n):
            if j != i:
                pj = s[PLAYERS + j * PLAYER_STRIDE + P_PRESTIGE]
                if pi > pj:
                    acc += 1.0
                elif pi < pj:
                    acc -= 1.0
        ret[i] = acc / (n - 1)


@njit(cache=True)
def soft_returns(s, w, scale, ret):
    """Soft rank returns from estimated final prestige (for cut-off rollouts)."""
    n = np.int64(s[NUM_PLAYERS])
    v = np.empty(n)
    for i in range(n):
        v[i] = SK.player_value(s, i, w)
    for i in range(n):
        acc = 0.0
        for j in range(n):
            if j != i:
                acc += math.tanh((v[i] - v[j]) / scale)
        ret[i] = acc / (n - 1)


@njit(cache=True)
def final_returns(s, margin, scale, w, ret):
    """Returns of a finished game: ``(1 - margin)`` times the rank returns plus ``margin``
    times their soft version (``tanh`` of the prestige differences over ``scale``), which
    also rewards winning by more and losing by less."""
    rank_returns(s, ret)
    if margin > 0.0:
        n = np.int64(s[NUM_PLAYERS])
        soft = np.empty(n)
        soft_returns(s, w, scale, soft)
        for i in range(n):
            ret[i] = (1.0 - margin) * ret[i] + margin * soft[i]


@njit(cache=True)
def _gumbel():
    u = np.random.random()
    return -math.log(-math.log(u + 1e-12) + 1e-12)


@njit(cache=True)
def _holds_batch(s, p):
    if _cube(s, p, FOOD) < 1:
        return 0
    return SK.batches_formable(
        _cube(s, p, FOOD),
        _cube(s, p, WOOD),
        _cube(s, p, STONE),
        _cube(s, p, CLOTH),
        _cube(s, p, GOLD),
    )


@njit(cache=True)
def _place_score(s, p, a):
    """Rule-of-thumb worth of a phase-2 choice (pass, or a worker on a target)."""
    if a == ACT_PASS:
        return PASS_SCORE + (0.5 if s[NUM_PASSED] == 0 else 0.0)
    t = a - ACT_PLACE
    money = _money(s, p)
    cubes = 0
    for r in range(5):
        cubes += _cube(s, p, r)
    if t == TARGET_CASTLE:
        b = _holds_batch(s, p)
        return 3.5 + 1.5 * b if b > 0 else -3.0
    if t == TARGET_GATE:
        return 1.5
    if t == TARGET_TRADING_POST:
        return 2.0
    if t == TARGET_GUILD:
        return 0.8
    if t == TARGET_JOUST:
        return 2.5 if _cube(s, p, CLOTH) >= 1 and money >= 3 else -1.0
    if t == TARGET_STABLES:
        return 0.5
    if t == TARGET_INN:
        return 0.7
    k = t - ROAD_TARGET_BASE + 1
    tile = s[ROAD_TILE + k]
    effect = B_EFFECT[tile]
    base = -1.0
    if effect == E_PRODUCE:
        base = 2.0
        if tile == GOLD_MINE:
            base += GOLD_MINE_BONUS
    elif effect == E_BUILD_WOOD:
        base = 3.0 if _cube(s, p, WOOD) >= 1 and cubes >= 2 else -1.0
    elif effect == E_BUILD_STONE:
        base = 3.0 if _cube(s, p, STONE) >= 1 and cubes >= 2 else -1.0
    elif effect == E_BUILD_PRESTIGE:
        owns = False
        for kk in range(1, SK.ROAD + 1):
            if s[ROAD_TILE + kk] == RESIDENCE and s[ROAD_OWNER + kk] == p:
                owns = True
        base = 4.0 if owns and _cube(s, p, GOLD) >= 1 and cubes >= 3 else -1.0
    elif effect == E_LAWYER:
        base = 2.5 if _cube(s, p, CLOTH) >= 1 and money >= 2 else -1.0
    elif effect == E_MARKET:
        base = 1.5 if cubes >= 3 else -1.0
    elif effect == E_PEDDLER:
        base = 1.5 if money >= 4 else -0.5
    elif effect == E_OPTIONS:
        ok = money >= B_OPTIONS[tile, 0, 0]
        kind = B_OPTIONS[tile, 0, 1]
        if kind == 5:
            ok = ok and cubes - _cube(s, p, GOLD) >= B_OPTIONS[tile, 0, 2]
        elif kind >= 0:
            ok = ok and _cube(s, p, kind) >= B_OPTIONS[tile, 0, 2]
        base = 2.5 if ok else -1.0
    d = k - s[PROVOST]
    if d > 0:
        base *= 0.3 if d <= 2 else 0.05
    price = 1.0 if s[ROAD_OWNER + k] == p else 1.0 + s[NUM_PASSED]
    return base - PRICE_WEIGHT * price


@njit(cache=True)
def _most_held(s, p, out, n, base):
    """Index of the legal ``base + kind`` action whose kind ``p`` holds most."""
    best = 0
    most = -1
    for i in range(n):
        r = out[i] - base
        if 0 <= r < 5 and _cube(s, p, r) > most:
            most = _cube(s, p, r)
            best = i
    return best


@njit(cache=True)
def light_choice(s, out, n):
    """Index into ``out[:n]`` chosen by a cheap rule-of-thumb policy (no lookahead).

    It places workers where they produce or build (Gumbel-noised scores, see
    ``_place_score``), gives castle batches, builds the most prestigious building it
    can, takes the better church/bank/... option, rarely moves the provost, and picks
    the other choices at random.
    """
    if n == 1:
        return 0
    if np.random.random() < RANDOM_SHARE:
        return np.random.randint(n)
    o = STACK + (s[STACK_SIZE] - 1) * STACK_ENTRY
    kind = s[o]
    p = s[o + 1]
    if kind == D_PLACE:
        best = 0
        best_v = -1e18
        for i in range(n):
            v = _place_score(s, p, out[i]) + TEMPERATURE * _gumbel()
            if v > best_v:
                best_v = v
                best = i
        return best
    if kind in (D_PROVOST, D_GUILD):
        return 0 if np.random.random() < 0.85 else np.random.randint(n)
    if kind == D_CASTLE:
        best = 0
        best_v = -1e18
        for i in range(n):
            if out[i] == ACT_DECLINE:
                continue
            j = out[i] - ACT_BATCH
            a = BATCH_A[j]
            b = BATCH_B[j]
            v = _cube(s, p, a) + _cube(s, p, b) - (3.0 if b == GOLD else 0.0)
            if v > best_v:
                best_v = v
                best = i
        return best
    if kind == D_BUILD:
        best = 0
        best_v = -1e18
        for i in range(n):
            if out[i] == ACT_DECLINE:
                continue
            v = B_PRESTIGE[BUILDING_OF_BUILD[out[i] - ACT_BUILD]] + np.random.random()
            if v > best_v:
                best_v = v
                best = i
        return best
    if kind in (D_OPTION, D_FAVOR_COLUMN):
        return n - 1
    if kind == D_JOUST:
        for i in range(n):
            if out[i] == ACT_JOUST:
                return i
        return 0
    if kind == D_LAWYER:
        return 1 + np.random.randint(n - 1) if n > 1 else 0
    if kind in (D_PAY_ANY, D_ALCHEMIST_PAY, D_FAVOR_GIVE):
        return _most_held(s, p, out, n, ACT_PAY)
    if kind == D_MARKET:
        if _money(s, p) >= 4:
            return 0
        return _most_held(s, p, out, n, ACT_PAY)
    if kind == D_PEDDLER:
        if _money(s, p) < 3:
            return 0
        return 1 + np.random.randint(n - 1)
    if kind == D_INN:
        return 0 if np.random.random() < 0.5 else 1
    return np.random.randint(n)


@njit(cache=True)
def rollout(s, out, policy, weights, depth, max_decisions, eval_w, scale, margin, ret):
    """Play ``s`` forward in place and write one return per seat into ``ret``.

    Args:
        s: the state to play (modified).
        out: an int buffer of ``NUM_ACTIONS`` entries.
        policy: ``POLICY_RANDOM``, ``POLICY_HEURISTIC`` or ``POLICY_BOT``.
        weights: for ``POLICY_BOT``, one row of bot weights per seat.
        depth: for ``POLICY_BOT``, the follow-up search depth.
        max_decisions: cut the rollout off after this many decisions.
        eval_w: value weights used to score a cut-off position.
        scale: prestige margin that counts as a clear lead in a cut-off position.
        margin: weight of the prestige margins in the returns of a finished game
            (``final_returns``).
        ret: receives the returns.

    Returns:
        The number of decisions taken.
    """
    n = rules.advance(s, out)
    count = 0
    noise = np.empty(NUM_ACTIONS)
    legal = np.empty(NUM_ACTIONS, np.int64)
    while n > 0 and count < max_decisions:
        if policy == POLICY_RANDOM:
            a = out[np.random.randint(n)]
        elif policy == POLICY_HEURISTIC:
            a = out[light_choice(s, out, n)]
        else:
            p = rules.current_player(s)
            for i in range(n):
                noise[i] = np.random.random()
                legal[i] = out[i]
            a = legal[SK.choose(s, legal, n, weights[p], depth, noise)]
        rules._apply(s, a)
        n = rules.advance(s, out)
        count += 1
    if s[PHASE] == PH_GAME_OVER:
        final_returns(s, margin, scale, eval_w, ret)
    else:
        soft_returns(s, eval_w, scale, ret)
    return count


@njit(cache=True)
def expand(parent, action, child, out):
    """``child`` = ``parent`` after ``action`` and the engine's automatic steps.

    Returns:
        The number of legal actions of ``child`` (written to ``out``; 0 at the end).
    """
    child[:] = parent
    rules._apply(child, action)
    return rules.advance(child, out)
