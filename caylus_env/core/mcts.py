"""``mcts:SIMS``: one UCT search with scripted rollouts, over the game contract, for every game.

The search is written once, here; a game declares only what is its own (`MCTSGame`, in its
``bots/mcts.py``): its scripted strategies and rollout bots as compiled kernels, how the end
of a rollout is scored when it has its own way, its defaults and the options its spec offers.
Its agent is a subclass of `MCTSAgent` that names that declaration (``GAME``), as a game's
scripted agent is a subclass of `caylus_env.core.scripted.ScriptedAgent`. The compiled parts
(the rollout, the expansion of a position, the prior's choice and the default scoring) are
templates over the contract's kernels (``K.advance``, ``K.apply``, ``K.returns``, ...) and the
game's declared kernels, compiled per game by `caylus_env.core.specialize`.

**The tree.** A node is a sequence of actions from the root, with its visit count, per-seat
sums of the returns that went through it and its children by action. Every simulation starts
from the position *determinized* for the seat to move: the contract's
``kernels.determinize(s, seat, seed)`` replaces what that seat cannot see by a draw consistent
with what it sees, so no hidden information reaches the search. A game whose hidden
information is drawn (``redraw``: Puerto Rico's face-down plantation order, rules 6.8) gets a
fresh draw in every simulation, from a seed of the agent's stream (single-observer
information-set MCTS: one tree over every draw; a node's children are the actions tried
there, and selection looks only at those legal in this simulation's draw). A game whose
determinization draws nothing (Caylus has nothing hidden; Caylus 1303 gives every opponent
the searcher's own prestige, D37) is determinized once per move, and its nodes keep their
positions (each simulation starts at the root and walks down the tree without replaying it).

**One simulation** (every seat maximizes its own return: max^n):

1. *selection*: while a node may not grow, go to the child with the best
   ``q + c * sqrt(ln N / n)`` for the seat to move there (``q`` the child's mean return for
   that seat, ``n`` its visits, ``N`` the node's visits, or, when hidden information is
   redrawn, the child's *availability*: the simulations in which its action was legal);
2. *expansion*: add one untried action. A node may grow while it has untried actions; with
   *progressive widening* (``widen`` > 0) a node visited ``n`` times has at most
   ``ceil(widen * (n + 1) ** widen_power)`` children, so few simulations go to the moves a
   good player would consider. The action tried is the *prior*'s favourite (a scripted
   strategy's one-ply values, or a random one without a prior): either the first best of the
   untried actions legal in this simulation (ties to the lowest id), or, with
   ``ordered_expansion``, in an order fixed when the node is made (the prior's values, ties in
   a seeded random order), in which selection also breaks its ties;
3. *rollout* in compiled code (`rollout`): every seat plays its rollout policy (a scripted
   bot of the game, another rollout bot it declares, or ``random``), each move random with
   probability ``eps``, to the end of the game or ``cutoff`` decisions;
4. *backpropagation* of the per-seat returns of the position reached: by default
   (`margin_returns`) the rank returns of ``kernels.returns`` in [-1, 1] (zero for a game not
   finished), mixed (``margin``) with ``tanh(score margin over the best other / scale)``, so
   that with nearly deterministic bot rollouts a bigger win still beats a smaller one; a game
   may declare its own scoring (``evaluate``: Caylus's estimates the final prestige with its
   bots' value function).

The move played is the most visited root child (ties: the better mean return for the mover,
then the first expanded, the prior's favourite). ``visit_counts()`` gives the root visit
counts and ``action_distribution()`` them normalised, both by action id.

**Options every game may turn on** (a game's defaults choose): a *budget scaled* with the
number of legal actions (``scaled``: ``SIMS * sqrt(n / 8)``, clipped to ``[SIMS / 4, 2 *
SIMS]``); an *early stop* once no other action can catch up with the most visited one
(``early_stop``, checked every `EARLY_STOP_EVERY` simulations); the *reuse* of the subtree
below the move played at the next decision when the game followed it (``reuse``; only for a
search that keeps its positions); *opponent models* (``model``): before each search the moves
made since the last one are replayed, and each opponent's rollouts and expansions follow the
scripted strategy that best predicts that player's moves so far (every strategy whose best
actions include the move is credited, judged at the bots' own depth).

**Spec strings**: ``mcts:SIMS[:ROLLOUT][:key=value...]``, SIMS from 1 to `MAX_SIMS`, ROLLOUT one
of the game's rollouts, the keys those the game offers (`OPTIONS`: their ranges and
meanings; a game may narrow a range); a bad part is refused naming what is allowed there.

**Determinism**: ``reset(seed)`` seeds a ``random.Random``; the search draws from it every
seed it uses (of the determinizations, of numba's generator for the rollouts, once per move
or once per rollout as the game declares, and the random expansion orders), and the opponent
models depend only on the game, so the same seed and the same game give the same moves. Two
of a game's choices change only which draws and which ties the search makes, not what it
searches for: ``ordered_expansion`` and ``stream_per_move``. Each game keeps those its own
search made before there was one search, so that it plays, seed for seed, the moves it played
then (``tests/agents/test_mcts_golden.py`` holds them).
"""

from __future__ import annotations

import contextlib
import math
import random
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from types import ModuleType, SimpleNamespace
from typing import Any, ClassVar, NamedTuple

import numpy as np
from numba import njit

