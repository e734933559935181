"""``caylus train az --game G``: search-distilled self-play (``training.az``) for every game.

One tiny run per game (two generations of a few games at two player counts, searches of a
few simulations) is checked for what the trainer promises: the run directory's files, the
policy targets (the Gumbel root's improved policy, not visit counts), the networks playing as
``policy:PATH`` and guiding ``puct``, the gating and the learning curve; then, on Caylus,
determinism across worker counts, ``--resume`` after an interrupted generation and after a
real ``kill -9``, the warm start, and every refusal (arguments, run directories, tampered
state files) before anything is written.
"""

from __future__ import annotations

import csv
import hashlib
import json
import os
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pytest
from typer.testing import CliRunner

from agents.policy import SHIPPED_DIR, PolicyNet, shipped_checkpoints
from agents.registry import make_agent
from caylus_cli.app import app
from caylus_env.core.registry import GAME_NAMES, game_spec
from caylus_env.datasets import iter_batches, read_manifest
from training.az import (
    CURVE_FIELDS,
    GUARD_STREAM,
    STATE_FORMAT,
    check_config,
    derive_seed,
    fit,
    league_dir,
    load_state,
    net_dir,
    replay_window,
    selfplay_dir,
    train_az,
)
from training.config import AZConfig

runner = CliRunner()
SEED = 11


def counts_of(game: str) -> list[int]:
    """Two player counts of the game (its smallest two): a run for several counts."""
    return list(game_spec(game).player_counts)[:2]


def tiny(game: str, out: Path, **kwargs) -> AZConfig:
    """A run of two generations of 4 games, small enough for seconds a generation."""
    args = {
        "out": str(out),
        "game": game,
        "players": counts_of(game),
        "generations": 2,
        "games": 4,
        "sims": 6,
        "considered": 4,
        "window": 2,
        "epochs": 1,
        "batch_size": 64,
        "gate_games": 2 * max(counts_of(game)),
        "guard": "random",
        "guard_games": 2 * max(counts_of(game)),
        "league": "random",
        "league_games": max(counts_of(game)),
        "eval_games": max(counts_of(game)),
        "eval_every": 1,
        "eval_opponents": "random",
        "workers": 1,
        "seed": SEED,
        "progress": False,
    }
    return AZConfig(**{**args, **kwargs})


def weights(net: Path) -> str:
    return hashlib.sha256((net / "model.safetensors").read_bytes()).hexdigest()


def tree(out: Path) -> dict[str, str]:
    """Every file of a run directory with its digest (what a refusal must leave alone)."""
    return {
        str(p.relative_to(out)): hashlib.sha256(p.read_bytes()).hexdigest()
        for p in sorted(out.rglob("*"))
        if p.is_file()
    }


@pytest.fixture(scope="module", params=GAME_NAMES)
def az_run(request, tmp_path_factory) -> tuple[str, Path]:
    game = request.param
    out = tmp_path_factory.mktemp(f"az-{game}") / "run"
    result = train_az(tiny(game, out))
    assert result.out == out and result.generations == 2
    return game, out


def test_a_run_keeps_every_generations_network_dataset_and_state(az_run):
    game, out = az_run
    state = json.loads((out / "state.json").read_text())
    assert state["format"] == STATE_FORMAT
    entries = state["generations"]
    assert [e["generation"] for e in entries] == [0, 1, 2]
    for e in entries[1:]:
        assert e["games"] == 4 and e["positions"] > 0
        gate = e["gate"]
        assert gate["games"] >= 2 * max(counts_of(game))  # rounded up to whole blocks
        guard = e["guard"]  # measured only for a candidate that passed the gate
        assert (guard is not None) == (gate["score"] >= gate["threshold"] == 0.55)
        assert e["promoted"] == (guard is not None and not guard["lost"])
        if guard is not None:
            assert set(guard["scores"]) == set(guard["best"]) == {"random"}
            mean, high = guard["difference"]["random"]
            assert mean == pytest.approx(guard["scores"]["random"] - guard["best"]["random"])
            assert high >= mean and guard["lost"] == (["random"] if high < 0.0 else [])
        assert e["league"]["opponent"] == "random" and e["league"]["games"] >= 4
        previous = entries[e["generation"] - 1]["best"]
        assert e["best"] == (e["generation"] if e["promoted"] else previous)
        assert gate["opponent"] == previous
        assert [ep["epoch"] for ep in e["learner"]["epochs"]] == [1]
    assert state["best"] == entries[-1]["best"]
    assert load_state(out, game).best == state["best"]
    for g in (0, 1, 2):
        cfg = PolicyNet(net_dir(out, g), game, exact=True).config  # versions, checksums
        assert cfg["algorithm"] == "Gumbel AlphaZero self-play" and cfg["generation"] == g
        assert cfg["num_players"] == counts_of(game)
    cfg = PolicyNet(net_dir(out, 2), game).config
    assert cfg["parent"] == net_dir(out, 1).name  # the learner carries on
    assert cfg["selfplay_network"] == net_dir(out, entries[1]["best"]).name
    assert cfg["selfplay_agent"] == "puct:6:gumbel=4"
    # the learner's window: generation 2 trained on generations 1 and 2, their self-play
    # and the search's decisions of their league games (not the league opponent's)
    rows = sum(read_manifest(selfplay_dir(out, g))["counts"]["decisions"] for g in (1, 2))
    searched = 0
    for g in (1, 2):
        agents = read_manifest(league_dir(out, g))["run"]["agents"]
        assert agents == [f"puct:6:gumbel=4:ckpt={net_dir(out, entries[g - 1]['best'])}", "random"]
        seen = np.concatenate([b["agent"] for b in iter_batches(league_dir(out, g), 4096)])
        assert set(seen) == set(agents)  # both played
        searched += int((seen == agents[0]).sum())
    assert entries[2]["learner"]["epochs"][0]["rows"] == rows + searched


