"""The batched environment: step-for-step equality with ``raw_env``, seeds, autoreset,
illegal actions, the Gymnasium ``VectorEnv`` (against ``SyncVectorEnv``) and the SB3
``VecEnv`` with ``MaskablePPO``."""

from __future__ import annotations

from typing import Any

import gymnasium
import numpy as np
import pytest
from gymnasium import spaces
from gymnasium.utils.env_checker import data_equivalence
from gymnasium.vector import AutoresetMode, SyncVectorEnv
from gymnasium.wrappers.vector import RecordEpisodeStatistics

from caylus_env import caylus_v0
from caylus_env.caylus.engine import Game, GameConfig, IllegalActionError, kernels
from caylus_env.caylus.engine.actions import NUM_ACTIONS
from caylus_env.caylus.engine.constants import MAX_PLAYERS
from caylus_env.caylus.observation import BOUNDS, OBS_SIZE
from caylus_env.core.vector import (
    CaylusVectorEnv,
    LearnerGames,
    VectorGames,
    episode_setup_seed,
)

OPTIONS = {"simplified_favors": True, "lawyer_prestige": 3, "jeweller": True, "house_cap": True}


def _pick(b: Any, rng: np.random.Generator) -> np.ndarray:
    """A uniformly random legal action per game."""
    n = len(b.num_legal)
    return b.legal[np.arange(n), (rng.random(n) * b.num_legal).astype(np.int64)].copy()


def _raw_mask(raw: Any) -> np.ndarray:
    return raw.observe(raw.agent_selection)["action_mask"]


def _bits(a: np.ndarray) -> np.ndarray:
    return np.ascontiguousarray(a).view(np.uint8)


# ---------------------------------------------------------------------------------------
# Step for step against raw_env
# ---------------------------------------------------------------------------------------
@pytest.mark.parametrize(
    ("counts", "options"),
    [
        ([2, 2], {}),
        ([3, 3], OPTIONS),
        ([4, 4], {}),
        ([5, 5], {}),
        ([2, 3, 4, 5, 3], {}),  # mixed player counts in one batch
    ],
    ids=["2p", "3p-variants", "4p", "5p", "mixed"],
)
def test_matches_raw_env_step_for_step(counts: list[int], options: dict[str, Any]) -> None:
    games = VectorGames(len(counts), counts, **options)
    b = games.reset(seed=11)
    raws = [caylus_v0.raw_env(num_players=n, **options) for n in counts]
    for k, raw in enumerate(raws):
        raw.reset(seed=int(games.setup_seeds[k]))
    rng = np.random.default_rng(5)
    ended = np.zeros(len(counts), np.int64)
    while ended.min() < 1:  # every game ends at least once, then is reset and played on
        for k, raw in enumerate(raws):
            seat = raw.possible_agents.index(raw.agent_selection)
            assert b.seat[k] == seat
            expected = raw.observe(raw.agent_selection)
            assert np.array_equal(_bits(b.obs[k]), _bits(expected["observation"]))
            assert np.array_equal(b.mask[k], expected["action_mask"])
            assert b.num_legal[k] == expected["action_mask"].sum()
        actions = _pick(b, rng)
        b = games.step(actions)
        for k, raw in enumerate(raws):
            actor = raw.agent_selection
            raw.step(int(actions[k]))
            done = all(raw.terminations.values())
            assert bool(b.terminated[k]) == done
            n = counts[k]
            expected_rewards = [raw.rewards[a] for a in raw.possible_agents] if done else [0] * n
            assert b.rewards[k, :n].tolist() == expected_rewards
            assert not b.rewards[k, n:].any()
            if done:
                ended[k] += 1
                final = raw.observe(actor)
                assert raw.agent_selection == actor  # raw_env's last view is the last actor's
                assert b.final_seat[k] == raw.possible_agents.index(actor)
                assert np.array_equal(_bits(b.final_obs[k]), _bits(final["observation"]))
                assert not final["action_mask"].any()
                prestige = [raw.infos[a]["final_prestige"] for a in raw.possible_agents]
                assert b.final_prestige[k, :n].tolist() == prestige
                assert games.episodes[k] == ended[k]
                assert games.setup_seeds[k] == episode_setup_seed(11, k, int(ended[k]))
                raw.reset(seed=int(games.setup_seeds[k]))


