"""The learner view with an opponent pool, for every game: what self-play trains on.

``PoolGames`` is ``caylus_env.core.vector.LearnerGames`` with a pool of opponents instead of
one compiled policy: in each of its ``N`` games of one registered game the learner plays one
seat (drawn per episode from the seed) and every other seat is played inside ``step`` by the
opponent drawn for that episode from the pool, with the pool's weights. The opponents are of
two kinds:

* **compiled** (``random`` and every bot of the game's ``bots.BOTS`` with a ``scripted``
  row: Caylus's ``castle``, ``town``, ``economy``; Puerto Rico's ``shipper``, ``builder``):
  played inside the one numba call that steps the batch (the game's ``choose_scripted``,
  its ties broken by the game's own random stream);
* **external** (the current policy ``self``, the promoted checkpoints ``pool``, a checkpoint
  ``policy:PATH``, a shipped checkpoint, MCTS or any agent spec of the game): the kernel
  stops a game when such a seat is to act; ``step`` then gathers, for each external
  opponent, every game waiting on it, encodes their observations in one call, asks the
  opponent for all their actions at once (``act_batch``: one network call for a checkpoint,
  however many games wait on it; an agent without it plays game by game, ``act``), applies
  them, and lets the kernel go on, until every game waits on the learner.

The loops below are written once, as plain functions over the game contract's kernels
(``K``), the game's observation encoder (``encode``) and its scripted bots
(``choose_scripted``), and compiled by numba per game with ``caylus_env.core.specialize``,
as the batched environment's are (``caylus_env.core.vector``, whose compiled episode start,
end and mask they call).

Reproducibility: game ``k``'s episode ``i`` depends only on ``(seed, k, i)``, the pool and
the actions (as in ``caylus_env.core.vector``): the setup, the learner seat, the opponent
drawn, the compiled opponents' choices and the uniform numbers external opponents sample
with (or are seeded with) all come from the game's own splitmix64 stream, and a checkpoint
computes each game's logits alone (``agents.policy.PolicyNet``). Only ``self``, the torch
network being trained, runs batched matrix products whose last bits can change with the
batch size: with ``self`` in the pool a run is reproducible for a given ``N``, thread count
and machine.

Rewards are the env's (the rank rewards of the game's ``returns`` kernel: zero-sum, at the
end of a game); a game cut off by the game's decision cap (``is_truncated``) ends with zero
reward and is flagged in ``truncated``, which the SB3 adapter reports as a truncation. The
optional shaped term (``PoolGames.margin``) is the learner's score margin over the best
opponent (the game's ``scores`` kernel: prestige, victory points), which the trainer turns
into a potential-based bonus; it is off by default.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from functools import cache
from types import SimpleNamespace
from typing import Any, Protocol

import numpy as np

from caylus_env.core.game import check_state_array
from caylus_env.core.observation import MAX_PLAYERS
from caylus_env.core.registry import GAME_NAMES, game_spec
from caylus_env.core.specialize import specialize
from caylus_env.core.vector import (
    WORD_LEARNER,
    WORD_OPPONENTS,
    Batch,
    BatchedGames,
    action_batch,
    episode_word,
    kernels,
    next_uniform,
    random_pick,
)

#: The kind id of the compiled ``random`` opponent; scripted bot row ``r`` is kind ``r + 1``.
RANDOM = 0
#: The kind id of an opponent played in Python (``act_batch`` or ``act``).
EXTERNAL = -1
#: The pool entries that stand for the policy being trained, and for the promoted checkpoints
#: (``pool``; played by ``pool->self`` until a checkpoint is promoted).
SELF, POOL, POOL_SELF = "self", "pool", "pool->self"
#: The most negative score margin's start (below any game's scores).
_NO_SCORE = -(1 << 30)


class BatchPolicy(Protocol):
    """An external opponent: one action for each game waiting on it."""

    def act_batch(
        self, obs: np.ndarray, mask: np.ndarray, uniforms: np.ndarray, states: np.ndarray
    ) -> np.ndarray:
        """Actions ``(B,)`` int64 for observations ``(B, OBS_SIZE)`` of the seats to act,
        their legal masks ``(B, NUM_ACTIONS)`` bool, one uniform number in [0, 1) per game
        (to sample with) and the games' states ``(B, STATE_SIZE)``."""