def test_the_guard_scores_are_the_networks_own_on_the_same_setups(az_run):
    """What ``state.json`` keeps of the guard is what the networks play: recomputed from
    nothing but the run's arguments and the two networks, the verdict is the same."""
    from training.az import guard_counts, guard_scores, guard_verdict

    game, out = az_run
    entries = load_state(out, game).generations
    cfg = tiny(game, out)
    guarded = [e for e in entries if e["guard"] is not None]
    # a guard ran for every candidate that passed the gate
    assert len(guarded) == sum(e["gate"]["score"] >= 0.55 for e in entries[1:])
    for e in guarded:
        best = entries[e["generation"] - 1]["best"]
        g = e["generation"]
        ours = guard_scores(cfg, net_dir(out, g), g)
        assert len(ours["random"]) == e["guard"]["games"] >= cfg.guard_games
        theirs = guard_scores(cfg, net_dir(out, best), g)
        assert e["guard"] == guard_verdict(ours, theirs, 0.0, guard_counts(cfg))
        # the differences at each count are those of the games at that count
        labels = guard_counts(cfg)
        assert sorted(e["guard"]["by_count"]["random"]) == [str(n) for n in cfg.counts]
        for n in cfg.counts:
            d = ours["random"][labels == n] - theirs["random"][labels == n]
            assert e["guard"]["by_count"]["random"][str(n)][0] == pytest.approx(d.mean())
    # every generation's guard plays new setups
    seeds = {derive_seed(cfg.seed, GUARD_STREAM, e["generation"]) for e in entries[1:]}
    assert len(seeds) == len(entries) - 1


def test_self_play_stores_the_gumbel_roots_improved_policy_over_every_legal_move(az_run):
    """Visit counts of a Gumbel root cover at most M moves; the improved policy
    softmax(logit + sigma) gives every legal move some probability: that is the target."""
    game, out = az_run
    manifest = read_manifest(selfplay_dir(out, 1))
    (agent,) = manifest["run"]["agents"]
    assert agent == f"puct:6:gumbel=4:ckpt={net_dir(out, 0).resolve()}"
    assert manifest["run"]["players"] == counts_of(game)
    assert manifest["run"]["policy_targets"] is True
    wide = 0
    for b in iter_batches(selfplay_dir(out, 1), 512, policy_targets=True, game=game):
        legal = b["mask"].astype(bool)
        target = b["target"]
        assert b["has_target"].all()
        np.testing.assert_allclose(target.sum(axis=1), 1.0, atol=1e-5)
        assert not (target[~legal] != 0).any()
        many = legal.sum(axis=1) > 4  # more legal moves than the root considers
        assert ((target > 0) == legal)[many].all()
        wide += int(many.sum())
        assert (np.abs(b["ret"]) <= 1.0).all()  # rank returns
    assert wide > 0


def test_the_networks_play_as_policy_and_guide_puct(az_run):
    game, out = az_run
    best = net_dir(out, json.loads((out / "state.json").read_text())["best"])
    spec_of = game_spec(game)
    n = counts_of(game)[0]
    for spec in (f"policy:{best}", f"puct:8:ckpt={best}", f"puct:8:gumbel=4:ckpt={best}"):
        agents = [make_agent(spec, game) for _ in range(n)]
        for seat, agent in enumerate(agents):
            agent.reset(seed=seat)
        g = spec_of.new_game(spec_of.config(n), seed=3)
        for _ in range(40):  # the first 40 decisions, every one legal
            legal = g.legal_actions()
            action = agents[g.current_player()].act(g)
            assert action in legal, spec
            g.apply(action)
    result = runner.invoke(
        app, ["train", "match", str(best), "--game", game, "--opponents", "random",
              "--players", str(counts_of(game)[0]), "--games", "4"],
    )  # fmt: skip
    assert result.exit_code == 0, result.output
    assert "| random |" in result.output


