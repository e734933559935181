"""The arguments of ``caylus train ppo`` (`PPOConfig`) and ``caylus train az`` (`AZConfig`),
one of each for every game.

A run's arguments are checked before any work (``PPOConfig.check``) and stored in its
``run.json``. The defaults that differ between games come from the game's own facts, never
from its name:

* ``players``: the game's default player count (``GameSpec.default_players``). Several
  counts (``--players 2-5``) train one policy for all of them: the learner's games take the
  counts in turn (game ``k`` has the ``k mod len``-th), and each checkpoint is evaluated and
  gated at every count (`PPOConfig.counts`);
* ``opponents``: the policy being trained (``self``, 0.4), the promoted checkpoints
  (``pool``, 0.1), ``random`` (0.1), and the game's scripted bots (its ``bots.BOTS`` with a
  compiled row) sharing the other 0.4 (`default_opponents`);
* ``eval_opponents``: ``random`` and every scripted bot (`default_eval_opponents`);
* ``arch``: ``agents.policy.DEFAULT_ARCH`` (pieces-v1, built from the game's observation
  layout).

The other defaults are the same for every game; ``batch_size`` defaults to
``training.defaults.default_batch_size``: the largest divisor of the rollout ``n_steps * envs``
that is at most 2048.

Every setting is declared once, as a field of `PPOConfig`: its name, type and default, and in
its ``metadata`` its ``--help`` text (``help``; ``flags``, ``show_default`` and ``cli_type``
where the option is not the plain ``--name VALUE``). ``caylus train ppo`` builds its options
from these fields (``caylus_cli.fields``), ``run.json`` stores them (``dataclasses.asdict``), and
`config_from_args` takes them by name: a new setting is one field. This module imports no
torch, compiled kernel or game until a config is made, so that ``--help`` stays quick.
"""

from __future__ import annotations

from dataclasses import dataclass, field, fields
from typing import Any

from caylus_env.core.registry import DEFAULT_GAME, game_spec
from training.defaults import BATCH_SIZE_RULE, default_batch_size, divisors

#: The PPO implementations: sb3-contrib's (the reference) and the one-file CleanRL-style one.
ALGOS = ("maskable", "cleanrl")
#: Fields of ``PPOConfig`` that a resumed run may change (how long, how to show it, and
#: where the run directory now is: a moved run resumes).
RESUMABLE_CHANGES = ("steps", "resume", "progress", "command", "out")
#: The default pool's shares: the policy being trained, the promoted checkpoints, random;
#: the game's scripted bots share what is left.
SELF_SHARE, POOL_SHARE, RANDOM_SHARE = 0.4, 0.1, 0.1


def _normalize_players(value: Any, game: str) -> Any:
    """``--players`` as stored: an int for one count (as runs always stored it), a sorted
    list for several; text that cannot be read is kept for ``check`` to refuse, naming it."""
    from agents.selfplay.generate import parse_players

    try:
        counts = parse_players(value if isinstance(value, str) else list(value), game)
    except ValueError:
        return value
    return counts[0] if len(counts) == 1 else list(counts)


def _scripted_bots(game: str) -> list[str]:
    bots = game_spec(game).module("bots").BOTS
    return [head for head, bot in bots.items() if bot.scripted is not None]


def check_agent_list(name: str, text: str, game: str, refused: tuple[str, ...] = ()) -> list[str]:
    """The agent specs of option ``name``'s comma-separated ``text``, each one checked to
    make an agent of ``game`` (``refused`` names are not fixed agents: ``self``, ``pool``).

    Raises:
        ValueError: naming the option (``--NAME``), the entry and the game's agents.
    """
    from agents.registry import make_agent, specs

    entries = [ref.strip() for ref in text.split(",")]
    for entry in entries:
        try:
            if entry in (*refused, ""):
                raise ValueError("not a fixed agent" if entry or refused else "an empty entry")
            make_agent(entry, game)
        except ValueError as err:
            raise ValueError(
                f"--{name.replace('_', '-')} entry {entry!r} is not allowed ({err}); allowed: "
                f"{game_spec(game).title} agents, comma-separated: {', '.join(specs(game))}"
            ) from None
    return entries


