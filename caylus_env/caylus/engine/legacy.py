"""Caylus records written before the shared record (``caylus_env.core.record``), read into it.

- ``caylus-record/2``: the typed Caylus record, the shared schema's parent: the same keys, the
  final section naming the score ``prestige`` (rules 8.21) and the setup always present;
- ``caylus-record/1``: the flat shape written before typed records existed (``Game.record()``
  dicts and the tournament's flat extra keys), whose redundant copies (``num_players``,
  ``forfeit``, ``num_moves``, the final prestige) must agree with each other.

Both are read, never written: `read_legacy_record` turns one into a dict of the shared schema,
which the shared reader then checks field by field.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from caylus_env.core.record import RECORD_FORMAT, check_keys, check_list, fail

GAME_NAME = "caylus"
LEGACY_FORMAT = "caylus-record/1"
TYPED_FORMAT = "caylus-record/2"
FORMATS = (LEGACY_FORMAT, TYPED_FORMAT)

_TYPED_KEYS = (
    "format", "game", "engine", "options", "seed", "start_state", "setup", "actions",
    "action_names", "final", "match", "timings", "env",
)  # fmt: skip
_LEGACY_GAME = ("format", "engine", "options", "seed", "setup", "actions", "action_names")
_LEGACY_OPTIONAL = ("start_state", "final", "env")
_LEGACY_MATCH = (
    "game_id",
    "block",
    "num_players",
    "seats",
    "agent_seeds",
    "prestige",
    "ranks",
    "forfeit",
    "forfeit_reason",
    "end",
    "num_moves",
    "move_time_s",
    "wall_time_s",
)


def _setup(data: Any) -> dict[str, Any]:
    """The setup section (rules 1.3): neutral tiles on road spaces 1-6 and the turn order."""
    check_keys("setup", data, ("neutral_tiles", "turn_order"))
    return {"neutral_tiles": data["neutral_tiles"], "turn_order": data["turn_order"]}


def read_legacy_record(data: Mapping[str, Any]) -> dict[str, Any]:
    """A ``caylus-record/1`` or ``/2`` dict as a dict of the shared schema.

    Raises:
        ValueError: naming the field that is missing, unknown or inconsistent.
    """
    if data.get("format") == TYPED_FORMAT:
        return _from_typed(data)
    return _from_flat(data)


def _from_typed(data: Mapping[str, Any]) -> dict[str, Any]:
    check_keys("", data, _TYPED_KEYS)
    if data["game"] != GAME_NAME:
        raise fail("game", data["game"], repr(GAME_NAME))
    final = data["final"]
    if final is not None:
        check_keys("final", final, ("prestige", "ranks", "end"))
        final = {"scores": final["prestige"], "ranks": final["ranks"], "end": final["end"]}
    return {**data, "format": RECORD_FORMAT, "setup": _setup(data["setup"]), "final": final}


def _from_flat(data: Mapping[str, Any]) -> dict[str, Any]:
    is_match = any(k in data for k in _LEGACY_MATCH)
    check_keys("", data, _LEGACY_GAME + (_LEGACY_MATCH if is_match else ()), _LEGACY_OPTIONAL)
    final = data.get("final")
    if final is not None:
        check_keys("final", final, ("prestige", "ranks"))
    match = timings = None
    if is_match:
        reasons = check_list("forfeit_reason", data["forfeit_reason"], lambda w, v: v)
        match = {
            "game_id": data["game_id"],
            "block": data["block"],
            "agents": data["seats"],
            "agent_seeds": data["agent_seeds"],
            "forfeits": list(reasons),
        }
        timings = {"move_time_s": data["move_time_s"], "wall_time_s": data["wall_time_s"]}
        forfeit = check_list("forfeit", data["forfeit"], lambda w, v: v)
        if list(forfeit) != [r is not None for r in reasons]:
            raise fail("forfeit", data["forfeit"], "a seat's forfeit_reason is not null")
        if final is not None and final["prestige"] != data["prestige"]:
            raise fail("prestige", data["prestige"], f"final.prestige {final['prestige']}")
        actions = data["actions"]
        if not isinstance(actions, list) or data["num_moves"] != len(actions):
            raise fail("num_moves", data["num_moves"], "len(actions)")
        options = data["options"]
        if isinstance(options, Mapping) and data["num_players"] != options.get("num_players"):
            raise fail("num_players", data["num_players"], "options.num_players")
        result = {"scores": data["prestige"], "ranks": data["ranks"], "end": data["end"]}
    else:
        result = (
            None
            if final is None
            else {"scores": final["prestige"], "ranks": final["ranks"], "end": "terminated"}
        )
    return {
        "format": RECORD_FORMAT,
        "game": GAME_NAME,
        "engine": data["engine"],
        "options": data["options"],
        "seed": data["seed"],
        "start_state": data.get("start_state"),
        "setup": _setup(data["setup"]),
        "actions": data["actions"],
        "action_names": data["action_names"],
        "final": result,
        "match": match,
        "timings": timings,
        "env": data.get("env"),
    }


__all__ = ["FORMATS", "LEGACY_FORMAT", "TYPED_FORMAT", "read_legacy_record"]
