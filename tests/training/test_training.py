"""Self-play training: the opponent pool, the trainer, checkpoints and ``policy:PATH``.

Everything runs with tiny settings (a few thousand steps, a handful of games); the
strength of the shipped checkpoint is checked in ``test_shipped.py``.
"""

from __future__ import annotations

import json
import os
import re
import signal
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pytest

from agents.policy import CheckpointError, PolicyAgent, PolicyNet
from agents.registry import make_agent
from caylus_env.caylus.engine import Game, GameConfig
from caylus_env.caylus.engine.state_dict import state_to_dict
from caylus_env.caylus.observation import OBS_SIZE, encode
from training.learner import PoolGames, parse_pool
from training.ppo import config_from_args, train

TINY = {
    "envs": 16,
    "n_steps": 32,
    "batch_size": 256,
    "n_epochs": 2,
    "checkpoint_every": 512,
    "eval_games": 8,
    "gate_games": 8,
    "threads": 1,
    "progress": False,
}


def _first_legal(b) -> np.ndarray:
    return b.legal[:, 0].copy()


# -- the opponent pool -----------------------------------------------------------------------
@pytest.mark.parametrize(
    ("spec", "message"),
    [
        ("", "non-empty"),
        ("economy:-1", "weight must be a number >= 0"),
        ("economy:1,economy:2", "listed twice"),
        ("economy:0,random:0", "sum to 0"),
        ("mcts:30", "give the weight explicitly, e.g. mcts:30:1"),
    ],
)
def test_a_bad_opponent_pool_is_refused_naming_the_entry(spec, message):
    with pytest.raises(ValueError, match=message):
        parse_pool(spec)


def test_pool_entries_keep_spec_colons_and_default_weights():
    assert parse_pool("self:0.5,mcts:30:castle,economy") == [
        ("self", 0.5),
        ("mcts:30:castle", 1.0),
        ("economy", 1.0),
    ]


@pytest.mark.parametrize("players", [2, 3, 4, 5])
def test_pool_games_show_the_learner_its_own_observation_and_legal_mask(players):
    games = PoolGames(6, players, opponents="random:1,castle:1,town:1,economy:1")
    b = games.reset(seed=players)
    obs = np.zeros(OBS_SIZE, np.float32)
    ends = 0
    for _ in range(150):
        for k in range(games.num_envs):
            game = Game.from_state_dict(state_to_dict(games.states[k].copy()))
            assert game.current_player() == b.seat[k]  # the learner is to act
            encode(games.states[k], int(b.seat[k]), obs)
            np.testing.assert_array_equal(b.obs[k], obs)
            assert set(np.flatnonzero(b.mask[k])) == set(game.legal_actions())
        b = games.step(_first_legal(b))
        ends += int(b.terminated.sum())
        assert set(np.unique(b.rewards[b.terminated])) <= {-1.0, -0.5, 0.0, 0.5, 1.0} or (
            players > 2
        )
    assert games.opponent_decisions > 0


def test_game_k_depends_on_the_seed_and_k_only_not_on_the_batch_size():
    small = PoolGames(3, 2, opponents="random:1,economy:1")
    large = PoolGames(7, 2, opponents="random:1,economy:1")
    a, b = small.reset(seed=11), large.reset(seed=11)
    for _ in range(120):
        np.testing.assert_array_equal(a.obs, b.obs[:3])
        np.testing.assert_array_equal(small.states, large.states[:3])
        a, b = small.step(_first_legal(a)), large.step(_first_legal(b))
        np.testing.assert_array_equal(a.rewards, b.rewards[:3])


class _Counting:
    """An external opponent that plays the last legal action and counts its batches."""

    def __init__(self) -> None:
        self.batches: list[int] = []

    def act_batch(self, obs, mask, uniforms, states):
        assert obs.shape == (len(mask), OBS_SIZE) and ((uniforms >= 0) & (uniforms < 1)).all()
        self.batches.append(len(mask))
        return np.array([np.flatnonzero(m)[-1] for m in mask], np.int64)


