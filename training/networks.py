"""The policy networks in torch, for every game: what ``agents.policy`` runs without torch.

Two networks (``agents.policy.ARCHS``), each built for a game from its observation layout
(``caylus_env.core.observation.ObservationLayout``) and action count, with the module names
of the Stable-Baselines3 policy that trains them, so ``model.safetensors`` holds the same
tensors whichever trainer wrote it (``MaskablePPO``, the CleanRL-style loop, behaviour
cloning):

* **pieces-v1** (every game's default). An observation is mostly repeated structure, and the
  network reads each kind with one shared encoder, as the game's layout declares it:

  - **seats**: every piece indexed by relative seat (``seat_pieces``: Caylus's deniers,
    cubes, prestige, favors, houses; Puerto Rico's doubloons, plantations, buildings, goods;
    and ``seat_column_pieces``: Caylus's workers on the special buildings) is gathered per
    seat and encoded by one ``Linear(seat_width, seat_dim)`` shared by the 5 seats: what a
    seat's assets are worth does not depend on which seat holds them, and the seat order
    (relative to the observer) stays in the concatenation;
  - **board spaces** (``space_pieces``: Caylus's 28 road spaces, their tile, owner, workers,
    pending lawyer, provost and bailiff) go through one ``Linear(space_width, space_dim)``
    shared by the spaces; a game without space pieces (Puerto Rico) has no such encoder;
  - **the rest** (clock, options, the pending decision, the supplies): one
    ``Linear(rest_width, global_dim)``.

  ReLU, then a trunk ``Linear`` + ReLU over the concatenation is the shared feature vector;
  the policy and the value each add one ``Linear(hidden, head)`` + ReLU (SB3's
  ``net_arch=dict(pi=[head], vf=[head])``), then the action logits (masked by
  ``MaskablePPO``) and the value. For Caylus, with the defaults (32, 16, 128, 256, 128), that
  is about 300k weights (1.2 MB as float32) and about 0.3 MFLOP a decision: a quarter of a
  plain 2004-256-256 MLP, so the updates, which dominate the training time on a CPU, are
  cheaper.
* **mlp-v1**: SB3's ``MlpPolicy`` with ReLU, ``layers`` for the policy and as many,
  separately, for the value.

The same weights run without torch in ``agents.policy.PolicyNet`` (numba), which is what a
``policy:PATH`` agent uses; a test checks that both give the same logits.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import torch
from gymnasium import spaces
from stable_baselines3.common.torch_layers import BaseFeaturesExtractor
from torch import nn

from agents.policy import Arch, MlpArch, PiecesArch, observation_groups
from caylus_env.core.registry import game_spec


def observation_space(game: str) -> spaces.Box:
    """The learner's observation space of ``game``: ``raw_env``'s observation vector."""
    observer = game_spec(game).observation()
    return spaces.Box(0.0, observer.BOUNDS, (observer.OBS_SIZE,), np.float32)


def action_space(game: str) -> spaces.Discrete:
    """``Discrete(NUM_ACTIONS)`` of ``game``."""
    return spaces.Discrete(int(game_spec(game).engine().NUM_ACTIONS))


class PiecesExtractor(BaseFeaturesExtractor):
    """The shared part of pieces-v1 (SB3 ``features_extractor_class``); see the module doc.

    Args:
        observation_space: the env's ``Box(OBS_SIZE)``.
        arch: the sizes.
        game: the game whose observation layout it reads.
    """

    def __init__(self, observation_space: spaces.Box, arch: PiecesArch, game: str) -> None:
        super().__init__(observation_space, features_dim=arch.hidden)
        seat, space, rest = observation_groups(game_spec(game).observation().LAYOUT)
        self.register_buffer("seat_idx", torch.as_tensor(seat.reshape(-1)), persistent=False)
        self.register_buffer("space_idx", torch.as_tensor(space.reshape(-1)), persistent=False)
        self.register_buffer("rest_idx", torch.as_tensor(rest), persistent=False)
        self.num_seats, self.num_spaces = seat.shape[0], space.shape[0]
        # Created in this order (seat, space, rest, trunk): the order torch's generator draws
        # their initial weights in.
        self.seat = nn.Linear(seat.shape[1], arch.seat_dim) if self.num_seats else None
        self.space = nn.Linear(space.shape[1], arch.space_dim) if self.num_spaces else None
        self.rest = nn.Linear(rest.shape[0], arch.global_dim)
        self.trunk = nn.Linear(arch.trunk_width(game), arch.hidden)

    def forward(self, obs: torch.Tensor) -> torch.Tensor:
        b = obs.shape[0]
        parts = [self.rest(obs.index_select(1, self.rest_idx))]
        for layer, idx, count in (
            (self.seat, self.seat_idx, self.num_seats),
            (self.space, self.space_idx, self.num_spaces),
        ):
            if layer is not None:
                parts.append(layer(obs.index_select(1, idx).view(b, count, -1)).reshape(b, -1))
        x = torch.cat(parts, dim=1)
        return torch.relu(self.trunk(torch.relu(x)))


def policy_kwargs(arch: Arch, game: str) -> dict[str, Any]:
    """The ``policy_kwargs`` of ``MaskablePPO`` (``MaskableActorCriticPolicy``) that build
    ``arch`` for ``game``."""
    if isinstance(arch, PiecesArch):
        return {
            "features_extractor_class": PiecesExtractor,
            "features_extractor_kwargs": {"arch": arch, "game": game},
            "net_arch": {"pi": [arch.head], "vf": [arch.head]},
            "activation_fn": nn.ReLU,
            "share_features_extractor": True,
        }
    layers = list(arch.layers)
    return {"net_arch": {"pi": layers, "vf": layers}, "activation_fn": nn.ReLU}


def policy_tensors(policy: nn.Module, arch: Arch, game: str) -> dict[str, torch.Tensor]:
    """The weights ``model.safetensors`` stores, by the names of ``arch.tensor_shapes`` (a
    shared extractor once, not its ``pi_``/``vf_`` aliases), as contiguous float32."""
    state = policy.state_dict()
    return {
        name: state[name].detach().to(torch.float32).contiguous().clone()
        for name in arch.tensor_shapes(game)
    }


def _stack(width: int, layers: tuple[int, ...] | list[int]) -> nn.Sequential:
    """SB3's ``MlpExtractor`` stack: ``Linear`` + ReLU per layer (``Linear`` at even indices)."""
    modules: list[nn.Module] = []
    for out in layers:
        modules += [nn.Linear(width, out), nn.ReLU()]
        width = out
    return nn.Sequential(*modules)


