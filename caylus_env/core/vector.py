"""
# Batched games: N games of any game stepped by one compiled call

Self-play trains on many games at once. This module holds ``N`` games of one registered game
as one ``(N, STATE_SIZE)`` array and advances all of them with **one** numba call per batch
step: the actions go in, and the observations, action masks, rewards, terminations,
truncations and seats to act come out, written in place into preallocated buffers by the
game's own observation kernel (its ``encode_into``, the one ``raw_env`` uses). The loops are
written once, here, over the game contract's kernels (``caylus_env.core.contract``), and
compiled per game by ``caylus_env.core.specialize``: every registered game gets them.

Three layers, from the bare arrays to the RL libraries:

| Class                       | Who plays                           | API                               |
|-----------------------------|-------------------------------------|-----------------------------------|
| `VectorGames`               | the caller plays every seat         | Pgx-like arrays (below)           |
| `LearnerGames`              | the caller plays one seat per game, compiled opponents the others | the same arrays, one reward per game |
| `GameVectorEnv`             | `VectorGames` as a Gymnasium 1.x `VectorEnv` | `reset` / `step`, spaces, metadata |
| `caylus_env.core.sb3.GameVecEnv` | `LearnerGames` as a Stable-Baselines3 `VecEnv` with `action_masks()` for sb3-contrib's `MaskablePPO` | optional: imports SB3 |

``caylus_env.make_vector(game, num_envs, **options)`` builds a `GameVectorEnv`.

Usage::

    import numpy as np
    from caylus_env.core.vector import VectorGames

    games = VectorGames("puerto_rico", num_envs=256, num_players=4)
    out = games.reset(seed=0)
    rng = np.random.default_rng(0)
    for _ in range(1000):
        pick = (rng.random(games.num_envs) * out.num_legal).astype(np.int64)
        actions = out.legal[np.arange(games.num_envs), pick]
        out = games.step(actions)      # out.obs, out.mask, out.rewards, out.terminated, ...

`caylus bench --vector` measures the batched decisions/s (N=256, every decision with its
observation and mask) next to `raw_env` in the same run.

## Shapes and dtypes (`VectorGames.step` / `reset` return a `Batch` of these)

| Field            | Shape                       | Dtype   | Meaning                                   |
|------------------|-----------------------------|---------|-------------------------------------------|
| `obs`            | `(N, OBS_SIZE)`             | float32 | observation of the seat to act, as `raw_env.observe(agent_selection)` |
| `mask`           | `(N, NUM_ACTIONS)`          | int8    | 1 for the legal actions of that seat (int8 like `raw_env`'s `action_mask`; `mask.view(bool)` is free) |
| `legal`          | `(N, NUM_ACTIONS)`          | int64   | the sorted legal ids, `legal[k, :num_legal[k]]` |
| `num_legal`      | `(N,)`                      | int64   | how many legal actions (always >= 2: a game never waits on a forced move) |
| `seat`           | `(N,)`                      | int64   | the seat to act (0..num_players-1); with `LearnerGames`, the learner's seat |
| `rewards`        | `(N, MAX_PLAYERS)`          | float64 | rank rewards of every seat of the games that ended in this step, 0 elsewhere (`VectorGames`) |
|                  | `(N,)`                      | float64 | the learner seat's reward (`LearnerGames`) |
| `terminated`     | `(N,)`                      | bool    | the game ended by its rules in this step (and was reset, see Autoreset) |
| `truncated`      | `(N,)`                      | bool    | the game was cut off by its decision cap in this step (reset too; zero rewards) |
| `final_obs`      | `(N, OBS_SIZE)`             | float32 | the last observation of the games that ended (rows of other games are stale) |
| `final_seat`     | `(N,)`                      | int64   | whose point of view `final_obs` is (the seat that made the last move; the learner) |
| `final_scores`   | `(N, MAX_PLAYERS)`          | int64   | the final scores of the games that ended (prestige, victory points, ...) |

`MAX_PLAYERS` is 5: rewards and scores of seats beyond a game's player count are 0. The
returned arrays are **read-only views of the buffers**, overwritten by the next `step`: copy
what you keep (`GameVectorEnv(copy=True)`, the default, does). `VectorGames.state()` gives
the global view, `raw_env.state()` for every game (absolute seats, `(N, OBS_SIZE)`), and
`states` the raw game arrays.

## Rewards

The env's rank rewards (`Game.returns("rank")`): linear in the final rank from +1 (first) to
-1 (last), ties averaged by the game's rules, zero-sum; 0 on every step but the one that ends
the game, and 0 when a game is truncated; float64, exactly `Game.returns` (Gymnasium's
`SyncVectorEnv` returns float64 rewards; the SB3 adapter gives float32). As in Pgx,
PettingZoo and OpenSpiel, `VectorGames` gives every seat's reward; `GameVectorEnv` returns the
acting seat's reward as Gymnasium's `(N,)` rewards and every seat's in
`info["final_info"]["seat_rewards"]`.

## Seeds

`reset(seed)` takes one seed (any int >= 0, kept in `.seed`). `reset()` without a seed (and
without a mask) continues what the last seed set up, as Gymnasium's `np_random` does: every
game starts its next episode (`i + 1`) under the same seed, so two runs that seed only their
first reset play the same episodes; only a first reset without any seed draws the seed from
the operating system. Game `k` gets its own key from NumPy's `SeedSequence(seed, spawn_key=(k,))`,
computed once in Python at reset; its `i`-th episode (0 at reset, +1 at each auto-reset)
draws its setup seed, its learner seat and its opponents' random stream from a splitmix64
stream at `(key_k, i)`, computed inside the kernel when the game resets. So game `k`'s `i`-th
episode depends only on `(seed, k, i)` (and on the actions played in it): the same whatever
`N` is. `episode_setup_seed(seed, k, i)` gives it in Python, and `VectorGames.setup_seeds`
the current ones, so any game can be rebuilt as `Game(GameConfig(...), setup_seed)`.

## Autoreset: `SAME_STEP`

A game that ends is reset **inside the same step** (Gymnasium's `AutoresetMode.SAME_STEP`,
the convention of SB3's `VecEnv` too): `terminated[k]` (or `truncated[k]`) is True,
`rewards[k]` holds the final rewards, `obs[k]`/`mask[k]` already show the first decision of
the next episode, and the last observation of the finished game is in `final_obs[k]`.
`GameVectorEnv` puts it in `info["final_obs"]` (an object array, `None` for games that did
not end, with the boolean mask `info["_final_obs"]`) and the end-of-game facts in
`info["final_info"]`, exactly as Gymnasium's `SyncVectorEnv` in `SAME_STEP` mode;
`metadata["autoreset_mode"]` says so.

## Illegal actions

Before the compiled step, one vectorized NumPy look-up checks every action against the
current masks; an illegal action raises `IllegalActionError` (a `ValueError`) naming the game
index, the action, the decision and the legal actions, and nothing is stepped. The kernel then
applies the actions unchecked (`kernels.apply`). Before that, `action_batch` (the one reader of
every batched entry point: these views, their Gymnasium and SB3 envs, and the training pool's
opponent policies) takes an integer array of shape `(N,)` only; a NumPy masked array is
taken as its data when nothing in it is masked, and refused (a `ValueError` naming the masked
games) while anything is: its masked entries hold arbitrary data, not moves.

## The learner view (`LearnerGames`, and `caylus_env.core.sb3.GameVecEnv`)

A single-agent view for libraries that know one agent per env: in each game the learner plays
one seat, drawn per episode from the seed; every other seat is played inside `step` by a
compiled opponent until it is the learner's turn again or the game ends. Observations, masks
and rewards are the learner seat's; `final_obs` is the learner's view of the finished game. The
opponent is ``"random"`` (uniform over the legal actions), drawing from its game's own
splitmix64 stream seeded per episode from the seed (not numba's global generator, which one
thread shares across games, so game `k` would then depend on the others and on `N`).

This is the platform's one learner loop: the training pool (``training.learner.PoolGames``) is
`LearnerGames` with an opponent pool, on the same kernels. Its opponents are slots of a kind
(`Opponents`): ``random``, one of the game's scripted bots (``bots.choose_scripted``, its ties
broken from the same stream) or one played outside the kernels (a checkpoint, a search agent:
the kernel stops the game, `Learners.waiting`, until ``resume_games`` gives its move); each
episode draws its slot from the pool's weights. The kernels take their arrays in a few named
groups (`Games`, `Outputs`, `Learners`, `Opponents`, `Scratch`), built once per batch, handed
over as plain tuples (numba reads a plain tuple's type faster than a NamedTuple's) and named
again on entry, so every template reads its arrays by field name.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from functools import cache
from types import SimpleNamespace
from typing import Any, ClassVar, NamedTuple

import numpy as np
from gymnasium import spaces
from gymnasium.vector import AutoresetMode, VectorEnv
from gymnasium.vector.utils import batch_space
from numba import njit

from caylus_env.core import _cache  # noqa: F401  (the kernel cache, before any kernel below)
from caylus_env.core.bindings import (
    NUM_ACTIONS,
    STATE_DTYPE,
    STATE_SIZE,
    K,
    choose_scripted,
    encode,
    game_bindings,
)
from caylus_env.core.contract import GameSpec
from caylus_env.core.errors import IllegalActionError
from caylus_env.core.observation import MAX_PLAYERS
from caylus_env.core.ranks import rank_of
from caylus_env.core.registry import game_spec
from caylus_env.core.specialize import specialize

#: Compiled opponents of the learner view, by name: their kind (`Opponents.kind`).
OPPONENTS: dict[str, int] = {"random": 0}
OPPONENT_RANDOM = OPPONENTS["random"]
#: The kind of the game's scripted bot row 0 (``bots.choose_scripted``); row ``r`` is
#: ``FIRST_SCRIPTED + r``. The training pool plays them (``training.learner``).
FIRST_SCRIPTED = OPPONENT_RANDOM + 1
#: The kind of an opponent played outside the kernels: the game then waits (`Learners.waiting`)
#: until its move is given (``resume_games``).
OPPONENT_EXTERNAL = -1
#: Below any game's score: where the best opponent's score starts (``margin_of``).
NO_SCORE = -(1 << 30)
#: The words each episode draws from its game's splitmix64 stream (see "Seeds").
WORD_SETUP, WORD_LEARNER, WORD_OPPONENTS = range(3)
NUM_EPISODE_WORDS = 3

_GOLDEN = np.uint64(0x9E3779B97F4A7C15)  # splitmix64 increment (2**64 / golden ratio)
_MIX_1 = np.uint64(0xBF58476D1CE4E5B9)
_MIX_2 = np.uint64(0x94D049BB133111EB)
_U30 = np.uint64(30)
_U27 = np.uint64(27)
_U31 = np.uint64(31)
_U32 = np.uint64(32)
_U1 = np.uint64(1)
_TO_UNIT = 1.0 / 18446744073709551616.0  # 2**-64: a uint64 to [0, 1)


# ---------------------------------------------------------------------------------------
# Seeds: splitmix64 (Steele, Lea and Flood 2014), one stream per game. Game-neutral.
# ---------------------------------------------------------------------------------------
@njit(cache=True)
def _mix64(z):
    """The splitmix64 output function: a bijective 64-bit mix."""
    z = (z ^ (z >> _U30)) * _MIX_1
    z = (z ^ (z >> _U27)) * _MIX_2
    return z ^ (z >> _U31)


@njit(cache=True)
def episode_word(key, episode, word):
    """Word ``word`` of episode ``episode`` of the game whose key is ``key`` (a uint64).

    Element ``episode * NUM_EPISODE_WORDS + word + 1`` of the splitmix64 sequence started at
    ``key``: distinct episodes and words read distinct elements.
    """
    index = np.uint64(episode * NUM_EPISODE_WORDS + word + 1)
    return _mix64(key + index * _GOLDEN)


@njit(cache=True)
def setup_seed_of(key, episode):
    """The setup seed of an episode, in [0, 2**63) as the games' ``setup`` requires."""
    return np.int64(episode_word(key, episode, WORD_SETUP) >> _U1)


