"""The learner view with an opponent pool, for every game: what self-play trains on.

``PoolGames`` is ``caylus_env.core.vector.LearnerGames`` with a pool of opponents instead of
one compiled policy: in each of its ``N`` games of one registered game the learner plays one
seat (drawn per episode from the seed) and every other seat is played inside ``step`` by the
opponent drawn for that episode from the pool, with the pool's weights. The opponents are of
two kinds:

* **compiled** (``random`` and every bot of the game's ``bots.BOTS`` with a ``scripted``
  row: Caylus's ``castle``, ``town``, ``economy``; Puerto Rico's ``shipper``, ``builder``):
  played inside the one compiled call that steps the batch (the game's ``choose_scripted``,
  its ties broken by the game's own random stream);
* **external** (the current policy ``self``, the promoted checkpoints ``pool``, a checkpoint
  ``policy:PATH``, a shipped checkpoint, MCTS or any agent spec of the game): the kernel
  stops a game when such a seat is to act; ``step`` then gathers, for each external
  opponent, every game waiting on it, encodes their observations in one call, asks the
  opponent for all their actions at once (``act_batch``: one network call for a checkpoint,
  however many games wait on it; an agent without it plays game by game, ``act``), applies
  them, and lets the kernel go on, until every game waits on the learner.

The compiled loop is the batched environment's learner loop (``caylus_env.core.vector``'s
``LearnerGames``, whose kernels play every kind of compiled opponent and stop a game for an
external one): ``PoolGames`` is ``LearnerGames`` with a pool, and this module holds only what
the pool adds in Python: the slots and their weights (``Opponents``), the external opponents,
and saving and restoring the games of a run.

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
from typing import Any, Protocol

import numpy as np

from caylus_env.core.game import check_state_array
from caylus_env.core.registry import GAME_NAMES, game_spec
from caylus_env.core.vector import (
    FIRST_SCRIPTED,
    OPPONENT_EXTERNAL,
    OPPONENT_RANDOM,
    LearnerGames,
    Opponents,
    action_batch,
)

#: The kind id of the compiled ``random`` opponent; scripted bot row ``r`` is kind
#: ``r + FIRST_SCRIPTED`` (``caylus_env.core.vector.Opponents``).
RANDOM = OPPONENT_RANDOM
#: The kind id of an opponent played in Python (``act_batch`` or ``act``).
EXTERNAL = OPPONENT_EXTERNAL
#: The pool entries that stand for the policy being trained, and for the promoted checkpoints
#: (``pool``; played by ``pool->self`` until a checkpoint is promoted).
SELF, POOL, POOL_SELF = "self", "pool", "pool->self"


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
    out.update(
        {
            head: bot.scripted + FIRST_SCRIPTED
            for head, bot in bots.items()
            if bot.scripted is not None
        }
    )
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
class PoolGames(LearnerGames):
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
        super().__init__(game, num_envs, num_players, "random", **options)
        self.compiled = compiled_opponents(self.spec.name)
        if isinstance(opponents, str):
            self.pool_spec = parse_pool(opponents, self.spec.name)
        else:
            self.pool_spec = list(opponents)
        self._externals: dict[str, BatchPolicy] = {}
        self._self_policy: BatchPolicy | None = None
        self.rotated = bool(rotated)
        block = int(self.num_players[0])
        if self.rotated and (len(set(self.num_players.tolist())) > 1 or self.num_envs % block):
            raise ValueError(
                "rotated games need one player count and num_envs a multiple of it, got "
                f"num_envs={self.num_envs} and num_players={sorted(set(self.num_players))}"
            )
        self.shift[:] = (np.arange(self.num_envs) % block) * int(self.rotated)
        self._ext_obs = np.zeros((self.num_envs, self.obs_size), np.float32)
        self._ext_mask = np.zeros((self.num_envs, self.num_actions), np.bool_)
        self._ext_u = np.zeros(self.num_envs, np.float64)
        self.set_checkpoints(checkpoints)

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
        cum = np.cumsum(w / w.sum())
        cum[int(np.flatnonzero(w > 0)[-1]) :] = 1.0  # u < 1 never picks past it
        #: Each slot's kind and the cumulative weights each episode draws its slot from,
        #: the score margins kept (the trainer's shaped term and per-opponent scores).
        self.opponents = Opponents(np.array([s.kind for s in self.slots], np.int64), cum, True)

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

    # -- the external opponents ------------------------------------------------------------
    def _play_outside(self) -> int:
        """Play the external opponents of every waiting game, batched per opponent, until
        every game waits on the learner; returns the decisions taken."""
        total = 0
        games, learners = self._games, self._learners
        while self.waiting.any():
            for j in np.unique(self.slot[self.waiting]):
                idx = np.flatnonzero(self.waiting & (self.slot == j))
                b = len(idx)
                self.kernels.external_inputs(
                    idx, games, learners, self._ext_obs, self._ext_mask, self._ext_u
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
                total += self.kernels.resume_games(
                    idx, actions, games, self._out, learners, self._opponents, self._scratch
                )
        return total

    # -- reset ---------------------------------------------------------------------------
    def _select(self, seed: Any, reset_mask: Any) -> np.ndarray:
        """As ``LearnerGames``; a full reset of rotated games gives each block its first
        game's key."""
        select = super()._select(seed, reset_mask)
        if self.rotated and reset_mask is None:
            self.keys[:] = self.keys[np.arange(self.num_envs) - self.shift]  # a block's key
        return select

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
        self.kernels.margins(self._games, self._learners, self._scratch)
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
    "AgentPolicy",
    "BatchPolicy",
    "PoolGames",
    "Slot",
    "check_saved_state",
    "compiled_opponents",
    "make_external",
    "parse_pool",
]
