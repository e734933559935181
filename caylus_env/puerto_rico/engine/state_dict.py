"""A readable dict of the whole Puerto Rico state, and its exact inverse.

``state_to_dict(s)`` names every field of the state array (seats as numbers, ``None`` for
nobody, goods, tiles, roles and buildings by name); ``dict_to_state(d)`` rebuilds the
array bit for bit. Tests set up positions with it. A dict is untrusted input:
``dict_to_state`` checks every key, type and range and then the invariants
(``invariants.check_invariants``), and raises ``InvalidStateError`` naming the first
thing wrong before anything is built.

Keys::

    format             "puerto-rico-state/1"
    options            num_players, max_decisions, expansion, draft, library_limit
    decisions, round, phase, step, idle, governor, picks, picker, end_triggered, rng
    doubled, library_used   the library's doubling of this role, and this round (7.2)
    produced           goods the craftsman received this phase
    black_market       {"returned": [colonist, good, vp], "short": doubloons to cover}
    guest_step         guest-house turns taken at the start of the phase (7.4)
    forested           {plantation kind: tiles turned into forests} (7.3)
    roles              {role: {"in_game", "picked", "doubloons"}}
    bank_paid          doubloons the bank paid out minus those paid back
    colonist_supply, colonist_ship, vp_supply, quarry_supply
    goods_supply, trading_house   {good: barrels}
    building_supply    {building: tiles left}
    face_up, discards  {plantation kind: tiles}
    plantation_stack   tile kinds, bottom first (the next draw is last): hidden information
    ships              per cargo ship, smallest first: {"capacity", "good", "load"}
    players            per seat: money, vp, goods{}, island{tile: n}, worked{tile: n},
                       buildings{name: colonists} (owned ones only), san_juan, shipped,
                       wharf_used, small_wharf_used, kept[goods], singles{good: n}
    pending            the decision stack, bottom first: {"kind", "player", <argument>}
"""

from __future__ import annotations

from typing import Any

import numpy as np

from caylus_env.core.errors import InvalidStateError
from caylus_env.core.loop import CODEC_NONE
from caylus_env.core.state_checks import (
    bool_field,
    consistent,
    dict_header,
    exact_keys,
    fail,
    int_field,
    name_field,
    opening,
    options_field,
    read_state_dict,
    show,
)
from caylus_env.puerto_rico.engine import layout as L
from caylus_env.puerto_rico.engine.actions import NUM_ACTIONS
from caylus_env.puerto_rico.engine.buildings import (
    B_CIRCLES,
    B_KIND,
    BUILDING_NAMES,
    NUM_BUILDINGS,
    BuildingId,
)
from caylus_env.puerto_rico.engine.config import GameConfig
from caylus_env.puerto_rico.engine.constants import (
    DRAFT_MODES,
    DRAFT_PICKS,
    GOOD_NAMES,
    MAX_DECISIONS_LIMIT,
    MAX_PLAYERS,
    MAX_SHIPS,
    NUM_PLANTATION_KINDS,
    NUM_WORKABLE_TILES,
    PHASE_NAMES,
    PLANTATION_STACK_SIZE,
    ROLE_NAMES,
    ROLES_IN_GAME,
    ROLES_PER_ROUND,
    SHIP_CAPACITY,
    TILE_NAMES,
    DecisionKind,
    Phase,
    Tile,
)
from caylus_env.puerto_rico.engine.decisions import (
    CODEC_BUILDING,
    CODEC_GOODS,
    CODEC_TILE,
    ENTRY_OF_NAME,
    SCHEMA,
    entry,
    push,
)
from caylus_env.puerto_rico.engine.invariants import INVARIANT_MESSAGES, Invariant, check_invariants
from caylus_env.puerto_rico.engine.layout import STACK_DEPTH
from caylus_env.puerto_rico.engine.loop import advance, legal_actions
from caylus_env.puerto_rico.engine.roles.builder import price
from caylus_env.puerto_rico.engine.roles.captain import (
    SINGLE_BITS,
    SINGLE_MASK,
    STOREHOUSE_BARRELS,
    WINDROSE_BARRELS,
    _can_ship,
    warehouse_kinds,
)
from caylus_env.puerto_rico.engine.roles.guest_house import wants_guest_turn
from caylus_env.puerto_rico.engine.roles.settler import _plantation_left
from caylus_env.puerto_rico.engine.state import (
    MAX_MONEY,
    empty_circles,
    occupied,
    owns,
    pf,
    seat_after,
)

FORMAT = "puerto-rico-state/1"
PLANTATION_NAMES = TILE_NAMES[:NUM_PLANTATION_KINDS]
WORKABLE_NAMES = TILE_NAMES[:NUM_WORKABLE_TILES]
#: Black-market return bits 1, 2, 4: each kind once, a doubloon each (rules 7.2).
BM_KINDS = ("colonist", "good", "vp")
_INT16_MAX = 32767
#: Decisions every round takes at least: its role picks, each with a choice (3 players pick
#: 3 of 6 cards; with 2 players the sixth pick has one card left and is taken for him, the
#: other five are decisions).
MIN_ROUND_DECISIONS = int(ROLES_PER_ROUND[2:].min())
#: Rounds a game can reach: a game takes at most ``MAX_DECISIONS_LIMIT`` decisions.
MAX_ROUND = 1 + MAX_DECISIONS_LIMIT // MIN_ROUND_DECISIONS
#: Cap of a player's VP chips: the chips in play and on paper (at most a few hundred: the
#: supply's conservation is checked) stay far below it under any play.
MAX_AMOUNT = 30000
#: The bank's payouts at most: every player's doubloons (`state.MAX_MONEY` each, which play
#: never passes) and every role card's (one a round it stays unpicked, rules 3.2, and no game
#: goes past `MAX_ROUND`): what play can reach, inside the int16 entry.
BANK_PAID_LIMIT = MAX_PLAYERS * MAX_MONEY + len(ROLE_NAMES) * (MAX_ROUND - 1)
assert BANK_PAID_LIMIT <= _INT16_MAX
#: VP owed on paper at most: the chips run out at most one round before the game ends.
MAX_PAPER_VP = 999


