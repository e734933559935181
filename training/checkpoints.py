"""Checkpoint directories: written atomically, read without executing code.

A training run writes ``OUT/checkpoints/step-<012d>/`` every ``--checkpoint-every`` steps
and at the end. Each holds (``agents.policy`` documents the first two, which are all a
``policy:PATH`` agent reads):

* ``config.json``: format, the game and its observation and action-space versions, arch,
  player counts, training step, seed, parent checkpoint, the exact command, the SHA-256 of
  every file;
* ``model.safetensors``: the policy network's weights;
* ``sb3.zip``: the ``MaskablePPO`` archive (optimizer state, counters, hyperparameters);
* ``resume.safetensors`` + ``resume.json``: the games in progress, the last observations
  and the random generators (torch, NumPy, Python), so that ``--resume`` continues exactly
  where the uninterrupted run would have been.

The directory is written under a temporary name in the same folder, every file fsync'd,
then renamed: a ``kill -9`` at any moment leaves either the whole checkpoint or none (a
leftover ``.tmp-*`` folder is ignored and removed by the next run).

Resuming reads ``sb3.zip`` with Stable-Baselines3's loader, whose tensors are read with
``torch.load(weights_only=True)``; its JSON entries that SB3 would unpickle (spaces,
schedules, classes, buffers) are all replaced by objects built here (``custom_objects``),
so nothing from the file is ever unpickled, and an archive with an entry this module does
not know is refused.
"""

from __future__ import annotations

import json
import os
import random
import re
import shutil
import zipfile
from collections import deque
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np

from agents.policy import (
    CHECKPOINT_FORMAT,
    CONFIG_FILE,
    WEIGHTS_FILE,
    CheckpointError,
    PolicyNet,
    read_config,
    sha256_of,
    versions,
)
from caylus_env._version import __version__
from caylus_env.core.fileio import fsync_path

CHECKPOINTS = "checkpoints"
SB3_FILE = "sb3.zip"
RESUME_ARRAYS = "resume.safetensors"
RESUME_JSON = "resume.json"
_NAME = re.compile(r"^step-(\d{12})$")
#: ``config.json`` fields that a checkpoint's writer sets (an export writes them afresh).
WRITER_FIELDS = (
    "format",
    "caylus_env_version",
    "game",
    "observation_version",
    "action_space_version",
    "sha256",
)


def checkpoint_name(step: int) -> str:
    return f"step-{step:012d}"


def complete_checkpoints(run_dir: Path) -> list[Path]:
    """The complete checkpoints of a run, oldest first (temporary folders are skipped)."""
    root = Path(run_dir) / CHECKPOINTS
    if not root.is_dir():
        return []
    found = [p for p in root.iterdir() if _NAME.match(p.name) and (p / CONFIG_FILE).is_file()]
    return sorted(found, key=lambda p: p.name)


def remove_partial(run_dir: Path) -> None:
    """Remove the temporary folders a killed run left behind."""
    root = Path(run_dir) / CHECKPOINTS
    if root.is_dir():
        for p in root.iterdir():
            if p.name.startswith(".tmp-"):
                shutil.rmtree(p, ignore_errors=True)


def write_directory(
    final: Path,
    files: dict[str, Callable[[Path], None]],
    game: str,
    meta: dict[str, Any],
    replace: bool = False,
) -> Path:
    """Write a checkpoint directory atomically: each of ``files`` (name -> a writer of that
    path) into a temporary folder beside ``final``, then ``config.json`` (format, version,
    ``game`` and its observation and action-space versions, ``meta``, the SHA-256 of every
    file), every file fsync'd, then one rename. A ``kill -9`` at any moment leaves the whole
    checkpoint or none.

    Raises:
        ValueError: if ``final`` exists and ``replace`` is False.
    """
    final = Path(final)
    if final.exists() and not replace:
        raise ValueError(f"{final} exists; choose a new output directory")
    final.parent.mkdir(parents=True, exist_ok=True)
    tmp = final.parent / f".tmp-{final.name}-{os.getpid()}"
    shutil.rmtree(tmp, ignore_errors=True)
    tmp.mkdir()
    for name, write in files.items():
        write(tmp / name)
    config = {
        "format": CHECKPOINT_FORMAT,
        "caylus_env_version": __version__,
        **versions(game),
        **meta,
        "sha256": {name: sha256_of(tmp / name) for name in files},
    }
    (tmp / CONFIG_FILE).write_text(json.dumps(config, indent=2) + "\n")
    for name in [*files, CONFIG_FILE]:
        fsync_path(tmp / name)
    fsync_path(tmp)
    if final.exists():  # the same step written again by a resumed run: replace it whole
        shutil.rmtree(final)
    os.rename(tmp, final)
    fsync_path(final.parent)
    return final


