"""SuperSuit adapter: a flat ``Box`` observation with the legal-action mask in the info.

SuperSuit's observation wrappers (``frame_stack_v1``, ``normalize_obs_v0``, ``dtype_v0``,
``observation_lambda_v0``, ``agent_indicator_v0`` ...) and its AEC vectorizer
(``vectorize_aec_env_v0``) take ``Box`` observations; the games' observation is PettingZoo's
classic dict of ``observation`` and ``action_mask``, which they refuse. `box_observations`
wraps any game's AEC env so that ``observe(agent)`` is the ``observation`` vector, the
observation space is its ``Box`` (finite bounds: ``normalize_obs_v0`` maps it to [0, 1]),
and the mask moves to ``infos[agent]["action_mask"]``: PettingZoo's other place for it, the
one its documentation gives for envs whose observation is not a dict. Wrappers change the
observation only, so the mask reaches the learner unchanged through every SuperSuit wrapper
(and through ``vectorize_aec_env_v0``, whose ``last()`` returns each env's info).

Nothing here imports SuperSuit (``pip install caylus-env[supersuit]`` installs it)::

    import supersuit as ss
    import caylus_env
    from caylus_env.integrations.supersuit import box_observations

    env = box_observations(caylus_env.make("puerto_rico", num_players=3))
    env = ss.frame_stack_v1(ss.normalize_obs_v0(ss.dtype_v0(env, "float32")), 4)
    env.reset(seed=0)
    obs, reward, terminated, truncated, info = env.last()
    mask = info["action_mask"]  # int8, 1 for the legal actions of the agent to act

``box_observations(env, normalize=True)`` gives the observation in ``[0, 1]`` instead
(``caylus_env.core.env.normalize_observation``, ``Box(0, 1)``): a count without a rules
ceiling has a bound of up to 10,922 (the largest its state can hold over its scale), so
``normalize_obs_v0``, which divides every entry by its bound, leaves such counts within a
thousandth of 0; the normalized observation keeps them readable (one scale unit reads about
0.5) and every one-hot, flag and fraction as it is.

The adapter passes PettingZoo's ``api_test``: each agent's mask is one read-only array for as
long as its content holds (``infos[agent]["action_mask"]`` and ``last()``'s info are then the
same object), so comparing the infos of ``last()`` and ``infos`` compares like with like.

SuperSuit's ``pettingzoo_env_to_vec_env_v1`` / ``concat_vec_envs_v1`` take *parallel* envs
(every agent acts at every step); the games are turn-based AEC envs (the engine says who
acts), so use ``vectorize_aec_env_v0`` or the project's batched env
(``caylus_env.make_vector``) instead.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from gymnasium import spaces
from pettingzoo.utils.wrappers import BaseWrapper

from caylus_env.core.env import normalize_observation

__all__ = ["BoxObservations", "box_observations"]


class BoxObservations(BaseWrapper):
    """A game's AEC env with the ``observation`` vector as its observation and the
    ``action_mask`` in ``infos[agent]``; see the module docstring.

    Args:
        env: a game's AEC env (``caylus_env.make(...)``, wrapped or raw).
        normalize: observations in ``[0, 1]`` (``normalize_observation`` of the vector, the
            space ``Box(0, 1)``) instead of the vector as it is (``Box(0, BOUNDS)``).

    Raises:
        ValueError: if ``env``'s observation is not the games' dict of ``observation`` and
            ``action_mask``, or ``normalize`` is not a bool.
    """

    def __init__(self, env: Any, normalize: bool = False) -> None:
        super().__init__(env)
        if not isinstance(normalize, bool):
            raise ValueError(f"normalize={normalize!r} is not allowed; allowed: True, False")
        boxes, bounds = {}, {}
        for agent in env.possible_agents:
            space = env.observation_space(agent)
            if not (
                isinstance(space, spaces.Dict)
                and set(space.spaces) >= {"observation", "action_mask"}
            ):
                raise ValueError(
                    f"box_observations takes an env whose observation is a dict of "
                    f"'observation' and 'action_mask', got {space}"
                )
            box = space["observation"]
            boxes[agent] = spaces.Box(0.0, 1.0, box.shape, np.float32) if normalize else box
            bounds[agent] = box.high
        self._boxes = boxes
        self._bounds = bounds
        self.normalize = normalize
        self._num_actions = int(env.action_space(env.possible_agents[0]).n)
        self._no_mask = np.zeros(self._num_actions, np.int8)
        self._no_mask.setflags(write=False)
        #: Per agent: the read-only mask last given, handed out again while its content holds.
        self._masks: dict[Any, np.ndarray] = {}

    def observation_space(self, agent: Any) -> spaces.Box:
        """The ``Box`` of the observation vector (the dict space's ``observation``), or
        ``Box(0, 1)`` when normalized."""
        return self._boxes[agent]

    def observe(self, agent: Any) -> np.ndarray:
        """The observation vector of ``agent`` (a fresh array), normalized if asked."""
        obs = self.env.observe(agent)["observation"]
        return normalize_observation(obs, self._bounds[agent]) if self.normalize else obs

    @property
    def infos(self) -> dict[Any, dict[str, Any]]:
        """The env's infos, each with ``action_mask`` (int8, read-only; all zeros but for the
        agent to act, as in the dict observation). The mask of an agent is the same array
        object at every access until its content changes."""
        base = self.env.infos
        selected = self.env.agent_selection
        out = {}
        for agent, info in base.items():
            live = not (self.env.terminations.get(agent) or self.env.truncations.get(agent))
            if agent == selected and live:
                mask = self._stable_mask(agent, self.env.unwrapped.game.legal_mask())
            else:
                mask = self._no_mask
            out[agent] = {**info, "action_mask": mask}
        return out

    def _stable_mask(self, agent: Any, mask: np.ndarray) -> np.ndarray:
        """``mask``, or the equal read-only array handed out before: PettingZoo's
        ``api_test`` compares ``last()``'s info with ``infos[agent]``, which for two equal
        but distinct arrays raises (an array's ``==`` is elementwise)."""
        kept = self._masks.get(agent)
        if kept is not None and np.array_equal(kept, mask):
            return kept
        mask.setflags(write=False)
        self._masks[agent] = mask
        return mask


def box_observations(env: Any, normalize: bool = False) -> BoxObservations:
    """``env`` with a flat ``Box`` observation and the mask in the info (`BoxObservations`);
    ``normalize=True``: the observation in ``[0, 1]``."""
    return BoxObservations(env, normalize)
