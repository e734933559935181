"""
# Caylus

This environment is the board game Caylus (William Attia, 2005) for 2 to 5 players,
as a PettingZoo AEC environment in the style of the classic environments.

| Import             | `from caylus_env import caylus_v0`                     |
|--------------------|--------------------------------------------------------|
| Actions            | Discrete(167)                                          |
| Parallel API       | No                                                     |
| Manual Control     | No                                                     |
| Agents             | `agents= ['player_0', 'player_1', ...]`                |
| Agents             | 2-5 (`num_players`, default 4)                         |
| Action Shape       | (1,)                                                   |
| Action Values      | [0, 166]                                               |
| Observation Shape  | (2004,) `observation` + (167,) `action_mask`           |
| Observation Values | `observation` float32 >= 0; `action_mask` int8 {0, 1}  |

Players place workers on the road of buildings and on the special buildings, move
the provost, activate the buildings to gather cubes and deniers, build wood, stone
and prestige buildings, send batches to the castle and climb the royal favor
table. The player with the most prestige points when the towers are scored wins.

Usage::

    from caylus_env import caylus_v0

    env = caylus_v0.env(num_players=3, render_mode="ansi")
    env.reset(seed=42)
    for agent in env.agent_iter():
        observation, reward, termination, truncation, info = env.last()
        if termination or truncation:
            action = None
        else:
            action = env.action_space(agent).sample(observation["action_mask"])
        env.step(action)
    env.close()

### Agents

`player_0` .. `player_{n-1}` are the seats 0..n-1 of the engine. The turn order is
drawn from the seed and changes with the stables, and one player may answer
several decisions in a row (a production choice, then a favor row, then a column),
so `agent_selection` always comes from the engine (`game.current_player()`), never
from a round-robin selector. Decisions with a single legal action are played
automatically by the engine and are never shown to an agent.

### Action Space

One flat `Discrete(167)` space serves every player count and every decision. It is
split into contiguous blocks; the full table, with every action's stable name, is
in `caylus_env.caylus.engine.actions` (`BLOCKS`, `ACTION_NAMES`, `action_to_string`,
`string_to_action`). Which ids are legal depends on the pending decision:

| Block     | Size | Names                                                          |
|-----------|------|----------------------------------------------------------------|
| PASS      | 1    | `pass`: pass in placement (phase 2) or provost (phase 4)       |
| DECLINE   | 1    | `decline`: do not use an optional effect, build nothing, stop  |
| PLACE     | 35   | `place:<target>`: gate, trading_post, ..., castle, road:1-28   |
| GATE      | 34   | `gate:<target>`: where the gate moves its worker               |
| GUILD     | 6    | `guild:-3` .. `guild:+3`: merchants' guild provost move        |
| JOUST     | 1    | `joust`: pay 1 denier + 1 cloth for a favor                    |
| INN       | 2    | `inn:stay`, `inn:leave`                                        |
| PROVOST   | 6    | `provost:-3` .. `provost:+3`: 1 denier per space               |
| TAKE      | 5    | `take:<cube>`: production choice, owner bonus, peddler, favor  |
| PAY       | 5    | `pay:<cube>`: give or sell a cube of that kind                 |
| OPTION    | 2    | `option:1`, `option:2`: church, tailor, bank, alchemist, ...   |
| BUILD     | 26   | `build:<building>`: every wood, stone and prestige tile        |
| SPACE     | 28   | `space:1` .. `space:28`: lawyer target, architect residence    |
| BATCH     | 6    | `batch:food+<a>+<b>`: a castle batch of that composition       |
| FAVOR     | 4    | `favor:<row>`: prestige, deniers, resources, buildings         |
| COLUMN    | 5    | `column:1` .. `column:5`: the effect used on the chosen row    |

`env.unwrapped.action_to_string(a)` and `env.unwrapped.string_to_action(s)`
convert ids and names.

### Observation Space

The observation is a dict with an `observation` element (the vector below) and an
`action_mask` element (see Legal Actions Mask). The vector is `float32`, from the
point of view of the observing agent: every per-player piece lists seats *relative*
to the observer (relative seat 0 is the observer, 1 the next seat, ...), padded to 5
seats so that one policy plays every seat and every player count. The pieces, in
order (`caylus_env.caylus.observation.PIECES`; `env.unwrapped.observation_pieces(agent)`
returns them as named views):

- `phase` (8): one-hot phase (income .. game_over); `turn` (1): turn / 18;
  `options` (4): simplified favors, lawyer prestige / 4, jeweller, house cap.
- `decision` (21): one-hot kind of the pending decision; `decision_player` (5):
  relative seat asked; its context: `decision_building` (36), `decision_source`
  (8), `decision_row` (4), `decision_count` (1: favors, batches, cubes bought or
  left, / 5), `decision_kinds` (5: cube kinds a favor may take).
- Per relative seat: `seat_present` (5), `money` (5, / 10), `cubes` (5x5, / 5),
  `prestige` (5, / 50), `workers_available` (5, / 6), `favor_columns` (5x4x6:
  each row's marker one-hot, 0 = start), `rows_used` (5x4), `passed` (5),
  `turn_order_position` (5x5), `passing_position` (5x5), `inn_resident` (5),
  `in_castle` (5), `in_stables` (5), `castle_houses` (5x3, / section size),
  `houses` (5, / 20), `batches_this_turn` (5, / 5), `residences` (5, / 5).
- Road spaces 1-28: `road_building` (28x37: building one-hot, last = empty),
  `road_owner` (28x5), `road_worker` (28x5), `road_lawyer_pending` (28x5),
  `provost` (28), `bailiff` (28).
- Special buildings: `special_workers` (4x5: gate, trading post, merchants' guild,
  joust field), `stables` (3x5), `inn` (2x5: left, right), `castle_spots` (5x5).
- `castle_fill` (3, / section size), `scored` (3), `columns_open` (1, / 5),
  `stock` (36, / 2), `num_passed` (1, / 5).

The space is `Box(0, BOUNDS)`: 1 for one-hot entries, flags and fractions, and
`inf` for counts with no fixed ceiling (money, cubes, prestige, houses, ...).
`env.state()` returns the same vector in *absolute* seats (seat 0 = `player_0`),
with `decision_player` naming the player to act, for centralised critics.

#### Legal Actions Mask

The legal actions of the current agent are in the `action_mask` element of the
observation: an `int8` vector of 167 entries, 1 for legal actions. It is all zeros
for every agent but the one to act. `raw_env` raises `IllegalActionError` (a
`ValueError` naming the action, the decision and the legal actions) on an illegal
action and leaves the game unchanged; `env()` (with `TerminateIllegalWrapper`)
ends the game instead, with a reward of -1 for the offender and 0 for the others.

### Rewards

Rewards are given only at the end of the game, and sum to zero.

- `reward="rank"` (default): linear in the final rank by prestige, from +1 (first)
  to -1 (last); tied players share the average of their ranks' rewards (in 2
  players: winner +1, loser -1, tie 0 each).
- `reward="margin"`: final prestige minus the mean final prestige of the table.

At the end, `infos[agent]` holds `final_prestige` and `rank` (1 = best, ties
averaged); before that, infos are empty dicts.

### Starting State

The seed of `reset(seed=...)` draws the neutral tiles on road spaces 1-6 and the
first turn order (rules 1.2-1.4); everything else is the printed setup: provost
and bailiff on space 6, 5-7 deniers by turn order (5 each with 2 players), 2 food
and 1 wood each, six workers at home. Without a seed, one is drawn from the
operating system and stored in `env.unwrapped.seed`.

### Episode End

The game ends when the towers are scored (the bailiff reaches space 24 or the
towers fill), which happens within 18 turns; every agent is then terminated.
There is no truncation.

### Arguments

``` python
caylus_v0.env(num_players=4, simplified_favors=False, lawyer_prestige=4,
              jeweller=False, house_cap=False, reward="rank", render_mode=None)
```

`num_players=4`: 2 to 5 players.

`simplified_favors=False`: every royal favor is worth 3 prestige, no favor table
(rules 6).

`lawyer_prestige=4`: prestige of the lawyer tile, 4 (2005 tile) or 3 (rules 8.2).

`jeweller=False`: add the Jeweller tile to the stock (rules 8.1).

`house_cap=False`: limit each player to 20 houses on the board (rules 8.5).

`reward="rank"`: `"rank"` or `"margin"` (see Rewards).

`render_mode=None`: `"ansi"` (`render()` returns the board as text) or `"human"`
(`render()` prints it, and every step prints the board).

### Version History

* v0: initial release (0.1.0)
"""

