"""The records the harness and the environments write, for every game of the registry: match and
timing sections (also read from the formats written before ``game-record/3``), forfeits whose
ranks ``replay`` checks, the setup a seed draws, and the flat ``result()`` the statistics read.

The one reader and verifier themselves (round trips, errors naming the field, the first
disagreement, ``load_records``, every legacy record file) are checked for every game by the
conformance suite (``tests/conformance/test_engine.py``).
"""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path

import pytest

import caylus_env
from agents.tournament.arena import RESULT_FIELDS, load_plugins, play_game
from caylus_env.core.record import EnvInfo, FinalResult, GameRecord, replay
from caylus_env.core.registry import GAME_NAMES, game_spec

LEGACY = Path(__file__).parent / "legacy"
LEGACY_FORFEITS = sorted(LEGACY.glob("*tournament_forfeit*.json"))
"""Tournament records of a forfeit, written before the shared record (each game's format)."""

per_game = pytest.mark.parametrize("game", GAME_NAMES)


@pytest.mark.parametrize("path", LEGACY_FORFEITS, ids=lambda p: p.name)
def test_legacy_tournament_fields_become_match_and_timings(path):
    data = json.loads(path.read_text())
    forfeit = GameRecord.from_dict(data)
    assert data["format"] in game_spec(forfeit.game).record_formats
    loser = forfeit.match.loser
    assert forfeit.final.end == "forfeit" and loser is not None
    assert forfeit.final.ranks[loser] == forfeit.num_players
    assert forfeit.match.forfeits[loser]
    assert forfeit.timings is not None and len(forfeit.timings.move_time_s) == forfeit.num_players
    replayed = replay(forfeit)  # the forfeit ranks: the loser last, the others by their ranks
    assert not replayed.is_over()
    assert forfeit.result()["forfeit"] == [s == loser for s in range(forfeit.num_players)]


def test_a_legacy_env_record_keeps_its_env_section():
    env = GameRecord.from_dict(json.loads((LEGACY / "v1_env_2p_margin.json").read_text()))
    assert env.env == EnvInfo("caylus_v0", "margin") and env.match is None


@per_game
def test_game_env_and_tournament_produce_typed_records(game):
    info = game_spec(game)
    env = info.module("env").env(num_players=2, reward="margin")
    env.reset(seed=3)
    assert env.unwrapped.record().env == EnvInfo(info.env_name, "margin")
    played = play_game(["random", "random"], 2, 5, game_id=3, block=1, game=game)
    assert isinstance(played, GameRecord) and played.game == game
    assert played.match.game_id == 3 and played.match.agent_seeds == (5, 6)
    assert played.timings.wall_time_s > 0 and played.without_timings().timings is None
    assert played["final"] == played.to_dict()["final"]  # read-only transitional access
    with pytest.raises(KeyError, match="not a record key"):
        played["prestige"]
    result = played.result()
    assert tuple(result) == RESULT_FIELDS
    assert result["scores"] == list(played.final.scores) and result["seats"] == ["random"] * 2


@per_game
def test_replay_checks_forfeit_ranks_and_the_setup_a_seed_draws(game):
    load_plugins(["agents.tournament.testing"])
    record = play_game(["random", "test-illegal"], 2, 4, move_time_limit=None, game=game)
    assert record.final.end == "forfeit"
    replay(record)
    wrong = FinalResult(record.final.scores, record.final.ranks[::-1], "forfeit")
    with pytest.raises(ValueError, match="ranks"):
        replay(dataclasses.replace(record, final=wrong))
    finished = play_game(["random", "random", "random"], 3, 7, game=game)
    swapped = FinalResult(finished.final.scores, finished.final.ranks[::-1], finished.final.end)
    if len(set(finished.final.ranks)) > 1:
        with pytest.raises(ValueError, match="ranks"):
            replay(dataclasses.replace(finished, final=swapped))
    if finished.setup is not None:  # a game that states the setup its seed draws
        with pytest.raises(ValueError, match="setup"):
            replay(dataclasses.replace(finished, seed=finished.seed + 1))


# -- tampered records (tests/fuzz_records.py), each case in a watched worker --------------------
def _fuzz_records(cases: int, seed: int, boundscheck: bool = False) -> None:
    import sys
    from pathlib import Path

    sys.path.insert(0, str(Path(__file__).resolve().parent))
    import fuzz_records

    counts, examples = fuzz_records.fuzz(cases, seed, jobs=2, boundscheck=boundscheck)
    assert sum(counts.values()) == cases
    assert counts["clear"] + counts["accepted"] == cases, (dict(counts), examples)
    assert counts["accepted"] >= len(range(0, cases, fuzz_records.CONTROLS)), dict(counts)


def test_tampered_records_are_refused_in_one_line_never_coerced():
    _fuzz_records(30, seed=0)


@pytest.mark.slow
def test_tampered_records_long_run():
    _fuzz_records(635, seed=1)


@pytest.mark.slow
def test_tampered_records_under_numba_boundscheck():
    _fuzz_records(120, seed=2, boundscheck=True)


# -- records of an older engine, across a rules fix (an engine's ADDED_CHOICES) ---------------------
ENGINE_0_2 = sorted((LEGACY / "engine_0.2.0").glob("*.json"))
"""Records caylus-env 0.2.0 wrote, in today's format, of games in which the engine still made a
choice that later became a player's: Caylus 1303's monuments, each on its builder's lowest
residence, by players holding two or more (Caylus 1303, decision D4)."""


@pytest.mark.parametrize("path", ENGINE_0_2, ids=lambda p: p.name)
def test_a_record_of_an_older_engine_replays_through_the_choices_added_since(path):
    record = GameRecord.from_json(path.read_text())
    assert record.engine == "0.2.0"
    engine = game_spec(record.game).engine()
    game = replay(record)  # every step checked, the end too
    assert game.is_over() and list(record.final.scores) == game.scores().tolist()
    added = len(game.history) - len(record.actions)
    assert added >= 1  # each file holds a monument built by a holder of several residences
    assert added == sum(
        any(a in range(*_block(engine, c.block)) for c in engine.ADDED_CHOICES)
        for a in game.history
    )
    # The same moves stamped with today's version are a different game: the added choice
    # is asked, and the record's next move is not an answer to it.
    now = dataclasses.replace(record, engine=caylus_env.__version__)
    with pytest.raises(ValueError, match="disagrees with the engine"):
        replay(now)


def _block(engine, key: str) -> tuple[int, int]:
    start, size = engine.BLOCKS[key]
    return start, start + size
