"""Game options: the player count, the truncation cap and the expansion's options."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from caylus_env.core.config import GameConfig as BaseConfig
from caylus_env.puerto_rico.engine import layout as L
from caylus_env.puerto_rico.engine.constants import (
    DEFAULT_MAX_DECISIONS,
    DRAFT_MODES,
    MAX_DECISIONS_LIMIT,
    MAX_PLAYERS,
    MIN_PLAYERS,
)


@dataclass(frozen=True)
class GameConfig(BaseConfig):
    """Options of one game; every field is validated on construction.

    Attributes:
        num_players: 2 to 5 (rules 1.2; 2 players use the variant of rules 1.3).
        max_decisions: the truncation cap (rules 6.9): a game still running after this many
            decisions is cut off, truncated and not terminated; 1 to 10000.
        expansion: play with the 2004 expansion's buildings (rules 7).
        draft: with the expansion, ``"players"`` (the draft is the players' first
            decisions) or ``"random"`` (drawn from the seed) (rules 7.1).
        library_limit: with 2 players, a library doubles at most one privilege per round
            (rules 7.2, 7.5).
    """

    MIN_PLAYERS = MIN_PLAYERS
    MAX_PLAYERS = MAX_PLAYERS

    num_players: int = 4
    max_decisions: int = DEFAULT_MAX_DECISIONS
    expansion: bool = False
    draft: str = "players"
    library_limit: bool = False

    def check(self) -> None:
        """Raise ``ValueError`` naming an option whose value is not allowed, and what is."""
        v = self.max_decisions
        if isinstance(v, bool) or not isinstance(v, int):
            raise ValueError(f"max_decisions must be an int, got {v!r}")
        self.check_flags("expansion", "library_limit")
        if self.draft not in DRAFT_MODES:
            raise ValueError(f"draft={self.draft!r} is not allowed; allowed: {DRAFT_MODES}")
        if not 1 <= self.max_decisions <= MAX_DECISIONS_LIMIT:
            raise ValueError(
                f"max_decisions={self.max_decisions} is not allowed; "
                f"allowed: 1 to {MAX_DECISIONS_LIMIT}"
            )

    def kernel_args(self) -> tuple[int, int, int, int, int]:
        """The options as ``kernels.setup`` (``setup_game``) takes them, before the seed."""
        return (
            self.num_players,
            self.max_decisions,
            int(self.expansion),
            DRAFT_MODES.index(self.draft),
            int(self.library_limit),
        )

    @classmethod
    def from_state(cls, s: Any) -> GameConfig:
        """The options stored in a state array (``layout``)."""
        return cls(
            num_players=int(s[L.NUM_PLAYERS]),
            max_decisions=int(s[L.MAX_DECISIONS]),
            expansion=bool(s[L.OPT_EXPANSION]),
            draft=DRAFT_MODES[int(s[L.OPT_DRAFT])],
            library_limit=bool(s[L.OPT_LIBRARY_LIMIT]),
        )
