"""``mcts:SIMS``: UCT over copies of the engine state, with compiled rollouts.

Caylus has no hidden information after setup, so the search works directly on
exact copies of the flat state array. Each tree node holds the position (its
``int16`` state, 700 bytes), the seat to move there (read with
``kernels.current_player``: the engine applies forced moves itself, so turns do not
alternate regularly), its legal actions, and per-seat sums of the returns that
went through it. One simulation:

1. *selection*: from the root, while a node may not grow (see widening), go to the
   child with the best UCT score **for the seat to move at that node** (max^n: every
   seat maximizes its own return; ``q + c * sqrt(ln N / n)``);
2. *expansion*: add one untried action: copy the state, ``kernels.apply`` +
   ``kernels.advance``. Actions are tried best first according to a scripted bot's
   one-ply values (``prior``), and with *progressive widening* a node visited ``n``
   times has at most ``ceil(widen * sqrt(n + 1))`` children, so the few simulations
   go to the moves a good player would consider;
3. *rollout* in compiled code (``caylus_env.caylus.bots.mcts_kernels.rollout``) with a policy: a
   scripted bot (default ``castle``: every seat plays the bot's one-ply search,
   see below for opponents), ``heuristic`` (cheap rules of thumb that place workers
   where they produce, give batches and build; ~60 times faster per rollout) or
   ``random`` (uniform, like ``kernels.random_playout``). A rollout may be cut off
   after ``max_rollout`` decisions and scored with the bots' value function;
4. *backpropagation* of the per-seat returns: the game's rank-based returns in
   [-1, 1] (``Game.returns``), mixed (``margin``, default 0.5) with their soft version
   ``tanh(prestige difference / scale)``, which keeps rank's ordering of wins and
   losses but also prefers winning by more and losing by less: with near-
   deterministic bot rollouts, pure win/loss returns give every move the same value
   whenever all of them win (or all lose).

*Opponent models* (``model``, on by default): rollouts and expansion orders of the
opponent seats follow, per seat, the scripted strategy (castle, town, economy) that
best predicts that player's moves so far in the game: before each search the moves
made since the last one are replayed and each strategy whose best action matches the
move is credited. Against the economy bot, for instance, castle-bot rollouts for
both seats mispredict its provost cuts and the search lost 21 of 26 games; with the
model it wins most of them.

*Budget*: ``SIMS`` simulations for a decision with 8 legal actions; a decision with
``n`` gets ``SIMS * sqrt(n / 8)``, clipped to ``[SIMS / 4, 2 * SIMS]`` (``scaled``).
A search stops early once no other action can catch up with the most visited one,
which is the action played. The subtree below it is kept and reused at the next
decision when the game followed it (the actions since are read from
``game.history``).

Spec strings: ``mcts:SIMS`` (the defaults above), ``mcts:SIMS:ROLLOUT`` with ROLLOUT
one of ``castle``, ``town``, ``economy``, ``heuristic``, ``random``, optionally
followed by ``:key=value`` options: ``c`` (exploration, float), ``cutoff``
(``max_rollout``, int), ``scale`` (float), ``margin`` (float), ``widen`` (float, 0 =
plain UCT), ``power`` (widening exponent), ``prior`` (a bot or ``none``), ``depth``
(follow-up depth of bot rollouts and priors), ``scaled`` and ``model`` (0 or 1), e.g.
``mcts:2000:heuristic:prior=none:widen=0:c=1`` for textbook UCT.

Measured (2-player games, seats alternating, one core per game): ``mcts:60`` took
28 s per game on average (at most 58 s, on a shared machine) and beat the strongest
scripted bot, ``economy``, in 44 of 60 games (73%, Wilson 95% interval 61-83%; 3 of
the 44 were shared wins) and ``castle`` in 31 of 40 (78%, 63-88%).

Determinism: ``reset(seed)`` seeds a ``random.Random``; every ``act`` draws from it
the seed of numba's generator (``kernels.seed_playouts``) and the expansion order, and
the opponent models depend only on the game, so the same seed and the same game give
the same actions.
"""

from __future__ import annotations

import contextlib
import math
import random
from typing import NamedTuple

import numpy as np

