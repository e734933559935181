"""A seeded fuzzer of checkpoints and run directories: tampered files must be refused with
a clear error, or load and play correctly, never crash, hang, or load wrong.

Two sources are tampered, each copied afresh for every case:

- a policy checkpoint (``config.json`` + ``model.safetensors``: the shipped ``ppo-2p``),
  loaded through the real entry point, ``policy:PATH`` (``agents.registry.make_agent``),
  then asked for a few moves of a new game;
- a training run directory (``run.json``, ``league.json``, the last checkpoint's
  ``config.json``, ``model.safetensors``, ``sb3.zip``, ``resume.safetensors``,
  ``resume.json``), resumed through the real preparation of ``caylus train ppo --resume``
  (``PPOConfig.check``, ``prepare_run``, ``training.ppo.build_model``: every file read,
  the games restored), then the games stepped a few times.

The tampering is what a hostile or careless user would do, checksums in ``config.json``
recomputed where the case says so (as an attacker would): byte flips, truncations, edited
JSON fields (types, values, nesting), edited safetensors arrays with the right dtype and
shape (headers rewritten), edited ``sb3.zip`` entries (hyperparameters, counters, a pickle
that would write a file if it ran), symbolic links (to another checkpoint, outside),
FIFOs, directories in place of files, a moved run directory. Each case says what must
happen: ``refuse`` (a clear error), ``either`` (a clear error, or load and pass the
checks) or ``accept`` (the valid controls: load and pass the checks). A case runs in a
worker subprocess under a watchdog and is classified:

- ``clear``: refused with a ``ValueError`` (or subclass) whose message is one line;
- ``other``: any other exception, or a multi-line message (a traceback for the user);
- ``accepted``: loaded, played its moves (legal, finite logits) or resumed with the
  run's own hyperparameters and counters, every game's invariants holding after a few
  steps, and no code from a file ran;
- ``invalid``: loaded although it must be refused, or loaded wrong (a check above failed);
- ``control_refused``: a valid control that did not load;
- ``crash``: the worker died without a Python error (a signal);
- ``hang``: the watchdog fired.

Workers are restarted after a crash or a hang; the cases are a pure function of the seed
and the index, rebuilt by the workers (``tests/watched.py``). ``NUMBA_BOUNDSCHECK=1`` makes an out-of-bounds
access an ``IndexError``; its kernels are compiled into their own cache folder.

Run ``python -m tests.training.fuzz_checkpoints --cases 300`` from the repository root for
the counts table (it first trains a tiny run, about half a minute).
"""

from __future__ import annotations

import argparse
import hashlib
import io
import json
import os
import shutil
import struct
import sys
import tempfile
import zipfile
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

OUTCOMES = ("clear", "other", "accepted", "invalid", "control_refused", "crash", "hang")
FAILURES = ("other", "invalid", "control_refused", "crash", "hang")
ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))
from tests import watched  # noqa: E402  (the suite's one runner of watched workers)
from tests.watched import run_watched  # noqa: E402

SHIPPED = ROOT / "agents" / "checkpoints" / "ppo-2p"
GAME = "caylus"
CASE_TIMEOUT_S = 60.0
MOVES = 4
#: The tiny run the resume cases tamper: two checkpoints, the first promoted into the pool.
RUN_ARGS: dict[str, Any] = {
    "game": GAME,
    "players": 2,
    "steps": 64,
    "seed": 3,
    "envs": 4,
    "n_steps": 8,
    "batch_size": 32,
    "n_epochs": 1,
    "checkpoint_every": 32,
    "eval_games": 0,
    "gate_games": 1,
    "threads": 1,
    "opponents": "random:1,self:1,pool:1",
    "progress": False,
}
LAST = "checkpoints/step-000000000064"
ODD: tuple[Any, ...] = (None, "x", -1, 2**70, 1.5, True, [], {}, [[[[1]]]], "9" * 5000)


def build_run(out: Path) -> Path:
    """Train the tiny run that resume cases tamper (``RUN_ARGS``) into ``out``."""
    from training.ppo import config_from_args, train

    train(config_from_args(out=str(out), **RUN_ARGS))
    return out


# ---------------------------------------------------------------------------------------
# Tampering helpers.
# ---------------------------------------------------------------------------------------
def _rehash(ckpt: Path, name: str) -> None:
    cfg_path = ckpt / "config.json"
    cfg = json.loads(cfg_path.read_text())
    cfg["sha256"][name] = hashlib.sha256((ckpt / name).read_bytes()).hexdigest()
    cfg_path.write_text(json.dumps(cfg))


def _edit_json(path: Path, keys: tuple, value: Any) -> None:
    d = json.loads(path.read_text())
    node = d
    for k in keys[:-1]:
        node = node[k]
    if value is _DELETE:
        node.pop(keys[-1], None)
    else:
        node[keys[-1]] = value
    path.write_text(json.dumps(d))


_DELETE = object()


