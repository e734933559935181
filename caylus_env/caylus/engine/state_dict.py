"""A readable, documented dict of the whole game, and its exact inverse.

``state_to_dict(s)`` gives every field of the state array under a readable name
(players as seat numbers, ``None`` for nobody, buildings and resources by name);
``dict_to_state(d)`` rebuilds the array bit for bit. Tests and curricula use it to
set up any position; a dict with an empty ``pending`` list is a position between
decisions, and the engine moves on from it with ``advance``.

Keys (players are seat numbers, ``None`` = nobody)::

    format            "caylus-state/1"
    options           num_players, simplified_favors, lawyer_prestige, jeweller, house_cap
    turn, phase, cursor   turn number, phase name, progress inside the phase
    provost, bailiff  road spaces
    scored            {"dungeon": bool, "walls": bool, "towers": bool}
    turn_order, passing_order   lists of players
    special_workers   {"gate", "trading_post", "merchants_guild", "joust_field"}: player
    stables           3 spots; inn {"left", "right"}; castle_workers: in spot order
    stock             {building name: tiles left}
    road              28 entries {"space", "building", "owner", "worker", "lawyer_pending"}
    castle            {section: houses per player}
    players           per seat: money, cubes{kind: n}, prestige, workers_out,
                      favor_columns{row: column}, passed, batches, rows_used[rows], houses
    pending           the decision stack, bottom first: {"kind", "player", ...arguments}, each
                      kind's arguments named as ``decisions.SCHEMA`` declares them
"""

from __future__ import annotations

from typing import Any

import numpy as np

from caylus_env.caylus.engine import layout as L
from caylus_env.caylus.engine.board import NUM_SINGLE_SPECIALS, ROAD_LEN
from caylus_env.caylus.engine.buildings import BUILDING_NAMES, NUM_BUILDINGS
from caylus_env.caylus.engine.constants import (
    FAVOR_ROW_NAMES,
    HOUSE_CAP_VARIANT,
    MAX_PLAYERS,
    NUM_CASTLE_SPOTS,
    NUM_STABLES_SPOTS,
    PHASE_NAMES,
    RESOURCE_NAMES,
    SECTION_NAMES,
    SPECIAL_NAMES,
    BuildSource,
)
from caylus_env.caylus.engine.decisions import (
    CODEC_BUILDING,
    CODEC_MASK,
    CODEC_ROW,
    CODEC_SECTION,
    CODEC_SOURCE,
    ENTRY_OF_KIND,
    ENTRY_OF_NAME,
    entry_arg,
    entry_kind,
    entry_player,
    push,
)
from caylus_env.caylus.engine.validate import STATE_FORMAT, check_state, check_state_dict
from caylus_env.core.state_checks import dict_header, read_state_dict

FORMAT = STATE_FORMAT
_SOURCE_NAMES = tuple(s.name.lower() for s in BuildSource)


def _who(v: int) -> int | None:
    return None if v < 0 else int(v)


def _seat(v: Any) -> int:
    return -1 if v is None else int(v)


def _encode_arg(codec: str, v: Any) -> Any:
    if codec == CODEC_BUILDING:
        return BUILDING_NAMES[v]
    if codec == CODEC_SOURCE:
        return _SOURCE_NAMES[v]
    if codec == CODEC_ROW:
        return FAVOR_ROW_NAMES[v]
    if codec == CODEC_SECTION:
        return SECTION_NAMES[v]
    if codec == CODEC_MASK:
        return [RESOURCE_NAMES[r] for r in range(len(RESOURCE_NAMES)) if (v >> r) & 1]
    return int(v)


def _decode_arg(codec: str, v: Any) -> int:
    if codec == CODEC_BUILDING:
        return BUILDING_NAMES.index(v)
    if codec == CODEC_SOURCE:
        return _SOURCE_NAMES.index(v)
    if codec == CODEC_ROW:
        return FAVOR_ROW_NAMES.index(v)
    if codec == CODEC_SECTION:
        return SECTION_NAMES.index(v)
    if codec == CODEC_MASK:
        return sum(1 << RESOURCE_NAMES.index(r) for r in v)
    return int(v)


