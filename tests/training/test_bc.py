"""``caylus train bc --game G``: behaviour cloning from a dataset of any game (``training.bc``),
its checkpoint as ``policy:PATH`` and as a PPO start, and the refusals.

The datasets are the ones of ``tests/legacy`` (written before the games were made peers, one
per game: 3 games of ``random`` and a scripted bot), so reading them is tested too; a game
younger than the shared format (Caylus 1303) has one generated for the session
(``tests.conftest.game_dataset``).
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
from safetensors.numpy import load_file
from typer.testing import CliRunner

from agents.policy import DEFAULT_ARCH, WEIGHTS_FILE, PolicyNet, read_config, versions
from agents.registry import make_agent
from caylus_cli.app import app
from caylus_env.core.registry import GAME_NAMES, game_spec
from caylus_env.datasets import iter_batches
from tests.conftest import game_dataset
from tests.training.conftest import players_of
from training.bc import BCConfig, train_bc

LEGACY = Path(__file__).parent.parent / "legacy"
runner = CliRunner()


def dataset_of(game: str) -> Path:
    """The game's legacy dataset, or one generated for the session (``tests.conftest``)."""
    return game_dataset(game)


def _agents(game: str) -> list[str]:
    return json.loads((dataset_of(game) / "manifest.json").read_text())["run"]["agents"]


def _bc(game: str, out: Path, **kwargs):
    args = {"epochs": 1, "batch_size": 128, "seed": 0, "progress": False, "game": game}
    return train_bc(BCConfig(dataset=str(dataset_of(game)), out=str(out), **{**args, **kwargs}))


@pytest.fixture(scope="module", params=GAME_NAMES)
def cloned(request, tmp_path_factory) -> tuple[str, Path]:
    """Four epochs of behaviour cloning on a whole legacy dataset of one game."""
    game = request.param
    return game, _bc(game, tmp_path_factory.mktemp(f"bc-{game}") / "ckpt", epochs=4)


def test_the_checkpoint_is_the_games_with_the_tensors_of_a_ppo_one(cloned):
    import torch

    from training.networks import masked_policy

    game, ckpt = cloned
    cfg = read_config(ckpt, game)  # refuses another game or version
    assert {k: cfg[k] for k in versions(game)} == versions(game)
    assert cfg["arch"] == DEFAULT_ARCH.to_json() and cfg["algorithm"] == "behaviour cloning"
    assert cfg["step"] == 4 * cfg["history"][0]["decisions"] and "ret" in cfg["value_head"]
    tensors = load_file(str(ckpt / WEIGHTS_FILE))
    assert {k: v.shape for k, v in tensors.items()} == DEFAULT_ARCH.tensor_shapes(game)
    # what --init does: every tensor of the PPO network, no other
    policy = masked_policy(DEFAULT_ARCH, game, 1e-3)
    policy.load_state_dict({k: torch.from_numpy(v) for k, v in tensors.items()}, strict=False)
    missing = set(policy.state_dict()) - set(tensors)
    assert all(k.startswith(("pi_features_extractor.", "vf_features_extractor.")) for k in missing)
    obs = np.random.default_rng(0).random((3, policy.observation_space.shape[0]), np.float32)
    with torch.no_grad():
        dist = policy.get_distribution(torch.from_numpy(obs))
    np.testing.assert_allclose(
        dist.distribution.logits.numpy(),
        torch.log_softmax(torch.from_numpy(PolicyNet(ckpt).logits(obs)), 1).numpy(),
        atol=1e-4,
    )


def test_the_loss_falls_and_the_imitation_beats_chance(cloned):
    game, ckpt = cloned
    history = read_config(ckpt)["history"]
    assert [h["epoch"] for h in history] == [1, 2, 3, 4]
    assert history[-1]["loss"] < history[0]["loss"]
    net = PolicyNet(ckpt)
    hits = chance = rows = 0.0
    for b in iter_batches(dataset_of(game), 4096, game=game):
        logits = net.logits(b["obs"], b["mask"])
        hits += float((logits.argmax(1) == b["action"]).sum())
        chance += float((1.0 / b["mask"].sum(1)).sum())
        rows += len(b["action"])
    assert rows == history[0]["decisions"]
    assert hits / rows > 1.5 * chance / rows


def test_the_cloned_policy_plays_whole_games_of_its_game(cloned):
    game, ckpt = cloned
    spec = game_spec(game)
    agent = make_agent(f"policy:{ckpt}", game)
    g = spec.new_game(spec.config(players_of(game)), seed=5)
    while not g.is_over():
        agent.reset(len(g.history))
        g.apply(agent.act(g))
    assert g.is_terminal() or g.is_truncated()


