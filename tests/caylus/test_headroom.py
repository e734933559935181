"""The Caylus loader's bounds on money, cubes and prestige: each leaves room in its int16
entry for the most the rest of the game can add, the final scoring included (rules 4.8;
``engine/headroom.py``), so a position the loader accepts, even with every amount at its
cap, plays to its end through positions it accepts again, and never wraps."""

from __future__ import annotations

import copy
import random

import numpy as np
import pytest

from caylus_env.caylus.engine import Game, GameConfig, InvalidStateError
from caylus_env.caylus.engine import layout as L
from caylus_env.caylus.engine.actions import NUM_ACTIONS
from caylus_env.caylus.engine.constants import NUM_RESOURCES, RESOURCE_NAMES, Phase
from caylus_env.caylus.engine.headroom import STATE_MAX, room
from caylus_env.caylus.engine.loop import LOOP
from tests.fuzz_states import fuzz

#: The position each player count is capped at: the top decision's kind.
CAPPED_AT = {2: "place_worker", 3: "castle", 4: "favor_row", 5: "peddler"}
#: More than a whole game reaches (tens of deniers and cubes, under a hundred prestige): the
#: caps of a real position leave far more room.
REAL_GAME_MOST = 1000


def _pf(p: int, field: int) -> int:
    return L.PLAYERS + p * L.PLAYER_STRIDE + field


def _position(n: int, kind: str) -> dict:
    """The first position of seeded random games of ``n`` players asking ``kind``."""
    for seed in range(60):
        game = Game(GameConfig(num_players=n), seed=seed)
        rng = random.Random(seed)
        while not game.is_over():
            if game.decision().kind == kind:
                return game.state_dict()
            game.apply(rng.choice(game.legal_actions()))
    raise AssertionError(f"no seeded game of {n} players asked {kind}")


def _accepted(d: dict) -> bool:
    try:
        Game.from_state_dict(d)
    except InvalidStateError:
        return False
    return True


def _get(d: dict, path: tuple) -> int:
    for key in path:
        d = d[key]
    return d


def _to_cap(d: dict, path: tuple) -> int:
    """Raise the amount at ``path`` to the largest value the loader accepts (it accepts the
    value ``d`` holds) and return it; one more is refused with one line naming the amount
    that has no room left (this one, or the prestige its final scoring would give)."""
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
    with pytest.raises(InvalidStateError, match=r"players\[\d\]\.\S+=\d+ is not allowed at") as e:
        Game.from_state_dict(d)
    assert "\n" not in str(e.value)
    node[path[-1]] = low
    return low


@pytest.mark.parametrize("n", sorted(CAPPED_AT))
def test_amounts_at_the_loaders_caps_play_to_the_end_through_positions_it_accepts(n):
    d = _position(n, CAPPED_AT[n])
    for path in (("players", 0, "money"), ("players", 0, "prestige")):
        alone = copy.deepcopy(d)  # one amount alone: far more room than real games use
        assert _to_cap(alone, path) > 10 * _get(d, path) + REAL_GAME_MOST
    for p in range(n):  # every amount at its cap at once: cubes and money first, which the
        # final scoring turns into prestige
        _to_cap(d, ("players", p, "cubes", RESOURCE_NAMES[p % NUM_RESOURCES]))
        _to_cap(d, ("players", p, "money"))
        _to_cap(d, ("players", p, "prestige"))
    game = Game.from_state_dict(d)
    rng = random.Random(n)
    moves = 0
    while not game.is_over():
        game.apply(rng.choice(game.legal_actions()))
        moves += 1
        position = game.state_dict()
        assert Game.from_state_dict(position).state_dict() == position, moves
    final = game.state_dict()["players"]
    assert moves > 0 and all(0 <= pl["prestige"] <= STATE_MAX for pl in final)


def _slack(s: np.ndarray) -> np.ndarray:
    """The room each amount has left in its int16 entry beyond what the game can still add."""
    r = room(s)
    out = []
    for p in range(int(s[L.NUM_PLAYERS])):
        out.append(STATE_MAX - int(s[_pf(p, L.P_MONEY)]) - r.money[p])
        out.append(STATE_MAX - int(s[_pf(p, L.P_PRESTIGE)]) - r.prestige[p])
        out += [
            STATE_MAX - int(s[_pf(p, L.P_CUBES + k)]) - r.cubes[p] for k in range(NUM_RESOURCES)
        ]
    return np.array(out)


@pytest.mark.parametrize("n", [2, 3, 4, 5])
def test_room_left_for_every_amount_never_shrinks_at_any_step_of_the_engine(n):
    # Every driver step, procedure, automatic answer and decision of random games (rich
    # players who fill the castle, the simplified favors) adds at most what it spends of
    # the room: the property the loader's acceptance rests on.
    out = np.empty(NUM_ACTIONS, np.int64)
    for seed in range(4):
        s = Game(GameConfig(num_players=n, simplified_favors=seed == 3), seed=seed).state.copy()
        if seed in (1, 2):
            for p in range(n):
                s[_pf(p, L.P_MONEY)] = 15 * seed
                for r in range(NUM_RESOURCES):
                    s[_pf(p, L.P_CUBES + r)] = 6 * seed
        rng = np.random.default_rng(seed)
        before = _slack(s)
        while s[L.PHASE] != Phase.GAME_OVER:
            # one step of the loop: a driver, a procedure, a favor lost (rules 5.3) ...
            m = LOOP.automatic_step(s, out)
            if m == 1:
                LOOP.answer(s, out[0])
            elif m > 1:  # the last answer (often the richest) half of the time
                LOOP.apply(s, out[m - 1] if rng.random() < 0.5 else out[rng.integers(m)])
            after = _slack(s)
            assert (after >= before).all(), np.flatnonzero(after < before)
            before = after
        assert (before >= 0).all()


def test_gold_whose_final_scoring_would_wrap_prestige_is_refused():
    # Rules 4.8: 3 prestige per gold at the end. 9,999 gold on 9,999 prestige (both inside
    # the former fixed cap) ended the game at -25,541 prestige: the int16 entry wrapped.
    d = _position(3, "place_worker")
    d["players"][0]["prestige"] = 9999
    d["players"][0]["cubes"]["gold"] = 9999
    with pytest.raises(InvalidStateError, match=r"players\[0\]\.prestige=9999 .* final scoring"):
        Game.from_state_dict(d)
    d["players"][0]["cubes"]["gold"] = 5000
    game = Game.from_state_dict(d)  # half the gold fits: played to the end, and scored
    while not game.is_over():
        game.apply(game.legal_actions()[0])
    assert 3 * 5000 <= game.state_dict()["players"][0]["prestige"] <= STATE_MAX


def test_fuzzed_positions_raised_to_the_loaders_cap_play_on_through_positions_it_accepts():
    # The state fuzzer's caps mode (tests/fuzz_states.py): positions of random games, mutated
    # or not, with one int raised to the largest value the loader accepts, played to the end.
    counts, examples = fuzz("caylus", 30, seed=3, jobs=2, caps=True)
    assert sum(counts.values()) == 30
    assert all(counts[o] == 0 for o in ("other", "corrupt", "crash", "hang")), examples
    assert counts["accepted"] > 0, counts