@njit(cache=True)
def next_random(rng, k):
    """Advance game ``k``'s stream ``rng[k]`` (splitmix64); a uint64."""
    x = rng[k] + _GOLDEN
    rng[k] = x
    return _mix64(x)


@njit(cache=True)
def next_uniform(rng, k):
    """The next number of game ``k``'s stream as a float in [0, 1)."""
    return np.float64(next_random(rng, k)) * _TO_UNIT


@njit(cache=True)
def random_pick(rng, k, n):
    """A uniform index in [0, n) from game ``k``'s stream (Lemire's multiply-shift: 32 random
    bits scaled to [0, n), bias below n / 2**32)."""
    r = (next_random(rng, k) >> _U32) * np.uint64(n)
    return np.int64(r >> _U32)


def game_key(seed: int, game: int) -> np.uint64:
    """The key of game ``game`` under ``seed``: NumPy's ``SeedSequence(seed, spawn_key=(game,))``."""
    return np.random.SeedSequence(seed, spawn_key=(game,)).generate_state(1, np.uint64)[0]


def episode_setup_seed(seed: int, game: int, episode: int) -> int:
    """The setup seed of game ``game``'s ``episode``-th episode under ``seed``.

    ``Game(GameConfig(...), episode_setup_seed(seed, k, i))`` is that episode's start.
    """
    return int(setup_seed_of(game_key(seed, game), episode))


# ---------------------------------------------------------------------------------------
# The kernels' arguments: the batch's arrays in a few named groups, built once per batch.
# Each group is a NamedTuple, which numba passes as one argument and reads by field name.
# ---------------------------------------------------------------------------------------
class Games(NamedTuple):
    """Every view's games, one row per game: their states and where their episodes stand."""

    #: ``(N, STATE_SIZE)``: each game's flat state.
    states: np.ndarray
    #: ``(N, len(kernel_options))`` int64: each game's kernel options (``num_players`` first).
    options: np.ndarray
    #: ``(N,)`` uint64: each game's key under the seed (`game_key`).
    keys: np.ndarray
    #: ``(N,)`` int64: each game's current episode (0 at a seeded reset).
    episodes: np.ndarray
    #: ``(N,)`` int64: the setup seed of each game's current episode.
    setup_seeds: np.ndarray
    #: ``(N, NUM_ACTIONS)`` int64: the sorted legal ids of each game's decision.
    legal: np.ndarray
    #: ``(N,)`` int64: how many of them.
    num_legal: np.ndarray


