"""Trained policies as agents: ``policy:PATH[:greedy|:sample|:temp=T]``.

A checkpoint directory written by ``training`` (``caylus train ppo``) holds:

=====================  ===================================================================
file                   what it is
=====================  ===================================================================
``config.json``        format ``caylus-policy/1``; the network (``arch``), the observation
                       and action-space versions it was trained on, the player counts, the
                       training step, seed, parent checkpoint, the exact command, and the
                       SHA-256 of ``model.safetensors``
``model.safetensors``  the network's weights (safetensors: tensors and a JSON header, never
                       code)
``sb3.zip`` and        what ``caylus train ppo --resume`` needs (training checkpoints only;
``resume.*``           never read by this module)
=====================  ===================================================================

Loading reads JSON and safetensors only, so a checkpoint can never execute code. It is
refused, with an error naming what differs, when its format, observation version or action
space version is not this build's (``caylus_env.caylus.observation.OBSERVATION_VERSION``,
``caylus_env.caylus.engine.actions.ACTION_SPACE_VERSION``), when the weights' checksum does not
match ``config.json`` (a tampered or truncated file), or when a tensor is missing or has the
wrong shape.

The network (``arch`` ``pieces-v1``, documented in ``training/networks.py``, which trains it)
runs here without torch, in a numba kernel: an agent needs neither torch nor a GPU, and one
decision (encoding the observation included) costs tens of microseconds on one core
(``caylus bench --training``). ``PolicyNet.logits`` takes a whole batch (the training
opponent pool and the evaluation matches call it with every game waiting on the same
checkpoint) and computes each row with a fixed summation order, so a game's moves never
depend on which other games shared its batch.

Modes: ``greedy`` (the default) plays the most probable legal action; ``sample`` draws from
the masked softmax with the agent's seeded generator; ``temp=T`` samples from the softmax of
``logits / T`` (T > 0; small T approaches greedy).
"""

from __future__ import annotations

import functools
import hashlib
import json
import math
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
from numba import njit

from caylus_env.caylus.engine import Game
from caylus_env.caylus.engine.actions import ACTION_SPACE_VERSION, NUM_ACTIONS
from caylus_env.caylus.engine.board import ROAD_LEN
from caylus_env.caylus.engine.constants import MAX_PLAYERS
from caylus_env.caylus.observation import (
    OBS_SIZE,
    OBSERVATION_VERSION,
    PIECE_SLICES,
    PIECES,
    encode,
)

#: The checkpoint format this module reads and ``training`` writes.
CHECKPOINT_FORMAT = "caylus-policy/1"
CONFIG_FILE = "config.json"
WEIGHTS_FILE = "model.safetensors"
#: Built-in checkpoints shipped inside the package (spec ``ppo-2p`` = ``policy:<this>/ppo-2p``).
SHIPPED_DIR = Path(__file__).parent / "checkpoints"

# -- the pieces-v1 network's view of the observation ---------------------------------------
ARCH_NAME = "pieces-v1"
#: Observation pieces with one row per relative seat (first axis = seat).
SEAT_ROW_PIECES = (
    "decision_player",
    "seat_present",
    "money",
    "cubes",
    "prestige",
    "workers_available",
    "favor_columns",
    "rows_used",
    "passed",
    "turn_order_position",
    "passing_position",
    "inn_resident",
    "in_castle",
    "in_stables",
    "castle_houses",
    "houses",
    "batches_this_turn",
    "residences",
)
#: Pieces with one column per relative seat (last axis = seat): workers on special buildings.
SEAT_COLUMN_PIECES = ("special_workers", "stables", "inn", "castle_spots")
#: Pieces with one row per road space (first axis = space 1..28).
ROAD_PIECES = (
    "road_building",
    "road_owner",
    "road_worker",
    "road_lawyer_pending",
    "provost",
    "bailiff",
)


def _piece_index(name: str) -> np.ndarray:
    """The observation indices of piece ``name`` in its own shape."""
    s = PIECE_SLICES[name]
    return np.arange(s.start, s.stop).reshape(dict(PIECES)[name])