def _deep(depth: int) -> str:
    return "[" * depth + "]" * depth


def _safetensors_edit(path: Path, edit: Callable[[dict[str, np.ndarray]], None]) -> None:
    from safetensors.numpy import load, save

    arrays = dict(load(path.read_bytes()))
    edit(arrays)
    path.write_bytes(save({k: np.ascontiguousarray(v) for k, v in arrays.items()}))


def _header_edit(path: Path, edit: Callable[[dict], None]) -> None:
    raw = path.read_bytes()
    n = struct.unpack("<Q", raw[:8])[0]
    header = json.loads(raw[8 : 8 + n])
    edit(header)
    text = json.dumps(header).encode()
    text += b" " * (-len(text) % 8)
    path.write_bytes(struct.pack("<Q", len(text)) + text + raw[8 + n :])


def _zip_edit(path: Path, entry: str, edit: Callable[[bytes], bytes | None]) -> None:
    with zipfile.ZipFile(path) as z:
        items = [(i.filename, z.read(i.filename)) for i in z.infolist()]
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w", zipfile.ZIP_DEFLATED) as z:
        for name, data in items:
            new = edit(data) if name == entry else data
            if new is not None:
                z.writestr(name, new)
    path.write_bytes(buf.getvalue())


def _sb3_data(path: Path, key: str, value: Any) -> None:
    def edit(data: bytes) -> bytes:
        d = json.loads(data)
        d[key] = value
        return json.dumps(d).encode()

    _zip_edit(path, "data", edit)


class _Writes:
    """A pickle that would create ``path`` if it were ever unpickled."""

    def __init__(self, path: str) -> None:
        self.path = path

    def __reduce__(self) -> tuple:
        return (open, (self.path, "w"))


def _torch_pickle(marker: Path) -> bytes:
    import torch

    buf = io.BytesIO()
    torch.save({"x": _Writes(str(marker))}, buf, pickle_protocol=2)
    return buf.getvalue()


def _flip(path: Path, rng: np.random.Generator, count: int = 1) -> None:
    raw = bytearray(path.read_bytes())
    for _ in range(count):
        i = int(rng.integers(len(raw)))
        raw[i] ^= 1 << int(rng.integers(8))
    path.write_bytes(bytes(raw))


def _special(path: Path, kind: str, target: Path | None = None) -> None:
    """Replace ``path`` by a FIFO, a directory, or a symbolic link to ``target``."""
    if path.is_dir() and not path.is_symlink():
        shutil.rmtree(path)
    elif path.exists() or path.is_symlink():
        path.unlink()
    if kind == "fifo":
        os.mkfifo(path)
    elif kind == "dir":
        path.mkdir()
    else:
        path.symlink_to(target)  # type: ignore[arg-type]


# ---------------------------------------------------------------------------------------
# The cases.
# ---------------------------------------------------------------------------------------
@dataclass(frozen=True)
class Case:
    """One tampering: ``target`` ``policy`` or ``resume``; ``apply(root, rng, ctx)`` edits
    the copy under ``root`` (the checkpoint ``A`` beside a valid other checkpoint ``B``,
    or the run directory ``run``)."""

    name: str
    target: str
    expect: str
    apply: Callable[[Path, np.random.Generator, dict], None]


