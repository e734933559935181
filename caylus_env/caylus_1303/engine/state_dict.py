"""A readable dict of the whole Caylus 1303 state, and its exact inverse.

``state_to_dict(s)`` names every field of the state array (``layout.FIELDS``: seats as
numbers, ``None`` for nobody, tiles, resources, characters, spaces, phases and decision kinds
by name); ``dict_to_state(d)`` rebuilds the array bit for bit. Tests and the position builder
(``caylus_env.caylus_1303.positions``) set up positions with it. A dict is untrusted input
(files from users): ``dict_to_state`` checks every key, type, range and name, then the
invariants (``invariants.check_invariants``), then the phase pointers and the pending stack
against the drivers of ``phases/*`` (``_check_clock``, ``_check_stack``: exactly the stacks
the engine itself builds, so no kernel can index outside its arrays), then the room each
count without a rules ceiling (prestige, resources, bundles, decisions) leaves for the rest
of the game in its int16 entry (``_check_room``, ``headroom``: every position legal play
reaches from an accepted one is accepted again, and none wraps), and raises
``InvalidStateError`` naming the first thing wrong before anything is built.

Keys::

    format             "caylus-1303-state/1"
    options            num_players, hide_opponent_pp
    decisions          decisions taken so far (automatic ones excluded)
    round, phase       1-9 (rules 4); draft, planning, activation, delivery, stewardship,
                       game_over
    first_player       the seat holding the first-player tile (rules 4.1)
    turn               draft and Planning: the seat asked next; other phases 0
    stage, cursor      the step within the phase and the position within it (phases/*)
    worker_index       Activation: which worker of the cursor's building resolves (D26)
    asked              Activation: the effect of that worker was asked
    passes             players who passed this round (rules 4.1 C)
    provost            the Provost's position p: R1..Rp are activated (rules 3.1)
    spaces             {space: {"tile", "side", "owner", "mark", "workers"}} for the printed
                       spaces fairground, lawyer, carpenter, toll, the Road R1..R23 and the
                       site buildings S1..S3; tile and side (setup, construction, residence)
                       by name, None on an empty space; owner and mark a seat or None;
                       workers the seats on it in placing order (a leading None: the first
                       worker already left, D26)
    bridge             seats in passing order (rules 4.1 C)
    site               seats in Construction Site slot order (D17)
    wood_supply, stone_supply, monument_supply   tile names still in each supply
    characters         {character: "board" | "out" | seat} (rules 3.2 step 9, 5.6)
    characters_used    characters whose once-per-round power was used (D24)
    players            per seat: hand, camp, resources{food..gold}, pp, houses, passed,
                       bundles
    pending            the decision stack, bottom first: {"kind", "player", <argument>}
                       (``decisions.SCHEMA``; an effect's space by its name; a monument's
                       "placing", the monument whose residence is asked, by its name, and
                       left out while he chooses which monument, D4)
"""

from __future__ import annotations

from typing import Any

import numpy as np

from caylus_env.caylus_1303.engine import layout as L
from caylus_env.caylus_1303.engine.config import GameConfig
from caylus_env.caylus_1303.engine.constants import (
    CHARACTER_NAMES,
    FAVOR_SITES,
    HOUSES_FOR_BUILDINGS,
    MAX_PLAYERS,
    MAX_WORKERS_ON_BUILDING,
    NUM_PRINTED,
    NUM_ROUNDS,
    OUT_OF_PLAY,
    PHASE_NAMES,
    PROVOST_MAX,
    RESOURCE_NAMES,
    ROAD0,
    ROAD_SPACES,
    SITE0,
    SPACE_NAMES,
    WORKERS_PER_COLOUR,
    Character,
    DecisionKind,
    Phase,
)
from caylus_env.caylus_1303.engine.decisions import (
    CODEC_MONUMENT,
    CODEC_SPACE,
    ENTRY_OF_NAME,
    SCHEMA,
    entry,
    push,
)
from caylus_env.caylus_1303.engine.headroom import STATE_MAX, room
from caylus_env.caylus_1303.engine.invariants import (
    INVARIANT_MESSAGES,
    check_invariants,
)
from caylus_env.caylus_1303.engine.phases import activation, delivery, planning, stewardship
from caylus_env.caylus_1303.engine.state import pf, residences
from caylus_env.caylus_1303.engine.tiles import (
    KIND_NAMES,
    MONUMENT_KINDS,
    NUM_KINDS,
    SIDE_NAMES,
    STONE_KINDS,
    T_EFFECT,
    WOOD_KINDS,
    EffectType,
)
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

