"""Every game says its actions in words (``viewer.action_words``, the game contract): for every
action id of positions of every decision kind of every game, a non-empty line within
``ACTION_WORDS_LIMIT`` with no engine id in it; the legal actions of a decision read apart; and
the numbers the words give are what the engine does when the action is played (a placement's
price, a building's, a sale's), checked by playing it."""

from __future__ import annotations

import re
from collections.abc import Iterator
from functools import cache

import pytest

from caylus_env.core import positions as P
from caylus_env.core.contract import ACTION_WORDS_LIMIT
from caylus_env.core.registry import GAME_NAMES, game_spec

#: Seeded games walked per player count and option set; every decision kind comes in them.
GAMES = 6
#: Every how many reached decisions all ids are said (the first of each kind always are).
SAMPLE_EVERY = 25
#: What an engine id looks like in a text: ``option:1``, ``road:9``, ``food+wood+cloth``,
#: ``trading_post``.
ENGINE_ID = re.compile(r"\w:\w|\w\+\w|_")


@cache
def sampled(game: str) -> tuple[tuple[dict, tuple[int, ...], str], ...]:
    """``(state dict, legal ids, kind)`` of real decisions of ``game``: the first of each kind
    at every player count and option set, and every `SAMPLE_EVERY`-th other one."""
    spec = game_spec(game)
    engine = spec.engine()
    out = []
    for n in spec.player_counts:
        for options in spec.option_sets.values():
            kinds: set[str] = set()
            for i, r in enumerate(P.decisions(game, n, options=options, games=GAMES, seed=n)):
                if r.forced or (r.kind in kinds and i % SAMPLE_EVERY):
                    continue
                kinds.add(r.kind)
                out.append((engine.state_to_dict(r.state), r.legal, r.kind))
    return tuple(out)


def _all_words(game: str) -> Iterator[tuple[str, str, str]]:
    engine = game_spec(game).engine()
    words = game_spec(game).module("viewer").action_words
    for d, _, kind in sampled(game):
        for a in range(engine.NUM_ACTIONS):
            yield kind, engine.action_to_string(a), words(d, a)


@pytest.mark.parametrize("game", GAME_NAMES)
def test_every_action_id_of_every_decision_kind_is_said_in_words_without_engine_ids(game):
    engine = game_spec(game).engine()
    assert {kind for _, _, kind in sampled(game)} == set(engine.DECISION_NAMES)
    problems = []
    for kind, name, text in _all_words(game):
        where = f"{kind}: {name} -> {text!r}"
        if not isinstance(text, str) or not text.strip() or "\n" in text:
            problems.append(f"{where}: not one non-empty line")
        elif len(text) > ACTION_WORDS_LIMIT:
            problems.append(f"{where}: {len(text)} characters, over {ACTION_WORDS_LIMIT}")
        elif ENGINE_ID.search(text) or (ENGINE_ID.search(name) and name in text):
            problems.append(f"{where}: an engine id")
    assert problems == [], problems[:20]


@pytest.mark.parametrize("game", GAME_NAMES)
def test_the_legal_actions_of_a_decision_read_apart(game):
    words = game_spec(game).module("viewer").action_words
    for d, legal, kind in sampled(game):
        said = [words(d, a) for a in legal]
        assert len(set(said)) == len(said), (kind, said)


@pytest.mark.parametrize("game", GAME_NAMES)
def test_words_of_an_id_outside_the_action_space_are_refused(game):
    engine = game_spec(game).engine()
    words = game_spec(game).module("viewer").action_words
    d, _, _ = sampled(game)[0]
    with pytest.raises(ValueError, match="out of range"):
        words(d, engine.NUM_ACTIONS)


def _said_number(text: str, unit: str) -> int:
    """The number the words pay in ``unit`` (0 for ``free``/``for nothing``)."""
    found = re.search(rf"(?:pay|for) (\d+) {unit}", text)
    return int(found.group(1)) if found else 0