def _policy_cases() -> list[Case]:
    cases: list[Case] = []

    def add(name: str, expect: str, fn: Callable) -> None:
        cases.append(Case(name, "policy", expect, fn))

    add("control: untouched", "accept", lambda r, g, c: None)
    add(
        "control: config.json reformatted, extra field",
        "accept",
        lambda r, g, c: _edit_json(r / "A/config.json", ("note",), "hello"),
    )
    add(
        "control: weights scaled by 0.5, checksum recomputed",
        "accept",
        lambda r, g, c: _scale(r / "A", 0.5),
    )
    fields = [
        ("format",),
        ("game",),
        ("observation_version",),
        ("action_space_version",),
        ("arch",),
        ("arch", "name"),
        ("arch", "hidden"),
        ("arch", "seat_dim"),
        ("sha256",),
        ("sha256", "model.safetensors"),
        ("num_players",),
        ("step",),
        ("parent",),
    ]
    for keys in fields:
        for value in (*ODD, _DELETE):
            label = "deleted" if value is _DELETE else repr(value)[:20]
            benign = value is _DELETE and keys in (("num_players",), ("step",), ("parent",))
            benign |= keys == ("parent",) and (value is None or isinstance(value, str))
            benign |= keys == ("step",) and type(value) is int and value >= 0
            benign |= keys[0] == "arch" and len(keys) == 2 and value is _DELETE  # defaults
            benign |= keys == ("num_players",) and value == []
            benign |= keys == ("game",) and value is _DELETE  # the default game's checkpoint
            add(
                f"config.json {'.'.join(keys)} = {label}",
                "either" if benign else "refuse",
                lambda r, g, c, k=keys, v=value: _edit_json(r / "A/config.json", k, v),
            )
    for keys in (("command",), ("seed",), ("opponents",)):
        for value in ODD[:4]:
            add(
                f"config.json {keys[0]} = {repr(value)[:20]} (unread)",
                "either",
                lambda r, g, c, k=keys, v=value: _edit_json(r / "A/config.json", k, v),
            )
    for depth in (10, 100_000):
        add(
            f"config.json arch nested {depth} deep",
            "refuse",
            lambda r, g, c, d=depth: _raw_field(r / "A/config.json", "arch", _deep(d)),
        )
    for label, data in (
        ("empty", b""),
        ("truncated", None),
        ("not UTF-8", b"\xff\xfe{\x00"),
        ("a JSON array", b"[1, 2]"),
        ("deep nesting", _deep(200_000).encode()),
        ("2 MiB of spaces", b" " * (2 << 20)),
    ):
        add(
            f"config.json {label}",
            "refuse",
            lambda r, g, c, d=data: _write_or_truncate(r / "A/config.json", d),
        )
    for name in ("config.json", "model.safetensors"):
        add(f"{name} is a FIFO", "refuse", lambda r, g, c, n=name: _special(r / "A" / n, "fifo"))
        add(
            f"{name} is a directory",
            "refuse",
            lambda r, g, c, n=name: _special(r / "A" / n, "dir"),
        )
        add(
            f"{name} links to B's",
            "refuse",
            lambda r, g, c, n=name: _special(r / "A" / n, "link", r / "B" / n),
        )
        add(
            f"{name} links to /dev/zero",
            "refuse",
            lambda r, g, c, n=name: _special(r / "A" / n, "link", Path("/dev/zero")),
        )
        add(
            f"{name} is a dangling link",
            "refuse",
            lambda r, g, c, n=name: _special(r / "A" / n, "link", r / "nowhere"),
        )
    add(
        "model.safetensors links to B's, B's checksum in A's config.json",
        "refuse",
        lambda r, g, c: (
            _special(r / "A/model.safetensors", "link", r / "B/model.safetensors"),
            _edit_json(
                r / "A/config.json",
                ("sha256", "model.safetensors"),
                hashlib.sha256((r / "B/model.safetensors").read_bytes()).hexdigest(),
            ),
        ),
    )
    w = "A/model.safetensors"
    add("model.safetensors: 1 byte flipped", "refuse", lambda r, g, c: _flip(r / w, g))
    add(
        "model.safetensors: 1 byte flipped, checksum recomputed",
        "either",
        lambda r, g, c: (_flip(r / w, g), _rehash(r / "A", "model.safetensors")),
    )
    add(
        "model.safetensors: 50 bytes flipped, checksum recomputed",
        "either",
        lambda r, g, c: (_flip(r / w, g, 50), _rehash(r / "A", "model.safetensors")),
    )
    for frac in (0.0, 0.001, 0.5, 0.999):
        add(
            f"model.safetensors truncated to {frac:.1%}, checksum recomputed",
            "refuse",
            lambda r, g, c, f=frac: (_truncate(r / w, f), _rehash(r / "A", "model.safetensors")),
        )
    for label, value in (("NaN", np.nan), ("inf", np.inf), ("3e38", 3e38), ("1e20", 1e20)):
        # 1e20 keeps every logit finite (below 1e30): a bad network, but a defined one
        expect = "either" if value == 1e20 else "refuse"
        add(
            f"model.safetensors: action_net.weight = {label}, checksum recomputed",
            expect,
            lambda r, g, c, v=value: _set_tensor(r / "A", "action_net.weight", v),
        )
        add(
            f"model.safetensors: one entry of the trunk = {label}, checksum recomputed",
            expect,
            lambda r, g, c, v=value: _set_tensor(r / "A", "features_extractor.trunk.weight", v, 1),
        )
    add(
        "model.safetensors: weights scaled by 1e9, checksum recomputed",
        "refuse",
        lambda r, g, c: _scale(r / "A", 1e9),
    )
    add(
        "model.safetensors: a tensor missing, checksum recomputed",
        "refuse",
        lambda r, g, c: _drop_tensor(r / "A", "action_net.bias"),
    )
    add(
        "model.safetensors: an extra tensor, checksum recomputed",
        "either",
        lambda r, g, c: _add_tensor(r / "A"),
    )
    for label, edit in (
        ("dtype F64", lambda h: h["action_net.bias"].update(dtype="F64")),
        ("dtype F16", lambda h: h["action_net.bias"].update(dtype="F16")),
        ("dtype I32", lambda h: h["action_net.bias"].update(dtype="I32")),
        ("shape transposed", lambda h: h["action_net.weight"].update(shape=h["action_net.weight"]["shape"][::-1])),
        ("offsets past the end", lambda h: h["action_net.bias"].update(data_offsets=[0, 1 << 40])),
        ("offsets overlapping", lambda h: h["action_net.bias"].update(data_offsets=[0, h["action_net.bias"]["data_offsets"][1] - h["action_net.bias"]["data_offsets"][0]])),
        ("header not an object", lambda h: h.clear()),
    ):  # fmt: skip
        # overlapping offsets read another tensor's bytes: finite weights of the right shape
        add(
            f"model.safetensors header: {label}, checksum recomputed",
            "either" if label == "offsets overlapping" else "refuse",
            lambda r, g, c, e=edit: (_header_edit(r / w, e), _rehash(r / "A", "model.safetensors")),
        )
    return cases