def _bits(mask: int) -> list[str]:
    return [g for i, g in enumerate(GOOD_NAMES) if mask & (1 << i)]


def _named(s: np.ndarray, offset: int, names: tuple[str, ...]) -> dict[str, int]:
    return {name: int(s[offset + i]) for i, name in enumerate(names)}


def _encode_arg(codec: str, v: int) -> Any:
    if codec == CODEC_TILE:
        return TILE_NAMES[v]
    if codec == CODEC_BUILDING:
        return BUILDING_NAMES[v]
    if codec == CODEC_GOODS:
        return _bits(v)
    return v


def state_to_dict(s: np.ndarray) -> dict[str, Any]:
    """The whole state as a readable dict (see the module doc)."""
    n = int(s[L.NUM_PLAYERS])
    picker = int(s[L.PICKER])
    players = []
    for p in range(n):
        buildings = {
            BUILDING_NAMES[b]: int(s[pf(p, L.P_BUILDINGS + b)])
            for b in range(NUM_BUILDINGS)
            if s[pf(p, L.P_BUILDINGS + b)] >= 0
        }
        players.append(
            {
                "money": int(s[pf(p, L.P_MONEY)]),
                "vp": int(s[pf(p, L.P_VP)]),
                "goods": _named(s, pf(p, L.P_GOODS), GOOD_NAMES),
                "island": _named(s, pf(p, L.P_ISLAND), TILE_NAMES),
                "worked": _named(s, pf(p, L.P_WORKED), WORKABLE_NAMES),
                "buildings": buildings,
                "san_juan": int(s[pf(p, L.P_SAN_JUAN)]),
                "shipped": bool(s[pf(p, L.P_SHIPPED)]),
                "wharf_used": bool(s[pf(p, L.P_WHARF_USED)]),
                "small_wharf_used": bool(s[pf(p, L.P_SMALL_WHARF_USED)]),
                "kept": _bits(int(s[pf(p, L.P_KEPT)])),
                "singles": {
                    g: (int(s[pf(p, L.P_SINGLES)]) >> (SINGLE_BITS * i)) & SINGLE_MASK
                    for i, g in enumerate(GOOD_NAMES)
                },
            }
        )
    pending = []
    for i in range(int(s[L.STACK_SIZE])):
        kind, player, arg, _ = entry(s, i)
        spec = SCHEMA[kind]
        item: dict[str, Any] = {"kind": spec.name, "player": int(player)}
        if spec.arg.codec != CODEC_NONE:
            item[spec.arg.name] = _encode_arg(spec.arg.codec, int(arg))
        pending.append(item)
    size = int(s[L.PLANTATION_STACK_SIZE_F])
    return {
        **dict_header(FORMAT, GameConfig.from_state(s).to_dict()),
        "decisions": int(s[L.DECISIONS]),
        "round": int(s[L.ROUND]),
        "phase": PHASE_NAMES[int(s[L.PHASE])],
        "step": int(s[L.STEP]),
        "idle": int(s[L.IDLE]),
        "governor": int(s[L.GOVERNOR]),
        "picks": int(s[L.PICKS]),
        "picker": None if picker < 0 else picker,
        "end_triggered": bool(s[L.END_TRIGGERED]),
        "rng": [int(s[L.RNG]), int(s[L.RNG + 1])],
        "doubled": bool(s[L.DOUBLED]),
        "library_used": bool(s[L.LIBRARY_USED]),
        "produced": _bits(int(s[L.PRODUCED])),
        "black_market": {
            "returned": _bits_of(int(s[L.BM_RETURNED])),
            "short": int(s[L.BM_SHORT]),
        },
        "guest_step": int(s[L.GUEST_STEP]),
        "roles": {
            name: {
                "in_game": bool(s[L.ROLE_STATE + r] >= 0),
                "picked": bool(s[L.ROLE_STATE + r] == 1),
                "doubloons": int(s[L.ROLE_MONEY + r]),
            }
            for r, name in enumerate(ROLE_NAMES)
        },
        "bank_paid": int(s[L.BANK_PAID]),
        "colonist_supply": int(s[L.COLONIST_SUPPLY]),
        "colonist_ship": int(s[L.COLONIST_SHIP]),
        "vp_supply": int(s[L.VP_SUPPLY]),
        "quarry_supply": int(s[L.QUARRY_SUPPLY]),
        "goods_supply": _named(s, L.GOODS_SUPPLY, GOOD_NAMES),
        "trading_house": _named(s, L.TRADING_HOUSE, GOOD_NAMES),
        "building_supply": _named(s, L.BUILDING_SUPPLY, BUILDING_NAMES),
        "face_up": _named(s, L.FACE_UP, PLANTATION_NAMES),
        "discards": _named(s, L.DISCARDS, PLANTATION_NAMES),
        "forested": _named(s, L.FORESTED, PLANTATION_NAMES),
        "plantation_stack": [PLANTATION_NAMES[int(s[L.PLANTATION_STACK + i])] for i in range(size)],
        "ships": [
            {
                "capacity": int(s[L.SHIP_CAPACITY + k]),
                "good": None if s[L.SHIP_GOOD + k] < 0 else GOOD_NAMES[int(s[L.SHIP_GOOD + k])],
                "load": int(s[L.SHIP_LOAD + k]),
            }
            for k in range(MAX_SHIPS)
            if s[L.SHIP_CAPACITY + k] > 0
        ],
        "players": players,
        "pending": pending,
    }


# ---------------------------------------------------------------------------------------------
# The reader: every value is checked before it is written (the checks every game shares:
# caylus_env.core.state_checks).
# ---------------------------------------------------------------------------------------------
def _counts(s: np.ndarray, d: Any, where: str, offset: int, names: tuple[str, ...]) -> None:
    exact_keys(d, where, set(names))
    for i, name in enumerate(names):
        s[offset + i] = int_field(d[name], f"{where}.{name}", 0, _INT16_MAX)


