"""Self-play PPO for Puerto Rico: ``caylus train ppo --game puerto_rico``.

The Puerto Rico counterpart of ``training.ppo`` (read that module first): the same run
directory (``run.json``, ``checkpoints/step-*/``, ``progress.csv``, TensorBoard events), the
same checkpoint writer (``training.checkpoints``: atomic, SHA-256 checked, exactly
resumable), the same progress callback and the same ``MaskablePPO``; what differs is the
game under it:

1. **Games**: ``PuertoRicoPoolGames``: ``--envs`` games of ``--players`` players
   (docs/rules/puerto_rico.md 1.2); in each the learner plays one seat, drawn per episode from
   the game's own stream, and every other seat is played by the opponent drawn for that
   episode from ``--opponents`` (``parse_pool``'s syntax: ``self:0.5,shipper:0.3,random:0.2``)
   among the Puerto Rico agents (``agents.puerto_rico.registry``: ``random``, ``shipper``,
   ``builder``, ``mcts:SIMS``, ``policy:PATH``), ``self``, the policy being trained, and
   ``pool``, the checkpoints promoted by the league (as Caylus's, ``training.learner``). The
   games are engine ``Game`` handles stepped in a Python loop (each one's state a row of one
   ``(N, STATE_SIZE)`` array, so the learner's observations are one ``encode_batch`` call);
   the batched opponents (``self`` and checkpoints) get one network call for all the games
   waiting on them.
2. **Reward**: the engine's zero-sum rank reward of the learner's seat
   (``Game.returns``: +1 first .. -1 last, ties averaged, rules 5.3) when a game ends; 0
   before, and 0 for a game cut off by the decision cap (rules 6.9), which SB3 is told is a
   truncation so that it bootstraps from the value instead.
3. **Observations**: the learner's view from ``caylus_env.puerto_rico.observation``; the
   masks are the engine's legal actions (``MaskablePPO`` masks the logits with them).
4. **Network**: ``pr-mlp-v1`` (``agents.puerto_rico.policy.Arch``): SB3's ``MlpPolicy`` with
   ReLU layers; a checkpoint's ``config.json`` names ``"game": "puerto_rico"`` and the Puerto
   Rico observation and action-space versions, so a Caylus tool refuses it (the versions
   differ) and ``policy:PATH`` of Puerto Rico refuses a Caylus checkpoint naming both games.

Reproducibility: game ``k``'s episode ``i`` depends only on ``(seed, k, i)`` and the
actions: its setup seed, the learner's seat, the opponent drawn, each opponent move's seed
(every agent is ``reset`` with it before it acts) and the uniform numbers the batched
opponents sample with are splitmix64 words of that key and the move's index. So the state of
the games is a few arrays (``save_arrays``), a checkpoint resumes them exactly, and two runs
with the same arguments, thread count and machine give the same weights.

After each checkpoint, Caylus's game-neutral ``training.ppo.settle_checkpoint`` runs with
this module's ``play_checkpoint`` as the match: the **evaluation** (``--eval-games`` against
each of ``--eval-opponents``, Puerto Rico agents; ``curve.csv``, ``learning_curve.png``, the
``eval/score_*`` log) and the **gate** (``--gate-games`` against the best checkpoint so far;
``training.league``: ``league.json``, ``league.md``; promoted checkpoints join ``pool``). A
match plays the greedy checkpoint in one seat and the opponent in all the others, the games
in blocks of ``--players`` with the same setup and the checkpoint one seat further in each
(``PuertoRicoPoolGames(rotated=True)``: Caylus's paired games, rotated over every seat).
``--init CHECKPOINT`` starts the network from a Puerto Rico checkpoint's weights (a
behaviour-cloning warm start, or another run's), recorded as the first checkpoint's parent.

Not (yet) for Puerto Rico: the shaped reward and the CleanRL trainer:
``PuertoRicoPPOConfig.check`` refuses them by name.
"""

from __future__ import annotations

import json
import shlex
import sys
from dataclasses import dataclass, field
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import numpy as np

from agents.policy import CheckpointError
from agents.puerto_rico.policy import Arch, PolicyNet, read_config, versions
from caylus_env.puerto_rico.engine import Game, GameConfig, IllegalActionError
from caylus_env.puerto_rico.engine import kernels as K
from caylus_env.puerto_rico.engine.actions import NUM_ACTIONS
from caylus_env.puerto_rico.engine.constants import MAX_PLAYERS, MIN_PLAYERS
from caylus_env.puerto_rico.engine.game import GAME_NAME, MAX_SEED
from caylus_env.puerto_rico.engine.layout import STATE_SIZE
from training.league import League, MatchResult, match_result
from training.learner import parse_pool
from training.ppo import (
    PPOConfig,
    TorchPolicy,
    _callback_class,
    _load_init_tensors,
    prepare_run,
    settle_checkpoint,
)