def compiled_opponents(game: str) -> dict[str, int]:
    """The opponents of ``game`` played inside the compiled step, by name, with their kind id:
    ``random`` and the game's scripted bots (``Bot.scripted``)."""
    bots = game_spec(game).module("bots").BOTS
    out = {"random": RANDOM}
    out.update({head: bot.scripted + 1 for head, bot in bots.items() if bot.scripted is not None})
    return out


@dataclass
class Slot:
    """One opponent of the pool.

    Attributes:
        name: as written in the pool spec (``economy``, ``self``, ``policy:runs/x/ckpt``).
        weight: its share of the episodes (the pool normalizes the weights).
        kind: a ``compiled_opponents`` id, or ``EXTERNAL``.
        policy: the external opponent (``None`` for compiled ones, and for ``self`` until
            the trainer sets it).
    """

    name: str
    weight: float
    kind: int
    policy: BatchPolicy | None = field(default=None, repr=False)


# ---------------------------------------------------------------------------------------
# Templates, compiled per game by numba (``_kernels``): ``K`` is the game's kernel module,
# ``encode`` its observation encoder, ``choose_scripted`` its scripted bots, and
# ``start_episode``, ``finish_game`` and ``write_mask`` the batched env's kernels of the game.
#
# g = (states, options, keys, episodes, setup_seeds, learner, rng, slot, legal, shift)
# out = (num_legal, obs, mask, rewards, terminated, truncated, final_obs, final_seat,
#        final_scores, final_ties, waiting, margin, final_margin, final_slot)
# pool = (kind, cum): each slot's kind and the cumulative weights
# scratch = (noise, ret, seat_rewards, scores)
# ---------------------------------------------------------------------------------------
def pool_action(kind, s, legal_row, n, rng, k, noise):
    """The move of compiled opponent ``kind`` among ``legal_row[:n]``."""
    if kind == RANDOM:
        return legal_row[random_pick(rng, k, n)]
    for i in range(n):
        noise[i] = next_uniform(rng, k)
    return legal_row[choose_scripted(kind - 1, s, legal_row, n, noise)]  # noqa: F821


def margin_of(scores, learner, num_players):
    """The learner's score minus the best opponent's (the shaped reward's potential)."""
    best = _NO_SCORE
    for p in range(num_players):
        if p != learner and scores[p] > best:
            best = scores[p]
    return scores[learner] - best


def start_pool_episode(s, k, g, cum):
    """Set up game ``k``'s current episode: the setup, the learner seat (shifted by
    ``shift[k]`` seats: a later game of a rotated block), the opponents' stream and the
    opponent drawn from the pool; returns the legal count."""
    options, keys, episodes, setup_seeds, learner, rng, slot, legal, shift = g[1:]
    n = start_episode(s, options, k, keys, episodes, setup_seeds, legal[k])  # noqa: F821
    drawn = episode_word(keys[k], episodes[k], WORD_LEARNER) % np.uint64(options[k, 0])
    learner[k] = (np.int64(drawn) + shift[k]) % options[k, 0]
    rng[k] = episode_word(keys[k], episodes[k], WORD_OPPONENTS)
    u = next_uniform(rng, k)
    j = 0
    while j < cum.shape[0] - 1 and u >= cum[j]:
        j += 1
    slot[k] = j
    return n


