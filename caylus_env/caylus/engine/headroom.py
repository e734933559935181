"""The most the rest of a Caylus game can add to each player's money, cubes and prestige, from
any position.

The state is int16: money, cubes and prestige have no rules ceiling and must never pass
``STATE_MAX``. A loaded position is untrusted, and a fixed cap on what it may hold is not
enough: play from a position at the cap goes past it, so the loader refuses the game's own
later positions, and the final scoring (3 prestige per gold, 1 per 3 other cubes, 1 per 4
deniers, rules 4.8) can wrap a prestige entry at once. So the loader
(``validate.check_state``) bounds each of them by ``STATE_MAX`` less ``room(s)``, the most
legal play from ``s`` to the end can still add. The game ends by the turn cap at the latest
(rules 8.22), and every gain spends something the position holds, so ``room`` counts what
is left:

- this turn's workers still to be placed (rules 1.1: six a player) and those on special
  buildings and on the road still to be resolved: each gives the most any target gives
  (rules 4 phases 3, 5: a production, a marketplace's sale, a peddler's cubes, an option's
  prestige or gold, the trading post's deniers, the joust's favor) and the owner of its
  building a prestige point and a stone production building's cube (phases 2, 5);
- the decisions and favors already pending (rules 5), and the turn's income, first pass and
  best builder's favor still ahead (phases 1, 2, 6);
- what the board has left to give once: a craft building on each empty road space, every
  prestige building in the stock, a residence of each building the lawyer may still turn
  (rules 5a-5c), a batch on each free castle place (phase 6), the favors of each castle
  section still to be scored (phase 7);
- a whole turn of all the per-turn gains for each turn before the cap, and the final
  scoring of what a player holds and may still gain.

Each move of the engine spends at least what it adds: a count plus its room never grows
under legal play. So a position the loader accepts plays to its end through positions it
accepts again, and never wraps an int16 entry. Every weight is read by name from the
building table and the rule constants.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from caylus_env.caylus.engine import layout as L
from caylus_env.caylus.engine.board import (
    FAVOR_DENIERS,
    FAVOR_PRESTIGE,
    ROAD_LEN,
    SECTION_FAVORS,
    SECTION_PRESTIGE,
    SECTION_SIZE,
)
from caylus_env.caylus.engine.buildings import (
    B_FAVORS,
    B_INCOME,
    B_KIND,
    B_MARKET_PRICE,
    B_OPTIONS,
    B_PEDDLER_MAX,
    B_PRESTIGE,
    B_PRODUCE,
    NUM_BUILDINGS,
    OPTION_GOLD,
    OPTION_PRESTIGE,
    BuildingKind,
)
from caylus_env.caylus.engine.config import LAWYER_PRESTIGE_CHOICES
from caylus_env.caylus.engine.constants import (
    BEST_BUILDER_FAVORS,
    FAVOR_SWAP_TAKE,
    FINAL_CUBES_PER_PRESTIGE,
    FINAL_DENIERS_PER_PRESTIGE,
    FINAL_PRESTIGE_PER_GOLD,
    INCOME_BASE,
    JOUST_FAVORS,
    LAWYER_PRESTIGE,
    MAX_PLAYERS,
    NUM_CASTLE_SPOTS,
    NUM_RESOURCES,
    NUM_SECTIONS,
    NUM_WORKERS,
    OWNER_PRESTIGE_PER_VISITOR,
    PASS_BONUS,
    SIMPLIFIED_FAVOR_PRESTIGE,
    TRADING_POST_DENIERS,
    TURN_CAP,
    DecisionKind,
    Phase,
    Procedure,
    Resource,
)

#: The largest value of the int16 state: no count may pass it.
STATE_MAX = int(np.iinfo(L.STATE_DTYPE).max)
#: Special buildings whose worker is resolved one by one (gate, trading post, merchants'
#: guild, joust field: ``SPECIAL_WORKER``); the gate's moves to another target (phase 3a).
SINGLE_SPECIALS = 4
GATE = 0
#: A favor (rules 5.1, 6): the prestige row's best column (or the simplified variant's
#: prestige), the deniers row's best, the resources row's most cubes (column 4 takes two);
#: the buildings row constructs, counted with the board's buildings below.
FAVOR_PP = max(int(FAVOR_PRESTIGE.max()), SIMPLIFIED_FAVOR_PRESTIGE)
FAVOR_MONEY = int(FAVOR_DENIERS.max())
FAVOR_CUBES = max(FAVOR_SWAP_TAKE, 1)
#: The most one worker gains where it stands (rules 4 phases 3, 5), constructions apart.
PRODUCE_CUBES = int(B_PRODUCE.sum(axis=2).max())
OPTION_PP = B_OPTIONS[:, :, OPTION_PRESTIGE].max(axis=1)  # per building
OPTION_GOLD_MOST = B_OPTIONS[:, :, OPTION_GOLD].max(axis=1)
WORKER_PP = max(int(OPTION_PP.max()), JOUST_FAVORS * FAVOR_PP)
WORKER_MONEY = max(int(B_MARKET_PRICE.max()), TRADING_POST_DENIERS, JOUST_FAVORS * FAVOR_MONEY)
WORKER_CUBES = max(
    PRODUCE_CUBES,
    int(B_PEDDLER_MAX.max()),
    int(OPTION_GOLD_MOST.max()),
    JOUST_FAVORS * FAVOR_CUBES,
)
#: What a building's owner gains from another player's worker: a prestige point when it is
#: placed (phase 2), a cube of a stone production building when it is activated (phase 5).
OWNER_PP = OWNER_PRESTIGE_PER_VISITOR
OWNER_CUBES = 1
#: A turn's income if a player owned every road space's best income (phase 1).
INCOME_MOST = INCOME_BASE + ROAD_LEN * int(B_INCOME.max())
#: A building constructed (rules 5a, 5b): its prestige and its favors. A craft tile goes on
#: an empty road space; a prestige tile comes from the stock (never back to it).
CRAFT = np.array(
    [B_KIND[b] in (BuildingKind.WOOD, BuildingKind.STONE) for b in range(NUM_BUILDINGS)]
)
PRESTIGE_TILES = np.array([B_KIND[b] == BuildingKind.PRESTIGE for b in range(NUM_BUILDINGS)])
CRAFT_PP = max(int(B_PRESTIGE[CRAFT].max()), max(LAWYER_PRESTIGE_CHOICES))
CRAFT_FAVORS = int(B_FAVORS[CRAFT].max())
#: Lawyer targets (rules 5c): neutral and craft tiles, and the empty spaces craft tiles fill.
LAWYER_KINDS = (BuildingKind.NEUTRAL, BuildingKind.WOOD, BuildingKind.STONE)
#: A castle section's favors for one player, at most (the phase 7 table).
SECTION_FAVORS_MOST = SECTION_FAVORS.max(axis=1)


def turn_gains(n: int) -> tuple[int, int, int]:
    """The most one player gains in a whole turn of ``n`` players (money, cubes, prestige):
    his income and the first pass, his six workers, every worker of the table on his
    buildings, the best builder's favor (what the board gives once is counted apart)."""
    money = INCOME_MOST + PASS_BONUS + WORKER_MONEY * NUM_WORKERS
    money += BEST_BUILDER_FAVORS * FAVOR_MONEY
    cubes = WORKER_CUBES * NUM_WORKERS + OWNER_CUBES * NUM_WORKERS * n
    cubes += BEST_BUILDER_FAVORS * FAVOR_CUBES
    pp = WORKER_PP * NUM_WORKERS + OWNER_PP * NUM_WORKERS * n + BEST_BUILDER_FAVORS * FAVOR_PP
    return money, cubes, pp


