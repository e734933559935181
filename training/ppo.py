"""Self-play PPO for Caylus: ``caylus train ppo``, read top to bottom.

One run is one output directory:

    OUT/run.json               the arguments (a re-run must give the same ones, or --resume)
    OUT/checkpoints/step-*/    checkpoints (``training.checkpoints``), atomic
    OUT/progress.csv           SB3's CSV log (rollout/*, train/*, eval/*, league/*)
    OUT/events.out.tfevents.*  the same for TensorBoard (tensorboard --logdir OUT)
    OUT/curve.csv              evaluation of each checkpoint (learning curve)
    OUT/learning_curve.png     the same, plotted
    OUT/league.json, league.md gated promotion (``training.league``)

The steps, in order:

1. **Games**: ``PoolGames`` (``training.learner``): ``--envs`` games of ``--players``
   players; in each, the learner plays one seat, the opponents drawn per episode from
   ``--opponents`` (``self:0.5,economy:0.3,pool:0.2``: the current policy, a compiled bot,
   the promoted checkpoints) play the others inside ``step``.
2. **Model**: sb3-contrib ``MaskablePPO`` with the pieces-v1 network
   (``training.networks``); the legal mask of every decision masks the logits. ``--init
   CHECKPOINT`` starts from a checkpoint's weights (e.g. a behaviour-cloning warm start).
3. **Loop**: ``model.learn``; a callback shows the progress bar with the live score, logs
   per-opponent scores, and at every ``--checkpoint-every`` steps (at a rollout boundary,
   where the state is exactly resumable) writes a checkpoint, evaluates it and gates it.
4. **Resume**: ``--resume`` loads the last complete checkpoint (weights, optimizer, games
   in progress, random generators) and continues; the run then equals an uninterrupted
   one (tested with a real ``kill -9``).

Determinism: with the same arguments, ``--threads`` and machine, two runs give the same
weights bit for bit (torch's CPU kernels are deterministic for a fixed thread count;
``torch.use_deterministic_algorithms`` is set).
"""

from __future__ import annotations

import csv
import json
import os
import shlex
import sys
import time
from collections import defaultdict, deque
from dataclasses import asdict, dataclass, field, fields
from pathlib import Path
from typing import Any

import numpy as np

from agents.policy import Arch, choose
from caylus_env.caylus.engine.constants import MAX_PLAYERS, MIN_PLAYERS
from caylus_env.core.fileio import atomic_write_json

#: The PPO implementations: sb3-contrib's (the reference) and the one-file CleanRL-style one.
ALGOS = ("maskable", "cleanrl")
#: Fields of ``PPOConfig`` that a resumed run may change (how long and how to show it).
RESUMABLE_CHANGES = ("steps", "resume", "progress", "command")


