"""Every game's engine through the shared handle: random-game invariants over thousands of
complete games per player count and option set (compiled, ``caylus_env.core.checks``),
determinism, clones and state dicts, refusal of invalid and mutated state dicts, records and
their verification, and the records written before the games became peers."""

from __future__ import annotations

import copy
import dataclasses
import importlib
import json
import random
from pathlib import Path

import numpy as np
import pytest

from caylus_env.core.checks import check_random_games
from caylus_env.core.game import ENGINE_BINDINGS, IllegalActionError, InvalidStateError
from caylus_env.core.game import Game as BaseGame
from caylus_env.core.record import FinalResult, GameRecord, load_records, replay
from caylus_env.core.registry import GAME_NAMES, game_spec
from tests.conformance.conftest import CASES, case_id, options_of, random_game

LEGACY = Path(__file__).parent.parent / "legacy"
#: Complete random games per (game, player count, option set) in the default run; ``-m slow``
#: plays ten times more.
DEFAULT_GAMES = 1000
SLOW_GAMES = 10_000


# -- compiled random-game invariants -----------------------------------------------------------
@pytest.mark.parametrize("case", CASES, ids=case_id)
def test_random_games_keep_every_invariant(case):
    game, n, name = case
    checked = check_random_games(game, n, DEFAULT_GAMES, seed=n, **options_of(game, name))
    assert checked.lengths.min() > 20 and len(checked.lengths) == DEFAULT_GAMES


@pytest.mark.slow
@pytest.mark.parametrize("case", CASES, ids=case_id)
def test_random_games_keep_every_invariant_wide(case):
    game, n, name = case
    check_random_games(
        game, n, SLOW_GAMES, seed=1000 + n, sample_every=16, **options_of(game, name)
    )


@pytest.mark.parametrize("game", [g for g in GAME_NAMES if game_spec(g).truncating_options])
def test_truncated_games_keep_every_invariant(game):
    options = game_spec(game).truncating_options
    checked = check_random_games(game, 3, 200, seed=5, sample_every=4, **options)
    assert (checked.lengths <= options.get("max_decisions", np.inf)).all()


# -- the handle at sampled decisions of random games --------------------------------------------
@pytest.mark.parametrize("case", [c for c in CASES if c[1] in (2, 3, 5)], ids=case_id)
def test_handle_checks_at_powers_of_two(case):
    """OpenSpiel's sampled checks: clone and state-dict round trips are exact, the decision is
    the top of the engine's stack, an illegal action changes nothing, the mask is the legal
    list, and the end is consistent (ranks, returns, record)."""
    game, n, name = case
    engine = game_spec(game).engine()
    g = None
    for i, g in enumerate(random_game(game, n, seed=7 * n, **options_of(game, name))):
        if g.is_over():
            break
        legal = g.legal_actions()
        assert g.current_player() == g.decision().player
        assert np.flatnonzero(g.legal_mask()).tolist() == legal
        if i & (i - 1) == 0:  # 0, 1, 2, 4, 8, ...
            twin = g.clone()
            assert np.array_equal(twin.state, g.state) and twin.history == g.history
            loaded = engine.Game.from_state_dict(g.state_dict())
            assert np.array_equal(loaded.state, g.state)
            assert loaded.legal_actions() == legal and loaded.state_dict() == g.state_dict()
            twin.apply(legal[-1])
            assert twin.history[-1] == legal[-1] and len(g.history) == i  # independent
            bad = next(a for a in range(engine.NUM_ACTIONS) if a not in legal)
            before = g.state.copy()
            with pytest.raises(IllegalActionError):
                g.apply(bad)
            assert np.array_equal(g.state, before) and len(g.history) == i
    assert g is not None and g.is_over() and g.decision() is None and g.legal_actions() == []
    assert g.current_player() == -1
    scores, ranks = g.scores(), g.ranks()
    assert len(scores) == n and sorted(ranks) == sorted(np.asarray(ranks))
    assert np.isclose(sum(ranks), n * (n + 1) / 2)
    returns = g.returns()
    if g.is_terminal():
        assert abs(returns.sum()) < 1e-9 and returns.max() <= 1 and returns.min() >= -1
        assert returns[int(np.argmin(ranks))] == returns.max()
    else:
        assert not returns.any()
    assert np.array_equal(replay(g.record()).state, g.state)


