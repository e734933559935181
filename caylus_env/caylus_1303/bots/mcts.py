"""``mcts:SIMS``: UCT for Caylus 1303 over copies of the engine state.

After setup Caylus 1303 has no chance (rules 4.7): a node of the tree is the sequence of
actions from the root, and every simulation replays the same game. Its one piece of hidden
information is optional: with ``hide_opponent_pp`` (D37, ``layout.OPT_HIDE_PP``) the prestige
tokens are face down, and the search must not use the opponents' true prestige. So **at the
root** the agent copies the state and, when the option is on, replaces every opponent's
prestige (``P_PP``) by its own, an uninformed estimate (they all started at 0 and score in
the same units); every simulation starts from that copy, and a leaf's value is the rank of
the final scores in it. The true totals never reach the search: its move is the same whatever
the opponents' prestige is (``tests/caylus_1303/test_c1303_bots.py`` checks it). Without the
option every total is public (anyone can count the public gains, D37) and the root is the
real state.

One simulation:

1. *selection*: while every legal action has a child, go to the child with the best
   ``q + c * sqrt(ln(N) / n)`` for the seat to move there (max^n: each seat maximizes its
   own return);
2. *expansion*: add one untried legal action, the best by the rollout bot's scores
   (``caylus_env.caylus_1303.bots.scripted_kernels``), or a random one with ``random``
   rollouts;
3. *rollout* in compiled code (``scripted_kernels.playout``): every seat plays the rollout bot
   (``constructor`` by default, ``deliverer``, or ``random``), each move random with probability
   ``eps``, to the end of the game (or ``cutoff`` decisions);
4. *backpropagation* of per-seat returns: the rank returns of ``kernels.returns`` in
   [-1, 1] (ties shared, D13), mixed (``margin``) with ``tanh(score margin over the best
   other / scale)``, so that with nearly deterministic bot rollouts a bigger win still beats
   a smaller one.

The move played is the most visited root child (ties: the better mean return for the mover,
then the first expanded, the rollout bot's favourite); ``action_distribution()`` gives the
root visit counts normalised, ``visit_counts()`` the counts. Spec strings: ``mcts:SIMS``,
``mcts:SIMS:ROLLOUT``, then optional ``:key=value`` options ``c``, ``eps``, ``margin``,
``scale``, ``cutoff``, e.g. ``mcts:400:deliverer:c=1.0:eps=0.2``.

Determinism: ``reset(seed)`` seeds a ``random.Random``; every simulation draws from it the
seed of its rollout, so the same seed and game give the same moves.
"""

from __future__ import annotations

import math
import random
from dataclasses import dataclass

import numpy as np

from caylus_env.caylus_1303.bots import scripted_kernels as SK
from caylus_env.caylus_1303.engine import Game
from caylus_env.caylus_1303.engine import kernels as K
from caylus_env.caylus_1303.engine import layout as L
from caylus_env.caylus_1303.engine.actions import NUM_ACTIONS
from caylus_env.caylus_1303.engine.constants import MAX_PLAYERS
from caylus_env.caylus_1303.engine.state import pf

ROLLOUTS: tuple[str, ...] = (*SK.STRATEGY_NAMES, "random")
DEFAULT_ROLLOUT = SK.STRATEGY_NAMES[SK.CONSTRUCTOR]
MAX_SIMS = 100_000
RANDOM_POLICY = -1  # the playout kernel's code for a uniformly random seat
PLAYOUT_SEED_BITS = 31  # numba's np.random.seed takes a 32-bit seed


class _Node:
    """One action sequence from the root: visits and per-seat return sums."""

    __slots__ = ("kids", "n", "w")

    def __init__(self, seats: int) -> None:
        self.kids: dict[int, _Node] = {}
        self.n = 0
        self.w = [0.0] * seats


@dataclass(frozen=True)
class _Option:
    """One ``key=value`` option of the spec: its type, default, bounds and meaning."""

    kind: type
    default: float | int
    low: float
    high: float
    doc: str

    def allowed(self) -> str:
        return f"{self.kind.__name__} in [{self.low:g}, {self.high:g}] (default {self.default})"


