"""RLlib (Ray 2.60, new API stack): every game as a ``MultiAgentEnv``, a masked module spec
and a ``PPOConfig`` recipe, on one machine or on a Ray cluster.

Three names are all a user needs (``docs/integrations-rllib.md`` has the walk-through)::

    import ray
    from caylus_env.integrations.rllib import ppo_config

    ray.init()
    algo = ppo_config("caylus", num_players=2, seed=0).env_runners(num_env_runners=2).build_algo()
    for _ in range(10):
        print(algo.train()["env_runners"]["num_episodes_lifetime"])

- ``MultiAgentGameEnv(game=..., num_players=..., reward=..., **options)`` (or one dict, as
  RLlib's env creators receive it): the game's PettingZoo AEC env (``raw_env`` of the game's
  ``env`` module, reached through the registry) as an RLlib ``MultiAgentEnv``. Agents are
  the AEC env's ``player_0`` .. ``player_{n-1}``; an observation is the dict that RLlib's
  action-masking module reads, ``{"observations": the game's vector, "action_mask": float32
  0/1}``. Only the agent to act is in the observation dict; its reward and every other
  seat's are the AEC env's ``rewards`` of that step (zero until the end, then the final
  reward to every seat, including the seats that did not make the last move). At the end
  every seat gets its last observation (mask all zeros), its ``terminated`` or ``truncated``
  flag, ``__all__`` and the AEC env's end-of-game info (``final_score``, ``rank``).
  An illegal action raises ``IllegalActionError`` and changes nothing: nothing is ever
  replaced by a legal move.
- `module_spec`: a ``MultiRLModuleSpec`` of RLlib's own ``ActionMaskingTorchRLModule``
  (``ray.rllib.examples.rl_modules.classes.action_masking_rlm``, a PPO module that adds
  ``log(mask)`` to the logits), one module shared by every seat (``"shared"``) or one per
  seat.
- `ppo_config`: a ready ``PPOConfig``: the env registered by name (`register`, so that
  EnvRunners on other nodes build it), the masked modules and their mapping, the seed, and
  two settings explained in the docs: RLlib's environment pre-check is off (it plays an
  unmasked random action, which the env rightly refuses) and a failed EnvRunner stops
  training instead of being restarted (an illegal action is a bug to see, not a crash to
  retry).

Seeding is the AEC env's, which follows Gymnasium: ``reset(seed=s)`` starts the game of seed
``s`` and seeds a generator, and every ``reset()`` after it plays the game of the generator's
next seed; so RLlib, which seeds only each EnvRunner's first reset
(``config.debugging(seed=...)``), samples the same episodes in two runs, the episodes the AEC
env plays under the same resets. Ray and RLlib are imported on first use: importing this
module needs neither.
"""

from __future__ import annotations

import functools
from collections.abc import Mapping
from typing import Any

import numpy as np
from gymnasium import spaces

from caylus_env.core.errors import IllegalActionError
from caylus_env.core.game import REWARD_KINDS
from caylus_env.core.registry import GAME_NAMES, game_spec

#: The module id of the policy every seat shares (`module_spec` with ``per_seat=False``).
SHARED_MODULE = "shared"

#: The observation keys of RLlib's ``ActionMaskingTorchRLModule``.
OBS_KEY = "observations"
MASK_KEY = "action_mask"

_ILLEGAL_HINT = (
    "under RLlib, an illegal action means a policy that ignores the action mask (use "
    "caylus_env.integrations.rllib.module_spec) or RLlib's environment pre-check, which "
    "plays an unmasked random action (ppo_config turns it off: "
    "config.environment(disable_env_checking=True))"
)