def state_to_dict(s: np.ndarray) -> dict[str, Any]:
    """The whole game as a readable dict (see the module docstring for the keys)."""
    n = int(s[L.NUM_PLAYERS])
    pl = [L.PLAYERS + p * L.PLAYER_STRIDE for p in range(n)]
    pending = []
    for i in range(int(s[L.STACK_SIZE])):
        spec = ENTRY_OF_KIND[int(entry_kind(s, i))]
        entry: dict[str, Any] = {"kind": spec.name, "player": _who(int(entry_player(s, i)))}
        for j, arg in enumerate(spec.args):
            entry[arg.name] = _encode_arg(arg.codec, int(entry_arg(s, i, j)))
        pending.append(entry)
    return {
        **dict_header(
            FORMAT,
            {
                "num_players": n,
                "simplified_favors": bool(s[L.OPT_SIMPLIFIED_FAVORS]),
                "lawyer_prestige": int(s[L.OPT_LAWYER_PRESTIGE]),
                "jeweller": bool(s[L.OPT_JEWELLER]),
                "house_cap": bool(s[L.OPT_HOUSE_CAP]),
            },
        ),
        "turn": int(s[L.TURN]),
        "phase": PHASE_NAMES[int(s[L.PHASE])],
        "cursor": int(s[L.CURSOR]),
        "provost": int(s[L.PROVOST]),
        "bailiff": int(s[L.BAILIFF]),
        "scored": {name: bool(s[L.SCORED + i]) for i, name in enumerate(SECTION_NAMES)},
        "turn_order": [int(s[L.TURN_ORDER + i]) for i in range(n)],
        "passing_order": [int(s[L.PASS_ORDER + i]) for i in range(int(s[L.NUM_PASSED]))],
        "special_workers": {
            SPECIAL_NAMES[i]: _who(int(s[L.SPECIAL_WORKER + i])) for i in range(NUM_SINGLE_SPECIALS)
        },
        "stables": [_who(int(s[L.STABLES + i])) for i in range(NUM_STABLES_SPOTS)],
        "inn": {"left": _who(int(s[L.INN_LEFT])), "right": _who(int(s[L.INN_RIGHT]))},
        "castle_workers": [
            int(s[L.CASTLE_SPOTS + i])
            for i in range(NUM_CASTLE_SPOTS)
            if s[L.CASTLE_SPOTS + i] >= 0
        ],
        "stock": {BUILDING_NAMES[b]: int(s[L.STOCK + b]) for b in range(NUM_BUILDINGS)},
        "road": [
            {
                "space": k,
                "building": None if s[L.ROAD_TILE + k] < 0 else BUILDING_NAMES[s[L.ROAD_TILE + k]],
                "owner": _who(int(s[L.ROAD_OWNER + k])),
                "worker": _who(int(s[L.ROAD_WORKER + k])),
                "lawyer_pending": _who(int(s[L.ROAD_LAWYER + k])),
            }
            for k in range(1, ROAD_LEN + 1)
        ],
        "castle": {
            name: [int(s[L.CASTLE_HOUSES + sec * MAX_PLAYERS + p]) for p in range(n)]
            for sec, name in enumerate(SECTION_NAMES)
        },
        "players": [
            {
                "money": int(s[o + L.P_MONEY]),
                "cubes": {r: int(s[o + L.P_CUBES + i]) for i, r in enumerate(RESOURCE_NAMES)},
                "prestige": int(s[o + L.P_PRESTIGE]),
                "workers_out": int(s[o + L.P_WORKERS_OUT]),
                "favor_columns": {
                    row: int(s[o + L.P_FAVOR + i]) for i, row in enumerate(FAVOR_ROW_NAMES)
                },
                "passed": bool(s[o + L.P_PASSED]),
                "batches": int(s[o + L.P_BATCHES]),
                "rows_used": [
                    row for i, row in enumerate(FAVOR_ROW_NAMES) if (s[o + L.P_ROWS_USED] >> i) & 1
                ],
                "houses": int(s[o + L.P_HOUSES]),
            }
            for o in pl
        ],
        "pending": pending,
    }


def dict_to_state(d: dict[str, Any]) -> np.ndarray:
    """Rebuild the state array from ``state_to_dict`` output (or a hand-written dict).

    The dict comes from outside, so it passes the whole validation layer first
    (``caylus_env.caylus.engine.validate``: keys, exact types, domains, then the state's
    consistency, the invariants and a bounded run of the engine on a copy).

    Raises:
        InvalidStateError: (a ``ValueError``) naming the first field that is wrong and what
            is allowed. Nothing is returned for a bad dict, so no half-built game escapes.
    """
    return read_state_dict(_read, d)