def _goods_list(v: Any, where: str) -> int:
    if not isinstance(v, list) or not all(isinstance(g, str) for g in v) or len(set(v)) != len(v):
        raise fail(where, f"must be a list of distinct goods, got {show(v)}")
    return sum(1 << name_field(g, where, GOOD_NAMES) for g in v)


_TOP_KEYS = {
    "format", "options", "decisions", "round", "phase", "step", "idle", "governor", "picks",
    "picker", "end_triggered", "rng", "doubled", "library_used", "produced", "black_market",
    "guest_step", "forested", "roles", "bank_paid", "colonist_supply", "colonist_ship",
    "vp_supply", "quarry_supply", "goods_supply", "trading_house", "building_supply",
    "face_up", "discards", "plantation_stack", "ships", "players", "pending",
}  # fmt: skip
_PLAYER_KEYS = {
    "money", "vp", "goods", "island", "worked", "buildings", "san_juan", "shipped",
    "wharf_used", "small_wharf_used", "kept", "singles",
}  # fmt: skip


def dict_to_state(d: Any) -> np.ndarray:
    """The state array of a dict written by ``state_to_dict`` (or by hand).

    Checked in order: every key and type, every value in its domain (the caps above), the
    ships and role cards of the player count, the invariants (``check_invariants``), the
    clock and the pending decisions against the position (``_check_clock``, ``_check_stack``:
    exactly the stacks the engine itself builds), the phase's cursors (``_check_cursors``),
    then the engine's own run to its next decision on a copy, which must end without error
    in a consistent state.

    Raises:
        InvalidStateError: naming the first key or value that is wrong and what is allowed,
            or the first broken invariant; also for a value nested too deeply to read.
    """
    return read_state_dict(_decode, d)


