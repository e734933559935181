"""Game options: the player count and the variants of rules 6 and 8."""

from __future__ import annotations

from dataclasses import dataclass

from caylus_env.caylus.engine.constants import HOUSE_CAP_VARIANT, MAX_PLAYERS, MIN_PLAYERS
from caylus_env.core.config import GameConfig as BaseConfig

LAWYER_PRESTIGE_CHOICES = (4, 3)  # rules 8.2: 4 on the 2005 tile, 3 in later printings


@dataclass(frozen=True)
class GameConfig(BaseConfig):
    """Options of one game; every field is validated on construction.

    Attributes:
        num_players: 2 to 5 (rules 1.3; 2 players use the rules of 1.4).
        simplified_favors: every favor is worth 3 prestige, no favor table (rules 6).
        lawyer_prestige: prestige of the lawyer tile, 4 (2005 tile) or 3 (8.2).
        jeweller: put the Jeweller tile in the stock (8.1, opt-in).
        house_cap: limit each player to 20 houses on the board (8.5, optional).
    """

    MIN_PLAYERS = MIN_PLAYERS
    MAX_PLAYERS = MAX_PLAYERS

    num_players: int = 4
    simplified_favors: bool = False
    lawyer_prestige: int = 4
    jeweller: bool = False
    house_cap: bool = False

    def check(self) -> None:
        """Raise ``ValueError`` naming an option whose value is not allowed, and what is."""
        if self.lawyer_prestige not in LAWYER_PRESTIGE_CHOICES:
            raise ValueError(
                f"lawyer_prestige={self.lawyer_prestige!r} is not allowed; "
                f"allowed: {LAWYER_PRESTIGE_CHOICES}"
            )
        self.check_flags("simplified_favors", "jeweller", "house_cap")

    @property
    def house_limit(self) -> int:
        """Houses allowed per player, 0 meaning unlimited (the engine's encoding)."""
        return HOUSE_CAP_VARIANT if self.house_cap else 0

    def kernel_args(self) -> tuple[int, int, int, int, int]:
        """The options as ``kernels.setup`` (``init_game``) takes them, before the seed."""
        return (
            self.num_players,
            int(self.simplified_favors),
            self.lawyer_prestige,
            int(self.jeweller),
            self.house_limit,
        )