def test_external_opponents_are_asked_once_per_batch_of_waiting_games():
    games = PoolGames(32, 2, opponents="self:1")
    me = _Counting()
    games.set_self_policy(me)
    b = games.reset(seed=3)
    for _ in range(50):
        b = games.step(_first_legal(b))
    assert max(me.batches) > 1  # several games waited on it at once
    assert not games.waiting.any()


def test_an_mcts_opponent_plays_legal_moves_from_the_pool():
    games = PoolGames(2, 2, opponents="mcts:2:1")
    b = games.reset(seed=4)
    for _ in range(30):
        b = games.step(_first_legal(b))  # the pool checks every opponent move is legal
    assert games.opponent_decisions >= 30
    assert games.slots[0].name == "mcts:2"


def test_paired_games_share_their_setup_with_the_seats_swapped():
    games = PoolGames(6, 2, opponents="random:1", paired=True)
    b = games.reset(seed=8)
    assert (games.setup_seeds[0::2] == games.setup_seeds[1::2]).all()
    assert (b.seat[0::2] != b.seat[1::2]).all()
    with pytest.raises(ValueError, match="even num_envs"):
        PoolGames(3, 2, paired=True)


def test_a_pool_with_self_needs_the_policy_before_reset():
    games = PoolGames(2, 2, opponents="self:1")
    with pytest.raises(RuntimeError, match="set_self_policy"):
        games.reset(seed=0)


def test_pool_checkpoint_weight_goes_to_self_until_a_checkpoint_is_promoted():
    games = PoolGames(2, 2, opponents="economy:1,pool:1")
    assert [(s.name, s.weight) for s in games.slots] == [("economy", 1.0), ("pool->self", 1.0)]


