"""PPO in one file, CleanRL style: ``caylus train ppo --algo cleanrl``.

The same games (``training.learner.PoolGames``), the same network and tensor names
(pieces-v1, as SB3 builds it: checkpoints are interchangeable with ``MaskablePPO``'s and
play as ``policy:PATH``), the same masks, rewards, evaluation and promotion
(``training.ppo.settle_checkpoint``); what differs is that the loop below is all there is:
no SB3 buffers, distributions or callbacks between the compiled env and the network. Read
it top to bottom; copy it and change it.

Per update: ``n_steps`` steps of the ``envs`` games (one batched forward pass per step,
sampled with torch's generator), GAE, then ``n_epochs`` passes of clipped PPO over shuffled
minibatches. Illegal actions get a logit of ``-1e9`` (as sb3-contrib's masking does), so
their probability is exactly 0 in float32.

Checkpoints (every ``checkpoint_every`` steps, at an update boundary) hold ``config.json``
and ``model.safetensors`` like every checkpoint, and ``resume.safetensors`` /
``resume.json``: the Adam state, the torch generator, the games in progress and the counters.
``--resume`` continues exactly (the same weights as an uninterrupted run).
"""

from __future__ import annotations

import csv
import json
import os
import shutil
import time
from pathlib import Path
from typing import Any

import numpy as np
import torch
from torch import nn

from agents.policy import CHECKPOINT_FORMAT, CONFIG_FILE, WEIGHTS_FILE, Arch, choose
from caylus_env._version import __version__
from caylus_env.caylus.engine.actions import ACTION_SPACE_VERSION, NUM_ACTIONS
from caylus_env.caylus.observation import (
    BOUNDS,
    OBS_SIZE,
    OBSERVATION_VERSION,
    PRESTIGE_SCALE,
)
from training.checkpoints import (
    CHECKPOINTS,
    RESUME_ARRAYS,
    RESUME_JSON,
    _fsync,
    _sha256,
    checkpoint_name,
    complete_checkpoints,
    remove_partial,
    verify_files,
)
from training.learner import PoolGames
from training.networks import PiecesExtractor

MASKED_LOGIT = -1e9


