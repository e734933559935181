"""The policy network: ``pieces-v1``, built from the named observation pieces.

The observation (``caylus_env.caylus.observation.PIECES``, 2,004 floats padded to 5 seats) is
mostly three kinds of repeated structure, and the network reads each with one shared
encoder, as the pieces are laid out:

* **seats**: every piece indexed by relative seat (deniers, cubes, prestige, favor markers,
  turn order, castle houses, workers on the special buildings, ...) is gathered per seat
  (``agents.policy.SEAT_ROW_PIECES`` / ``SEAT_COLUMN_PIECES``) and encoded by one
  ``Linear(seat_width, seat_dim)`` shared by the 5 seats: what a seat's assets are worth does
  not depend on which seat holds them, and the seat order (relative to the observer) stays
  in the concatenation.
* **road spaces**: the tile, its owner, the workers, a pending lawyer, provost and bailiff
  of each of the 28 spaces (``ROAD_PIECES``) go through one ``Linear(space_width,
  space_dim)`` shared by the spaces.
* **the rest** (clock, options, the pending decision, castle, favor columns open, stock):
  one ``Linear(rest_width, global_dim)``.

ReLU, then a trunk ``Linear(global_dim + 5 seat_dim + 28 space_dim, hidden)`` + ReLU is the
shared feature vector; the policy and the value each add one ``Linear(hidden, head)`` + ReLU
(Stable-Baselines3's ``net_arch=dict(pi=[head], vf=[head])``), then the action logits
(masked by ``MaskablePPO``) and the value. With the defaults (32, 16, 128, 256, 128) that is
about 300k weights (1.2 MB as float32) and about 0.3 MFLOP a decision: a quarter of a plain
2004-256-256 MLP, so the updates, which dominate the training time on a CPU, are cheaper.

The same weights run without torch in ``agents.policy.PolicyNet`` (numba), which is what a
``policy:PATH`` agent uses; a test checks that both give the same logits.
"""

from __future__ import annotations

import torch
from gymnasium import spaces
from stable_baselines3.common.torch_layers import BaseFeaturesExtractor
from torch import nn

from agents.policy import Arch, observation_groups
from caylus_env.caylus.engine.board import ROAD_LEN
from caylus_env.caylus.engine.constants import MAX_PLAYERS


class PiecesExtractor(BaseFeaturesExtractor):
    """The shared part of pieces-v1 (SB3 ``features_extractor_class``); see the module doc.

    Args:
        observation_space: the env's ``Box(OBS_SIZE)``.
        arch: the sizes (``agents.policy.Arch``).
    """

    def __init__(self, observation_space: spaces.Box, arch: Arch | None = None) -> None:
        arch = arch or Arch()
        super().__init__(observation_space, features_dim=arch.hidden)
        seat, road, rest = observation_groups()
        self.register_buffer("seat_idx", torch.as_tensor(seat.reshape(-1)), persistent=False)
        self.register_buffer("road_idx", torch.as_tensor(road.reshape(-1)), persistent=False)
        self.register_buffer("rest_idx", torch.as_tensor(rest), persistent=False)
        self.seat_width = seat.shape[1]
        self.space_width = road.shape[1]
        self.seat = nn.Linear(self.seat_width, arch.seat_dim)
        self.space = nn.Linear(self.space_width, arch.space_dim)
        self.rest = nn.Linear(rest.shape[0], arch.global_dim)
        trunk_in = arch.global_dim + MAX_PLAYERS * arch.seat_dim + ROAD_LEN * arch.space_dim
        self.trunk = nn.Linear(trunk_in, arch.hidden)

    def forward(self, obs: torch.Tensor) -> torch.Tensor:
        b = obs.shape[0]
        seat = self.seat(obs.index_select(1, self.seat_idx).view(b, MAX_PLAYERS, -1))
        road = self.space(obs.index_select(1, self.road_idx).view(b, ROAD_LEN, -1))
        rest = self.rest(obs.index_select(1, self.rest_idx))
        x = torch.cat([rest, seat.reshape(b, -1), road.reshape(b, -1)], dim=1)
        return torch.relu(self.trunk(torch.relu(x)))


def policy_kwargs(arch: Arch) -> dict:
    """The ``policy_kwargs`` of ``MaskablePPO`` that build pieces-v1 with ``arch``."""
    return {
        "features_extractor_class": PiecesExtractor,
        "features_extractor_kwargs": {"arch": arch},
        "net_arch": {"pi": [arch.head], "vf": [arch.head]},
        "activation_fn": nn.ReLU,
        "share_features_extractor": True,
    }


def policy_tensors(policy: nn.Module) -> dict[str, torch.Tensor]:
    """The weights ``model.safetensors`` stores, by the names of ``Arch.tensor_shapes``
    (the shared extractor once, not its ``pi_``/``vf_`` aliases), as contiguous float32."""
    state = policy.state_dict()
    names = Arch().tensor_shapes().keys()
    return {name: state[name].detach().to(torch.float32).contiguous().clone() for name in names}
