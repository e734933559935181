"""``caylus train az --game G``: self-play trained on search targets (Gumbel AlphaZero), for
every game.

A run is a sequence of *generations*. Generation ``g`` (from 1):

1. **self-play**: ``games`` games in which every seat is ``puct:SIMS:gumbel=M:ckpt=BEST``
   (``agents.puct``): at the root Gumbel-top-``M`` sampling from the agent's seeded stream and
   sequential halving of the simulations over the sampled moves, PUCT with max^n per-seat
   values below it, hidden information only through the game's ``determinize``; the move is
   the halving's winner (the Gumbel noise is the exploration). The games are a self-play
   dataset (``caylus dataset generate --policy-targets``, ``agents.selfplay``), played by the
   tournament's backends: local worker processes, or Ray tasks on a cluster (``--backend
   ray``), the same games either way. The stored policy target of each decision is the
   search's improved policy ``softmax(logit + sigma(completedQ))`` over the legal moves
   (``action_distribution()`` of the Gumbel root), not its visit counts. Beside them,
   ``league_games`` *league games*: the same search in half the seats, the generation's
   league opponent (``--league``, one per generation in turn: by default the game's scripted
   bots) in the others, so the networks keep meeting play unlike their own (self-play alone
   narrows: the first Caylus run's policy loss rose while its value loss fell, and it lost
   ground against every scripted bot); the learner reads only the search's decisions of
   those games;
2. **learning**: a copy of the learner's latest network (generation ``g - 1``'s, whether the
   gate promoted it or not: the learner carries on, as AlphaGo Zero's optimizer does, and the
   gate only decides which network plays the self-play) is fitted to the *replay window*
   (the ``window`` latest generations' self-play and league games): cross-entropy of its
   masked policy against the improved policy plus ``value_weight`` times the squared error
   of its value head against the acting seat's final rank return (``ret``: the reward
   ``puct`` values finished games with), plus ``anchor_weight`` times the KL divergence from generation 0's
   policy to the learner's on every learned position (an anchor to the ``--init`` network;
   none by default), Adam, ``epochs`` passes, minibatches drawn from a seeded shuffle
   buffer (``training.bc``);
3. **gating**: the candidate (greedy) plays a match of ``gate_games`` games against the best
   (greedy) in every other seat, in rotated blocks at every player count
   (``training.league.play_checkpoint_counts``); it becomes the best when it scores at least
   ``gate_score`` (AlphaGo Zero's 0.55) *and* it passes the **guard**: against each guard
   reference (``--guard``, by default the game's scripted bots), ``guard_games`` games split
   between the counts, on new setups every generation that the best plays too, do not show
   it losing more than ``guard_margin`` against the best (`guard_verdict`: paired by game,
   one-sided 95%). A candidate can beat the best head to head by chance, or by exploiting
   it, and still play worse against everybody else: the first Caylus run promoted such a
   one. A rejected candidate is kept on disk and trained on by the next generation's
   learner, whose self-play the same best network plays on new seeds (a learner restarted
   from the best after each rejection would keep every candidate
   within ``epochs`` passes of it, and never beat a best that needs more);
4. **evaluation** (every ``eval_every`` generations and at the last): the best network
   (greedy, no search) against each reference in every other seat, ``eval_games`` games per
   reference and count, the same setups every time; the rows go to ``curve.csv`` and
   ``learning_curve.png``.

Generation 0 is the start: the ``--init`` network (any checkpoint of the game, e.g. a shipped
``ppo-*``) or a new one of ``--arch``, seeded.

**The run directory.** ``run.json`` holds the arguments (`training.config.AZConfig`);
``nets/gen-NNNNNN/`` every generation's network (a policy checkpoint: ``config.json`` +
``model.safetensors``; it plays as ``policy:PATH`` and guides ``puct:...:ckpt=PATH``),
``selfplay/gen-NNNNNN/`` its self-play dataset, ``league/gen-NNNNNN/`` its league games,
``state.json`` the finished generations (what each did, the best network, the guard scores),
``curve.csv`` and ``learning_curve.png`` the learning curve.
``state.json`` is rewritten atomically when a generation ends, so ``--resume`` after a
``kill -9`` loses only the generation in flight: its self-play resumes from its finished
shards (the dataset's ledger), its learning and gating are redone. Everything a resume reads
is checked first (bounded reads of regular files, every field, the best network's checksums);
a refusal changes nothing.

**Determinism.** Every random choice derives from the master seed (`derive_seed`): the
self-play and league games' seeds (the dataset schedule's, per generation), the new network,
the learner's shuffle and initialization, the gating and guard setups (per generation) and
the evaluation's (the same every time). A game's moves do not depend on how many workers
play it or where, and the learner runs on ``threads`` torch threads in a fixed order, so the
same seed and arguments give the same networks, bit for bit, whatever ``--workers`` and
``--backend`` (tested).
"""

from __future__ import annotations

import csv
import io
import itertools
import math
import os
import shutil
import time
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from caylus_env.core.fileio import atomic_write_json, directory_problem
from caylus_env.core.registry import game_spec
from training.config import AZ_ADDED_FIELDS, AZ_RESUMABLE_CHANGES, AZConfig, check_agent_list

if TYPE_CHECKING:
    from agents.selfplay.generate import DatasetResult