#: The opponent pool of ``--opponents`` when it is not given.
DEFAULT_OPPONENTS = "self:0.5,random:0.1,shipper:0.2,builder:0.2"
#: The learning curve's references when ``--eval-opponents`` is not given.
DEFAULT_EVAL_OPPONENTS = "random,shipper,builder"
#: The pool entry that stands for the policy being trained.
SELF = "self"
#: The pool entry that stands for the promoted checkpoints (``training.league``), and the
#: slot that plays it before the first promotion (the policy being trained), as Caylus's.
POOL = "pool"
POOL_SELF = "pool->self"

_MASK64 = (1 << 64) - 1
_TO_UNIT = 1.0 / 18446744073709551616.0  # 2**-64: a uint64 to [0, 1)
# Words of an episode's key: its setup seed, the learner's seat, the opponent drawn, then
# one word per opponent move from ``_WORD_MOVES`` on.
_WORD_SETUP, _WORD_LEARNER, _WORD_OPPONENT, _WORD_MOVES = 0, 1, 2, 16


def _mix(x: int) -> int:
    """splitmix64's finalizer: a well-spread 64-bit word of ``x``."""
    x = (x + 0x9E3779B97F4A7C15) & _MASK64
    x = ((x ^ (x >> 30)) * 0xBF58476D1CE4E5B9) & _MASK64
    x = ((x ^ (x >> 27)) * 0x94D049BB133111EB) & _MASK64
    return x ^ (x >> 31)


def episode_key(seed: int, game: int, episode: int) -> int:
    """The key of game ``game``'s episode ``episode`` of a batch seeded ``seed``."""
    return _mix(_mix(_mix(seed & _MASK64) ^ game) ^ episode)


def episode_word(key: int, index: int) -> int:
    """Word ``index`` of an episode's key (see the module docstring)."""
    return _mix(key ^ index)


# ---------------------------------------------------------------------------------------
# The opponent pool
# ---------------------------------------------------------------------------------------
@dataclass
class Slot:
    """One opponent of the pool (``training.learner.Slot``'s Puerto Rico counterpart).

    Attributes:
        name: as written in the pool spec (``shipper``, ``self``, ``policy:runs/x/ckpt``).
        weight: its share of the episodes (normalized over the pool).
        agent: a Puerto Rico agent played move by move (``act``), or None.
        policy: a batched opponent (``act_batch``: ``self`` once the trainer sets it, or a
            checkpoint), or None.
    """

    name: str
    weight: float
    agent: Any = field(default=None, repr=False)
    policy: Any = field(default=None, repr=False)

    @property
    def batched(self) -> bool:
        return self.agent is None


def parse_opponents(text: str) -> list[Slot]:
    """The Puerto Rico opponent pool of ``text`` (``training.learner.parse_pool``'s syntax).

    ``pool`` becomes the slot ``pool->self`` (the policy being trained, until a checkpoint is
    promoted: ``PuertoRicoPoolGames.set_checkpoints``).

    Raises:
        ValueError: for a malformed list, an entry that is not a Puerto Rico agent spec
            (Caylus's ``castle``, ``town``, ``economy`` ...), ``self`` or ``pool``, naming the
            entry and what is allowed.
    """
    from agents.puerto_rico.registry import make_agent, specs

    slots = []
    for name, weight in parse_pool(text):
        if name in (SELF, POOL):
            slots.append(Slot(POOL_SELF if name == POOL else name, weight))
            continue
        try:
            agent = make_agent(name)
        except ValueError as err:
            raise ValueError(
                f"--opponents entry {name!r} is not a Puerto Rico opponent ({err}); "
                f"allowed: {SELF}, {POOL}, {', '.join(specs())}"
            ) from None
        if hasattr(agent, "act_batch"):
            slots.append(Slot(name, weight, policy=agent))
        else:
            slots.append(Slot(name, weight, agent=agent))
    return slots


