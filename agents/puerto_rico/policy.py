"""Trained Puerto Rico policies as agents: ``policy:PATH[:greedy|:sample|:temp=T]``.

The Puerto Rico counterpart of ``agents.policy`` (Caylus's), reading the checkpoints that
``caylus train ppo --game puerto_rico`` (``training.puerto_rico``) writes, in the same
directory format (``config.json`` + ``model.safetensors``, format ``caylus-policy/1``):

* ``config.json`` names the game (``"game": "puerto_rico"``), the network (``arch``
  ``pr-mlp-v1``), the Puerto Rico observation and action-space versions it was trained on
  (``caylus_env.puerto_rico.observation.OBSERVATION_VERSION``,
  ``caylus_env.puerto_rico.engine.actions.ACTION_SPACE_VERSION``) and the SHA-256 of the
  weights;
* ``model.safetensors`` holds the weights (tensors and a JSON header, never code).

Loading reads JSON and safetensors only, so a checkpoint can never execute code. It is
refused, with an error naming what differs, when it is another game's checkpoint (a Caylus
checkpoint has no ``game`` field, or ``"caylus"``: the error names both games and their
versions), when its format or a version is not this build's, when the weights' checksum
does not match ``config.json``, or when a tensor is missing, has the wrong shape or holds
NaN.

The network (``pr-mlp-v1``): the observation goes through ``layers`` fully connected ReLU
layers for the policy (and as many, separately, for the value), then a linear head over the
``NUM_ACTIONS`` action ids: Stable-Baselines3's ``MlpPolicy`` with
``net_arch=dict(pi=layers, vf=layers)`` and ReLU, whose tensor names the checkpoint keeps.
The Puerto Rico observation is one flat vector of the public table (the encoder of
``caylus_env.puerto_rico.observation``), so no per-piece structure is assumed here.

It runs without torch, in a numba kernel that computes every row with a fixed summation
order: a game's moves never depend on which other games shared its batch (the training
opponent pool calls ``act_batch`` with every game waiting on the same checkpoint). The
modes and the sampling (``choose``, ``parse_mode``, ``resolve_path``) are the game-neutral
ones of ``agents.policy``.
"""

from __future__ import annotations

import functools
import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
from numba import njit

from agents.policy import (
    CHECKPOINT_FORMAT,
    CONFIG_FILE,
    WEIGHTS_FILE,
    CheckpointError,
    choose,
    load_weights,
    resolve_path,
)
from caylus_env.puerto_rico.engine import Game
from caylus_env.puerto_rico.engine.actions import ACTION_SPACE_VERSION, NUM_ACTIONS
from caylus_env.puerto_rico.engine.game import GAME_NAME

#: The network architecture this module runs and ``training.puerto_rico`` trains.
ARCH_NAME = "pr-mlp-v1"
#: The most hidden layers, and the widest, a checkpoint's ``arch`` may ask for.
MAX_LAYERS = 8
MAX_WIDTH = 4096
#: The game of a checkpoint whose ``config.json`` has no ``game`` field (Caylus's, which
#: predate the field).
UNNAMED_GAME = "caylus"


def _observation() -> Any:
    """The Puerto Rico observation encoder module (imported on first use)."""
    from caylus_env.puerto_rico import observation

    return observation


def versions() -> dict[str, str]:
    """The fields that tie a checkpoint to this build: the game and its observation and
    action-space versions (``config.json`` holds them; ``read_config`` checks them)."""
    return {
        "game": GAME_NAME,
        "observation_version": _observation().OBSERVATION_VERSION,
        "action_space_version": ACTION_SPACE_VERSION,
    }


