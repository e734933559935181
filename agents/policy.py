"""Trained policies as agents, for every game: ``policy:PATH[:greedy|:sample|:temp=T]``.

A checkpoint directory written by ``training`` (``caylus train ppo --game G``, ``caylus train
bc --game G``) holds:

- ``config.json``: format ``caylus-policy/1``; the ``game`` it plays (a file without the
  field is `DEFAULT_GAME`'s: the checkpoints written before games were named, the shipped
  ``ppo-2p`` among them); the network (``arch``); the game's observation and action-space
  versions it was trained on; the player counts, training step, seed, parent checkpoint, the
  exact command, and the SHA-256 of ``model.safetensors``;
- ``model.safetensors``: the network's weights (safetensors: tensors and a JSON header, never
  code), under the names of the Stable-Baselines3 policy that trains it;
- ``sb3.zip`` and ``resume.*``: what ``caylus train ppo --resume`` needs (training checkpoints
  only; never read by this module).

Loading reads JSON and safetensors only, so a checkpoint can never execute code. Its files
are read only as regular files of its own directory (``read_file``: a FIFO, a device, a
directory, or a link to another checkpoint's file is refused, never read or waited on). It
is refused, with a one-line error naming the file and what differs, when its format is not
this build's, when it is another game's checkpoint than the one asked for (naming both games
and their versions), when its observation or action-space version is not its game's in this
build (``observation.OBSERVATION_VERSION``, ``engine.ACTION_SPACE_VERSION``; an agent also
plays a checkpoint of an older action space that this build's only extends, with blocks
appended after its last id by a rules fix: `trained_actions`, `ADDED_ACTION_LOGIT`), when a field of
``config.json`` has the wrong type (or is nested too deeply), when the weights' checksum does
not match ``config.json`` (a tampered or truncated file), when a tensor is missing, has the
wrong shape or holds NaN, or when finite weights could still make a logit or the value
overflow float32 (``output_bounds``: 3e38 weights would make every logit NaN, and the agent
would play the first legal action whatever the position).

The networks (``ARCHS``; ``training/networks.py`` builds and trains them with torch):

* ``pieces-v1`` (`PiecesArch`, every game's default): the game's observation layout
  (``caylus_env.core.observation.ObservationLayout``) declares the pieces indexed by relative
  seat (``seat_pieces``, ``seat_column_pieces``) and by board space (``space_pieces``:
  Caylus's road; a game without any has no space encoder); one shared ``Linear`` reads each
  seat's pieces, one each space's, one the rest; a trunk layer and the policy and value heads
  follow;
* ``mlp-v1`` (`MlpArch`): fully connected ReLU layers over the whole observation, separately
  for the policy and the value (Stable-Baselines3's ``MlpPolicy``); checkpoints written
  before the networks were shared name it ``pr-mlp-v1``, read as the same network.

Both run here without torch, in numba kernels that compute each row of a batch alone, summing
in a fixed order: an agent needs neither torch nor a GPU, one decision costs tens of
microseconds on one core (``caylus bench --training``), and a game's moves never depend on
which other games shared its batch (the training opponent pool and the evaluation matches
call ``PolicyNet.logits`` with every game waiting on the same checkpoint).

Modes: ``greedy`` (the default) plays the most probable legal action; ``sample`` draws from
the masked softmax with the agent's seeded generator; ``temp=T`` samples from the softmax of
``logits / T`` (T > 0; small T approaches greedy).
"""

from __future__ import annotations

import functools
import hashlib
import json
import math
import os
import shlex
import stat
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, ClassVar

import numpy as np
from numba import njit

from caylus_env.core import _cache  # noqa: F401  (the kernel cache, before any kernel below)
from caylus_env.core.actions import version_of
from caylus_env.core.observation import MAX_PLAYERS, ObservationLayout
from caylus_env.core.registry import DEFAULT_GAME, GAME_NAMES, game_spec

#: The checkpoint format this module reads and ``training`` writes.
CHECKPOINT_FORMAT = "caylus-policy/1"
CONFIG_FILE = "config.json"
WEIGHTS_FILE = "model.safetensors"
#: Built-in checkpoints shipped inside the package (spec ``ppo-2p`` = ``policy:<this>/ppo-2p``).
SHIPPED_DIR = Path(__file__).parent / "checkpoints"
#: Largest layer width an ``arch`` may ask for, and most hidden layers of ``mlp-v1``.
MAX_WIDTH = 4096
MAX_LAYERS = 8
#: Largest ``config.json`` read (bytes); any other checkpoint file is read up to
#: `MAX_FILE_BYTES`.
MAX_CONFIG_BYTES = 1 << 20
MAX_FILE_BYTES = 1 << 31
#: The observations a network must map to finite logits: every entry in
#: ``[-OBS_LIMIT, OBS_LIMIT]`` (a game's observation stays within a few units).
OBS_LIMIT = 1000.0
#: The largest logit bound accepted (float32's largest value is about 3.4e38).
LOGIT_LIMIT = 1e30


class CheckpointError(ValueError):
    """A checkpoint that this build cannot or must not load; the message says why."""


def versions(game: str) -> dict[str, str]:
    """The fields of ``config.json`` that tie a checkpoint to ``game`` in this build: the game
    and its observation and action-space versions (``read_config`` checks them)."""
    spec = game_spec(game)
    return {
        "game": spec.name,
        "observation_version": spec.observation().OBSERVATION_VERSION,
        "action_space_version": spec.engine().ACTION_SPACE_VERSION,
    }


#: The logit of an action a checkpoint's policy head does not score (`trained_actions`): far
#: below every trained logit, so it is played only where nothing else is legal.
ADDED_ACTION_LOGIT = -1.0e4


def trained_actions(cfg: dict[str, Any], game: str) -> int | None:
    """How many of ``game``'s action ids the policy head of a checkpoint (its ``config.json``)
    scores: all of them when it was trained on this build's action space; the first ``n``
    when it was trained on an older space that this one extends with blocks appended after
    its last id (``ActionSpace.prefix_version``: its ids keep their names, so its moves keep
    their meaning; a rules fix that adds a choice appends its block, ``engine.ADDED_CHOICES``);
    None for any other space."""
    engine = game_spec(game).engine()
    theirs = cfg.get("action_space_version")
    if theirs == engine.ACTION_SPACE_VERSION:
        return int(engine.NUM_ACTIONS)
    revision = int(str(engine.ACTION_SPACE_VERSION).split("-")[0])
    names = engine.ACTION_NAMES
    for n in range(len(names) - 1, 0, -1):
        if version_of(names[:n], revision) == theirs:
            return n
    return None