# ---------------------------------------------------------------------------------------
# The learner's games
# ---------------------------------------------------------------------------------------
class PuertoRicoPoolGames:
    """``num_envs`` Puerto Rico games in which the learner plays one seat against a pool;
    see the module docstring. The interface of ``training.learner.PoolGames`` that the SB3
    adapter and the checkpoints use: ``reset``, ``step``, ``batch`` (``obs``, ``mask``,
    ``rewards``, ``terminated``), ``save_arrays`` / ``load_arrays``, ``set_self_policy``,
    ``opponent_names`` and ``final_slot``.

    Args:
        num_envs: the number of games, >= 1.
        num_players: the player count of every game (docs/rules/puerto_rico.md 1.2).
        opponents: the opponent pool (``parse_opponents``); its ``pool`` entry shares its
            weight between ``checkpoints`` (see ``set_checkpoints``).
        seed: the seed of the first ``reset`` when it is given none.
        checkpoints: the promoted checkpoint directories (``training.league``).
        rotated: play the games in blocks of ``num_players`` (``num_envs`` a multiple of
            it): the games of block ``j`` share their key (setup, opponent drawn, opponent
            move seeds; episode by episode) and the learner sits in seat
            ``k % num_players`` of game ``k``, so every seat's advantage cancels out
            (Caylus's ``paired`` games; the matches of ``play_checkpoint``).

    Raises:
        ValueError: naming an argument that is not allowed and what is.
    """

    def __init__(
        self,
        num_envs: int,
        num_players: int = 3,
        opponents: str = DEFAULT_OPPONENTS,
        seed: int = 0,
        checkpoints: list[str] | tuple[str, ...] = (),
        rotated: bool = False,
    ) -> None:
        from caylus_env.puerto_rico import observation

        if isinstance(num_envs, bool) or not isinstance(num_envs, int) or num_envs < 1:
            raise ValueError(f"num_envs must be an int >= 1, got {num_envs!r}")
        self.config = GameConfig(num_players=num_players)  # checks the player count
        self._encode_batch = observation.encode_batch
        self._encode_into = observation.encode_into
        self.num_envs = num_envs
        if rotated and num_envs % num_players:
            raise ValueError(
                f"rotated games need num_envs a multiple of num_players ({num_players}), "
                f"got {num_envs}"
            )
        self.rotated = bool(rotated)
        self.num_players = np.full(num_envs, num_players, np.int64)
        self.spec = parse_pool(opponents)
        self.slots = parse_opponents(opponents)
        self.seed = seed
        self.set_checkpoints(checkpoints)
        n, size = num_envs, observation.OBS_SIZE
        self.states = np.zeros((n, STATE_SIZE), np.int16)
        self.games: list[Game] = []
        self.episodes = np.zeros(n, np.int64)
        self.learner = np.zeros(n, np.int64)
        self.slot = np.zeros(n, np.int64)
        self.plies = np.zeros(n, np.int64)
        self.final_slot = np.zeros(n, np.int64)
        self.final_seat = np.zeros(n, np.int64)
        self.truncated = np.zeros(n, np.bool_)
        self._keys = [0] * n
        self._mask8 = np.zeros((n, NUM_ACTIONS), np.int8)
        self.batch = SimpleNamespace(
            obs=np.zeros((n, size), np.float32),
            mask=self._mask8.view(np.bool_),
            rewards=np.zeros(n, np.float64),
            terminated=np.zeros(n, np.bool_),
            final_obs=np.zeros((n, size), np.float32),
            seat=self.learner,
        )
        self._ext_obs = np.zeros((n, size), np.float32)
        self._ext_mask = np.zeros((n, NUM_ACTIONS), np.int8)
        #: Decisions taken by the opponents since the last full reset.
        self.opponent_decisions = 0

    # -- the pool ------------------------------------------------------------------------
    def set_self_policy(self, policy: Any) -> None:
        """The policy that plays the ``self`` opponents (the trainer's current network), and
        ``pool`` before the first promotion."""
        for s in self.slots:
            if s.name in (SELF, POOL_SELF):
                s.policy = policy

    def set_checkpoints(self, checkpoints: list[str] | tuple[str, ...]) -> None:
        """Set the promoted checkpoints that the ``pool`` entry shares its weight between
        (the trainer calls this after each gate), as ``training.learner.PoolGames`` does:
        slots are only ever appended (the spec's entries, then each checkpoint as
        ``policy:PATH``, greedy, in promotion order), so a game in progress keeps its
        opponent and a resumed run's ``slot`` indexes the same list; the new weights apply
        from the next episodes. With no checkpoint yet, ``pool``'s weight goes to
        ``pool->self``.

        Raises:
            ValueError: for a checkpoint that is not a Puerto Rico one (``CheckpointError``).
        """
        from agents.puerto_rico.registry import make_agent

        self.checkpoints = [str(c) for c in checkpoints]
        weights: dict[str, float] = {}
        for name, weight in self.spec:
            if name == POOL and self.checkpoints:
                for c in self.checkpoints:
                    weights[f"policy:{c}"] = weight / len(self.checkpoints)
            else:
                weights[POOL_SELF if name == POOL else name] = weight
        known = {s.name for s in self.slots}
        for name in weights:
            if name not in known:
                self.slots.append(Slot(name, 0.0, policy=make_agent(name)))
        for slot in self.slots:
            slot.weight = weights.get(slot.name, 0.0)
        w = np.array([s.weight for s in self.slots], np.float64)
        self._cum = np.cumsum(w / w.sum())
        self._cum[int(np.flatnonzero(w > 0)[-1]) :] = 1.0  # u < 1 never picks past it

    def opponent_names(self) -> list[str]:
        """The name of each slot (``final_slot`` indexes this list)."""
        return [s.name for s in self.slots]

    # -- episodes ------------------------------------------------------------------------
    def _start(self, k: int) -> None:
        """Set up game ``k``'s current episode from its key (the setup, the learner's seat,
        the opponent drawn); its state becomes row ``k`` of ``states``."""
        key = self._key(k)
        self._keys[k] = key
        game = Game(self.config, seed=episode_word(key, _WORD_SETUP) % MAX_SEED)
        self._adopt(k, game)
        players = self.config.num_players
        if self.rotated:
            self.learner[k] = k % players
        else:
            self.learner[k] = episode_word(key, _WORD_LEARNER) % players
        u = episode_word(key, _WORD_OPPONENT) * _TO_UNIT
        self.slot[k] = int(np.searchsorted(self._cum, u, side="right"))
        self.plies[k] = 0

    def _key(self, k: int) -> int:
        """The key of game ``k``'s current episode; rotated games share their block's (the
        setup, the opponent drawn and the opponents' move seeds)."""
        block = k // self.config.num_players if self.rotated else k
        return episode_key(self.seed, block, int(self.episodes[k]))

    def _adopt(self, k: int, game: Game) -> None:
        """Make ``game``'s state row ``k`` of ``states`` (the game keeps working on it)."""
        self.states[k] = game.state
        game.state = self.states[k]
        if k < len(self.games):
            self.games[k] = game
        else:
            self.games.append(game)

    def _move_word(self, k: int) -> int:
        word = episode_word(self._keys[k], _WORD_MOVES + int(self.plies[k]))
        self.plies[k] += 1
        return word

    def _end(self, k: int, game: Game) -> None:
        """Game ``k`` is over: keep its reward and final observation, start the next one."""
        b = self.batch
        seat = int(self.learner[k])
        b.rewards[k] = float(game.returns()[seat]) if game.is_terminal() else 0.0
        b.terminated[k] = True
        self.truncated[k] = game.is_truncated()
        self.final_seat[k] = seat
        self.final_slot[k] = self.slot[k]
        self._encode_into(game.state, seat, b.final_obs[k])
        self.episodes[k] += 1
        self._start(k)

    def _settle(self, pending: list[int]) -> None:
        """Play the opponents of the games ``pending`` until the learner is to act in each:
        move-by-move agents at once, batched ones once per round for all games waiting."""
        while pending:
            waiting: dict[int, list[int]] = {}
            for k in pending:
                game = self.games[k]
                while True:
                    p = game.current_player()
                    if p < 0:
                        self._end(k, game)
                        game = self.games[k]
                        continue
                    if p == self.learner[k]:
                        break
                    slot = self.slots[int(self.slot[k])]
                    if slot.batched:
                        waiting.setdefault(int(self.slot[k]), []).append(k)
                        break
                    slot.agent.reset(self._move_word(k))
                    game.apply(slot.agent.act(game))
                    self.opponent_decisions += 1
            pending = []
            for j, idx in sorted(waiting.items()):
                pending += self._play_batched(j, idx)
        self._encode_batch(self.states, self.learner, self.batch.obs)
        for k in range(self.num_envs):
            K.legal_mask(self.states[k], self._mask8[k])

    def _play_batched(self, j: int, idx: list[int]) -> list[int]:
        """One call of batched opponent ``j`` for the games ``idx`` (all waiting on it)."""
        slot = self.slots[j]
        if slot.policy is None:
            raise RuntimeError(
                f"opponent {slot.name!r} is the policy being trained: call set_self_policy() "
                "before reset()"
            )
        b = len(idx)
        seats = np.array([self.games[k].current_player() for k in idx], np.int64)
        self._encode_batch(self.states[idx], seats, self._ext_obs[:b])
        uniforms = np.empty(b, np.float64)
        for i, k in enumerate(idx):
            K.legal_mask(self.states[k], self._ext_mask[i])
            uniforms[i] = self._move_word(k) * _TO_UNIT
        mask = self._ext_mask[:b].view(np.bool_)
        actions = np.asarray(
            slot.policy.act_batch(self._ext_obs[:b], mask, uniforms, self.states[idx]), np.int64
        )
        if actions.shape != (b,) or not mask[np.arange(b), actions].all():
            raise RuntimeError(f"opponent {slot.name!r} returned an illegal action")
        for i, k in enumerate(idx):
            self.games[k].apply(int(actions[i]))
        self.opponent_decisions += b
        return idx

    # -- API -----------------------------------------------------------------------------
    def reset(self, seed: int | None = None) -> SimpleNamespace:
        """Start every game's first episode (of ``seed``, else the constructor's); the
        opponents then play up to the learner's turn."""
        if seed is not None:
            if isinstance(seed, bool) or not isinstance(seed, (int, np.integer)) or seed < 0:
                raise ValueError(f"seed must be an int >= 0, got {seed!r}")
            self.seed = int(seed)
        self.episodes[:] = 0
        self.opponent_decisions = 0
        self.batch.rewards[:] = 0.0
        self.batch.terminated[:] = False
        for k in range(self.num_envs):
            self._start(k)
        self._settle(list(range(self.num_envs)))
        self.batch.terminated[:] = False
        self.batch.rewards[:] = 0.0
        return self.batch

    def step(self, actions: np.ndarray) -> SimpleNamespace:
        """The learner's action in every game, then the opponents'; a game that ends keeps
        its reward and final observation and starts its next episode (SB3's autoreset).

        Raises:
            IllegalActionError: naming the game index, the action and the legal ones; no
                game is stepped then.
        """
        if not self.games:
            raise RuntimeError("step() before reset()")
        a = np.asarray(actions)
        if a.shape != (self.num_envs,) or not np.issubdtype(a.dtype, np.integer):
            raise IllegalActionError(
                f"actions must be {self.num_envs} integer action ids (one per game), got "
                f"{a.dtype} of shape {a.shape}"
            )
        inside = (a >= 0) & (a < NUM_ACTIONS)
        legal = inside & self.batch.mask[np.arange(self.num_envs), np.where(inside, a, 0)]
        if not legal.all():
            k = int(np.flatnonzero(~legal)[0])
            raise IllegalActionError(
                f"game {k}: action {int(a[k])} is illegal; legal: {self.games[k].legal_actions()}"
            )
        self.batch.rewards[:] = 0.0
        self.batch.terminated[:] = False
        self.truncated[:] = False
        for k in range(self.num_envs):
            self.games[k].apply(int(a[k]))
        self._settle(list(range(self.num_envs)))
        return self.batch

    # -- resume ----------------------------------------------------------------------------
    _SAVED = ("states", "episodes", "learner", "slot", "plies")

    def save_arrays(self) -> dict[str, np.ndarray]:
        """Everything needed to continue these games exactly (for training checkpoints)."""
        out = {name: np.array(getattr(self, name)) for name in self._SAVED}
        out["seed"] = np.array([self.seed], np.int64)
        return out

    def load_arrays(self, arrays: dict[str, np.ndarray]) -> None:
        """Restore ``save_arrays``'s games (same ``num_envs``, player count and pool).

        Raises:
            ValueError: naming an array that is missing or has another shape or dtype.
        """
        from caylus_env.puerto_rico.engine.state_dict import state_to_dict

        for name in self._SAVED:
            current = getattr(self, name)
            a = arrays.get(name)
            if a is None or a.shape != current.shape or a.dtype != current.dtype:
                raise ValueError(
                    f"saved games: {name} is {None if a is None else (a.dtype, a.shape)}, "
                    f"these games need {(current.dtype, current.shape)}"
                )
        if int(arrays["slot"].max(initial=0)) >= len(self.slots):
            raise ValueError(
                f"saved games use opponent slots this pool of {self.opponent_names()} lacks"
            )
        self.seed = int(arrays["seed"][0])
        for name in self._SAVED:
            getattr(self, name)[...] = arrays[name]
        saved_states = self.states.copy()
        self.games = []
        for k in range(self.num_envs):
            self._keys[k] = self._key(k)
            self._adopt(k, Game.from_state_dict(state_to_dict(saved_states[k].copy())))
            if not np.array_equal(self.states[k], saved_states[k]):
                raise ValueError(f"saved games: game {k}'s state does not round-trip")
        self.batch.terminated[:] = False
        self.batch.rewards[:] = 0.0
        self._encode_batch(self.states, self.learner, self.batch.obs)
        for k in range(self.num_envs):
            K.legal_mask(self.states[k], self._mask8[k])