# -- training, checkpoints, resume ---------------------------------------------------------------
@pytest.fixture(scope="module")
def tiny_run(tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("ppo") / "run"
    cfg = config_from_args(out=str(out), steps=2048, seed=5, opponents="self:1,random:1", **TINY)
    train(cfg)
    return out


def test_a_short_ppo_run_writes_checkpoints_logs_curve_and_league(tiny_run):
    ckpts = sorted(p.name for p in (tiny_run / "checkpoints").iterdir())
    assert ckpts == [f"step-{s:012d}" for s in (512, 1024, 1536, 2048)]
    cfg = json.loads((tiny_run / "checkpoints" / ckpts[-1] / "config.json").read_text())
    assert cfg["step"] == 2048 and cfg["num_players"] == [2] and cfg["seed"] == 5
    assert cfg["parent"].endswith(ckpts[-2])
    for name in ("progress.csv", "curve.csv", "learning_curve.png", "league.json", "league.md"):
        assert (tiny_run / name).is_file(), name
    league = json.loads((tiny_run / "league.json").read_text())
    assert len(league["decisions"]) == 4 and league["best"] in league["promoted"]
    assert league["decisions"][0]["decision"] == "promoted (first checkpoint)"
    for d in league["decisions"][1:]:
        m = d["match"]
        assert m["games"] == 8 and m["low"] <= m["score"] <= m["high"]
        assert d["decision"] == ("promoted" if m["score"] >= 0.55 else "kept out")
    assert "| step-000000001024 |" in (tiny_run / "league.md").read_text()


def _cli(*args: str) -> list[str]:
    return [sys.executable, "-m", "caylus_cli", "train", "ppo", "--no-progress", *args]


def _tiny_args(out: Path) -> list[str]:
    return [
        "--out",
        str(out),
        "--steps",
        "2048",
        "--seed",
        "9",
        "--envs",
        "16",
        "--n-steps",
        "32",
        "--batch-size",
        "256",
        "--n-epochs",
        "2",
        "--checkpoint-every",
        "512",
        "--eval-games",
        "4",
        "--gate-games",
        "4",
        "--opponents",
        "self:1,economy:1,pool:1",
    ]


@pytest.mark.parametrize("algo", ["maskable", "cleanrl"])
def test_resume_after_kill_9_gives_the_weights_of_an_uninterrupted_run(tmp_path, algo):
    whole, killed = tmp_path / "whole", tmp_path / "killed"
    args = [*_tiny_args(whole), "--algo", algo]
    subprocess.run(_cli(*args), check=True, capture_output=True, timeout=600)
    args = [*_tiny_args(killed), "--algo", algo]
    proc = subprocess.Popen(_cli(*args), stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    deadline = time.monotonic() + 300
    second = killed / "checkpoints" / "step-000000001024"
    while not second.exists() and proc.poll() is None and time.monotonic() < deadline:
        time.sleep(0.05)
    assert proc.poll() is None, "the run ended before it could be killed"
    os.kill(proc.pid, signal.SIGKILL)
    proc.wait()
    assert not (killed / "checkpoints" / "step-000000002048").exists()
    resumed = subprocess.run(_cli(*args, "--resume"), capture_output=True, text=True, timeout=600)
    assert resumed.returncode == 0, resumed.stderr
    for step in (1024, 1536, 2048):
        name = f"step-{step:012d}/model.safetensors"
        a = (whole / "checkpoints" / name).read_bytes()
        b = (killed / "checkpoints" / name).read_bytes()
        assert a == b, f"weights differ at {name}"
    assert not any(p.name.startswith(".tmp-") for p in (killed / "checkpoints").iterdir())


def test_a_run_directory_is_not_reused_without_resume_nor_resumed_with_other_arguments(tiny_run):
    with pytest.raises(ValueError, match="add --resume"):
        train(config_from_args(out=str(tiny_run), steps=2048, seed=5, **TINY))
    with pytest.raises(ValueError, match="seed: 5 then, 6 now"):
        train(
            config_from_args(
                out=str(tiny_run),
                steps=4096,
                seed=6,
                resume=True,
                opponents="self:1,random:1",
                **TINY,
            )
        )


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--players", "7"], "--players 7 is not allowed; allowed: 2-5"),
        (["--batch-size", "300"], "must divide the rollout size"),
        (["--opponents", "economy:-2"], "weight must be a number >= 0"),
        (["--eval-opponents-typo"], "No such option"),
    ],
)
def test_train_ppo_refuses_bad_arguments_before_any_work(tmp_path, args, message):
    out = tmp_path / "never"
    r = subprocess.run(_cli("--out", str(out), *args), capture_output=True, text=True, timeout=120)
    assert r.returncode == 2
    assert message in r.stdout + r.stderr
    assert not (out / "checkpoints").exists()


# -- checkpoints as agents ---------------------------------------------------------------------
def test_numpy_inference_matches_the_trained_torch_policy(tiny_run):
    import torch
    from sb3_contrib import MaskablePPO

    ckpt = tiny_run / "checkpoints" / "step-000000002048"
    net = PolicyNet(ckpt)
    model = MaskablePPO.load(
        ckpt / "sb3.zip",
        custom_objects=_custom(ckpt),
        device="cpu",
    )
    games = PoolGames(8, 2, opponents="random:1")
    b = games.reset(seed=1)
    for _ in range(20):
        b = games.step(_first_legal(b))
    with torch.no_grad():
        obs = torch.as_tensor(b.obs.copy())
        features = model.policy.extract_features(obs, model.policy.pi_features_extractor)
        logits = model.policy.action_net(model.policy.mlp_extractor.forward_actor(features))
        value = model.policy.predict_values(obs)
    np.testing.assert_allclose(net.logits(b.obs), logits.numpy(), rtol=1e-4, atol=1e-4)
    np.testing.assert_allclose(net.value(b.obs), value.numpy()[:, 0], rtol=1e-4, atol=1e-4)