@dataclass
class PPOConfig:
    """Every argument of ``caylus train ppo`` (``run.json`` stores them).

    Attributes:
        out: the run directory.
        players: the player count of the games (2-5).
        steps: learner decisions to train on (environment steps).
        seed: seeds the games, the network's initialization and the sampling.
        envs: games played at once.
        opponents: the opponent pool (``training.learner.parse_pool``).
        n_steps: rollout length per game (a rollout is ``n_steps * envs`` samples).
        batch_size: minibatch size of the updates.
        n_epochs: passes over each rollout.
        learning_rate, gamma, gae_lambda, clip_range, ent_coef, vf_coef: PPO's.
        shaping: coefficient of the shaped prestige-margin term (0: off).
        checkpoint_every: steps between checkpoints (rounded up to whole rollouts).
        eval_games: games per reference in each checkpoint's evaluation (0: none).
        eval_opponents: the references of the learning curve.
        gate_games: games of each promotion match.
        threads: torch's CPU threads.
        init: a checkpoint whose weights start the network (warm start).
        arch: the network's sizes.
        algo: ``maskable`` (sb3-contrib ``MaskablePPO``, the reference) or ``cleanrl`` (the
            one-file PPO of ``training.cleanrl_ppo``: same network, masks and checkpoints).
        resume: continue from the last complete checkpoint.
        progress: show the progress bar.
        command: the exact command line (recorded in checkpoints).
    """

    out: str
    players: int = 2
    steps: int = 1_000_000
    seed: int = 0
    envs: int = 128
    opponents: str = "self:0.4,random:0.1,castle:0.1,town:0.1,economy:0.2,pool:0.1"
    n_steps: int = 32
    batch_size: int = 2048
    n_epochs: int = 4
    learning_rate: float = 3e-4
    gamma: float = 1.0
    gae_lambda: float = 0.95
    clip_range: float = 0.2
    ent_coef: float = 0.01
    vf_coef: float = 0.5
    shaping: float = 0.0
    checkpoint_every: int = 100_000
    eval_games: int = 200
    eval_opponents: str = "random,economy"
    gate_games: int = 200
    threads: int = 1
    init: str | None = None
    arch: dict[str, Any] = field(default_factory=lambda: Arch().to_json())
    algo: str = "maskable"
    resume: bool = False
    progress: bool = True
    command: str = ""

    def check(self) -> None:
        """Refuse bad arguments before any work starts.

        Raises:
            ValueError: naming the argument and what is allowed.
        """
        from training.learner import parse_pool

        def positive(name: str, value: Any) -> None:
            if isinstance(value, bool) or not isinstance(value, int) or value < 1:
                raise ValueError(f"--{name.replace('_', '-')} must be an int >= 1, got {value!r}")

        if not MIN_PLAYERS <= self.players <= MAX_PLAYERS:
            raise ValueError(
                f"--players {self.players} is not allowed; allowed: {MIN_PLAYERS}-{MAX_PLAYERS}"
            )
        for name in ("steps", "envs", "n_steps", "batch_size", "n_epochs", "threads"):
            positive(name, getattr(self, name))
        positive("checkpoint_every", self.checkpoint_every)
        if self.eval_games < 0 or self.gate_games < 1:
            raise ValueError("--eval-games must be >= 0 and --gate-games >= 1")
        if isinstance(self.seed, bool) or not isinstance(self.seed, int) or self.seed < 0:
            raise ValueError(f"--seed must be an int >= 0, got {self.seed!r}")
        for name, low, high in (
            ("learning_rate", 0.0, 1.0),
            ("gamma", 0.0, 1.0),
            ("gae_lambda", 0.0, 1.0),
            ("clip_range", 0.0, 1.0),
            ("ent_coef", 0.0, 1.0),
            ("vf_coef", 0.0, 10.0),
            ("shaping", 0.0, 100.0),
        ):
            v = getattr(self, name)
            if not (isinstance(v, (int, float)) and low <= v <= high):
                raise ValueError(f"--{name.replace('_', '-')} must be in [{low}, {high}], got {v}")
        if (self.n_steps * self.envs) % self.batch_size and self.batch_size > 1:
            # SB3 would warn and drop a truncated minibatch; make the choice explicit.
            raise ValueError(
                f"--batch-size {self.batch_size} must divide the rollout size n_steps * envs "
                f"= {self.n_steps * self.envs}"
            )
        parse_pool(self.opponents)
        for ref in self.eval_opponents.split(","):
            if ref.strip() not in ("random", "castle", "town", "economy"):
                raise ValueError(
                    f"--eval-opponents entry {ref!r} is not allowed; allowed: random, castle, "
                    "town, economy"
                )
        Arch.from_json(self.arch)
        if self.algo not in ALGOS:
            raise ValueError(f"--algo {self.algo!r} is not allowed; allowed: {', '.join(ALGOS)}")
        if self.init is not None and self.resume:
            raise ValueError("--init starts a new run; it cannot be combined with --resume")