def _decode(d: Any) -> np.ndarray:
    opening(d, FORMAT, _TOP_KEYS)
    if not isinstance(d["options"], dict):
        raise fail("options", f"must be a dict, got {type(d['options']).__name__}")
    config = options_field(GameConfig.from_dict, d["options"])
    n = config.num_players
    s = np.zeros(L.STATE_SIZE, L.STATE_DTYPE)
    s[L.NUM_PLAYERS] = n
    s[L.MAX_DECISIONS] = config.max_decisions
    s[L.OPT_EXPANSION] = config.expansion
    s[L.OPT_DRAFT] = DRAFT_MODES.index(config.draft)
    s[L.OPT_LIBRARY_LIMIT] = config.library_limit
    s[L.DECISIONS] = int_field(
        d["decisions"], "decisions (at most options.max_decisions)", 0, config.max_decisions
    )
    s[L.ROUND] = int_field(d["round"], "round", 1, MAX_ROUND)
    s[L.PHASE] = name_field(d["phase"], "phase", PHASE_NAMES)
    s[L.STEP] = int_field(d["step"], "step", 0, max(2 + n, DRAFT_PICKS))
    s[L.IDLE] = int_field(d["idle"], "idle", 0, n)
    s[L.GOVERNOR] = int_field(d["governor"], "governor", 0, n - 1)
    s[L.PICKS] = int_field(d["picks"], "picks", 0, 6)
    s[L.PICKER] = -1 if d["picker"] is None else int_field(d["picker"], "picker", 0, n - 1)
    s[L.END_TRIGGERED] = bool_field(d["end_triggered"], "end_triggered")
    rng = d["rng"]
    if not isinstance(rng, list) or len(rng) != 2:
        raise fail("rng", f"must be a list of 2 ints, got {show(rng)}")
    s[L.RNG] = int_field(rng[0], "rng[0]", 0, 32767)
    s[L.RNG + 1] = int_field(rng[1], "rng[1]", -32768, 32767)
    if int(s[L.RNG]) * 65536 + int(s[L.RNG + 1]) + 32768 in (0, 2147483647):
        raise fail("rng", "the generator state must be in 1..2**31-2")
    s[L.DOUBLED] = bool_field(d["doubled"], "doubled")
    s[L.LIBRARY_USED] = bool_field(d["library_used"], "library_used")
    s[L.PRODUCED] = _goods_list(d["produced"], "produced")
    bm = exact_keys(d["black_market"], "black_market", {"returned", "short"})
    returned = bm["returned"]
    if (
        not isinstance(returned, list)
        or not all(isinstance(k, str) for k in returned)
        or len(set(returned)) != len(returned)
    ):
        raise fail("black_market.returned", f"must be a list of distinct {list(BM_KINDS)}")
    s[L.BM_RETURNED] = sum(
        1 << name_field(k, "black_market.returned", BM_KINDS) for k in bm["returned"]
    )
    s[L.BM_SHORT] = int_field(bm["short"], "black_market.short", 0, len(BM_KINDS))
    s[L.GUEST_STEP] = int_field(d["guest_step"], "guest_step", 0, n + 1)
    exact_keys(d["roles"], "roles", set(ROLE_NAMES))
    for r, name in enumerate(ROLE_NAMES):
        role = exact_keys(d["roles"][name], f"roles.{name}", {"in_game", "picked", "doubloons"})
        in_game = bool_field(role["in_game"], f"roles.{name}.in_game")
        picked = bool_field(role["picked"], f"roles.{name}.picked")
        if picked and not in_game:
            raise fail(f"roles.{name}", "a card not in the game cannot be picked")
        if in_game != bool(ROLES_IN_GAME[n, r]):
            allowed = [ROLE_NAMES[x] for x in range(len(ROLE_NAMES)) if ROLES_IN_GAME[n, x]]
            raise fail(f"roles.{name}.in_game", f"with {n} players the cards are {allowed}")
        s[L.ROLE_STATE + r] = (1 if picked else 0) if in_game else -1
        high = MAX_ROUND - 1 if in_game and not picked else 0
        s[L.ROLE_MONEY + r] = int_field(role["doubloons"], f"roles.{name}.doubloons", 0, high)
    s[L.BANK_PAID] = int_field(d["bank_paid"], "bank_paid", 0, BANK_PAID_LIMIT)
    s[L.COLONIST_SUPPLY] = int_field(d["colonist_supply"], "colonist_supply", 0, _INT16_MAX)
    s[L.COLONIST_SHIP] = int_field(d["colonist_ship"], "colonist_ship", 0, _INT16_MAX)
    s[L.VP_SUPPLY] = int_field(d["vp_supply"], "vp_supply", -MAX_PAPER_VP, _INT16_MAX)
    s[L.QUARRY_SUPPLY] = int_field(d["quarry_supply"], "quarry_supply", 0, _INT16_MAX)
    _counts(s, d["goods_supply"], "goods_supply", L.GOODS_SUPPLY, GOOD_NAMES)
    _counts(s, d["trading_house"], "trading_house", L.TRADING_HOUSE, GOOD_NAMES)
    _counts(s, d["building_supply"], "building_supply", L.BUILDING_SUPPLY, BUILDING_NAMES)
    _counts(s, d["face_up"], "face_up", L.FACE_UP, PLANTATION_NAMES)
    _counts(s, d["discards"], "discards", L.DISCARDS, PLANTATION_NAMES)
    _counts(s, d["forested"], "forested", L.FORESTED, PLANTATION_NAMES)
    stack = d["plantation_stack"]
    if not isinstance(stack, list) or len(stack) > PLANTATION_STACK_SIZE:
        raise fail("plantation_stack", f"must be a list of at most {PLANTATION_STACK_SIZE}")
    for i, t in enumerate(stack):
        s[L.PLANTATION_STACK + i] = name_field(t, f"plantation_stack[{i}]", PLANTATION_NAMES)
    s[L.PLANTATION_STACK_SIZE_F] = len(stack)
    ships = d["ships"]
    sizes = [int(c) for c in SHIP_CAPACITY[n] if c > 0]
    if not isinstance(ships, list) or len(ships) != len(sizes):
        raise fail("ships", f"must be a list of the {len(sizes)} ships of {n} players {sizes}")
    for k in range(MAX_SHIPS):
        s[L.SHIP_GOOD + k] = -1
    for k, ship in enumerate(ships):
        w = f"ships[{k}]"
        exact_keys(ship, w, {"capacity", "good", "load"})
        s[L.SHIP_CAPACITY + k] = int_field(ship["capacity"], f"{w}.capacity", sizes[k], sizes[k])
        if ship["good"] is not None:
            s[L.SHIP_GOOD + k] = name_field(ship["good"], f"{w}.good", GOOD_NAMES)
        s[L.SHIP_LOAD + k] = int_field(ship["load"], f"{w}.load", 0, int(s[L.SHIP_CAPACITY + k]))
    players = d["players"]
    if not isinstance(players, list) or len(players) != n:
        raise fail("players", f"must be a list of {n} players (options.num_players)")
    for p in range(MAX_PLAYERS):
        for b in range(NUM_BUILDINGS):
            s[pf(p, L.P_BUILDINGS + b)] = -1
    for p, pl in enumerate(players):
        w = f"players[{p}]"
        exact_keys(pl, w, _PLAYER_KEYS)
        s[pf(p, L.P_MONEY)] = int_field(pl["money"], f"{w}.money", 0, MAX_MONEY)
        s[pf(p, L.P_VP)] = int_field(pl["vp"], f"{w}.vp", 0, MAX_AMOUNT)
        _counts(s, pl["goods"], f"{w}.goods", pf(p, L.P_GOODS), GOOD_NAMES)
        _counts(s, pl["island"], f"{w}.island", pf(p, L.P_ISLAND), TILE_NAMES)
        _counts(s, pl["worked"], f"{w}.worked", pf(p, L.P_WORKED), WORKABLE_NAMES)
        if not isinstance(pl["buildings"], dict):
            raise fail(f"{w}.buildings", "must be a dict {building: colonists}")
        for name, workers in pl["buildings"].items():
            b = name_field(name, f"{w}.buildings", BUILDING_NAMES)
            s[pf(p, L.P_BUILDINGS + b)] = int_field(
                workers, f"{w}.buildings.{name}", 0, int(B_CIRCLES[b])
            )
        s[pf(p, L.P_SAN_JUAN)] = int_field(pl["san_juan"], f"{w}.san_juan", 0, _INT16_MAX)
        s[pf(p, L.P_SHIPPED)] = bool_field(pl["shipped"], f"{w}.shipped")
        s[pf(p, L.P_WHARF_USED)] = bool_field(pl["wharf_used"], f"{w}.wharf_used")
        s[pf(p, L.P_SMALL_WHARF_USED)] = bool_field(pl["small_wharf_used"], f"{w}.small_wharf_used")
        s[pf(p, L.P_KEPT)] = _goods_list(pl["kept"], f"{w}.kept")
        exact_keys(pl["singles"], f"{w}.singles", set(GOOD_NAMES))
        s[pf(p, L.P_SINGLES)] = sum(
            int_field(
                pl["singles"][g], f"{w}.singles.{g}", 0, WINDROSE_BARRELS + STOREHOUSE_BARRELS
            )
            << (SINGLE_BITS * i)
            for i, g in enumerate(GOOD_NAMES)
        )
    pending = d["pending"]
    if not isinstance(pending, list) or len(pending) > STACK_DEPTH:
        raise fail("pending", f"must be a list of at most {STACK_DEPTH} decisions")
    for i, item in enumerate(pending):
        w = f"pending[{i}]"
        if not isinstance(item, dict) or not isinstance(item.get("kind"), str):
            raise fail(w, f"must be a dict with a kind among {sorted(ENTRY_OF_NAME)}")
        if item["kind"] not in ENTRY_OF_NAME:
            raise fail(w, f"must be a dict with a kind among {sorted(ENTRY_OF_NAME)}")
        spec = ENTRY_OF_NAME[item["kind"]]
        keys = {"kind", "player"} | ({spec.arg.name} if spec.arg.codec != CODEC_NONE else set())
        exact_keys(item, w, keys)
        player = int_field(item["player"], f"{w}.player", 0, n - 1)
        arg = 0
        if spec.arg.codec == CODEC_TILE:
            arg = name_field(item[spec.arg.name], f"{w}.{spec.arg.name}", TILE_NAMES)
        elif spec.arg.codec == CODEC_BUILDING:
            arg = name_field(item[spec.arg.name], f"{w}.{spec.arg.name}", BUILDING_NAMES)
        elif spec.arg.codec == CODEC_GOODS:
            arg = _goods_list(item[spec.arg.name], f"{w}.{spec.arg.name}")
        elif spec.arg.codec != CODEC_NONE:
            arg = int_field(
                item[spec.arg.name], f"{w}.{spec.arg.name}", spec.arg.low, spec.arg.high
            )
        if not spec.arg.low <= arg <= spec.arg.high:
            raise fail(f"{w}.{spec.arg.name}", f"allowed: {spec.arg.low} to {spec.arg.high}")
        push(s, spec.kind, player, arg)
    consistent(int(check_invariants(s)), INVARIANT_MESSAGES)
    _check_clock(s, n)
    _check_stack(s, n)
    _check_cursors(s, n)
    _check_run(s)
    return s


