"""Checkpoints as agents (``agents.policy``), for every game: ``policy:PATH`` through the
agent registry, torch-free inference equal to the trained network, refusals naming what
differs, export, and checkpoints written before the change (the shipped ``ppo-2p``, a Puerto
Rico checkpoint of ``tests/legacy``)."""

from __future__ import annotations

import hashlib
import json
import shutil
import time
from pathlib import Path

import numpy as np
import pytest

from agents.policy import (
    CheckpointError,
    MlpArch,
    PiecesArch,
    PolicyAgent,
    PolicyNet,
    arch_from_json,
    choose,
    observation_groups,
)
from agents.registry import make_agent
from caylus_env.core.registry import DEFAULT_GAME, GAME_NAMES, game_spec
from tests.training.conftest import LAST, game_of_run, players_of

LEGACY = Path(__file__).parent.parent / "legacy"

games = pytest.mark.parametrize("game", GAME_NAMES)


def _positions(game: str, count: int, seed: int = 1) -> tuple[np.ndarray, np.ndarray]:
    """Observations and masks of ``count`` positions of random ``game`` games."""
    from caylus_env.core.vector import VectorGames

    vg = VectorGames(game, count, players_of(game))
    b = vg.reset(seed=seed)
    rng = np.random.default_rng(seed)
    for _ in range(25):
        pick = (rng.random(count) * b.num_legal).astype(np.int64)
        b = vg.step(b.legal[np.arange(count), pick])
    return b.obs.copy(), b.mask.view(np.bool_).copy()


def _play_whole_game(agent: PolicyAgent, game: str, seed: int) -> None:
    spec = game_spec(game)
    g = spec.new_game(spec.config(players_of(game)), seed=seed)
    moves = 0
    while not g.is_over():
        agent.reset(moves)
        g.apply(agent.act(g))  # Game.apply refuses an illegal action
        moves += 1
    assert moves > 10


# -- the networks ------------------------------------------------------------------------------
@games
def test_the_pieces_groups_cover_every_observation_index_once(game):
    layout = game_spec(game).observation().LAYOUT
    seat, space, rest = observation_groups(layout)
    every = np.concatenate([seat.reshape(-1), space.reshape(-1), rest])
    assert sorted(every.tolist()) == list(range(layout.size))
    assert space.shape[0] == layout.num_spaces  # no space encoder without space pieces
    shapes = PiecesArch().tensor_shapes(game)
    assert ("features_extractor.space.weight" in shapes) == bool(layout.space_pieces)


def test_archs_are_read_by_name_and_the_old_puerto_rico_name_is_mlp_v1():
    assert arch_from_json({"name": "pieces-v1"}) == PiecesArch()
    assert arch_from_json({"name": "pr-mlp-v1", "layers": [8]}) == MlpArch((8,))
    assert arch_from_json(MlpArch((4, 4)).to_json()) == MlpArch((4, 4))
    for bad, message in (
        ({"name": "resnet"}, "not supported; allowed: pieces-v1, mlp-v1, pr-mlp-v1"),
        ({"name": "mlp-v1", "layers": []}, "must be a list of 1 to 8 ints"),
        ({"name": "pieces-v1", "hidden": 0}, r"arch\.hidden must be an int in 1\.\.4096"),
        ({"name": "pieces-v1", "depth": 3}, "unknown fields"),
        ([1], "must be an object"),
    ):
        with pytest.raises(CheckpointError, match=message):
            arch_from_json(bad)


def test_numpy_inference_matches_the_trained_torch_policy(tiny_run):
    import torch
    from safetensors.torch import load_file

    from training.networks import masked_policy

    game = game_of_run(tiny_run)
    ckpt = tiny_run / "checkpoints" / LAST
    net = PolicyNet(ckpt, game)
    policy = masked_policy(net.arch, game, 1e-3)
    state = policy.state_dict()
    state.update(load_file(str(ckpt / "model.safetensors")))
    policy.load_state_dict(state)
    obs, _ = _positions(game, 8)
    with torch.no_grad():
        x = torch.as_tensor(obs)
        features = policy.extract_features(x, policy.pi_features_extractor)
        logits = policy.action_net(policy.mlp_extractor.forward_actor(features))
        value = policy.predict_values(x)
    np.testing.assert_allclose(net.logits(obs), logits.numpy(), rtol=1e-4, atol=1e-4)
    np.testing.assert_allclose(net.value(obs), value.numpy()[:, 0], rtol=1e-4, atol=1e-4)


