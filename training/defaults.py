"""The defaults of ``caylus train ppo`` and the rule of its default minibatch size, importing
nothing: ``training.config.PPOConfig`` takes its defaults from here, and the command line shows
them in ``--help`` without loading torch, numba or a game.
"""

from __future__ import annotations

#: ``PPOConfig``'s defaults of the values that are the same for every game (the game-dependent
#: ones, players, opponents, eval_opponents and arch, are described in ``training.config``).
PPO_DEFAULTS: dict[str, int | float] = {
    "steps": 1_000_000,
    "envs": 128,
    "n_steps": 32,
    "n_epochs": 4,
    "learning_rate": 3e-4,
    "gamma": 1.0,
    "gae_lambda": 0.95,
    "clip_range": 0.2,
    "ent_coef": 0.01,
    "vf_coef": 0.5,
    "shaping": 0.0,
    "checkpoint_every": 100_000,
    "eval_games": 200,
    "gate_games": 200,
    "threads": 1,
}

#: The largest default minibatch: the default batch size is the largest divisor of the rollout
#: (``n_steps * envs`` samples) that is at most this (`default_batch_size`).
MAX_DEFAULT_BATCH = 2048

#: How `default_batch_size` chooses, for ``--help`` and the docs.
BATCH_SIZE_RULE = f"the largest divisor of the rollout n_steps * envs up to {MAX_DEFAULT_BATCH}"


def divisors(n: int) -> list[int]:
    """The divisors of ``n`` (a positive int), in increasing order."""
    low, high = [], []
    d = 1
    while d * d <= n:
        if n % d == 0:
            low.append(d)
            if d != n // d:
                high.append(n // d)
        d += 1
    return low + high[::-1]


def default_batch_size(n_steps: int, envs: int) -> int:
    """The minibatch size of a run that does not set ``--batch-size``: the largest divisor of
    the rollout ``n_steps * envs`` that is at most `MAX_DEFAULT_BATCH`, so that the minibatches
    cover the rollout exactly (2048 for the default 32 x 128, the whole rollout when it is at
    most 2048 samples)."""
    return max(d for d in divisors(n_steps * envs) if d <= MAX_DEFAULT_BATCH)


__all__ = [
    "BATCH_SIZE_RULE",
    "MAX_DEFAULT_BATCH",
    "PPO_DEFAULTS",
    "default_batch_size",
    "divisors",
]