# ---------------------------------------------------------------------------------------
# The SB3 VecEnv
# ---------------------------------------------------------------------------------------
def _vecenv_class() -> type:
    from gymnasium import spaces
    from stable_baselines3.common.vec_env import VecEnv

    class PuertoRicoVecEnv(VecEnv):
        """``PuertoRicoPoolGames`` as an SB3 ``VecEnv`` with ``action_masks()`` (what
        ``MaskablePPO`` needs), as ``caylus_env.core.sb3.CaylusVecEnv`` is for Caylus: SB3's
        autoreset (the last observation in ``infos[k]["terminal_observation"]``), and on
        every game that ends ``rank_reward``, ``opponent``, ``learner_seat`` and
        ``shaped_return`` (0: no shaping) for the trainer's log.

        Args:
            games: the games.
            seed: the seed of the first ``reset()`` (SB3's ``seed()`` sets later ones).
        """

        def __init__(self, games: PuertoRicoPoolGames, seed: int | None = None) -> None:
            self.games = games
            self.render_mode = None  # read by VecEnv.__init__ through get_attr
            size = games.batch.obs.shape[1]
            super().__init__(
                games.num_envs,
                spaces.Box(-np.inf, np.inf, (size,), np.float32),
                spaces.Discrete(NUM_ACTIONS),
            )
            self._actions: np.ndarray | None = None
            if seed is not None:
                self.seed(seed)

        def reset(self) -> np.ndarray:
            b = self.games.reset(seed=self._seeds[0])
            self._reset_seeds()
            self._reset_options()
            self.reset_infos = [{"learner_seat": int(s)} for s in b.seat]
            return b.obs.copy()

        def step_async(self, actions: np.ndarray) -> None:
            self._actions = np.asarray(actions)

        def step_wait(self) -> tuple[np.ndarray, np.ndarray, np.ndarray, list[dict[str, Any]]]:
            if self._actions is None:
                raise RuntimeError("step_wait() needs actions: call step_async(actions) first")
            actions, self._actions = self._actions, None
            g = self.games
            b = g.step(actions)
            infos: list[dict[str, Any]] = [{} for _ in range(self.num_envs)]
            names = g.opponent_names()
            for k in np.flatnonzero(b.terminated):
                infos[k] = {
                    "terminal_observation": b.final_obs[k].copy(),
                    "TimeLimit.truncated": bool(g.truncated[k]),
                    "learner_seat": int(g.final_seat[k]),
                    "opponent": names[int(g.final_slot[k])],
                    "rank_reward": float(b.rewards[k]),
                    "shaped_return": 0.0,
                }
            return b.obs.copy(), b.rewards.astype(np.float32), b.terminated.copy(), infos

        def close(self) -> None:
            """Nothing to release."""

        def action_masks(self) -> np.ndarray:
            """The learner's legal actions in every game, bool ``(num_envs, NUM_ACTIONS)``."""
            return self.games.batch.mask.copy()

        def get_attr(self, attr_name: str, indices: Any = None) -> list[Any]:
            value = getattr(self, attr_name)
            return [value for _ in self._get_indices(indices)]

        def set_attr(self, attr_name: str, value: Any, indices: Any = None) -> None:
            chosen = sorted(set(self._get_indices(indices)))
            if chosen != list(range(self.num_envs)):
                raise ValueError(
                    f"set_attr({attr_name!r}) for games {chosen}: the games share their "
                    "attributes; set it for all games (indices=None)"
                )
            setattr(self, attr_name, value)

        def env_method(
            self, method_name: str, *method_args: Any, indices: Any = None, **method_kwargs: Any
        ) -> list[Any]:
            if method_name != "action_masks":
                raise AttributeError(
                    f"env_method({method_name!r}): the per-game methods are ('action_masks',)"
                )
            rows = self.action_masks()
            return [rows[k] for k in self._get_indices(indices)]

        def env_is_wrapped(self, wrapper_class: type, indices: Any = None) -> list[bool]:
            return [False for _ in self._get_indices(indices)]

    return PuertoRicoVecEnv