STATE_JSON = "state.json"
#: ``state.json``'s format.
STATE_FORMAT = "caylus-az/1"
NETS = "nets"
SELFPLAY = "selfplay"
LEAGUE = "league"
CURVE_CSV = "curve.csv"
CURVE_PNG = "learning_curve.png"
#: The columns of ``curve.csv``: the generation after which the evaluation ran, the
#: generation of the network evaluated (the best one then), the self-play positions played
#: so far, and the match against one reference at one count.
CURVE_FIELDS = (
    "generation",
    "network",
    "positions",
    "opponent",
    "games",
    "wins",
    "ties",
    "losses",
    "score",
    "low",
    "high",
)
ALGORITHM = "Gumbel AlphaZero self-play"
#: What ``config.json``'s ``value_head`` says the value head was fitted to.
VALUE_TARGET = "the acting seat's final rank return in self-play (ret), by squared error"
#: Most generations one run may ask for.
MAX_GENERATIONS = 100_000
#: Most self-play games a generation may ask for (a generation is the unit a kill loses).
MAX_GENERATION_GAMES = 100_000
#: Standard errors above the mean paired difference of the guard's one-sided 95% bound.
GUARD_Z = 1.645
#: Most generations in the replay window.
MAX_WINDOW = 1_000
#: Self-play shards per generation: a kill loses the shards being written, not the
#: generation's finished ones.
SHARDS_PER_GENERATION = 4
#: Rows per batch read from a self-play dataset (before the shuffle buffer).
READ_ROWS = 4096
#: The streams `derive_seed` derives from the master seed (new ones are appended, so a
#: stream's seeds never change).
(
    SELFPLAY_STREAM,
    INIT_STREAM,
    LEARN_STREAM,
    GATE_STREAM,
    EVAL_STREAM,
    LEAGUE_STREAM,
    GUARD_STREAM,
) = range(7)
#: The fields of a generation's entry in ``state.json`` and their types.
ENTRY_FIELDS: dict[str, type | tuple[type, ...]] = {
    "generation": int,
    "promoted": bool,
    "best": int,
    "games": int,
    "positions": int,
    "selfplay_seconds": (int, float),
    "learn_seconds": (int, float),
    "gate": (dict, type(None)),
    "learner": (dict, type(None)),
}
#: Fields an entry may have beside `ENTRY_FIELDS` (a run made before them has none): the
#: league games' figures, and the guard's (`guard_verdict`).
OPTIONAL_ENTRY_FIELDS: dict[str, type | tuple[type, ...]] = {
    "league": (dict, type(None)),
    "guard": (dict, type(None)),
}


def derive_seed(seed: int, stream: int, generation: int = 0) -> int:
    """The seed of one random stream of a run: a 63-bit int from ``SeedSequence(seed)``
    spawned at ``(stream, generation)``, so no two streams or generations share games."""
    state = np.random.SeedSequence(seed, spawn_key=(stream, generation)).generate_state(
        1, np.uint64
    )
    return int(state[0] >> np.uint64(1))


def net_dir(out: Path, generation: int) -> Path:
    """The directory of generation ``generation``'s network."""
    return Path(out) / NETS / f"gen-{generation:06d}"


def selfplay_dir(out: Path, generation: int) -> Path:
    """The directory of generation ``generation``'s self-play dataset."""
    return Path(out) / SELFPLAY / f"gen-{generation:06d}"


def league_dir(out: Path, generation: int) -> Path:
    """The directory of generation ``generation``'s league games."""
    return Path(out) / LEAGUE / f"gen-{generation:06d}"


def league_opponent(cfg: AZConfig, generation: int) -> str:
    """Generation ``generation``'s league opponent: the ``--league`` entries in turn."""
    refs = spec_list(cfg.league)
    return refs[(generation - 1) % len(refs)]


def spec_list(text: str | None) -> list[str]:
    """The agent specs of a comma-separated option (none for an empty one)."""
    return [a.strip() for a in str(text or "").split(",") if a.strip()]


def selfplay_agent(cfg: AZConfig, net: Path) -> str:
    """The agent spec that plays every seat of the self-play games over network ``net``."""
    return f"puct:{cfg.sims}:gumbel={cfg.considered}:ckpt={Path(net).resolve()}"


# ---------------------------------------------------------------------------------------
# Arguments and the run directory
# ---------------------------------------------------------------------------------------
def resolve_init(init: str, game: str) -> Path:
    """``--init``'s checkpoint directory: a directory, or the name of a checkpoint shipped
    in the package."""
    from agents.policy import SHIPPED_DIR, shipped_checkpoints

    path = Path(init)
    if not os.path.lexists(path) and init in shipped_checkpoints():
        return SHIPPED_DIR / init
    return path


