"""Every game's compiled batched environment: step-for-step, bit-for-bit equality with its
``raw_env`` (truncations included), seeds independent of the batch size, autoreset, illegal
actions, the Gymnasium ``VectorEnv`` (against ``SyncVectorEnv``) and the SB3 ``VecEnv`` with
``MaskablePPO``."""

from __future__ import annotations

from typing import Any

import gymnasium
import numpy as np
import pytest
from gymnasium import spaces
from gymnasium.utils.env_checker import data_equivalence
from gymnasium.vector import AutoresetMode, SyncVectorEnv
from gymnasium.wrappers.vector import RecordEpisodeStatistics

import caylus_env
from caylus_env.core.game import IllegalActionError
from caylus_env.core.observation import MAX_PLAYERS
from caylus_env.core.registry import GAME_NAMES, game_spec
from caylus_env.core.vector import GameVectorEnv, LearnerGames, VectorGames, episode_setup_seed
from tests.conformance.conftest import raw_env


def _pick(b: Any, rng: np.random.Generator) -> np.ndarray:
    """A uniformly random legal action per game."""
    n = len(b.num_legal)
    return b.legal[np.arange(n), (rng.random(n) * b.num_legal).astype(np.int64)].copy()


def _bits(a: np.ndarray) -> np.ndarray:
    return np.ascontiguousarray(a).view(np.uint8)


def _cases() -> list[tuple[str, list[int], dict[str, Any]]]:
    out = []
    for game in GAME_NAMES:
        spec = game_spec(game)
        counts = list(spec.player_counts)
        for options in spec.option_sets.values():
            out.append((game, counts + counts[:1], dict(options)))  # mixed counts in one batch
        if spec.truncating_options:
            out.append((game, counts, dict(spec.truncating_options)))
    return out


# -- step for step against raw_env ------------------------------------------------------------
@pytest.mark.parametrize(
    ("game", "counts", "options"), _cases(), ids=lambda v: str(v) if isinstance(v, str) else None
)
def test_matches_raw_env_step_for_step(game: str, counts: list[int], options: dict) -> None:
    games = VectorGames(game, len(counts), counts, **options)
    b = games.reset(seed=11)
    raws = [raw_env(game, n, **options) for n in counts]
    for k, raw in enumerate(raws):
        raw.reset(seed=int(games.setup_seeds[k]))
    rng = np.random.default_rng(5)
    ended = np.zeros(len(counts), np.int64)
    while ended.min() < 1:  # every game ends at least once, then is reset and played on
        for k, raw in enumerate(raws):
            assert b.seat[k] == raw.possible_agents.index(raw.agent_selection)
            expected = raw.observe(raw.agent_selection)
            assert np.array_equal(_bits(b.obs[k]), _bits(expected["observation"]))
            assert np.array_equal(b.mask[k], expected["action_mask"])
            assert b.num_legal[k] == expected["action_mask"].sum()
        actions = _pick(b, rng)
        b = games.step(actions)
        for k, raw in enumerate(raws):
            actor = raw.agent_selection
            raw.step(int(actions[k]))
            n = counts[k]
            terminated, truncated = all(raw.terminations.values()), all(raw.truncations.values())
            assert bool(b.terminated[k]) == terminated and bool(b.truncated[k]) == truncated
            done = terminated or truncated
            expected_rewards = [raw.rewards[a] for a in raw.possible_agents] if done else [0] * n
            assert b.rewards[k, :n].tolist() == expected_rewards
            assert not b.rewards[k, n:].any()
            if done:
                ended[k] += 1
                final = raw.observe(actor)
                assert b.final_seat[k] == raw.possible_agents.index(actor)
                assert np.array_equal(_bits(b.final_obs[k]), _bits(final["observation"]))
                scores = [raw.infos[a]["final_score"] for a in raw.possible_agents]
                assert b.final_scores[k, :n].tolist() == scores
                assert games.episodes[k] == ended[k]
                assert games.setup_seeds[k] == episode_setup_seed(11, k, int(ended[k]))
                raw.reset(seed=int(games.setup_seeds[k]))


def test_global_state_matches_raw_env_state(game: str) -> None:
    counts = [2, 4, 5]
    games = VectorGames(game, 3, counts)
    b = games.reset(seed=3)
    rng = np.random.default_rng(0)
    for _ in range(40):
        b = games.step(_pick(b, rng))
    state = games.state()
    assert state.shape == (3, games.obs_size) and state.dtype == np.float32
    for k in range(3):
        raw = raw_env(game, int(games.num_players[k]))
        raw.load_state_dict(games.game(k).state_dict())
        assert np.array_equal(_bits(state[k]), _bits(raw.state()))