class ActorCritic(nn.Module):
    """``arch`` for ``game`` with SB3's module names and initialization, without SB3 (the
    CleanRL-style trainer): ``model.safetensors`` is the same format as ``MaskablePPO``'s."""

    def __init__(self, arch: Arch, game: str) -> None:
        super().__init__()
        space = observation_space(game)
        if isinstance(arch, PiecesArch):
            self.features_extractor: nn.Module = PiecesExtractor(space, arch, game)
            width, layers = arch.hidden, [arch.head]
        else:
            self.features_extractor = nn.Flatten()
            width, layers = int(space.shape[0]), list(arch.layers)
        self.mlp_extractor = nn.Module()
        self.mlp_extractor.policy_net = _stack(width, layers)
        self.mlp_extractor.value_net = _stack(width, layers)
        self.action_net = nn.Linear(layers[-1], action_space(game).n)
        self.value_net = nn.Linear(layers[-1], 1)
        # SB3's orthogonal initialization and gains (openai/baselines).
        for module, gain in (
            (self.features_extractor, np.sqrt(2)),
            (self.mlp_extractor, np.sqrt(2)),
            (self.action_net, 0.01),
            (self.value_net, 1.0),
        ):
            for m in module.modules():
                if isinstance(m, nn.Linear):
                    nn.init.orthogonal_(m.weight, gain=gain)
                    nn.init.zeros_(m.bias)

    def forward(self, obs: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        """Action logits ``(B, NUM_ACTIONS)`` and values ``(B,)``."""
        h = self.features_extractor(obs)
        logits = self.action_net(self.mlp_extractor.policy_net(h))
        return logits, self.value_net(self.mlp_extractor.value_net(h))[:, 0]


def masked_policy(arch: Arch, game: str, learning_rate: float) -> Any:
    """A fresh ``MaskableActorCriticPolicy`` of ``arch`` for ``game`` over the learner's
    spaces, exactly as ``MaskablePPO`` builds it (behaviour cloning, the benchmark)."""
    from sb3_contrib.common.maskable.policies import MaskableActorCriticPolicy

    return MaskableActorCriticPolicy(
        observation_space(game),
        action_space(game),
        lambda _: learning_rate,
        **policy_kwargs(arch, game),
    )


__all__ = [
    "ActorCritic",
    "MlpArch",
    "PiecesExtractor",
    "action_space",
    "masked_policy",
    "observation_space",
    "policy_kwargs",
    "policy_tensors",
]
