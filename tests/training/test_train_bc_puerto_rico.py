"""``caylus train bc --game puerto_rico``: behaviour cloning from a Puerto Rico dataset
(``training.bc``), its checkpoint as ``policy:PATH`` and as a PPO start, and the refusals."""

from __future__ import annotations

import json
import subprocess
import sys

import numpy as np
import pytest
from safetensors.numpy import load_file
from typer.testing import CliRunner

from agents.policy import WEIGHTS_FILE
from agents.puerto_rico.policy import Arch, PolicyNet, read_config, versions
from agents.puerto_rico.registry import make_agent
from caylus_cli.app import app
from caylus_env.datasets import iter_batches
from caylus_env.puerto_rico.engine import Game, GameConfig
from caylus_env.puerto_rico.engine.game import GAME_NAME
from training.bc import BCConfig, train_bc

runner = CliRunner()
PLAYERS = 3


def _generate(out, *args: str) -> None:
    fixed = ["--out", str(out), "--seed", "1", "--workers", "1", "--no-progress"]
    subprocess.run(
        [sys.executable, "-m", "caylus_cli", "dataset", "generate", *args, *fixed],
        check=True,
        capture_output=True,
        timeout=600,
    )


@pytest.fixture(scope="module")
def pr_dataset(tmp_path_factory):
    """About 40 three-player games of shipper and builder (10k decisions, a few seconds)."""
    out = tmp_path_factory.mktemp("pr") / "data"
    _generate(
        out, "--game", GAME_NAME, "--agents", "shipper,builder", "--players", str(PLAYERS),
        "--games", "40",
    )  # fmt: skip
    return out


@pytest.fixture(scope="module")
def caylus_dataset(tmp_path_factory):
    out = tmp_path_factory.mktemp("caylus") / "data"
    _generate(out, "--agents", "random", "--players", "2", "--games", "2")
    return out


def _bc(dataset, out, **kwargs):
    args = {"epochs": 1, "batch_size": 512, "seed": 0, "progress": False, "game": GAME_NAME}
    return train_bc(BCConfig(dataset=str(dataset), out=str(out), **{**args, **kwargs}))


@pytest.fixture(scope="module")
def cloned(tmp_path_factory, pr_dataset):
    """Two epochs of behaviour cloning on the whole dataset."""
    return _bc(pr_dataset, tmp_path_factory.mktemp("bc") / "ckpt", epochs=2, batch_size=256)


def _bc_cli(*args: str):
    return runner.invoke(app, ["train", "bc", "--no-progress", "--threads", "1", *args])


# -- the checkpoint -------------------------------------------------------------------------------
def test_the_checkpoint_is_a_puerto_rico_checkpoint_with_the_tensors_of_a_ppo_one(cloned):
    import torch
    from sb3_contrib import MaskablePPO

    from training.puerto_rico import PuertoRicoPoolGames, make_vecenv, policy_kwargs

    cfg = read_config(cloned)  # refuses another game or version
    assert {k: cfg[k] for k in versions()} == versions()
    assert cfg["arch"] == Arch().to_json() and cfg["algorithm"] == "behaviour cloning"
    assert cfg["num_players"] == [PLAYERS] and cfg["step"] == 2 * cfg["history"][0]["decisions"]
    assert "ret" in cfg["value_head"]
    tensors = load_file(str(cloned / WEIGHTS_FILE))
    assert {k: v.shape for k, v in tensors.items()} == Arch().tensor_shapes()
    # what --init does: every tensor of the PPO network of training.puerto_rico, no other
    env = make_vecenv(PuertoRicoPoolGames(2, PLAYERS, "random"), seed=0)
    model = MaskablePPO("MlpPolicy", env, device="cpu", policy_kwargs=policy_kwargs(Arch()))
    model.policy.load_state_dict({k: torch.from_numpy(v) for k, v in tensors.items()}, strict=True)
    obs = np.random.default_rng(0).random((3, env.observation_space.shape[0]), np.float32)
    with torch.no_grad():
        dist = model.policy.get_distribution(torch.from_numpy(obs))
    np.testing.assert_allclose(
        dist.distribution.logits.numpy(),
        torch.log_softmax(torch.from_numpy(PolicyNet(cloned).logits(obs)), 1).numpy(),
        atol=1e-4,
    )


def test_ppo_init_starts_from_the_cloned_weights(cloned, tmp_path):
    from training.puerto_rico import config_from_args, train

    out = tmp_path / "warm"
    # a learning rate of 0 keeps the weights: the first checkpoint holds the cloned ones
    last = train(
        config_from_args(
            out=str(out), players=PLAYERS, steps=512, envs=8, n_steps=64, batch_size=256,
            n_epochs=1, checkpoint_every=512, threads=1, progress=False, seed=1,
            opponents="self:1,shipper:1", init=str(cloned), learning_rate=0.0,
        )
    )  # fmt: skip
    ours = load_file(str(cloned / WEIGHTS_FILE))
    theirs = load_file(str(last / WEIGHTS_FILE))
    assert ours.keys() == theirs.keys()
    assert all(np.array_equal(ours[k], theirs[k]) for k in ours)
    assert json.loads((last / "config.json").read_text())["parent"] == str(cloned)


def test_the_cloned_policy_plays_legal_moves_through_a_whole_game(cloned):
    agents = [make_agent(f"policy:{cloned}"), make_agent("shipper"), make_agent("random")]
    game = Game(GameConfig(num_players=PLAYERS), seed=5)
    moves = 0
    while game.current_player() >= 0:
        agent = agents[game.current_player()]
        agent.reset(moves)
        action = agent.act(game)
        assert action in game.legal_actions()
        game.apply(action)
        moves += 1
    assert game.is_terminal() and moves > 100