class ActorCritic(nn.Module):
    """pieces-v1 with SB3's module names, so ``model.safetensors`` is the same format."""

    def __init__(self, arch: Arch) -> None:
        from gymnasium import spaces

        super().__init__()
        space = spaces.Box(0.0, BOUNDS, (OBS_SIZE,), np.float32)
        self.features_extractor = PiecesExtractor(space, arch)
        self.mlp_extractor = nn.Module()
        self.mlp_extractor.policy_net = nn.Sequential(nn.Linear(arch.hidden, arch.head), nn.ReLU())
        self.mlp_extractor.value_net = nn.Sequential(nn.Linear(arch.hidden, arch.head), nn.ReLU())
        self.action_net = nn.Linear(arch.head, NUM_ACTIONS)
        self.value_net = nn.Linear(arch.head, 1)
        # SB3's orthogonal initialization and gains (openai/baselines).
        for module, gain in (
            (self.features_extractor, np.sqrt(2)),
            (self.mlp_extractor, np.sqrt(2)),
            (self.action_net, 0.01),
            (self.value_net, 1.0),
        ):
            for m in module.modules():
                if isinstance(m, nn.Linear):
                    nn.init.orthogonal_(m.weight, gain=gain)
                    nn.init.zeros_(m.bias)

    def forward(self, obs: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        h = self.features_extractor(obs)
        logits = self.action_net(self.mlp_extractor.policy_net(h))
        return logits, self.value_net(self.mlp_extractor.value_net(h))[:, 0]


class SelfOpponent:
    """The network being trained as the ``self`` opponent of the pool (sampling with each
    game's own uniform number)."""

    def __init__(self, net: ActorCritic) -> None:
        self.net = net

    def act_batch(self, obs: np.ndarray, mask: np.ndarray, uniforms: np.ndarray, states: Any):
        with torch.no_grad():
            logits, _ = self.net(torch.as_tensor(obs))
        logits = logits.numpy().astype(np.float32)
        logits[~mask] = -np.inf
        return choose(logits, 1.0, uniforms)


class Logger:
    """``progress.csv`` (the same columns as SB3's where they exist) and TensorBoard."""

    def __init__(self, out: Path) -> None:
        from torch.utils.tensorboard import SummaryWriter

        self.out, self.values, self.rows = out, {}, []
        self.tb = SummaryWriter(str(out))

    def record(self, key: str, value: float) -> None:
        self.values[key] = float(value)

    def dump(self, step: int) -> None:
        for k, v in self.values.items():
            self.tb.add_scalar(k, v, step)
        self.rows.append({"time/total_timesteps": step, **self.values})
        self.values = {}
        keys = sorted({k for r in self.rows for k in r})
        tmp = self.out / "progress.csv.tmp"
        with open(tmp, "w", newline="") as f:
            w = csv.DictWriter(f, fieldnames=keys)
            w.writeheader()
            w.writerows(self.rows)
        os.replace(tmp, self.out / "progress.csv")


def _write_checkpoint(out: Path, step: int, net, opt, gen, games, meta, extra) -> Path:
    """The checkpoint of ``step``, written under a temporary name then renamed."""
    from safetensors.numpy import save_file as save_numpy
    from safetensors.torch import save_file

    from training.networks import policy_tensors

    root = out / CHECKPOINTS
    root.mkdir(parents=True, exist_ok=True)
    final = root / checkpoint_name(step)
    tmp = root / f".tmp-{final.name}-{os.getpid()}"
    shutil.rmtree(tmp, ignore_errors=True)
    tmp.mkdir()
    save_file(policy_tensors(net), str(tmp / WEIGHTS_FILE))
    names = {id(p): n for n, p in net.named_parameters()}
    arrays = {f"games.{k}": v for k, v in games.save_arrays().items()}
    state = opt.state_dict()
    params = [names[id(p)] for p in opt.param_groups[0]["params"]]
    for i, name in enumerate(params):
        for key, value in state["state"].get(i, {}).items():
            arrays[f"adam.{name}.{key}"] = value.detach().numpy().copy().reshape(value.shape)
    arrays["torch_generator"] = gen.get_state().numpy()
    save_numpy({k: np.ascontiguousarray(v) for k, v in arrays.items()}, str(tmp / RESUME_ARRAYS))
    group = {k: v for k, v in state["param_groups"][0].items() if k != "params"}
    resume = {"params": params, "adam": group, "checkpoints_in_pool": games.checkpoints, **extra}
    (tmp / RESUME_JSON).write_text(json.dumps(resume))
    files = [WEIGHTS_FILE, RESUME_ARRAYS, RESUME_JSON]
    config = {
        "format": CHECKPOINT_FORMAT,
        "caylus_env_version": __version__,
        "observation_version": OBSERVATION_VERSION,
        "action_space_version": ACTION_SPACE_VERSION,
        "step": step,
        **meta,
        "sha256": {n: _sha256(tmp / n) for n in files},
    }
    (tmp / CONFIG_FILE).write_text(json.dumps(config, indent=2) + "\n")
    for n in [*files, CONFIG_FILE]:
        _fsync(tmp / n)
    if final.exists():
        shutil.rmtree(final)
    os.rename(tmp, final)
    _fsync(root)
    return final


def _load_checkpoint(ckpt: Path, net, opt, gen, games) -> dict[str, Any]:
    """Restore a checkpoint written by ``_write_checkpoint``; returns its resume.json."""
    from safetensors.numpy import load_file

    verify_files(ckpt, [WEIGHTS_FILE, RESUME_ARRAYS, RESUME_JSON])
    weights = load_file(str(ckpt / WEIGHTS_FILE))
    state = net.state_dict()
    for name, value in weights.items():
        state[name] = torch.from_numpy(value.copy())
    net.load_state_dict(state)
    arrays = load_file(str(ckpt / RESUME_ARRAYS))
    resume = json.loads((ckpt / RESUME_JSON).read_text())
    by_name = dict(net.named_parameters())
    adam_state = {}
    for i, name in enumerate(resume["params"]):
        entry = {}
        for key in ("step", "exp_avg", "exp_avg_sq"):
            a = arrays.get(f"adam.{name}.{key}")
            if a is not None:
                entry[key] = torch.from_numpy(a.copy()).reshape(
                    () if key == "step" else by_name[name].shape
                )
        if entry:
            adam_state[i] = entry
    opt.load_state_dict(
        {
            "state": adam_state,
            "param_groups": [{**resume["adam"], "params": list(range(len(resume["params"])))}],
        }
    )
    gen.set_state(torch.from_numpy(arrays["torch_generator"].copy()))
    games.set_checkpoints(resume["checkpoints_in_pool"])
    games.load_arrays({k[6:]: v for k, v in arrays.items() if k.startswith("games.")})
    return resume


def train_cleanrl(cfg: Any, out: Path, meta: dict[str, Any]) -> Path:
    """The loop; ``cfg`` is a checked ``training.ppo.PPOConfig``, ``out`` its run directory."""
    from training.league import League
    from training.ppo import _load_init_tensors, settle_checkpoint

    # 1. the games, the network, the optimizer, the generator
    league = League.load(out)
    games = PoolGames(
        cfg.envs, cfg.players, opponents=cfg.opponents, checkpoints=league.promoted, seed=cfg.seed
    )
    torch.manual_seed(cfg.seed)
    net = ActorCritic(Arch.from_json(cfg.arch))
    opt = torch.optim.Adam(net.parameters(), lr=cfg.learning_rate, eps=1e-5)
    gen = torch.Generator().manual_seed(cfg.seed)
    games.set_self_policy(SelfOpponent(net))
    logger = Logger(out)
    remove_partial(out)
    done = complete_checkpoints(out)
    T, N = cfg.n_steps, cfg.envs
    if cfg.resume and done:
        resume = _load_checkpoint(done[-1], net, opt, gen, games)
        step, episode_start = resume["step"], np.array(resume["episode_start"], np.bool_)
        margin = np.array(resume["margin"], np.float64)
        b = games.batch
        meta["parent"] = str(done[-1])
        settle_checkpoint(cfg, out, done[-1], step, games, logger)
    else:
        if cfg.init:
            _load_init_tensors(net, cfg.init)
            meta["parent"] = cfg.init
        b = games.reset(seed=cfg.seed)
        step, episode_start = 0, np.ones(N, np.bool_)
        margin = games.margin.astype(np.float64)
    next_ckpt = (step // cfg.checkpoint_every + 1) * cfg.checkpoint_every

    # rollout storage
    obs = torch.zeros((T, N, OBS_SIZE))
    masks = torch.zeros((T, N, NUM_ACTIONS), dtype=torch.bool)
    actions = torch.zeros((T, N), dtype=torch.long)
    logprobs = torch.zeros((T, N))
    rewards = torch.zeros((T, N))
    starts = torch.zeros((T, N))
    values = torch.zeros((T, N))
    scores: list[float] = []
    started = time.perf_counter()
    first_step = step

    while step < cfg.steps:
        # 2. collect n_steps steps of every game
        for t in range(T):
            obs[t] = torch.from_numpy(b.obs.copy())
            masks[t] = torch.from_numpy(b.mask.view(np.bool_).copy())
            starts[t] = torch.from_numpy(episode_start.astype(np.float32))
            with torch.no_grad():
                logits, value = net(obs[t])
                logits = logits.masked_fill(~masks[t], MASKED_LOGIT)
                probs = torch.softmax(logits, dim=1)
                action = torch.multinomial(probs, 1, generator=gen)[:, 0]
                logprobs[t] = torch.log_softmax(logits, dim=1).gather(1, action[:, None])[:, 0]
            values[t], actions[t] = value, action
            b = games.step(action.numpy())
            r = b.rewards.astype(np.float64)
            after = np.where(b.terminated, games.final_margin, games.margin)
            if cfg.shaping:
                r = r + cfg.shaping * (after - margin) / PRESTIGE_SCALE
            margin = games.margin.astype(np.float64)
            rewards[t] = torch.from_numpy(r.astype(np.float32))
            episode_start = b.terminated.copy()
            scores.extend(((b.rewards[b.terminated] + 1.0) / 2.0).tolist())
        step += T * N

        # 3. advantages (GAE) with the value of the position after the rollout
        with torch.no_grad():
            _, next_value = net(torch.from_numpy(b.obs.copy()))
        advantages = torch.zeros((T, N))
        last = torch.zeros(N)
        next_start = torch.from_numpy(episode_start.astype(np.float32))
        for t in reversed(range(T)):
            nonterminal = 1.0 - (next_start if t == T - 1 else starts[t + 1])
            nv = next_value if t == T - 1 else values[t + 1]
            delta = rewards[t] + cfg.gamma * nv * nonterminal - values[t]
            last = delta + cfg.gamma * cfg.gae_lambda * nonterminal * last
            advantages[t] = last
        returns = advantages + values

        # 4. clipped PPO on shuffled minibatches
        b_obs, b_masks = obs.reshape(-1, OBS_SIZE), masks.reshape(-1, NUM_ACTIONS)
        b_actions, b_logprobs = actions.reshape(-1), logprobs.reshape(-1)
        b_adv, b_returns = advantages.reshape(-1), returns.reshape(-1)
        size = T * N
        for _ in range(cfg.n_epochs):
            order = torch.randperm(size, generator=gen)
            for i in range(0, size, cfg.batch_size):
                mb = order[i : i + cfg.batch_size]
                logits, value = net(b_obs[mb])
                logits = logits.masked_fill(~b_masks[mb], MASKED_LOGIT)
                logp_all = torch.log_softmax(logits, dim=1)
                logp = logp_all.gather(1, b_actions[mb, None])[:, 0]
                entropy = -(logp_all.exp() * logp_all).sum(1).mean()
                adv = b_adv[mb]
                adv = (adv - adv.mean()) / (adv.std() + 1e-8)
                ratio = (logp - b_logprobs[mb]).exp()
                pg = torch.max(
                    -adv * ratio, -adv * ratio.clamp(1 - cfg.clip_range, 1 + cfg.clip_range)
                ).mean()
                v_loss = ((value - b_returns[mb]) ** 2).mean()
                loss = pg - cfg.ent_coef * entropy + cfg.vf_coef * v_loss
                opt.zero_grad()
                loss.backward()
                nn.utils.clip_grad_norm_(net.parameters(), 0.5)
                opt.step()

        # 5. logs, checkpoints
        rate = (step - first_step) / (time.perf_counter() - started)
        logger.record("time/samples_per_s", rate)
        logger.record("train/entropy", float(entropy.detach()))
        logger.record("train/value_loss", float(v_loss.detach()))
        if scores:
            logger.record("rollout/score", float(np.mean(scores[-500:])))
        if cfg.progress:
            print(
                f"step {step:,}  {rate:,.0f} samples/s  score {np.mean(scores[-500:] or [0]):.3f}"
            )
        if step >= next_ckpt or step >= cfg.steps:
            extra = {
                "step": step,
                "episode_start": episode_start.tolist(),
                "margin": margin.tolist(),
            }
            ckpt = _write_checkpoint(out, step, net, opt, gen, games, meta, extra)
            meta["parent"] = str(ckpt)
            settle_checkpoint(cfg, out, ckpt, step, games, logger)
            while next_ckpt <= step:
                next_ckpt += cfg.checkpoint_every
        logger.dump(step)
    return complete_checkpoints(out)[-1]
