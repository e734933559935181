"""PPO in one file, CleanRL style: ``caylus train ppo --algo cleanrl``, for every game.

The same games (``training.learner.PoolGames``), the same network and tensor names (the
``--arch`` network as SB3 builds it, ``training.networks.ActorCritic``: checkpoints are
interchangeable with ``MaskablePPO``'s and play as ``policy:PATH``), the same masks,
rewards (``--shaping`` included, ``training.vecenv.shaped_terms``), evaluation and promotion
(``training.runs.settle_checkpoint``); what differs is that the loop below is all there is:
no SB3 buffers, distributions or callbacks between the compiled env and the network. Read it
top to bottom; copy it and change it.

Per update: ``n_steps`` steps of the ``envs`` games (one batched forward pass per step,
sampled with torch's generator), GAE, then ``n_epochs`` passes of clipped PPO over shuffled
minibatches. Illegal actions get a logit of ``-1e9`` (as sb3-contrib's masking does), so
their probability is exactly 0 in float32. A game that ends by its rules stops the
bootstrap; one cut off by its decision cap (``truncated``) is bootstrapped from the value of
its last observation, as SB3 does for ``TimeLimit.truncated``.

Checkpoints (every ``checkpoint_every`` steps, at an update boundary) hold ``config.json``
and ``model.safetensors`` like every checkpoint, and ``resume.safetensors`` /
``resume.json``: the Adam state, the torch generator, the games in progress and the counters.
``--resume`` continues exactly (the same weights as an uninterrupted run).
"""

from __future__ import annotations

import csv
import json
import os
import time
from pathlib import Path
from typing import Any

import numpy as np
import torch
from torch import nn

from agents.policy import WEIGHTS_FILE, CheckpointError, arch_from_json, choose, short_repr
from training.checkpoints import (
    CHECKPOINTS,
    RESUME_ARRAYS,
    RESUME_JSON,
    checkpoint_name,
    complete_checkpoints,
    load_arrays_bytes,
    pool_entry,
    read_resume,
    remove_partial,
    step_of,
    write_arrays,
    write_directory,
)
from training.config import PPOConfig
from training.learner import PoolGames
from training.networks import ActorCritic, policy_tensors
from training.runs import checkpoint_meta, load_init_tensors, settle_checkpoint
from training.vecenv import shaped_terms

MASKED_LOGIT = -1e9


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


def _write_checkpoint(
    cfg: PPOConfig, out: Path, step: int, net, opt, gen, games, meta, extra
) -> Path:
    """The checkpoint of ``step``, written atomically (``training.checkpoints``)."""
    from safetensors.torch import save_file

    names = {id(p): n for n, p in net.named_parameters()}
    arrays = {f"games.{k}": v for k, v in games.save_arrays().items()}
    state = opt.state_dict()
    params = [names[id(p)] for p in opt.param_groups[0]["params"]]
    for i, name in enumerate(params):
        for key, value in state["state"].get(i, {}).items():
            arrays[f"adam.{name}.{key}"] = value.detach().numpy().copy().reshape(value.shape)
    arrays["torch_generator"] = gen.get_state().numpy()
    group = {k: v for k, v in state["param_groups"][0].items() if k != "params"}
    pool = [pool_entry(c) for c in games.checkpoints]  # relative: a moved run resumes
    resume = {"params": params, "adam": group, "checkpoints_in_pool": pool, **extra}
    tensors = policy_tensors(net, arch_from_json(cfg.arch), cfg.game)
    files = {
        WEIGHTS_FILE: lambda p: save_file(tensors, str(p)),
        RESUME_ARRAYS: lambda p: write_arrays(p, arrays),
        RESUME_JSON: lambda p: p.write_text(json.dumps(resume)),
    }
    final = out / CHECKPOINTS / checkpoint_name(step)
    return write_directory(final, files, cfg.game, {"step": step, **meta}, replace=True)


