"""The games the trainers play and the weights a tiny run trains to are the recorded ones.

``recorded_runs.json`` was written (``python -m tests.training.test_recorded_runs``) by the
code from before the learner loop was written once and the settings declared once (issue 29):
for every game, a fingerprint of the games each batched view plays (``VectorGames``,
``LearnerGames``, ``PoolGames`` with every kind of opponent, rotated, and restored from its
saved arrays) and of the weights a tiny training run of each trainer ends with. A refactoring
of the batched loops, the pool or the trainers' settings must keep both. Caylus 1303's entry
was recorded again, by main's code from before that refactoring (52ddbb0), once the player's
choice of the residence a monument replaces (decision D4) had changed its games.

The games' fingerprints are exact (SHA-256 of every array the views return: integer rules,
float32 observations, the same on every machine); the weights are compared through a few
sums per tensor (its sum of squares to a relative 2e-3, its sum and a projection to what a
change of 1e-3 of its norm can move them by), which any change to what the trainer sees or does moves far beyond (a different game,
opponent or hyperparameter), while the last bits of torch's float arithmetic differ from one
machine to another.
"""

from __future__ import annotations

import hashlib
import json
import sys
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from caylus_env.core.registry import GAME_NAMES, game_spec
from tests.training.conftest import players_of, pool_of

RECORD = Path(__file__).with_name("recorded_runs.json")
#: The tiny run: two rollouts of 8 games, a checkpoint after each (the first one gated and
#: promoted into the pool when it wins), the shaped term on, every kind of opponent.
RUN: dict[str, Any] = {
    "steps": 512,
    "seed": 11,
    "envs": 8,
    "n_steps": 32,
    "batch_size": 64,
    "n_epochs": 2,
    "checkpoint_every": 256,
    "eval_games": 2,
    "gate_games": 2,
    "shaping": 0.5,
    "threads": 1,
    "progress": False,
}
TRAINERS = ("maskable", "cleanrl")
#: The seed of the fixed direction each tensor is projected on (its third sum).
PROBE_SEED = 29
#: The tolerance of a tensor's sum and projection, as a fraction of its norm: the weights of
#: the same run differ from one machine to another by a few 1e-4 of the norm (measured: up to
#: 4.5e-4, on a small bias), a changed run by far more.
NORM_TOL = 1e-3
#: What one weight may differ by between machines however small it is: Adam's steps do not
#: shrink with the gradient, so a weight whose gradient is float noise (a bias near its zero
#: start) moves by up to a few learning rates either way (measured: 5e-5 on a bias's sum).
ADAM_FLOOR = 1e-4


class UniformPolicy:
    """An external opponent: the legal action its uniform number points at."""

    def act_batch(
        self, obs: np.ndarray, mask: np.ndarray, uniforms: np.ndarray, states: np.ndarray
    ) -> np.ndarray:
        out = np.empty(len(obs), np.int64)
        for i in range(len(obs)):
            legal = np.flatnonzero(mask[i])
            out[i] = legal[int(uniforms[i] * len(legal))]
        return out


def _feed(h: Any, *arrays: Any) -> None:
    for a in arrays:
        a = np.ascontiguousarray(np.asarray(a))
        h.update(str((a.dtype.str, a.shape)).encode())
        h.update(a.tobytes())


def _batch(b: Any) -> list[np.ndarray]:
    return [getattr(b, f) for f in b.__dataclass_fields__]


def _play(games: Any, steps: int, seed: int, h: Any, extra: Any) -> None:
    """Random legal moves for ``steps`` steps, hashing every batch (and ``extra(games)``)."""
    rng = np.random.default_rng(seed)
    b = games.batch
    for t in range(steps):
        pick = (rng.random(games.num_envs) * b.num_legal).astype(np.int64)
        b = games.step(b.legal[np.arange(games.num_envs), pick])
        _feed(h, *_batch(b), games.final_tie_breaks, *extra(games))
        if t == steps // 2:
            half = np.zeros(games.num_envs, np.bool_)
            half[::2] = True
            _feed(h, *_batch(games.reset(reset_mask=half)), *extra(games))


def _pool_facts(g: Any) -> list[Any]:
    return [g.margin, g.final_margin, g.final_slot, g.waiting, g.learner, g.slot, g.rng,
            [g.opponent_decisions]]  # fmt: skip


