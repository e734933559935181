"""
# Caylus 1303 (reconstructed rules)

This environment is the board game Caylus 1303 (William Attia, Space Cowboys 2019) for 2 to 5
players, as a PettingZoo AEC environment in the style of the classic environments, and the
first reinforcement-learning environment of this game. The official rulebook we hold stops
inside its Phase 3, so the game calls itself **Caylus 1303 (reconstructed rules)**: it plays
docs/rules/caylus_1303.md, the official text where it exists and the numbered decisions
D1-D39 everywhere else, each a named value of one table (`caylus_env.caylus_1303.engine.rules.
RULES`) so that a corrected rulebook changes data, not code.

| Import             | `from caylus_env import caylus_1303_v0`                 |
|--------------------|---------------------------------------------------------|
| Actions            | Discrete(149)                                           |
| Parallel API       | No                                                      |
| Manual Control     | No                                                      |
| Agents             | `agents= ['player_0', 'player_1', ...]`                 |
| Agents             | 2-5 (`num_players`, default 4)                          |
| Action Shape       | (1,)                                                    |
| Action Values      | [0, 148]                                                |
| Observation Shape  | (2172,) `observation` + (149,) `action_mask`            |
| Observation Values | `observation` float32 >= 0; `action_mask` int8 {0, 1}   |

Each of the 9 rounds, players draft nothing new but place workers (Planning) on the printed
Fairground, Lawyer, Carpenter and Toll, on the Road's buildings or on the Construction Site, and
pass; the Guilds Bridge, the Toll and the Bailiff move the Provost, and only the buildings
before him work (Activation); site workers deliver bundles for prestige and a Favor
(Delivery); the Lawyer's buildings become residences, monuments are built on them and new
workers come in (Stewardship). Twelve characters, drafted at the start and taken by Favors,
bend the rules. The most prestige points, plus 2 per gold, wins (rules 4.6).

Usage::

    from caylus_env import caylus_1303_v0

    env = caylus_1303_v0.env(num_players=3, render_mode="ansi")
    env.reset(seed=42)

and then PettingZoo's AEC loop, the same for every game (the Usage of `caylus_env.core.env`).

### Agents

`player_0` .. `player_{n-1}` are the seats 0..n-1 of the engine, clockwise; the first player
is drawn by the seed (rules 3.2 step 8) and changes to whoever passes first each round. The
draft, the Planning turns, the Guilds Bridge in bridge order, the Delivery in site-slot order
and the monuments in turn order all come from the engine, and one player may answer several
decisions in a row (an effect and the "any" resource it costs, a Favor, bundle after bundle),
so `agent_selection` always comes from the engine (`game.current_player()`). Decisions with a
single legal action are played automatically by the engine and never shown to an agent.

### Action Space

One flat `Discrete(149)` space serves every player count and every decision (D39). The
full table, with every action's stable name, is in `caylus_env.caylus_1303.engine.actions`
(`BLOCKS`, `ACTION_NAMES`, `action_to_string`, `string_to_action`):

| Block     | Size | Names                                                                 |
|-----------|------|-----------------------------------------------------------------------|
| CHARACTER | 12   | `character:<name>`: the draft pick, or a Favor's available character  |
| STEAL     | 12   | `steal:<name>`: a Favor takes that character from its holder          |
| USE_SITE  | 3    | `use_site:S1`..`S3`: a Favor uses that Construction Site building     |
| PLACE     | 27   | `place:<space>`: a worker on a printed space or Road building R1-R23  |
| SITE      | 1    | `site`: a worker on the Construction Site                             |
| PASS      | 1    | `pass`                                                                |
| DECLINE   | 1    | `decline`: no effect, no move, no more bundles or monuments           |
| OPTION    | 2    | `option:1`, `option:2`: the building's first or second option         |
| TAKE      | 4    | `take:<resource>`: a market's resource of choice                      |
| PAY       | 4    | `pay:<resource>`: an "any" resource still owed                        |
| CONSTRUCT | 18   | `construct:<tile>`: a wood or stone building                          |
| PROVOST   | 6    | `provost:-3`..`provost:+3`: move the Provost                          |
| MARK      | 8    | `mark:R1`..`mark:R8`: the Lawyer's house on a starting building       |
| BUNDLE    | 35   | `bundle:<r>+<r>+<r>`: deliver one bundle                              |
| MONUMENT  | 7    | `monument:<name>`: build a monument on a residence                    |
| RESIDENCE | 8    | `residence:R1`..`R8`: the residence of his own the monument replaces  |

A monument replaces the residence its builder chooses (rules 4.4 b, D4): after
`monument:<name>`, a player with two or more residences is asked `residence:R<k>` (the
`monument` decision with `placing` in its context); with one, the monument goes there. The
RESIDENCE block came last, in 0.3.0: every older id keeps its name and meaning.

`env.unwrapped.action_to_string(a)` and `env.unwrapped.string_to_action(s)` convert ids and
names.

### Observation Space

The observation is a dict with an `observation` element (the vector below) and an
`action_mask` element (see Legal Actions Mask). The vector is `float32`, from the point of view
of the observing agent: every per-player piece lists seats *relative* to the observer (relative
seat 0 is the observer, 1 the next seat clockwise, ...), padded to 5 seats so that one policy
plays every seat and every player count. It holds the whole public table (rules 4.7, D37). The
pieces, in order (`caylus_env.caylus_1303.observation.PIECES`;
`env.unwrapped.observation_pieces(agent)` returns them as named views):

- Options and clock: `num_players` (4: one-hot 2-5), `hide_opponent_pp` (1), `round` (1, / 9),
  `phase` (6: one-hot draft .. game_over), `first_player` (5: relative seat).
- The decision: `decision` (11: one-hot kind; all zero at the end), `decision_player` (5:
  relative seat asked), `decision_below` (11: the kinds waiting under the top, e.g. a payment
  owed under an effect), `decision_owed` (1: "any" resources owed), `deliveryman_turn` (1),
  `decision_space` (30: the building being used).
- The board: `provost` (24: one-hot position 0-23), `contiguous_road` (1: the built Road's
  length / 23), per building space (printed a-d, R1-R23, S1-S3): `space_kind` (30x37: tile
  kind one-hot, or empty), `space_side` (30x3: setup, construction, residence), `space_owner`
  (30x5: relative seat), `space_mark` (30x5: the Lawyer's house), `space_workers` (30x2x5: each
  worker's relative seat, in placing order), `space_activated` (30: before the Provost);
  `bridge` (5x5: bridge order, relative seats), `site` (5x5: site slots, relative seats).
- Supplies and characters: `wood_supply` (9), `stone_supply` (9), `monument_supply` (7),
  `character_holder` (12x5: relative seat), `character_on_board` (12),
  `character_out_of_play` (12), `character_used` (12: the once-per-round powers, D24).
- Per relative seat: `seat_present` (5), `hand` (5, / 15), `camp` (5, / 15), `resources`
  (5x5), `pp` (5), `score` (5: prestige plus 2 per gold), `houses` (5, / 9), `passed` (5),
  `bundles` (5), `residences` (5, / 9).

Prestige tokens are face down at the table, but every gain is public, so by default the
observation shows every player's total (D37). With `hide_opponent_pp=True` an agent sees only
its own prestige and score: opponents' are never in its observation, in the text rendering
(which shows no prestige until the game ends), on the replay page or in a search bot's tree.

The space is `Box(0, BOUNDS)` with finite bounds. `env.state()` returns the same vector in
*absolute* seats (seat 0 = `player_0`), for centralised critics; with `hide_opponent_pp=True`
it holds no prestige or score at all (no seat's), so a critic learns nothing the players
cannot see.

#### Legal Actions Mask

The legal actions of the current agent are in the `action_mask` element of the observation:
an `int8` vector of 149 entries, 1 for legal actions; all zeros for every agent but the one to
act. `raw_env` raises `IllegalActionError` (a `ValueError` naming the action, the decision and
the legal actions) on an illegal action and leaves the game unchanged; `env()` (with
`TerminateIllegalWrapper`) ends the game instead, with a reward of -1 for the offender and 0
for the others.

### Rewards

Rewards are given only at the end of the game, and sum to zero.

- `reward="rank"` (default): linear in the final rank from +1 (first) to -1 (last), by
  prestige plus 2 per gold; tied players share the average of their ranks' rewards (ties are
  shared, D13).
- `reward="margin"`: final score minus the mean of the table.

At the end, `infos[agent]` holds `final_score` (and `final_prestige`, the same number) and
`rank` (1 = best, ties averaged); before that, infos are empty dicts.

### Starting State

The seed of `reset(seed=...)` draws the setup (rules 3.2, D38): the 9 starting buildings
shuffled onto S1 and R1-R8, a wood building on S2 and R9 (never the Stonemason on R9), a stone
building on S3 and R14, the first player, and the players + 3 revealed characters. Every
player has 10 workers in hand with 2 or 5 players (6 with 3 or 4; the rest of his 15 in the
Camp), 9 houses, 2 wood, 1 food and 1 stone. The game's first decisions are the character
draft, from the last player counter-clockwise (rules 3.3). After setup the game has no
chance. `reset()` without a seed continues the generator the last `reset(seed=s)` seeded; the
game's seed is in `env.unwrapped.game_seed`.

### Episode End

The game ends after the Stewardship of round 9 (rules 4.6, D36); every agent is then
terminated. There is no other end and no truncation.

### Arguments

``` python
caylus_1303_v0.env(num_players=4, hide_opponent_pp=False, reward="rank", render_mode=None)
```

`num_players=4`: 2 to 5 players (rules 6).

`hide_opponent_pp=False`: hide opponents' prestige from observations, renderings, pages and
search (D37).

`reward="rank"`: `"rank"` or `"margin"` (see Rewards).

`render_mode=None`: `"ansi"` (`render()` returns the table as text) or `"human"` (`render()`
prints it, and every step prints the table).

### Version History

* v0: initial release (0.2.0): Caylus 1303 with the reconstructed rules of
  docs/rules/caylus_1303.md (decisions D1-D39); since 0.3.0 the player chooses the residence
  a monument replaces (D4: the RESIDENCE block, `Discrete(149)`; the observation is
  unchanged, records of 0.2.0 replay with the lowest residence, the engine's old answer, and
  older policies load, scoring none of the new ids)
"""

from __future__ import annotations

from typing import Any, ClassVar

from caylus_env.caylus_1303 import GAME as SPEC
from caylus_env.core.env import GameEnv, make_env

ENV_NAME = "caylus_1303_v0"


class raw_env(GameEnv):
    """Caylus 1303 (reconstructed rules) as a PettingZoo AEC environment:
    ``caylus_env.core.env.GameEnv`` for the game ``caylus_1303``; this module's docstring is
    its documentation page."""

    GAME = "caylus_1303"
    metadata: ClassVar[dict[str, Any]] = {
        **GameEnv.metadata,
        "name": ENV_NAME,
        "ruleset": SPEC.title,  # "Caylus 1303 (reconstructed rules)": rules 1, D1-D39
    }


env = make_env(raw_env)

__all__ = ["ENV_NAME", "env", "raw_env"]