_ROLE_PHASES = {
    Phase.SETTLER,
    Phase.MAYOR,
    Phase.BUILDER,
    Phase.CRAFTSMAN,
    Phase.TRADER,
    Phase.CAPTAIN,
    Phase.CAPTAIN_STORAGE,
}


def _check_clock(s: np.ndarray, n: int) -> None:
    """The round and the pending decisions agree with each other (rules 3.1-3.3)."""
    phase = int(s[L.PHASE])
    picker = int(s[L.PICKER])
    picked = int((s[L.ROLE_STATE : L.ROLE_STATE + len(ROLE_NAMES)] == 1).sum())
    if picked != int(s[L.PICKS]) or picked > ROLES_PER_ROUND[n]:
        raise fail("picks", f"{int(s[L.PICKS])} picks but {picked} role cards picked")
    _check_rounds_ahead(s)
    in_role = phase in _ROLE_PHASES
    if in_role != (picker >= 0):
        raise fail("picker", f"{picker} does not fit phase {PHASE_NAMES[phase]!r}")
    if in_role and picked == 0:
        raise fail("phase", f"{PHASE_NAMES[phase]!r} while no role card is picked")
    limit = {
        Phase.ROLE_SELECTION: 0,
        Phase.SETTLER: n + 1,
        Phase.MAYOR: n + 2,
        Phase.BUILDER: n,
        Phase.CRAFTSMAN: 2,
        Phase.TRADER: n,
        Phase.CAPTAIN: n - 1,
        Phase.CAPTAIN_STORAGE: n,
        Phase.DRAFT: DRAFT_PICKS,
        Phase.GAME_OVER: 0,
    }[Phase(phase)]
    if int(s[L.STEP]) > limit:
        raise fail("step", f"{int(s[L.STEP])} is past the end of phase {PHASE_NAMES[phase]!r}")
    drafted = sum(
        1 for b in range(NUM_BUILDINGS) if B_KIND[b] != 0 and int(s[L.BUILDING_SUPPLY + b]) > 0
    )
    if phase == Phase.DRAFT and drafted != int(s[L.STEP]):
        raise fail("step", f"{int(s[L.STEP])} draft picks but {drafted} kinds on the board")
    if phase == Phase.DRAFT and not int(s[L.OPT_EXPANSION]):
        raise fail("phase", "the draft is part of the expansion only")
    size = int(s[L.STACK_SIZE])
    storing = {int(entry(s, i)[1]) for i in range(size) if int(entry(s, i)[0]) in _STORAGE}
    for p in range(n):
        singles = int(s[pf(p, L.P_SINGLES)])
        for g, name in enumerate(GOOD_NAMES):
            if (singles >> (SINGLE_BITS * g)) & SINGLE_MASK > int(s[pf(p, L.P_GOODS + g)]):
                raise fail(f"players[{p}].singles.{name}", "more than the barrels he holds")
        if p not in storing and (singles or int(s[pf(p, L.P_KEPT)])):
            raise fail(f"players[{p}]", "kept and singles must be empty outside his storage")
    kinds = {int(entry(s, i)[0]) for i in range(size)}
    _check_black_market(s, DecisionKind.BLACK_MARKET in kinds)
    if size == 0:
        return
    if phase == Phase.GAME_OVER:
        raise fail("pending", "a finished game asks nothing")
    allowed = _KINDS_OF_PHASE[phase]
    if not kinds <= allowed:
        names = sorted(SCHEMA[k].name for k in kinds - allowed)
        raise fail("pending", f"decisions {names} are not asked in phase {PHASE_NAMES[phase]!r}")
    # Judged as if the decision cap were not reached: a game cut off by the cap keeps the
    # question it was asked (rules 6.9), and that question has an answer.
    probe = s.copy()
    probe[L.DECISIONS] = 0
    out = np.empty(NUM_ACTIONS, np.int64)
    if legal_actions(probe, out) == 0:
        raise fail("pending", "the pending decision has no legal answer")


def rounds_ahead(s: np.ndarray) -> int:
    """The most rounds the decisions left before the cap can still start: each round takes
    ``MIN_ROUND_DECISIONS`` (its picks), and the picks of this round count towards it."""
    left = int(s[L.MAX_DECISIONS]) - int(s[L.DECISIONS])
    done = min(int(s[L.PICKS]), MIN_ROUND_DECISIONS)
    return (left + done) // MIN_ROUND_DECISIONS