FORMAT = "caylus-1303-state/1"
ON_BOARD_NAME = "board"
OUT_NAME = "out"
MAX_STACK = 3  # the deepest stack the engine builds: a monument, a Favor's character, a payment
WOOD_NAMES = tuple(KIND_NAMES[k] for k in WOOD_KINDS)
STONE_NAMES = tuple(KIND_NAMES[k] for k in STONE_KINDS)
MONUMENT_NAMES = tuple(KIND_NAMES[k] for k in MONUMENT_KINDS)
SPACE_KEYS = ("tile", "side", "owner", "mark", "workers")


def _seat(v: int) -> int | None:
    return None if v < 0 else int(v)


def _supply(s: np.ndarray, offset: int, names: tuple[str, ...]) -> list[str]:
    return [name for i, name in enumerate(names) if s[offset + i] == 1]


def _holder(h: int) -> str | int:
    if h == OUT_OF_PLAY:
        return OUT_NAME
    if h < 0:
        return ON_BOARD_NAME
    return int(h)


def _space(s: np.ndarray, sp: int) -> dict[str, Any]:
    kind = int(s[L.SPACE_KIND + sp])
    workers = [
        _seat(int(s[L.SPACE_WORKER + sp * MAX_WORKERS_ON_BUILDING + i]))
        for i in range(MAX_WORKERS_ON_BUILDING)
    ]
    while workers and workers[-1] is None:
        workers.pop()
    return {
        "tile": None if kind < 0 else KIND_NAMES[kind],
        "side": None if kind < 0 else SIDE_NAMES[int(s[L.SPACE_SIDE + sp])],
        "owner": _seat(int(s[L.SPACE_OWNER + sp])),
        "mark": _seat(int(s[L.SPACE_MARK + sp])),
        "workers": workers,
    }


def state_to_dict(s: np.ndarray) -> dict[str, Any]:
    """The whole state as a readable dict (see the module doc)."""
    n = int(s[L.NUM_PLAYERS])
    players = []
    for p in range(n):
        players.append(
            {
                "hand": int(s[pf(p, L.P_HAND)]),
                "camp": int(s[pf(p, L.P_CAMP)]),
                "resources": {
                    r: int(s[pf(p, L.P_RESOURCES + i)]) for i, r in enumerate(RESOURCE_NAMES)
                },
                "pp": int(s[pf(p, L.P_PP)]),
                "houses": int(s[pf(p, L.P_HOUSES)]),
                "passed": bool(s[pf(p, L.P_PASSED)]),
                "bundles": int(s[pf(p, L.P_BUNDLES)]),
            }
        )
    pending = []
    for i in range(int(s[L.STACK_SIZE])):
        kind, player, arg, _ = entry(s, i)
        spec = SCHEMA[kind]
        item: dict[str, Any] = {"kind": spec.name, "player": int(player)}
        if spec.arg.codec == CODEC_SPACE:
            item[spec.arg.name] = SPACE_NAMES[arg]
        elif spec.arg.codec == CODEC_MONUMENT:
            if arg > 0:
                item[spec.arg.name] = MONUMENT_NAMES[arg - 1]
        elif spec.arg.codec != CODEC_NONE:
            item[spec.arg.name] = int(arg)
        pending.append(item)
    passes = int(s[L.PASSES])
    return {
        **dict_header(FORMAT, GameConfig.from_state(s).to_dict()),
        "decisions": int(s[L.DECISIONS]),
        "round": int(s[L.ROUND]),
        "phase": PHASE_NAMES[int(s[L.PHASE])],
        "first_player": int(s[L.FIRST_PLAYER]),
        "turn": int(s[L.TURN]),
        "stage": int(s[L.STAGE]),
        "cursor": int(s[L.CURSOR]),
        "worker_index": int(s[L.WORKER_INDEX]),
        "asked": bool(s[L.ASKED]),
        "passes": passes,
        "provost": int(s[L.PROVOST]),
        "spaces": {name: _space(s, sp) for sp, name in enumerate(SPACE_NAMES)},
        "bridge": [int(s[L.BRIDGE + i]) for i in range(MAX_PLAYERS) if s[L.BRIDGE + i] >= 0],
        "site": [int(s[L.SITE + i]) for i in range(MAX_PLAYERS) if s[L.SITE + i] >= 0],
        "wood_supply": _supply(s, L.WOOD_SUPPLY, WOOD_NAMES),
        "stone_supply": _supply(s, L.STONE_SUPPLY, STONE_NAMES),
        "monument_supply": _supply(s, L.MONUMENT_SUPPLY, MONUMENT_NAMES),
        "characters": {
            name: _holder(int(s[L.CHARACTER_HOLDER + c])) for c, name in enumerate(CHARACTER_NAMES)
        },
        "characters_used": [
            name for c, name in enumerate(CHARACTER_NAMES) if s[L.CHARACTER_USED + c] == 1
        ],
        "players": players,
        "pending": pending,
    }


