"""``GameEnv``: the PettingZoo AEC environment of every game, once.

A game's ``env.py`` is a thin declaration: a ``raw_env`` subclass naming the game (``GAME``)
and its versioned name, whose module docstring is the environment's documentation page
(Description, Agents, Action Space, Observation Space, Legal Actions Mask, Rewards,
Starting State, Episode End, Arguments, Version History), and ``env = make_env(raw_env)``.
Everything else is here, the same for every game, and so is the way to play it: PettingZoo's
AEC loop, which every game's page continues its ``Usage`` with (``<game>_v0.env(...)`` is
``caylus_env.make("<game>", ...)``). Usage::

    import caylus_env

    env = caylus_env.make("puerto_rico", num_players=3, render_mode="ansi")
    env.reset(seed=42)
    for agent in env.agent_iter():
        observation, reward, termination, truncation, info = env.last()
        if termination or truncation:
            action = None
        else:
            action = env.action_space(agent).sample(observation["action_mask"])
        env.step(action)
    env.close()

The environment, for every game:

- agents ``player_0`` .. ``player_{n-1}`` are the engine's seats; ``agent_selection`` always
  comes from the engine (``Game.current_player()``), never from a round-robin selector, since
  one player may answer several decisions in a row; decisions with a single legal action are
  played by the engine and never shown to an agent;
- observations are dicts of the game's ``observation`` vector (its ``encode_into``, seats
  relative to the observer) and an ``int8`` ``action_mask``, all zeros for every agent but the
  one to act; ``state()`` is the vector in absolute seats, for centralised critics;
- ``raw_env`` raises ``IllegalActionError`` (a ``ValueError`` naming the action, the decision
  and the legal actions) on an illegal action and changes nothing; ``env()`` adds PettingZoo's
  classic wrappers (``TerminateIllegalWrapper`` ends the game with -1 to the offender);
- rewards come at the end only and sum to zero: ``reward="rank"`` (+1 first .. -1 last, ties
  averaged) or ``"margin"`` (final score minus the table's mean); a game cut off by its
  decision cap ends *truncated* with zero rewards; at the end every agent's info holds
  ``final_score`` (also under the game's own word, ``final_<score_key>``) and ``rank``;
- ``clone``, ``state_dict`` / ``load_state_dict`` (atomic) and ``record`` (the shared
  record, with the env's name and reward).

Seeds follow Gymnasium and PettingZoo:

- ``reset(seed=s)`` plays the game ``Game(config, setup_seed(s))``: for ``s < 2**63`` that
  is ``Game(config, s)``, the same game as ever; a larger ``s`` (any non-negative int is
  accepted, as Gymnasium's ``np_random`` accepts it) is folded deterministically into the
  engine's range (`setup_seed`). It also seeds the env's seed generator
  (``numpy.random.default_rng(s)``), which ``reset()`` without a seed then continues, as
  Gymnasium's ``np_random`` does: two runs that seed their first reset only play the same
  episodes. Only a first ``reset()`` without any seed seeds the generator from the
  operating system.
- ``seed(s)`` is PettingZoo's older method (wrappers such as Tianshou's call it): the next
  ``reset()`` without a seed acts as ``reset(seed=s)``; ``seed()`` makes it draw from the
  operating system again.
- ``game_seed`` is the engine seed of the game being played (``record().seed``).

Actions are an ``int`` or any NumPy integer, a 0-d integer array included (what
``action_space.contains`` accepts); a bool, a float, a string or an array of another shape
is refused with `IllegalActionError`.
"""

from __future__ import annotations

import copy
import functools
from dataclasses import replace
from typing import Any, ClassVar

import gymnasium
import numpy as np
from gymnasium import spaces
from gymnasium.utils import EzPickle
from pettingzoo import AECEnv
from pettingzoo.utils import wrappers

from caylus_env.core.aec import aec_step
from caylus_env.core.contract import GameSpec
from caylus_env.core.errors import IllegalActionError
from caylus_env.core.game import MAX_SEED, REWARD_KINDS, Game, check_seed
from caylus_env.core.ranks import rank_of
from caylus_env.core.registry import game_spec

RENDER_MODES = ["ansi", "human"]

