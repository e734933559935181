"""``caylus train ppo`` and ``caylus train bc``: self-play training (``training``).

Both need the ``[train]`` extra (torch, Stable-Baselines3, sb3-contrib); without it they
fail at once, saying how to install it. ``--game puerto_rico`` trains Puerto Rico with
``training.puerto_rico`` (PPO; the Caylus-only options are refused by name) and
``training.bc`` (behaviour cloning from a Puerto Rico dataset).
"""

from __future__ import annotations

import shlex
import sys
from pathlib import Path
from typing import Annotated

import typer

from caylus_cli.app import GameOption, _fail, app

train_app = typer.Typer(
    help="Train agents by self-play (PPO) or from a dataset (behaviour cloning).",
    no_args_is_help=True,
)
app.add_typer(train_app, name="train")


def _need_training() -> None:
    try:
        import sb3_contrib  # noqa: F401
        import torch  # noqa: F401
    except ImportError as err:
        _fail(
            f"training needs the [train] extra ({err.name} is missing): "
            'pip install -c constraints.txt -e ".[train]"',
            code=1,
        )


@train_app.command("ppo")
def ppo(
    out: Annotated[str, typer.Option(help="Run directory (new, or the run to --resume).")],
    players: Annotated[int, typer.Option(help="Players per game (2-5).")] = 2,
    steps: Annotated[int, typer.Option(help="Learner decisions to train on.")] = 1_000_000,
    seed: Annotated[int, typer.Option(help="Seed of the games, the network and sampling.")] = 0,
    envs: Annotated[int, typer.Option(help="Games played at once.")] = 128,
    opponents: Annotated[
        str | None,
        typer.Option(
            help="Opponent pool with weights: random, castle, town, economy, self, pool "
            "(promoted checkpoints), or any agent spec, e.g. 'self:0.5,economy:0.3,pool:0.2'."
        ),
    ] = None,
    n_steps: Annotated[int | None, typer.Option(help="Rollout length per game.")] = None,
    batch_size: Annotated[int | None, typer.Option(help="Minibatch size.")] = None,
    n_epochs: Annotated[int | None, typer.Option(help="Passes over each rollout.")] = None,
    learning_rate: Annotated[float | None, typer.Option(help="Adam learning rate.")] = None,
    ent_coef: Annotated[float | None, typer.Option(help="Entropy bonus.")] = None,
    gamma: Annotated[float | None, typer.Option(help="Discount (1: the game's own end).")] = None,
    gae_lambda: Annotated[float | None, typer.Option(help="GAE lambda.")] = None,
    clip_range: Annotated[float | None, typer.Option(help="PPO clip range.")] = None,
    vf_coef: Annotated[float | None, typer.Option(help="Value loss coefficient.")] = None,
    eval_opponents: Annotated[
        str | None,
        typer.Option(
            help="References of the learning curve, from random, castle, town, economy "
            "(--game puerto_rico: its agents, default random,shipper,builder)."
        ),
    ] = None,
    shaping: Annotated[
        float | None,
        typer.Option(help="Shaped prestige-margin reward coefficient (0, the default: off)."),
    ] = None,
    checkpoint_every: Annotated[int | None, typer.Option(help="Steps between checkpoints.")] = None,
    eval_games: Annotated[
        int | None, typer.Option(help="Games per reference in each evaluation (0: none).")
    ] = None,
    gate_games: Annotated[int | None, typer.Option(help="Games of each promotion match.")] = None,
    threads: Annotated[int | None, typer.Option(help="torch CPU threads.")] = None,
    init: Annotated[
        str | None, typer.Option(help="Start from this checkpoint's weights (e.g. from bc).")
    ] = None,
    resume: Annotated[
        bool, typer.Option("--resume", help="Continue the run in --out from its last checkpoint.")
    ] = False,
    algo: Annotated[
        str,
        typer.Option(
            help="maskable (sb3-contrib MaskablePPO, the reference) or cleanrl (the one-file "
            "PPO of training/cleanrl_ppo.py: same network, masks and checkpoints)."
        ),
    ] = "maskable",
    no_progress: Annotated[bool, typer.Option("--no-progress", help="No progress bar.")] = False,
    game: GameOption = "caylus",
) -> None:
    """Train a policy with PPO against an opponent pool; checkpoints in OUT.

    --game puerto_rico trains Puerto Rico: opponents from its agents (random, shipper,
    builder, mcts:SIMS, policy:PATH), self and pool, e.g. 'self:0.5,shipper:0.3,pool:0.2';
    the learning curve against its agents, the league and --init (a Puerto Rico checkpoint)
    as for Caylus; no shaping or cleanrl yet (refused).
    """
    _need_training()
    from training.puerto_rico import check_run_game

    if game == "puerto_rico":
        from training.puerto_rico import config_from_args, train
    else:
        from training.ppo import config_from_args, train

    try:
        check_run_game(out, game)
        cfg = config_from_args(
            out=out,
            players=players,
            steps=steps,
            seed=seed,
            envs=envs,
            opponents=opponents,
            n_steps=n_steps,
            batch_size=batch_size,
            n_epochs=n_epochs,
            learning_rate=learning_rate,
            ent_coef=ent_coef,
            gamma=gamma,
            gae_lambda=gae_lambda,
            clip_range=clip_range,
            vf_coef=vf_coef,
            eval_opponents=eval_opponents,
            shaping=shaping,
            checkpoint_every=checkpoint_every,
            eval_games=eval_games,
            gate_games=gate_games,
            threads=threads,
            init=init,
            algo=algo,
            resume=resume,
            progress=not no_progress,
            command=shlex.join(["caylus", *sys.argv[1:]]),
        )
        last = train(cfg)
    except ValueError as err:
        _fail(str(err))
    typer.echo(f"last checkpoint: {last}")
    typer.echo(f"use it as an agent: policy:{last}")