def _load_checkpoint(ckpt: Path, net, opt, gen, games) -> dict[str, Any]:
    """Restore a checkpoint written by ``_write_checkpoint``; returns its resume.json.
    Every file is checked first (``training.checkpoints.read_resume``: checksums, regular
    files of the directory, finite weights and logits, the games through their game's own
    validation), then the Adam state (finite, of its parameters' shapes, a fresh
    optimizer's hyperparameters), the counters and the generator.

    Raises:
        CheckpointError: naming the file and the field that is wrong.
    """
    names = [WEIGHTS_FILE, RESUME_ARRAYS, RESUME_JSON]
    _, files, arrays, resume = read_resume(ckpt, games, names)
    where = ckpt / RESUME_JSON
    weights = load_arrays_bytes(files[WEIGHTS_FILE], ckpt / WEIGHTS_FILE)
    state = net.state_dict()
    by_name = dict(net.named_parameters())
    params, group = resume.get("params"), resume.get("adam")
    fresh = torch.optim.Adam([torch.zeros(1)], lr=opt.param_groups[0]["lr"], eps=1e-5)
    fresh_group = json.loads(
        json.dumps({k: v for k, v in fresh.param_groups[0].items() if k != "params"})
    )
    if any(k not in state or tuple(v.shape) != tuple(state[k].shape) for k, v in weights.items()):
        raise CheckpointError(f"{ckpt / WEIGHTS_FILE}: its tensors are not this network's")
    if not isinstance(params, list) or sorted(map(str, params)) != sorted(by_name):
        raise CheckpointError(f"{where}: params must name this network's parameters")
    if group != fresh_group:
        raise CheckpointError(
            f"{where}: adam is {short_repr(group)}, this run's optimizer has {fresh_group}"
        )
    step, starts = resume.get("step"), resume.get("episode_start")
    if step != step_of(ckpt):
        raise CheckpointError(f"{where}: step {short_repr(step)} is not {step_of(ckpt)}")
    if (
        not isinstance(starts, list)
        or len(starts) != games.num_envs
        or not all(isinstance(b, bool) for b in starts)
    ):
        raise CheckpointError(f"{where}: episode_start must be {games.num_envs} booleans")
    adam_state = {}
    for i, name in enumerate(params):
        entry = {}
        for key in ("step", "exp_avg", "exp_avg_sq"):
            a = arrays.get(f"adam.{name}.{key}")
            if a is None:
                continue
            shape = () if key == "step" else tuple(by_name[name].shape)
            if a.dtype != np.float32 or a.size != int(np.prod(shape)):
                raise CheckpointError(
                    f"{ckpt / RESUME_ARRAYS}: adam.{name}.{key} is {a.dtype}{a.shape}, "
                    f"its parameter needs float32{shape}"
                )
            if not np.isfinite(a).all() or (key != "exp_avg" and (a < 0).any()):
                raise CheckpointError(
                    f"{ckpt / RESUME_ARRAYS}: adam.{name}.{key} is not finite, or negative"
                )
            entry[key] = torch.from_numpy(a.copy()).reshape(shape)
        if entry:
            adam_state[i] = entry
    generator = arrays.get("torch_generator")
    try:
        torch.Generator().set_state(torch.from_numpy(np.asarray(generator).copy()))
    except (TypeError, ValueError, RuntimeError) as err:
        raise CheckpointError(
            f"{ckpt / RESUME_ARRAYS}: torch_generator is not a generator state ({err})"
        ) from None
    for name, value in weights.items():
        state[name] = torch.from_numpy(value.copy())
    net.load_state_dict(state)
    opt.load_state_dict(
        {
            "state": adam_state,
            "param_groups": [{**group, "params": list(range(len(params)))}],
        }
    )
    gen.set_state(torch.from_numpy(generator.copy()))
    return resume


def train_cleanrl(cfg: PPOConfig, out: Path) -> Path:
    """The loop; ``cfg`` is a checked ``training.config.PPOConfig``, ``out`` its run
    directory (``training.runs.prepare_run``)."""
    from training.league import League

    # 1. the games, the network, the optimizer, the generator
    league = League.load(out)
    games = PoolGames(
        cfg.game, cfg.envs, cfg.pool_players(), opponents=cfg.opponents, checkpoints=league.promoted
    )
    torch.manual_seed(cfg.seed)
    net = ActorCritic(arch_from_json(cfg.arch), cfg.game)
    opt = torch.optim.Adam(net.parameters(), lr=cfg.learning_rate, eps=1e-5)
    gen = torch.Generator().manual_seed(cfg.seed)
    games.set_self_policy(SelfOpponent(net))
    logger = Logger(out)
    remove_partial(out)
    done = complete_checkpoints(out)
    meta = checkpoint_meta(cfg, None, "PPO (training/cleanrl_ppo.py)")
    T, N = cfg.n_steps, cfg.envs
    if cfg.resume and done:
        resume = _load_checkpoint(done[-1], net, opt, gen, games)
        step, episode_start = resume["step"], np.array(resume["episode_start"], np.bool_)
        b = games.batch
        meta["parent"] = str(done[-1])
        settle_checkpoint(cfg, out, done[-1], step, games, logger)
    else:
        if cfg.init:
            load_init_tensors(net, cfg.init, cfg.game)
            meta["parent"] = cfg.init
        b = games.reset(seed=cfg.seed)
        step, episode_start = 0, np.ones(N, np.bool_)
    next_ckpt = (step // cfg.checkpoint_every + 1) * cfg.checkpoint_every
    obs_size, num_actions = games.obs_size, games.num_actions

    # rollout storage
    obs = torch.zeros((T, N, obs_size))
    masks = torch.zeros((T, N, num_actions), dtype=torch.bool)
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
            before = games.margin.astype(np.float64)
            b = games.step(action.numpy())
            r = b.rewards.astype(np.float64)
            if cfg.shaping:
                r = r + cfg.shaping * shaped_terms(before, games, b.done)
            if b.truncated.any():
                # Cut off by the decision cap: bootstrap from the value of the last position
                # (what SB3 does for TimeLimit.truncated).
                with torch.no_grad():
                    _, cut = net(torch.from_numpy(b.final_obs[b.truncated].copy()))
                r[b.truncated] += cfg.gamma * cut.numpy().astype(np.float64)
            rewards[t] = torch.from_numpy(r.astype(np.float32))
            episode_start = b.done.copy()
            scores.extend(((b.rewards[b.done] + 1.0) / 2.0).tolist())
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
        b_obs, b_masks = obs.reshape(-1, obs_size), masks.reshape(-1, num_actions)
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
            extra = {"step": step, "episode_start": episode_start.tolist()}
            ckpt = _write_checkpoint(cfg, out, step, net, opt, gen, games, meta, extra)
            meta["parent"] = str(ckpt)
            settle_checkpoint(cfg, out, ckpt, step, games, logger)
            while next_ckpt <= step:
                next_ckpt += cfg.checkpoint_every
        logger.dump(step)
    return complete_checkpoints(out)[-1]


__all__ = ["MASKED_LOGIT", "Logger", "SelfOpponent", "train_cleanrl"]