# ---------------------------------------------------------------------------------------
# The networks
# ---------------------------------------------------------------------------------------
def observation_groups(layout: ObservationLayout) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Index arrays that split an observation for the pieces-v1 network.

    Returns:
        ``seat (MAX_PLAYERS, seat_width)``: every seat piece's row (``seat_pieces``) then
        column (``seat_column_pieces``) of each relative seat; ``space (num_spaces,
        space_width)``: every space piece's entry of each board space; ``rest
        (global_width,)``: every other index, in vector order. Together they cover each index
        exactly once. A group the layout does not have is empty: ``(0, 0)``.
    """
    seats = MAX_PLAYERS if layout.seat_pieces or layout.seat_column_pieces else 0
    seat = [
        np.concatenate(
            [layout.index(n)[p].reshape(-1) for n in layout.seat_pieces]
            + [layout.index(n)[..., p].reshape(-1) for n in layout.seat_column_pieces]
        )
        for p in range(seats)
    ]
    space = [
        np.concatenate([layout.index(n)[i].reshape(-1) for n in layout.space_pieces])
        for i in range(layout.num_spaces)
    ]
    grouped = {*layout.seat_pieces, *layout.seat_column_pieces, *layout.space_pieces}
    rest = [layout.index(n).reshape(-1) for n, _ in layout.pieces if n not in grouped]

    def table(rows: list[np.ndarray]) -> np.ndarray:
        return np.stack(rows).astype(np.int64) if rows else np.zeros((0, 0), np.int64)

    flat = np.concatenate(rest).astype(np.int64) if rest else np.zeros(0, np.int64)
    return table(seat), table(space), flat


def _layout(game: str) -> ObservationLayout:
    return game_spec(game).observation().LAYOUT


def _num_actions(game: str) -> int:
    return int(game_spec(game).engine().NUM_ACTIONS)


def _positive(d: dict[str, Any], name: str, default: int) -> int:
    v = d.get(name, default)
    if isinstance(v, bool) or not isinstance(v, int) or not 1 <= v <= MAX_WIDTH:
        raise CheckpointError(
            f"config.json arch.{name} must be an int in 1..{MAX_WIDTH}, got {short_repr(v)}"
        )
    return v


@dataclass(frozen=True)
class PiecesArch:
    """The sizes of a pieces-v1 network (``config.json["arch"]``); see the module docstring.

    Attributes:
        seat_dim: features of each seat's encoder (shared by the seats).
        space_dim: features of each board space's encoder (shared by the spaces).
        global_dim: features of the encoder of the other pieces.
        hidden: width of the trunk layer that reads all of them.
        head: width of the policy's and the value's own hidden layer.
    """

    seat_dim: int = 32
    space_dim: int = 16
    global_dim: int = 128
    hidden: int = 256
    head: int = 128
    NAME: ClassVar[str] = "pieces-v1"
    FIELDS: ClassVar[tuple[str, ...]] = ("seat_dim", "space_dim", "global_dim", "hidden", "head")

    @classmethod
    def from_json(cls, d: dict[str, Any]) -> PiecesArch:
        """Read ``config.json["arch"]`` (its name already checked).

        Raises:
            CheckpointError: naming an unknown or out-of-range field.
        """
        unknown = sorted(map(str, set(d) - set(cls.FIELDS) - {"name"}))
        if unknown:
            raise CheckpointError(f"config.json arch has unknown fields {unknown}")
        return cls(**{f: _positive(d, f, getattr(cls, f)) for f in cls.FIELDS})

    def to_json(self) -> dict[str, Any]:
        """The ``arch`` object of a checkpoint's ``config.json`` (read back by ``from_json``)."""
        return {"name": self.NAME, **{f: getattr(self, f) for f in self.FIELDS}}

    def trunk_width(self, game: str) -> int:
        """The trunk's input: the global features, then each seat's, then each space's."""
        seat, space, _ = observation_groups(_layout(game))
        return self.global_dim + seat.shape[0] * self.seat_dim + space.shape[0] * self.space_dim

    def tensor_shapes(self, game: str, actions: int | None = None) -> dict[str, tuple[int, ...]]:
        """Every weight of the network for ``game``, by its name in ``model.safetensors``: the
        names of the Stable-Baselines3 policy that ``training`` builds (``features_extractor``,
        then ``mlp_extractor``'s policy and value layers, then the two heads). A group the
        game's observation does not have (no space pieces) has no encoder. ``actions``: the
        policy head's size (default: the game's action count; `trained_actions`)."""
        seat, space, rest = observation_groups(_layout(game))
        shapes: dict[str, tuple[int, ...]] = {}
        for name, dim, group in (("seat", self.seat_dim, seat), ("space", self.space_dim, space)):
            if group.shape[0]:
                shapes[f"features_extractor.{name}.weight"] = (dim, group.shape[1])
                shapes[f"features_extractor.{name}.bias"] = (dim,)
        actions = _num_actions(game) if actions is None else actions
        shapes.update(
            {
                "features_extractor.rest.weight": (self.global_dim, rest.shape[0]),
                "features_extractor.rest.bias": (self.global_dim,),
                "features_extractor.trunk.weight": (self.hidden, self.trunk_width(game)),
                "features_extractor.trunk.bias": (self.hidden,),
                "mlp_extractor.policy_net.0.weight": (self.head, self.hidden),
                "mlp_extractor.policy_net.0.bias": (self.head,),
                "mlp_extractor.value_net.0.weight": (self.head, self.hidden),
                "mlp_extractor.value_net.0.bias": (self.head,),
                "action_net.weight": (actions, self.head),
                "action_net.bias": (actions,),
                "value_net.weight": (1, self.head),
                "value_net.bias": (1,),
            }
        )
        return shapes

    def network(self, w: dict[str, np.ndarray], game: str) -> _PiecesNet:
        """The torch-free network of weights ``w`` (``load_weights``'s) for ``game``."""
        return _PiecesNet(self, w, game)