# -- seeds and autoreset ------------------------------------------------------------------------
def _trajectories(make: Any, num_envs: int, watched: int, steps: int) -> list[list[Any]]:
    """What games ``0..watched-1`` see over ``steps`` batch steps; game k's actions depend only
    on k and its own legal actions, never on the other games."""
    games = make(num_envs)
    b = games.reset(seed=2024)
    out: list[list[Any]] = [[] for _ in range(watched)]
    for t in range(steps):
        pick = (np.arange(num_envs) * 7919 + t * 104729) % b.num_legal
        b = games.step(b.legal[np.arange(num_envs), pick])
        for k in range(watched):
            out[k].append(
                (
                    b.obs[k].tobytes(),
                    b.mask[k].tobytes(),
                    b.rewards[k].tobytes(),
                    bool(b.terminated[k] or b.truncated[k]),
                    int(b.seat[k]),
                    int(games.setup_seeds[k]),
                )
            )
    return out


@pytest.mark.parametrize("view", [VectorGames, LearnerGames], ids=["self-play", "learner"])
def test_game_k_is_the_same_whatever_n(game: str, view: Any) -> None:
    def make(n: int) -> Any:
        return view(game, n, 2)

    small = _trajectories(make, 4, 4, 700)
    large = _trajectories(make, 16, 4, 700)
    assert small == large
    for k in range(4):
        resets = sum(step[3] for step in small[k])
        assert resets >= 1, "the run must cover auto-resets"
        assert len({step[5] for step in small[k]}) == resets + 1  # a new setup seed each time
    first, other = make(4), make(4)
    first.reset(seed=2024)
    other.reset(seed=2025)
    assert not np.intersect1d(first.setup_seeds, other.setup_seeds).size


def test_setup_seeds_follow_the_documented_derivation(game: str) -> None:
    spec = game_spec(game)
    counts = list(spec.player_counts)
    games = VectorGames(game, len(counts), counts)
    games.reset(seed=99)
    for k, n in enumerate(counts):
        seed = episode_setup_seed(99, k, 0)
        assert games.setup_seeds[k] == seed
        assert np.array_equal(games.states[k], spec.new_game(spec.config(n), seed).state)
    again = VectorGames(game, len(counts), counts)
    again.reset(seed=99)
    assert np.array_equal(again.states, games.states)
    drawn = VectorGames(game, 2)
    drawn.reset()
    assert isinstance(drawn.seed, int)
    redo = VectorGames(game, 2)
    redo.reset(seed=drawn.seed)
    assert np.array_equal(redo.states, drawn.states)


def test_partial_reset_starts_the_next_episode_of_masked_games(game: str) -> None:
    spec = game_spec(game)
    games = VectorGames(game, 3, 3)
    b = games.reset(seed=4)
    rng = np.random.default_rng(1)
    for _ in range(10):
        b = games.step(_pick(b, rng))
    before = games.states.copy()
    games.reset(reset_mask=np.array([False, True, False]))
    assert games.episodes.tolist() == [0, 1, 0]
    assert np.array_equal(games.states[[0, 2]], before[[0, 2]])
    fresh = spec.new_game(spec.config(3), episode_setup_seed(4, 1, 1))
    assert np.array_equal(games.states[1], fresh.state)
    with pytest.raises(ValueError, match="cannot be combined"):
        games.reset(seed=1, reset_mask=np.array([True, False, False]))
    with pytest.raises(ValueError, match="bool array of shape"):
        games.reset(reset_mask=np.array([1, 0, 0]))
    with pytest.raises(ValueError, match="at least one True"):
        games.reset(reset_mask=np.zeros(3, np.bool_))