class _GameMultiAgent:
    """A registered game as an RLlib ``MultiAgentEnv`` (the class `MultiAgentGameEnv` adds
    RLlib's base class to this one; see the module docstring for the conventions).

    Args:
        config: the settings as one mapping (what RLlib passes to an env creator: an
            ``EnvContext``); keyword arguments are merged over it.
        **kwargs: ``game`` (required: one of the registered games), ``num_players``,
            ``reward`` (``"rank"`` or ``"margin"``), ``render_mode`` and the game's options,
            all passed to the game's PettingZoo ``raw_env``.

    Attributes:
        aec_env: the wrapped PettingZoo AEC env (``raw_env``): its ``game``, ``record()``,
            ``state_dict()`` and ``action_to_string`` are the game being played.

    Raises:
        ValueError: for a missing or unknown game, or any setting ``raw_env`` refuses.
    """

    def __init__(self, config: Mapping[str, Any] | None = None, **kwargs: Any) -> None:
        if config is not None and not isinstance(config, Mapping):
            raise ValueError(
                f"the env's config must be a mapping of settings, got {type(config).__name__}"
            )
        settings = {**dict(config or {}), **kwargs}
        game = settings.pop("game", None)
        if game is None:
            raise ValueError(f"the env needs game=...; allowed: {', '.join(GAME_NAMES)}")
        spec = game_spec(game)
        self.game_name: str = spec.name
        self.aec_env: Any = spec.module("env").raw_env(**settings)
        self.render_mode = self.aec_env.render_mode
        self.metadata = {"render_modes": list(self.aec_env.metadata["render_modes"])}
        self.possible_agents: list[str] = list(self.aec_env.possible_agents)
        self.agents: list[str] = self.possible_agents[:]
        self._agent_ids = set(self.possible_agents)
        first = self.possible_agents[0]
        action_space = self.aec_env.action_space(first)
        observation_space = spaces.Dict(
            {
                OBS_KEY: self.aec_env.observation_space(first)["observation"],
                MASK_KEY: spaces.Box(0.0, 1.0, (int(action_space.n),), np.float32),
            }
        )
        # One space object for every seat: a shared module sees one space.
        self.observation_spaces = dict.fromkeys(self.possible_agents, observation_space)
        self.action_spaces = dict.fromkeys(self.possible_agents, action_space)
        self._live = False
        super().__init__()

    def reset(
        self, *, seed: int | None = None, options: dict[str, Any] | None = None
    ) -> tuple[dict[str, dict[str, np.ndarray]], dict[str, dict[str, Any]]]:
        """Start a game: the AEC env's ``reset(seed=seed)``. A seed starts the game of that
        seed and seeds the generator that every later ``reset()`` without a seed continues.

        Returns:
            ``({agent to act: observation}, {agent to act: its info})``.

        Raises:
            ValueError: for a seed that is not None or a non-negative int; nothing changes.
        """
        self.aec_env.reset(seed=seed, options=options)
        self.agents = self.possible_agents[:]
        self._live = True
        agent = self.aec_env.agent_selection
        return {agent: self._observe(agent)}, {agent: dict(self.aec_env.infos[agent])}

    def step(
        self, action_dict: Mapping[str, Any]
    ) -> tuple[dict[str, Any], dict[str, float], dict[str, bool], dict[str, bool], dict[str, Any]]:
        """Play the action of the agent to act (``{agent: action id}``).

        Returns:
            ``(observations, rewards, terminateds, truncateds, infos)``: see the module
            docstring.

        Raises:
            RuntimeError: before ``reset`` or after the end of the episode.
            ValueError: if ``action_dict`` is not exactly the action of the agent to act.
            IllegalActionError: for an action that is not legal (or not an integer); the
                game is unchanged.
        """
        if not self._live:
            raise RuntimeError("the episode is over or not started: call reset() first")
        aec = self.aec_env
        agent = aec.agent_selection
        if not isinstance(action_dict, Mapping) or set(action_dict) != {agent}:
            given = sorted(action_dict) if isinstance(action_dict, Mapping) else action_dict
            raise ValueError(
                f"step() takes the action of {agent!r}, the one agent to act, as "
                f"{{{agent!r}: action}}; got {given!r}"
            )
        action = _as_action(action_dict[agent])
        try:
            aec.step(action)
        except IllegalActionError as error:
            raise IllegalActionError(f"{agent}: {error}; {_ILLEGAL_HINT}") from None
        rewards = {a: float(aec.rewards[a]) for a in self.possible_agents}
        terminated = all(aec.terminations[a] for a in self.possible_agents)
        truncated = all(aec.truncations[a] for a in self.possible_agents)
        if not (terminated or truncated):
            following = aec.agent_selection
            return (
                {following: self._observe(following)},
                rewards,
                {"__all__": False},
                {"__all__": False},
                {following: dict(aec.infos[following])},
            )
        self._live = False
        self.agents = []
        return (
            {a: self._observe(a) for a in self.possible_agents},
            rewards,
            {**dict.fromkeys(self.possible_agents, terminated), "__all__": terminated},
            {**dict.fromkeys(self.possible_agents, truncated), "__all__": truncated},
            {a: dict(aec.infos[a]) for a in self.possible_agents},
        )

    def render(self) -> str | None:
        """The AEC env's ``render()`` (``render_mode="ansi"``: the table as text)."""
        return self.aec_env.render()

    def close(self) -> None:
        """Close the AEC env (nothing to release: rendering is text only)."""
        self.aec_env.close()

    def _observe(self, agent: str) -> dict[str, np.ndarray]:
        obs = self.aec_env.observe(agent)
        return {OBS_KEY: obs["observation"], MASK_KEY: obs["action_mask"].astype(np.float32)}


