"""What ``caylus serve`` tells a player, in the game's words: the legal actions (each game's
``viewer.action_words``), the decision, the option sets, the default opponent (the game's best
shipped network), an agent's value estimate beside its move probabilities or visit shares,
the end of the game, and the rules reference (served from the package)."""

from __future__ import annotations

import json
import re
from pathlib import Path

import numpy as np
import pytest

from agents.policy import best_shipped
from agents.registry import make_agent
from caylus_cli.serve import RegistryAgents
from caylus_env.core.registry import GAME_NAMES, game_spec
from caylus_env.core.serve import HUMAN, Session
from caylus_env.core.serve.server import option_docs, option_set_words
from caylus_env.core.serve.session import Workers, end_words, win_chance
from tests.serve.conftest import HANG_S

ROOT = Path(__file__).resolve().parents[2]
#: What an engine id looks like in a text (``option:1``, ``road:9``, ``food+wood``, ``a_b``).
ENGINE_ID = re.compile(r"\w:\w|\w\+\w|_")


@pytest.mark.parametrize("game", GAME_NAMES)
def test_the_legal_actions_are_sent_in_the_games_words_with_their_engine_names(game):
    spec = game_spec(game)
    session, workers = _session(game, [HUMAN] * spec.min_players, seed=5)
    words = spec.module("viewer").action_words
    try:
        with session.cond:
            for _ in range(8):
                view, d = session.view(), session.game.state_dict()
                for entry in view["decision"]["legal"]:
                    assert entry["name"] == spec.engine().action_to_string(entry["action"])
                    assert entry["words"] == words(d, entry["action"])
                    assert not ENGINE_ID.search(entry["words"]), entry
                assert not ENGINE_ID.search(view["decision"]["title"]), view["decision"]
                action = view["decision"]["legal"][-1]["action"]
                session.play(action, session.game.current_player())
                assert session.moves[-1].words == words(d, action)
    finally:
        workers.close()


def test_the_catalog_proposes_the_games_best_shipped_network_for_the_other_seats(client):
    status, catalog = client.call("GET", "/api/catalog")
    assert status == 200
    for info in catalog["games"]:
        assert info["default_agent"] == best_shipped(info["name"]), info["name"]
        assert info["default_agent"] in {a["spec"] for a in info["agents"]}


def test_a_game_without_a_network_for_all_its_counts_proposes_random(monkeypatch):
    monkeypatch.setattr("agents.policy.best_shipped", lambda game: None)
    assert RegistryAgents([]).default_agent("caylus") == "random"


@pytest.mark.parametrize("game", GAME_NAMES)
def test_every_option_and_option_set_is_said_in_words(client, game):
    status, catalog = client.call("GET", "/api/catalog")
    assert status == 200
    info = next(g for g in catalog["games"] if g["name"] == game)
    assert set(info["option_docs"]) == set(info["options"])
    assert all(info["option_docs"].values())
    assert set(info["option_set_words"]) == set(info["option_sets"])
    assert info["option_set_words"]["rules"].startswith("the rules as printed")
    for name, options in info["option_sets"].items():
        said = info["option_set_words"][name]
        for key in options:
            assert key.replace("_", " ") in said
            assert info["option_docs"][key].rstrip(".") in said


def test_option_docs_are_read_from_the_attributes_of_the_config_docstring():
    class Config:
        """Options.

        Attributes:
            num_players: 2 to 5.
            fast: play fast
                and loose (``True``).
            slow: a long ``name``.

        Raises:
            nothing: here.
        """

    assert option_docs(Config) == {"fast": "play fast and loose (True).", "slow": "a long name."}
    assert option_set_words({"fast": True, "speed": 3}, {"fast": "play fast."}) == (
        "fast on: play fast; speed = 3"
    )


def _session(game: str, seats: list[str], seed: int) -> tuple[Session, Workers]:
    spec = game_spec(game)
    workers = Workers(1)
    config = spec.config(len(seats)).to_dict()
    session = Session("t", spec, config, seed, None, seats, RegistryAgents([]), workers)
    with session.cond:
        session.kick()
        assert session.cond.wait_for(lambda: not session.thinking, timeout=HANG_S)
    return session, workers


def _positions(session: Session, until: int) -> list:
    """The games before each of the first ``until`` moves of ``session``."""
    out = []
    g = session.spec.new_game(session.spec.config(len(session.seats)), session.seed)
    for action in session.game.history[:until]:
        out.append(g.clone())
        g.apply(action)
    return out


def test_a_policy_agents_move_carries_its_value_head_and_chance():
    game = "caylus"
    session, workers = _session(game, [HUMAN, best_shipped(game)], seed=3)
    try:
        moves = [m for m in session.moves if not m.human]
        assert moves and moves[0].kind == "probability"
        agent = make_agent(best_shipped(game), game)
        encode = game_spec(game).observation().encode_into
        for move, position in zip(moves, _positions(session, len(moves)), strict=True):
            obs = np.zeros((1, game_spec(game).observation().OBS_SIZE), np.float32)
            encode(position.state, move.seat, obs[0])
            expected = float(agent.net.value(obs)[0])
            assert move.value == pytest.approx(expected, abs=1e-6)
            said = move.to_dict()
            assert said["chance"] == win_chance(expected)
    finally:
        workers.close()


