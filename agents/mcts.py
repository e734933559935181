"""``mcts:SIMS``: plain UCT over copies of the engine state, with compiled rollouts.

Caylus has no hidden information after setup, so the search works directly on
exact copies of the flat state array. Each tree node holds the position (its
``int16`` state, 700 bytes), the seat to move there (read with
``rules.current_player``: the engine applies forced moves itself, so turns do not
alternate regularly), its legal actions, and per-seat sums of the returns that
went through it. One simulation:

1. *selection*: from the root, while a node has no untried action, go to the child
   with the best UCT score **for the seat to move at that node** (max^n: every seat
   maximizes its own return; ``q + c * sqrt(ln N / n)``);
2. *expansion*: try one untried action (in a seeded random order): copy the state,
   ``rules._apply`` + ``rules.advance``;
3. *rollout* in compiled code (``agents._mcts_kernels.rollout``) with a policy:
   ``heuristic`` (default; cheap rules of thumb that place workers where they
   produce, give batches and build, which makes the returns far more informative than
   uniform play), ``random`` (uniform, like ``rules.random_playout``) or a scripted
   bot name (``castle``, ``town``, ``economy``: every seat plays that bot; much
   stronger but about a hundred times slower, so only for small budgets);
   a rollout may be cut off after ``max_rollout`` decisions and scored with the
   bots' value function (soft ranks, see ``_mcts_kernels``);
4. *backpropagation* of the per-seat returns: the game's rank-based returns in
   [-1, 1] (``Game.returns``).

The action played is the root's most visited child. The subtree below it is kept
and reused at the next decision when the game followed it (the actions played
since are read from ``game.history``). A search stops early once no other action
can catch up with the most visited one.

Spec strings: ``mcts:SIMS`` (heuristic rollouts), ``mcts:SIMS:ROLLOUT`` with ROLLOUT
one of ``heuristic``, ``random``, ``castle``, ``town``, ``economy``, optionally
followed by ``:key=value`` options among ``c`` (exploration, float), ``cutoff``
(``max_rollout``, int) and ``scale`` (prestige margin of a clear lead in a cut-off
rollout, float), e.g. ``mcts:400:heuristic:c=0.8``.

Determinism: ``reset(seed)`` seeds a ``random.Random``; every ``act`` draws from it
the seed of numba's generator (``rules.seed_playouts``) and the expansion order, so
the same seed and the same game give the same actions.
"""

from __future__ import annotations

import math
import random

import numpy as np

from agents import _mcts_kernels as MK
from agents.scripted import _kernels as SK
from agents.scripted.bots import STRATEGIES, Strategy
from caylus_env.engine import Game, rules
from caylus_env.engine.actions import NUM_ACTIONS

ROLLOUTS = ("heuristic", "random", *STRATEGIES)
UNLIMITED = 1 << 30


class _Node:
    """One position of the search tree."""

    __slots__ = (
        "actions",
        "kid_actions",
        "kids",
        "n",
        "player",
        "state",
        "terminal",
        "untried",
        "w",
    )

    def __init__(
        self,
        state: np.ndarray,
        out: np.ndarray,
        n_legal: int,
        seats: int,
        order: list[int],
    ) -> None:
        self.state = state
        self.player = int(rules.current_player(state))
        self.actions = out[:n_legal].tolist()
        self.untried = order  # indices into ``actions``; the next one to try is last
        self.kids: list[_Node] = []
        self.kid_actions: list[int] = []
        self.n = 0
        self.w = [0.0] * seats
        self.terminal: list[float] | None = None
        if n_legal == 0:
            ret = np.zeros(seats)
            MK.rank_returns(state, ret)
            self.terminal = ret.tolist()

    def child(self, action: int) -> _Node | None:
        for a, kid in zip(self.kid_actions, self.kids, strict=True):
            if a == action:
                return kid
        return None


