"""Game options: the player count and whether opponents' prestige is hidden (D37)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from caylus_env.caylus_1303.engine import layout as L
from caylus_env.caylus_1303.engine.constants import MAX_PLAYERS, MIN_PLAYERS
from caylus_env.caylus_1303.engine.rules import value
from caylus_env.core.config import GameConfig as BaseConfig


@dataclass(frozen=True)
class GameConfig(BaseConfig):
    """Options of one game; every field is validated on construction.

    Attributes:
        num_players: 2 to 5 (rules 6).
        hide_opponent_pp: prestige tokens are face down at the table (rules 4.7): with
            True, a player's observation, the text rendering, the replay page and the search
            bots see only his own prestige (D37; the default shows every total, which any
            player could count from the public gains).
    """

    MIN_PLAYERS = MIN_PLAYERS
    MAX_PLAYERS = MAX_PLAYERS

    num_players: int = 4
    hide_opponent_pp: bool = value("observation")["hide_opponent_pp"]

    def check(self) -> None:
        """Raise ``ValueError`` naming an option whose value is not allowed, and what is."""
        self.check_flags("hide_opponent_pp")

    def kernel_args(self) -> tuple[int, int]:
        """The options as ``kernels.setup`` takes them, before the seed."""
        return (self.num_players, int(self.hide_opponent_pp))

    @classmethod
    def from_state(cls, s: Any) -> GameConfig:
        """The options stored in a state array (``layout``)."""
        return cls(num_players=int(s[L.NUM_PLAYERS]), hide_opponent_pp=bool(s[L.OPT_HIDE_PP]))