def test_a_checkpoints_logits_do_not_depend_on_the_rest_of_the_batch(tiny_run):
    game = game_of_run(tiny_run)
    net = PolicyNet(tiny_run / "checkpoints" / LAST)
    obs, _ = _positions(game, 16, seed=2)
    whole = net.logits(obs)
    for k in (0, 7, 15):
        assert (net.logits(obs[k : k + 1]) == whole[k : k + 1]).all()  # bit for bit
    assert (net.logits(obs[3:11]) == whole[3:11]).all()


# -- policy:PATH ----------------------------------------------------------------------------------
@pytest.mark.parametrize("temperature", [1e-300, 1e-30, 5e-324])
def test_a_tiny_sampling_temperature_picks_the_best_legal_action_without_nan(temperature):
    """temp=T with T near 0 divides large logits into overflow: the draw must still be the
    best legal action (never an illegal one, never a NaN-driven pick)."""
    logits = np.array([[-np.inf, 3.0, 2.5, -np.inf], [1e30, -np.inf, -1e30, 0.0]], np.float32)
    with np.errstate(invalid="raise", divide="raise"):  # no NaN made, no division by 0
        picks = choose(logits, temperature, np.array([0.999, 0.0]))
    assert picks.tolist() == [1, 0]


def test_policy_spec_plays_whole_games_of_its_game_in_every_mode(tiny_run):
    game = game_of_run(tiny_run)
    ckpt = tiny_run / "checkpoints" / LAST
    for mode in ("", ":sample", ":temp=0.5"):
        agent = make_agent(f"policy:{ckpt}{mode}", game)
        assert isinstance(agent, PolicyAgent) and agent.game == game
        _play_whole_game(agent, game, seed=4)
    obs, mask = _positions(game, 6)
    actions = make_agent(f"policy:{ckpt}:sample", game).act_batch(obs, mask, np.full(6, 0.5))
    assert mask[np.arange(6), actions].all()


def test_a_policy_agent_gives_the_distribution_of_its_last_move(tiny_run):
    """``action_distribution``: the network's softmax over the legal actions (greedy: its
    argmax is the move; temp=T: the distribution the move was drawn from), one-hot for a
    forced move, None before any move; ``policy_target`` accepts it."""
    from agents.base import policy_target

    game_name = game_of_run(tiny_run)
    ckpt = tiny_run / "checkpoints" / LAST
    spec = game_spec(game_name)
    for mode, temperature in (("", 1.0), (":temp=0.5", 0.5)):
        agent = make_agent(f"policy:{ckpt}{mode}", game_name)
        agent.reset(1)
        assert agent.action_distribution() is None
        g = spec.new_game(spec.config(players_of(game_name)), 5)
        checked = 0
        while not g.is_over() and checked < 12:
            legal = g.legal_actions()
            action = agent.act(g)
            actions, probs = agent.action_distribution()
            assert actions == tuple(int(a) for a in legal)
            assert abs(sum(probs) - 1.0) < 1e-9 and min(probs) >= 0.0
            if len(legal) == 1:
                assert probs == (1.0,)
            else:
                g.legal_mask(agent._mask[0])
                agent._encode(g.state, g.current_player(), agent._obs[0])
                z = agent.net.logits(agent._obs, agent._mask)[0][list(legal)] / temperature
                want = np.exp(z - z.max()) / np.exp(z - z.max()).sum()
                np.testing.assert_allclose(probs, want, rtol=1e-5, atol=1e-9)
                checked += 1
                if not mode:
                    assert action == actions[int(np.argmax(probs))]
            assert policy_target(agent, action)[0] == actions
            g.apply(action)
        assert checked > 0