def _check_rounds_ahead(s: np.ndarray) -> None:
    """The round, and the doubloons a card gains each round nobody picks it (rules 3.2),
    leave room for the rounds still ahead: play from here never takes them past
    ``MAX_ROUND``, so every position it reaches is accepted again (and observed within its
    bounds). Every position of a game from its start fits: a round takes its picks."""
    ahead = rounds_ahead(s)
    r = int(s[L.ROUND])
    if r + ahead > MAX_ROUND:
        raise fail(
            "round",
            f"{r} is out of range at this point; allowed: 1 to {MAX_ROUND - ahead} (the "
            f"{int(s[L.MAX_DECISIONS]) - int(s[L.DECISIONS])} decisions left before the cap "
            f"can start {ahead} more rounds, and a game reaches round {MAX_ROUND} at most)",
        )
    for i, name in enumerate(ROLE_NAMES):
        money = int(s[L.ROLE_MONEY + i])
        if money + ahead > MAX_ROUND - 1:
            raise fail(
                f"roles.{name}.doubloons",
                f"{money} is out of range at this point; allowed: 0 to "
                f"{MAX_ROUND - 1 - ahead} (a doubloon each of the {ahead} rounds still ahead)",
            )


def _check_black_market(s: np.ndarray, asked: bool) -> None:
    """The black market's bookkeeping exists only while its return is asked (rules 7.2): the
    build that falls short sets ``short`` and clears ``returned`` as it asks
    (``roles.builder.apply_build``), and the last return clears both as it builds. A return
    pending anywhere else would stay until the game's end, whose state dict is then refused."""
    short = int(s[L.BM_SHORT])
    returned = int(s[L.BM_RETURNED])
    if not asked and (short or returned):
        raise fail(
            "black_market",
            f"short {short}, returned {_bits_of(returned)} while no black_market decision is "
            "pending; allowed: short 0 and returned [] (a return is asked only during a build)",
        )
    if asked and short == 0:
        raise fail(
            "black_market.short", f"0 while a return is asked; allowed: 1 to {len(BM_KINDS)}"
        )


def _bits_of(returned: int) -> list[str]:
    return [k for i, k in enumerate(BM_KINDS) if returned & (1 << i)]


def _check_run(s: np.ndarray) -> None:
    """The engine's own run to its next decision, on a copy (the decision cap lifted, so a
    truncated game is checked as well): it must end without error in a consistent state."""
    probe = s.copy()
    probe[L.DECISIONS] = 0
    out = np.empty(NUM_ACTIONS, np.int64)
    try:
        advance(probe, out)
    except RuntimeError as e:
        raise InvalidStateError(f"state dict cannot be played on: {e}") from None
    code = int(check_invariants(probe))
    if code:
        raise InvalidStateError(
            "state dict is inconsistent: after running to the next decision, "
            f"{INVARIANT_MESSAGES[Invariant(code)]}"
        )


_GUEST_PHASES = {
    Phase.SETTLER,
    Phase.BUILDER,
    Phase.CRAFTSMAN,
    Phase.TRADER,
    Phase.CAPTAIN,
    Phase.CAPTAIN_STORAGE,
}


def _check_stack(s: np.ndarray, n: int) -> None:
    """The pending decisions are exactly a stack the engine builds at this point of the
    phase (the drivers and ``apply_*`` of ``roles/``): the seat whose turn it is, the
    follow-up decisions of his answer, buildings he owns and occupies, and the arguments
    the engine would have given (rules 4, 7)."""
    es = [tuple(int(x) for x in entry(s, i)[:3]) for i in range(int(s[L.STACK_SIZE]))]
    kinds = [e[0] for e in es]
    names = [SCHEMA[k].name for k in kinds]
    phase = int(s[L.PHASE])
    picker = int(s[L.PICKER])
    step = int(s[L.STEP])
    guest = int(s[L.GUEST_STEP])
    gov = int(s[L.GOVERNOR])
    picks = int(s[L.PICKS])

    def want(ok: bool, what: str) -> None:
        if not ok:
            raise fail("pending", f"{names} does not fit the position: {what}")

    if int(s[L.DOUBLED]) and (picker < 0 or not int(s[L.LIBRARY_USED])):
        raise fail("doubled", "a library doubles only in a role's phase, and counts as used")
    if int(s[L.PRODUCED]) and not (phase == Phase.CRAFTSMAN and step >= 1):
        raise fail("produced", "goods are produced only in the craftsman phase")
    if phase not in _GUEST_PHASES and guest:
        raise fail("guest_step", f"guest turns are asked only in the phases {_GUEST_NAMES}")
    if guest > n and phase != Phase.CAPTAIN_STORAGE:
        raise fail("guest_step", f"at most {n} (num_players) outside the storage")
    for kind, p, _ in es:
        if kind == _D.GUEST_HOUSE:
            want(wants_guest_turn(s, p), f"player {p} has no guest colonist to move")
    if not es:
        if phase == Phase.CAPTAIN_STORAGE and guest > n:
            want(step < n, "the guest turn before a player's storage")
        return
    p0 = es[0][1]
    if phase == Phase.ROLE_SELECTION:
        want(len(es) == 1 and p0 == (gov + picks) % n, f"the pick of seat {(gov + picks) % n}")
        return
    if phase == Phase.DRAFT:
        want(len(es) == 1 and p0 == (gov + step) % n, f"the draft pick of seat {(gov + step) % n}")
        return
    if phase == Phase.MAYOR:
        want(len(es) == 1, "one decision at a time")
        if kinds[0] == _D.MAYOR_PRIVILEGE:
            want(step == 1 and p0 == picker, "the mayor's privilege, first")
            want(int(s[L.COLONIST_SUPPLY]) > 0, "the privilege is offered from the supply")
        else:
            want(2 < step <= n + 2, "placements follow the privilege and the ship")
            want(p0 == seat_after(s, picker, step - 3), "the placement of the seat in turn")
            sj = int(s[pf(p0, L.P_SAN_JUAN)])
            want(0 < sj < empty_circles(s, p0), "colonists to place and a real choice")
        return
    # A lone guest-house turn at the start of the phase, each owner in turn from the picker.
    if kinds == [_D.GUEST_HOUSE] and guest <= n:
        want(guest >= 1 and p0 == seat_after(s, picker, guest - 1), "the guest turns' seat")
        return
    if phase == Phase.CAPTAIN_STORAGE and guest > n:
        want(kinds == [_D.GUEST_HOUSE] and step < n, "the guest turn before storage")
        want(p0 == seat_after(s, picker, step), "the guest turn of the seat storing next")
        return
    if phase == Phase.CAPTAIN:
        t = int(seat_after(s, picker, (step - 1) % n))
    else:
        want(step >= 1, "a turn of the phase")
        turn = step <= n and phase != Phase.CRAFTSMAN  # the craftsman's privilege: his
        t = int(seat_after(s, picker, step - 1)) if turn else picker
    want(all(e[1] == t for e in es), f"every decision is seat {t}'s, whose turn it is")
    if phase == Phase.SETTLER:
        _check_settler(s, es, kinds, t, step == n + 1, want)
    elif phase == Phase.BUILDER:
        want(len(es) == 1 and step <= n, "one decision of the seat in turn")
        _check_builder(s, es[0], t, want)
    elif phase == Phase.CRAFTSMAN:
        want(kinds == [_D.CRAFT_PRIVILEGE] and step in (1, 2), "the craftsman's extra barrel")
        want(es[0][2] == int(s[L.PRODUCED]), "the goods he produced")
        want(step == 1 or int(s[L.DOUBLED]), "a second barrel only with the library")
    elif phase == Phase.TRADER:
        want(kinds == [_D.SELL] and step <= n, "the sale of the seat in turn")
    elif phase == Phase.CAPTAIN:
        if kinds[0] == _D.LOAD:
            want(kinds in ([_D.LOAD], [_D.LOAD, _D.GUEST_HOUSE]), "a loading turn")
            want(bool(_can_ship(s, t)) and int(s[L.IDLE]) < n, "a player who can load")
        else:
            want(kinds == [_D.SMALL_WHARF], "a loading turn, or the small wharf's next barrel")
            want(occupied(s, t, BuildingId.SMALL_WHARF), "an occupied small wharf")
            want(int(s[pf(t, L.P_SMALL_WHARF_USED)]) == 1, "the small wharf in use")
    elif phase == Phase.CAPTAIN_STORAGE:
        want(step <= n, "the storage of the seat in turn")
        _check_storage(s, es, kinds, t, want)


