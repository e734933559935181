"""``GameRecord``: one writer, one strict reader (also of the earlier ``caylus-record/1`` files in
``tests/records``), and ``replay`` naming the first place where a record and the engine disagree."""

from __future__ import annotations

import dataclasses
import json
import random
from pathlib import Path

import pytest

from agents.tournament.arena import load_plugins, play_game
from caylus_env import caylus_v0
from caylus_env.caylus.engine import Game, GameConfig, action_to_string, replay
from caylus_env.core.record import (
    LEGACY_FORMAT,
    RECORD_FORMAT,
    EnvInfo,
    FinalResult,
    GameRecord,
    load_records,
)

GOLDEN = sorted((Path(__file__).parent / "records").glob("v1_*.json"))


def finished_game(seed: int = 7, players: int = 3) -> Game:
    game = Game(GameConfig(num_players=players), seed=seed)
    rng = random.Random(seed)
    while not game.is_terminal():
        game.apply(rng.choice(game.legal_actions()))
    return game


@pytest.mark.parametrize("path", GOLDEN, ids=lambda p: p.name)
def test_legacy_files_load_replay_and_round_trip(path):
    data = json.loads(path.read_text())
    assert data["format"] == LEGACY_FORMAT
    record = GameRecord.from_dict(data)
    game = replay(record)
    assert replay(data).state.tobytes() == game.state.tobytes()  # dicts go through the reader
    assert list(record.actions) == data["actions"]
    if record.final is not None:
        assert list(record.final.prestige) == game.prestige().tolist()
    line = record.to_json_line()
    assert line.endswith("\n") and "\n" not in line[:-1]
    again = GameRecord.from_json(line)
    assert again == record and json.loads(line)["format"] == RECORD_FORMAT
    assert again.to_dict() == record.to_dict()


def test_legacy_tournament_fields_become_match_and_timings():
    forfeit = GameRecord.from_dict(
        json.loads((Path(__file__).parent / "records/v1_tournament_forfeit_3p.json").read_text())
    )
    assert forfeit.final.end == "forfeit" and forfeit.match.loser == 1
    assert forfeit.match.agents == ("random", "test-crash", "random")
    assert forfeit.match.forfeits[1].startswith("error: RuntimeError")
    assert forfeit.timings is not None and len(forfeit.timings.move_time_s) == 3
    env = GameRecord.from_dict(
        json.loads((Path(__file__).parent / "records/v1_env_2p_margin.json").read_text())
    )
    assert env.env == EnvInfo("caylus_v0", "margin") and env.match is None


def test_game_env_and_tournament_produce_typed_records():
    game = finished_game()
    record = game.record()
    assert isinstance(record, GameRecord) and record.final.end == "terminated"
    assert record.action_names == tuple(action_to_string(a) for a in game.history)
    assert record["final"] == record.to_dict()["final"]  # read-only transitional access
    with pytest.raises(KeyError, match="not a record key"):
        record["prestige"]
    env = caylus_v0.env(num_players=2, reward="margin")
    env.reset(seed=3)
    assert env.unwrapped.record().env == EnvInfo("caylus_v0", "margin")
    played = play_game(["random", "random"], 2, 5, game_id=3, block=1, move_time_limit=None)
    assert played.match.game_id == 3 and played.match.agent_seeds == (5, 6)
    assert played.timings.wall_time_s > 0 and played.without_timings().timings is None