class Outputs(NamedTuple):
    """What a reset or a step reports (`Batch` shows them read-only; module docstring)."""

    obs: np.ndarray
    mask: np.ndarray
    #: The seat to act; in the learner view the learner's seat (`Learners.learner` itself).
    seat: np.ndarray
    #: ``(N, MAX_PLAYERS)`` every seat's rewards (self-play), ``(N,)`` the learner's.
    rewards: np.ndarray
    terminated: np.ndarray
    truncated: np.ndarray
    final_obs: np.ndarray
    final_seat: np.ndarray
    final_scores: np.ndarray
    final_ties: np.ndarray


class Learners(NamedTuple):
    """The learner view's games: whose seat is the learner's and who plays the others."""

    #: ``(N,)`` int64: the learner's seat, drawn per episode (then shifted by ``shift``).
    learner: np.ndarray
    #: ``(N,)`` uint64: each game's opponents' splitmix64 stream, seeded per episode.
    rng: np.ndarray
    #: ``(N,)`` int64: each game's opponent, an index into `Opponents.kind`.
    slot: np.ndarray
    #: ``(N,)`` int64: seats added to the drawn learner seat (the rotated blocks of a pool).
    shift: np.ndarray
    #: ``(N,)`` bool: the game waits on an opponent played outside the kernels.
    waiting: np.ndarray
    #: ``(N,)`` int64: the learner's score margin over the best opponent where it is to act
    #: (kept only when `Opponents.margins`).
    margin: np.ndarray
    #: ``(N,)`` int64: the same at the end of the games that ended in the last step.
    final_margin: np.ndarray
    #: ``(N,)`` int64: the slot each game that ended in the last step was played against.
    final_slot: np.ndarray


class Opponents(NamedTuple):
    """Who the learner plays against: the kinds of the opponents and how an episode picks
    one."""

    #: ``(S,)`` int64: each slot's kind: ``OPPONENT_RANDOM``, ``FIRST_SCRIPTED + r`` for the
    #: game's scripted bot row ``r``, or ``OPPONENT_EXTERNAL`` (played outside the kernels).
    kind: np.ndarray
    #: ``(S,)`` float64: the cumulative weights each episode draws its slot from (the last
    #: drawable one 1.0); empty: each game keeps the slot it was given (``LearnerGames``).
    cum: np.ndarray
    #: Whether to keep the score margins (`Learners.margin`, the shaped reward's potential).
    margins: bool


class Scratch(NamedTuple):
    """Work buffers of one batch."""

    #: ``(MAX_PLAYERS,)`` float64: the rank rewards of a finished game.
    ret: np.ndarray
    #: ``(MAX_PLAYERS,)`` float64: the seats' rewards of a finished game (the learner view).
    seat_rewards: np.ndarray
    #: ``(NUM_ACTIONS,)`` float64: the uniform numbers a scripted bot breaks its ties with.
    noise: np.ndarray
    #: ``(MAX_PLAYERS,)`` int64: the scores a margin is taken from.
    scores: np.ndarray
    #: ``(N,)`` int64: ``0..N-1``, the games a step of the learner view settles.
    every: np.ndarray


# ---------------------------------------------------------------------------------------
# Templates, compiled per game (``kernels``): ``K``, ``encode``, ``choose_scripted`` and the
# sizes (``NUM_ACTIONS``, ``STATE_SIZE``, ``STATE_DTYPE``) are the game's (declared in
# ``caylus_env.core.bindings``).
# ---------------------------------------------------------------------------------------
def write_mask(mask_row, legal_row, n):
    """The int8 mask of the legal ids ``legal_row[:n]``."""
    mask_row[:] = 0
    for i in range(n):
        mask_row[legal_row[i]] = 1


def start_episode(s, options_row, key, episode, legal_row):
    """Set up episode ``episode`` of the game whose key is ``key`` into ``s``; returns its
    legal count and its setup seed."""
    seed = setup_seed_of(key, episode)
    s[:] = 0
    K.setup(s, options_row, seed)
    return K.advance(s, legal_row), seed


def finish_game(s, seat, ret, rewards_row, scores_row, ties_row, final_obs_row):
    """The game in ``s`` is over: its rewards into ``rewards_row`` (zero when truncated), its
    final scores and tie-breaks, and its last observation from ``seat``; returns whether it
    ended by its rules (else it was cut off by its decision cap)."""
    scores_row[:] = 0
    ties_row[:] = 0
    players = K.scores(s, scores_row)
    K.tie_breaks(s, ties_row)
    rewards_row[:] = 0.0
    ended = K.is_terminal(s)
    if ended:
        K.returns(s, ret)
        for p in range(players):
            rewards_row[p] = ret[p]
    encode(s, seat, final_obs_row)
    return ended


# The kernels below work on the batch's named groups; the helpers above, called for a game at
# a time, take its rows: a group passed to a function that is not inlined is copied field by
# field (every array's pointer, shape and strides), measured 20 to 50% slower per step when
# the helpers called at every step took the groups. The kernels called from Python take the
# groups as plain tuples and name them first thing (``Games(*games)``, free in compiled
# code): numba reads a plain tuple's type in C but a NamedTuple's in Python, about 3 us a
# call (a tenth of a step of 16 games).
def reset_all(select, games, outputs):
    """Start the current episode of every selected game (``select[k]``); the self-play view."""
    g, out = Games(*games), Outputs(*outputs)
    for k in range(g.states.shape[0]):
        if select[k]:
            s = g.states[k]
            n, g.setup_seeds[k] = start_episode(
                s, g.options[k], g.keys[k], g.episodes[k], g.legal[k]
            )
            g.num_legal[k] = n
            seat = K.current_player(s)
            out.seat[k] = seat
            encode(s, seat, out.obs[k])
            write_mask(out.mask[k], g.legal[k], n)


def step_all(actions, games, outputs, buffers):
    """One action per game (checked legal by the caller), SAME_STEP autoreset; self-play."""
    g, out, scratch = Games(*games), Outputs(*outputs), Scratch(*buffers)
    for k in range(g.states.shape[0]):
        s = g.states[k]
        actor = out.seat[k]
        K.apply(s, actions[k])
        n = K.advance(s, g.legal[k])
        out.rewards[k, :] = 0.0
        out.terminated[k] = False
        out.truncated[k] = False
        if n == 0:
            ended = finish_game(
                s, actor, scratch.ret, out.rewards[k], out.final_scores[k], out.final_ties[k],
                out.final_obs[k],
            )  # fmt: skip
            out.terminated[k] = ended
            out.truncated[k] = not ended
            out.final_seat[k] = actor
            g.episodes[k] += 1
            n, g.setup_seeds[k] = start_episode(
                s, g.options[k], g.keys[k], g.episodes[k], g.legal[k]
            )
        g.num_legal[k] = n
        seat = K.current_player(s)
        out.seat[k] = seat
        encode(s, seat, out.obs[k])
        write_mask(out.mask[k], g.legal[k], n)


def scripted_action(kind, s, legal_row, n, rng, k, noise):
    """The move of the game's scripted bot of kind ``kind`` (`Opponents.kind`) among
    ``legal_row[:n]``, its ties broken by game ``k``'s stream."""
    for i in range(n):
        noise[i] = next_uniform(rng, k)
    return legal_row[choose_scripted(kind - FIRST_SCRIPTED, s, legal_row, n, noise)]


