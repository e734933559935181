"""The learner view with an opponent pool: what self-play trains on.

``PoolGames`` is ``caylus_env.core.vector.LearnerGames`` with a pool of opponents instead of one
compiled policy: in each of its ``N`` games the learner plays one seat (drawn per episode
from the seed) and every other seat is played inside ``step`` by the opponent drawn for that
episode from the pool, with the pool's weights. The opponents are of two kinds:

* **compiled** (``random``, ``castle``, ``town``, ``economy``): played inside the one numba
  call that steps the batch (the scripted bots' own kernels, ``caylus_env.caylus.bots.scripted_kernels``,
  with their ties broken by the game's own random stream);
* **external** (a frozen checkpoint ``policy:PATH``, the current policy ``self``, MCTS or any
  agent spec): the kernel stops a game when such a seat is to act; ``step`` then gathers,
  for each external opponent, every game waiting on it, encodes their observations in one
  call, asks the opponent for all their actions at once (``act_batch``: one network call for
  a checkpoint, however many games wait on it), applies them, and lets the kernel go on,
  until every game waits on the learner.

Reproducibility: game ``k``'s episode ``i`` depends only on ``(seed, k, i)``, the pool and
the actions (as in ``caylus_env.core.vector``): the setup, the learner seat, the opponent drawn,
the compiled opponents' choices and the uniform numbers external opponents sample with all
come from the game's own splitmix64 stream, and a checkpoint computes each game's logits
alone (``agents.policy.PolicyNet``). Only ``self``, the torch network being trained, runs
batched matrix products whose last bits can change with the batch size: with ``self`` in
the pool a run is reproducible for a given ``N``, thread count and machine.

Rewards are the env's (rank rewards, rules 8.21: zero-sum, at the end of a game). The
optional shaped term (``PoolGames.margin``) is the learner's prestige margin over the best
opponent, which the trainer turns into a potential-based bonus; it is off by default.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol

import numpy as np
from numba import njit

from caylus_env.caylus.bots import scripted_kernels as SK
from caylus_env.caylus.bots.scripted import STRATEGIES
from caylus_env.caylus.engine import kernels
from caylus_env.caylus.engine.actions import NUM_ACTIONS
from caylus_env.caylus.observation import OBS_SIZE, encode
from caylus_env.core.vector import (
    WORD_LEARNER,
    WORD_OPPONENTS,
    _Games,
    _next_random,
    _start_episode,
    _write_mask,
    episode_word,
)

#: Opponents played inside the compiled step, by name: their kind id in the kernel.
COMPILED: dict[str, int] = {"random": 0, "castle": 1, "town": 2, "economy": 3}
#: The kind id of an opponent played in Python (``act_batch``).
EXTERNAL = -1
_SCRIPTED_ORDER = ("castle", "town", "economy")
_SCRIPTED_WEIGHTS = np.stack([STRATEGIES[name].to_array() for name in _SCRIPTED_ORDER])
_TO_UNIT = 1.0 / 18446744073709551616.0  # 2**-64: a uint64 to [0, 1)


class BatchPolicy(Protocol):
    """An external opponent: one action for each game waiting on it."""

    def act_batch(
        self, obs: np.ndarray, mask: np.ndarray, uniforms: np.ndarray, states: np.ndarray
    ) -> np.ndarray:
        """Actions ``(B,)`` int64 for observations ``(B, OBS_SIZE)`` of the seats to act,
        their legal masks ``(B, NUM_ACTIONS)`` bool, one uniform number in [0, 1) per game
        (to sample with) and the games' states ``(B, STATE_SIZE)``."""


@dataclass
class Slot:
    """One opponent of the pool.

    Attributes:
        name: as written in the pool spec (``economy``, ``self``, ``policy:runs/x/ckpt``).
        weight: its share of the episodes (the pool normalizes the weights).
        kind: a ``COMPILED`` id, or ``EXTERNAL``.
        policy: the external opponent (``None`` for compiled ones, and for ``self`` until
            the trainer sets it).
    """

    name: str
    weight: float
    kind: int
    policy: BatchPolicy | None = field(default=None, repr=False)