from __future__ import annotations

from typing import Any, ClassVar

import gymnasium
import numpy as np
from gymnasium import spaces
from gymnasium.utils import EzPickle
from pettingzoo import AECEnv
from pettingzoo.utils import wrappers

from caylus_env.caylus.engine.actions import NUM_ACTIONS, action_to_string, string_to_action
from caylus_env.caylus.engine.config import GameConfig
from caylus_env.caylus.engine.game import MAX_SEED, REWARD_KINDS, Game
from caylus_env.caylus.observation import BOUNDS, OBS_SIZE, encode, observation_pieces
from caylus_env.caylus.rendering import render_text

ENV_NAME = "caylus_v0"


def env(**kwargs: Any) -> AECEnv:
    """The Caylus environment with the standard classic wrappers.

    ``TerminateIllegalWrapper`` ends the game on an illegal action (-1 to the
    offender), ``AssertOutOfBoundsWrapper`` checks actions against the space, and
    ``OrderEnforcingWrapper`` refuses use before ``reset``.

    Args:
        **kwargs: the arguments of ``raw_env``.
    """
    e: AECEnv = raw_env(**kwargs)
    e = wrappers.TerminateIllegalWrapper(e, illegal_reward=-1)
    e = wrappers.AssertOutOfBoundsWrapper(e)
    e = wrappers.OrderEnforcingWrapper(e)
    return e


