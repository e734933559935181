"""Caylus's own parts of the one search (``caylus_env.core.mcts``): its rollout bots and how
it scores where a rollout stops.

A rollout plays a copied state forward and returns one value per seat in [-1, 1]
(`evaluate`):

- at the end of the game, the rank-based returns of ``Game.returns`` (first +1,
  last -1, linear in between, ties averaged), optionally mixed with their soft
  version below computed from the final prestige (``final_returns``, ``margin``);
- when a rollout is cut off before the end (``max_decisions``), a soft version of
  the same: each seat's estimated final prestige ``v`` (the scripted bots' value
  function, ``caylus_env.caylus.bots.scripted_kernels.player_value``) is compared with every other
  seat's through ``tanh((v_i - v_j) / scale)`` and averaged, which tends to the
  rank return as the margins grow.

Rollout policies (`rollout_choice`, besides the search's own ``random``): a scripted bot's
one-ply search at the search's ``depth`` (a strategy row of `WEIGHTS`; each seat may follow
a different bot, the opponent models choose; strong but about sixty times slower than the
heuristic), its ties broken by numba's generator, and `HEURISTIC` (``light_choice``: cheap
rules of thumb, no lookahead). `strategy_values` gives a strategy's values of the legal
actions (the search's priors and opponent models). All randomness comes from numba's
generator, which the search seeds.
"""

from __future__ import annotations

import math

import numpy as np
from numba import njit

from caylus_env.caylus.bots import scripted_kernels as SK
from caylus_env.caylus.bots.scripted import STRATEGIES
from caylus_env.caylus.engine import kernels as ek
from caylus_env.caylus.engine.actions import (
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
)
from caylus_env.caylus.engine.board import (
    ROAD_TARGET_BASE,
    TARGET_CASTLE,
    TARGET_GATE,
    TARGET_GUILD,
    TARGET_INN,
    TARGET_JOUST,
    TARGET_STABLES,
    TARGET_TRADING_POST,
)
from caylus_env.caylus.engine.buildings import (
    ANY_NON_GOLD,
    B_EFFECT,
    B_OPTIONS,
    B_PRESTIGE,
    OPTION_CUBE_COUNT,
    OPTION_CUBE_KIND,
    OPTION_DENIERS,
    BuildingId,
    Effect,
)
from caylus_env.caylus.engine.constants import (
    BRIDGE_BASE_PRICE,
    NUM_RESOURCES,
    SUBSEQUENT_PLACEMENT_FLOOR,
    DecisionKind,
    Resource,
)

#: The scripted strategies' weights, one row each, in the order of ``STRATEGIES``.
WEIGHTS = np.stack([strategy.to_array() for strategy in STRATEGIES.values()])
#: The rollout policy code of ``heuristic`` (after the strategies' rows).
HEURISTIC = len(STRATEGIES)

GOLD_MINE_BONUS = 1.0
PASS_SCORE = 0.6
PRICE_WEIGHT = 0.6
TEMPERATURE = 0.6  # Gumbel noise scale of the placement choice
RANDOM_SHARE = 0.05  # share of fully random choices (exploration in rollouts)


@njit(cache=True)
def soft_returns(s, w, scale, ret):
    """Soft rank returns from estimated final prestige (for cut-off rollouts)."""
    n = ek.num_players(s)
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
    ek.returns(s, ret)
    if margin > 0.0:
        n = ek.num_players(s)
        soft = np.empty(n)
        soft_returns(s, w, scale, soft)
        for i in range(n):
            ret[i] = (1.0 - margin) * ret[i] + margin * soft[i]


@njit(cache=True)
def _gumbel():
    u = np.random.random()
    return -math.log(-math.log(u + 1e-12) + 1e-12)


@njit(cache=True)
def _batches_held(s, p):
    """Castle batches (phase 6) the cubes of ``p`` can form."""
    if not ek.holds_batch(s, p):
        return 0
    return SK.batches_formable(
        ek.cube(s, p, Resource.FOOD),
        ek.cube(s, p, Resource.WOOD),
        ek.cube(s, p, Resource.STONE),
        ek.cube(s, p, Resource.CLOTH),
        ek.cube(s, p, Resource.GOLD),
    )


