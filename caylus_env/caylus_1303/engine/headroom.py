"""The most the rest of a Caylus 1303 game can add to each count, from any position.

The state is int16: prestige, resources, bundles and the decision count have no rules
ceiling (rules 2.1, D14) and must never pass ``STATE_MAX``. A loaded position is untrusted,
and a fixed cap on what it may hold is not enough: play from a position at the cap goes past
it, and the loader then refuses the game's own later positions. So the loader
(``state_dict.dict_to_state``) bounds each count by ``STATE_MAX`` less ``room(s)``, the most
legal play from ``s`` to the end can still add to it. The game's clock is fixed (9 rounds,
D36) and every gain spends something the position holds, so ``room`` counts what is left:

- this round's workers that may still be placed (a hand during the draft and Planning,
  D15) and those on buildings not yet activated: each gives its owner's placement prestige
  (rules 4.1, D19, D27), its building's owner bonus (D19) and one effect (rules 4.2: the
  largest gain of any option of the tile table, a construction's prestige with the
  Architect's, D22, D29; its "any" payments, D12; its Favors, rules 4.5);
- the Favors, site effects, payments and other questions already pending (D23, D39);
- this round's Bridge, Bailiff, delivery turns, Delivery Favor and Goldsmith bonus, monument
  turns and income still ahead (rules 4.2-4.4, D9, D28, D30, D35), and a monument paid for
  whose residence is being chosen (D4);
- the bundles a player's resources (held and still to be gained) can make, each worth the
  most a bundle pays (rules 4.3, D30), and the monuments left in the supply (D4);
- a whole round of all of that for each round after this one (a hand holds at most the 15
  workers of a colour, D15).

Each move of the engine spends at least what it adds: a count plus its room never grows
under legal play. So a position the loader accepts (every count within ``STATE_MAX`` less
its room) plays to its end through positions it accepts again, and never wraps its int16
entries. At the start of a game the room is the most one whole game can add; it shrinks to
nothing at the game's end. Every weight below is read by name from the rule data.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from caylus_env.caylus_1303.engine import layout as L
from caylus_env.caylus_1303.engine.constants import (
    ARCHITECT_BONUS,
    BUNDLE_PRESTIGE,
    BUNDLE_SIZE,
    FOREMAN_BONUS,
    GOLDSMITH_BONUS,
    MAX_WORKERS_ON_BUILDING,
    NUM_RESOURCES,
    NUM_ROUNDS,
    OWNER_PRESTIGE,
    ROAD0,
    SITE0,
    STEWARD_PRESTIGE,
    THIEF_PRESTIGE,
    WORKERS_PER_COLOUR,
    Character,
    DecisionKind,
    Phase,
)
from caylus_env.caylus_1303.engine.decisions import MAX_ANY_OWED, entry
from caylus_env.caylus_1303.engine.phases import activation, delivery, planning, stewardship
from caylus_env.caylus_1303.engine.state import pf
from caylus_env.caylus_1303.engine.tiles import (
    CONSTRUCTIBLE_KINDS,
    G_FAVOR,
    G_PP,
    MONUMENT_KINDS,
    NUM_KINDS,
    SIDE_CONSTRUCTION,
    SIDE_SETUP,
    T_EFFECT,
    T_EFFECT_GROUP,
    T_FAVOR_WHEN_BUILT,
    T_GROUP,
    T_INCOME,
    T_NUM_OPTIONS,
    T_OPTION_GAIN,
    T_OWNER_BONUS,
    T_PP,
    EffectType,
    Group,
)

#: The largest value of the int16 state: no count may pass it.
STATE_MAX = int(np.iinfo(L.STATE_DTYPE).max)
#: The Favors one Delivery gives: one, to the top deliverer (rules 4.3, D9).
DELIVERY_FAVORS = 1
#: The groups of the site buildings a Favor uses, Setup side up (S1-S3, rules 3.1, 4.5).
SITE_GROUPS = (Group.STARTING, Group.WOOD, Group.STONE)


@dataclass(frozen=True)
class Gain:
    """The most one use of something gives: prestige, resources (all kinds together),
    Favors and decisions (the question itself and its payments)."""

    pp: int = 0
    res: int = 0
    favors: int = 0


def _effect_gain(kind: int, side: int) -> Gain:
    """The most one use of ``kind``'s ``side`` gives (rules 4.2, 5.1-5.4): its best option,
    a resource of choice, or a construction's prestige with the Architect's (D22, D29)."""
    et = T_EFFECT[kind, side]
    if et == EffectType.OPTIONS:
        gains = T_OPTION_GAIN[kind, side, : T_NUM_OPTIONS[kind, side]]
        return Gain(
            pp=int(gains[:, G_PP].max()),
            res=int(gains[:, :NUM_RESOURCES].sum(axis=1).max()),
            favors=int(gains[:, G_FAVOR].max()),
        )
    if et == EffectType.TAKE:
        return Gain(res=1)
    if et == EffectType.CONSTRUCT:
        group = T_EFFECT_GROUP[kind, side]
        built = [int(T_PP[t]) for t in CONSTRUCTIBLE_KINDS if T_GROUP[t] == group]
        return Gain(pp=max(built) + ARCHITECT_BONUS)
    return Gain()


def _most(gains: list[Gain]) -> Gain:
    return Gain(
        pp=max(g.pp for g in gains),
        res=max(g.res for g in gains),
        favors=max(g.favors for g in gains),
    )


#: Any effect a worker uses, and a site building's Setup side a Favor uses (rules 4.5).
EFFECT = _most(
    [_effect_gain(k, s) for k in range(NUM_KINDS) for s in (SIDE_SETUP, SIDE_CONSTRUCTION)]
)
SITE_EFFECT = _most(
    [_effect_gain(k, SIDE_SETUP) for k in range(NUM_KINDS) if T_GROUP[k] in SITE_GROUPS]
)
assert SITE_EFFECT.favors == 0, "a Favor's site building gives no Favor: a Favor's chain ends"
#: A Favor: a site building's effect (or a character, which gives nothing itself, D23).
FAVOR_PP = SITE_EFFECT.pp
FAVOR_RES = SITE_EFFECT.res
#: A Favor's questions: the Favor, the site building's effect and its payments, the
#: available character after it (D23).
SITE_EFFECT_DECISIONS = 1 + MAX_ANY_OWED
FAVOR_DECISIONS = 1 + SITE_EFFECT_DECISIONS + 1
#: A worker's effect with the Favors it gives, and its questions (the effect, its payments).
WORKER_PP = EFFECT.pp + EFFECT.favors * FAVOR_PP
WORKER_RES = EFFECT.res + EFFECT.favors * FAVOR_RES
WORKER_DECISIONS = 1 + MAX_ANY_OWED + EFFECT.favors * FAVOR_DECISIONS
#: What the owner of a building gains from another player's worker: on placement (D19, D27)
#: and when it is activated (the owner bonus, D19).
OWNER_PP = max(OWNER_PRESTIGE, STEWARD_PRESTIGE, THIEF_PRESTIGE)
OWNER_BONUS_PP = int(T_OWNER_BONUS[:, G_PP].max())
OWNER_BONUS_RES = int(T_OWNER_BONUS[:, :NUM_RESOURCES].sum(axis=1).max())
#: One bundle: its prestige with the Foreman's (rules 4.3, D30); the Goldsmith's once a round.
BUNDLE_PP = BUNDLE_PRESTIGE + FOREMAN_BONUS
#: A Stewardship's income of resources if a player owned every monument (D5, D35).
INCOME_RES = int(T_INCOME[MONUMENT_KINDS, :NUM_RESOURCES].sum())
#: Per monument kind (``MONUMENT_KINDS`` order): its prestige with the Architect's (D29)
#: and the Theatre's Favor (D4).
MONUMENT_PP = np.array(
    [T_PP[t] + ARCHITECT_BONUS + T_FAVOR_WHEN_BUILT[t] * FAVOR_PP for t in MONUMENT_KINDS]
)
MONUMENT_RES = np.array([T_FAVOR_WHEN_BUILT[t] * FAVOR_RES for t in MONUMENT_KINDS])
#: The questions a monument asks after it is chosen: the residence it replaces (asked of a
#: holder of two or more, D4) and the Theatre's Favor.
MONUMENT_PLACING_DECISIONS = np.array(
    [1 + T_FAVOR_WHEN_BUILT[t] * FAVOR_DECISIONS for t in MONUMENT_KINDS]
)
#: A monument still in the supply: choosing it, then what it asks.
MONUMENT_DECISIONS = 1 + MONUMENT_PLACING_DECISIONS


def round_pp(n: int) -> int:
    """The most prestige one player gains in a whole round of ``n`` players: every worker
    of every colour placed on his buildings and activated, his own 15 workers' effects, the
    Goldsmith's bonus and the Delivery Favor (bundles and monuments are counted apart)."""
    w = WORKERS_PER_COLOUR
    return (OWNER_PP + OWNER_BONUS_PP) * w * n + WORKER_PP * w + GOLDSMITH_BONUS + FAVOR_PP


