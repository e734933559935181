"""``puct:SIMS[:key=value...]``: AlphaZero-style search guided by a trained checkpoint, for
every game.

The search is written once, over the game contract's kernels (``caylus_env.core.contract``),
and compiled per game and network kind by ``caylus_env.core.specialize``: the game's
``kernels`` (``apply``, ``advance``, ``legal_actions``, ``current_player``, ``is_terminal``,
``returns``, ``scores``, ``determinize``), its observer's ``encode_into`` and the network's
compiled forward pass (``agents.policy.PolicyNet.search_network``: ``pieces_forward`` or
``mlp_forward``) are inlined into one numba kernel, `search`, that runs every simulation of
a move without returning to Python.

One move, from the position of the seat to move (``seat``):

1. *the root*: a copy of the state determinized for ``seat`` (the game's
   ``kernels.determinize``: Caylus hides nothing, Puerto Rico redraws the order of its
   face-down plantations and the generator of later draws, Caylus 1303 with
   ``hide_opponent_pp`` gives every opponent ``seat``'s own prestige), evaluated like a leaf
   (below) for its priors;
2. every *simulation* starts from a fresh copy of the real state, determinized for ``seat``
   with a seed drawn from the agent's stream (one determinization per simulation, as the
   games' MCTS does; for a game with nothing hidden every copy is the same), so no hidden
   information reaches the search and chance below the root follows the drawn generator.
   The tree is shared by the determinizations: a node is the sequence of actions from the
   root, and what is legal is read from the current copy (a determinization can change
   the face-up plantations of a later settler phase);
3. *selection*: at a node, among the actions legal in the current copy, the one maximizing
   ``Q + c * P * sqrt(N) / (1 + n)`` for the seat to move there (max^n: each seat
   maximizes its own value; with 2 players the values are zero-sum, so this is negamax),
   where ``N`` is the node's visits, ``n`` the child's, ``P`` the network's softmax over the
   legal actions of the node's stored logits (stored for every action, so an action legal
   only in another determinization still has a prior), and ``Q`` the child's mean value for
   that seat; an unvisited child's ``Q`` is the node's own mean value for that seat minus
   ``fpu`` (*first-play urgency*: an untried move is assumed a little worse than the
   position, so the search widens only where the prior is strong). Ties go to the lowest
   action id. The engine plays forced moves itself (``advance``), so every node is a real
   decision;
4. *expansion and evaluation*: the first action without a child gets one: the network reads
   the observation of the seat to move there (``encode_into(state, mover, obs)``) and gives
   the node's logits and the mover's value; with 3 to 5 players every other seat's value is
   read from its own observation (one value head each: the opponents' values are theirs,
   not the mover's guess), with 2 players the other seat's value is minus the mover's. A
   finished game is valued exactly: its rank returns (``kernels.returns``; 0 for a game cut
   off by a decision cap);
5. *backpropagation* of the per-seat values to every node of the path.

*The value head and the shaped reward.* A checkpoint trained with the shaped score-margin
reward (``caylus train ppo --shaping W``, ``training.vecenv``) has a value head that
estimates the rank reward plus ``W`` times the margin over the best opponent *still to be
gained*, in units of the game's ``score_scale``; the margin already banked is not in it, so
two children that differ by prestige just won would look alike. The search therefore adds
the potential back: a leaf's value for seat ``q`` is ``V_q + W * margin_q / score_scale``, a
finished game's ``returns_q + W * margin_q / score_scale``, which makes leaves and finished
games comparable (the return of the shaped game from the start). ``W`` is read from the
checkpoint's training command (``PolicyNet.shaping``: 0 for behaviour cloning or unshaped
PPO, where the value head estimates the rank return itself) and can be set with
``shaping=``.

The move played is the most visited root child (ties: the better mean value for the mover,
then the lowest action id); with ``temp=T > 0`` it is drawn from the visit counts raised to
``1 / T``, with the agent's seeded generator. ``action_distribution()`` gives the root visit
counts normalised (the policy target of ``caylus dataset generate --policy-targets``),
``visit_counts()`` the counts.

*The Gumbel root* (``gumbel=M``, `gumbel_search`): Gumbel AlphaZero's root (Danihelka et al.,
ICLR 2022) over ``M`` considered moves, with sequential halving of the simulations and the
improved policy ``softmax(logit + sigma(completedQ))`` as ``action_distribution()``; PUCT
below it (docs/agents.md).

Spec: ``puct:SIMS[:key=value...]``, SIMS simulations a move (1 to `MAX_SIMS`), options
(`OPTIONS`): ``ckpt=NAME|PATH`` (a checkpoint shipped for the game, by name, or a checkpoint
directory; default: the game's shipped checkpoint whose name starts with ``ppo-``, the first
by name; a game without one needs ``ckpt=``), ``c=`` (exploration), ``fpu=`` (first-play
urgency), ``temp=`` (0: most visited), ``shaping=`` (the margin weight above),
``gumbel=``, ``cvisit=``, ``cscale=`` (the Gumbel root). A checkpoint
of another game is refused naming both games. A path cannot hold ``:`` (it separates the
options).

Determinism: ``reset(seed)`` seeds the agent's two streams (``SeedSequence(seed)``): the
determinization seeds (a splitmix64 stream read inside the kernel) and the ``temp`` draws.
The network runs in a fixed summation order and the search is sequential, so the same seed
and the same game give the same moves, bit for bit.
"""