def test_another_games_checkpoint_is_refused_naming_both_games_and_versions(tiny_run):
    game = game_of_run(tiny_run)
    ckpt = tiny_run / "checkpoints" / LAST
    for other in (g for g in GAME_NAMES if g != game):
        with pytest.raises(CheckpointError) as err:
            make_agent(f"policy:{ckpt}", other)
        text = str(err.value)
        assert f"game '{game}'" in text and f"game '{other}'" in text
        theirs = game_spec(game).observation().OBSERVATION_VERSION
        ours = game_spec(other).observation().OBSERVATION_VERSION
        assert repr(theirs) in text and repr(ours) in text and f"--game {game}" in text


def test_a_tampered_checkpoint_is_refused_naming_the_file(tiny_run, tmp_path):
    game = game_of_run(tiny_run)
    bad = tmp_path / "tampered"
    shutil.copytree(tiny_run / "checkpoints" / LAST, bad)
    data = bytearray((bad / "model.safetensors").read_bytes())
    data[-5] ^= 0xFF
    (bad / "model.safetensors").write_bytes(bytes(data))
    with pytest.raises(CheckpointError, match=r"SHA-256 .* does not match config\.json"):
        make_agent(f"policy:{bad}", game)


def test_a_checkpoint_loaded_once_is_checked_again_after_it_changes(tiny_run, tmp_path):
    game = game_of_run(tiny_run)
    ckpt = tmp_path / "ck"
    shutil.copytree(tiny_run / "checkpoints" / LAST, ckpt)
    first, second = make_agent(f"policy:{ckpt}", game), make_agent(f"policy:{ckpt}", game)
    assert first.net is second.net  # loaded and verified once per process
    data = bytearray((ckpt / "model.safetensors").read_bytes())
    data[-9] ^= 0x01
    time.sleep(0.01)
    (ckpt / "model.safetensors").write_bytes(bytes(data))
    with pytest.raises(CheckpointError, match="SHA-256"):
        make_agent(f"policy:{ckpt}", game)


def test_a_checkpoint_of_another_version_or_network_is_refused_naming_both(tiny_run, tmp_path):
    game = game_of_run(tiny_run)
    bad = tmp_path / "old"
    shutil.copytree(tiny_run / "checkpoints" / LAST, bad)
    cfg = json.loads((bad / "config.json").read_text())
    cfg["observation_version"] = "0-deadbeef"
    (bad / "config.json").write_text(json.dumps(cfg))
    with pytest.raises(CheckpointError) as err:
        make_agent(f"policy:{bad}", game)
    ours = game_spec(game).observation().OBSERVATION_VERSION
    assert "'0-deadbeef'" in str(err.value) and repr(ours) in str(err.value)
    cfg = json.loads((tiny_run / "checkpoints" / LAST / "config.json").read_text())
    cfg["arch"] = {**cfg["arch"], "hidden": 64}
    (bad / "config.json").write_text(json.dumps(cfg))
    with pytest.raises(CheckpointError, match=r"the arch in config\.json needs float32"):
        make_agent(f"policy:{bad}", game)
    cfg["game"] = "chess"
    (bad / "config.json").write_text(json.dumps(cfg))
    with pytest.raises(CheckpointError, match="game 'chess' is not a game of this build"):
        PolicyNet(bad)


@pytest.mark.parametrize(
    ("spec", "message"),
    [
        ("policy:/nonexistent/dir", "is not a directory"),
        ("policy:", "needs an argument"),
    ],
)
@games
def test_bad_policy_specs_are_refused(spec, message, game):
    with pytest.raises(ValueError, match=message):
        make_agent(spec, game)


def test_a_bad_policy_mode_is_refused(tiny_run):
    game = game_of_run(tiny_run)
    with pytest.raises(ValueError, match="allowed: greedy, sample, temp=T"):
        make_agent(f"policy:{tiny_run / 'checkpoints' / LAST}:temp=-1", game)


def test_export_copies_the_network_only_and_it_plays_the_same(tiny_run, tmp_path):
    from training.checkpoints import export_policy

    game = game_of_run(tiny_run)
    src = tiny_run / "checkpoints" / LAST
    out = export_policy(src, tmp_path / "published")
    assert sorted(p.name for p in out.iterdir()) == ["config.json", "model.safetensors"]
    cfg = json.loads((out / "config.json").read_text())
    assert cfg["exported_from"] == src.name and cfg["step"] == 2048 and cfg["game"] == game
    assert set(cfg["sha256"]) == {"model.safetensors"}
    obs, _ = _positions(game, 5)
    np.testing.assert_array_equal(PolicyNet(out).logits(obs), PolicyNet(src).logits(obs))
    with pytest.raises(ValueError, match="exists"):
        export_policy(src, out)


