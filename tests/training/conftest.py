"""Fixtures of the training tests: one tiny training run per registered game.

Every test that uses ``tiny_run`` runs once for each game of ``GAME_NAMES``: a game joins
these tests by registering.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from caylus_env.core.registry import GAME_NAMES, game_spec

#: Settings small enough for a run of a few seconds (2,048 steps, 4 checkpoints).
TINY: dict[str, Any] = {
    "envs": 16,
    "n_steps": 32,
    "batch_size": 256,
    "n_epochs": 2,
    "checkpoint_every": 512,
    "eval_games": 6,
    "gate_games": 6,
    "threads": 1,
    "progress": False,
}
STEPS = 2048
SEED = 5
FIRST, LAST = "step-000000000512", "step-000000002048"


def players_of(game: str) -> int:
    """The player count of the tests: 3 where the game allows it (rotated matches of more
    than a pair)."""
    spec = game_spec(game)
    return max(spec.min_players, min(3, spec.max_players))


def pool_of(game: str) -> str:
    """An opponent pool with every kind of opponent: the policy being trained, random, the
    game's first scripted bot (compiled) and the promoted checkpoints."""
    from training.learner import compiled_opponents

    scripted = [name for name in compiled_opponents(game) if name != "random"][:1]
    return ",".join(["self:1", "random:1", *(f"{n}:1" for n in scripted), "pool:1"])


def tiny_config(game: str, out: Path, **kwargs: Any) -> Any:
    """The ``PPOConfig`` of the tiny run of ``game`` in ``out`` (``kwargs`` override)."""
    from training.ppo import config_from_args

    args = {
        "out": str(out),
        "game": game,
        "players": players_of(game),
        "steps": STEPS,
        "seed": SEED,
        "opponents": pool_of(game),
        "shaping": 0.5,
        **TINY,
    }
    return config_from_args(**{**args, **kwargs})


@pytest.fixture(scope="session", params=GAME_NAMES)
def tiny_run(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A finished tiny ``MaskablePPO`` run of one game (shaped, with a full pool)."""
    from training.ppo import train

    out = tmp_path_factory.mktemp(f"ppo-{request.param}") / "run"
    train(tiny_config(request.param, out))
    return out


def game_of_run(run: Path) -> str:
    import json

    return str(json.loads((run / "run.json").read_text())["game"])


@pytest.fixture(scope="session")
def small_run(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The smallest ``MaskablePPO`` run the arguments allow (``fuzz_checkpoints.RUN_ARGS``:
    64 steps, two checkpoints, the first promoted into the pool): the untampered source of
    the checkpoint safety tests and the checkpoint fuzz."""
    from tests.training.fuzz_checkpoints import build_run

    return build_run(tmp_path_factory.mktemp("small-run") / "run")