class MCTSAgent:
    """UCT search with compiled rollouts (see the module docstring).

    Args:
        name: the spec string.
        sims: simulations per decision.
        rollout: ``heuristic``, ``random`` or a scripted bot's name.
        c: UCT exploration constant (returns lie in [-1, 1]).
        max_rollout: decisions after which a rollout is cut off and scored with the
            bots' value function (``None``: play to the end).
        scale: prestige margin that counts as a clear lead when scoring a cut-off.
        widen: progressive widening: a node visited ``n`` times may have at most
            ``ceil(widen * (n + 1) ** widen_power)`` children; 0 expands every action
            before exploiting (plain UCT).
        widen_power: exponent of the widening schedule.
        prior: a scripted bot's name whose one-ply values order the actions to expand
            (best first), or ``None`` for a seeded random order.
        reuse: keep the chosen subtree for the next decision.
        bot_depth: follow-up search depth of scripted-bot rollouts and priors.
        seed: seed of the agent's generator.
    """

    def __init__(
        self,
        name: str = "mcts:200",
        sims: int = 200,
        rollout: str = "heuristic",
        c: float = 1.0,
        max_rollout: int | None = None,
        scale: float = 10.0,
        widen: float = 0.0,
        widen_power: float = 0.5,
        prior: str | None = None,
        reuse: bool = True,
        bot_depth: int = 2,
        seed: int | None = None,
    ) -> None:
        if sims < 1:
            raise ValueError(f"mcts needs at least 1 simulation, got {sims}")
        if rollout not in ROLLOUTS:
            raise ValueError(f"unknown rollout {rollout!r}; allowed: {', '.join(ROLLOUTS)}")
        if prior is not None and prior not in STRATEGIES:
            raise ValueError(f"unknown prior {prior!r}; allowed: {', '.join(STRATEGIES)}")
        self.name = name
        self.sims = int(sims)
        self.rollout = rollout
        self.c = float(c)
        self.max_rollout = UNLIMITED if max_rollout is None else int(max_rollout)
        self.scale = float(scale)
        self.widen = float(widen)
        self.widen_power = float(widen_power)
        self.prior = prior
        self.reuse = reuse
        self.bot_depth = int(bot_depth)
        if rollout == "random":
            self._policy = MK.POLICY_RANDOM
        elif rollout == "heuristic":
            self._policy = MK.POLICY_HEURISTIC
        else:
            self._policy = MK.POLICY_BOT
        evaluator = STRATEGIES.get(rollout, STRATEGIES.get(prior or "castle", Strategy()))
        self._bot_weights = np.tile(evaluator.to_array(), (5, 1))
        self._eval_weights = evaluator.to_array()
        self._prior_weights = STRATEGIES[prior].to_array() if prior is not None else None
        self._out = np.empty(NUM_ACTIONS, np.int64)
        self._values = np.empty(NUM_ACTIONS)
        self._ret = np.zeros(5)
        self._buf: np.ndarray | None = None
        self.reset(seed)

    def reset(self, seed: int | None = None) -> None:
        self._rng = random.Random(seed)
        self._root: _Node | None = None
        self._history_len = -1
        self.last_simulations = 0

    # -- tree ------------------------------------------------------------------------------
    def _new_node(self, state: np.ndarray, n_legal: int, seats: int) -> _Node:
        """A node for ``state`` whose ``n_legal`` legal actions are in ``self._out``."""
        order = list(range(n_legal))
        self._rng.shuffle(order)
        if self._prior_weights is not None and n_legal > 1:
            SK.action_values(
                state, self._out, n_legal, self._prior_weights, self.bot_depth, self._values
            )
            values = self._values
            order.sort(key=lambda i: values[i])  # stable: random among equal values
        return _Node(state, self._out, n_legal, seats, order)

    def _reused_root(self, game: Game) -> _Node | None:
        """The kept subtree's node for the current position, if the game followed it."""
        node = self._root
        if node is None or not self.reuse or len(game.history) < self._history_len:
            return None
        for a in game.history[self._history_len :]:
            node = node.child(a)
            if node is None:
                return None
        return node if np.array_equal(node.state, game.state) else None

    def _may_expand(self, node: _Node) -> bool:
        if not node.untried:
            return False
        if self.widen <= 0.0:
            return True
        return len(node.kids) < math.ceil(self.widen * (node.n + 1) ** self.widen_power)

    def _simulate(self, root: _Node, seats: int) -> None:
        node = root
        path = [root]
        ret: list[float]
        while True:
            if node.terminal is not None:
                ret = node.terminal
                break
            if self._may_expand(node):
                a = node.actions[node.untried.pop()]
                state = np.empty_like(node.state)
                n_legal = MK.expand(node.state, a, state, self._out)
                kid = self._new_node(state, n_legal, seats)
                node.kids.append(kid)
                node.kid_actions.append(a)
                path.append(kid)
                if kid.terminal is not None:
                    ret = kid.terminal
                else:
                    self._buf[:] = state
                    MK.rollout(
                        self._buf,
                        self._out,
                        self._policy,
                        self._bot_weights,
                        self.bot_depth,
                        self.max_rollout,
                        self._eval_weights,
                        self.scale,
                        self._ret,
                    )
                    ret = self._ret[:seats].tolist()
                break
            node = self._select(node)
            path.append(node)
        for nd in path:
            nd.n += 1
            w = nd.w
            for i in range(seats):
                w[i] += ret[i]

    def _select(self, node: _Node) -> _Node:
        p = node.player
        log_n = math.log(node.n)
        c = self.c
        best = node.kids[0]
        best_v = -math.inf
        for kid in node.kids:
            v = kid.w[p] / kid.n + c * math.sqrt(log_n / kid.n)
            if v > best_v:
                best_v = v
                best = kid
        return best

    # -- acting ------------------------------------------------------------------------------
    def act(self, game: Game) -> int:
        legal = game.legal_actions()
        if len(legal) == 1:
            return legal[0]
        seats = game.num_players
        rules.seed_playouts(self._rng.getrandbits(31))
        if self._buf is None or self._buf.shape != game.state.shape:
            self._buf = np.empty_like(game.state)
        root = self._reused_root(game)
        if root is None:
            self._out[: len(legal)] = legal
            root = self._new_node(game.state.copy(), len(legal), seats)
        done = 0
        while done < self.sims:
            self._simulate(root, seats)
            done += 1
            if done % 16 == 0:
                visits = [*sorted((k.n for k in root.kids), reverse=True), 0]
                if visits[0] - visits[1] > self.sims - done:
                    break  # no other action can catch up with the most visited one
        self.last_simulations = done
        best = max(
            range(len(root.kids)),
            key=lambda i: (root.kids[i].n, root.kids[i].w[root.player] / root.kids[i].n),
        )
        action = root.kid_actions[best]
        self._root = root.kids[best]
        self._history_len = len(game.history) + 1
        return int(action)