def test_global_state_matches_raw_env_state() -> None:
    games = VectorGames(3, [2, 4, 5])
    b = games.reset(seed=3)
    rng = np.random.default_rng(0)
    for _ in range(40):
        b = games.step(_pick(b, rng))
    state = games.state()
    assert state.shape == (3, OBS_SIZE) and state.dtype == np.float32
    for k in range(3):
        raw = caylus_v0.raw_env(num_players=int(games.num_players[k]))
        raw.load_state_dict(games.game(k).state_dict())
        assert np.array_equal(_bits(state[k]), _bits(raw.state()))


# ---------------------------------------------------------------------------------------
# Seeds and autoreset
# ---------------------------------------------------------------------------------------
def _trajectories(make: Any, num_envs: int, watched: int, steps: int) -> list[list[Any]]:
    """What games ``0..watched-1`` see over ``steps`` batch steps; game k's actions
    depend only on k and its own legal actions, never on the other games."""
    games = make(num_envs)
    b = games.reset(seed=2024)
    out: list[list[Any]] = [[] for _ in range(watched)]
    for t in range(steps):
        pick = (np.arange(num_envs) * 7919 + t * 104729) % b.num_legal
        actions = b.legal[np.arange(num_envs), pick]
        b = games.step(actions)
        for k in range(watched):
            out[k].append(
                (
                    b.obs[k].tobytes(),
                    b.mask[k].tobytes(),
                    b.rewards[k].tobytes(),
                    bool(b.terminated[k]),
                    int(b.seat[k]),
                    int(games.setup_seeds[k]),
                )
            )
    return out


@pytest.mark.parametrize(
    "make",
    [
        lambda n: VectorGames(n, 2),
        lambda n: LearnerGames(n, 2),
    ],
    ids=["self-play", "learner"],
)
def test_game_k_is_the_same_whatever_n(make: Any) -> None:
    small = _trajectories(make, 4, 4, 400)
    large = _trajectories(make, 16, 4, 400)
    assert small == large
    for k in range(4):
        resets = sum(step[3] for step in small[k])
        assert resets >= 2, "the run must cover auto-resets"
        assert len({step[5] for step in small[k]}) == resets + 1  # a new setup seed each time
    first, other = make(4), make(4)
    first.reset(seed=2024)
    other.reset(seed=2025)
    assert not np.intersect1d(first.setup_seeds, other.setup_seeds).size


def test_setup_seeds_follow_the_documented_derivation() -> None:
    games = VectorGames(5, [2, 3, 4, 5, 4])
    games.reset(seed=99)
    for k in range(5):
        seed = episode_setup_seed(99, k, 0)
        assert games.setup_seeds[k] == seed
        g = Game(GameConfig(num_players=int(games.num_players[k])), seed)
        assert np.array_equal(games.states[k], g.state)
    assert len(set(games.setup_seeds.tolist())) == 5
    again = VectorGames(5, [2, 3, 4, 5, 4])
    again.reset(seed=99)
    assert np.array_equal(again.states, games.states)


def test_seed_none_draws_and_records_a_seed() -> None:
    games = VectorGames(2)
    games.reset()
    assert isinstance(games.seed, int)
    replay = VectorGames(2)
    replay.reset(seed=games.seed)
    assert np.array_equal(replay.states, games.states)


def test_partial_reset_starts_the_next_episode_of_masked_games() -> None:
    games = VectorGames(3, 3)
    b = games.reset(seed=4)
    rng = np.random.default_rng(1)
    for _ in range(10):
        b = games.step(_pick(b, rng))
    before = games.states.copy()
    b = games.reset(reset_mask=np.array([False, True, False]))
    assert games.episodes.tolist() == [0, 1, 0]
    assert games.setup_seeds[1] == episode_setup_seed(4, 1, 1)
    assert np.array_equal(games.states[[0, 2]], before[[0, 2]])
    fresh = Game(GameConfig(num_players=3), episode_setup_seed(4, 1, 1))
    assert np.array_equal(games.states[1], fresh.state)
    with pytest.raises(ValueError, match="cannot be combined"):
        games.reset(seed=1, reset_mask=np.array([True, False, False]))
    with pytest.raises(ValueError, match="bool array of shape"):
        games.reset(reset_mask=np.array([1, 0, 0]))
    with pytest.raises(ValueError, match="at least one True"):
        games.reset(reset_mask=np.zeros(3, np.bool_))


