"""Compiled scoring of legal Caylus 1303 actions, shared by the scripted bots and MCTS.

A scripted bot answers every decision the same way: each legal action gets a score in
prestige points (PP) from rules of thumb over the flat state
(``caylus_env.caylus_1303.engine.layout``), and the best one is played (the first on ties, so
a bot is deterministic). Every score is a *change of value* for the player asked: what the
action gains minus what it spends, with the resources valued by the strategy's table
(``RES_VALUE``) and a worker in hand valued by what it can still buy (``_worker_value``:
workers are the money, rules 4.1, and worth nothing after the last round). A *strategy* is a
row of the tables:

- ``constructor``: wood and stone buildings early (the Carpenter, the Stonemason, rules 4.2,
  5.3-5.4: their prestige and 1 PP per visit of another player, D19), the Lawyer's residences
  (more workers every round, D3, D5) and monuments built with gold (rules 4.4);
- ``deliverer``: food-centred production delivered at the Construction Site every round
  (5 PP a bundle and the Delivery Favor, rules 4.3), gold for the Goldsmith and the Jeweler.

The rules of thumb per decision (``DecisionKind``, D39):

- draft and available characters (rules 3.3, 4.5): the strategy's ``CHARACTER_VALUE``;
- planning and the Early Riser (rules 4.1, D16, D25): a worker's expected gain where it
  stands (the best option of the building it can pay, discounted past the Provost, p = L-1,
  rules 3.1, D6; the owner's prestige given to another player counts against it) minus the
  workers it costs; the Construction Site by the bundles the player will hold at Delivery;
  ``pass`` is worth keeping the workers, plus the first-player tile for the first to pass;
- an effect (rules 4.2, 5.1-5.4): the option's gains minus its costs, a construction by the
  tile's prestige plus the strategy's value of owning it for the rounds left;
- Toll, Guilds Bridge and Bailiff (rules 5.1, 4.2, D20, D28): where the Provost activates the
  most of the player's own planned workers and the fewest of the others', minus the workers
  the Bridge costs (never workers for nothing);
- Favor (rules 4.5, D23): the best of stealing a character and using a site building (its
  Setup side) plus the available character that follows;
- pay "any" (D12): the least useful resource; deliver (rules 4.3, D30): a bundle when its
  prestige beats what its resources are worth; monument (rules 4.4): the best affordable,
  on any of his residences (the same value wherever it goes: a residence and a monument are
  both out of the workers' way, D3, D4), so the first, the lowest-numbered.

The bots never read an opponent's prestige, so they play the same with
``hide_opponent_pp`` (D37). ``choose`` is the core's first best of ``score_actions``
(`caylus_env.core.scripted.choice_kernels`, ties within ``EPS``). MCTS (``caylus_env.core.mcts``)
plays its rollouts and orders its expansions with ``choose`` and ``score_actions``. Everything
here is ``@njit(cache=True)``.
"""

from __future__ import annotations

import sys

import numpy as np
from numba import njit

from caylus_env.caylus_1303.engine import kernels as K
from caylus_env.caylus_1303.engine import layout as L
from caylus_env.caylus_1303.engine.actions import (
    ACT_BUNDLE,
    ACT_CHARACTER,
    ACT_CONSTRUCT,
    ACT_DECLINE,
    ACT_MARK,
    ACT_MONUMENT,
    ACT_OPTION,
    ACT_PASS,
    ACT_PAY,
    ACT_PLACE,
    ACT_PROVOST,
    ACT_SITE,
    ACT_STEAL,
    ACT_TAKE,
    ACT_USE_SITE,
    BUNDLES,
    PROVOST_DELTAS,
)
from caylus_env.caylus_1303.engine.constants import (
    ARCHITECT_BONUS,
    BUNDLE_PRESTIGE,
    FOREMAN_BONUS,
    GOLDSMITH_BONUS,
    MAX_WORKERS_ON_BUILDING,
    NUM_ANY,
    NUM_CHARACTERS,
    NUM_PRINTED,
    NUM_RESOURCES,
    NUM_ROUNDS,
    ON_BOARD,
    PRESTIGE_PER_GOLD,
    PROVOST_MAX,
    RESIDENCE_INCOME,
    ROAD0,
    ROAD_SPACES,
    SITE0,
    Character,
    DecisionKind,
    Phase,
    Resource,
)
from caylus_env.caylus_1303.engine.decisions import read_top
from caylus_env.caylus_1303.engine.phases.effects import NO_DISCOUNT, effect_side, in_supply
from caylus_env.caylus_1303.engine.phases.planning import placement_cost
from caylus_env.caylus_1303.engine.state import (
    can_pay,
    lowest_empty_road,
    pf,
    resource,
    space_worker,
)
from caylus_env.caylus_1303.engine.tiles import (
    C_ANY,
    C_WORKERS,
    CONSTRUCTIBLE_KINDS,
    G_FAVOR,
    G_PP,
    G_WORKERS,
    MONUMENT_KINDS,
    SIDE_SETUP,
    T_COST,
    T_DISCOUNT,
    T_EFFECT,
    T_EFFECT_GROUP,
    T_GROUP,
    T_INCOME,
    T_NUM_OPTIONS,
    T_OPTION_COST,
    T_OPTION_GAIN,
    T_OWNER_BONUS,
    T_PP,
    EffectType,
    Group,
)
from caylus_env.core import scripted

