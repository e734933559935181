"""Fixtures shared by the test modules of the whole suite."""

from __future__ import annotations

import copy
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from agents import registry


def pytest_configure(config: pytest.Config) -> None:
    """A whole-suite run under xdist (no path named, ``-n 2`` or more, this process the
    controller) first compiles every game's shared kernels once, a process per game in
    parallel (`tests.precompile`), so that the workers load them from the kernel cache instead
    of compiling the same ones side by side. A run of chosen files, or without xdist, compiles
    what it needs as it goes."""
    workers = getattr(config.option, "numprocesses", None)
    if hasattr(config, "workerinput") or not isinstance(workers, int) or workers < 2:
        return
    if config.args and any(arg not in config.getini("testpaths") for arg in config.args):
        return
    if config.option.collectonly:
        return
    import subprocess
    import sys

    from caylus_env.core.registry import GAME_NAMES

    root = Path(__file__).resolve().parent.parent
    with tempfile.TemporaryDirectory() as logs:
        runs = {}
        for game in GAME_NAMES:
            with open(Path(logs) / game, "w") as log:  # the child keeps its own descriptor
                runs[game] = subprocess.Popen(
                    [sys.executable, "-m", "tests.precompile", game],
                    cwd=root,
                    stdout=subprocess.DEVNULL,
                    stderr=log,
                )
        for game, run in runs.items():
            if run.wait():  # the tests that need the kernel meet the failure themselves
                err = (Path(logs) / game).read_text()[-2000:]
                print(f"precompiling {game}'s kernels failed:\n{err}", file=sys.stderr)


def _registry_snapshot() -> dict[str, dict]:
    return copy.copy({game: dict(heads) for game, heads in registry._PLUGINS.items()})


def _restore_registry(before: dict[str, dict]) -> None:
    """Remove the plugins registered since ``before`` was taken, and check the rest is as it was."""
    for game, heads in list(registry._PLUGINS.items()):
        for head in list(heads):
            if head not in before.get(game, {}):
                registry.unregister(head, game)
    assert {g: set(h) for g, h in registry._PLUGINS.items() if h} == {
        g: set(h) for g, h in before.items() if h
    }


@pytest.fixture(autouse=True, scope="module")
def private_module_registry() -> Iterator[None]:
    """`private_registry` for what a module-scoped fixture registers (a tournament of test
    agents run once for a whole module): removed when the module ends, so the tests of the next
    module, in whatever order a worker runs them, see the registry as it was."""
    before = _registry_snapshot()
    yield
    _restore_registry(before)


@pytest.fixture(autouse=True)
def private_registry() -> Iterator[None]:
    """Keep the agents a test registers (plugins, test agents, for any game) out of the
    registry that other tests see: the plugins registered during the test are removed after
    it, and the registry is checked to be as it was. Every test uses it (an in-process
    tournament or dataset with ``--plugin`` registers agents too), so no test's outcome
    depends on which tests ran before it."""
    before = _registry_snapshot()
    yield
    _restore_registry(before)


LEGACY = Path(__file__).parent / "legacy"
_GENERATED: dict[str, Path] = {}


def game_dataset(game: str) -> Path:
    """A finished dataset of ``game`` for the tests that read one whole: the game's dataset
    written before the shared format (``tests/legacy/<game>_dataset``) when it has one, else
    (a game younger than the format, Caylus 1303) 24 seeded games of ``random`` and its
    scripted bots at 2-3 players, generated once per test process into a temporary folder."""
    legacy = LEGACY / f"{game}_dataset"
    if legacy.is_dir():
        return legacy
    if game not in _GENERATED:
        from rich.console import Console

        from agents.selfplay.generate import DatasetSpec, generate_dataset, prepare_dataset
        from caylus_env.core.registry import game_spec

        bots = [
            b.head for b in game_spec(game).module("bots").BOTS.values() if b.scripted is not None
        ]
        out = Path(tempfile.mkdtemp(prefix=f"caylus-test-{game}-")) / "dataset"
        spec = DatasetSpec(
            agents=("random", *bots), players="2-3", games=24, seed=5, shard_games=8, game=game
        )
        generate_dataset(
            prepare_dataset(spec, out, workers=1), progress=False, console=Console(quiet=True)
        )
        _GENERATED[game] = out
    return _GENERATED[game]


def harness_games() -> list:
    """Every game as a test parameter, all but the default one marked ``slow``: for the tests of
    a harness mechanism that is the platform's and the same for every game (kill -9 and resume,
    the Ray backends), the default run checks it on the default game and ``-m slow`` on every
    game (each game's records, datasets and checkpoints go through it there)."""
    from caylus_env.core.registry import DEFAULT_GAME, GAME_NAMES

    return [g if g == DEFAULT_GAME else pytest.param(g, marks=pytest.mark.slow) for g in GAME_NAMES]


def warm_kernels(*games: str, envs: bool = False) -> None:
    """Compile each game's engine kernels (or load them from the kernel cache), one random game
    each, before a test starts a clock on something that plays the game: a deadline or a
    browser wait then measures the game, never numba compiling it on a busy machine. With
    ``envs``, also the kernels of its environments (an AEC game's observations, a few batched
    steps), for the scripts and notebooks a reader runs."""
    import random

    import numpy as np

    import caylus_env
    from caylus_env.core.registry import game_spec

    for name in games:
        info = game_spec(name)
        state = info.new_game(info.config(2), seed=0)
        rng = random.Random(0)
        while not state.is_over():
            state.apply(rng.choice(state.legal_actions()))
        if envs:
            env = caylus_env.make(name, num_players=2)
            env.reset(seed=0)
            for _ in range(8):
                obs, *_ = env.last()
                env.step(int(np.flatnonzero(obs["action_mask"])[0]))
            vector = caylus_env.make_vector(name, 2, num_players=2)
            vector.reset(seed=0)
            for _ in range(8):
                vector.step(np.argmax(vector.action_masks(), axis=1))
            vector.close()


def init_local_ray(**options: Any) -> None:
    """Start a private local Ray of 2 CPUs for a test (``address="local"``: never a cluster
    that ``RAY_ADDRESS`` names; no dashboard, no log forwarding), its workers un-niced.

    Ray starts its workers at niceness 15 by default, so on a machine that other jobs keep
    busy they get a few percent of a core beside the test process that waits for them: at a
    load of 8 on two cores an RLlib EnvRunner took 475 s to start. A test's workers compete for
    the CPU as the test itself does (``worker_niceness`` 0)."""
    import ray

    ray.init(
        address="local",
        num_cpus=2,
        include_dashboard=False,
        log_to_driver=False,
        _system_config={"worker_niceness": 0},
        **options,
    )


def warm_command(args: list[str], out: Path, *, cwd: Path | None = None, **replace: str) -> None:
    """Run a command once to its end, untimed, into ``out``, so that every kernel it compiles
    (its game, its agents, its workers' loops) is in the kernel cache before the test clocks a
    run of the same command: ``replace`` swaps option values (``games="2"`` for ``--games``)
    and ``--out`` is pointed at ``out``. Raises with the command's stderr if it fails."""
    import subprocess

    swap = {f"--{k.replace('_', '-')}": v for k, v in {**replace, "out": str(out)}.items()}
    warm = list(args)
    for i in range(len(warm) - 1):
        if warm[i] in swap:
            warm[i + 1] = swap[warm[i]]
    done = subprocess.run(warm, cwd=cwd, capture_output=True, text=True, check=False)
    assert done.returncode == 0, f"warm-up run failed: {done.stderr[-2000:]}"
