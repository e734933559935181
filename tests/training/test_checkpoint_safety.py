"""Hostile checkpoints and run directories (issue 17): each failure class has its test.

The policy cases tamper a copy of the shipped ``ppo-2p``; the resume cases a copy of the
smallest run (``small_run``), checksums in ``config.json`` recomputed as an attacker would.
A case that could hang (a FIFO) runs in a subprocess with a timeout.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from agents.policy import CheckpointError, PolicyNet, load_net
from agents.registry import make_agent
from caylus_env.core.registry import GAME_NAMES
from tests.training.fuzz_checkpoints import (
    LAST,
    RUN_ARGS,
    SHIPPED,
    _edit_json,
    _rehash,
    _safetensors_edit,
    _sb3_data,
    _scale,
    _set_tensor,
    _torch_pickle,
    _truncate,
    _zip_edit,
)

pytest.importorskip("sb3_contrib")


def _copy(tmp_path: Path, name: str = "A") -> Path:
    return Path(shutil.copytree(SHIPPED, tmp_path / name))


def _one_line(err: pytest.ExceptionInfo) -> str:
    text = str(err.value)
    assert text and "\n" not in text
    return text


# ---------------------------------------------------------------------------------------
# policy:PATH
# ---------------------------------------------------------------------------------------
@pytest.mark.parametrize("name", ["config.json", "model.safetensors"])
def test_a_fifo_in_place_of_a_checkpoint_file_is_refused_without_blocking(tmp_path, name):
    ckpt = _copy(tmp_path)
    (ckpt / name).unlink()
    os.mkfifo(ckpt / name)
    code = (
        "from agents.registry import make_agent\n"
        f"try:\n    make_agent('policy:{ckpt}', 'caylus')\n"
        "except ValueError as e:\n    print('refused:', e)\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert f"refused: {ckpt / name}: is a FIFO, not a regular file" in out.stdout, out.stderr


def test_a_directory_in_place_of_config_json_is_a_one_line_error(tmp_path):
    ckpt = _copy(tmp_path)
    (ckpt / "config.json").unlink()
    (ckpt / "config.json").mkdir()
    with pytest.raises(CheckpointError) as err:
        PolicyNet(ckpt)
    assert "is a directory, not a regular file" in _one_line(err)


def test_a_config_json_linking_to_another_checkpoints_is_refused_not_played(tmp_path):
    a, b = _copy(tmp_path, "A"), _copy(tmp_path, "B")
    _scale(b, 0.5)  # B: another valid network
    (a / "config.json").unlink()
    (a / "config.json").symlink_to(b / "config.json")
    for load in (PolicyNet, load_net):
        with pytest.raises(CheckpointError, match="links outside its checkpoint directory"):
            load(a)
    with pytest.raises(ValueError, match="links outside"):
        make_agent(f"policy:{a}", "caylus")


@pytest.mark.parametrize(
    ("field", "value", "message"),
    [
        ("sha256", [], "sha256 must map file names"),
        ("num_players", 2, "num_players must be a list"),
        ("num_players", [9], "num_players must be a list"),
        ("step", "7", "step must be an int"),
        ("parent", {"a": 1}, "parent must be a path or null"),
        ("arch", {"name": ["pieces-v1"]}, "arch name"),
        ("game", {"x": 1}, "is not a game of this build"),
        ("format", "9" * 10_000, "is not supported"),
    ],
)
def test_config_json_fields_of_the_wrong_type_are_one_line_errors(tmp_path, field, value, message):
    ckpt = _copy(tmp_path)
    _edit_json(ckpt / "config.json", (field,), value)
    with pytest.raises(CheckpointError) as err:
        PolicyNet(ckpt)
    text = _one_line(err)
    assert message in text and len(text) < 600


def test_deeply_nested_config_json_is_a_one_line_error(tmp_path):
    ckpt = _copy(tmp_path)
    (ckpt / "config.json").write_text("[" * 100_000 + "]" * 100_000)
    with pytest.raises(CheckpointError) as err:
        PolicyNet(ckpt)
    assert "nested too deeply" in _one_line(err)


@pytest.mark.parametrize("value", [3e38, np.inf, np.nan])
def test_weights_whose_logits_are_not_finite_are_refused_at_load(tmp_path, value):
    ckpt = _copy(tmp_path)
    _set_tensor(ckpt, "features_extractor.trunk.weight", value)
    with pytest.raises(CheckpointError) as err:
        PolicyNet(ckpt)
    assert "model.safetensors" in _one_line(err)


def test_weights_within_the_logit_bound_still_load_and_play(tmp_path):
    ckpt = _copy(tmp_path)
    _scale(ckpt, 0.5)
    agent = make_agent(f"policy:{ckpt}", "caylus")
    from caylus_env.core.registry import game_spec

    spec = game_spec("caylus")
    game = spec.new_game(spec.config(2), seed=1)
    assert agent.act(game) in game.legal_actions()


# ---------------------------------------------------------------------------------------
# --resume and --init
# ---------------------------------------------------------------------------------------
def _resume(run: Path, **overrides):
    """The preparation of ``caylus train ppo --resume`` for ``run`` (its own arguments)."""
    from training.ppo import build_model, config_from_args
    from training.runs import prepare_run

    cfg = config_from_args(**{**RUN_ARGS, "out": str(run), "resume": True, **overrides})
    cfg.check()
    prepare_run(cfg)
    model, env, _, _ = build_model(cfg, run)
    return cfg, model, env


def _tamper_arrays(run: Path, key: str, edit) -> None:
    ckpt = run / LAST

    def change(a):
        v = a[key].copy()
        edit(v)
        a[key] = v

    _safetensors_edit(ckpt / "resume.safetensors", change)
    _rehash(ckpt, "resume.safetensors")


@pytest.fixture
def run(small_run, tmp_path) -> Path:
    return Path(shutil.copytree(small_run, tmp_path / "run"))


def _stack_size() -> int:
    from caylus_env.core.registry import game_spec

    return int(game_spec("caylus").engine().layout.STACK_SIZE)


@pytest.mark.parametrize(
    ("key", "edit", "message"),
    [
        ("games.states", lambda v: v.__setitem__((1, _stack_size()), 32767), "states[1]"),
        ("games.states", lambda v: v.__setitem__((2, slice(None)), 7), "states[2]"),
        ("games.slot", lambda v: v.__setitem__(0, 10_000), "games.slot[0] is 10000"),
        ("games.learner", lambda v: v.__setitem__(3, 10_000), "games.learner[3] is 10000"),
        ("games.learner", lambda v: v.__setitem__(3, -1), "games.learner[3] is -1"),
        ("games.num_legal", lambda v: v.__setitem__(0, 10_000), "num_legal[0] does not match"),
    ],
)
def test_edited_games_in_resume_safetensors_are_refused_before_any_kernel(run, key, edit, message):
    _tamper_arrays(run, key, edit)
    with pytest.raises(ValueError) as err:
        _resume(run)
    text = _one_line(err)
    assert "resume.safetensors" in text and message in text


@pytest.mark.parametrize(
    ("key", "value"),
    [("n_epochs", 10**7), ("gamma", float("nan")), ("batch_size", 1), ("max_grad_norm", 1e9)],
)
def test_hyperparameters_edited_inside_sb3_zip_never_override_run_json(run, key, value):
    ckpt = run / LAST
    _sb3_data(ckpt / "sb3.zip", key, value)
    _rehash(ckpt, "sb3.zip")
    cfg, model, _ = _resume(run)
    assert (model.n_epochs, model.batch_size) == (cfg.n_epochs, cfg.batch_size)
    assert model.gamma == cfg.gamma and model.max_grad_norm == 0.5


@pytest.mark.parametrize("value", [10**12, -1, "x"])
def test_an_edited_num_timesteps_in_sb3_zip_is_refused(run, value):
    ckpt = run / LAST
    _sb3_data(ckpt / "sb3.zip", "num_timesteps", value)
    _rehash(ckpt, "sb3.zip")
    with pytest.raises(ValueError) as err:
        _resume(run)
    assert "sb3.zip: data.num_timesteps" in _one_line(err)


@pytest.mark.parametrize("frac", [0.0, 0.5])
def test_a_truncated_sb3_zip_is_a_one_line_error(run, frac):
    ckpt = run / LAST
    _truncate(ckpt / "sb3.zip", frac)
    _rehash(ckpt, "sb3.zip")
    with pytest.raises(ValueError) as err:
        _resume(run)
    assert "sb3.zip: not a readable zip archive" in _one_line(err)


def test_a_pickle_in_policy_pth_is_refused_and_never_runs(run, tmp_path):
    ckpt = run / LAST
    marker = tmp_path / "PWNED"
    _zip_edit(ckpt / "sb3.zip", "policy.pth", lambda _: _torch_pickle(marker))
    _rehash(ckpt, "sb3.zip")
    with pytest.raises(ValueError) as err:
        _resume(run)
    assert "sb3.zip: cannot be loaded (UnpicklingError" in _one_line(err)
    assert not marker.exists()


@pytest.mark.parametrize("text", ["{", "[]", "[" * 100_000 + "]" * 100_000, '{"game": [1]}'])
def test_a_malformed_run_json_is_a_one_line_error(run, text):
    (run / "run.json").write_text(text)
    with pytest.raises(ValueError) as err:
        _resume(run)
    assert "run.json" in _one_line(err)


def test_a_fifo_as_run_json_is_refused(run):
    (run / "run.json").unlink()
    os.mkfifo(run / "run.json")
    with pytest.raises(ValueError) as err:
        _resume(run)
    assert "run.json: is a FIFO" in _one_line(err)


def test_a_damaged_last_checkpoint_is_refused_not_skipped_for_an_older_one(run):
    (run / LAST / "config.json").unlink()
    (run / LAST / "config.json").mkdir()
    with pytest.raises(ValueError) as err:
        _resume(run)
    assert "config.json: is a directory" in _one_line(err)


@pytest.mark.parametrize(
    ("value", "message"),
    [(["/etc"], "not a checkpoint of this run"), ([LAST], "not older than")],
)
def test_a_pool_checkpoint_outside_the_run_or_not_older_is_refused(run, value, message):
    ckpt = run / LAST
    _edit_json(ckpt / "resume.json", ("checkpoints_in_pool",), value)
    _rehash(ckpt, "resume.json")
    with pytest.raises(ValueError, match=message):
        _resume(run)


def test_a_moved_run_directory_resumes_with_its_own_checkpoints(run, tmp_path):
    moved = tmp_path / "elsewhere" / "moved"
    moved.parent.mkdir()
    shutil.move(run, moved)
    _, model, env = _resume(moved)
    assert model.num_timesteps == 64
    assert env.games.checkpoints == [str(moved / "checkpoints" / "step-000000000032")]
    league = json.loads((moved / "league.json").read_text())
    assert league["promoted"] == ["checkpoints/step-000000000032"]


@pytest.mark.parametrize(
    ("override", "message"),
    [({"opponents": "bogus:1"}, "bogus"), ({"init": "/nonexistent"}, "--init")],
)
def test_a_refused_train_ppo_creates_nothing_and_the_corrected_command_runs(
    tmp_path, override, message
):
    from training.ppo import config_from_args, train
    from training.runs import prepare_run

    out = tmp_path / "new"
    args = {**RUN_ARGS, "out": str(out)}
    with pytest.raises(ValueError, match=message):
        train(config_from_args(**{**args, **override}))
    assert not out.exists()
    cfg = config_from_args(**args)
    cfg.check()
    assert prepare_run(cfg) == out and (out / "run.json").is_file()


@pytest.mark.parametrize("game", GAME_NAMES)
def test_saved_games_of_every_game_load_back_and_edited_states_never_reach_a_kernel(game):
    from caylus_env.core.registry import game_spec
    from training.learner import PoolGames

    def pool() -> PoolGames:
        return PoolGames(game, 8, game_spec(game).min_players, opponents="random:1")

    games = pool()
    b = games.reset(seed=2)
    rng = np.random.default_rng(0)
    for _ in range(30):
        b = games.step(np.array([rng.choice(np.flatnonzero(m)) for m in b.mask.view(np.bool_)]))
    saved = games.save_arrays()
    again = pool()
    again.load_arrays(saved)  # a valid save loads back as it was
    assert np.array_equal(again.states, games.states)
    layout = game_spec(game).engine().layout
    for edit in (
        lambda s: s.__setitem__((0, layout.STACK_SIZE), 32767),
        lambda s: s.__setitem__(1, -7),
        lambda s: s.__setitem__((slice(None), slice(None)), 3),
    ):
        states = saved["states"].copy()
        edit(states)
        with pytest.raises(
            ValueError, match=r"saved games: games\.(states|obs|legal|num_legal|mask)\["
        ):
            pool().load_arrays({**saved, "states": states})
