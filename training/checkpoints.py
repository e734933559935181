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

Resuming trusts no file of the checkpoint (a hostile one may have its checksums
recomputed): every file is read as a regular file of the checkpoint's own directory
(``agents.policy.read_file``: a FIFO, a directory or a link elsewhere is refused) and
checked against ``config.json``'s SHA-256, then parsed from the bytes that were checked.
``sb3.zip`` is read with Stable-Baselines3's loader, whose tensors are read with
``torch.load(weights_only=True)`` (a pickle of anything else is refused); every entry of its
``data`` is replaced by a value built here (``custom_objects``): the spaces, schedules,
classes and buffers, and the hyperparameters, from the run's own arguments (``run.json`` is
the source of truth: an ``n_epochs`` or a ``gamma`` edited inside the archive is never
used), the counters after checking them (``num_timesteps`` must be the checkpoint's step),
so nothing from the file is ever unpickled and an archive with an entry this module does
not know is refused. Its policy weights must equal ``model.safetensors`` (finite, with
finite logits: ``agents.policy.PolicyNet``) and its Adam state must be finite, of the
parameters' shapes, with the hyperparameters of a fresh optimizer. The games in progress
pass their game's own validation before any kernel runs them
(``training.learner.PoolGames.load_arrays``), and the random generators' states are tried
on fresh generators before the process's are set. The opponent pool's checkpoints are
stored relative to the run directory (``checkpoints/step-...``), so a moved run resumes.
Every refusal is a ``CheckpointError`` naming the file and the field.
"""

from __future__ import annotations

import hashlib
import io
import json
import math
import os
import random
import re
import shutil
import zipfile
from collections import deque
from collections.abc import Callable
from pathlib import Path, PurePath
from typing import Any

import numpy as np

from agents.policy import (
    CHECKPOINT_FORMAT,
    CONFIG_FILE,
    WEIGHTS_FILE,
    CheckpointError,
    PolicyNet,
    parse_json,
    read_config,
    read_file,
    sha256_of,
    short_repr,
    versions,
)
from caylus_env._version import __version__
from caylus_env.core.fileio import fsync_path

#: Largest ``run.json`` or ``league.json`` read (bytes).
MAX_RUN_FILE_BYTES = 1 << 24


def read_run_file(out: str | Path, name: str) -> Any:
    """The JSON of the run directory's file ``name`` (``None`` when there is none), read as
    a regular file of the directory (``agents.policy.read_file``: a FIFO, a directory or a
    link elsewhere is refused, never waited on).

    Raises:
        ValueError: naming the file and what is wrong with it (malformed JSON included).
    """
    path = Path(out) / name
    if not os.path.lexists(path):
        return None
    return parse_json(read_file(out, name, MAX_RUN_FILE_BYTES), path)


CHECKPOINTS = "checkpoints"
SB3_FILE = "sb3.zip"
RESUME_ARRAYS = "resume.safetensors"
RESUME_JSON = "resume.json"
_NAME = re.compile(r"^step-(\d{12})$")
#: The entries of ``sb3.zip`` (what ``MaskablePPO.save`` writes), and their total size
#: allowed once unpacked.
SB3_ENTRIES = frozenset(
    {
        "data",
        "pytorch_variables.pth",
        "policy.pth",
        "policy.optimizer.pth",
        "_stable_baselines3_version",
        "system_info.txt",
    }
)
MAX_SB3_UNPACKED = 1 << 31
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
    """The directory name of the checkpoint at ``step``: ``step-`` and 12 digits."""
    return f"step-{step:012d}"


def complete_checkpoints(run_dir: Path) -> list[Path]:
    """The complete checkpoints of a run, oldest first: every ``step-<012d>`` entry (a
    checkpoint is renamed into place whole, so a damaged one is refused when read, never
    skipped for an older one); temporary folders are skipped."""
    root = Path(run_dir) / CHECKPOINTS
    if not root.is_dir():
        return []
    found = [p for p in root.iterdir() if _NAME.match(p.name)]
    return sorted(found, key=lambda p: p.name)


def pool_entry(ckpt: str | Path) -> str:
    """How a run's files name one of its checkpoints: relative to the run directory
    (``checkpoints/step-...``), so that a moved run directory still resumes."""
    return f"{CHECKPOINTS}/{PurePath(ckpt).name}"


def resolve_pool_entry(run_dir: Path, entry: Any, where: str) -> str:
    """The directory of the run's checkpoint that ``entry`` (from ``league.json`` or
    ``resume.json``) names: ``checkpoints/step-...`` under ``run_dir``; an absolute path
    written before entries were relative is read by its last two parts (a run's pool only
    ever holds the run's own checkpoints).

    Raises:
        CheckpointError: for an entry that is not a checkpoint of a run, naming ``where``.
    """
    parts = PurePath(entry).parts if isinstance(entry, str) else ()
    if len(parts) < 2 or parts[-2] != CHECKPOINTS or not _NAME.match(parts[-1]):
        raise CheckpointError(
            f"{where}: {short_repr(entry)} is not a checkpoint of this run; allowed: "
            f"{CHECKPOINTS}/step-<12 digits>"
        )
    return str(Path(run_dir) / CHECKPOINTS / parts[-1])


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
    state["checkpoints_in_pool"] = [pool_entry(c) for c in games.checkpoints]
    files = {
        WEIGHTS_FILE: lambda p: save_file(tensors, str(p)),
        SB3_FILE: lambda p: model.save(str(p)),
        RESUME_ARRAYS: lambda p: write_arrays(p, arrays),
        RESUME_JSON: lambda p: p.write_text(json.dumps(state)),
    }
    final = Path(run_dir) / CHECKPOINTS / checkpoint_name(step)
    return write_directory(final, files, games.spec.name, {"step": int(step), **meta}, replace=True)


def step_of(ckpt: Path) -> int:
    """The training step a checkpoint directory's name gives (``step-<012d>``).

    Raises:
        CheckpointError: for a directory that is not named so.
    """
    m = _NAME.match(Path(ckpt).name)
    if m is None:
        raise CheckpointError(f"{ckpt}: not a checkpoint directory name (step-<12 digits>)")
    return int(m.group(1))


def verify_files(ckpt: Path, names: list[str], game: str) -> tuple[dict[str, Any], dict]:
    """``config.json`` of ``ckpt`` (read and checked for ``game`` by
    ``agents.policy.read_config``) and the bytes of ``names``, each read as a regular file
    of the checkpoint's own directory and checked against its SHA-256 there.

    Raises:
        CheckpointError: for another game's checkpoint, a missing or special file, a file
            outside the directory, a checksum that differs, or a ``step`` in
            ``config.json`` that is not the directory's.
    """
    config = read_config(ckpt, game, exact=True)  # a run resumes on its own action space
    if config.get("step") != step_of(ckpt):
        raise CheckpointError(
            f"{Path(ckpt) / CONFIG_FILE}: step {short_repr(config.get('step'))} is not the "
            f"checkpoint's ({step_of(ckpt)}, from its directory name)"
        )
    data = {}
    for name in names:
        path = Path(ckpt) / name
        if not os.path.lexists(path):
            raise CheckpointError(f"checkpoint {ckpt} has no {name}: it cannot be resumed")
        raw = read_file(ckpt, name)
        if hashlib.sha256(raw).hexdigest() != config.get("sha256", {}).get(name):
            raise CheckpointError(f"{path}: SHA-256 differs from config.json's (file changed)")
        data[name] = raw
    return config, data


def load_arrays_bytes(raw: bytes, where: Path) -> dict[str, np.ndarray]:
    """The arrays of a safetensors file's bytes.

    Raises:
        CheckpointError: naming ``where`` for bytes that are not a safetensors file.
    """
    from safetensors import SafetensorError
    from safetensors.numpy import load

    try:
        return load(raw)
    except (SafetensorError, ValueError, TypeError, OSError) as err:
        raise CheckpointError(
            f"{where}: not a readable safetensors file ({short_repr(str(err), 120)})"
        ) from None


def _array(arrays: dict[str, np.ndarray], key: str, dtype: Any, shape: tuple, where: Path):
    a = arrays.get(key)
    if not isinstance(a, np.ndarray) or a.dtype != np.dtype(dtype) or a.shape != shape:
        got = (str(a.dtype), a.shape) if isinstance(a, np.ndarray) else None
        raise CheckpointError(
            f"{where}: {key} is {got}; a resume needs {(np.dtype(dtype).name, shape)}"
        )
    return a


def check_rngs(arrays: dict[str, np.ndarray], state: dict[str, Any], where: Path) -> None:
    """Check the generators' states ``rng_arrays`` saved by setting them on fresh
    generators (nothing of the process changes).

    Raises:
        CheckpointError: naming the file and the generator whose state is not one.
    """
    import torch

    rng_json = Path(where).with_name(RESUME_JSON)
    torch_shape = tuple(torch.get_rng_state().shape)
    torch_rng = _array(arrays, "torch_rng", np.uint8, torch_shape, where)
    keys = _array(arrays, "numpy_rng_keys", np.uint32, (624,), where)
    tries: list[tuple[str, Path, Callable[[], Any]]] = [
        (
            "torch_rng",
            where,
            lambda: torch.Generator().set_state(torch.from_numpy(torch_rng.copy())),
        )
    ]
    np_state, py_state = state.get("numpy_rng"), state.get("python_rng")
    if not isinstance(np_state, list) or len(np_state) != 4 or np_state[0] != "MT19937":
        raise CheckpointError(f"{rng_json}: numpy_rng must be ['MT19937', pos, has_gauss, cached]")
    if not isinstance(py_state, list) or len(py_state) != 3 or not isinstance(py_state[1], list):
        raise CheckpointError(f"{rng_json}: python_rng must be [version, [625 ints], gauss]")
    name, pos, has_gauss, cached = np_state
    tries.append(
        (
            "numpy_rng",
            rng_json,
            lambda: np.random.RandomState().set_state((name, keys, pos, has_gauss, cached)),
        )
    )
    version, internal, gauss = py_state
    tries.append(
        (
            "python_rng",
            rng_json,
            lambda: random.Random().setstate((version, tuple(internal), gauss)),
        )
    )
    for value, high in ((pos, 624), (has_gauss, 1)):
        if isinstance(value, bool) or not isinstance(value, int) or not 0 <= value <= high:
            raise CheckpointError(
                f"{rng_json}: numpy_rng holds {short_repr(value)}; allowed: an int in 0..{high}"
            )
    if not isinstance(cached, (int, float)) or not math.isfinite(cached):
        raise CheckpointError(f"{rng_json}: numpy_rng's cached gaussian must be a finite number")
    for what, file, attempt in tries:
        try:
            attempt()
        except (ValueError, TypeError, RuntimeError, OverflowError, IndexError) as err:
            raise CheckpointError(
                f"{file}: {what} is not a generator state ({short_repr(str(err), 120)})"
            ) from None


def read_resume(
    ckpt: Path, games: Any, names: list[str]
) -> tuple[dict[str, Any], dict[str, bytes], dict[str, np.ndarray], dict[str, Any]]:
    """What both trainers' resumes share: the checked files ``names`` (``verify_files``;
    ``model.safetensors`` also loaded as a policy: finite weights, finite logits), the
    arrays of ``resume.safetensors`` and the object of ``resume.json``, with the opponent
    pool's checkpoints set on ``games`` (each a checkpoint of this run) and the games in
    progress restored into them (``PoolGames.load_arrays``: each state through its game's
    own validation). Returns ``(config, files, arrays, resume_json)``.

    Raises:
        CheckpointError: naming the file and the field that is wrong.
    """
    ckpt = Path(ckpt)
    game = games.spec.name
    config, files = verify_files(ckpt, names, game)
    PolicyNet(ckpt, game, exact=True)  # model.safetensors: names, shapes, finite logits
    arrays = load_arrays_bytes(files[RESUME_ARRAYS], ckpt / RESUME_ARRAYS)
    state = parse_json(files[RESUME_JSON], ckpt / RESUME_JSON)
    if not isinstance(state, dict):
        raise CheckpointError(f"{ckpt / RESUME_JSON}: must hold a JSON object")
    pool = state.get("checkpoints_in_pool")
    if not isinstance(pool, list):
        raise CheckpointError(
            f"{ckpt / RESUME_JSON}: checkpoints_in_pool must be a list, got {short_repr(pool)}"
        )
    run_dir = ckpt.parent.parent
    where = f"{ckpt / RESUME_JSON}: checkpoints_in_pool"
    entries = [resolve_pool_entry(run_dir, c, where) for c in pool]
    if any(step_of(Path(c)) >= step_of(ckpt) for c in entries):
        raise CheckpointError(f"{where} names a checkpoint not older than {ckpt.name}")
    try:
        games.set_checkpoints(entries)
        games.load_arrays(
            {k[6:]: v for k, v in arrays.items() if k.startswith("games.")},
            str(ckpt / RESUME_ARRAYS),
        )
    except CheckpointError:
        raise
    except ValueError as err:
        raise CheckpointError(str(err)) from None
    return config, files, arrays, state


def _counter(data: dict[str, Any], key: str, low: int, where: Path) -> int:
    v = data.get(key)
    if isinstance(v, bool) or not isinstance(v, int) or v < low:
        raise CheckpointError(f"{where}: data.{key} must be an int >= {low}, got {short_repr(v)}")
    return v


def _sb3_replacements(
    env: Any,
    model_kwargs: dict[str, Any],
    last: dict[str, Any],
    data: dict[str, Any],
    step: int,
    where: Path,
) -> dict:
    """The value of every entry of ``sb3.zip``'s ``data``: built here (the classes, spaces,
    schedules and buffers SB3 would unpickle; the hyperparameters from the run's arguments,
    ``model_kwargs``, and SB3's defaults that the trainer never changes), or checked (the
    counters: ``num_timesteps`` must be ``step``).

    Raises:
        CheckpointError: naming an entry that is unknown or a counter that does not fit.
    """
    from sb3_contrib.common.maskable.buffers import MaskableRolloutBuffer
    from sb3_contrib.common.maskable.policies import MaskableActorCriticPolicy

    lr = float(model_kwargs["learning_rate"])
    clip = float(model_kwargs["clip_range"])
    if _counter(data, "num_timesteps", 0, where) != step:
        raise CheckpointError(
            f"{where}: data.num_timesteps is {data['num_timesteps']}, the checkpoint's step "
            f"is {step}"
        )
    progress = data.get("_current_progress_remaining")
    # SB3 writes 1 - num_timesteps / total_timesteps: slightly below 0 at the end of a run
    # whose last rollout overshot --steps (1,200,128 of 1,200,000), and such a finished run
    # may be resumed for more steps. A rollout is never longer than the run, so -1 bounds it.
    if not isinstance(progress, (int, float)) or not -1.0 <= progress <= 1.0:
        raise CheckpointError(
            f"{where}: data._current_progress_remaining must be in [-1, 1], got "
            f"{short_repr(progress)}"
        )
    ours = {
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
        "_last_original_obs": None,
        **{k: model_kwargs[k] for k in ("n_steps", "batch_size", "n_epochs")},
        **{k: float(model_kwargs[k]) for k in ("gamma", "gae_lambda", "ent_coef", "vf_coef")},
        # SB3's defaults, which the trainer never changes
        "verbose": 0,
        "action_noise": None,
        "tensorboard_log": None,
        "use_sde": False,
        "sde_sample_freq": -1,
        "_stats_window_size": 100,
        "n_envs": env.num_envs,
        "max_grad_norm": 0.5,
        "clip_range_vf": None,
        "normalize_advantage": True,
        "target_kl": None,
        # the counters, checked
        "num_timesteps": step,
        "_total_timesteps": _counter(data, "_total_timesteps", 0, where),
        "_num_timesteps_at_start": _counter(data, "_num_timesteps_at_start", 0, where),
        "_episode_num": _counter(data, "_episode_num", 0, where),
        "_n_updates": _counter(data, "_n_updates", 0, where),
        "seed": _counter(data, "seed", 0, where),
        "start_time": _counter(data, "start_time", 0, where),
        "_current_progress_remaining": float(progress),
    }
    unknown = sorted(set(data) - set(ours))
    if unknown:
        raise CheckpointError(f"{where}: unknown entries {unknown} in data; refused")
    return {k: v for k, v in ours.items() if k in data}


def _sb3_data(raw: bytes, where: Path) -> dict[str, Any]:
    """The JSON ``data`` of ``sb3.zip``'s bytes, after checking the archive's entries.

    Raises:
        CheckpointError: for bytes that are not a zip archive, an entry that is not one
            ``MaskablePPO.save`` writes, an archive too large unpacked, or ``data`` that is
            not a JSON object.
    """
    try:
        with zipfile.ZipFile(io.BytesIO(raw)) as z:
            infos = z.infolist()
            names = {i.filename for i in infos}
            unknown = sorted(names - SB3_ENTRIES)
            if unknown or "data" not in names or len(infos) != len(names):
                raise CheckpointError(
                    f"{where}: entries {sorted(names)} are not those of a MaskablePPO archive "
                    f"(allowed: {sorted(SB3_ENTRIES)}, data required, each once)"
                )
            if sum(i.file_size for i in infos) > MAX_SB3_UNPACKED:
                raise CheckpointError(f"{where}: more than {MAX_SB3_UNPACKED} bytes unpacked")
            text = z.read("data")
    except (zipfile.BadZipFile, zipfile.LargeZipFile, OSError, EOFError, ValueError) as err:
        if isinstance(err, CheckpointError):
            raise
        raise CheckpointError(
            f"{where}: not a readable zip archive ({short_repr(str(err), 120)})"
        ) from None
    data = parse_json(text, where)
    if not isinstance(data, dict):
        raise CheckpointError(f"{where}: data must be a JSON object")
    return data


def _check_optimizer(model: Any, weights: dict[str, np.ndarray], where: Path) -> None:
    """The loaded policy must be ``model.safetensors``'s network, and its Adam state finite,
    of its parameters' shapes, with a fresh optimizer's hyperparameters."""
    import torch

    state = {k: v.detach().numpy() for k, v in model.policy.state_dict().items()}
    for name, value in weights.items():
        if name not in state or not np.array_equal(state[name], value):
            raise CheckpointError(
                f"{where}: policy.pth's {name} is not model.safetensors' (file changed)"
            )
    for name, value in state.items():
        if not np.isfinite(value).all():
            raise CheckpointError(f"{where}: policy.pth's {name} holds NaN or infinite values")
    opt = model.policy.optimizer
    fresh = model.policy.optimizer_class(
        [torch.zeros(1, requires_grad=True)],
        lr=model.lr_schedule(1.0),
        **model.policy.optimizer_kwargs,
    ).param_groups[0]
    for group in opt.param_groups:
        for key, value in fresh.items():
            if key != "params" and group.get(key) != value:
                raise CheckpointError(
                    f"{where}: policy.optimizer.pth's {key} is {short_repr(group.get(key))}, "
                    f"a fresh optimizer's is {short_repr(value)}"
                )
        for p in group["params"]:
            for key, t in opt.state.get(p, {}).items():
                t = torch.as_tensor(t)
                if not bool(torch.isfinite(t).all()) or (key != "step" and t.shape != p.shape):
                    raise CheckpointError(
                        f"{where}: policy.optimizer.pth's {key} state is not finite or not "
                        f"of its parameter's shape {tuple(p.shape)}"
                    )
                if key in ("step", "exp_avg_sq") and bool((t < 0).any()):
                    raise CheckpointError(f"{where}: policy.optimizer.pth's {key} is negative")


def load_for_resume(ckpt: Path, env: Any, model_kwargs: dict[str, Any]) -> Any:
    """Load the ``MaskablePPO`` of a checkpoint of the env's game and restore the games and
    generators, so that training continues exactly as the uninterrupted run. Every file is
    checked before use (module docstring); nothing of the process changes before all are.

    Raises:
        CheckpointError: for another game's checkpoint, missing, special, changed or
            malformed files (naming the file and the field), or an archive entry that would
            need unpickling and is not one this module replaces.
    """
    import pickle

    from sb3_contrib import MaskablePPO

    games = env.games
    ckpt = Path(ckpt)
    names = [WEIGHTS_FILE, SB3_FILE, RESUME_ARRAYS, RESUME_JSON]
    _, files, arrays, state = read_resume(ckpt, games, names)
    starts = _array(
        arrays, "last_episode_starts", np.bool_, (games.num_envs,), ckpt / RESUME_ARRAYS
    )
    check_rngs(arrays, state, ckpt / RESUME_ARRAYS)
    last = {"obs": games.batch.obs.copy(), "episode_starts": starts.astype(np.bool_)}
    where = ckpt / SB3_FILE
    data = _sb3_data(files[SB3_FILE], where)
    replacements = _sb3_replacements(env, model_kwargs, last, data, step_of(ckpt), where)
    try:
        model = MaskablePPO.load(
            io.BytesIO(files[SB3_FILE]), env=env, custom_objects=replacements, device="cpu"
        )
    except (
        pickle.UnpicklingError,
        RuntimeError,
        ValueError,
        KeyError,
        TypeError,
        AttributeError,
        EOFError,
        OSError,
        zipfile.BadZipFile,
    ) as err:
        raise CheckpointError(
            f"{where}: cannot be loaded ({type(err).__name__}: {short_repr(str(err), 160)})"
        ) from None
    weights = load_arrays_bytes(files[WEIGHTS_FILE], ckpt / WEIGHTS_FILE)
    _check_optimizer(model, weights, where)
    model._last_obs = last["obs"]
    model._last_episode_starts = last["episode_starts"]
    restore_rngs(arrays, state)
    return model


def write_policy_checkpoint(
    directory: Path,
    tensors: dict[str, Any],
    game: str,
    meta: dict[str, Any],
    replace: bool = False,
) -> Path:
    """Write a checkpoint of ``game`` that holds a network only (``config.json`` and
    ``model.safetensors``: what ``policy:PATH`` and ``--init`` read), atomically; with
    ``replace``, one already there is replaced whole (``write_directory``).

    Raises:
        ValueError: if ``directory`` exists and ``replace`` is False.
    """
    from safetensors.torch import save_file

    files = {WEIGHTS_FILE: lambda p: save_file(tensors, str(p))}
    return write_directory(Path(directory), files, game, meta, replace=replace)


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

    net = PolicyNet(ckpt, exact=True)  # versions, checksum, names, shapes, finite logits
    raw = read_file(ckpt, WEIGHTS_FILE)
    if hashlib.sha256(raw).hexdigest() != net.config["sha256"].get(WEIGHTS_FILE):
        raise CheckpointError(f"{Path(ckpt) / WEIGHTS_FILE}: changed while it was read")
    tensors = load_arrays_bytes(raw, Path(ckpt) / WEIGHTS_FILE)
    meta = {k: v for k, v in net.config.items() if k not in WRITER_FIELDS}
    meta["exported_from"] = Path(ckpt).name
    return write_policy_checkpoint(
        Path(out), {k: torch.from_numpy(v.copy()) for k, v in tensors.items()}, net.game, meta
    )