def check_config(cfg: AZConfig) -> None:
    """Refuse bad arguments before anything is written, and fill ``cfg.arch`` (the init's
    network with ``--init``, else ``agents.policy.DEFAULT_ARCH``).

    Raises:
        ValueError: naming the argument and what is allowed.
    """
    from agents.policy import DEFAULT_ARCH, PolicyNet, arch_from_json
    from agents.puct import MAX_SIMS, OPTIONS
    from agents.tournament.specs import check_execution
    from training.league import MAX_MATCH_GAMES

    def integer(name: str, low: int, high: int) -> None:
        value = getattr(cfg, name)
        if isinstance(value, bool) or not isinstance(value, int) or not low <= value <= high:
            flag = f"--{name.replace('_', '-')}"
            raise ValueError(f"{flag} must be an int from {low} to {high}, got {value!r}")

    def number(name: str, low: float, high: float, low_open: bool = False) -> None:
        value = getattr(cfg, name)
        ok = isinstance(value, (int, float)) and not isinstance(value, bool)
        ok = ok and math.isfinite(value) and (low < value if low_open else low <= value)
        if not (ok and value <= high):
            flag = f"--{name.replace('_', '-')}"
            left = "(" if low_open else "["
            raise ValueError(f"{flag} must be in {left}{low}, {high}], got {value!r}")

    spec = game_spec(cfg.game)
    counts = cfg.players if isinstance(cfg.players, list) else [cfg.players]
    if not counts or any(
        isinstance(n, bool) or not isinstance(n, int) or n not in spec.player_counts for n in counts
    ):
        raise ValueError(
            f"--players {cfg.players} is not allowed; allowed: {spec.title} counts from "
            f"{spec.min_players} to {spec.max_players} (N, A-B or A,B,...)"
        )
    integer("generations", 1, MAX_GENERATIONS)
    integer("games", 1, MAX_GENERATION_GAMES)
    integer("sims", 1, MAX_SIMS)
    integer("considered", 1, int(OPTIONS["gumbel"].high))
    integer("window", 1, MAX_WINDOW)
    integer("epochs", 1, 1000)
    integer("batch_size", 1, 1 << 20)
    integer("gate_games", 0, MAX_MATCH_GAMES)
    integer("guard_games", 0, MAX_MATCH_GAMES)
    integer("league_games", 0, MAX_GENERATION_GAMES)
    integer("eval_games", 0, MAX_MATCH_GAMES)
    integer("eval_every", 1, MAX_GENERATIONS)
    integer("threads", 1, 1024)
    integer("seed", 0, (1 << 63) - 1)
    number("learning_rate", 0.0, 1.0, low_open=True)
    number("value_weight", 0.0, 100.0)
    number("anchor_weight", 0.0, 100.0)
    number("gate_score", 0.0, 1.0)
    number("guard_margin", 0.0, 1.0)
    try:
        check_execution(cfg.workers, cfg.backend)
    except ValueError as err:
        raise ValueError(f"--{getattr(err, 'field', 'workers')}: {err}") from None
    if cfg.ray_address is not None and cfg.backend != "ray":
        raise ValueError("--ray-address needs --backend ray")
    problem = directory_problem(cfg.out)
    if problem is not None:
        raise ValueError(f"--out {problem}")
    if ":" in str(Path(cfg.out).resolve()):
        raise ValueError(
            f"--out {cfg.out}: the run's networks are named in agent specs, whose options "
            "':' separates; choose a path without ':'"
        )
    lists = [("eval_opponents", True), ("guard", cfg.guard_games > 0)]
    lists.append(("league", cfg.league_games > 0))
    for name, needed in lists:
        text = getattr(cfg, name)
        if not isinstance(text, str):
            flag = f"--{name.replace('_', '-')}"
            raise ValueError(f"{flag} must be comma-separated agent specs, got {text!r}")
        if needed or text.strip():  # an option switched off may be left empty
            check_agent_list(name, text, spec.name)
    try:
        ours = None if cfg.arch is None else arch_from_json(cfg.arch)
    except ValueError as err:
        raise ValueError(f"--arch: {err}") from None
    if cfg.init is not None:
        try:
            # an older action space this build extends is grown (`load_init_tensors`)
            theirs = PolicyNet(resolve_init(cfg.init, spec.name), spec.name).arch
        except ValueError as err:
            raise ValueError(f"--init: {err}") from None
        if ours is not None and theirs != ours:
            raise ValueError(
                f"--init {cfg.init}: its network {theirs.to_json()} is not --arch "
                f"{ours.to_json()}; leave --arch out to train the init's network"
            )
        ours = theirs
    cfg.arch = (ours or DEFAULT_ARCH).to_json()


def adopt_saved(cfg: AZConfig) -> None:
    """On ``--resume``, what the run's ``run.json`` says where the command line says nothing:
    the warm start (``--init`` only starts a run, so a resume may leave it out) and, with it,
    the network (``--arch``); for a run made before an option of `AZ_ADDED_FIELDS`, the value
    that run was made with. Anything else that differs is refused by `prepare_run`."""
    from training.runs import read_run_json

    if not cfg.resume or not Path(cfg.out).is_dir():
        return
    saved = read_run_json(cfg.out)
    if saved is None:
        return
    for name, before in AZ_ADDED_FIELDS.items():
        if name not in saved:  # a run made before the option: it resumes as it was made
            setattr(cfg, name, before)
            saved[name] = before
    if cfg.init is None and isinstance(saved.get("init"), str):
        cfg.init = saved["init"]
    if cfg.arch is None and isinstance(saved.get("arch"), dict):
        cfg.arch = saved["arch"]