def test_the_learning_curve_has_a_row_per_generation_reference_and_count(az_run):
    game, out = az_run
    with open(out / "curve.csv", newline="") as f:
        rows = list(csv.DictReader(f))
    assert tuple(rows[0]) == CURVE_FIELDS
    names = [f"random@{n}p" for n in counts_of(game)]
    assert [(int(r["generation"]), r["opponent"]) for r in rows] == [
        (g, name) for g in (0, 1, 2) for name in names
    ]
    state = json.loads((out / "state.json").read_text())
    for r in rows:
        g = int(r["generation"])
        assert int(r["network"]) == state["generations"][g]["best"]
        assert int(r["positions"]) == sum(e["positions"] for e in state["generations"][: g + 1])
        assert 0.0 <= float(r["low"]) <= float(r["score"]) <= float(r["high"]) <= 1.0
    assert (out / "learning_curve.png").stat().st_size > 1000


# -- Caylus only: determinism, resume, warm start -------------------------------------------------
@pytest.fixture(scope="module")
def caylus_run(tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("az-det") / "run"
    train_az(tiny("caylus", out, players=[2], gate_games=4, eval_games=0))
    return out


def test_the_anchor_keeps_the_learners_policy_near_generation_zeros(caylus_run, tmp_path):
    """``--anchor-weight W`` adds W times KL(generation 0's policy || the learner's) on every
    learned position: the learner's reported anchor divergence, and the one measured on
    the window's positions afterwards, shrink as W grows; W = 0 leaves the loss alone."""
    from dataclasses import replace

    from agents.policy import PolicyNet
    from training.checkpoints import write_policy_checkpoint

    out = caylus_run
    cfg = tiny("caylus", out, players=[2], epochs=3, learning_rate=1e-2)
    cfg.arch = PolicyNet(net_dir(out, 0), "caylus").config["arch"]
    window = replay_window(out, 2, 2)
    batch = next(iter_batches(window[0][0], 4096, game="caylus"))
    obs, mask = batch["obs"], batch["mask"].astype(bool)
    zero = PolicyNet(net_dir(out, 0), "caylus")
    meta = PolicyNet(net_dir(out, 1), "caylus").config

    def log_policy(net: PolicyNet) -> np.ndarray:
        z = net.logits(obs, mask).astype(np.float64)
        z -= z.max(axis=1, keepdims=True)
        return z - np.log(np.exp(z).sum(axis=1, keepdims=True))

    def divergence(weight: float) -> tuple[float, dict]:
        tensors, learner = fit(replace(cfg, anchor_weight=weight), net_dir(out, 1), window, 2,
                               anchor=net_dir(out, 0))  # fmt: skip
        where = write_policy_checkpoint(tmp_path / f"w{weight}", tensors, "caylus", meta)
        p, q = log_policy(zero), log_policy(PolicyNet(where, "caylus"))
        p, q = np.where(mask, p, 0.0), np.where(mask, q, 0.0)  # illegal: no mass, no term
        kl = (np.where(mask, np.exp(p), 0.0) * (p - q)).sum(axis=1)
        return float(kl.mean()), learner

    free, learner = divergence(0.0)
    assert "anchor_kl" not in learner["epochs"][0]
    loose, learner_loose = divergence(1.0)
    tight, learner_tight = divergence(30.0)
    assert tight < loose < free
    assert learner_tight["epochs"][-1]["anchor_kl"] < learner_loose["epochs"][-1]["anchor_kl"]
    assert learner_tight["epochs"][-1]["anchor_kl"] >= 0.0


def test_the_same_seed_gives_the_same_networks_whatever_the_worker_count(caylus_run, tmp_path):
    out = tmp_path / "two"
    train_az(tiny("caylus", out, players=[2], gate_games=4, eval_games=0, workers=2))
    for g in (0, 1, 2):
        assert weights(net_dir(out, g)) == weights(net_dir(caylus_run, g)), g
    other = tmp_path / "other-seed"
    train_az(tiny("caylus", other, players=[2], gate_games=4, eval_games=0, generations=1,
                  seed=SEED + 1))  # fmt: skip
    assert weights(net_dir(other, 1)) != weights(net_dir(caylus_run, 1))


@pytest.mark.ray
def test_the_ray_backend_plays_the_same_games_and_gives_the_same_networks(caylus_run, tmp_path):
    import ray

    from tests.conftest import init_local_ray

    out = tmp_path / "ray"
    init_local_ray()
    try:
        train_az(tiny("caylus", out, players=[2], gate_games=4, eval_games=0, backend="ray"))
    finally:
        ray.shutdown()
    for g in (1, 2):
        assert read_manifest(selfplay_dir(out, g))["generation"]["backend"] == "ray"
        # the same decisions (the files differ by the network's path in the agent spec)
        ours, theirs = (
            list(iter_batches(selfplay_dir(run, g), 4096, policy_targets=True, game="caylus"))
            for run in (out, caylus_run)
        )
        assert len(ours) == len(theirs) == 1
        for key in ("obs", "mask", "action", "target", "ret"):
            np.testing.assert_array_equal(ours[0][key], theirs[0][key])
    for g in (0, 1, 2):
        assert weights(net_dir(out, g)) == weights(net_dir(caylus_run, g)), g


def test_the_learner_carries_on_from_a_rejected_candidate_while_the_best_plays(tmp_path):
    """AlphaGo Zero's optimizer: the gate picks who plays the self-play, not where the
    learner starts; restarting from the best after each rejection would cap every candidate
    at one generation's steps from it."""
    from safetensors.numpy import load_file

    from training.az import fit, replay_window

    out = tmp_path / "run"
    cfg = tiny("caylus", out, players=[2], gate_games=4, eval_games=0, gate_score=1.0,
               guard_games=0, league_games=0, generations=3)  # fmt: skip
    train_az(cfg)
    entries = json.loads((out / "state.json").read_text())["generations"]
    assert not entries[2]["promoted"] and entries[2]["best"] == 1  # the setup: 2 rejected
    window = replay_window(out, 3, cfg.window)
    assert window == [(selfplay_dir(out, 2), None), (selfplay_dir(out, 3), None)]
    manifest = read_manifest(selfplay_dir(out, 3))
    assert manifest["run"]["agents"][0].endswith(f"ckpt={net_dir(out, 1)}")  # the best played
    stored = load_file(net_dir(out, 3) / "model.safetensors")
    carried, _ = fit(cfg, net_dir(out, 2), window, 3)
    restarted, _ = fit(cfg, net_dir(out, 1), window, 3)
    assert set(stored) == set(carried)
    for name, tensor in carried.items():
        np.testing.assert_array_equal(stored[name], tensor.numpy(), err_msg=name)
    assert any(not np.array_equal(stored[k], t.numpy()) for k, t in restarted.items())
    # a resume checks the network its learner starts from before any work
    (net_dir(out, 3) / "model.safetensors").write_bytes(b"half")
    with pytest.raises(ValueError, match="the learner's latest network"):
        load_state(out, "caylus")


def test_a_candidate_that_passes_the_gate_but_loses_ground_against_a_guard_is_not_promoted(
    tmp_path, monkeypatch, capsys
):
    """The guard: beating the best head to head is not enough; against every guard
    reference, the games (paired with the best's on the same setups) must not show the
    candidate losing ground at 95% one-sided. The best plays each generation's guard
    setups again beside the candidate, so no one draw of its scores is every candidate's
    bar."""
    import training.az as az

    played = {
        "gen-000000": [1, 1, 1, 1, 0, 1],
        "gen-000001": [0, 0, 1, 1, 0, 0],  # -0.5 a game, upper bound -0.13: lost
        "gen-000002": [1, 1, 1, 0, 1, 1],  # 0 on average: promoted
        "gen-000003": [0, 0, 0, 0, 0, 0],  # against generation 2's: lost
    }
    calls = []

    def fake_guard(cfg, net, generation):
        calls.append((Path(net).name, generation))
        scores = np.array(played[Path(net).name], dtype=float)
        return {ref: scores for ref in az.spec_list(cfg.guard)}

    monkeypatch.setattr(az, "guard_scores", fake_guard)
    out = tmp_path / "run"
    bot = next(iter(game_spec("caylus").module("bots").BOTS))
    cfg = tiny("caylus", out, players=[2], gate_games=2, gate_score=0.0, eval_games=0,
               generations=3, league=f"random,{bot}", league_games=2,
               guard_games=6)  # fmt: skip
    train_az(cfg)
    entries = json.loads((out / "state.json").read_text())["generations"]
    assert [e["promoted"] for e in entries[1:]] == [False, True, False]
    assert [e["best"] for e in entries] == [0, 0, 2, 2]
    first = entries[1]["guard"]
    assert first["scores"] == {"random": pytest.approx(2 / 6)}
    assert first["best"] == {"random": pytest.approx(5 / 6)}
    se = np.std([-1, -1, 0, 0, 0, -1], ddof=1) / np.sqrt(6)
    assert first["difference"]["random"] == pytest.approx([-0.5, -0.5 + 1.645 * se])
    assert first["lost"] == ["random"] and first["margin"] == 0.0 and first["games"] == 6
    assert first["by_count"] == {"random": {"2": first["difference"]["random"]}}
    assert entries[2]["guard"]["lost"] == [] and entries[3]["guard"]["lost"] == ["random"]
    assert entries[3]["guard"]["best"] == {"random": pytest.approx(5 / 6)}  # generation 2's
    assert calls == [("gen-000000", 1), ("gen-000001", 1), ("gen-000000", 2),
                     ("gen-000002", 2), ("gen-000002", 3), ("gen-000003", 3)]  # fmt: skip
    text = " ".join(capsys.readouterr().out.split())
    assert "generation 1: guard vs random 0.333 (best 0.833, difference at most -0.132): " \
        "kept network 0 (lost more than 0.0 against random)" in text  # fmt: skip
    # the league opponents take turns, one a generation
    assert [e["league"]["opponent"] for e in entries[1:]] == ["random", bot, "random"]
    for g, opponent in ((1, "random"), (2, bot), (3, "random")):
        assert read_manifest(league_dir(out, g))["run"]["agents"][1] == opponent


def test_a_run_made_before_the_guard_and_the_league_resumes_without_them(caylus_run, tmp_path):
    """``run.json`` of a run made before ``--guard`` and ``--league`` lacks them: the run
    resumes as it was made (no guard, no league games), not refused for differing."""
    from training.config import AZ_ADDED_FIELDS

    out = tmp_path / "run"
    shutil.copytree(caylus_run, out)
    saved = json.loads((out / "run.json").read_text())
    for name in AZ_ADDED_FIELDS:
        del saved[name]
    (out / "run.json").write_text(json.dumps(saved))
    train_az(tiny("caylus", out, players=[2], gate_games=4, eval_games=0, generations=3,
                  resume=True))  # fmt: skip
    entry = json.loads((out / "state.json").read_text())["generations"][3]
    assert entry["league"] is None and entry["guard"] is None
    assert not league_dir(out, 3).exists() and league_dir(out, 2).is_dir()


def test_resume_redoes_only_the_unfinished_generation_and_gives_the_same_networks(
    caylus_run, tmp_path, capsys
):
    out = tmp_path / "run"
    shutil.copytree(caylus_run, out)
    # generation 2 in flight: its state entry not written, its network half written, one of
    # its self-play shards gone
    state = json.loads((out / "state.json").read_text())
    state["generations"] = state["generations"][:2]
    state["best"] = state["generations"][-1]["best"]
    (out / "state.json").write_text(json.dumps(state))
    (net_dir(out, 2) / "model.safetensors").write_bytes(b"half")
    data = selfplay_dir(out, 2)
    lines = (data / "shards.jsonl").read_text().splitlines()
    (data / "shards.jsonl").write_text("\n".join(lines[:-1]) + "\n")
    (data / "manifest.json").unlink()
    kept = weights(net_dir(out, 1))
    result = train_az(tiny("caylus", out, players=[2], gate_games=4, eval_games=0, resume=True))
    assert result.generations == 2
    # a moved run's unfinished self-play names the old network path: it is played again
    assert "resumed from the shards" not in capsys.readouterr().out
    assert weights(net_dir(out, 1)) == kept
    assert weights(net_dir(out, 2)) == weights(net_dir(caylus_run, 2))
    timing = ("selfplay_seconds", "learn_seconds")

    def decisions(run: Path) -> list[dict]:
        entries = json.loads((run / "state.json").read_text())["generations"]
        for e in entries:
            (e["league"] or {}).pop("seconds", None)
        return [{k: v for k, v in e.items() if k not in timing} for e in entries]

    assert decisions(out) == decisions(caylus_run)
    # a longer run continues where it stopped
    train_az(tiny("caylus", out, players=[2], gate_games=4, eval_games=0, generations=3,
                  resume=True))  # fmt: skip
    assert [e["generation"] for e in json.loads((out / "state.json").read_text())["generations"]] == [
        0, 1, 2, 3
    ]  # fmt: skip


def test_a_resume_in_place_keeps_the_written_shards_and_says_so(tmp_path, capsys):
    out = tmp_path / "run"
    train_az(tiny("caylus", out, players=[2], gate_games=4, eval_games=0))
    state = json.loads((out / "state.json").read_text())
    state["generations"] = state["generations"][:2]
    state["best"] = state["generations"][-1]["best"]
    (out / "state.json").write_text(json.dumps(state))
    data = selfplay_dir(out, 2)
    lines = (data / "shards.jsonl").read_text().splitlines()
    (data / "shards.jsonl").write_text("\n".join(lines[:-1]) + "\n")
    (data / "manifest.json").unlink()
    kept = (data / "decisions" / "part-00000.parquet").stat().st_mtime_ns
    capsys.readouterr()
    train_az(tiny("caylus", out, players=[2], gate_games=4, eval_games=0, resume=True))
    said = capsys.readouterr().out
    assert f"resuming: {len(lines) - 1} of {len(lines)} shards already written" in said
    assert (
        f"({len(lines) - 1} of the games resumed from the shards written before) with network"
    ) in said  # no positions/s of games this process did not play
    assert (data / "decisions" / "part-00000.parquet").stat().st_mtime_ns == kept


def _cli(*args: str) -> list[str]:
    return [sys.executable, "-m", "caylus_cli", "train", "az", "--no-progress", *args]


def test_resume_after_kill_9_gives_the_networks_of_an_uninterrupted_run(caylus_run, tmp_path):
    out = tmp_path / "killed"
    args = ["--out", str(out), "--game", "caylus", "--players", "2", "--generations", "2",
            "--games", "4", "--sims", "6", "--considered", "4", "--window", "2", "--epochs", "1",
            "--batch-size", "64", "--gate-games", "4", "--eval-games", "0", "--workers", "1",
            "--seed", str(SEED), "--eval-opponents", "random", "--guard", "random",
            "--guard-games", "6", "--league", "random", "--league-games", "3"]  # fmt: skip
    proc = subprocess.Popen(_cli(*args), stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    deadline = time.monotonic() + 300
    second = selfplay_dir(out, 2) / "run.json"
    while not second.exists() and proc.poll() is None and time.monotonic() < deadline:
        time.sleep(0.02)
    assert proc.poll() is None, "the run ended before it could be killed"
    os.kill(proc.pid, signal.SIGKILL)
    proc.wait()
    assert len(json.loads((out / "state.json").read_text())["generations"]) == 2
    resumed = subprocess.run(_cli(*args, "--resume"), capture_output=True, text=True, timeout=600)
    assert resumed.returncode == 0, resumed.stderr
    assert "best network after generation 2" in resumed.stdout
    for g in (0, 1, 2):
        assert weights(net_dir(out, g)) == weights(net_dir(caylus_run, g)), g
    assert not [p for p in (out / "nets").iterdir() if p.name.startswith(".tmp-")]


@pytest.mark.parametrize("game", GAME_NAMES)
def test_init_starts_from_a_shipped_ppo_network_and_keeps_what_its_value_head_means(game, tmp_path):
    from training.az import new_network

    name = sorted(n for n, g in shipped_checkpoints().items() if g == game and "ppo-" in n)[-1]
    cfg = tiny(game, tmp_path / "run", init=name)
    check_config(cfg)
    assert cfg.arch == PolicyNet(SHIPPED_DIR / name, game).arch.to_json()  # the init's network
    (tmp_path / "run").mkdir()
    net = new_network(cfg, tmp_path / "run")
    from safetensors.numpy import load_file

    theirs = PolicyNet(SHIPPED_DIR / name, game)
    ours = PolicyNet(net, game)
    assert ours.config["parent"] == name and ours.config["generation"] == 0
    assert ours.config["command"] == theirs.config.get("command", "")
    assert ours.shaping() == theirs.shaping()
    mine, shipped = (
        load_file(net / "model.safetensors"),
        load_file(SHIPPED_DIR / name / "model.safetensors"),
    )
    assert sorted(mine) == sorted(shipped)
    trained = theirs.trained_actions  # an older action space this build extends: fewer
    for key in mine:
        if key.startswith("action_net."):
            np.testing.assert_array_equal(mine[key][:trained], shipped[key])
        else:
            np.testing.assert_array_equal(mine[key], shipped[key])
    added = mine["action_net.bias"][trained:]
    assert len(added) == game_spec(game).engine().NUM_ACTIONS - trained
    assert (mine["action_net.weight"][trained:] == 0).all()  # learnable, neutral: the mean bias
    np.testing.assert_allclose(added, shipped["action_net.bias"].mean(), rtol=1e-6)
    made = []
    for name in ("new", "again"):  # no --init: a new network, seeded
        cfg = tiny(game, tmp_path / name)
        check_config(cfg)
        made.append(new_network(cfg, tmp_path / name))
    fresh, again = made
    assert weights(fresh) == weights(again) != weights(net)


def test_the_derived_seeds_differ_by_stream_and_generation():
    seeds = {derive_seed(0, s, g) for s in range(5) for g in range(50)}
    assert len(seeds) == 250 and all(0 <= s < 2**63 for s in seeds)
    assert derive_seed(3, 1, 2) == derive_seed(3, 1, 2) != derive_seed(4, 1, 2)


# -- refusals ---------------------------------------------------------------------------------------
def _az(*args: str):
    return runner.invoke(app, ["train", "az", "--no-progress", *args])


@pytest.mark.parametrize(
    "args, message",
    [
        (["--players", "9"], "--players 9 is not allowed; allowed: Caylus counts from 2 to 5"),
        (["--sims", "0"], "--sims must be an int from 1 to 20000, got 0"),
        (["--considered", "513"], "--considered must be an int from 1 to 512, got 513"),
        (["--games", "0"], "--games must be an int from 1 to 100000, got 0"),
        (["--window", "0"], "--window must be an int from 1"),
        (["--learning-rate", "nan"], "--learning-rate must be in (0.0, 1.0], got nan"),
        (["--gate-score", "1.5"], "--gate-score must be in [0.0, 1.0], got 1.5"),
        (["--value-weight", "-1"], "--value-weight must be in [0.0, 100.0], got -1.0"),
        (["--anchor-weight", "inf"], "--anchor-weight must be in [0.0, 100.0], got inf"),
        (["--eval-opponents", "random,ecnomy"], "--eval-opponents entry 'ecnomy' is not allowed"),
        (["--eval-opponents", "random,,economy"], "--eval-opponents entry '' is not allowed"),
        (["--guard", "ecnomy"], "--guard entry 'ecnomy' is not allowed"),
        (["--league", "random,"], "--league entry '' is not allowed"),
        (["--guard-margin", "-0.1"], "--guard-margin must be in [0.0, 1.0], got -0.1"),
        (["--guard-games", "-1"], "--guard-games must be an int from 0"),
        (["--league-games", "-1"], "--league-games must be an int from 0"),
        (["--backend", "spark"], "backend='spark' is not allowed; allowed: local, ray"),
        (["--workers", "0"], "workers=0 is not allowed"),
        (["--ray-address", "auto"], "--ray-address needs --backend ray"),
        (["--init", "{missing}"], "--init:"),
        (["--init", "ppo-puerto-rico"], "--init:"),
        (["--arch", '{"name": "nope"}'], "--arch:"),
        (["--resume"], "holds no training run"),
    ],
)
def test_bad_arguments_are_refused_in_one_line_before_anything_is_written(args, message, tmp_path):
    out = tmp_path / "run"
    args = [a.replace("{missing}", str(tmp_path / "missing")) for a in args]
    result = _az("--out", str(out), "--game", "caylus", *args)
    assert result.exit_code == 2, result.output
    assert message in " ".join(result.output.split()), result.output
    assert not out.exists()


def test_an_out_path_with_a_colon_is_refused(tmp_path):
    out = tmp_path / "a:b"
    result = _az("--out", str(out), "--game", "caylus")
    assert result.exit_code == 2 and "choose a path without ':'" in result.output
    assert not out.exists()


def test_an_existing_run_needs_resume_and_the_same_arguments(caylus_run):
    before = tree(caylus_run)
    base = tiny("caylus", caylus_run, players=[2], gate_games=4, eval_games=0)
    with pytest.raises(ValueError, match="add --resume"):
        train_az(base)
    with pytest.raises(ValueError, match="sims: 6 then, 8 now"):
        train_az(tiny("caylus", caylus_run, players=[2], gate_games=4, eval_games=0, sims=8,
                      resume=True))  # fmt: skip
    with pytest.raises(ValueError, match="holds a training run of game 'caylus'"):
        train_az(tiny("puerto_rico", caylus_run, players=[3], resume=True))
    assert tree(caylus_run) == before


def _tampered_states(state: dict) -> dict[str, object]:
    def entry(**change):
        s = json.loads(json.dumps(state))
        s["generations"][1].update(change)
        return s

    return {
        "not json": "{",
        "a list": [],
        "another format": {**state, "format": "caylus-az/9"},
        "no generations": {**state, "generations": []},
        "best not promoted": {**entry(promoted=False), "best": 1},
        "best ahead": {**state, "best": 7},
        "a negative count": entry(positions=-5),
        "a string count": entry(games="4"),
        "a bool count": entry(games=True),
        "an extra field": entry(extra=1),
        "a guard score above 1": entry(guard={"scores": {"random": 7}}),
        "a guard score that is not a number": entry(guard={"scores": {"random": "0.5"}}),
        "a generation out of order": entry(generation=5),
        "deep nesting": "[" * 100_000 + "]" * 100_000,
    }


@pytest.mark.parametrize("case", list(_tampered_states({"generations": [{}, {}]})))
def test_a_tampered_state_is_refused_naming_the_file_and_changes_nothing(
    caylus_run, tmp_path, case
):
    out = tmp_path / "run"
    shutil.copytree(caylus_run, out)
    state = json.loads((out / "state.json").read_text())
    bad = _tampered_states(state)[case]
    (out / "state.json").write_text(bad if isinstance(bad, str) else json.dumps(bad))
    before = tree(out)
    cfg = tiny("caylus", out, players=[2], gate_games=4, eval_games=0, generations=3, resume=True)
    with pytest.raises(ValueError, match=r"state\.json"):
        train_az(cfg)
    assert tree(out) == before


@pytest.mark.parametrize("kind", ["fifo", "directory", "link to /dev/zero", "huge"])
def test_a_state_file_that_is_not_a_bounded_regular_file_is_refused(caylus_run, tmp_path, kind):
    out = tmp_path / "run"
    shutil.copytree(caylus_run, out)
    path = out / "state.json"
    path.unlink()
    if kind == "fifo":
        os.mkfifo(path)
    elif kind == "directory":
        path.mkdir()
    elif kind == "link to /dev/zero":
        path.symlink_to("/dev/zero")
    else:
        path.write_text(" " * (1 << 25))
    cfg = tiny("caylus", out, players=[2], gate_games=4, eval_games=0, generations=3, resume=True)
    with pytest.raises(ValueError, match=r"state\.json"):
        train_az(cfg)


def test_a_best_network_whose_weights_changed_is_refused(caylus_run, tmp_path):
    out = tmp_path / "run"
    shutil.copytree(caylus_run, out)
    best = json.loads((out / "state.json").read_text())["best"]
    path = net_dir(out, best) / "model.safetensors"
    raw = bytearray(path.read_bytes())
    raw[-1] ^= 1
    path.write_bytes(bytes(raw))
    cfg = tiny("caylus", out, players=[2], gate_games=4, eval_games=0, generations=3, resume=True)
    with pytest.raises(ValueError, match="the best network"):
        train_az(cfg)


def test_a_warm_started_run_resumes_without_init_and_its_generation_0_is_the_init(tmp_path):
    from safetensors.numpy import load_file

    out = tmp_path / "warm"
    args = {"players": [2], "gate_games": 4, "eval_games": 0, "init": "ppo-caylus"}
    train_az(tiny("caylus", out, generations=1, **args))
    args.pop("init")
    result = train_az(tiny("caylus", out, generations=2, resume=True, **args))
    assert result.generations == 2
    saved = json.loads((out / "run.json").read_text())
    assert saved["init"] == "ppo-caylus" and saved["generations"] == 1  # the first command's
    mine = load_file(net_dir(out, 0) / "model.safetensors")
    shipped = load_file(SHIPPED_DIR / "ppo-caylus" / "model.safetensors")
    assert all(np.array_equal(mine[k], shipped[k]) for k in shipped)
    assert PolicyNet(net_dir(out, 2), "caylus").config["command"] == ""  # not the init's


def test_the_guards_per_game_rewards_are_the_matchs_games():
    """``checkpoint_rewards`` plays the games of ``play_checkpoint_counts`` (same split,
    same setups), one reward each: the guard's pairing rests on it."""
    from training.league import checkpoint_counts, checkpoint_rewards, play_checkpoint_counts

    net = SHIPPED_DIR / "ppo-caylus"
    rewards = checkpoint_rewards(net, "economy", 9, (2, 3), 5, "caylus")
    match = play_checkpoint_counts(net, "economy", 9, [2, 3], 5, "caylus")
    assert len(rewards) == match.games == 6 + 6  # 5 a count, rounded up to whole blocks
    assert ((rewards + 1) / 2).mean() == pytest.approx(match.score)
    assert (int((rewards > 0).sum()), int((rewards < 0).sum())) == (match.wins, match.losses)
    # each game's player count, in the rewards' order (the guard's by_count reads it)
    assert checkpoint_counts(9, (2, 3)).tolist() == [2] * 6 + [3] * 6
    two = checkpoint_rewards(net, "economy", 5, (2,), 5, "caylus")
    np.testing.assert_array_equal(rewards[:6], two)