def settle(k, n, g, out, pool, scratch):
    """Play game ``k``'s compiled opponents (starting new episodes as games end) until the
    learner must act (its observation and mask written) or an external opponent must
    (``waiting[k]``); returns the opponent decisions taken."""
    states, options, episodes, learner, rng, slot, legal = g[0], g[1], g[3], g[5], g[6], g[7], g[8]
    num_legal, obs, mask, rewards, terminated, truncated, final_obs, final_seat = out[:8]
    final_scores, final_ties, waiting, margin, final_margin, final_slot = out[8:]
    kind, cum = pool
    noise, ret, seat_rewards, scores = scratch
    s = states[k]
    count = 0
    while True:
        while n > 0:
            if K.current_player(s) == learner[k]:  # noqa: F821
                break
            if kind[slot[k]] == EXTERNAL:
                waiting[k] = True
                num_legal[k] = n
                return count
            a = pool_action(kind[slot[k]], s, legal[k], n, rng, k, noise)
            K.apply(s, a)  # noqa: F821
            n = K.advance(s, legal[k])  # noqa: F821
            count += 1
        if n > 0:
            break
        # The game ended (by its rules, or cut off by its decision cap: zero rewards): its
        # results, then the next episode of game k (SAME_STEP autoreset).
        finish_game(  # noqa: F821
            s, k, learner[k], ret, seat_rewards, terminated, truncated, final_obs, final_scores,
            final_ties,
        )  # fmt: skip
        rewards[k] = seat_rewards[learner[k]]
        final_seat[k] = learner[k]
        final_slot[k] = slot[k]
        final_margin[k] = margin_of(final_scores[k], learner[k], options[k, 0])
        episodes[k] += 1
        n = start_pool_episode(s, k, g, cum)
    waiting[k] = False
    num_legal[k] = n
    scores[:] = 0
    K.scores(s, scores)  # noqa: F821
    margin[k] = margin_of(scores, learner[k], options[k, 0])
    encode(s, learner[k], obs[k])  # noqa: F821
    write_mask(mask[k], legal[k], n)  # noqa: F821
    return count


def reset_pool(select, g, out, pool, scratch):
    """Start the current episode of every selected game; the opponents play up to the
    learner's turn (or an external opponent's)."""
    total = 0
    for k in range(g[0].shape[0]):
        if select[k]:
            n = start_pool_episode(g[0][k], k, g, pool[1])
            total += settle(k, n, g, out, pool, scratch)
    return total


def step_pool(actions, g, out, pool, scratch):
    """The learner's action in every game, then its compiled opponents."""
    states, legal = g[0], g[8]
    rewards, terminated, truncated = out[3], out[4], out[5]
    total = 0
    for k in range(states.shape[0]):
        rewards[k] = 0.0
        terminated[k] = False
        truncated[k] = False
        K.apply(states[k], actions[k])  # noqa: F821
        n = K.advance(states[k], legal[k])  # noqa: F821
        total += settle(k, n, g, out, pool, scratch)
    return total


def external_inputs(idx, g, out, obs, mask, uniforms):
    """Observations, masks and uniform draws of the games ``idx`` (all waiting)."""
    states, rng, legal = g[0], g[6], g[8]
    num_legal = out[0]
    for i in range(idx.shape[0]):
        k = idx[i]
        s = states[k]
        encode(s, K.current_player(s), obs[i])  # noqa: F821
        mask[i, :] = False
        for j in range(num_legal[k]):
            mask[i, legal[k, j]] = True
        uniforms[i] = next_uniform(rng, k)


def resume_games(idx, actions, g, out, pool, scratch):
    """Apply the external opponents' actions to games ``idx`` and go on."""
    states, legal = g[0], g[8]
    total = 0
    for i in range(idx.shape[0]):
        k = idx[i]
        K.apply(states[k], actions[i])  # noqa: F821
        n = K.advance(states[k], legal[k])  # noqa: F821
        total += 1 + settle(k, n, g, out, pool, scratch)
    return total


def margins(states, learner, options, margin, scores):
    """Every game's current potential (``margin``), from the states (a resumed run)."""
    for k in range(states.shape[0]):
        scores[:] = 0
        K.scores(states[k], scores)  # noqa: F821
        margin[k] = margin_of(scores, learner[k], options[k, 0])


TEMPLATES = (
    pool_action,
    margin_of,
    start_pool_episode,
    settle,
    reset_pool,
    step_pool,
    external_inputs,
    resume_games,
    margins,
)