from __future__ import annotations

import contextlib
import functools
import math
from dataclasses import dataclass
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import numpy as np

from caylus_env.core import _cache  # noqa: F401  (the kernel cache, before any kernel)
from caylus_env.core.bindings import NUM_ACTIONS, OBS_SIZE, K, encode, forward, game_bindings
from caylus_env.core.observation import MAX_PLAYERS
from caylus_env.core.registry import game_spec
from caylus_env.core.specialize import specialize
from caylus_env.core.vector import next_random, next_uniform

#: Most simulations a move: the tree holds one node per simulation with a logit and a child
#: slot for every action (about 1.8 KB a node for Puerto Rico's 223 actions), so 20,000 is
#: 36 MB and, at 25 to 40 microseconds a simulation with 2 players (docs/agents.md), under a
#: second a move; a larger count is a typo.
MAX_SIMS = 20_000
#: The shipped checkpoints a ``puct`` spec plays by default start with this.
DEFAULT_PREFIX = "ppo-"
_U1 = np.uint64(1)


# ---------------------------------------------------------------------------------------
# The search, compiled per game and network kind (globals K, encode, forward, NUM_ACTIONS,
# OBS_SIZE, declared in `caylus_env.core.bindings`, are bound by `specialize`).
# ---------------------------------------------------------------------------------------
def _draw(rng):
    """The next determinization seed of the agent's stream, in [0, 2**63)."""
    return np.int64(next_random(rng, 0) >> _U1)


def _margin(sc, q, players):
    """Seat ``q``'s score minus the best other seat's (the shaped reward's potential)."""
    best = -(1 << 62)
    for r in range(players):
        if r != q and sc[r] > best:
            best = sc[r]
    return sc[q] - best


def _exact(s, players, sc, ret, shaping, scale, val):
    """The values of a game that is over: the rank returns (0 when cut off unfinished) plus
    the shaped potential of the final margins."""
    if K.is_terminal(s):
        K.returns(s, ret)
    else:
        ret[:] = 0.0
    K.scores(s, sc)
    for q in range(players):
        val[q] = ret[q] + shaping * _margin(sc, q, players) / scale


def _evaluate(s, mover, players, params, obs, logits, spare, sc, shaping, scale, val):
    """The network's view of a position where ``mover`` is to act: its logits of every
    action into ``logits``, and every seat's value (each read from its own observation; with
    2 players the other seat's is minus the mover's) plus the shaped potential."""
    K.scores(s, sc)
    encode(s, mover, obs)
    v = forward(obs, params, logits, True)
    val[mover] = v + shaping * _margin(sc, mover, players) / scale
    if players == 2:
        val[1 - mover] = -val[mover]
        return
    for q in range(players):
        if q != mover:
            encode(s, q, obs)
            v = forward(obs, params, spare, False)
            val[q] = v + shaping * _margin(sc, q, players) / scale


def _select(node, s, legal, n, child, logit, visits, wsum, c, fpu):
    """The PUCT choice among ``legal[:n]`` at ``node`` for the seat to move in ``s``."""
    p = K.current_player(s)
    top = -np.inf
    for i in range(n):
        top = max(top, np.float64(logit[node, legal[i]]))
    total = 0.0
    for i in range(n):
        total += math.exp(np.float64(logit[node, legal[i]]) - top)
    explore = c * math.sqrt(np.float64(visits[node])) / total
    untried = wsum[node, p] / visits[node] - fpu
    best = legal[0]
    best_u = -np.inf
    for i in range(n):
        a = legal[i]
        kid = child[node, a]
        if kid >= 0 and visits[kid] > 0:
            q = wsum[kid, p] / visits[kid]
            m = visits[kid]
        else:
            q = untried
            m = 0
        u = q + explore * math.exp(np.float64(logit[node, a]) - top) / (1.0 + m)
        if u > best_u:
            best_u = u
            best = a
    return best