@dataclass(frozen=True)
class MlpArch:
    """The sizes of an mlp-v1 network (``config.json["arch"]``); see the module docstring.

    Attributes:
        layers: the width of each hidden layer, the same for the policy and the value stacks.
    """

    layers: tuple[int, ...] = (256, 256)
    NAME: ClassVar[str] = "mlp-v1"

    @classmethod
    def from_json(cls, d: dict[str, Any]) -> MlpArch:
        """Read ``config.json["arch"]`` (its name already checked).

        Raises:
            CheckpointError: naming an unknown or out-of-range field.
        """
        unknown = sorted(map(str, set(d) - {"name", "layers"}))
        if unknown:
            raise CheckpointError(f"config.json arch has unknown fields {unknown}")
        layers = d.get("layers", list(cls.layers))
        if (
            not isinstance(layers, (list, tuple))
            or not 1 <= len(layers) <= MAX_LAYERS
            or not all(
                isinstance(w, int) and not isinstance(w, bool) and 1 <= w <= MAX_WIDTH
                for w in layers
            )
        ):
            raise CheckpointError(
                f"config.json arch.layers must be a list of 1 to {MAX_LAYERS} ints in "
                f"1..{MAX_WIDTH}, got {short_repr(layers)}"
            )
        return cls(tuple(layers))

    def to_json(self) -> dict[str, Any]:
        """The ``arch`` object of a checkpoint's ``config.json`` (read back by ``from_json``)."""
        return {"name": self.NAME, "layers": list(self.layers)}

    def tensor_shapes(self, game: str, actions: int | None = None) -> dict[str, tuple[int, ...]]:
        """Every weight of the network for ``game`` by its name in ``model.safetensors``: the
        names of the Stable-Baselines3 ``MlpPolicy`` (each stack's ``Linear`` layers sit at
        even indices of its ``Sequential``, ReLUs in between). ``actions``: the policy head's
        size (default: the game's action count; `trained_actions`)."""
        shapes: dict[str, tuple[int, ...]] = {}
        for stack in ("policy_net", "value_net"):
            width = _layout(game).size
            for i, out in enumerate(self.layers):
                shapes[f"mlp_extractor.{stack}.{2 * i}.weight"] = (out, width)
                shapes[f"mlp_extractor.{stack}.{2 * i}.bias"] = (out,)
                width = out
        actions = _num_actions(game) if actions is None else actions
        last = self.layers[-1]
        shapes["action_net.weight"] = (actions, last)
        shapes["action_net.bias"] = (actions,)
        shapes["value_net.weight"] = (1, last)
        shapes["value_net.bias"] = (1,)
        return shapes

    def network(self, w: dict[str, np.ndarray], game: str) -> _MlpNet:
        """The torch-free network of weights ``w`` (``load_weights``'s)."""
        return _MlpNet(self, w)


Arch = PiecesArch | MlpArch
#: The networks by ``config.json["arch"]["name"]``; ``pr-mlp-v1`` is the name Puerto Rico's
#: checkpoints gave ``mlp-v1`` before the networks were shared.
ARCHS: dict[str, type[PiecesArch] | type[MlpArch]] = {
    PiecesArch.NAME: PiecesArch,
    MlpArch.NAME: MlpArch,
    "pr-mlp-v1": MlpArch,
}
#: The network of a run or a behaviour cloning that names none, for every game.
DEFAULT_ARCH: Arch = PiecesArch()


def arch_from_json(d: Any) -> Arch:
    """The network of ``config.json["arch"]`` (or of a run's ``arch`` argument).

    Raises:
        CheckpointError: for a value that is not an object, an unknown name (naming the
            allowed ones), or a field that is unknown or out of range.
    """
    if not isinstance(d, dict):
        raise CheckpointError(f"config.json 'arch' must be an object, got {short_repr(d)}")
    name = d.get("name")
    cls = ARCHS.get(name) if isinstance(name, str) else None
    if cls is None:
        raise CheckpointError(
            f"config.json arch name {short_repr(name)} is not supported; allowed: {', '.join(ARCHS)}"
        )
    return cls.from_json(d)


# ---------------------------------------------------------------------------------------
# Reading a checkpoint
# ---------------------------------------------------------------------------------------
def sha256_of(path: Path) -> str:
    """The SHA-256 of a file, hex (what ``config.json``'s ``sha256`` holds)."""
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for chunk in iter(lambda: f.read(1 << 20), b""):
            h.update(chunk)
    return h.hexdigest()


def short_repr(value: Any, limit: int = 80) -> str:
    """``repr(value)`` cut to ``limit`` characters (a hostile file's value can be huge)."""
    try:
        text = repr(value)
    except (RecursionError, ValueError):
        text = f"<a deeply nested or huge {type(value).__name__}>"
    return text if len(text) <= limit else text[: limit - 3] + "..."


_KINDS = (
    (stat.S_ISDIR, "a directory"),
    (stat.S_ISFIFO, "a FIFO"),
    (stat.S_ISSOCK, "a socket"),
    (stat.S_ISCHR, "a character device"),
    (stat.S_ISBLK, "a block device"),
)


def read_file(directory: str | Path, name: str, limit: int = MAX_FILE_BYTES) -> bytes:
    """The bytes of the file ``name`` of checkpoint ``directory``.

    Only a regular file inside the directory itself is read: a symbolic link is followed to
    a file of the same directory only (``A/config.json`` linking to ``B/config.json`` is
    refused: it would make ``policy:A`` play B); the file is opened without blocking and
    checked before any byte is read, so a FIFO, a socket, a device or a directory in its
    place is refused, never waited on; a file over ``limit`` bytes is refused.

    Raises:
        CheckpointError: naming the file and why it is refused.
    """
    directory = Path(directory)
    path = directory / name
    try:
        root = directory.resolve(strict=True)
        real = path.resolve(strict=True)
    except FileNotFoundError:
        raise CheckpointError(f"checkpoint {str(directory)!r} has no {name}") from None
    except (OSError, RuntimeError) as err:
        raise CheckpointError(f"{path}: cannot be read ({err})") from None
    if real.parent != root:
        raise CheckpointError(
            f"{path}: links outside its checkpoint directory (to {real}); a checkpoint's "
            "files must be regular files of its own directory"
        )
    flags = os.O_RDONLY | os.O_NONBLOCK | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_CLOEXEC", 0)
    try:
        fd = os.open(real, flags)
    except OSError as err:
        raise CheckpointError(f"{path}: cannot be opened ({err.strerror})") from None
    try:
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode):
            kind = next((k for test, k in _KINDS if test(st.st_mode)), "a special file")
            raise CheckpointError(f"{path}: is {kind}, not a regular file; refused")
        if st.st_size > limit:
            raise CheckpointError(f"{path}: {st.st_size} bytes; allowed: at most {limit}")
        chunks, total = [], 0
        while True:
            chunk = os.read(fd, min(1 << 24, limit + 1 - total))
            if not chunk:
                break
            chunks.append(chunk)
            total += len(chunk)
            if total > limit:
                raise CheckpointError(f"{path}: more than {limit} bytes; refused")
    except OSError as err:
        raise CheckpointError(f"{path}: cannot be read ({err.strerror})") from None
    finally:
        os.close(fd)
    return b"".join(chunks)