def trajectories(game: str) -> dict[str, str]:
    """The fingerprints of the games each batched view of ``game`` plays."""
    from caylus_env.core.vector import LearnerGames, VectorGames
    from training.learner import PoolGames, compiled_opponents

    spec = game_spec(game)
    low, high = spec.min_players, spec.max_players
    mixed = [low + k % (high - low + 1) for k in range(7)]
    out = {}
    views = {
        "vector": (VectorGames(game, len(mixed), mixed), lambda g: [g.state()]),
        "learner": (LearnerGames(game, len(mixed), mixed), lambda g: [[g.opponent_decisions]]),
    }
    for name, (games, extra) in views.items():
        h = hashlib.sha256()
        _feed(h, *_batch(games.reset(seed=3)), *extra(games))
        _play(games, 150, 4, h, extra)
        _feed(h, *_batch(games.reset()), *extra(games))
        out[name] = h.hexdigest()
    scripted = [n for n in compiled_opponents(game) if n != "random"]
    pool = ",".join(["self:1", "random:0.5", *(f"{n}:0.7" for n in scripted), "pool:0.3"])
    three = players_of(game)
    for name, counts, rotated in (("pool", mixed, False), ("rotated", [three] * 2 * three, True)):
        h = hashlib.sha256()
        games = PoolGames(game, len(counts), counts, opponents=pool, rotated=rotated)
        games.set_self_policy(UniformPolicy())
        _feed(h, *_batch(games.reset(seed=5)), *_pool_facts(games))
        _play(games, 120, 6, h, _pool_facts)
        saved = games.save_arrays()
        _feed(h, *saved.values())
        restored = PoolGames(game, len(counts), counts, opponents=pool, rotated=rotated)
        restored.set_self_policy(UniformPolicy())
        restored.load_arrays({k: v.copy() for k, v in saved.items()})
        for g in (games, restored):
            _play(g, 40, 7, h, _pool_facts)
        out[name] = h.hexdigest()
    return out


def tiny_run(game: str, trainer: str, out: Path) -> Path:
    """The tiny run of ``game`` with ``trainer`` in ``out``; its last checkpoint."""
    from training.ppo import config_from_args, train

    return train(
        config_from_args(
            out=str(out),
            game=game,
            players=players_of(game),
            opponents=pool_of(game),
            algo=trainer,
            **RUN,
        )
    )


def weights(checkpoint: Path) -> dict[str, list[Any]]:
    """Each tensor of a checkpoint's network: its shape, sum, sum of squares and projection
    on a fixed random direction."""
    from safetensors.numpy import load_file

    out = {}
    for name, w in sorted(load_file(str(checkpoint / "model.safetensors")).items()):
        x = w.astype(np.float64).ravel()
        probe = np.random.default_rng(PROBE_SEED).standard_normal(x.size)
        out[name] = [list(w.shape), float(x.sum()), float(x @ x), float(x @ probe)]
    return out


def _recorded(game: str) -> dict[str, Any]:
    record = json.loads(RECORD.read_text())
    if game not in record:
        pytest.fail(
            f"no recorded runs of {game}: record them with python -m "
            f"tests.training.test_recorded_runs {game} (from code known to be right)"
        )
    return record[game]


@pytest.mark.parametrize("game", GAME_NAMES)
def test_the_batched_views_play_the_recorded_games(game):
    assert trajectories(game) == _recorded(game)["trajectories"]


@pytest.mark.parametrize("trainer", TRAINERS)
@pytest.mark.parametrize("game", GAME_NAMES)
def test_a_tiny_run_trains_to_the_recorded_weights(game, trainer, tmp_path):
    expected = _recorded(game)["weights"][trainer]
    got = weights(tiny_run(game, trainer, tmp_path / "run"))
    assert sorted(got) == sorted(expected)
    for name, (shape, *sums) in expected.items():
        assert got[name][0] == shape, name
        total, square, projection = sums
        _, got_total, got_square, got_projection = got[name]
        # ||x + d||^2 - ||x||^2 is about 2 x.d: twice the norm's fraction, relative to it.
        # (plus 1e-6 for the biases still near their zero start, whose own norm is tiny).
        np.testing.assert_allclose(got_square, square, rtol=2 * NORM_TOL, atol=1e-6, err_msg=name)
        # A sum and a projection cancel out towards 0: their tolerance is what a change of
        # NORM_TOL of the tensor's norm can move them by (Cauchy-Schwarz: sqrt(size) times
        # it), not a fraction of themselves (relative to a sum near 0, the last bits of one
        # machine's float arithmetic read as a change).
        size = int(np.prod(shape))
        np.testing.assert_allclose(
            [got_total, got_projection],
            [total, projection],
            rtol=0,
            atol=NORM_TOL * np.sqrt(size * square) + ADAM_FLOOR * np.sqrt(size),
            err_msg=name,
        )


def record(games: list[str], root: Path) -> None:
    """Write the fingerprints of ``games`` into ``recorded_runs.json`` (others kept)."""
    record = json.loads(RECORD.read_text()) if RECORD.exists() else {}
    for game in games:
        record[game] = {
            "trajectories": trajectories(game),
            "weights": {t: weights(tiny_run(game, t, root / f"{game}-{t}")) for t in TRAINERS},
        }
    RECORD.write_text(json.dumps(record, indent=1, sort_keys=True) + "\n")


if __name__ == "__main__":
    import tempfile

    with tempfile.TemporaryDirectory() as tmp:
        record(sys.argv[1:] or list(GAME_NAMES), Path(tmp))
