"""``SeatEnv``: one learner seat of any game as a Gymnasium env, the other seats played by
agents of the registry; ``gymnasium.make("caylus_env/<Game>-v0")`` builds it.

Most single-agent code starts from ``gymnasium.make(ID)``: CleanRL-style scripts, the
trainers of Stable-Baselines3 and AgileRL, Gymnasium's own ``make_vec``. Every game has one id
(``caylus_env/Caylus-v0``, ``caylus_env/PuertoRico-v0``, ``caylus_env/Caylus1303-v0``:
`caylus_env.gym_registration`), registered when ``caylus_env`` is imported::

    import gymnasium
    import caylus_env  # registers the ids

    env = gymnasium.make("caylus_env/PuertoRico-v0", num_players=3, opponents="shipper")
    obs, info = env.reset(seed=0)
    action = env.action_space.sample(info["action_mask"])
    obs, reward, terminated, truncated, info = env.step(action)

The conventions:

- **Seats.** The learner plays one seat; the others are agents of the one registry
  (`agents.registry.make_agent`): ``opponents`` is one spec for every other seat, or one spec
  per seat in the order they play after the learner's (the seat after it first), each seat
  its own agent. The default is the game's best shipped network (`agents.policy.best_shipped`:
  the shipped checkpoint of the game that covers all its player counts, the highest
  ``priority`` first). The opponents move inside ``reset`` and ``step``, up to the learner's
  next decision. ``seat=k`` fixes the learner's seat; ``seat=None`` (the default) rotates it:
  a seeded reset draws it from the env's ``np_random`` and every later reset moves to the
  next seat, so that a run plays every seat as often.
- **Spaces.** The observation is the learner's vector of the game's AEC env (seats relative
  to the learner, so one policy plays every seat): ``Box(0, BOUNDS, (OBS_SIZE,), float32)``,
  or ``Box(0, 1)`` with ``normalize=True`` (`caylus_env.core.env.normalize_observation`:
  counts keep their resolution, unlike a division by their bounds). Actions are the game's
  ``Discrete(NUM_ACTIONS)``.
- **The mask** is in ``info["action_mask"]`` (int8, as the AEC env's) and ``action_masks()``
  (bool, what sb3-contrib's ``MaskablePPO`` reads through Gymnasium's wrappers), all zeros
  once the episode is over; AgileRL's trainers read the info's.
- **Rewards** are the AEC env's for the learner's seat: 0 until the game ends, then its final
  reward (``reward="rank"``: +1 first .. -1 last, ties averaged; ``"margin"``: its score minus
  the table's mean); a game cut off by its decision cap ends *truncated* with 0. The last
  info holds the AEC env's end-of-game info (``final_score``, ``rank``,
  ``final_<score_key>``); every info holds ``learner_seat``.
- **An illegal action** (in the space, not allowed by the decision): ``illegal="end"`` (the
  default, as PettingZoo's classic ``env()``) ends the episode, terminated, with
  `ILLEGAL_REWARD` and ``info["illegal_action"] = True``; ``illegal="raise"`` raises the
  game's ``IllegalActionError`` and changes nothing, for training code in which a masking
  bug must stop the run. An action outside the space (a bool, a float, an id out of range,
  an array of another shape) is refused with ``IllegalActionError`` in both modes.
- **Seeds** follow Gymnasium: ``reset(seed=s)`` plays the AEC env's game of seed ``s`` and
  seeds ``np_random``, from which the learner's seat and the opponents' seeds are drawn;
  ``reset()`` continues both, so two runs that seed their first reset play the same
  episodes.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, ClassVar

import gymnasium
import numpy as np
from gymnasium import spaces

import caylus_env
from agents.policy import best_shipped
from agents.registry import make_agent
from caylus_env.core.env import ILLEGAL_REWARD, RENDER_MODES, normalize_observation, setup_seed
from caylus_env.core.errors import IllegalActionError
from caylus_env.core.game import MAX_SEED
from caylus_env.core.registry import game_spec

#: What ``illegal=`` allows: end the episode (PettingZoo's classic convention) or raise.
ILLEGAL_MODES = ("end", "raise")


class SeatEnv(gymnasium.Env):
    """One learner seat of ``game`` against agents; see the module docstring.

    Args:
        game: a registered game's name (the registered ids pass it).
        num_players: the player count (the game's default when None).
        opponents: one agent spec for every other seat, or a sequence of one spec per other
            seat (in the order they play after the learner's); None: the game's best shipped
            network.
        seat: the learner's seat, ``0 .. num_players - 1``; None rotates it (see the module
            docstring).
        reward: ``"rank"`` or ``"margin"``, as the AEC env's.
        normalize: observations in ``[0, 1]`` (`caylus_env.core.env.normalize_observation`).
        illegal: ``"end"`` or ``"raise"``: what an action the decision does not allow does.
        render_mode: None, ``"ansi"`` (``render()`` returns the table as text) or ``"human"``
            (prints it at every move).
        **options: the game's options (``GameConfig`` fields).

    Attributes:
        aec: the game's PettingZoo AEC env (``raw_env``) being played: its ``game``,
            ``record()`` and ``action_to_string`` are the game's.
        opponent_specs: the other seats' specs, in the order they play after the learner's.
        seat: the learner's seat in the current episode (None before ``reset``).

    Raises:
        ValueError: naming any argument that is not allowed and what is (an unknown agent
            spec names the game's specs).
    """

    metadata: ClassVar[dict[str, Any]] = {"render_modes": list(RENDER_MODES), "render_fps": 1}

    def __init__(
        self,
        game: str,
        num_players: int | None = None,
        opponents: str | Sequence[str] | None = None,
        seat: int | None = None,
        reward: str = "rank",
        normalize: bool = False,
        illegal: str = "end",
        render_mode: str | None = None,
        **options: Any,
    ) -> None:
        spec = game_spec(game)
        self.aec: Any = caylus_env.make(
            spec.name,
            wrapped=False,
            num_players=num_players,
            reward=reward,
            render_mode=render_mode,
            **options,
        )
        agents = self.aec.possible_agents
        players = len(agents)
        if seat is not None and (
            isinstance(seat, bool) or not isinstance(seat, int) or not 0 <= seat < players
        ):
            raise ValueError(
                f"seat={seat!r} is not allowed; allowed: None (rotating) or 0..{players - 1}"
            )
        if not isinstance(normalize, bool):
            raise ValueError(f"normalize={normalize!r} is not allowed; allowed: True, False")
        if illegal not in ILLEGAL_MODES:
            raise ValueError(f"illegal={illegal!r} is not allowed; allowed: {list(ILLEGAL_MODES)}")
        self.game_name: str = spec.name
        self.opponent_specs: tuple[str, ...] = _opponent_specs(opponents, spec.name, players)
        self._opponents = [make_agent(s, spec.name) for s in self.opponent_specs]
        self.render_mode = render_mode
        self.normalize = normalize
        self.illegal = illegal
        observer = spec.observation()
        self._bounds = observer.BOUNDS
        self._encode = observer.encode_into
        self._obs_size = int(observer.OBS_SIZE)
        high = np.ones(self._obs_size, np.float32) if normalize else observer.BOUNDS
        self.observation_space = spaces.Box(0.0, high, (self._obs_size,), np.float32)
        self.action_space = spaces.Discrete(int(self.aec.action_space(agents[0]).n))
        self._index = {a: i for i, a in enumerate(agents)}
        self._fixed_seat = seat
        self._next_seat: int | None = None
        self.seat: int | None = None
        self._mask = np.zeros(self.action_space.n, np.int8)
        self._live = False
        self._illegal_end = False

    # -- the Gymnasium API -----------------------------------------------------------------
    def reset(
        self, *, seed: int | None = None, options: dict[str, Any] | None = None
    ) -> tuple[np.ndarray, dict[str, Any]]:
        """Start a game and play the opponents up to the learner's first decision.

        Args:
            seed: any non-negative int: the AEC env's game of that seed, and the seed of
                ``np_random`` (the seat, the opponents' seeds); None continues both.
            options: None or empty (the game's options are the constructor's arguments).

        Raises:
            ValueError: for a seed that is not None or a non-negative int, or options;
                nothing changes.
        """
        if seed is not None:
            setup_seed(seed)  # refuses before anything changes
        if options:
            raise ValueError(
                f"reset() takes no options (the game's options are the env's arguments), "
                f"got {sorted(options)}"
            )
        seed = None if seed is None else int(seed)  # a NumPy integer too, as the AEC env's
        super().reset(seed=seed)
        self.aec.reset(seed=seed)
        players = len(self.aec.possible_agents)
        if self._fixed_seat is not None:
            seat = self._fixed_seat
        elif seed is not None or self._next_seat is None:
            seat = int(self.np_random.integers(players))
        else:
            seat = self._next_seat
        self._next_seat = (seat + 1) % players
        self.seat = seat
        for agent in self._opponents:
            agent.reset(seed=int(self.np_random.integers(0, MAX_SEED, dtype=np.int64)))
        self._live = True
        self._illegal_end = False
        self._play_opponents()
        if self._over():
            raise RuntimeError(
                f"the game ended before seat {seat} was asked a decision; no episode to play"
            )
        self._mask = self.aec.game.legal_mask()
        return self._observe(), self._info()

    def step(self, action: Any) -> tuple[np.ndarray, float, bool, bool, dict[str, Any]]:
        """Play the learner's action, then the opponents up to its next decision or the end.

        Returns:
            ``(observation, reward, terminated, truncated, info)``: see the module docstring.

        Raises:
            RuntimeError: before ``reset`` or after the episode's end.
            IllegalActionError: for an action outside the action space, or (``illegal=
                "raise"``) one the decision does not allow; nothing changes.
        """
        if not self._live:
            raise RuntimeError("the episode is over or not started: call reset() first")
        a = self._checked(action)
        if not self._mask[a] and self.illegal == "end":
            self._live = False
            self._illegal_end = True
            self._mask = np.zeros_like(self._mask)
            return self._observe(), ILLEGAL_REWARD, True, False, self._info()
        self.aec.step(a)  # an action the decision does not allow raises here, changing nothing
        self._play_opponents()
        learner = self._learner()
        reward = float(self.aec._cumulative_rewards[learner])
        terminated = bool(self.aec.terminations[learner])
        truncated = bool(self.aec.truncations[learner])
        if terminated or truncated:
            self._live = False
            self._mask = np.zeros_like(self._mask)
        else:
            self._mask = self.aec.game.legal_mask()
        return self._observe(), reward, terminated, truncated, self._info()

    def action_masks(self) -> np.ndarray:
        """The legal actions of the learner's decision, bool (all False once the episode is
        over): sb3-contrib's ``MaskablePPO`` reads it.

        Raises:
            RuntimeError: before ``reset``.
        """
        if self.seat is None:
            raise RuntimeError("the environment has no game yet: call reset() first")
        return self._mask.astype(bool)

    def render(self) -> str | None:
        """The AEC env's ``render()``: ``"ansi"`` returns the table as text, ``"human"``
        prints it."""
        return self.aec.render()

    def close(self) -> None:
        """Close the AEC env (nothing to release: rendering is text only)."""
        self.aec.close()

    @property
    def game(self) -> Any:
        """The engine ``Game`` being played (None before ``reset``)."""
        return self.aec.game

    # -- internals ---------------------------------------------------------------------------
    def _learner(self) -> str:
        return self.aec.possible_agents[self.seat]

    def _over(self) -> bool:
        learner = self._learner()
        return bool(self.aec.terminations[learner] or self.aec.truncations[learner])

    def _play_opponents(self) -> None:
        """Let the agents of the other seats move until the learner is asked or the game
        ends."""
        aec, learner = self.aec, self._learner()
        players = len(aec.possible_agents)
        while not self._over() and aec.agent_selection != learner:
            index = self._index[aec.agent_selection]
            opponent = self._opponents[(index - self.seat) % players - 1]
            try:
                aec.step(opponent.act(aec.game))
            except IllegalActionError as error:
                raise IllegalActionError(
                    f"opponent {opponent.name!r} at seat {index}: {error}"
                ) from None

    def _checked(self, action: Any) -> int:
        """The action id of ``action`` if it lies in the action space.

        Raises:
            IllegalActionError: for a bool, a non-integer, an array of another shape than 0-d
                or an id out of range, naming it and what is allowed.
        """
        value = action[()] if isinstance(action, np.ndarray) and action.shape == () else action
        if isinstance(value, (bool, np.bool_)) or not isinstance(value, (int, np.integer)):
            raise IllegalActionError(
                f"action {action!r} is not allowed; allowed: an int, a numpy integer or a 0-d "
                f"integer array, id 0..{self.action_space.n - 1}"
            )
        if not 0 <= int(value) < self.action_space.n:
            raise IllegalActionError(
                f"action {int(value)} is out of range; allowed: 0..{self.action_space.n - 1}"
            )
        return int(value)

    def _observe(self) -> np.ndarray:
        obs = np.empty(self._obs_size, np.float32)
        self._encode(self.aec.game.state, self.seat, obs)
        return normalize_observation(obs, self._bounds) if self.normalize else obs

    def _info(self) -> dict[str, Any]:
        info: dict[str, Any] = {"learner_seat": self.seat, "action_mask": self._mask.copy()}
        if self._illegal_end:
            info["illegal_action"] = True
        else:
            info.update(self.aec.infos[self._learner()])
        return info


def _opponent_specs(opponents: Any, game: str, players: int) -> tuple[str, ...]:
    """The specs of the ``players - 1`` other seats (see `SeatEnv`'s ``opponents``).

    Raises:
        ValueError: for a value that is neither a spec nor a sequence of ``players - 1``
            specs, or a game without a default network when ``opponents`` is None.
    """
    others = players - 1
    if opponents is None:
        name = best_shipped(game)
        if name is None:
            raise ValueError(
                f"{game_spec(game).title} ships no network covering all its player counts, "
                f"so opponents= must be given: an agent spec (caylus agents --game {game} "
                "lists them) or one per other seat"
            )
        return (name,) * others
    if isinstance(opponents, str):
        return (opponents,) * others
    if (
        isinstance(opponents, Sequence)
        and len(opponents) == others
        and all(isinstance(s, str) for s in opponents)
    ):
        return tuple(opponents)
    raise ValueError(
        f"opponents={opponents!r} is not allowed; allowed: None (the game's best shipped "
        f"network), one agent spec for every other seat, or a list of {others} specs (one per "
        "other seat)"
    )


__all__ = ["ILLEGAL_MODES", "SeatEnv"]