def test_learner_view_plays_the_opponents(game: str) -> None:
    engine = game_spec(game).engine()
    counts = [2, 3, 4, 5, 4, 3]
    games = LearnerGames(game, 6, counts)
    b = games.reset(seed=8)
    rng = np.random.default_rng(2)
    ended = 0
    for _ in range(400):
        for k in range(6):
            assert engine.kernels.current_player(games.states[k]) == b.seat[k]  # the learner's turn
            raw = raw_env(game, int(games.num_players[k]))
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
            # the learner's rank reward: +1 per seat it is ahead of, -1 per seat ahead of it
            scores, ties = b.final_scores[k, :n], games.final_tie_breaks[k, :n]
            key = scores * 2**20 + ties
            beaten = (key < key[seats[k]]).sum()
            ahead = (key > key[seats[k]]).sum()
            assert b.rewards[k] == (beaten - ahead) / (n - 1)
        assert not b.rewards[~b.terminated].any()
    assert ended >= 3 and games.opponent_decisions > 0


# -- bad input ----------------------------------------------------------------------------------
def test_illegal_action_names_the_game_and_steps_nothing(game: str) -> None:
    num_actions = game_spec(game).engine().NUM_ACTIONS
    games = VectorGames(game, 4, 3)
    b = games.reset(seed=1)
    actions = b.legal[:, 0].copy()
    actions[2] = int(np.flatnonzero(b.mask[2] == 0)[0])
    states = games.states.copy()
    with pytest.raises(IllegalActionError, match=r"game 2: action \d+ \(.+\) is illegal for"):
        games.step(actions)
    assert np.array_equal(games.states, states)
    actions[2] = num_actions
    with pytest.raises(IllegalActionError, match=f"game 2: action {num_actions} is out of range"):
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
        ({"num_envs": 2, "speed": 3}, "unknown game options"),
    ],
)
def test_bad_arguments_are_refused(game: str, kwargs: dict[str, Any], message: str) -> None:
    with pytest.raises(ValueError, match=message):
        VectorGames(game, **kwargs)


def test_bad_opponents_seeds_and_order_are_refused(game: str) -> None:
    with pytest.raises(ValueError, match=r"opponent\[1\]='mcts' is not allowed"):
        LearnerGames(game, 2, opponent=["random", "mcts"])
    with pytest.raises(ValueError, match="opponent has 1 entries"):
        LearnerGames(game, 2, opponent=["random"])
    games = VectorGames(game, 2)
    with pytest.raises(RuntimeError, match=r"call reset\(\) first"):
        games.step(np.zeros(2, np.int64))
    with pytest.raises(ValueError, match="seed must be None or an int >= 0"):
        games.reset(seed=-1)
    with pytest.raises(IndexError, match="game index 2 is out of range"):
        games.game(2)
    with pytest.raises(ValueError, match="unknown game 'go'"):
        VectorGames("go", 2)


# -- Gymnasium VectorEnv --------------------------------------------------------------------------
class _OneGame(gymnasium.Env):
    """Reference single-game self-play env over a game's ``raw_env``, seeded as game ``k`` of a
    vector env: ``SyncVectorEnv`` over these is what ``GameVectorEnv`` must equal."""

    metadata: dict[str, Any] = {"render_modes": []}  # noqa: RUF012

    def __init__(self, game: str, k: int, seed: int, num_players: int) -> None:
        self.game, self.k, self.base_seed, self.episode = game, k, seed, -1
        self.spec_of_game = game_spec(game)
        self.raw = raw_env(game, num_players)
        self.observation_space = self.raw.observation_space("player_0")
        self.action_space = self.raw.action_space("player_0")

    def _seat(self) -> int:
        return self.raw.possible_agents.index(self.raw.agent_selection)

    def _info(self, obs: dict) -> dict[str, Any]:
        return {"seat": self._seat(), "action_mask": obs["action_mask"]}

    def reset(self, *, seed: int | None = None, options: dict[str, Any] | None = None) -> Any:
        self.episode += 1
        self.raw.reset(seed=episode_setup_seed(self.base_seed, self.k, self.episode))
        obs = self.raw.observe(self.raw.agent_selection)
        return obs, self._info(obs)

    def step(self, action: int) -> Any:
        actor = self.raw.agent_selection
        self.raw.step(int(action))
        obs = self.raw.observe(self.raw.agent_selection)
        terminated, truncated = (
            all(self.raw.terminations.values()),
            all(self.raw.truncations.values()),
        )
        if not (terminated or truncated):
            return obs, 0.0, False, False, self._info(obs)
        n = len(self.raw.possible_agents)
        seat_rewards = np.zeros(MAX_PLAYERS, np.float64)
        score = np.zeros(MAX_PLAYERS, np.int64)
        rank = np.zeros(MAX_PLAYERS, np.float64)
        for i, a in enumerate(self.raw.possible_agents):
            seat_rewards[i] = self.raw.rewards[a]
            score[i] = self.raw.infos[a]["final_score"]
            rank[i] = self.raw.infos[a]["rank"]
        info = {"seat_rewards": seat_rewards, "final_score": score, "rank": rank, "num_players": n}
        info.setdefault(f"final_{self.spec_of_game.score_key}", score.copy())
        return obs, float(self.raw.rewards[actor]), terminated, truncated, info


