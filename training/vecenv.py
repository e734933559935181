"""``PoolGames`` as a Stable-Baselines3 ``VecEnv``, with the optional shaped reward.

``PoolVecEnv`` is ``caylus_env.core.sb3.GameVecEnv`` (SB3's autoreset, ``action_masks()``
for ``MaskablePPO``, ``TimeLimit.truncated`` for a game cut off by its decision cap) over
``training.learner.PoolGames``, for every game. It adds to the ``info`` of every game that
ends: ``opponent`` (the pool entry it was played against), ``rank_reward`` (the learner's
rank reward) and ``shaped_return`` (the sum of the shaped terms of that game).

The shaped term is off by default (``shaping=0``). With ``shaping=c`` the learner gets, on
every step, ``c * (m' - m) / scale`` where ``m`` is its score margin over the best
opponent before the step (the game's ``scores``: Caylus's prestige, Puerto Rico's victory
points) and ``m'`` after it (at the end of a game: the final margin): a potential-based term
(Ng, Harada and Russell 1999), which does not change which policies are optimal in the
undiscounted game, and which the trainer logs apart from the rank reward. ``scale`` is the
game's ``GameSpec.score_scale`` (about a winning score, the unit its observation divides scores
by).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from caylus_env.core.sb3 import GameVecEnv
from training.learner import PoolGames


def shaped_terms(before: np.ndarray, games: PoolGames, done: np.ndarray) -> np.ndarray:
    """The potential differences of the last step, in units of the game's ``score_scale``
    (before the coefficient): the margin after the step (the final one for the games that
    ended) minus ``before``, the margin before it."""
    after = np.where(done, games.final_margin, games.margin).astype(np.float64)
    return (after - before) / games.spec.score_scale


class PoolVecEnv(GameVecEnv):  # type: ignore[misc, valid-type]
    """See the module docstring.

    Args:
        games: the ``PoolGames`` to train on.
        seed: the seed of the first ``reset()``.
        shaping: the shaped term's coefficient (0: off).

    Raises:
        ValueError: for a shaping coefficient that is not a number >= 0.
    """

    def __init__(self, games: PoolGames, seed: int | None = None, shaping: float = 0.0) -> None:
        if not np.isfinite(shaping) or shaping < 0:
            raise ValueError(f"shaping must be a number >= 0, got {shaping!r}")
        super().__init__(games.spec.name, games.num_envs, seed=seed, games=games)
        self.shaping = float(shaping)
        self._before = np.zeros(games.num_envs)
        self._shaped_sum = np.zeros(games.num_envs)

    def reset(self) -> np.ndarray:
        obs = super().reset()
        self._shaped_sum[:] = 0.0
        return obs

    def step_async(self, actions: np.ndarray) -> None:
        # The potential before the step: the margin where the learner is to act now (kept by
        # the games, so a resumed run starts from the same one).
        self._before[:] = self.games.margin
        super().step_async(actions)

    def step_wait(self) -> tuple[np.ndarray, np.ndarray, np.ndarray, list[dict[str, Any]]]:
        obs, rewards, dones, infos = super().step_wait()
        g = self.games
        shaped = shaped_terms(self._before, g, dones)
        self._shaped_sum += shaped
        if self.shaping:
            rewards = rewards + (self.shaping * shaped).astype(np.float32)
        names = g.opponent_names()
        for k in np.flatnonzero(dones):
            infos[k]["opponent"] = names[int(g.final_slot[k])]
            infos[k]["shaped_return"] = float(self._shaped_sum[k])
            infos[k]["rank_reward"] = float(g.batch.rewards[k])
            self._shaped_sum[k] = 0.0
        return obs, rewards, dones, infos


__all__ = ["PoolVecEnv", "shaped_terms"]