def test_learner_view_plays_the_opponents() -> None:
    games = LearnerGames(6, [2, 3, 4, 5, 4, 3])
    b = games.reset(seed=8)
    rng = np.random.default_rng(2)
    ended = 0
    for _ in range(300):
        for k in range(6):
            s = games.states[k]
            assert kernels.current_player(s) == b.seat[k]  # always the learner's turn
            assert 0 <= b.seat[k] < games.num_players[k]
            raw = caylus_v0.raw_env(num_players=int(games.num_players[k]))
            raw.load_state_dict(games.game(k).state_dict())
            expected = raw.observe(f"player_{b.seat[k]}")
            assert np.array_equal(_bits(b.obs[k]), _bits(expected["observation"]))
            assert np.array_equal(b.mask[k], expected["action_mask"])
        seats = b.seat.copy()
        b = games.step(_pick(b, rng))
        for k in np.flatnonzero(b.terminated):
            ended += 1
            n = int(games.num_players[k])
            assert b.final_seat[k] == seats[k]  # the learner of the game that ended
            # the learner's rank reward (rules 8.21): +1 per seat beaten, -1 per seat ahead
            prestige = b.final_prestige[k, :n]
            beaten = (prestige < prestige[seats[k]]).sum()
            ahead = (prestige > prestige[seats[k]]).sum()
            assert b.rewards[k] == (beaten - ahead) / (n - 1)
        assert not b.rewards[~b.terminated].any()
    assert ended >= 6
    assert games.opponent_decisions > 0
    seats_seen = {(int(n), int(s)) for n, s in zip(games.num_players, games.learner, strict=True)}
    assert len(seats_seen) > 1


# ---------------------------------------------------------------------------------------
# Bad input
# ---------------------------------------------------------------------------------------
def test_illegal_action_names_the_game_and_steps_nothing() -> None:
    games = VectorGames(4, 3)
    b = games.reset(seed=1)
    actions = b.legal[:, 0].copy()
    illegal = int(np.flatnonzero(b.mask[2] == 0)[0])
    actions[2] = illegal
    states = games.states.copy()
    with pytest.raises(IllegalActionError, match=r"game 2: action \d+ \(.+\) is illegal for"):
        games.step(actions)
    assert np.array_equal(games.states, states)
    actions[2] = NUM_ACTIONS
    with pytest.raises(IllegalActionError, match="game 2: action 167 is out of range"):
        games.step(actions)
    actions[2] = -1
    with pytest.raises(IllegalActionError, match="game 2: action -1 is out of range"):
        games.step(actions)
    with pytest.raises(ValueError, match=r"shape \(4,\)"):
        games.step(actions[:3])
    with pytest.raises(ValueError, match="integer array"):
        games.step(actions.astype(np.float64))
    assert np.array_equal(games.states, states)
    b = games.step(b.legal[:, 0])  # the games still play on
    assert not b.terminated.any()


def test_outputs_are_read_only_views() -> None:
    games = VectorGames(2)
    b = games.reset(seed=0)
    with pytest.raises(ValueError, match="read-only"):
        b.mask[0, :] = 1  # a forged mask must not pass the legality check
    with pytest.raises(ValueError, match="read-only"):
        b.obs[0, 0] = 1.0


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"num_envs": 0}, "num_envs must be an int >= 1"),
        ({"num_envs": 2, "num_players": 6}, r"num_players\[0\]=6 is not allowed"),
        ({"num_envs": 2, "num_players": [2, 3, 4]}, "num_players has 3 entries"),
        ({"num_envs": 2, "num_players": "4"}, "num_players must be an int or a sequence"),
        ({"num_envs": 2, "lawyer_prestige": 5}, "lawyer_prestige=5 is not allowed"),
        ({"num_envs": 2, "jeweller": 1}, "jeweller must be True or False"),
    ],
)
def test_bad_arguments_are_refused(kwargs: dict[str, Any], message: str) -> None:
    with pytest.raises(ValueError, match=message):
        VectorGames(**kwargs)