# ---------------------------------------------------------------------------------------
# The current policy as an opponent ("self") and as a batch player
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
        import torch

        with torch.no_grad():
            features = self.policy.extract_features(
                torch.as_tensor(obs), self.policy.pi_features_extractor
            )
            latent = self.policy.mlp_extractor.forward_actor(features)
            logits = self.policy.action_net(latent).numpy().astype(np.float32)
        logits[~mask] = -np.inf
        return choose(logits, self.temperature, uniforms)


# ---------------------------------------------------------------------------------------
# The run directory
# ---------------------------------------------------------------------------------------
def prepare_run(cfg: PPOConfig) -> Path:
    """Create or check ``cfg.out``: a new run needs a new directory (or an empty one); a
    resumed run needs the same arguments as the first (``steps`` may grow).

    Raises:
        ValueError: naming the differing arguments, or saying how to resume.
    """
    out = Path(cfg.out)
    run_json = out / "run.json"
    if run_json.is_file():
        saved = json.loads(run_json.read_text())
        if not cfg.resume:
            raise ValueError(
                f"{out} already holds a training run: add --resume to continue it, or "
                "choose another --out"
            )
        ours = asdict(cfg)
        differ = sorted(
            k for k in ours if k not in RESUMABLE_CHANGES and saved.get(k) != ours.get(k)
        )
        if differ:
            detail = ", ".join(f"{k}: {saved.get(k)!r} then, {ours.get(k)!r} now" for k in differ)
            raise ValueError(f"--resume with other arguments than the run in {out}: {detail}")
    else:
        if cfg.resume:
            raise ValueError(f"--resume: {out} holds no training run (no run.json)")
        if out.exists() and any(out.iterdir()):
            raise ValueError(f"--out {out} exists and is not empty; choose a new directory")
        out.mkdir(parents=True, exist_ok=True)
        atomic_write_json(run_json, asdict(cfg))
    return out


def _model_kwargs(cfg: PPOConfig) -> dict[str, Any]:
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
        "policy_kwargs": policy_kwargs(Arch.from_json(cfg.arch)),
    }


def _load_init(model: Any, path: str) -> None:
    """Start ``model``'s network from the weights of checkpoint ``path``."""
    _load_init_tensors(model.policy, path)


def _load_init_tensors(module: Any, path: str, check: Any = None) -> None:
    """Load checkpoint ``path``'s weights into a pieces-v1 ``module`` (SB3's or CleanRL's).
    ``check(path)`` refuses a checkpoint of another game or version (default: Caylus's
    ``PolicyNet``; Puerto Rico passes its own)."""
    import torch
    from safetensors.numpy import load_file

    from agents.policy import WEIGHTS_FILE, CheckpointError, PolicyNet

    (check or PolicyNet)(path)  # checks versions, checksum, names and shapes
    tensors = load_file(str(Path(path) / WEIGHTS_FILE))
    state = module.state_dict()
    for name, value in tensors.items():
        if name not in state or tuple(state[name].shape) != value.shape:
            raise CheckpointError(
                f"--init {path}: tensor {name} {value.shape} does not fit this network's "
                f"{tuple(state[name].shape) if name in state else 'nothing'} (another --arch?)"
            )
        state[name] = torch.from_numpy(value.copy())
    module.load_state_dict(state)


# ---------------------------------------------------------------------------------------
# Evaluation curve
# ---------------------------------------------------------------------------------------
CURVE_FIELDS = ("step", "opponent", "games", "wins", "ties", "losses", "score", "low", "high")


