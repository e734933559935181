"""The Caylus 1303 observer: one flat ``float32`` vector per player, built from named pieces.

The counterpart of ``caylus_env.puerto_rico.observation``: ``PIECES`` is an ordered tuple of
``(name, shape)``; the vector is their concatenation (``OBS_SIZE`` entries) and
``observation_pieces`` gives named, reshaped views onto it. Every size comes from the
engine's constants and tile table (``caylus_env.caylus_1303.engine``), so the layout follows
docs/rules/caylus_1303.md.

Seats are *relative to the observer*: relative seat ``r`` of player ``p`` is
``(p - seat) % num_players``, so seat 0 is always "me" and seat 1 the next player clockwise
(the order of Planning, rules 4.1). Every per-player piece is padded to ``MAX_PLAYERS`` (5)
seats, so one policy serves 2-5 players; absent seats are all zero and ``seat_present`` says
which seats exist. With ``seat = -1`` the same kernel writes *absolute* seats (seat 0 =
player 0): the global state of ``raw_env.state()`` for centralised critics.

What is shown is the whole public table (rules 4.7, D37): the round, the phase, the first
player, the pending decision, the Provost, every building space (tile kind and side, owner,
the Lawyer's mark, workers), the Guilds Bridge, the Construction Site, the three supplies,
the characters (held, available, used this round), and every player's hand, Camp,
resources, houses, pass and bundles. The residence a monument replaces is asked as the
monument decision again (D4): the monument being placed is then out of the supply and not yet
on the Road, and the legal mask holds his residences. Characters not revealed at setup are out of play; the
set of revealed ones is public, so ``character_out_of_play`` only says which ones are gone.

Prestige is the one hidden thing (PP tokens lie face down, rules 4.7). By default every
player's PP total and score are shown, since every gain happens in the open (D37). With the
option ``hide_opponent_pp`` (state field ``layout.OPT_HIDE_PP``) an opponent's ``pp`` and
``score`` are **never** encoded (zeros): a player's observation holds his own only. The
global state (``seat = -1``) is no player's view, and it hides **every** seat's ``pp`` and
``score`` under the option: a centralised critic trained on it must not learn to read the
totals the players never see, and no code path can turn it into a leak. The piece
``hide_opponent_pp`` says whether zeros there mean "hidden".

One-hot entries, flags and fractions of a fixed size are in [0, 1]; counts are scaled by the
constants below and bounded in ``BOUNDS`` by their largest value over their scale
(``HIGHS``): the rules' ceiling where there is one (a worker count: the 15 of a colour, D15;
houses: 9, D14; residences: the starting tiles; the round: 9, D36), else the largest value
of the int16 state (resources, prestige and bundles have no ceiling, rules 2.1 and D14, and
the engine never overflows its state). No bound is infinite. Counts are copied as they are,
never clamped, so a state that breaks the rules shows up as an observation outside the space.

``encode_into`` is a numba kernel on the hot path: it zeroes the buffer and writes the
pieces from the flat state array directly (the platform's batched env runs it over rows:
``caylus_env.core.vector``); ``encode`` is the checked Python entry point.
"""

from __future__ import annotations

from functools import partial

import numpy as np
from numba import njit

from caylus_env.caylus_1303 import GAME, engine
from caylus_env.caylus_1303.engine import layout as L
from caylus_env.caylus_1303.engine.constants import (
    HOUSES_FOR_BUILDINGS,
    MAX_PLAYERS,
    MAX_WORKERS_ON_BUILDING,
    MIN_PLAYERS,
    NUM_CHARACTERS,
    NUM_DECISION_KINDS,
    NUM_PRINTED,
    NUM_RESOURCES,
    NUM_ROUNDS,
    NUM_SPACES,
    ON_BOARD,
    OUT_OF_PLAY,
    PHASE_NAMES,
    PRESTIGE_PER_GOLD,
    PROVOST_MAX,
    ROAD0,
    ROAD_SPACES,
    WORKERS_PER_COLOUR,
    DecisionKind,
)
from caylus_env.caylus_1303.engine.decisions import (
    MAX_ANY_OWED,
    decision_arg,
    decision_kind,
    decision_player,
    depth,
    entry,
)
from caylus_env.caylus_1303.engine.layout import STATE_DTYPE, STATE_SIZE
from caylus_env.caylus_1303.engine.state import contiguous_road, final_score, pf, residences
from caylus_env.caylus_1303.engine.tiles import (
    NUM_KINDS,
    NUM_MONUMENTS,
    NUM_STARTING_TILES,
    NUM_STONE,
    NUM_WOOD,
    SIDE_NAMES,
)
from caylus_env.core.game import check_state_array
from caylus_env.core.observation import (
    OBSERVER_EXPORTS,
    ObservationLayout,
    one_hot,
    relative_seat,
    scaled_high,
    seat_flag,
    state_max,
)

