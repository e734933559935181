"""Puerto Rico training: the learner's games against a pool, ``caylus train ppo --game
puerto_rico``, its checkpoints, resume, the learning curve, the league (``pool``), ``--init``
and ``policy:PATH`` for Puerto Rico.

Tiny settings throughout (2,048 steps, 8 games, one hidden layer of 32, matches of 3 games).
"""

from __future__ import annotations

import csv
import io
import json
import shutil
from pathlib import Path

import numpy as np
import pytest
from rich.console import Console
from typer.testing import CliRunner

from agents.policy import CheckpointError
from agents.puerto_rico.policy import PolicyAgent, PolicyNet
from agents.puerto_rico.registry import make_agent
from caylus_cli.app import app
from caylus_env.puerto_rico.engine import Game, GameConfig, IllegalActionError
from caylus_env.puerto_rico.engine import kernels as K
from caylus_env.puerto_rico.engine.actions import ACTION_SPACE_VERSION, NUM_ACTIONS
from caylus_env.puerto_rico.observation import OBS_SIZE, OBSERVATION_VERSION, encode
from training.puerto_rico import (
    PuertoRicoPoolGames,
    config_from_args,
    make_vecenv,
    play_checkpoint,
    train,
)

TINY = {
    "players": 3,
    "envs": 8,
    "n_steps": 64,
    "batch_size": 256,
    "n_epochs": 2,
    "checkpoint_every": 1024,
    "threads": 1,
    "progress": False,
    "opponents": "self:1,random:1,shipper:1,builder:1,pool:1",
    "eval_games": 3,
    "eval_opponents": "random,shipper",
    "gate_games": 3,
    "arch": {"name": "pr-mlp-v1", "layers": [32]},
}
FIRST, LAST = "step-000000001024", "step-000000002048"
runner = CliRunner()


def _first_legal(mask: np.ndarray) -> np.ndarray:
    return np.argmax(mask, axis=1).astype(np.int64)


def _matches(run: Path) -> list[tuple]:
    """The league's decisions of a run without its paths: (step, match, decision)."""
    league = json.loads((run / "league.json").read_text())
    out = []
    for d in league["decisions"]:
        match = d["match"] and {k: v for k, v in d["match"].items() if k != "opponent"}
        out.append((d["step"], match, d["decision"]))
    return out


# -- the learner's games -----------------------------------------------------------------------
@pytest.mark.parametrize("players", [2, 3, 4, 5])
def test_pool_games_show_the_learner_its_own_observation_and_legal_mask(players):
    games = PuertoRicoPoolGames(5, players, opponents="random:1,shipper:1,builder:1")
    b = games.reset(seed=players)
    seats = set()
    for _ in range(120):
        for k in range(games.num_envs):
            state = games.states[k]
            assert K.current_player(state) == b.seat[k]  # the learner is to act
            assert np.array_equal(b.obs[k], encode(state, int(b.seat[k])))
            legal = np.zeros(NUM_ACTIONS, np.int8)
            K.legal_mask(state, legal)
            assert np.array_equal(b.mask[k], legal.astype(bool))
            seats.add(int(b.seat[k]))
        b = games.step(_first_legal(b.mask))
        assert all(-1.0 <= b.rewards[k] <= 1.0 for k in np.flatnonzero(b.terminated))
        assert not b.rewards[~b.terminated].any()  # rewards only when a game ends
    assert len(seats) > 1  # the learner's seat is drawn per episode


def test_game_k_depends_on_the_seed_and_k_only_not_on_the_batch_size():
    small = PuertoRicoPoolGames(2, 3, opponents="random:1,shipper:1")
    large = PuertoRicoPoolGames(5, 3, opponents="random:1,shipper:1")
    a, b = small.reset(seed=11), large.reset(seed=11)
    for _ in range(60):
        assert np.array_equal(small.states, large.states[:2])
        a, b = small.step(_first_legal(a.mask)), large.step(_first_legal(b.mask))
    assert not np.array_equal(large.states[0], large.states[1])