def settle_checkpoint(
    cfg: PPOConfig,
    out: Path,
    ckpt: Path,
    step: int,
    games: Any,
    logger: Any,
    bar: Any = None,
    play: Any = None,
) -> None:
    """What follows a checkpoint: its evaluation (learning curve), its gate (league) and
    the opponent pool's new checkpoints. Each part is skipped when already on disk, so a
    run killed in between redoes exactly the missing parts on ``--resume``. ``play`` plays
    the game's matches (``training.league.play_checkpoint``'s signature; default: Caylus's)."""
    from training.league import League

    done_steps = set()
    if (out / "curve.csv").is_file():
        with open(out / "curve.csv", newline="") as f:
            done_steps = {int(r["step"]) for r in csv.DictReader(f)}
    if step not in done_steps:
        for m in evaluate(out, ckpt, step, cfg, logger, play):
            if bar is not None:
                bar.console.print(
                    f"step {step:,}: vs {m.opponent} score {m.score:.3f} "
                    f"[{m.low:.3f}, {m.high:.3f}] over {m.games} games"
                )
    league = League.load(out)
    if not any(d["checkpoint"] == str(ckpt) for d in league.decisions):
        d = league.gate(ckpt, step, cfg.gate_games, cfg.players, cfg.seed, play)
        league.save(out)
        logger.record("league/promoted", float(d["decision"].startswith("promoted")))
        if bar is not None:
            bar.console.print(f"step {step:,}: {d['decision']}")
    games.set_checkpoints(league.promoted)