def test_bad_opponents_seeds_and_order_are_refused() -> None:
    with pytest.raises(ValueError, match=r"opponent\[1\]='mcts' is not allowed"):
        LearnerGames(2, opponent=["random", "mcts"])
    with pytest.raises(ValueError, match="opponent has 1 entries"):
        LearnerGames(2, opponent=["random"])
    games = VectorGames(2)
    with pytest.raises(RuntimeError, match=r"call reset\(\) first"):
        games.step(np.zeros(2, np.int64))
    with pytest.raises(ValueError, match="seed must be None or an int >= 0"):
        games.reset(seed=-1)
    with pytest.raises(IndexError, match="game index 2 is out of range"):
        games.game(2)


# ---------------------------------------------------------------------------------------
# Gymnasium VectorEnv
# ---------------------------------------------------------------------------------------
class _OneGame(gymnasium.Env):
    """Reference single-game self-play env over ``raw_env``, seeded as game ``k`` of a
    vector env: ``SyncVectorEnv`` over these is what ``CaylusVectorEnv`` must equal."""

    metadata: dict[str, Any] = {"render_modes": []}  # noqa: RUF012

    def __init__(self, k: int, seed: int, num_players: int) -> None:
        self.k, self.base_seed, self.episode = k, seed, -1
        self.raw = caylus_v0.raw_env(num_players=num_players)
        self.observation_space = spaces.Dict(
            {
                "observation": spaces.Box(0.0, BOUNDS, (OBS_SIZE,), np.float32),
                "action_mask": spaces.Box(0, 1, (NUM_ACTIONS,), np.int8),
            }
        )
        self.action_space = spaces.Discrete(NUM_ACTIONS)

    def _seat(self) -> int:
        return self.raw.possible_agents.index(self.raw.agent_selection)

    def reset(self, *, seed: int | None = None, options: dict[str, Any] | None = None) -> Any:
        self.episode += 1
        self.raw.reset(seed=episode_setup_seed(self.base_seed, self.k, self.episode))
        return self.raw.observe(self.raw.agent_selection), {"seat": self._seat()}

    def step(self, action: int) -> Any:
        actor = self.raw.agent_selection
        self.raw.step(int(action))
        obs = self.raw.observe(self.raw.agent_selection)
        if not all(self.raw.terminations.values()):
            return obs, 0.0, False, False, {"seat": self._seat()}
        n = len(self.raw.possible_agents)
        seat_rewards = np.zeros(MAX_PLAYERS, np.float64)
        prestige = np.zeros(MAX_PLAYERS, np.int64)
        rank = np.zeros(MAX_PLAYERS, np.float64)
        for i, a in enumerate(self.raw.possible_agents):
            seat_rewards[i] = self.raw.rewards[a]
            prestige[i] = self.raw.infos[a]["final_prestige"]
            rank[i] = self.raw.infos[a]["rank"]
        info = {
            "seat_rewards": seat_rewards,
            "final_prestige": prestige,
            "rank": rank,
            "num_players": n,
        }
        return obs, float(self.raw.rewards[actor]), True, False, info


def test_gymnasium_vector_env_equals_sync_vector_env_same_step() -> None:
    counts = [2, 3, 4, 2]
    env = CaylusVectorEnv(len(counts), counts)
    reference = SyncVectorEnv(
        [lambda k=k, n=n: _OneGame(k, 77, n) for k, n in enumerate(counts)],
        autoreset_mode=AutoresetMode.SAME_STEP,
    )
    assert env.metadata["autoreset_mode"] == reference.metadata["autoreset_mode"]
    assert env.single_observation_space == reference.single_observation_space
    assert env.single_action_space == reference.single_action_space
    assert env.observation_space == reference.observation_space
    assert env.action_space == reference.action_space
    assert data_equivalence(env.reset(seed=77), reference.reset(), exact=True)
    rng = np.random.default_rng(3)
    obs, _ = env.reset(seed=77)
    ends = 0
    for _ in range(400):
        actions = np.array([rng.choice(np.flatnonzero(m)) for m in obs["action_mask"]])
        got = env.step(actions)
        want = reference.step(actions)
        assert data_equivalence(got, want, exact=True)
        obs, rewards, terminations, _, infos = got
        assert env.observation_space.contains(obs)
        assert rewards.dtype == np.float64 and terminations.dtype == np.bool_
        ends += int(terminations.sum())
        for k in np.flatnonzero(terminations):
            assert env.single_observation_space.contains(infos["final_obs"][k])
    assert ends >= 4