from caylus_env.core import _cache  # noqa: F401  (the kernel cache, before any kernel below)
from caylus_env.core.bindings import CHOOSE, EVALUATE, SCORED, SCORING, VALUES, K, game_bindings
from caylus_env.core.contract import LADDER_SIMS, Bot
from caylus_env.core.observation import MAX_PLAYERS
from caylus_env.core.registry import game_spec
from caylus_env.core.specialize import specialize

MAX_SIMS = 100_000
"""Most simulations per decision a spec may ask for: ``mcts:200`` takes about 0.6 s a move in
Caylus, so 100,000 is several minutes a move, past any sensible move time limit; a larger
count is a typo (and one that would hold a worker for hours)."""
SYNTAX = "mcts:SIMS[:ROLLOUT][:key=value...]"
RANDOM = -1
"""The rollout policy code of ``random`` (uniform over the legal actions), in every game."""
PRIOR_ROLLOUT = "rollout"
"""The ``prior`` setting that orders the expansions by the rollout's scripted bot (no prior,
a random order, for a rollout that is no scripted bot)."""
UNLIMITED = 1 << 30
"""``max_rollout`` of a rollout that plays to the end (``cutoff`` not given)."""
HIDDEN_SEED_BITS = 62
"""Bits of a determinization's seed: the contract's ``determinize`` takes one in [0, 2**63)."""
ROOT_SEED = 0
"""The seed of a determinization that draws nothing (one per move): unused by such games."""
PLAYOUT_SEED_BITS = 31
"""Bits of a seed of numba's generator (``np.random.seed`` takes a 32-bit seed)."""
PRIOR_EPS = 1e-9
"""A later action is the prior's favourite only if it beats the first best by more."""
TIE_WEIGHT = 0.001
"""Weight of the rules' tie-break next to the score in `margin_returns`: it orders equal
scores, never outweighs a point (the games' tie-breaks stay far below 1,000)."""
BUDGET_LEGAL = 8
"""The number of legal actions that gets exactly ``SIMS`` simulations with ``scaled``."""
BUDGET_SHARE = (0.25, 2.0)
"""The least and most share of ``SIMS`` a decision gets with ``scaled``."""
EARLY_STOP_EVERY = 8
"""Simulations between two checks of the early stop."""
MODEL_TOLERANCE = 1e-9
"""An opponent's move is a strategy's when its value is within this of the strategy's best."""


# ---------------------------------------------------------------------------------------
# Compiled templates, specialized per game (`kernels`): ``K`` is the game's engine kernels,
# ``SCORING`` its scripted scoring (``choose``, ``score_actions``; `caylus_env.core.scripted`)
# and ``SCORED`` whether the rollouts play it, ``VALUES`` / ``CHOOSE`` / ``EVALUATE`` the
# declared kernels or the defaults below (each declared in ``caylus_env.core.bindings``).
# ---------------------------------------------------------------------------------------
def margin_returns(s, margin, scale, strategy, ret):
    """The default scoring of a rollout's end: per seat ``(1 - margin)`` times the rank
    returns (``K.returns``: zero until the game is over) plus ``margin`` times ``tanh((score -
    best other score) / scale)``, the scores being ``K.scores`` plus `TIE_WEIGHT` times the
    rules' tie-break; ``strategy`` is not used."""
    K.returns(s, ret)
    sc = np.empty(MAX_PLAYERS)
    ties = np.empty(MAX_PLAYERS)
    n = K.scores(s, sc)
    K.tie_breaks(s, ties)
    for p in range(n):
        sc[p] += TIE_WEIGHT * ties[p]
    for p in range(n):
        best = -1e18
        for q in range(n):
            if q != p and sc[q] > best:
                best = sc[q]
        ret[p] = (1.0 - margin) * ret[p] + margin * np.tanh((sc[p] - best) / scale)


def scoring_values(strategy, s, legal, n, depth, values):
    """The default strategy values: the game's scripted scoring of ``legal[:n]`` for strategy
    row ``strategy`` (``depth`` is not used: such bots look one decision ahead)."""
    SCORING.score_actions(s, legal, n, strategy, values)


def rollout(s, out, seat_policies, eps, depth, max_decisions, seed, margin, scale, strategy, ret):
    """Play the position ``s`` on in place (``out``: an int buffer of ``NUM_ACTIONS``
    entries) and score where it stops (``EVALUATE`` with ``margin``, ``scale`` and
    ``strategy``) into ``ret``, one return per seat; the number of decisions taken.

    Seat ``q`` plays rollout policy ``seat_policies[q]`` (`RANDOM`, a strategy row of the
    game's scripted scoring, or a code of its ``rollout_choice``, whose bots that search look
    ``depth`` levels ahead), every move uniformly random with probability ``eps``; the rollout
    stops at the end of the game or after ``max_decisions`` decisions. ``seed`` seeds numba's
    generator first, or is -1 to go on with its stream."""
    if seed >= 0:
        np.random.seed(seed)
    n = K.advance(s, out)
    count = 0
    while n > 0 and count < max_decisions:
        policy = seat_policies[K.current_player(s)]
        if policy < 0 or (eps > 0.0 and np.random.random() < eps):
            i = np.random.randint(n)
        elif SCORED:  # a constant: numba compiles only the declared branch
            i = SCORING.choose(s, out, n, policy)
        else:
            i = CHOOSE(policy, s, out, n, depth)
        K.apply(s, out[i])
        count += 1
        n = K.advance(s, out)
    EVALUATE(s, margin, scale, strategy, ret)
    return count