def default_opponents(game: str) -> str:
    """The opponent pool of ``game`` when ``--opponents`` is not given (module docstring)."""
    bots = _scripted_bots(game)
    rest = 1.0 - SELF_SHARE - POOL_SHARE - RANDOM_SHARE
    shares = {"self": SELF_SHARE + (0.0 if bots else rest), "random": RANDOM_SHARE}
    shares.update({head: rest / len(bots) for head in bots})
    shares["pool"] = POOL_SHARE
    return ",".join(f"{name}:{weight:.4g}" for name, weight in shares.items())


def default_eval_opponents(game: str) -> str:
    """The learning curve's references of ``game``: ``random`` and its scripted bots."""
    return ",".join(["random", *_scripted_bots(game)])


@dataclass
class PPOConfig:
    """Every argument of ``caylus train ppo``, in the order its ``--help`` lists them
    (``run.json`` stores them); each field's ``metadata["help"]`` says what it is. ``None``
    for ``players``, ``opponents``, ``eval_opponents`` and ``arch`` means the game's default
    (module docstring), filled in when the config is made; for ``batch_size``,
    `default_batch_size` of ``n_steps`` and ``envs``.

    Not options: ``game`` and ``progress`` are the command line's shared ``--game`` and
    ``--progress`` (``caylus_cli.app``), ``command`` is the exact command line (recorded in
    checkpoints). ``players`` may also be a list of counts; ``arch`` is the network's
    ``config.json`` form (``agents.policy.ARCHS``), given as JSON text on the command line.
    """

    out: str = field(metadata={"help": "Run directory (new, or the run to --resume)."})
    players: int | list[int] | str | None = field(
        default=None,
        metadata={
            "help": "Players per game: N, or several as A-B or A,B (one policy for every "
            "count: the games take the counts in turn; evaluated and gated at each); default: "
            "the game's default.",
            "cli_type": str,
        },
    )
    steps: int = field(default=1_000_000, metadata={"help": "Learner decisions to train on."})
    seed: int = field(default=0, metadata={"help": "Seed of the games, the network and sampling."})
    envs: int = field(default=128, metadata={"help": "Games played at once."})
    opponents: str | None = field(
        default=None,
        metadata={
            "help": "Opponent pool with weights: random, the game's scripted bots, self, pool "
            "(promoted checkpoints), or any agent spec of the game, e.g. "
            "'self:0.5,random:0.3,pool:0.2' (default: self, random, the scripted bots, pool)."
        },
    )
    n_steps: int = field(
        default=32,
        metadata={"help": "Rollout length per game (a rollout is n_steps * envs samples)."},
    )
    batch_size: int | None = field(
        default=None,
        metadata={
            "help": "Minibatch size; must divide the rollout n_steps * envs.",
            "show_default": BATCH_SIZE_RULE,
        },
    )
    n_epochs: int = field(default=4, metadata={"help": "Passes over each rollout."})
    learning_rate: float = field(default=3e-4, metadata={"help": "Adam learning rate."})
    ent_coef: float = field(default=0.01, metadata={"help": "Entropy bonus."})
    gamma: float = field(default=1.0, metadata={"help": "Discount (1: the game's own end)."})
    gae_lambda: float = field(default=0.95, metadata={"help": "GAE lambda."})
    clip_range: float = field(default=0.2, metadata={"help": "PPO clip range."})
    vf_coef: float = field(default=0.5, metadata={"help": "Value loss coefficient."})
    eval_opponents: str | None = field(
        default=None,
        metadata={
            "help": "References of the learning curve: agent specs of the game, "
            "comma-separated (default: random and the game's scripted bots)."
        },
    )
    shaping: float = field(
        default=0.0, metadata={"help": "Shaped score-margin reward coefficient (0: off)."}
    )
    checkpoint_every: int = field(
        default=100_000,
        metadata={"help": "Steps between checkpoints (rounded up to whole rollouts)."},
    )
    eval_games: int = field(
        default=200, metadata={"help": "Games per reference in each evaluation (0: none)."}
    )
    gate_games: int = field(default=200, metadata={"help": "Games of each promotion match."})
    threads: int = field(default=1, metadata={"help": "torch CPU threads."})
    init: str | None = field(
        default=None,
        metadata={
            "help": "Start from this checkpoint's weights (e.g. from bc; default: a new network)."
        },
    )
    arch: dict[str, Any] | None = field(
        default=None,
        metadata={
            "help": 'The network as JSON, e.g. \'{"name": "mlp-v1", "layers": [256, 256]}\' '
            "(default: pieces-v1).",
            "cli_type": str,
        },
    )
    resume: bool = field(
        default=False,
        metadata={
            "help": "Continue the run in --out from its last checkpoint.",
            "flags": ("--resume",),
        },
    )
    algo: str = field(
        default="maskable",
        metadata={
            "help": "maskable (sb3-contrib MaskablePPO, the reference) or cleanrl (the "
            "one-file PPO of training/cleanrl_ppo.py: same network, masks and checkpoints)."
        },
    )
    progress: bool = True
    game: str = DEFAULT_GAME
    command: str = field(default="", metadata={"option": False})

    def __post_init__(self) -> None:
        spec = game_spec(self.game)  # an unknown game is refused here, naming the known ones
        self.game = spec.name
        if self.players is None:
            self.players = spec.default_players
        elif isinstance(self.players, (str, list, tuple)) and not isinstance(self.players, bool):
            self.players = _normalize_players(self.players, spec.name)
        if self.opponents is None:
            self.opponents = default_opponents(spec.name)
        if self.eval_opponents is None:
            self.eval_opponents = default_eval_opponents(spec.name)
        if self.arch is None:
            from agents.policy import DEFAULT_ARCH

            self.arch = DEFAULT_ARCH.to_json()
        if self.batch_size is None and all(
            isinstance(v, int) and not isinstance(v, bool) and v >= 1
            for v in (self.n_steps, self.envs)
        ):  # bad n_steps or envs are refused by check(), naming them
            self.batch_size = default_batch_size(self.n_steps, self.envs)

    @property
    def counts(self) -> tuple[int, ...]:
        """The player counts trained on, increasing (one for a single ``--players N``)."""
        if isinstance(self.players, list):
            return tuple(self.players)
        return (int(self.players),)  # type: ignore[arg-type]

    def pool_players(self) -> int | list[int]:
        """``PoolGames``' ``num_players``: the count, or one per game with the counts in
        turn (game ``k`` plays ``counts[k % len(counts)]``)."""
        counts = self.counts
        if len(counts) == 1:
            return counts[0]
        return [counts[k % len(counts)] for k in range(self.envs)]

    def check(self) -> None:
        """Refuse bad arguments before any work starts.

        Raises:
            ValueError: naming the argument and what is allowed.
        """
        from agents.policy import PolicyNet, arch_from_json
        from training.learner import POOL, SELF

        def integer(name: str, low: int) -> None:
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, int) or value < low:
                flag = f"--{name.replace('_', '-')}"
                raise ValueError(f"{flag} must be an int >= {low}, got {value!r}")

        spec = game_spec(self.game)
        counts = self.players if isinstance(self.players, list) else [self.players]
        if len(counts) < 1 or any(
            isinstance(n, bool) or not isinstance(n, int) or n not in spec.player_counts
            for n in counts
        ):
            raise ValueError(
                f"--players {self.players} is not allowed; allowed: "
                f"{spec.min_players}-{spec.max_players} (N, A-B or A,B,...)"
            )
        for name in ("steps", "envs", "n_steps", "batch_size", "n_epochs", "threads"):
            integer(name, 1)
        integer("checkpoint_every", 1)
        integer("gate_games", 1)
        integer("eval_games", 0)
        integer("seed", 0)
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
            if isinstance(v, bool) or not (isinstance(v, (int, float)) and low <= v <= high):
                raise ValueError(f"--{name.replace('_', '-')} must be in [{low}, {high}], got {v}")
        rollout = self.n_steps * self.envs
        if rollout % self.batch_size:
            # SB3 would warn and drop a truncated minibatch; make the choice explicit.
            raise ValueError(
                f"--batch-size {self.batch_size} must divide the rollout size n_steps * envs "
                f"= {self.n_steps} * {self.envs} = {rollout}; allowed: "
                f"{', '.join(map(str, divisors(rollout)))} (or leave it out: "
                f"{BATCH_SIZE_RULE})"
            )
        self._check_opponents(SELF, POOL)
        self._check_eval_opponents(SELF, POOL)
        try:
            arch = arch_from_json(self.arch)
        except ValueError as err:
            raise ValueError(f"--arch: {err}") from None
        if self.algo not in ALGOS:
            raise ValueError(f"--algo {self.algo!r} is not allowed; allowed: {', '.join(ALGOS)}")
        if self.init is not None:
            if self.resume:
                raise ValueError(
                    "--init starts a new run; it cannot be combined with --resume (leave --init "
                    "out: a warm-started run resumes from its run.json and checkpoints)"
                )
            try:
                theirs = PolicyNet(self.init, self.game, exact=True).arch  # every check
            except ValueError as err:
                raise ValueError(f"--init: {err}") from None
            if theirs != arch:
                raise ValueError(
                    f"--init {self.init}: its network {theirs.to_json()} is not this run's "
                    f"{arch.to_json()}; pass --arch to match it"
                )

    def _check_opponents(self, *pool_entries: str) -> None:
        """Each entry of ``--opponents`` must be ``self``, ``pool``, a compiled opponent or
        make an opponent of the game (a checkpoint is loaded and checked): a run refused
        here has created nothing."""
        from training.learner import compiled_opponents, make_external, parse_pool

        compiled = compiled_opponents(self.game)
        for name, _ in parse_pool(str(self.opponents), self.game):
            if name in pool_entries or name in compiled:
                continue
            try:
                make_external(name, self.game)
            except ValueError as err:
                raise ValueError(
                    f"--opponents entry {name!r} is not a {game_spec(self.game).title} "
                    f"opponent ({err}); allowed: {', '.join([*pool_entries, *compiled])}, or "
                    f"an agent spec of the game (caylus agents --game {self.game})"
                ) from None

    def _check_eval_opponents(self, *refused: str) -> None:
        """Each reference must make an agent of the game (not ``self`` or ``pool``)."""
        check_agent_list("eval_opponents", str(self.eval_opponents), self.game, refused)