# ---------------------------------------------------------------------------------------
# Kernels
# ---------------------------------------------------------------------------------------
@njit(cache=True)
def _uniform(rng, k):
    return np.float64(_next_random(rng, k)) * _TO_UNIT


@njit(cache=True)
def _compiled_action(kind, s, legal_row, n, rng, k, weights, noise):
    """The move of compiled opponent ``kind`` among ``legal_row[:n]``."""
    if kind == 0:
        return legal_row[np.int64(_uniform(rng, k) * n)]
    for i in range(n):
        noise[i] = _uniform(rng, k)
    return legal_row[SK.choose(s, legal_row, n, weights[kind - 1], SK.MAX_DEPTH, noise)]


@njit(cache=True)
def _start(
    s, options, k, keys, episodes, setup_seeds, learner, rng, slot, fixed, shift, cum, legal_row
):
    """Set up game ``k``'s current episode: the setup, the learner seat (shifted by
    ``shift[k]`` seats: the second game of a pair), the opponents' stream and the opponent
    drawn from the pool (or the game's fixed one)."""
    n = _start_episode(s, options, k, keys, episodes, setup_seeds, legal_row)
    drawn = episode_word(keys[k], episodes[k], WORD_LEARNER) % np.uint64(options[k, 0])
    learner[k] = (np.int64(drawn) + shift[k]) % options[k, 0]
    rng[k] = episode_word(keys[k], episodes[k], WORD_OPPONENTS)
    u = _uniform(rng, k)
    if fixed[k] >= 0:
        slot[k] = fixed[k]
    else:
        j = 0
        while j < cum.shape[0] - 1 and u >= cum[j]:
            j += 1
        slot[k] = j
    return n


@njit(cache=True)
def _margin(s, learner, num_players):
    """The learner's prestige minus the best opponent's (the shaped reward's potential)."""
    best = -(1 << 30)
    for p in range(num_players):
        if p != learner:
            best = max(best, kernels.prestige(s, p))
    return kernels.prestige(s, learner) - best


@njit(cache=True)
def _settle(k, n, g, out, pool, weights, noise, ret):
    """Play game ``k``'s compiled opponents (starting new episodes as games end) until the
    learner must act (its observation and mask written) or an external opponent must
    (``waiting[k]``); returns the opponent decisions taken."""
    states, options, keys, episodes, setup_seeds, learner, rng, slot, fixed, legal, shift = g
    num_legal, obs, mask, rewards, terminated, final_obs, final_seat, final_prestige = out[:8]
    waiting, margin, final_margin, final_slot = out[8:]
    kind, cum = pool
    s = states[k]
    count = 0
    while True:
        while n > 0:
            if kernels.current_player(s) == learner[k]:
                break
            if kind[slot[k]] == EXTERNAL:
                waiting[k] = True
                num_legal[k] = n
                return count
            a = _compiled_action(kind[slot[k]], s, legal[k], n, rng, k, weights, noise)
            kernels.apply(s, a)
            n = kernels.advance(s, legal[k])
            count += 1
        if n > 0:
            break
        # The game ended: its results, then the next episode of game k (SAME_STEP autoreset).
        kernels.returns(s, ret)
        rewards[k] = ret[learner[k]]
        terminated[k] = True
        final_seat[k] = learner[k]
        final_slot[k] = slot[k]
        final_margin[k] = _margin(s, learner[k], options[k, 0])
        final_prestige[k, :] = 0
        for p in range(options[k, 0]):
            final_prestige[k, p] = kernels.prestige(s, p)
        encode(s, learner[k], final_obs[k])
        episodes[k] += 1
        n = _start(
            s,
            options,
            k,
            keys,
            episodes,
            setup_seeds,
            learner,
            rng,
            slot,
            fixed,
            shift,
            cum,
            legal[k],
        )
    waiting[k] = False
    num_legal[k] = n
    margin[k] = _margin(s, learner[k], options[k, 0])
    encode(s, learner[k], obs[k])
    _write_mask(mask[k], legal[k], n)
    return count