def test_ppo_init_starts_from_the_cloned_weights(cloned, tmp_path):
    from tests.training.conftest import tiny_config
    from training.ppo import train

    game, ckpt = cloned
    # a learning rate of 0 keeps the weights: the first checkpoint holds the cloned ones
    last = train(tiny_config(game, tmp_path / "warm", steps=512, init=str(ckpt), learning_rate=0.0))
    ours, theirs = load_file(str(ckpt / WEIGHTS_FILE)), load_file(str(last / WEIGHTS_FILE))
    assert ours.keys() == theirs.keys()
    assert all(np.array_equal(ours[k], theirs[k]) for k in ours)
    assert json.loads((last / "config.json").read_text())["parent"] == str(ckpt)


@pytest.mark.parametrize("game", GAME_NAMES)
def test_the_agent_filter_keeps_only_that_agents_decisions(game, tmp_path):
    agent = next(a for a in _agents(game) if a != "random")
    ckpt = _bc(game, tmp_path / "one", agent=agent)
    kept = sum(
        len(b["action"]) for b in iter_batches(dataset_of(game), 4096, agents=agent, game=game)
    )
    total = sum(len(b["action"]) for b in iter_batches(dataset_of(game), 4096, game=game))
    cfg = read_config(ckpt)
    assert 0 < cfg["history"][0]["decisions"] == kept < total
    assert cfg["agent_filter"] == agent


@pytest.mark.parametrize("game", GAME_NAMES)
def test_the_same_seed_gives_the_same_weights_and_another_seed_others(game, tmp_path):
    first = load_file(str(_bc(game, tmp_path / "a", seed=7) / WEIGHTS_FILE))
    again = load_file(str(_bc(game, tmp_path / "b", seed=7) / WEIGHTS_FILE))
    other = load_file(str(_bc(game, tmp_path / "c", seed=8) / WEIGHTS_FILE))
    for name, value in first.items():
        np.testing.assert_array_equal(value, again[name], err_msg=name)
    assert any(not np.array_equal(value, other[name]) for name, value in first.items())


@pytest.mark.parametrize("game", GAME_NAMES)
def test_an_mlp_network_can_be_cloned_too(game, tmp_path):
    from agents.policy import MlpArch

    ckpt = _bc(game, tmp_path / "mlp", arch={"name": "mlp-v1", "layers": [16]})
    assert PolicyNet(ckpt, game).arch == MlpArch((16,))


# -- the command and its refusals -----------------------------------------------------------------
def _bc_cli(*args: str):
    return runner.invoke(app, ["train", "bc", "--no-progress", "--threads", "1", *args])


@pytest.mark.parametrize("game", GAME_NAMES)
def test_cli_bc_writes_a_checkpoint_and_says_how_to_use_it(game, tmp_path):
    out = tmp_path / "ckpt"
    r = _bc_cli("--game", game, "--dataset", str(dataset_of(game)), "--out", str(out))
    assert r.exit_code == 0, r.output
    text = " ".join(r.output.split())
    assert f"policy:{out}" in text and f"caylus train ppo --game {game} --init {out}" in text
    assert [h["epoch"] for h in read_config(out, game)["history"]] == [1, 2, 3]  # the default


@pytest.mark.parametrize("game", GAME_NAMES)
def test_another_games_dataset_is_refused_naming_both(game, tmp_path):
    out = tmp_path / "never"
    for other in (g for g in GAME_NAMES if g != game):
        r = _bc_cli("--game", game, "--dataset", str(dataset_of(other)), "--out", str(out))
        text = " ".join(r.output.split())
        assert r.exit_code == 2, r.output
        assert f"game '{other}'" in text and f"game '{game}'" in text
        assert f"--game {other}" in text
    assert not out.exists()


def test_train_bc_refuses_a_directory_that_is_not_a_dataset(tmp_path):
    r = _bc_cli("--dataset", str(tmp_path), "--out", str(tmp_path / "bc"))
    assert r.exit_code == 2, r.output
    assert "manifest" in r.output
    assert not (tmp_path / "bc").exists()


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"epochs": 0}, "--epochs must be an int >= 1, got 0"),
        ({"batch_size": -1}, "--batch-size must be an int >= 1, got -1"),
        ({"learning_rate": 2.0}, "--learning-rate must be in (0, 1), got 2.0"),
        ({"seed": -1}, "--seed must be an int >= 0, got -1"),
        ({"arch": {"name": "resnet"}}, "--arch: config.json arch name 'resnet'"),
        ({"agent": "mcts:25"}, "no decisions match the filters"),
        ({"players": 5}, "no decisions match the filters"),
    ],
)
@pytest.mark.parametrize("game", GAME_NAMES)
def test_bad_arguments_are_refused_before_any_training(game, tmp_path, kwargs, message):
    out = tmp_path / "never"
    with pytest.raises(ValueError) as err:
        _bc(game, out, **kwargs)
    assert message in str(err.value)
    assert not out.exists()


def test_an_unknown_game_is_refused_naming_the_registered_ones(tmp_path):
    with pytest.raises(ValueError, match=f"allowed: {', '.join(GAME_NAMES)}"):
        _bc("chess", tmp_path / "never")


def test_an_existing_output_directory_is_refused(tmp_path):
    with pytest.raises(ValueError, match="exists; choose a new directory"):
        _bc(GAME_NAMES[0], tmp_path)