def observation_groups() -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Index arrays that split an observation for the pieces-v1 network.

    Returns:
        ``seat (MAX_PLAYERS, seat_width)``: every seat piece's row or column of each
        relative seat; ``road (ROAD_LEN, space_width)``: every road piece's entry of each
        space; ``rest (global_width,)``: every other observation index (the clock, the
        decision, the castle, the stock). Together they cover each index exactly once.
    """
    seat = [
        np.concatenate(
            [_piece_index(n)[p].reshape(-1) for n in SEAT_ROW_PIECES]
            + [_piece_index(n)[..., p].reshape(-1) for n in SEAT_COLUMN_PIECES]
        )
        for p in range(MAX_PLAYERS)
    ]
    road = [
        np.concatenate([_piece_index(n)[i].reshape(-1) for n in ROAD_PIECES])
        for i in range(ROAD_LEN)
    ]
    grouped = set(SEAT_ROW_PIECES) | set(SEAT_COLUMN_PIECES) | set(ROAD_PIECES)
    rest = np.concatenate([_piece_index(n).reshape(-1) for n, _ in PIECES if n not in grouped])
    return np.stack(seat).astype(np.int64), np.stack(road).astype(np.int64), rest.astype(np.int64)


@dataclass(frozen=True)
class Arch:
    """The sizes of a pieces-v1 network (``config.json["arch"]``).

    Attributes:
        seat_dim: features of each seat's encoder (shared by the seats).
        space_dim: features of each road space's encoder (shared by the spaces).
        global_dim: features of the encoder of the other pieces.
        hidden: width of the trunk layer that reads all of them.
        head: width of the policy's and the value's own hidden layer.
    """

    seat_dim: int = 32
    space_dim: int = 16
    global_dim: int = 128
    hidden: int = 256
    head: int = 128
    name: str = ARCH_NAME

    @classmethod
    def from_json(cls, d: Any) -> Arch:
        """Read ``config.json["arch"]``.

        Raises:
            CheckpointError: naming a missing, unknown or non-positive field.
        """
        if not isinstance(d, dict):
            raise CheckpointError(f"config.json 'arch' must be an object, got {d!r}")
        if d.get("name") != ARCH_NAME:
            raise CheckpointError(
                f"config.json arch name {d.get('name')!r} is not supported; allowed: {ARCH_NAME}"
            )
        fields = ("seat_dim", "space_dim", "global_dim", "hidden", "head")
        unknown = sorted(set(d) - set(fields) - {"name"})
        if unknown:
            raise CheckpointError(f"config.json arch has unknown fields {unknown}")
        values = {}
        for f in fields:
            v = d.get(f, getattr(cls, f))
            if isinstance(v, bool) or not isinstance(v, int) or not 1 <= v <= 4096:
                raise CheckpointError(f"config.json arch.{f} must be an int in 1..4096, got {v!r}")
            values[f] = v
        return cls(**values)

    def to_json(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "seat_dim": self.seat_dim,
            "space_dim": self.space_dim,
            "global_dim": self.global_dim,
            "hidden": self.hidden,
            "head": self.head,
        }

    def tensor_shapes(self) -> dict[str, tuple[int, ...]]:
        """Every weight the network has, by its name in ``model.safetensors``: the names of
        the Stable-Baselines3 policy that ``training`` builds (``features_extractor``, then
        ``mlp_extractor``'s policy and value layers, then the two heads)."""
        seat, road, rest = observation_groups()
        trunk_in = self.global_dim + MAX_PLAYERS * self.seat_dim + ROAD_LEN * self.space_dim
        shapes = {
            "features_extractor.seat.weight": (self.seat_dim, seat.shape[1]),
            "features_extractor.seat.bias": (self.seat_dim,),
            "features_extractor.space.weight": (self.space_dim, road.shape[1]),
            "features_extractor.space.bias": (self.space_dim,),
            "features_extractor.rest.weight": (self.global_dim, rest.shape[0]),
            "features_extractor.rest.bias": (self.global_dim,),
            "features_extractor.trunk.weight": (self.hidden, trunk_in),
            "features_extractor.trunk.bias": (self.hidden,),
            "mlp_extractor.policy_net.0.weight": (self.head, self.hidden),
            "mlp_extractor.policy_net.0.bias": (self.head,),
            "mlp_extractor.value_net.0.weight": (self.head, self.hidden),
            "mlp_extractor.value_net.0.bias": (self.head,),
            "action_net.weight": (NUM_ACTIONS, self.head),
            "action_net.bias": (NUM_ACTIONS,),
            "value_net.weight": (1, self.head),
            "value_net.bias": (1,),
        }
        return shapes


class CheckpointError(ValueError):
    """A checkpoint that this build cannot or must not load; the message says why."""


def _sha256(path: Path) -> str:
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for chunk in iter(lambda: f.read(1 << 20), b""):
            h.update(chunk)
    return h.hexdigest()


def read_config(path: str | Path) -> dict[str, Any]:
    """Read and check a checkpoint's ``config.json`` (no weights are read).

    Raises:
        CheckpointError: for a missing directory or file, malformed JSON, another format,
            or an observation or action-space version other than this build's (naming both).
    """
    directory = Path(path)
    if not directory.is_dir():
        raise CheckpointError(f"checkpoint {str(path)!r} is not a directory")
    cfg_path = directory / CONFIG_FILE
    try:
        cfg = json.loads(cfg_path.read_text())
    except FileNotFoundError:
        raise CheckpointError(f"checkpoint {str(path)!r} has no {CONFIG_FILE}") from None
    except (json.JSONDecodeError, UnicodeDecodeError) as err:
        raise CheckpointError(f"{cfg_path}: not valid JSON ({err})") from None
    if not isinstance(cfg, dict):
        raise CheckpointError(f"{cfg_path}: must hold a JSON object")
    if cfg.get("format") != CHECKPOINT_FORMAT:
        raise CheckpointError(
            f"{cfg_path}: format {cfg.get('format')!r} is not supported; "
            f"this build reads {CHECKPOINT_FORMAT!r}"
        )
    for key, ours in (
        ("observation_version", OBSERVATION_VERSION),
        ("action_space_version", ACTION_SPACE_VERSION),
    ):
        if cfg.get(key) != ours:
            raise CheckpointError(
                f"{cfg_path}: the checkpoint was trained on {key} {cfg.get(key)!r} but this "
                f"build has {ours!r}; retrain it or use the caylus-env version that made it"
            )
    return cfg


@njit(cache=True)
def _dense(x, w, b, out):
    """``out = x @ w + b`` for one row, summing over ``x`` in index order (zeros skipped:
    most of the observation is one-hot), so a row's result never depends on the others."""
    out[:] = b
    for i in range(x.shape[0]):
        xi = x[i]
        if xi != 0.0:
            for j in range(out.shape[0]):
                out[j] += xi * w[i, j]


@njit(cache=True)
def _relu(x):
    for i in range(x.shape[0]):
        if x[i] < 0.0:
            x[i] = 0.0


@njit(cache=True)
def _logits_rows(obs, seat_idx, road_idx, rest_idx, w, out):
    """The policy logits of every row of ``obs``, row by row (see ``PolicyNet.logits``).

    ``w`` holds, in order: seat, space, rest, trunk, policy layer and action head, each as
    (weight ``(in, out)``, bias) pairs.
    """
    seat_w, seat_b, space_w, space_b, rest_w, rest_b, trunk_w, trunk_b = w[:8]
    pol_w, pol_b, act_w, act_b = w[8:]
    n_seats, seat_dim = seat_idx.shape[0], seat_b.shape[0]
    n_spaces, space_dim = road_idx.shape[0], space_b.shape[0]
    rest_dim = rest_b.shape[0]
    cat = np.empty(rest_dim + n_seats * seat_dim + n_spaces * space_dim, np.float32)
    gather_seat = np.empty(seat_idx.shape[1], np.float32)
    gather_road = np.empty(road_idx.shape[1], np.float32)
    gather_rest = np.empty(rest_idx.shape[0], np.float32)
    hidden = np.empty(trunk_b.shape[0], np.float32)
    head = np.empty(pol_b.shape[0], np.float32)
    for r in range(obs.shape[0]):
        x = obs[r]
        for i in range(rest_idx.shape[0]):
            gather_rest[i] = x[rest_idx[i]]
        _dense(gather_rest, rest_w, rest_b, cat[:rest_dim])
        for p in range(n_seats):
            for i in range(seat_idx.shape[1]):
                gather_seat[i] = x[seat_idx[p, i]]
            start = rest_dim + p * seat_dim
            _dense(gather_seat, seat_w, seat_b, cat[start : start + seat_dim])
        base = rest_dim + n_seats * seat_dim
        for q in range(n_spaces):
            for i in range(road_idx.shape[1]):
                gather_road[i] = x[road_idx[q, i]]
            start = base + q * space_dim
            _dense(gather_road, space_w, space_b, cat[start : start + space_dim])
        _relu(cat)
        _dense(cat, trunk_w, trunk_b, hidden)
        _relu(hidden)
        _dense(hidden, pol_w, pol_b, head)
        _relu(head)
        _dense(head, act_w, act_b, out[r])


def load_weights(
    path: Path, config: dict[str, Any], shapes: dict[str, tuple[int, ...]]
) -> dict[str, np.ndarray]:
    """The weights of the checkpoint directory ``path``, checked against its ``config.json``
    (SHA-256, tensor names and float32 shapes of the arch, finite values) and stored transposed
    (inputs x outputs) for ``x @ W``. Read with safetensors only: nothing in the file runs.
    Shared by every game's ``policy:PATH`` (``agents.puerto_rico.policy``).

    Raises:
        CheckpointError: naming the file and what does not fit.
    """
    from safetensors import SafetensorError
    from safetensors.numpy import load_file

    weights = path / WEIGHTS_FILE
    if not weights.is_file():
        raise CheckpointError(f"checkpoint {str(path)!r} has no {WEIGHTS_FILE}")
    expected = config.get("sha256", {}).get(WEIGHTS_FILE)
    actual = _sha256(weights)
    if actual != expected:
        raise CheckpointError(
            f"{weights}: SHA-256 {actual[:16]}... does not match config.json's "
            f"{str(expected)[:16]}...: the file was changed or truncated"
        )
    try:
        tensors = load_file(str(weights))
    except (SafetensorError, OSError, ValueError) as err:
        raise CheckpointError(f"{weights}: not a readable safetensors file ({err})") from None
    missing = sorted(set(shapes) - set(tensors))
    if missing:
        raise CheckpointError(f"{weights}: missing tensors {missing}")
    for name, shape in shapes.items():
        t = tensors[name]
        if tuple(t.shape) != shape or t.dtype != np.float32:
            raise CheckpointError(
                f"{weights}: tensor {name} is {t.dtype}{tuple(t.shape)}, "
                f"the arch in config.json needs float32{shape}"
            )
        if not np.isfinite(t).all():
            raise CheckpointError(f"{weights}: tensor {name} holds NaN or infinite values")
    return {name: np.ascontiguousarray(tensors[name].T) for name in shapes}


class PolicyNet:
    """A pieces-v1 network evaluated without torch (float32), from a checkpoint directory.

    Args:
        path: the checkpoint directory.

    Raises:
        CheckpointError: see ``read_config``; also for a weights file whose checksum, tensor
            names or shapes do not match ``config.json``.
    """

    def __init__(self, path: str | Path) -> None:
        self.path = Path(path)
        self.config = read_config(self.path)
        self.arch = Arch.from_json(self.config.get("arch"))
        w = load_weights(self.path, self.config, self.arch.tensor_shapes())
        self._seat_idx, self._road_idx, self._rest_idx = observation_groups()
        self._w = w
        layers = ("seat", "space", "rest", "trunk")
        self._policy_w = (
            *(
                w[f"features_extractor.{name}.{part}"]
                for name in layers
                for part in ("weight", "bias")
            ),
            w["mlp_extractor.policy_net.0.weight"],
            w["mlp_extractor.policy_net.0.bias"],
            w["action_net.weight"],
            w["action_net.bias"],
        )
        self.num_players = tuple(self.config.get("num_players", ()))

    def _trunk(self, obs: np.ndarray) -> np.ndarray:
        w = self._w
        b = obs.shape[0]
        seat = obs[:, self._seat_idx] @ w["features_extractor.seat.weight"]
        seat += w["features_extractor.seat.bias"]
        road = obs[:, self._road_idx] @ w["features_extractor.space.weight"]
        road += w["features_extractor.space.bias"]
        rest = obs[:, self._rest_idx] @ w["features_extractor.rest.weight"]
        rest += w["features_extractor.rest.bias"]
        x = np.concatenate([rest, seat.reshape(b, -1), road.reshape(b, -1)], axis=1)
        np.maximum(x, 0.0, out=x)
        h = x @ w["features_extractor.trunk.weight"]
        h += w["features_extractor.trunk.bias"]
        return np.maximum(h, 0.0, out=h)

    def logits(self, obs: np.ndarray, mask: np.ndarray | None = None) -> np.ndarray:
        """Action logits ``(B, NUM_ACTIONS)`` float32 for observations ``(B, OBS_SIZE)``;
        illegal actions (``mask`` False) get ``-inf``.

        Computed row by row in compiled code with a fixed summation order, so a row's logits
        are the same bits whatever else is in the batch (BLAS would change the last bits
        with the batch size, and a greedy choice between near-equal actions with them):
        batching games never changes a game.
        """
        x = np.ascontiguousarray(obs, np.float32).reshape(-1, OBS_SIZE)
        out = np.empty((x.shape[0], NUM_ACTIONS), np.float32)
        _logits_rows(x, self._seat_idx, self._road_idx, self._rest_idx, self._policy_w, out)
        if mask is not None:
            out[~np.asarray(mask, np.bool_)] = -np.inf
        return out

    def value(self, obs: np.ndarray) -> np.ndarray:
        """The value head ``(B,)``: the expected rank reward of the observing seat."""
        w = self._w
        h = self._trunk(np.asarray(obs, np.float32))
        v = h @ w["mlp_extractor.value_net.0.weight"]
        v += w["mlp_extractor.value_net.0.bias"]
        np.maximum(v, 0.0, out=v)
        return (v @ w["value_net.weight"] + w["value_net.bias"])[:, 0]


def _file_key(path: Path) -> tuple[str, int, int]:
    st = path.stat()
    return (str(path.resolve()), st.st_mtime_ns, st.st_size)


@functools.lru_cache(maxsize=16)
def _cached_net(config_key: tuple, weights_key: tuple) -> PolicyNet:
    return PolicyNet(Path(config_key[0]).parent)


def load_net(path: str | Path) -> PolicyNet:
    """``PolicyNet(path)``, loaded and checked once per process while its files are unchanged
    (a tournament creates its agents afresh for every game; an edited or replaced file, by
    modification time or size, is loaded and checked again)."""
    directory = Path(path)
    try:
        keys = (_file_key(directory / CONFIG_FILE), _file_key(directory / WEIGHTS_FILE))
    except OSError:
        return PolicyNet(directory)  # raises the CheckpointError that names what is missing
    return _cached_net(*keys)


def choose(logits: np.ndarray, temperature: float, uniforms: np.ndarray | None) -> np.ndarray:
    """One action per row of masked ``logits``: the argmax when ``temperature`` is 0, else a
    draw from ``softmax(logits / temperature)`` by inverse CDF with ``uniforms`` in [0, 1)
    (one per row, so each game's draw depends on its own stream only)."""
    if temperature == 0.0 or uniforms is None:
        return np.argmax(logits, axis=1).astype(np.int64)
    z = logits / temperature
    z = z - z.max(axis=1, keepdims=True)
    p = np.exp(z, dtype=np.float64)
    cdf = np.cumsum(p, axis=1)
    cdf /= cdf[:, -1:]
    picks = (cdf < uniforms[:, None]).sum(axis=1)
    # Land on a legal action even at the float edge (p == 0 for the illegal ones). The row
    # width, not Caylus's NUM_ACTIONS: Puerto Rico's policies sample with this too.
    picks = np.minimum(picks, logits.shape[1] - 1)
    bad = ~np.isfinite(logits[np.arange(len(picks)), picks])
    if bad.any():
        picks[bad] = np.argmax(logits[bad], axis=1)
    return picks.astype(np.int64)


MODES = ("greedy", "sample")


def parse_mode(text: str | None) -> float:
    """The temperature of a spec's mode: ``greedy`` 0, ``sample`` 1, ``temp=T`` T.

    Raises:
        ValueError: naming the allowed modes.
    """
    if text in (None, "", "greedy"):
        return 0.0
    if text == "sample":
        return 1.0
    if text.startswith("temp="):
        try:
            t = float(text[5:])
        except ValueError:
            t = math.nan
        if math.isfinite(t) and t > 0:
            return t
    raise ValueError(
        f"policy mode {text!r} is not allowed; allowed: greedy, sample, temp=T with T > 0"
    )


class PolicyAgent:
    """A trained network playing one seat: the agent of ``policy:PATH[:mode]``.

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
        self._obs = np.zeros((1, OBS_SIZE), np.float32)
        self._mask = np.zeros((1, NUM_ACTIONS), np.bool_)

    def reset(self, seed: int | None = None) -> None:
        self._rng = np.random.default_rng(seed)

    def act(self, game: Game) -> int:
        legal = game.legal_actions()
        if len(legal) == 1:
            return legal[0]
        encode(game.state, game.current_player(), self._obs[0])
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
        policy): one network call for all of them. ``uniforms`` (one per game, in [0, 1))
        drive the sampling modes; ``states`` is not needed (the observation is the input)."""
        return choose(self.net.logits(obs, mask), self.temperature, uniforms)


def resolve_path(arg: str) -> tuple[Path, float]:
    """Split a ``policy:`` argument into the checkpoint path and the mode's temperature.

    The mode is the part after the last ``:`` when it is a mode word (``greedy``,
    ``sample``, ``temp=T``), so paths with colons still work.

    Raises:
        ValueError: for an empty path or a bad mode.
    """
    path, sep, last = arg.rpartition(":")
    if sep and (last in MODES or last.startswith("temp=")):
        temperature = parse_mode(last)
    else:
        path, temperature = arg, 0.0
    if not path:
        raise ValueError("policy spec needs a checkpoint directory: policy:PATH[:mode]")
    return Path(path), temperature


def make_policy(spec: str, arg: str | None, game: str | None = None) -> PolicyAgent:
    """Factory of the ``policy`` spec head (``agents.registry``)."""
    path, temperature = resolve_path(arg or "")
    return PolicyAgent(spec, path, temperature)


def shipped_checkpoints() -> dict[str, str]:
    """The checkpoints shipped in the package (each one a built-in agent spec), by name, with
    the game each was trained on (a ``config.json`` without ``game`` is Caylus's)."""
    from caylus_env.core.registry import DEFAULT_GAME

    if not SHIPPED_DIR.is_dir():
        return {}
    out = {}
    for p in sorted(SHIPPED_DIR.iterdir()):
        if (p / CONFIG_FILE).is_file():
            out[p.name] = str(json.loads((p / CONFIG_FILE).read_text()).get("game", DEFAULT_GAME))
    return out


def make_shipped(name: str) -> Any:
    """Factory of a shipped checkpoint's spec (``ppo-2p`` or ``ppo-2p:sample``)."""

    def factory(spec: str, arg: str | None) -> PolicyAgent:
        return PolicyAgent(spec, SHIPPED_DIR / name, parse_mode(arg))

    return factory