CONSTRUCTOR = 0
DELIVERER = 1
NUM_STRATEGIES = 2
STRATEGY_NAMES = ("constructor", "deliverer")

# -- strategy tables (one row per strategy) ---------------------------------------------------
#: PP value of one resource held (food, wood, stone, cloth, gold) while the game goes on; gold
#: is worth ``PRESTIGE_PER_GOLD`` at the end (rules 4.6) plus what it builds or buys.
RES_VALUE = np.array(
    [
        [1.0, 1.5, 1.6, 1.3, PRESTIGE_PER_GOLD + 0.4],  # constructor: wood and stone build
        [1.5, 1.2, 1.2, 1.3, PRESTIGE_PER_GOLD + 0.3],  # deliverer: food starts every bundle
    ],
    np.float64,
)
#: PP value of a worker in hand in the first round (it fades to nothing by the end).
WORKER_VALUE = np.array([0.8, 0.8], np.float64)
#: PP value, per round left, of owning a wood or stone building (its visits, D19).
OWN_BUILDING = np.array([0.45, 0.2], np.float64)
#: Extra PP for a worker that goes to the Construction Site with a bundle to deliver.
SITE_BONUS = np.array([0.0, 1.5], np.float64)
#: PP value of a residence per round left besides its worker (monuments to come, rules 4.4).
RESIDENCE_EXTRA = np.array([0.5, 0.1], np.float64)
#: Value of holding each character (rules 5.6), in ``Character`` order.
CHARACTER_VALUE = np.array(
    [
        # early, night, journey, thief, steward, bailiff, architect, chamber, gold, deliv,
        # foreman, day laborer
        [1.5, 2.0, 1.5, 1.0, 2.5, 1.5, 3.0, 1.0, 1.0, 1.0, 1.2, 2.5],  # constructor
        [1.5, 2.0, 1.0, 1.0, 1.0, 1.5, 1.0, 2.5, 2.5, 3.0, 3.0, 2.0],  # deliverer
    ],
    np.float64,
)

# -- rules of thumb shared by the strategies ----------------------------------------------------
FAVOR_VALUE = 2.5  # a Favor: a character or a site building (rules 4.5)
FIRST_PASS_VALUE = 0.6  # the first-player tile (rules 4.1 C)
OWNER_GIFT = 0.4  # the prestige a placement gives another owner, counted against it (D19)
PAST_PROVOST = 0.1  # share of a building's value kept by a worker beyond the Provost
EDGE_PROVOST = 0.8  # share kept on the Provost's own space (another player may pull it back)
TOLL_VALUE = 0.3  # a Toll placed in Planning: moving the Provost later (rules 5.1)
OPPONENT_SHARE = 0.5  # weight of another player's activated worker when moving the Provost
MIN_WORKER_VALUE = 0.05
SATURATION = 2.0  # units of one kind held that halve the value of one more  # a worker of the last round still buys something before the end
EPS = 1e-9