# The dtypes of the observation and mask as dtype objects: ``np.empty(n, np.float32)`` converts
# the scalar type to a dtype at every call, half the cost of the allocation, twice a decision.
_FLOAT32 = np.dtype(np.float32)
_INT8 = np.dtype(np.int8)

#: The reward of the seat whose illegal action ends the game under ``env()``'s
#: ``TerminateIllegalWrapper`` (every other seat gets 0), and under the single-seat Gymnasium
#: env's ``illegal="end"`` (``agents.seat_env``), which follows it.
ILLEGAL_REWARD = -1.0


@functools.cache
def _observation_box(game: str) -> spaces.Box:
    """``game``'s observation ``Box`` (``[0, BOUNDS]``, float32), built once per process: every
    env copies it (each agent's space and ``state_space`` its own object, with its own
    generator). Gymnasium's ``Box`` formats its bounds as text when it is built, which for a
    vector of unequal bounds costs milliseconds: once per agent per env, it was most of the
    cost of making an env."""
    observation = game_spec(game).observation()
    size = observation.OBS_SIZE
    return spaces.Box(0.0, observation.BOUNDS, (size,), np.float32)


def setup_seed(seed: Any) -> int:
    """The engine's setup seed (``0 <= setup < 2**63``) of ``reset(seed=seed)``.

    A seed below ``2**63`` is its own setup seed, so the game of ``reset(seed=s)`` is
    ``Game(config, s)``. A larger seed, which the engine's signed 64-bit seed cannot hold,
    is folded into the range by NumPy's ``SeedSequence``: the top 63 bits of
    ``SeedSequence(seed).generate_state(1, numpy.uint64)[0]`` (deterministic, and as
    unlikely to meet another seed's game as any two random seeds).

    Raises:
        ValueError: for a bool, a non-integer or a negative seed, naming it.
    """
    if isinstance(seed, bool) or not isinstance(seed, (int, np.integer)):
        raise ValueError(f"seed must be None or a non-negative int, got {seed!r}")
    value = int(seed)
    if value < 0:
        raise ValueError(f"seed must be None or a non-negative int, got {value}")
    if value < MAX_SEED:
        return value
    word = np.random.SeedSequence(value).generate_state(1, np.uint64)[0]
    return check_seed(int(word) >> 1)


def normalize_observation(obs: np.ndarray, bounds: np.ndarray) -> np.ndarray:
    """An observation (or a batch: the last axis is the vector) mapped into ``[0, 1]``, each
    entry by its own bound (``bounds``: the game's ``observation.BOUNDS``, the ``Box``'s high).

    An entry whose bound is 1 (a one-hot, a flag, a fraction) is kept as it is. An entry
    ``x`` of bound ``b > 1`` is a count over its scale (``caylus_env.core.observation``,
    `scaled_high`); where the rules set no ceiling its bound is the largest count the state
    array holds (32767 over the scale: up to 10,922), so dividing by it, as SuperSuit's
    ``normalize_obs_v0`` does, leaves every count of a real game within a thousandth of 0.
    Here it becomes ``x (b + 1) / (b (x + 1))``: 0 at 0, exactly 1 at ``b``, increasing, and
    about ``x / (x + 1)`` for a large ``b``, so a count of one scale unit reads about 0.5,
    three units 0.75, and counts keep their resolution where games put them. The map is
    computed in float64 and returned as float32, never above 1.

    Raises:
        ValueError: if the last axis of ``obs`` is not the size of ``bounds``.
    """
    x = np.asarray(obs, np.float64)
    b = np.asarray(bounds, np.float64)
    if x.ndim == 0 or x.shape[-1] != b.shape[-1]:
        raise ValueError(
            f"an observation of this game has {b.shape[-1]} entries, got shape {x.shape}"
        )
    counts = b > 1.0
    mapped = np.where(counts, x * (b + 1.0) / (b * (x + 1.0)), x)
    return np.minimum(mapped, 1.0).astype(np.float32)


