"""Game options: the player count and the truncation cap."""

from __future__ import annotations

from dataclasses import asdict, dataclass, fields
from typing import Any

from caylus_env.puerto_rico.engine.constants import (
    DEFAULT_MAX_DECISIONS,
    MAX_DECISIONS_LIMIT,
    MAX_PLAYERS,
    MIN_PLAYERS,
)


@dataclass(frozen=True)
class GameConfig:
    """Options of one game; every field is validated on construction.

    Attributes:
        num_players: 2 to 5 (rules 1.2; 2 players use the variant of rules 1.3).
        max_decisions: the truncation cap (rules 6.9): a game still running after this many
            decisions is cut off, truncated and not terminated; 1 to 30000.
    """

    num_players: int = 4
    max_decisions: int = DEFAULT_MAX_DECISIONS

    def __post_init__(self) -> None:
        for name in ("num_players", "max_decisions"):
            v = getattr(self, name)
            if isinstance(v, bool) or not isinstance(v, int):
                raise ValueError(f"{name} must be an int, got {v!r}")
        if not MIN_PLAYERS <= self.num_players <= MAX_PLAYERS:
            raise ValueError(
                f"num_players={self.num_players} is not allowed; "
                f"allowed: {MIN_PLAYERS} to {MAX_PLAYERS}"
            )
        if not 1 <= self.max_decisions <= MAX_DECISIONS_LIMIT:
            raise ValueError(
                f"max_decisions={self.max_decisions} is not allowed; "
                f"allowed: 1 to {MAX_DECISIONS_LIMIT}"
            )

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)

    @classmethod
    def from_dict(cls, data: Any) -> GameConfig:
        """The options of a dict; unknown or missing keys are named in the error."""
        if not isinstance(data, dict):
            raise ValueError(f"options must be a dict, got {type(data).__name__}")
        known = {f.name for f in fields(cls)}
        if set(data) != known:
            raise ValueError(f"options have keys {sorted(data)}; expected exactly {sorted(known)}")
        return cls(**data)
