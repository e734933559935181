"""Every entry point that takes a batch of actions reads it through one check
(``caylus_env.core.vector.action_batch``), here for every game: a NumPy masked array is
refused while anything in it is masked (its masked entries hold arbitrary data, which
``np.asarray`` would hand over as moves), and played as its data when nothing is.

The batched targets:

1. ``VectorGames.step`` (self-play),
2. ``LearnerGames.step`` (the learner view),
3. ``training.learner.PoolGames.step`` (the training pool),
4. ``GameVectorEnv.step`` (the Gymnasium ``VectorEnv`` of ``caylus_env.make_vector``),
5. ``GameVecEnv.step`` (the SB3 ``VecEnv``: ``step_async`` then ``step_wait``) over
   ``LearnerGames``,
6. ``GameVecEnv.step`` over ``PoolGames`` (``games=``),
7. ``training.vecenv.PoolVecEnv.step`` (the trainer's env),
8. the actions a pool opponent's ``act_batch`` returns (``PoolGames.set_self_policy``: the
   network being trained; external agents and checkpoints answer the same way).
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

import numpy as np
import pytest

import caylus_env
from caylus_env.core.sb3 import GameVecEnv
from caylus_env.core.vector import LearnerGames, VectorGames
from training.learner import PoolGames
from training.vecenv import PoolVecEnv

NUM_ENVS = 3
PLAYERS = 2
SEED = 4
STEPS = 12
#: What a target is handed: the plain array of legal actions, or something made from it.
Wrap = Callable[[np.ndarray], Any]


def _plain(a: np.ndarray) -> np.ndarray:
    return a


def _last_masked(a: np.ndarray) -> np.ndarray:
    """The actions (all legal) as a masked array whose last game's action is masked."""
    mask = np.zeros(len(a), np.bool_)
    mask[-1] = True
    return np.ma.masked_array(a, mask=mask)


class _Opponent:
    """The ``self`` opponent of a pool: the first legal action of each game asked about,
    handed back through ``wrap``; it keeps the states it was last asked about."""

    def __init__(self) -> None:
        self.wrap: Wrap = _plain
        self.asked: np.ndarray | None = None

    def act_batch(self, obs, mask, uniforms, states):
        self.asked = states.copy()
        return self.wrap(mask.argmax(axis=1).astype(np.int64))


class Target:
    """One batched entry point, started: ``step(wrap)`` plays every game's first legal action
    handed over through ``wrap``; ``games`` holds the states."""

    def __init__(self, name: str, game: str) -> None:
        self.name = name
        self.opponent: _Opponent | None = None
        pool = lambda **kw: PoolGames(game, NUM_ENVS, PLAYERS, **kw)  # noqa: E731
        if name == "VectorGames":
            self.env: Any = VectorGames(game, NUM_ENVS, PLAYERS)
        elif name == "LearnerGames":
            self.env = LearnerGames(game, NUM_ENVS, PLAYERS)
        elif name in ("PoolGames", "pool-opponent"):
            self.env = pool(opponents="self:1" if name == "pool-opponent" else "random:1")
            if name == "pool-opponent":
                self.opponent = _Opponent()
                self.env.set_self_policy(self.opponent)
        elif name == "GameVectorEnv":
            self.env = caylus_env.make_vector(game, NUM_ENVS, num_players=PLAYERS)
        elif name == "GameVecEnv":
            self.env = GameVecEnv(game, NUM_ENVS, PLAYERS, seed=SEED)
        elif name == "GameVecEnv-pool":
            self.env = GameVecEnv(games=pool(), seed=SEED)
        else:
            self.env = PoolVecEnv(pool(), seed=SEED)
        self.games = getattr(self.env, "games", self.env)
        if isinstance(self.env, GameVecEnv):
            self.env.reset()
        else:
            self.env.reset(seed=SEED)

    def step(self, wrap: Wrap) -> None:
        legal = self.games.batch.legal[:, 0].copy()
        if self.opponent is not None:
            self.opponent.wrap = wrap
            self.env.step(legal)
        else:
            self.env.step(wrap(legal))


TARGETS = [
    "VectorGames",
    "LearnerGames",
    "PoolGames",
    "GameVectorEnv",
    "GameVecEnv",
    "GameVecEnv-pool",
    "PoolVecEnv",
    "pool-opponent",
]


def _refusal(t: Target) -> tuple[Exception, np.ndarray]:
    """The error of the first step whose batch had a masked entry (a pool opponent is not
    asked at every step), and the states before that step."""
    for _ in range(STEPS):
        states = t.games.states.copy()
        try:
            t.step(_last_masked)
        except (ValueError, RuntimeError) as err:
            return err, states
    pytest.fail(f"{t.name} played {STEPS} steps of masked actions")


@pytest.mark.parametrize("target", TARGETS)
def test_a_masked_action_array_with_a_masked_entry_is_refused_and_changes_nothing(game, target):
    t = Target(target, game)
    err, states = _refusal(t)
    message = str(err)
    assert re.search(r"masked array with the actions of games \d+ masked", message), message
    assert "allowed: an integer array of shape" in message and "\n" not in message
    if t.opponent is None:
        assert isinstance(err, ValueError)
        assert np.array_equal(t.games.states, states)  # no game stepped
    else:
        # The learner's own move was played; the opponent's refused batch was not: the games
        # it was asked about are still waiting on it, as they were when it was asked.
        assert isinstance(err, RuntimeError) and "opponent 'self'" in message
        assert np.array_equal(t.games.states[t.games.waiting], t.opponent.asked)


@pytest.mark.parametrize("target", TARGETS)
@pytest.mark.parametrize(
    "wrap",
    [
        lambda a: np.ma.masked_array(a, mask=np.zeros(len(a), np.bool_)),
        lambda a: np.ma.masked_array(a),  # the mask is np.ma.nomask
    ],
    ids=["mask-all-false", "nomask"],
)
def test_a_masked_action_array_with_nothing_masked_plays_its_data(game, target, wrap):
    plain, masked = Target(target, game), Target(target, game)
    for _ in range(STEPS):
        plain.step(_plain)
        masked.step(wrap)
        assert np.array_equal(masked.games.states, plain.games.states)
    assert not np.array_equal(masked.games.states, Target(target, game).games.states)


@pytest.mark.parametrize(
    ("answer", "message"),
    [
        (lambda a: a.astype(np.float64), "must be an integer array"),
        (lambda a: a[:, None], "must be an integer array"),
        (lambda a: np.full_like(a, -1), "returned an illegal action"),
        (lambda a: np.full_like(a, 10**6), "returned an illegal action"),
    ],
    ids=["floats", "2-d", "negative", "out-of-range"],
)
def test_a_pool_opponent_answering_floats_or_ids_out_of_range_is_refused(game, answer, message):
    t = Target("pool-opponent", game)
    with pytest.raises(RuntimeError, match=message) as err:
        for _ in range(STEPS):  # until the opponent is asked
            t.step(answer)
    assert str(err.value).startswith("opponent 'self' returned") and "\n" not in str(err.value)
    assert np.array_equal(t.games.states[t.games.waiting], t.opponent.asked)