# ---------------------------------------------------------------------------------------------
# The reader: every value is checked before it is written (the checks every game shares:
# caylus_env.core.state_checks).
# ---------------------------------------------------------------------------------------------
def _seat_or_none(v: Any, where: str, n: int) -> int:
    return -1 if v is None else int_field(v, where, 0, n - 1)


def _list(v: Any, where: str, most: int) -> list:
    if not isinstance(v, list) or len(v) > most:
        raise fail(where, f"must be a list of at most {most} entries, got {show(v)}")
    return v


def _names(s: np.ndarray, v: Any, where: str, offset: int, names: tuple[str, ...]) -> None:
    """A list of distinct names: a 1 for each in the flag field at ``offset``."""
    _list(v, where, len(names))
    for i, x in enumerate(v):
        k = name_field(x, f"{where}[{i}]", names)
        if s[offset + k]:
            raise fail(where, f"{x!r} is listed twice")
        s[offset + k] = 1


def _seats(v: Any, where: str, n: int) -> list[int]:
    """A list of distinct seats."""
    _list(v, where, n)
    seats = [int_field(x, f"{where}[{i}]", 0, n - 1) for i, x in enumerate(v)]
    if len(set(seats)) != len(seats):
        raise fail(where, f"a seat is listed twice in {seats}")
    return seats


_TOP_KEYS = {
    "format", "options", "decisions", "round", "phase", "first_player", "turn", "stage",
    "cursor", "worker_index", "asked", "passes", "provost", "spaces", "bridge", "site",
    "wood_supply", "stone_supply", "monument_supply", "characters", "characters_used",
    "players", "pending",
}  # fmt: skip
_PLAYER_KEYS = {"hand", "camp", "resources", "pp", "houses", "passed", "bundles"}


def dict_to_state(d: Any) -> np.ndarray:
    """The state array of a dict written by ``state_to_dict`` (or by hand).

    Checked in order: every key and type, every value in its domain (an int16 entry; the 15
    workers of a colour, D15; the 9 houses, D14), the invariants (``check_invariants``), then
    the phase pointers (``_check_clock``: the ranges the drivers of ``phases/*`` use), the
    pending decisions against the position (``_check_stack``: exactly the stacks the engine
    builds at that point of the phase) and the room left for the rest of the game
    (``_check_room``).

    Raises:
        InvalidStateError: naming the first key or value that is wrong and what is allowed,
            or the first broken invariant; also for a value nested too deeply to read.
    """
    return read_state_dict(_decode, d)