def _as_action(action: Any, num_actions: int) -> Any:
    """A 0-d integer array as its NumPy integer scalar (``action_space.contains`` accepts
    it); any other scalar unchanged, for ``Game.apply`` to accept or refuse.

    Raises:
        IllegalActionError: for an array of another shape or dtype, naming both.
    """
    if isinstance(action, np.ndarray):
        if action.shape == () and np.issubdtype(action.dtype, np.integer):
            return action[()]
        raise IllegalActionError(
            f"action array of shape {action.shape} and dtype {action.dtype} is not allowed; "
            f"allowed: an int, a numpy integer or a 0-d integer array, id 0..{num_actions - 1}"
        )
    return action


def make_env(raw: type[GameEnv]) -> Any:
    """The ``env()`` factory of a game's ``raw_env``: the environment with the classic
    wrappers. ``TerminateIllegalWrapper`` ends the game on an illegal action (-1 to the
    offender), ``AssertOutOfBoundsWrapper`` checks actions against the space, and
    ``OrderEnforcingWrapper`` refuses use before ``reset``."""

    def env(**kwargs: Any) -> AECEnv:
        e: AECEnv = raw(**kwargs)
        e = wrappers.TerminateIllegalWrapper(e, illegal_reward=ILLEGAL_REWARD)
        e = wrappers.AssertOutOfBoundsWrapper(e)
        e = wrappers.OrderEnforcingWrapper(e)
        return e

    env.__doc__ = (
        f"The {raw.metadata['name']} environment with PettingZoo's classic wrappers "
        "(``caylus_env.core.env.make_env``).\n\nArgs:\n    **kwargs: the arguments of "
        "``raw_env``."
    )
    return env