# -- scales: a typical value maps to about 1 ----------------------------------------------
RESOURCE_SCALE = 5.0  # one resource held by one player: a few of each (rules 2.1)
PP_SCALE = GAME.score_scale  # prestige: the spec's score unit (caylus_env/caylus_1303/__init__)
SCORE_SCALE = GAME.score_scale  # prestige plus 2 per gold (rules 4.6)
COUNT_SCALE = 5.0  # bundles delivered this round (rules 4.3)
#: Workers of one colour (D15): a hand or a Camp is a fraction of them.
WORKER_SCALE = float(WORKERS_PER_COLOUR)
#: Houses for buildings (D14): the reserve is a fraction of them.
HOUSE_SCALE = float(HOUSES_FOR_BUILDINGS)
#: Every starting tile (rules 3.2): residences are turned starting tiles (D3, D32).
RESIDENCE_SCALE = float(NUM_STARTING_TILES)
NUM_PLAYER_COUNTS = MAX_PLAYERS - MIN_PLAYERS + 1  # the ``num_players`` one-hot: 2..5
NUM_PHASES = len(PHASE_NAMES)
NUM_SIDES = len(SIDE_NAMES)
NUM_PROVOST = PROVOST_MAX + 1  # Provost positions 0..23 (rules 3.1)
EFFECT_DECISION = int(DecisionKind.EFFECT)  # its argument is the space being used
PAY_DECISION = int(DecisionKind.PAY)  # its argument is the "any" resources owed
DELIVER_DECISION = int(DecisionKind.DELIVER)  # its argument is the Deliveryman's turn flag

P = MAX_PLAYERS
#: The pieces of the observation, in vector order: ``(name, shape)``.
PIECES: tuple[tuple[str, tuple[int, ...]], ...] = (
    # -- options and clock -------------------------------------------------------------------
    ("num_players", (NUM_PLAYER_COUNTS,)),  # one-hot player count 2..5 (rules 6)
    ("hide_opponent_pp", (1,)),  # the option: zeros in pp / score mean hidden (D37)
    ("round", (1,)),  # round / NUM_ROUNDS (rules 4, D36)
    ("phase", (NUM_PHASES,)),  # one-hot Phase (draft .. game_over)
    ("first_player", (P,)),  # relative seat holding the first-player tile (rules 4.1)
    # -- the pending decision (D39) ----------------------------------------------------------
    ("decision", (NUM_DECISION_KINDS,)),  # one-hot DecisionKind; all zero at the end
    ("decision_player", (P,)),  # relative seat of the player asked
    ("decision_below", (NUM_DECISION_KINDS,)),  # kinds waiting under the top of the stack
    ("decision_owed", (1,)),  # PAY: "any" resources still owed / MAX_ANY_OWED (D12)
    ("deliveryman_turn", (1,)),  # DELIVER: the Deliveryman's turn after all slots (rules 5.6)
    # -- the board (rules 3.1) -----------------------------------------------------------------
    ("provost", (NUM_PROVOST,)),  # one-hot Provost position p: R1..Rp are activated
    ("contiguous_road", (1,)),  # L: R1..RL all built (D6) / ROAD_SPACES
    ("space_kind", (NUM_SPACES, NUM_KINDS + 1)),  # tile kind one-hot, last = empty
    ("space_side", (NUM_SPACES, NUM_SIDES)),  # setup / construction / residence side up
    ("space_owner", (NUM_SPACES, P)),  # relative seat whose house is on it (D19)
    ("space_mark", (NUM_SPACES, P)),  # relative seat whose Lawyer house marks it (D21)
    ("space_workers", (NUM_SPACES, MAX_WORKERS_ON_BUILDING, P)),  # in placing order (D26)
    ("space_activated", (NUM_SPACES,)),  # printed a-d and R1..Rp: activated (rules 3.1)
    ("decision_space", (NUM_SPACES,)),  # EFFECT: the building being used (rules 4.2)
    ("bridge", (P, P)),  # Guilds Bridge place x relative seat: the passing order (rules 4.1 C)
    ("site", (P, P)),  # Construction Site slot W1.. x relative seat (rules 4.1 B, D17)
    ("wood_supply", (NUM_WOOD,)),  # 1: that wood building can be constructed (rules 5.3)
    ("stone_supply", (NUM_STONE,)),  # 1: that stone building can be constructed (rules 5.4)
    ("monument_supply", (NUM_MONUMENTS,)),  # 1: that monument can be built (rules 5.5)
    # -- characters (rules 5.6) ----------------------------------------------------------------
    ("character_holder", (NUM_CHARACTERS, P)),  # relative seat holding each character
    ("character_on_board", (NUM_CHARACTERS,)),  # available, taken through Favors (4.5)
    ("character_out_of_play", (NUM_CHARACTERS,)),  # not revealed at setup (D37)
    ("character_used", (NUM_CHARACTERS,)),  # its once-per-round power was used (D24)
    # -- players, by relative seat ---------------------------------------------------------------
    ("seat_present", (P,)),
    ("hand", (P,)),  # workers in hand / WORKER_SCALE
    ("camp", (P,)),  # workers of his colour in the Camp / WORKER_SCALE (D15)
    ("resources", (P, NUM_RESOURCES)),  # food, wood, stone, cloth, gold / RESOURCE_SCALE
    ("pp", (P,)),  # prestige / PP_SCALE (hidden for opponents under hide_opponent_pp)
    ("score", (P,)),  # prestige + 2 per gold / SCORE_SCALE (hidden like pp, rules 4.6)
    ("houses", (P,)),  # houses in reserve / HOUSE_SCALE (D14)
    ("passed", (P,)),  # passed this round (rules 4.1 C)
    ("bundles", (P,)),  # bundles delivered this round / COUNT_SCALE (rules 4.3)
    ("residences", (P,)),  # residences on the Road / RESIDENCE_SCALE (D3)
)
del P

