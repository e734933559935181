"""Game options: the player count and the variants of rules 6 and 8."""

from __future__ import annotations

from dataclasses import asdict, dataclass, fields
from typing import Any

from caylus_env.caylus.engine.constants import HOUSE_CAP_VARIANT, MAX_PLAYERS, MIN_PLAYERS

LAWYER_PRESTIGE_CHOICES = (4, 3)  # rules 8.2: 4 on the 2005 tile, 3 in later printings


@dataclass(frozen=True)
class GameConfig:
    """Options of one game; every field is validated on construction.

    Attributes:
        num_players: 2 to 5 (rules 1.3; 2 players use the rules of 1.4).
        simplified_favors: every favor is worth 3 prestige, no favor table (rules 6).
        lawyer_prestige: prestige of the lawyer tile, 4 (2005 tile) or 3 (8.2).
        jeweller: put the Jeweller tile in the stock (8.1, opt-in).
        house_cap: limit each player to 20 houses on the board (8.5, optional).
    """

    num_players: int = 4
    simplified_favors: bool = False
    lawyer_prestige: int = 4
    jeweller: bool = False
    house_cap: bool = False

    def __post_init__(self) -> None:
        if isinstance(self.num_players, bool) or not isinstance(self.num_players, int):
            raise ValueError(f"num_players must be an int, got {self.num_players!r}")
        if not MIN_PLAYERS <= self.num_players <= MAX_PLAYERS:
            raise ValueError(
                f"num_players={self.num_players} is not allowed; "
                f"allowed: {MIN_PLAYERS} to {MAX_PLAYERS}"
            )
        if self.lawyer_prestige not in LAWYER_PRESTIGE_CHOICES:
            raise ValueError(
                f"lawyer_prestige={self.lawyer_prestige!r} is not allowed; "
                f"allowed: {LAWYER_PRESTIGE_CHOICES}"
            )
        for name in ("simplified_favors", "jeweller", "house_cap"):
            if not isinstance(getattr(self, name), bool):
                raise ValueError(f"{name} must be True or False, got {getattr(self, name)!r}")

    @property
    def house_limit(self) -> int:
        """Houses allowed per player, 0 meaning unlimited (the engine's encoding)."""
        return HOUSE_CAP_VARIANT if self.house_cap else 0

    def to_dict(self) -> dict[str, Any]:
        """Plain dict of the options (used in records)."""
        return asdict(self)

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> GameConfig:
        """Options from a dict; unknown keys are refused with the list of known ones."""
        known = {f.name for f in fields(cls)}
        unknown = set(data) - known
        if unknown:
            raise ValueError(f"unknown game options {sorted(unknown)}; known: {sorted(known)}")
        return cls(**data)
