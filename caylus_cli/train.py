"""``caylus train ppo``, ``caylus train bc`` and ``caylus train export``: self-play training
(``training``) of every game (``--game``).

All need the ``[train]`` extra (torch, Stable-Baselines3, sb3-contrib); without it they fail
at once, saying how to install it. Bad arguments, a run directory, dataset or checkpoint of
another game are refused before any work (exit code 2), naming what is wrong.
"""

from __future__ import annotations

import json
import shlex
import sys
from pathlib import Path
from typing import Annotated

import typer

from caylus_cli.app import GameOption, ProgressOption, _fail, app
from caylus_env.core.registry import DEFAULT_GAME
from training.defaults import BATCH_SIZE_RULE, PPO_DEFAULTS

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
    players: Annotated[
        str | None,
        typer.Option(
            help="Players per game: N, or several as A-B or A,B (one policy for every count: "
            "the games take the counts in turn; evaluated and gated at each); default: the "
            "game's default."
        ),
    ] = None,
    steps: Annotated[int, typer.Option(help="Learner decisions to train on.")] = int(
        PPO_DEFAULTS["steps"]
    ),
    seed: Annotated[int, typer.Option(help="Seed of the games, the network and sampling.")] = 0,
    envs: Annotated[int, typer.Option(help="Games played at once.")] = int(PPO_DEFAULTS["envs"]),
    opponents: Annotated[
        str | None,
        typer.Option(
            help="Opponent pool with weights: random, the game's scripted bots, self, pool "
            "(promoted checkpoints), or any agent spec of the game, e.g. "
            "'self:0.5,random:0.3,pool:0.2' (default: self, random, the scripted bots, pool)."
        ),
    ] = None,
    n_steps: Annotated[
        int,
        typer.Option(
            help="Rollout length per game (a rollout is n_steps * envs samples).",
        ),
    ] = int(PPO_DEFAULTS["n_steps"]),
    batch_size: Annotated[
        int | None,
        typer.Option(
            help="Minibatch size; must divide the rollout n_steps * envs.",
            show_default=BATCH_SIZE_RULE,
        ),
    ] = None,
    n_epochs: Annotated[
        int,
        typer.Option(help="Passes over each rollout."),
    ] = int(PPO_DEFAULTS["n_epochs"]),
    learning_rate: Annotated[
        float,
        typer.Option(help="Adam learning rate."),
    ] = PPO_DEFAULTS["learning_rate"],
    ent_coef: Annotated[float, typer.Option(help="Entropy bonus.")] = PPO_DEFAULTS["ent_coef"],
    gamma: Annotated[
        float,
        typer.Option(help="Discount (1: the game's own end)."),
    ] = PPO_DEFAULTS["gamma"],
    gae_lambda: Annotated[float, typer.Option(help="GAE lambda.")] = PPO_DEFAULTS["gae_lambda"],
    clip_range: Annotated[float, typer.Option(help="PPO clip range.")] = PPO_DEFAULTS["clip_range"],
    vf_coef: Annotated[
        float,
        typer.Option(help="Value loss coefficient."),
    ] = PPO_DEFAULTS["vf_coef"],
    eval_opponents: Annotated[
        str | None,
        typer.Option(
            help="References of the learning curve: agent specs of the game, comma-separated "
            "(default: random and the game's scripted bots)."
        ),
    ] = None,
    shaping: Annotated[
        float,
        typer.Option(help="Shaped score-margin reward coefficient (0: off)."),
    ] = PPO_DEFAULTS["shaping"],
    checkpoint_every: Annotated[
        int,
        typer.Option(
            help="Steps between checkpoints (rounded up to whole rollouts).",
        ),
    ] = int(PPO_DEFAULTS["checkpoint_every"]),
    eval_games: Annotated[
        int,
        typer.Option(
            help="Games per reference in each evaluation (0: none).",
        ),
    ] = int(PPO_DEFAULTS["eval_games"]),
    gate_games: Annotated[
        int,
        typer.Option(help="Games of each promotion match."),
    ] = int(PPO_DEFAULTS["gate_games"]),
    threads: Annotated[int, typer.Option(help="torch CPU threads.")] = int(PPO_DEFAULTS["threads"]),
    init: Annotated[
        str | None,
        typer.Option(
            help="Start from this checkpoint's weights (e.g. from bc; default: a new network)."
        ),
    ] = None,
    arch: Annotated[
        str | None,
        typer.Option(
            help='The network as JSON, e.g. \'{"name": "mlp-v1", "layers": [256, 256]}\' '
            "(default: pieces-v1)."
        ),
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
    progress: ProgressOption = True,
    game: GameOption = DEFAULT_GAME,
) -> None:
    """Train a policy of --game with PPO against an opponent pool; checkpoints in OUT."""
    _need_training()
    from training.ppo import config_from_args, train
    from training.runs import check_run_game

    try:
        check_run_game(out, game)
        cfg = config_from_args(
            out=out,
            game=game,
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
            arch=_arch(arch),
            algo=algo,
            resume=resume,
            progress=progress,
            command=shlex.join([str(app.info.name), *sys.argv[1:]]),
        )
        last = train(cfg)
    except ValueError as err:
        _fail(str(err))
    typer.echo(f"last checkpoint: {last}")
    typer.echo(f"use it as an agent: policy:{last} (--game {game})")