def test_sampling_reaches_every_action_id_of_the_row():
    widest = max(game_spec(g).engine().NUM_ACTIONS for g in GAME_NAMES)
    logits = np.full((1, widest), -np.inf, np.float32)
    logits[0, [0, widest - 1]] = 0.0  # two legal actions, equally likely
    assert choose(logits, 1.0, np.array([0.25]))[0] == 0
    assert choose(logits, 1.0, np.array([0.75]))[0] == widest - 1


# -- checkpoints written before the change ------------------------------------------------------
#: Moves of the shipped ppo-2p recorded with the tree before the games were made peers
#: (greedy: a 2-player game of seed 0 and a 3-player game of seed 5, both seats played by it;
#: sampling: a 2-player game of seed 1, the agent reset with seed 7).
PPO_2P_GREEDY = {
    (2, 0): [10, 9, 12, 14, 3, 8, 0, 0, 0, 0, 89, 87, 10, 9, 14, 12, 3, 8, 0, 0, 0, 0, 89, 87,
             153, 1, 159, 14, 10, 9, 12, 3, 8, 15, 0, 0, 0, 0, 89, 86, 88, 153, 1, 159, 10, 14,
             12, 9, 8, 3, 15, 0, 0, 0, 0, 89, 86, 86, 153, 1],
    (3, 5): [10, 11, 12, 3, 14, 0, 0, 0, 83, 0, 0, 89, 87, 10, 11, 14, 12, 3, 0, 0, 0, 0, 0,
             0, 89, 87, 10, 11, 12, 14, 8, 3, 8, 15, 0, 0, 0, 0, 0, 0, 89, 87, 88, 152, 153,
             152, 1, 158, 11, 10, 14, 12, 3, 8, 0, 0, 0, 0, 0, 0],
}  # fmt: skip
PPO_2P_SAMPLE = [11, 12, 9, 14, 3, 8, 0, 0, 0, 0, 89, 87, 153, 159, 11, 9, 14, 12, 3, 15, 0, 0,
                 0, 0, 89, 86, 88, 14, 11, 12, 9, 8, 0, 3, 0, 0, 89, 86, 153, 1]  # fmt: skip
#: Moves of tests/legacy/puerto_rico_policy (pr-mlp-v1, one hidden layer of 8), recorded with
#: the tree before the change: a 2-player game of seed 3 and a 4-player game of seed 1.
LEGACY_PR = {
    (2, 3): [3, 4, 6, 0, 12, 12, 5, 2, 9, 9, 3, 4, 6, 0, 12, 12, 5, 2, 9, 9, 3, 4, 6, 0, 12, 9,
             5, 2, 9, 9, 3, 4, 6, 0, 9, 9, 5, 2, 9, 9, 3, 4, 6, 0, 12, 9, 5, 2, 9, 9],
    (4, 1): [4, 3, 6, 5, 4, 3, 6, 5, 3, 4, 5, 6, 3, 4, 5, 6, 3, 4, 2, 61, 61, 61, 61, 6, 3, 4,
             2, 9, 9, 9, 9, 6, 3, 4, 2, 9, 9, 9, 9, 6, 3, 4, 2, 9, 9, 9, 9, 5, 3, 4],
}  # fmt: skip


def _moves(agent: PolicyAgent, players: int, seed: int, count: int) -> list[int]:
    spec = game_spec(agent.game)
    g = spec.new_game(spec.config(players), seed=seed)
    moves: list[int] = []
    while not g.is_over() and len(moves) < count:
        moves.append(agent.act(g))
        g.apply(moves[-1])
    return moves


def test_the_shipped_ppo_2p_plays_the_moves_it_played_before_the_change():
    from agents.policy import shipped_checkpoints

    assert shipped_checkpoints()["ppo-2p"] == DEFAULT_GAME  # its config.json has no game
    for (players, seed), expected in PPO_2P_GREEDY.items():
        assert _moves(make_agent("ppo-2p", DEFAULT_GAME), players, seed, 60) == expected
    agent = make_agent("ppo-2p:sample", DEFAULT_GAME)
    agent.reset(7)
    assert _moves(agent, 2, 1, 40) == PPO_2P_SAMPLE