_OPTIONS: dict[str, _Option] = {
    "c": _Option(float, 0.7, 0.0, 100.0, "UCT exploration constant"),
    "eps": _Option(float, 0.1, 0.0, 1.0, "probability of a random move in a rollout"),
    "margin": _Option(float, 0.3, 0.0, 1.0, "weight of the score-margin return"),
    "scale": _Option(float, 10.0, 1e-3, 1e6, "prestige points for tanh of the margin"),
    "cutoff": _Option(int, 10_000, 1, 1_000_000, "rollout decisions before it stops"),
}


def search_root(state: np.ndarray, seat: int) -> np.ndarray:
    """The state every simulation starts from: a copy of ``state``, in which, when
    opponents' prestige is hidden (D37), every opponent's prestige is ``seat``'s own."""
    root = state.copy()
    if root[L.OPT_HIDE_PP]:
        own = root[pf(seat, L.P_PP)]
        for q in range(int(root[L.NUM_PLAYERS])):
            root[pf(q, L.P_PP)] = own
    return root


class MCTSAgent:
    """UCT with scripted rollouts (see the module docstring).

    Args:
        name: the spec that made it.
        sims: simulations per decision (1 to ``MAX_SIMS``).
        rollout: the playout policy of every seat (one of ``ROLLOUTS``).
        c, eps, margin, scale, cutoff: see ``_OPTIONS``.
        seed: the seed of ``reset``.
    """

    def __init__(
        self,
        name: str = "mcts",
        sims: int = 200,
        rollout: str = DEFAULT_ROLLOUT,
        *,
        c: float = 0.7,
        eps: float = 0.1,
        margin: float = 0.3,
        scale: float = 10.0,
        cutoff: int = 10_000,
        seed: int | None = None,
    ) -> None:
        if not 1 <= sims <= MAX_SIMS:
            raise ValueError(f"mcts: sims={sims} is not allowed; allowed: 1 to {MAX_SIMS}")
        if rollout not in ROLLOUTS:
            raise ValueError(
                f"mcts: rollout {rollout!r} is not allowed; allowed: {', '.join(ROLLOUTS)}"
            )
        self.name = name
        self.sims = sims
        self.rollout = rollout
        self.c, self.eps, self.margin, self.scale, self.cutoff = c, eps, margin, scale, cutoff
        policy = RANDOM_POLICY if rollout == "random" else SK.STRATEGY_NAMES.index(rollout)
        self._policy = policy
        self._strategies = np.full(MAX_PLAYERS, policy, np.int64)
        self._out = np.empty(NUM_ACTIONS, np.int64)
        self._ret = np.zeros(MAX_PLAYERS, np.float64)
        self._soft = np.zeros(MAX_PLAYERS, np.float64)
        self._dist: tuple[tuple[int, ...], tuple[float, ...]] | None = None
        self._visits: tuple[tuple[int, ...], tuple[int, ...]] | None = None
        self.reset(seed)

    def reset(self, seed: int | None = None) -> None:
        self._rng = random.Random(seed)
        self._dist = None
        self._visits = None

    def action_distribution(self) -> tuple[tuple[int, ...], tuple[float, ...]] | None:
        """Root visit counts of the last search, normalized (None before any)."""
        return self._dist

    def visit_counts(self) -> tuple[tuple[int, ...], tuple[int, ...]] | None:
        """The root visit counts of the last search, ``(actions, counts)`` (what
        `action_distribution` normalises); None before any ``act`` and after a decision with
        one legal action, which is not searched."""
        return self._visits

    def act(self, game: Game) -> int:
        legal = game.legal_actions()
        if not legal:
            raise ValueError(f"agent {self.name!r}: the game asks no decision ({game!r})")
        if len(legal) == 1:
            self._dist = ((legal[0],), (1.0,))
            self._visits = None
            return legal[0]
        seats = game.num_players
        p = game.current_player()
        root_state = search_root(game.state, p)
        root = _Node(seats)
        for _ in range(self.sims):
            self._simulate(root, root_state, seats)
        tried = [(a, kid) for a, kid in root.kids.items() if kid.n > 0]
        # most visits, then the better mean return for the mover, then the first expanded
        # (the rollout bot's favourite): with a small budget visits often tie
        best = max(tried, key=lambda item: (item[1].n, item[1].w[p] / item[1].n))[0]
        visits = {a: kid.n for a, kid in tried}
        total = sum(visits.values())
        actions = tuple(sorted(visits))
        self._dist = (actions, tuple(visits[a] / total for a in actions))
        self._visits = (actions, tuple(visits[a] for a in actions))
        return best

    def _simulate(self, root: _Node, root_state: np.ndarray, seats: int) -> None:
        """One selection, expansion, rollout and backpropagation."""
        rng, out = self._rng, self._out
        state = root_state.copy()
        node, path = root, [root]
        n = K.legal_actions(state, out)
        while n > 0:
            p = K.decision_player(state)
            actions = out[:n].tolist()
            untried = [a for a in actions if a not in node.kids]
            if untried:
                a = self._first_untried(state, untried)
                kid = node.kids[a] = _Node(seats)
            else:
                a = self._select(node, actions, p)
                kid = node.kids[a]
            K.apply(state, a)
            n = K.advance(state, out)
            node = kid
            path.append(node)
            if untried:
                break
        if n > 0:
            SK.playout(
                state,
                self._strategies,
                self.eps,
                rng.getrandbits(PLAYOUT_SEED_BITS),
                self.cutoff,
            )
        ret = self._returns(state, seats)
        for visited in path:
            visited.n += 1
            w = visited.w
            for q in range(seats):
                w[q] += ret[q]

    def _first_untried(self, state: np.ndarray, untried: list[int]) -> int:
        """The untried action to expand: the rollout bot's favourite, or a random one."""
        if self._policy == RANDOM_POLICY:
            return untried[self._rng.randrange(len(untried))]
        cand = np.array(untried, np.int64)
        return untried[SK.choose(state, cand, len(untried), self._policy)]

    def _select(self, node: _Node, actions: list[int], p: int) -> int:
        """UCT over the children, for seat ``p``; the first best on ties."""
        best, best_score = actions[0], -math.inf
        log_n = math.log(max(node.n, 1))
        for a in actions:
            kid = node.kids[a]
            score = kid.w[p] / kid.n + self.c * math.sqrt(log_n / kid.n)
            if score > best_score:
                best, best_score = a, score
        return best

    def _returns(self, state: np.ndarray, seats: int) -> list[float]:
        """Per-seat rank returns mixed with the soft margin (zeros when cut off unfinished,
        except the margin part, which scores the position reached)."""
        K.returns(state, self._ret)
        SK.soft_returns(state, self.scale, self._soft)
        m = self.margin
        return [(1.0 - m) * self._ret[q] + m * self._soft[q] for q in range(seats)]