def _decode(d: Any) -> np.ndarray:
    opening(d, FORMAT, _TOP_KEYS)
    options = exact_keys(d["options"], "options", {"num_players", "hide_opponent_pp"})
    config = options_field(GameConfig.from_dict, options)
    n = config.num_players
    s = np.zeros(L.STATE_SIZE, L.STATE_DTYPE)
    s[L.NUM_PLAYERS] = n
    s[L.OPT_HIDE_PP] = int(config.hide_opponent_pp)
    s[L.DECISIONS] = int_field(d["decisions"], "decisions", 0, STATE_MAX)
    s[L.ROUND] = int_field(d["round"], "round", 1, NUM_ROUNDS)
    s[L.PHASE] = name_field(d["phase"], "phase", PHASE_NAMES)
    s[L.FIRST_PLAYER] = int_field(d["first_player"], "first_player", 0, n - 1)
    s[L.TURN] = int_field(d["turn"], "turn", 0, n - 1)
    s[L.STAGE] = int_field(d["stage"], "stage", 0, activation.STAGE_ROAD)
    s[L.CURSOR] = int_field(d["cursor"], "cursor", 0, ROAD_SPACES + 1)
    s[L.WORKER_INDEX] = int_field(d["worker_index"], "worker_index", 0, MAX_WORKERS_ON_BUILDING)
    s[L.ASKED] = bool_field(d["asked"], "asked")
    s[L.PASSES] = int_field(d["passes"], "passes", 0, n)
    s[L.PROVOST] = int_field(d["provost"], "provost", 0, PROVOST_MAX)
    _decode_spaces(s, d["spaces"], n)
    bridge = _seats(d["bridge"], "bridge", n)
    site = _seats(d["site"], "site", n)
    for i in range(MAX_PLAYERS):
        s[L.BRIDGE + i] = bridge[i] if i < len(bridge) else -1
        s[L.SITE + i] = site[i] if i < len(site) else -1
    if len(bridge) != s[L.PASSES]:
        raise fail("bridge", f"{len(bridge)} pass houses but passes is {int(s[L.PASSES])}")
    _names(s, d["wood_supply"], "wood_supply", L.WOOD_SUPPLY, WOOD_NAMES)
    _names(s, d["stone_supply"], "stone_supply", L.STONE_SUPPLY, STONE_NAMES)
    _names(s, d["monument_supply"], "monument_supply", L.MONUMENT_SUPPLY, MONUMENT_NAMES)
    chars = exact_keys(d["characters"], "characters", set(CHARACTER_NAMES))
    for c, name in enumerate(CHARACTER_NAMES):
        h = chars[name]
        if h == OUT_NAME and isinstance(h, str):
            s[L.CHARACTER_HOLDER + c] = OUT_OF_PLAY
        elif h == ON_BOARD_NAME and isinstance(h, str):
            s[L.CHARACTER_HOLDER + c] = -1
        elif isinstance(h, int) and not isinstance(h, bool) and 0 <= h < n:
            s[L.CHARACTER_HOLDER + c] = h
        else:
            raise fail(
                f"characters.{name}",
                f"{show(h)} is not {ON_BOARD_NAME!r}, {OUT_NAME!r} or a seat 0 to {n - 1}",
            )
    _names(s, d["characters_used"], "characters_used", L.CHARACTER_USED, CHARACTER_NAMES)
    players = d["players"]
    if not isinstance(players, list) or len(players) != n:
        raise fail("players", f"must be a list of {n} players (options.num_players)")
    for p, pl in enumerate(players):
        w = f"players[{p}]"
        exact_keys(pl, w, _PLAYER_KEYS)
        s[pf(p, L.P_HAND)] = int_field(pl["hand"], f"{w}.hand", 0, WORKERS_PER_COLOUR)
        s[pf(p, L.P_CAMP)] = int_field(pl["camp"], f"{w}.camp", 0, WORKERS_PER_COLOUR)
        exact_keys(pl["resources"], f"{w}.resources", set(RESOURCE_NAMES))
        for i, r in enumerate(RESOURCE_NAMES):
            s[pf(p, L.P_RESOURCES + i)] = int_field(
                pl["resources"][r], f"{w}.resources.{r}", 0, STATE_MAX
            )
        s[pf(p, L.P_PP)] = int_field(pl["pp"], f"{w}.pp", 0, STATE_MAX)
        s[pf(p, L.P_HOUSES)] = int_field(pl["houses"], f"{w}.houses", 0, HOUSES_FOR_BUILDINGS)
        s[pf(p, L.P_PASSED)] = bool_field(pl["passed"], f"{w}.passed")
        s[pf(p, L.P_BUNDLES)] = int_field(pl["bundles"], f"{w}.bundles", 0, STATE_MAX)
    _decode_pending(s, d["pending"], n)
    consistent(int(check_invariants(s)), INVARIANT_MESSAGES)
    _check_clock(s, n)
    _check_stack(s, n)
    _check_draft(s, n)
    _check_room(s, n)
    return s


def _check_room(s: np.ndarray, n: int) -> None:
    """Every count without a rules ceiling leaves room for the rest of the game in its int16
    entry (``headroom``): legal play from here never wraps it, and every position it reaches
    is accepted here again. Resources come first: the bundles they make count in the room of
    prestige and of decisions (rules 4.3, D30)."""
    r = room(s)
    counts = []
    for p in range(n):
        w = f"players[{p}]"
        for i, name in enumerate(RESOURCE_NAMES):
            value = int(s[pf(p, L.P_RESOURCES + i)])
            counts.append((f"{w}.resources.{name}", value, r.resources[p], ""))
        mine = ": the bundles his resources can make"
        counts.append((f"{w}.bundles", int(s[pf(p, L.P_BUNDLES)]), r.bundles[p], mine))
        mine = f", {r.bundle_pp[p]} of it by the bundles his resources can make"
        counts.append((f"{w}.pp", int(s[pf(p, L.P_PP)]), r.pp[p], mine))
    made = f", {sum(r.bundles)} of it bundles of the players' resources"
    counts.append(("decisions", int(s[L.DECISIONS]), r.decisions, made))
    for where, value, more, why in counts:
        if value + more > STATE_MAX:
            raise fail(
                where,
                f"{value} is out of range at this point; allowed: 0 to {max(STATE_MAX - more, 0)} "
                f"(legal play from here can still add {more}{why}; the state holds {STATE_MAX})",
            )


