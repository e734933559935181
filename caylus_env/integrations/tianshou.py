"""Tianshou 2.0 adapter: masked DQN and PPO on every game, one policy per seat or one shared.

Tianshou plays PettingZoo AEC envs through its own ``tianshou.env.PettingZooEnv``, which
turns the observation dict into ``Batch(agent_id, obs, mask)``; the games need no wrapper of
their own for it (``env.seed(s)``, NumPy integer actions and unseeded resets follow the
Gymnasium/PettingZoo conventions). This module adds what Tianshou leaves to the user:

- `make_env`: ``PettingZooEnv`` over a game's ``raw_env``, so an illegal action raises
  (``IllegalActionError``) instead of ending the game quietly with -1.
- `q_network`, `masked_actor`, `critic`: networks over the observation vector. Tianshou's DQN
  masks Q-values with ``obs.mask`` by itself; its actor policies do not, so `masked_actor`
  gives illegal actions a probability of exactly 0 (its critic and actor read ``obs.obs``).
- `multi_agent_dqn`, `multi_agent_ppo`: Tianshou's ``MultiAgentOffPolicyAlgorithm`` /
  ``MultiAgentOnPolicyAlgorithm`` over masked DQN / PPO, one per seat or one shared by all.
- `SeatReplayBuffer`: the fix of the final reward. Tianshou records one stream of
  transitions for the whole table, each with the reward vector of every seat, and gives
  seat ``i`` the transitions it acted in. The game's final rewards arrive on the transition
  that ends the game, which belongs to the last mover: every other seat's last transition
  keeps a reward of 0, is not terminal, and bootstraps from another seat's observation, so
  only the last mover ever learns the result. `SeatReplayBuffer` (a ``VectorReplayBuffer``)
  rewrites, as transitions arrive, each seat's ``obs_next`` to that seat's own next
  observation and, when a game ends, puts every seat's final reward on its own last
  transition and marks it terminal (truncated for a game cut off by its decision cap).
  Use it with 1-step returns (DQN's ``n_step_return_horizon=1``, the default here): n-step
  returns run along the shared stream, across the other seats' moves.

Tianshou is optional (``pip install caylus-env[tianshou]``); it and torch are imported when
a function here is first called. Example (see docs/integrations.md)::

    from tianshou.data import Collector
    from tianshou.env import DummyVectorEnv
    from tianshou.trainer import OffPolicyTrainerParams
    from caylus_env.integrations import tianshou as ts

    envs = DummyVectorEnv([lambda: ts.make_env("caylus", num_players=2)] * 4)
    algorithm = ts.multi_agent_dqn(ts.make_env("caylus", num_players=2))
    buffer = ts.SeatReplayBuffer(20_000, len(envs), algorithm)
    collector = Collector(algorithm, envs, buffer, exploration_noise=True)
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

__all__ = [
    "SeatReplayBuffer",
    "critic",
    "make_env",
    "masked_actor",
    "multi_agent_dqn",
    "multi_agent_ppo",
    "q_network",
]

#: Hidden layer sizes of the networks built here unless told otherwise.
HIDDEN = (256, 256)


def _tianshou() -> Any:
    try:
        import tianshou
    except ImportError as err:
        raise ImportError(
            f"caylus_env.integrations.tianshou needs Tianshou ({err}); install the extra: "
            "pip install caylus-env[tianshou]"
        ) from err
    return tianshou


def make_env(game: str, **kwargs: Any) -> Any:
    """Tianshou's ``PettingZooEnv`` over ``game``'s ``raw_env``.

    Args:
        game: a registered game's name.
        **kwargs: ``num_players``, ``reward`` and the game's options.
    """
    _tianshou()
    from tianshou.env import PettingZooEnv

    import caylus_env

    return PettingZooEnv(caylus_env.make(game, wrapped=False, **kwargs))


def _sizes(env: Any) -> tuple[int, int]:
    """The observation vector's size and the number of actions of a ``PettingZooEnv``."""
    space = env.observation_space
    obs = space["observation"] if hasattr(space, "spaces") else space
    return int(obs.shape[0]), int(env.action_space.n)