@njit(cache=True)
def _rounds_left(s):
    """Rounds still to play, this one included (1 in the last round, rules 4.6)."""
    return NUM_ROUNDS - np.int64(s[L.ROUND]) + 1


@njit(cache=True)
def _final_stewardship(s):
    return s[L.ROUND] >= NUM_ROUNDS and s[L.PHASE] == Phase.STEWARDSHIP


@njit(cache=True)
def res_value(s, strategy, r):
    """What one resource ``r`` is worth now: the strategy's value, and at the last
    Stewardship only the gold's final prestige (nothing is delivered or built after it)."""
    if _final_stewardship(s):
        return PRESTIGE_PER_GOLD if r == Resource.GOLD else 0.0
    return RES_VALUE[strategy, r]


@njit(cache=True)
def unit_value(s, strategy, r, have):
    """The value of one more ``r`` to a player already holding ``have``: the strategy's
    value, less for each unit held (a pile of one kind makes no bundle, rules 4.3, and
    builds little); gold keeps its value (it scores at the end, rules 4.6)."""
    v = res_value(s, strategy, r)
    if r == Resource.GOLD or have <= 0:
        return v
    return v / (1.0 + have / SATURATION)


@njit(cache=True)
def gain_units(s, p, strategy, r, k):
    """The value of ``k`` more of ``r`` to ``p``."""
    have = resource(s, p, r)
    v = 0.0
    for i in range(k):
        v += unit_value(s, strategy, r, have + i)
    return v


@njit(cache=True)
def spend_units(s, p, strategy, r, k):
    """What giving up ``k`` of ``r`` costs ``p`` (the last units held are worth least)."""
    have = resource(s, p, r)
    v = 0.0
    for i in range(1, k + 1):
        v += unit_value(s, strategy, r, max(have - i, 0))
    return v


@njit(cache=True)
def _worker_value(s, strategy):
    """A worker in hand: what it buys in the rounds left (workers are the money)."""
    return max(WORKER_VALUE[strategy] * _rounds_left(s) / NUM_ROUNDS, MIN_WORKER_VALUE)


@njit(cache=True)
def _cheapest_any(s, p, strategy):
    """The value of the "any" resource ``p`` would pay first (D12): his least useful."""
    best = 1e9
    for r in range(NUM_ANY):
        if resource(s, p, r) > 0:
            best = min(best, spend_units(s, p, strategy, r, 1))
    return 0.0 if best > 1e8 else best


@njit(cache=True)
def cost_value(s, p, cost, discount, strategy):
    """What paying ``cost`` minus ``discount`` (``tiles.COST_KEYS``) costs ``p`` in PP."""
    v = 0.0
    for r in range(NUM_RESOURCES):
        v += spend_units(s, p, strategy, r, max(cost[r] - discount[r], 0))
    v += max(cost[C_ANY] - discount[C_ANY], 0) * _cheapest_any(s, p, strategy)
    v += max(cost[C_WORKERS] - discount[C_WORKERS], 0) * _worker_value(s, strategy)
    return v


@njit(cache=True)
def gain_value(s, p, gain, strategy):
    """What taking ``gain`` (``tiles.GAIN_KEYS``) is worth to ``p``: workers only as many as
    his Camp holds (D15)."""
    v = 0.0
    for r in range(NUM_RESOURCES):
        v += gain_units(s, p, strategy, r, gain[r])
    workers = min(gain[G_WORKERS], np.int64(s[pf(p, L.P_CAMP)]))
    v += workers * _worker_value(s, strategy)
    v += gain[G_PP] + gain[G_FAVOR] * FAVOR_VALUE
    return v


@njit(cache=True)
def construct_value(s, p, t, strategy):
    """Constructing tile kind ``t``: its prestige (+1 Architect, D29) and owning it for the
    rounds left (visits of others, D19; an owner bonus, rules 5.4)."""
    v = np.float64(T_PP[t])
    if K.holder(s, Character.ARCHITECT) == p:
        v += ARCHITECT_BONUS
    own = OWN_BUILDING[strategy]
    for g in range(NUM_RESOURCES):
        own += 0.1 * T_OWNER_BONUS[t, g] * RES_VALUE[strategy, g]
    return v + own * (_rounds_left(s) - 1)


