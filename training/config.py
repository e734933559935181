"""The arguments of ``caylus train ppo``: one ``PPOConfig`` for every game.

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

The other defaults are the same for every game (``training.defaults.PPO_DEFAULTS``, which
``caylus train ppo --help`` shows); ``batch_size`` defaults to
``training.defaults.default_batch_size``: the largest divisor of the rollout ``n_steps * envs``
that is at most 2048.
"""

from __future__ import annotations

from dataclasses import dataclass, fields
from typing import Any

from agents.policy import DEFAULT_ARCH, PolicyNet, arch_from_json
from caylus_env.core.registry import DEFAULT_GAME, game_spec
from training.defaults import BATCH_SIZE_RULE, PPO_DEFAULTS, default_batch_size, divisors

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
    """Every argument of ``caylus train ppo`` (``run.json`` stores them). ``None`` for
    ``players``, ``opponents``, ``eval_opponents`` and ``arch`` means the game's default
    (module docstring), filled in when the config is made.

    Attributes:
        out: the run directory.
        game: the game trained (a registered name).
        players: the player count of the games (an int), or several (a list, or ``N``,
            ``A-B``, ``A,B`` as text: one policy for every count; see the module docstring).
        steps: learner decisions to train on (environment steps).
        seed: seeds the games, the network's initialization and the sampling.
        envs: games played at once.
        opponents: the opponent pool (``training.learner.parse_pool``).
        n_steps: rollout length per game (a rollout is ``n_steps * envs`` samples).
        batch_size: minibatch size of the updates; None: ``default_batch_size`` of
            ``n_steps`` and ``envs``. It must divide the rollout ``n_steps * envs``.
        n_epochs: passes over each rollout.
        learning_rate, gamma, gae_lambda, clip_range, ent_coef, vf_coef: PPO's.
        shaping: coefficient of the shaped score-margin term (0: off; ``training.vecenv``).
        checkpoint_every: steps between checkpoints (rounded up to whole rollouts).
        eval_games: games per reference in each checkpoint's evaluation (0: none).
        eval_opponents: the references of the learning curve (agent specs of the game).
        gate_games: games of each promotion match.
        threads: torch's CPU threads.
        init: a checkpoint of the game whose weights start the network (warm start).
        arch: the network (``agents.policy.ARCHS``: its ``config.json`` form).
        algo: ``maskable`` (sb3-contrib ``MaskablePPO``, the reference) or ``cleanrl`` (the
            one-file PPO of ``training.cleanrl_ppo``: same network, masks and checkpoints).
        resume: continue from the last complete checkpoint.
        progress: show the progress bar.
        command: the exact command line (recorded in checkpoints).
    """

    out: str
    game: str = DEFAULT_GAME
    players: int | list[int] | str | None = None
    steps: int = int(PPO_DEFAULTS["steps"])
    seed: int = 0
    envs: int = int(PPO_DEFAULTS["envs"])
    opponents: str | None = None
    n_steps: int = int(PPO_DEFAULTS["n_steps"])
    batch_size: int | None = None
    n_epochs: int = int(PPO_DEFAULTS["n_epochs"])
    learning_rate: float = PPO_DEFAULTS["learning_rate"]
    gamma: float = PPO_DEFAULTS["gamma"]
    gae_lambda: float = PPO_DEFAULTS["gae_lambda"]
    clip_range: float = PPO_DEFAULTS["clip_range"]
    ent_coef: float = PPO_DEFAULTS["ent_coef"]
    vf_coef: float = PPO_DEFAULTS["vf_coef"]
    shaping: float = PPO_DEFAULTS["shaping"]
    checkpoint_every: int = int(PPO_DEFAULTS["checkpoint_every"])
    eval_games: int = int(PPO_DEFAULTS["eval_games"])
    eval_opponents: str | None = None
    gate_games: int = int(PPO_DEFAULTS["gate_games"])
    threads: int = int(PPO_DEFAULTS["threads"])
    init: str | None = None
    arch: dict[str, Any] | None = None
    algo: str = "maskable"
    resume: bool = False
    progress: bool = True
    command: str = ""

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
        from agents.registry import make_agent, specs

        for ref in str(self.eval_opponents).split(","):
            name = ref.strip()
            try:
                if name in (*refused, ""):
                    raise ValueError("not a fixed agent")
                make_agent(name, self.game)
            except ValueError as err:
                raise ValueError(
                    f"--eval-opponents entry {name!r} is not allowed ({err}); allowed: "
                    f"{game_spec(self.game).title} agents, comma-separated: "
                    f"{', '.join(specs(self.game))}"
                ) from None


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
    "RESUMABLE_CHANGES",
    "PPOConfig",
    "config_from_args",
    "default_eval_opponents",
    "default_opponents",
]
