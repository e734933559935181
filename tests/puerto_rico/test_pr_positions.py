"""The Puerto Rico position builder (``caylus_env.puerto_rico.positions``) reaches every
decision, mid-step ones included: a description sets the pending decision, the phase and the
cursors the engine keeps (``step``, ``idle``, ``guest_step``), the captain's and storage's
marks and the hidden plantation order, and ``describe`` gives the description of any position
the engine reaches. Scenario tests are named after the position they set up; the positions of
the engine's own play are checked against it (rules 4.6, 4.7, 7.1, 7.4).
"""

from __future__ import annotations

import pytest

from caylus_env.core import positions as core
from caylus_env.core.registry import game_spec
from caylus_env.puerto_rico.engine import (
    Game,
    GameConfig,
    InvalidStateError,
    kernels,
    layout,
    state_to_dict,
)
from caylus_env.puerto_rico.positions import (
    PositionError,
    act,
    build,
    build_dict,
    describe,
    legal_names,
)

EXPANSION = {"expansion": True}


def test_loading_turn_after_another_player_was_passed_over_is_the_engines_own():
    # Seat 0, the captain, ships his corn; seat 1 has nothing to load and is passed over
    # (rules 4.6): seat 2's loading turn follows one turn without a loading.
    holdings = {0: {"goods": {"corn": 2}}, 2: {"goods": {"sugar": 1}}}
    played = build(3, role="captain", picker=0, players=holdings)
    act(played, "load:corn:ship1")
    described = build(
        3,
        role="captain",
        picker=0,
        decisions=1,
        players={0: {"vp": 2 + 1, "shipped": True}, 2: {"goods": {"sugar": 1}}},
        ships=[("corn", 2)],
        pending=[{"kind": "load", "player": 2}],
        idle=1,
    )
    assert described.state_dict() == played.state_dict()
    assert legal_names(described) == ["load:sugar:ship2", "load:sugar:ship3"]
    d = described.state_dict()
    assert (d["step"], d["idle"], d["guest_step"]) == (0, 1, 3)  # the lap's last seat


def test_captains_first_turn_passed_over_needs_no_cursor_in_the_description():
    # Nobody has shipped yet: each turn so far passed without a loading, and the builder
    # counts them as the engine does (``idle`` 1 before seat 1's turn).
    d = build_dict(
        3,
        role="captain",
        picker=0,
        players={1: {"goods": {"corn": 1}}},
        pending=[{"kind": "load", "player": 1}],
    )
    assert (d["step"], d["idle"], d["guest_step"]) == (2, 1, 3)
    assert build(3, role="captain", picker=0, players={1: {"goods": {"corn": 1}}}).state_dict() == (
        Game.from_state_dict(d).state_dict()
    )


def test_draft_phase_is_built_with_the_picks_made_so_far():
    options = {"expansion": True, "draft": "players"}
    played = Game(GameConfig(num_players=3, **options), seed=0)
    act(played, "draft:lighthouse", "draft:library")
    described = build(
        3, options=options, phase="draft", drafted=["lighthouse", "library"], decisions=2
    )
    assert described.state_dict() == played.state_dict()
    assert described.current_player() == 2 and described.decision().kind == "draft"
    assert "draft:lighthouse" not in legal_names(described)


def test_drafted_buildings_replace_the_seeds_random_draft():
    d = build_dict(
        3, options=EXPANSION, drafted=["lighthouse"], players={1: {"buildings": ["library"]}}
    )
    violet = [b for b in game_spec("puerto_rico").engine().buildings.BUILDINGS if b.kind != 0]
    board = sorted(b.name for b in violet if d["building_supply"][b.name] > 0)
    assert board == ["library", "lighthouse"]