@njit(cache=True)
def _reset_pool(select, g, out, pool, weights, noise, ret):
    states, options, keys, episodes, setup_seeds, learner, rng, slot, fixed, legal, shift = g
    total = 0
    for k in range(states.shape[0]):
        if select[k]:
            n = _start(
                states[k],
                options,
                k,
                keys,
                episodes,
                setup_seeds,
                learner,
                rng,
                slot,
                fixed,
                shift,
                pool[1],
                legal[k],
            )
            total += _settle(k, n, g, out, pool, weights, noise, ret)
    return total


@njit(cache=True)
def _step_pool(actions, g, out, pool, weights, noise, ret):
    states, legal = g[0], g[9]
    rewards, terminated = out[3], out[4]
    total = 0
    for k in range(states.shape[0]):
        rewards[k] = 0.0
        terminated[k] = False
        kernels.apply(states[k], actions[k])
        n = kernels.advance(states[k], legal[k])
        total += _settle(k, n, g, out, pool, weights, noise, ret)
    return total


@njit(cache=True)
def _external_inputs(idx, g, out, obs, mask, uniforms):
    """Observations, masks and uniform draws of the games ``idx`` (all waiting)."""
    states, rng, legal = g[0], g[6], g[9]
    num_legal = out[0]
    for i in range(idx.shape[0]):
        k = idx[i]
        s = states[k]
        encode(s, kernels.current_player(s), obs[i])
        mask[i, :] = False
        for j in range(num_legal[k]):
            mask[i, legal[k, j]] = True
        uniforms[i] = _uniform(rng, k)


@njit(cache=True)
def _resume(idx, actions, g, out, pool, weights, noise, ret):
    """Apply the external opponents' actions to games ``idx`` and go on."""
    states, legal = g[0], g[9]
    total = 0
    for i in range(idx.shape[0]):
        k = idx[i]
        kernels.apply(states[k], actions[i])
        n = kernels.advance(states[k], legal[k])
        total += 1 + _settle(k, n, g, out, pool, weights, noise, ret)
    return total


# ---------------------------------------------------------------------------------------
# Pool specs
# ---------------------------------------------------------------------------------------
def _heads_needing_argument() -> set[str]:
    from agents.registry import describe

    return {info.head for info in describe() if info.needs_arg}


def parse_pool(text: str) -> list[tuple[str, float]]:
    """``"self:0.5,economy:0.3,pool:0.2"`` -> ``[("self", 0.5), ...]``.

    Each entry is an opponent and its weight after the last ``:``; an entry without a
    weight gets 1. An agent spec with an argument needs its weight written out
    (``mcts:30:0.1``: ``mcts:30`` alone would read as ``mcts`` with weight 30). Opponents: ``random``, ``castle``, ``town``, ``economy`` (compiled),
    ``self`` (the policy being trained), ``pool`` (the promoted checkpoints, sharing the
    weight), and any agent spec (``mcts:30``, ``policy:PATH``).

    Raises:
        ValueError: for an empty spec, a weight that is not a number >= 0, a repeated
            opponent or weights that sum to 0, naming the entry.
    """
    if not isinstance(text, str) or not text.strip():
        raise ValueError("opponents must be a non-empty list like 'self:0.5,economy:0.3,pool:0.2'")
    entries: list[tuple[str, float]] = []
    for raw in text.split(","):
        item = raw.strip()
        name, sep, last = item.rpartition(":")
        weight = 1.0
        if sep:
            try:
                weight = float(last)
            except ValueError:
                name, weight = item, 1.0  # the last part belongs to the spec (mcts:30:castle)
        else:
            name = item
        if not name:
            raise ValueError(f"opponent entry {raw!r} has no opponent name")
        if name in _heads_needing_argument():
            raise ValueError(
                f"opponent entry {raw!r} reads as {name!r} with weight {last}, but {name!r} "
                f"needs an argument: give the weight explicitly, e.g. {item}:1"
            )
        if not np.isfinite(weight) or weight < 0:
            raise ValueError(f"opponent {name!r}: weight must be a number >= 0, got {last!r}")
        if any(n == name for n, _ in entries):
            raise ValueError(f"opponent {name!r} is listed twice in {text!r}")
        entries.append((name, weight))
    if sum(w for _, w in entries) <= 0:
        raise ValueError(f"the opponent weights of {text!r} sum to 0: give one a weight > 0")
    return entries