def prepare_run(cfg: AZConfig) -> Path:
    """Create or check ``cfg.out``: a new run needs a new (or empty) directory; ``--resume``
    needs the same game and arguments as the run's ``run.json`` (`AZ_RESUMABLE_CHANGES` may
    differ: a longer run, other workers or backend, a moved directory). Call after
    `check_config`: nothing is created for arguments that are refused.

    Raises:
        ValueError: naming the differing arguments, or saying how to resume.
    """
    from agents.policy import short_repr
    from training.runs import RUN_JSON, check_run_game, read_run_json

    out = Path(cfg.out)
    check_run_game(out, cfg.game)
    saved = read_run_json(out) if out.is_dir() else None
    if saved is not None and "generations" in saved:
        saved = {**AZ_ADDED_FIELDS, **saved}
    if saved is None:
        if cfg.resume:
            raise ValueError(f"--resume: {out} holds no training run (no {RUN_JSON})")
        if out.exists() and any(out.iterdir()):
            raise ValueError(f"--out {out} exists and is not empty; choose a new directory")
        out.mkdir(parents=True, exist_ok=True)
        atomic_write_json(out / RUN_JSON, asdict(cfg))
        return out
    if not cfg.resume:
        raise ValueError(
            f"{out} already holds a training run: add --resume to continue it, or choose "
            "another --out"
        )
    if "generations" not in saved:
        raise ValueError(
            f"--resume: {out} holds a training run of another trainer (caylus train ppo), "
            "not of caylus train az"
        )
    ours = asdict(cfg)
    differ = sorted(
        k for k in ours if k not in AZ_RESUMABLE_CHANGES and saved.get(k) != ours.get(k)
    )
    if differ:
        detail = ", ".join(
            f"{k}: {short_repr(saved.get(k))} then, {short_repr(ours.get(k))} now" for k in differ
        )
        raise ValueError(f"--resume with other arguments than the run in {out}: {detail}")
    return out


@dataclass
class RunState:
    """``state.json``: the finished generations, oldest first (generation 0 is the start),
    and the generation of the best network."""

    best: int
    generations: list[dict[str, Any]] = field(default_factory=list)

    def to_json(self) -> dict[str, Any]:
        """The JSON of ``state.json`` (`load_state` reads it back)."""
        return {"format": STATE_FORMAT, "best": self.best, "generations": self.generations}


def load_state(out: Path, game: str) -> RunState | None:
    """The run's ``state.json`` (None before generation 0 is written), every field checked,
    and the best and the latest networks loaded and checked (versions, checksums, shapes)
    before any work.

    Raises:
        ValueError: naming the file and what is wrong with it.
    """
    from agents.policy import CheckpointError, PolicyNet, short_repr
    from training.checkpoints import read_run_file

    where = Path(out) / STATE_JSON
    raw = read_run_file(out, STATE_JSON)
    if raw is None:
        return None
    if not isinstance(raw, dict) or raw.get("format") != STATE_FORMAT:
        raise ValueError(f"{where}: not a {STATE_FORMAT} file (its format field)")
    entries = raw.get("generations")
    if not isinstance(entries, list) or not entries:
        raise ValueError(f"{where}: generations must be a non-empty list")
    for i, e in enumerate(entries):
        if (
            not isinstance(e, dict)
            or not set(ENTRY_FIELDS) <= set(e)
            or not set(e) <= set(ENTRY_FIELDS) | set(OPTIONAL_ENTRY_FIELDS)
        ):
            raise ValueError(
                f"{where}: generation {i} must be an object with {sorted(ENTRY_FIELDS)} and "
                f"optionally {sorted(OPTIONAL_ENTRY_FIELDS)}"
            )
        for key, kind in {**ENTRY_FIELDS, **OPTIONAL_ENTRY_FIELDS}.items():
            if key not in e:
                e[key] = None
            value = e[key]
            if not isinstance(value, kind) or (kind is int and isinstance(value, bool)):
                raise ValueError(f"{where}: generation {i}: {key} is {short_repr(value)}")
            number = isinstance(value, (int, float)) and not isinstance(value, bool)
            if number and (not math.isfinite(value) or value < 0):
                raise ValueError(f"{where}: generation {i}: {key} is {short_repr(value)}")
        scores = (e["guard"] or {}).get("scores")
        if scores is not None and not (
            isinstance(scores, dict)
            and all(
                isinstance(k, str)
                and isinstance(v, (int, float))
                and not isinstance(v, bool)
                and 0.0 <= v <= 1.0
                for k, v in scores.items()
            )
        ):
            raise ValueError(
                f"{where}: generation {i}: guard scores are {short_repr(scores)}; allowed: "
                "an object of agent specs to scores from 0 to 1"
            )
        if e["generation"] != i or e["best"] > i or not entries[e["best"]]["promoted"]:
            raise ValueError(
                f"{where}: generation {i} names generation {e['generation']} with best "
                f"{e['best']}; allowed: its own index, and a promoted generation up to it"
            )
    best = raw.get("best")
    if best != entries[-1]["best"]:
        raise ValueError(f"{where}: best {short_repr(best)} is not the last generation's best")
    latest = len(entries) - 1  # the network the next generation's learner starts from
    for what, g in (("the best network", best), ("the learner's latest network", latest)):
        try:
            PolicyNet(net_dir(out, g), game, exact=True)
        except CheckpointError as err:
            raise ValueError(f"{where}: {what}: {err}") from None
    return RunState(best, entries)


def save_state(out: Path, state: RunState) -> None:
    """Write ``state.json`` atomically: the moment a generation is finished."""
    atomic_write_json(Path(out) / STATE_JSON, state.to_json())


def read_curve(out: Path) -> list[dict[str, str]]:
    """The rows of the run's ``curve.csv`` (none without it), read as a bounded regular file.

    Raises:
        ValueError: naming the file when a row is not a learning curve's.
    """
    from agents.policy import read_file
    from training.checkpoints import MAX_RUN_FILE_BYTES

    path = Path(out) / CURVE_CSV
    if not os.path.lexists(path):
        return []
    text = read_file(path.parent, path.name, MAX_RUN_FILE_BYTES).decode("utf-8", "replace")
    rows = list(csv.DictReader(io.StringIO(text, newline="")))
    for i, r in enumerate(rows):
        if set(r) != set(CURVE_FIELDS) or not all(
            str(r[k]).isdigit() for k in ("generation", "network", "positions")
        ):
            raise ValueError(f"{path}: row {i + 1} is not a learning curve's ({CURVE_FIELDS})")
    return rows


