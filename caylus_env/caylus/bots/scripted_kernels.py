"""Compiled evaluation shared by the scripted bots (and by MCTS's bot rollouts).

The scripted bots all decide the same way: every legal action is tried on a copy
of the state (``kernels.apply`` + ``kernels.advance``, so the automatic steps the
engine takes after an action are included), and the resulting position is scored
with a strategy-specific value function. When the next decision is a follow-up
of the same player (a favor's row, then its column, a building's "any cube"
payment, the alchemist's inputs, ...), the search continues through it and keeps
the best follow-up (``MAX_DEPTH`` levels), so a favor is valued by what it can
really buy.

The value function (``player_value``) estimates a player's final prestige, in
prestige points (PP), from the position:

- prestige already scored;
- deniers and cubes at a value that fades from the strategy's "early" value to the
  final-scoring value (4.8: 1 PP per 4 deniers, per 3 non-gold cubes, 3 per gold)
  as the end approaches (``turns_left``);
- a bonus per castle batch the cubes can form (food + 2 other kinds, phase 6);
- the standing in each unscored castle section: the favors its houses will earn,
  or the penalty for having none (phase 7 table);
- owned buildings: income and use by others for the turns that remain, plus a
  strategy bonus per building;
- favor-track columns (better future favors), favors still to be taken;
- *pending workers*: each worker already placed is projected forward, in the
  order the engine will resolve them (phase 3 specials, phase 5 road spaces up to
  the provost, phase 6 castle), with the effect the bot would choose then. A worker
  near or beyond the provost counts only partly while the provost can still move
  (phases 2-4). This is what makes a placement, a provost move or a gate move
  comparable with passing: their value appears as the projected effect.

A position is scored for the acting player as its own value minus ``opponent``
times the best opponent's value, so hurting the leader (provost moves, not feeding
their buildings) counts too.

Everything here is ``@njit(cache=True)``; the weights are a float array whose
indices are the ``W_*`` constants (``caylus_env.caylus.bots.scripted.Strategy`` builds it).
"""

from __future__ import annotations

import numpy as np
from numba import njit

from caylus_env.caylus.engine import kernels as ek
from caylus_env.caylus.engine.actions import NUM_ACTIONS
from caylus_env.caylus.engine.board import (
    ROAD_LEN,
    SECTION_EMPTY_PENALTY,
    SECTION_FAVORS,
    SECTION_PRESTIGE,
    SECTION_SIZE,
    SECTION_TRIGGER,
)
from caylus_env.caylus.engine.buildings import (
    ANY_NON_GOLD,
    B_COST,
    B_COST_ANY,
    B_EFFECT,
    B_FAVORS,
    B_INCOME,
    B_KIND,
    B_MARKET_PRICE,
    B_NUM_PRODUCE,
    B_OPTIONS,
    B_OWNER_BONUS,
    B_PEDDLER_MAX,
    B_PEDDLER_PRICE,
    B_PRESTIGE,
    B_PRODUCE,
    MAX_BUILDING_OPTIONS,
    NUM_BUILDINGS,
    OPTION_CUBE_COUNT,
    OPTION_CUBE_KIND,
    OPTION_DENIERS,
    OPTION_GOLD,
    OPTION_PRESTIGE,
    BuildingId,
    BuildingKind,
    Effect,
)
from caylus_env.caylus.engine.constants import (
    BAILIFF_STEP,
    BAILIFF_STEP_BEHIND_PROVOST,
    CASTLE_PENALTY,
    FINAL_CUBES_PER_PRESTIGE,
    FINAL_DENIERS_PER_PRESTIGE,
    FINAL_PRESTIGE_PER_GOLD,
    JOUST_COST_CLOTH,
    JOUST_COST_DENIERS,
    JOUST_FAVORS,
    LAWYER_COST_CLOTH,
    LAWYER_COST_DENIERS,
    LAWYER_PRESTIGE,
    NUM_CASTLE_SPOTS,
    NUM_FAVOR_ROWS,
    NUM_RESOURCES,
    NUM_SECTIONS,
    NUM_STABLES_SPOTS,
    SIMPLIFIED_FAVOR_PRESTIGE,
    TRADING_POST_DENIERS,
    DecisionKind,
    Phase,
    Resource,
    Section,
    Special,
)
from caylus_env.caylus.engine.layout import STATE_SIZE