def _check_cursors(s: np.ndarray, n: int) -> None:
    """The phase's cursors agree with each other and with the pending decision as the drivers
    keep them (rules 4.6, 7.4).

    - A phase's guest-house turns come at its start, before its first turn (``step`` 0, no
      privilege used yet); once its turns have begun, every seat has had his (``guest_step``
      ``num_players``; in the storage ``num_players + 1`` while a guest turn before a
      player's storage is asked).
    - ``idle`` counts the captain phase's turns without a loading: 0 outside it,
      ``num_players`` in the storage (which starts after a whole round of them); while nobody
      has shipped yet, exactly the turns taken so far (each of them passed without one).
    - The shipping marks exist only in the captain phase and its storage; the wharf is used
      only with a shipment, the small wharf too once its barrels are no longer asked; a
      small-wharf shipment starts with a loading (``idle`` 0)."""
    phase, step, guest, idle = (int(s[f]) for f in (L.PHASE, L.STEP, L.GUEST_STEP, L.IDLE))
    es = [tuple(int(x) for x in entry(s, i)[:3]) for i in range(int(s[L.STACK_SIZE]))]
    kinds = [e[0] for e in es]
    captain = phase == Phase.CAPTAIN
    wharfing = {e[1] for e in es if e[0] == _D.SMALL_WHARF}
    shippers = [p for p in range(n) if int(s[pf(p, L.P_SHIPPED)])]
    if phase in _GUEST_PHASES:
        opening = kinds == [_D.GUEST_HOUSE] and guest <= n
        before = opening or guest < n
        if opening and step:
            raise fail(
                "step",
                f"{step} during the guest-house turns at the start of the phase; allowed: 0 "
                "(they come before its first turn, rules 7.4)",
            )
        if guest < n and (step > 0 or (es and not opening)):
            raise fail(
                "guest_step",
                f"{guest} once the phase's turns have begun; allowed: {n} (each seat's "
                "guest-house turn at the start of the phase comes first, rules 7.4)",
            )
        if before and int(s[L.DOUBLED]):
            raise fail("doubled", "a privilege is used in the phase's turns, after its guest turns")
        if before and captain and shippers:
            raise fail(
                f"players[{shippers[0]}].shipped",
                "true before the captain phase's first turn; allowed: false",
            )
    if phase == Phase.CAPTAIN_STORAGE and idle != n:
        raise fail(
            "idle",
            f"{idle} in the storage; allowed: {n} (it starts after a whole round of turns "
            "without a loading, rules 4.6)",
        )
    if not captain and phase != Phase.CAPTAIN_STORAGE and idle:
        raise fail("idle", f"{idle} outside the captain phase; allowed: 0")
    for p in range(n):
        marks = [
            (key, int(s[pf(p, f)]))
            for key, f in (
                ("shipped", L.P_SHIPPED),
                ("wharf_used", L.P_WHARF_USED),
                ("small_wharf_used", L.P_SMALL_WHARF_USED),
            )
        ]
        for key, v in marks:
            if v and not captain and phase != Phase.CAPTAIN_STORAGE:
                raise fail(f"players[{p}].{key}", "true outside the captain phase; allowed: false")
        shipped, wharf, small = (v for _, v in marks)
        if wharf and not shipped:
            raise fail(f"players[{p}].wharf_used", "true but he has not shipped (rules 2.4)")
        if small and not shipped and p not in wharfing:
            raise fail(
                f"players[{p}].small_wharf_used",
                "true but he has not shipped and is not shipping through it (rules 7.2)",
            )
    if wharfing and idle:
        raise fail("idle", f"{idle} during a small-wharf shipment; allowed: 0 (a loading)")
    if captain and not shippers and not wharfing:
        if kinds[:1] == [_D.LOAD]:
            turns = (step - 1) % n
        elif es or guest < n:
            turns = 0
        else:
            turns = n if idle == n and step == 0 else step
        if idle != turns:
            raise fail(
                "idle",
                f"{idle} but nobody has shipped yet this phase, so each of its {turns} turns "
                f"so far passed without a loading; allowed: {turns} (rules 4.6)",
            )


