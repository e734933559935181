"""Self-play training for every game: ``caylus train ppo --game G``, ``caylus train az`` and
``caylus train bc``.

Modules, in the order data flows through them:

* ``learner``: the learner view with an opponent pool (``PoolGames``), over the batched
  games of ``caylus_env.core.vector``, compiled per game;
* ``vecenv``: ``PoolGames`` as a Stable-Baselines3 ``VecEnv`` with ``action_masks()`` and
  the optional shaped score-margin reward;
* ``networks``: the policy networks in torch (pieces-v1, mlp-v1; their torch-free twin is
  ``agents.policy.PolicyNet``);
* ``checkpoints``: checkpoint directories (safetensors + config.json + the SB3 archive),
  written atomically;
* ``league``: evaluation matches and gated promotion of checkpoints (rotated matches
  against the best), ``league.json`` and ``league.md``;
* ``config``: the arguments of a run (``PPOConfig``) and the game's defaults;
* ``runs``: the run directory and what follows each checkpoint (learning curve, league),
  shared by both trainers;
* ``ppo``: the trainer (sb3-contrib ``MaskablePPO``), read top to bottom; ``cleanrl_ppo``:
  the one-file CleanRL-style trainer (``--algo cleanrl``);
* ``bc``: behaviour cloning from a self-play dataset, a warm start for ``ppo --init``;
* ``az``: search-distilled self-play (Gumbel AlphaZero): generations of ``puct`` self-play
  with a Gumbel root written as datasets, a learner on their improved policies and rank
  returns, a gating match; ``az_benchmark``: its self-play positions/s
  (``caylus bench --selfplay``);
* ``benchmark``: training samples/s and policy inference (``caylus bench --training``).

The package needs the ``[train]`` extra (torch, Stable-Baselines3, sb3-contrib).
"""
