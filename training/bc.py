"""Behaviour cloning: ``caylus train bc --game G``, a warm start for PPO, for every game.

Fits the policy network that ``caylus train ppo`` trains (built by Stable-Baselines3's
``MaskableActorCriticPolicy``, ``training.networks``: pieces-v1 by default, built from the
game's observation layout) to the moves of a self-play dataset of the game (``caylus
dataset generate --game G``): cross-entropy of the stored action under the legal mask, plus
half the squared error of the value head against the acting seat's final return (the
dataset's ``ret``: the game's rank reward, the very reward PPO trains on; so PPO starts with
a critic too). Batches come from ``caylus_env.datasets.iter_batches``, which decodes the
stored states into observations with the game's own encoder; a seeded shuffle buffer
(``SHUFFLE_ROWS`` decisions) breaks the order of the games.

A dataset of another game than ``--game`` is refused naming both
(``caylus_env.datasets.format.check_game``), before any training. The result is a checkpoint
directory of the game (``config.json`` + ``model.safetensors``, the tensors of a PPO
checkpoint of the same network): play it as ``policy:OUT`` (with ``--game``) or continue
with ``caylus train ppo --game G --init OUT``. ``config.json`` records the mean loss and the
imitation accuracy of every epoch (``history``) and what the value head was fitted to
(``value_head``). Same dataset, arguments, seed and thread count: the same weights.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from caylus_env.core.registry import DEFAULT_GAME, GAME_NAMES

#: Decisions held and shuffled together before they are cut into minibatches.
SHUFFLE_ROWS = 65_536
#: Rows per batch read from the dataset (before the shuffle buffer).
READ_ROWS = 4096
#: The logit of an illegal action: sb3-contrib's ``MaskableCategorical`` value, so that the
#: loss is the one ``MaskablePPO`` computes for the same network.
MASKED_LOGIT = -1e8
#: What ``config.json``'s ``value_head`` says the value head was fitted to.
VALUE_TARGET = "the acting seat's final return in the dataset (ret), by mean squared error"


@dataclass
class BCConfig:
    """Arguments of ``caylus train bc``.

    Attributes:
        dataset: the dataset directory.
        out: the checkpoint directory to write (must not exist).
        players: keep the decisions of games with this player count (None: all).
        agent: keep the decisions of this agent spec (None: all).
        epochs: passes over the dataset.
        batch_size, learning_rate: of the Adam updates.
        seed: seeds the initialization and the shuffle.
        threads: torch CPU threads.
        progress: show a progress bar.
        command: the exact command line (recorded in config.json).
        game: the game of the dataset and of the network (``caylus_env.core.registry``).
        arch: the network (``agents.policy.ARCHS``: its ``config.json`` form; None:
            ``agents.policy.DEFAULT_ARCH``).
    """

    dataset: str
    out: str
    players: int | None = None
    agent: str | None = None
    epochs: int = 3
    batch_size: int = 1024
    learning_rate: float = 1e-3
    seed: int = 0
    threads: int = 1
    progress: bool = True
    command: str = ""
    game: str = DEFAULT_GAME
    arch: dict[str, Any] | None = None


def shuffled(
    batches: Any,
    batch_size: int,
    rng: np.random.Generator,
    keys: tuple[str, ...] = ("obs", "mask", "action", "ret"),
) -> Any:
    """Minibatches of the columns ``keys`` drawn from a shuffle buffer of ``SHUFFLE_ROWS``
    decisions (behaviour cloning here, the self-play learner of ``training.az``)."""
    held: list[dict[str, np.ndarray]] = []
    rows = 0

    def flush(parts: list[dict[str, np.ndarray]]) -> Any:
        block = {k: np.concatenate([p[k] for p in parts]) for k in parts[0]}
        order = rng.permutation(len(block[keys[0]]))
        for i in range(0, len(order), batch_size):
            idx = order[i : i + batch_size]
            yield {k: v[idx] for k, v in block.items()}

    for b in batches:
        held.append({k: b[k] for k in keys})
        rows += len(b["action"])
        if rows >= SHUFFLE_ROWS:
            yield from flush(held)
            held, rows = [], 0
    if held:
        yield from flush(held)


def _forward(policy: Any, obs: Any, masks: Any) -> tuple[Any, Any]:
    """The masked log-probabilities ``(B, NUM_ACTIONS)`` and the values ``(B,)`` of ``policy``
    (SB3's ``evaluate_actions``, with illegal logits set to ``MASKED_LOGIT`` as sb3-contrib's
    masked distribution does): the whole distribution in one pass, which also gives the
    greedy move for the accuracy, without building a ``Categorical`` (slow: it validates)."""
    import torch

    features = policy.extract_features(obs)
    if policy.share_features_extractor:
        latent_pi, latent_vf = policy.mlp_extractor(features)
    else:
        latent_pi = policy.mlp_extractor.forward_actor(features[0])
        latent_vf = policy.mlp_extractor.forward_critic(features[1])
    logits = policy.action_net(latent_pi).masked_fill(~masks, MASKED_LOGIT)
    return torch.log_softmax(logits, dim=1), policy.value_net(latent_vf)[:, 0]


def check_config(cfg: BCConfig) -> None:
    """Refuse bad arguments before anything is read.

    Raises:
        ValueError: naming the argument and what is allowed.
    """
    from agents.policy import DEFAULT_ARCH, arch_from_json

    if cfg.game not in GAME_NAMES:
        raise ValueError(f"--game {cfg.game!r} is not allowed; allowed: {', '.join(GAME_NAMES)}")
    try:
        arch_from_json(DEFAULT_ARCH.to_json() if cfg.arch is None else cfg.arch)
    except ValueError as err:
        raise ValueError(f"--arch: {err}") from None
    for name in ("epochs", "batch_size", "threads"):
        value = getattr(cfg, name)
        if isinstance(value, bool) or not isinstance(value, int) or value < 1:
            raise ValueError(f"--{name.replace('_', '-')} must be an int >= 1, got {value!r}")
    if not 0 < cfg.learning_rate < 1:
        raise ValueError(f"--learning-rate must be in (0, 1), got {cfg.learning_rate}")
    if isinstance(cfg.seed, bool) or not isinstance(cfg.seed, int) or cfg.seed < 0:
        raise ValueError(f"--seed must be an int >= 0, got {cfg.seed!r}")
    if Path(cfg.out).exists():
        raise ValueError(f"--out {cfg.out} exists; choose a new directory")


def train_bc(cfg: BCConfig) -> Path:
    """Fit the policy to the dataset; returns the checkpoint directory.

    Raises:
        ValueError: for bad arguments, an existing output, or a dataset that cannot be
            read, is of another game than ``cfg.game`` (naming both) or has no decisions
            after the filters (before any training).
    """
    from caylus_env.datasets import iter_batches, read_manifest
    from caylus_env.datasets.format import check_game

    check_config(cfg)
    manifest = read_manifest(cfg.dataset)
    check_game(manifest, cfg.game)
    filters = {
        "players": cfg.players,
        "agents": cfg.agent,
        "policy_targets": False,
        "game": cfg.game,
    }
    first = next(iter(iter_batches(cfg.dataset, 1, **filters)), None)
    if first is None:
        shown = {k: v for k, v in filters.items() if k in ("players", "agents")}
        raise ValueError(f"dataset {cfg.dataset}: no decisions match the filters {shown}")

    import torch

    from agents.policy import DEFAULT_ARCH, arch_from_json
    from training.checkpoints import write_policy_checkpoint
    from training.networks import masked_policy, policy_tensors

    torch.set_num_threads(cfg.threads)
    torch.manual_seed(cfg.seed)
    arch = arch_from_json(DEFAULT_ARCH.to_json() if cfg.arch is None else cfg.arch)
    policy = masked_policy(arch, cfg.game, cfg.learning_rate)
    optimizer = torch.optim.Adam(policy.parameters(), lr=cfg.learning_rate)
    rng = np.random.default_rng(cfg.seed)
    total = sum(int(s.get("decisions", 0)) for s in manifest.get("shards", [])) or None
    from rich.progress import (
        BarColumn,
        MofNCompleteColumn,
        TextColumn,
        TimeElapsedColumn,
        TimeRemainingColumn,
    )

    from agents.progress import PlainProgress, console

    bar = PlainProgress(
        TextColumn("[bold]train bc"),
        BarColumn(),
        MofNCompleteColumn(),
        TextColumn("decisions"),
        TimeElapsedColumn(),
        TimeRemainingColumn(),
        TextColumn("{task.fields[stats]}"),
        console=console(),
        enabled=cfg.progress,
    )
    seen = 0
    p_action = 0.0
    history = []
    with bar:
        task = bar.add_task("train bc decisions", total=(total or 0) * cfg.epochs or None, stats="")
        for epoch in range(cfg.epochs):
            rows, loss_sum, hits = 0, 0.0, 0.0
            batches = iter_batches(cfg.dataset, READ_ROWS, **filters)
            for mb in shuffled(batches, cfg.batch_size, rng):
                obs = torch.from_numpy(mb["obs"])
                actions = torch.from_numpy(mb["action"])
                masks = torch.from_numpy(mb["mask"].astype(np.bool_))
                log_probs, values = _forward(policy, obs, masks)
                log_prob = log_probs.gather(1, actions[:, None])[:, 0]
                ret = torch.from_numpy(mb["ret"].astype(np.float32))
                loss = -log_prob.mean() + 0.5 * torch.nn.functional.mse_loss(values, ret)
                with torch.no_grad():
                    p_action = 0.98 * p_action + 0.02 * float(torch.exp(log_prob).mean())
                    # the greedy move before this update (epoch 1: on decisions not yet fitted)
                    hits += float((log_probs.argmax(dim=1) == actions).sum())
                optimizer.zero_grad()
                loss.backward()
                optimizer.step()
                n = len(actions)
                seen += n
                loss_value = float(loss.detach())
                rows += n
                loss_sum += loss_value * n
                bar.update(task, advance=n, stats=f"loss {loss_value:.3f} p_action {p_action:.3f}")
            history.append(
                {
                    "epoch": epoch + 1,
                    "loss": loss_sum / rows,
                    "accuracy": hits / rows,
                    "decisions": rows,
                }
            )
    meta = {
        "arch": arch.to_json(),
        "num_players": [cfg.players] if cfg.players else manifest.get("run", {}).get("players", []),
        "step": seen,
        "seed": cfg.seed,
        "parent": None,
        "command": cfg.command,
        "algorithm": "behaviour cloning",
        "dataset": str(Path(cfg.dataset).resolve()),
        "dataset_command": manifest.get("command"),
        "agent_filter": cfg.agent,
        "history": history,
        "value_head": VALUE_TARGET,
    }
    tensors = policy_tensors(policy, arch, cfg.game)
    return write_policy_checkpoint(Path(cfg.out), tensors, cfg.game, meta)