@train_app.command("bc")
def bc(
    dataset: Annotated[str, typer.Option(help="A dataset directory (caylus dataset generate).")],
    out: Annotated[str, typer.Option(help="Output directory (a new one).")],
    players: Annotated[
        int | None, typer.Option(help="Keep the decisions of games of this player count.")
    ] = None,
    agent: Annotated[
        str | None, typer.Option(help="Keep the decisions of this agent spec only.")
    ] = None,
    epochs: Annotated[int, typer.Option(help="Passes over the dataset.")] = 3,
    batch_size: Annotated[int, typer.Option(help="Minibatch size.")] = 1024,
    learning_rate: Annotated[float, typer.Option(help="Adam learning rate.")] = 1e-3,
    seed: Annotated[int, typer.Option(help="Seed of the initialization and shuffling.")] = 0,
    threads: Annotated[int, typer.Option(help="torch CPU threads.")] = 2,
    no_progress: Annotated[bool, typer.Option("--no-progress", help="No progress bar.")] = False,
    game: GameOption = "caylus",
) -> None:
    """Behaviour cloning: fit the policy network to a dataset's moves (a PPO warm start).

    --game puerto_rico fits the Puerto Rico network (pr-mlp-v1) to a Puerto Rico dataset
    (caylus dataset generate --game puerto_rico); a dataset of the other game is refused.
    """
    _need_training()
    from training.bc import BCConfig, train_bc

    try:
        last = train_bc(
            BCConfig(
                dataset=dataset,
                out=out,
                players=players,
                agent=agent,
                epochs=epochs,
                batch_size=batch_size,
                learning_rate=learning_rate,
                seed=seed,
                threads=threads,
                progress=not no_progress,
                command=shlex.join(["caylus", *sys.argv[1:]]),
                game=game,
            )
        )
    except ValueError as err:
        _fail(str(err))
    flag = "" if game == "caylus" else f" --game {game}"
    typer.echo(f"checkpoint: {last}")
    typer.echo(f"use it as an agent: policy:{last}" + (f" (with{flag})" if flag else ""))
    typer.echo(f"continue with PPO: caylus train ppo{flag} --init {last} --out RUN")


@train_app.command("export")
def export(
    checkpoint: Annotated[str, typer.Argument(help="A checkpoint directory of a run.")],
    out: Annotated[str, typer.Argument(help="The new policy-only checkpoint directory.")],
) -> None:
    """Copy a checkpoint's network (config.json + model.safetensors) to publish or ship it."""
    _need_training()
    from agents.policy import CheckpointError
    from training.checkpoints import export_policy

    try:
        path = export_policy(Path(checkpoint), Path(out))
    except (CheckpointError, ValueError) as err:
        _fail(str(err))
    typer.echo(f"exported: {path} (use it as policy:{path})")
