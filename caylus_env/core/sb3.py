"""Stable-Baselines3 adapter: the learner view of ``caylus_env.core.vector`` as an SB3 ``VecEnv``.

``CaylusVecEnv`` runs ``LearnerGames``: in each of its ``num_envs`` games the learner
plays one seat (drawn per episode from the seed) and compiled opponents play the
others inside ``step``. It is an SB3 ``VecEnv`` (SB3's own autoreset: the
``SAME_STEP`` mode of ``caylus_env.core.vector``, the last observation in
``infos[k]["terminal_observation"]``) with ``action_masks()``, so sb3-contrib's
``MaskablePPO`` trains on it directly::

    from sb3_contrib import MaskablePPO
    from caylus_env.core.sb3 import CaylusVecEnv

    env = CaylusVecEnv(num_envs=64, num_players=4, seed=0)
    model = MaskablePPO("MlpPolicy", env, seed=0)
    model.learn(total_timesteps=100_000)

Spaces: ``Box(0, BOUNDS, (OBS_SIZE,), float32)`` observations (the learner's
``raw_env`` observation vector) and ``Discrete(NUM_ACTIONS)`` actions; rewards are
float32, the learner seat's rank reward (+1..-1, rules 8.21) at the end of a game and
0 before. ``action_masks()`` is a bool ``(num_envs, NUM_ACTIONS)`` array.

Seeds follow SB3: ``seed(s)`` (or the ``seed`` argument) is used by the next
``reset()``, here as the one seed of the whole batch (``caylus_env.core.vector``,
"Seeds": game ``k``'s ``i``-th episode depends only on ``(s, k, i)``); a reset
without one draws a fresh seed from the operating system.

Stable-Baselines3 is optional (``pip install caylus-env[train]``): this module
imports it only when ``CaylusVecEnv`` is first used, and says how to install it if
it is missing.
"""

from __future__ import annotations

from typing import Any

__all__ = ["CaylusVecEnv"]  # noqa: F822 (built on first access by the module __getattr__)


