"""A training run's directory and what follows each checkpoint, for both trainers.

Both PPO trainers (``training.ppo``: sb3-contrib's ``MaskablePPO``; ``training.cleanrl_ppo``:
the one-file loop) share this: the run directory (``prepare_run``: a new one, or the same
arguments to ``--resume``; another game's refused naming both), the warm start
(``load_init_tensors``), the metadata every checkpoint carries (``checkpoint_meta``), and
what follows a checkpoint (``settle_checkpoint``: its evaluation into the learning curve and
its gate into the league, each part skipped when already on disk).
"""

from __future__ import annotations

import csv
import io
import math
import os
import shlex
import sys
from dataclasses import asdict
from pathlib import Path
from typing import Any

import numpy as np

from agents.policy import short_repr
from caylus_env.core.fileio import atomic_write_json, directory_problem
from caylus_env.core.registry import game_of, game_spec
from training.checkpoints import MAX_RUN_FILE_BYTES, read_run_file
from training.config import RESUMABLE_CHANGES, PPOConfig

#: The columns of ``curve.csv``.
CURVE_FIELDS = ("step", "opponent", "games", "wins", "ties", "losses", "score", "low", "high")
#: The evaluation matches' seed, apart from the training games' (``seed + EVAL_SEED_OFFSET``).
EVAL_SEED_OFFSET = 1_000_003


RUN_JSON = "run.json"


def read_run_json(out: str | Path) -> dict[str, Any] | None:
    """``run.json`` of the run directory ``out`` (``None`` when there is none).

    Raises:
        ValueError: for a file that is not a regular file, not JSON, or not an object.
    """
    saved = read_run_file(out, RUN_JSON)
    if saved is not None and not isinstance(saved, dict):
        raise ValueError(f"{Path(out) / RUN_JSON}: must hold a JSON object (a run's arguments)")
    if saved is not None and not isinstance(saved.get("game", ""), str):
        raise ValueError(f"{Path(out) / RUN_JSON}: game must be a game's name")
    return saved


def check_run_game(out: str | Path, game: str) -> None:
    """Refuse a run directory of another game before anything compares its arguments.

    Raises:
        ValueError: naming the run's game and the one asked for (``--game``), or a
            ``run.json`` that cannot be read.
    """
    saved = read_run_json(out) if Path(out).is_dir() else None
    if saved is not None:
        theirs = game_of(saved)
        if theirs != game:
            raise ValueError(
                f"{out} holds a training run of game {short_repr(theirs)}, not {game!r}: pass "
                f"--game {short_repr(theirs)} to resume it, or choose another --out"
            )


def prepare_run(cfg: PPOConfig) -> Path:
    """Create or check ``cfg.out``: a new run needs a new directory (or an empty one); a
    resumed run needs the same game and arguments as the first (``steps`` may grow, and the
    directory may have moved: ``out`` may differ). ``run.json`` holds the run's arguments:
    the source of truth of a resumed run. Call it after ``cfg.check()``: nothing is created
    for arguments that are refused.

    Raises:
        ValueError: naming the differing arguments, or saying how to resume.
    """
    out = Path(cfg.out)
    problem = directory_problem(out)
    if problem is not None:
        raise ValueError(f"--out {problem}")
    check_run_game(cfg.out, cfg.game)
    saved = read_run_json(out) if out.is_dir() else None
    if saved is not None:
        if not cfg.resume:
            raise ValueError(
                f"{out} already holds a training run: add --resume to continue it, or "
                "choose another --out"
            )
        saved["game"] = game_of(saved)  # a run.json from before games were named
        if cfg.init is None and saved.get("init") is not None:
            # A warm-started run resumes without --init (which only starts runs): its warm
            # start is in run.json, and a run killed before its first checkpoint needs it.
            cfg.init = saved["init"]
        ours = asdict(cfg)
        differ = sorted(
            k for k in ours if k not in RESUMABLE_CHANGES and saved.get(k) != ours.get(k)
        )
        if differ:
            detail = ", ".join(
                f"{k}: {short_repr(saved.get(k))} then, {short_repr(ours.get(k))} now"
                for k in differ
            )
            raise ValueError(f"--resume with other arguments than the run in {out}: {detail}")
    else:
        if cfg.resume:
            raise ValueError(f"--resume: {out} holds no training run (no run.json)")
        if out.exists() and any(out.iterdir()):
            raise ValueError(f"--out {out} exists and is not empty; choose a new directory")
        out.mkdir(parents=True, exist_ok=True)
        atomic_write_json(out / RUN_JSON, asdict(cfg))
    return out