def test_gymnasium_api_checks() -> None:
    env = CaylusVectorEnv(3, [2, 5, 3])
    assert isinstance(env.metadata["autoreset_mode"], AutoresetMode)
    # reset determinism and seeding of np_random, as gymnasium's env checker asks of an Env
    first, info = env.reset(seed=5)
    assert env.np_random_seed == 5
    again, info_again = env.reset(seed=5)
    assert data_equivalence(first, again, exact=True)
    assert data_equivalence(info, info_again, exact=True)
    assert env.observation_space.contains(first)
    with pytest.raises(ValueError, match=r"unknown reset options \['level'\]"):
        env.reset(options={"level": 1})
    # step determinism and no reuse of returned data (copy=True)
    actions = first["action_mask"].argmax(axis=1)
    out_a = env.step(actions)
    env.reset(seed=5)
    out_b = env.step(actions)
    assert data_equivalence(out_a, out_b, exact=True)
    out_c = env.step(out_b[0]["action_mask"].argmax(axis=1))
    assert not np.shares_memory(out_b[0]["observation"], out_c[0]["observation"])
    # a partial reset reports info only for the games it started
    _, info = env.reset(options={"reset_mask": np.array([False, True, False])})
    assert info["_seat"].tolist() == [False, True, False]
    # Gymnasium's own vector wrappers run on it in its SAME_STEP mode
    stats = RecordEpisodeStatistics(env)
    obs, _ = stats.reset(seed=1)
    rng = np.random.default_rng(0)
    lengths = np.zeros(3, np.int64)
    episodes = 0
    for _ in range(700):
        obs, _, term, _, infos = stats.step(
            np.array([rng.choice(np.flatnonzero(m)) for m in obs["action_mask"]])
        )
        lengths += 1
        if term.any():
            assert infos["episode"]["l"][term].tolist() == lengths[term].tolist()
            lengths[term] = 0
            episodes += int(term.sum())
    assert episodes >= 3
    env.close()
    assert env.closed


# ---------------------------------------------------------------------------------------
# Stable-Baselines3 VecEnv and MaskablePPO
# ---------------------------------------------------------------------------------------
def test_sb3_vec_env_api() -> None:
    pytest.importorskip("stable_baselines3")
    from stable_baselines3.common.vec_env import VecCheckNan, VecEnv, VecMonitor

    from caylus_env.core.sb3 import CaylusVecEnv

    env = CaylusVecEnv(4, [2, 3, 4, 5], seed=3)
    assert isinstance(env, VecEnv)
    obs = env.reset()
    assert obs.shape == (4, OBS_SIZE) and obs.dtype == np.float32
    assert all(env.observation_space.contains(o) for o in obs)
    reference = LearnerGames(4, [2, 3, 4, 5])
    b = reference.reset(seed=3)
    assert np.array_equal(obs, b.obs)
    masks = env.action_masks()
    assert masks.dtype == np.bool_ and masks.shape == (4, NUM_ACTIONS)
    assert np.array_equal(np.stack(env.env_method("action_masks")), masks)
    assert len(env.env_method("action_masks", indices=[1, 3])) == 2
    assert env.has_attr("action_masks")
    assert env.get_attr("render_mode") == [None] * 4
    assert env.env_is_wrapped(gymnasium.Wrapper) == [False] * 4
    with pytest.raises(AttributeError, match="per-game methods"):
        env.env_method("render")
    with pytest.raises(ValueError, match="set it for all games"):
        env.set_attr("x", 1, indices=[0])
    # step: SB3's conventions, and the same games as LearnerGames under the same seed
    wrapped = VecMonitor(VecCheckNan(env, raise_exception=True))
    wrapped.seed(3)
    obs = wrapped.reset()
    rng = np.random.default_rng(1)
    finished = 0
    for _ in range(200):
        masks = env.action_masks()
        actions = np.array([rng.choice(np.flatnonzero(m)) for m in masks])
        obs, rewards, dones, infos = wrapped.step(actions)
        b = reference.step(actions)
        assert np.array_equal(obs, b.obs)
        assert rewards.dtype == np.float32 and dones.dtype == np.bool_
        assert np.array_equal(rewards, np.float32(b.rewards))
        assert np.array_equal(dones, b.terminated)
        assert isinstance(infos, list) and len(infos) == 4
        for k in np.flatnonzero(dones):
            finished += 1
            assert np.array_equal(infos[k]["terminal_observation"], b.final_obs[k])
            assert infos[k]["TimeLimit.truncated"] is False
            assert infos[k]["episode"]["r"] == rewards[k]  # VecMonitor's episode record
    assert finished >= 4
    masks = env.action_masks()
    actions = masks.argmax(axis=1)
    actions[1] = np.flatnonzero(~masks[1])[0]
    with pytest.raises(IllegalActionError, match="game 1: action"):
        env.step(actions)
    with pytest.raises(RuntimeError, match="call step_async"):
        env.step_wait()