def round_res(n: int) -> int:
    """The most resources one player gains in a whole round of ``n`` players."""
    w = WORKERS_PER_COLOUR
    return OWNER_BONUS_RES * w * n + WORKER_RES * w + DELIVERY_FAVORS * FAVOR_RES + INCOME_RES


def round_decisions(n: int) -> int:
    """The most decisions of a whole round of ``n`` players (bundles and monuments apart):
    the Early Riser, every worker placed and activated and every pass, the Bridge, the
    Bailiff, a delivery turn per site slot and the Deliveryman's, the Delivery Favor, a
    monument turn each (rules 4.1-4.4, D9, D25, D28, D39)."""
    w = WORKERS_PER_COLOUR
    placements = n * (w * (1 + WORKER_DECISIONS) + 1)
    return 1 + placements + n + 1 + (n + 1) + DELIVERY_FAVORS * FAVOR_DECISIONS + n


@dataclass(frozen=True)
class Room:
    """The most the rest of the game can add, from one position."""

    decisions: int
    pp: tuple[int, ...]  # per seat
    resources: tuple[int, ...]  # per seat: each kind (and all together) gains at most this
    bundles: tuple[int, ...]  # per seat: the bundles his resources can still make
    bundle_pp: tuple[int, ...]  # per seat: the part of ``pp`` those bundles are worth


