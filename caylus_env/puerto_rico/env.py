"""
# Puerto Rico

This environment is the board game Puerto Rico (Andreas Seyfarth, 2002) for 2 to 5
players, with its 2004 expansion buildings as an option, as a PettingZoo AEC environment
in the style of the classic environments. It is the counterpart of `caylus_v0`; the rules
it plays are docs/rules/puerto_rico.md.

| Import             | `from caylus_env import puerto_rico_v0`                |
|--------------------|--------------------------------------------------------|
| Actions            | Discrete(223)                                          |
| Parallel API       | No                                                     |
| Manual Control     | No                                                     |
| Agents             | `agents= ['player_0', 'player_1', ...]`                |
| Agents             | 2-5 (`num_players`, default 4)                         |
| Action Shape       | (1,)                                                   |
| Action Values      | [0, 222]                                               |
| Observation Shape  | (789,) `observation` + (223,) `action_mask`            |
| Observation Values | `observation` float32 >= 0; `action_mask` int8 {0, 1}  |

Each round every player picks a role card (settler, mayor, builder, craftsman, trader,
captain, prospector) and everyone carries out its phase, the picker with a privilege:
players settle plantations and quarries, place colonists, build buildings, produce goods,
sell them to the trading house and ship them for victory points. The player with the most
victory points (chips plus buildings) when an end condition is met wins (rules 5).

Usage::

    from caylus_env import puerto_rico_v0

    env = puerto_rico_v0.env(num_players=3, render_mode="ansi")
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

`player_0` .. `player_{n-1}` are the seats 0..n-1 of the engine; seat 0 is the first
governor (rules 1.4). Roles are picked from the governor round the table and each phase
is carried out from its picker, one player may answer several decisions in a row (a
colonist at a time, a barrel at a time), so `agent_selection` always comes from the
engine (`game.current_player()`), never from a round-robin selector. Decisions with a
single legal action are played automatically by the engine (rules 6) and are never
shown to an agent.

### Action Space

One flat `Discrete(223)` space serves every player count, both rule sets and every
decision. It is split into contiguous blocks; the full table, with every action's stable
name, is in `caylus_env.puerto_rico.engine.actions` (`BLOCKS`, `ACTION_NAMES`,
`action_to_string`, `string_to_action`). Which ids are legal depends on the pending
decision:

| Block   | Size | Names                                                              |
|---------|------|--------------------------------------------------------------------|
| ROLE    | 8    | `role:<role>`: pick a role card (both prospector cards listed)     |
| ACCEPT  | 1    | `accept`: use an optional effect (hacienda, hospice, university)   |
| DECLINE | 1    | `decline`: do not use it / take, build, sell or keep nothing       |
| SETTLE  | 7    | `settle:<tile>`: a face-up plantation, a quarry, a forest          |
| PLACE   | 43   | `place:<tile>`, `place:<building>`: one colonist                   |
| BUILD   | 37   | `build:<building>`                                                 |
| CRAFT   | 5    | `craft:<good>`: the craftsman's extra barrel                       |
| SELL    | 5    | `sell:<good>`: one barrel to the trading house                     |
| LOAD    | 15   | `load:<good>:ship<k>`: load that good on cargo ship k              |
| WHARF   | 5    | `wharf:<good>`: ship every barrel of that good with the wharf      |
| KEEP    | 5    | `keep:<good>`: a warehouse, windrose or storehouse keeps it        |
| DRAFT   | 31   | `draft:<building>`: a violet building for the supply (expansion)   |
| SWHARF  | 5    | `small_wharf:<good>`: one barrel through the small wharf           |
| POST    | 5    | `post:<good>`: one barrel to one's trading post                    |
| RETURN  | 50   | `return:vp`, `return:<good>`, `return:colonist:<where>`            |

`env.unwrapped.action_to_string(a)` and `env.unwrapped.string_to_action(s)` convert
ids and names.

### Observation Space

The observation is a dict with an `observation` element (the vector below) and an
`action_mask` element (see Legal Actions Mask). The vector is `float32`, from the point
of view of the observing agent: every per-player piece lists seats *relative* to the
observer (relative seat 0 is the observer, 1 the next seat to the left, ...), padded to
5 seats so that one policy plays every seat and every player count. It holds what a
player at the table sees: the order of the face-down plantations (and the kinds of the
forests, face down too) is hidden and never encoded, only the stack's size
(docs/rules/puerto_rico.md 6.8, 7.3). The pieces, in order
(`caylus_env.puerto_rico.observation.PIECES`; `env.unwrapped.observation_pieces(agent)`
returns them as named views):

- Options and clock: `num_players` (4: one-hot 2-5), `options` (3: expansion, random
  draft, library limit), `phase` (10: one-hot role_selection .. draft), `round` (1,
  / 15), `decisions_used` (1: decisions / the truncation cap), `end_triggered` (1),
  `governor` (5: relative seat).
- Roles: `role_in_game` (8), `role_available` (8), `role_doubloons` (8, / 3),
  `role_taken` (8: the role whose phase runs), `picker` (5: relative seat),
  `picks` (1: / roles per round), `privilege_doubled` (2: the library doubles this
  role; a library doubled one this round).
- The decision: `decision` (18: one-hot kind; all zero at the end),
  `decision_player` (5: relative seat asked); its context: `decision_tile` (7), `decision_building` (37),
  `decision_goods` (5: goods the craftsman produced), `decision_count` (1, / 5);
  `phase_turns` (3: turns taken in the phase, captain turns without a load, guest-house
  turns, / 5), `produced` (5), `black_market` (4: colonist, barrel, chip returned;
  doubloons short / 10).
- The supply: `colonist_ship` (1, / 5), `colonist_supply` (1, / 25),
  `vp_supply` (2: chips left, VP owed on paper, / 50), `goods_supply` (5, / barrels in the box),
  `face_up` (5, / 6), `discards` (5, / 6), `plantation_stack` (1: face-down tiles
  / 50), `quarries` (1, / 8), `building_supply` (37, / 4), `ship_capacity` (3, / 8),
  `ship_good` (3x5), `ship_load` (3, / 8), `trading_house` (5, / 4).
- Per relative seat: `seat_present` (5), `money` (5, / 10), `vp_chips` (5, / 20),
  `score` (5: victory points if the game ended now, / 50), `goods` (5x5, / 5),
  `island` (5x7: tiles per kind, forests included, / 12), `island_worked` (5x6, / 12),
  `buildings` (5x37: owned), `building_colonists` (5x37: colonists / circles),
  `city_spaces` (5, / 12), `san_juan` (5, / 5), `captain_flags` (5x3: shipped, wharf
  used, small wharf used), `kept` (5x5: kinds a warehouse keeps), `singles_kept` (5x5,
  / 5).

The space is `Box(0, BOUNDS)`: 1 for one-hot entries, flags and fractions, and `inf` for
counts with no fixed ceiling (doubloons, VP, barrels, colonists, ...). `env.state()`
returns the same vector in *absolute* seats (seat 0 = `player_0`), with
`decision_player` naming the player to act, for centralised critics.

#### Legal Actions Mask

The legal actions of the current agent are in the `action_mask` element of the
observation: an `int8` vector of 223 entries, 1 for legal actions. It is all zeros for
every agent but the one to act. `raw_env` raises `IllegalActionError` (a `ValueError`
naming the action, the decision and the legal actions) on an illegal action and leaves
the game unchanged; `env()` (with `TerminateIllegalWrapper`) ends the game instead, with
a reward of -1 for the offender and 0 for the others.

### Rewards

Rewards are given only at the end of the game, and sum to zero.

- `reward="rank"` (default): linear in the final rank from +1 (first) to -1 (last), by
  victory points, then doubloons plus barrels (rules 5.3); tied players share the average
  of their ranks' rewards (in 2 players: winner +1, loser -1, tie 0 each).
- `reward="margin"`: final victory points minus the mean of the table.

At the end, `infos[agent]` holds `final_score` (victory points) and `rank` (1 = best,
ties averaged); before that, infos are empty dicts.

### Starting State

The seed of `reset(seed=...)` shuffles the face-down plantations (rules 1.4, the game's
only chance); everything else is the printed setup for the player count (rules 1.2, 1.3):
seat 0 is the first governor, starting plantations and doubloons by seat, colonists,
ships, VP chips and quarries by player count. With the expansion the violet buildings are
drafted by the players first (`draft="players"`, their first decisions) or drawn from the
seed (`draft="random"`) (rules 7.1). Without a seed, one is drawn from the operating
system and stored in `env.unwrapped.seed`.

### Episode End

The game ends at the end of the round in which the colonists run out, a player fills his
12th city space, or the VP chips run out (rules 5.1); every agent is then terminated.
Random play can avoid every end condition for a long time, so a game still running after
`max_decisions` decisions (4000 by default) is cut off (rules 6.9): every agent is then
*truncated* (not terminated), with zero rewards and the position's `final_score` and
`rank` in `infos`.

### Arguments

``` python
puerto_rico_v0.env(num_players=4, expansion=False, draft="players",
                   library_limit=False, max_decisions=4000, reward="rank",
                   render_mode=None)
```

`num_players=4`: 2 to 5 players (2 players: the variant of rules 1.3).

`expansion=False`: play with the 2004 expansion's buildings (rules 7).

`draft="players"`: with the expansion, `"players"` (the draft is the players' first
decisions) or `"random"` (drawn from the seed) (rules 7.1).

`library_limit=False`: with 2 players, a library doubles at most one privilege per
round (rules 7.5).

`max_decisions=4000`: the truncation cap, 1 to 30000 (rules 6.9).

`reward="rank"`: `"rank"` or `"margin"` (see Rewards).

`render_mode=None`: `"ansi"` (`render()` returns the table as text) or `"human"`
(`render()` prints it, and every step prints the table).

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

from caylus_env.puerto_rico.engine.actions import NUM_ACTIONS, action_to_string, string_to_action
from caylus_env.puerto_rico.engine.config import GameConfig
from caylus_env.puerto_rico.engine.constants import DEFAULT_MAX_DECISIONS
from caylus_env.puerto_rico.engine.game import MAX_SEED, REWARD_KINDS, Game, GameRecord
from caylus_env.puerto_rico.observation import BOUNDS, OBS_SIZE, encode_into, observation_pieces
from caylus_env.puerto_rico.rendering import render_text

ENV_NAME = "puerto_rico_v0"


def env(**kwargs: Any) -> AECEnv:
    """The Puerto Rico environment with the standard classic wrappers.

    ``TerminateIllegalWrapper`` ends the game on an illegal action (-1 to the offender),
    ``AssertOutOfBoundsWrapper`` checks actions against the space, and
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
    """Puerto Rico as a PettingZoo AEC environment; see the module docstring.

    Attributes beyond the AEC API (through ``env.unwrapped``):
        game: the engine ``Game`` being played (None before ``reset``).
        config: the engine's ``GameConfig`` built from the arguments.
        reward: the reward kind, ``"rank"`` or ``"margin"``.
        seed: the seed of the current game (None for a loaded position).
        state_space: the ``Box`` of ``state()``.

    Args:
        num_players: 2 to 5 (rules 1.2, 1.3).
        expansion: the 2004 expansion's buildings (rules 7).
        draft: ``"players"`` or ``"random"``, the expansion's draft (rules 7.1).
        library_limit: 2 players: a library doubles once per round (rules 7.5).
        max_decisions: the truncation cap, 1 to 30000 (rules 6.9).
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
        expansion: bool = False,
        draft: str = "players",
        library_limit: bool = False,
        max_decisions: int = DEFAULT_MAX_DECISIONS,
        reward: str = "rank",
        render_mode: str | None = None,
    ) -> None:
        super().__init__()
        self._kwargs: dict[str, Any] = {
            "num_players": num_players,
            "expansion": expansion,
            "draft": draft,
            "library_limit": library_limit,
            "max_decisions": max_decisions,
            "reward": reward,
            "render_mode": render_mode,
        }
        EzPickle.__init__(self, **self._kwargs)
        self.config = GameConfig(
            num_players=num_players,
            max_decisions=max_decisions,
            expansion=expansion,
            draft=draft,
            library_limit=library_limit,
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
            seed: the plantation shuffle's seed, 0 <= seed < 2**63; None draws one from
                the OS.
            options: unused; accepted for the PettingZoo API (the game's options are the
                constructor's arguments).
        """
        if seed is None:
            seed = int(np.random.SeedSequence().entropy % MAX_SEED)
        self.game = Game(self.config, seed)
        self.seed = self.game.seed
        self._reset_bookkeeping()
        self._after_move()

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
        self._after_move()
        if self.render_mode == "human":
            self.render()

    def observe(self, agent: str) -> dict[str, np.ndarray]:
        """The observation of ``agent``: a fresh ``observation`` vector and ``action_mask``.

        Both arrays are new on every call, so the caller may keep or modify them.
        """
        game = self._require_game()
        obs = np.empty(OBS_SIZE, np.float32)
        encode_into(game.state, self._index[agent], obs)
        if agent == self.agent_selection and not (
            self.terminations.get(agent, True) or self.truncations.get(agent, True)
        ):
            mask = game.legal_mask()
        else:
            mask = np.zeros(NUM_ACTIONS, np.int8)
        return {"observation": obs, "action_mask": mask}

    def state(self) -> np.ndarray:
        """The global state: the observation layout in absolute seats (seat 0 = player_0)."""
        out = np.empty(OBS_SIZE, np.float32)
        encode_into(self._require_game().state, -1, out)
        return out

    def render(self) -> str | None:
        """``"ansi"``: the table as text; ``"human"``: print it; no mode: warn."""
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
        """The stable name of an action id, e.g. ``'load:corn:ship2'``."""
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
        """The position as a readable dict (``caylus_env.puerto_rico.engine.state_dict``)."""
        return self._require_game().state_dict()

    def load_state_dict(self, data: dict[str, Any]) -> None:
        """Play on from a position: every agent is live again and the one to act is selected.

        Atomic: the new game is built and validated in full and the agent to act is found
        before anything of this env changes.

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
        self.game = game
        self.seed = None
        self._reset_bookkeeping()
        self._after_move()

    def record(self) -> GameRecord:
        """The game's record (``caylus_env.puerto_rico.engine.replay`` rebuilds the game;
        ``record().to_dict()`` is its JSON form). The reward kind is not part of a Puerto Rico
        record: ``final`` holds the scores and ranks every reward is computed from."""
        return self._require_game().record()

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

    def _after_move(self) -> None:
        """Select the agent the engine asks next, or end the episode for every agent."""
        player = self._require_game().current_player()
        if player >= 0:
            self.agent_selection = self.possible_agents[player]
        else:
            self._finish()

    def _finish(self) -> None:
        """The game is over (terminated, rules 5.1) or cut off by the cap (truncated, 6.9):
        final rewards (zeros when truncated), the end flags and infos for every agent."""
        game = self._require_game()
        terminated = game.is_terminal()
        returns = game.returns(self.reward)
        ranks = game.ranks()
        scores = game.scores()
        for i, a in enumerate(self.possible_agents):
            self.rewards[a] = float(returns[i])
            self.terminations[a] = terminated
            self.truncations[a] = not terminated
            self.infos[a] = {"final_score": int(scores[i]), "rank": float(ranks[i])}
        self._accumulate_rewards()