def expand(parent, action, child, out):
    """``child`` = ``parent`` after ``action`` and the engine's automatic steps; the number
    of legal actions of ``child`` (written to ``out``; 0 at the end)."""
    child[:] = parent
    K.apply(child, action)
    return K.advance(child, out)


def prior_pick(strategy, s, cand, n, depth, values):
    """The index into ``cand[:n]`` of strategy ``strategy``'s favourite: the first best value
    (a later one must beat it by more than `PRIOR_EPS`)."""
    VALUES(strategy, s, cand, n, depth, values)
    best = 0
    for i in range(1, n):
        if values[i] > values[best] + PRIOR_EPS:
            best = i
    return best


@njit(cache=True)
def seed_stream(seed):
    """Seed numba's generator, the rollouts' stream of a game that seeds it once per move."""
    np.random.seed(seed)


_COMPILED: dict[str, SimpleNamespace] = {}


def kernels(game: MCTSGame) -> SimpleNamespace:
    """The compiled search kernels of ``game``'s declaration (the templates above, compiled
    for its engine and its bots on first use; numba's disk cache keeps them between runs):
    ``rollout``, ``expand``, ``prior_pick``, ``values``, ``evaluate``."""
    found = _COMPILED.get(game.game)
    if found is not None:
        return found
    spec = game_spec(game.game)
    engine = spec.engine()
    base = specialize(
        [margin_returns, scoring_values],
        game.game,
        {**game_bindings(spec), "SCORING": game.scoring},
    )
    values = game.strategy_values or base.scoring_values
    evaluate = game.evaluate or base.margin_returns
    search = specialize(
        [rollout, expand, prior_pick],
        game.game,
        {
            **game_bindings(spec),
            "VALUES": values,
            "SCORED": game.rollout_choice is None,
            "SCORING": game.scoring,
            "CHOOSE": game.rollout_choice,
            "EVALUATE": evaluate,
        },
    )
    found = SimpleNamespace(
        rollout=search.rollout,
        expand=search.expand,
        prior_pick=search.prior_pick,
        values=values,
        evaluate=evaluate,
        engine=engine,
    )
    _COMPILED[game.game] = found
    return found


# ---------------------------------------------------------------------------------------
# What a game declares.
# ---------------------------------------------------------------------------------------
class Option(NamedTuple):
    """One ``key=value`` option of an mcts spec: the `MCTSAgent` setting it sets, the kind of
    its value and, for numbers, the closed range allowed (NaN and infinities never are)."""

    field: str
    kind: str
    lo: float = 0.0
    hi: float = 0.0


#: spec option -> its `Option`, with the ranges of every game that does not narrow them. The
#: ranges keep every value where the search means something: returns lie in [-1, 1] (so ``c``
#: beyond 100 is pure exploration), ``margin`` and ``eps`` are shares, ``scale`` divides score
#: margins (0 would divide by zero), the bots that search look ``depth`` follow-up levels
#: ahead (each level multiplies the cost).
OPTIONS: dict[str, Option] = {
    "c": Option("c", "FLOAT", 0.0, 100.0),
    "eps": Option("eps", "FLOAT", 0.0, 1.0),
    "cutoff": Option("max_rollout", "INT", 1, 1_000_000),
    "scale": Option("scale", "FLOAT", 1e-3, 1e6),
    "margin": Option("margin", "FLOAT", 0.0, 1.0),
    "widen": Option("widen", "FLOAT", 0.0, 100.0),
    "power": Option("widen_power", "FLOAT", 0.0, 2.0),
    "prior": Option("prior", "BOT"),
    "depth": Option("bot_depth", "INT", 0, 8),
    "scaled": Option("scaled", "0|1"),
    "model": Option("model", "0|1"),
}

#: The settings of `MCTSAgent` and the search's own defaults, those of plain UCT with scripted
#: rollouts (a game's ``defaults`` change them): ``sims`` per move; ``c`` the exploration
#: constant; ``eps`` the rollouts' share of random moves; ``max_rollout`` their cut-off
#: (None: to the end); ``margin`` and ``scale`` of the scoring (`margin_returns`);
#: ``widen`` and ``widen_power`` of progressive widening (0: every action before any
#: selection); ``prior`` the strategy ordering the expansions (`PRIOR_ROLLOUT`, a strategy,
#: or None for a random order); ``bot_depth`` the follow-up depth of the bots that search, in
#: rollouts and priors; ``scaled``, ``early_stop``, ``reuse`` and ``model`` (module docstring).
SETTINGS: dict[str, Any] = {
    "sims": 200,
    "c": 0.7,
    "eps": 0.1,
    "max_rollout": 10_000,
    "margin": 0.3,
    "scale": 10.0,
    "widen": 0.0,
    "widen_power": 0.5,
    "prior": PRIOR_ROLLOUT,
    "bot_depth": 0,
    "scaled": False,
    "early_stop": False,
    "reuse": False,
    "model": False,
}
#: The options a game's spec offers unless it names its own.
PLAIN_OPTIONS = ("c", "eps", "margin", "scale", "cutoff")