def evaluate(
    out: Path, ckpt: Path, step: int, cfg: PPOConfig, logger: Any, play: Any = None
) -> list[Any]:
    """Play the checkpoint against each reference; append to ``curve.csv`` and replot.
    ``play`` plays one match (``training.league.play_checkpoint``'s signature, the default)."""
    from training.league import play_checkpoint

    if cfg.eval_games == 0:
        return []
    play = play or play_checkpoint
    results = []
    for ref in cfg.eval_opponents.split(","):
        m = play(ckpt, ref.strip(), cfg.eval_games, cfg.players, cfg.seed + 1_000_003)
        results.append(m)
        logger.record(f"eval/score_{m.opponent}", m.score)
    path = out / "curve.csv"
    rows = []
    if path.is_file():
        with open(path, newline="") as f:
            rows = [r for r in csv.DictReader(f) if int(r["step"]) < step]
    rows += [{"step": step, **{k: getattr(m, k) for k in CURVE_FIELDS[1:]}} for m in results]
    tmp = path.with_suffix(".csv.tmp")
    with open(tmp, "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=CURVE_FIELDS)
        w.writeheader()
        w.writerows(rows)
    os.replace(tmp, path)
    plot_curve(path, out / "learning_curve.png")
    return results


def plot_curve(csv_path: Path, png: Path) -> None:
    """The learning curve: each reference's score (with its Wilson interval) by step."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    series: dict[str, list[tuple[float, float, float, float]]] = defaultdict(list)
    with open(csv_path, newline="") as f:
        for r in csv.DictReader(f):
            series[r["opponent"]].append(
                (int(r["step"]), float(r["score"]), float(r["low"]), float(r["high"]))
            )
    fig, ax = plt.subplots(figsize=(7, 4))
    for name, pts in series.items():
        x, y, lo, hi = (np.array(v) for v in zip(*sorted(pts), strict=True))
        ax.plot(x, y, marker="o", label=f"vs {name}")
        ax.fill_between(x, lo, hi, alpha=0.2)
    ax.axhline(0.5, color="grey", lw=0.8, ls="--")
    ax.set_xlabel("training steps (learner decisions)")
    ax.set_ylabel("score (win 1, tie 0.5), greedy policy")
    ax.set_ylim(0, 1)
    ax.grid(alpha=0.3)
    ax.legend()
    ax.set_title("Learning curve (Wilson 95% intervals)")
    fig.tight_layout()
    tmp = png.with_suffix(".tmp.png")
    fig.savefig(tmp, dpi=110)
    plt.close(fig)
    os.replace(tmp, png)


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
                from rich.progress import (
                    BarColumn,
                    Progress,
                    TextColumn,
                    TimeRemainingColumn,
                )

                self.bar = Progress(
                    TextColumn("[bold]train ppo"),
                    BarColumn(),
                    TextColumn("{task.completed:,}/{task.total:,} steps"),
                    TextColumn("{task.fields[rate]}"),
                    TextColumn("{task.fields[score]}"),
                    TimeRemainingColumn(),
                    transient=False,
                )
                self.bar.start()
                self.task = self.bar.add_task(
                    "ppo",
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

            step = self.model.num_timesteps
            parent = str(self.last_ckpt) if self.last_ckpt else self.meta.get("parent")
            ckpt = write_checkpoint(
                self.out,
                step,
                self.model,
                self.env.games,
                {**self.meta, "parent": parent},
                self.model._last_episode_starts,
            )
            self.last_ckpt = ckpt
            settle_checkpoint(self.cfg, self.out, ckpt, step, self.env.games, self.logger, self.bar)

    return TrainCallback


# ---------------------------------------------------------------------------------------
# The run
# ---------------------------------------------------------------------------------------
def train(cfg: PPOConfig) -> Path:
    """Train (or resume) as ``cfg`` says; returns the last checkpoint's directory.

    Raises:
        ValueError: for bad arguments or a run directory that does not fit, before any
            training starts.
    """
    cfg.check()
    out = prepare_run(cfg)

    import torch
    from sb3_contrib import MaskablePPO
    from stable_baselines3.common.logger import configure
    from threadpoolctl import threadpool_limits

    from training.checkpoints import complete_checkpoints, load_for_resume, remove_partial
    from training.league import League
    from training.learner import PoolGames
    from training.vecenv import PoolVecEnv

    torch.set_num_threads(cfg.threads)
    torch.use_deterministic_algorithms(True)
    # The checkpoints in the opponent pool run in NumPy: BLAS threads beyond torch's would
    # fight it for the same cores (8x slower matmuls measured on 2 busy cores).
    threadpool_limits(cfg.threads, user_api="blas")

    if cfg.algo == "cleanrl":
        from training.cleanrl_ppo import train_cleanrl

        meta = {
            "arch": cfg.arch,
            "num_players": [cfg.players],
            "seed": cfg.seed,
            "parent": None,
            "command": cfg.command or shlex.join(sys.argv),
            "opponents": cfg.opponents,
            "algorithm": "PPO (training/cleanrl_ppo.py)",
        }
        return train_cleanrl(cfg, out, meta)

    # 1. the games
    league = League.load(out)
    games = PoolGames(
        cfg.envs, cfg.players, opponents=cfg.opponents, checkpoints=league.promoted, seed=cfg.seed
    )
    env = PoolVecEnv(games, seed=cfg.seed, shaping=cfg.shaping)

    # 2. the model: new, warm-started, or resumed
    kwargs = _model_kwargs(cfg)
    remove_partial(out)
    done = complete_checkpoints(out)
    parent = None
    if cfg.resume and done:
        model = load_for_resume(done[-1], env, kwargs)
        parent = json.loads((done[-1] / "config.json").read_text()).get("parent")
    else:
        model = MaskablePPO("MlpPolicy", env, seed=cfg.seed, device="cpu", **kwargs)
        if cfg.init:
            _load_init(model, cfg.init)
            parent = cfg.init
    games.set_self_policy(TorchPolicy(model.policy))
    model.set_logger(configure(str(out), ["csv", "tensorboard"]))

    # 3. the loop
    meta = {
        "arch": cfg.arch,
        "num_players": [cfg.players],
        "seed": cfg.seed,
        "parent": parent,
        "command": cfg.command or shlex.join(sys.argv),
        "opponents": cfg.opponents,
        "algorithm": "MaskablePPO",
    }
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
    last = complete_checkpoints(out)
    return last[-1]


def config_from_args(**kwargs: Any) -> PPOConfig:
    """A ``PPOConfig`` from keyword arguments (the CLI's), ignoring ``None`` values.

    Raises:
        ValueError: naming an unknown argument.
    """
    names = {f.name for f in fields(PPOConfig)}
    unknown = sorted(set(kwargs) - names)
    if unknown:
        raise ValueError(f"unknown training arguments {unknown}; allowed: {sorted(names)}")
    return PPOConfig(**{k: v for k, v in kwargs.items() if v is not None})