def test_gymnasium_vector_env_equals_sync_vector_env_same_step(game: str) -> None:
    counts = [2, 3, 4, 2]
    env = caylus_env.make_vector(game, len(counts), num_players=counts)
    assert isinstance(env, GameVectorEnv)
    reference = SyncVectorEnv(
        [lambda k=k, n=n: _OneGame(game, k, 77, n) for k, n in enumerate(counts)],
        autoreset_mode=AutoresetMode.SAME_STEP,
    )
    assert env.metadata["autoreset_mode"] == reference.metadata["autoreset_mode"]
    assert env.metadata["name"] == f"{game_spec(game).env_name}_vector"
    assert env.single_observation_space == reference.single_observation_space
    assert env.single_action_space == reference.single_action_space
    assert env.observation_space == reference.observation_space
    assert env.action_space == reference.action_space
    assert data_equivalence(env.reset(seed=77), reference.reset(), exact=True)
    rng = np.random.default_rng(3)
    obs, _ = env.reset(seed=77)
    ends = 0
    for _ in range(1500):
        actions = np.array([rng.choice(np.flatnonzero(m)) for m in obs["action_mask"]])
        got = env.step(actions)
        assert data_equivalence(got, reference.step(actions), exact=True)
        obs, rewards, terminations, truncations, infos = got
        assert env.observation_space.contains(obs)
        assert np.array_equal(env.action_masks(), obs["action_mask"].astype(bool))
        assert np.array_equal(infos["action_mask"], obs["action_mask"])
        assert rewards.dtype == np.float64 and terminations.dtype == np.bool_
        ends += int((terminations | truncations).sum())
        for k in np.flatnonzero(terminations | truncations):
            assert env.single_observation_space.contains(infos["final_obs"][k])
    assert ends >= 2


RECORD_STATS_SAME_STEP_LAG = int(
    tuple(int(x) for x in gymnasium.__version__.split(".")[:2]) < (1, 4)
)
"""Steps by which Gymnasium's vector ``RecordEpisodeStatistics`` under-counts every episode
but the first of each game of a SAME_STEP-autoreset env: 1 before Gymnasium 1.4 (it assumed
NEXT_STEP autoreset; fixed by Farama-Foundation/Gymnasium#1624), 0 since. ``ray[rllib]`` 2.60
pins Gymnasium 1.2.2, so both are met here."""


def test_gymnasium_api_checks(game: str) -> None:
    env = caylus_env.make_vector(game, 3, num_players=[2, 5, 3])
    first, info = env.reset(seed=5)
    assert env.np_random_seed == 5
    again, info_again = env.reset(seed=5)
    assert data_equivalence(first, again, exact=True)
    assert data_equivalence(info, info_again, exact=True)
    assert env.observation_space.contains(first)
    with pytest.raises(ValueError, match=r"unknown reset options \['level'\]"):
        env.reset(options={"level": 1})
    actions = first["action_mask"].argmax(axis=1)
    out_a = env.step(actions)
    env.reset(seed=5)
    out_b = env.step(actions)
    assert data_equivalence(out_a, out_b, exact=True)
    out_c = env.step(out_b[0]["action_mask"].argmax(axis=1))
    assert not np.shares_memory(out_b[0]["observation"], out_c[0]["observation"])
    _, info = env.reset(options={"reset_mask": np.array([False, True, False])})
    assert info["_seat"].tolist() == [False, True, False]
    stats = RecordEpisodeStatistics(env)
    obs, _ = stats.reset(seed=1)
    rng = np.random.default_rng(0)
    lengths = np.zeros(3, np.int64)
    later = np.zeros(3, np.int64)  # 1 once a game has ended an episode
    episodes = 0
    for _ in range(2000):
        obs, _, term, trunc, infos = stats.step(
            np.array([rng.choice(np.flatnonzero(m)) for m in obs["action_mask"]])
        )
        lengths += 1
        done = term | trunc
        if done.any():
            counted = lengths - later * RECORD_STATS_SAME_STEP_LAG
            assert infos["episode"]["l"][done].tolist() == counted[done].tolist()
            lengths[done] = 0
            later[done] = 1
            episodes += int(done.sum())
    assert episodes >= 3
    env.close()
    assert env.closed