# ---------------------------------------------------------------------------------------
# Weight indices (see ``caylus_env.caylus.bots.scripted.Strategy`` for their meaning).
# ---------------------------------------------------------------------------------------
W_MONEY = 0  # early value of one denier
W_CUBE = 1  # + Resource: early value of one cube of that kind (NUM_RESOURCES entries)
W_CUBE_CAP = W_CUBE + NUM_RESOURCES  # cubes of one non-gold kind beyond this count: end value
W_BATCH = W_CUBE_CAP + 1  # bonus per castle batch the cubes can form
W_FAVOR = W_BATCH + 1  # value of one royal favor
W_SECTION = W_FAVOR + 1  # multiplier of the castle-section standing
W_BEST_BUILDER = W_SECTION + 1  # share of a favor credited for giving at least one batch
W_OWN_PRODUCE = W_BEST_BUILDER + 1  # per turn left: owning a production building
W_OWN_OTHER = W_OWN_PRODUCE + 1  # per turn left: owning another craft building
W_RESIDENCE = W_OWN_OTHER + 1  # flat value of a residence (architect base) besides its income
W_TRACK = W_RESIDENCE + 1  # + FavorRow: value per favor-track column (NUM_FAVOR_ROWS entries)
W_GATE = W_TRACK + NUM_FAVOR_ROWS
W_GUILD = W_GATE + 1
W_STABLES = W_GUILD + 1
W_INN = W_STABLES + 1
W_OPPONENT = W_INN + 1  # weight of the best opponent's value in the score
W_HORIZON = W_OPPONENT + 1  # turns over which early values fade to final-scoring values
W_AFFINITY = W_HORIZON + 1  # + Effect: bonus when a worker's road effect is used (per Effect)
W_CASTLE = W_AFFINITY + len(Effect)  # bonus for a castle worker that gives at least one batch
W_BUILD_BONUS = W_CASTLE + 1  # + BuildingId: bonus for owning a building (NUM_BUILDINGS entries)
NUM_WEIGHTS = W_BUILD_BONUS + NUM_BUILDINGS

MAX_DEPTH = 4  # levels of same-player follow-up decisions searched

# ---------------------------------------------------------------------------------------
# Rule numbers the value function reads (numba freezes module globals).
# ---------------------------------------------------------------------------------------
N_RES = int(NUM_RESOURCES)
N_SEC = int(NUM_SECTIONS)
N_ROWS = int(NUM_FAVOR_ROWS)
N_BUILDINGS = int(NUM_BUILDINGS)
N_CASTLE = int(NUM_CASTLE_SPOTS)
N_STABLES = int(NUM_STABLES_SPOTS)
ROAD = int(ROAD_LEN)
TOWERS_TRIGGER = int(SECTION_TRIGGER[Section.TOWERS])
SEC_SIZE = np.array(SECTION_SIZE, np.int64)
SEC_PRESTIGE = np.array(SECTION_PRESTIGE, np.float64)
SEC_PENALTY = np.array(SECTION_EMPTY_PENALTY, np.float64)
SEC_FAVORS = np.array(SECTION_FAVORS, np.float64)
SEC_FAVORS_CAP = SEC_FAVORS.shape[1] - 1

# Follow-up decisions worth searching through when the same player answers them.
FOLLOW_UP = np.zeros(len(DecisionKind), np.int64)
for _k in (
    DecisionKind.JOUST,
    DecisionKind.PRODUCE,
    DecisionKind.OWNER_BONUS,
    DecisionKind.MARKET,
    DecisionKind.PEDDLER,
    DecisionKind.BUILD,
    DecisionKind.PAY_ANY,
    DecisionKind.RESIDENCE,
    DecisionKind.LAWYER,
    DecisionKind.OPTION,
    DecisionKind.ALCHEMIST_PAY,
    DecisionKind.FAVOR_ROW,
    DecisionKind.FAVOR_COLUMN,
    DecisionKind.FAVOR_TAKE,
    DecisionKind.FAVOR_GIVE,
):
    FOLLOW_UP[int(_k)] = 1

TRADING_POST = float(TRADING_POST_DENIERS)
JOUST_DENIERS = float(JOUST_COST_DENIERS)
JOUST_CLOTH = float(JOUST_COST_CLOTH)
LAWYER_DENIERS = float(LAWYER_COST_DENIERS)
LAWYER_CLOTH = float(LAWYER_COST_CLOTH)
LAWYER_GAIN = float(LAWYER_PRESTIGE)
PENALTY = float(CASTLE_PENALTY)
SIMPLE_FAVOR = float(SIMPLIFIED_FAVOR_PRESTIGE)

