"""Self-play training of every game: the opponent pool, the trainers, checkpoints and resume.

Every test runs for each registered game (``GAME_NAMES``), with tiny settings (a few
thousand steps, a handful of games); checkpoints as agents are tested in ``test_policy.py``.
"""

from __future__ import annotations

import csv
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

from caylus_env.core.game import IllegalActionError, rank_of, rank_returns
from caylus_env.core.registry import GAME_NAMES, game_spec
from tests.conftest import harness_games
from tests.training.conftest import (
    FIRST,
    LAST,
    SEED,
    STEPS,
    TINY,
    game_of_run,
    players_of,
    pool_of,
    tiny_config,
)
from training.learner import PoolGames, compiled_opponents, parse_pool
from training.ppo import train

games = pytest.mark.parametrize("game", GAME_NAMES)


def _first_legal(b) -> np.ndarray:
    return b.legal[:, 0].copy()


def _scripted(game: str) -> list[str]:
    return [name for name in compiled_opponents(game) if name != "random"]


# -- the opponent pool -----------------------------------------------------------------------
@pytest.mark.parametrize(
    ("spec", "message"),
    [
        ("", "non-empty"),
        ("random:-1", "weight must be a number >= 0"),
        ("random:1,random:2", "listed twice"),
        ("self:0,random:0", "sum to 0"),
        ("mcts:30", "give the weight explicitly, e.g. mcts:30:1"),
    ],
)
def test_a_bad_opponent_pool_is_refused_naming_the_entry(spec, message):
    with pytest.raises(ValueError, match=message):
        parse_pool(spec)


def test_pool_entries_keep_spec_colons_and_default_weights():
    assert parse_pool("self:0.5,mcts:30:castle,random") == [
        ("self", 0.5),
        ("mcts:30:castle", 1.0),
        ("random", 1.0),
    ]


@games
def test_the_compiled_opponents_are_random_and_the_games_scripted_bots(game):
    bots = game_spec(game).module("bots").BOTS
    expected = {"random": 0} | {
        h: b.scripted + 1 for h, b in bots.items() if b.scripted is not None
    }
    assert compiled_opponents(game) == expected and len(expected) > 1


@games
def test_an_opponent_of_another_game_is_refused_naming_the_allowed(game):
    others = [name for g in GAME_NAMES if g != game for name in _scripted(g)]
    foreign = next(n for n in others if n not in compiled_opponents(game))
    with pytest.raises(
        ValueError, match=f"'{foreign}' is not a {re.escape(game_spec(game).title)} opponent"
    ):
        PoolGames(game, 2, opponents=f"{foreign}:1,random:1")


@games
@pytest.mark.parametrize("players", [2, 3, 4, 5])
def test_pool_games_show_the_learner_its_own_observation_and_legal_mask(game, players):
    spec = game_spec(game)
    if players not in spec.player_counts:
        pytest.skip(f"{game} has no {players}-player games")
    observer, engine = spec.observation(), spec.engine()
    opponents = ",".join(f"{name}:1" for name in compiled_opponents(game))
    pool = PoolGames(game, 5, players, opponents=opponents)
    b = pool.reset(seed=players)
    obs = np.zeros(observer.OBS_SIZE, np.float32)
    seats, ends = set(), 0
    for _ in range(60):
        for k in range(pool.num_envs):
            g = engine.Game.from_state_dict(engine.state_to_dict(pool.states[k].copy()))
            assert g.current_player() == b.seat[k]  # the learner is to act
            observer.encode_into(pool.states[k], int(b.seat[k]), obs)
            np.testing.assert_array_equal(b.obs[k], obs)
            assert set(np.flatnonzero(b.mask[k])) == set(g.legal_actions())
            seats.add(int(b.seat[k]))
        b = pool.step(_first_legal(b))
        ends += int(b.done.sum())
        assert not b.rewards[~b.done].any()  # rewards only when a game ends
    assert pool.opponent_decisions > 0 and len(seats) > 1  # the seat is drawn per episode


