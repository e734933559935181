"""The Caylus 1303 loader's bounds on the counts without a rules ceiling (prestige, resources,
bundles, decisions): each leaves room in its int16 entry for the most the rest of the game can
add (``engine/headroom.py``), so a position the loader accepts, even with every count at its
cap, plays to its end through positions it accepts again."""

from __future__ import annotations

import copy
import random

import numpy as np
import pytest

from caylus_env.caylus_1303.engine import Game, GameConfig, InvalidStateError
from caylus_env.caylus_1303.engine import layout as L
from caylus_env.caylus_1303.engine.actions import NUM_ACTIONS
from caylus_env.caylus_1303.engine.constants import NUM_RESOURCES, RESOURCE_NAMES, Phase
from caylus_env.caylus_1303.engine.headroom import STATE_MAX, room
from caylus_env.caylus_1303.engine.loop import LOOP
from caylus_env.caylus_1303.engine.state import pf
from caylus_env.caylus_1303.engine.state_dict import dict_to_state
from tests.fuzz_states import fuzz

#: The position each player count is capped at: the top decision's kind.
CAPPED_AT = {2: "plan", 3: "deliver", 4: "effect", 5: "monument"}


def _position(n: int, kind: str) -> dict:
    """The first position of seeded random games of ``n`` players asking ``kind``."""
    for seed in range(40):
        game = Game(GameConfig(num_players=n), seed=seed)
        rng = random.Random(seed)
        for p in range(n):  # rich players reach every phase's decisions
            for r in range(NUM_RESOURCES):
                game.state[pf(p, L.P_RESOURCES + r)] = 6
        while not game.is_over():
            if game.decision().kind == kind and game.state_dict()["round"] > 1:
                return game.state_dict()
            game.apply(rng.choice(game.legal_actions()))
    raise AssertionError(f"no seeded game of {n} players asked {kind}")


#: More than a whole game reaches (tens of resources, a few hundred prestige, about two
#: thousand decisions): the caps of a real position leave far more room.
REAL_GAME_MOST = 2000


def _get(d: dict, path: tuple) -> int:
    for key in path:
        d = d[key]
    return d


def _accepted(d: dict) -> bool:
    try:
        Game.from_state_dict(d)
    except InvalidStateError:
        return False
    return True


def _to_cap(d: dict, path: tuple) -> int:
    """Raise the count at ``path`` to the largest value the loader accepts (it accepts the
    value ``d`` holds) and return it."""
    node = d
    for key in path[:-1]:
        node = node[key]
    low, high = node[path[-1]], STATE_MAX
    while low < high:
        node[path[-1]] = mid = (low + high + 1) // 2
        if _accepted(d):
            low = mid
        else:
            high = mid - 1
    node[path[-1]] = low + 1
    with pytest.raises(InvalidStateError, match=r"out of range at this point") as refused:
        dict_to_state(d)
    assert "\n" not in str(refused.value)
    node[path[-1]] = low
    return low


@pytest.mark.parametrize("n", sorted(CAPPED_AT))
def test_counts_at_the_loaders_caps_play_to_the_end_through_positions_it_accepts(n):
    d = _position(n, CAPPED_AT[n])
    for path in (("decisions",), ("players", 0, "pp"), ("players", 0, "resources", "gold")):
        alone = copy.deepcopy(d)  # one count alone: far more room than real games use
        assert _to_cap(alone, path) > 10 * _get(d, path) + REAL_GAME_MOST
    for p in range(n):  # every count at its cap at once: the resources first, whose
        # bundles count in the room of prestige and decisions
        _to_cap(d, ("players", p, "resources", RESOURCE_NAMES[p % NUM_RESOURCES]))
        if d["phase"] == "delivery":
            _to_cap(d, ("players", p, "bundles"))
        _to_cap(d, ("players", p, "pp"))
    _to_cap(d, ("decisions",))
    game = Game.from_state_dict(d)
    rng = random.Random(n)
    moves = 0
    while not game.is_over():
        game.apply(rng.choice(game.legal_actions()))
        moves += 1
        position = game.state_dict()
        assert Game.from_state_dict(position).state_dict() == position, moves
    assert moves > 0 and game.state_dict()["phase"] == "game_over"


def _slack(s: np.ndarray) -> np.ndarray:
    """The room each count has left in its int16 entry beyond what the game can still add."""
    r = room(s)
    out = [STATE_MAX - int(s[L.DECISIONS]) - r.decisions]
    for p in range(int(s[L.NUM_PLAYERS])):
        out.append(STATE_MAX - int(s[pf(p, L.P_PP)]) - r.pp[p])
        out.append(STATE_MAX - int(s[pf(p, L.P_BUNDLES)]) - r.bundles[p])
        out += [
            STATE_MAX - int(s[pf(p, L.P_RESOURCES + k)]) - r.resources[p]
            for k in range(NUM_RESOURCES)
        ]
    return np.array(out)


@pytest.mark.parametrize("n", [2, 3, 4, 5])
def test_room_left_for_every_count_never_shrinks_at_any_step_of_the_engine(n):
    # Every driver step, automatic answer and decision of random games (some with rich
    # players, who build monuments and deliver many bundles) adds at most what it spends of
    # the room: the property the loader's acceptance rests on.
    out = np.empty(NUM_ACTIONS, np.int64)
    for seed in range(3):
        s = Game(GameConfig(num_players=n), seed=seed).state.copy()
        if seed:
            for p in range(n):
                for r in range(NUM_RESOURCES):
                    s[pf(p, L.P_RESOURCES + r)] = 20 * seed
        rng = np.random.default_rng(seed)
        before = _slack(s)
        while s[L.PHASE] != Phase.GAME_OVER:
            m = LOOP.automatic_step(s, out)  # one step of the loop: a driver ...
            if m == 1:
                LOOP.answer(s, out[0])
            elif m > 1:  # the richest answer (the last) half of the time
                LOOP.apply(s, out[m - 1] if rng.random() < 0.5 else out[rng.integers(m)])
            after = _slack(s)
            assert (after >= before).all(), np.flatnonzero(after < before)
            before = after
        assert (before == STATE_MAX - _counts(s)).all()  # nothing left to add at the end


def _counts(s: np.ndarray) -> np.ndarray:
    out = [int(s[L.DECISIONS])]
    for p in range(int(s[L.NUM_PLAYERS])):
        out += [int(s[pf(p, L.P_PP)]), int(s[pf(p, L.P_BUNDLES)])]
        out += [int(s[pf(p, L.P_RESOURCES + k)]) for k in range(NUM_RESOURCES)]
    return np.array(out)


def test_resources_whose_bundles_could_wrap_prestige_are_refused():
    # With the Chamberlain any 3 resources make a bundle worth 5 + 1 prestige (rules 4.3,
    # D30): 36,000 resources could add 72,000 prestige, past the int16 entry.
    d = _position(3, "plan")
    for r in ("food", "wood", "stone"):
        d["players"][0]["resources"][r] = 12000
    with pytest.raises(InvalidStateError, match=r"players\[0\]\.pp: .* by the bundles his"):
        dict_to_state(d)


def test_fuzzed_positions_raised_to_the_loaders_cap_play_on_through_positions_it_accepts():
    # The state fuzzer's caps mode (tests/fuzz_states.py): positions of random games, mutated
    # or not, with one int raised to the largest value the loader accepts, played to the end.
    counts, examples = fuzz("caylus_1303", 30, seed=3, jobs=2, caps=True)
    assert sum(counts.values()) == 30
    assert all(counts[o] == 0 for o in ("other", "corrupt", "crash", "hang")), examples
    assert counts["accepted"] > 0, counts