# Final-scoring values (4.8), what early values fade to.
FINAL_CUBE = np.array(
    [
        FINAL_PRESTIGE_PER_GOLD if r == Resource.GOLD else 1.0 / FINAL_CUBES_PER_PRESTIGE
        for r in Resource
    ],
    np.float64,
)
FINAL_DENIER = 1.0 / FINAL_DENIERS_PER_PRESTIGE
# The bailiff walks BAILIFF_STEP or BAILIFF_STEP_BEHIND_PROVOST spaces a turn (phase 7):
# on average half way between.
BAILIFF_MEAN_STEP = (BAILIFF_STEP + BAILIFF_STEP_BEHIND_PROVOST) / 2.0
# Bot estimate, not a rule: houses the players add to the towers in one turn.
TOWERS_HOUSES_PER_TURN = 3.0
# Road certainty while the provost can still move (phases 2-4), by (space - provost).
CERTAINTY = np.array([1.0, 0.9, 0.8, 0.45, 0.3, 0.15])  # <= -2, -1, 0, +1, +2, +3
# Projected cube arrays use slots 0-4 for cubes, then these.
R_MONEY = N_RES
R_VALUE = N_RES + 1
R_SIZE = N_RES + 2
EPS = 1e-9


@njit(cache=True)
def turns_left(s):
    """Estimated full turns after the current one (0 in the last turn).

    The bailiff walks 1-2 spaces a turn towards the towers trigger (24); once the
    walls are scored, a nearly full towers section can also end the game.
    """
    if ek.is_scored(s, Section.TOWERS) or ek.is_terminal(s):
        return 0.0
    t = (TOWERS_TRIGGER - 1 - float(ek.bailiff(s))) / BAILIFF_MEAN_STEP
    if ek.is_scored(s, Section.WALLS):
        fill = ek.section_fill(s, Section.TOWERS)
        t = min(t, (SEC_SIZE[Section.TOWERS] - fill) / TOWERS_HOUSES_PER_TURN)
    return max(t, 0.0)


@njit(cache=True)
def _favor_value(s, w):
    if ek.simplified_favors(s):
        return SIMPLE_FAVOR
    return w[W_FAVOR]


@njit(cache=True)
def _certainty(s, k):
    """How sure it is that a worker on road space ``k`` will be activated (phase 5)."""
    phase = ek.phase(s)
    provost = ek.provost(s)
    if phase >= Phase.ACTIVATION:
        return 1.0 if k <= provost else 0.0
    if phase == Phase.PROVOST:
        remaining = ek.num_players(s) - ek.cursor(s)
        if ek.decision_kind(s) == DecisionKind.PROVOST:
            remaining += 1
        if remaining <= 0:
            return 1.0 if k <= provost else 0.0
    d = k - provost
    if d < -2:
        return 1.0
    if d > 3:
        return 0.0
    return CERTAINTY[d + 2]


@njit(cache=True)
def _cube_values(s, w, h, out):
    """Current (blended) value of one cube of each kind, for this game stage."""
    for r in range(N_RES):
        out[r] = FINAL_CUBE[r] + h * (w[W_CUBE + r] - FINAL_CUBE[r])


@njit(cache=True)
def _marginal(res, r, vcube, w):
    """Value of one more cube of kind ``r`` given the projected holdings ``res``."""
    if r != Resource.GOLD and res[r] + 0.5 > w[W_CUBE_CAP]:
        return FINAL_CUBE[r]
    return vcube[r]


@njit(cache=True)
def _spent(res, r, vcube, w):
    """Value lost by paying one cube of kind ``r``."""
    if r != Resource.GOLD and res[r] - 0.5 > w[W_CUBE_CAP]:
        return FINAL_CUBE[r]
    return vcube[r]


@njit(cache=True)
def batches_formable(food, wood, stone, cloth, gold):
    """Most castle batches (food + 2 different other kinds) these cubes can form."""
    best = 0
    for b in range(1, food + 1):
        if min(wood, b) + min(stone, b) + min(cloth, b) + min(gold, b) >= 2 * b:
            best = b
        else:
            break
    return best