def margin_of(scores, learner, num_players):
    """The learner's score minus the best opponent's (the shaped reward's potential)."""
    best = NO_SCORE
    for p in range(num_players):
        if p != learner and scores[p] > best:
            best = scores[p]
    return scores[learner] - best


def start_learner_episode(k, g, lv, opp):
    """Set up game ``k``'s current episode: the setup, the learner seat (shifted by
    ``lv.shift[k]`` seats), the opponents' stream and, for a pool (``opp.cum``), the slot
    drawn from it; returns the legal count (once per episode: it may take the groups)."""
    n, g.setup_seeds[k] = start_episode(
        g.states[k], g.options[k], g.keys[k], g.episodes[k], g.legal[k]
    )
    drawn = episode_word(g.keys[k], g.episodes[k], WORD_LEARNER) % np.uint64(g.options[k, 0])
    lv.learner[k] = (np.int64(drawn) + lv.shift[k]) % g.options[k, 0]
    lv.rng[k] = episode_word(g.keys[k], g.episodes[k], WORD_OPPONENTS)
    last = opp.cum.shape[0] - 1
    if last >= 0:
        u = next_uniform(lv.rng, k)
        j = 0
        while j < last and u >= opp.cum[j]:
            j += 1
        lv.slot[k] = j
    return n


def next_learner_episode(k, g, out, lv, opp, scratch):
    """Game ``k`` ended (by its rules, or cut off by its decision cap: zero rewards): its
    results from the learner's seat, then its next episode (SAME_STEP autoreset); returns the
    legal count (once per episode: it may take the groups)."""
    seat = lv.learner[k]
    ended = finish_game(
        g.states[k], seat, scratch.ret, scratch.seat_rewards, out.final_scores[k],
        out.final_ties[k], out.final_obs[k],
    )  # fmt: skip
    out.terminated[k] = ended
    out.truncated[k] = not ended
    out.rewards[k] = scratch.seat_rewards[seat]
    out.final_seat[k] = seat
    lv.final_slot[k] = lv.slot[k]
    if opp.margins:
        lv.final_margin[k] = margin_of(out.final_scores[k], seat, g.options[k, 0])
    g.episodes[k] += 1
    return start_learner_episode(k, g, lv, opp)


def settle(games, g, out, lv, opp, scratch):
    """Play the compiled opponents of each game ``games[i]`` from its decision (its legal
    count in ``g.num_legal``, 0 for a game that just ended), starting new episodes as games
    end, until the learner must act (its observation and mask written) or an opponent played
    outside the kernels must (``lv.waiting[k]``); returns the opponent decisions taken."""
    count = 0
    for i in range(games.shape[0]):
        k = games[i]
        s = g.states[k]
        n = g.num_legal[k]
        waiting = False
        while not waiting:
            while n > 0 and K.current_player(s) != lv.learner[k]:
                kind = opp.kind[lv.slot[k]]
                if kind == OPPONENT_EXTERNAL:
                    waiting = True
                    break
                if kind == OPPONENT_RANDOM:  # the common case, kept out of a call
                    a = g.legal[k, random_pick(lv.rng, k, n)]
                else:
                    a = scripted_action(kind, s, g.legal[k], n, lv.rng, k, scratch.noise)
                K.apply(s, a)
                n = K.advance(s, g.legal[k])
                count += 1
            if n > 0:
                break
            n = next_learner_episode(k, g, out, lv, opp, scratch)
        g.num_legal[k] = n
        lv.waiting[k] = waiting
        if not waiting:
            if opp.margins:
                scratch.scores[:] = 0
                K.scores(s, scratch.scores)
                lv.margin[k] = margin_of(scratch.scores, lv.learner[k], g.options[k, 0])
            encode(s, lv.learner[k], out.obs[k])
            write_mask(out.mask[k], g.legal[k], n)
    return count


def reset_learner(select, games, outputs, learners, opponents, buffers):
    """Start the current episode of every selected game; the opponents play up to the
    learner's turn (or an opponent's played outside the kernels). Returns the opponent
    decisions taken."""
    g, out, lv = Games(*games), Outputs(*outputs), Learners(*learners)
    opp, scratch = Opponents(*opponents), Scratch(*buffers)
    games = np.flatnonzero(select)
    for k in games:
        g.num_legal[k] = start_learner_episode(k, g, lv, opp)
    return settle(games, g, out, lv, opp, scratch)


def step_learner(actions, games, outputs, learners, opponents, buffers):
    """The learner's action in every game, then its compiled opponents; SAME_STEP
    autoreset. Returns the opponent decisions taken (the learner's are one per game)."""
    g, out, lv = Games(*games), Outputs(*outputs), Learners(*learners)
    opp, scratch = Opponents(*opponents), Scratch(*buffers)
    for k in range(g.states.shape[0]):
        out.rewards[k] = 0.0
        out.terminated[k] = False
        out.truncated[k] = False
        K.apply(g.states[k], actions[k])
        g.num_legal[k] = K.advance(g.states[k], g.legal[k])
    return settle(scratch.every, g, out, lv, opp, scratch)


def external_inputs(idx, games, learners, obs, mask, uniforms):
    """The observations, masks and uniform numbers of the games ``idx`` (each waiting on an
    opponent played outside the kernels), into rows ``0..len(idx)-1``."""
    g, lv = Games(*games), Learners(*learners)
    for i in range(idx.shape[0]):
        k = idx[i]
        s = g.states[k]
        encode(s, K.current_player(s), obs[i])
        mask[i, :] = False
        for j in range(g.num_legal[k]):
            mask[i, g.legal[k, j]] = True
        uniforms[i] = next_uniform(lv.rng, k)


def resume_games(idx, actions, games, outputs, learners, opponents, buffers):
    """Apply the outside opponents' ``actions`` to the games ``idx`` and go on; returns the
    opponent decisions taken (theirs included)."""
    g, out, lv = Games(*games), Outputs(*outputs), Learners(*learners)
    opp, scratch = Opponents(*opponents), Scratch(*buffers)
    for i in range(idx.shape[0]):
        k = idx[i]
        K.apply(g.states[k], actions[i])
        g.num_legal[k] = K.advance(g.states[k], g.legal[k])
    return idx.shape[0] + settle(idx, g, out, lv, opp, scratch)


def margins(games, learners, buffers):
    """Every game's current margin (``lv.margin``), from the states (restored games)."""
    g, lv, scratch = Games(*games), Learners(*learners), Scratch(*buffers)
    for k in range(g.states.shape[0]):
        scratch.scores[:] = 0
        K.scores(g.states[k], scratch.scores)
        lv.margin[k] = margin_of(scratch.scores, lv.learner[k], g.options[k, 0])


def encode_batch(states, seats, out):
    """The observation of ``seats[k]`` in ``states[k]`` into ``out[k]`` (``-1``: the global
    state); rows are independent."""
    for k in range(states.shape[0]):
        encode(states[k], seats[k], out[k])