def room(s: np.ndarray) -> Room:
    """What legal play from ``s`` can still add to each count (the module docstring).

    ``s`` must have passed the loader's checks up to the pending stack (its invariants, the
    phase pointers and the stack: ``state_dict._check_clock``, ``_check_stack``)."""
    n = int(s[L.NUM_PLAYERS])
    phase = int(s[L.PHASE])
    stage = int(s[L.STAGE])
    cursor = int(s[L.CURSOR])
    over = phase == Phase.GAME_OVER
    after = 0 if over else NUM_ROUNDS - int(s[L.ROUND])
    stack = [tuple(int(x) for x in entry(s, i)[:3]) for i in range(int(s[L.STACK_SIZE]))]

    def pending(kind: int, p: int | None = None) -> int:
        return sum(1 for k, q, _ in stack if k == kind and (p is None or q == p))

    # -- workers: in hand before Planning ends, and on buildings until activated --------------
    planning_ahead = phase in (Phase.DRAFT, Phase.PLANNING)
    hand = [int(s[pf(p, L.P_HAND)]) if planning_ahead else 0 for p in range(n)]
    resolving = phase == Phase.ACTIVATION and stage in (
        activation.STAGE_PRINTED,
        activation.STAGE_ROAD,
    )
    current = cursor if stage == activation.STAGE_PRINTED else ROAD0 + cursor
    asked_slot = (current, int(s[L.WORKER_INDEX])) if resolving and s[L.ASKED] else None
    unanswered = [0] * n  # workers whose effect is still to be asked or answered
    unasked = 0  # workers whose owner bonus is still to be paid
    for sp in range(SITE0):
        for i in range(MAX_WORKERS_ON_BUILDING):
            w = int(s[L.SPACE_WORKER + sp * MAX_WORKERS_ON_BUILDING + i])
            if w < 0:
                continue
            if (sp, i) != asked_slot:
                unasked += 1
                unanswered[w] += 1
            elif any(k == DecisionKind.EFFECT and q == w and a == sp for k, q, a in stack):
                unanswered[w] += 1
    placers = sum(hand)
    visitors = placers + unasked
    favors = [pending(DecisionKind.FAVOR, p) for p in range(n)]
    sites = [
        sum(1 for k, q, a in stack if k == DecisionKind.EFFECT and q == p and a >= SITE0)
        for p in range(n)
    ]

    # -- this round's steps still ahead -----------------------------------------------------
    before = phase < Phase.DELIVERY  # the draft, Planning, Activation
    delivering = phase == Phase.DELIVERY and (
        stage in (delivery.STAGE_SLOTS, delivery.STAGE_DELIVERYMAN)
        or pending(DecisionKind.DELIVER) > 0
    )
    delivery_ahead = before or delivering
    favor_ahead = before or (phase == Phase.DELIVERY and stage < delivery.STAGE_CLEANUP)
    if before:
        delivery_turns = n + 1  # every site slot and the Deliveryman
    elif phase == Phase.DELIVERY:
        slots = 0
        if stage == delivery.STAGE_SLOTS:
            slots = sum(1 for i in range(cursor, n) if s[L.SITE + i] >= 0)
        turn = stage in (delivery.STAGE_SLOTS, delivery.STAGE_DELIVERYMAN)
        delivery_turns = pending(DecisionKind.DELIVER) + slots + int(turn)
    else:
        delivery_turns = 0
    if phase < Phase.STEWARDSHIP or (
        phase == Phase.STEWARDSHIP and stage == stewardship.STAGE_RESIDENCES
    ):
        monument_turns = n
    elif phase == Phase.STEWARDSHIP and stage == stewardship.STAGE_MONUMENTS:
        monument_turns = n - cursor + pending(DecisionKind.MONUMENT)
    else:
        monument_turns = 0
    goldsmith = GOLDSMITH_BONUS * int(
        delivery_ahead and not s[L.CHARACTER_USED + Character.GOLDSMITH]
    )
    bundles_ahead = delivery_ahead or after > 0
    monuments_ahead = monument_turns > 0 or after > 0
    supply = s[L.MONUMENT_SUPPLY : L.MONUMENT_SUPPLY + len(MONUMENT_KINDS)] == 1
    monuments_pp = int(MONUMENT_PP[supply].sum()) * monuments_ahead
    monuments_res = int(MONUMENT_RES[supply].sum()) * monuments_ahead
    # a monument paid for whose residence is asked: its prestige, Favor and questions (D4)
    placing = [(q, a - 1) for k, q, a in stack if k == DecisionKind.MONUMENT and a > 0]
    placing_pp = [sum(int(MONUMENT_PP[i]) for q, i in placing if q == p) for p in range(n)]
    placing_res = [sum(int(MONUMENT_RES[i]) for q, i in placing if q == p) for p in range(n)]

    # -- resources first: the bundles they make are worth prestige and decisions -------------
    res = []
    for p in range(n):
        r = OWNER_BONUS_RES * visitors
        r += WORKER_RES * (hand[p] + unanswered[p]) + FAVOR_RES * favors[p]
        r += SITE_EFFECT.res * sites[p] + DELIVERY_FAVORS * FAVOR_RES * favor_ahead
        r += monuments_res + placing_res[p] + INCOME_RES * (not over) + after * round_res(n)
        res.append(r)
    held = [
        int(s[pf(p, L.P_RESOURCES) : pf(p, L.P_RESOURCES) + NUM_RESOURCES].sum()) for p in range(n)
    ]
    bundles = [(held[p] + res[p]) // BUNDLE_SIZE * bundles_ahead for p in range(n)]
    pp = []
    for p in range(n):
        x = OWNER_PP * placers + OWNER_BONUS_PP * visitors
        x += WORKER_PP * (hand[p] + unanswered[p]) + FAVOR_PP * favors[p]
        x += SITE_EFFECT.pp * sites[p] + DELIVERY_FAVORS * FAVOR_PP * favor_ahead
        x += BUNDLE_PP * bundles[p] + goldsmith + monuments_pp + placing_pp[p]
        x += after * round_pp(n)
        pp.append(x)

    # -- decisions -----------------------------------------------------------------------------
    d = 0
    if phase == Phase.DRAFT:
        d += n - cursor + pending(DecisionKind.DRAFT)
    early = phase == Phase.DRAFT or (
        phase == Phase.PLANNING and stage == planning.STAGE_EARLY_RISER
    )
    d += int(early) + pending(DecisionKind.EARLY_RISER)
    if planning_ahead:
        d += sum(hand) + sum(1 for p in range(n) if not s[pf(p, L.P_PASSED)])
    d += WORKER_DECISIONS * (placers + sum(unanswered))
    d += sum(a for k, _, a in stack if k == DecisionKind.PAY)
    d += FAVOR_DECISIONS * sum(favors) + SITE_EFFECT_DECISIONS * sum(sites)
    d += pending(DecisionKind.BOARD_CHARACTER)
    if phase < Phase.ACTIVATION:
        d += n + 1  # every player's Bridge turn, the Bailiff
    elif phase == Phase.ACTIVATION:
        if stage == activation.STAGE_PRINTED:
            d += int(s[L.PASSES])
        elif stage == activation.STAGE_BRIDGE:
            d += int(s[L.PASSES]) - cursor
        d += int(stage < activation.STAGE_ROAD)
    d += pending(DecisionKind.BRIDGE) + pending(DecisionKind.BAILIFF)
    d += delivery_turns + DELIVERY_FAVORS * FAVOR_DECISIONS * favor_ahead + sum(bundles)
    d += monument_turns + int(MONUMENT_DECISIONS[supply].sum()) * monuments_ahead
    d += sum(int(MONUMENT_PLACING_DECISIONS[i]) for _, i in placing)
    d += after * round_decisions(n)
    return Room(d, tuple(pp), tuple(res), tuple(bundles), tuple(BUNDLE_PP * b for b in bundles))