def _as_action(action: Any) -> int:
    """An action id as an ``int``: a Python or NumPy integer, or a 0-d integer array (what
    RLlib's connectors hand over); anything else is refused, never rounded."""
    if isinstance(action, np.ndarray) and action.shape == ():
        action = action[()]
    if isinstance(action, bool | np.bool_) or not isinstance(action, int | np.integer):
        raise IllegalActionError(
            f"an action must be an integer action id, got {action!r} ({type(action).__name__})"
        )
    return int(action)


@functools.cache
def _env_class() -> type:
    """``MultiAgentGameEnv``: `_GameMultiAgent` with RLlib's ``MultiAgentEnv`` as its base,
    built on first use so that importing this module never imports Ray. It is reachable as
    ``caylus_env.integrations.rllib.MultiAgentGameEnv`` (pickled by that name)."""
    from ray.rllib.env.multi_agent_env import MultiAgentEnv

    return type(
        "MultiAgentGameEnv",
        (_GameMultiAgent, MultiAgentEnv),
        {"__module__": __name__, "__doc__": _GameMultiAgent.__doc__},
    )


def __getattr__(name: str) -> Any:
    """``MultiAgentGameEnv``, built (and Ray imported) on first access."""
    if name == "MultiAgentGameEnv":
        return _env_class()
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def make_env(config: Mapping[str, Any] | None = None, **kwargs: Any) -> Any:
    """A ``MultiAgentGameEnv`` of ``config`` (``game``, ``num_players``, ``reward``, the
    game's options); the env creator that `register` gives RLlib."""
    return _env_class()(config, **kwargs)


def _make_game_env(game: str, config: Mapping[str, Any] | None) -> Any:
    settings = dict(config or {})
    if settings.setdefault("game", game) != game:
        raise ValueError(
            f"env_config names game {settings['game']!r}, but the env {env_name(game)!r} "
            f"is {game!r}; drop 'game' from env_config or pick the env of that game"
        )
    return make_env(settings)


def env_name(game: str) -> str:
    """The name a game's env is registered under with Ray Tune (`register`)."""
    return f"caylus_env/{game_spec(game).env_name}"


def register(game: str) -> str:
    """Register the game's ``MultiAgentGameEnv`` by name with ``ray.tune.registry.register_env``
    (Ray keeps it in the cluster, so EnvRunners on any node build it) and return the name,
    for ``config.environment(env=name, env_config={...})``. Registering again is harmless;
    register after every ``ray.init`` of a new cluster (`ppo_config` does).

    Raises:
        ValueError: for a game that is not registered.
    """
    from ray.tune.registry import register_env

    name = env_name(game)
    register_env(name, functools.partial(_make_game_env, game_spec(game).name))
    return name


def map_to_shared(agent_id: str, episode: Any = None, **kwargs: Any) -> str:
    """The policy mapping of one module for every seat: always `SHARED_MODULE`."""
    return SHARED_MODULE


def map_to_seat(agent_id: str, episode: Any = None, **kwargs: Any) -> str:
    """The policy mapping of one module per seat: the seat's agent id (``player_0``, ...)."""
    return agent_id