def _played(game: str, d: dict, action: int) -> dict:
    """The position right after ``action``, before anything the engine then plays by itself
    (the kernel's unchecked ``apply``, no ``advance``: a forced pass and what follows it would
    change the counts)."""
    engine = game_spec(game).engine()
    s = engine.dict_to_state(d)
    engine.kernels.apply(s, action)
    return engine.state_to_dict(s)


def _decisions(game: str, kind: str, head: str) -> Iterator[tuple[dict, int]]:
    engine = game_spec(game).engine()
    for d, legal, k in sampled(game):
        if k == kind:
            for a in legal:
                if engine.action_to_string(a).split(":")[0] == head:
                    yield d, a


def test_caylus_placement_words_say_the_deniers_the_engine_takes():
    words = game_spec("caylus").module("viewer").action_words
    checked = 0
    for d, a in _decisions("caylus", "place_worker", "place"):
        seat = d["pending"][-1]["player"]
        after = _played("caylus", d, a)
        paid = d["players"][seat]["money"] - after["players"][seat]["money"]
        assert _said_number(words(d, a), "denier") == paid, words(d, a)
        checked += 1
    assert checked > 100


def test_caylus_owner_prestige_of_a_placement_is_said_for_another_players_building():
    words = game_spec("caylus").module("viewer").action_words
    seen = 0
    for d, a in _decisions("caylus", "place_worker", "place"):
        seat = d["pending"][-1]["player"]
        after = _played("caylus", d, a)
        gained = [
            p
            for p in range(len(d["players"]))
            if p != seat and after["players"][p]["prestige"] > d["players"][p]["prestige"]
        ]
        text = words(d, a)
        if gained:
            (owner,) = gained
            assert f"player {owner}'s, who gains 1 prestige" in text, text
            seen += 1
        else:
            assert "who gains" not in text, text
    assert seen > 0


def test_puerto_rico_build_words_say_the_doubloons_the_engine_takes():
    words = game_spec("puerto_rico").module("viewer").action_words
    checked = 0
    for d, a in _decisions("puerto_rico", "build", "build"):
        seat = d["pending"][-1]["player"]
        after = _played("puerto_rico", d, a)
        if after["pending"] and after["pending"][-1]["kind"] == "black_market":
            continue  # paid once the black market's returns are chosen
        paid = d["players"][seat]["money"] - after["players"][seat]["money"]
        assert _said_number(words(d, a), "doubloon") == paid, words(d, a)
        checked += 1
    assert checked > 20


def test_puerto_rico_sale_words_say_the_doubloons_the_engine_pays():
    words = game_spec("puerto_rico").module("viewer").action_words
    checked = 0
    for head in ("sell", "post"):
        for d, a in _decisions("puerto_rico", "sell", head):
            seat = d["pending"][-1]["player"]
            after = _played("puerto_rico", d, a)
            got = after["players"][seat]["money"] - d["players"][seat]["money"]
            assert _said_number(words(d, a), "doubloon") == got, words(d, a)
            checked += 1
    assert checked > 10


def test_puerto_rico_loading_words_say_the_victory_points_the_engine_gives():
    words = game_spec("puerto_rico").module("viewer").action_words
    checked = 0
    for d, a in _decisions("puerto_rico", "load", "load"):
        seat = d["pending"][-1]["player"]
        if "union_hall" in d["players"][seat]["buildings"]:
            continue  # its VP come before the shipment's, said by the building
        after = _played("puerto_rico", d, a)
        got = after["players"][seat]["vp"] - d["players"][seat]["vp"]
        said = re.search(r": (\d+) VP$", words(d, a))
        assert said and int(said.group(1)) == got, words(d, a)
        checked += 1
    assert checked > 20


def test_caylus_1303_placement_words_say_the_workers_the_engine_takes():
    words = game_spec("caylus_1303").module("viewer").action_words
    checked = 0
    for kind in ("plan", "early_riser"):
        for head in ("place", "site"):
            for d, a in _decisions("caylus_1303", kind, head):
                seat = d["pending"][-1]["player"]
                after = _played("caylus_1303", d, a)
                paid = d["players"][seat]["hand"] - after["players"][seat]["hand"]
                assert _said_number(words(d, a), "worker") == paid, words(d, a)
                checked += 1
    assert checked > 100