def random_games(options, num_games, seed, counts):
    """Play ``num_games`` whole games of uniformly random legal moves in compiled code (the
    benchmark's compiled layer); game ``g`` is set up from ``seed`` and ``g``; writes each
    game's decisions into ``counts`` and returns their sum."""
    s = np.zeros(STATE_SIZE, STATE_DTYPE)
    legal = np.empty(NUM_ACTIONS, np.int64)
    rng = np.zeros(1, np.uint64)
    total = 0
    for g in range(num_games):
        key = _mix64(np.uint64(seed) * _GOLDEN + np.uint64(g))
        rng[0] = key
        s[:] = 0
        K.setup(s, options, setup_seed_of(key, 0))
        n = K.advance(s, legal)
        c = 0
        while n > 0:
            K.apply(s, legal[random_pick(rng, 0, n)])
            n = K.advance(s, legal)
            c += 1
        counts[g] = c
        total += c
    return total


#: The templates inlined into their callers: ``settle`` takes every group, once per step.
INLINED = ("settle",)
TEMPLATES = (
    write_mask,
    start_episode,
    finish_game,
    reset_all,
    step_all,
    scripted_action,
    margin_of,
    start_learner_episode,
    next_learner_episode,
    settle,
    reset_learner,
    step_learner,
    external_inputs,
    resume_games,
    margins,
    encode_batch,
    random_games,
)


@cache
def kernels(game: str) -> SimpleNamespace:
    """The batched kernels of ``game`` (the templates above, compiled for its engine,
    observer and scripted bots on first use; numba's disk cache keeps them between runs)."""
    spec = game_spec(game)
    return specialize(
        TEMPLATES,
        spec.name,
        {**game_bindings(spec), "choose_scripted": spec.module("bots").choose_scripted},
        inline=INLINED,
    )


# ---------------------------------------------------------------------------------------
# Python: validation, seeds, buffers.
# ---------------------------------------------------------------------------------------
@dataclass(frozen=True)
class Batch:
    """What ``reset`` and ``step`` return: read-only views of the buffers (see the module
    docstring for shapes and dtypes); the next ``step`` overwrites them."""

    obs: np.ndarray
    mask: np.ndarray
    legal: np.ndarray
    num_legal: np.ndarray
    seat: np.ndarray
    rewards: np.ndarray
    terminated: np.ndarray
    truncated: np.ndarray
    final_obs: np.ndarray
    final_seat: np.ndarray
    final_scores: np.ndarray

    @property
    def done(self) -> np.ndarray:
        """Games that ended in this step, terminated or truncated."""
        return self.terminated | self.truncated


def _plain(group: tuple) -> tuple:
    """A kernels' argument group (`Games`, ...) as the plain tuple the kernels take."""
    return tuple(group)


def _read_only(a: np.ndarray) -> np.ndarray:
    view = a.view()
    view.flags.writeable = False
    return view


def check_batch_seed(seed: Any) -> int:
    """A batch's seed: any int >= 0 (``SeedSequence`` takes it whole), or one drawn from the
    operating system for None."""
    if seed is None:
        return int(np.random.SeedSequence().entropy)
    if isinstance(seed, bool) or not isinstance(seed, (int, np.integer)) or int(seed) < 0:
        raise ValueError(f"seed must be None or an int >= 0, got {seed!r}")
    return int(seed)


#: The masked games an error about a masked action array names before it counts the rest.
SHOWN_MASKED = 5


def action_batch(actions: Any, num_envs: int) -> np.ndarray:
    """One action per game as an integer array of shape ``(num_envs,)``, not yet checked
    against the masks: the one place every batched entry point reads its actions through
    (``BatchedGames.step`` of every view, so the Gymnasium and SB3 envs over them, and the
    training pool's opponent policies).

    A NumPy masked array is taken only with nothing masked (its data then, the same as the
    plain array): its masked entries hold arbitrary data, which ``np.asarray`` would hand
    over as if they were moves.

    Raises:
        ValueError: for a masked array with a masked entry (naming the games), or anything
            but an integer array of that shape (naming the dtype and shape given).
    """
    if isinstance(actions, np.ma.MaskedArray):
        masked = np.flatnonzero(np.ma.getmaskarray(actions))
        if masked.size:
            games = ", ".join(str(k) for k in masked[:SHOWN_MASKED])
            more = f" (and {masked.size - SHOWN_MASKED} more)" if masked.size > SHOWN_MASKED else ""
            raise ValueError(
                f"actions is a masked array with the actions of games {games}{more} masked; "
                f"allowed: an integer array of shape ({num_envs},) with every game's action "
                "(a masked array only with nothing masked)"
            )
        actions = np.ma.getdata(actions)
    a = np.asarray(actions)
    if a.shape != (num_envs,) or not np.issubdtype(a.dtype, np.integer):
        raise ValueError(
            f"actions must be an integer array of shape ({num_envs},), got dtype "
            f"{a.dtype} and shape {a.shape}"
        )
    return a


def _player_counts(spec: GameSpec, num_envs: Any, num_players: Any) -> np.ndarray:
    if isinstance(num_envs, bool) or not isinstance(num_envs, (int, np.integer)) or num_envs < 1:
        raise ValueError(f"num_envs must be an int >= 1, got {num_envs!r}")
    if num_players is None:
        num_players = spec.default_players
    if isinstance(num_players, (int, np.integer)) and not isinstance(num_players, bool):
        counts = [int(num_players)] * int(num_envs)
    elif isinstance(num_players, (Sequence, np.ndarray)) and not isinstance(num_players, str):
        counts = list(num_players)
        if len(counts) != num_envs:
            raise ValueError(
                f"num_players has {len(counts)} entries but num_envs={num_envs}: give one "
                "player count per game, or one int for all"
            )
    else:
        raise ValueError(f"num_players must be an int or a sequence of ints, got {num_players!r}")
    for k, n in enumerate(counts):
        if isinstance(n, bool) or not isinstance(n, (int, np.integer)):
            raise ValueError(f"num_players[{k}] must be an int, got {n!r}")
        if not spec.min_players <= n <= spec.max_players:
            raise ValueError(
                f"num_players[{k}]={n} is not allowed; allowed: {spec.min_players} to "
                f"{spec.max_players}"
            )
    return np.array(counts, np.int64)