@games
def test_a_finished_games_reward_is_the_learners_rank_reward(game):
    pool = PoolGames(game, 8, players_of(game), opponents="random:1")
    b = pool.reset(seed=4)
    seen = 0
    while seen < 4:
        b = pool.step(_first_legal(b))
        for k in np.flatnonzero(b.terminated):
            n = int(pool.num_players[k])
            ranks = rank_of(b.final_scores[k, :n], pool.final_tie_breaks[k, :n])
            assert b.rewards[k] == rank_returns(ranks)[b.final_seat[k]]
            seen += 1


def test_game_k_depends_on_the_seed_and_k_only_not_on_the_batch_size():
    for game in GAME_NAMES:
        opponents = f"random:1,{_scripted(game)[0]}:1"
        small = PoolGames(game, 3, 2, opponents=opponents)
        large = PoolGames(game, 7, 2, opponents=opponents)
        a, b = small.reset(seed=11), large.reset(seed=11)
        for _ in range(80):
            np.testing.assert_array_equal(a.obs, b.obs[:3])
            np.testing.assert_array_equal(small.states, large.states[:3])
            a, b = small.step(_first_legal(a)), large.step(_first_legal(b))
            np.testing.assert_array_equal(a.rewards, b.rewards[:3])


class _Counting:
    """An external opponent that plays the last legal action and counts its batches."""

    def __init__(self, obs_size: int) -> None:
        self.obs_size = obs_size
        self.batches: list[int] = []

    def act_batch(self, obs, mask, uniforms, states):
        assert obs.shape == (len(mask), self.obs_size) and ((uniforms >= 0) & (uniforms < 1)).all()
        self.batches.append(len(mask))
        return np.array([np.flatnonzero(m)[-1] for m in mask], np.int64)


@games
def test_external_opponents_are_asked_once_per_batch_of_waiting_games(game):
    pool = PoolGames(game, 32, 2, opponents="self:1")
    me = _Counting(pool.obs_size)
    pool.set_self_policy(me)
    b = pool.reset(seed=3)
    for _ in range(40):
        b = pool.step(_first_legal(b))
    assert max(me.batches) > 1  # several games waited on it at once
    assert not pool.waiting.any()


@games
def test_an_mcts_opponent_plays_legal_moves_from_the_pool(game):
    pool = PoolGames(game, 2, 2, opponents="mcts:2:1")
    b = pool.reset(seed=4)
    for _ in range(10):
        b = pool.step(_first_legal(b))  # the pool checks every opponent move is legal
    assert pool.opponent_decisions >= 10
    assert pool.slots[0].name == "mcts:2"


@games
def test_rotated_games_share_their_setup_with_the_learner_one_seat_further(game):
    players = players_of(game)
    pool = PoolGames(game, 2 * players, players, opponents="random:1", rotated=True)
    b = pool.reset(seed=8)
    for block in (pool.setup_seeds[:players], pool.setup_seeds[players:]):
        assert len(set(block.tolist())) == 1
    for start in (0, players):
        seats = b.seat[start : start + players]
        assert sorted(((seats - seats[0]) % players).tolist()) == list(range(players))
        np.testing.assert_array_equal((seats - seats[0]) % players, np.arange(players))
    with pytest.raises(ValueError, match="multiple of it"):
        PoolGames(game, players + 1, players, rotated=True)


@games
def test_a_pool_with_self_needs_the_policy_before_reset(game):
    with pytest.raises(RuntimeError, match="set_self_policy"):
        PoolGames(game, 2, 2, opponents="self:1").reset(seed=0)
    with pytest.raises(RuntimeError, match="set_self_policy"):
        PoolGames(game, 2, 2, opponents="pool:1").reset(seed=0)  # pool->self until a promotion


@games
def test_pool_checkpoint_weight_goes_to_self_until_a_checkpoint_is_promoted(game):
    pool = PoolGames(game, 2, 2, opponents="random:1,pool:1")
    assert [(s.name, s.weight) for s in pool.slots] == [("random", 1.0), ("pool->self", 1.0)]


@games
def test_an_illegal_learner_action_is_refused_naming_the_game_and_nothing_moves(game):
    pool = PoolGames(game, 3, 2, opponents="random:1")
    b = pool.reset(seed=2)
    actions = _first_legal(b)
    actions[1] = int(np.flatnonzero(~b.mask[1].view(np.bool_))[0])
    before = pool.states.copy()
    with pytest.raises(IllegalActionError, match="game 1: action"):
        pool.step(actions)
    np.testing.assert_array_equal(pool.states, before)