@dataclass(frozen=True)
class MCTSGame:
    """What a game declares for the one search: its own parts and its defaults.

    Attributes:
        game: the game's registry name (``caylus_env.core.registry``).
        strategies: its scripted strategies by row of its kernels (priors, opponent models
            and its scoring name them).
        rollouts: the ROLLOUT names of its spec, in the order listed: the strategies,
            ``random`` and its other rollout bots (``policies``); by default the strategies
            and ``random``. The default rollout is ``defaults["rollout"]``, else the first
            strategy.
        policies: the rollout policy code of each rollout bot that is neither a strategy
            (its row) nor ``random`` (`RANDOM`).
        scoring: the game's scripted scoring, ``choose(s, legal, n, strategy)`` and
            ``score_actions(s, legal, n, strategy, out)`` (`caylus_env.core.scripted`): the
            rollouts' moves and the strategy values of a game that declares no kernels of
            its own for them.
        strategy_values: ``(strategy, s, legal, n, depth, values)``, compiled: the one-ply
            values of ``legal[:n]`` for a strategy (for priors and opponent models).
        rollout_choice: ``(policy, s, legal, n, depth) -> index``, compiled: the move of
            rollout policy ``policy`` (a strategy row or a code of ``policies``), drawing from
            numba's generator what it needs.
        evaluate: ``(s, margin, scale, strategy, ret)``, compiled: the per-seat returns of
            the position a rollout stops at (default `margin_returns`).
        scripted_depth: the depth its scripted bots play with (opponent models judge with it).
        redraw: its hidden information is drawn (its ``determinize`` uses the seed): a fresh
            draw per simulation; otherwise one determinization per move, positions kept.
        ordered_expansion: a node's expansion order is fixed when it is made (needs kept
            positions).
        stream_per_move: numba's generator is seeded once per move and the rollouts go on with
            its stream; otherwise each rollout gets a seed of its own.
        options: the keys its spec offers, in the order listed (of `OPTIONS`).
        ranges: its own ``(lo, hi)`` of some numeric keys.
        defaults: its values of some `SETTINGS` and of ``rollout``.
    """

    game: str
    strategies: tuple[str, ...]
    rollouts: tuple[str, ...] = ()
    policies: Mapping[str, int] = field(default_factory=dict)
    scoring: ModuleType | None = None
    strategy_values: Callable[..., Any] | None = None
    rollout_choice: Callable[..., Any] | None = None
    evaluate: Callable[..., Any] | None = None
    scripted_depth: int = 0
    redraw: bool = False
    ordered_expansion: bool = False
    stream_per_move: bool = False
    options: tuple[str, ...] = PLAIN_OPTIONS
    ranges: Mapping[str, tuple[float, float]] = field(default_factory=dict)
    defaults: Mapping[str, Any] = field(default_factory=dict)

    def __post_init__(self) -> None:
        def refuse(what: str) -> None:
            raise ValueError(f"MCTSGame {self.game!r}: {what}")

        if not self.rollouts:
            object.__setattr__(self, "rollouts", (*self.strategies, "random"))
        if self.scoring is None and (self.strategy_values is None or self.rollout_choice is None):
            refuse("give scoring, or both strategy_values and rollout_choice")
        for name in self.rollouts:
            if name not in (*self.strategies, "random", *self.policies):
                refuse(f"rollout {name!r} is no strategy, 'random' or policy")
        if self.default_rollout not in self.rollouts:
            refuse(f"default rollout {self.default_rollout!r}; allowed: {', '.join(self.rollouts)}")
        if unknown := [k for k in (*self.options, *self.ranges) if k not in OPTIONS]:
            refuse(f"unknown option {unknown[0]!r}; allowed: {', '.join(OPTIONS)}")
        if unknown := [k for k in self.defaults if k not in (*SETTINGS, "rollout")]:
            refuse(f"unknown setting {unknown[0]!r}; allowed: rollout, {', '.join(SETTINGS)}")
        if self.redraw and (self.ordered_expansion or self.defaults.get("reuse")):
            refuse("ordered_expansion and reuse need kept positions, which redraw has not")

    @property
    def default_rollout(self) -> str:
        return str(self.defaults.get("rollout", self.strategies[0]))

    def setting(self, name: str) -> Any:
        """The game's default of a `SETTINGS` entry."""
        return self.defaults.get(name, SETTINGS[name])

    def option(self, key: str) -> Option:
        """Spec option ``key`` with the game's range."""
        lo, hi = self.ranges.get(key, (OPTIONS[key].lo, OPTIONS[key].hi))
        return OPTIONS[key]._replace(lo=lo, hi=hi)

    def allowed(self, key: str) -> str:
        """What option ``key`` takes and its default, as the listing and the errors say it."""
        option = self.option(key)
        default = self.setting(option.field)
        if option.kind in ("FLOAT", "INT"):
            shown = "none: to the end" if default is None else f"{default:g}"
            return f"{option.kind} in [{option.lo:g}, {option.hi:g}] (default {shown})"
        if option.kind == "0|1":
            return f"0|1 (default {int(bool(default))})"
        return f"{option.kind} (default {default if default is not None else 'none'})"

    def policy(self, rollout: str) -> int:
        """The rollout policy code of a rollout name."""
        if rollout in self.strategies:
            return self.strategies.index(rollout)
        return RANDOM if rollout == "random" else int(self.policies[rollout])