class GameEnv(AECEnv, EzPickle):
    """A game as a PettingZoo AEC environment; see the module docstring.

    Attributes beyond the AEC API (through ``env.unwrapped``):
        game: the engine ``Game`` being played (None before ``reset``).
        config: the engine's ``GameConfig`` built from the arguments.
        reward: the reward kind, ``"rank"`` or ``"margin"``.
        game_seed: the engine seed of the current game (`setup_seed` of the reset's seed;
            None before ``reset`` and for a loaded position). ``seed`` is the method
            `seed`, not this int.
        state_space: the ``Box`` of ``state()``.
        spec_of_game: the game's `caylus_env.core.contract.GameSpec`.

    Args:
        num_players: the player count (the game's default when None).
        reward: ``"rank"`` or ``"margin"``.
        render_mode: None, ``"ansi"`` (``render()`` returns the table as text) or ``"human"``
            (``render()`` prints it, and every step prints it).
        **options: the game's options (``GameConfig`` fields).

    Raises:
        ValueError: naming any argument that is not allowed and what is.
    """

    GAME: ClassVar[str]
    metadata: ClassVar[dict[str, Any]] = {
        "render_modes": RENDER_MODES,
        "name": "",
        "is_parallelizable": False,
        "render_fps": 1,
    }

    def __init__(
        self,
        num_players: int | None = None,
        reward: str = "rank",
        render_mode: str | None = None,
        **options: Any,
    ) -> None:
        super().__init__()
        spec = game_spec(self.GAME)
        self.spec_of_game: GameSpec = spec
        players = spec.default_players if num_players is None else num_players
        self._kwargs: dict[str, Any] = {
            "num_players": players,
            **options,
            "reward": reward,
            "render_mode": render_mode,
        }
        EzPickle.__init__(self, **self._kwargs)
        engine = spec.engine()
        self._engine = engine
        self._observation = spec.observation()
        self.config = engine.GameConfig.from_dict({**options, "num_players": players})
        if reward not in REWARD_KINDS:
            raise ValueError(f"reward={reward!r} is not allowed; allowed: {list(REWARD_KINDS)}")
        if render_mode is not None and render_mode not in self.metadata["render_modes"]:
            raise ValueError(
                f"render_mode={render_mode!r} is not allowed; "
                f"allowed: None, {self.metadata['render_modes']}"
            )
        self.reward = reward
        self.render_mode = render_mode
        self.possible_agents = [f"player_{i}" for i in range(self.config.num_players)]
        self.agents = self.possible_agents[:]
        self._index = {a: i for i, a in enumerate(self.possible_agents)}
        size = self._observation.OBS_SIZE
        num_actions = engine.NUM_ACTIONS
        # Spaces are built once: PettingZoo requires the same object on every call.
        self.action_spaces = {a: spaces.Discrete(num_actions) for a in self.possible_agents}
        self.observation_spaces = {
            a: spaces.Dict(
                {
                    "observation": copy.deepcopy(_observation_box(self.GAME)),
                    "action_mask": spaces.Box(0, 1, (num_actions,), np.int8),
                }
            )
            for a in self.possible_agents
        }
        self.state_space = copy.deepcopy(_observation_box(self.GAME))
        # The hot path's lookups, once: observe runs at every decision.
        self._encode = self._observation.encode_into
        self._step_observe = aec_step(self.GAME)
        # What the last step wrote for the next mover (agent, observation, mask, and the game
        # and its length then), handed to the observe() that follows it.
        self._observed: tuple[str, np.ndarray, np.ndarray, Game, int] | None = None
        self._obs_size = size
        self._num_actions = num_actions
        self.game: Game | None = None
        self.game_seed: int | None = None
        # The generator unseeded resets draw from (set by a seeded reset, else from the OS at
        # the first unseeded one), and the seed ``seed(s)`` left for the next reset. A seeded
        # reset only notes its seed (``_rng_seed``): the generator is built from it at the first
        # unseeded reset that needs it, so a loop of seeded resets never pays for one.
        self._seed_rng: np.random.Generator | None = None
        self._rng_seed: int | None = None
        self._next_seed: int | None = None
        self._reset_bookkeeping()

    # -- PettingZoo API ------------------------------------------------------------------------
    def observation_space(self, agent: str) -> spaces.Space:
        """The agent's ``Dict`` of ``observation`` and ``action_mask`` (the same object every
        call, as PettingZoo requires)."""
        return self.observation_spaces[agent]

    def action_space(self, agent: str) -> spaces.Space:
        """The agent's ``Discrete(NUM_ACTIONS)`` (the same object every call, as PettingZoo
        requires; its own generator: seed it with ``action_space(agent).seed(s)``)."""
        return self.action_spaces[agent]

    def reset(self, seed: int | None = None, options: dict[str, Any] | None = None) -> None:
        """Start a new game.

        Args:
            seed: any non-negative int: the game ``Game(config, setup_seed(seed))`` (for
                ``seed < 2**63``, ``Game(config, seed)``), and the seed of the generator
                that later unseeded resets continue. None: the seed ``seed(s)`` left, else
                the next draw of that generator (seeded from the operating system at the
                first reset only); see the module docstring.
            options: unused; accepted for the PettingZoo API (the game's options are the
                constructor's arguments).

        Raises:
            ValueError: for a seed that is a bool, not an int or negative; nothing changes.
        """
        if seed is None and self._next_seed is not None:
            seed = self._next_seed
        if seed is not None:
            setup = setup_seed(seed)  # raises before anything changes
            self._seed_rng = None
            self._rng_seed = int(seed)  # default_rng(seed), built when an unseeded reset needs it
        else:
            if self._seed_rng is None:
                # default_rng(None) draws from the operating system's entropy
                self._seed_rng = np.random.default_rng(self._rng_seed)
                self._rng_seed = None
            setup = int(self._seed_rng.integers(0, MAX_SEED, dtype=np.int64))
        self._next_seed = None
        self.game = self._engine.Game(self.config, setup)
        self.game_seed = self.game.seed
        self._reset_bookkeeping()
        self._after_move()

    def seed(self, seed: int | None = None) -> None:
        """Seed the next ``reset()`` (PettingZoo's older API, which wrappers still call):
        it then acts as ``reset(seed=seed)``; ``seed=None`` makes it draw a fresh seed from
        the operating system. A ``reset(seed=s)`` before it overrides it.

        Raises:
            ValueError: for a seed that is a bool, not an int or negative; nothing changes.
        """
        if seed is None:
            self._seed_rng = None
            self._rng_seed = None
            self._next_seed = None
            return
        setup_seed(seed)
        self._next_seed = int(seed)

    def step(self, action: int | None) -> None:
        """Apply the current agent's action (``None`` for an agent that is done).

        ``action`` is an ``int``, a NumPy integer scalar or a 0-d integer array (what
        ``action_space.contains`` accepts): a bool, float, string, bytes, ``Decimal`` or an
        array of another shape or dtype is refused, never rounded or parsed.

        Raises:
            IllegalActionError: if the action is not legal or not an int; the game and the
                env's bookkeeping (rewards, agent_selection) are unchanged.
        """
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            self._was_dead_step(action)
            return
        game = self.game
        if game is None:
            self._require_game()  # raises
        if type(action) is not int:  # the hot path's plain int skips the array check
            action = _as_action(action, self._num_actions)
        # One compiled call: the step, the forced moves, the next mover's observation and mask
        # (caylus_env.core.aec), into arrays that the observe() after it hands out.
        obs = np.empty(self._obs_size, _FLOAT32)
        mask = np.empty(self._num_actions, _INT8)
        player = game.apply_observed(action, self._step_observe, obs, mask)  # raises first
        self._cumulative_rewards[agent] = 0.0
        if player >= 0:
            selected = self.agent_selection = self.possible_agents[player]
            self._observed = (selected, obs, mask, game, len(game.history))
        else:
            self._observed = None
            self._finish()
        if self.render_mode == "human":
            self.render()

    def last(
        self, observe: bool = True
    ) -> tuple[dict[str, np.ndarray] | None, float, bool, bool, dict[str, Any]]:
        """PettingZoo's ``last``: the current agent's observation (`observe`), cumulative
        reward, termination, truncation and info; written out here because the AEC loop calls
        it once a decision."""
        agent = self.agent_selection
        return (
            self.observe(agent) if observe else None,
            self._cumulative_rewards[agent],
            self.terminations[agent],
            self.truncations[agent],
            self.infos[agent],
        )

    def observe(self, agent: str) -> dict[str, np.ndarray]:
        """The observation of ``agent``: a fresh ``observation`` vector and ``action_mask``.

        Both arrays are new on every call, so the caller may keep or modify them.
        """
        observed = self._observed
        if (
            observed is not None
            and observed[0] == agent
            and observed[3] is self.game
            and observed[4] == len(observed[3].history)  # nothing was played on it since
        ):
            self._observed = None  # handed out once: a second observe makes new arrays
            return {"observation": observed[1], "action_mask": observed[2]}
        game = self._require_game()
        seat = self._index[agent]
        obs = np.empty(self._obs_size, np.float32)
        self._encode(game.state, seat, obs)
        if agent == self.agent_selection and not (
            self.terminations.get(agent, True) or self.truncations.get(agent, True)
        ):
            mask = game.legal_mask()
        else:
            mask = np.zeros(self._num_actions, np.int8)
        return {"observation": obs, "action_mask": mask}

    def state(self) -> np.ndarray:
        """The global state: the observation layout in absolute seats (seat 0 = player_0)."""
        out = np.empty(self._observation.OBS_SIZE, np.float32)
        self._observation.encode_into(self._require_game().state, -1, out)
        return out

    def render(self) -> str | None:
        """``"ansi"``: the table as text; ``"human"``: print it; no mode: warn."""
        if self.render_mode is None:
            gymnasium.logger.warn(
                "You are calling render method without specifying any render mode."
            )
            return None
        text = self.spec_of_game.module("rendering").render_text(self._require_game())
        if self.render_mode == "ansi":
            return text
        print(text)
        return None

    def close(self) -> None:
        """Nothing to release: rendering is text only."""

    # -- helpers for users (through env.unwrapped) -----------------------------------------------
    def legal_actions(self) -> list[int]:
        """Sorted legal action ids of the current agent (empty once the game is over)."""
        return self._require_game().legal_actions()

    def action_to_string(self, action: int) -> str:
        """The stable name of an action id (the game's ``action_to_string``)."""
        return str(self._engine.action_to_string(action))

    def string_to_action(self, name: str) -> int:
        """The action id of a stable name."""
        return int(self._engine.string_to_action(name))

    def observation_pieces(self, agent: str) -> dict[str, np.ndarray]:
        """The observation of ``agent`` as ``{piece name: reshaped array}``."""
        return self._observation.observation_pieces(self.observe(agent)["observation"])

    def clone(self) -> GameEnv:
        """An independent env at the same position (game, agents, rewards, infos) and with
        the same seed generator (its next ``reset()`` plays the same game)."""
        other = type(self)(**self._kwargs)
        other._seed_rng = copy.deepcopy(self._seed_rng)
        other._rng_seed = self._rng_seed
        other._next_seed = self._next_seed
        if self.game is None:
            return other
        other.game = self.game.clone()
        other.game_seed = self.game_seed
        other.agents = self.agents[:]
        other.rewards = dict(self.rewards)
        other._cumulative_rewards = dict(self._cumulative_rewards)
        other.terminations = dict(self.terminations)
        other.truncations = dict(self.truncations)
        other.infos = {a: dict(info) for a, info in self.infos.items()}
        other.agent_selection = self.agent_selection
        other._skip_agent_selection = self._skip_agent_selection
        return other

    def state_dict(self) -> dict[str, Any]:
        """The position as a readable dict (the game's ``state_dict``)."""
        return self._require_game().state_dict()

    def load_state_dict(self, data: dict[str, Any]) -> None:
        """Play on from a position: every agent is live again and the one to act is selected.

        Atomic: the new game is built and validated in full and the agent to act is found
        before anything of this env changes.

        Raises:
            ValueError: (``InvalidStateError`` for a bad position) if the dict is not a valid
                position or its options differ from this env's; the env is then unchanged.
        """
        game = self._engine.Game.from_state_dict(data)
        if game.config != self.config:
            raise ValueError(
                f"the position's options {game.config.to_dict()} differ from this env's "
                f"{self.config.to_dict()}; make an env with the position's options"
            )
        player = game.current_player()
        if not (player == -1 and game.is_over()) and not 0 <= player < len(self.possible_agents):
            raise ValueError(f"the position asks seat {player}, who is not at this table")
        self.game = game
        self.game_seed = None
        self._reset_bookkeeping()
        self._after_move()

    def record(self) -> Any:
        """The game's `caylus_env.core.record.GameRecord` (``caylus_env.core.record.replay``
        rebuilds the game) with the env's name and reward kind in ``record.env``."""
        from caylus_env.core.record import EnvInfo

        env = EnvInfo(self.metadata["name"], self.reward)
        return replace(self._require_game().record(), env=env)

    # -- internals ---------------------------------------------------------------------------------
    def _require_game(self) -> Game:
        if self.game is None:
            raise RuntimeError("the environment has no game yet: call reset() first")
        return self.game

    def _reset_bookkeeping(self) -> None:
        self.agents = self.possible_agents[:]
        self.rewards = dict.fromkeys(self.agents, 0.0)
        self._cumulative_rewards = dict.fromkeys(self.agents, 0.0)
        self.terminations = dict.fromkeys(self.agents, False)
        self.truncations = dict.fromkeys(self.agents, False)
        self.infos = {a: {} for a in self.agents}
        self.agent_selection = self.agents[0]
        self._skip_agent_selection = None
        self._observed = None

    def _after_move(self) -> None:
        """Select the agent the engine asks next, or end the episode for every agent."""
        player = self._require_game().current_player()
        if player >= 0:
            self.agent_selection = self.possible_agents[player]
        else:
            self._finish()

    def _finish(self) -> None:
        """The game is over by its rules (terminated) or cut off by its decision cap
        (truncated): final rewards (zeros when truncated), the end flags and infos."""
        game = self._require_game()
        terminated = game.is_terminal()
        scores = game.scores()
        ranks = rank_of(scores, game.tie_breaks())
        returns = game.returns(self.reward, scores=scores, ranks=ranks)
        own = f"final_{self.spec_of_game.score_key}"
        for i, a in enumerate(self.possible_agents):
            self.rewards[a] = float(returns[i])
            self.terminations[a] = terminated
            self.truncations[a] = not terminated
            info: dict[str, Any] = {"final_score": int(scores[i]), "rank": float(ranks[i])}
            info.setdefault(own, int(scores[i]))
            self.infos[a] = info
        self._accumulate_rewards()


__all__ = [
    "ILLEGAL_REWARD",
    "RENDER_MODES",
    "GameEnv",
    "make_env",
    "normalize_observation",
    "setup_seed",
]