def q_network(env: Any, hidden: Sequence[int] = HIDDEN) -> Any:
    """Tianshou's ``Net`` from the observation vector to one Q-value per action (Tianshou's
    DQN masks illegal actions with ``obs.mask`` itself)."""
    _tianshou()
    from tianshou.utils.net.common import Net

    size, actions = _sizes(env)
    return Net(state_shape=size, action_shape=actions, hidden_sizes=list(hidden))


def _obs_vector(obs: Any) -> Any:
    return obs.obs if hasattr(obs, "obs") else obs


def masked_actor(env: Any, hidden: Sequence[int] = HIDDEN) -> Any:
    """An actor for Tianshou's ``DiscreteActorPolicy``: logits over the actions from
    ``obs.obs``, illegal actions (``obs.mask`` False) at the smallest float, so that their
    probability is exactly 0 and the entropy stays finite."""
    _tianshou()
    import torch
    from tianshou.utils.net.common import Net

    size, actions = _sizes(env)

    class MaskedActor(torch.nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.net = Net(state_shape=size, action_shape=actions, hidden_sizes=list(hidden))

        def forward(self, obs: Any, state: Any = None, info: Any = None) -> tuple[Any, Any]:
            logits, state = self.net(_obs_vector(obs), state)
            if hasattr(obs, "mask"):
                legal = torch.as_tensor(obs.mask, dtype=torch.bool, device=logits.device)
                logits = logits.masked_fill(~legal, torch.finfo(logits.dtype).min)
            return logits, state

    return MaskedActor()


def critic(env: Any, hidden: Sequence[int] = HIDDEN) -> Any:
    """A value network for Tianshou's PPO: ``obs.obs`` to one value."""
    _tianshou()
    import torch
    from tianshou.utils.net.common import Net

    size, _ = _sizes(env)

    class Critic(torch.nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.net = Net(state_shape=size, action_shape=1, hidden_sizes=list(hidden))

        def forward(self, obs: Any, state: Any = None, info: Any = None) -> Any:
            return self.net(_obs_vector(obs))[0]

    return Critic()


def _per_seat(env: Any, shared: bool, build: Any) -> list[Any]:
    if shared:
        one = build()
        return [one] * len(env.agents)
    return [build() for _ in env.agents]


def multi_agent_dqn(
    env: Any,
    shared: bool = False,
    hidden: Sequence[int] = HIDDEN,
    lr: float = 1e-4,
    gamma: float = 0.99,
    eps_training: float = 0.1,
    eps_inference: float = 0.0,
    target_update_freq: int = 320,
) -> Any:
    """Masked DQN for every seat: Tianshou's ``MultiAgentOffPolicyAlgorithm``.

    Args:
        env: a `make_env` env (its spaces and agents).
        shared: one DQN (one network) for every seat instead of one per seat.
        hidden: the Q-network's hidden layer sizes.
        lr: Adam's learning rate.
        gamma: the discount (1-step returns; see `SeatReplayBuffer`).
        eps_training: the epsilon-greedy exploration while training.
        eps_inference: the epsilon-greedy exploration when the policy plays.
        target_update_freq: the updates between two copies of the target network.
    """
    _tianshou()
    from tianshou.algorithm import DQN, MultiAgentOffPolicyAlgorithm
    from tianshou.algorithm.modelfree.dqn import DiscreteQLearningPolicy
    from tianshou.algorithm.optim import AdamOptimizerFactory

    def build() -> Any:
        policy = DiscreteQLearningPolicy(
            model=q_network(env, hidden),
            action_space=env.action_space,
            eps_training=eps_training,
            eps_inference=eps_inference,
        )
        return DQN(
            policy=policy,
            optim=AdamOptimizerFactory(lr=lr),
            gamma=gamma,
            n_step_return_horizon=1,
            target_update_freq=target_update_freq,
        )

    return MultiAgentOffPolicyAlgorithm(algorithms=_per_seat(env, shared, build), env=env)


def multi_agent_ppo(
    env: Any,
    shared: bool = False,
    hidden: Sequence[int] = HIDDEN,
    lr: float = 3e-4,
    gamma: float = 0.99,
    **ppo: Any,
) -> Any:
    """Masked PPO for every seat: Tianshou's ``MultiAgentOnPolicyAlgorithm``.

    Args:
        env: a `make_env` env (its spaces and agents).
        shared: one PPO (one actor and critic) for every seat instead of one per seat.
        hidden: the actor's and the critic's hidden layer sizes.
        lr: Adam's learning rate.
        gamma: the discount.
        **ppo: more of Tianshou's ``PPO`` arguments (``eps_clip``, ``ent_coef``, ...).
    """
    _tianshou()
    from tianshou.algorithm import PPO
    from tianshou.algorithm.modelfree.reinforce import DiscreteActorPolicy
    from tianshou.algorithm.multiagent.marl import MultiAgentOnPolicyAlgorithm
    from tianshou.algorithm.optim import AdamOptimizerFactory

    def build() -> Any:
        policy = DiscreteActorPolicy(actor=masked_actor(env, hidden), action_space=env.action_space)
        return PPO(
            policy=policy,
            critic=critic(env, hidden),
            optim=AdamOptimizerFactory(lr=lr),
            gamma=gamma,
            **ppo,
        )

    return MultiAgentOnPolicyAlgorithm(algorithms=_per_seat(env, shared, build), env=env)


def _seat_buffer_class() -> type:
    _tianshou()
    import numpy as np
    from tianshou.data import VectorReplayBuffer

    class _SeatReplayBuffer(VectorReplayBuffer):
        """See `SeatReplayBuffer`."""

        def __init__(self, total_size: int, buffer_num: int, agents: Sequence[Any]) -> None:
            super().__init__(total_size, buffer_num)
            self.seat_agents = list(agents)
            self._column = {a: i for i, a in enumerate(self.seat_agents)}
            # per sub-buffer: agent id -> the index of its latest transition this episode
            self._latest: list[dict[Any, int]] = [{} for _ in range(buffer_num)]

        def reset(self, keep_statistics: bool = False) -> None:
            super().reset(keep_statistics=keep_statistics)
            self._latest = [{} for _ in range(self.buffer_num)]

        def add(self, batch: Any, buffer_ids: Any = None) -> Any:
            result = super().add(batch, buffer_ids)
            ids = np.arange(self.buffer_num) if buffer_ids is None else np.asarray(buffer_ids)
            meta = self._meta
            for buffer_id, index in zip(ids, result[0], strict=True):
                latest = self._latest[int(buffer_id)]
                agent = meta.obs.agent_id[index]
                before = latest.get(agent)
                if before is not None and meta.obs.agent_id[before] == agent:
                    meta.obs_next[before] = meta.obs[index]  # the seat's own next view
                latest[agent] = int(index)
                if meta.done[index]:
                    for other, last in latest.items():
                        if other == agent or meta.obs.agent_id[last] != other:
                            continue
                        column = self._column[other]
                        meta.rew[last, column] = meta.rew[index, column]
                        meta.terminated[last] = meta.terminated[index]
                        meta.truncated[last] = meta.truncated[index]
                        meta.done[last] = True
                    latest.clear()
            return result

    return _SeatReplayBuffer


def SeatReplayBuffer(total_size: int, buffer_num: int, algorithm_or_agents: Any) -> Any:
    """A ``VectorReplayBuffer`` that gives every seat its own final reward (see the module
    docstring).

    Args:
        total_size: the buffer's size, split among ``buffer_num`` envs (each sub-buffer must
            hold a whole game, or the oldest transitions of a long game are not credited).
        buffer_num: the number of envs of the collector.
        algorithm_or_agents: the multi-agent algorithm (its policies, one per agent in the
            env's order, give the agents' reward columns), or the env's agents in order.
    """
    policy = getattr(algorithm_or_agents, "policy", None)
    policies = getattr(policy, "policies", None)
    agents = list(policies) if policies is not None else list(algorithm_or_agents)
    return _seat_buffer_class()(total_size, buffer_num, agents)