#: Fields of ``AZConfig`` that a resumed run may change: how long it runs, how it is shown,
#: where its self-play runs (a game's moves do not depend on the worker count or the
#: backend), and where the run directory now is.
AZ_RESUMABLE_CHANGES = (
    "generations",
    "resume",
    "progress",
    "command",
    "out",
    "workers",
    "backend",
    "ray_address",
)
#: Fields ``caylus train az`` gained after its first release, with the value that gives the
#: runs made before them (whose ``run.json`` lacks them) their behaviour: no guard, no league,
#: no anchor.
AZ_ADDED_FIELDS: dict[str, Any] = {
    "guard": "",
    "guard_games": 0,
    "guard_margin": 0.0,
    "league": "",
    "league_games": 0,
    "anchor_weight": 0.0,
}


def default_az_references(game: str, counts: tuple[int, ...] | list[int] = ()) -> str:
    """The learning curve's references of ``caylus train az`` for ``game`` at ``counts``:
    ``random``, its scripted bots and every network shipped for it whose name starts with
    ``ppo-`` and that was trained for every one of ``counts`` (the baselines an
    AlphaZero-style network has to beat)."""
    from agents.policy import SHIPPED_DIR, read_config, shipped_checkpoints

    ppo = [
        name
        for name, theirs in sorted(shipped_checkpoints().items())
        if theirs == game
        and name.startswith("ppo-")
        and set(counts) <= set(read_config(SHIPPED_DIR / name, game).get("num_players", []))
    ]
    return ",".join([default_eval_opponents(game), *ppo])