def parse_json(data: bytes, where: Path) -> Any:
    """``json.loads`` of a file's bytes whose every failure is a ``CheckpointError`` naming
    ``where`` (malformed text, bad encoding, nesting too deep for the parser)."""
    try:
        return json.loads(data)
    except (ValueError, UnicodeDecodeError) as err:
        raise CheckpointError(f"{where}: not valid JSON ({short_repr(str(err), 120)})") from None
    except RecursionError:
        raise CheckpointError(f"{where}: JSON nested too deeply; refused") from None


def _refuse_game(cfg: dict[str, Any], where: Path, theirs: str, game: str) -> CheckpointError:
    ours = versions(game)
    return CheckpointError(
        f"{where}: this is a checkpoint of game {theirs!r} (observation_version "
        f"{short_repr(cfg.get('observation_version'))}, action_space_version "
        f"{short_repr(cfg.get('action_space_version'))}); a {game_spec(game).title} policy needs "
        f"game {game!r} (observation_version {ours['observation_version']!r}, "
        f"action_space_version {ours['action_space_version']!r}): use it with --game {theirs}"
    )


def game_of_config(cfg: dict[str, Any]) -> str:
    """The game a checkpoint's ``config.json`` names (`DEFAULT_GAME` without the field)."""
    return str(cfg.get("game", DEFAULT_GAME))


def _check_fields(cfg: dict[str, Any], where: Path, game: str) -> None:
    """The types of the fields a reader uses besides the versions and the arch: ``sha256``
    (file name -> hex digest), ``num_players`` (player counts of ``game``), ``step`` (an int
    >= 0) and ``parent`` (a path or null)."""
    digests = cfg.get("sha256", {})
    if not isinstance(digests, dict) or not all(
        isinstance(v, str) and len(v) == 64 for v in digests.values()
    ):
        raise CheckpointError(
            f"{where}: sha256 must map file names to hex SHA-256 digests, got {short_repr(digests)}"
        )
    counts = cfg.get("num_players", [])
    allowed = game_spec(game).player_counts
    if not isinstance(counts, list) or not all(
        isinstance(n, int) and not isinstance(n, bool) and n in allowed for n in counts
    ):
        raise CheckpointError(
            f"{where}: num_players must be a list of player counts in "
            f"{allowed.start}..{allowed.stop - 1}, got {short_repr(counts)}"
        )
    step = cfg.get("step", 0)
    if isinstance(step, bool) or not isinstance(step, int) or step < 0:
        raise CheckpointError(f"{where}: step must be an int >= 0, got {short_repr(step)}")
    parent = cfg.get("parent")
    if parent is not None and not isinstance(parent, str):
        raise CheckpointError(f"{where}: parent must be a path or null, got {short_repr(parent)}")


def read_config(path: str | Path, game: str | None = None, exact: bool = False) -> dict[str, Any]:
    """Read and check a checkpoint's ``config.json`` (no weights are read).

    Args:
        path: the checkpoint directory.
        game: the game it must play (None: any registered game, the checkpoint's own).
        exact: refuse a checkpoint of an older action space that this build's extends
            (`trained_actions`), which an agent plays but training cannot resume or start
            from.

    Raises:
        CheckpointError: for a missing directory or file, a file that is not a regular file
            of the directory (``read_file``), malformed JSON, another format, a game that is
            not registered, another game than ``game`` (naming both games and their
            versions), an observation or action-space version other than its game's in this
            build (naming both), or a field of the wrong type.
    """
    directory = Path(path)
    try:
        is_dir = directory.is_dir()
    except OSError as err:  # a name too long, a path the system refuses (is_dir raises those)
        raise CheckpointError(f"checkpoint {str(path)!r} cannot be read ({err.strerror})") from None
    if not is_dir:
        raise CheckpointError(f"checkpoint {str(path)!r} is not a directory")
    cfg_path = directory / CONFIG_FILE
    cfg = parse_json(read_file(directory, CONFIG_FILE, MAX_CONFIG_BYTES), cfg_path)
    if not isinstance(cfg, dict):
        raise CheckpointError(f"{cfg_path}: must hold a JSON object")
    if cfg.get("format") != CHECKPOINT_FORMAT:
        raise CheckpointError(
            f"{cfg_path}: format {short_repr(cfg.get('format'))} is not supported; "
            f"this build reads {CHECKPOINT_FORMAT!r}"
        )
    theirs = cfg.get("game", DEFAULT_GAME)
    if not isinstance(theirs, str) or theirs not in GAME_NAMES:
        raise CheckpointError(
            f"{cfg_path}: game {short_repr(theirs)} is not a game of this build; allowed: "
            f"{', '.join(GAME_NAMES)}"
        )
    if game is not None and theirs != game_spec(game).name:
        raise _refuse_game(cfg, cfg_path, theirs, game_spec(game).name)
    ours = versions(theirs)
    for key in ("observation_version", "action_space_version"):
        extended = key == "action_space_version" and not exact and trained_actions(cfg, theirs)
        if cfg.get(key) != ours[key] and not extended:
            raise CheckpointError(
                f"{cfg_path}: the checkpoint was trained on {game_spec(theirs).title} {key} "
                f"{short_repr(cfg.get(key))} but this build has {ours[key]!r}; retrain it or use "
                "the caylus-env version that made it"
            )
    _check_fields(cfg, cfg_path, theirs)
    return cfg


def load_weights(
    path: Path, config: dict[str, Any], shapes: dict[str, tuple[int, ...]]
) -> dict[str, np.ndarray]:
    """The weights of the checkpoint directory ``path``, checked against its ``config.json``
    (SHA-256, tensor names and float32 shapes of the arch, finite values) and stored
    transposed (inputs x outputs) for ``x @ W``. Read with safetensors only, from the bytes
    whose checksum was checked (``read_file``): nothing in the file runs.

    Raises:
        CheckpointError: naming the file and what does not fit.
    """
    from safetensors import SafetensorError
    from safetensors.numpy import load

    weights = Path(path) / WEIGHTS_FILE
    data = read_file(path, WEIGHTS_FILE)
    expected = config.get("sha256", {}).get(WEIGHTS_FILE)
    actual = hashlib.sha256(data).hexdigest()
    if actual != expected:
        raise CheckpointError(
            f"{weights}: SHA-256 {actual[:16]}... does not match config.json's "
            f"{str(expected)[:16]}...: the file was changed or truncated"
        )
    try:
        tensors = load(data)
    except (SafetensorError, OSError, ValueError, TypeError) as err:
        raise CheckpointError(
            f"{weights}: not a readable safetensors file ({short_repr(str(err), 120)})"
        ) from None
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