def test_an_episode_ends_with_the_engines_rank_reward_of_the_learners_seat():
    games = PuertoRicoPoolGames(3, 3, opponents="shipper:1")
    b = games.reset(seed=4)
    shipper = make_agent("shipper")
    seen = 0
    while seen < 3:
        before = [games.games[k].clone() for k in range(3)]
        b = games.step(_first_legal(b.mask))
        for k in np.flatnonzero(b.terminated):
            # Play the finished game's last moves again: the learner's, then the shipper's.
            final = before[k]
            final.apply(int(np.argmax(final.legal_mask())))
            while final.current_player() >= 0:
                final.apply(shipper.act(final))
            assert b.rewards[k] == final.returns()[int(games.final_seat[k])]
            seen += 1


@pytest.mark.parametrize(
    ("spec", "message"),
    [
        ("castle:1,random:1", "'castle' is not a Puerto Rico opponent"),
        ("economy", "allowed: self, pool, builder"),
        ("random:-1", "weight must be a number >= 0"),
        ("mcts:20", "give the weight explicitly"),
    ],
)
def test_an_opponent_that_is_not_a_puerto_rico_agent_is_refused_naming_the_allowed(spec, message):
    with pytest.raises(ValueError, match=message):
        PuertoRicoPoolGames(2, 3, opponents=spec)


def test_an_mcts_opponent_plays_legal_moves_from_the_pool():
    games = PuertoRicoPoolGames(2, 2, opponents="mcts:3:1")
    b = games.reset(seed=1)
    for _ in range(5):
        b = games.step(_first_legal(b.mask))
    assert games.opponent_decisions > 0


def test_a_pool_with_self_needs_the_policy_before_reset():
    games = PuertoRicoPoolGames(2, 3, opponents="self:1")
    with pytest.raises(RuntimeError, match="set_self_policy"):
        games.reset(seed=0)


def test_an_illegal_learner_action_is_refused_naming_the_game_and_nothing_moves():
    games = PuertoRicoPoolGames(3, 3, opponents="random:1")
    b = games.reset(seed=2)
    actions = _first_legal(b.mask)
    actions[1] = int(np.flatnonzero(~b.mask[1])[0])
    before = games.states.copy()
    with pytest.raises(IllegalActionError, match="game 1: action"):
        games.step(actions)
    assert np.array_equal(games.states, before)


def test_the_vecenv_gives_masks_and_terminal_observations_to_sb3():
    env = make_vecenv(PuertoRicoPoolGames(4, 2, opponents="builder:1"), seed=3)
    obs = env.reset()
    assert obs.shape == (4, OBS_SIZE) and env.action_masks().shape == (4, NUM_ACTIONS)
    done_infos = []
    for _ in range(200):
        env.step_async(_first_legal(env.action_masks()))
        obs, _, dones, infos = env.step_wait()
        done_infos += [infos[k] for k in np.flatnonzero(dones)]
    assert done_infos
    for info in done_infos:
        assert info["terminal_observation"].shape == (OBS_SIZE,)
        assert info["opponent"] == "builder" and info["rank_reward"] in (-1.0, 0.0, 1.0)