from caylus_env.caylus.bots import mcts_kernels as MK
from caylus_env.caylus.bots import scripted_kernels as SK
from caylus_env.caylus.bots.scripted import STRATEGIES
from caylus_env.caylus.engine import Game, kernels
from caylus_env.caylus.engine.actions import NUM_ACTIONS

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
        player: int,
        order: list[int],
        terminal: list[float] | None,
    ) -> None:
        self.state = state
        self.player = player
        self.actions = out[:n_legal].tolist()
        self.untried = order  # indices into ``actions``; the next one to try is last
        self.kids: list[_Node] = []
        self.kid_actions: list[int] = []
        self.n = 0
        self.w = [0.0] * seats
        self.terminal = terminal  # the returns, once the game is over

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
        margin: weight, in the returns of a finished game, of their soft version
            (``tanh`` of prestige differences over ``scale``) against the rank returns.
        widen: progressive widening: a node visited ``n`` times may have at most
            ``ceil(widen * (n + 1) ** widen_power)`` children; 0 expands every action
            before exploiting (plain UCT).
        widen_power: exponent of the widening schedule.
        prior: a scripted bot's name whose one-ply values order the actions to expand
            (best first), or ``None`` for a seeded random order.
        scaled: scale the budget with the number of legal actions: a decision with
            ``n`` of them gets ``sims * sqrt(n / 8)`` simulations, clipped to
            ``[sims / 4, 2 * sims]`` (placements have 15-30 choices, many follow-ups 2).
        model: model the opponents: each opponent seat's rollouts and expansion order
            follow the scripted strategy that best predicts its moves so far in this game
            (``_update_models``); the own seat follows ``rollout`` and ``prior``.
        reuse: keep the chosen subtree for the next decision.
        bot_depth: follow-up search depth of scripted-bot rollouts and priors.
        seed: seed of the agent's generator.
    """

    def __init__(
        self,
        name: str = "mcts:60",
        sims: int = 60,
        rollout: str = "castle",
        c: float = 0.5,
        max_rollout: int | None = None,
        scale: float = 10.0,
        margin: float = 0.5,
        widen: float = 1.0,
        widen_power: float = 0.5,
        prior: str | None = "castle",
        scaled: bool = True,
        model: bool = True,
        reuse: bool = True,
        bot_depth: int = 2,
        seed: int | None = None,
    ) -> None:
        if sims < 1:
            raise ValueError(f"mcts needs at least 1 simulation, got {sims}")
        if rollout not in ROLLOUTS:
            raise ValueError(f"unknown rollout {rollout!r}; allowed: {', '.join(ROLLOUTS)}")
        if prior == "none":
            prior = None
        if prior is not None and prior not in STRATEGIES:
            raise ValueError(f"unknown prior {prior!r}; allowed: {', '.join(STRATEGIES)}")
        self.name = name
        self.sims = int(sims)
        self.rollout = rollout
        self.c = float(c)
        self.max_rollout = UNLIMITED if max_rollout is None else int(max_rollout)
        self.scale = float(scale)
        self.margin = float(margin)
        self.widen = float(widen)
        self.widen_power = float(widen_power)
        self.prior = prior
        self.scaled = scaled
        self.model = model
        self.reuse = reuse
        self.bot_depth = int(bot_depth)
        if rollout == "random":
            self._policy = MK.POLICY_RANDOM
        elif rollout == "heuristic":
            self._policy = MK.POLICY_HEURISTIC
        else:
            self._policy = MK.POLICY_BOT
        self._own = rollout if rollout in STRATEGIES else (prior or "castle")
        self._eval_weights = STRATEGIES[self._own].to_array()
        self._strategy_names = list(STRATEGIES)
        self._strategy_weights = [STRATEGIES[k].to_array() for k in self._strategy_names]
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
        self._distribution: tuple[tuple[int, ...], tuple[float, ...]] | None = None
        self._visits: tuple[tuple[int, ...], tuple[int, ...]] | None = None
        # Per seat: rollout weights (one row each) and expansion-order weights (or None).
        self._bot_weights = np.tile(self._eval_weights, (5, 1))
        self._prior_weights: list[np.ndarray | None] = [
            STRATEGIES[self.prior].to_array() if self.prior is not None else None
        ] * 5
        self._replay: Game | None = None
        self._matches = np.zeros((5, len(self._strategy_names)))
        #: per seat, the name of the strategy its rollouts follow
        self.seat_models: list[str] = [self._own] * 5

    # -- opponent models -----------------------------------------------------------------
    def _update_models(self, game: Game) -> None:
        """Replay the moves made since the last call and credit, for every opponent move,
        each scripted strategy that would have made it (among its best-valued actions);
        each opponent then follows its best-matching strategy (the own one on ties)."""
        me = game.current_player()
        replay = self._replay
        if replay is None or len(replay.history) > len(game.history):
            if game.seed is not None:
                replay = Game(game.config, game.seed)
            elif game.start is not None:
                replay = Game.from_state_dict(game.start)
            else:
                return
            self._matches[:] = 0.0
        values = self._values
        for a in game.history[len(replay.history) :]:
            q = replay.current_player()
            if q != me:
                legal = np.asarray(replay.legal_actions(), np.int64)
                i = int(np.flatnonzero(legal == a)[0])
                for k, w in enumerate(self._strategy_weights):
                    SK.action_values(replay.state, legal, len(legal), w, SK.MAX_DEPTH, values)
                    if values[i] >= values[: len(legal)].max() - 1e-9:
                        self._matches[q, k] += 1.0
            replay.apply(a)
        if not np.array_equal(replay.state, game.state):
            self._replay = None  # not the game we followed: start over next time
            return
        self._replay = replay
        own = self._strategy_names.index(self._own)
        for q in range(game.num_players):
            k = own
            if q != me and self._matches[q].max() > self._matches[q, own]:
                k = int(np.argmax(self._matches[q]))
            self.seat_models[q] = self._strategy_names[k]
            self._bot_weights[q] = self._strategy_weights[k]
            if self.prior is not None:
                self._prior_weights[q] = (
                    STRATEGIES[self.prior].to_array() if q == me else self._strategy_weights[k]
                )

    # -- tree ------------------------------------------------------------------------------
    def _new_node(self, state: np.ndarray, n_legal: int, seats: int) -> _Node:
        """A node for ``state`` whose ``n_legal`` legal actions are in ``self._out``."""
        player = int(kernels.current_player(state))
        order = list(range(n_legal))
        self._rng.shuffle(order)
        weights = self._prior_weights[player] if player >= 0 else None
        if weights is not None and n_legal > 1:
            SK.action_values(state, self._out, n_legal, weights, self.bot_depth, self._values)
            values = self._values
            order.sort(key=lambda i: values[i])  # stable: random among equal values
        terminal = None
        if n_legal == 0:
            ret = np.zeros(seats)
            MK.final_returns(state, self.margin, self.scale, self._eval_weights, ret)
            terminal = ret.tolist()
        return _Node(state, self._out, n_legal, seats, player, order, terminal)

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
                        self.margin,
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
    def budget(self, n_legal: int) -> int:
        """Simulations for a decision with ``n_legal`` legal actions (see ``scaled``)."""
        if not self.scaled:
            return self.sims
        share = min(max(math.sqrt(n_legal / 8.0), 0.25), 2.0)
        return max(1, round(self.sims * share))

    def action_distribution(self) -> tuple[tuple[int, ...], tuple[float, ...]] | None:
        """The root visit counts of the last search, normalised (one-hot for a decision with
        one legal action, which is not searched); None before any ``act``."""
        return self._distribution

    def visit_counts(self) -> tuple[tuple[int, ...], tuple[int, ...]] | None:
        """The root visit counts of the last search, ``(actions, counts)`` (what
        `action_distribution` normalises); None before any ``act`` and after a decision with
        one legal action, which is not searched."""
        return self._visits

    def act(self, game: Game) -> int:
        legal = game.legal_actions()
        if len(legal) == 1:
            self._distribution = ((legal[0],), (1.0,))
            self._visits = None
            return legal[0]
        seats = game.num_players
        if self.model:
            self._update_models(game)
        kernels.seed_playouts(self._rng.getrandbits(31))
        if self._buf is None or self._buf.shape != game.state.shape:
            self._buf = np.empty_like(game.state)
        root = self._reused_root(game)
        if root is None:
            self._out[: len(legal)] = legal
            root = self._new_node(game.state.copy(), len(legal), seats)
        budget = self.budget(len(legal))
        done = 0
        while done < budget:
            self._simulate(root, seats)
            done += 1
            if done % 8 == 0:
                visits = [*sorted((k.n for k in root.kids), reverse=True), 0]
                if visits[0] - visits[1] > budget - done:
                    break  # no other action can catch up with the most visited one
        self.last_simulations = done
        best = max(
            range(len(root.kids)),
            key=lambda i: (root.kids[i].n, root.kids[i].w[root.player] / root.kids[i].n),
        )
        action = root.kid_actions[best]
        visits = sum(kid.n for kid in root.kids)
        self._visits = (
            tuple(int(a) for a in root.kid_actions),
            tuple(int(kid.n) for kid in root.kids),
        )
        self._distribution = (
            tuple(int(a) for a in root.kid_actions),
            tuple(kid.n / visits for kid in root.kids),
        )
        self._root = root.kids[best]
        self._history_len = len(game.history) + 1
        return int(action)


MAX_SIMS = 100_000
"""Most simulations per decision a spec may ask for: ``mcts:200`` takes about 0.6 s a move, so
100,000 is several minutes a move, past any sensible move time limit; a larger count is a
typo (and one that would hold a worker for hours)."""


class _Option(NamedTuple):
    """One ``key=value`` option of an mcts spec: the ``MCTSAgent`` argument it sets, the kind of
    its value and, for numbers, the closed range allowed (NaN and infinities never are)."""

    field: str
    kind: str
    lo: float = 0.0
    hi: float = 0.0

    def allowed(self) -> str:
        if self.kind in ("FLOAT", "INT"):
            return f"{self.kind} in [{self.lo:g}, {self.hi:g}]"
        return self.kind


#: spec option -> its `_Option`. The ranges keep every value where the search means something:
#: returns lie in [-1, 1] (so ``c`` beyond 100 is pure exploration), ``margin`` is a weight,
#: ``scale`` divides prestige margins (0 would divide by zero), a game has under 2,000
#: decisions (``cutoff``), the scripted bots search ``depth`` follow-up levels (each level
#: multiplies the cost; their own default is 4).
_OPTIONS: dict[str, _Option] = {
    "c": _Option("c", "FLOAT", 0.0, 100.0),
    "cutoff": _Option("max_rollout", "INT", 1, 100_000),
    "scale": _Option("scale", "FLOAT", 0.01, 1000.0),
    "margin": _Option("margin", "FLOAT", 0.0, 1.0),
    "widen": _Option("widen", "FLOAT", 0.0, 100.0),
    "power": _Option("widen_power", "FLOAT", 0.0, 2.0),
    "prior": _Option("prior", "BOT"),
    "depth": _Option("bot_depth", "INT", 0, 8),
    "scaled": _Option("scaled", "0|1"),
    "model": _Option("model", "0|1"),
}


def _parse_option(spec: str, key: str, value: str, option: _Option) -> object:
    """The value of one ``key=value`` option of an mcts spec, inside its allowed range."""
    kind = option.kind
    number: float | None = None
    with contextlib.suppress(ValueError):  # an unparsable number falls through to the error
        if kind == "FLOAT":
            number = float(value)
        elif kind == "INT":
            number = int(value)
        elif kind == "0|1" and value in ("0", "1"):
            return value == "1"
        elif kind == "BOT" and (value in STRATEGIES or value == "none"):
            return value
    if number is not None and math.isfinite(number) and option.lo <= number <= option.hi:
        return number
    allowed = ", ".join((*STRATEGIES, "none")) if kind == "BOT" else option.allowed()
    raise ValueError(f"mcts spec {spec!r}: bad value {value!r} for {key}; allowed: {allowed}")


def make_mcts(spec: str, arg: str | None) -> MCTSAgent:
    """Build an ``MCTSAgent`` from ``mcts:SIMS[:ROLLOUT][:key=value...]`` (``arg`` = after
    the first colon). SIMS is 1 to `MAX_SIMS`; each option's range is in `_OPTIONS`.

    Raises:
        ValueError: naming the bad part and what is allowed.
    """
    parts = (arg or "").split(":")
    try:
        sims = int(parts[0])
    except ValueError:
        raise ValueError(
            f"mcts spec {spec!r}: SIMS must be an int from 1 to {MAX_SIMS}, e.g. 'mcts:200'"
        ) from None
    if not 1 <= sims <= MAX_SIMS:
        raise ValueError(f"mcts spec {spec!r}: SIMS={sims}; allowed: 1 to {MAX_SIMS}")
    kwargs: dict[str, object] = {}
    rest = parts[1:]
    if rest and "=" not in rest[0]:
        kwargs["rollout"] = rest.pop(0)
        if kwargs["rollout"] not in ROLLOUTS:
            raise ValueError(
                f"mcts spec {spec!r}: unknown rollout {kwargs['rollout']!r}; "
                f"allowed: {', '.join(ROLLOUTS)}"
            )
    for part in rest:
        key, _, value = part.partition("=")
        if key not in _OPTIONS or not value:
            allowed = ", ".join(f"{k}={o.allowed()}" for k, o in _OPTIONS.items())
            raise ValueError(f"mcts spec {spec!r}: bad option {part!r}; allowed: {allowed}")
        option = _OPTIONS[key]
        kwargs[option.field] = _parse_option(spec, key, value, option)
    return MCTSAgent(spec, sims, **kwargs)  # type: ignore[arg-type]