def _layer_bound(w: dict[str, np.ndarray], name: str, x: float) -> float:
    """The largest ``|y_j|`` of layer ``name`` (``y = x @ W + b``, ``W`` stored ``(in,
    out)``) for inputs with ``|x_i| <= x``, in float64 (a ReLU after it keeps the bound)."""
    weight = np.abs(w[f"{name}.weight"].astype(np.float64))
    bias = np.abs(w[f"{name}.bias"].astype(np.float64))
    return float((weight.sum(axis=0) * x + bias).max(initial=0.0))


def output_bounds(arch: Arch, w: dict[str, np.ndarray]) -> tuple[float, float]:
    """Bounds of the magnitude of every logit and of the value, over every observation
    with entries in ``[-OBS_LIMIT, OBS_LIMIT]``: each layer's largest absolute row sum
    times its input's bound, plus its largest bias (float32 sums of the same terms stay
    within the same bound, so logits below it are finite)."""
    if isinstance(arch, PiecesArch):
        features = max(
            _layer_bound(w, f"features_extractor.{name}", OBS_LIMIT)
            for name in ("seat", "space", "rest")
            if f"features_extractor.{name}.weight" in w
        )
        trunk = _layer_bound(w, "features_extractor.trunk", features)
        policy = _layer_bound(w, "mlp_extractor.policy_net.0", trunk)
        value = _layer_bound(w, "mlp_extractor.value_net.0", trunk)
    else:
        policy = value = OBS_LIMIT
        for i in range(len(arch.layers)):
            policy = _layer_bound(w, f"mlp_extractor.policy_net.{2 * i}", policy)
            value = _layer_bound(w, f"mlp_extractor.value_net.{2 * i}", value)
    return _layer_bound(w, "action_net", policy), _layer_bound(w, "value_net", value)


def check_outputs(arch: Arch, w: dict[str, np.ndarray], where: Path) -> None:
    """Refuse weights whose logits or value could overflow float32 (``output_bounds`` over
    `LOGIT_LIMIT`): finite but huge weights (3e38) would make every logit NaN, and the agent
    would play the first legal action whatever the position.

    Raises:
        CheckpointError: naming the file and the bound.
    """
    logits, value = output_bounds(arch, w)
    for what, bound in (("logits", logits), ("value", value)):
        if not math.isfinite(bound) or bound > LOGIT_LIMIT:
            raise CheckpointError(
                f"{where}: weights too large: the network's {what} can reach {bound:.3g} "
                f"(allowed: at most {LOGIT_LIMIT:.0e} for observations in "
                f"[-{OBS_LIMIT:g}, {OBS_LIMIT:g}]; float32 overflows at 3.4e38)"
            )


# ---------------------------------------------------------------------------------------
# Inference without torch
# ---------------------------------------------------------------------------------------
@njit(cache=True)
def _dense(x, w, b, out):
    """``out = x @ w + b`` for one row, summing over ``x`` in index order (zeros skipped:
    most of an observation is one-hot), so a row's result never depends on the others."""
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
def _pieces_trunk(x, seat_idx, space_idx, rest_idx, w, hidden):
    """The pieces-v1 trunk of one observation ``x`` into ``hidden`` (after its ReLU): the
    features of the rest, of each seat and of each space, then the trunk layer. ``w`` holds
    seat, space, rest and trunk as (weight ``(in, out)``, bias) first; a group with no
    entities (``seat_idx`` or ``space_idx`` with 0 rows) adds nothing to the trunk's input."""
    seat_w, seat_b, space_w, space_b, rest_w, rest_b, trunk_w, trunk_b = w[:8]
    n_seats, seat_dim = seat_idx.shape[0], seat_b.shape[0]
    n_spaces, space_dim = space_idx.shape[0], space_b.shape[0]
    rest_dim = rest_b.shape[0]
    cat = np.empty(rest_dim + n_seats * seat_dim + n_spaces * space_dim, np.float32)
    gather_seat = np.empty(seat_idx.shape[1], np.float32)
    gather_space = np.empty(space_idx.shape[1], np.float32)
    gather_rest = np.empty(rest_idx.shape[0], np.float32)
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
        for i in range(space_idx.shape[1]):
            gather_space[i] = x[space_idx[q, i]]
        start = base + q * space_dim
        _dense(gather_space, space_w, space_b, cat[start : start + space_dim])
    _relu(cat)
    _dense(cat, trunk_w, trunk_b, hidden)
    _relu(hidden)


@njit(cache=True)
def _pieces_rows(obs, seat_idx, space_idx, rest_idx, w, out):
    """The pieces-v1 policy logits of every row of ``obs``, row by row.

    ``w`` holds, in order: seat, space, rest, trunk, policy layer and action head, each as
    (weight ``(in, out)``, bias) (`_pieces_trunk` reads the first four).
    """
    pol_w, pol_b, act_w, act_b = w[8:12]
    hidden = np.empty(w[7].shape[0], np.float32)
    head = np.empty(pol_b.shape[0], np.float32)
    for r in range(obs.shape[0]):
        _pieces_trunk(obs[r], seat_idx, space_idx, rest_idx, w, hidden)
        _dense(hidden, pol_w, pol_b, head)
        _relu(head)
        _dense(head, act_w, act_b, out[r])


@njit(cache=True)
def pieces_forward(x, params, logits, want_logits):
    """One pieces-v1 evaluation of the observation ``x`` for search (``agents.puct``):
    writes the policy logits of every action into ``logits`` when ``want_logits`` (the
    trunk is shared by both heads, so a leaf costs one trunk) and returns the value head.
    ``params`` is ``(seat_idx, space_idx, rest_idx, w)`` with ``w`` the 12 arrays of
    `_pieces_rows` then the value layer and head. Same summation order as `_pieces_rows`,
    so the logits are bit for bit those of ``PolicyNet.logits``."""
    seat_idx, space_idx, rest_idx, w = params
    hidden = np.empty(w[7].shape[0], np.float32)
    _pieces_trunk(x, seat_idx, space_idx, rest_idx, w, hidden)
    if want_logits:
        head = np.empty(w[9].shape[0], np.float32)
        _dense(hidden, w[8], w[9], head)
        _relu(head)
        _dense(head, w[10], w[11], logits)
    critic = np.empty(w[13].shape[0], np.float32)
    _dense(hidden, w[12], w[13], critic)
    _relu(critic)
    value = np.empty(1, np.float32)
    _dense(critic, w[14], w[15], value)
    return value[0]


@njit(cache=True)
def _mlp_stack(x, layers, out):
    """``layers`` (``(weight (in, out), bias)`` each) over one row ``x``, ReLU between them,
    the last one's output into ``out``."""
    h = x.copy()
    last = len(layers) - 1
    for i in range(last):
        weight, bias = layers[i]
        y = np.empty(bias.shape[0], np.float32)
        _dense(h, weight, bias, y)
        _relu(y)
        h = y
    weight, bias = layers[last]
    _dense(h, weight, bias, out)