#: Pieces indexed by relative seat (first axis, ``MAX_PLAYERS`` long): absent seats are zero.
SEAT_PIECES = (
    "first_player",
    "decision_player",
    *(name for name, _ in PIECES[[n for n, _ in PIECES].index("seat_present") :]),
)
#: Pieces with one column per relative seat (last axis): the bridge, the site, the characters.
SEAT_COLUMN_PIECES = ("bridge", "site", "character_holder")
#: Pieces with one row per building space (first axis: printed a-d, R1..R23, S1..S3).
SPACE_PIECES = (
    "space_kind",
    "space_side",
    "space_owner",
    "space_mark",
    "space_workers",
    "space_activated",
    "decision_space",
)

_STATE_MAX = state_max(STATE_DTYPE)
#: The largest score ``final_score`` can give: every PP token and 2 per gold the state holds.
MAX_SCORE = _STATE_MAX + PRESTIGE_PER_GOLD * _STATE_MAX
#: The upper bound of every piece that can exceed 1 (see the module docstring); every other
#: entry is a one-hot, a flag or a fraction in [0, 1].
HIGHS: dict[str, np.float32] = {
    "resources": scaled_high(_STATE_MAX, RESOURCE_SCALE),
    "pp": scaled_high(_STATE_MAX, PP_SCALE),
    "score": scaled_high(MAX_SCORE, SCORE_SCALE),
    "bundles": scaled_high(_STATE_MAX, COUNT_SCALE),
}
#: Raise when a piece keeps its name and shape but changes encoding (a scale, an order).
OBSERVATION_REVISION = 1
#: The layout of the vector (``caylus_env.core.observation``).
LAYOUT = ObservationLayout(
    PIECES, HIGHS, OBSERVATION_REVISION, SEAT_PIECES, SEAT_COLUMN_PIECES, SPACE_PIECES
)
#: Where each piece lives, the vector's size, its version, its bounds and named views onto it
#: (``caylus_env.core.observation.LayoutConstants``).
PIECE_SLICES, PIECE_SHAPES, OBS_SIZE, OBSERVATION_VERSION, BOUNDS, observation_pieces = (
    LAYOUT.constants()
)