@dataclass(frozen=True)
class Arch:
    """The sizes of a pr-mlp-v1 network (``config.json["arch"]``).

    Attributes:
        layers: the width of each hidden layer, shared by the policy and the value stacks.
    """

    layers: tuple[int, ...] = (256, 256)
    name: str = ARCH_NAME

    @classmethod
    def from_json(cls, d: Any) -> Arch:
        """Read ``config.json["arch"]``.

        Raises:
            CheckpointError: naming a missing, unknown or out-of-range field.
        """
        if not isinstance(d, dict):
            raise CheckpointError(f"config.json 'arch' must be an object, got {d!r}")
        if d.get("name") != ARCH_NAME:
            raise CheckpointError(
                f"config.json arch name {d.get('name')!r} is not supported by Puerto Rico "
                f"policies; allowed: {ARCH_NAME}"
            )
        unknown = sorted(set(d) - {"name", "layers"})
        if unknown:
            raise CheckpointError(f"config.json arch has unknown fields {unknown}")
        layers = d.get("layers", list(cls.layers))
        if (
            not isinstance(layers, list)
            or not 1 <= len(layers) <= MAX_LAYERS
            or not all(
                isinstance(w, int) and not isinstance(w, bool) and 1 <= w <= MAX_WIDTH
                for w in layers
            )
        ):
            raise CheckpointError(
                f"config.json arch.layers must be a list of 1 to {MAX_LAYERS} ints in "
                f"1..{MAX_WIDTH}, got {layers!r}"
            )
        return cls(tuple(layers))

    def to_json(self) -> dict[str, Any]:
        return {"name": self.name, "layers": list(self.layers)}

    def tensor_shapes(self) -> dict[str, tuple[int, ...]]:
        """Every weight of the network by its name in ``model.safetensors``: the names of the
        Stable-Baselines3 ``MlpPolicy`` that ``training.puerto_rico`` builds (each stack's
        ``Linear`` layers sit at even indices of its ``Sequential``, ReLUs in between)."""
        shapes: dict[str, tuple[int, ...]] = {}
        for stack in ("policy_net", "value_net"):
            width = _observation().OBS_SIZE
            for i, out in enumerate(self.layers):
                shapes[f"mlp_extractor.{stack}.{2 * i}.weight"] = (out, width)
                shapes[f"mlp_extractor.{stack}.{2 * i}.bias"] = (out,)
                width = out
        last = self.layers[-1]
        shapes["action_net.weight"] = (NUM_ACTIONS, last)
        shapes["action_net.bias"] = (NUM_ACTIONS,)
        shapes["value_net.weight"] = (1, last)
        shapes["value_net.bias"] = (1,)
        return shapes


def read_config(path: str | Path) -> dict[str, Any]:
    """Read and check a Puerto Rico checkpoint's ``config.json`` (no weights are read).

    Raises:
        CheckpointError: for a missing directory or file, malformed JSON, another format,
            another game's checkpoint (naming both games and their versions), or an
            observation or action-space version other than this build's (naming both).
    """
    directory = Path(path)
    if not directory.is_dir():
        raise CheckpointError(f"checkpoint {str(path)!r} is not a directory")
    cfg_path = directory / CONFIG_FILE
    try:
        cfg = json.loads(cfg_path.read_text())
    except FileNotFoundError:
        raise CheckpointError(f"checkpoint {str(path)!r} has no {CONFIG_FILE}") from None
    except (ValueError, UnicodeDecodeError) as err:
        raise CheckpointError(f"{cfg_path}: not valid JSON ({err})") from None
    if not isinstance(cfg, dict):
        raise CheckpointError(f"{cfg_path}: must hold a JSON object")
    if cfg.get("format") != CHECKPOINT_FORMAT:
        raise CheckpointError(
            f"{cfg_path}: format {cfg.get('format')!r} is not supported; "
            f"this build reads {CHECKPOINT_FORMAT!r}"
        )
    ours = versions()
    game = cfg.get("game", UNNAMED_GAME)
    if game != GAME_NAME:
        raise CheckpointError(
            f"{cfg_path}: this is a checkpoint of game {game!r} (observation_version "
            f"{cfg.get('observation_version')!r}, action_space_version "
            f"{cfg.get('action_space_version')!r}); a Puerto Rico policy needs game "
            f"{GAME_NAME!r} (observation_version {ours['observation_version']!r}, "
            f"action_space_version {ours['action_space_version']!r}): use it with --game {game}"
        )
    for key in ("observation_version", "action_space_version"):
        if cfg.get(key) != ours[key]:
            raise CheckpointError(
                f"{cfg_path}: the checkpoint was trained on Puerto Rico {key} {cfg.get(key)!r} "
                f"but this build has {ours[key]!r}; retrain it or use the caylus-env version "
                "that made it"
            )
    return cfg


@njit(cache=True)
def _dense_rows(x, w, b, relu, out):
    """``out[r] = x[r] @ w + b`` (then ReLU when ``relu``) row by row, summing over ``x[r]`` in
    index order and skipping zeros, so a row's result never depends on the other rows."""
    for r in range(x.shape[0]):
        row = out[r]
        row[:] = b
        xr = x[r]
        for i in range(xr.shape[0]):
            xi = xr[i]
            if xi != 0.0:
                for j in range(row.shape[0]):
                    row[j] += xi * w[i, j]
        if relu:
            for j in range(row.shape[0]):
                if row[j] < 0.0:
                    row[j] = 0.0