@njit(cache=True)
def _formable(res):
    return batches_formable(
        max(int(res[Resource.FOOD] + 0.3), 0),
        max(int(res[Resource.WOOD] + 0.3), 0),
        max(int(res[Resource.STONE] + 0.3), 0),
        max(int(res[Resource.CLOTH] + 0.3), 0),
        max(int(res[Resource.GOLD] + 0.3), 0),
    )


@njit(cache=True)
def _ownership(s, b, w, t, vmoney):
    """Value of owning building ``b`` for the ``t`` turns left (income, use, bonus)."""
    kind = B_KIND[b]
    v = w[W_BUILD_BONUS + b] + B_INCOME[b] * vmoney * t
    if b == BuildingId.RESIDENCE:
        v += w[W_RESIDENCE]
    elif kind in (BuildingKind.WOOD, BuildingKind.STONE):
        if B_EFFECT[b] == Effect.PRODUCE:
            v += w[W_OWN_PRODUCE] * t
        else:
            v += w[W_OWN_OTHER] * t
    return v


@njit(cache=True)
def _building_prestige(s, b):
    if b == BuildingId.LAWYER:
        return float(ek.lawyer_prestige(s))
    return float(B_PRESTIGE[b])


# ---------------------------------------------------------------------------------------
# Projection of one pending road worker (phase 5), with the choice the bot would make.
# ---------------------------------------------------------------------------------------
@njit(cache=True)
def _best_build(s, p, kind, res, w, t, vcube, vmoney, fv):
    """Best building of ``kind`` the projected cubes pay for.

    Returns:
        ``(BuildingId, reward)``: the reward (prestige, favors, ownership) of the building
        whose reward minus the value of its cubes is largest and positive, or ``(-1, 0)``.
    """
    best = -1
    best_gain = 0.0
    best_reward = 0.0
    if kind == BuildingKind.PRESTIGE:
        if not ek.owns_residence(s, p):
            return best, best_reward
    elif ek.lowest_empty_space(s) < 0:
        return best, best_reward
    for b in range(N_BUILDINGS):
        if B_KIND[b] != kind or ek.stock(s, b) <= 0:
            continue
        ok = True
        cost = 0.0
        spare_min = 1e9
        spare = 0.0
        for r in range(N_RES):
            need = B_COST[b, r]
            if res[r] + 0.3 < need:
                ok = False
                break
            cost += need * _spent(res, r, vcube, w)
            left = res[r] - need
            spare += max(left, 0.0)
            if left >= 0.7:
                spare_min = min(spare_min, _spent(res, r, vcube, w))
        if not ok or spare + 0.3 < B_COST_ANY[b]:
            continue
        if B_COST_ANY[b] > 0:
            cost += B_COST_ANY[b] * (spare_min if spare_min < 1e8 else 1.0)
        reward = _building_prestige(s, b) + B_FAVORS[b] * fv + _ownership(s, b, w, t, vmoney)
        if kind == BuildingKind.PRESTIGE:
            reward -= _ownership(s, BuildingId.RESIDENCE, w, t, vmoney)
        if reward - cost > best_gain:
            best_gain = reward - cost
            best_reward = reward
            best = b
    return best, best_reward


@njit(cache=True)
def _pay_cost(res, b, c):
    """Take ``c`` times the cost of ``b`` out of the projected cubes (any cube: the most held)."""
    for r in range(N_RES):
        res[r] -= c * B_COST[b, r]
    for _ in range(B_COST_ANY[b]):
        most = Resource.FOOD
        for r in range(Resource.GOLD):
            if res[r] > res[most]:
                most = r
        res[most] -= c