def rng_arrays() -> tuple[dict[str, np.ndarray], dict[str, Any]]:
    """The process's torch, NumPy and Python generators: arrays and JSON (``restore_rngs``)."""
    import torch

    np_state = np.random.get_state()
    py_state = random.getstate()
    arrays = {
        "torch_rng": torch.get_rng_state().numpy(),
        "numpy_rng_keys": np.asarray(np_state[1], np.uint32),
    }
    state = {
        "numpy_rng": [np_state[0], int(np_state[2]), int(np_state[3]), float(np_state[4])],
        "python_rng": [py_state[0], list(py_state[1]), py_state[2]],
    }
    return arrays, state


def restore_rngs(arrays: dict[str, np.ndarray], state: dict[str, Any]) -> None:
    """Set the generators ``rng_arrays`` saved."""
    import torch

    torch.set_rng_state(torch.from_numpy(arrays["torch_rng"].copy()))
    name, pos, has_gauss, cached = state["numpy_rng"]
    np.random.set_state((name, arrays["numpy_rng_keys"], pos, has_gauss, cached))
    version, internal, gauss = state["python_rng"]
    random.setstate((version, tuple(internal), gauss))


def write_arrays(path: Path, arrays: dict[str, np.ndarray]) -> None:
    """``arrays`` as a safetensors file (contiguous copies)."""
    from safetensors.numpy import save_file

    save_file({k: np.ascontiguousarray(v) for k, v in arrays.items()}, str(path))


def write_checkpoint(
    run_dir: Path,
    step: int,
    model: Any,
    games: Any,
    meta: dict[str, Any],
    last_episode_starts: np.ndarray,
    tensors: dict[str, Any],
) -> Path:
    """Write the ``MaskablePPO`` checkpoint of ``step`` atomically; returns its directory.

    Args:
        run_dir: the run's output directory.
        step: the training step (environment steps of the learner).
        model: the ``MaskablePPO`` model.
        games: the ``PoolGames`` it trains on (their game is the checkpoint's).
        meta: the ``config.json`` fields besides format, versions and checksums (arch,
            num_players, seed, parent, command, ...).
        last_episode_starts: SB3's per-game episode-start flags at this point.
        tensors: the network's weights (``training.networks.policy_tensors``).
    """
    from safetensors.torch import save_file

    arrays = {f"games.{k}": v for k, v in games.save_arrays().items()}
    rngs, state = rng_arrays()
    arrays.update(rngs)
    arrays["last_episode_starts"] = np.asarray(last_episode_starts, np.bool_)
    state["checkpoints_in_pool"] = list(games.checkpoints)
    files = {
        WEIGHTS_FILE: lambda p: save_file(tensors, str(p)),
        SB3_FILE: lambda p: model.save(str(p)),
        RESUME_ARRAYS: lambda p: write_arrays(p, arrays),
        RESUME_JSON: lambda p: p.write_text(json.dumps(state)),
    }
    final = Path(run_dir) / CHECKPOINTS / checkpoint_name(step)
    return write_directory(final, files, games.spec.name, {"step": int(step), **meta}, replace=True)


def verify_files(ckpt: Path, names: list[str], game: str) -> dict[str, Any]:
    """``config.json`` of ``ckpt`` (read and checked for ``game`` by
    ``agents.policy.read_config``) after checking the SHA-256 of ``names``.

    Raises:
        CheckpointError: for another game's checkpoint, a missing file or a checksum that
            differs.
    """
    config = read_config(ckpt, game)
    for name in names:
        path = ckpt / name
        if not path.is_file():
            raise CheckpointError(f"checkpoint {ckpt} has no {name}: it cannot be resumed")
        if sha256_of(path) != config.get("sha256", {}).get(name):
            raise CheckpointError(f"{path}: SHA-256 differs from config.json's (file changed)")
    return config