class BatchedGames:
    """What every batched view shares: the game, options, keys and episodes, states and
    output buffers (``training.learner.PoolGames`` builds on it too).

    Args:
        game: a registered game's name.
        num_envs: the number of games N, >= 1.
        num_players: one player count for all games, or one per game (the game's default
            when None).
        **options: the game's options (``GameConfig`` fields), the same for every game.

    Raises:
        ValueError: naming any argument that is not allowed and what is.
    """

    def __init__(
        self,
        game: str,
        num_envs: int,
        num_players: int | Sequence[int] | None = None,
        **options: Any,
    ) -> None:
        spec = game_spec(game)
        self.spec = spec
        self.engine = spec.engine()
        self.observer = spec.observation()
        self.kernels = kernels(spec.name)
        counts = _player_counts(spec, num_envs, num_players)
        # One GameConfig per player count validates the options with the engine's messages.
        self.configs = {
            int(n): self.engine.GameConfig.from_dict({**options, "num_players": int(n)})
            for n in np.unique(counts)
        }
        self.game_options = dict(options)
        n_envs = int(num_envs)
        self.num_envs = n_envs
        self.num_players = counts
        self.options = np.stack([self.configs[int(n)].kernel_options() for n in counts])
        num_actions = self.engine.NUM_ACTIONS
        size = self.observer.OBS_SIZE
        self.num_actions = num_actions
        self.obs_size = size
        self.seed: int | None = None
        self.keys = np.zeros(n_envs, np.uint64)
        self.episodes = np.zeros(n_envs, np.int64)
        self.setup_seeds = np.zeros(n_envs, np.int64)
        layout = self.engine.layout
        self.states = np.zeros((n_envs, layout.STATE_SIZE), layout.STATE_DTYPE)
        self._legal = np.zeros((n_envs, num_actions), np.int64)
        self._num_legal = np.zeros(n_envs, np.int64)
        self._obs = np.zeros((n_envs, size), np.float32)
        self._mask = np.zeros((n_envs, num_actions), np.int8)
        self._terminated = np.zeros(n_envs, np.bool_)
        self._truncated = np.zeros(n_envs, np.bool_)
        self._final_obs = np.zeros((n_envs, size), np.float32)
        self._final_seat = np.full(n_envs, -1, np.int64)
        self._final_scores = np.zeros((n_envs, MAX_PLAYERS), np.int64)
        #: The final tie-breaks (the rules' order of seats with equal scores) of ended games.
        self.final_tie_breaks = np.zeros((n_envs, MAX_PLAYERS), np.int64)
        self._final_ties = self.final_tie_breaks
        self._ret = np.zeros(MAX_PLAYERS, np.float64)
        self._seat_rewards = np.zeros(MAX_PLAYERS, np.float64)
        self._flat_mask = self._mask.reshape(-1)
        self._row_base = np.arange(n_envs, dtype=np.int64) * num_actions
        self._started = False
        # The kernels' arguments, built once as plain tuples (see the templates): they hold
        # the buffers above, written in place.
        self._games = _plain(
            Games(
                self.states,
                self.options,
                self.keys,
                self.episodes,
                self.setup_seeds,
                self._legal,
                self._num_legal,
            )
        )
        self._scratch = _plain(
            Scratch(
                self._ret,
                self._seat_rewards,
                np.zeros(num_actions, np.float64),
                np.zeros(MAX_PLAYERS, np.int64),
                np.arange(n_envs, dtype=np.int64),
            )
        )

    def _outputs(self, seat: np.ndarray, rewards: np.ndarray) -> tuple:
        """The view's `Outputs`: the shared buffers with its own seats and rewards."""
        return _plain(
            Outputs(
                self._obs,
                self._mask,
                seat,
                rewards,
                self._terminated,
                self._truncated,
                self._final_obs,
                self._final_seat,
                self._final_scores,
                self._final_ties,
            )
        )

    def _make_batch(self, outputs: tuple) -> Batch:
        out = Outputs(*outputs)
        return Batch(
            *(
                _read_only(a)
                for a in (
                    out.obs,
                    out.mask,
                    self._legal,
                    self._num_legal,
                    out.seat,
                    out.rewards,
                    out.terminated,
                    out.truncated,
                    out.final_obs,
                    out.final_seat,
                    out.final_scores,
                )
            )
        )

    # -- reset ---------------------------------------------------------------------------
    def _select(self, seed: Any, reset_mask: Any) -> np.ndarray:
        """Which games a reset starts, after setting the seed (all) or advancing episodes."""
        if reset_mask is None:
            if seed is None and self.seed is not None:
                # Continue the stream the last seed set up: every game's next episode.
                self.episodes += 1
                return np.ones(self.num_envs, np.bool_)
            self.seed = check_batch_seed(seed)
            self.keys[:] = [game_key(self.seed, k) for k in range(self.num_envs)]
            self.episodes[:] = 0
            return np.ones(self.num_envs, np.bool_)
        if seed is not None:
            raise ValueError(
                "seed and reset_mask cannot be combined: a partial reset starts the next "
                "episode of each masked game from the seed given at the last full reset"
            )
        if not self._started:
            raise RuntimeError("reset_mask needs a full reset() first")
        mask = np.asarray(reset_mask)
        if mask.dtype != np.bool_ or mask.shape != (self.num_envs,) or not mask.any():
            raise ValueError(
                f"reset_mask must be a bool array of shape ({self.num_envs},) with at least "
                f"one True, got dtype {mask.dtype} and shape {mask.shape}"
            )
        self.episodes[mask] += 1
        return mask.copy()

    # -- actions ---------------------------------------------------------------------------
    def _check_actions(self, actions: Any) -> np.ndarray:
        """The actions as int64, after one vectorized legality check against the masks.

        Raises:
            IllegalActionError: naming the first games whose action is illegal; nothing
                is stepped.
            ValueError: for anything but an integer array of one action per game
                (`action_batch`: a masked array with a masked entry included); nothing is
                stepped.
        """
        if not self._started:
            raise RuntimeError("the games have not started yet: call reset() first")
        a = action_batch(actions, self.num_envs).astype(np.int64, copy=False)
        # One comparison tests the range (a negative id wraps to a huge unsigned one), then
        # one take reads every game's mask at its action.
        if (
            not (a.view(np.uint64) < self.num_actions).all()
            or not np.take(self._flat_mask, self._row_base + a).all()
        ):
            in_range = (a >= 0) & (a < self.num_actions)
            legal = np.take(self._flat_mask, self._row_base + np.where(in_range, a, 0)) != 0
            bad = np.flatnonzero(~(legal & in_range))
            raise IllegalActionError(self._illegal_message(a, bad))
        return a

    def _illegal_message(self, actions: np.ndarray, bad: np.ndarray) -> str:
        shown = 3
        name = self.engine.action_to_string
        parts = []
        for k in bad[:shown]:
            a = int(actions[k])
            if not 0 <= a < self.num_actions:
                parts.append(f"game {k}: action {a} is out of range 0..{self.num_actions - 1}")
                continue
            game = self.game(int(k))
            d = game.decision()
            legal = ", ".join(name(x) for x in game.legal_actions())
            parts.append(
                f"game {k}: action {a} ({name(a)}) is illegal for decision "
                f"{d.kind!r} of player {d.player}; legal: {legal}"
            )
        more = f" (and {len(bad) - shown} more games)" if len(bad) > shown else ""
        return "; ".join(parts) + more + "; no game was stepped"

    # -- views -----------------------------------------------------------------------------
    def game(self, k: int) -> Any:
        """A copy of game ``k`` at its current position, as an engine ``Game``.

        Raises:
            IndexError: if ``k`` is not a game index.
        """
        if not 0 <= k < self.num_envs:
            raise IndexError(f"game index {k} is out of range 0..{self.num_envs - 1}")
        return self.engine.Game.from_state_dict(self.engine.state_to_dict(self.states[k].copy()))

    def state(self, out: np.ndarray | None = None) -> np.ndarray:
        """The global view of every game (``raw_env.state()``: absolute seats), ``(N, OBS_SIZE)``."""
        if out is None:
            out = np.empty((self.num_envs, self.obs_size), np.float32)
        self.kernels.encode_batch(self.states, np.full(self.num_envs, -1, np.int64), out)
        return out