@njit(cache=True)
def _project_road(s, p, k, c, res, w, t, vcube, vmoney, fv):
    """Apply, to ``res``, ``c`` times the effect the worker of ``p`` on space ``k`` would use."""
    b = ek.road_tile(s, k)
    effect = B_EFFECT[b]
    used = True
    if effect == Effect.PRODUCE:
        j = 0
        if B_NUM_PRODUCE[b] == 2:
            v0 = 0.0
            v1 = 0.0
            for r in range(N_RES):
                v0 += B_PRODUCE[b, 0, r] * _marginal(res, r, vcube, w)
                v1 += B_PRODUCE[b, 1, r] * _marginal(res, r, vcube, w)
            if v1 > v0:
                j = 1
        for r in range(N_RES):
            res[r] += c * B_PRODUCE[b, j, r]
    elif effect in (Effect.BUILD_WOOD, Effect.BUILD_STONE, Effect.BUILD_PRESTIGE):
        kind = BuildingKind.WOOD
        if effect == Effect.BUILD_STONE:
            kind = BuildingKind.STONE
        elif effect == Effect.BUILD_PRESTIGE:
            kind = BuildingKind.PRESTIGE
        nb, reward = _best_build(s, p, kind, res, w, t, vcube, vmoney, fv)
        if nb >= 0:
            _pay_cost(res, nb, c)
            res[R_VALUE] += c * reward
        else:
            used = False
    elif effect == Effect.LAWYER:
        used = False
        if res[Resource.CLOTH] >= LAWYER_CLOTH - 0.3 and res[R_MONEY] >= LAWYER_DENIERS:
            target = False
            for kk in range(1, ROAD + 1):
                tile = ek.road_tile(s, kk)
                if tile >= 0 and B_KIND[tile] == BuildingKind.NEUTRAL and ek.road_lawyer(s, kk) < 0:
                    target = True
                    break
            reward = LAWYER_GAIN + _ownership(s, BuildingId.RESIDENCE, w, t, vmoney)
            cost = LAWYER_CLOTH * _spent(res, Resource.CLOTH, vcube, w) + LAWYER_DENIERS * vmoney
            if target and reward - cost > 0.0:
                res[Resource.CLOTH] -= c * LAWYER_CLOTH
                res[R_MONEY] -= c * LAWYER_DENIERS
                res[R_VALUE] += c * reward
                used = True
    elif effect == Effect.MARKET:
        best = -1
        best_gain = 0.0
        for r in range(N_RES):
            if res[r] >= 0.7:
                gain = B_MARKET_PRICE[b] * vmoney - _spent(res, r, vcube, w)
                if gain > best_gain:
                    best_gain = gain
                    best = r
        if best >= 0:
            res[best] -= c
            res[R_MONEY] += c * B_MARKET_PRICE[b]
        else:
            used = False
    elif effect == Effect.PEDDLER:
        used = False
        price = float(B_PEDDLER_PRICE[b])
        for _ in range(B_PEDDLER_MAX[b]):
            if res[R_MONEY] < price:
                break
            best = -1
            best_gain = 0.0
            for r in range(Resource.GOLD):
                gain = _marginal(res, r, vcube, w) - price * vmoney
                if gain > best_gain:
                    best_gain = gain
                    best = r
            if best < 0:
                break
            res[best] += c
            res[R_MONEY] -= c * price
            used = True
    elif effect == Effect.OPTIONS:
        best = -1
        best_gain = 0.0
        for j in range(MAX_BUILDING_OPTIONS):
            deniers = float(B_OPTIONS[b, j, OPTION_DENIERS])
            kind = B_OPTIONS[b, j, OPTION_CUBE_KIND]
            count = B_OPTIONS[b, j, OPTION_CUBE_COUNT]
            if res[R_MONEY] + 0.3 < deniers:
                continue
            pay = 0.0
            if kind == ANY_NON_GOLD:
                held = res[Resource.FOOD] + res[Resource.WOOD] + res[Resource.STONE]
                held += res[Resource.CLOTH]
                if held + 0.3 < count:
                    continue
                cheapest = 1e9
                for r in range(Resource.GOLD):
                    if res[r] >= 0.7:
                        cheapest = min(cheapest, _spent(res, r, vcube, w))
                pay = count * cheapest
            elif kind >= 0:
                if res[kind] + 0.3 < count:
                    continue
                pay = count * _spent(res, kind, vcube, w)
            gold = B_OPTIONS[b, j, OPTION_GOLD] * vcube[Resource.GOLD]
            gain = B_OPTIONS[b, j, OPTION_PRESTIGE] + gold - deniers * vmoney - pay
            if gain > best_gain:
                best_gain = gain
                best = j
        if best >= 0:
            res[R_MONEY] -= c * B_OPTIONS[b, best, OPTION_DENIERS]
            res[R_VALUE] += c * B_OPTIONS[b, best, OPTION_PRESTIGE]
            res[Resource.GOLD] += c * B_OPTIONS[b, best, OPTION_GOLD]
            kind = B_OPTIONS[b, best, OPTION_CUBE_KIND]
            count = B_OPTIONS[b, best, OPTION_CUBE_COUNT]
            if kind == ANY_NON_GOLD:
                for _ in range(count):
                    most = Resource.FOOD
                    for r in range(Resource.GOLD):
                        if res[r] > res[most]:
                            most = r
                    res[most] -= c
            elif kind >= 0:
                res[kind] -= c * count
        else:
            used = False
    if used:
        res[R_VALUE] += c * w[W_AFFINITY + effect]