@njit(cache=True)
def _residence_value(s, strategy):
    """A residence: a worker each Stewardship left (D5), and a place for a monument."""
    rounds = _rounds_left(s)
    return rounds * (RESIDENCE_INCOME * _worker_value(s, strategy) + RESIDENCE_EXTRA[strategy])


@njit(cache=True)
def _lawyer_target(s):
    """Whether a starting building on R1..R8 can still be marked (D21)."""
    for k in range(1, ROAD_SPACES + 1):
        sp = ROAD0 + k
        t = s[L.SPACE_KIND + sp]
        if (
            t >= 0
            and T_GROUP[t] == Group.STARTING
            and s[L.SPACE_SIDE + sp] == SIDE_SETUP
            and s[L.SPACE_MARK + sp] < 0
        ):
            return True
    return False


@njit(cache=True)
def _best_construct(s, p, kind, side, strategy):
    """The best construction the building ``kind`` (side ``side``) offers ``p`` now, 0 if none."""
    if s[pf(p, L.P_HOUSES)] <= 0 or lowest_empty_road(s) == 0:
        return 0.0
    group = T_EFFECT_GROUP[kind, side]
    best = 0.0
    for i in range(CONSTRUCTIBLE_KINDS.shape[0]):
        t = CONSTRUCTIBLE_KINDS[i]
        if (
            T_GROUP[t] == group
            and in_supply(s, i)
            and can_pay(s, p, T_COST[t], T_DISCOUNT[kind, side])
        ):
            v = construct_value(s, p, t, strategy) - cost_value(
                s, p, T_COST[t], T_DISCOUNT[kind, side], strategy
            )
            best = max(best, v)
    return best


@njit(cache=True)
def effect_value(s, p, kind, side, strategy):
    """The best use ``p`` can make of a building of ``kind`` (side ``side``) now, 0 when
    nothing pays (every effect is optional, D18)."""
    et = T_EFFECT[kind, side]
    best = 0.0
    if et == EffectType.OPTIONS:
        for o in range(T_NUM_OPTIONS[kind, side]):
            if can_pay(s, p, T_OPTION_COST[kind, side, o], NO_DISCOUNT):
                v = gain_value(s, p, T_OPTION_GAIN[kind, side, o], strategy) - cost_value(
                    s, p, T_OPTION_COST[kind, side, o], NO_DISCOUNT, strategy
                )
                best = max(best, v)
    elif et == EffectType.TAKE:
        if can_pay(s, p, T_OPTION_COST[kind, side, 0], NO_DISCOUNT):
            top = 0.0
            for r in range(NUM_ANY):
                top = max(top, gain_units(s, p, strategy, r, 1))
            best = top - cost_value(s, p, T_OPTION_COST[kind, side, 0], NO_DISCOUNT, strategy)
    elif et == EffectType.CONSTRUCT:
        best = _best_construct(s, p, kind, side, strategy)
    elif et == EffectType.TOLL:
        best = TOLL_VALUE
    elif (
        et == EffectType.LAWYER
        and s[pf(p, L.P_HOUSES)] > 0
        and can_pay(s, p, T_OPTION_COST[kind, side, 0], NO_DISCOUNT)
        and _lawyer_target(s)
    ):
        best = _residence_value(s, strategy) - cost_value(
            s, p, T_OPTION_COST[kind, side, 0], NO_DISCOUNT, strategy
        )
    return max(best, 0.0)


@njit(cache=True)
def _space_value(s, p, sp, strategy):
    """What a worker of ``p`` on space ``sp`` is expected to bring when it is activated."""
    kind = np.int64(s[L.SPACE_KIND + sp])
    if kind < 0:
        return 0.0
    return effect_value(s, p, kind, effect_side(s, sp), strategy)


@njit(cache=True)
def _reach(s, p, sp):
    """Share of its value a worker on ``sp`` keeps given the Provost (rules 3.1, 4.2)."""
    if sp < NUM_PRINTED:
        return 1.0
    k = sp - ROAD0
    prov = np.int64(s[L.PROVOST])
    if k < prov:
        return 1.0
    if k == prov:
        return EDGE_PROVOST
    if k == prov + 1 and K.holder(s, Character.BAILIFF) == p:
        return EDGE_PROVOST
    return PAST_PROVOST