def checkpoint_meta(cfg: PPOConfig, parent: str | None, algorithm: str) -> dict[str, Any]:
    """The ``config.json`` fields of this run's checkpoints (besides the writer's)."""
    return {
        "arch": cfg.arch,
        "num_players": list(cfg.counts),
        "seed": cfg.seed,
        "parent": parent,
        "command": cfg.command or shlex.join(sys.argv),
        "opponents": cfg.opponents,
        "algorithm": algorithm,
    }


def load_init_tensors(module: Any, path: str, game: str, grow: bool = False) -> None:
    """Load the weights of ``game``'s checkpoint ``path`` into ``module`` (an SB3 policy or
    ``training.networks.ActorCritic`` of the same network).

    With ``grow``, a checkpoint trained on an older action space that this build's extends
    (``agents.policy.trained_actions``: blocks appended by a rules fix) is accepted too: its
    policy head grows to this build's actions, the added ones with zero weights and the mean
    bias of the trained ones, so that training can learn them (a ``policy:PATH`` agent instead
    gives them a logit far below every other, ``agents.policy.ADDED_ACTION_LOGIT``). Without
    it such a checkpoint is refused (PPO resumes its optimizer, whose moments have the old
    head's shape).

    Raises:
        ValueError: for a checkpoint of another game, version or network (naming what
            differs), or a tensor that does not fit the module.
    """
    import hashlib

    import torch

    from agents.policy import WEIGHTS_FILE, CheckpointError, PolicyNet, read_file
    from training.checkpoints import load_arrays_bytes

    try:
        net = PolicyNet(path, game, exact=not grow)  # versions, checksum, shapes, finite logits
        raw = read_file(path, WEIGHTS_FILE)
        if hashlib.sha256(raw).hexdigest() != net.config["sha256"].get(WEIGHTS_FILE):
            raise CheckpointError(f"{Path(path) / WEIGHTS_FILE}: changed while it was read")
        tensors = load_arrays_bytes(raw, Path(path) / WEIGHTS_FILE)
    except CheckpointError as err:
        raise ValueError(f"--init: {err}") from None
    actions = int(game_spec(game).engine().NUM_ACTIONS)
    bias = tensors.get("action_net.bias")
    if grow and bias is not None and bias.shape[0] < actions:
        missing = actions - bias.shape[0]
        weight = tensors["action_net.weight"]  # torch's (outputs, inputs)
        tensors["action_net.weight"] = np.concatenate(
            [weight, np.zeros((missing, weight.shape[1]), weight.dtype)]
        )
        tensors["action_net.bias"] = np.concatenate(
            [bias, np.full(missing, bias.mean(), bias.dtype)]
        )
    state = module.state_dict()
    for name, value in tensors.items():
        if name not in state or tuple(state[name].shape) != value.shape:
            raise ValueError(
                f"--init {path}: tensor {name} {value.shape} does not fit this network's "
                f"{tuple(state[name].shape) if name in state else 'nothing'} (another --arch?)"
            )
        state[name] = torch.from_numpy(value.copy())
    module.load_state_dict(state)


