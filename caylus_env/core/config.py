"""``GameConfig``: the options of one game, the base every game's options extend.

A game's ``GameConfig`` is a frozen dataclass whose first field is ``num_players``; each
field is an option with its default, validated on construction (``check``), so a config that
exists is a config the engine can play. The base gives every game the same dict form (records,
state dicts, ``run.json``), the same errors and the options as the kernels take them
(`GameConfig.kernel_options`: ``num_players`` first, then the game's integers, in the order of
its ``kernel_args``).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import MISSING, asdict, dataclass, fields
from typing import Any, ClassVar

import numpy as np


@dataclass(frozen=True)
class GameConfig:
    """Options of one game (see the module docstring); subclasses add their options.

    Class attributes a game sets:
        MIN_PLAYERS, MAX_PLAYERS: the player counts its rules allow.
    """

    MIN_PLAYERS: ClassVar[int] = 2
    MAX_PLAYERS: ClassVar[int] = 5

    num_players: int = 4

    def __post_init__(self) -> None:
        n = self.num_players
        if isinstance(n, bool) or not isinstance(n, int):
            raise ValueError(f"num_players must be an int, got {n!r}")
        if not self.MIN_PLAYERS <= n <= self.MAX_PLAYERS:
            raise ValueError(
                f"num_players={n} is not allowed; allowed: {self.MIN_PLAYERS} to {self.MAX_PLAYERS}"
            )
        self.check()

    def check(self) -> None:
        """Refuse an option value the rules do not allow (``ValueError`` naming it)."""

    def check_flags(self, *names: str) -> None:
        """Refuse a boolean option that is not exactly True or False, naming it."""
        for name in names:
            if not isinstance(getattr(self, name), bool):
                raise ValueError(f"{name} must be True or False, got {getattr(self, name)!r}")

    def kernel_args(self) -> tuple[int, ...]:
        """The options as the game's kernels take them, ``num_players`` first."""
        raise NotImplementedError

    def kernel_options(self) -> np.ndarray:
        """`kernel_args` as the ``int64`` array of ``kernels.setup(s, options, seed)``."""
        return np.array(self.kernel_args(), np.int64)

    def to_dict(self) -> dict[str, Any]:
        """Plain dict of every option (records, state dicts, ``run.json``)."""
        return asdict(self)

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> GameConfig:
        """The options of a dict; a missing option takes its default.

        Raises:
            ValueError: for a non-dict or an unknown key (naming the known ones), or a value
                the rules do not allow.
        """
        if not isinstance(data, Mapping):
            raise ValueError(f"options must be a dict, got {type(data).__name__}")
        known = [f.name for f in fields(cls)]
        unknown = sorted(k for k in data if k not in known)
        if unknown:
            raise ValueError(f"unknown game options {unknown}; known: {sorted(known)}")
        return cls(**data)

    @classmethod
    def option_defaults(cls) -> dict[str, Any]:
        """Every option but ``num_players`` with its default."""
        out = {}
        for f in fields(cls):
            if f.name != "num_players":
                out[f.name] = f.default if f.default is not MISSING else f.default_factory()  # type: ignore[misc]
        return out


__all__ = ["GameConfig"]
