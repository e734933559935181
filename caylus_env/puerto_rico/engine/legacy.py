"""Puerto Rico records written before the shared record (``caylus_env.core.record``), read
into it: ``puerto-rico-record/1``, whose final section already holds ``end``, ``scores`` and
``ranks`` (rules 5.2, 5.3) and whose tournament sections ``match`` and ``timings`` are written
only when present. Read, never written: `read_legacy_record` turns one into a dict of the
shared schema, which the shared reader then checks field by field."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from caylus_env.core.record import RECORD_FORMAT, check_keys, fail

GAME_NAME = "puerto_rico"
FORMAT_V1 = "puerto-rico-record/1"
FORMATS = (FORMAT_V1,)
_KEYS = (
    "format", "game", "engine", "options", "seed", "start_state", "actions", "action_names",
    "final",
)  # fmt: skip


def read_legacy_record(data: Mapping[str, Any]) -> dict[str, Any]:
    """A ``puerto-rico-record/1`` dict as a dict of the shared schema.

    Raises:
        ValueError: naming the field that is missing, unknown or of another game.
    """
    check_keys("", data, _KEYS, ("match", "timings"))
    if data["game"] != GAME_NAME:
        raise fail("game", data["game"], repr(GAME_NAME))
    final = data["final"]
    if final is not None:
        check_keys("final", final, ("end", "scores", "ranks"))
        final = {"scores": final["scores"], "ranks": final["ranks"], "end": final["end"]}
    return {
        **{k: data[k] for k in _KEYS},
        "format": RECORD_FORMAT,
        "setup": None,
        "final": final,
        "match": data.get("match"),
        "timings": data.get("timings"),
        "env": None,
    }


__all__ = ["FORMATS", "FORMAT_V1", "read_legacy_record"]