# -- Stable-Baselines3 VecEnv and MaskablePPO -------------------------------------------------------
def test_sb3_vec_env_api(game: str) -> None:
    pytest.importorskip("stable_baselines3")
    from stable_baselines3.common.vec_env import VecCheckNan, VecEnv, VecMonitor

    from caylus_env.core.sb3 import GameVecEnv

    spec = game_spec(game)
    env = GameVecEnv(game, 4, [2, 3, 4, 5], seed=3)
    assert isinstance(env, VecEnv)
    obs = env.reset()
    assert obs.shape == (4, spec.observation().OBS_SIZE) and obs.dtype == np.float32
    assert all(env.observation_space.contains(o) for o in obs)
    reference = LearnerGames(game, 4, [2, 3, 4, 5])
    b = reference.reset(seed=3)
    assert np.array_equal(obs, b.obs)
    masks = env.action_masks()
    assert masks.dtype == np.bool_ and masks.shape == (4, spec.engine().NUM_ACTIONS)
    assert np.array_equal(np.stack(env.env_method("action_masks")), masks)
    assert len(env.env_method("action_masks", indices=[1, 3])) == 2
    assert env.get_attr("render_mode") == [None] * 4
    assert env.env_is_wrapped(gymnasium.Wrapper) == [False] * 4
    with pytest.raises(AttributeError, match="per-game methods"):
        env.env_method("render")
    with pytest.raises(ValueError, match="set it for all games"):
        env.set_attr("x", 1, indices=[0])
    wrapped = VecMonitor(VecCheckNan(env, raise_exception=True))
    wrapped.seed(3)
    wrapped.reset()
    rng = np.random.default_rng(1)
    finished = 0
    for _ in range(800):
        masks = env.action_masks()
        actions = np.array([rng.choice(np.flatnonzero(m)) for m in masks])
        obs, rewards, dones, infos = wrapped.step(actions)
        b = reference.step(actions)
        assert np.array_equal(obs, b.obs)
        assert rewards.dtype == np.float32 and dones.dtype == np.bool_
        assert np.array_equal(rewards, np.float32(b.rewards))
        assert np.array_equal(dones, b.terminated | b.truncated)
        for k in np.flatnonzero(dones):
            finished += 1
            assert np.array_equal(infos[k]["terminal_observation"], b.final_obs[k])
            assert infos[k]["TimeLimit.truncated"] is bool(b.truncated[k])
            assert infos[k]["episode"]["r"] == rewards[k]  # VecMonitor's episode record
            assert infos[k][f"final_{spec.score_key}"] == infos[k]["final_score"]
    assert finished >= 2
    masks = env.action_masks()
    actions = masks.argmax(axis=1)
    actions[1] = np.flatnonzero(~masks[1])[0]
    with pytest.raises(IllegalActionError, match="game 1: action"):
        env.step(actions)
    with pytest.raises(RuntimeError, match="call step_async"):
        env.step_wait()


@pytest.mark.parametrize("game", [g for g in GAME_NAMES if game_spec(g).truncating_options])
def test_sb3_vec_env_reports_truncations(game: str) -> None:
    pytest.importorskip("stable_baselines3")
    from caylus_env.core.sb3 import GameVecEnv

    env = GameVecEnv(game, 3, 3, seed=0, **game_spec(game).truncating_options)
    env.reset()
    truncated = 0
    for _ in range(200):
        masks = env.action_masks()
        _, rewards, dones, infos = env.step(masks.argmax(axis=1))
        for k in np.flatnonzero(dones):
            assert infos[k]["TimeLimit.truncated"] is True and rewards[k] == 0.0
            truncated += 1
    assert truncated >= 3


def test_maskable_ppo_learns_on_it(game: str) -> None:
    pytest.importorskip("stable_baselines3")
    sb3_contrib = pytest.importorskip("sb3_contrib")
    from sb3_contrib.common.maskable.utils import get_action_masks, is_masking_supported

    from caylus_env.core.sb3 import GameVecEnv

    env = GameVecEnv(game, 8, 3, seed=0)
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
    assert isinstance(env.observation_space, spaces.Box)