def _raw_field(path: Path, key: str, raw: str) -> None:
    d = json.loads(path.read_text())
    d[key] = "@@"
    path.write_text(json.dumps(d).replace('"@@"', raw))


def _write_or_truncate(path: Path, data: bytes | None) -> None:
    if data is None:
        raw = path.read_bytes()
        path.write_bytes(raw[: len(raw) // 2])
    else:
        path.write_bytes(data)


def _truncate(path: Path, frac: float) -> None:
    raw = path.read_bytes()
    path.write_bytes(raw[: int(len(raw) * frac)])


def _scale(ckpt: Path, factor: float) -> None:
    def edit(a: dict[str, np.ndarray]) -> None:
        for k in a:
            a[k] = (a[k].astype(np.float64) * factor).astype(np.float32)

    _safetensors_edit(ckpt / "model.safetensors", edit)
    _rehash(ckpt, "model.safetensors")


def _set_tensor(ckpt: Path, name: str, value: float, count: int | None = None) -> None:
    def edit(a: dict[str, np.ndarray]) -> None:
        t = a[name].copy()
        if count is None:
            t[...] = value
        else:
            t.reshape(-1)[:count] = value
        a[name] = t

    _safetensors_edit(ckpt / "model.safetensors", edit)
    _rehash(ckpt, "model.safetensors")


def _drop_tensor(ckpt: Path, name: str) -> None:
    _safetensors_edit(ckpt / "model.safetensors", lambda a: a.pop(name))
    _rehash(ckpt, "model.safetensors")


def _add_tensor(ckpt: Path) -> None:
    _safetensors_edit(ckpt / "model.safetensors", lambda a: a.update(extra=np.ones(3, np.float32)))
    _rehash(ckpt, "model.safetensors")


def _resume_cases() -> list[Case]:
    cases: list[Case] = []

    def add(name: str, expect: str, fn: Callable) -> None:
        cases.append(Case(name, "resume", expect, fn))

    ck = f"run/{LAST}"
    add("control: untouched", "accept", lambda r, g, c: None)
    add("control: the run directory moved", "accept", lambda r, g, c: c.update(moved=True))

    def arrays(key: str, edit: Callable[[np.ndarray, np.random.Generator], None]) -> Callable:
        def fn(r: Path, g: np.random.Generator, c: dict) -> None:
            def change(a: dict[str, np.ndarray]) -> None:
                v = a[key].copy()
                edit(v, g)
                a[key] = v

            _safetensors_edit(r / ck / "resume.safetensors", change)
            _rehash(r / ck, "resume.safetensors")

        return fn

    def set_at(value: Any, row: bool = True) -> Callable:
        def edit(v: np.ndarray, g: np.random.Generator) -> None:
            flat = v.reshape(v.shape[0], -1) if row and v.ndim > 1 else v.reshape(1, -1)
            k = int(g.integers(flat.shape[0]))
            flat[k, int(g.integers(flat.shape[1]))] = value

        return edit

    for value in (-32768, -1, 1, 7, 99, 32767):
        add(
            f"resume.safetensors: a games.states entry = {value}",
            "either",
            arrays("games.states", set_at(value)),
        )
    add(
        "resume.safetensors: games.states stack size = 32767",
        "refuse",
        arrays("games.states", lambda v, g: v.__setitem__((0, _stack_size_offset()), 32767)),
    )
    add(
        "resume.safetensors: games.states rows swapped",
        "either",
        arrays("games.states", lambda v, g: v.__setitem__(slice(None), v[::-1].copy())),
    )
    add(
        "resume.safetensors: games.states random bytes",
        "refuse",
        arrays(
            "games.states",
            lambda v, g: v.__setitem__(
                slice(None), g.integers(-32768, 32767, v.shape).astype(v.dtype)
            ),
        ),
    )
    for key, values in (
        ("games.slot", (-1, 10_000)),
        ("games.learner", (-1, 2, 10_000)),
        ("games.num_legal", (0, 10_000)),
        ("games.episodes", (-1,)),
        ("games.seed", (-5,)),
    ):
        for value in values:
            add(
                f"resume.safetensors: a {key} entry = {value}",
                "refuse",
                arrays(key, set_at(value, row=True)),
            )
    for value in (-1, 10_000):
        add(
            f"resume.safetensors: games.legal[0, 0] = {value} (within the legal count)",
            "refuse",
            arrays("games.legal", lambda v, g, x=value: v.__setitem__((0, 0), x)),
        )
        add(
            f"resume.safetensors: games.legal[0, -1] = {value} (past the legal count: unread)",
            "either",
            arrays("games.legal", lambda v, g, x=value: v.__setitem__((0, -1), x)),
        )
    add(
        "resume.safetensors: games.mask flipped",
        "refuse",
        arrays("games.mask", lambda v, g: v.__setitem__((0, slice(None)), 1 - v[0])),
    )
    add(
        "resume.safetensors: games.obs edited",
        "refuse",
        arrays("games.obs", lambda v, g: v.__setitem__((0, 0), 123.0)),
    )
    for key in ("games.keys", "games.rng", "last_episode_starts", "numpy_rng_keys"):
        add(
            f"resume.safetensors: {key} edited (any value is a state)",
            "either",
            arrays(key, lambda v, g: v.__setitem__(0, ~v[0] if v.dtype == np.bool_ else v[0] + 1)),
        )
    add(
        "resume.safetensors: torch_rng random bytes",
        "either",
        arrays("torch_rng", lambda v, g: v.__setitem__(slice(None), g.integers(0, 255, v.shape))),
    )
    add(
        "resume.safetensors: games.states removed",
        "refuse",
        lambda r, g, c: (
            _safetensors_edit(r / ck / "resume.safetensors", lambda a: a.pop("games.states")),
            _rehash(r / ck, "resume.safetensors"),
        ),
    )
    add(
        "resume.safetensors: games.states as float32",
        "refuse",
        lambda r, g, c: (
            _safetensors_edit(
                r / ck / "resume.safetensors",
                lambda a: a.update({"games.states": a["games.states"].astype(np.float32)}),
            ),
            _rehash(r / ck, "resume.safetensors"),
        ),
    )
    for frac in (0.0, 0.5):
        for name in ("resume.safetensors", "sb3.zip", "resume.json"):
            add(
                f"{name} truncated to {frac:.0%}, checksum recomputed",
                "refuse",
                lambda r, g, c, n=name, f=frac: (_truncate(r / ck / n, f), _rehash(r / ck, n)),
            )
    add(
        "sb3.zip: random bytes, checksum recomputed",
        "refuse",
        lambda r, g, c: (
            (r / ck / "sb3.zip").write_bytes(g.bytes(4096)),
            _rehash(r / ck, "sb3.zip"),
        ),
    )
    for key, value in (
        ("n_epochs", 10**7),
        ("gamma", float("nan")),
        ("gamma", 0.5),
        ("learning_rate", 10.0),
        ("batch_size", 1),
        ("n_steps", 10**6),
        ("ent_coef", -5.0),
        ("max_grad_norm", 1e9),
        ("num_timesteps", 10**12),
        ("num_timesteps", -1),
        ("num_timesteps", "x"),
        ("_n_updates", [1]),
        ("_current_progress_remaining", float("inf")),
        ("verbose", 2),
        ("policy", 1),
        ("env", {"a": 1}),
    ):
        add(
            f"sb3.zip data.{key} = {repr(value)[:20]}, checksum recomputed",
            "either",
            lambda r, g, c, k=key, v=value: (
                _sb3_data(r / ck / "sb3.zip", k, v),
                _rehash(r / ck, "sb3.zip"),
            ),
        )
    add(
        "sb3.zip data nested 100000 deep, checksum recomputed",
        "refuse",
        lambda r, g, c: (
            _zip_edit(r / ck / "sb3.zip", "data", lambda d: _deep(100_000).encode()),
            _rehash(r / ck, "sb3.zip"),
        ),
    )
    for entry in ("policy.pth", "policy.optimizer.pth", "pytorch_variables.pth"):
        add(
            f"sb3.zip {entry} is a pickle that writes a file, checksum recomputed",
            "refuse",
            lambda r, g, c, e=entry: (
                _zip_edit(r / ck / "sb3.zip", e, lambda d: _torch_pickle(r / "PWNED")),
                _rehash(r / ck, "sb3.zip"),
            ),
        )
    add(
        "sb3.zip policy.pth weights NaN, checksum recomputed",
        "refuse",
        lambda r, g, c: (
            _zip_edit(r / ck / "sb3.zip", "policy.pth", _nan_state),
            _rehash(r / ck, "sb3.zip"),
        ),
    )
    add(
        "sb3.zip policy.optimizer.pth state NaN, checksum recomputed",
        "refuse",
        lambda r, g, c: (
            _zip_edit(r / ck / "sb3.zip", "policy.optimizer.pth", _nan_optimizer),
            _rehash(r / ck, "sb3.zip"),
        ),
    )
    add(
        "sb3.zip an extra entry, checksum recomputed",
        "refuse",
        lambda r, g, c: (_zip_add(r / ck / "sb3.zip"), _rehash(r / ck, "sb3.zip")),
    )
    for keys, value in (
        (("checkpoints_in_pool",), ["/etc"]),
        (("checkpoints_in_pool",), ["../../../x"]),
        (("checkpoints_in_pool",), [123]),
        (("checkpoints_in_pool",), "checkpoints/step-000000000032"),
        (("checkpoints_in_pool",), ["checkpoints/step-000000000064"]),
        (("checkpoints_in_pool",), None),
        (("numpy_rng",), ["MT19937", 10**9, 0, 0.0]),
        (("numpy_rng",), "x"),
        (("python_rng",), [3, [1, 2], None]),
        (("python_rng",), None),
        (("checkpoints_in_pool",), _DELETE),
    ):
        add(
            f"resume.json {keys[0]} = {repr(value)[:24]}, checksum recomputed",
            "refuse",
            lambda r, g, c, k=keys, v=value: (
                _edit_json(r / ck / "resume.json", k, v),
                _rehash(r / ck, "resume.json"),
            ),
        )
    add(
        "resume.json: extra field, checksum recomputed",
        "either",
        lambda r, g, c: (
            _edit_json(r / ck / "resume.json", ("note",), 1),
            _rehash(r / ck, "resume.json"),
        ),
    )
    for name in (
        "config.json",
        "model.safetensors",
        "sb3.zip",
        "resume.safetensors",
        "resume.json",
    ):
        add(f"{name} is a FIFO", "refuse", lambda r, g, c, n=name: _special(r / ck / n, "fifo"))
        add(f"{name} is a directory", "refuse", lambda r, g, c, n=name: _special(r / ck / n, "dir"))
        add(
            f"{name} links outside the checkpoint",
            "refuse",
            lambda r, g, c, n=name: _special(
                r / ck / n, "link", r / "run/checkpoints/step-000000000032" / n
            ),
        )
        add(f"{name} 1 byte flipped", "refuse", lambda r, g, c, n=name: _flip(r / ck / n, g))
    for keys, value in ((("step",), 32), (("step",), "x"), (("sha256",), [])):
        add(
            f"checkpoint config.json {keys[0]} = {value!r}",
            "refuse",
            lambda r, g, c, k=keys, v=value: _edit_json(r / ck / "config.json", k, v),
        )
    for name in ("run.json", "league.json"):
        for label, data in (
            ("not JSON", b"{"),
            ("a JSON array", b"[]"),
            ("deep nesting", _deep(100_000).encode()),
            ("not UTF-8", b"\xff\xfe"),
        ):
            add(
                f"{name} {label}",
                "refuse",
                lambda r, g, c, n=name, d=data: (r / "run" / n).write_bytes(d),
            )
        add(f"{name} is a FIFO", "refuse", lambda r, g, c, n=name: _special(r / "run" / n, "fifo"))
        add(
            f"{name} is a directory",
            "refuse",
            lambda r, g, c, n=name: _special(r / "run" / n, "dir"),
        )
    for key, value in (
        ("n_epochs", "x"),
        ("game", ["caylus"]),
        ("arch", _DELETE),
        ("n_epochs", 10**7),
    ):
        add(
            f"run.json {key} = {repr(value)[:20]}",
            "refuse",
            lambda r, g, c, k=key, v=value: _edit_json(r / "run/run.json", (k,), v),
        )
    for keys, value in (
        (("promoted",), ["../../../etc"]),
        (("promoted",), [7]),
        (("promoted",), "x"),
        (("best",), {"a": 1}),
        (("decisions",), [1]),
    ):
        add(
            f"league.json {keys[0]} = {repr(value)[:24]}",
            "refuse",
            lambda r, g, c, k=keys, v=value: _edit_json(r / "run/league.json", k, v),
        )
    return cases


def _stack_size_offset() -> int:
    from caylus_env.core.registry import game_spec

    return int(game_spec(GAME).engine().layout.STACK_SIZE)


def _nan_state(data: bytes) -> bytes:
    import torch

    state = torch.load(io.BytesIO(data), weights_only=True)
    for v in state.values():
        v.fill_(float("nan"))
    buf = io.BytesIO()
    torch.save(state, buf)
    return buf.getvalue()


def _nan_optimizer(data: bytes) -> bytes:
    import torch

    state = torch.load(io.BytesIO(data), weights_only=True)
    for entry in state["state"].values():
        entry["exp_avg"].fill_(float("nan"))
    buf = io.BytesIO()
    torch.save(state, buf)
    return buf.getvalue()


def _zip_add(path: Path) -> None:
    with zipfile.ZipFile(path, "a") as z:
        z.writestr("extra.pth", b"hello")


def all_cases() -> list[Case]:
    return _policy_cases() + _resume_cases()


# ---------------------------------------------------------------------------------------
# Running one case (in a worker).
# ---------------------------------------------------------------------------------------
def _b_checkpoint(root: Path) -> None:
    """B: a valid checkpoint beside A whose weights differ (A scaled by 0.5)."""
    shutil.copytree(SHIPPED, root / "B")
    _scale(root / "B", 0.5)


def _refusal(err: BaseException) -> tuple[str, str]:
    text = str(err)
    if isinstance(err, ValueError) and text and "\n" not in text and "Traceback" not in text:
        return "clear", text[:160]
    return "other", f"{type(err).__name__}: {text}"[:200]


def run_policy(case: Case, root: Path, rng: np.random.Generator) -> tuple[str, str]:
    from agents.registry import make_agent
    from caylus_env.core.registry import game_spec

    shutil.copytree(SHIPPED, root / "A")
    _b_checkpoint(root)
    case.apply(root, rng, {})
    try:
        agent = make_agent(f"policy:{root / 'A'}", GAME)
    except Exception as err:  # classified: a clear refusal or a traceback
        return _refusal(err)
    if case.expect == "refuse":
        return "invalid", "loaded although it must be refused"
    spec = game_spec(GAME)
    observer = spec.observation()
    game = spec.new_game(spec.config(2), seed=int(rng.integers(1 << 30)))
    obs = np.zeros((1, agent.net.obs_size), np.float32)
    for _ in range(MOVES):
        legal = game.legal_actions()
        if not legal:
            break
        observer.encode_into(game.state, game.current_player(), obs[0])
        logits = agent.net.logits(obs)[0, legal]
        if not np.isfinite(logits).all():
            return "invalid", "non-finite logits on a legal position"
        action = agent.act(game)
        if action not in legal:
            return "invalid", f"illegal move {action}"
        game.apply(action)
    return "accepted", ""


def run_resume(case: Case, root: Path, rng: np.random.Generator, run: Path) -> tuple[str, str]:
    from caylus_env.core.registry import game_spec
    from training.ppo import config_from_args
    from training.runs import prepare_run

    try:
        from training.ppo import build_model
    except ImportError:  # a build from before build_model (to measure it)
        build_model = _build_model_before

    shutil.copytree(run, root / "run", symlinks=True)
    # The copy is the run in place (as its first command wrote it); only the "moved" control
    # then moves it.
    _edit_json(root / "run/run.json", ("out",), str(root / "run"))
    ctx: dict[str, Any] = {}
    case.apply(root, rng, ctx)
    out = root / "run"
    if ctx.get("moved"):
        out = root / "elsewhere" / "moved"
        out.parent.mkdir()
        shutil.move(root / "run", out)
    saved = json.loads((run / "run.json").read_text())  # what the user types again
    args = {k: v for k, v in saved.items() if k not in ("out", "resume", "command")}
    try:
        cfg = config_from_args(**{**args, "out": str(out), "resume": True})
        cfg.check()
        prepare_run(cfg)
        model, env, _, _ = build_model(cfg, out)
    except Exception as err:  # classified: a clear refusal or a traceback
        outcome = _refusal(err)
    else:
        outcome = ("accepted", "")
    if (root / "PWNED").exists():
        return "invalid", "a pickle from the file ran"
    if outcome[0] != "accepted":
        return outcome
    if case.expect == "refuse":
        return "invalid", "resumed although it must be refused"
    for name in ("n_steps", "batch_size", "n_epochs", "gamma", "gae_lambda", "ent_coef", "vf_coef"):
        if getattr(model, name) != getattr(cfg, name):
            return "invalid", f"model.{name} {getattr(model, name)!r} is not run.json's"
    if model.learning_rate != cfg.learning_rate or model.max_grad_norm != 0.5:
        return "invalid", "learning_rate or max_grad_norm is not the run's"
    if model.num_timesteps != 64:
        return "invalid", f"num_timesteps {model.num_timesteps} is not the checkpoint's step"
    for p in model.policy.parameters():
        if not bool(p.isfinite().all()):
            return "invalid", "non-finite policy weights"
    games = env.games
    check = game_spec(GAME).engine().kernels.check_invariants
    for _ in range(3):
        mask = games.batch.mask.view(np.bool_)
        actions = np.array([int(np.flatnonzero(m)[0]) for m in mask], np.int64)
        games.step(actions)
        for k, s in enumerate(games.states):
            if int(check(s)) != 0:
                return "invalid", f"game {k} breaks invariant {int(check(s))} after a step"
    return "accepted", ""


def _build_model_before(cfg: Any, out: Path) -> tuple:
    """``train``'s steps 1 and 2 as they were written before ``build_model`` existed."""
    from training.checkpoints import complete_checkpoints, load_for_resume, remove_partial
    from training.league import League
    from training.learner import PoolGames
    from training.ppo import TorchPolicy, model_kwargs
    from training.vecenv import PoolVecEnv

    league = League.load(out)
    games = PoolGames(
        cfg.game, cfg.envs, cfg.players, opponents=cfg.opponents, checkpoints=league.promoted
    )
    env = PoolVecEnv(games, seed=cfg.seed, shaping=cfg.shaping)
    remove_partial(out)
    done = complete_checkpoints(out)
    try:
        model = load_for_resume(done[-1], env, model_kwargs(cfg))
    except ValueError as err:
        raise ValueError(f"--resume: {err}") from None
    json.loads((done[-1] / "config.json").read_text()).get("parent")
    games.set_self_policy(TorchPolicy(model.policy))
    return model, env, done, None


def run_case(case: Case, seed: int, index: int, run: Path) -> tuple[str, str]:
    rng = np.random.default_rng([seed, index])
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        if case.target == "policy":
            outcome, detail = run_policy(case, root, rng)
        else:
            outcome, detail = run_resume(case, root, rng, run)
    if case.expect == "accept" and outcome != "accepted":
        return "control_refused", f"{outcome}: {detail}"
    return outcome, detail


def select_cases(seed: int, count: int, smoke: tuple[int, int] | None = None) -> list[int]:
    """The case indices of a run: every case once (in a seeded order), then again with
    other random draws (byte positions, rows) up to ``count``. ``smoke=(p, r)`` instead
    takes every valid control and the first ``p`` policy and ``r`` resume cases of the
    seeded order (a resume costs about a second, a policy case a tenth)."""
    cases = all_cases()
    order = [int(i) for i in np.random.default_rng(seed).permutation(len(cases))]
    if smoke is not None:
        controls = [i for i in order if cases[i].expect == "accept"]
        rest = [i for i in order if cases[i].expect != "accept"]
        policy = [i for i in rest if cases[i].target == "policy"][: smoke[0]]
        resume = [i for i in rest if cases[i].target == "resume"][: smoke[1]]
        return controls + policy + resume
    return [order[i % len(cases)] + len(cases) * (i // len(cases)) for i in range(count)]


def worker(run: str, seed: int, indices: list[int]) -> None:
    """Run the cases ``indices`` (an index past the list repeats a case with other draws),
    one result line each: ``index outcome detail``."""
    cases = all_cases()
    # Imports and kernels before the watchdog's per-case clock starts: an untouched copy
    # of each source loaded once (not reported).
    for warm in ("policy", "resume"):
        control = next(c for c in cases if c.target == warm and c.expect == "accept")
        run_case(control, seed, 0, Path(run))
    watched.ready()
    for i in indices:
        case = cases[i % len(cases)]
        outcome, detail = run_case(case, seed, i, Path(run))
        sys.stdout.write(f"{i} {outcome} {detail}".replace("\n", " ") + "\n")
        sys.stdout.flush()


# ---------------------------------------------------------------------------------------
# The driver: workers under a watchdog.
# ---------------------------------------------------------------------------------------
def fuzz(
    run: Path, indices: list[int], seed: int = 0, jobs: int = 2, boundscheck: bool = False
) -> tuple[Counter, dict[str, list[str]]]:
    """Run the cases ``indices`` against the tiny run ``run`` in ``jobs`` workers
    (`watched.run_watched`: the case clock starts once a worker has compiled its kernels).

    Returns:
        The count of each outcome, and every failure (index, case, detail) by outcome.
    """
    cases = all_cases()
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join([str(ROOT), env.get("PYTHONPATH", "")])
    counts, found = run_watched(
        Path(__file__).resolve(),
        [str(run), str(seed)],
        indices,
        jobs,
        lambda index: cases[index % len(cases)].name,
        boundscheck=boundscheck,
        case_timeout=CASE_TIMEOUT_S,
        quiet=tuple(o for o in OUTCOMES if o not in FAILURES),
        examples_each=len(indices),
        env=env,
        cwd=ROOT,
    )
    counts.update({o: 0 for o in OUTCOMES})
    return counts, {o: found.get(o, []) for o in OUTCOMES}


def table(counts: Counter) -> str:
    """The counts as a two-line table."""
    return watched.table(counts, OUTCOMES)


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    if argv and argv[0] == "--worker":
        sys.path.insert(0, str(ROOT))
        worker(argv[1], int(argv[2]), watched.parse_indices(argv[3]))
        return 0
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--cases", type=int, default=0, help="0: every case once")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--smoke", action="store_true", help="the default run's selection")
    parser.add_argument("--boundscheck", action="store_true", help="NUMBA_BOUNDSCHECK=1")
    parser.add_argument("--run", help="a tiny run built before (default: build one)")
    args = parser.parse_args(argv)
    count = args.cases or len(all_cases())
    with tempfile.TemporaryDirectory() as tmp:
        run = Path(args.run) if args.run else build_run(Path(tmp) / "run")
        indices = select_cases(args.seed, count, (40, 8) if args.smoke else None)
        counts, examples = fuzz(run, indices, args.seed, args.jobs, args.boundscheck)
    print(table(counts))
    for outcome, lines in examples.items():
        for line in lines:
            print(f"{outcome}: {line}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