def test_every_engine_uses_the_shared_handle_and_errors(game):
    engine = game_spec(game).engine()
    assert issubclass(engine.Game, BaseGame)
    assert engine.IllegalActionError is IllegalActionError
    assert engine.InvalidStateError is InvalidStateError
    assert engine.GameRecord is GameRecord and engine.replay is replay
    g = engine.Game()
    assert g.num_players == game_spec(game).default_players and g.round >= 1
    assert isinstance(g.phase, str) and g.phase
    with pytest.raises(ValueError, match="config must be"):
        engine.Game(config={"num_players": 3})
    for bad in (-1, 2**63, 1.5, True):
        with pytest.raises(ValueError, match="seed"):
            engine.Game(seed=bad)


def test_every_handle_reads_its_attributes_from_its_own_engine_package(game):
    """``class Game(core.Game, game=..., engine=__package__)`` binds each attribute of
    `ENGINE_BINDINGS` from the game's own engine modules, never another game's."""
    engine = game_spec(game).engine()
    assert game == engine.Game.GAME
    for attribute, (module, name) in ENGINE_BINDINGS.items():
        source = importlib.import_module(f"{engine.__name__}.{module}")
        expected = source if name is None else getattr(source, name)
        assert getattr(engine.Game, attribute) is expected, attribute
    assert engine.Game.KERNELS is engine.kernels and engine.Game.CONFIG is engine.GameConfig


def test_a_handle_bound_to_an_engine_without_a_game_name_is_refused():
    engine = game_spec(GAME_NAMES[0]).engine()
    with pytest.raises(TypeError, match="names its game"):
        type("Nameless", (BaseGame,), {}, engine=engine.__name__)


def test_same_seed_and_actions_give_the_same_game_bit_for_bit(game):
    spec = game_spec(game)
    runs = []
    for _ in range(2):
        states = [g.state.tobytes() for g in random_game(game, 3, seed=11)]
        runs.append(states)
    assert runs[0] == runs[1]
    setups = {spec.new_game(spec.config(3), seed).state.tobytes() for seed in range(20)}
    assert len(setups) > 1  # the seed draws the setup


def test_the_position_builder_builds_validated_games(game):
    spec = game_spec(game)
    positions = spec.module("positions")
    for name, options in spec.option_sets.items():
        for n in (spec.min_players, spec.max_players):
            d = positions.position(n, **options)
            g = positions.start(d)
            assert g.num_players == n, name
            assert all(getattr(g.config, k) == v for k, v in options.items()), name
            names = positions.legal_names(g)
            assert names == [spec.engine().action_to_string(a) for a in g.legal_actions()]
            positions.play(g, names[-1])
            assert len(g.history) == 1
    with pytest.raises(InvalidStateError):
        positions.start({**positions.position(2), "players": []})


# -- untrusted state dicts ------------------------------------------------------------------------
def test_invalid_state_dicts_are_refused_naming_the_problem(game):
    engine = game_spec(game).engine()
    good = engine.Game(seed=3).state_dict()
    for bad in (None, [], "x", {}, {**good, "format": "nonsense"}, {**good, "options": None}):
        with pytest.raises(InvalidStateError) as err:
            engine.Game.from_state_dict(bad)
        assert str(err.value)
    deep: dict = {}
    node = deep
    for _ in range(10_000):
        node["x"] = {}
        node = node["x"]
    with pytest.raises(ValueError):
        engine.Game.from_state_dict({**good, "options": deep})