def _decode_spaces(s: np.ndarray, spaces: Any, n: int) -> None:
    exact_keys(spaces, "spaces", set(SPACE_NAMES))
    for sp, name in enumerate(SPACE_NAMES):
        w = f"spaces.{name}"
        v = exact_keys(spaces[name], w, set(SPACE_KEYS))
        if v["tile"] is None:
            if v["side"] is not None:
                raise fail(f"{w}.side", "must be None on an empty space (tile None)")
            s[L.SPACE_KIND + sp] = -1
        else:
            s[L.SPACE_KIND + sp] = name_field(v["tile"], f"{w}.tile", KIND_NAMES)
            s[L.SPACE_SIDE + sp] = name_field(v["side"], f"{w}.side", SIDE_NAMES)
        s[L.SPACE_OWNER + sp] = _seat_or_none(v["owner"], f"{w}.owner", n)
        s[L.SPACE_MARK + sp] = _seat_or_none(v["mark"], f"{w}.mark", n)
        workers = _list(v["workers"], f"{w}.workers", MAX_WORKERS_ON_BUILDING)
        if workers and workers[-1] is None:
            raise fail(f"{w}.workers", "must not end in None (list the workers on it)")
        for i in range(MAX_WORKERS_ON_BUILDING):
            seat = workers[i] if i < len(workers) else None
            s[L.SPACE_WORKER + sp * MAX_WORKERS_ON_BUILDING + i] = _seat_or_none(
                seat, f"{w}.workers[{i}]", n
            )


def _decode_pending(s: np.ndarray, pending: Any, n: int) -> None:
    _list(pending, "pending", MAX_STACK)
    kinds = sorted(ENTRY_OF_NAME)
    for i, item in enumerate(pending):
        w = f"pending[{i}]"
        if not isinstance(item, dict) or not isinstance(item.get("kind"), str):
            raise fail(w, f"must be a dict with a kind among {kinds}")
        if item["kind"] not in ENTRY_OF_NAME:
            raise fail(f"{w}.kind", f"{show(item['kind'])} is not one of {kinds}")
        spec = ENTRY_OF_NAME[item["kind"]]
        # a monument's "placing" is there only while its residence is asked (D4)
        given = spec.arg.codec != CODEC_MONUMENT or spec.arg.name in item
        keys = {"kind", "player"} | (
            {spec.arg.name} if spec.arg.codec != CODEC_NONE and given else set()
        )
        exact_keys(item, w, keys)
        player = int_field(item["player"], f"{w}.player", 0, n - 1)
        arg = 0
        if spec.arg.codec == CODEC_SPACE:
            arg = name_field(item[spec.arg.name], f"{w}.{spec.arg.name}", SPACE_NAMES)
        elif spec.arg.codec == CODEC_MONUMENT:
            if given:
                arg = 1 + name_field(item[spec.arg.name], f"{w}.{spec.arg.name}", MONUMENT_NAMES)
        elif spec.arg.codec != CODEC_NONE:
            arg = int_field(
                item[spec.arg.name], f"{w}.{spec.arg.name}", spec.arg.low, spec.arg.high
            )
        if not spec.arg.low <= arg <= spec.arg.high:
            raise fail(f"{w}.{spec.arg.name}", f"allowed: {spec.arg.low} to {spec.arg.high}")
        push(s, spec.kind, player, arg)


# ---------------------------------------------------------------------------------------------
# The phase pointers and the pending stack against the drivers of phases/*.
# ---------------------------------------------------------------------------------------------
#: The stage range of each phase (``phases/*``: ``STAGE_*``; the draft and the end have one).
_STAGES = {
    Phase.DRAFT: 0,
    Phase.PLANNING: planning.STAGE_TURNS,
    Phase.ACTIVATION: activation.STAGE_ROAD,
    Phase.DELIVERY: delivery.STAGE_CLEANUP,
    Phase.STEWARDSHIP: stewardship.STAGE_INCOME,
    Phase.GAME_OVER: 0,
}
#: Phases after Planning and before the next round: every player has passed.
_ALL_PASSED = {Phase.ACTIVATION, Phase.DELIVERY, Phase.STEWARDSHIP}


def _worker(s: np.ndarray, space: int, i: int) -> int:
    return int(s[L.SPACE_WORKER + space * MAX_WORKERS_ON_BUILDING + i])


def _cursor_range(s: np.ndarray, n: int, phase: int, stage: int) -> tuple[int, int]:
    """The cursor values the phase's driver reads at this stage (``phases/*``)."""
    if phase == Phase.DRAFT:
        return 0, n  # draft picks asked so far
    if phase == Phase.ACTIVATION:
        if stage == activation.STAGE_PRINTED:
            return 0, NUM_PRINTED
        if stage == activation.STAGE_BRIDGE:
            return 0, int(s[L.PASSES])
        if stage == activation.STAGE_ROAD:
            return 1, ROAD_SPACES + 1
        return 0, 0
    if phase == Phase.DELIVERY:
        return (0, n) if stage == delivery.STAGE_SLOTS else (0, 0)
    if phase == Phase.STEWARDSHIP:
        if stage == stewardship.STAGE_RESIDENCES:
            return 0, 0
        return 0, n
    return 0, 0