class PolicyNet:
    """A pr-mlp-v1 network evaluated without torch (float32), from a checkpoint directory.

    Args:
        path: the checkpoint directory.

    Raises:
        CheckpointError: see ``read_config``; also for a weights file whose checksum, tensor
            names, shapes or values do not fit ``config.json``.
    """

    def __init__(self, path: str | Path) -> None:
        self.path = Path(path)
        self.config = read_config(self.path)
        self.arch = Arch.from_json(self.config.get("arch"))
        w = load_weights(self.path, self.config, self.arch.tensor_shapes())
        self._policy_layers = self._stack(w, "policy_net", "action_net")
        self._value_layers = self._stack(w, "value_net", "value_net")
        self.num_players = tuple(self.config.get("num_players", ()))

    def _stack(
        self, w: dict[str, np.ndarray], stack: str, head: str
    ) -> list[tuple[np.ndarray, np.ndarray]]:
        """The (weight ``(in, out)``, bias) pairs of one stack and its head, in order."""
        names = [f"mlp_extractor.{stack}.{2 * i}" for i in range(len(self.arch.layers))]
        return [(w[f"{n}.weight"], w[f"{n}.bias"]) for n in [*names, head]]

    @staticmethod
    def _run(layers: list[tuple[np.ndarray, np.ndarray]], obs: np.ndarray) -> np.ndarray:
        x = np.ascontiguousarray(obs, np.float32).reshape(-1, layers[0][0].shape[0])
        for i, (weight, bias) in enumerate(layers):
            out = np.empty((x.shape[0], weight.shape[1]), np.float32)
            _dense_rows(x, weight, bias, i < len(layers) - 1, out)
            x = out
        return x

    def logits(self, obs: np.ndarray, mask: np.ndarray | None = None) -> np.ndarray:
        """Action logits ``(B, NUM_ACTIONS)`` float32 for observations ``(B, OBS_SIZE)``;
        illegal actions (``mask`` False) get ``-inf``. Each row alone, in a fixed order."""
        out = self._run(self._policy_layers, obs)
        if mask is not None:
            out[~np.asarray(mask, np.bool_)] = -np.inf
        return out

    def value(self, obs: np.ndarray) -> np.ndarray:
        """The value head ``(B,)``: the expected rank reward of the observing seat."""
        return self._run(self._value_layers, obs)[:, 0]


def _file_key(path: Path) -> tuple[str, int, int]:
    st = path.stat()
    return (str(path.resolve()), st.st_mtime_ns, st.st_size)


@functools.lru_cache(maxsize=16)
def _cached_net(config_key: tuple, weights_key: tuple) -> PolicyNet:
    return PolicyNet(Path(config_key[0]).parent)


def load_net(path: str | Path) -> PolicyNet:
    """``PolicyNet(path)``, loaded and checked once per process while its files are unchanged
    (a tournament creates its agents afresh for every game)."""
    directory = Path(path)
    try:
        keys = (_file_key(directory / CONFIG_FILE), _file_key(directory / WEIGHTS_FILE))
    except OSError:
        return PolicyNet(directory)  # raises the CheckpointError that names what is missing
    return _cached_net(*keys)


class PolicyAgent:
    """A trained network playing one Puerto Rico seat: the agent of ``policy:PATH[:mode]``.

    Args:
        name: the spec string.
        path: the checkpoint directory.
        temperature: 0 for greedy, else the sampling temperature.
        seed: seed of the sampling generator.
    """

    def __init__(
        self, name: str, path: str | Path, temperature: float = 0.0, seed: int | None = None
    ) -> None:
        self.name = name
        self.net = load_net(path)
        self.temperature = temperature
        self._rng = np.random.default_rng(seed)
        self._obs = np.zeros((1, _observation().OBS_SIZE), np.float32)
        self._mask = np.zeros((1, NUM_ACTIONS), np.bool_)

    def reset(self, seed: int | None = None) -> None:
        self._rng = np.random.default_rng(seed)

    def act(self, game: Game) -> int:
        legal = game.legal_actions()
        if not legal:
            raise ValueError(f"agent {self.name!r}: the game asks no decision")
        if len(legal) == 1:
            return legal[0]
        _observation().encode_into(game.state, game.current_player(), self._obs[0])
        self._mask[0] = False
        self._mask[0, legal] = True
        logits = self.net.logits(self._obs, self._mask)
        u = None if self.temperature == 0.0 else self._rng.random(1)
        return int(choose(logits, self.temperature, u)[0])

    def act_batch(
        self,
        obs: np.ndarray,
        mask: np.ndarray,
        uniforms: np.ndarray,
        states: np.ndarray | None = None,
    ) -> np.ndarray:
        """Actions for a batch of observations of the seats to act (games waiting on this
        policy): one network call for all of them; ``uniforms`` (one per game, in [0, 1))
        drive the sampling modes."""
        return choose(self.net.logits(obs, mask), self.temperature, uniforms)


def make_policy(spec: str, arg: str | None) -> PolicyAgent:
    """Factory of the ``policy`` spec head of the Puerto Rico registry.

    Raises:
        ValueError: for an empty path or a bad mode; ``CheckpointError`` (a ``ValueError``)
            for a checkpoint that must not be loaded.
    """
    path, temperature = resolve_path(arg or "")
    return PolicyAgent(spec, path, temperature)
