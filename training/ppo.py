"""Self-play PPO for every game: ``caylus train ppo --game G``, read top to bottom.

One run is one output directory:

    OUT/run.json               the game and the arguments (a re-run must give the same ones,
                               or --resume)
    OUT/checkpoints/step-*/    checkpoints (``training.checkpoints``), atomic
    OUT/progress.csv           SB3's CSV log (rollout/*, train/*, eval/*, league/*)
    OUT/events.out.tfevents.*  the same for TensorBoard (tensorboard --logdir OUT)
    OUT/curve.csv              evaluation of each checkpoint (learning curve)
    OUT/learning_curve.png     the same, plotted
    OUT/league.json, league.md gated promotion (``training.league``)

The steps, in order:

1. **Games**: ``PoolGames`` (``training.learner``): ``--envs`` games of ``--game`` with
   ``--players`` players; in each, the learner plays one seat, the opponents drawn per
   episode from ``--opponents`` (``self:0.5,random:0.3,pool:0.2``: the current policy,
   ``random`` or a scripted bot of the game, the promoted checkpoints) play the others
   inside ``step``; ``PoolVecEnv`` (``training.vecenv``) adds the optional ``--shaping``.
2. **Model**: sb3-contrib ``MaskablePPO`` with the ``--arch`` network (``training.networks``;
   pieces-v1 by default); the legal mask of every decision masks the logits. ``--init
   CHECKPOINT`` starts from a checkpoint's weights (e.g. a behaviour-cloning warm start).
   ``--algo cleanrl`` runs ``training.cleanrl_ppo`` instead: the same games, network,
   masks, checkpoints and settling.
3. **Loop**: ``model.learn``; a callback shows the progress bar with the live score, logs
   per-opponent scores, and at every ``--checkpoint-every`` steps (at a rollout boundary,
   where the state is exactly resumable) writes a checkpoint, evaluates it and gates it
   (``training.runs.settle_checkpoint``).
4. **Resume**: ``--resume`` loads the last complete checkpoint (weights, optimizer, games
   in progress, random generators) and continues; the run then equals an uninterrupted
   one (tested with a real ``kill -9``).

Determinism: with the same arguments, ``--threads`` and machine, two runs give the same
weights bit for bit (torch's CPU kernels are deterministic for a fixed thread count;
``torch.use_deterministic_algorithms`` is set).
"""

from __future__ import annotations

import time
from collections import defaultdict, deque
from pathlib import Path
from typing import Any

import numpy as np

from agents.policy import arch_from_json, choose, read_config
from training.config import ALGOS, PPOConfig, config_from_args
from training.runs import checkpoint_meta, load_init_tensors, prepare_run, settle_checkpoint


# ---------------------------------------------------------------------------------------
# The current policy as an opponent ("self")
# ---------------------------------------------------------------------------------------
class TorchPolicy:
    """A ``MaskablePPO`` policy playing a batch of games (the ``self`` opponent): one
    forward pass, then ``agents.policy.choose`` samples with each game's own uniform."""

    def __init__(self, policy: Any, temperature: float = 1.0) -> None:
        self.policy = policy
        self.temperature = temperature

    def act_batch(
        self, obs: np.ndarray, mask: np.ndarray, uniforms: np.ndarray, states: np.ndarray
    ) -> np.ndarray:
        """One action per game: the masked logits of one forward pass, sampled at the policy's
        temperature with each game's uniform (``agents.policy.choose``)."""
        import torch

        with torch.no_grad():
            features = self.policy.extract_features(
                torch.as_tensor(obs), self.policy.pi_features_extractor
            )
            latent = self.policy.mlp_extractor.forward_actor(features)
            logits = self.policy.action_net(latent).numpy().astype(np.float32)
        logits[~mask] = -np.inf
        return choose(logits, self.temperature, uniforms)


def model_kwargs(cfg: PPOConfig) -> dict[str, Any]:
    """``MaskablePPO``'s arguments of the run (its network for the run's game included)."""
    from training.networks import policy_kwargs

    return {
        "n_steps": cfg.n_steps,
        "batch_size": cfg.batch_size,
        "n_epochs": cfg.n_epochs,
        "learning_rate": cfg.learning_rate,
        "gamma": cfg.gamma,
        "gae_lambda": cfg.gae_lambda,
        "clip_range": cfg.clip_range,
        "ent_coef": cfg.ent_coef,
        "vf_coef": cfg.vf_coef,
        "policy_kwargs": policy_kwargs(arch_from_json(cfg.arch), cfg.game),
    }