def _check_settler(s, es, kinds, t, extra, want) -> None:
    if extra:
        want(kinds == [_D.SETTLE] and es[0][2] == 1, "the library's second tile")
        return
    if kinds[0] == _D.HOSPICE:
        want(len(es) == 1 and occupied(s, t, BuildingId.HOSPICE), "an occupied hospice")
        want(int(s[pf(t, L.P_ISLAND + es[0][2])]) > 0, "a colonist for a tile he placed")
        return
    want(kinds[0] == _D.SETTLE and es[0][2] == 0 and len(es) <= 2, "the seat's tile")
    if len(es) == 2 and kinds[1] == _D.HACIENDA:
        want(occupied(s, t, BuildingId.HACIENDA), "an occupied hacienda")
        want(bool(_plantation_left(s)), "a plantation left to draw")
    elif len(es) == 2:
        want(kinds[1] == _D.FOREST, "the hacienda's draw, or its tile as a forest")
        want(occupied(s, t, BuildingId.FOREST_HOUSE), "an occupied forest house")
        want(int(s[pf(t, L.P_ISLAND + es[1][2])]) > 0, "a drawn plantation on his island")


def _check_builder(s, e, t, want) -> None:
    kind, _, b = e
    if kind == _D.BUILD:
        return
    want(owns(s, t, b) == (kind == _D.UNIVERSITY), "the building just built, or being bought")
    if kind == _D.UNIVERSITY:
        want(occupied(s, t, BuildingId.UNIVERSITY), "an occupied university")
        want(b != BuildingId.UNIVERSITY and int(s[pf(t, L.P_BUILDINGS + b)]) == 0, "a new tile")
        return
    want(kind == _D.BLACK_MARKET, "a build, then the black market or the university")
    want(occupied(s, t, BuildingId.BLACK_MARKET), "an occupied black market")
    want(int(s[L.BUILDING_SUPPLY + b]) > 0, "a building in the supply")
    short = int(s[L.BM_SHORT])
    returned = int(s[L.BM_RETURNED])
    done = bin(returned).count("1")
    want(short + done == int(price(s, t, b)) - int(s[pf(t, L.P_MONEY)]), "the shortfall")
    left = 0
    if not returned & 4 and int(s[pf(t, L.P_VP)]) > 0:
        left += 1
    if not returned & 2 and any(int(s[pf(t, L.P_GOODS + g)]) for g in range(len(GOOD_NAMES))):
        left += 1
    if not returned & 1:  # a colonist, not the black market's own nor a quarry's (7.5)
        spare = int(s[pf(t, L.P_SAN_JUAN)])
        spare += sum(int(s[pf(t, L.P_WORKED + x)]) for x in range(Tile.QUARRY))
        spare += sum(
            max(int(s[pf(t, L.P_BUILDINGS + x)]), 0)
            for x in range(NUM_BUILDINGS)
            if x != BuildingId.BLACK_MARKET
        )
        left += spare > 0
    want(short <= left, "enough left to return for the shortfall")


def _check_storage(s, es, kinds, t, want) -> None:
    cap = WINDROSE_BARRELS + (STOREHOUSE_BARRELS if occupied(s, t, BuildingId.STOREHOUSE) else 0)
    singles = int(s[pf(t, L.P_SINGLES)])
    kept = sum((singles >> (SINGLE_BITS * g)) & SINGLE_MASK for g in range(len(GOOD_NAMES)))
    whole = bin(int(s[pf(t, L.P_KEPT)])).count("1")
    want(kinds in ([_D.STORE_BARREL], [_D.STORE_BARREL, _D.STORE_KIND]), "his storage")
    want(es[0][2] + kept == cap, f"{cap} single barrels in all (windrose, storehouse)")
    if len(es) == 2:
        want(kept == 0, "whole kinds are kept before single barrels")
        want(es[1][2] + whole == int(warehouse_kinds(s, t)), "his warehouses' kinds")


_D = DecisionKind
_GUEST_NAMES = sorted(PHASE_NAMES[p] for p in _GUEST_PHASES)
_STORAGE = {int(_D.STORE_KIND), int(_D.STORE_BARREL)}
_KINDS_OF_PHASE = {
    Phase.ROLE_SELECTION: {_D.ROLE},
    Phase.SETTLER: {_D.HACIENDA, _D.FOREST, _D.SETTLE, _D.HOSPICE, _D.GUEST_HOUSE},
    Phase.MAYOR: {_D.MAYOR_PRIVILEGE, _D.PLACE_COLONIST},
    Phase.BUILDER: {_D.BUILD, _D.BLACK_MARKET, _D.UNIVERSITY, _D.GUEST_HOUSE},
    Phase.CRAFTSMAN: {_D.CRAFT_PRIVILEGE, _D.GUEST_HOUSE},
    Phase.TRADER: {_D.SELL, _D.GUEST_HOUSE},
    Phase.CAPTAIN: {_D.LOAD, _D.SMALL_WHARF, _D.GUEST_HOUSE},
    Phase.CAPTAIN_STORAGE: {_D.STORE_KIND, _D.STORE_BARREL, _D.GUEST_HOUSE},
    Phase.DRAFT: {_D.DRAFT},
    Phase.GAME_OVER: set(),
}
