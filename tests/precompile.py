"""Compile the kernels that the suite's tests share, once, before the xdist workers start.

``python -m tests.precompile GAME`` compiles (or loads from the kernel cache) what most tests
of ``GAME`` call first: its engine and environments (`tests.conftest.warm_kernels`), its
learner's batched step, and one game of its scripted bots against its MCTS. Without it each
of ``pytest -n 2``'s workers compiles the same kernels at the same time from a cold cache,
since both start on the same modules; `tests.conftest.pytest_configure` runs it for every
game in parallel when a whole-suite run starts, so that each kernel is compiled once and the
workers load it from the cache.

Nothing is asserted here: a failure is printed and the tests that need the kernel meet it.
"""

from __future__ import annotations

import sys

import numpy as np


def warm_game(game: str) -> None:
    """Compile ``game``'s shared kernels (see the module docstring)."""
    from agents import registry
    from agents.tournament.arena import play_game
    from caylus_env.core.vector import LearnerGames
    from tests.conftest import warm_kernels

    warm_kernels(game, envs=True)
    learner = LearnerGames(game, 2, num_players=2)
    batch = learner.reset(seed=0)
    rows = np.arange(2)
    for _ in range(8):
        batch = learner.step(batch.legal[rows, 0])
    scripted = [s for s in registry.specs(game) if s.isidentifier() and s != "random"]
    for spec in scripted:
        play_game([spec, "mcts:4"], 2, 1, game=game)


def main(argv: list[str]) -> int:
    for game in argv:
        warm_game(game)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