# Offsets as plain ints, frozen into the kernel as compile-time constants.
_O = LAYOUT.offsets
O_NUM_PLAYERS = _O["num_players"]
O_HIDE = _O["hide_opponent_pp"]
O_ROUND = _O["round"]
O_PHASE = _O["phase"]
O_FIRST = _O["first_player"]
O_DECISION = _O["decision"]
O_DECISION_PLAYER = _O["decision_player"]
O_DECISION_BELOW = _O["decision_below"]
O_OWED = _O["decision_owed"]
O_DELIVERYMAN = _O["deliveryman_turn"]
O_PROVOST = _O["provost"]
O_CONTIGUOUS = _O["contiguous_road"]
O_KIND = _O["space_kind"]
O_SIDE = _O["space_side"]
O_OWNER = _O["space_owner"]
O_MARK = _O["space_mark"]
O_WORKERS = _O["space_workers"]
O_ACTIVATED = _O["space_activated"]
O_DECISION_SPACE = _O["decision_space"]
O_BRIDGE = _O["bridge"]
O_SITE = _O["site"]
O_WOOD = _O["wood_supply"]
O_STONE = _O["stone_supply"]
O_MONUMENT = _O["monument_supply"]
O_HOLDER = _O["character_holder"]
O_ON_BOARD = _O["character_on_board"]
O_OUT = _O["character_out_of_play"]
O_USED = _O["character_used"]
O_PRESENT = _O["seat_present"]
O_HAND = _O["hand"]
O_CAMP = _O["camp"]
O_RESOURCES = _O["resources"]
O_PP = _O["pp"]
O_SCORE = _O["score"]
O_HOUSES = _O["houses"]
O_PASSED = _O["passed"]
O_BUNDLES = _O["bundles"]
O_RESIDENCES = _O["residences"]
del _O
_P = MAX_PLAYERS
_W = MAX_WORKERS_ON_BUILDING


@njit(cache=True)
def prestige_visible(state, seat, p):
    """Whether ``seat``'s observation shows player ``p``'s prestige and score (D37): always
    without ``hide_opponent_pp``; with it, only his own (never in the global state, -1)."""
    return state[L.OPT_HIDE_PP] == 0 or (seat >= 0 and p == seat)