@cache
def _kernels(game: str) -> SimpleNamespace:
    """The pool's kernels of ``game`` (the templates above, compiled by numba on first use;
    its disk cache keeps them between runs)."""
    spec = game_spec(game)
    batched = kernels(spec.name)
    return specialize(
        TEMPLATES,
        spec.name,
        {
            "K": spec.engine().kernels,
            "encode": spec.observation().encode_into,
            "choose_scripted": spec.module("bots").choose_scripted,
            "start_episode": batched.start_episode,
            "finish_game": batched.finish_game,
            "write_mask": batched.write_mask,
        },
    )


# ---------------------------------------------------------------------------------------
# Pool specs
# ---------------------------------------------------------------------------------------
def _heads_needing_argument(game: str | None) -> set[str]:
    from agents.registry import describe

    games = GAME_NAMES if game is None else (game_spec(game).name,)
    return {info.head for g in games for info in describe(g) if info.needs_arg}


def parse_pool(text: str, game: str | None = None) -> list[tuple[str, float]]:
    """``"self:0.5,economy:0.3,pool:0.2"`` -> ``[("self", 0.5), ...]``.

    Each entry is an opponent and its weight after the last ``:``; an entry without a
    weight gets 1. An agent spec with an argument needs its weight written out
    (``mcts:30:0.1``: ``mcts:30`` alone would read as ``mcts`` with weight 30). Opponents:
    ``random`` and the game's scripted bots (compiled), ``self`` (the policy being trained),
    ``pool`` (the promoted checkpoints, sharing the weight), and any agent spec of the game
    (``mcts:30``, ``policy:PATH``); ``PoolGames`` checks that each is one of ``game``'s.

    Raises:
        ValueError: for an empty spec, a weight that is not a number >= 0, a repeated
            opponent or weights that sum to 0, naming the entry.
    """
    if not isinstance(text, str) or not text.strip():
        raise ValueError("opponents must be a non-empty list like 'self:0.5,random:0.3,pool:0.2'")
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
        if name in _heads_needing_argument(game):
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
    ``Game`` rebuilt from the state, the agent seeded before each move from the game's own
    stream (search agents are slow: use small weights).

    Args:
        agent: the agent.
        game: the game it plays.
    """

    #: Seeds drawn from a uniform number in [0, 1): its first 53 bits.
    SEED_SCALE = float(1 << 53)

    def __init__(self, agent: Any, game: str) -> None:
        self.agent = agent
        self.engine = game_spec(game).engine()

    def act_batch(
        self, obs: np.ndarray, mask: np.ndarray, uniforms: np.ndarray, states: np.ndarray
    ) -> np.ndarray:
        out = np.empty(len(states), np.int64)
        for i, s in enumerate(states):
            self.agent.reset(int(uniforms[i] * self.SEED_SCALE))
            game = self.engine.Game.from_state_dict(self.engine.state_to_dict(s.copy()))
            out[i] = self.agent.act(game)
        return out


def make_external(spec: str, game: str) -> BatchPolicy:
    """An external opponent of ``game`` from an agent spec: a checkpoint runs batched
    (``act_batch`` of ``agents.policy.PolicyAgent``), any other agent game by game.

    Raises:
        ValueError: naming a spec that does not make an agent of ``game`` (a checkpoint of
            another game included: ``agents.policy.CheckpointError``).
    """
    from agents.registry import make_agent

    agent = make_agent(spec, game)
    if hasattr(agent, "act_batch"):
        return agent  # type: ignore[return-value]
    return AgentPolicy(agent, game)


# ---------------------------------------------------------------------------------------
class PoolGames(BatchedGames):
    """``num_envs`` learner games of ``game`` against an opponent pool; see the module
    docstring.

    Args:
        game: a registered game's name.
        num_envs, num_players, **options: as for ``caylus_env.core.vector.VectorGames``.
        opponents: a pool spec (``parse_pool``) or its parsed list; ``pool`` entries are
            expanded into ``checkpoints`` (see ``set_checkpoints``).
        checkpoints: the promoted checkpoint directories that ``pool`` shares its weight
            between; with none yet, ``pool``'s weight goes to ``self``.
        rotated: play the games in blocks of ``num_players`` (one player count,
            ``num_envs`` a multiple of it): the games of a block share their key, so their
            setups, opponents drawn and opponents' streams, and the learner sits one seat
            further in each game of the block than in the one before, so that each seat's
            advantage cancels out (the matches of ``training.league``; with 2 players, the
            same setup with the seats swapped).

    Raises:
        ValueError: naming an opponent or argument that is not allowed and what is.
    """

    def __init__(
        self,
        game: str,
        num_envs: int,
        num_players: int | Sequence[int] | None = None,
        opponents: str | Sequence[tuple[str, float]] = "random",
        checkpoints: Sequence[str] = (),
        rotated: bool = False,
        **options: Any,
    ) -> None:
        super().__init__(game, num_envs, num_players, **options)
        self.compiled = compiled_opponents(self.spec.name)
        self._kernels = _kernels(self.spec.name)
        if isinstance(opponents, str):
            self.pool_spec = parse_pool(opponents, self.spec.name)
        else:
            self.pool_spec = list(opponents)
        self._externals: dict[str, BatchPolicy] = {}
        self._self_policy: BatchPolicy | None = None
        self.learner = np.zeros(self.num_envs, np.int64)
        self.slot = np.zeros(self.num_envs, np.int64)
        self.rotated = bool(rotated)
        block = int(self.num_players[0])
        if self.rotated and (len(set(self.num_players.tolist())) > 1 or self.num_envs % block):
            raise ValueError(
                "rotated games need one player count and num_envs a multiple of it, got "
                f"num_envs={self.num_envs} and num_players={sorted(set(self.num_players))}"
            )
        self.shift = (np.arange(self.num_envs) % block).astype(np.int64) * int(self.rotated)
        self.rng = np.zeros(self.num_envs, np.uint64)
        self._rewards = np.zeros(self.num_envs, np.float64)
        self.waiting = np.zeros(self.num_envs, np.bool_)
        #: The learner's score margin over the best opponent where it is to act, and at the
        #: end of the games that ended in the last step (the shaped reward's potential).
        self.margin = np.zeros(self.num_envs, np.int64)
        self.final_margin = np.zeros(self.num_envs, np.int64)
        #: The pool slot each game that ended in the last step was played against.
        self.final_slot = np.zeros(self.num_envs, np.int64)
        self._scratch = (
            np.zeros(self.num_actions, np.float64),
            self._ret,
            self._seat_rewards,
            np.zeros(MAX_PLAYERS, np.int64),
        )
        self._ext_obs = np.zeros((self.num_envs, self.obs_size), np.float32)
        self._ext_mask = np.zeros((self.num_envs, self.num_actions), np.bool_)
        self._ext_u = np.zeros(self.num_envs, np.float64)
        #: Decisions taken by the opponents since the last full reset.
        self.opponent_decisions = 0
        self.set_checkpoints(checkpoints)
        self.batch: Batch = self._make_batch(self.learner, self._rewards)

    # -- the pool ------------------------------------------------------------------------
    def _slot(self, name: str) -> Slot:
        if name in self.compiled:
            return Slot(name, 0.0, self.compiled[name])
        if name in (SELF, POOL_SELF):
            return Slot(name, 0.0, EXTERNAL)
        return Slot(name, 0.0, EXTERNAL, self._external(name))

    def set_checkpoints(self, checkpoints: Sequence[str]) -> None:
        """Set the promoted checkpoints that the ``pool`` entry shares its weight between
        (the trainer calls this after each promotion). Slots are only ever appended, so a
        game in progress keeps its opponent; the new weights apply from the next episodes.
        With no checkpoint yet, ``pool``'s weight goes to ``pool->self`` (the policy being
        trained).

        Raises:
            ValueError: for a checkpoint of another game (``agents.policy.CheckpointError``).
        """
        self.checkpoints = [str(c) for c in checkpoints]
        weights: dict[str, float] = {}
        for name, weight in self.pool_spec:
            if name != POOL:
                weights[name] = weight
            elif not self.checkpoints:
                weights[POOL_SELF] = weight
            else:
                for c in self.checkpoints:
                    weights[f"policy:{c}"] = weight / len(self.checkpoints)
        if not hasattr(self, "slots"):
            # The spec's entries first, ``pool`` as ``pool->self``, then the checkpoints in
            # promotion order: the same slot numbers however the list was reached (a resumed
            # run restores games whose ``slot`` indexes this list).
            self.slots: list[Slot] = [
                self._slot(POOL_SELF if name == POOL else name) for name, _ in self.pool_spec
            ]
        known = {s.name for s in self.slots}
        self.slots += [self._slot(name) for name in weights if name not in known]
        for slot in self.slots:
            slot.weight = weights.get(slot.name, 0.0)
        w = np.array([s.weight for s in self.slots], np.float64)
        self._kind = np.array([s.kind for s in self.slots], np.int64)
        self._cum = np.cumsum(w / w.sum())
        self._cum[int(np.flatnonzero(w > 0)[-1]) :] = 1.0  # u < 1 never picks past it

    def _external(self, spec: str) -> BatchPolicy:
        if spec not in self._externals:
            try:
                self._externals[spec] = make_external(spec, self.spec.name)
            except ValueError as err:
                allowed = ", ".join([SELF, POOL, *self.compiled])
                raise ValueError(
                    f"opponent {spec!r} is not a {self.spec.title} opponent ({err}); allowed: "
                    f"{allowed}, or an agent spec of the game (caylus agents --game "
                    f"{self.spec.name})"
                ) from None
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
            self._truncated,
            self._final_obs,
            self._final_seat,
            self._final_scores,
            self._final_ties,
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
                self._kernels.external_inputs(
                    idx, g, out, self._ext_obs, self._ext_mask, self._ext_u
                )
                returned = self._policy_of(int(j)).act_batch(
                    self._ext_obs[:b], self._ext_mask[:b], self._ext_u[:b], self.states[idx]
                )
                name = self.slots[int(j)].name
                try:
                    actions = action_batch(returned, b).astype(np.int64, copy=False)
                except ValueError as err:
                    raise RuntimeError(
                        f"opponent {name!r} returned no playable actions: {err}"
                    ) from None
                # The range first (a negative id wraps to a huge unsigned one), so that the
                # mask look-up never wraps around or runs past a row.
                if (
                    not (actions.view(np.uint64) < self.num_actions).all()
                    or not self._ext_mask[np.arange(b), actions].all()
                ):
                    raise RuntimeError(f"opponent {name!r} returned an illegal action")
                total += self._kernels.resume_games(idx, actions, g, out, pool, self._scratch)
        return total

    # -- API -----------------------------------------------------------------------------
    def reset(self, seed: int | None = None, reset_mask: np.ndarray | None = None) -> Batch:
        """As ``LearnerGames.reset``: the opponents then play up to the learner's turn."""
        select = self._select(seed, reset_mask)
        if self.rotated and reset_mask is None:
            self.keys[:] = self.keys[np.arange(self.num_envs) - self.shift]  # a block's key
        if reset_mask is None:
            self.opponent_decisions = 0
        self._rewards[select] = 0.0
        self._terminated[select] = False
        self._truncated[select] = False
        self.opponent_decisions += self._kernels.reset_pool(
            select, self._g(), self._out(), (self._kind, self._cum), self._scratch
        )
        self.opponent_decisions += self._drain()
        self._started = True
        return self.batch

    def step(self, actions: np.ndarray) -> Batch:
        """The learner's action in every game, then the opponents'; SAME_STEP autoreset.

        Raises:
            IllegalActionError: naming the game index of an illegal action; nothing is
                stepped then.
        """
        a = self._check_actions(actions)
        self.opponent_decisions += self._kernels.step_pool(
            a, self._g(), self._out(), (self._kind, self._cum), self._scratch
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

    def load_arrays(self, arrays: dict[str, np.ndarray], where: str = "saved games") -> None:
        """Restore ``save_arrays``'s games (same game, ``num_envs``, player counts and pool).

        The arrays come from a file: nothing of them reaches a kernel before every game's
        state has passed its game's own validation (``check_saved_state``), each learner
        seat and opponent slot is in range, and the saved legal actions, masks and
        observations are the ones of the states (``where`` names the file in the errors).

        Raises:
            ValueError: naming the array (and game) that is missing, has another shape or
                dtype, or does not hold a position these games can continue; nothing is
                changed then.
        """
        for name in (*self._SAVED, "seed"):
            key = name.lstrip("_")
            current = getattr(self, name) if name != "seed" else np.zeros(1, np.int64)
            a = arrays.get(key)
            if (
                not isinstance(a, np.ndarray)
                or a.shape != current.shape
                or a.dtype != current.dtype
            ):
                got = (a.dtype, a.shape) if isinstance(a, np.ndarray) else None
                raise ValueError(
                    f"{where}: games.{key} is {got}, these games need "
                    f"{(current.dtype, current.shape)}"
                )
        seed = int(arrays["seed"][0])
        if seed < -1:
            raise ValueError(f"{where}: games.seed is {seed}; allowed: -1 (none) or >= 0")
        for name, values, high in (
            ("learner", arrays["learner"], self.options[:, 0]),
            ("slot", arrays["slot"], len(self.slots)),
        ):
            bad = np.flatnonzero((values < 0) | (values >= high))
            if bad.size:
                k = int(bad[0])
                limit = int(np.broadcast_to(high, values.shape)[k])
                raise ValueError(
                    f"{where}: games.{name}[{k}] is {int(values[k])}; allowed: 0..{limit - 1}"
                    + (f" (opponent slots {self.opponent_names()})" if name == "slot" else "")
                )
        bad = np.flatnonzero(arrays["episodes"] < 0)
        if bad.size:
            raise ValueError(f"{where}: games.episodes[{int(bad[0])}] is negative")
        K = self.engine.kernels
        legal = np.empty(self.num_actions, np.int64)
        obs = np.zeros(self.obs_size, np.float32)
        for k in range(self.num_envs):
            s = arrays["states"][k]
            check_saved_state(self.spec.name, s, self.options[k], f"{where}: games.states[{k}]")
            copy = s.copy()
            n = int(K.legal_actions(copy, legal))
            seat = int(arrays["learner"][k])
            if n < 1 or int(K.current_player(copy)) != seat:
                raise ValueError(
                    f"{where}: games.states[{k}] does not wait on the learner (seat {seat})"
                )
            mask = np.zeros(self.num_actions, np.int8)
            mask[legal[:n]] = 1
            self.observer.encode_into(copy, seat, obs)
            for key, same in (
                ("num_legal", int(arrays["num_legal"][k]) == n),
                ("legal", np.array_equal(arrays["legal"][k, :n], legal[:n])),
                ("mask", np.array_equal(arrays["mask"][k], mask)),
                ("obs", np.array_equal(arrays["obs"][k], obs)),
            ):
                if not same:
                    raise ValueError(f"{where}: games.{key}[{k}] does not match games.states[{k}]")
        for name in self._SAVED:
            getattr(self, name)[...] = arrays[name.lstrip("_")]
        self.seed = seed
        self.waiting[:] = False
        self._terminated[:] = False
        self._truncated[:] = False
        self._rewards[:] = 0.0
        self._kernels.margins(
            self.states, self.learner, self.options, self.margin, self._scratch[3]
        )
        self._started = True


def check_saved_state(game: str, s: np.ndarray, options: np.ndarray, where: str) -> None:
    """Refuse a state array from a file unless it is a position of ``game`` that its own
    validation accepts (`caylus_env.core.game.check_state_array`), with the kernel
    ``options`` of the game it is to continue.

    Raises:
        ValueError: naming ``where`` and what is wrong.
    """
    engine = game_spec(game).engine()
    try:
        d = check_state_array(engine, s)
        config = engine.GameConfig.from_dict(d["options"])
    except ValueError as err:
        raise ValueError(f"{where}: not a valid {game} position ({err})") from None
    if not np.array_equal(config.kernel_options(), options):
        raise ValueError(f"{where}: a game with options {d['options']}, not those of these games")


__all__ = [
    "EXTERNAL",
    "POOL",
    "POOL_SELF",
    "RANDOM",
    "SELF",
    "TEMPLATES",
    "AgentPolicy",
    "BatchPolicy",
    "PoolGames",
    "Slot",
    "check_saved_state",
    "compiled_opponents",
    "make_external",
    "parse_pool",
]