def make_mcts(spec: str, arg: str | None) -> MCTSAgent:
    """Build an ``MCTSAgent`` from ``mcts:SIMS[:ROLLOUT][:key=value...]`` (``arg`` = after
    the first colon).

    Raises:
        ValueError: naming the bad part and what is allowed.
    """
    parts = (arg or "").split(":")
    try:
        sims = int(parts[0])
    except ValueError:
        raise ValueError(
            f"mcts spec {spec!r}: SIMS must be a positive int, e.g. 'mcts:200'"
        ) from None
    if sims < 1:
        raise ValueError(f"mcts spec {spec!r}: SIMS must be a positive int, got {sims}")
    kwargs: dict[str, object] = {}
    rest = parts[1:]
    if rest and "=" not in rest[0]:
        kwargs["rollout"] = rest.pop(0)
        if kwargs["rollout"] not in ROLLOUTS:
            raise ValueError(
                f"mcts spec {spec!r}: unknown rollout {kwargs['rollout']!r}; "
                f"allowed: {', '.join(ROLLOUTS)}"
            )
    options = {
        "c": ("c", float),
        "cutoff": ("max_rollout", int),
        "scale": ("scale", float),
        "widen": ("widen", float),
        "power": ("widen_power", float),
        "prior": ("prior", str),
        "depth": ("bot_depth", int),
    }
    for part in rest:
        key, _, value = part.partition("=")
        if key not in options or not value:
            raise ValueError(
                f"mcts spec {spec!r}: bad option {part!r}; allowed: c=FLOAT, cutoff=INT, "
                "scale=FLOAT, widen=FLOAT, power=FLOAT, prior=BOT, depth=INT"
            )
        field, kind = options[key]
        try:
            kwargs[field] = kind(value)
        except ValueError:
            raise ValueError(f"mcts spec {spec!r}: {key} must be a {kind.__name__}") from None
        if key == "prior" and value not in STRATEGIES:
            raise ValueError(
                f"mcts spec {spec!r}: unknown prior {value!r}; allowed: {', '.join(STRATEGIES)}"
            )
    return MCTSAgent(spec, sims, **kwargs)  # type: ignore[arg-type]