@njit(cache=True)
def mlp_forward(x, params, logits, want_logits):
    """One mlp-v1 evaluation of the observation ``x`` for search (``agents.puct``): the
    policy stack's logits into ``logits`` when ``want_logits``, and the value stack's output
    returned. ``params`` is ``(policy layers, value layers)``. Same summation order as
    `_dense_rows`, so the logits are bit for bit those of ``PolicyNet.logits``."""
    policy, critic = params
    if want_logits:
        _mlp_stack(x, policy, logits)
    value = np.empty(1, np.float32)
    _mlp_stack(x, critic, value)
    return value[0]


@njit(cache=True)
def _dense_rows(x, w, b, relu, out):
    """``out[r] = x[r] @ w + b`` (then ReLU when ``relu``) row by row, each row alone."""
    for r in range(x.shape[0]):
        _dense(x[r], w, b, out[r])
        if relu:
            _relu(out[r])


class _PiecesNet:
    """pieces-v1's weights, gathered for the kernel (logits) and for NumPy (value)."""

    def __init__(self, arch: PiecesArch, w: dict[str, np.ndarray], game: str) -> None:
        self.seat_idx, self.space_idx, self.rest_idx = observation_groups(_layout(game))
        self.w = w

        def layer(name: str, dim: int) -> tuple[np.ndarray, np.ndarray]:
            key = f"features_extractor.{name}"
            if f"{key}.weight" in w:
                return w[f"{key}.weight"], w[f"{key}.bias"]
            return np.zeros((0, dim), np.float32), np.zeros(dim, np.float32)  # no such group

        self.layers = {
            "seat": layer("seat", arch.seat_dim),
            "space": layer("space", arch.space_dim),
            "rest": layer("rest", arch.global_dim),
            "trunk": layer("trunk", arch.hidden),
        }
        self.policy_w = (
            *(a for name in ("seat", "space", "rest", "trunk") for a in self.layers[name]),
            w["mlp_extractor.policy_net.0.weight"],
            w["mlp_extractor.policy_net.0.bias"],
            w["action_net.weight"],
            w["action_net.bias"],
        )
        value_w = tuple(
            w[name]
            for name in (
                "mlp_extractor.value_net.0.weight",
                "mlp_extractor.value_net.0.bias",
                "value_net.weight",
                "value_net.bias",
            )
        )
        #: `pieces_forward`'s parameters (``PolicyNet.search_network``).
        self.params = (self.seat_idx, self.space_idx, self.rest_idx, self.policy_w + value_w)

    forward = staticmethod(pieces_forward)
    kind = "pieces"

    def logits_into(self, x: np.ndarray, out: np.ndarray) -> None:
        _pieces_rows(x, self.seat_idx, self.space_idx, self.rest_idx, self.policy_w, out)

    def value(self, obs: np.ndarray) -> np.ndarray:
        b = obs.shape[0]
        parts = [obs[:, self.rest_idx] @ self.layers["rest"][0] + self.layers["rest"][1]]
        for name, idx in (("seat", self.seat_idx), ("space", self.space_idx)):
            if idx.shape[0]:
                weight, bias = self.layers[name]
                parts.append((obs[:, idx] @ weight + bias).reshape(b, -1))
        x = np.maximum(np.concatenate(parts, axis=1), 0.0)
        h = np.maximum(x @ self.layers["trunk"][0] + self.layers["trunk"][1], 0.0)
        w = self.w
        v = np.maximum(
            h @ w["mlp_extractor.value_net.0.weight"] + w["mlp_extractor.value_net.0.bias"], 0.0
        )
        return (v @ w["value_net.weight"] + w["value_net.bias"])[:, 0]


class _MlpNet:
    """mlp-v1's two stacks, each a list of (weight ``(in, out)``, bias)."""

    def __init__(self, arch: MlpArch, w: dict[str, np.ndarray]) -> None:
        def stack(name: str, head: str) -> list[tuple[np.ndarray, np.ndarray]]:
            names = [f"mlp_extractor.{name}.{2 * i}" for i in range(len(arch.layers))]
            return [(w[f"{n}.weight"], w[f"{n}.bias"]) for n in [*names, head]]

        self.policy = stack("policy_net", "action_net")
        self.critic = stack("value_net", "value_net")
        #: `mlp_forward`'s parameters (``PolicyNet.search_network``).
        self.params = (tuple(self.policy), tuple(self.critic))

    forward = staticmethod(mlp_forward)
    kind = "mlp"

    @staticmethod
    def _run(layers: list[tuple[np.ndarray, np.ndarray]], x: np.ndarray, out: Any = None) -> Any:
        for i, (weight, bias) in enumerate(layers):
            last = i == len(layers) - 1
            y = (
                out
                if last and out is not None
                else np.empty((x.shape[0], weight.shape[1]), x.dtype)
            )
            _dense_rows(x, weight, bias, not last, y)
            x = y
        return x

    def logits_into(self, x: np.ndarray, out: np.ndarray) -> None:
        self._run(self.policy, x, out)

    def value(self, obs: np.ndarray) -> np.ndarray:
        return self._run(self.critic, np.ascontiguousarray(obs, np.float32))[:, 0]


def _extend_head(w: dict[str, np.ndarray], actions: int) -> dict[str, np.ndarray]:
    """The weights with the policy head grown to ``actions`` outputs: the ids a checkpoint of an
    older action space has no output for (`trained_actions`) get zero weights and the bias
    `ADDED_ACTION_LOGIT`, so the network plays one only where nothing else is legal: the first
    of them when greedy, all alike when sampled (a search's priors are uniform over them)."""
    weight, bias = w["action_net.weight"], w["action_net.bias"]  # (inputs, outputs), (outputs,)
    missing = actions - bias.shape[0]
    if missing <= 0:
        return w
    grown = dict(w)
    grown["action_net.weight"] = np.ascontiguousarray(
        np.concatenate([weight, np.zeros((weight.shape[0], missing), np.float32)], axis=1)
    )
    grown["action_net.bias"] = np.concatenate(
        [bias, np.full(missing, ADDED_ACTION_LOGIT, np.float32)]
    )
    return grown