@pytest.mark.parametrize("game", [g for g in GAME_NAMES if game_spec(g).truncating_options])
def test_a_game_cut_off_by_the_decision_cap_reaches_sb3_as_a_truncation(game):
    from training.vecenv import PoolVecEnv

    options = dict(game_spec(game).truncating_options)
    pool = PoolGames(game, 4, 2, opponents="random:1", **options)
    env = PoolVecEnv(pool, seed=1, shaping=1.0)
    env.reset()
    cut = []
    for _ in range(100):
        env.step_async(pool.batch.legal[:, 0].copy())
        _, _, dones, infos = env.step_wait()
        for k in np.flatnonzero(dones):
            assert infos[k]["TimeLimit.truncated"] is bool(pool.batch.truncated[k])
            assert infos[k]["terminal_observation"].shape == (pool.obs_size,)
            if pool.batch.truncated[k]:
                assert infos[k]["rank_reward"] == 0.0  # no rank reward for a cut-off game
                cut.append(k)
    assert cut


@games
def test_the_shaped_reward_is_the_change_of_the_score_margin(game):
    from training.vecenv import PoolVecEnv

    pool = PoolGames(game, 6, players_of(game), opponents=f"{_scripted(game)[0]}:1")
    scale = game_spec(game).score_scale
    env = PoolVecEnv(pool, seed=2, shaping=2.0)
    env.reset()
    total, moved = np.zeros(6), False
    for _ in range(150):
        before = pool.margin.astype(np.float64)
        env.step_async(pool.batch.legal[:, 0].copy())
        _, rewards, dones, infos = env.step_wait()
        after = np.where(dones, pool.final_margin, pool.margin)
        expected = pool.batch.rewards + 2.0 * (after - before) / scale
        np.testing.assert_allclose(rewards, expected.astype(np.float32), rtol=1e-6)
        total += (after - before) / scale
        moved |= bool((after != before).any())
        for k in np.flatnonzero(dones):
            # A game's shaped terms sum to its final margin less its first (potential-based).
            assert infos[k]["shaped_return"] == pytest.approx(total[k], abs=1e-9)
            total[k] = 0.0
    assert moved


# -- training, checkpoints, resume ---------------------------------------------------------------
def test_a_short_ppo_run_writes_checkpoints_logs_curve_and_league(tiny_run):
    game = game_of_run(tiny_run)
    ckpts = sorted(p.name for p in (tiny_run / "checkpoints").iterdir())
    assert ckpts == [f"step-{s:012d}" for s in (512, 1024, 1536, 2048)]
    cfg = json.loads((tiny_run / "checkpoints" / LAST / "config.json").read_text())
    spec = game_spec(game)
    assert cfg["game"] == game
    assert cfg["observation_version"] == spec.observation().OBSERVATION_VERSION
    assert cfg["action_space_version"] == spec.engine().ACTION_SPACE_VERSION
    assert cfg["step"] == STEPS and cfg["num_players"] == [players_of(game)]
    assert cfg["seed"] == SEED and cfg["parent"].endswith("step-000000001536")
    for name in ("progress.csv", "curve.csv", "learning_curve.png", "league.json", "league.md"):
        assert (tiny_run / name).is_file(), name
    header = (tiny_run / "progress.csv").read_text().splitlines()[0].split(",")
    scripted = _scripted(game)[0]
    assert {"rollout/score_random", f"rollout/score_{scripted}", "time/samples_per_s"} <= set(
        header
    )
    assert {"rollout/shaped_return", "eval/score_random", "league/promoted"} <= set(header)