def _custom(ckpt: Path) -> dict:
    from training.checkpoints import _sb3_replacements
    from training.ppo import _model_kwargs
    from training.vecenv import PoolVecEnv

    run = json.loads((ckpt.parent.parent / "run.json").read_text())
    cfg = config_from_args(**{**run, "out": str(ckpt.parent.parent)})
    env = PoolVecEnv(PoolGames(run["envs"], 2, opponents="random:1"))
    last = {"obs": np.zeros((run["envs"], OBS_SIZE), np.float32), "episode_starts": None}
    return _sb3_replacements(env, _model_kwargs(cfg), last)


def test_a_checkpoints_logits_do_not_depend_on_the_rest_of_the_batch(tiny_run):
    net = PolicyNet(tiny_run / "checkpoints" / "step-000000002048")
    games = PoolGames(16, 3, opponents="random:1")
    b = games.reset(seed=2)
    for _ in range(25):
        b = games.step(_first_legal(b))
    whole = net.logits(b.obs)
    for k in (0, 7, 15):
        assert (net.logits(b.obs[k : k + 1]) == whole[k : k + 1]).all()  # bit for bit
    assert (net.logits(b.obs[3:11]) == whole[3:11]).all()


def test_policy_spec_plays_legal_moves_in_a_tournament(tiny_run, tmp_path):
    from agents.tournament import read_records

    ckpt = tiny_run / "checkpoints" / "step-000000002048"
    for mode in ("", ":sample", ":temp=0.5"):
        agent = make_agent(f"policy:{ckpt}{mode}")
        assert isinstance(agent, PolicyAgent)
        game = Game(GameConfig(2), seed=4)
        while not game.is_terminal():
            game.apply(agent.act(game))  # Game.apply refuses an illegal action
    out = tmp_path / "t"
    r = subprocess.run(
        [
            sys.executable,
            "-m",
            "caylus_cli",
            "tournament",
            "--agents",
            f"policy:{ckpt},random",
            "--players",
            "2",
            "--games",
            "4",
            "--out",
            str(out),
            "--seed",
            "1",
            "--workers",
            "1",
        ],
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert r.returncode == 0, r.stderr
    records = read_records(out / "games.jsonl")
    assert len(records) == 4
    assert all(all(f is None for f in rec.match.forfeits) for rec in records)


def test_a_tampered_checkpoint_is_refused_naming_the_file(tiny_run, tmp_path):
    import shutil

    src = tiny_run / "checkpoints" / "step-000000002048"
    bad = tmp_path / "tampered"
    shutil.copytree(src, bad)
    data = bytearray((bad / "model.safetensors").read_bytes())
    data[-5] ^= 0xFF
    (bad / "model.safetensors").write_bytes(bytes(data))
    with pytest.raises(CheckpointError, match=r"does not match config\.json"):
        make_agent(f"policy:{bad}")


def test_a_checkpoint_loaded_once_is_checked_again_after_it_changes(tiny_run, tmp_path):
    import shutil

    ckpt = tmp_path / "ck"
    shutil.copytree(tiny_run / "checkpoints" / "step-000000002048", ckpt)
    first, second = make_agent(f"policy:{ckpt}"), make_agent(f"policy:{ckpt}")
    assert first.net is second.net  # loaded and verified once per process
    data = bytearray((ckpt / "model.safetensors").read_bytes())
    data[-9] ^= 0x01
    time.sleep(0.01)
    (ckpt / "model.safetensors").write_bytes(bytes(data))
    with pytest.raises(CheckpointError, match="SHA-256"):
        make_agent(f"policy:{ckpt}")


def test_a_checkpoint_of_another_observation_version_is_refused_naming_both(tiny_run, tmp_path):
    import shutil

    from caylus_env.caylus.observation import OBSERVATION_VERSION

    bad = tmp_path / "old"
    shutil.copytree(tiny_run / "checkpoints" / "step-000000002048", bad)
    cfg = json.loads((bad / "config.json").read_text())
    cfg["observation_version"] = "0-deadbeef"
    (bad / "config.json").write_text(json.dumps(cfg))
    with pytest.raises(CheckpointError) as err:
        make_agent(f"policy:{bad}")
    assert "'0-deadbeef'" in str(err.value) and repr(OBSERVATION_VERSION) in str(err.value)


@pytest.mark.parametrize(
    ("spec", "message"),
    [
        ("policy:/nonexistent/dir", "is not a directory"),
        ("policy:", "needs an argument"),
    ],
)
def test_bad_policy_specs_are_refused(spec, message):
    with pytest.raises(ValueError, match=message):
        make_agent(spec)


def test_a_bad_policy_mode_is_refused(tiny_run):
    with pytest.raises(ValueError, match="allowed: greedy, sample, temp=T"):
        make_agent(f"policy:{tiny_run / 'checkpoints' / 'step-000000002048'}:temp=-1")


# -- behaviour cloning ---------------------------------------------------------------------------
def test_bc_from_a_dataset_then_ppo_init(tmp_path):
    from training.bc import BCConfig, train_bc

    data = tmp_path / "data"
    subprocess.run(
        [
            sys.executable,
            "-m",
            "caylus_cli",
            "dataset",
            "generate",
            "--agents",
            "economy,castle",
            "--players",
            "2",
            "--games",
            "6",
            "--out",
            str(data),
            "--seed",
            "1",
            "--workers",
            "1",
        ],
        check=True,
        capture_output=True,
        timeout=600,
    )
    ckpt = train_bc(BCConfig(dataset=str(data), out=str(tmp_path / "bc"), epochs=2, progress=False))
    cfg = json.loads((ckpt / "config.json").read_text())
    assert cfg["algorithm"] == "behaviour cloning" and cfg["step"] > 0
    agent = make_agent(f"policy:{ckpt}")
    game = Game(GameConfig(2), seed=3)
    assert agent.act(game) in game.legal_actions()
    run = tmp_path / "ppo"
    train(config_from_args(out=str(run), steps=512, seed=1, init=str(ckpt), **TINY))
    first = json.loads((run / "checkpoints" / "step-000000000512" / "config.json").read_text())
    assert first["parent"] == str(ckpt)


def test_export_copies_the_network_only_and_it_plays_the_same(tiny_run, tmp_path):
    from training.checkpoints import export_policy

    src = tiny_run / "checkpoints" / "step-000000002048"
    out = export_policy(src, tmp_path / "published")
    assert sorted(p.name for p in out.iterdir()) == ["config.json", "model.safetensors"]
    cfg = json.loads((out / "config.json").read_text())
    assert cfg["exported_from"] == src.name and cfg["step"] == 2048
    obs = np.random.default_rng(1).random((5, OBS_SIZE)).astype(np.float32)
    np.testing.assert_array_equal(PolicyNet(out).logits(obs), PolicyNet(src).logits(obs))
    with pytest.raises(ValueError, match="exists"):
        export_policy(src, out)


def test_train_bc_refuses_a_directory_that_is_not_a_dataset(tmp_path):
    r = subprocess.run(
        [
            sys.executable,
            "-m",
            "caylus_cli",
            "train",
            "bc",
            "--dataset",
            str(tmp_path),
            "--out",
            str(tmp_path / "bc"),
            "--no-progress",
        ],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert r.returncode == 2, r.stdout + r.stderr
    assert "manifest" in (r.stdout + r.stderr)
    assert not (tmp_path / "bc").exists()


def test_bench_training_prints_inference_and_throughput_against_the_naive_wrapper():
    r = subprocess.run(
        [sys.executable, "-m", "caylus_cli", "bench", "--training", "--quick", "--repeats", "1"],
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert r.returncode == 0, r.stderr
    for line in (
        "policy:PATH, one decision",
        "MaskablePPO on PoolVecEnv",
        "CleanRL-style",
        "raw_env",
    ):
        assert line in r.stdout
    assert re.search(r"\| ratio \| [\d.]+x \(MaskablePPO\), [\d.]+x \(CleanRL-style\) \|", r.stdout)