def _check_clock(s: np.ndarray, n: int) -> None:
    """The phase pointers are in the ranges the drivers use, and the board fits the phase
    (rules 4.1-4.4: workers stand on the board from Planning to their Activation, site workers
    until Delivery ends, Lawyer marks until Stewardship turns them into residences)."""
    phase = int(s[L.PHASE])
    pname = PHASE_NAMES[phase]
    stage = int(s[L.STAGE])
    if stage > _STAGES[Phase(phase)]:
        raise fail("stage", f"{stage}; allowed in {pname}: 0 to {_STAGES[Phase(phase)]}")
    low, high = _cursor_range(s, n, phase, stage)
    cursor = int(s[L.CURSOR])
    if not low <= cursor <= high:
        raise fail("cursor", f"{cursor}; allowed in {pname} stage {stage}: {low} to {high}")
    if phase not in (Phase.DRAFT, Phase.PLANNING) and int(s[L.TURN]) != 0:
        raise fail("turn", f"{int(s[L.TURN])}; allowed in {pname}: 0 (no turn order)")
    asked = int(s[L.ASKED])
    wi = int(s[L.WORKER_INDEX])
    resolving = phase == Phase.ACTIVATION and stage in (
        activation.STAGE_PRINTED,
        activation.STAGE_ROAD,
    )
    if not resolving and (asked or wi):
        raise fail(
            "worker_index" if wi else "asked",
            "allowed only while Activation resolves a building's workers: 0 / false",
        )
    passes = int(s[L.PASSES])
    if phase == Phase.PLANNING and stage == planning.STAGE_EARLY_RISER:
        # Planning's first step asks the Early Riser, before the first player's turn (D25)
        if passes:
            raise fail("passes", f"{passes}; allowed before the Early Riser's step: 0 (D25)")
        if int(s[L.TURN]) != int(s[L.FIRST_PLAYER]):
            raise fail(
                "turn",
                f"{int(s[L.TURN])}; allowed before the Early Riser's step: the first player, "
                f"{int(s[L.FIRST_PLAYER])} (rules 4.1)",
            )
    if phase in _ALL_PASSED and passes != n:
        raise fail("passes", f"{passes}; in {pname} every player has passed ({n})")
    if phase in (Phase.DRAFT, Phase.GAME_OVER) and passes:
        raise fail("passes", f"{passes}; allowed in {pname}: 0")
    if phase != Phase.DELIVERY and any(s[pf(p, L.P_BUNDLES)] for p in range(n)):
        raise fail("players", "bundles are counted only during Delivery (rules 4.3)")
    marks = phase in (Phase.ACTIVATION, Phase.DELIVERY) or (
        phase == Phase.STEWARDSHIP and stage == stewardship.STAGE_RESIDENCES
    )
    if not marks and (s[L.SPACE_MARK : L.SPACE_MARK + len(SPACE_NAMES)] >= 0).any():
        raise fail("spaces", f"no Lawyer mark stands in {pname} (D21: marks turn in Stewardship)")
    site_workers = phase in (Phase.PLANNING, Phase.ACTIVATION, Phase.DELIVERY)
    if not site_workers and s[L.SITE] >= 0:
        raise fail("site", f"no worker stands on the Construction Site in {pname}")
    # Workers on buildings: only from Planning until their building's Activation (rules 4.2).
    for sp in range(len(SPACE_NAMES)):
        for i in range(MAX_WORKERS_ON_BUILDING):
            if _worker(s, sp, i) < 0:
                continue
            if phase == Phase.PLANNING:
                ok = True
            elif phase != Phase.ACTIVATION:
                ok = False
            elif stage == activation.STAGE_PRINTED:
                ok = sp > cursor or (sp == cursor and i >= wi)
            elif stage == activation.STAGE_ROAD:
                k = cursor
                ok = sp >= NUM_PRINTED and (sp > ROAD0 + k or (sp == ROAD0 + k and i >= wi))
            else:
                ok = sp >= NUM_PRINTED
            if not ok:
                raise fail(
                    f"spaces.{SPACE_NAMES[sp]}.workers",
                    f"no worker stands there in {pname} stage {stage} cursor {cursor} "
                    "(activated workers went to the Camp, rules 4.2)",
                )
    if asked:
        space = cursor if stage == activation.STAGE_PRINTED else ROAD0 + cursor
        if wi >= MAX_WORKERS_ON_BUILDING or _worker(s, space, wi) < 0:
            raise fail("asked", f"no worker {wi} on {SPACE_NAMES[space]} was asked")
        if stage == activation.STAGE_ROAD and cursor > int(s[L.PROVOST]):
            raise fail("asked", "a worker past the Provost is asked nothing (rules 4.2)")