def _parse_option(spec: str, item: str) -> tuple[str, float | int]:
    key, eq, value = item.partition("=")
    option = _OPTIONS.get(key)
    if not eq or option is None:
        raise ValueError(
            f"agent {spec!r}: option {item!r} is not allowed; allowed: "
            + ", ".join(f"{k}=<{o.allowed()}>" for k, o in _OPTIONS.items())
        )
    try:
        parsed = option.kind(value)
    except ValueError:
        parsed = None
    if parsed is None or not option.low <= parsed <= option.high:
        raise ValueError(
            f"agent {spec!r}: {key}={value!r} is not allowed; allowed: {key}=<{option.allowed()}>"
        )
    return key, parsed


def make_mcts(spec: str, arg: str | None) -> MCTSAgent:
    """Registry factory: ``mcts:SIMS[:ROLLOUT][:key=value...]``.

    Raises:
        ValueError: naming the bad part of the spec and what is allowed there.
    """
    parts = (arg or "").split(":")
    try:
        sims = int(parts[0])
    except ValueError:
        sims = 0
    if not 1 <= sims <= MAX_SIMS:
        raise ValueError(
            f"agent {spec!r}: SIMS must be an int from 1 to {MAX_SIMS}, got {parts[0]!r}"
        )
    rest = parts[1:]
    rollout = DEFAULT_ROLLOUT
    if rest and "=" not in rest[0]:
        rollout = rest.pop(0)
        if rollout not in ROLLOUTS:
            raise ValueError(
                f"agent {spec!r}: rollout {rollout!r} is not allowed; allowed: "
                f"{', '.join(ROLLOUTS)}"
            )
    options = dict(_parse_option(spec, item) for item in rest)
    return MCTSAgent(spec, sims, rollout, **options)