@njit(cache=True)
def _bundles(f, others, gold_plain):
    """Plain bundles (rules 4.3) from ``f`` food and ``others`` (wood, stone, cloth, gold
    counts, a copy the function uses up): each takes a food and two different others, the
    most plentiful first. Returns their number."""
    n = 0
    while f > 0:
        a = -1
        b = -1
        for i in range(others.shape[0]):
            if i == others.shape[0] - 1 and not gold_plain:
                continue
            if others[i] <= 0:
                continue
            if a < 0 or others[i] > others[a]:
                b = a
                a = i
            elif b < 0 or others[i] > others[b]:
                b = i
        if a < 0 or b < 0:
            break
        others[a] -= 1
        others[b] -= 1
        f -= 1
        n += 1
    return n


@njit(cache=True)
def _expected_resources(s, p, res):
    """``p``'s resources at Delivery, roughly: what he holds plus the free production of his
    workers already placed within the Provost's reach (rules 4.2)."""
    for r in range(NUM_RESOURCES):
        res[r] = resource(s, p, r)
    prov = np.int64(s[L.PROVOST])
    for sp in range(NUM_PRINTED + ROAD_SPACES):
        if sp >= NUM_PRINTED and sp - ROAD0 > prov:
            break
        for i in range(MAX_WORKERS_ON_BUILDING):
            if space_worker(s, sp, i) != p:
                continue
            kind = np.int64(s[L.SPACE_KIND + sp])
            side = effect_side(s, sp)
            et = T_EFFECT[kind, side]
            if et == EffectType.OPTIONS and T_NUM_OPTIONS[kind, side] == 1:
                free = True
                for c in range(T_OPTION_COST.shape[3]):
                    if T_OPTION_COST[kind, side, 0, c] > 0:
                        free = False
                if free:
                    for r in range(NUM_RESOURCES):
                        res[r] += T_OPTION_GAIN[kind, side, 0, r]
            elif et == EffectType.TAKE:
                # the resource of choice: food if he has none, else a kind for the bundle
                if res[Resource.FOOD] == 0:
                    res[Resource.FOOD] += 1
                else:
                    res[Resource.CLOTH] += 1


@njit(cache=True)
def _bundle_value(s, p, strategy, res):
    """PP of delivering every plain bundle ``res`` makes: 5 each (+1 Foreman, +5 once with
    gold for the Goldsmith, D30) minus what its resources are worth."""
    others = np.empty(NUM_RESOURCES - 1, np.int64)
    for r in range(1, NUM_RESOURCES):
        others[r - 1] = res[r]
    n = _bundles(res[Resource.FOOD], others, False)
    per = BUNDLE_PRESTIGE + (FOREMAN_BONUS if K.holder(s, Character.FOREMAN) == p else 0)
    spend = 0.0
    if n > 0:
        # the resources of n bundles: n food and 2n of the others, at their mean value
        mean = 0.0
        for r in range(1, NUM_ANY):
            mean += res_value(s, strategy, r)
        mean /= NUM_ANY - 1
        spend = n * (res_value(s, strategy, Resource.FOOD) + 2.0 * mean)
    return n, n * per - spend


@njit(cache=True)
def _site_value(s, p, strategy):
    """A worker on the Construction Site: the bundles ``p`` will deliver (rules 4.3) and a
    chance at the Delivery Favor."""
    res = np.empty(NUM_RESOURCES, np.int64)
    _expected_resources(s, p, res)
    n, v = _bundle_value(s, p, strategy, res)
    if n == 0:
        return 0.0
    return v + 0.5 * FAVOR_VALUE + SITE_BONUS[strategy]


@njit(cache=True)
def _placement_score(s, p, a, early, strategy):
    """Planning (rules 4.1) and the Early Riser (D25): expected gain minus workers paid."""
    w = _worker_value(s, strategy)
    cost = placement_cost(s, p, early) * w
    if a == ACT_SITE:
        return _site_value(s, p, strategy) - cost
    sp = a - ACT_PLACE
    v = _space_value(s, p, sp, strategy) * _reach(s, p, sp) - cost
    owner = s[L.SPACE_OWNER + sp]
    if owner >= 0 and owner != p:
        v -= OWNER_GIFT
    return v