# ---------------------------------------------------------------------------------------
# Projection of the castle worker (phase 6).
# ---------------------------------------------------------------------------------------
@njit(cache=True)
def _project_castle(s, p, res, houses, fill, given, w, vcube, fv):
    """Give the batches worth giving from ``res``; add houses, prestige or the penalty."""
    count = 0
    while True:
        sec = -1
        for x in range(N_SEC):
            if not ek.is_scored(s, x) and fill[x] < SEC_SIZE[x]:
                sec = x
                break
        if sec < 0 or res[Resource.FOOD] < 0.7:
            break
        # food + the two other kinds held most (gold last: it scores 3 at the end)
        a = -1
        b = -1
        for r in range(Resource.WOOD, N_RES):
            if res[r] < 0.7:
                continue
            key = res[r] - (2.0 if r == Resource.GOLD else 0.0)
            if a < 0 or key > res[a] - (2.0 if a == Resource.GOLD else 0.0):
                b = a
                a = r
            elif b < 0 or key > res[b] - (2.0 if b == Resource.GOLD else 0.0):
                b = r
        if b < 0:
            break
        cost = _spent(res, Resource.FOOD, vcube, w) + _spent(res, a, vcube, w)
        cost += _spent(res, b, vcube, w)
        h = int(houses[sec])
        hh = min(h + 1, SEC_FAVORS_CAP)
        before = -SEC_PENALTY[sec] if h == 0 else SEC_FAVORS[sec, min(h, SEC_FAVORS_CAP)] * fv
        gain = SEC_PRESTIGE[sec] + w[W_SECTION] * (SEC_FAVORS[sec, hh] * fv - before)
        if count == 0 and given == 0:
            gain += PENALTY + w[W_CASTLE] + w[W_BEST_BUILDER] * fv
        if gain <= cost:
            break
        res[Resource.FOOD] -= 1.0
        res[a] -= 1.0
        res[b] -= 1.0
        res[R_VALUE] += SEC_PRESTIGE[sec]
        houses[sec] += 1
        fill[sec] += 1
        count += 1
    if count > 0 and given == 0:
        res[R_VALUE] += w[W_CASTLE] + w[W_BEST_BUILDER] * fv
    elif count == 0 and given == 0:
        res[R_VALUE] -= PENALTY