def _build() -> type:
    try:
        from gymnasium import spaces
        from stable_baselines3.common.vec_env import VecEnv
    except ImportError as err:
        raise ImportError(
            f"caylus_env.core.sb3 needs Stable-Baselines3 ({err}); install the training extra: "
            "pip install caylus-env[train]"
        ) from err
    import numpy as np

    from caylus_env.caylus.engine.actions import NUM_ACTIONS
    from caylus_env.caylus.engine.game import rank_of
    from caylus_env.caylus.observation import BOUNDS, OBS_SIZE
    from caylus_env.core.vector import LearnerGames

    #: Per-game methods ``env_method`` serves: their result is split by game.
    per_game_methods = ("action_masks",)

    class CaylusVecEnv(VecEnv):
        """``LearnerGames`` as an SB3 ``VecEnv``; see the module docstring.

        Args:
            num_envs: the number of games, >= 1.
            num_players: one player count (2-5) for all games, or one per game.
            simplified_favors, lawyer_prestige, jeweller, house_cap: the game options
                (rules 6, 8.2, 8.1, 8.5), the same for every game.
            opponent: a ``caylus_env.core.vector.OPPONENTS`` name for all games, or one per game.
            seed: the seed of the first ``reset()`` (SB3's ``seed()`` sets later ones).
            games: learner games built by the caller (any object with ``LearnerGames``'s
                ``reset``/``step``/``batch``/``num_envs``/``num_players``, such as
                ``training.learner.PoolGames``) instead of the ``LearnerGames`` the other
                arguments describe.

        Raises:
            ValueError: naming any argument that is not allowed and what is.
        """

        def __init__(
            self,
            num_envs: int,
            num_players: int | list[int] = 4,
            simplified_favors: bool = False,
            lawyer_prestige: int = 4,
            jeweller: bool = False,
            house_cap: bool = False,
            opponent: str | list[str] = "random",
            seed: int | None = None,
            games: Any = None,
        ) -> None:
            self.games = games or LearnerGames(
                num_envs,
                num_players,
                simplified_favors,
                lawyer_prestige,
                jeweller,
                house_cap,
                opponent,
            )
            self.render_mode = None  # read by VecEnv.__init__ through get_attr
            super().__init__(
                self.games.num_envs,
                spaces.Box(0.0, BOUNDS, (OBS_SIZE,), np.float32),
                spaces.Discrete(NUM_ACTIONS),
            )
            self._actions: np.ndarray | None = None
            if seed is not None:
                self.seed(seed)

        # -- the VecEnv API ------------------------------------------------------------------
        def reset(self) -> np.ndarray:
            """Start every game (from the seed set by ``seed()``, else a fresh one); the
            learner's first observations."""
            b = self.games.reset(seed=self._seeds[0])
            self._reset_seeds()
            self._reset_options()
            self.reset_infos = [{"learner_seat": int(s)} for s in b.seat]
            return b.obs.copy()

        def step_async(self, actions: np.ndarray) -> None:
            """Keep the learner's actions for ``step_wait`` (checked there, before any move)."""
            self._actions = np.asarray(actions)

        def step_wait(self) -> tuple[np.ndarray, np.ndarray, np.ndarray, list[dict[str, Any]]]:
            """Play the learner's actions, then the opponents up to the learner's next turn.

            Raises:
                RuntimeError: if no actions were given (``step_async``) since the last step.
                caylus_env.IllegalActionError: naming the game index of an illegal action.
            """
            if self._actions is None:
                raise RuntimeError("step_wait() needs actions: call step_async(actions) first")
            actions, self._actions = self._actions, None
            b = self.games.step(actions)
            infos: list[dict[str, Any]] = [{} for _ in range(self.num_envs)]
            for k in np.flatnonzero(b.terminated):
                n = int(self.games.num_players[k])
                prestige = b.final_prestige[k, :n]
                infos[k] = {
                    "terminal_observation": b.final_obs[k].copy(),
                    "TimeLimit.truncated": False,
                    "learner_seat": int(b.final_seat[k]),
                    "final_prestige": prestige.tolist(),
                    "rank": rank_of(prestige).tolist(),
                }
            return b.obs.copy(), b.rewards.astype(np.float32), b.terminated.copy(), infos

        def close(self) -> None:
            """Nothing to release: the games are arrays."""

        def action_masks(self) -> np.ndarray:
            """The learner's legal actions in every game, bool ``(num_envs, NUM_ACTIONS)``."""
            return self.games.batch.mask.astype(np.bool_)

        def get_attr(self, attr_name: str, indices: Any = None) -> list[Any]:
            """The attribute of the vector env, once per game (the games share them).

            Raises:
                AttributeError: if there is no such attribute.
            """
            value = getattr(self, attr_name)
            return [value for _ in self._get_indices(indices)]

        def set_attr(self, attr_name: str, value: Any, indices: Any = None) -> None:
            """Set an attribute of the vector env; the games share their attributes, so only
            for every game at once.

            Raises:
                ValueError: if ``indices`` selects some games only.
            """
            chosen = sorted(set(self._get_indices(indices)))
            if chosen != list(range(self.num_envs)):
                raise ValueError(
                    f"set_attr({attr_name!r}) for games {chosen}: the games share their "
                    "attributes; set it for all games (indices=None)"
                )
            setattr(self, attr_name, value)

        def env_method(
            self, method_name: str, *method_args: Any, indices: Any = None, **method_kwargs: Any
        ) -> list[Any]:
            """A per-game method's result for each game (``action_masks``: one mask each, as
            sb3-contrib's ``get_action_masks`` expects).

            Raises:
                AttributeError: for a method that is not per game, naming those that are.
            """
            if method_name not in per_game_methods:
                raise AttributeError(
                    f"env_method({method_name!r}): the per-game methods are {per_game_methods}"
                )
            rows = getattr(self, method_name)(*method_args, **method_kwargs)
            return [rows[k] for k in self._get_indices(indices)]

        def env_is_wrapped(self, wrapper_class: type, indices: Any = None) -> list[bool]:
            """No game is wrapped in a gymnasium wrapper: the games are arrays."""
            return [False for _ in self._get_indices(indices)]

    return CaylusVecEnv


def __getattr__(name: str) -> Any:
    """Build ``CaylusVecEnv`` (importing Stable-Baselines3) on first access."""
    if name == "CaylusVecEnv":
        cls = _build()
        globals()[name] = cls
        return cls
    raise AttributeError(f"module 'caylus_env.core.sb3' has no attribute {name!r}")
