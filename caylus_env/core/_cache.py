"""Where numba caches the compiled kernels: one directory per version of the sources.

numba's on-disk cache (``@njit(cache=True)``) invalidates a function only when *its own*
source file changes. The rules are spread over many modules (``phases/``, ``dispatch``,
``state``, ...), and every compiled function embeds the code of the kernels it calls, so
an edit to one phase module would leave the cached ``advance`` (and every bot and search
kernel built on it) running the old rule: a stale cache would silently play other rules.

So, before any kernel is defined, the cache directory is set to
``<base>/caylus-<digest>``, where ``digest`` hashes the sources of this project's compiled
code and the numba version. The compiled code is every module of each registered game's folder
(``caylus_env/<game>/``: its kernels read the constant tables of modules that do not import
numba themselves, and its spec's facts), every module of an ``engine`` package, and every other
module of ``caylus_env``, ``agents`` and ``training`` that mentions numba: a kernel embeds only code and globals from those (they import from each
other and from the engine, never from plain Python modules). Any edit to them gives a fresh
directory and a cold compile; an edit to a plain Python module (the CLI, the viewer, the
trainer) keeps the cache, and an unchanged tree reuses it. ``base`` is ``NUMBA_CACHE_DIR`` when set, else the user cache folder
(``$XDG_CACHE_HOME/caylus-env/numba``, default ``~/.cache/caylus-env/numba``). The chosen
directory is also written to ``NUMBA_CACHE_DIR`` so that numba's config reloads and worker
processes agree with it. Importing this module configures the cache (the engine package
imports it first).
"""

from __future__ import annotations

import hashlib
import importlib.machinery
import os
import sys
from pathlib import Path

import numba

#: Top-level packages whose compiled code the digest covers (those that are installed).
PACKAGES = ("caylus_env", "agents", "training")
PREFIX = "caylus-"


def is_compiled_source(relative: Path, text: bytes) -> bool:
    """Whether a module's code can end up inside a compiled kernel (see the module doc): every
    module of a game's folder (its kernels read its tables and its spec's facts), every
    module of an ``engine`` package, and every module that mentions numba."""
    from caylus_env.core.registry import GAME_PACKAGES

    folders = {tuple(p.split(".")) for p in GAME_PACKAGES}
    return (
        tuple(relative.parts[:2]) in folders or "engine" in relative.parts[:-1] or b"numba" in text
    )


def source_digest(roots: list[Path]) -> str:
    """Short hash of the compiled modules under ``roots`` (path and content) and of numba's
    version: equal for equal sources, different after any edit to one of them."""
    h = hashlib.sha256(numba.__version__.encode())
    for root in roots:
        for path in sorted(root.rglob("*.py")):
            relative = path.relative_to(root.parent)
            text = path.read_bytes()
            if is_compiled_source(relative, text):
                h.update(str(relative).encode())
                h.update(text)
    return h.hexdigest()[:16]


def _find_package(name: str) -> importlib.machinery.ModuleSpec | None:
    """Where the top-level package ``name`` is installed, found without importing it (None
    when it is not). Each finder of ``sys.meta_path`` is asked in turn, and one that refuses
    the package (an import hook blocking it, as the layer tests do) is passed over: a run
    that may not import a package hashes the same sources, and so shares the cache directory
    of every other run of the same tree instead of compiling everything again."""
    for finder in sys.meta_path:
        find = getattr(finder, "find_spec", None)
        if find is None:
            continue
        try:
            spec = find(name, None)
        except (ImportError, ValueError):
            continue
        if spec is not None:
            return spec
    return None


def _package_roots() -> list[Path]:
    roots = []
    for name in PACKAGES:
        spec = _find_package(name)
        if spec is not None and spec.submodule_search_locations:
            roots.extend(Path(p) for p in spec.submodule_search_locations)
    return roots


def _default_base() -> Path:
    xdg = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(xdg) / "caylus-env" / "numba"


def configure() -> Path:
    """Point numba's cache at this source version's directory; returns it."""
    digest = source_digest(_package_roots())
    current = os.environ.get("NUMBA_CACHE_DIR")
    if current and Path(current).name == PREFIX + digest:
        target = Path(current)  # a worker process: its parent chose the directory
    else:
        base = Path(current) if current else _default_base()
        target = base / (PREFIX + digest)
    os.environ["NUMBA_CACHE_DIR"] = str(target)
    numba.config.CACHE_DIR = str(target)
    return target


CACHE_DIR = configure()