def test_a_puerto_rico_checkpoint_from_before_the_change_plays_as_policy_path():
    path = LEGACY / "puerto_rico_policy"
    game = json.loads((path / "config.json").read_text())["game"]
    agent = make_agent(f"policy:{path}", game)
    assert agent.net.arch == MlpArch((8,))  # arch "pr-mlp-v1" read as mlp-v1
    for (players, seed), expected in LEGACY_PR.items():
        assert _moves(agent, players, seed, 50) == expected
    for other in (g for g in GAME_NAMES if g != game):
        with pytest.raises(CheckpointError, match=f"checkpoint of game '{game}'"):
            make_agent(f"policy:{path}", other)


# -- a checkpoint of an older action space that this build's extends ---------------------------
def _older_space_copy(source: Path, out: Path, game: str, dropped: int) -> Path:
    """``source`` as if trained before the last ``dropped`` action ids its head scores were
    appended: its policy head cut to the first ids, its config naming that shorter space's
    version."""
    from safetensors.numpy import load, save

    from caylus_env.core.actions import version_of

    engine = game_spec(game).engine()
    shutil.copytree(source, out)
    tensors = load((out / "model.safetensors").read_bytes())
    kept = tensors["action_net.bias"].shape[0] - dropped  # its head may predate a new block
    tensors["action_net.weight"] = np.ascontiguousarray(tensors["action_net.weight"][:kept])
    tensors["action_net.bias"] = np.ascontiguousarray(tensors["action_net.bias"][:kept])
    data = save(tensors)
    (out / "model.safetensors").write_bytes(data)
    cfg = json.loads((out / "config.json").read_text())
    revision = int(engine.ACTION_SPACE_VERSION.split("-")[0])
    cfg["action_space_version"] = version_of(engine.ACTION_NAMES[:kept], revision)
    cfg["sha256"] = {"model.safetensors": hashlib.sha256(data).hexdigest()}
    (out / "config.json").write_text(json.dumps(cfg))
    return out


@games
def test_a_checkpoint_of_an_older_action_space_plays_the_ids_it_knows_and_the_rest_last(
    game, tmp_path
):
    from agents.policy import ADDED_ACTION_LOGIT, SHIPPED_DIR, shipped_checkpoints

    name = min(n for n, g in shipped_checkpoints().items() if g == game)
    source = SHIPPED_DIR / name
    old = _older_space_copy(source, tmp_path / "old", game, dropped=5)
    net = PolicyNet(old, game)
    full = PolicyNet(source, game)
    engine = game_spec(game).engine()
    assert net.trained_actions == full.trained_actions - 5
    assert net.num_actions == engine.NUM_ACTIONS
    obs, mask = _positions(game, 32)
    logits, ref = net.logits(obs), full.logits(obs)
    kept = net.trained_actions
    assert np.array_equal(logits[:, :kept], ref[:, :kept])  # the ids it was trained on
    assert (logits[:, kept:] == ADDED_ACTION_LOGIT).all()  # the appended ones: last resort
    only_new = np.zeros_like(mask)
    only_new[:, kept + 1 :] = True  # a decision whose legal ids all came after it: the first
    assert (choose(net.logits(obs, only_new), 0.0, None) == kept + 1).all()
    _play_whole_game(PolicyAgent("p", old), game, seed=3)
    with pytest.raises(CheckpointError, match="action_space_version"):
        PolicyNet(old, game, exact=True)  # training resumes and starts on its own space only


def test_a_checkpoint_of_an_unrelated_action_space_is_still_refused(tmp_path):
    from agents.policy import SHIPPED_DIR

    old = _older_space_copy(SHIPPED_DIR / "ppo-2p", tmp_path / "old", DEFAULT_GAME, dropped=5)
    cfg = json.loads((old / "config.json").read_text())
    cfg["action_space_version"] = "1-0badc0de"  # no prefix of this build's space
    (old / "config.json").write_text(json.dumps(cfg))
    with pytest.raises(CheckpointError, match="'1-0badc0de'"):
        PolicyNet(old, DEFAULT_GAME)