def _read(d: Any) -> np.ndarray:
    """The checked array of ``d``: the dict's keys, types and domains, then the state's own."""
    check_state_dict(d)
    s = _decode(d)
    check_state(s)
    return s


def _decode(d: dict[str, Any]) -> np.ndarray:
    """The array of a dict that passed ``check_state_dict`` (every key, type and domain)."""
    o = d["options"]
    n = o["num_players"]
    s = np.zeros(L.STATE_SIZE, L.STATE_DTYPE)
    s[L.NUM_PLAYERS] = n
    s[L.OPT_SIMPLIFIED_FAVORS] = o["simplified_favors"]
    s[L.OPT_LAWYER_PRESTIGE] = o["lawyer_prestige"]
    s[L.OPT_JEWELLER] = o["jeweller"]
    s[L.OPT_HOUSE_CAP] = HOUSE_CAP_VARIANT if o["house_cap"] else 0
    s[L.TURN] = d["turn"]
    s[L.PHASE] = PHASE_NAMES.index(d["phase"])
    s[L.CURSOR] = d["cursor"]
    s[L.PROVOST] = d["provost"]
    s[L.BAILIFF] = d["bailiff"]
    for i, name in enumerate(SECTION_NAMES):
        s[L.SCORED + i] = d["scored"][name]
    order = d["turn_order"]
    passing = d["passing_order"]
    for i in range(MAX_PLAYERS):
        s[L.TURN_ORDER + i] = order[i] if i < n else -1
        s[L.PASS_ORDER + i] = passing[i] if i < len(passing) else -1
    s[L.NUM_PASSED] = len(passing)
    for i, name in enumerate(SPECIAL_NAMES[:NUM_SINGLE_SPECIALS]):
        s[L.SPECIAL_WORKER + i] = _seat(d["special_workers"][name])
    for i, v in enumerate(d["stables"]):
        s[L.STABLES + i] = _seat(v)
    s[L.INN_LEFT] = _seat(d["inn"]["left"])
    s[L.INN_RIGHT] = _seat(d["inn"]["right"])
    workers = d["castle_workers"]
    for i in range(NUM_CASTLE_SPOTS):
        s[L.CASTLE_SPOTS + i] = workers[i] if i < len(workers) else -1
    for name, count in d["stock"].items():
        s[L.STOCK + BUILDING_NAMES.index(name)] = count
    s[L.ROAD_TILE] = s[L.ROAD_OWNER] = s[L.ROAD_WORKER] = s[L.ROAD_LAWYER] = -1
    for k, r in enumerate(d["road"], start=1):
        b = r["building"]
        s[L.ROAD_TILE + k] = -1 if b is None else BUILDING_NAMES.index(b)
        s[L.ROAD_OWNER + k] = _seat(r["owner"])
        s[L.ROAD_WORKER + k] = _seat(r["worker"])
        s[L.ROAD_LAWYER + k] = _seat(r["lawyer_pending"])
    for sec, name in enumerate(SECTION_NAMES):
        for p, h in enumerate(d["castle"][name]):
            s[L.CASTLE_HOUSES + sec * MAX_PLAYERS + p] = h
    for p, pd in enumerate(d["players"]):
        o = L.PLAYERS + p * L.PLAYER_STRIDE
        s[o + L.P_MONEY] = pd["money"]
        for i, r in enumerate(RESOURCE_NAMES):
            s[o + L.P_CUBES + i] = pd["cubes"][r]
        s[o + L.P_PRESTIGE] = pd["prestige"]
        s[o + L.P_WORKERS_OUT] = pd["workers_out"]
        for i, row in enumerate(FAVOR_ROW_NAMES):
            s[o + L.P_FAVOR + i] = pd["favor_columns"][row]
        s[o + L.P_PASSED] = pd["passed"]
        s[o + L.P_BATCHES] = pd["batches"]
        s[o + L.P_ROWS_USED] = sum(1 << FAVOR_ROW_NAMES.index(r) for r in pd["rows_used"])
        s[o + L.P_HOUSES] = pd["houses"]
    for e in d["pending"]:
        spec = ENTRY_OF_NAME[e["kind"]]
        args = [0, 0]
        for j, arg in enumerate(spec.args):
            args[j] = _decode_arg(arg.codec, e[arg.name])
        push(s, int(spec.kind), _seat(e["player"]), args[0], args[1])
    return s