# ---------------------------------------------------------------------------------------
# The callback: progress, scores, checkpoints
# ---------------------------------------------------------------------------------------
def _callback_class() -> type:
    from stable_baselines3.common.callbacks import BaseCallback

    class TrainCallback(BaseCallback):
        """Live scores, and at rollout boundaries the checkpoints, evaluations and gates."""

        def __init__(self, cfg: PPOConfig, out: Path, env: Any, meta: dict, next_ckpt: int):
            super().__init__()
            self.cfg, self.out, self.env, self.meta = cfg, out, env, meta
            self.arch = arch_from_json(cfg.arch)
            self.next_ckpt = next_ckpt
            self.scores: deque[float] = deque(maxlen=500)
            self.by_opponent: dict[str, deque[float]] = defaultdict(lambda: deque(maxlen=300))
            self.shaped: deque[float] = deque(maxlen=500)
            self.bar: Any = None
            self.task: Any = None
            self.started = time.perf_counter()
            self.start_steps = 0
            self.last_ckpt: Path | None = None

        def _on_training_start(self) -> None:
            self.start_steps = self.model.num_timesteps
            if self.cfg.progress:
                from rich.progress import BarColumn, TextColumn, TimeRemainingColumn

                from agents.progress import PlainProgress, console

                self.bar = PlainProgress(
                    TextColumn("[bold]train ppo"),
                    BarColumn(),
                    TextColumn("{task.completed:,}/{task.total:,} steps"),
                    TextColumn("{task.fields[rate]}"),
                    TextColumn("{task.fields[score]}"),
                    TimeRemainingColumn(),
                    transient=False,
                    console=console(),
                )
                self.bar.start()
                self.task = self.bar.add_task(
                    "train ppo steps",
                    total=self.cfg.steps,
                    completed=self.model.num_timesteps,
                    rate="",
                    score="",
                )

        def _on_step(self) -> bool:
            for info in self.locals["infos"]:
                if "rank_reward" in info:
                    s = (info["rank_reward"] + 1.0) / 2.0
                    self.scores.append(s)
                    self.by_opponent[info["opponent"]].append(s)
                    self.shaped.append(info["shaped_return"])
            return True

        def _on_rollout_end(self) -> None:
            log = self.logger
            if self.scores:
                log.record("rollout/score", float(np.mean(self.scores)))
                log.record("rollout/shaped_return", float(np.mean(self.shaped)))
            for name, vals in sorted(self.by_opponent.items()):
                log.record(f"rollout/score_{name.replace('/', '_')}", float(np.mean(vals)))
            elapsed = time.perf_counter() - self.started
            rate = (self.model.num_timesteps - self.start_steps) / max(elapsed, 1e-9)
            log.record("time/samples_per_s", rate)
            if self.bar is not None:
                score = f"score {np.mean(self.scores):.3f}" if self.scores else ""
                parts = [
                    f"{n.split('/')[-1][:12]} {np.mean(v):.2f}"
                    for n, v in sorted(self.by_opponent.items())
                ]
                self.bar.update(
                    self.task,
                    completed=self.model.num_timesteps,
                    rate=f"{rate:,.0f}/s",
                    score=" ".join([score, *parts]),
                )

        def _on_rollout_start(self) -> None:
            # A rollout boundary: the weights are updated, the games stand where the next
            # rollout starts: the exactly resumable point.
            if self.model.num_timesteps >= self.next_ckpt:
                self.checkpoint()
                while self.next_ckpt <= self.model.num_timesteps:
                    self.next_ckpt += self.cfg.checkpoint_every

        def _on_training_end(self) -> None:
            if self.last_ckpt is None or self.meta_step() != self.model.num_timesteps:
                self.checkpoint()
            if self.bar is not None:
                self.bar.update(self.task, completed=self.model.num_timesteps)
                self.bar.stop()

        def meta_step(self) -> int:
            return -1 if self.last_ckpt is None else int(self.last_ckpt.name.split("-")[1])

        def checkpoint(self) -> None:
            from training.checkpoints import write_checkpoint
            from training.networks import policy_tensors

            step = self.model.num_timesteps
            parent = str(self.last_ckpt) if self.last_ckpt else self.meta.get("parent")
            ckpt = write_checkpoint(
                self.out,
                step,
                self.model,
                self.env.games,
                {**self.meta, "parent": parent},
                self.model._last_episode_starts,
                policy_tensors(self.model.policy, self.arch, self.cfg.game),
            )
            self.last_ckpt = ckpt
            settle_checkpoint(self.cfg, self.out, ckpt, step, self.env.games, self.logger, self.bar)

    return TrainCallback


