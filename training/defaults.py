"""The rule of ``caylus train ppo``'s default minibatch size, importing nothing: the other
defaults are `training.config.PPOConfig`'s fields (the one declaration of every setting), and
``--help`` shows this rule as the default of ``--batch-size``.
"""

from __future__ import annotations

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
    "default_batch_size",
    "divisors",
]