class VectorGames(BatchedGames):
    """``num_envs`` games in which the caller plays every seat; see the module docstring.

    Args:
        game: a registered game's name.
        num_envs: the number of games N, >= 1.
        num_players: one player count for all games, or one per game (the game's default
            when None).
        **options: the game's options (``GameConfig`` fields), the same for every game.

    Raises:
        ValueError: naming any argument that is not allowed and what is.
    """

    def __init__(
        self,
        game: str,
        num_envs: int,
        num_players: int | Sequence[int] | None = None,
        **options: Any,
    ) -> None:
        super().__init__(game, num_envs, num_players, **options)
        self._seat = np.zeros(self.num_envs, np.int64)
        self._rewards = np.zeros((self.num_envs, MAX_PLAYERS), np.float64)
        self._out = self._outputs(self._seat, self._rewards)
        self.batch = self._make_batch(self._out)

    def reset(self, seed: int | None = None, reset_mask: np.ndarray | None = None) -> Batch:
        """Start every game from ``seed`` (episode 0), or the next episode of the games in
        ``reset_mask`` (a bool array of shape ``(N,)``); without either, the next episode of
        every game under the last seed (the first such reset draws the seed from the
        operating system). Rewards and end flags are cleared for the games started.

        Raises:
            ValueError: for a bad seed or mask, or both given.
        """
        select = self._select(seed, reset_mask)
        self._rewards[select] = 0.0
        self._terminated[select] = False
        self._truncated[select] = False
        self.kernels.reset_all(select, self._games, self._out)
        self._started = True
        return self.batch

    def step(self, actions: np.ndarray) -> Batch:
        """Play one action in every game (for its seat to act), with SAME_STEP autoreset.

        Raises:
            IllegalActionError: naming the game index of an illegal action; nothing is
                stepped then.
        """
        a = self._check_actions(actions)
        self.kernels.step_all(a, self._games, self._out, self._scratch)
        return self.batch


class LearnerGames(BatchedGames):
    """``num_envs`` games in which the caller plays one seat (the learner) per game and
    compiled opponents play the others; see "The learner view" in the module docstring.

    The one learner loop of the platform: ``training.learner.PoolGames`` is these games with
    an opponent pool (the opponent drawn per episode, the game's scripted bots, opponents
    played outside the kernels), on the same kernels.

    Args:
        game: a registered game's name.
        num_envs: the number of games N, >= 1.
        num_players: one player count for all games, or one per game (the game's default
            when None).
        **options: the game's options (``GameConfig`` fields), the same for every game.
        opponent: an ``OPPONENTS`` name for all games, or one name per game.

    Raises:
        ValueError: naming any argument that is not allowed and what is.
    """

    def __init__(
        self,
        game: str,
        num_envs: int,
        num_players: int | Sequence[int] | None = None,
        opponent: str | Sequence[str] = "random",
        **options: Any,
    ) -> None:
        super().__init__(game, num_envs, num_players, **options)
        names = [opponent] * self.num_envs if isinstance(opponent, str) else list(opponent)
        if len(names) != self.num_envs:
            raise ValueError(
                f"opponent has {len(names)} entries but num_envs={self.num_envs}: give one "
                "name per game, or one name for all"
            )
        for k, name in enumerate(names):
            if name not in OPPONENTS:
                raise ValueError(
                    f"opponent[{k}]={name!r} is not allowed; allowed: {sorted(OPPONENTS)}"
                )
        n = self.num_envs
        self.learner = np.zeros(n, np.int64)
        self._rewards = np.zeros(n, np.float64)
        #: Each game's opponents' stream, slot (its opponent: ``opponents.kind[slot[k]]``)
        #: and seat shift, and whether it waits on an opponent played outside the kernels.
        self.rng = np.zeros(n, np.uint64)
        self.slot = np.array([OPPONENTS[name] for name in names], np.int64)
        self.shift = np.zeros(n, np.int64)
        self.waiting = np.zeros(n, np.bool_)
        #: The learner's score margin over the best opponent where it is to act, and at the
        #: end of the games that ended in the last step (the shaped reward's potential; kept
        #: when ``opponents.margins``).
        self.margin = np.zeros(n, np.int64)
        self.final_margin = np.zeros(n, np.int64)
        #: The slot each game that ended in the last step was played against.
        self.final_slot = np.zeros(n, np.int64)
        self._learners = _plain(
            Learners(
                self.learner,
                self.rng,
                self.slot,
                self.shift,
                self.waiting,
                self.margin,
                self.final_margin,
                self.final_slot,
            )
        )
        #: The opponents: one slot per ``OPPONENTS`` entry, each game keeping its own.
        self.opponents = Opponents(
            np.array(sorted(OPPONENTS.values()), np.int64), np.zeros(0, np.float64), False
        )
        #: Decisions taken by the opponents since the last full reset (benchmarks count them).
        self.opponent_decisions = 0
        self._out = self._outputs(self.learner, self._rewards)
        self.batch = self._make_batch(self._out)

    @property
    def opponents(self) -> Opponents:
        """Who plays the other seats (`Opponents`; the kernels get it as a plain tuple)."""
        return self._opponents_named

    @opponents.setter
    def opponents(self, value: Opponents) -> None:
        self._opponents_named = value
        self._opponents = _plain(value)

    def _play_outside(self) -> int:
        """Play the moves of the opponents played outside the kernels (none here: every
        opponent is compiled); returns the decisions taken."""
        return 0

    def reset(self, seed: int | None = None, reset_mask: np.ndarray | None = None) -> Batch:
        """As ``VectorGames.reset``; the opponents then play up to the learner's first turn."""
        select = self._select(seed, reset_mask)
        if reset_mask is None:
            self.opponent_decisions = 0
        self._rewards[select] = 0.0
        self._terminated[select] = False
        self._truncated[select] = False
        self.opponent_decisions += self.kernels.reset_learner(
            select, self._games, self._out, self._learners, self._opponents, self._scratch
        )
        self.opponent_decisions += self._play_outside()
        self._started = True
        return self.batch

    def step(self, actions: np.ndarray) -> Batch:
        """The learner's action in every game, then the opponents'; SAME_STEP autoreset.

        Raises:
            IllegalActionError: naming the game index of an illegal action; nothing is
                stepped then.
        """
        a = self._check_actions(actions)
        self.opponent_decisions += self.kernels.step_learner(
            a, self._games, self._out, self._learners, self._opponents, self._scratch
        )
        self.opponent_decisions += self._play_outside()
        return self.batch


# ---------------------------------------------------------------------------------------
# Gymnasium
# ---------------------------------------------------------------------------------------
def end_info(
    spec: GameSpec, num_players: int, scores: np.ndarray, ranks: np.ndarray
) -> dict[str, Any]:
    """``raw_env``'s end-of-game facts, padded to ``MAX_PLAYERS`` seats: ``final_score`` (also
    under the game's own word, ``final_<score_key>``), ``rank`` and ``num_players``."""
    score = np.zeros(MAX_PLAYERS, np.int64)
    score[:num_players] = scores[:num_players]
    rank = np.zeros(MAX_PLAYERS, np.float64)
    rank[:num_players] = ranks[:num_players]
    info: dict[str, Any] = {"final_score": score, "rank": rank, "num_players": num_players}
    info.setdefault(f"final_{spec.score_key}", score.copy())
    return info