def _arch(text: str | None) -> dict | None:
    """``--arch``'s JSON object (None: the default network).

    Raises:
        ValueError: for text that is not a JSON object.
    """
    if text is None:
        return None
    try:
        value = json.loads(text)
    except ValueError as err:
        raise ValueError(f"--arch must be a JSON object ({err}), got {text!r}") from None
    if not isinstance(value, dict):
        raise ValueError(f"--arch must be a JSON object, got {text!r}")
    return value


@train_app.command("bc")
def bc(
    dataset: Annotated[str, typer.Option(help="A dataset directory (caylus dataset generate).")],
    out: Annotated[str, typer.Option(help="Output directory (a new one).")],
    players: Annotated[
        int | None,
        typer.Option(
            help="Keep the decisions of games of this player count (default: every count)."
        ),
    ] = None,
    agent: Annotated[
        str | None,
        typer.Option(help="Keep the decisions of this agent spec only (default: every agent)."),
    ] = None,
    epochs: Annotated[int, typer.Option(help="Passes over the dataset.")] = 3,
    batch_size: Annotated[int, typer.Option(help="Minibatch size.")] = 1024,
    learning_rate: Annotated[float, typer.Option(help="Adam learning rate.")] = 1e-3,
    seed: Annotated[int, typer.Option(help="Seed of the initialization and shuffling.")] = 0,
    threads: Annotated[int, typer.Option(help="torch CPU threads.")] = 2,
    arch: Annotated[
        str | None, typer.Option(help="The network as JSON (default: pieces-v1).")
    ] = None,
    progress: ProgressOption = True,
    game: GameOption = DEFAULT_GAME,
) -> None:
    """Behaviour cloning: fit the policy network of --game to a dataset's moves (a PPO warm
    start); a dataset of another game is refused, naming both."""
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
                progress=progress,
                command=shlex.join([str(app.info.name), *sys.argv[1:]]),
                game=game,
                arch=_arch(arch),
            )
        )
    except ValueError as err:
        _fail(str(err))
    typer.echo(f"checkpoint: {last}")
    typer.echo(f"use it as an agent: policy:{last} (--game {game})")
    typer.echo(f"continue with PPO: caylus train ppo --game {game} --init {last} --out RUN")


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


@train_app.command("match")
def match(
    checkpoint: Annotated[
        str, typer.Argument(help="A checkpoint directory, or a shipped checkpoint's name.")
    ],
    opponents: Annotated[
        str,
        typer.Option(
            help="Comma-separated agent specs of the game, each played in every other seat "
            "(default: random and the game's scripted bots)."
        ),
    ] = "",
    players: Annotated[
        str, typer.Option(help="Player counts: N, A-B or A,B (e.g. 2-5); one match each.")
    ] = "",
    games: Annotated[
        int, typer.Option(help="Games per opponent and count (rounded up to whole blocks).")
    ] = 600,
    seed: Annotated[int, typer.Option(help="Seed of the games (fresh seeds: a new number).")] = 0,
    game: GameOption = DEFAULT_GAME,
) -> None:
    """Play a checkpoint (greedy) in one seat against an opponent in every other seat.

    The games are played in rotated blocks (seats rotated, the same setup for the block; with
    2 players, pairs with the seats swapped) as the learning curve plays them; a game scores
    (rank reward + 1) / 2, 1 first and 0 last. Prints one row per opponent and player count
    with the Wilson 95% interval. Needs no [train] extra.
    """
    from agents.policy import SHIPPED_DIR, load_net, shipped_checkpoints
    from agents.registry import make_agent
    from agents.selfplay.generate import parse_players
    from caylus_env.core.registry import game_spec
    from training.config import default_eval_opponents
    from training.league import MAX_MATCH_GAMES, play_checkpoint

    # every argument is checked before the table's first line: a refusal prints nothing else
    spec = game_spec(game)
    try:
        counts = parse_players(players or str(spec.default_players), spec.name)
    except ValueError as err:
        _fail(f"invalid value for --players: {err}")
    if not 1 <= games <= MAX_MATCH_GAMES:
        _fail(
            f"--games must be >= 1 and at most {MAX_MATCH_GAMES} (a match plays its games at "
            f"once), got {games}"
        )
    if seed < 0:
        _fail(f"--seed must be >= 0, got {seed}")
    refs = [r.strip() for r in (opponents or default_eval_opponents(spec.name)).split(",")]
    if any(not r for r in refs):
        _fail(f"--opponents must be a comma-separated list of agent specs, got {opponents!r}")
    path = Path(checkpoint)
    if not path.exists() and checkpoint in shipped_checkpoints():
        path = SHIPPED_DIR / checkpoint
    try:
        load_net(path, spec.name)  # refuse a bad checkpoint or another game's before any game
    except ValueError as err:
        _fail(str(err))
    for ref in refs:
        try:
            make_agent(ref, spec.name)  # refuse an unknown opponent likewise
        except ValueError as err:
            _fail(f"invalid value for --opponents: {err}")
    typer.echo(f"# {checkpoint} (greedy) against each opponent, {spec.title}, seed {seed}")
    typer.echo("")
    typer.echo("| opponent | players | games | W-T-L | score | 95% interval |")
    typer.echo("|---|---:|---:|---|---:|---|")
    try:
        for ref in refs:
            for n in counts:
                m = play_checkpoint(path, ref, games, n, seed, spec.name)
                typer.echo(
                    f"| {ref} | {n} | {m.games} | {m.wins}-{m.ties}-{m.losses} | "
                    f"{m.score:.3f} | [{m.low:.3f}, {m.high:.3f}] |"
                )
    except ValueError as err:
        _fail(f"match failed: {err}", code=1)