# ---------------------------------------------------------------------------------------
# The search.
# ---------------------------------------------------------------------------------------
class _Node:
    """One action sequence from the root (see the module docstring); with kept positions
    also its position, the seat to move, its legal actions, the expansion order of
    ``ordered_expansion`` (indices into ``actions``, the next one last) and, at the end of
    the game, its returns."""

    __slots__ = ("actions", "available", "kids", "n", "order", "player", "state", "terminal", "w")

    def __init__(
        self,
        seats: int,
        state: np.ndarray | None = None,
        actions: list[int] | None = None,
        player: int = -1,
        order: list[int] | None = None,
        terminal: list[float] | None = None,
    ) -> None:
        self.kids: dict[int, _Node] = {}
        self.n = 0
        self.available = 0
        self.w = [0.0] * seats
        self.state = state
        self.actions = actions
        self.player = player
        self.order = order
        self.terminal = terminal


class MCTSAgent:
    """UCT with scripted rollouts over determinized positions (see the module docstring).

    Class attribute (each game sets its own): ``GAME``, its `MCTSGame`.

    Args:
        name: the spec that made it.
        sims: simulations per decision (1 to `MAX_SIMS`; default the game's).
        rollout: the rollout policy (one of the game's ``rollouts``; default the game's).
        seed: the seed of ``reset``.
        **settings: any of `SETTINGS` (default the game's).

    Raises:
        ValueError: for a setting, a budget, a rollout or a prior that is not allowed.
    """

    GAME: ClassVar[MCTSGame]

    def __init__(
        self,
        name: str = "mcts",
        sims: int | None = None,
        rollout: str | None = None,
        *,
        seed: int | None = None,
        **settings: Any,
    ) -> None:
        game = self.GAME
        if unknown := [k for k in settings if k not in SETTINGS]:
            raise ValueError(
                f"mcts: unknown setting {unknown[0]!r}; allowed: {', '.join(SETTINGS)}"
            )
        value = {**{k: game.setting(k) for k in SETTINGS}, **settings}
        sims = int(value["sims"] if sims is None else sims)
        rollout = game.default_rollout if rollout is None else rollout
        if not 1 <= sims <= MAX_SIMS:
            raise ValueError(f"mcts: sims={sims}; allowed: 1 to {MAX_SIMS}")
        if rollout not in game.rollouts:
            raise ValueError(f"unknown rollout {rollout!r}; allowed: {', '.join(game.rollouts)}")
        prior = value["prior"]
        if prior == PRIOR_ROLLOUT:
            prior = rollout if rollout in game.strategies else None
        elif prior == "none":
            prior = None
        if prior is not None and prior not in game.strategies:
            raise ValueError(f"unknown prior {prior!r}; allowed: {', '.join(game.strategies)}")
        if value["reuse"] and game.redraw:
            raise ValueError("mcts: reuse keeps positions, which a search that redraws has not")
        self.name = name
        self.sims = sims
        self.rollout = rollout
        self.prior = prior
        self.c = float(value["c"])
        self.eps = float(value["eps"])
        limit = value["max_rollout"]
        self.max_rollout = UNLIMITED if limit is None else int(limit)
        self.margin = float(value["margin"])
        self.scale = float(value["scale"])
        self.widen = float(value["widen"])
        self.widen_power = float(value["widen_power"])
        self.bot_depth = int(value["bot_depth"])
        self.scaled = bool(value["scaled"])
        self.early_stop = bool(value["early_stop"])
        self.reuse = bool(value["reuse"])
        self.model = bool(value["model"])
        self._k = kernels(game)
        self._engine = self._k.engine.kernels
        self._policy = game.policy(rollout)
        #: the strategy the own seat follows (the rollout's, else the prior's, else the first)
        self._own = rollout if rollout in game.strategies else (prior or game.strategies[0])
        self._own_row = game.strategies.index(self._own)
        self._out = np.empty(self._k.engine.NUM_ACTIONS, np.int64)
        self._values = np.empty(self._k.engine.NUM_ACTIONS)
        self._ret = np.zeros(MAX_PLAYERS)
        self._buf: np.ndarray | None = None
        self.reset(seed)

    # -- spec and listing --------------------------------------------------------------------
    @classmethod
    def from_spec(cls, spec: str, arg: str | None) -> MCTSAgent:
        """Build the agent of ``mcts:SIMS[:ROLLOUT][:key=value...]`` (``arg`` = after the
        first colon): SIMS from 1 to `MAX_SIMS`, ROLLOUT one of the game's, the options those
        it offers, each in its range.

        Raises:
            ValueError: naming the bad part and what is allowed.
        """
        game = cls.GAME
        parts = (arg or "").split(":")
        try:
            sims = int(parts[0])
        except ValueError:
            raise ValueError(
                f"mcts spec {spec!r}: SIMS must be an int from 1 to {MAX_SIMS}, e.g. 'mcts:200'"
            ) from None
        if not 1 <= sims <= MAX_SIMS:
            raise ValueError(f"mcts spec {spec!r}: SIMS={sims}; allowed: 1 to {MAX_SIMS}")
        kwargs: dict[str, Any] = {}
        rest = parts[1:]
        if rest and "=" not in rest[0]:
            kwargs["rollout"] = rest.pop(0)
            if kwargs["rollout"] not in game.rollouts:
                raise ValueError(
                    f"mcts spec {spec!r}: unknown rollout {kwargs['rollout']!r}; "
                    f"allowed: {', '.join(game.rollouts)}"
                )
        for part in rest:
            key, _, value = part.partition("=")
            if key not in game.options or not value:
                allowed = ", ".join(f"{k}={game.allowed(k)}" for k in game.options)
                raise ValueError(f"mcts spec {spec!r}: bad option {part!r}; allowed: {allowed}")
            kwargs[OPTIONS[key].field] = cls._parse_option(spec, key, value)
        return cls(spec, sims, **kwargs)

    @classmethod
    def _parse_option(cls, spec: str, key: str, value: str) -> object:
        """The value of one ``key=value`` option of an mcts spec, inside its allowed range."""
        game = cls.GAME
        option = game.option(key)
        kind = option.kind
        number: float | None = None
        with contextlib.suppress(ValueError):  # an unparsable number falls through to the error
            if kind == "FLOAT":
                number = float(value)
            elif kind == "INT":
                number = int(value)
            elif kind == "0|1" and value in ("0", "1"):
                return value == "1"
            elif kind == "BOT" and (value in game.strategies or value == "none"):
                return value
        if number is not None and math.isfinite(number) and option.lo <= number <= option.hi:
            return number
        allowed = ", ".join((*game.strategies, "none")) if kind == "BOT" else game.allowed(key)
        raise ValueError(f"mcts spec {spec!r}: bad value {value!r} for {key}; allowed: {allowed}")

    @classmethod
    def bot(cls, description: str) -> Bot:
        """The game's ``mcts`` entry of ``BOTS`` (its description: what it plays, the cost)."""
        game = cls.GAME
        options = (
            f"SIMS: simulations per move (int, 1 to {MAX_SIMS}); ROLLOUT: "
            + "|".join(game.rollouts)
            + f" (default {game.default_rollout}); keys: "
            + ", ".join(f"{key}={game.allowed(key)}" for key in game.options)
        )
        return Bot(
            "mcts",
            cls.from_spec,
            SYNTAX,
            description,
            options,
            needs_arg=True,
            ladder_spec=f"mcts:{LADDER_SIMS}",
        )

    # -- state --------------------------------------------------------------------------------
    def reset(self, seed: int | None = None) -> None:
        """Start afresh (a new game): seed the agent's generator, forget the kept subtree,
        the last search and the opponent models."""
        game = self.GAME
        self._rng = random.Random(seed)
        self._root: _Node | None = None
        self._history_len = -1
        self.last_simulations = 0
        self._distribution: tuple[tuple[int, ...], tuple[float, ...]] | None = None
        self._visits: tuple[tuple[int, ...], tuple[int, ...]] | None = None
        # Per seat: the rollout policy and the prior strategy (the opponent models set them).
        self._seat_policies = np.full(MAX_PLAYERS, self._policy, np.int64)
        prior = None if self.prior is None else game.strategies.index(self.prior)
        self._priors: list[int | None] = [prior] * MAX_PLAYERS
        self._replay: Any = None
        self._matches = np.zeros((MAX_PLAYERS, len(game.strategies)))
        #: per seat, the name of the strategy its rollouts follow
        self.seat_models: list[str] = [self._own] * MAX_PLAYERS

    # -- opponent models ---------------------------------------------------------------------
    def _update_models(self, game: Any) -> None:
        """Replay the moves made since the last call and credit, for every opponent move,
        each scripted strategy that would have made it (among its best-valued actions);
        each opponent then follows its best-matching strategy (the own one on ties). A game
        that is not the one followed (another start, or a history that is not its
        continuation) is replayed from its start."""
        me = game.current_player()
        replay = self._replay
        if replay is None or not self._follows(replay, game):
            if game.seed is not None:
                replay = type(game)(game.config, game.seed)
            elif game.start is not None:
                replay = type(game).from_state_dict(game.start)
            else:
                return
            self._matches[:] = 0.0
        values = self._values
        strategies = self.GAME.strategies
        depth = self.GAME.scripted_depth
        for a in game.history[len(replay.history) :]:
            q = replay.current_player()
            if q != me:
                legal = np.asarray(replay.legal_actions(), np.int64)
                i = int(np.flatnonzero(legal == a)[0])
                for k in range(len(strategies)):
                    self._k.values(k, replay.state, legal, len(legal), depth, values)
                    if values[i] >= values[: len(legal)].max() - MODEL_TOLERANCE:
                        self._matches[q, k] += 1.0
            replay.apply(a)
        if not np.array_equal(replay.state, game.state):
            self._replay = None  # not the game we followed: start over next time
            return
        self._replay = replay
        own = self._own_row
        for q in range(game.num_players):
            k = own
            if q != me and self._matches[q].max() > self._matches[q, own]:
                k = int(np.argmax(self._matches[q]))
            self.seat_models[q] = strategies[k]
            if self.rollout in strategies:
                self._seat_policies[q] = k
            if self.prior is not None:
                self._priors[q] = strategies.index(self.prior) if q == me else k

    @staticmethod
    def _follows(replay: Any, game: Any) -> bool:
        """Whether ``game`` continues the game ``replay`` replays: the same start and options,
        and a history that extends the replayed one."""
        done = len(replay.history)
        return (
            done <= len(game.history)
            and (replay.seed, replay.start, replay.config) == (game.seed, game.start, game.config)
            and game.history[:done] == replay.history
        )

    # -- tree ----------------------------------------------------------------------------------
    def search_root(self, state: np.ndarray, seat: int) -> np.ndarray:
        """The position every simulation of ``seat``'s search starts from: a copy of
        ``state``, determinized for ``seat`` once per move unless the game redraws its hidden
        information in every simulation (then each simulation determinizes its own copy)."""
        root = state.copy()
        if not self.GAME.redraw:
            self._engine.determinize(root, seat, ROOT_SEED)
        return root

    def _new_node(self, state: np.ndarray, n_legal: int, seats: int) -> _Node:
        """A node that keeps ``state``, whose ``n_legal`` legal actions are in ``self._out``."""
        player = int(self._engine.current_player(state))
        order = None
        if self.GAME.ordered_expansion:
            order = list(range(n_legal))
            self._rng.shuffle(order)
            prior = self._priors[player] if player >= 0 else None
            if prior is not None and n_legal > 1:
                self._k.values(prior, state, self._out, n_legal, self.bot_depth, self._values)
                values = self._values
                order.sort(key=lambda i: values[i])  # stable: random among equal values
        terminal = None
        if n_legal == 0:
            terminal = self._evaluate(state, seats)
        return _Node(seats, state, self._out[:n_legal].tolist(), player, order, terminal)

    def _reused_root(self, game: Any) -> _Node | None:
        """The kept subtree's node for the current position, if the game followed it."""
        node = self._root
        if node is None or not self.reuse or len(game.history) < self._history_len:
            return None
        for a in game.history[self._history_len :]:
            node = node.kids.get(a)
            if node is None:
                return None
        root = self.search_root(game.state, game.current_player())
        return node if np.array_equal(node.state, root) else None

    def _may_expand(self, node: _Node, untried: list[int]) -> bool:
        if not untried:
            return False
        if self.widen <= 0.0:
            return True
        return len(node.kids) < math.ceil(self.widen * (node.n + 1) ** self.widen_power)

    def _untried(self, node: _Node, actions: list[int]) -> list[int]:
        """The node's untried actions: its expansion order, or those legal now without a
        child."""
        if node.order is not None:
            return node.order
        return [a for a in actions if a not in node.kids]

    def _expansion(self, node: _Node, state: np.ndarray, untried: list[int], p: int) -> int:
        """The untried action to add: the next of the node's order, else the prior's
        favourite among the untried ones (a random one without a prior)."""
        if node.order is not None:
            return node.actions[untried.pop()]  # type: ignore[index]
        prior = self._priors[p]
        if prior is None:
            return untried[self._rng.randrange(len(untried))]
        cand = np.array(untried, np.int64)
        return untried[
            self._k.prior_pick(prior, state, cand, len(untried), self.bot_depth, self._values)
        ]

    def _select(self, node: _Node, actions: list[int], p: int) -> tuple[int, _Node]:
        """The child with the best UCT score for seat ``p``, the first on ties: in expansion
        order with ``ordered_expansion``, else by action id among those legal now (a score is
        always finite: a child has been visited, and its availability is at least 1)."""
        c = self.c
        kids = node.kids
        best: tuple[int, _Node] | None = None
        best_v = -math.inf
        if node.order is not None:
            log_n = math.log(max(node.n, 1))
            for a, kid in kids.items():
                v = kid.w[p] / kid.n + c * math.sqrt(log_n / kid.n)
                if v > best_v:
                    best, best_v = (a, kid), v
        elif self.GAME.redraw:
            for a in actions:
                kid = kids.get(a)
                if kid is not None:
                    v = kid.w[p] / kid.n + c * math.sqrt(math.log(kid.available) / kid.n)
                    if v > best_v:
                        best, best_v = (a, kid), v
        else:
            log_n = math.log(max(node.n, 1))
            for a in actions:
                kid = kids.get(a)
                if kid is not None:
                    v = kid.w[p] / kid.n + c * math.sqrt(log_n / kid.n)
                    if v > best_v:
                        best, best_v = (a, kid), v
        assert best is not None  # a node selects only once it has children
        return best

    def _evaluate(self, state: np.ndarray, seats: int) -> list[float]:
        self._k.evaluate(state, self.margin, self.scale, self._own_row, self._ret)
        return self._ret[:seats].tolist()

    def _rollout(self, state: np.ndarray, seats: int) -> list[float]:
        seed = -1 if self.GAME.stream_per_move else self._rng.getrandbits(PLAYOUT_SEED_BITS)
        self._k.rollout(
            state,
            self._out,
            self._seat_policies,
            self.eps,
            self.bot_depth,
            self.max_rollout,
            seed,
            self.margin,
            self.scale,
            self._own_row,
            self._ret,
        )
        return self._ret[:seats].tolist()

    def _descend_redrawn(
        self, root: _Node, root_state: np.ndarray, seat: int, seats: int
    ) -> tuple[list[_Node], list[float]]:
        """Selection, expansion and rollout of one simulation on a fresh draw of the hidden
        information: the nodes visited and the returns."""
        K, out = self._engine, self._out
        state = root_state.copy()
        K.determinize(state, seat, self._rng.getrandbits(HIDDEN_SEED_BITS))
        n = K.legal_actions(state, out)
        node, path = root, [root]
        while n > 0:
            p = K.current_player(state)
            actions = out[:n].tolist()
            kids = node.kids
            for a in actions:
                kid = kids.get(a)
                if kid is not None:
                    kid.available += 1
            untried = [a for a in actions if a not in kids]
            if self._may_expand(node, untried):
                a = self._expansion(node, state, untried, p)
                K.apply(state, a)
                n = K.advance(state, out)
                kid = kids[a] = _Node(seats)
                kid.available = 1
                path.append(kid)
                return path, self._rollout(state, seats) if n > 0 else self._evaluate(state, seats)
            a, node = self._select(node, actions, p)
            path.append(node)
            K.apply(state, a)
            n = K.advance(state, out)
        return path, self._evaluate(state, seats)

    def _descend_kept(self, root: _Node, seats: int) -> tuple[list[_Node], list[float]]:
        """Selection, expansion and rollout of one simulation down the kept positions: the
        nodes visited and the returns."""
        node, path = root, [root]
        while node.terminal is None:
            actions = node.actions
            untried = self._untried(node, actions)  # type: ignore[arg-type]
            if self._may_expand(node, untried):
                state = node.state
                a = self._expansion(node, state, untried, node.player)  # type: ignore[arg-type]
                child = np.empty_like(state)
                kid = self._new_node(child, self._k.expand(state, a, child, self._out), seats)
                node.kids[a] = kid
                path.append(kid)
                if kid.terminal is not None:
                    return path, kid.terminal
                self._buf[:] = child  # type: ignore[index]
                return path, self._rollout(self._buf, seats)  # type: ignore[arg-type]
            a, node = self._select(node, actions, node.player)  # type: ignore[arg-type]
            path.append(node)
        return path, node.terminal

    def _simulate(self, root: _Node, root_state: np.ndarray, seat: int, seats: int) -> None:
        """One simulation: determinization, selection, expansion, rollout, backpropagation."""
        if self.GAME.redraw:
            path, ret = self._descend_redrawn(root, root_state, seat, seats)
        else:
            path, ret = self._descend_kept(root, seats)
        for visited in path:
            visited.n += 1
            w = visited.w
            for q in range(seats):
                w[q] += ret[q]

    # -- acting ----------------------------------------------------------------------------------
    def budget(self, n_legal: int) -> int:
        """Simulations for a decision with ``n_legal`` legal actions (see ``scaled``)."""
        if not self.scaled:
            return self.sims
        lo, hi = BUDGET_SHARE
        share = min(max(math.sqrt(n_legal / BUDGET_LEGAL), lo), hi)
        return max(1, round(self.sims * share))

    def action_distribution(self) -> tuple[tuple[int, ...], tuple[float, ...]] | None:
        """The root visit counts of the last search, normalised, by action id (one-hot for a
        decision with one legal action, which is not searched); None before any ``act``."""
        return self._distribution

    def visit_counts(self) -> tuple[tuple[int, ...], tuple[int, ...]] | None:
        """The root visit counts of the last search, ``(actions, counts)`` by action id (what
        `action_distribution` normalises); None before any ``act`` and after a decision with
        one legal action, which is not searched."""
        return self._visits

    def act(self, game: Any) -> int:
        """The move of one search from ``game``'s position (the only legal action, unsearched).

        Raises:
            ValueError: for a game that asks no decision.
        """
        legal = game.legal_actions()
        if not legal:
            raise ValueError(f"agent {self.name!r}: the game asks no decision ({game!r})")
        if len(legal) == 1:
            self._distribution = ((legal[0],), (1.0,))
            self._visits = None
            return legal[0]
        seats = game.num_players
        if self.model:
            self._update_models(game)
        if self.GAME.stream_per_move:
            seed_stream(self._rng.getrandbits(PLAYOUT_SEED_BITS))
        if self._buf is None or self._buf.shape != game.state.shape:
            self._buf = np.empty_like(game.state)
        me = game.current_player()
        root_state = self.search_root(game.state, me)
        root = self._reused_root(game)
        if root is None:
            if self.GAME.redraw:
                root = _Node(seats)
            else:
                self._out[: len(legal)] = legal
                root = self._new_node(root_state, len(legal), seats)
        budget = self.budget(len(legal))
        done = 0
        while done < budget:
            self._simulate(root, root_state, me, seats)
            done += 1
            if self.early_stop and done % EARLY_STOP_EVERY == 0:
                visits = [*sorted((k.n for k in root.kids.values()), reverse=True), 0]
                if visits[0] - visits[1] > budget - done:
                    break  # no other action can catch up with the most visited one
        self.last_simulations = done
        # most visits, then the better mean return for the mover, then the first expanded
        # (the prior's favourite): with a small budget visits often tie
        action, best = max(
            root.kids.items(), key=lambda item: (item[1].n, item[1].w[me] / item[1].n)
        )
        counts = {a: kid.n for a, kid in root.kids.items()}
        actions = tuple(sorted(counts))
        total = sum(counts.values())
        self._visits = (actions, tuple(counts[a] for a in actions))
        self._distribution = (actions, tuple(counts[a] / total for a in actions))
        if self.reuse:
            self._root = best
            self._history_len = len(game.history) + 1
        return int(action)


__all__ = [
    "MAX_SIMS",
    "OPTIONS",
    "PRIOR_ROLLOUT",
    "RANDOM",
    "SETTINGS",
    "MCTSAgent",
    "MCTSGame",
    "Option",
    "kernels",
    "margin_returns",
]