class PolicyNet:
    """A trained network evaluated without torch (float32), from a checkpoint directory.

    Args:
        path: the checkpoint directory.
        game: the game it must play (None: its own).
        exact: refuse a checkpoint of an older action space (``read_config``).

    Attributes:
        game: the game the checkpoint plays.
        arch: its network (`PiecesArch` or `MlpArch`).
        config: its ``config.json``.
        trained_actions: how many action ids its policy head was trained on (`trained_actions`;
            the others get `ADDED_ACTION_LOGIT`).

    Raises:
        CheckpointError: see ``read_config``; also for a weights file whose checksum, tensor
            names, shapes or values do not fit ``config.json``.
    """

    def __init__(self, path: str | Path, game: str | None = None, exact: bool = False) -> None:
        self.path = Path(path)
        self.config = read_config(self.path, game, exact)
        self.game = game_of_config(self.config)
        self.arch = arch_from_json(self.config.get("arch"))
        self.trained_actions = trained_actions(self.config, self.game)
        shapes = self.arch.tensor_shapes(self.game, self.trained_actions)
        w = _extend_head(load_weights(self.path, self.config, shapes), _num_actions(self.game))
        check_outputs(self.arch, w, self.path / WEIGHTS_FILE)
        self._net = self.arch.network(w, self.game)
        self.obs_size = _layout(self.game).size
        self.num_actions = _num_actions(self.game)
        self.num_players = tuple(self.config.get("num_players", ()))

    def logits(self, obs: np.ndarray, mask: np.ndarray | None = None) -> np.ndarray:
        """Action logits ``(B, NUM_ACTIONS)`` float32 for observations ``(B, OBS_SIZE)``;
        illegal actions (``mask`` False) get ``-inf``.

        Computed row by row in compiled code with a fixed summation order, so a row's logits
        are the same bits whatever else is in the batch (BLAS would change the last bits
        with the batch size, and a greedy choice between near-equal actions with them):
        batching games never changes a game.
        """
        x = np.ascontiguousarray(obs, np.float32).reshape(-1, self.obs_size)
        out = np.empty((x.shape[0], self.num_actions), np.float32)
        self._net.logits_into(x, out)
        if mask is not None:
            out[~np.asarray(mask, np.bool_)] = -np.inf
        return out

    def value(self, obs: np.ndarray) -> np.ndarray:
        """The value head ``(B,)``: the expected rank reward of the observing seat."""
        return self._net.value(np.asarray(obs, np.float32).reshape(-1, self.obs_size))

    def search_network(self) -> tuple[str, Any, tuple[Any, ...]]:
        """The compiled network for search (``agents.puct``): ``(kind, forward, params)``
        where ``forward(x, params, logits, want_logits) -> value`` evaluates one
        observation ``x`` (``float32 (OBS_SIZE,)``) in compiled code, writing the policy
        logits of every action into ``logits`` when ``want_logits`` and returning the value
        head (`pieces_forward`, `mlp_forward`); ``kind`` (``pieces``, ``mlp``) names the
        kernel, which a search specializes on."""
        return self._net.kind, self._net.forward, self._net.params

    def shaping(self) -> float:
        """The coefficient of the shaped score-margin reward the checkpoint was trained
        with (``--shaping`` of the training command in its ``config.json``; 0 when the
        command has none, as for behaviour cloning, or cannot be read): its value head
        then estimates the rank reward plus that coefficient times the margin still to be
        gained, in units of the game's ``score_scale`` (``training.vecenv``)."""
        command = self.config.get("command")
        if not isinstance(command, str):
            return 0.0
        try:
            words = shlex.split(command)
        except ValueError:
            return 0.0
        for i, word in enumerate(words):
            text = None
            if word == "--shaping" and i + 1 < len(words):
                text = words[i + 1]
            elif word.startswith("--shaping="):
                text = word.partition("=")[2]
            if text is not None:
                try:
                    value = float(text)
                except ValueError:
                    return 0.0
                return value if math.isfinite(value) and value >= 0.0 else 0.0
        return 0.0


def _file_key(path: Path) -> tuple[str, int, int, int]:
    st = path.stat()  # never opens the file (a FIFO does not block here)
    return (path.name, st.st_ino, st.st_mtime_ns, st.st_size)


@functools.lru_cache(maxsize=16)
def _cached_net(directory: str, config_key: tuple, weights_key: tuple) -> PolicyNet:
    return PolicyNet(Path(directory))


def load_net(path: str | Path, game: str | None = None) -> PolicyNet:
    """``PolicyNet(path, game)``, loaded and checked once per process while its files are
    unchanged (a tournament creates its agents afresh for every game; an edited or replaced
    file, by modification time or size, is loaded and checked again).

    Raises:
        CheckpointError: as ``PolicyNet``.
    """
    directory = Path(path)
    try:
        keys = (
            str(directory.resolve(strict=True)),
            _file_key(directory / CONFIG_FILE),
            _file_key(directory / WEIGHTS_FILE),
        )
    except (OSError, RuntimeError):
        return PolicyNet(directory, game)  # raises the CheckpointError naming what is missing
    net = _cached_net(*keys)
    if game is not None and net.game != game_spec(game).name:
        raise _refuse_game(net.config, directory / CONFIG_FILE, net.game, game_spec(game).name)
    return net