def test_each_checkpoint_is_evaluated_against_random_and_the_scripted_bots(tiny_run):
    game = game_of_run(tiny_run)
    with open(tiny_run / "curve.csv", newline="") as f:
        rows = list(csv.DictReader(f))
    refs = ["random", *_scripted(game)]
    assert [(int(r["step"]), r["opponent"]) for r in rows] == [
        (s, ref) for s in (512, 1024, 1536, 2048) for ref in refs
    ]
    players = players_of(game)
    for r in rows:
        games_played = int(r["games"])
        assert games_played == -(-TINY["eval_games"] // players) * players  # whole rotations
        assert int(r["wins"]) + int(r["ties"]) + int(r["losses"]) == games_played
        assert 0.0 <= float(r["low"]) <= float(r["score"]) <= float(r["high"]) <= 1.0
    assert (tiny_run / "learning_curve.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_the_learning_curve_plots_one_panel_per_player_count_and_a_colour_per_reference():
    from training.runs import curve_panels

    def row(step: int, opponent: str, score: float) -> dict[str, str]:
        return {"step": str(step), "opponent": opponent, "score": str(score),
                "low": "0.25", "high": "0.75"}  # fmt: skip

    rows = [row(2, "economy@10p", 0.7), row(2, "random@3p", 0.9), row(1, "random@3p", 0.8),
            row(1, "economy@3p", 0.6), row(1, "policy:a@b", 0.5)]  # fmt: skip
    panels = curve_panels(rows, "step")
    assert list(panels) == ["", "3p", "10p"]  # by player count, not as text
    assert panels["3p"] == {"random": [(1, 0.8, 0.25, 0.75), (2, 0.9, 0.25, 0.75)],
                            "economy": [(1, 0.6, 0.25, 0.75)]}  # fmt: skip
    assert panels[""] == {"policy:a@b": [(1, 0.5, 0.25, 0.75)]}  # "@b" names no count
    assert panels["10p"] == {"economy": [(2, 0.7, 0.25, 0.75)]}


def test_every_checkpoint_gets_a_league_decision_and_promoted_ones_join_the_pool(tiny_run):
    from training.checkpoints import RESUME_JSON

    league = json.loads((tiny_run / "league.json").read_text())
    assert len(league["decisions"]) == 4 and league["best"] in league["promoted"]
    first = league["decisions"][0]
    assert first["checkpoint"].endswith(FIRST)
    assert first["decision"] == "promoted (first checkpoint)"
    for d in league["decisions"][1:]:
        m = d["match"]
        assert m["low"] <= m["score"] <= m["high"]
        assert d["decision"] == ("promoted" if m["score"] >= 0.55 else "kept out")
    assert f"| {FIRST} | 512 | (none) |" in (tiny_run / "league.md").read_text()
    # The second checkpoint was written while the first was the pool's only checkpoint.
    saved = json.loads((tiny_run / "checkpoints" / "step-000000001024" / RESUME_JSON).read_text())
    assert saved["checkpoints_in_pool"] == [first["checkpoint"]]


def _same_weights(a: Path, b: Path) -> bool:
    return (a / "model.safetensors").read_bytes() == (b / "model.safetensors").read_bytes()


def _decisions(run: Path) -> list[tuple]:
    """The league's decisions of a run without its paths: (step, match, decision)."""
    league = json.loads((run / "league.json").read_text())
    out = []
    for d in league["decisions"]:
        match = d["match"] and {k: v for k, v in d["match"].items() if k != "opponent"}
        out.append((d["step"], match, d["decision"]))
    return out


def test_resume_continues_to_the_weights_curve_and_league_of_an_uninterrupted_run(
    tiny_run, tmp_path
):
    game = game_of_run(tiny_run)
    out = tmp_path / "resumed"
    train(tiny_config(game, out, steps=1024))
    assert not (out / "checkpoints" / LAST).exists()
    train(tiny_config(game, out, resume=True))
    for step in (1024, 1536, 2048):
        name = f"step-{step:012d}"
        assert _same_weights(out / "checkpoints" / name, tiny_run / "checkpoints" / name), name
    cfg = json.loads((out / "checkpoints" / LAST / "config.json").read_text())
    assert cfg["parent"].endswith("step-000000001536")
    # Each checkpoint was evaluated and gated once, as in the uninterrupted run.
    assert (out / "curve.csv").read_text() == (tiny_run / "curve.csv").read_text()
    assert _decisions(out) == _decisions(tiny_run)


def _cli(*args: str) -> list[str]:
    return [sys.executable, "-m", "caylus_cli", "train", "ppo", "--no-progress", *args]


def _tiny_args(game: str, out: Path) -> list[str]:
    args = ["--out", str(out), "--game", game, "--players", str(players_of(game))]
    args += ["--steps", str(STEPS), "--seed", "9", "--opponents", pool_of(game)]
    args += ["--shaping", "0.5", "--algo", "cleanrl"]
    for name in ("envs", "n_steps", "batch_size", "n_epochs", "checkpoint_every"):
        args += [f"--{name.replace('_', '-')}", str(TINY[name])]
    return [*args, "--eval-games", "3", "--gate-games", "3"]


@pytest.mark.parametrize("game", harness_games())
def test_cleanrl_resume_after_kill_9_gives_the_weights_of_an_uninterrupted_run(tmp_path, game):
    whole, killed = tmp_path / "whole", tmp_path / "killed"
    subprocess.run(_cli(*_tiny_args(game, whole)), check=True, capture_output=True, timeout=600)
    args = _tiny_args(game, killed)
    proc = subprocess.Popen(_cli(*args), stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    deadline = time.monotonic() + 300
    second = killed / "checkpoints" / "step-000000001024"
    while not second.exists() and proc.poll() is None and time.monotonic() < deadline:
        time.sleep(0.02)
    assert proc.poll() is None, "the run ended before it could be killed"
    os.kill(proc.pid, signal.SIGKILL)
    proc.wait()
    assert not (killed / "checkpoints" / LAST).exists()
    resumed = subprocess.run(_cli(*args, "--resume"), capture_output=True, text=True, timeout=600)
    assert resumed.returncode == 0, resumed.stderr
    for step in (1024, 1536, 2048):
        name = f"step-{step:012d}"
        assert _same_weights(whole / "checkpoints" / name, killed / "checkpoints" / name), name
    assert not any(p.name.startswith(".tmp-") for p in (killed / "checkpoints").iterdir())
    cfg = json.loads((whole / "checkpoints" / LAST / "config.json").read_text())
    assert cfg["game"] == game and cfg["algorithm"] == "PPO (training/cleanrl_ppo.py)"


def test_a_run_directory_is_not_reused_without_resume_nor_resumed_with_other_arguments(tiny_run):
    game = game_of_run(tiny_run)
    with pytest.raises(ValueError, match="add --resume"):
        train(tiny_config(game, tiny_run))
    with pytest.raises(ValueError, match="seed: 5 then, 6 now"):
        train(tiny_config(game, tiny_run, steps=4096, seed=6, resume=True))


def test_a_run_directory_of_another_game_is_refused_naming_both(tiny_run):
    from typer.testing import CliRunner

    from caylus_cli.app import app

    game = game_of_run(tiny_run)
    other = next(g for g in GAME_NAMES if g != game)
    with pytest.raises(ValueError, match=f"training run of game '{game}', not '{other}'"):
        train(tiny_config(other, tiny_run, resume=True))
    r = CliRunner().invoke(
        app, ["train", "ppo", "--game", other, "--out", str(tiny_run), "--resume", "--no-progress"]
    )
    assert r.exit_code == 2
    assert f"training run of game '{game}', not '{other}'" in " ".join(r.output.split())


def test_a_run_json_from_before_games_were_named_is_the_default_games(tmp_path):
    from caylus_env.core.registry import DEFAULT_GAME
    from training.runs import check_run_game

    (tmp_path / "run.json").write_text(json.dumps({"out": str(tmp_path), "players": 2}))
    check_run_game(tmp_path, DEFAULT_GAME)
    other = next(g for g in GAME_NAMES if g != DEFAULT_GAME)
    with pytest.raises(ValueError, match=f"game '{DEFAULT_GAME}', not '{other}'"):
        check_run_game(tmp_path, other)


def test_init_starts_from_the_checkpoints_weights_and_records_it_as_parent(tiny_run, tmp_path):
    game = game_of_run(tiny_run)
    init = tiny_run / "checkpoints" / LAST
    out = tmp_path / "warm"
    # A learning rate of 0 keeps the weights: the first checkpoint holds the initial ones.
    train(tiny_config(game, out, steps=512, seed=9, init=str(init), learning_rate=0.0))
    assert _same_weights(out / "checkpoints" / FIRST, init)
    cfg = json.loads((out / "checkpoints" / FIRST / "config.json").read_text())
    assert cfg["parent"] == str(init)
    assert json.loads((out / "run.json").read_text())["init"] == str(init)


def test_init_refuses_another_games_or_networks_checkpoint_before_any_work(tiny_run, tmp_path):
    game = game_of_run(tiny_run)
    other = next(g for g in GAME_NAMES if g != game)
    init = str(tiny_run / "checkpoints" / LAST)
    out = tmp_path / "never"
    with pytest.raises(ValueError) as err:
        train(tiny_config(other, out, init=init))
    assert f"game '{game}'" in str(err.value) and f"game '{other}'" in str(err.value)
    wide = {"name": "pieces-v1", "hidden": 64}
    with pytest.raises(ValueError, match=r"its network .* is not this run's"):
        train(tiny_config(game, out, init=init, arch=wide))
    with pytest.raises(ValueError, match="cannot be combined with --resume"):
        train(tiny_config(game, out, init=init, resume=True))
    assert not out.exists()


@games
@pytest.mark.parametrize("algo", ["maskable", "cleanrl"])
def test_an_mlp_network_trains_and_plays_as_a_policy(game, algo, tmp_path):
    from agents.policy import MlpArch, PolicyNet

    arch = {"name": "mlp-v1", "layers": [16]}
    last = train(tiny_config(game, tmp_path / "mlp", steps=512, arch=arch, algo=algo))
    net = PolicyNet(last, game)
    assert net.arch == MlpArch((16,))
    assert net.logits(np.zeros((2, net.obs_size), np.float32)).shape == (2, net.num_actions)


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--players", "7"], "--players 7 is not allowed; allowed: 2-5"),
        (["--batch-size", "300"], "must divide the rollout size"),
        (["--opponents", "random:-2"], "weight must be a number >= 0"),
        (["--eval-opponents", "random,self"], "--eval-opponents entry 'self' is not allowed"),
        (["--eval-games", "-1"], "--eval-games must be an int >= 0"),
        (["--gate-games", "0"], "--gate-games must be an int >= 1"),
        (["--algo", "sarsa"], "--algo 'sarsa' is not allowed; allowed: maskable, cleanrl"),
        (["--arch", '{"name": "resnet"}'], "arch name 'resnet' is not supported"),
        (["--arch", "[1]"], "--arch must be a JSON object"),
        (["--init", "missing-dir"], "checkpoint 'missing-dir' is not a directory"),
        (["--game", "chess"], "unknown game 'chess'"),
    ],
)
def test_train_ppo_refuses_bad_arguments_before_any_work(tmp_path, args, message):
    from typer.testing import CliRunner

    from caylus_cli.app import app

    out = tmp_path / "never"
    r = CliRunner().invoke(app, ["train", "ppo", "--out", str(out), "--no-progress", *args])
    assert r.exit_code == 2, r.output
    assert message in " ".join(r.output.split())
    assert not out.exists()


def test_train_ppo_refuses_an_out_under_a_regular_file_before_any_work(tmp_path):
    from typer.testing import CliRunner

    from caylus_cli.app import app

    afile = tmp_path / "afile"
    afile.write_text("")
    out = afile / "sub"
    r = CliRunner().invoke(app, ["train", "ppo", "--out", str(out), "--no-progress"])
    assert r.exit_code == 2, r.output
    assert r.stderr.splitlines() == [
        f"Error: --out {afile} is not a directory, so {out} cannot be created"
    ]
    assert sorted(p.name for p in tmp_path.iterdir()) == ["afile"]


@games
def test_the_defaults_come_from_the_games_facts(game):
    from agents.policy import DEFAULT_ARCH
    from training.config import PPOConfig

    cfg = PPOConfig(out="x", game=game)
    spec = game_spec(game)
    assert cfg.players == spec.default_players and cfg.arch == DEFAULT_ARCH.to_json()
    names = [n for n, _ in parse_pool(str(cfg.opponents), game)]
    assert names == ["self", "random", *_scripted(game), "pool"]
    assert sum(w for _, w in parse_pool(str(cfg.opponents), game)) == pytest.approx(1.0, abs=1e-3)
    assert cfg.eval_opponents == ",".join(["random", *_scripted(game)])
    cfg.check()
