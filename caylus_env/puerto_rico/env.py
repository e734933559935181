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

and then PettingZoo's AEC loop, the same for every game (the Usage of `caylus_env.core.env`).

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

The space is `Box(0, BOUNDS)`, every bound finite: 1 for one-hot entries, flags and
fractions, and for counts (doubloons, VP, barrels, colonists, ...) their largest value over
their scale (`observation.HIGHS`: the rules' ceiling, else the int16 state's). `env.state()`
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
seed (`draft="random"`) (rules 7.1). `reset()` without a seed continues the generator the
last `reset(seed=s)` seeded (the first unseeded reset seeds it from the operating system);
the game's seed is in `env.unwrapped.game_seed`.

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

`max_decisions=4000`: the truncation cap, 1 to 10000 (rules 6.9).

`reward="rank"`: `"rank"` or `"margin"` (see Rewards).

`render_mode=None`: `"ansi"` (`render()` returns the table as text) or `"human"`
(`render()` prints it, and every step prints the table).

### Version History

* v0: initial release (0.1.0); since 0.2.0 the platform's shared `GameEnv`: the end-of-game
  infos are the same (`final_score`, `rank`), nothing else changed
"""

from __future__ import annotations

from typing import Any, ClassVar

from caylus_env.core.env import GameEnv, make_env

ENV_NAME = "puerto_rico_v0"


class raw_env(GameEnv):
    """Puerto Rico as a PettingZoo AEC environment: ``caylus_env.core.env.GameEnv`` for the game
    ``puerto_rico``; this module's docstring is its documentation page."""

    GAME = "puerto_rico"
    metadata: ClassVar[dict[str, Any]] = {**GameEnv.metadata, "name": ENV_NAME}


env = make_env(raw_env)

__all__ = ["ENV_NAME", "env", "raw_env"]