def _simulate(root, seat, first, players, params, c, fpu, shaping, scale, rng, tree, work, nodes):
    """One simulation from ``root`` (see the module docstring), its first action ``first`` at
    the root when ``first >= 0`` (the Gumbel root's choice), else PUCT's; ``work`` is
    ``(s, legal, obs, spare, sc, ret, val)``. Returns the nodes used after it."""
    child, logit, visits, wsum, expanded, path = tree
    s, legal, obs, spare, sc, ret, val = work
    s[:] = root
    K.determinize(s, seat, _draw(rng))
    n = K.legal_actions(s, legal)
    node = 0
    depth = 0
    path[0] = 0
    while True:
        if n == 0:  # the game is over in this copy
            _exact(s, players, sc, ret, shaping, scale, val)
            break
        if expanded[node] == 0:  # first reached where the game goes on
            mover = K.current_player(s)
            row = logit[node]
            _evaluate(s, mover, players, params, obs, row, spare, sc, shaping, scale, val)
            expanded[node] = 1
            break
        if depth == 0 and first >= 0 and _is_legal(first, legal, n):
            a = first
        else:
            a = _select(node, s, legal, n, child, logit, visits, wsum, c, fpu)
        K.apply(s, a)
        n = K.advance(s, legal)
        kid = child[node, a]
        if kid < 0:
            kid = nodes
            nodes += 1
            child[node, a] = kid
            child[kid, :] = -1
            visits[kid] = 0
            wsum[kid, :] = 0.0
            expanded[kid] = 0
        depth += 1
        path[depth] = kid
        node = kid
    for i in range(depth + 1):
        k = path[i]
        visits[k] += 1
        for q in range(players):
            wsum[k, q] += val[q]
    return nodes


def _is_legal(a, legal, n):
    """Whether ``a`` is among ``legal[:n]`` (a loop: numba compiles no generator in ``any``)."""
    for i in range(n):  # noqa: SIM110
        if legal[i] == a:
            return True
    return False


def _start(root, seat, params, shaping, scale, rng, tree):
    """The root node: ``root`` determinized for ``seat`` and evaluated (its logits, the
    per-seat values as its first visit). Returns ``(players, work)`` for `_simulate`."""
    child, logit, visits, wsum, expanded, _ = tree
    s = root.copy()
    legal = np.empty(NUM_ACTIONS, np.int64)
    obs = np.empty(OBS_SIZE, np.float32)
    spare = np.empty(NUM_ACTIONS, np.float32)
    sc = np.zeros(MAX_PLAYERS, np.int64)
    ret = np.zeros(MAX_PLAYERS, np.float64)
    val = np.zeros(MAX_PLAYERS, np.float64)
    players = K.scores(s, sc)
    K.determinize(s, seat, _draw(rng))
    child[0, :] = -1
    _evaluate(s, seat, players, params, obs, logit[0], spare, sc, shaping, scale, val)
    expanded[0] = 1
    visits[0] = 1
    wsum[0, :] = 0.0
    for q in range(players):
        wsum[0, q] = val[q]
    return players, (s, legal, obs, spare, sc, ret, val)


def _root_visits(tree, root_visits):
    """Each action's visits at the root into ``root_visits``."""
    child, visits = tree[0], tree[2]
    for a in range(NUM_ACTIONS):
        kid = child[0, a]
        root_visits[a] = visits[kid] if kid >= 0 else 0


def search(root, seat, sims, params, c, fpu, shaping, scale, rng, tree, root_visits):
    """``sims`` simulations from ``root`` (a decision of ``seat``; never changed), see the
    module docstring. ``tree`` is ``(child, logit, visits, wsum, expanded, path)`` with room
    for ``sims + 1`` nodes; node 0 is the root. Writes each action's root visits into
    ``root_visits`` and returns the nodes used."""
    players, work = _start(root, seat, params, shaping, scale, rng, tree)
    nodes = 1
    for _ in range(sims):
        nodes = _simulate(
            root, seat, -1, players, params, c, fpu, shaping, scale, rng, tree, work, nodes
        )
    _root_visits(tree, root_visits)
    return nodes