def write_curve(out: Path, rows: list[dict[str, Any]], title: str) -> None:
    """``curve.csv`` (atomically) and its plot."""
    from training.runs import plot_curve

    path = Path(out) / CURVE_CSV
    tmp = path.with_suffix(".csv.tmp")
    with open(tmp, "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=CURVE_FIELDS)
        w.writeheader()
        w.writerows(rows)
        f.flush()
        os.fsync(f.fileno())
    os.replace(tmp, path)
    plot_curve(
        path,
        Path(out) / CURVE_PNG,
        title,
        x="generation",
        xlabel="generation (the best network after it, greedy, no search)",
    )


# ---------------------------------------------------------------------------------------
# The phases of a generation
# ---------------------------------------------------------------------------------------
def new_network(cfg: AZConfig, out: Path) -> Path:
    """Generation 0: the ``--init`` network or a new seeded one of ``cfg.arch``."""
    import torch

    from agents.policy import PolicyNet, arch_from_json
    from training.checkpoints import write_policy_checkpoint
    from training.networks import ActorCritic, policy_tensors
    from training.runs import load_init_tensors

    arch = arch_from_json(cfg.arch)
    torch.set_num_threads(cfg.threads)  # the initialization's QR runs on them, as fit does
    torch.manual_seed(derive_seed(cfg.seed, INIT_STREAM))
    net = ActorCritic(arch, cfg.game)
    meta: dict[str, Any] = {
        "arch": arch.to_json(),
        "num_players": list(cfg.counts),
        "step": 0,
        "seed": cfg.seed,
        "parent": None,
        "command": cfg.command,
        "algorithm": ALGORITHM,
        "generation": 0,
    }
    if cfg.init is not None:
        init = resolve_init(cfg.init, cfg.game)
        load_init_tensors(net, str(init), cfg.game, grow=True)
        theirs = PolicyNet(init, cfg.game).config
        # The init's own command stays: it says what its value head estimates (the shaped
        # reward of ``caylus train ppo --shaping W``), which ``puct`` reads (``shaping``).
        meta.update(parent=str(cfg.init), command=theirs.get("command", ""), az_command=cfg.command)
    # replaced whole when a run killed before its first state.json left one
    tensors = policy_tensors(net, arch, cfg.game)
    return write_policy_checkpoint(net_dir(out, 0), tensors, cfg.game, meta, replace=True)


def selfplay(
    cfg: AZConfig, out: Path, generation: int, best: Path, console: Any, league: bool = False
) -> DatasetResult:
    """Play generation ``generation``'s self-play games over network ``best`` into its
    dataset, or with ``league`` its league games (the search against the generation's league
    opponent, `league_opponent`), resuming the finished shards; returns the generate call's
    result (the manifest, and how many games it played)."""
    from agents.selfplay.generate import DatasetSpec, generate_dataset, prepare_dataset
    from agents.tournament.specs import RunMismatchError

    agents = (selfplay_agent(cfg, best),)
    games = cfg.games
    seed = derive_seed(cfg.seed, SELFPLAY_STREAM, generation)
    where = selfplay_dir(out, generation)
    if league:
        agents += (league_opponent(cfg, generation),)
        games = cfg.league_games
        seed = derive_seed(cfg.seed, LEAGUE_STREAM, generation)
        where = league_dir(out, generation)
    spec = DatasetSpec(
        agents=agents,
        players=tuple(cfg.counts),
        games=games,
        seed=seed,
        move_time_limit=None,
        policy_targets=True,
        shard_games=max(1, math.ceil(games / SHARDS_PER_GENERATION)),
        game=cfg.game,
    )
    try:
        prepared = prepare_dataset(spec, where, workers=cfg.workers, backend=cfg.backend)
    except RunMismatchError:
        # The unfinished generation of a run that was moved (the network's path differs):
        # its games are replayed from the start.
        shutil.rmtree(where)
        prepared = prepare_dataset(spec, where, workers=cfg.workers, backend=cfg.backend)
    result = generate_dataset(
        prepared,
        ray_address=cfg.ray_address,
        progress=cfg.progress,
        console=console,
        command=spec.command(where),
    )
    return result


def replay_window(out: Path, generation: int, window: int) -> list[tuple[Path, str | None]]:
    """The datasets the learner of generation ``generation`` reads: the self-play and the
    league games of the ``window`` latest generations, each with the agent whose decisions
    are learned (None: every decision; a league dataset: its search agent, the first agent
    its manifest names, so a moved run reads the spec its games were played with).

    Raises:
        ValueError: for a league dataset whose manifest names no agents.
    """
    from caylus_env.datasets import read_manifest

    datasets: list[tuple[Path, str | None]] = []
    for g in range(max(1, generation - window + 1), generation + 1):
        datasets.append((selfplay_dir(out, g), None))
        where = league_dir(out, g)
        if where.is_dir():
            agents = (read_manifest(where).get("run") or {}).get("agents")
            if not isinstance(agents, list) or not agents or not isinstance(agents[0], str):
                raise ValueError(f"{where}: its manifest names no agents (run.agents)")
            datasets.append((where, agents[0]))
    return datasets


def fit(
    cfg: AZConfig,
    start: Path,
    window: list[tuple[Path, str | None]],
    generation: int,
    anchor: Path | None = None,
) -> tuple[dict[str, Any], dict[str, Any]]:
    """A copy of network ``start`` fitted to the datasets ``window`` (`replay_window`; module
    docstring, step 2); returns its tensors and the learner's figures (per epoch: the mean
    policy cross-entropy, its excess over the targets' own entropy, which is the KL
    divergence from the improved policy to the network's, and the value loss; with an
    ``anchor`` network, the mean KL divergence from its policy to the learner's, which the
    loss weighs by ``cfg.anchor_weight``)."""
    import torch

    from agents.policy import arch_from_json
    from caylus_env.datasets import iter_batches
    from training.bc import MASKED_LOGIT, shuffled
    from training.networks import ActorCritic, policy_tensors
    from training.runs import load_init_tensors

    torch.set_num_threads(cfg.threads)
    seed = derive_seed(cfg.seed, LEARN_STREAM, generation)
    torch.manual_seed(seed)
    rng = np.random.default_rng(seed)
    arch = arch_from_json(cfg.arch)
    net = ActorCritic(arch, cfg.game)
    load_init_tensors(net, str(start), cfg.game)
    frozen = None
    if anchor is not None and cfg.anchor_weight > 0:
        frozen = ActorCritic(arch, cfg.game)
        load_init_tensors(frozen, str(anchor), cfg.game)
        frozen.eval()
    optimizer = torch.optim.Adam(net.parameters(), lr=cfg.learning_rate)
    keys = ("obs", "mask", "ret", "target", "has_target")
    epochs = []
    for epoch in range(cfg.epochs):
        sums = {"policy_loss": 0.0, "kl": 0.0, "value_loss": 0.0}
        if frozen is not None:
            sums["anchor_kl"] = 0.0
        rows = 0
        order = rng.permutation(len(window))
        batches = itertools.chain.from_iterable(
            iter_batches(
                window[i][0], READ_ROWS, agents=window[i][1], policy_targets=True, game=cfg.game
            )
            for i in order
        )
        for mb in shuffled(batches, cfg.batch_size, rng, keys):
            obs = torch.from_numpy(mb["obs"])
            masks = torch.from_numpy(mb["mask"].astype(np.bool_))
            target = torch.from_numpy(mb["target"])
            has = torch.from_numpy(mb["has_target"].astype(np.float32))
            ret = torch.from_numpy(mb["ret"].astype(np.float32))
            logits, values = net(obs)
            log_probs = torch.log_softmax(logits.masked_fill(~masks, MASKED_LOGIT), dim=1)
            cross = -(target * log_probs).sum(dim=1)
            policy_loss = (cross * has).sum() / has.sum().clamp(min=1.0)
            value_loss = torch.nn.functional.mse_loss(values, ret)
            loss = policy_loss + cfg.value_weight * value_loss
            if frozen is not None:
                # KL(anchor || learner) over the legal moves of every row (search targets or
                # not): the init's play is what the student must not forget
                with torch.no_grad():
                    fixed = torch.log_softmax(
                        frozen(obs)[0].masked_fill(~masks, MASKED_LOGIT), dim=1
                    )
                anchor_kl = (fixed.exp() * (fixed - log_probs)).sum(dim=1).mean()
                loss = loss + cfg.anchor_weight * anchor_kl
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            with torch.no_grad():
                own = -(target * torch.log(target.clamp(min=1e-30))).sum(dim=1)
                kl = ((cross - own) * has).sum() / has.sum().clamp(min=1.0)
            n = len(ret)
            rows += n
            sums["policy_loss"] += float(policy_loss.detach()) * n
            sums["kl"] += float(kl) * n
            sums["value_loss"] += float(value_loss.detach()) * n
            if frozen is not None:
                sums["anchor_kl"] += float(anchor_kl.detach()) * n
        epochs.append(
            {"epoch": epoch + 1, "rows": rows, **{k: v / max(rows, 1) for k, v in sums.items()}}
        )
    return policy_tensors(net, arch, cfg.game), {"epochs": epochs}


def guard_scores(cfg: AZConfig, net: Path, generation: int) -> dict[str, np.ndarray]:
    """Network ``net`` (greedy) against each guard reference: its score ``(reward + 1) / 2``
    in each of ``guard_games`` games split between the counts, on generation
    ``generation``'s setups (from the master seed), so the candidate and the best met on the
    same ones are paired game by game.

    The setups are new every generation and the best plays them again: on setups fixed for
    the run, the best's one draw would be the bar of every candidate, and a lucky draw
    refuses them all (the second Caylus run's: ppo-caylus scored 0.904 against ``town`` on
    them and 0.819-0.869 on four other sets of 200 games), while a promoted candidate's
    scores, kept as the next bar, are chosen for being high. A candidate's games diverge
    from the best's within a few moves, so pairing keeps only the setup's share of the
    variance: a fixed draw is not a measured difference."""
    from training.league import checkpoint_rewards

    seed = derive_seed(cfg.seed, GUARD_STREAM, generation)
    return {
        ref: (checkpoint_rewards(net, ref, cfg.guard_games, cfg.counts, seed, cfg.game) + 1.0) / 2.0
        for ref in spec_list(cfg.guard)
    }


def guard_counts(cfg: AZConfig) -> np.ndarray:
    """The player count of each game of `guard_scores`' arrays, in their order."""
    from training.league import checkpoint_counts

    return checkpoint_counts(cfg.guard_games, cfg.counts)


def _difference(d: np.ndarray) -> list[float]:
    """The mean of the paired differences ``d`` and its one-sided 95% upper bound."""
    se = float(d.std(ddof=1) / math.sqrt(len(d))) if len(d) > 1 else 0.0
    mean = float(d.mean())
    return [mean, mean + GUARD_Z * se]


def guard_verdict(
    ours: dict[str, np.ndarray],
    theirs: dict[str, np.ndarray],
    margin: float,
    counts: np.ndarray | None = None,
) -> dict[str, Any]:
    """The guard's decision on a candidate's per-game scores ``ours`` beside the best's
    ``theirs`` on the same games (`guard_scores`): against each reference, the mean paired
    difference and its one-sided 95% upper bound (``GUARD_Z`` standard errors above it); the
    candidate has *lost* against a reference when even that bound is below ``-margin``, so
    it is refused for a loss its games show, not for the noise of a few hundred games (a
    plain margin of 0.02 on 100 games, the first guard, refuses a network as strong as the
    best about as often as not).

    The decision pools the counts; with ``counts`` (each game's player count,
    `guard_counts`) the entry also shows the difference at each count, which a few dozen
    games per count cannot decide but a reader can follow (the fourth Caylus run promoted
    a network that lost 0.066 against ``economy`` at 4 players on fresh seeds).

    Returns:
        The ``state.json`` entry's ``guard``: ``scores`` and ``best`` (mean scores),
        ``difference`` (mean and upper bound per reference), with ``counts`` also
        ``by_count`` (the same per reference and player count), ``margin``, ``games`` and
        ``lost`` (the references lost against).

    Raises:
        ValueError: for ``counts`` of another length than the scores.
    """
    diff, lost, by_count = {}, [], {}
    for ref, a in ours.items():
        d = a - theirs[ref]
        diff[ref] = _difference(d)
        if diff[ref][1] < -margin:
            lost.append(ref)
        if counts is not None:
            if len(counts) != len(d):
                raise ValueError(f"{len(counts)} player counts for {len(d)} guard games")
            by_count[ref] = {str(n): _difference(d[counts == n]) for n in np.unique(counts)}
    verdict = {
        "scores": {ref: float(a.mean()) for ref, a in ours.items()},
        "best": {ref: float(a.mean()) for ref, a in theirs.items()},
        "difference": diff,
        "margin": margin,
        "games": len(next(iter(ours.values()))) if ours else 0,
        "lost": lost,
    }
    if counts is not None:
        verdict["by_count"] = by_count
    return verdict


def evaluate(cfg: AZConfig, net: Path) -> list[dict[str, Any]]:
    """Network ``net`` (greedy) against each reference at each count: one curve row each
    (without the generation columns)."""
    from training.league import play_checkpoint

    seed = derive_seed(cfg.seed, EVAL_STREAM)
    rows = []
    for ref in str(cfg.eval_opponents).split(","):
        for n in cfg.counts:
            m = play_checkpoint(net, ref.strip(), cfg.eval_games, n, seed, cfg.game)
            name = f"{m.opponent}@{n}p" if len(cfg.counts) > 1 else m.opponent
            rows.append({**asdict(m), "opponent": name})
    return rows


# ---------------------------------------------------------------------------------------
# The run
# ---------------------------------------------------------------------------------------
@dataclass(frozen=True)
class AZResult:
    """What a run ended with: its directory, the best network and the finished generations."""

    out: Path
    best: Path
    generations: int


def train_az(cfg: AZConfig) -> AZResult:
    """Run (or resume) generations until ``cfg.generations`` are finished.

    Raises:
        ValueError: for bad arguments, a run directory of other arguments or that cannot be
            read, naming what is wrong (before any work).
    """
    from agents.progress import console as default_console
    from training.checkpoints import write_policy_checkpoint
    from training.league import play_checkpoint_counts

    adopt_saved(cfg)
    check_config(cfg)
    out = prepare_run(cfg)
    console = default_console()
    title = game_spec(cfg.game).title
    state = load_state(out, cfg.game)
    curve = read_curve(out)

    def say(text: str) -> None:
        console.print(text, highlight=False)

    def eval_rows(generation: int, best: int, positions: int) -> list[dict[str, Any]]:
        earlier = [r for r in curve if int(r["network"]) == best]
        if earlier:  # the same network on the same setups: the same games
            last = max(int(r["generation"]) for r in earlier)
            found = [dict(r) for r in earlier if int(r["generation"]) == last]
        else:
            say(f"generation {generation}: evaluating network {best} against {cfg.eval_opponents}")
            found = evaluate(cfg, net_dir(out, best))
        rows = []
        for r in found:
            r.update(generation=generation, network=best, positions=positions)
            rows.append({k: r[k] for k in CURVE_FIELDS})
            say(
                f"generation {generation}: network {best} vs {r['opponent']}: score "
                f"{float(r['score']):.3f} [{float(r['low']):.3f}, {float(r['high']):.3f}] over "
                f"{r['games']} games"
            )
        return rows

    if state is None:
        net = new_network(cfg, out)
        say(
            f"generation 0: {'the network of ' + str(cfg.init) if cfg.init else 'a new network'} ({net})"
        )
        entry = {
            "generation": 0,
            "promoted": True,
            "best": 0,
            "games": 0,
            "positions": 0,
            "selfplay_seconds": 0.0,
            "learn_seconds": 0.0,
            "gate": None,
            "learner": None,
            "league": None,
            "guard": None,
        }
        curve = []
        if cfg.eval_games:
            curve = eval_rows(0, 0, 0)
            write_curve(out, curve, title)
        state = RunState(0, [entry])
        save_state(out, state)
    curve = [r for r in curve if int(r["generation"]) < len(state.generations)]
    positions = sum(e["positions"] for e in state.generations)
    for generation in range(len(state.generations), cfg.generations + 1):
        best = net_dir(out, state.best)
        started = time.perf_counter()
        result = selfplay(cfg, out, generation, best, console)
        played = int(result.manifest["counts"]["decisions"])
        games = int(result.manifest["counts"]["games"])
        selfplay_seconds = time.perf_counter() - started
        resumed = games - result.played  # in shards a killed run had written
        say(
            f"generation {generation}: self-play {games} games, {played:,} positions in "
            f"{selfplay_seconds:.0f} s "
            + (
                f"({resumed} of the games resumed from the shards written before)"
                if resumed
                else f"({played / max(selfplay_seconds, 1e-9):,.0f} positions/s)"
            )
            + f" with network {state.best}"
        )
        league = None
        if cfg.league_games:
            started = time.perf_counter()
            opponent = league_opponent(cfg, generation)
            result = selfplay(cfg, out, generation, best, console, league=True)
            league = {
                "opponent": opponent,
                "games": int(result.manifest["counts"]["games"]),
                "positions": int(result.manifest["counts"]["decisions"]),
                "seconds": round(time.perf_counter() - started, 3),
            }
            say(
                f"generation {generation}: league {league['games']} games against {opponent}, "
                f"{league['positions']:,} positions (both sides) in {league['seconds']:.0f} s"
            )
        started = time.perf_counter()
        first = max(1, generation - cfg.window + 1)
        window = replay_window(out, generation, cfg.window)
        latest = net_dir(out, generation - 1)  # the learner carries on, promoted or not
        tensors, learner = fit(cfg, latest, window, generation, anchor=net_dir(out, 0))
        learn_seconds = time.perf_counter() - started
        last = learner["epochs"][-1]
        say(
            f"generation {generation}: learned {cfg.epochs} epoch(s) over generations "
            f"{first}-{generation} ({last['rows']:,} positions) in {learn_seconds:.0f} s: "
            f"policy loss {last['policy_loss']:.3f} (KL {last['kl']:.3f}), value loss "
            f"{last['value_loss']:.3f}"
        )
        meta = {
            "arch": cfg.arch,
            "num_players": list(cfg.counts),
            "step": positions + played,
            "seed": cfg.seed,
            "parent": latest.name,
            "selfplay_network": best.name,
            "command": cfg.command,
            "algorithm": ALGORITHM,
            "generation": generation,
            "selfplay_agent": f"puct:{cfg.sims}:gumbel={cfg.considered}",
            "value_head": VALUE_TARGET,
            "learner": learner,
        }
        # an unfinished generation's candidate is written again, whole
        candidate = write_policy_checkpoint(
            net_dir(out, generation), tensors, cfg.game, meta, replace=True
        )
        gate = None
        promoted = True
        if cfg.gate_games:
            m = play_checkpoint_counts(
                candidate,
                f"policy:{best}",
                cfg.gate_games,
                list(cfg.counts),
                derive_seed(cfg.seed, GATE_STREAM, generation),
                cfg.game,
            )
            promoted = m.score >= cfg.gate_score
            gate = {**asdict(m), "opponent": state.best, "threshold": cfg.gate_score}
            say(
                f"generation {generation}: gate vs network {state.best}: score {m.score:.3f} "
                f"[{m.low:.3f}, {m.high:.3f}] over {m.games} games: "
                + ("passed" if promoted else f"kept network {state.best} (needs {cfg.gate_score})")
            )
        guard = None
        if promoted and cfg.gate_games and cfg.guard_games:
            theirs = guard_scores(cfg, best, generation)
            ours = guard_scores(cfg, candidate, generation)
            guard = guard_verdict(ours, theirs, cfg.guard_margin, guard_counts(cfg))
            promoted = not guard["lost"]
            say(
                f"generation {generation}: guard vs "
                + ", ".join(
                    f"{r} {guard['scores'][r]:.3f} (best {guard['best'][r]:.3f}, difference "
                    f"at most {guard['difference'][r][1]:+.3f})"
                    for r in guard["scores"]
                )
                + (
                    ": promoted"
                    if promoted
                    else f": kept network {state.best} (lost more than {cfg.guard_margin} "
                    f"against {', '.join(guard['lost'])})"
                )
            )
        elif promoted and cfg.gate_games:
            say(f"generation {generation}: promoted")
        new_best = generation if promoted else state.best
        positions += played
        if cfg.eval_games and (generation % cfg.eval_every == 0 or generation == cfg.generations):
            curve += eval_rows(generation, new_best, positions)
            write_curve(out, curve, title)
        state.generations.append(
            {
                "generation": generation,
                "promoted": promoted,
                "best": new_best,
                "games": games,
                "positions": played,
                "selfplay_seconds": round(selfplay_seconds, 3),
                "learn_seconds": round(learn_seconds, 3),
                "gate": gate,
                "learner": learner,
                "league": league,
                "guard": guard,
            }
        )
        state.best = new_best
        save_state(out, state)
    return AZResult(out, net_dir(out, state.best), len(state.generations) - 1)


__all__ = [
    "ALGORITHM",
    "CURVE_FIELDS",
    "STATE_FORMAT",
    "AZResult",
    "RunState",
    "adopt_saved",
    "check_config",
    "derive_seed",
    "fit",
    "guard_counts",
    "guard_scores",
    "guard_verdict",
    "league_dir",
    "league_opponent",
    "load_state",
    "net_dir",
    "prepare_run",
    "replay_window",
    "selfplay_agent",
    "selfplay_dir",
    "train_az",
]
