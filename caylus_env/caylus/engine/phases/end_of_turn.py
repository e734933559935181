"""Phase 7: end of turn. The bailiff advances, the provost joins it, castle sections
are scored, and the game ends or the next turn begins (rules 4, phase 7; 4.7; 4.8).

Steps (``CURSOR``): 0 the bailiff; 1-3 the dungeon, walls and towers scorings
(each a ``SCORE_PLAYER`` procedure per player in turn order, then
``SECTION_DONE``); 4 the end of the game (final scoring) or the next turn.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from caylus_env.caylus.engine import layout as L
from caylus_env.caylus.engine.board import (
    SECTION_EMPTY_PENALTY,
    SECTION_FAVORS,
    SECTION_FAVORS_CAP,
    SECTION_SIZE,
    SECTION_TRIGGER,
)
from caylus_env.caylus.engine.constants import (
    BAILIFF_STEP,
    BAILIFF_STEP_BEHIND_PROVOST,
    FINAL_CUBES_PER_PRESTIGE,
    FINAL_DENIERS_PER_PRESTIGE,
    FINAL_PRESTIGE_PER_GOLD,
    NUM_SECTIONS,
    TURN_CAP,
    Phase,
    Procedure,
    Resource,
    Section,
)
from caylus_env.caylus.engine.decisions import push
from caylus_env.caylus.engine.phases.common import enter_phase, grant_favors
from caylus_env.caylus.engine.state import (
    add_prestige,
    cube,
    money,
    non_gold_cubes,
    section_fill,
    section_houses,
)

STEP_BAILIFF = 0
STEP_FIRST_SECTION = 1
STEP_END = STEP_FIRST_SECTION + NUM_SECTIONS


@njit(cache=True, inline="always")
def advance_bailiff(s):
    """The bailiff advances 1 space, or 2 when the provost is beyond it; the provost then
    moves to the bailiff's space (phase 7)."""
    if s[L.PROVOST] > s[L.BAILIFF]:
        s[L.BAILIFF] += BAILIFF_STEP_BEHIND_PROVOST
    else:
        s[L.BAILIFF] += BAILIFF_STEP
    s[L.PROVOST] = s[L.BAILIFF]


@njit(cache=True, inline="always")
def start_section_scoring(s, sec):
    """Score section ``sec`` if the bailiff reached its trigger or it is full (4.7).

    Each player is scored in turn order by a ``SCORE_PLAYER`` procedure (favors are
    resolved one player at a time, 8.8), then ``SECTION_DONE`` opens favor columns.
    """
    if s[L.SCORED + sec] == 0 and (
        s[L.BAILIFF] >= SECTION_TRIGGER[sec] or section_fill(s, sec) >= SECTION_SIZE[sec]
    ):
        push(s, Procedure.SECTION_DONE, -1, sec, 0)
        push(s, Procedure.SCORE_PLAYER, -1, sec, 0)


@njit(cache=True, inline="always")
def run_score_player(s, sec, i):
    """Procedure: the section scoring of the player at turn-order position ``i``: no house
    costs prestige, 2+ houses earn favors (the phase 7 table)."""
    if i >= s[L.NUM_PLAYERS]:
        return
    push(s, Procedure.SCORE_PLAYER, -1, sec, i + 1)
    p = s[L.TURN_ORDER + i]
    n = section_houses(s, sec, p)
    if n == 0:
        add_prestige(s, p, -SECTION_EMPTY_PENALTY[sec])
    else:
        grant_favors(s, p, SECTION_FAVORS[sec, min(n, SECTION_FAVORS_CAP)])


@njit(cache=True)
def run_section_done(s, sec):
    """Procedure: the section is scored; more favor columns open from now on (5.2)."""
    s[L.SCORED + sec] = 1


@njit(cache=True)
def final_scoring(s):
    """4.8: 3 prestige per gold, 1 per 3 other cubes, 1 per 4 deniers."""
    for p in range(s[L.NUM_PLAYERS]):
        bonus = FINAL_PRESTIGE_PER_GOLD * cube(s, p, Resource.GOLD)
        bonus += non_gold_cubes(s, p) // FINAL_CUBES_PER_PRESTIGE
        bonus += money(s, p) // FINAL_DENIERS_PER_PRESTIGE
        add_prestige(s, p, bonus)


@njit(cache=True)
def drive_end_of_turn(s):
    """Phase 7, one step per call: bailiff, section scorings, end of game or next turn."""
    step = np.int64(s[L.CURSOR])
    s[L.CURSOR] = step + 1
    if step == STEP_BAILIFF:
        advance_bailiff(s)
    elif step < STEP_END:
        start_section_scoring(s, step - STEP_FIRST_SECTION)
    elif s[L.SCORED + Section.TOWERS] == 1:
        final_scoring(s)
        s[L.PHASE] = Phase.GAME_OVER
        s[L.CURSOR] = 0
    else:
        if s[L.TURN] >= TURN_CAP:
            raise RuntimeError("caylus engine: turn cap exceeded (rules 8.22)")
        s[L.TURN] += 1
        enter_phase(s, Phase.INCOME)