class raw_env(AECEnv, EzPickle):
    """Caylus as a PettingZoo AEC environment; see the module docstring.

    Attributes beyond the AEC API (through ``env.unwrapped``):
        game: the engine ``Game`` being played (None before ``reset``).
        config: the ``GameConfig`` built from the arguments.
        reward: the reward kind, ``"rank"`` or ``"margin"``.
        seed: the seed of the current game (None for a loaded position).
        state_space: the ``Box`` of ``state()``.

    Args:
        num_players: 2 to 5.
        simplified_favors: every favor is 3 prestige (rules 6).
        lawyer_prestige: 4 or 3 (rules 8.2).
        jeweller: add the Jeweller tile (rules 8.1).
        house_cap: 20 houses per player at most (rules 8.5).
        reward: ``"rank"`` or ``"margin"``.
        render_mode: None, ``"ansi"`` or ``"human"``.

    Raises:
        ValueError: naming any argument that is not allowed and what is.
    """

    metadata: ClassVar[dict[str, Any]] = {
        "render_modes": ["ansi", "human"],
        "name": ENV_NAME,
        "is_parallelizable": False,
        "render_fps": 1,
    }

    def __init__(
        self,
        num_players: int = 4,
        simplified_favors: bool = False,
        lawyer_prestige: int = 4,
        jeweller: bool = False,
        house_cap: bool = False,
        reward: str = "rank",
        render_mode: str | None = None,
    ) -> None:
        super().__init__()
        self._kwargs: dict[str, Any] = {
            "num_players": num_players,
            "simplified_favors": simplified_favors,
            "lawyer_prestige": lawyer_prestige,
            "jeweller": jeweller,
            "house_cap": house_cap,
            "reward": reward,
            "render_mode": render_mode,
        }
        EzPickle.__init__(self, **self._kwargs)
        self.config = GameConfig(
            num_players=num_players,
            simplified_favors=simplified_favors,
            lawyer_prestige=lawyer_prestige,
            jeweller=jeweller,
            house_cap=house_cap,
        )
        if reward not in REWARD_KINDS:
            raise ValueError(f"reward={reward!r} is not allowed; allowed: {list(REWARD_KINDS)}")
        if render_mode is not None and render_mode not in self.metadata["render_modes"]:
            raise ValueError(
                f"render_mode={render_mode!r} is not allowed; "
                f"allowed: None, {self.metadata['render_modes']}"
            )
        self.reward = reward
        self.render_mode = render_mode
        self.possible_agents = [f"player_{i}" for i in range(num_players)]
        self.agents = self.possible_agents[:]
        self._index = {a: i for i, a in enumerate(self.possible_agents)}
        # Spaces are built once: PettingZoo requires the same object on every call.
        self.action_spaces = {a: spaces.Discrete(NUM_ACTIONS) for a in self.possible_agents}
        self.observation_spaces = {
            a: spaces.Dict(
                {
                    "observation": spaces.Box(0.0, BOUNDS, (OBS_SIZE,), np.float32),
                    "action_mask": spaces.Box(0, 1, (NUM_ACTIONS,), np.int8),
                }
            )
            for a in self.possible_agents
        }
        self.state_space = spaces.Box(0.0, BOUNDS, (OBS_SIZE,), np.float32)
        self.game: Game | None = None
        self.seed: int | None = None
        self._reset_bookkeeping()

    # -- PettingZoo API ------------------------------------------------------------------------
    def observation_space(self, agent: str) -> spaces.Space:
        return self.observation_spaces[agent]

    def action_space(self, agent: str) -> spaces.Space:
        return self.action_spaces[agent]

    def reset(self, seed: int | None = None, options: dict[str, Any] | None = None) -> None:
        """Start a new game.

        Args:
            seed: the setup seed, 0 <= seed < 2**63; None draws one from the OS.
            options: unused; accepted for the PettingZoo API.
        """
        if seed is None:
            seed = int(np.random.SeedSequence().entropy % MAX_SEED)
        self.game = Game(self.config, seed)
        self.seed = self.game.seed
        self._reset_bookkeeping()
        self.agent_selection = self.possible_agents[self.game.current_player()]

    def step(self, action: int | None) -> None:
        """Apply the current agent's action (``None`` for an agent that is done).

        ``action`` is exactly an ``int`` or a NumPy integer scalar (``Game.apply``): a bool,
        float, string, bytes or ``Decimal`` is refused, never rounded or parsed.

        Raises:
            IllegalActionError: if the action is not legal or not an int; the game and the
                env's bookkeeping (rewards, agent_selection) are unchanged.
        """
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            self._was_dead_step(action)
            return
        game = self._require_game()
        game.apply(action)  # raises before anything changes
        self._cumulative_rewards[agent] = 0.0
        player = game.current_player()
        if player < 0:
            self._finish()
        else:
            self.agent_selection = self.possible_agents[player]
        if self.render_mode == "human":
            self.render()

    def observe(self, agent: str) -> dict[str, np.ndarray]:
        """The observation of ``agent``: a fresh ``observation`` vector and ``action_mask``.

        Both arrays are new on every call, so the caller may keep or modify them.
        """
        game = self._require_game()
        obs = np.empty(OBS_SIZE, np.float32)
        encode(game.state, self._index[agent], obs)
        mask = np.zeros(NUM_ACTIONS, np.int8)
        if agent == self.agent_selection and not self.terminations.get(agent, True):
            game.legal_mask(mask)
        return {"observation": obs, "action_mask": mask}

    def state(self) -> np.ndarray:
        """The global state: the observation layout in absolute seats (seat 0 = player_0)."""
        out = np.empty(OBS_SIZE, np.float32)
        encode(self._require_game().state, -1, out)
        return out

    def render(self) -> str | None:
        """``"ansi"``: the board as text; ``"human"``: print it; no mode: warn."""
        if self.render_mode is None:
            gymnasium.logger.warn(
                "You are calling render method without specifying any render mode."
            )
            return None
        text = render_text(self._require_game())
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

    @staticmethod
    def action_to_string(action: int) -> str:
        """The stable name of an action id, e.g. ``'place:road:6'``."""
        return action_to_string(action)

    @staticmethod
    def string_to_action(name: str) -> int:
        """The action id of a stable name."""
        return string_to_action(name)

    def observation_pieces(self, agent: str) -> dict[str, np.ndarray]:
        """The observation of ``agent`` as ``{piece name: reshaped array}``."""
        return observation_pieces(self.observe(agent)["observation"])

    def clone(self) -> raw_env:
        """An independent env at the same position (game, agents, rewards, infos)."""
        other = type(self)(**self._kwargs)
        if self.game is None:
            return other
        other.game = self.game.clone()
        other.seed = self.seed
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
        """The position as a readable dict (``caylus_env.caylus.engine.state_dict``)."""
        return self._require_game().state_dict()

    def load_state_dict(self, data: dict[str, Any]) -> None:
        """Play on from a position: every agent is live again and the one to act is selected.

        Atomic: the new game is built and validated in full (``caylus_env.caylus.engine.validate``)
        and the agent to act is found before anything of this env changes.

        Raises:
            ValueError: (``InvalidStateError`` for a bad position) if the dict is not a
                valid position or its options differ from this env's; the env is then
                unchanged.
        """
        game = Game.from_state_dict(data)
        if game.config != self.config:
            raise ValueError(
                f"the position's options {game.config.to_dict()} differ from this env's "
                f"{self.config.to_dict()}; make an env with the position's options"
            )
        player = game.current_player()
        seats = len(self.possible_agents)
        if not (player == -1 and game.is_terminal()) and not 0 <= player < seats:
            raise ValueError(f"the position asks seat {player}, who is not at this table")
        self.game = game
        self.seed = None
        self._reset_bookkeeping()
        if player < 0:
            self._finish()
        else:
            self.agent_selection = self.possible_agents[player]

    def record(self) -> Any:
        """The game's `caylus_env.caylus.engine.record.GameRecord` (``caylus_env.replay`` rebuilds the
        game) with the env's name and reward kind in ``record.env``."""
        from dataclasses import replace

        from caylus_env.caylus.engine.record import EnvInfo

        return replace(self._require_game().record(), env=EnvInfo(ENV_NAME, self.reward))

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

    def _finish(self) -> None:
        """The game is over: final rewards, terminations and infos for every agent."""
        game = self._require_game()
        returns = game.returns(self.reward)
        ranks = game.ranks()
        prestige = game.prestige()
        for i, a in enumerate(self.possible_agents):
            self.rewards[a] = float(returns[i])
            self.terminations[a] = True
            self.infos[a] = {"final_prestige": int(prestige[i]), "rank": float(ranks[i])}
        self._accumulate_rewards()
