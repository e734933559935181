"""``PoolGames`` as a Stable-Baselines3 ``VecEnv``, with the optional shaped reward.

``PoolVecEnv`` is ``caylus_env.core.sb3.CaylusVecEnv`` (SB3's autoreset, ``action_masks()`` for
``MaskablePPO``) over ``training.learner.PoolGames``. It adds to the ``info`` of every game
that ends: ``opponent`` (the pool entry it was played against) and ``shaped_return`` (the
sum of the shaped terms of that game).

The shaped term is off by default (``shaping=0``). With ``shaping=c`` the learner gets, on
every step, ``c * (m' - m) / PRESTIGE_SCALE`` where ``m`` is its prestige margin over the
best opponent before the step and ``m'`` after it (at the end of a game: the final margin):
a potential-based term (Ng, Harada and Russell 1999), which does not change which policies
are optimal in the undiscounted game, and which the trainer logs apart from the rank
reward.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from caylus_env.caylus.observation import PRESTIGE_SCALE
from caylus_env.core.sb3 import CaylusVecEnv
from training.learner import PoolGames


class PoolVecEnv(CaylusVecEnv):  # type: ignore[misc, valid-type]
    """See the module docstring.

    Args:
        games: the ``PoolGames`` to train on.
        seed: the seed of the first ``reset()``.
        shaping: the shaped term's coefficient (0: off).
    """

    def __init__(self, games: PoolGames, seed: int | None = None, shaping: float = 0.0) -> None:
        if not np.isfinite(shaping) or shaping < 0:
            raise ValueError(f"shaping must be a number >= 0, got {shaping!r}")
        super().__init__(games.num_envs, seed=seed, games=games)
        self.shaping = float(shaping)
        self._margin = np.zeros(games.num_envs)
        self._shaped_sum = np.zeros(games.num_envs)

    def reset(self) -> np.ndarray:
        obs = super().reset()
        self._margin[:] = self.games.margin
        self._shaped_sum[:] = 0.0
        return obs

    def step_wait(self) -> tuple[np.ndarray, np.ndarray, np.ndarray, list[dict[str, Any]]]:
        obs, rewards, dones, infos = super().step_wait()
        g = self.games
        after = np.where(dones, g.final_margin, g.margin).astype(np.float64)
        shaped = (after - self._margin) / PRESTIGE_SCALE
        self._shaped_sum += shaped
        if self.shaping:
            rewards = rewards + (self.shaping * shaped).astype(np.float32)
        names = g.opponent_names()
        for k in np.flatnonzero(dones):
            infos[k]["opponent"] = names[int(g.final_slot[k])]
            infos[k]["shaped_return"] = float(self._shaped_sum[k])
            infos[k]["rank_reward"] = float(g.batch.rewards[k])
            self._shaped_sum[k] = 0.0
        self._margin[:] = g.margin
        return obs, rewards, dones, infos