# ---------------------------------------------------------------------------------------
# The value of one player.
# ---------------------------------------------------------------------------------------
@njit(cache=True)
def player_value(s, p, w):
    """Estimated final prestige of player ``p`` (PP), see the module docstring."""
    phase = ek.phase(s)
    prestige = float(ek.prestige(s, p))
    if phase == Phase.GAME_OVER:
        return prestige
    t = turns_left(s)
    h = min(1.0, t / w[W_HORIZON])
    vmoney = FINAL_DENIER + h * (w[W_MONEY] - FINAL_DENIER)
    vcube = np.empty(N_RES)
    _cube_values(s, w, h, vcube)
    fv = _favor_value(s, w)

    res = np.zeros(R_SIZE)
    for r in range(N_RES):
        res[r] = float(ek.cube(s, p, r))
    res[R_MONEY] = float(ek.money(s, p))
    res[R_VALUE] = prestige

    # Phase 3: special buildings not yet resolved (their occupant is cleared when done).
    if phase <= Phase.SPECIAL:
        if ek.special_worker(s, Special.GATE) == p:
            res[R_VALUE] += w[W_GATE]
        if ek.special_worker(s, Special.TRADING_POST) == p:
            res[R_MONEY] += TRADING_POST
        if ek.special_worker(s, Special.MERCHANTS_GUILD) == p:
            res[R_VALUE] += w[W_GUILD]
        joust_cost = JOUST_CLOTH * _spent(res, Resource.CLOTH, vcube, w) + JOUST_DENIERS * vmoney
        joust_gain = JOUST_FAVORS * fv
        if (
            ek.special_worker(s, Special.JOUST_FIELD) == p
            and res[Resource.CLOTH] >= JOUST_CLOTH
            and res[R_MONEY] >= JOUST_DENIERS
            and joust_gain > joust_cost
        ):
            res[Resource.CLOTH] -= JOUST_CLOTH
            res[R_MONEY] -= JOUST_DENIERS
            res[R_VALUE] += joust_gain
        for i in range(N_STABLES):
            if ek.stables_worker(s, i) == p:
                res[R_VALUE] += w[W_STABLES]
        if ek.inn_entering(s) == p:
            res[R_VALUE] += w[W_INN]
    if ek.inn_resident(s) == p:
        res[R_VALUE] += w[W_INN] * min(1.0, t)

    # Phase 5: road workers up to the provost, in road order.
    if phase <= Phase.ACTIVATION:
        start = 1
        if phase == Phase.ACTIVATION and ek.cursor(s) > 0:
            start = ek.cursor(s)
        for k in range(start, ROAD + 1):
            wk = ek.road_worker(s, k)
            if wk < 0:
                continue
            c = _certainty(s, k)
            if c <= 0.0:
                continue
            if wk == p:
                _project_road(s, p, k, c, res, w, t, vcube, vmoney, fv)
            elif ek.road_owner(s, k) == p and B_OWNER_BONUS[ek.road_tile(s, k)] != 0:
                bonus = B_OWNER_BONUS[ek.road_tile(s, k)]
                best = -1
                for r in range(N_RES):
                    if not (bonus >> r) & 1:
                        continue
                    if best < 0 or _marginal(res, r, vcube, w) > _marginal(res, best, vcube, w):
                        best = r
                res[best] += c

    # Phase 6: the castle worker, if its turn has not come (or is under way).
    houses = np.zeros(N_SEC)
    fill = np.zeros(N_SEC)
    for x in range(N_SEC):
        houses[x] = ek.section_houses(s, x, p)
        fill[x] = ek.section_fill(s, x)
    if phase <= Phase.CASTLE:
        spot = -1
        for i in range(N_CASTLE):
            if ek.castle_worker(s, i) == p:
                spot = i
        if spot >= 0:
            given = -1
            if phase < Phase.CASTLE or spot >= ek.cursor(s):
                given = 0
            elif ek.decision_kind(s) == DecisionKind.CASTLE and ek.decision_player(s) == p:
                given = ek.decision_arg(s, 0)  # batches given so far this turn
            if given >= 0:
                _project_castle(s, p, res, houses, fill, given, w, vcube, fv)

    # Favors still to be taken (a search cut-off can leave some on the stack).
    for i in range(ek.depth(s)):
        if ek.entry_kind(s, i) == DecisionKind.FAVOR_ROW and ek.entry_player(s, i) == p:
            res[R_VALUE] += ek.entry_arg(s, i, 0) * fv  # favors left to take

    # Material.
    v = res[R_VALUE] + res[R_MONEY] * vmoney
    for r in range(N_RES):
        n = max(res[r], 0.0)
        if r == Resource.GOLD:
            v += n * vcube[r]
        else:
            cap = w[W_CUBE_CAP]
            v += vcube[r] * min(n, cap) + FINAL_CUBE[r] * max(n - cap, 0.0)
    castle_open = False
    for x in range(N_SEC):
        if not ek.is_scored(s, x) and fill[x] < SEC_SIZE[x]:
            castle_open = True
    if castle_open:
        v += w[W_BATCH] * h * _formable(res)

    # Castle standing in the sections not yet scored.
    for x in range(N_SEC):
        if not ek.is_scored(s, x):
            hx = int(houses[x])
            if hx == 0:
                v -= w[W_SECTION] * SEC_PENALTY[x]
            else:
                v += w[W_SECTION] * SEC_FAVORS[x, min(hx, SEC_FAVORS_CAP)] * fv

    # Buildings owned (and residences a paid lawyer will create).
    for k in range(1, ROAD + 1):
        tile = ek.road_tile(s, k)
        if tile < 0:
            continue
        if ek.road_lawyer(s, k) == p:
            v += _ownership(s, BuildingId.RESIDENCE, w, t, vmoney)
        elif ek.road_owner(s, k) == p:
            v += _ownership(s, tile, w, t, vmoney)

    # Favor tracks: better columns make the favors still to come worth more.
    if not ek.simplified_favors(s):
        late = min(1.0, t / 5.0)
        for row in range(N_ROWS):
            v += w[W_TRACK + row] * ek.favor_column(s, p, row) * late
    return v