def test_reader_errors_name_the_field_the_value_and_what_is_allowed():
    good = finished_game().record().to_dict()
    cases = [
        ({**good, "colour": 1}, "'colour' is unknown; allowed: format, game"),
        ({k: v for k, v in good.items() if k != "setup"}, "'setup' is missing"),
        ({**good, "format": "caylus-record/9"}, "'format' is 'caylus-record/9'; allowed"),
        ({**good, "seed": -3}, "'seed' is -3; allowed: an integer >= 0"),
        ({**good, "seed": "7"}, "'seed' is '7'"),
        ({**good, "actions": [*good["actions"][:-1], 9999]}, "allowed: an integer >= 0 and <"),
        ({**good, "actions": good["actions"][:-1]}, "'action_names'"),
        ({**good, "options": {**good["options"], "speed": 2}}, "unknown game options"),
        ({**good, "final": {**good["final"], "end": "resigned"}}, "'final.end' is 'resigned'"),
        ({**good, "final": {**good["final"], "ranks": [1.0]}}, "'final.ranks' is [1.0]"),
        ({**good, "env": {"name": "x"}}, "'env.reward' is missing"),
        ({**good, "start_state": {"x": 1}}, "'start_state'"),
        ([1, 2], "a JSON object"),
    ]
    for data, needle in cases:
        with pytest.raises(ValueError) as err:
            GameRecord.from_dict(data)
        assert needle in str(err.value), (needle, str(err.value))
    with pytest.raises(ValueError, match="valid JSON"):
        GameRecord.from_json('{"format": ')
    with pytest.raises(ValueError, match=r"'final\.end' is 'terminated'; allowed: 'forfeit'"):
        match = {"game_id": 0, "block": 0, "agents": ["a"] * 3, "agent_seeds": [1, 2, 3]}
        GameRecord.from_dict({**good, "match": {**match, "forfeits": [None, "crash", None]}})


def test_replay_names_the_first_disagreement():
    record = finished_game().record()
    k = 10
    bad_name = list(record.action_names)
    bad_name[k] = "pass" if bad_name[k] != "pass" else "decline"
    with pytest.raises(ValueError, match=rf"step {k}: action .* action_names\[{k}\]"):
        replay(dataclasses.replace(record, action_names=tuple(bad_name)))
    actions = list(record.actions)
    game = Game(GameConfig(num_players=3), seed=7)
    for a in actions[:k]:
        game.apply(a)
    illegal = next(a for a in range(200) if a not in game.legal_actions())
    actions[k] = illegal
    names = [action_to_string(a) for a in actions]
    with pytest.raises(ValueError, match=f"step {k} disagrees with the engine"):
        replay(dataclasses.replace(record, actions=tuple(actions), action_names=tuple(names)))
    with pytest.raises(ValueError, match="setup"):
        replay(dataclasses.replace(record, seed=8))
    tampered = FinalResult([p + 1 for p in record.final.prestige], record.final.ranks, "terminated")
    with pytest.raises(ValueError, match="final prestige"):
        replay(dataclasses.replace(record, final=tampered))
    swapped = FinalResult(record.final.prestige, record.final.ranks[::-1], "terminated")
    with pytest.raises(ValueError, match="ranks"):
        replay(dataclasses.replace(record, final=swapped))
    short = dataclasses.replace(
        record, actions=record.actions[:-1], action_names=record.action_names[:-1]
    )
    with pytest.raises(ValueError, match="says the game ended"):
        replay(short)
    with pytest.raises(ValueError, match="no final result, but the game ends"):
        replay(dataclasses.replace(record, final=None))


def test_replay_checks_forfeit_ranks():
    load_plugins(["agents.tournament.testing"])
    record = play_game(["random", "test-illegal"], 2, 4, move_time_limit=None)
    assert record.final.end == "forfeit"
    replay(record)
    wrong = FinalResult(record.final.prestige, record.final.ranks[::-1], "forfeit")
    with pytest.raises(ValueError, match="ranks"):
        replay(dataclasses.replace(record, final=wrong))


def test_load_records_reads_json_lists_and_lines_naming_bad_lines(tmp_path):
    records = [play_game(["random", "random"], 2, s, game_id=s) for s in (1, 2)]
    lines = tmp_path / "games.jsonl"
    lines.write_text("".join(r.to_json_line() for r in records))
    assert load_records(lines) == records
    listed = tmp_path / "list.json"
    listed.write_text(json.dumps([r.to_dict() for r in records]))
    assert load_records(listed) == records
    lines.write_text(records[0].to_json_line() + '{"format": "caylus-record/2"}\n')
    with pytest.raises(ValueError, match="line 2: record field 'game' is missing"):
        load_records(lines)
