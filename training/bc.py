"""Behaviour cloning: ``caylus train bc``, a warm start for PPO.

Fits the pieces-v1 policy (the very network ``caylus train ppo`` trains, built by
Stable-Baselines3's ``MaskableActorCriticPolicy``) to the moves of a self-play dataset
(``caylus dataset generate``): cross-entropy of the stored action under the legal mask,
plus half the squared error of the value head against the acting seat's final return (so
PPO starts with a critic too). Batches come from ``caylus_env.datasets.DecisionDataset``,
which decodes the stored states into observations with the env's own encoder; a seeded
shuffle buffer (``SHUFFLE_ROWS`` decisions) breaks the order of the games.

The result is a checkpoint directory (``config.json`` + ``model.safetensors``, see
``agents.policy``): play it as ``policy:OUT`` or continue with
``caylus train ppo --init OUT``.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

#: Decisions held and shuffled together before they are cut into minibatches.
SHUFFLE_ROWS = 65_536


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


def _shuffled(batches: Any, batch_size: int, rng: np.random.Generator) -> Any:
    """Minibatches drawn from a shuffle buffer of ``SHUFFLE_ROWS`` decisions."""
    held: list[dict[str, np.ndarray]] = []
    rows = 0

    def flush(parts: list[dict[str, np.ndarray]]) -> Any:
        block = {k: np.concatenate([p[k] for p in parts]) for k in parts[0]}
        order = rng.permutation(len(block["action"]))
        for i in range(0, len(order), batch_size):
            idx = order[i : i + batch_size]
            yield {k: v[idx] for k, v in block.items()}

    for b in batches:
        held.append({k: b[k] for k in ("obs", "mask", "action", "ret")})
        rows += len(b["action"])
        if rows >= SHUFFLE_ROWS:
            yield from flush(held)
            held, rows = [], 0
    if held:
        yield from flush(held)


def train_bc(cfg: BCConfig) -> Path:
    """Fit the policy to the dataset; returns the checkpoint directory.

    Raises:
        ValueError: for bad arguments, an existing output, or a dataset that cannot be
            read or has no decisions after the filters (before any training).
    """
    from agents.policy import Arch
    from caylus_env.datasets import iter_batches, read_manifest

    if cfg.epochs < 1 or cfg.batch_size < 1 or cfg.threads < 1:
        raise ValueError("--epochs, --batch-size and --threads must be >= 1")
    if not 0 < cfg.learning_rate < 1:
        raise ValueError(f"--learning-rate must be in (0, 1), got {cfg.learning_rate}")
    if Path(cfg.out).exists():
        raise ValueError(f"--out {cfg.out} exists; choose a new directory")
    manifest = read_manifest(cfg.dataset)
    filters = {
        "players": cfg.players,
        "agents": cfg.agent,
        "policy_targets": False,
    }
    first = next(iter(iter_batches(cfg.dataset, 1, **filters)), None)
    if first is None:
        raise ValueError(f"dataset {cfg.dataset}: no decisions match the filters {filters}")

    import torch
    from gymnasium import spaces
    from sb3_contrib.common.maskable.policies import MaskableActorCriticPolicy

    from caylus_env.engine.actions import NUM_ACTIONS
    from caylus_env.observation import BOUNDS, OBS_SIZE
    from training.checkpoints import write_policy_checkpoint
    from training.networks import policy_kwargs, policy_tensors

    torch.set_num_threads(cfg.threads)
    torch.manual_seed(cfg.seed)
    arch = Arch()
    policy = MaskableActorCriticPolicy(
        spaces.Box(0.0, BOUNDS, (OBS_SIZE,), np.float32),
        spaces.Discrete(NUM_ACTIONS),
        lambda _: cfg.learning_rate,
        **policy_kwargs(arch),
    )
    optimizer = torch.optim.Adam(policy.parameters(), lr=cfg.learning_rate)
    rng = np.random.default_rng(cfg.seed)
    total = sum(int(s.get("decisions", 0)) for s in manifest.get("shards", [])) or None
    bar = None
    if cfg.progress:
        from tqdm import tqdm

        bar = tqdm(total=(total or 0) * cfg.epochs or None, unit="dec", desc="train bc")
    seen = 0
    accuracy = 0.0
    for _ in range(cfg.epochs):
        batches = iter_batches(cfg.dataset, 4096, **filters)
        for mb in _shuffled(batches, cfg.batch_size, rng):
            obs = torch.from_numpy(mb["obs"])
            actions = torch.from_numpy(mb["action"])
            values, log_prob, _ = policy.evaluate_actions(
                obs, actions, action_masks=mb["mask"].astype(np.bool_)
            )
            ret = torch.from_numpy(mb["ret"].astype(np.float32))
            loss = -log_prob.mean() + 0.5 * torch.nn.functional.mse_loss(values.flatten(), ret)
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            seen += len(actions)
            with torch.no_grad():
                accuracy = 0.98 * accuracy + 0.02 * float(torch.exp(log_prob).mean())
            if bar is not None:
                bar.update(len(actions))
                bar.set_postfix(loss=f"{float(loss):.3f}", p_action=f"{accuracy:.3f}")
    if bar is not None:
        bar.close()
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
    }
    return write_policy_checkpoint(Path(cfg.out), policy_tensors(policy), meta)
