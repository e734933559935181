"""Self-play training for Caylus: ``caylus train ppo`` and ``caylus train bc``.

Modules, in the order data flows through them:

* ``learner``: the learner view with an opponent pool (``PoolGames``), over the batched
  games of ``caylus_env.core.vector``;
* ``vecenv``: ``PoolGames`` as a Stable-Baselines3 ``VecEnv`` with ``action_masks()``;
* ``networks``: the pieces-v1 policy network (torch; its torch-free twin is
  ``agents.policy.PolicyNet``);
* ``checkpoints``: checkpoint directories (safetensors + config.json + the SB3 archive),
  written atomically;
* ``league``: gated promotion of checkpoints (a paired match against the best),
  ``league.json`` and ``league.md``;
* ``ppo``: the trainer (sb3-contrib ``MaskablePPO``), read top to bottom;
* ``bc``: behaviour cloning from a self-play dataset, a warm start for ``ppo --init``.

The package needs the ``[train]`` extra (torch, Stable-Baselines3, sb3-contrib).
"""