def halving_visits(m, sims, out):
    """Sequential halving's schedule (Danihelka et al. 2022, section 3.2): ``out[k]`` is the
    visit count the action of simulation ``k`` has before it, among ``m`` considered actions
    and ``sims`` simulations. Each phase gives every action still considered
    ``max(1, sims // (ceil(log2 m) * considered))`` more visits, then halves them (at least
    two stay) until the budget is spent; with one action considered every simulation visits
    it. The same schedule as DeepMind's mctx (``get_sequence_of_considered_visits``)."""
    if m <= 1:
        for k in range(sims):
            out[k] = k
        return
    phases = 0
    while (1 << phases) < m:
        phases += 1
    considered = m
    k = 0
    base = 0
    while k < sims:
        extra = max(1, sims // (phases * considered))
        for _ in range(extra):
            for _i in range(considered):
                if k < sims:
                    out[k] = base
                    k += 1
            base += 1
        considered = max(2, considered // 2)


def _completed_sigma(seat, legal, n, tree, value, c_visit, c_scale, sigma):
    """``sigma(completedQ)`` of every legal root action into ``sigma[legal[i]]`` (paper,
    appendix D; mctx's ``qtransform_completed_by_mix_value``): a visited action's mean value
    for ``seat``, an unvisited one's the mixed value ``v_mix`` of the root value ``value`` and
    the prior-weighted mean of the visited ones; rescaled to [0, 1] by their minimum and
    maximum, then times ``(c_visit + max visits) * c_scale``."""
    child, logit, visits, wsum = tree[0], tree[1], tree[2], tree[3]
    top = -np.inf
    for i in range(n):
        top = max(top, np.float64(logit[0, legal[i]]))
    total = 0.0
    for i in range(n):
        total += math.exp(np.float64(logit[0, legal[i]]) - top)
    seen = 0.0
    mass = 0.0
    weighted = 0.0
    most = 0
    for i in range(n):
        kid = child[0, legal[i]]
        if kid >= 0 and visits[kid] > 0:
            p = max(math.exp(np.float64(logit[0, legal[i]]) - top) / total, 1e-30)
            seen += visits[kid]
            mass += p
            weighted += p * (wsum[kid, seat] / visits[kid])
            most = max(most, visits[kid])
    mixed = value
    if mass > 0.0:
        mixed = (value + seen * weighted / mass) / (seen + 1.0)
    low = np.inf
    high = -np.inf
    for i in range(n):
        kid = child[0, legal[i]]
        q = wsum[kid, seat] / visits[kid] if kid >= 0 and visits[kid] > 0 else mixed
        sigma[legal[i]] = q
        low = min(low, q)
        high = max(high, q)
    span = max(high - low, 1e-8)
    factor = (c_visit + most) * c_scale
    for i in range(n):
        sigma[legal[i]] = factor * (sigma[legal[i]] - low) / span


def _considered(legal, n, gumbel, tree, sigma, visit):
    """The root action of highest ``gumbel + logit + sigma`` among those with ``visit``
    visits (ties: the lowest id); -1 if none has."""
    child, logit, visits = tree[0], tree[1], tree[2]
    best = -1
    best_score = -np.inf
    for i in range(n):
        a = legal[i]
        kid = child[0, a]
        seen = visits[kid] if kid >= 0 else 0
        if seen != visit or gumbel[a] == -np.inf:
            continue
        score = gumbel[a] + np.float64(logit[0, a]) + sigma[a]
        if best < 0 or score > best_score:
            best = a
            best_score = score
    return best


def gumbel_search(
    root, seat, sims, m, params, c, fpu, shaping, scale, c_visit, c_scale, rng, tree, out
):
    """``sims`` simulations from ``root`` with Gumbel AlphaZero's root (Danihelka et al.,
    ICLR 2022) and PUCT below it; returns ``(the action to play, the nodes used)``.

    At the root, every legal action gets Gumbel noise ``g`` from the agent's stream; the
    ``m`` of highest ``g + logit`` are considered, and sequential halving (`halving_visits`)
    spends the simulations on them, each time on the considered action of highest
    ``g + logit + sigma(completedQ)`` among those with the schedule's visit count, so the
    lower half drops out after every phase. The move is the action of highest
    ``g + logit + sigma`` among the most visited. ``out`` is ``(root_visits, improved,
    schedule, gumbel, sigma)``: each action's root visits, the improved policy
    ``softmax(logit + sigma(completedQ))`` over the legal actions (0 elsewhere; the policy
    target of self-play), and work arrays of ``sims``, ``NUM_ACTIONS`` and ``NUM_ACTIONS``
    entries."""
    root_visits, improved, schedule, gumbel, sigma = out
    players, work = _start(root, seat, params, shaping, scale, rng, tree)
    logit, wsum = tree[1], tree[3]
    legal = np.empty(NUM_ACTIONS, np.int64)
    n = K.legal_actions(root, legal)
    value = wsum[0, seat]
    gumbel[:] = -np.inf
    for i in range(n):
        u = next_uniform(rng, 0)
        gumbel[legal[i]] = -math.log(-math.log(u + 1e-300))
    # the top m by g + logit are considered; the others never enter (their g set to -inf)
    m = min(m, n)
    keep = np.zeros(NUM_ACTIONS, np.bool_)
    for i in range(n):
        a = legal[i]
        mine = gumbel[a] + np.float64(logit[0, a])
        ahead = 0
        for j in range(n):
            b = legal[j]
            theirs = gumbel[b] + np.float64(logit[0, b])
            if theirs > mine or (theirs == mine and b < a):
                ahead += 1
        keep[a] = ahead < m
    for i in range(n):
        if not keep[legal[i]]:
            gumbel[legal[i]] = -np.inf
    halving_visits(m, sims, schedule)
    nodes = 1
    for k in range(sims):
        _completed_sigma(seat, legal, n, tree, value, c_visit, c_scale, sigma)
        first = _considered(legal, n, gumbel, tree, sigma, schedule[k])
        if first < 0:  # no considered action has the schedule's count: the best most seen
            first = _considered(legal, n, gumbel, tree, sigma, _most_visits(legal, n, tree))
        nodes = _simulate(
            root, seat, first, players, params, c, fpu, shaping, scale, rng, tree, work, nodes
        )
    _completed_sigma(seat, legal, n, tree, value, c_visit, c_scale, sigma)
    _root_visits(tree, root_visits)
    move = _considered(legal, n, gumbel, tree, sigma, _most_visits(legal, n, tree))
    top = -np.inf
    for i in range(n):
        top = max(top, np.float64(logit[0, legal[i]]) + sigma[legal[i]])
    improved[:] = 0.0
    total = 0.0
    for i in range(n):
        a = legal[i]
        improved[a] = math.exp(np.float64(logit[0, a]) + sigma[a] - top)
        total += improved[a]
    for i in range(n):
        improved[legal[i]] /= total
    return move, nodes


def _most_visits(legal, n, tree):
    """The most visits of a considered root action (0 before any)."""
    child, visits = tree[0], tree[2]
    most = 0
    for i in range(n):
        kid = child[0, legal[i]]
        if kid >= 0:
            most = max(most, visits[kid])
    return most


_TEMPLATES = (
    _draw,
    _margin,
    _exact,
    _evaluate,
    _select,
    _is_legal,
    _simulate,
    _start,
    _root_visits,
    search,
    halving_visits,
    _completed_sigma,
    _considered,
    _most_visits,
    gumbel_search,
)


@functools.cache
def search_kernels(game: str, kind: str, forward: Any) -> SimpleNamespace:
    """`search` compiled for ``game``'s engine and observer and the network kind ``kind``
    (its compiled ``forward``; ``PolicyNet.search_network``), once per process (numba's
    disk cache keeps it between runs)."""
    spec = game_spec(game)
    return specialize(
        _TEMPLATES, f"{spec.name}__{kind}", {**game_bindings(spec), "forward": forward}
    )


# ---------------------------------------------------------------------------------------
# The agent
# ---------------------------------------------------------------------------------------
class PUCTAgent:
    """PUCT search guided by a checkpoint's policy and value heads (module docstring).

    Args:
        name: the spec string.
        checkpoint: the checkpoint directory.
        game: the game it plays (the checkpoint must be of this game).
        sims: simulations a move (1 to `MAX_SIMS`).
        c: exploration constant of the PUCT rule.
        fpu: first-play urgency: an unvisited child's value is its parent's minus ``fpu``.
        temp: 0 plays the most visited root child; ``T > 0`` draws from visits ** (1 / T).
        shaping: the weight of the score-margin potential added to the values (None: the
            checkpoint's own, ``PolicyNet.shaping``).
        gumbel: 0 searches the root with PUCT; ``M > 0`` with Gumbel AlphaZero's root over
            ``M`` considered actions (`gumbel_search`; ``temp`` must then be 0).
        cvisit: ``c_visit`` of the Gumbel root's ``sigma``.
        cscale: ``c_scale`` of the Gumbel root's ``sigma``.
        seed: the seed of ``reset``.

    Raises:
        CheckpointError: for a checkpoint that must not be loaded (another game's names
            both games).
        ValueError: for an argument out of its range (`OPTIONS`).
    """

    def __init__(
        self,
        name: str,
        checkpoint: str | Path,
        game: str,
        sims: int = 200,
        c: float | None = None,
        fpu: float | None = None,
        temp: float | None = None,
        shaping: float | None = None,
        gumbel: float | None = None,
        cvisit: float | None = None,
        cscale: float | None = None,
        seed: int | None = None,
    ) -> None:
        from agents.policy import load_net

        if isinstance(sims, bool) or not isinstance(sims, int) or not 1 <= sims <= MAX_SIMS:
            raise ValueError(f"puct: sims={sims!r} is not allowed; allowed: 1 to {MAX_SIMS}")
        values = {
            "c": c,
            "fpu": fpu,
            "temp": temp,
            "shaping": shaping,
            "gumbel": gumbel,
            "cvisit": cvisit,
            "cscale": cscale,
        }
        for key, value in values.items():
            if value is not None:
                OPTIONS[key].check(name, key, value)
        self.name = name
        self.sims = sims
        chosen = {k: OPTIONS[k].default if v is None else v for k, v in values.items()}
        self.c, self.fpu, self.temp = (float(chosen[k] or 0.0) for k in ("c", "fpu", "temp"))
        self.gumbel = int(chosen["gumbel"] or 0)
        self.cvisit, self.cscale = float(chosen["cvisit"]), float(chosen["cscale"])
        if self.gumbel and self.temp > 0.0:
            raise ValueError(
                f"puct spec {name!r}: temp={self.temp:g} with gumbel={self.gumbel} is not "
                "allowed; allowed: temp=0 with a Gumbel root (its move is drawn by its Gumbel "
                "noise already), or gumbel=0"
            )
        self.net = load_net(checkpoint, game)
        self.game = self.net.game
        spec = game_spec(self.game)
        self.shaping = self.net.shaping() if shaping is None else float(shaping)
        self._scale = float(spec.score_scale)
        self._kind, self._forward, self._params = self.net.search_network()
        engine = spec.engine()
        self._num_actions = int(engine.NUM_ACTIONS)
        size = sims + 1
        self._tree = (
            np.empty((size, self._num_actions), np.int32),
            np.empty((size, self._num_actions), np.float32),
            np.zeros(size, np.int64),
            np.zeros((size, MAX_PLAYERS), np.float64),
            np.zeros(size, np.int8),
            np.zeros(size, np.int64),
        )
        self._root_visits = np.zeros(self._num_actions, np.int64)
        # the Gumbel root's outputs and work arrays (`gumbel_search`'s ``out``)
        self._gumbel_out = (
            self._root_visits,
            np.zeros(self._num_actions, np.float64),
            np.zeros(sims, np.int64),
            np.zeros(self._num_actions, np.float64),
            np.zeros(self._num_actions, np.float64),
        )
        self._stream = np.zeros(1, np.uint64)
        self.last_nodes = 0
        self.reset(seed)

    def reset(self, seed: int | None = None) -> None:
        """A new game: ``seed`` fixes the determinizations and the ``temp`` draws."""
        base = np.random.SeedSequence(seed)
        key = np.random.SeedSequence(base.entropy, spawn_key=(0,))
        self._stream[0] = key.generate_state(1, np.uint64)[0]
        self._rng = np.random.default_rng(np.random.SeedSequence(base.entropy, spawn_key=(1,)))
        self._distribution: tuple[tuple[int, ...], tuple[float, ...]] | None = None
        self._visits: tuple[tuple[int, ...], tuple[int, ...]] | None = None
        self._values: tuple[tuple[int, ...], tuple[float, ...]] | None = None

    def action_distribution(self) -> tuple[tuple[int, ...], tuple[float, ...]] | None:
        """The root visit counts of the last search, normalised over the visited actions
        (with ``gumbel=M``: the improved policy over every legal action); one-hot for a
        decision with one legal action, which is not searched; None before any move."""
        return self._distribution

    def visit_counts(self) -> tuple[tuple[int, ...], tuple[int, ...]] | None:
        """The root visit counts of the last search, ``(actions, counts)`` over the visited
        actions; None before any move and after a decision with one legal action."""
        return self._visits

    def root_values(self) -> tuple[tuple[int, ...], tuple[float, ...]] | None:
        """The mean value, for the seat that moved, of each visited root child of the last
        search (``(actions, values)``, the actions of `visit_counts`); None before any move
        and after a decision with one legal action."""
        return self._values

    def act(self, game: Any) -> int:
        """The searched move for ``game.current_player()`` (never changes ``game``).

        Raises:
            ValueError: for a game of another kind than the checkpoint's, or one that asks
                no decision.
        """
        theirs = getattr(game, "GAME", None)
        if theirs != self.game:
            raise ValueError(
                f"agent {self.name!r} plays {self.game!r} (its checkpoint's game), not {theirs!r}"
            )
        legal = game.legal_actions()
        if not legal:
            raise ValueError(f"agent {self.name!r}: the game asks no decision")
        if len(legal) == 1:
            self._distribution = ((int(legal[0]),), (1.0,))
            self._visits = self._values = None
            return int(legal[0])
        seat = int(game.current_player())
        kernels = search_kernels(self.game, self._kind, self._forward)
        if self.gumbel:
            return self._act_gumbel(kernels, game, seat, legal)
        self.last_nodes = int(
            kernels.search(
                game.state,
                seat,
                self.sims,
                self._params,
                self.c,
                self.fpu,
                self.shaping,
                self._scale,
                self._stream,
                self._tree,
                self._root_visits,
            )
        )
        child, _, visits, wsum = self._tree[:4]
        tried = [a for a in legal if self._root_visits[a] > 0]
        counts = [int(self._root_visits[a]) for a in tried]
        total = sum(counts)
        self._visits = (tuple(tried), tuple(counts))
        self._distribution = (tuple(tried), tuple(k / total for k in counts))
        kids = [child[0, a] for a in tried]
        self._values = (tuple(tried), tuple(float(wsum[k, seat] / visits[k]) for k in kids))
        if self.temp > 0.0:
            logs = np.log(np.asarray(counts, np.float64))
            weights = np.exp((logs - logs.max()) / self.temp)
            cdf = np.cumsum(weights / weights.sum())
            i = int(np.searchsorted(cdf, self._rng.random(), side="right"))
            return int(tried[min(i, len(tried) - 1)])

        ranked = zip(counts, self._values[1], tried, strict=True)
        # max keeps the first (lowest id) of equal visits and values
        return int(max(ranked, key=lambda item: (item[0], item[1]))[2])

    def _act_gumbel(self, kernels: Any, game: Any, seat: int, legal: list[int]) -> int:
        """`act` with the Gumbel root: the move `gumbel_search` picks, its improved policy as
        `action_distribution` (over every legal action)."""
        move, nodes = kernels.gumbel_search(
            game.state,
            seat,
            self.sims,
            self.gumbel,
            self._params,
            self.c,
            self.fpu,
            self.shaping,
            self._scale,
            self.cvisit,
            self.cscale,
            self._stream,
            self._tree,
            self._gumbel_out,
        )
        self.last_nodes = int(nodes)
        improved = self._gumbel_out[1]
        child, _, visits, wsum = self._tree[:4]
        tried = [a for a in legal if self._root_visits[a] > 0]
        self._visits = (tuple(tried), tuple(int(self._root_visits[a]) for a in tried))
        kids = [child[0, a] for a in tried]
        self._values = (tuple(tried), tuple(float(wsum[k, seat] / visits[k]) for k in kids))
        self._distribution = (tuple(legal), tuple(float(improved[a]) for a in legal))
        return int(move)


# ---------------------------------------------------------------------------------------
# The spec
# ---------------------------------------------------------------------------------------
@dataclass(frozen=True)
class _Option:
    """One numeric ``key=value`` option of a puct spec: default, closed range, meaning."""

    default: float | None
    low: float
    high: float
    doc: str
    low_open: bool = False
    integer: bool = False

    def allowed(self) -> str:
        bracket = "(" if self.low_open else "["
        default = "the checkpoint's" if self.default is None else f"{self.default:g}"
        kind = "an integer" if self.integer else "a number"
        return f"{kind} in {bracket}{self.low:g}, {self.high:g}] (default {default})"

    def check(self, spec: str, key: str, value: Any) -> float:
        """``value`` as a float inside the range.

        Raises:
            ValueError: naming the option and what is allowed.
        """
        number = math.nan
        if not isinstance(value, bool):
            with contextlib.suppress(TypeError, ValueError):
                number = float(value)
        inside = self.low < number if self.low_open else self.low <= number
        whole = not self.integer or (math.isfinite(number) and number == int(number))
        if not (math.isfinite(number) and inside and number <= self.high and whole):
            raise ValueError(
                f"puct spec {spec!r}: {key}={value!r} is not allowed; allowed: {key}="
                f"{self.allowed()}"
            )
        return number


#: The numeric options of a puct spec. Values lie in about [-2, 2] (rank returns in [-1, 1]
#: plus the shaped margin), so ``c`` beyond 100 or ``fpu`` beyond 10 mean nothing more; the
#: defaults were tuned on 2-player Caylus with ``ppo-2p`` (docs/agents.md).
OPTIONS: dict[str, _Option] = {
    "c": _Option(1.5, 0.0, 100.0, "exploration constant of the PUCT rule", low_open=True),
    "fpu": _Option(0.2, 0.0, 10.0, "an unvisited child's value: its parent's minus this"),
    "temp": _Option(0.0, 0.0, 100.0, "0: the most visited move; T > 0: visits ** (1 / T)"),
    "shaping": _Option(None, 0.0, 100.0, "weight of the score-margin potential in the values"),
    "gumbel": _Option(
        0.0, 0.0, 512.0, "0: PUCT at the root; M > 0: Gumbel root over M actions", integer=True
    ),
    "cvisit": _Option(50.0, 0.0, 1e6, "sigma's visit offset c_visit (Gumbel root)"),
    "cscale": _Option(0.1, 0.0, 100.0, "sigma's scale c_scale (Gumbel root)", low_open=True),
}
#: Every option a spec may give, for the error messages.
ALLOWED = (
    "ckpt=NAME (a checkpoint shipped for the game) or ckpt=PATH (a checkpoint directory, "
    "without ':'), " + ", ".join(f"{k}=<{o.allowed()}>" for k, o in OPTIONS.items())
)


def _shipped_of(game: str) -> dict[str, str]:
    from agents.policy import shipped_checkpoints

    return {n: g for n, g in shipped_checkpoints().items() if g == game}


def is_shipped_name(value: str) -> bool:
    """Whether a ``ckpt=`` value names a checkpoint shipped in the package (of any game): such a
    name wins over a directory of the same name, and is no path of the user's."""
    from agents.policy import shipped_checkpoints

    return value in shipped_checkpoints()


def resolve_checkpoint(spec: str, value: str | None, game: str) -> Path:
    """The checkpoint directory of a spec's ``ckpt=`` (None: the game's default).

    Raises:
        ValueError: for a game without a shipped ``ppo-`` checkpoint and no ``ckpt=``, or a
            value that is neither a shipped checkpoint's name nor a directory, naming the
            allowed forms.
    """
    from agents.policy import SHIPPED_DIR

    ours = _shipped_of(game)
    names = ", ".join(ours) or "none"
    forms = (
        f"ckpt=NAME (a checkpoint shipped for {game}: {names}) or ckpt=PATH (a checkpoint "
        f"directory of {game}, e.g. written by caylus train ppo --game {game})"
    )
    if value is None:
        default = sorted(n for n in ours if n.startswith(DEFAULT_PREFIX))
        if not default:
            raise ValueError(
                f"puct spec {spec!r}: {game_spec(game).title} has no shipped checkpoint "
                f"named {DEFAULT_PREFIX}*; give one: {forms}"
            )
        return SHIPPED_DIR / default[0]
    if is_shipped_name(value):
        return SHIPPED_DIR / value  # another game's is refused on load, naming both
    path = Path(value)
    try:
        is_dir = path.is_dir()
    except OSError:  # a name too long, a path the system refuses (is_dir raises those)
        is_dir = False
    if not is_dir:
        raise ValueError(
            f"puct spec {spec!r}: ckpt={value!r} is neither a shipped checkpoint nor a "
            f"directory; allowed: {forms}"
        )
    return path


def parse_spec(spec: str, arg: str | None) -> tuple[int, str | None, dict[str, float]]:
    """``(sims, ckpt or None, numeric options)`` of ``puct:SIMS[:key=value...]`` (``arg``:
    the text after the first colon).

    Raises:
        ValueError: naming the bad part and what is allowed.
    """
    parts = (arg or "").split(":")
    try:
        sims = int(parts[0])
    except ValueError:
        sims = 0
    if not 1 <= sims <= MAX_SIMS:
        raise ValueError(
            f"puct spec {spec!r}: SIMS must be an int from 1 to {MAX_SIMS} (simulations a "
            f"move), got {parts[0]!r}; e.g. 'puct:200'"
        )
    ckpt: str | None = None
    options: dict[str, float] = {}
    for part in parts[1:]:
        key, eq, value = part.partition("=")
        seen = key in options or (key == "ckpt" and ckpt is not None)
        if not eq or not value or seen or (key != "ckpt" and key not in OPTIONS):
            why = "repeated" if seen and eq and value else "bad"
            raise ValueError(f"puct spec {spec!r}: {why} option {part!r}; allowed: {ALLOWED}")
        if key == "ckpt":
            ckpt = value
        else:
            options[key] = OPTIONS[key].check(spec, key, value)
    return sims, ckpt, options


def checkpoint_paths(spec: str, arg: str | None) -> tuple[str, ...]:
    """The checkpoint directory a puct spec names as a path of the user's (its ``ckpt=PATH``,
    as written), none for the default or a shipped checkpoint's name; nothing is read (the
    agent registry's ``spec_paths``, confined by ``caylus serve`` before `make_puct` runs).

    Raises:
        ValueError: for a bad spec, as `parse_spec`.
    """
    _, ckpt, _ = parse_spec(spec, arg)
    return () if ckpt is None or is_shipped_name(ckpt) else (ckpt,)


def make_puct(spec: str, arg: str | None, game: str) -> PUCTAgent:
    """Factory of the ``puct`` spec head (``agents.registry`` gives the game): the spec is
    checked whole before the checkpoint is read, and the checkpoint before any search.

    Raises:
        ValueError: naming the bad part of the spec and what is allowed;
            ``CheckpointError`` (a ``ValueError``) for a checkpoint that must not be loaded,
            another game's naming both games.
    """
    sims, ckpt, options = parse_spec(spec, arg)
    path = resolve_checkpoint(spec, ckpt, game_spec(game).name)
    return PUCTAgent(spec, path, game_spec(game).name, sims, **options)


__all__ = [
    "MAX_SIMS",
    "OPTIONS",
    "PUCTAgent",
    "checkpoint_paths",
    "is_shipped_name",
    "make_puct",
    "parse_spec",
    "resolve_checkpoint",
    "search",
    "search_kernels",
]
