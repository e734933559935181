"""Stable-Baselines3 adapter: the learner view of ``caylus_env.core.vector`` as an SB3 ``VecEnv``,
for every game.

``GameVecEnv`` runs ``LearnerGames``: in each of its ``num_envs`` games the learner plays one
seat (drawn per episode from the seed) and compiled opponents play the others inside ``step``.
It is an SB3 ``VecEnv`` (SB3's own autoreset: the ``SAME_STEP`` mode of
``caylus_env.core.vector``, the last observation in ``infos[k]["terminal_observation"]``, and
``infos[k]["TimeLimit.truncated"]`` for a game cut off by its decision cap, so that SB3
bootstraps from the value there) with ``action_masks()``, so sb3-contrib's ``MaskablePPO``
trains on it directly::

    from sb3_contrib import MaskablePPO
    from caylus_env.core.sb3 import GameVecEnv

    env = GameVecEnv("puerto_rico", num_envs=64, num_players=4, seed=0)
    model = MaskablePPO("MlpPolicy", env, seed=0)
    model.learn(total_timesteps=100_000)

Spaces: ``Box(0, BOUNDS, (OBS_SIZE,), float32)`` observations (the learner's ``raw_env``
observation vector) and ``Discrete(NUM_ACTIONS)`` actions; rewards are float32, the learner
seat's rank reward (+1..-1) at the end of a game and 0 before (and at a truncation).
``action_masks()`` is a bool ``(num_envs, NUM_ACTIONS)`` array.

Seeds follow SB3: ``seed(s)`` (or the ``seed`` argument) is used by the next
``reset()``, here as the one seed of the whole batch (``caylus_env.core.vector``,
"Seeds": game ``k``'s ``i``-th episode depends only on ``(s, k, i)``); a reset
without one continues the stream the last seed set up (every game's next episode, as
Gymnasium's ``np_random`` continues), so two runs seeded once play the same episodes; only a
first reset without any seed draws it from the operating system.

Stable-Baselines3 is optional (``pip install caylus-env[train]``): this module
imports it only when ``GameVecEnv`` is first used, and says how to install it if
it is missing.
"""

from __future__ import annotations

from typing import Any

__all__ = ["GameVecEnv"]  # noqa: F822 (built on first access by the module __getattr__)


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

    from caylus_env.core.ranks import rank_of
    from caylus_env.core.vector import LearnerGames, end_info

    #: Per-game methods ``env_method`` serves: their result is split by game.
    per_game_methods = ("action_masks",)

    class GameVecEnv(VecEnv):
        """``LearnerGames`` as an SB3 ``VecEnv``; see the module docstring.

        Args:
            game: a registered game's name (ignored when ``games`` is given).
            num_envs: the number of games, >= 1.
            num_players: one player count for all games, or one per game.
            opponent: a ``caylus_env.core.vector.OPPONENTS`` name for all games, or one per
                game.
            seed: the seed of the first ``reset()`` (SB3's ``seed()`` sets later ones).
            games: learner games built by the caller (a ``LearnerGames``, such as
                ``training.learner.PoolGames``, or any object with its
                ``reset``/``step``/``batch``/``num_envs``/``num_players``/``spec``) instead of
                the ``LearnerGames`` the other arguments describe.
            **options: the game's options (``GameConfig`` fields).

        Raises:
            ValueError: naming any argument that is not allowed and what is.
        """

        def __init__(
            self,
            game: str = "",
            num_envs: int = 1,
            num_players: int | list[int] | None = None,
            opponent: str | list[str] = "random",
            seed: int | None = None,
            games: Any = None,
            **options: Any,
        ) -> None:
            self.games = games or LearnerGames(game, num_envs, num_players, opponent, **options)
            self.render_mode = None  # read by VecEnv.__init__ through get_attr
            observer = self.games.observer
            super().__init__(
                self.games.num_envs,
                spaces.Box(0.0, observer.BOUNDS, (observer.OBS_SIZE,), np.float32),
                spaces.Discrete(self.games.num_actions),
            )
            self._actions: np.ndarray | None = None
            if seed is not None:
                self.seed(seed)

        # -- the VecEnv API ------------------------------------------------------------------
        def reset(self) -> np.ndarray:
            """Start every game (from the seed set by ``seed()``, else every game's next
            episode under the last seed); the learner's first observations."""
            b = self.games.reset(seed=self._seeds[0])
            self._reset_seeds()
            self._reset_options()
            self.reset_infos = [{"learner_seat": int(s)} for s in b.seat]
            return b.obs.copy()

        def step_async(self, actions: np.ndarray) -> None:
            """Keep the learner's actions for ``step_wait`` (checked there, before any move;
            a masked array stays one, so that its mask is checked too)."""
            self._actions = np.asanyarray(actions)

        def step_wait(self) -> tuple[np.ndarray, np.ndarray, np.ndarray, list[dict[str, Any]]]:
            """Play the learner's actions, then the opponents up to the learner's next turn.

            Raises:
                RuntimeError: if no actions were given (``step_async``) since the last step.
                caylus_env.core.errors.IllegalActionError: naming the game index of an illegal action.
            """
            if self._actions is None:
                raise RuntimeError("step_wait() needs actions: call step_async(actions) first")
            actions, self._actions = self._actions, None
            b = self.games.step(actions)
            infos: list[dict[str, Any]] = [{} for _ in range(self.num_envs)]
            done = b.terminated | b.truncated
            for k in np.flatnonzero(done):
                n = int(self.games.num_players[k])
                scores = b.final_scores[k]
                ranks = rank_of(scores[:n], self.games.final_tie_breaks[k, :n])
                facts = end_info(self.games.spec, n, scores, ranks)
                infos[k] = {
                    "terminal_observation": b.final_obs[k].copy(),
                    "TimeLimit.truncated": bool(b.truncated[k]),
                    "learner_seat": int(b.final_seat[k]),
                    **{key: v[:n].tolist() for key, v in facts.items() if key != "num_players"},
                }
            return b.obs.copy(), b.rewards.astype(np.float32), done, infos

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

    return GameVecEnv


def __getattr__(name: str) -> Any:
    """Build ``GameVecEnv`` (importing Stable-Baselines3) on first access."""
    if name == "GameVecEnv":
        cls = _build()
        globals()[name] = cls
        return cls
    raise AttributeError(f"module 'caylus_env.core.sb3' has no attribute {name!r}")