@njit(cache=True)
def _place_score(s, p, a):
    """Rule-of-thumb worth of a phase-2 choice (pass, or a worker on a target)."""
    if a == ACT_PASS:
        return PASS_SCORE + (0.5 if ek.num_passed(s) == 0 else 0.0)
    t = a - ACT_PLACE
    money = ek.money(s, p)
    cubes = ek.all_cubes(s, p)
    if t == TARGET_CASTLE:
        b = _batches_held(s, p)
        return 3.5 + 1.5 * b if b > 0 else -3.0
    if t == TARGET_GATE:
        return 1.5
    if t == TARGET_TRADING_POST:
        return 2.0
    if t == TARGET_GUILD:
        return 0.8
    if t == TARGET_JOUST:
        return 2.5 if ek.cube(s, p, Resource.CLOTH) >= 1 and money >= 3 else -1.0
    if t == TARGET_STABLES:
        return 0.5
    if t == TARGET_INN:
        return 0.7
    k = t - ROAD_TARGET_BASE + 1
    tile = ek.road_tile(s, k)
    effect = B_EFFECT[tile]
    base = -1.0
    if effect == Effect.PRODUCE:
        base = 2.0
        if tile == BuildingId.GOLD_MINE:
            base += GOLD_MINE_BONUS
    elif effect == Effect.BUILD_WOOD:
        base = 3.0 if ek.cube(s, p, Resource.WOOD) >= 1 and cubes >= 2 else -1.0
    elif effect == Effect.BUILD_STONE:
        base = 3.0 if ek.cube(s, p, Resource.STONE) >= 1 and cubes >= 2 else -1.0
    elif effect == Effect.BUILD_PRESTIGE:
        owns = ek.owns_residence(s, p)
        base = 4.0 if owns and ek.cube(s, p, Resource.GOLD) >= 1 and cubes >= 3 else -1.0
    elif effect == Effect.LAWYER:
        base = 2.5 if ek.cube(s, p, Resource.CLOTH) >= 1 and money >= 2 else -1.0
    elif effect == Effect.MARKET:
        base = 1.5 if cubes >= 3 else -1.0
    elif effect == Effect.PEDDLER:
        base = 1.5 if money >= 4 else -0.5
    elif effect == Effect.OPTIONS:
        # the first option only (the church-like buildings' cheaper one)
        ok = money >= B_OPTIONS[tile, 0, OPTION_DENIERS]
        kind = B_OPTIONS[tile, 0, OPTION_CUBE_KIND]
        count = B_OPTIONS[tile, 0, OPTION_CUBE_COUNT]
        if kind == ANY_NON_GOLD:
            ok = ok and ek.non_gold_cubes(s, p) >= count
        elif kind >= 0:
            ok = ok and ek.cube(s, p, kind) >= count
        base = 2.5 if ok else -1.0
    d = k - ek.provost(s)
    if d > 0:
        base *= 0.3 if d <= 2 else 0.05
    if ek.road_owner(s, k) == p:
        price = float(SUBSEQUENT_PLACEMENT_FLOOR)
    else:
        price = BRIDGE_BASE_PRICE + ek.num_passed(s)  # the rule of thumb ignores the 2-player price
    return base - PRICE_WEIGHT * price


@njit(cache=True)
def _most_held(s, p, out, n, base):
    """Index of the legal ``base + kind`` action whose kind ``p`` holds most."""
    best = 0
    most = -1
    for i in range(n):
        r = out[i] - base
        if 0 <= r < NUM_RESOURCES and ek.cube(s, p, r) > most:
            most = ek.cube(s, p, r)
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
    kind = ek.decision_kind(s)
    p = ek.decision_player(s)
    if kind == DecisionKind.PLACE_WORKER:
        best = 0
        best_v = -1e18
        for i in range(n):
            v = _place_score(s, p, out[i]) + TEMPERATURE * _gumbel()
            if v > best_v:
                best_v = v
                best = i
        return best
    if kind in (DecisionKind.PROVOST, DecisionKind.GUILD):
        return 0 if np.random.random() < 0.85 else np.random.randint(n)
    if kind == DecisionKind.CASTLE:
        best = 0
        best_v = -1e18
        for i in range(n):
            if out[i] == ACT_DECLINE:
                continue
            j = out[i] - ACT_BATCH
            a = BATCH_A[j]
            b = BATCH_B[j]
            v = ek.cube(s, p, a) + ek.cube(s, p, b) - (3.0 if b == Resource.GOLD else 0.0)
            if v > best_v:
                best_v = v
                best = i
        return best
    if kind == DecisionKind.BUILD:
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
    if kind in (DecisionKind.OPTION, DecisionKind.FAVOR_COLUMN):
        return n - 1
    if kind == DecisionKind.JOUST:
        for i in range(n):
            if out[i] == ACT_JOUST:
                return i
        return 0
    if kind == DecisionKind.LAWYER:
        return 1 + np.random.randint(n - 1) if n > 1 else 0
    if kind in (DecisionKind.PAY_ANY, DecisionKind.ALCHEMIST_PAY, DecisionKind.FAVOR_GIVE):
        return _most_held(s, p, out, n, ACT_PAY)
    if kind == DecisionKind.MARKET:
        if ek.money(s, p) >= 4:
            return 0
        return _most_held(s, p, out, n, ACT_PAY)
    if kind == DecisionKind.PEDDLER:
        if ek.money(s, p) < 3:
            return 0
        return 1 + np.random.randint(n - 1)
    if kind == DecisionKind.INN:
        return 0 if np.random.random() < 0.5 else 1
    return np.random.randint(n)


@njit(cache=True)
def strategy_values(strategy, s, legal, n, depth, values):
    """The values of ``legal[:n]`` for the player to move, searched ``depth`` follow-up levels
    deep by strategy ``strategy`` (a row of `WEIGHTS`), into ``values``."""
    SK.action_values(s, legal, n, WEIGHTS[strategy], depth, values)


@njit(cache=True)
def rollout_choice(policy, s, legal, n, depth):
    """The index into ``legal[:n]`` that rollout policy ``policy`` plays: `HEURISTIC`, or a
    strategy row whose bot searches ``depth`` levels, its ties broken by uniform draws."""
    if policy == HEURISTIC:
        return light_choice(s, legal, n)
    noise = np.empty(n)
    for i in range(n):
        noise[i] = np.random.random()
    return SK.choose(s, legal, n, WEIGHTS[policy], depth, noise)


@njit(cache=True)
def evaluate(s, margin, scale, strategy, ret):
    """The returns of the position a rollout stops at, valued with strategy ``strategy``'s
    weights: ``final_returns`` at the end of the game, else ``soft_returns``."""
    w = WEIGHTS[strategy]
    if ek.is_terminal(s):
        final_returns(s, margin, scale, w, ret)
    else:
        soft_returns(s, w, scale, ret)