# -- training, checkpoints, resume ---------------------------------------------------------------
@pytest.fixture(scope="module")
def tiny_run(tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("pr_ppo") / "run"
    train(config_from_args(out=str(out), steps=2048, seed=3, **TINY))
    return out


def test_a_short_ppo_run_writes_puerto_rico_checkpoints(tiny_run):
    ckpts = sorted(p.name for p in (tiny_run / "checkpoints").iterdir())
    assert ckpts == [FIRST, LAST]
    cfg = json.loads((tiny_run / "checkpoints" / LAST / "config.json").read_text())
    assert cfg["game"] == "puerto_rico"
    assert cfg["observation_version"] == OBSERVATION_VERSION
    assert cfg["action_space_version"] == ACTION_SPACE_VERSION
    assert cfg["step"] == 2048 and cfg["num_players"] == [3] and cfg["seed"] == 3
    assert cfg["parent"].endswith("step-000000001024")
    run = json.loads((tiny_run / "run.json").read_text())
    assert run["game"] == "puerto_rico"
    header = (tiny_run / "progress.csv").read_text().splitlines()[0]
    assert "rollout/score_shipper" in header and "time/samples_per_s" in header


def test_the_same_seed_trains_the_same_weights(tiny_run, tmp_path):
    again = tmp_path / "again"
    train(config_from_args(out=str(again), steps=2048, seed=3, **TINY))
    name = "model.safetensors"
    assert (again / "checkpoints" / LAST / name).read_bytes() == (
        tiny_run / "checkpoints" / LAST / name
    ).read_bytes()
    # The evaluations and the gates (with pool opponents in between) are the same too.
    assert (again / "curve.csv").read_text() == (tiny_run / "curve.csv").read_text()
    assert _matches(again) == _matches(tiny_run)


def test_resume_continues_to_the_weights_of_an_uninterrupted_run(tiny_run, tmp_path):
    out = tmp_path / "resumed"
    train(config_from_args(out=str(out), steps=1024, seed=3, **TINY))
    assert not (out / "checkpoints" / LAST).exists()
    train(config_from_args(out=str(out), steps=2048, seed=3, resume=True, **TINY))
    name = "model.safetensors"
    assert (out / "checkpoints" / LAST / name).read_bytes() == (
        tiny_run / "checkpoints" / LAST / name
    ).read_bytes()
    cfg = json.loads((out / "checkpoints" / LAST / "config.json").read_text())
    assert cfg["parent"].endswith("step-000000001024")
    # Each checkpoint was evaluated and gated once, as in the uninterrupted run.
    assert (out / "curve.csv").read_text() == (tiny_run / "curve.csv").read_text()
    assert _matches(out) == _matches(tiny_run)


def test_a_run_directory_is_not_reused_without_resume_nor_by_another_game(tiny_run, tmp_path):
    with pytest.raises(ValueError, match="add --resume"):
        train(config_from_args(out=str(tiny_run), steps=2048, seed=3, **TINY))
    caylus_run = tmp_path / "caylus"
    caylus_run.mkdir()
    (caylus_run / "run.json").write_text(json.dumps({"out": str(caylus_run), "players": 2}))
    with pytest.raises(ValueError, match="training run of game 'caylus', not 'puerto_rico'"):
        train(config_from_args(out=str(caylus_run), steps=2048, resume=True, **TINY))
    r = runner.invoke(app, ["train", "ppo", "--out", str(tiny_run), "--resume", "--no-progress"])
    assert r.exit_code == 2
    assert "training run of game 'puerto_rico', not 'caylus'" in " ".join(r.output.split())


# -- the learning curve, the league, --init --------------------------------------------------------
def test_each_checkpoint_is_evaluated_against_every_reference_into_the_curve(tiny_run):
    with open(tiny_run / "curve.csv", newline="") as f:
        rows = list(csv.DictReader(f))
    assert [(int(r["step"]), r["opponent"]) for r in rows] == [
        (1024, "random"),
        (1024, "shipper"),
        (2048, "random"),
        (2048, "shipper"),
    ]
    for r in rows:
        games = int(r["games"])
        assert games == 3  # one block of 3 rotated seats
        assert int(r["wins"]) + int(r["ties"]) + int(r["losses"]) == games
        assert 0.0 <= float(r["low"]) <= float(r["score"]) <= float(r["high"]) <= 1.0
    assert (tiny_run / "learning_curve.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    header = (tiny_run / "progress.csv").read_text().splitlines()[0].split(",")
    assert {"eval/score_random", "eval/score_shipper", "league/promoted"} <= set(header)


def test_every_checkpoint_gets_a_league_decision_and_promoted_ones_join_the_pool(tiny_run):
    from training.checkpoints import RESUME_JSON

    league = json.loads((tiny_run / "league.json").read_text())
    first, last = (str(tiny_run / "checkpoints" / n) for n in (FIRST, LAST))
    d1, d2 = league["decisions"]
    assert d1["checkpoint"] == first and d1["decision"] == "promoted (first checkpoint)"
    assert d2["checkpoint"] == last and d2["against"] == first
    m = d2["match"]
    assert m["games"] == 3 and m["low"] <= m["score"] <= m["high"]
    assert d2["decision"] == ("promoted" if m["score"] >= 0.55 else "kept out")
    assert league["promoted"] == [first] + ([last] if d2["decision"] == "promoted" else [])
    table = (tiny_run / "league.md").read_text()
    assert f"| {FIRST} | 1024 | (none) |" in table and f"| {LAST} | 2048 | {FIRST} | 3 |" in table
    # The second checkpoint was written while the first was the pool's only checkpoint.
    saved = json.loads((tiny_run / "checkpoints" / LAST / RESUME_JSON).read_text())
    assert saved["checkpoints_in_pool"] == [first]


def test_pool_opponents_draw_the_promoted_checkpoints(tiny_run):
    ckpt = str(tiny_run / "checkpoints" / FIRST)
    games = PuertoRicoPoolGames(4, 3, opponents="random:1,pool:1")
    assert [(s.name, s.weight) for s in games.slots] == [("random", 1.0), ("pool->self", 1.0)]
    games.set_checkpoints([ckpt])
    assert [(s.name, s.weight) for s in games.slots] == [
        ("random", 1.0),
        ("pool->self", 0.0),
        (f"policy:{ckpt}", 1.0),
    ]
    only_pool = PuertoRicoPoolGames(6, 3, opponents="pool:1", checkpoints=[ckpt])
    b = only_pool.reset(seed=2)  # no self policy needed: pool->self has no weight left
    for _ in range(20):
        b = only_pool.step(_first_legal(b.mask))
    assert (only_pool.slot == 1).all() and only_pool.opponent_decisions > 0
    with pytest.raises(RuntimeError, match="set_self_policy"):
        PuertoRicoPoolGames(2, 3, opponents="pool:1").reset(seed=0)  # pool->self until then


@pytest.mark.parametrize("players", [2, 3])
def test_a_checkpoint_against_itself_scores_one_half_over_rotated_seats(tiny_run, players):
    ckpt = tiny_run / "checkpoints" / LAST
    m = play_checkpoint(ckpt, f"policy:{ckpt}", 2 * players - 1, players, seed=5)
    # Rounded up to whole rotations; in each, the same game with the checkpoint in every
    # seat once: the zero-sum rank rewards cancel out exactly.
    assert m.games == 2 * players
    assert m.score == 0.5
    assert m.wins == m.losses or players > 2  # 3 players: ties for first count as wins
    with pytest.raises(ValueError, match="multiple of num_players"):
        PuertoRicoPoolGames(4, 3, opponents="random:1", rotated=True)


def test_init_starts_from_the_checkpoints_weights_and_records_it_as_parent(tiny_run, tmp_path):
    from safetensors.numpy import load_file

    init = tiny_run / "checkpoints" / LAST
    out = tmp_path / "warm"
    # A learning rate of 0 keeps the weights: every rollout, the first included, is played
    # by the checkpoint's policy.
    train(
        config_from_args(
            out=str(out), steps=1024, seed=9, init=str(init), learning_rate=0.0, **TINY
        )
    )
    theirs = load_file(str(init / "model.safetensors"))
    ours = load_file(str(out / "checkpoints" / FIRST / "model.safetensors"))
    assert theirs.keys() == ours.keys()
    assert all(np.array_equal(theirs[k], ours[k]) for k in theirs)
    cfg = json.loads((out / "checkpoints" / FIRST / "config.json").read_text())
    assert cfg["parent"] == str(init)
    assert json.loads((out / "run.json").read_text())["init"] == str(init)


def test_init_refuses_another_games_or_architectures_checkpoint_before_any_work(tiny_run, tmp_path):
    from caylus_env.caylus.observation import OBSERVATION_VERSION as CAYLUS_OBS

    caylus = tmp_path / "caylus-ckpt"
    shutil.copytree(tiny_run / "checkpoints" / LAST, caylus)
    cfg = json.loads((caylus / "config.json").read_text())
    del cfg["game"]  # Caylus checkpoints have no game field
    cfg["observation_version"] = CAYLUS_OBS
    (caylus / "config.json").write_text(json.dumps(cfg))
    out = tmp_path / "never"
    with pytest.raises(ValueError) as err:
        train(config_from_args(out=str(out), steps=1024, init=str(caylus), **TINY))
    assert "game 'caylus'" in str(err.value) and "game 'puerto_rico'" in str(err.value)
    wide = {**TINY, "arch": {"name": "pr-mlp-v1", "layers": [64]}}
    init = str(tiny_run / "checkpoints" / LAST)
    with pytest.raises(ValueError, match=r"its network .*\[32\].* is not this run's"):
        train(config_from_args(out=str(out), steps=1024, init=init, **wide))
    with pytest.raises(ValueError, match="cannot be combined with --resume"):
        train(config_from_args(out=str(out), steps=1024, init=init, resume=True, **TINY))
    assert not out.exists()


# -- checkpoints as agents ---------------------------------------------------------------------
def test_numpy_inference_matches_the_trained_torch_policy(tiny_run):
    import torch
    from safetensors.torch import load_file
    from sb3_contrib import MaskablePPO

    from agents.puerto_rico.policy import Arch
    from training.puerto_rico import policy_kwargs

    ckpt = tiny_run / "checkpoints" / LAST
    games = PuertoRicoPoolGames(6, 3, opponents="random:1")
    env = make_vecenv(games, seed=0)
    arch = Arch.from_json(TINY["arch"])
    model = MaskablePPO("MlpPolicy", env, device="cpu", policy_kwargs=policy_kwargs(arch))
    state = model.policy.state_dict()
    state.update(load_file(str(ckpt / "model.safetensors")))
    model.policy.load_state_dict(state)
    b = games.reset(seed=5)
    for _ in range(10):
        b = games.step(_first_legal(b.mask))
    net = PolicyNet(ckpt)
    with torch.no_grad():
        obs = torch.as_tensor(b.obs)
        latent = model.policy.mlp_extractor.forward_actor(model.policy.extract_features(obs))
        expected = model.policy.action_net(latent).numpy()
        value = model.policy.predict_values(obs).numpy()[:, 0]
    assert np.allclose(net.logits(b.obs), expected, atol=1e-4)
    assert np.allclose(net.value(b.obs), value, atol=1e-4)
    whole = net.logits(b.obs)
    assert (net.logits(b.obs[2:3]) == whole[2:3]).all()  # a row alone: the same bits


def test_policy_spec_plays_legal_moves_in_a_puerto_rico_tournament(tiny_run, tmp_path):
    from agents.tournament import TournamentSpec, run_tournament

    ckpt = tiny_run / "checkpoints" / LAST
    for mode in ("", ":sample", ":temp=0.5"):
        agent = make_agent(f"policy:{ckpt}{mode}")
        assert isinstance(agent, PolicyAgent)
        agent.reset(1)
        game = Game(GameConfig(num_players=3), seed=4)
        while game.current_player() >= 0:
            game.apply(agent.act(game))  # Game.apply refuses an illegal action
        assert game.is_terminal() or game.is_truncated()
    spec = TournamentSpec((f"policy:{ckpt}", "random", "shipper"), 3, 3, 1, game="puerto_rico")
    result = run_tournament(
        spec,
        tmp_path / "t",
        workers=1,
        progress=False,
        console=Console(file=io.StringIO()),
        report=False,
    )
    records = result.records()
    assert len(records) == 3
    assert all(all(f is None for f in rec.match["forfeits"]) for rec in records)
    assert all(f"policy:{ckpt}" in rec.match["agents"] for rec in records)


def test_a_caylus_checkpoint_is_refused_by_puerto_rico_naming_both_games(tiny_run, tmp_path):
    from caylus_env.caylus.engine.actions import ACTION_SPACE_VERSION as CAYLUS_ACTIONS
    from caylus_env.caylus.observation import OBSERVATION_VERSION as CAYLUS_OBS

    caylus = tmp_path / "caylus-ckpt"
    shutil.copytree(tiny_run / "checkpoints" / LAST, caylus)
    cfg = json.loads((caylus / "config.json").read_text())
    del cfg["game"]  # Caylus checkpoints have no game field
    cfg.update(observation_version=CAYLUS_OBS, action_space_version=CAYLUS_ACTIONS)
    (caylus / "config.json").write_text(json.dumps(cfg))
    with pytest.raises(CheckpointError) as err:
        make_agent(f"policy:{caylus}")
    text = str(err.value)
    assert "game 'caylus'" in text and "game 'puerto_rico'" in text
    assert repr(CAYLUS_OBS) in text and repr(OBSERVATION_VERSION) in text


def test_a_puerto_rico_checkpoint_is_refused_by_caylus_naming_both_versions(tiny_run):
    from agents.registry import make_agent as make_caylus_agent
    from caylus_env.caylus.observation import OBSERVATION_VERSION as CAYLUS_OBS

    with pytest.raises(CheckpointError) as err:
        make_caylus_agent(f"policy:{tiny_run / 'checkpoints' / LAST}")
    assert repr(OBSERVATION_VERSION) in str(err.value) and repr(CAYLUS_OBS) in str(err.value)


def test_a_tampered_or_mismatched_checkpoint_is_refused_naming_what_differs(tiny_run, tmp_path):
    bad = tmp_path / "bad"
    shutil.copytree(tiny_run / "checkpoints" / LAST, bad)
    weights = bad / "model.safetensors"
    weights.write_bytes(weights.read_bytes()[:-8] + b"\0" * 8)
    with pytest.raises(CheckpointError, match=r"SHA-256 .* does not match"):
        make_agent(f"policy:{bad}")
    shutil.rmtree(bad)
    shutil.copytree(tiny_run / "checkpoints" / LAST, bad)
    cfg = json.loads((bad / "config.json").read_text())
    cfg["arch"] = {"name": "pr-mlp-v1", "layers": [64]}
    (bad / "config.json").write_text(json.dumps(cfg))
    with pytest.raises(CheckpointError, match="needs float32"):
        make_agent(f"policy:{bad}")
    with pytest.raises(ValueError, match="is not a directory"):
        make_agent(f"policy:{tmp_path / 'missing'}")


# -- the command line ----------------------------------------------------------------------------
def test_cli_train_ppo_game_puerto_rico_trains_and_names_the_agent_spec(tmp_path):
    out = tmp_path / "cli"
    args = ["train", "ppo", "--game", "puerto_rico", "--players", "3", "--steps", "512"]
    args += ["--out", str(out), "--envs", "8", "--n-steps", "64", "--batch-size", "256"]
    args += ["--n-epochs", "1", "--opponents", "random:1,shipper:1", "--no-progress"]
    args += ["--eval-games", "3", "--eval-opponents", "builder", "--gate-games", "3"]
    r = runner.invoke(app, args)
    assert r.exit_code == 0, r.output
    assert f"policy:{out / 'checkpoints' / 'step-000000000512'}" in r.output
    cfg = json.loads((out / "checkpoints" / "step-000000000512" / "config.json").read_text())
    assert cfg["game"] == "puerto_rico" and cfg["num_players"] == [3]
    assert (out / "curve.csv").is_file() and (out / "league.json").is_file()


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--opponents", "castle:1,self:1"], "'castle' is not a Puerto Rico opponent"),
        (["--shaping", "0.5"], "--shaping is not supported with --game puerto_rico"),
        (["--eval-opponents", "random,economy"], "--eval-opponents entry 'economy' is not"),
        (["--eval-opponents", "self"], "--eval-opponents entry 'self' is not allowed"),
        (["--eval-games", "-1"], "--eval-games must be an int >= 0"),
        (["--gate-games", "0"], "--gate-games must be an int >= 1"),
        (["--algo", "cleanrl"], "--algo is not supported with --game puerto_rico"),
        (["--init", "missing-dir"], "checkpoint 'missing-dir' is not a directory"),
        (["--players", "6"], "--players 6 is not allowed; allowed: 2-5"),
    ],
)
def test_cli_refuses_what_the_puerto_rico_trainer_does_not_support(tmp_path, args, message):
    out = tmp_path / "never"
    r = runner.invoke(
        app, ["train", "ppo", "--game", "puerto_rico", "--out", str(out), "--no-progress", *args]
    )
    assert r.exit_code == 2
    assert message in " ".join(r.output.split())
    assert not out.exists()


def test_sampling_reaches_puerto_rico_action_ids_beyond_caylus_action_space():
    from agents.policy import choose
    from caylus_env.caylus.engine.actions import NUM_ACTIONS as CAYLUS_ACTIONS

    logits = np.full((1, NUM_ACTIONS), -np.inf, np.float32)
    high = NUM_ACTIONS - 1
    assert high >= CAYLUS_ACTIONS  # Puerto Rico has more action ids than Caylus
    logits[0, [CAYLUS_ACTIONS - 1, high]] = 0.0  # two legal actions, equally likely
    assert choose(logits, 1.0, np.array([0.25]))[0] == CAYLUS_ACTIONS - 1
    assert choose(logits, 1.0, np.array([0.75]))[0] == high