@njit(cache=True)
def _pass_score(s):
    """Keeping the workers is worth 0 here (placements pay their workers); the first to pass
    takes the first-player tile (rules 4.1 C)."""
    return FIRST_PASS_VALUE if s[L.PASSES] == 0 else 0.0


@njit(cache=True)
def provost_value(s, p, q, strategy):
    """How much the player ``p`` likes the Provost at ``q``: his planned Road workers it
    activates, less part of the others' (rules 4.2 step 5)."""
    v = 0.0
    for k in range(1, min(q, PROVOST_MAX) + 1):
        sp = ROAD0 + k
        for i in range(MAX_WORKERS_ON_BUILDING):
            w = space_worker(s, sp, i)
            if w < 0:
                continue
            val = _space_value(s, w, sp, strategy)
            v += val if w == p else -OPPONENT_SHARE * val
    return v


@njit(cache=True)
def _provost_score(s, p, a, strategy, per_step):
    d = PROVOST_DELTAS[a - ACT_PROVOST]
    prov = np.int64(s[L.PROVOST])
    gain = provost_value(s, p, prov + d, strategy) - provost_value(s, p, prov, strategy)
    return gain - abs(d) * per_step * _worker_value(s, strategy) - EPS * abs(d)


@njit(cache=True)
def _character_score(s, c, strategy):
    return CHARACTER_VALUE[strategy, c]


@njit(cache=True)
def _best_board_character(s, strategy):
    best = 0.0
    for c in range(NUM_CHARACTERS):
        if s[L.CHARACTER_HOLDER + c] == ON_BOARD:
            best = max(best, CHARACTER_VALUE[strategy, c])
    return best


@njit(cache=True)
def _effect_score(s, p, space, a, strategy):
    """One option of the building ``p`` uses (rules 4.2, 5.1-5.4)."""
    if a == ACT_DECLINE:
        return 0.0
    kind = np.int64(s[L.SPACE_KIND + space])
    side = effect_side(s, space)
    et = T_EFFECT[kind, side]
    if et == EffectType.OPTIONS:
        o = a - ACT_OPTION
        return gain_value(s, p, T_OPTION_GAIN[kind, side, o], strategy) - cost_value(
            s, p, T_OPTION_COST[kind, side, o], NO_DISCOUNT, strategy
        )
    if et == EffectType.TAKE:
        r = a - ACT_TAKE
        return gain_units(s, p, strategy, r, 1) - cost_value(
            s, p, T_OPTION_COST[kind, side, 0], NO_DISCOUNT, strategy
        )
    if et == EffectType.CONSTRUCT:
        t = CONSTRUCTIBLE_KINDS[a - ACT_CONSTRUCT]
        return construct_value(s, p, t, strategy) - cost_value(
            s, p, T_COST[t], T_DISCOUNT[kind, side], strategy
        )
    if et == EffectType.TOLL:
        return _provost_score(s, p, a, strategy, 0)
    if et == EffectType.LAWYER:
        k = a - ACT_MARK + 1
        sp = ROAD0 + k
        v = _residence_value(s, strategy) - cost_value(
            s, p, T_OPTION_COST[kind, side, 0], NO_DISCOUNT, strategy
        )
        # a building turned into a residence stops producing: mark the least useful one
        return v - 0.2 * effect_value(s, p, np.int64(s[L.SPACE_KIND + sp]), SIDE_SETUP, strategy)
    return 0.0


@njit(cache=True)
def _favor_score(s, p, a, strategy):
    """A Favor (rules 4.5, D23): a character taken from another player, or a site building's
    Setup side followed by an available character."""
    if a < ACT_USE_SITE:
        c = a - ACT_STEAL
        return _character_score(s, c, strategy) + 0.5
    sp = SITE0 + a - ACT_USE_SITE
    kind = np.int64(s[L.SPACE_KIND + sp])
    return effect_value(s, p, kind, SIDE_SETUP, strategy) + _best_board_character(s, strategy)


@njit(cache=True)
def _pay_score(s, p, a, strategy):
    """Pay the least useful resource: the one whose last unit held is worth least."""
    return -spend_units(s, p, strategy, a - ACT_PAY, 1)