def _leaves(d, path=()):
    if isinstance(d, dict):
        for k, v in d.items():
            yield from _leaves(v, (*path, k))
    elif isinstance(d, list) and d:
        for i, v in enumerate(d):
            yield from _leaves(v, (*path, i))
    else:
        yield path


FUZZ_VALUES = [-1, 0, 1, 2, 3, 7, 12, 40, 200, 32767, -32768, None, True, "x", [], {}, 1.5]


@pytest.mark.parametrize("game_name", GAME_NAMES)
def test_mutated_state_dicts_are_refused_or_played_consistently(game_name):
    """A fuzz smoke run: a position with one field changed is refused with a ValueError, or it
    is a game that plays on, move after move, keeping every invariant of the engine."""
    spec = game_spec(game_name)
    engine = spec.engine()
    positions = []
    for n in spec.player_counts:
        for g in random_game(game_name, n, seed=n):
            if not g.is_over() and random.Random(len(g.history) * 31 + n).random() < 0.05:
                positions.append(g.state_dict())
    rnd = random.Random(0)
    refused = accepted = 0
    for i in range(400):
        d = copy.deepcopy(rnd.choice(positions))
        path = rnd.choice(list(_leaves(d)))
        node = d
        for k in path[:-1]:
            node = node[k]
        node[path[-1]] = rnd.choice(FUZZ_VALUES)
        try:
            g = engine.Game.from_state_dict(d)
        except ValueError:
            refused += 1
            continue
        except Exception as err:
            raise AssertionError(f"mutation {path} raised {type(err).__name__}: {err}") from None
        accepted += 1
        play = random.Random(i)
        for _ in range(60):
            code = int(engine.kernels.check_invariants(g.state))
            assert code == 0, f"mutation {path}: {engine.INVARIANT_MESSAGES[code]}"
            if g.is_over():
                break
            g.apply(play.choice(g.legal_actions()))
    assert refused > 100 and accepted > 20, (refused, accepted)


# -- records -----------------------------------------------------------------------------------
def _finished(game: str, n: int = 3, seed: int = 7):
    g = None
    for g in random_game(game, n, seed):  # noqa: B007
        pass
    return g


def test_records_round_trip_and_replay(game):
    g = _finished(game)
    record = g.record()
    assert record.game == game and record.final is not None
    assert record.action_names == tuple(
        game_spec(game).engine().action_to_string(a) for a in g.history
    )
    line = record.to_json_line()
    assert line.endswith("\n") and "\n" not in line[:-1]
    again = GameRecord.from_json(line)
    assert again == record and again.to_dict() == record.to_dict()
    assert np.array_equal(replay(again).state, g.state)
    assert list(record.final.scores) == g.scores().tolist()
    assert list(record.final.ranks) == g.ranks().tolist()


def test_replay_names_the_first_disagreement(game):
    engine = game_spec(game).engine()
    g = _finished(game)
    record = g.record()
    k = 10
    bad_name = list(record.action_names)
    bad_name[k] = engine.action_to_string(
        next(a for a in range(engine.NUM_ACTIONS) if engine.action_to_string(a) != bad_name[k])
    )
    with pytest.raises(ValueError, match=rf"step {k}: action .* action_names\[{k}\]"):
        replay(dataclasses.replace(record, action_names=tuple(bad_name)))
    actions = list(record.actions)
    probe = engine.Game(g.config, record.seed)
    for a in actions[:k]:
        probe.apply(a)
    actions[k] = next(a for a in range(engine.NUM_ACTIONS) if a not in probe.legal_actions())
    names = [engine.action_to_string(a) for a in actions]
    with pytest.raises(ValueError, match=f"step {k} disagrees with the engine"):
        replay(dataclasses.replace(record, actions=tuple(actions), action_names=tuple(names)))
    tampered = FinalResult(
        [s + 1 for s in record.final.scores], record.final.ranks, record.final.end
    )
    with pytest.raises(ValueError, match="final scores"):
        replay(dataclasses.replace(record, final=tampered))
    short = dataclasses.replace(
        record, actions=record.actions[:-1], action_names=record.action_names[:-1]
    )
    with pytest.raises(ValueError, match="says the game ended"):
        replay(short)
    with pytest.raises(ValueError, match="no final result, but the game ends"):
        replay(dataclasses.replace(record, final=None))