def test_a_search_agents_move_carries_its_visit_shares_and_root_value():
    game, spec_text = "caylus", "puct:8"
    session, workers = _session(game, [HUMAN, spec_text], seed=3)
    try:
        moves = [m for m in session.moves if not m.human]
        assert moves and all(m.kind == "visits" for m in moves)
        agent = make_agent(spec_text, game)
        agent.reset(session.seed + 1)  # the session's seed for seat 1
        for move, position in zip(moves, _positions(session, len(moves)), strict=True):
            assert agent.act(position.clone()) == move.action
            actions, counts = agent.visit_counts()
            values = dict(zip(*agent.root_values(), strict=True))
            visits = dict(zip(actions, counts, strict=True))
            mean = sum(values[a] * visits[a] for a in values) / sum(visits[a] for a in values)
            scores = position.scores()
            best_other = max(np.delete(scores, move.seat))
            margin = (scores[move.seat] - best_other) / game_spec(game).score_scale
            assert move.value == pytest.approx(mean - agent.shaping * margin, abs=1e-6)
            total = sum(counts)
            assert [t["visits"] for t in move.top] == sorted(counts, reverse=True)[: len(move.top)]
            assert all(t["share"] == pytest.approx(t["visits"] / total) for t in move.top)
    finally:
        workers.close()


def test_an_agent_without_a_value_moves_without_one():
    session, workers = _session("caylus", [HUMAN, "random"], seed=3)
    try:
        moves = [m.to_dict() for m in session.moves if not m.human]
        assert moves and all(m["value"] is None and m["chance"] is None for m in moves)
    finally:
        workers.close()


def test_win_chance_is_the_share_of_opponents_beaten_clipped():
    assert win_chance(1.0) == 1.0 and win_chance(-1.0) == 0.0 and win_chance(0.0) == 0.5
    assert win_chance(0.2) == pytest.approx(0.6)
    assert win_chance(1.7) == 1.0 and win_chance(-3.0) == 0.0


class Ended:
    """A finished game as `end_words` reads it."""

    def __init__(self, scores, ranks, truncated=False):
        self._scores, self._ranks, self._truncated = scores, ranks, truncated

    def scores(self):
        return np.array(self._scores)

    def ranks(self):
        return np.array(self._ranks, float)

    def is_truncated(self):
        return self._truncated


def test_the_end_is_said_in_words_a_winner_a_tie_break_a_shared_win_or_a_cut_off():
    spec = game_spec("puerto_rico")
    names = ("human", "random", "builder")
    title, results = end_words(Ended([40, 52, 31], [2, 1, 3]), names, spec)
    assert title == "Game over: player 1 (random) wins with 52 victory points"
    assert results.startswith("player 1 (random): 52 victory points · player 0 (human): 40")
    title, _ = end_words(Ended([52, 52, 31], [2, 1, 3]), names, spec)
    assert title == "Game over: player 1 (random) wins with 52 victory points (on the tie-break)"
    title, _ = end_words(Ended([52, 52, 31], [1.5, 1.5, 3]), names, spec)
    assert title == (
        "Game over: player 0 (human) and player 1 (random) tie for first with 52 victory points"
    )
    title, _ = end_words(Ended([10, 12, 9], [2, 1, 3], truncated=True), names, spec)
    assert title.startswith("Game stopped: the decision cap was reached") and "nobody wins" in title


def test_a_finished_game_is_said_in_words_not_terminated(client):
    view = client.settled(
        client.new("puerto_rico", ["human", "random"], seed=2, options={"max_decisions": 3})
    )
    while not view["over"]:
        view = client.move(view, view["decision"]["legal"][0]["action"])
    assert view["end"] == "truncated"  # the machine's word stays for tools
    assert view["end_words"].startswith("Game stopped: the decision cap")
    assert view["decision"]["title"] == view["end_words"]
    assert "terminated" not in view["end_words"] and "truncated" not in view["end_words"]


@pytest.mark.parametrize("game", GAME_NAMES)
def test_the_rules_page_of_every_game_is_served_and_its_anchors_resolve(client, game):
    status, raw, kind = client.raw("GET", f"/rules/{game}")
    assert status == 200 and kind.startswith("text/html")
    page = raw.decode()
    source = (ROOT / game_spec(game).rules_doc).read_text().splitlines()
    first = next(line for line in source if line.startswith("# "))
    assert f">{first[2:].strip()}</h1>" in page
    ids = set(re.findall(r'id="([^"]+)"', page))
    assert all(anchor in ids for anchor in re.findall(r'href="#([^"]+)"', page))
    assert "<script" not in page and "**" not in re.sub(r"<code>.*?</code>", "", page)


def test_an_unknown_rules_page_is_a_404_naming_the_games(client):
    status, raw, _ = client.raw("GET", "/rules/chess")
    assert status == 404
    assert json.loads(raw)["error"] == (f"no rules page 'chess'; allowed: {', '.join(GAME_NAMES)}")
    status, _, _ = client.raw("POST", "/rules/caylus", b"{}", {"Content-Type": "application/json"})
    assert status == 405


def test_the_catalog_links_each_games_rules_page(client):
    status, catalog = client.call("GET", "/api/catalog")
    for info in catalog["games"]:
        assert info["rules"] == f"/rules/{info['name']}"
        status, _, _ = client.raw("GET", info["rules"])
        assert status == 200