def test_the_cloned_policy_plays_in_a_puerto_rico_tournament(cloned, tmp_path):
    spec = f"policy:{cloned}"
    games = ["--games", "6", "--out", str(tmp_path / "t"), "--workers", "1", "--no-progress"]
    r = runner.invoke(
        app,
        ["tournament", "--game", GAME_NAME, "--agents", f"{spec},random", "--players", "3", *games],
    )
    assert r.exit_code == 0, r.output
    summary = json.loads((tmp_path / "t" / "summary.json").read_text())
    assert summary["agents"][spec]["games"] > 0 and summary["agents"][spec]["forfeits"] == 0


# -- learning -------------------------------------------------------------------------------------
def test_the_loss_falls_and_the_imitation_accuracy_rises_above_chance(cloned, pr_dataset):
    history = read_config(cloned)["history"]
    assert [h["epoch"] for h in history] == [1, 2]
    assert history[1]["loss"] < history[0]["loss"]
    assert history[1]["accuracy"] > history[0]["accuracy"]
    # the greedy move of the checkpoint (numpy inference, as policy:PATH plays) on the data
    net = PolicyNet(cloned)
    hits = chance = rows = 0.0
    for b in iter_batches(pr_dataset, 4096, game=GAME_NAME):
        logits = net.logits(b["obs"], b["mask"])
        hits += float((logits.argmax(1) == b["action"]).sum())
        chance += float((1.0 / b["mask"].sum(1)).sum())
        rows += len(b["action"])
    assert rows == history[0]["decisions"]
    assert hits / rows > 0.6 and hits / rows > 2 * chance / rows


def test_the_agent_filter_keeps_only_that_agents_decisions(pr_dataset, tmp_path):
    ckpt = _bc(pr_dataset, tmp_path / "shipper", agent="shipper")
    shipper = sum(
        len(b["action"]) for b in iter_batches(pr_dataset, 4096, agents="shipper", game=GAME_NAME)
    )
    total = sum(len(b["action"]) for b in iter_batches(pr_dataset, 4096, game=GAME_NAME))
    cfg = read_config(ckpt)
    assert 0 < cfg["history"][0]["decisions"] == shipper < total
    assert cfg["agent_filter"] == "shipper"


# -- determinism ----------------------------------------------------------------------------------
def test_the_same_seed_gives_the_same_weights_and_another_seed_others(pr_dataset, tmp_path):
    first = load_file(str(_bc(pr_dataset, tmp_path / "a", seed=7) / WEIGHTS_FILE))
    again = load_file(str(_bc(pr_dataset, tmp_path / "b", seed=7) / WEIGHTS_FILE))
    other = load_file(str(_bc(pr_dataset, tmp_path / "c", seed=8) / WEIGHTS_FILE))
    for name, value in first.items():
        np.testing.assert_array_equal(value, again[name], err_msg=name)
    assert any(not np.array_equal(value, other[name]) for name, value in first.items())


# -- the command and its refusals -----------------------------------------------------------------
def test_cli_bc_game_puerto_rico_writes_a_checkpoint_and_says_how_to_use_it(pr_dataset, tmp_path):
    out = tmp_path / "ckpt"
    r = _bc_cli("--game", GAME_NAME, "--dataset", str(pr_dataset), "--out", str(out))
    assert r.exit_code == 0, r.output
    text = " ".join(r.output.split())
    assert f"policy:{out}" in text
    assert f"caylus train ppo --game {GAME_NAME} --init {out}" in text
    cfg = read_config(out)
    assert [h["epoch"] for h in cfg["history"]] == [1, 2, 3]  # --epochs' default


def test_a_caylus_dataset_is_refused_by_game_puerto_rico_naming_both(caylus_dataset, tmp_path):
    out = tmp_path / "never"
    r = _bc_cli("--game", GAME_NAME, "--dataset", str(caylus_dataset), "--out", str(out))
    text = " ".join(r.output.split())
    assert r.exit_code == 2, r.output
    assert "game 'caylus'" in text and f"game '{GAME_NAME}'" in text and "--game caylus" in text
    assert not out.exists()


def test_a_puerto_rico_dataset_is_refused_by_caylus_bc_naming_both(pr_dataset, tmp_path):
    out = tmp_path / "never"
    r = _bc_cli("--dataset", str(pr_dataset), "--out", str(out))
    text = " ".join(r.output.split())
    assert r.exit_code == 2, r.output
    assert f"game '{GAME_NAME}'" in text and "game 'caylus'" in text
    assert f"--game {GAME_NAME}" in text
    assert not out.exists()


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"epochs": 0}, "--epochs must be an int >= 1, got 0"),
        ({"batch_size": -1}, "--batch-size must be an int >= 1, got -1"),
        ({"learning_rate": 2.0}, "--learning-rate must be in (0, 1), got 2.0"),
        ({"seed": -1}, "--seed must be an int >= 0, got -1"),
        ({"game": "chess"}, "--game 'chess' is not allowed; allowed: caylus, puerto_rico"),
        ({"agent": "mcts:25"}, "no decisions match the filters"),
        ({"players": 4}, "no decisions match the filters"),
    ],
)
def test_bad_arguments_are_refused_before_any_training(pr_dataset, tmp_path, kwargs, message):
    out = tmp_path / "never"
    with pytest.raises(ValueError) as err:
        _bc(pr_dataset, out, **kwargs)
    assert message in str(err.value)
    assert not out.exists()


def test_an_existing_output_directory_is_refused(pr_dataset, tmp_path):
    with pytest.raises(ValueError, match="exists; choose a new directory"):
        _bc(pr_dataset, tmp_path)