def test_maskable_ppo_learns_on_it() -> None:
    pytest.importorskip("stable_baselines3")
    sb3_contrib = pytest.importorskip("sb3_contrib")
    from sb3_contrib.common.maskable.utils import get_action_masks, is_masking_supported

    from caylus_env.core.sb3 import CaylusVecEnv

    env = CaylusVecEnv(8, 3, seed=0)
    assert is_masking_supported(env)
    env.reset()
    assert np.array_equal(get_action_masks(env), env.action_masks())
    model = sb3_contrib.MaskablePPO(
        "MlpPolicy", env, n_steps=32, batch_size=64, n_epochs=1, seed=0, device="cpu"
    )
    model.learn(total_timesteps=256)
    assert model.num_timesteps >= 256
    obs = env.reset()
    actions, _ = model.predict(obs, action_masks=env.action_masks(), deterministic=True)
    assert env.action_masks()[np.arange(8), actions].all()


# ---------------------------------------------------------------------------------------
# The benchmark layer (plumbing only: speed is read by people, never asserted)
# ---------------------------------------------------------------------------------------
def test_benchmark_vector_layer_and_report(capsys: pytest.CaptureFixture[str]) -> None:
    from caylus_env.core import benchmark

    rate = benchmark.vector_rate(num_envs=4, num_players=3, decisions=400, repeats=1)
    assert rate > 0
    results = {
        "repeats": 1,
        "players": [3],
        "vector_envs": 4,
        "layers": {"raw_env_3p": 50_000.0, "vector_3p": 200_000.0},
        "anchors": {
            "pettingzoo_connect_four_env": None,
            "openspiel_chess": None,
            "openspiel_connect_four": None,
        },
        "state_bytes": 700,
        "state_copy_us": 0.1,
        "game_clone_us": 1.0,
    }
    benchmark.print_report(results)
    out = capsys.readouterr().out
    assert "vector_3p (N=4)" in out and "4.0x raw_env" in out
    with pytest.raises(ValueError, match="vector_envs must be >= 1"):
        benchmark.main(vector=True, vector_envs=0)


def test_cli_bench_vector_option(monkeypatch: pytest.MonkeyPatch) -> None:
    import sys
    import types

    from typer.testing import CliRunner

    from caylus_cli.app import app

    calls: list[dict[str, Any]] = []
    fake = types.ModuleType("caylus_env.core.benchmark")
    fake.main = lambda **kwargs: calls.append(kwargs)  # type: ignore[attr-defined]
    monkeypatch.setitem(sys.modules, "caylus_env.core.benchmark", fake)
    monkeypatch.setattr(sys.modules["caylus_env"], "benchmark", fake, raising=False)
    runner = CliRunner()
    result = runner.invoke(app, ["bench", "--vector", "--num-envs", "64", "--quick"])
    assert result.exit_code == 0, result.output
    assert calls == [{"quick": True, "vector": True, "vector_envs": 64}]
    assert runner.invoke(app, ["bench", "--num-envs", "64"]).exit_code == 2
    assert runner.invoke(app, ["bench", "--vector", "--num-envs", "0"]).exit_code == 2
    assert len(calls) == 1
