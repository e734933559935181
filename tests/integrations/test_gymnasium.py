"""The registered Gymnasium env of every game (``caylus_env/<Game>-v0``: one learner seat,
agents in the other seats, ``agents.seat_env.SeatEnv``): registered on ``import caylus_env``
in either import order, Gymnasium's ``check_env`` without a warning, the AEC env's rewards,
observations and infos move by move, its seats, opponents, masks, illegal actions and
truncation, ``gymnasium.make_vec`` (sync and async) and sb3-contrib's ``MaskablePPO`` with no
glue, the normalized observation, and the rule that picks the default opponent."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
import warnings
from pathlib import Path

import gymnasium
import numpy as np
import pytest
from gymnasium.utils.env_checker import check_env

import caylus_env
from agents.policy import SHIPPED_DIR, CheckpointError, best_shipped, read_config
from agents.registry import register
from agents.seat_env import SeatEnv
from caylus_env.core.env import ILLEGAL_REWARD, normalize_observation
from caylus_env.core.errors import IllegalActionError
from caylus_env.core.registry import GAME_NAMES, game_spec
from caylus_env.gym_registration import ENTRY_POINT, env_id, env_ids

ROOT = Path(__file__).resolve().parents[2]
#: Games whose options cut random play off by a decision cap (truncation).
TRUNCATING = [g for g in GAME_NAMES if game_spec(g).truncating_options is not None]
SUBPROCESS_TIMEOUT_S = 600  # a hang backstop: a fresh interpreter loads the kernel cache
#: Most vector steps to see two games end (a random 2-player game: a few hundred decisions).
VECTOR_STEPS = 2000


@pytest.fixture(params=GAME_NAMES)
def game(request: pytest.FixtureRequest) -> str:
    return str(request.param)


def _legal(info: dict) -> np.ndarray:
    return np.flatnonzero(info["action_mask"])


def _play(env, seed: int, rng: np.random.Generator):
    """One episode of masked random moves: ``[(obs, info)]`` of every learner decision, then
    the last step's ``(obs, reward, terminated, truncated, info)``; every reward before the
    end is checked to be 0."""
    obs, info = env.reset(seed=seed)
    seen = [(obs, info)]
    while True:
        obs, reward, terminated, truncated, info = env.step(int(rng.choice(_legal(info))))
        if terminated or truncated:
            return seen, (obs, reward, terminated, truncated, info)
        assert reward == 0.0
        seen.append((obs, info))


# -- registration -----------------------------------------------------------------------------
def test_every_game_has_one_id_in_gymnasiums_namespace_convention():
    assert env_ids() == {
        "caylus": "caylus_env/Caylus-v0",
        "puerto_rico": "caylus_env/PuertoRico-v0",
        "caylus_1303": "caylus_env/Caylus1303-v0",
    }
    for name, gym_id in env_ids().items():
        spec = gymnasium.spec(gym_id)
        assert (spec.namespace, spec.version) == ("caylus_env", 0)
        assert spec.entry_point == ENTRY_POINT and spec.kwargs == {"game": name}
        env = gymnasium.make(gym_id, num_players=2, opponents="random")
        assert isinstance(env.unwrapped, SeatEnv) and env.unwrapped.game_name == name
    with pytest.raises(ValueError, match="unknown game 'chess'; allowed: caylus"):
        env_id("chess")


#: Registering reads the registry's names only: no game's folder is imported by it.
NO_GAME_LOADED = (
    "from caylus_env.core.registry import GAME_PACKAGES\n"
    "assert not [m for m in sys.modules if m.startswith(GAME_PACKAGES)], 'a game was loaded'\n"
)
IMPORT_ORDERS = {
    "caylus_env first": (
        "import sys\nimport caylus_env\n"
        "assert 'gymnasium' not in sys.modules, 'import caylus_env imported gymnasium'\n"
        "import gymnasium\n" + NO_GAME_LOADED
    ),
    "gymnasium first": "import sys\nimport gymnasium\nimport caylus_env\n" + NO_GAME_LOADED,
    "module prefix only": (
        "import gymnasium\n"
        "gymnasium.make('caylus_env:caylus_env/PuertoRico-v0', num_players=2, opponents='random')\n"
    ),
}
CHECK_REGISTERED = (
    "import importlib.resources, sys\n"
    "print(sorted(k for k in gymnasium.registry if k.startswith('caylus_env/')))\n"
    "assert not any(type(f).__name__ == '_GymnasiumFinder' for f in sys.meta_path)\n"
    "assert type(gymnasium.__spec__.loader).__name__ != '_RegisteringLoader'\n"
    "assert importlib.resources.files('gymnasium').joinpath('__init__.py').is_file()\n"
    "env = gymnasium.make('caylus_env/Caylus-v0', num_players=2, opponents='random')\n"
    "print(type(env.unwrapped).__name__)\n"
)


@pytest.mark.parametrize("order", sorted(IMPORT_ORDERS))
def test_importing_caylus_env_registers_the_ids_before_or_after_gymnasium(order):
    proc = subprocess.run(
        [sys.executable, "-c", IMPORT_ORDERS[order] + CHECK_REGISTERED],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=SUBPROCESS_TIMEOUT_S,
    )
    assert proc.returncode == 0, proc.stderr
    ids, kind = proc.stdout.strip().splitlines()
    assert ids == repr(sorted(env_ids().values())) and kind == "SeatEnv"


def test_registering_again_warns_about_nothing():
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        caylus_env.gym_registration.install()
        caylus_env.gym_registration.register_envs()


# -- Gymnasium's checker -------------------------------------------------------------------------
@pytest.mark.parametrize("normalize", [False, True])
def test_gymnasiums_check_env_passes_without_a_warning(game, normalize):
    env = gymnasium.make(env_id(game), num_players=2, normalize=normalize)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        check_env(env.unwrapped)  # its render-mode and close checks make envs from the spec


# -- the AEC env's game, move by move -------------------------------------------------------------
@pytest.mark.parametrize("reward", ["rank", "margin"])
def test_observations_masks_rewards_and_infos_are_the_aec_envs(game, reward):
    """A replay of the episode's game in the AEC env shows the learner the same observations
    and masks at each of its decisions, and ends with the same reward and info."""
    env = gymnasium.make(env_id(game), num_players=3, opponents="random", reward=reward)
    seen, (obs, last_reward, terminated, truncated, info) = _play(
        env, seed=4, rng=np.random.default_rng(4)
    )
    seat = env.unwrapped.seat
    assert terminated and not truncated
    assert all(i["learner_seat"] == seat for _, i in seen) and info["learner_seat"] == seat
    aec = caylus_env.make(game, wrapped=False, num_players=3, reward=reward)
    aec.reset(seed=4)
    learner = aec.possible_agents[seat]
    decisions = iter(seen)
    for action in env.unwrapped.game.record().actions:
        if aec.agent_selection == learner:
            expected, expected_info = next(decisions)
            view = aec.observe(learner)
            assert np.array_equal(view["observation"], expected)
            assert np.array_equal(view["action_mask"], expected_info["action_mask"])
            assert expected_info["action_mask"].dtype == np.int8
        aec.step(action)
    assert next(decisions, None) is None
    assert last_reward == aec._cumulative_rewards[learner] == aec.rewards[learner]
    assert last_reward == pytest.approx(aec.game.returns(reward)[seat])
    assert info == {**aec.infos[learner], "learner_seat": seat, "action_mask": info["action_mask"]}
    assert not info["action_mask"].any() and not env.get_wrapper_attr("action_masks")().any()
    assert np.array_equal(obs, aec.observe(learner)["observation"])


def test_action_masks_are_the_legal_actions_of_the_learners_decision(game):
    env = gymnasium.make(env_id(game), num_players=2, opponents="random", seat=1)
    _, info = env.reset(seed=2)
    rng = np.random.default_rng(2)
    for _ in range(40):
        masks = env.get_wrapper_attr("action_masks")()
        assert masks.dtype == bool
        assert np.array_equal(np.flatnonzero(masks), env.unwrapped.game.legal_actions())
        assert np.array_equal(masks, info["action_mask"].astype(bool))
        assert env.unwrapped.game.current_player() == 1
        _, _, terminated, truncated, info = env.step(int(rng.choice(_legal(info))))
        if terminated or truncated:
            _, info = env.reset()


@pytest.mark.parametrize("game_name", TRUNCATING)
def test_a_game_cut_off_by_its_decision_cap_ends_truncated_with_zero_reward(game_name):
    options = dict(game_spec(game_name).truncating_options)
    env = SeatEnv(game_name, num_players=2, opponents="random", **options)
    _, (_, reward, terminated, truncated, info) = _play(env, 0, np.random.default_rng(0))
    assert truncated and not terminated and reward == 0.0
    assert not info["action_mask"].any() and info["rank"] > 0


# -- seats and opponents ----------------------------------------------------------------------------
def test_the_seat_rotates_from_a_seeded_reset_and_a_fixed_seat_stays(game):
    env = SeatEnv(game, num_players=3, opponents="random")
    seats = [env.reset(seed=9)[1]["learner_seat"]]
    seats += [env.reset()[1]["learner_seat"] for _ in range(5)]
    assert seats == [(seats[0] + k) % 3 for k in range(6)]
    again = SeatEnv(game, num_players=3, opponents="random")
    assert [again.reset(seed=9)[1]["learner_seat"]] + [
        again.reset()[1]["learner_seat"] for _ in range(5)
    ] == seats
    drawn = {
        SeatEnv(game, num_players=3, opponents="random").reset(seed=s)[1]["learner_seat"]
        for s in range(12)
    }
    assert drawn == {0, 1, 2}  # a seeded reset draws the seat
    fixed = SeatEnv(game, num_players=3, opponents="random", seat=2)
    assert {fixed.reset(seed=s)[1]["learner_seat"] for s in range(4)} == {2}


def test_opponents_play_the_seats_after_the_learners_in_order(game):
    """One spec per other seat: the i-th plays the i-th seat after the learner's (a spying
    agent records the seats it is asked to play)."""
    played: list[int] = []

    class Spy:
        name = "spy"

        def reset(self, seed=None):
            self._rng = np.random.default_rng(seed)

        def act(self, g):
            played.append(g.current_player())
            return int(self._rng.choice(g.legal_actions()))

    register("spy", lambda spec, arg: Spy(), game=game)
    env = SeatEnv(game, num_players=4, seat=1, opponents=["random", "spy", "random"])
    assert env.opponent_specs == ("random", "spy", "random")
    _play(env, 5, np.random.default_rng(5))
    assert played and set(played) == {3}


def test_the_default_opponents_are_the_games_best_shipped_network(game):
    env = gymnasium.make(env_id(game), num_players=3)
    name = best_shipped(game)
    assert name is not None and env.unwrapped.opponent_specs == (name, name)
    assert [a.name for a in env.unwrapped._opponents] == [name, name]
    cfg = read_config(SHIPPED_DIR / name, game)
    assert set(game_spec(game).player_counts) <= set(cfg["num_players"])


def test_the_best_shipped_network_covers_every_player_count_then_has_the_highest_priority(
    tmp_path,
):
    assert best_shipped("caylus") == "ppo-caylus"  # not ppo-2p, a 2-player network
    source = json.loads((SHIPPED_DIR / "ppo-caylus" / "config.json").read_text())

    def ship(name: str, **fields) -> None:
        (tmp_path / name).mkdir()
        (tmp_path / name / "config.json").write_text(json.dumps({**source, **fields}))

    assert best_shipped("caylus", tmp_path) is None
    ship("b-all", num_players=[2, 3, 4, 5])
    ship("a-two", num_players=[2], priority=9)  # strong at 2 players only: never the default
    assert best_shipped("caylus", tmp_path) == "b-all"
    ship("c-all", num_players=[2, 3, 4, 5])
    assert best_shipped("caylus", tmp_path) == "b-all"  # equal priorities: the first by name
    ship("z-stronger", num_players=[2, 3, 4, 5], priority=1)
    assert best_shipped("caylus", tmp_path) == "z-stronger"
    assert best_shipped("puerto_rico", tmp_path) is None  # another game's checkpoints
    ship("y-bad", priority="high")
    with pytest.raises(CheckpointError, match=r"y-bad/config.json: priority must be an int"):
        best_shipped("caylus", tmp_path)
    shutil.rmtree(tmp_path / "y-bad")
    ship("y-bool", priority=True)
    with pytest.raises(CheckpointError, match="priority must be an int, got True"):
        best_shipped("caylus", tmp_path)


def test_bad_arguments_are_refused_with_a_one_line_error_that_names_what_is_allowed(game):
    cases = [
        ({"opponents": ["random"]}, "a list of 2 specs"),
        ({"opponents": 3}, "opponents=3 is not allowed"),
        ({"opponents": "no-such-agent"}, "unknown .* agent 'no-such-agent'"),
        ({"seat": 3}, r"seat=3 is not allowed; allowed: None \(rotating\) or 0..2"),
        ({"seat": True}, "seat=True is not allowed"),
        ({"illegal": "ignore"}, r"illegal='ignore' is not allowed; allowed: \['end', 'raise'\]"),
        ({"normalize": 1}, "normalize=1 is not allowed"),
        ({"reward": "score"}, "reward='score' is not allowed"),
    ]
    for kwargs, message in cases:
        with pytest.raises(ValueError, match=message) as error:
            SeatEnv(game, num_players=3, **{"opponents": "random", **kwargs})
        assert "\n" not in str(error.value)
    env = SeatEnv(game, num_players=3, opponents="random")
    _, info = env.reset(seed=1)
    before = env.game.state.copy()
    for kwargs, message in [
        ({"seed": -1}, "seed must be None or a non-negative int"),
        ({"options": {"num_players": 2}}, r"reset\(\) takes no options"),
    ]:
        with pytest.raises(ValueError, match=message):
            env.reset(**kwargs)
        assert np.array_equal(env.game.state, before)  # nothing changed
    env.step(int(_legal(info)[0]))  # the episode goes on


# -- actions ---------------------------------------------------------------------------------------
def test_an_illegal_action_ends_the_episode_with_the_illegal_reward(game):
    env = gymnasium.make(env_id(game), num_players=2, opponents="random")
    obs, info = env.reset(seed=3)
    illegal = int(np.flatnonzero(info["action_mask"] == 0)[0])
    obs2, reward, terminated, truncated, info2 = env.step(illegal)
    assert (reward, terminated, truncated, info2["illegal_action"]) == (
        ILLEGAL_REWARD,
        True,
        False,
        True,
    )
    assert np.array_equal(obs2, obs) and not info2["action_mask"].any()
    with pytest.raises(RuntimeError, match=r"call reset\(\) first"):
        env.unwrapped.step(int(_legal(info)[0]))
    env.reset()  # a new episode


def test_an_illegal_action_raises_and_changes_nothing_when_asked(game):
    env = SeatEnv(game, num_players=2, opponents="random", illegal="raise")
    _, info = env.reset(seed=3)
    before = env.game.state.copy()
    illegal = int(np.flatnonzero(info["action_mask"] == 0)[0])
    with pytest.raises(IllegalActionError, match=f"action {illegal} .*is illegal"):
        env.step(illegal)
    assert np.array_equal(env.game.state, before)
    assert np.array_equal(env.action_masks(), info["action_mask"].astype(bool))
    env.step(int(_legal(info)[0]))


@pytest.mark.parametrize("illegal", ["end", "raise"])
def test_an_action_outside_the_space_is_refused_in_both_modes(game, illegal):
    env = SeatEnv(game, num_players=2, opponents="random", illegal=illegal)
    _, info = env.reset(seed=0)
    before = env.game.state.copy()
    n = env.action_space.n
    for action, message in [
        (True, "action True is not allowed"),
        (1.0, "action 1.0 is not allowed"),
        (np.array([1]), "is not allowed; allowed: an int"),
        (n, f"action {n} is out of range; allowed: 0..{n - 1}"),
        (-1, "is out of range"),
    ]:
        with pytest.raises(IllegalActionError, match=message):
            env.step(action)
        assert np.array_equal(env.game.state, before)
    env.step(np.array(_legal(info)[0]))  # a 0-d integer array is an action


def test_two_runs_seeded_once_play_the_same_episodes(game):
    def run() -> list[np.ndarray]:
        env = gymnasium.make(env_id(game), num_players=3, opponents="random")
        rng = np.random.default_rng(0)
        out = []
        for k in range(3):
            seen, _ = _play(env, 7 if k == 0 else None, rng)
            out += [obs for obs, _ in seen]
        return out

    first, second = run(), run()
    assert len(first) == len(second) and all(map(np.array_equal, first, second))


def test_a_numpy_integer_seed_is_the_same_seed(game):
    """As the AEC env's: ``reset(seed=numpy.int64(s))`` is ``reset(seed=s)`` (Gymnasium's own
    ``np_random`` takes Python ints only)."""
    plain = SeatEnv(game, num_players=3, opponents="random")
    numpy_seeded = SeatEnv(game, num_players=3, opponents="random")
    obs, info = plain.reset(seed=7)
    obs2, info2 = numpy_seeded.reset(seed=np.int64(7))
    assert np.array_equal(obs, obs2) and info["learner_seat"] == info2["learner_seat"]


# -- vector envs and trainers ------------------------------------------------------------------------
@pytest.mark.parametrize("mode", ["sync", "async"])
def test_gymnasium_make_vec_plays_the_registered_env(game, mode):
    envs = gymnasium.make_vec(
        env_id(game),
        num_envs=2,
        vectorization_mode=mode,
        num_players=2,
        opponents="random",
        illegal="raise",  # a move outside the mask would stop the test
    )
    try:
        obs, info = envs.reset(seed=0)
        rng = np.random.default_rng(0)
        finished = 0
        for _ in range(VECTOR_STEPS):
            assert envs.observation_space.contains(obs)
            # a finished game's row is all zeros: its next action is ignored (autoreset)
            actions = [
                int(rng.choice(np.flatnonzero(m))) if m.any() else 0 for m in info["action_mask"]
            ]
            obs, rewards, terminated, truncated, info = envs.step(np.array(actions))
            done = terminated | truncated
            finished += int(done.sum())
            assert (rewards[~done] == 0).all()
            if done.any():
                assert info["_final_score"][done].all()
            if finished >= 2:
                break
        assert finished >= 2
    finally:
        envs.close()


def test_maskable_ppo_trains_on_gymnasium_make_with_no_glue(game):
    sb3_contrib = pytest.importorskip("sb3_contrib")  # the [train] extra
    env = gymnasium.make(env_id(game), num_players=2, opponents="random", illegal="raise")
    model = sb3_contrib.MaskablePPO(
        "MlpPolicy", env, n_steps=64, batch_size=64, n_epochs=1, seed=0, device="cpu"
    )
    model.learn(total_timesteps=128)  # illegal="raise": every move it played was legal
    obs, info = env.reset(seed=1)
    action, _ = model.predict(
        obs, action_masks=env.get_wrapper_attr("action_masks")(), deterministic=True
    )
    assert info["action_mask"][int(action)] == 1


# -- the normalized observation -----------------------------------------------------------------------
def test_normalize_observation_maps_each_entry_into_zero_one_by_its_own_bound():
    bounds = np.array([1.0, 2.0, 6553.4], np.float32)
    rows = np.array(
        [[0.0, 0.0, 0.0], [0.5, 1.0, 1.0], [1.0, 2.0, 6553.4], [0.25, 0.5, 3.0]], np.float32
    )
    out = normalize_observation(rows, bounds)
    assert out.dtype == np.float32 and out.shape == rows.shape
    assert np.array_equal(out[:, 0], rows[:, 0])  # a bound of 1: one-hots, flags, fractions
    assert np.array_equal(out[0], [0, 0, 0]) and np.array_equal(out[2], [1, 1, 1])
    assert out[1, 1] == pytest.approx(0.75) and out[1, 2] == pytest.approx(0.5, abs=1e-4)
    assert out[3, 2] == pytest.approx(0.75, abs=1e-3)  # three scale units
    assert np.array_equal(normalize_observation(rows[1], bounds), out[1])
    with pytest.raises(ValueError, match="has 3 entries, got shape"):
        normalize_observation(np.zeros(4), bounds)


def test_normalized_observations_lie_in_zero_one_and_keep_counts_readable(game):
    """Over random games at 2 to 5 players: every normalized entry in [0, 1], the mapping of
    the raw observation; the counts (bounds above 1) that a division by their bound leaves
    within a thousandth of 0 read tenths and more."""
    bounds = game_spec(game).observation().BOUNDS
    counts = bounds > 1.0
    divided, normalized = [], []
    for n in game_spec(game).player_counts:
        norm = SeatEnv(game, num_players=n, opponents="random", normalize=True)
        raw = SeatEnv(game, num_players=n, opponents="random")
        assert norm.observation_space.high.max() == 1.0
        for seed in range(2):
            rng_n, rng_r = np.random.default_rng(seed), np.random.default_rng(seed)
            seen_n, end_n = _play(norm, seed, rng_n)
            seen_r, end_r = _play(raw, seed, rng_r)
            pairs = [(a, b) for (a, _), (b, _) in zip(seen_n, seen_r, strict=True)]
            pairs.append((end_n[0], end_r[0]))
            for x, y in pairs:
                assert norm.observation_space.contains(x) and x.min() >= 0.0 and x.max() <= 1.0
                assert np.array_equal(x, normalize_observation(y, bounds))
                normalized.append(x[counts])
                divided.append(y[counts] / bounds[counts])
    most_n, most_d = np.max(normalized, axis=0), np.max(divided, axis=0)
    seen = most_n > 0
    assert seen.sum() >= 10
    assert np.median(most_d[seen]) < 1e-3 < 0.1 < np.median(most_n[seen])