def _sb3_replacements(env: Any, model_kwargs: dict[str, Any], last: dict[str, Any]) -> dict:
    """What replaces each entry of ``sb3.zip``'s ``data`` that SB3 would unpickle."""
    from sb3_contrib.common.maskable.buffers import MaskableRolloutBuffer
    from sb3_contrib.common.maskable.policies import MaskableActorCriticPolicy

    lr = float(model_kwargs["learning_rate"])
    clip = float(model_kwargs["clip_range"])
    return {
        "policy_class": MaskableActorCriticPolicy,
        "policy_kwargs": model_kwargs["policy_kwargs"],
        "observation_space": env.observation_space,
        "action_space": env.action_space,
        "lr_schedule": lambda _progress: lr,
        "learning_rate": lr,
        "clip_range": lambda _progress: clip,
        "rollout_buffer_class": MaskableRolloutBuffer,
        "rollout_buffer_kwargs": {},
        "ep_info_buffer": deque(maxlen=100),
        "ep_success_buffer": deque(maxlen=100),
        "_last_obs": last["obs"],
        "_last_episode_starts": last["episode_starts"],
    }


def load_for_resume(ckpt: Path, env: Any, model_kwargs: dict[str, Any]) -> Any:
    """Load the ``MaskablePPO`` of a checkpoint of the env's game and restore the games and
    generators, so that training continues exactly as the uninterrupted run.

    Raises:
        CheckpointError: for another game's checkpoint, missing or changed files, or an
            archive entry that would need unpickling and is not one this module replaces.
    """
    from safetensors.numpy import load_file
    from sb3_contrib import MaskablePPO

    games = env.games
    verify_files(ckpt, [WEIGHTS_FILE, SB3_FILE, RESUME_ARRAYS, RESUME_JSON], games.spec.name)
    arrays = load_file(str(ckpt / RESUME_ARRAYS))
    state = json.loads((ckpt / RESUME_JSON).read_text())
    games.set_checkpoints(state["checkpoints_in_pool"])
    games.load_arrays({k[6:]: v for k, v in arrays.items() if k.startswith("games.")})
    last = {
        "obs": games.batch.obs.copy(),
        "episode_starts": arrays["last_episode_starts"].astype(np.bool_),
    }
    replacements = _sb3_replacements(env, model_kwargs, last)
    with zipfile.ZipFile(ckpt / SB3_FILE) as z:
        data = json.loads(z.read("data"))
    pickled = {k for k, v in data.items() if isinstance(v, dict) and ":serialized:" in v}
    unknown = sorted(pickled - set(replacements))
    if unknown:
        raise CheckpointError(
            f"{ckpt / SB3_FILE}: entries {unknown} would need unpickling; refused"
        )
    model = MaskablePPO.load(
        str(ckpt / SB3_FILE), env=env, custom_objects=replacements, device="cpu"
    )
    model._last_obs = last["obs"]
    model._last_episode_starts = last["episode_starts"]
    restore_rngs(arrays, state)
    return model


def write_policy_checkpoint(
    directory: Path, tensors: dict[str, Any], game: str, meta: dict[str, Any]
) -> Path:
    """Write a checkpoint of ``game`` that holds a network only (``config.json`` and
    ``model.safetensors``: what ``policy:PATH`` and ``--init`` read), atomically.

    Raises:
        ValueError: if ``directory`` exists.
    """
    from safetensors.torch import save_file

    files = {WEIGHTS_FILE: lambda p: save_file(tensors, str(p))}
    return write_directory(Path(directory), files, game, meta)


def export_policy(ckpt: Path, out: Path) -> Path:
    """Copy a training checkpoint's network into a new policy-only checkpoint (``config.json``
    and ``model.safetensors``, a few MB): what to publish or ship. The training fields of
    ``config.json`` (command, step, seed, parent) are kept; ``exported_from`` names the
    source.

    Raises:
        CheckpointError: if the source's weights do not load (see ``agents.policy``).
        ValueError: if ``out`` exists.
    """
    import torch
    from safetensors.numpy import load_file

    net = PolicyNet(ckpt)  # versions, checksum, names and shapes
    tensors = load_file(str(Path(ckpt) / WEIGHTS_FILE))
    meta = {k: v for k, v in net.config.items() if k not in WRITER_FIELDS}
    meta["exported_from"] = Path(ckpt).name
    return write_policy_checkpoint(
        Path(out), {k: torch.from_numpy(v.copy()) for k, v in tensors.items()}, net.game, meta
    )