def make_vecenv(games: PuertoRicoPoolGames, seed: int | None = None) -> Any:
    """The SB3 ``VecEnv`` (``action_masks()`` included) over ``games``."""
    return _vecenv_class()(games, seed)


# ---------------------------------------------------------------------------------------
# Matches: the evaluation and the gate
# ---------------------------------------------------------------------------------------
def play_checkpoint(
    ckpt: Path | str, opponent: str, games: int, num_players: int, seed: int
) -> MatchResult:
    """A match of Puerto Rico checkpoint ``ckpt`` (greedy, one seat) against ``opponent`` (a
    Puerto Rico agent spec, ``policy:PATH`` included, playing every other seat): the ``play``
    of ``training.ppo.settle_checkpoint`` (``training.league.play_checkpoint``'s Puerto Rico
    counterpart).

    ``games`` is rounded up to a multiple of ``num_players``; the games run at once, in
    blocks with the same setup and opponent seeds and the checkpoint one seat further in
    each (``PuertoRicoPoolGames(rotated=True)``), so each seat's advantage (the starting
    plantation by seat from the governor and the order of play, docs/rules/puerto_rico.md 1.2)
    cancels out. A game scores the checkpoint's rank reward (rules 5.3) as
    ``(reward + 1) / 2``: 1 first, 0 last, 0.5 the middle of three or a game cut off by the
    decision cap (rules 6.9). The games depend on ``seed`` only, so
    two checkpoints are compared on the same setups.

    Raises:
        ValueError: for an opponent that is not a Puerto Rico agent, or a checkpoint that is
            not a Puerto Rico one (``CheckpointError``).
    """
    from agents.puerto_rico.policy import PolicyAgent

    agent = PolicyAgent(f"policy:{ckpt}", ckpt)
    games = -(-games // num_players) * num_players
    pool = PuertoRicoPoolGames(
        games, num_players, opponents=f"{opponent}:1", seed=seed, rotated=True
    )
    b = pool.reset(seed=seed)
    done = np.zeros(games, np.bool_)
    rewards = np.zeros(games)
    uniforms = np.zeros(games)  # greedy: unused
    while not done.all():
        b = pool.step(np.asarray(agent.act_batch(b.obs, b.mask, uniforms), np.int64))
        first = b.terminated & ~done
        rewards[first] = b.rewards[first]
        done |= b.terminated
    return match_result(opponent, rewards)


def check_eval_opponents(text: str) -> list[str]:
    """The references of ``--eval-opponents`` (comma-separated Puerto Rico agent specs).

    Raises:
        ValueError: for an empty list, ``self``, ``pool`` or an entry that is not a Puerto
            Rico agent spec, naming it and what is allowed.
    """
    from agents.puerto_rico.registry import make_agent, specs

    refs = [r.strip() for r in text.split(",")]
    for ref in refs:
        try:
            if ref in (SELF, POOL, ""):
                raise ValueError("not a fixed agent")
            make_agent(ref)
        except ValueError as err:
            raise ValueError(
                f"--eval-opponents entry {ref!r} is not allowed ({err}); allowed: Puerto Rico "
                f"agents, comma-separated: {', '.join(specs())}"
            ) from None
    return refs


# ---------------------------------------------------------------------------------------
# The run
# ---------------------------------------------------------------------------------------
@dataclass
class PuertoRicoPPOConfig(PPOConfig):
    """``training.ppo.PPOConfig`` for Puerto Rico: the same arguments (``run.json`` stores
    them) with Puerto Rico defaults, the ``game`` field, and the Caylus-only ones refused
    by ``check``. ``arch`` is a ``pr-mlp-v1`` (``agents.puerto_rico.policy.Arch``);
    ``eval_opponents`` are Puerto Rico agents; ``init`` a Puerto Rico checkpoint of the
    same ``arch``."""

    players: int = 3
    opponents: str = DEFAULT_OPPONENTS
    eval_opponents: str = DEFAULT_EVAL_OPPONENTS
    arch: dict[str, Any] = field(default_factory=lambda: Arch().to_json())
    game: str = GAME_NAME

    def check(self) -> None:
        """Refuse bad or unsupported arguments before any work starts.

        Raises:
            ValueError: naming the argument and what is allowed.
        """

        def positive(name: str, value: Any) -> None:
            if isinstance(value, bool) or not isinstance(value, int) or value < 1:
                raise ValueError(f"--{name.replace('_', '-')} must be an int >= 1, got {value!r}")

        if self.game != GAME_NAME:
            raise ValueError(f"game {self.game!r} is not allowed here; allowed: {GAME_NAME}")
        unsupported = {
            "shaping": (self.shaping != 0.0, "the shaped reward is Caylus's prestige margin"),
            "algo": (self.algo != "maskable", "only the maskable trainer"),
        }
        for name, (given, why) in unsupported.items():
            if given:
                raise ValueError(
                    f"--{name.replace('_', '-')} is not supported with --game {GAME_NAME} "
                    f"({why}); leave it out"
                )
        if (
            isinstance(self.players, bool)
            or not isinstance(self.players, int)
            or not MIN_PLAYERS <= self.players <= MAX_PLAYERS
        ):
            raise ValueError(
                f"--players {self.players!r} is not allowed; allowed: {MIN_PLAYERS}-{MAX_PLAYERS}"
            )
        for name in ("steps", "envs", "n_steps", "batch_size", "n_epochs", "threads"):
            positive(name, getattr(self, name))
        positive("checkpoint_every", self.checkpoint_every)
        positive("gate_games", self.gate_games)
        if isinstance(self.eval_games, bool) or not isinstance(self.eval_games, int):
            raise ValueError(f"--eval-games must be an int >= 0, got {self.eval_games!r}")
        if self.eval_games < 0:
            raise ValueError(f"--eval-games must be an int >= 0, got {self.eval_games!r}")
        if isinstance(self.seed, bool) or not isinstance(self.seed, int) or self.seed < 0:
            raise ValueError(f"--seed must be an int >= 0, got {self.seed!r}")
        for name, low, high in (
            ("learning_rate", 0.0, 1.0),
            ("gamma", 0.0, 1.0),
            ("gae_lambda", 0.0, 1.0),
            ("clip_range", 0.0, 1.0),
            ("ent_coef", 0.0, 1.0),
            ("vf_coef", 0.0, 10.0),
        ):
            v = getattr(self, name)
            if not (isinstance(v, (int, float)) and low <= v <= high):
                raise ValueError(f"--{name.replace('_', '-')} must be in [{low}, {high}], got {v}")
        if (self.n_steps * self.envs) % self.batch_size and self.batch_size > 1:
            raise ValueError(
                f"--batch-size {self.batch_size} must divide the rollout size n_steps * envs "
                f"= {self.n_steps * self.envs}"
            )
        parse_opponents(self.opponents)
        check_eval_opponents(self.eval_opponents)
        arch = Arch.from_json(self.arch)
        if self.init is not None:
            if self.resume:
                raise ValueError("--init starts a new run; it cannot be combined with --resume")
            theirs = Arch.from_json(read_config(self.init).get("arch"))
            if theirs != arch:
                raise ValueError(
                    f"--init {self.init}: its network {theirs.to_json()} is not this run's "
                    f"{arch.to_json()}; pass --arch to match it"
                )


def check_run_game(out: str | Path, game: str) -> None:
    """Refuse a run directory of another game before anything compares its arguments.

    Raises:
        ValueError: naming the run's game and the one asked for (``--game``).
    """
    run_json = Path(out) / "run.json"
    if run_json.is_file():
        saved = json.loads(run_json.read_text())
        theirs = saved.get("game", "caylus") if isinstance(saved, dict) else "caylus"
        if theirs != game:
            raise ValueError(
                f"{out} holds a training run of game {theirs!r}, not {game!r}: pass "
                f"--game {theirs} to resume it, or choose another --out"
            )


def policy_kwargs(arch: Arch) -> dict[str, Any]:
    """The ``policy_kwargs`` of ``MaskablePPO`` that build pr-mlp-v1 with ``arch``."""
    from torch import nn

    layers = list(arch.layers)
    return {"net_arch": {"pi": layers, "vf": layers}, "activation_fn": nn.ReLU}


def policy_tensors(policy: Any, arch: Arch) -> dict[str, Any]:
    """The weights ``model.safetensors`` stores (``Arch.tensor_shapes``'s names), float32."""
    import torch

    state = policy.state_dict()
    return {
        name: state[name].detach().to(torch.float32).contiguous().clone()
        for name in arch.tensor_shapes()
    }


def _model_kwargs(cfg: PuertoRicoPPOConfig) -> dict[str, Any]:
    return {
        "n_steps": cfg.n_steps,
        "batch_size": cfg.batch_size,
        "n_epochs": cfg.n_epochs,
        "learning_rate": cfg.learning_rate,
        "gamma": cfg.gamma,
        "gae_lambda": cfg.gae_lambda,
        "clip_range": cfg.clip_range,
        "ent_coef": cfg.ent_coef,
        "vf_coef": cfg.vf_coef,
        "policy_kwargs": policy_kwargs(Arch.from_json(cfg.arch)),
    }


def _callback(cfg: PuertoRicoPPOConfig, out: Path, env: Any, meta: dict, next_ckpt: int) -> Any:
    """``training.ppo``'s callback (progress, live scores per opponent, checkpoints at
    rollout boundaries) writing Puerto Rico checkpoints, each then evaluated and gated by
    ``settle_checkpoint`` with Puerto Rico matches (``play_checkpoint``)."""
    from training.checkpoints import write_checkpoint

    arch = Arch.from_json(cfg.arch)

    class PuertoRicoCallback(_callback_class()):  # type: ignore[misc]
        def checkpoint(self) -> None:
            step = self.model.num_timesteps
            parent = str(self.last_ckpt) if self.last_ckpt else self.meta.get("parent")
            self.last_ckpt = write_checkpoint(
                self.out,
                step,
                self.model,
                self.env.games,
                {**self.meta, "parent": parent},
                self.model._last_episode_starts,
                tensors=policy_tensors(self.model.policy, arch),
                versions=versions(),
            )
            if self.bar is not None:
                self.bar.console.print(f"step {step:,}: checkpoint {self.last_ckpt}")
            settle_checkpoint(
                self.cfg,
                self.out,
                self.last_ckpt,
                step,
                self.env.games,
                self.logger,
                self.bar,
                play=play_checkpoint,
            )

    return PuertoRicoCallback(cfg, out, env, meta, next_ckpt=next_ckpt)


def train(cfg: PuertoRicoPPOConfig) -> Path:
    """Train (or resume) as ``cfg`` says; returns the last checkpoint's directory.

    Raises:
        ValueError: for bad or unsupported arguments, or a run directory that does not fit
            (another game's included), before any training starts.
    """
    cfg.check()
    check_run_game(cfg.out, cfg.game)
    out = prepare_run(cfg)

    import torch
    from sb3_contrib import MaskablePPO
    from stable_baselines3.common.logger import configure
    from threadpoolctl import threadpool_limits

    from training.checkpoints import complete_checkpoints, load_for_resume, remove_partial

    torch.set_num_threads(cfg.threads)
    torch.use_deterministic_algorithms(True)
    threadpool_limits(cfg.threads, user_api="blas")

    league = League.load(out)
    games = PuertoRicoPoolGames(
        cfg.envs, cfg.players, cfg.opponents, seed=cfg.seed, checkpoints=league.promoted
    )
    env = make_vecenv(games, seed=cfg.seed)
    kwargs = _model_kwargs(cfg)
    remove_partial(out)
    done = complete_checkpoints(out)
    parent = None
    if cfg.resume and done:
        try:
            model = load_for_resume(done[-1], env, kwargs, read=read_config)
        except CheckpointError as err:
            raise ValueError(f"--resume: {err}") from None
        parent = json.loads((done[-1] / "config.json").read_text()).get("parent")
    else:
        model = MaskablePPO("MlpPolicy", env, seed=cfg.seed, device="cpu", **kwargs)
        if cfg.init:
            try:
                _load_init_tensors(model.policy, cfg.init, check=PolicyNet)
            except CheckpointError as err:
                raise ValueError(f"--init: {err}") from None
            parent = cfg.init
    games.set_self_policy(TorchPolicy(model.policy))
    model.set_logger(configure(str(out), ["csv", "tensorboard"]))

    meta = {
        "arch": cfg.arch,
        "num_players": [cfg.players],
        "seed": cfg.seed,
        "parent": parent,
        "command": cfg.command or shlex.join(sys.argv),
        "opponents": cfg.opponents,
        "algorithm": "MaskablePPO",
    }
    step0 = model.num_timesteps
    next_ckpt = (step0 // cfg.checkpoint_every + 1) * cfg.checkpoint_every
    callback = _callback(cfg, out, env, meta, next_ckpt)
    if step0:
        callback.last_ckpt = done[-1]
        # A run killed between writing this checkpoint and gating it: finish that first.
        settle_checkpoint(cfg, out, done[-1], step0, games, model.logger, play=play_checkpoint)
    remaining = cfg.steps - step0
    if remaining > 0:
        model.learn(total_timesteps=remaining, callback=callback, reset_num_timesteps=not step0)
    return complete_checkpoints(out)[-1]


def config_from_args(**kwargs: Any) -> PuertoRicoPPOConfig:
    """A ``PuertoRicoPPOConfig`` from keyword arguments (the CLI's), ignoring ``None``.

    Raises:
        ValueError: naming an unknown argument.
    """
    from dataclasses import fields

    names = {f.name for f in fields(PuertoRicoPPOConfig)}
    unknown = sorted(set(kwargs) - names)
    if unknown:
        raise ValueError(f"unknown training arguments {unknown}; allowed: {sorted(names)}")
    return PuertoRicoPPOConfig(**{k: v for k, v in kwargs.items() if v is not None})
