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

and then PettingZoo's AEC loop, the same for every game (the Usage of `caylus_env.core.env`).

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

The space is `Box(0, BOUNDS)`, every bound finite: 1 for one-hot entries, flags and
fractions, and for counts (money, cubes, prestige, houses, ...) their largest value
over their scale (`observation.HIGHS`: the rules' ceiling, else the int16 state's).
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

At the end, `infos[agent]` holds `final_prestige` (also as `final_score`, the word every
game's env shares) and `rank` (1 = best, ties averaged); before that, infos are empty
dicts.

### Starting State

The seed of `reset(seed=...)` draws the neutral tiles on road spaces 1-6 and the
first turn order (rules 1.2-1.4); everything else is the printed setup: provost
and bailiff on space 6, 5-7 deniers by turn order (5 each with 2 players), 2 food
and 1 wood each, six workers at home. `reset()` without a seed continues the
generator the last `reset(seed=s)` seeded (the first unseeded reset seeds it from
the operating system); the game's seed is in `env.unwrapped.game_seed`.

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

* v0: initial release (0.1.0); since 0.2.0 the platform's shared `GameEnv`: the end-of-game
  infos also hold `final_score`, nothing else changed
"""

from __future__ import annotations

from typing import Any, ClassVar

from caylus_env.core.env import GameEnv, make_env

ENV_NAME = "caylus_v0"


class raw_env(GameEnv):
    """Caylus as a PettingZoo AEC environment: ``caylus_env.core.env.GameEnv`` for the game
    ``caylus``; this module's docstring is its documentation page."""

    GAME = "caylus"
    metadata: ClassVar[dict[str, Any]] = {**GameEnv.metadata, "name": ENV_NAME}


env = make_env(raw_env)

__all__ = ["ENV_NAME", "env", "raw_env"]