@njit(cache=True)
def encode_into(state, seat, out):
    """Write the observation of ``seat`` (or the global state, ``-1``) into ``out``.

    With ``hide_opponent_pp`` on, ``pp`` and ``score`` hold ``seat``'s own row only; the
    global state holds none (see the module docstring, D37).

    Args:
        state: the flat int16 game state (``caylus_env.caylus_1303.engine.layout``).
        seat: a seat 0..num_players-1, or -1 for absolute seats.
        out: a float32 buffer of at least ``OBS_SIZE`` entries; it is zeroed first.
    """
    out[:OBS_SIZE] = 0.0
    n = np.int64(state[L.NUM_PLAYERS])
    # -- options and clock
    one_hot(out, O_NUM_PLAYERS, n - MIN_PLAYERS, NUM_PLAYER_COUNTS)
    out[O_HIDE] = state[L.OPT_HIDE_PP] != 0
    out[O_ROUND] = state[L.ROUND] / NUM_ROUNDS
    phase = np.int64(state[L.PHASE])
    if 0 <= phase < NUM_PHASES:
        out[O_PHASE + phase] = 1.0
    seat_flag(out, O_FIRST, state[L.FIRST_PLAYER], seat, n)
    # -- the pending decision and what waits under it
    kind = decision_kind(state)
    if 0 <= kind < NUM_DECISION_KINDS:
        out[O_DECISION + kind] = 1.0
        seat_flag(out, O_DECISION_PLAYER, decision_player(state), seat, n)
        v = decision_arg(state)
        if kind == EFFECT_DECISION and 0 <= v < NUM_SPACES:
            out[O_DECISION_SPACE + v] = 1.0
        elif kind == PAY_DECISION:
            out[O_OWED] = v / MAX_ANY_OWED
        elif kind == DELIVER_DECISION:
            out[O_DELIVERYMAN] = v != 0
        for i in range(depth(state) - 1):
            below = entry(state, i)[0]
            if 0 <= below < NUM_DECISION_KINDS:
                out[O_DECISION_BELOW + below] = 1.0
    # -- the board
    provost = np.int64(state[L.PROVOST])
    if 0 <= provost < NUM_PROVOST:
        out[O_PROVOST + provost] = 1.0
    out[O_CONTIGUOUS] = contiguous_road(state) / ROAD_SPACES
    for sp in range(NUM_SPACES):
        k = np.int64(state[L.SPACE_KIND + sp])
        if 0 <= k < NUM_KINDS:
            out[O_KIND + sp * (NUM_KINDS + 1) + k] = 1.0
            side = np.int64(state[L.SPACE_SIDE + sp])
            if 0 <= side < NUM_SIDES:
                out[O_SIDE + sp * NUM_SIDES + side] = 1.0
        elif k < 0:
            out[O_KIND + sp * (NUM_KINDS + 1) + NUM_KINDS] = 1.0
        seat_flag(out, O_OWNER + sp * _P, state[L.SPACE_OWNER + sp], seat, n)
        seat_flag(out, O_MARK + sp * _P, state[L.SPACE_MARK + sp], seat, n)
        for i in range(_W):
            w = state[L.SPACE_WORKER + sp * _W + i]
            seat_flag(out, O_WORKERS + (sp * _W + i) * _P, w, seat, n)
        if sp < NUM_PRINTED or (ROAD0 < sp <= ROAD0 + ROAD_SPACES and sp - ROAD0 <= provost):
            out[O_ACTIVATED + sp] = 1.0
    for i in range(_P):
        seat_flag(out, O_BRIDGE + i * _P, state[L.BRIDGE + i], seat, n)
        seat_flag(out, O_SITE + i * _P, state[L.SITE + i], seat, n)
    for i in range(NUM_WOOD):
        out[O_WOOD + i] = state[L.WOOD_SUPPLY + i] != 0
    for i in range(NUM_STONE):
        out[O_STONE + i] = state[L.STONE_SUPPLY + i] != 0
    for i in range(NUM_MONUMENTS):
        out[O_MONUMENT + i] = state[L.MONUMENT_SUPPLY + i] != 0
    # -- characters
    for c in range(NUM_CHARACTERS):
        h = np.int64(state[L.CHARACTER_HOLDER + c])
        seat_flag(out, O_HOLDER + c * _P, h, seat, n)
        out[O_ON_BOARD + c] = h == ON_BOARD
        out[O_OUT + c] = h == OUT_OF_PLAY
        out[O_USED + c] = state[L.CHARACTER_USED + c] != 0
    # -- players
    for p in range(min(n, MAX_PLAYERS)):
        r = relative_seat(p, seat, n)
        out[O_PRESENT + r] = 1.0
        out[O_HAND + r] = state[pf(p, L.P_HAND)] / WORKER_SCALE
        out[O_CAMP + r] = state[pf(p, L.P_CAMP)] / WORKER_SCALE
        for res in range(NUM_RESOURCES):
            v = state[pf(p, L.P_RESOURCES + res)]
            out[O_RESOURCES + r * NUM_RESOURCES + res] = v / RESOURCE_SCALE
        if prestige_visible(state, seat, p):
            out[O_PP + r] = state[pf(p, L.P_PP)] / PP_SCALE
            out[O_SCORE + r] = final_score(state, p) / SCORE_SCALE
        out[O_HOUSES + r] = state[pf(p, L.P_HOUSES)] / HOUSE_SCALE
        out[O_PASSED + r] = state[pf(p, L.P_PASSED)] != 0
        out[O_BUNDLES + r] = state[pf(p, L.P_BUNDLES)] / COUNT_SCALE
        out[O_RESIDENCES + r] = residences(state, p) / RESIDENCE_SCALE


#: The checked Python entry point ``encode(state, seat)``: the observation of ``seat`` in
#: ``state`` as a new array (``-1``: the global state). Besides the state's type and the seat,
#: it checks the contents with the game's own validation (``check_state_array``: an
#: ``InvalidStateError``): a tile kind or a pending space out of its domain would make the
#: compiled encoder write outside its buffer, as for a state from a file.
encode = LAYOUT.checked_encoder(
    encode_into, STATE_DTYPE, STATE_SIZE, L.NUM_PLAYERS, partial(check_state_array, engine)
)

__all__ = [*OBSERVER_EXPORTS, "SEAT_COLUMN_PIECES", "SPACE_PIECES", "prestige_visible"]