class AgentPolicy:
    """An agent spec (``mcts:30``, ...) as an external opponent: one ``act`` per game, on a
    ``Game`` rebuilt from the state (search agents are slow: use small weights)."""

    def __init__(self, agent: Any) -> None:
        self.agent = agent

    def act_batch(
        self, obs: np.ndarray, mask: np.ndarray, uniforms: np.ndarray, states: np.ndarray
    ) -> np.ndarray:
        from caylus_env.caylus.engine import Game
        from caylus_env.caylus.engine.state_dict import state_to_dict

        out = np.empty(len(states), np.int64)
        for i, s in enumerate(states):
            out[i] = self.agent.act(Game.from_state_dict(state_to_dict(s.copy())))
        return out


def make_external(spec: str, seed: int = 0) -> BatchPolicy:
    """An external opponent from an agent spec: a checkpoint runs batched (``act_batch``
    of ``agents.policy.PolicyAgent``), any other agent game by game.

    Raises:
        ValueError: naming a spec that does not make an agent.
    """
    from agents.registry import make_agent

    agent = make_agent(spec)
    if hasattr(agent, "act_batch"):
        return agent  # type: ignore[return-value]
    agent.reset(seed)
    return AgentPolicy(agent)


# ---------------------------------------------------------------------------------------
class PoolGames(_Games):
    """``num_envs`` learner games against an opponent pool; see the module docstring.

    Args:
        num_envs, num_players, simplified_favors, lawyer_prestige, jeweller, house_cap:
            as for ``caylus_env.core.vector.VectorGames``.
        opponents: a pool spec (``parse_pool``) or its parsed list; ``pool`` entries are
            expanded into ``checkpoints`` (see ``set_checkpoints``).
        checkpoints: the promoted checkpoint directories that ``pool`` shares its weight
            between; with none yet, ``pool``'s weight goes to ``self``.
        seed: the seed of the external opponents that search (MCTS).
        paired: play the games in pairs (``num_envs`` even): games ``2j`` and ``2j + 1``
            share their key, so their setups and opponents' streams, and the learner sits
            one seat further in the second (in 2-player games: the other seat), as paired
            matches need.

    Raises:
        ValueError: naming an opponent or argument that is not allowed.
    """

    def __init__(
        self,
        num_envs: int,
        num_players: int | Sequence[int] = 2,
        simplified_favors: bool = False,
        lawyer_prestige: int = 4,
        jeweller: bool = False,
        house_cap: bool = False,
        opponents: str | Sequence[tuple[str, float]] = "random",
        checkpoints: Sequence[str] = (),
        seed: int = 0,
        paired: bool = False,
    ) -> None:
        super().__init__(
            num_envs, num_players, simplified_favors, lawyer_prestige, jeweller, house_cap
        )
        self.spec = parse_pool(opponents) if isinstance(opponents, str) else list(opponents)
        self._agent_seed = seed
        self._externals: dict[str, BatchPolicy] = {}
        self._self_policy: BatchPolicy | None = None
        self.learner = np.zeros(self.num_envs, np.int64)
        self.slot = np.zeros(self.num_envs, np.int64)
        self.fixed = np.full(self.num_envs, -1, np.int64)
        if paired and self.num_envs % 2:
            raise ValueError(f"paired games need an even num_envs, got {self.num_envs}")
        self.paired = bool(paired)
        self.shift = (np.arange(self.num_envs) % 2).astype(np.int64) * int(self.paired)
        self.rng = np.zeros(self.num_envs, np.uint64)
        self._rewards = np.zeros(self.num_envs, np.float64)
        self.waiting = np.zeros(self.num_envs, np.bool_)
        self.margin = np.zeros(self.num_envs, np.int64)
        self.final_margin = np.zeros(self.num_envs, np.int64)
        self.final_slot = np.zeros(self.num_envs, np.int64)
        self._noise = np.zeros(NUM_ACTIONS, np.float64)
        self._ext_obs = np.zeros((self.num_envs, OBS_SIZE), np.float32)
        self._ext_mask = np.zeros((self.num_envs, NUM_ACTIONS), np.bool_)
        self._ext_u = np.zeros(self.num_envs, np.float64)
        #: Decisions taken by the opponents since the last full reset.
        self.opponent_decisions = 0
        self.set_checkpoints(checkpoints)
        self.batch = self._make_batch(self.learner, self._rewards)

    # -- the pool ------------------------------------------------------------------------
    def set_checkpoints(self, checkpoints: Sequence[str]) -> None:
        """Set the promoted checkpoints that the ``pool`` entry shares its weight between
        (the trainer calls this after each promotion). Slots are only ever appended, so a
        game in progress keeps its opponent; the new weights apply from the next episodes.
        With no checkpoint yet, ``pool``'s weight goes to ``pool->self`` (the policy being
        trained)."""
        self.checkpoints = [str(c) for c in checkpoints]
        weights: dict[str, float] = {}
        for name, weight in self.spec:
            if name != "pool":
                weights[name] = weight
            elif not self.checkpoints:
                weights["pool->self"] = weight
            else:
                for c in self.checkpoints:
                    weights[f"policy:{c}"] = weight / len(self.checkpoints)
        if not hasattr(self, "slots"):
            # The spec's entries first, ``pool`` as ``pool->self``, then the checkpoints in
            # promotion order: the same slot numbers however the list was reached (a resumed
            # run restores games whose ``slot`` indexes this list).
            self.slots: list[Slot] = []
            for name, _ in self.spec:
                if name in COMPILED:
                    self.slots.append(Slot(name, 0.0, COMPILED[name]))
                elif name in ("self", "pool"):
                    self.slots.append(Slot("pool->self" if name == "pool" else name, 0.0, EXTERNAL))
                else:
                    self.slots.append(Slot(name, 0.0, EXTERNAL, self._external(name)))
        known = {s.name for s in self.slots}
        for name in weights:
            if name in known:
                continue
            if name in COMPILED:
                self.slots.append(Slot(name, 0.0, COMPILED[name]))
            elif name in ("self", "pool->self"):
                self.slots.append(Slot(name, 0.0, EXTERNAL))
            else:
                self.slots.append(Slot(name, 0.0, EXTERNAL, self._external(name)))
        for slot in self.slots:
            slot.weight = weights.get(slot.name, 0.0)
        w = np.array([s.weight for s in self.slots], np.float64)
        self._kind = np.array([s.kind for s in self.slots], np.int64)
        self._cum = np.cumsum(w / w.sum())
        self._cum[int(np.flatnonzero(w > 0)[-1]) :] = 1.0  # u < 1 never picks past it

    def _external(self, spec: str) -> BatchPolicy:
        if spec not in self._externals:
            self._externals[spec] = make_external(spec, self._agent_seed)
        return self._externals[spec]

    def set_self_policy(self, policy: BatchPolicy | Callable[..., np.ndarray]) -> None:
        """The policy that plays the ``self`` opponents (the trainer's current network)."""
        self._self_policy = policy  # type: ignore[assignment]

    def opponent_names(self) -> list[str]:
        """The name of each slot (``final_slot`` indexes this list)."""
        return [s.name for s in self.slots]

    def _policy_of(self, j: int) -> BatchPolicy:
        slot = self.slots[j]
        if slot.policy is not None:
            return slot.policy
        if self._self_policy is None:
            raise RuntimeError(
                f"opponent {slot.name!r} is the policy being trained: call "
                "set_self_policy() before reset()"
            )
        return self._self_policy

    # -- kernels' arguments ----------------------------------------------------------------
    def _g(self) -> tuple:
        return (
            self.states,
            self.options,
            self.keys,
            self.episodes,
            self.setup_seeds,
            self.learner,
            self.rng,
            self.slot,
            self.fixed,
            self._legal,
            self.shift,
        )

    def _out(self) -> tuple:
        return (
            self._num_legal,
            self._obs,
            self._mask,
            self._rewards,
            self._terminated,
            self._final_obs,
            self._final_seat,
            self._final_prestige,
            self.waiting,
            self.margin,
            self.final_margin,
            self.final_slot,
        )

    def _drain(self) -> int:
        """Play the external opponents of every waiting game, batched per opponent."""
        total = 0
        g, out, pool = self._g(), self._out(), (self._kind, self._cum)
        while self.waiting.any():
            for j in np.unique(self.slot[self.waiting]):
                idx = np.flatnonzero(self.waiting & (self.slot == j))
                b = len(idx)
                _external_inputs(idx, g, out, self._ext_obs, self._ext_mask, self._ext_u)
                actions = np.asarray(
                    self._policy_of(int(j)).act_batch(
                        self._ext_obs[:b], self._ext_mask[:b], self._ext_u[:b], self.states[idx]
                    ),
                    np.int64,
                )
                if actions.shape != (b,) or not self._ext_mask[np.arange(b), actions].all():
                    raise RuntimeError(
                        f"opponent {self.slots[int(j)].name!r} returned an illegal action"
                    )
                total += _resume(
                    idx, actions, g, out, pool, _SCRIPTED_WEIGHTS, self._noise, self._ret
                )
        return total

    # -- API -----------------------------------------------------------------------------
    def reset(self, seed: int | None = None, reset_mask: np.ndarray | None = None) -> Any:
        """As ``LearnerGames.reset``: the opponents then play up to the learner's turn."""
        select = self._select(seed, reset_mask)
        if self.paired and reset_mask is None:
            self.keys[1::2] = self.keys[0::2]  # a pair plays the same setup
        if reset_mask is None:
            self.opponent_decisions = 0
        self._rewards[select] = 0.0
        self._terminated[select] = False
        self.opponent_decisions += _reset_pool(
            select,
            self._g(),
            self._out(),
            (self._kind, self._cum),
            _SCRIPTED_WEIGHTS,
            self._noise,
            self._ret,
        )
        self.opponent_decisions += self._drain()
        self._started = True
        return self.batch

    def step(self, actions: np.ndarray) -> Any:
        """The learner's action in every game, then the opponents'; SAME_STEP autoreset.

        Raises:
            IllegalActionError: naming the game index of an illegal action; nothing is
                stepped then.
        """
        a = self._check_actions(actions)
        self.opponent_decisions += _step_pool(
            a,
            self._g(),
            self._out(),
            (self._kind, self._cum),
            _SCRIPTED_WEIGHTS,
            self._noise,
            self._ret,
        )
        self.opponent_decisions += self._drain()
        return self.batch

    # -- resume ----------------------------------------------------------------------------
    _SAVED = (
        "states",
        "keys",
        "episodes",
        "setup_seeds",
        "learner",
        "slot",
        "rng",
        "_legal",
        "_num_legal",
        "_obs",
        "_mask",
    )

    def save_arrays(self) -> dict[str, np.ndarray]:
        """Everything needed to continue these games exactly (for training checkpoints)."""
        out = {name.lstrip("_"): np.array(getattr(self, name)) for name in self._SAVED}
        out["seed"] = np.array([self.seed if self.seed is not None else -1], np.int64)
        return out

    def load_arrays(self, arrays: dict[str, np.ndarray]) -> None:
        """Restore ``save_arrays``'s games (same ``num_envs``, player counts and pool).

        Raises:
            ValueError: naming an array that is missing or has another shape or dtype.
        """
        for name in self._SAVED:
            key = name.lstrip("_")
            current = getattr(self, name)
            a = arrays.get(key)
            if a is None or a.shape != current.shape or a.dtype != current.dtype:
                raise ValueError(
                    f"saved games: {key} is {None if a is None else (a.dtype, a.shape)}, "
                    f"these games need {(current.dtype, current.shape)}"
                )
            current[...] = a
        self.seed = int(arrays["seed"][0])
        self.waiting[:] = False
        self._terminated[:] = False
        self._rewards[:] = 0.0
        self._started = True