# ---------------------------------------------------------------------------------------
# Agents
# ---------------------------------------------------------------------------------------
def choose(logits: np.ndarray, temperature: float, uniforms: np.ndarray | None) -> np.ndarray:
    """One action per row of masked ``logits``: the argmax when ``temperature`` is 0, else a
    draw from ``softmax(logits / temperature)`` by inverse CDF with ``uniforms`` in [0, 1)
    (one per row, so each game's draw depends on its own stream only)."""
    if temperature == 0.0 or uniforms is None:
        return np.argmax(logits, axis=1).astype(np.int64)
    # Shift before dividing: the best legal logit becomes exactly 0 and every other one a
    # finite or infinite negative, so even a tiny T (temp=1e-300) overflows to -inf, never NaN.
    z = logits.astype(np.float64)
    with np.errstate(over="ignore", under="ignore"):
        z = (z - z.max(axis=1, keepdims=True)) / temperature
        p = np.exp(z)
    cdf = np.cumsum(p, axis=1)
    cdf /= cdf[:, -1:]
    picks = (cdf < uniforms[:, None]).sum(axis=1)
    # Land on a legal action even at the float edge (p == 0 for the illegal ones).
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
        game: the game it must play (None: the checkpoint's).

    Raises:
        CheckpointError: see `PolicyNet`.
    """

    def __init__(
        self,
        name: str,
        path: str | Path,
        temperature: float = 0.0,
        seed: int | None = None,
        game: str | None = None,
    ) -> None:
        self.name = name
        self.net = load_net(path, game)
        self.game = self.net.game
        self.temperature = temperature
        self._encode = game_spec(self.game).observation().encode_into
        self._rng = np.random.default_rng(seed)
        self._obs = np.zeros((1, self.net.obs_size), np.float32)
        self._mask = np.zeros((1, self.net.num_actions), np.bool_)
        self._distribution: tuple[tuple[int, ...], tuple[float, ...]] | None = None

    def reset(self, seed: int | None = None) -> None:
        """A new game: ``seed`` fixes the sampling of the ``sample`` and ``temp=T`` modes."""
        self._rng = np.random.default_rng(seed)
        self._distribution = None

    def action_distribution(self) -> tuple[tuple[int, ...], tuple[float, ...]] | None:
        """The network's probabilities over the legal actions of its last move (see
        ``agents.base.DistributionAgent``): ``softmax(logits / T)`` in the ``sample`` and
        ``temp=T`` modes, the distribution the move was drawn from; ``softmax(logits)`` in the
        ``greedy`` mode, whose move is its most probable action. One-hot for a forced move;
        None before any move."""
        return self._distribution

    def _remember(self, legal: Sequence[int], logits: np.ndarray) -> None:
        """Keep `action_distribution` for the move just chosen from ``logits`` (one row)."""
        temperature = self.temperature if self.temperature > 0.0 else 1.0
        z = logits[np.asarray(legal, np.int64)].astype(np.float64)
        with np.errstate(over="ignore", under="ignore"):
            p = np.exp((z - z.max()) / temperature)  # shifted first, as in `choose`
        p /= p.sum()
        self._distribution = (tuple(int(a) for a in legal), tuple(float(x) for x in p))

    def act(self, game: Any) -> int:
        """The network's move for ``game.current_player()`` (a forced move without it).

        Raises:
            ValueError: when the game asks no decision.
        """
        legal = game.legal_actions()
        if not legal:
            raise ValueError(f"agent {self.name!r}: the game asks no decision")
        if len(legal) == 1:
            self._distribution = ((int(legal[0]),), (1.0,))
            return int(legal[0])
        self._encode(game.state, game.current_player(), self._obs[0])
        self._mask[0] = False
        self._mask[0, legal] = True
        logits = self.net.logits(self._obs, self._mask)
        u = None if self.temperature == 0.0 else self._rng.random(1)
        action = int(choose(logits, self.temperature, u)[0])
        self._remember(legal, np.asarray(logits)[0])
        return action

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
    """Factory of the ``policy`` spec head (``agents.registry`` gives the game).

    Raises:
        ValueError: for an empty path or a bad mode; ``CheckpointError`` (a ``ValueError``)
            for a checkpoint that must not be loaded, another game's naming both.
    """
    path, temperature = resolve_path(arg or "")
    return PolicyAgent(spec, path, temperature, game=game)


def shipped_checkpoints() -> dict[str, str]:
    """The checkpoints shipped in the package (each one a built-in agent spec), by name, with
    the game each was trained on (a ``config.json`` without ``game`` is `DEFAULT_GAME`'s)."""
    if not SHIPPED_DIR.is_dir():
        return {}
    out = {}
    for p in sorted(SHIPPED_DIR.iterdir()):
        if (p / CONFIG_FILE).is_file():
            out[p.name] = game_of_config(json.loads((p / CONFIG_FILE).read_text()))
    return out


#: The ``config.json`` field that ranks a game's shipped checkpoints for `best_shipped`: an
#: int, 0 when absent; a stronger network that should become the default declares a higher one.
PRIORITY_FIELD = "priority"


def best_shipped(game: str, directory: str | Path | None = None) -> str | None:
    """The game's best shipped network: the name (a built-in agent spec) of the checkpoint
    shipped for ``game`` that the tools play by default (the single-seat Gymnasium env's
    opponents, ``agents.seat_env``).

    The rule, read from the checkpoints themselves (no table of games): among the shipped
    checkpoints of ``game`` (their ``config.json``'s ``game``) whose ``num_players`` lists
    every player count of the game, the one with the highest `PRIORITY_FIELD` (an int, 0
    when absent); among equals, the first by name. A network trained for some counts only
    (``ppo-2p``) is never the default, and a stronger network shipped later (an ``az-``
    checkpoint) becomes it by covering every count and declaring a higher priority.

    Args:
        game: a registered game's name.
        directory: where the checkpoints lie (default `SHIPPED_DIR`, the package's).

    Returns:
        The checkpoint's directory name, or None when no shipped checkpoint of the game
        covers every player count.

    Raises:
        CheckpointError: for a checkpoint of the game that cannot be read (``read_config``)
            or whose priority is not an int, naming the file.
    """
    spec = game_spec(game)
    root = SHIPPED_DIR if directory is None else Path(directory)
    if not root.is_dir():
        return None
    ranked = []
    for path in sorted(root.iterdir()):
        if not (path / CONFIG_FILE).is_file():
            continue
        head = parse_json(read_file(path, CONFIG_FILE, MAX_CONFIG_BYTES), path / CONFIG_FILE)
        if not isinstance(head, dict) or game_of_config(head) != spec.name:
            continue
        cfg = read_config(path, spec.name)
        if not set(spec.player_counts) <= set(cfg.get("num_players", [])):
            continue
        priority = cfg.get(PRIORITY_FIELD, 0)
        if isinstance(priority, bool) or not isinstance(priority, int):
            raise CheckpointError(
                f"{path / CONFIG_FILE}: {PRIORITY_FIELD} must be an int, got {short_repr(priority)}"
            )
        ranked.append((-priority, path.name))
    return min(ranked)[1] if ranked else None


def make_shipped(name: str) -> Any:
    """Factory of a shipped checkpoint's spec (``ppo-2p`` or ``ppo-2p:sample``)."""

    def factory(spec: str, arg: str | None) -> PolicyAgent:
        return PolicyAgent(spec, SHIPPED_DIR / name, parse_mode(arg))

    return factory


__all__ = [
    "ARCHS",
    "CHECKPOINT_FORMAT",
    "CONFIG_FILE",
    "DEFAULT_ARCH",
    "PRIORITY_FIELD",
    "SHIPPED_DIR",
    "WEIGHTS_FILE",
    "Arch",
    "CheckpointError",
    "MlpArch",
    "PiecesArch",
    "PolicyAgent",
    "PolicyNet",
    "arch_from_json",
    "best_shipped",
    "check_outputs",
    "choose",
    "game_of_config",
    "load_net",
    "load_weights",
    "make_policy",
    "make_shipped",
    "mlp_forward",
    "observation_groups",
    "output_bounds",
    "parse_json",
    "parse_mode",
    "pieces_forward",
    "read_config",
    "read_file",
    "resolve_path",
    "sha256_of",
    "shipped_checkpoints",
    "short_repr",
    "versions",
]