class GameVectorEnv(VectorEnv):
    """``VectorGames`` as a Gymnasium 1.x ``VectorEnv`` (self-play: the caller plays every
    seat; each game's observation is its seat to act's).

    The single observation space is ``raw_env``'s: a dict of ``observation``
    (``Box(0, BOUNDS, (OBS_SIZE,), float32)``) and ``action_mask``
    (``Box(0, 1, (NUM_ACTIONS,), int8)``); the single action space is
    ``Discrete(NUM_ACTIONS)``. ``step`` returns Gymnasium's ``(obs, rewards, terminations,
    truncations, infos)``: ``rewards`` (float64, ``(N,)``) is the reward of the seat that
    acted, ``infos["seat"]`` the seat to act now, and ``infos["action_mask"]`` the masks
    (also in the observation dict). A game that ends has ``infos["final_obs"]`` (its last
    observation, from the seat that acted, with the all-zero mask of ``raw_env`` at the end)
    and ``infos["final_info"]`` (``seat_rewards`` of every seat, ``final_score``, ``rank``,
    ``num_players``, padded with zeros to ``MAX_PLAYERS`` seats), exactly as
    ``SyncVectorEnv`` gives them in ``AutoresetMode.SAME_STEP`` for a single-game env whose
    terminal step info is that ``final_info`` and whose step and reset infos are
    ``{"seat": seat, "action_mask": mask}``.
    ``reset(seed=int | None, options={"reset_mask": m})`` follows ``SyncVectorEnv`` except that
    ``seed`` is one int (see "Seeds"). ``action_masks()`` gives the masks as bool, as
    sb3-contrib's and RLlib's masking code read them.

    Args:
        game: a registered game's name.
        num_envs: the number of games N, >= 1.
        num_players: one player count for all games, or one per game (the game's default
            when None).
        **options: the game's options (``GameConfig`` fields), the same for every game.
        copy: return copies of the observations (``SyncVectorEnv``'s default); ``False``
            returns read-only views that the next step overwrites.
    """

    metadata: ClassVar[dict[str, Any]] = {
        "autoreset_mode": AutoresetMode.SAME_STEP,
        "render_modes": [],
    }

    def __init__(
        self,
        game: str,
        num_envs: int,
        num_players: int | Sequence[int] | None = None,
        copy: bool = True,
        **options: Any,
    ) -> None:
        self.games = VectorGames(game, num_envs, num_players, **options)
        self.metadata = {**self.metadata, "name": f"{self.games.spec.env_name}_vector"}
        self.num_envs = self.games.num_envs
        self.copy = bool(copy)
        self.render_mode = None
        bounds, size = self.games.observer.BOUNDS, self.games.obs_size
        num_actions = self.games.num_actions
        self.single_observation_space = spaces.Dict(
            {
                "observation": spaces.Box(0.0, bounds, (size,), np.float32),
                "action_mask": spaces.Box(0, 1, (num_actions,), np.int8),
            }
        )
        self.single_action_space = spaces.Discrete(num_actions)
        self.observation_space = batch_space(self.single_observation_space, self.num_envs)
        self.action_space = batch_space(self.single_action_space, self.num_envs)
        self._acting = np.zeros(self.num_envs, np.int64)
        self._all = np.ones(self.num_envs, np.bool_)
        self._rows = np.arange(self.num_envs)

    def _observations(self, b: Batch) -> dict[str, np.ndarray]:
        if self.copy:
            return {"observation": b.obs.copy(), "action_mask": b.mask.copy()}
        return {"observation": b.obs, "action_mask": b.mask}

    def action_masks(self) -> np.ndarray:
        """The legal actions of every game's seat to act, bool ``(num_envs, NUM_ACTIONS)``."""
        return self.games.batch.mask.astype(np.bool_)

    def reset(
        self, *, seed: int | None = None, options: dict[str, Any] | None = None
    ) -> tuple[dict[str, np.ndarray], dict[str, Any]]:
        """Start the games (``seed``: one int or None), or only those of
        ``options["reset_mask"]``.

        Raises:
            ValueError: for a bad seed, a bad mask, or unknown options.
        """
        options = dict(options or {})
        reset_mask = options.pop("reset_mask", None)
        if options:
            raise ValueError(f"unknown reset options {sorted(options)}; allowed: ['reset_mask']")
        if seed is not None:
            super().reset(seed=check_batch_seed(seed))
        b = self.games.reset(seed=seed, reset_mask=reset_mask)
        started = self._all if reset_mask is None else np.asarray(reset_mask)
        info = {
            "seat": np.where(started, b.seat, 0),
            "_seat": started.copy(),
            "action_mask": np.where(started[:, None], b.mask, 0).astype(np.int8),
            "_action_mask": started.copy(),
        }
        return self._observations(b), info

    def step(
        self, actions: np.ndarray
    ) -> tuple[dict[str, np.ndarray], np.ndarray, np.ndarray, np.ndarray, dict[str, Any]]:
        """One action per game, for its seat to act (see the class docstring).

        Raises:
            IllegalActionError: naming the game index of an illegal action.
        """
        np.copyto(self._acting, self.games.batch.seat)
        b = self.games.step(actions)
        rewards = b.rewards[self._rows, self._acting]
        terminations = b.terminated.copy()
        truncations = b.truncated.copy()
        infos: dict[str, Any] = {
            "seat": b.seat.copy(),
            "_seat": self._all.copy(),
            "action_mask": b.mask.copy(),
            "_action_mask": self._all.copy(),
        }
        for k in np.flatnonzero(terminations | truncations):
            final_obs = {
                "observation": b.final_obs[k].copy(),
                "action_mask": np.zeros(self.games.num_actions, np.int8),  # raw_env's at the end
            }
            infos = self._add_info(
                infos, {"final_obs": final_obs, "final_info": self._final_info(int(k))}, int(k)
            )
        return self._observations(b), rewards, terminations, truncations, infos

    def _final_info(self, k: int) -> dict[str, Any]:
        """``raw_env``'s end-of-game infos for game ``k`` with every seat's reward, padded with
        zeros to ``MAX_PLAYERS`` seats."""
        b = self.games.batch
        n = int(self.games.num_players[k])
        scores = b.final_scores[k]
        ranks = rank_of(scores[:n], self.games.final_tie_breaks[k, :n])
        return {"seat_rewards": b.rewards[k].copy(), **end_info(self.games.spec, n, scores, ranks)}

    def state(self) -> np.ndarray:
        """The global view of every game, ``(N, OBS_SIZE)`` (``raw_env.state()``)."""
        return self.games.state()

    def close_extras(self, **kwargs: Any) -> None:
        """Nothing to release: the games are arrays."""


__all__ = [
    "FIRST_SCRIPTED",
    "NO_SCORE",
    "NUM_EPISODE_WORDS",
    "OPPONENTS",
    "OPPONENT_EXTERNAL",
    "OPPONENT_RANDOM",
    "SHOWN_MASKED",
    "TEMPLATES",
    "Batch",
    "BatchedGames",
    "GameVectorEnv",
    "Games",
    "LearnerGames",
    "Learners",
    "Opponents",
    "Outputs",
    "Scratch",
    "VectorGames",
    "action_batch",
    "check_batch_seed",
    "end_info",
    "episode_setup_seed",
    "episode_word",
    "game_key",
    "kernels",
    "next_random",
    "next_uniform",
    "random_pick",
    "setup_seed_of",
]