@njit(cache=True)
def _deliver_score(s, p, a, strategy):
    """One bundle (rules 4.3, D30): its prestige against what its resources are worth."""
    if a == ACT_DECLINE:
        return 0.0
    b = a - ACT_BUNDLE
    gain = np.float64(BUNDLE_PRESTIGE)
    if K.holder(s, Character.FOREMAN) == p:
        gain += FOREMAN_BONUS
    if (
        BUNDLES[b, Resource.GOLD] > 0
        and K.holder(s, Character.GOLDSMITH) == p
        and s[L.CHARACTER_USED + Character.GOLDSMITH] == 0
    ):
        gain += GOLDSMITH_BONUS
    spend = 0.0
    for r in range(NUM_RESOURCES):
        spend += spend_units(s, p, strategy, r, BUNDLES[b, r])
    # last round: deliver anything that scores (nothing else uses the resources)
    if s[L.ROUND] >= NUM_ROUNDS:
        spend = BUNDLES[b, Resource.GOLD] * PRESTIGE_PER_GOLD * 1.0
        for r in range(NUM_ANY):
            spend += 0.01 * BUNDLES[b, r]
    return gain - spend


@njit(cache=True)
def _monument_score(s, p, a, strategy):
    """A monument (rules 4.4): prestige (+1 Architect) and income for the rounds left,
    against its cost; gold counts at its final value at least."""
    if a == ACT_DECLINE:
        return 0.0
    t = MONUMENT_KINDS[a - ACT_MONUMENT]
    v = np.float64(T_PP[t])
    if K.holder(s, Character.ARCHITECT) == p:
        v += ARCHITECT_BONUS
    later = _rounds_left(s) - 1
    w = _worker_value(s, strategy)
    v += later * (
        T_INCOME[t, G_WORKERS] * w
        + T_INCOME[t, Resource.FOOD] * RES_VALUE[strategy, Resource.FOOD]
        + T_INCOME[t, Resource.CLOTH] * RES_VALUE[strategy, Resource.CLOTH]
    )
    return v - cost_value(s, p, T_COST[t], NO_DISCOUNT, strategy)


@njit(cache=True)
def score_action(s, p, kind, arg, a, strategy):
    """The score of legal action ``a`` of player ``p`` at a decision of ``kind``."""
    if kind == DecisionKind.PLAN or kind == DecisionKind.EARLY_RISER:
        if a == ACT_PASS:
            return _pass_score(s)
        if a == ACT_DECLINE:
            return 0.0  # the Early Riser declined: keep the workers (D25)
        return _placement_score(s, p, a, kind == DecisionKind.EARLY_RISER, strategy)
    if kind == DecisionKind.EFFECT:
        return _effect_score(s, p, arg, a, strategy)
    if kind == DecisionKind.PAY:
        return _pay_score(s, p, a, strategy)
    if kind == DecisionKind.DELIVER:
        return _deliver_score(s, p, a, strategy)
    if kind == DecisionKind.MONUMENT:
        if arg > 0:
            return 0.0  # the residence it replaces: all alike (the module docstring)
        return _monument_score(s, p, a, strategy)
    if kind == DecisionKind.BRIDGE:
        if a == ACT_DECLINE:
            return 0.0
        return _provost_score(s, p, a, strategy, 1)
    if kind == DecisionKind.BAILIFF:
        if a == ACT_DECLINE:
            return 0.0
        return _provost_score(s, p, a, strategy, 0)
    if kind == DecisionKind.FAVOR:
        return _favor_score(s, p, a, strategy)
    # DRAFT, BOARD_CHARACTER: an available character
    return _character_score(s, a - ACT_CHARACTER, strategy)


@njit(cache=True)
def score_actions(s, out, n, strategy, scores):
    """Scores of the ``n`` legal actions ``out[:n]`` for the player to move, into ``scores``."""
    kind, p, arg, _ = read_top(s)
    for i in range(n):
        scores[i] = score_action(s, p, kind, arg, out[i], strategy)


CHOICE = scripted.choice_kernels("caylus_1303", sys.modules[__name__])
"""``choose`` and the bots' ``choose_scripted``, compiled over this module's ``score_actions``
and ``EPS`` (the module is their scoring)."""
choose = CHOICE.choose