def module_spec(
    game: str,
    num_players: int | None = None,
    *,
    per_seat: bool = False,
    model_config: Mapping[str, Any] | None = None,
    **options: Any,
) -> Any:
    """A ``MultiRLModuleSpec`` of RLlib's ``ActionMaskingTorchRLModule`` (PPO, torch) with the
    game's spaces: one module ``"shared"`` for every seat, or (``per_seat=True``) one module
    per seat named after its agent (``player_0``, ...). Pair it with `map_to_shared` /
    `map_to_seat` in ``config.multi_agent`` (`ppo_config` does).

    Args:
        game: a registered game.
        num_players: the player count (the game's default when None).
        per_seat: one module per seat instead of one shared module.
        model_config: the modules' ``model_config`` (RLlib's ``DefaultModelConfig`` keys,
            e.g. ``{"fcnet_hiddens": [256, 256]}``); RLlib's defaults when None.
        **options: the game's options (they fix nothing of the spaces, but are checked).

    Raises:
        ValueError: for an unknown game, player count or option.
    """
    from ray.rllib.core.rl_module.multi_rl_module import MultiRLModuleSpec
    from ray.rllib.core.rl_module.rl_module import RLModuleSpec
    from ray.rllib.examples.rl_modules.classes.action_masking_rlm import (
        ActionMaskingTorchRLModule,
    )

    env = _GameMultiAgent(game=game, num_players=num_players, **options)
    agent = env.possible_agents[0]
    ids = env.possible_agents if per_seat else [SHARED_MODULE]
    return MultiRLModuleSpec(
        rl_module_specs={
            module_id: RLModuleSpec(
                module_class=ActionMaskingTorchRLModule,
                observation_space=env.observation_spaces[agent],
                action_space=env.action_spaces[agent],
                model_config=dict(model_config or {}),
            )
            for module_id in ids
        }
    )


def ppo_config(
    game: str,
    num_players: int | None = None,
    *,
    reward: str = "rank",
    per_seat: bool = False,
    seed: int | None = None,
    model_config: Mapping[str, Any] | None = None,
    restart_failed_env_runners: bool = False,
    **options: Any,
) -> Any:
    """A ``PPOConfig`` (RLlib's new API stack) that trains masked PPO on ``game`` with no
    further setting; chain RLlib's own methods on it (``.env_runners(num_env_runners=8)``,
    ``.training(lr=...)``, ``.learners(num_learners=...)``) and call ``.build_algo()``.

    What it sets: the env registered by name (`register`) with ``env_config`` =
    ``{"num_players", "reward", **options}``; ``disable_env_checking=True`` (RLlib's
    pre-check plays an unmasked random action; the env raises on every illegal action
    instead); the masked modules of `module_spec` and their mapping; ``restart_failed_env_runners``
    (False: an EnvRunner that fails, e.g. on an illegal action, stops training; True: RLlib
    logs the error and restarts it, for clusters whose nodes come and go); and
    ``debugging(seed=seed)`` when a seed is given.

    Args:
        game: a registered game.
        num_players: the player count (the game's default when None).
        reward: ``"rank"`` (+1 first .. -1 last) or ``"margin"`` (score minus the table's mean).
        per_seat: one policy per seat instead of one shared by every seat.
        seed: RLlib's seed (each EnvRunner's first reset, torch, NumPy); None: unseeded.
        model_config: the modules' ``model_config``; RLlib's defaults when None.
        restart_failed_env_runners: RLlib's fault tolerance for EnvRunners.
        **options: the game's options (``GameConfig`` fields).

    Raises:
        ValueError: naming an unknown game, player count, reward or option.
    """
    from ray.rllib.algorithms.ppo import PPOConfig

    spec = game_spec(game)
    players = spec.default_players if num_players is None else num_players
    spec.config(players, **options)  # raises, naming a bad player count or option
    if reward not in REWARD_KINDS:
        raise ValueError(f"reward={reward!r} is not allowed; allowed: {list(REWARD_KINDS)}")
    modules = module_spec(
        spec.name, players, per_seat=per_seat, model_config=model_config, **options
    )
    config = (
        PPOConfig()
        .environment(
            env=register(spec.name),
            env_config={"num_players": players, "reward": reward, **options},
            disable_env_checking=True,
        )
        .multi_agent(
            policies=set(modules.rl_module_specs),
            policy_mapping_fn=map_to_seat if per_seat else map_to_shared,
        )
        .rl_module(rl_module_spec=modules)
        .fault_tolerance(restart_failed_env_runners=restart_failed_env_runners)
    )
    if seed is not None:
        config.debugging(seed=seed)
    return config


__all__ = [
    "MASK_KEY",
    "OBS_KEY",
    "SHARED_MODULE",
    "env_name",
    "make_env",
    "map_to_seat",
    "map_to_shared",
    "module_spec",
    "ppo_config",
    "register",
]