#: Kinds that start a stack (the drivers' questions), and the follow-ups of a Favor or of a
#: payment on top of them (rules 4.2, 4.5, D12, D23).
_D = DecisionKind
_BASE = {
    Phase.DRAFT: {_D.DRAFT},
    Phase.PLANNING: {_D.EARLY_RISER, _D.PLAN},
    Phase.ACTIVATION: {_D.BRIDGE, _D.BAILIFF, _D.EFFECT},
    Phase.DELIVERY: {_D.DELIVER},
    Phase.STEWARDSHIP: {_D.MONUMENT},
    Phase.GAME_OVER: set(),
}
_FOLLOW = {_D.FAVOR, _D.BOARD_CHARACTER, _D.EFFECT, _D.PAY}
#: What may stand directly above each follow-up (bottom to top).
_ABOVE = {
    _D.FAVOR: {_D.PAY},
    _D.BOARD_CHARACTER: {_D.EFFECT, _D.PAY},
    _D.EFFECT: set(),
    _D.PAY: set(),
}
#: Phases where a Favor is gained (the Fairground, a manor, Delivery, the Theatre), and those
#: where its chain may stand with no driver question below it.
_FAVOR_PHASES = {Phase.ACTIVATION, Phase.DELIVERY, Phase.STEWARDSHIP}
_BARE_FOLLOW = {Phase.ACTIVATION, Phase.DELIVERY}


def _check_stack(s: np.ndarray, n: int) -> None:
    """The pending decisions are a stack the engine builds at this point of the phase: the
    driver's question of the seat in turn (``phases/*``), then what a Favor or an "any"
    payment of the same player asks on top of it (rules 4.2, 4.5, D12, D23)."""
    es = [tuple(int(x) for x in entry(s, i)[:3]) for i in range(int(s[L.STACK_SIZE]))]
    phase = int(s[L.PHASE])
    pname = PHASE_NAMES[phase]
    names = [SCHEMA[k].name for k, _, _ in es]
    if not es:
        return

    def want(ok: bool, what: str) -> None:
        if not ok:
            raise fail("pending", f"{names} does not fit the position: {what}")

    allowed = _BASE[Phase(phase)] | (_FOLLOW if phase in _FAVOR_PHASES else set())
    bad = sorted({SCHEMA[k].name for k, _, _ in es if k not in allowed})
    if bad:
        raise fail("pending", f"decisions {bad} are not asked in phase {pname!r}")
    p = es[0][1]
    want(all(e[1] == p for e in es), "every pending decision is one player's")
    for i, (kind, _, arg) in enumerate(es):
        if kind == _D.EFFECT:
            _check_effect(s, es, i, arg, want)
    kind0 = es[0][0]
    base = kind0 in _BASE[Phase(phase)] and not (kind0 == _D.EFFECT and es[0][2] >= SITE0)
    if base:
        want(
            kind0 == _D.MONUMENT or len(es) == 1,
            "the phase's question is asked alone (its answer pops it first)",
        )
        follow = es[1:]
    else:
        want(phase in _BARE_FOLLOW, f"a Favor's decisions stand on a {pname} question")
        follow = es
    for j, (kind, _, arg) in enumerate(follow):
        want(kind in _FOLLOW and not (kind == _D.EFFECT and arg < SITE0), "a Favor's order")
        if j + 1 < len(follow):
            want(follow[j + 1][0] in _ABOVE[_D(kind)], f"what follows {SCHEMA[kind].name}")
    stage = int(s[L.STAGE])
    cursor = int(s[L.CURSOR])
    first = int(s[L.FIRST_PLAYER])
    holder = s[L.CHARACTER_HOLDER : L.CHARACTER_HOLDER + len(CHARACTER_NAMES)]
    if phase == Phase.DRAFT:
        want(cursor >= 1, "a draft pick already asked (cursor at least 1)")
        want(p == (first - cursor) % n, f"the draft pick of seat {(first - cursor) % n}")
    elif phase == Phase.PLANNING:
        want(stage == planning.STAGE_TURNS, "Planning's turns (stage 1)")
        if kind0 == _D.EARLY_RISER:
            want(int(s[L.PASSES]) == 0, "the Early Riser before anybody passed (D25)")
            want(p == int(holder[Character.EARLY_RISER]), "the Early Riser's holder")
            want(int(s[L.TURN]) == first, "the first player's turn comes next (turn)")
        else:
            want(not s[pf(p, L.P_PASSED)], f"a player who has not passed, not seat {p}")
            want(int(s[L.TURN]) == (p + 1) % n, "the seat in turn (turn is the next seat)")
    elif phase == Phase.ACTIVATION:
        asked = int(s[L.ASKED])
        if kind0 == _D.BRIDGE:
            want(stage == activation.STAGE_BRIDGE and cursor >= 1, "the bridge's turn")
            want(p == int(s[L.BRIDGE + cursor - 1]), "the seat on the bridge's cursor place")
        elif kind0 == _D.BAILIFF:
            want(stage == activation.STAGE_ROAD and cursor == 1, "the Bailiff before the Road")
            want(p == int(holder[Character.BAILIFF]), "the Bailiff's holder")
            want(not asked, "no worker asked yet")
        else:
            want(bool(asked), "the worker whose building is activated (asked)")
            space = cursor if stage == activation.STAGE_PRINTED else ROAD0 + cursor
            wi = int(s[L.WORKER_INDEX])
            want(_worker(s, space, wi) == p, f"the worker {wi} on {SPACE_NAMES[space]}")
            if kind0 == _D.EFFECT and es[0][2] < SITE0:
                want(es[0][2] == space, f"the effect of {SPACE_NAMES[space]}")
    elif phase == Phase.DELIVERY:
        if kind0 == _D.DELIVER and es[0][2] == 0:
            want(stage == delivery.STAGE_SLOTS and cursor >= 1, "a site slot's delivery")
            want(p == int(s[L.SITE + cursor - 1]), "the seat on the cursor's site slot")
        elif kind0 == _D.DELIVER:
            want(stage == delivery.STAGE_FAVOR, "the Deliveryman's turn after the slots")
            want(p == int(holder[Character.DELIVERYMAN]), "the Deliveryman's holder")
        else:
            want(stage == delivery.STAGE_CLEANUP, "the Delivery Favor after every delivery")
            want(p == int(delivery.favor_winner(s)), "the player who delivered most (D9)")
    elif phase == Phase.STEWARDSHIP:
        want(stage == stewardship.STAGE_MONUMENTS and cursor >= 1, "the monuments' turns")
        want(p == (first + cursor - 1) % n, f"the seat in turn, {(first + cursor - 1) % n}")
        if kind0 == _D.MONUMENT and es[0][2] > 0:
            want(len(es) == 1, "the residence a monument replaces is asked alone (D4)")
            want(
                int(residences(s, p)) >= 2,
                f"the residence a monument replaces is asked only of a player with two or "
                f"more (D4); seat {p} has {int(residences(s, p))}",
            )


