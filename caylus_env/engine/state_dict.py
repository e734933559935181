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

from caylus_env.engine import layout as L
from caylus_env.engine.board import ROAD_LEN
from caylus_env.engine.buildings import BUILDING_NAMES, NUM_BUILDINGS
from caylus_env.engine.constants import (
    FAVOR_ROW_NAMES,
    MAX_PLAYERS,
    NUM_CASTLE_SPOTS,
    NUM_STABLES_SPOTS,
    PHASE_NAMES,
    RESOURCE_NAMES,
    SECTION_NAMES,
    SPECIAL_NAMES,
    BuildSource,
)
from caylus_env.engine.decisions import (
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

FORMAT = "caylus-state/1"
_SOURCE_NAMES = tuple(s.name.lower() for s in BuildSource)


def _who(v: int) -> int | None:
    return None if v < 0 else int(v)


def _seat(v: Any, what: str) -> int:
    if v is None:
        return -1
    if isinstance(v, bool) or not isinstance(v, int) or not 0 <= v < MAX_PLAYERS:
        raise ValueError(f"{what} must be a seat number 0-{MAX_PLAYERS - 1} or None, got {v!r}")
    return v


def _lookup(names: tuple[str, ...], v: Any, what: str) -> int:
    try:
        return names.index(v)
    except ValueError:
        raise ValueError(f"{what}={v!r} is not allowed; allowed: {list(names)}") from None


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


def _decode_arg(codec: str, v: Any, what: str) -> int:
    if codec == CODEC_BUILDING:
        return _lookup(BUILDING_NAMES, v, what)
    if codec == CODEC_SOURCE:
        return _lookup(_SOURCE_NAMES, v, what)
    if codec == CODEC_ROW:
        return _lookup(FAVOR_ROW_NAMES, v, what)
    if codec == CODEC_SECTION:
        return _lookup(SECTION_NAMES, v, what)
    if codec == CODEC_MASK:
        return sum(1 << _lookup(RESOURCE_NAMES, r, what) for r in v)
    if isinstance(v, bool) or not isinstance(v, int):
        raise ValueError(f"{what} must be an int, got {v!r}")
    return v


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
        "format": FORMAT,
        "options": {
            "num_players": n,
            "simplified_favors": bool(s[L.OPT_SIMPLIFIED_FAVORS]),
            "lawyer_prestige": int(s[L.OPT_LAWYER_PRESTIGE]),
            "jeweller": bool(s[L.OPT_JEWELLER]),
            "house_cap": bool(s[L.OPT_HOUSE_CAP]),
        },
        "turn": int(s[L.TURN]),
        "phase": PHASE_NAMES[int(s[L.PHASE])],
        "cursor": int(s[L.CURSOR]),
        "provost": int(s[L.PROVOST]),
        "bailiff": int(s[L.BAILIFF]),
        "scored": {name: bool(s[L.SCORED + i]) for i, name in enumerate(SECTION_NAMES)},
        "turn_order": [int(s[L.TURN_ORDER + i]) for i in range(n)],
        "passing_order": [int(s[L.PASS_ORDER + i]) for i in range(int(s[L.NUM_PASSED]))],
        "special_workers": {SPECIAL_NAMES[i]: _who(int(s[L.SPECIAL_WORKER + i])) for i in range(4)},
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

    Raises:
        ValueError: naming the first malformed key and what is allowed. Nothing is
            returned for a malformed dict, so no half-built game can escape.
    """
    if not isinstance(d, dict):
        raise ValueError(f"a state dict must be a dict, got {type(d).__name__}")
    if d.get("format") != FORMAT:
        raise ValueError(f"state dict format must be {FORMAT!r}, got {d.get('format')!r}")
    try:
        return _dict_to_state(d)
    except KeyError as e:
        raise ValueError(f"state dict is missing the key {e.args[0]!r}") from None
    except (TypeError, AttributeError, IndexError) as e:
        raise ValueError(f"state dict is malformed: {e}") from None


def _dict_to_state(d: dict[str, Any]) -> np.ndarray:
    from caylus_env.engine.config import GameConfig

    cfg = GameConfig(**d["options"])
    n = cfg.num_players
    s = np.zeros(L.STATE_SIZE, L.STATE_DTYPE)
    s[L.NUM_PLAYERS] = n
    s[L.OPT_SIMPLIFIED_FAVORS] = cfg.simplified_favors
    s[L.OPT_LAWYER_PRESTIGE] = cfg.lawyer_prestige
    s[L.OPT_JEWELLER] = cfg.jeweller
    s[L.OPT_HOUSE_CAP] = cfg.house_limit
    s[L.TURN] = int(d["turn"])
    s[L.PHASE] = _lookup(PHASE_NAMES, d["phase"], "phase")
    s[L.CURSOR] = int(d["cursor"])
    for key, at in (("provost", L.PROVOST), ("bailiff", L.BAILIFF)):
        v = d[key]
        if not isinstance(v, int) or not 1 <= v <= ROAD_LEN:
            raise ValueError(f"{key} must be a road space 1-{ROAD_LEN}, got {v!r}")
        s[at] = v
    for i, name in enumerate(SECTION_NAMES):
        s[L.SCORED + i] = bool(d["scored"][name])
    order = d["turn_order"]
    if sorted(order) != list(range(n)):
        raise ValueError(f"turn_order must be a permutation of 0..{n - 1}, got {order!r}")
    passing = d["passing_order"]
    if len(set(passing)) != len(passing) or not set(passing) <= set(range(n)):
        raise ValueError(f"passing_order must list distinct seats 0..{n - 1}, got {passing!r}")
    for i in range(MAX_PLAYERS):
        s[L.TURN_ORDER + i] = order[i] if i < n else -1
        s[L.PASS_ORDER + i] = passing[i] if i < len(passing) else -1
    s[L.NUM_PASSED] = len(passing)
    for i, name in enumerate(SPECIAL_NAMES[:4]):
        s[L.SPECIAL_WORKER + i] = _seat(d["special_workers"][name], f"special_workers.{name}")
    stables = d["stables"]
    if len(stables) != NUM_STABLES_SPOTS:
        raise ValueError(f"stables must list {NUM_STABLES_SPOTS} spots, got {stables!r}")
    for i, v in enumerate(stables):
        s[L.STABLES + i] = _seat(v, "stables")
    s[L.INN_LEFT] = _seat(d["inn"]["left"], "inn.left")
    s[L.INN_RIGHT] = _seat(d["inn"]["right"], "inn.right")
    castle_workers = d["castle_workers"]
    if len(castle_workers) > NUM_CASTLE_SPOTS:
        raise ValueError(f"at most {NUM_CASTLE_SPOTS} castle workers, got {castle_workers!r}")
    for i in range(NUM_CASTLE_SPOTS):
        s[L.CASTLE_SPOTS + i] = (
            _seat(castle_workers[i], "castle_workers") if i < len(castle_workers) else -1
        )
    for name, count in d["stock"].items():
        s[L.STOCK + _lookup(BUILDING_NAMES, name, "stock building")] = int(count)
    road = d["road"]
    if [r["space"] for r in road] != list(range(1, ROAD_LEN + 1)):
        raise ValueError(f"road must list spaces 1..{ROAD_LEN} in order")
    s[L.ROAD_TILE] = s[L.ROAD_OWNER] = s[L.ROAD_WORKER] = s[L.ROAD_LAWYER] = -1
    for r in road:
        k = r["space"]
        b = r["building"]
        s[L.ROAD_TILE + k] = -1 if b is None else _lookup(BUILDING_NAMES, b, f"road {k} building")
        s[L.ROAD_OWNER + k] = _seat(r["owner"], f"road {k} owner")
        s[L.ROAD_WORKER + k] = _seat(r["worker"], f"road {k} worker")
        s[L.ROAD_LAWYER + k] = _seat(r["lawyer_pending"], f"road {k} lawyer_pending")
    for sec, name in enumerate(SECTION_NAMES):
        houses = d["castle"][name]
        if len(houses) != n:
            raise ValueError(f"castle.{name} must list {n} players, got {houses!r}")
        for p, h in enumerate(houses):
            s[L.CASTLE_HOUSES + sec * MAX_PLAYERS + p] = int(h)
    players = d["players"]
    if len(players) != n:
        raise ValueError(f"players must list {n} players, got {len(players)}")
    for p, pd in enumerate(players):
        o = L.PLAYERS + p * L.PLAYER_STRIDE
        s[o + L.P_MONEY] = int(pd["money"])
        for i, r in enumerate(RESOURCE_NAMES):
            s[o + L.P_CUBES + i] = int(pd["cubes"][r])
        s[o + L.P_PRESTIGE] = int(pd["prestige"])
        s[o + L.P_WORKERS_OUT] = int(pd["workers_out"])
        for i, row in enumerate(FAVOR_ROW_NAMES):
            s[o + L.P_FAVOR + i] = int(pd["favor_columns"][row])
        s[o + L.P_PASSED] = bool(pd["passed"])
        s[o + L.P_BATCHES] = int(pd["batches"])
        s[o + L.P_ROWS_USED] = sum(
            1 << _lookup(FAVOR_ROW_NAMES, r, "rows_used") for r in pd["rows_used"]
        )
        s[o + L.P_HOUSES] = int(pd["houses"])
        for key in ("money", "prestige", "workers_out", "houses", "batches"):
            if pd[key] < 0:
                raise ValueError(f"players[{p}].{key} must be >= 0, got {pd[key]!r}")
        if any(v < 0 for v in pd["cubes"].values()):
            raise ValueError(f"players[{p}].cubes must be >= 0, got {pd['cubes']!r}")
    pending = d["pending"]
    if len(pending) > L.STACK_DEPTH:
        raise ValueError(f"pending holds at most {L.STACK_DEPTH} entries, got {len(pending)}")
    for i, e in enumerate(pending):
        name = e["kind"]
        if name not in ENTRY_OF_NAME:
            raise ValueError(
                f"pending[{i}].kind={name!r} is not allowed; allowed: {list(ENTRY_OF_NAME)}"
            )
        spec = ENTRY_OF_NAME[name]
        args = [0, 0]
        for j, arg in enumerate(spec.args):
            args[j] = _decode_arg(arg.codec, e[arg.name], f"pending[{i}].{arg.name}")
        push(s, int(spec.kind), _seat(e["player"], f"pending[{i}].player"), args[0], args[1])
    return s