# ---------------------------------------------------------------------------------------
# After each checkpoint: the learning curve and the league
# ---------------------------------------------------------------------------------------
def settle_checkpoint(
    cfg: PPOConfig, out: Path, ckpt: Path, step: int, games: Any, logger: Any, bar: Any = None
) -> None:
    """What follows a checkpoint: its evaluation (learning curve), its gate (league) and
    the opponent pool's new checkpoints. Each part is skipped when already on disk, so a
    run killed in between redoes exactly the missing parts on ``--resume``."""
    from training.league import League

    def say(text: str) -> None:
        """A status line: through the bar's console, or printed when the trainer shows
        progress without a bar (``--algo cleanrl``); nothing with ``--no-progress``."""
        if bar is not None:
            bar.console.print(text, highlight=False)
        elif cfg.progress:
            print(text, flush=True)

    done_steps = {int(r["step"]) for r in read_curve(out / "curve.csv")}
    if step not in done_steps:
        if cfg.eval_games:
            say(
                f"step {step:,}: checkpoint {ckpt.name} written; evaluating it: "
                f"{cfg.eval_games} games against each of {cfg.eval_opponents}..."
            )
        for m in evaluate(out, ckpt, step, cfg, logger):
            say(
                f"step {step:,}: vs {m.opponent} score {m.score:.3f} "
                f"[{m.low:.3f}, {m.high:.3f}] over {m.games} games"
            )
    league = League.load(out)
    if not any(Path(d["checkpoint"]).name == ckpt.name for d in league.decisions):
        if league.best is not None:
            say(
                f"step {step:,}: promotion match: {cfg.gate_games} games against the best "
                f"checkpoint so far, {Path(league.best).name}..."
            )
        else:
            say(
                f"step {step:,}: no promotion match: the first checkpoint has no earlier one "
                "to play, so it becomes the best and seeds the opponent pool (its scores "
                "against the references are the lines above)"
            )
        d = league.gate(ckpt, step, cfg.gate_games, cfg.counts, cfg.seed, cfg.game)
        league.save(out)
        logger.record("league/promoted", float(d["decision"].startswith("promoted")))
        say(f"step {step:,}: {d['decision']}")
    games.set_checkpoints(league.promoted)


def read_curve(path: Path) -> list[dict[str, str]]:
    """The rows of a run's ``curve.csv`` (none without the file), read as a regular file of
    the run directory.

    Raises:
        ValueError: naming the file when it is not a learning curve (a column or a step
            that is not one).
    """
    from agents.policy import read_file

    if not os.path.lexists(path):
        return []
    text = read_file(path.parent, path.name, MAX_RUN_FILE_BYTES).decode("utf-8", "replace")
    rows = list(csv.DictReader(io.StringIO(text, newline="")))
    for i, r in enumerate(rows):
        if set(r) != set(CURVE_FIELDS) or not str(r["step"]).isdigit():
            raise ValueError(f"{path}: row {i + 1} is not a learning curve's ({CURVE_FIELDS})")
    return rows