@njit(cache=True)
def score(s, p, w):
    """``p``'s value minus ``opponent`` times the best opponent's value."""
    n = ek.num_players(s)
    mine = player_value(s, p, w)
    best = -1e18
    for q in range(n):
        if q != p:
            best = max(best, player_value(s, q, w))
    return mine - w[W_OPPONENT] * best


# ---------------------------------------------------------------------------------------
# One-ply search with same-player follow-ups.
# ---------------------------------------------------------------------------------------
@njit(cache=True)
def _current(s):
    """Kind and player of the pending decision; ``(-1, -1)`` at the end."""
    if ek.is_terminal(s):
        return -1, -1
    return ek.decision_kind(s), ek.decision_player(s)


@njit(cache=True)
def _is_leaf(s, m, p, depth, max_depth):
    """Whether the search stops at ``s``: not a follow-up of ``p``, or too deep."""
    kind, who = _current(s)
    return m <= 0 or depth >= max_depth or who != p or FOLLOW_UP[kind] == 0


@njit(cache=True)
def _subtree_value(p, w, scratch, outs, counts, idx, best, max_depth):
    """Value for ``p`` of ``scratch[1]`` (legal actions in ``outs[1]``): the best of its
    follow-ups, searched depth first without recursion (level ``d`` holds the position
    ``scratch[d]``, its ``counts[d]`` legal actions ``outs[d]``, the next one to try
    ``idx[d]`` and the best value so far ``best[d]``)."""
    if _is_leaf(scratch[1], counts[1], p, 1, max_depth):
        return score(scratch[1], p, w)
    d = 1
    idx[d] = 0
    best[d] = -1e18
    while True:
        if idx[d] < counts[d]:
            a = outs[d, idx[d]]
            idx[d] += 1
            child = scratch[d + 1]
            child[:] = scratch[d]
            ek.apply(child, a)
            counts[d + 1] = ek.advance(child, outs[d + 1])
            if _is_leaf(child, counts[d + 1], p, d + 1, max_depth):
                best[d] = max(best[d], score(child, p, w))
            else:
                d += 1
                idx[d] = 0
                best[d] = -1e18
        else:
            v = best[d]
            if d == 1:
                return v
            d -= 1
            best[d] = max(best[d], v)


@njit(cache=True)
def action_values(s, legal, n, w, max_depth, values):
    """Fill ``values[i]`` with the searched value of ``legal[i]`` for the player to move."""
    _, p = _current(s)
    levels = max_depth + 2
    scratch = np.empty((levels, STATE_SIZE), s.dtype)
    outs = np.empty((levels, NUM_ACTIONS), np.int64)
    counts = np.zeros(levels, np.int64)
    idx = np.zeros(levels, np.int64)
    best = np.zeros(levels)
    for i in range(n):
        scratch[1][:] = s
        ek.apply(scratch[1], legal[i])
        counts[1] = ek.advance(scratch[1], outs[1])
        values[i] = _subtree_value(p, w, scratch, outs, counts, idx, best, max_depth)


@njit(cache=True)
def choose(s, legal, n, w, max_depth, noise):
    """Index of the best of ``legal[:n]``; ties go to the largest ``noise`` entry."""
    values = np.empty(n)
    action_values(s, legal, n, w, max_depth, values)
    best = 0
    for i in range(1, n):
        d = values[i] - values[best]
        if d > EPS or (d > -EPS and noise[i] > noise[best]):
            best = i
    return best


@njit(cache=True)
def bot_playout(s, out, weights, max_depth, max_decisions):
    """Play to the end with every seat following the bot of its weights row.

    ``weights`` has one row per seat (the same row repeated for self-play).
    Ties are broken with numba's generator (seed it with ``kernels.seed_playouts``).

    Returns:
        The number of decisions taken.
    """
    n = ek.advance(s, out)
    count = 0
    noise = np.empty(NUM_ACTIONS)
    legal = np.empty(NUM_ACTIONS, np.int64)
    while n > 0 and count < max_decisions:
        p = ek.current_player(s)
        for i in range(n):
            noise[i] = np.random.random()
            legal[i] = out[i]
        a = legal[choose(s, legal, n, weights[p], max_depth, noise)]
        ek.apply(s, a)
        n = ek.advance(s, out)
        count += 1
    return count