def test_storage_of_a_player_after_his_warehouse_kept_a_kind_is_built_from_a_description():
    # Rules 4.7: his small warehouse kept his corn whole; his windrose barrel is asked next.
    keeper = {
        "goods": {"corn": 3, "sugar": 2},
        "buildings": {"small_warehouse": 1},
        "kept": ["corn"],
    }
    g = build(
        3,
        role="captain",
        picker=0,
        phase="captain_storage",
        players={0: keeper},
        pending=[{"kind": "store_barrel", "player": 0, "barrels": 1}],
    )
    assert g.state_dict()["step"] == 1 and legal_names(g) == ["decline", "keep:sugar"]
    act(g, "keep:sugar")
    assert g.state_dict()["players"][0]["goods"]["corn"] == 3
    assert g.state_dict()["players"][0]["goods"]["sugar"] == 1


def test_describe_leaves_out_what_equals_the_builders_default():
    assert describe(build_dict(3)) == {}
    start = build(3)  # the engine asks the first pick: that is the position's pending decision
    assert describe(start) == {"pending": [{"kind": "role", "player": 0}]}
    described = describe(build(4, role="builder", picker=2, players={2: {"money": 9}}))
    assert described == {
        "role": "builder",
        "picker": 2,
        "players": {2: {"money": 9}},
        "pending": [{"kind": "build", "player": 2}],
    }


def test_describe_refuses_a_state_dict_the_loader_refuses():
    d = build_dict(3, role="trader", picker=0, pending=[{"kind": "sell", "player": 0}])
    d["guest_step"] = 9
    with pytest.raises(InvalidStateError, match="guest_step: 9 is out of range"):
        describe(d)


def _reached(n, options, seed):
    """Positions the engine reaches: every fifth decision of a seeded game, and the state
    right after a move as a game cut off there by its decision cap keeps it (rules 6.9)."""
    for i, reached in enumerate(core.decisions("puerto_rico", n, options=options, seed=seed)):
        if i % 5:
            continue
        yield reached.state
        s = reached.state.copy()
        kernels.apply(s, reached.legal[i % len(reached.legal)])
        s[layout.MAX_DECISIONS] = max(1, int(s[layout.DECISIONS]))
        yield s


@pytest.mark.parametrize("n", [2, 3, 4, 5])
def test_every_position_of_seeded_games_is_described_and_built_back(n):
    spec = game_spec("puerto_rico")
    for seed, options in enumerate(spec.option_sets.values()):
        for s in _reached(n, options, seed + 10 * n):
            d = state_to_dict(s)
            description = describe(d)
            assert build_dict(n, **description) == d, description


@pytest.mark.parametrize(
    ("description", "match"),
    [
        ({"step": -1}, "step=-1 is not allowed; allowed: 0..17"),
        ({"idle": "x"}, "idle must be a whole number"),
        ({"guest_step": 5}, "guest_step=5 is not allowed; allowed: 0..4"),
        ({"decisions": 4001}, r"decisions \(at most options.max_decisions\)=4001"),
        ({"doubled": 1}, "doubled must be true or false"),
        ({"produced": ["corn", "corn"]}, "produced must be a list of distinct goods"),
        ({"produced": ["gold"]}, "produced='gold' is not allowed"),
        ({"black_market": {"left": 1}}, "black_market: unknown field 'left'"),
        ({"black_market": {"returned": ["money"]}}, "black_market.returned='money'"),
        ({"rng": 0}, r"rng=0 is not allowed; allowed: 1..2147483646"),
        ({"plantation_stack": ["corn"]}, "plantation_stack holds 1 corn plantations; allowed:"),
        ({"plantation_stack": ["palm"]}, r"plantation_stack\[0\]='palm'"),
        ({"phase": "captain"}, r"phase \(without a role\)='captain' is not allowed"),
        ({"role": "trader", "phase": "captain_storage"}, r"phase \(role trader\)="),
        ({"phase": "draft"}, r"allowed: role_selection, game_over"),
        ({"players": [{"shipped": "yes"}]}, r"players\[0\]\.shipped must be true or false"),
        ({"players": [{"kept": ["corn", "corn"]}]}, r"players\[0\]\.kept must be a list"),
        ({"players": [{"singles": {"corn": 5}}]}, r"players\[0\]\.singles\.corn=5"),
    ],
)
def test_a_description_field_out_of_its_domain_is_refused_naming_it(description, match):
    with pytest.raises(PositionError, match=match) as err:
        build_dict(3, **description)
    assert "\n" not in str(err.value)