# ---------------------------------------------------------------------------------------
# The run
# ---------------------------------------------------------------------------------------
def build_model(cfg: PPOConfig, out: Path) -> tuple[Any, Any, list[Path], str | None]:
    """Steps 1 and 2 of a run in the checked directory ``out`` (``prepare_run``): the games
    and the model, new, warm-started (``--init``) or resumed (``--resume``: every file of
    the last checkpoint checked before use, ``training.checkpoints.load_for_resume``).

    Returns:
        The ``MaskablePPO`` model, its ``PoolVecEnv``, the run's complete checkpoints and
        the parent of the next one.

    Raises:
        ValueError: for a checkpoint or a league that must not be loaded (naming the file
            and the field).
    """
    from sb3_contrib import MaskablePPO

    from training.checkpoints import complete_checkpoints, load_for_resume, remove_partial
    from training.league import League
    from training.learner import PoolGames
    from training.vecenv import PoolVecEnv

    # 1. the games
    league = League.load(out)
    games = PoolGames(
        cfg.game, cfg.envs, cfg.pool_players(), opponents=cfg.opponents, checkpoints=league.promoted
    )
    env = PoolVecEnv(games, seed=cfg.seed, shaping=cfg.shaping)

    # 2. the model: new, warm-started, or resumed
    kwargs = model_kwargs(cfg)
    remove_partial(out)
    done = complete_checkpoints(out)
    parent = None
    if cfg.resume and done:
        try:
            model = load_for_resume(done[-1], env, kwargs)
        except ValueError as err:
            raise ValueError(f"--resume: {err}") from None
        parent = read_config(done[-1], cfg.game).get("parent")
    else:
        model = MaskablePPO("MlpPolicy", env, seed=cfg.seed, device="cpu", **kwargs)
        if cfg.init:
            load_init_tensors(model.policy, cfg.init, cfg.game)
            parent = cfg.init
    games.set_self_policy(TorchPolicy(model.policy))
    return model, env, done, parent


def train(cfg: PPOConfig) -> Path:
    """Train (or resume) as ``cfg`` says; returns the last checkpoint's directory.

    Raises:
        ValueError: for bad arguments or a run directory that does not fit (another game's
            included), before any training starts.
    """
    cfg.check()
    out = prepare_run(cfg)

    import torch
    from threadpoolctl import threadpool_limits

    torch.set_num_threads(cfg.threads)
    torch.use_deterministic_algorithms(True)
    # The checkpoints in the opponent pool run in NumPy: BLAS threads beyond torch's would
    # fight it for the same cores (8x slower matmuls measured on 2 busy cores).
    threadpool_limits(cfg.threads, user_api="blas")

    if cfg.algo == "cleanrl":
        from training.cleanrl_ppo import train_cleanrl

        return train_cleanrl(cfg, out)

    from stable_baselines3.common.logger import configure

    from training.checkpoints import complete_checkpoints

    model, env, done, parent = build_model(cfg, out)
    games = env.games
    model.set_logger(configure(str(out), ["csv", "tensorboard"]))

    # 3. the loop
    meta = checkpoint_meta(cfg, parent, "MaskablePPO")
    step0 = model.num_timesteps
    next_ckpt = (step0 // cfg.checkpoint_every + 1) * cfg.checkpoint_every
    callback = _callback_class()(cfg, out, env, meta, next_ckpt=next_ckpt)
    if step0:
        callback.last_ckpt = done[-1]
        # A run killed between writing this checkpoint and gating it: finish that first.
        settle_checkpoint(cfg, out, done[-1], step0, games, model.logger)
    remaining = cfg.steps - step0
    if remaining > 0:
        model.learn(total_timesteps=remaining, callback=callback, reset_num_timesteps=not step0)
    return complete_checkpoints(out)[-1]


__all__ = [
    "ALGOS",
    "PPOConfig",
    "TorchPolicy",
    "build_model",
    "config_from_args",
    "model_kwargs",
    "train",
]