@dataclass
class AZConfig:
    """Every argument of ``caylus train az`` (``training.az``), in ``--help`` order; ``run.json``
    stores them. ``None`` for ``players``, ``eval_opponents``, ``guard``, ``league`` and ``arch``
    means the game's default, filled in when the config is made: every player count of the
    game, `default_az_references`, the game's scripted bots (twice), ``agents.policy.DEFAULT_ARCH``. ``game``, ``progress`` and ``command`` as in `PPOConfig`.
    """

    out: str = field(metadata={"help": "Run directory (new, or the run to --resume)."})
    players: int | list[int] | str | None = field(
        default=None,
        metadata={
            "help": "Player counts: N, A-B or A,B (one network for all; each generation's "
            "games split evenly between them, gated and evaluated at each); default: every "
            "count of the game.",
            "cli_type": str,
        },
    )
    generations: int = field(
        default=100,
        metadata={"help": "Generations to reach (self-play, learning, gating each)."},
    )
    games: int = field(
        default=128, metadata={"help": "Self-play games per generation (whole blocks)."}
    )
    sims: int = field(
        default=32, metadata={"help": "Search simulations per self-play move (puct SIMS)."}
    )
    considered: int = field(
        default=16,
        metadata={
            "help": "Moves the Gumbel root samples and halves over per move (puct gumbel=M)."
        },
    )
    window: int = field(
        default=4,
        metadata={"help": "Replay window: the learner trains on this many latest generations."},
    )
    epochs: int = field(default=2, metadata={"help": "Passes over the window per generation."})
    batch_size: int = field(default=512, metadata={"help": "Learner minibatch size."})
    learning_rate: float = field(default=5e-4, metadata={"help": "Adam learning rate."})
    value_weight: float = field(
        default=1.0,
        metadata={"help": "Weight of the value loss (squared error) beside the policy loss."},
    )
    anchor_weight: float = field(
        default=0.0,
        metadata={
            "help": "Weight of the anchor: the KL divergence from generation 0's policy (the "
            "--init network) to the learner's, on every learned position (0: none)."
        },
    )
    gate_games: int = field(
        default=200,
        metadata={"help": "Games of each gating match, candidate against the best (0: none)."},
    )
    gate_score: float = field(
        default=0.55,
        metadata={"help": "Score the candidate needs in the gating match to become the best."},
    )
    guard: str | None = field(
        default=None,
        metadata={
            "help": "Guard references, comma-separated agent specs: a candidate that passed "
            "the gate becomes the best only if its games against each do not show it losing "
            "more than --guard-margin beside the best (paired, one-sided 95%; default: the "
            "game's scripted bots)."
        },
    )
    guard_games: int = field(
        default=200,
        metadata={
            "help": "Games of each guard match per reference, split between the counts, the "
            "same setups every generation (0: no guard)."
        },
    )
    guard_margin: float = field(
        default=0.0,
        metadata={
            "help": "Score a candidate may lose against a guard reference beside the best's "
            "before the guard refuses it."
        },
    )
    league: str | None = field(
        default=None,
        metadata={
            "help": "League opponents, comma-separated agent specs, one per generation in "
            "turn (default: the game's scripted bots)."
        },
    )
    league_games: int = field(
        default=32,
        metadata={
            "help": "League games per generation beside the self-play ones: the search over "
            "the best network in half the seats, the generation's league opponent in the "
            "others; only the search's decisions are learned from (0: none)."
        },
    )
    eval_games: int = field(
        default=200,
        metadata={"help": "Games per reference and count in each evaluation (0: none)."},
    )
    eval_every: int = field(
        default=5, metadata={"help": "Generations between evaluations (and the last one)."}
    )
    eval_opponents: str | None = field(
        default=None,
        metadata={
            "help": "The learning curve's references, comma-separated agent specs (default: "
            "random, the game's scripted bots and its shipped ppo-* networks)."
        },
    )
    seed: int = field(default=0, metadata={"help": "Master seed (games, network, shuffles)."})
    workers: int | None = field(
        default=None,
        metadata={"help": "Self-play games played in parallel (default: the machine's cores)."},
    )
    backend: str = field(
        default="local",
        metadata={"help": "Where self-play runs: local (process pool) or ray (a cluster)."},
    )
    ray_address: str | None = field(
        default=None,
        metadata={
            "help": "Ray cluster address for --backend ray (auto, HOST:PORT); default: "
            "RAY_ADDRESS or a local instance."
        },
    )
    threads: int = field(default=1, metadata={"help": "torch CPU threads of the learner."})
    init: str | None = field(
        default=None,
        metadata={
            "help": "Start from this checkpoint's network (a directory or a shipped name, "
            "e.g. ppo-caylus; default: a new network)."
        },
    )
    arch: dict[str, Any] | None = field(
        default=None,
        metadata={
            "help": "The network as JSON (default: pieces-v1; with --init: the init's).",
            "cli_type": str,
        },
    )
    resume: bool = field(
        default=False,
        metadata={
            "help": "Continue the run in --out after its last finished generation.",
            "flags": ("--resume",),
        },
    )
    progress: bool = True
    game: str = DEFAULT_GAME
    command: str = field(default="", metadata={"option": False})

    def __post_init__(self) -> None:
        spec = game_spec(self.game)
        self.game = spec.name
        if self.players is None:
            counts = list(spec.player_counts)
            self.players = counts[0] if len(counts) == 1 else counts
        elif isinstance(self.players, (str, list, tuple)) and not isinstance(self.players, bool):
            self.players = _normalize_players(self.players, spec.name)
        if self.eval_opponents is None:
            try:
                counts = self.counts
            except (TypeError, ValueError):  # unreadable --players: check() refuses it
                counts = ()
            self.eval_opponents = default_az_references(spec.name, counts)
        if self.guard is None:
            self.guard = ",".join(_scripted_bots(spec.name)) or "random"
        if self.league is None:
            self.league = ",".join(_scripted_bots(spec.name)) or "random"

    @property
    def counts(self) -> tuple[int, ...]:
        """The player counts, increasing."""
        if isinstance(self.players, list):
            return tuple(self.players)
        return (int(self.players),)  # type: ignore[arg-type]


def config_from_args(**kwargs: Any) -> PPOConfig:
    """A ``PPOConfig`` from keyword arguments (the CLI's), ignoring ``None`` values.

    Raises:
        ValueError: naming an unknown argument or game.
    """
    names = {f.name for f in fields(PPOConfig)}
    unknown = sorted(set(kwargs) - names)
    if unknown:
        raise ValueError(f"unknown training arguments {unknown}; allowed: {sorted(names)}")
    return PPOConfig(**{k: v for k, v in kwargs.items() if v is not None})


__all__ = [
    "ALGOS",
    "AZ_ADDED_FIELDS",
    "AZ_RESUMABLE_CHANGES",
    "RESUMABLE_CHANGES",
    "AZConfig",
    "PPOConfig",
    "check_agent_list",
    "config_from_args",
    "default_az_references",
    "default_eval_opponents",
    "default_opponents",
]