def _check_draft(s: np.ndarray, n: int) -> None:
    """The draft's pointers against the picks made (rules 3.3): it is played once, before the
    first round's Planning; ``turn`` stays on the seat before the first player's, who picks
    first; the cursor counts the picks asked, the one pending included (``_check_stack``
    checks whose it is), and each seat asked before it holds exactly the character it took,
    the others none."""
    if int(s[L.PHASE]) != Phase.DRAFT:
        return
    first = int(s[L.FIRST_PLAYER])
    if int(s[L.ROUND]) != 1:
        raise fail("round", f"{int(s[L.ROUND])}; the draft comes before round 1 only (rules 3.3)")
    if int(s[L.TURN]) != (first - 1) % n:
        raise fail(
            "turn",
            f"{int(s[L.TURN])}; allowed in the draft: {(first - 1) % n}, the seat before the "
            "first player's (the draft runs counter-clockwise from it, rules 3.3)",
        )
    cursor = int(s[L.CURSOR])
    picks = cursor - int(s[L.STACK_SIZE] > 0)  # the pick pending is asked, not yet made
    holder = s[L.CHARACTER_HOLDER : L.CHARACTER_HOLDER + len(CHARACTER_NAMES)]
    for j in range(n):
        seat = (first - 1 - j) % n
        held = int((holder == seat).sum())
        if held != int(j < picks):
            raise fail(
                "cursor",
                f"{cursor} does not match the picks made: it counts {picks} made (the draft "
                f"order from seat {(first - 1) % n}, rules 3.3), and seat {seat} holds {held} "
                "characters",
            )


def _check_effect(s: np.ndarray, es: list, i: int, space: int, want: Any) -> None:
    """An effect's space holds a tile whose side has an effect: a building with the player's
    worker on it (rules 4.2), or a site building a Favor of this round may use (D8, D23)."""
    kind = int(s[L.SPACE_KIND + space])
    if space >= SITE0:
        want(
            space - SITE0 < int(FAVOR_SITES[int(s[L.ROUND])]),
            f"{SPACE_NAMES[space]} is not open to a Favor in round {int(s[L.ROUND])} (D8)",
        )
        side = 0
    else:
        side = int(s[L.SPACE_SIDE + space])
        players = [_worker(s, space, w) for w in range(MAX_WORKERS_ON_BUILDING)]
        want(es[i][1] in players, f"a worker of player {es[i][1]} on {SPACE_NAMES[space]}")
    want(
        0 <= kind < NUM_KINDS
        and side < T_EFFECT.shape[1]
        and T_EFFECT[kind, side] != EffectType.NONE,
        f"{SPACE_NAMES[space]} holds no building with an effect",
    )