@dataclass(frozen=True)
class Room:
    """The most the rest of the game can add to each player's counts, from one position."""

    money: tuple[int, ...]
    cubes: tuple[int, ...]  # each kind (and all together) gains at most this
    prestige: tuple[int, ...]
    final: tuple[int, ...]  # the part of ``prestige`` the final scoring may give


def _pf(p: int, field: int) -> int:
    return L.PLAYERS + p * L.PLAYER_STRIDE + field


def room(s: np.ndarray) -> Room:
    """What legal play from ``s`` can still add (the module docstring). ``s`` must have passed
    the loader's checks of the stack and the phase (``validate._check_phase``)."""
    n = int(s[L.NUM_PLAYERS])
    phase = int(s[L.PHASE])
    over = phase == Phase.GAME_OVER
    after = 0 if over else TURN_CAP - int(s[L.TURN])
    stack = [
        tuple(int(x) for x in s[L.STACK + i * L.STACK_ENTRY : L.STACK + (i + 1) * L.STACK_ENTRY])
        for i in range(int(s[L.STACK_SIZE]))
    ]
    resolving = {a for k, _, a, _ in stack if k == Procedure.FINISH_SPACE}

    # -- workers: at home before placement ends, then on special buildings and the road ------
    placing = phase == Phase.INCOME or phase == Phase.PLACEMENT
    home = [
        NUM_WORKERS - int(s[_pf(p, L.P_WORKERS_OUT)])
        if placing and (phase == Phase.INCOME or not s[_pf(p, L.P_PASSED)])
        else 0
        for p in range(n)
    ]
    out = [0] * n  # workers still to be resolved where they stand
    for i in range(SINGLE_SPECIALS):
        w = int(s[L.SPECIAL_WORKER + i])
        if w >= 0:
            out[w] += 1
    road = 0
    for k in range(1, ROAD_LEN + 1):
        w = int(s[L.ROAD_WORKER + k])
        if w >= 0 and k not in resolving:
            out[w] += 1
            road += 1
    gate = int(s[L.SPECIAL_WORKER + GATE] >= 0)
    placements = sum(home) + gate  # each gives its building's owner a prestige point
    activations = sum(home) + gate + road  # each may give its owner a cube

    # -- pending decisions ------------------------------------------------------------------
    money = [0] * n
    cubes = [0] * n
    pp = [0] * n
    for kind, p, a, b in stack:
        if kind == DecisionKind.PRODUCE:
            cubes[p] += PRODUCE_CUBES
        elif kind == DecisionKind.OWNER_BONUS:
            cubes[p] += OWNER_CUBES
        elif kind == DecisionKind.MARKET:
            money[p] += int(B_MARKET_PRICE[a])
        elif kind == DecisionKind.PEDDLER:
            cubes[p] += int(B_PEDDLER_MAX[a]) - b
        elif kind == DecisionKind.OPTION:
            pp[p] += int(OPTION_PP[a])
            cubes[p] += int(OPTION_GOLD_MOST[a])
        elif kind in (DecisionKind.JOUST, DecisionKind.FAVOR_ROW):
            favors = JOUST_FAVORS if kind == DecisionKind.JOUST else a
            money[p] += favors * FAVOR_MONEY
            cubes[p] += favors * FAVOR_CUBES
            pp[p] += favors * FAVOR_PP
        elif kind == DecisionKind.FAVOR_COLUMN:
            cubes[p] += FAVOR_CUBES
        elif kind == DecisionKind.FAVOR_TAKE:
            cubes[p] += b

    # -- this turn's steps still ahead, and the castle sections still to be scored ---------
    favors = [0] * n
    best_builder = phase < Phase.CASTLE or (
        phase == Phase.CASTLE and int(s[L.CURSOR]) <= NUM_CASTLE_SPOTS
    )
    for p in range(n):
        favors[p] += BEST_BUILDER_FAVORS * (best_builder and not over)
    order = [int(s[L.TURN_ORDER + i]) for i in range(n)]
    for sec in range(NUM_SECTIONS):
        done = any(k == Procedure.SECTION_DONE and a == sec for k, _, a, _ in stack)
        scoring = [b for k, _, a, b in stack if k == Procedure.SCORE_PLAYER and a == sec]
        for i, p in enumerate(order):  # a scoring under way has scored the first players
            ahead = (bool(scoring) and i >= scoring[0]) if done else not s[L.SCORED + sec]
            favors[p] += int(SECTION_FAVORS_MOST[sec]) * ahead
    first_pass = phase == Phase.INCOME or (phase == Phase.PLACEMENT and s[L.NUM_PASSED] == 0)

    # -- what the board has left to give once -----------------------------------------------
    empty = sum(1 for k in range(1, ROAD_LEN + 1) if s[L.ROAD_TILE + k] < 0)
    stock = s[L.STOCK : L.STOCK + NUM_BUILDINGS].astype(np.int64) * PRESTIGE_TILES
    built_pp = CRAFT_PP * empty + int((stock * B_PRESTIGE).sum())
    built_favors = CRAFT_FAVORS * empty + int((stock * B_FAVORS).sum())
    targets = sum(
        1
        for k in range(1, ROAD_LEN + 1)
        if s[L.ROAD_LAWYER + k] < 0
        and (s[L.ROAD_TILE + k] < 0 or B_KIND[s[L.ROAD_TILE + k]] in LAWYER_KINDS)
    )
    filled = s[L.CASTLE_HOUSES : L.CASTLE_HOUSES + NUM_SECTIONS * MAX_PLAYERS]
    places = int(SECTION_SIZE.sum()) - int(filled.astype(np.int64).sum())
    board_pp = built_pp + LAWYER_PRESTIGE * targets + int(SECTION_PRESTIGE.max()) * places

    turn_money, turn_cubes, turn_pp = turn_gains(n)
    rooms_money, rooms_cubes, rooms_pp, finals = [], [], [], []
    for p in range(n):
        f = favors[p] + built_favors
        m = money[p] + WORKER_MONEY * (home[p] + out[p]) + f * FAVOR_MONEY
        m += INCOME_MOST * (phase == Phase.INCOME) + PASS_BONUS * first_pass + after * turn_money
        c = cubes[p] + WORKER_CUBES * (home[p] + out[p]) + OWNER_CUBES * activations
        c += f * FAVOR_CUBES + after * turn_cubes
        x = pp[p] + WORKER_PP * (home[p] + out[p]) + OWNER_PP * placements + f * FAVOR_PP
        x += board_pp + after * turn_pp
        final = 0
        if not over:
            gold = int(s[_pf(p, L.P_CUBES + Resource.GOLD)])
            held = int(s[_pf(p, L.P_CUBES) : _pf(p, L.P_CUBES) + NUM_RESOURCES].sum())
            final = FINAL_PRESTIGE_PER_GOLD * (gold + c)
            final += (held - gold + c) // FINAL_CUBES_PER_PRESTIGE
            final += (int(s[_pf(p, L.P_MONEY)]) + m) // FINAL_DENIERS_PER_PRESTIGE
        rooms_money.append(m)
        rooms_cubes.append(c)
        rooms_pp.append(x + final)
        finals.append(final)
    return Room(tuple(rooms_money), tuple(rooms_cubes), tuple(rooms_pp), tuple(finals))