def test_the_reader_refuses_bad_records_naming_the_field(game):
    good = _finished(game).record().to_dict()
    other = next((g for g in GAME_NAMES if g != game), None)
    cases = [
        ({**good, "colour": 1}, "'colour' is unknown; allowed: format, game"),
        ({k: v for k, v in good.items() if k != "setup"}, "'setup' is missing"),
        ({**good, "format": "x-record/9"}, "'format' is 'x-record/9'; allowed"),
        ({**good, "game": "go"}, "'game' is 'go'; allowed: a registered game"),
        ({**good, "seed": -3}, "'seed' is -3; allowed: an integer >= 0"),
        ({**good, "actions": [*good["actions"][:-1], 99999]}, "allowed: an integer >= 0 and <"),
        ({**good, "actions": good["actions"][:-1]}, "'action_names'"),
        ({**good, "options": {**good["options"], "speed": 2}}, "unknown game options"),
        ({**good, "final": {**good["final"], "end": "resigned"}}, "'final.end' is 'resigned'"),
        ({**good, "final": {**good["final"], "ranks": [1.0]}}, "'final.ranks' is [1.0]"),
        ({**good, "env": {"name": "x"}}, "'env.reward' is missing"),
        ([1, 2], "a JSON object"),
    ]
    for data, needle in cases:
        with pytest.raises(ValueError) as err:
            GameRecord.from_dict(data)
        assert needle in str(err.value), (needle, str(err.value))
    with pytest.raises(ValueError, match="valid JSON"):
        GameRecord.from_json('{"format": ')
    if other is not None:  # a record of one game cannot pass as another's
        with pytest.raises(ValueError):
            replay({**good, "game": other})


def test_load_records_reads_json_lists_and_lines(game, tmp_path):
    records = [_finished(game, seed=s).record() for s in (1, 2)]
    one = tmp_path / "one.json"
    one.write_text(json.dumps(records[0].to_dict()))
    many = tmp_path / "many.json"
    many.write_text(json.dumps([r.to_dict() for r in records]))
    lines = tmp_path / "games.jsonl"
    lines.write_text("".join(r.to_json_line() for r in records))
    assert load_records(one) == records[:1]
    assert load_records(many) == records == load_records(lines)
    lines.write_text(records[0].to_json_line() + '{"format": "game-record/3"}\n')
    with pytest.raises(ValueError, match="line 2"):
        load_records(lines)


# -- files written before the games were peers --------------------------------------------------
LEGACY_RECORDS = sorted(LEGACY.glob("*.json"))


@pytest.mark.parametrize("path", LEGACY_RECORDS, ids=lambda p: p.name)
def test_records_written_before_the_contract_load_replay_and_round_trip(path):
    data = json.loads(path.read_text())
    record = GameRecord.from_dict(data)
    assert data["format"] in game_spec(record.game).record_formats
    game = replay(record)
    assert np.array_equal(replay(data).state, game.state)
    assert list(record.actions) == data["actions"]
    if record.final is not None and record.final.end != "forfeit":
        assert list(record.final.scores) == game.scores().tolist()
    again = GameRecord.from_json(record.to_json_line())
    assert again == record and again.format == "game-record/3"


@pytest.mark.parametrize("name", ["caylus_tournament", "puerto_rico_tournament"])
def test_tournament_ledgers_written_before_the_contract_replay(name):
    records = load_records(LEGACY / name / "games.jsonl")
    assert len(records) == 4
    for record in records:
        assert record.match is not None and record.final is not None
        assert replay(record).is_over()
