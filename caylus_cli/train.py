"""``caylus train ppo``, ``caylus train az``, ``caylus train bc`` and ``caylus train export``:
self-play training (``training``) of every game (``--game``).

All need the ``[train]`` extra (torch, Stable-Baselines3, sb3-contrib); without it they fail
at once, saying how to install it. ``caylus train ppo``'s options are the fields of
``training.config.PPOConfig`` and ``caylus train az``'s of ``training.config.AZConfig``
(``caylus_cli.fields``): each setting is declared there once. Bad arguments, a run directory, dataset or checkpoint of
another game are refused before any work (exit code 2), naming what is wrong.
"""

from __future__ import annotations

import json
import shlex
import sys
from pathlib import Path
from typing import Annotated, Any

import typer

from caylus_cli.app import GameOption, ProgressOption, _fail, app
from caylus_cli.fields import from_fields
from caylus_env.core.registry import DEFAULT_GAME
from training.config import AZConfig, PPOConfig

train_app = typer.Typer(
    help="Train agents by self-play (PPO; search-distilled, Gumbel AlphaZero) or from a "
    "dataset (behaviour cloning).",
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
@from_fields(PPOConfig, shared={"progress": ProgressOption, "game": GameOption})
def ppo(values: dict[str, Any]) -> None:
    """Train a policy of --game with PPO against an opponent pool; checkpoints in OUT."""
    _need_training()
    from training.ppo import config_from_args, train
    from training.runs import check_run_game

    out, game = values["out"], values["game"]
    try:
        check_run_game(out, game)
        cfg = config_from_args(
            **{**values, "arch": _arch(values["arch"])},
            command=shlex.join([str(app.info.name), *sys.argv[1:]]),
        )
        last = train(cfg)
    except ValueError as err:
        _fail(str(err))
    typer.echo(f"last checkpoint: {last}")
    typer.echo(f"use it as an agent: policy:{last} (--game {game})")


@train_app.command("az")
@from_fields(AZConfig, shared={"progress": ProgressOption, "game": GameOption})
def az(values: dict[str, Any]) -> None:
    """Search-distilled self-play (Gumbel AlphaZero) of --game: each generation plays puct
    self-play with a Gumbel root over the best network, fits a copy to the improved policies
    and rank returns of the latest generations, and promotes it after a gating match;
    networks, curve and state in OUT (resumable with --resume)."""
    _need_training()
    from training.az import train_az
    from training.runs import check_run_game

    try:
        check_run_game(values["out"], values["game"])
        cfg = AZConfig(
            **{**values, "arch": _arch(values["arch"])},
            command=shlex.join([str(app.info.name), *sys.argv[1:]]),
        )
        result = train_az(cfg)
    except ValueError as err:
        _fail(str(err))
    typer.echo(f"best network after generation {result.generations}: {result.best}")
    typer.echo(
        f"use it as an agent: policy:{result.best} or puct:200:ckpt={result.best} "
        f"(--game {cfg.game})"
    )


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