def evaluate(out: Path, ckpt: Path, step: int, cfg: PPOConfig, logger: Any) -> list[Any]:
    """Play the checkpoint against each reference; append to ``curve.csv`` and replot.

    A run of several player counts plays ``eval_games`` against each reference at each count,
    one curve each, named ``REFERENCE@Np`` (a policy for every count is judged at every count).
    """
    from dataclasses import replace

    from training.league import play_checkpoint

    if cfg.eval_games == 0:
        return []
    results = []
    seed = cfg.seed + EVAL_SEED_OFFSET
    for ref in str(cfg.eval_opponents).split(","):
        for n in cfg.counts:
            m = play_checkpoint(ckpt, ref.strip(), cfg.eval_games, n, seed, cfg.game)
            if len(cfg.counts) > 1:
                m = replace(m, opponent=f"{m.opponent}@{n}p")
            results.append(m)
            logger.record(f"eval/score_{m.opponent}", m.score)
    path = out / "curve.csv"
    rows = [r for r in read_curve(path) if int(r["step"]) < step]
    rows += [{"step": step, **{k: getattr(m, k) for k in CURVE_FIELDS[1:]}} for m in results]
    tmp = path.with_suffix(".csv.tmp")
    with open(tmp, "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=CURVE_FIELDS)
        w.writeheader()
        w.writerows(rows)
    os.replace(tmp, path)
    plot_curve(path, out / "learning_curve.png", game_spec(cfg.game).title)
    return results


#: References side by side in a learning curve's legend (one row below the panels per this
#: many).
LEGEND_COLUMNS = 5


def curve_panels(
    rows: list[dict[str, str]], x: str
) -> dict[str, dict[str, list[tuple[int, float, float, float]]]]:
    """The learning curve's points, ``(x, score, low, high)``, by panel and reference: a
    reference named ``NAME@Np`` (one row per player count, `evaluate`) goes to panel ``Np``
    as ``NAME``; any other name to the one panel ``""``. Panels in order of player count,
    references in order of first appearance, points by ``x``."""
    panels: dict[str, dict[str, list[tuple[int, float, float, float]]]] = {}
    for r in rows:
        name, sep, count = r["opponent"].rpartition("@")
        if not (sep and count.endswith("p") and count[:-1].isdigit()):
            name, count = r["opponent"], ""
        point = (int(r[x]), float(r["score"]), float(r["low"]), float(r["high"]))
        panels.setdefault(count, {}).setdefault(name, []).append(point)
    ordered = sorted(panels, key=lambda c: int(c[:-1]) if c else 0)
    return {c: {n: sorted(p) for n, p in panels[c].items()} for c in ordered}


def plot_curve(
    csv_path: Path,
    png: Path,
    title: str = "",
    x: str = "step",
    xlabel: str = "training steps (learner decisions)",
) -> None:
    """The learning curve: each reference's score (with its Wilson interval) by the column
    ``x`` (PPO's steps; ``training.az``'s generations), one panel per player count
    (`curve_panels`) and one colour per reference in every panel, the legend below them (a
    single axis of a dozen series cycled matplotlib's ten colours and hid the points)."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    from matplotlib.ticker import MaxNLocator

    with open(csv_path, newline="") as f:
        panels = curve_panels(list(csv.DictReader(f)), x)
    names = list(dict.fromkeys(n for series in panels.values() for n in series))
    styles = {
        n: {"color": f"C{i % 10}", "linestyle": ("-", "--", ":")[i // 10 % 3]}
        for i, n in enumerate(names)
    }
    count = max(1, len(panels))
    fig, axes = plt.subplots(1, count, figsize=(2.0 + 3.0 * count, 4.2), sharey=True, squeeze=False)
    for ax, (players, series) in zip(axes[0], panels.items(), strict=False):
        for name, pts in series.items():
            xs, y, lo, hi = (np.array(v) for v in zip(*pts, strict=True))
            ax.plot(xs, y, marker="o", ms=3, **styles[name])
            ax.fill_between(xs, lo, hi, alpha=0.15, color=styles[name]["color"])
        ax.axhline(0.5, color="grey", lw=0.8, ls="--")
        ax.set_ylim(0, 1)
        ax.grid(alpha=0.3)
        if players:
            ax.set_title(f"{players[:-1]} players", fontsize=10)
        ax.set_xlabel(xlabel if count == 1 else x)
        ax.xaxis.set_major_locator(MaxNLocator(integer=True))
    axes[0][0].set_ylabel("score (1 first, 0 last), greedy policy")
    handles = [plt.Line2D([], [], marker="o", ms=3, **styles[n], label=f"vs {n}") for n in names]
    columns = min(len(names), LEGEND_COLUMNS)
    fig.legend(handles=handles, loc="lower center", ncol=max(columns, 1), frameon=False)
    heading = f"{title + ': ' if title else ''}learning curve (Wilson 95% intervals)"
    fig.suptitle(heading if count == 1 else f"{heading}; x: {xlabel}", fontsize=10)
    legend_rows = math.ceil(len(names) / LEGEND_COLUMNS)
    fig.tight_layout(rect=(0, 0.06 * legend_rows + 0.02, 1, 1))
    tmp = png.with_suffix(".tmp.png")
    fig.savefig(tmp, dpi=110)
    plt.close(fig)
    os.replace(tmp, png)


__all__ = [
    "CURVE_FIELDS",
    "check_run_game",
    "checkpoint_meta",
    "curve_panels",
    "evaluate",
    "load_init_tensors",
    "plot_curve",
    "prepare_run",
    "read_run_file",
    "read_run_json",
    "settle_checkpoint",
]
