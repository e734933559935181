"""The replay page's data against the engine, its size, and its self-containment.

The page must show what the engine says at every step: each step's slot drawings are those of
the replayed position, its legal actions and the action taken are the engine's, and nothing in
the file reaches the network.
"""

from __future__ import annotations

import json
import re
from dataclasses import replace
from pathlib import Path

import pytest

from caylus_env.caylus.engine import Game, GameConfig, action_to_string
from caylus_env.caylus.viewer import page_data, position, replay_html, write_replay_html

MAX_PAGE_BYTES = 1_000_000
"""The issue's bound for a 5-player game's page."""


def _frames(data: dict) -> list[list[int]]:
    """Every step's piece per slot, decoded as the page's script does."""
    full = [list(data["frames"][0])]
    for diff in data["frames"][1:]:
        step = list(full[-1])
        for slot, piece in zip(diff[::2], diff[1::2], strict=True):
            step[slot] = piece
        full.append(step)
    return full


def test_every_step_is_the_replayed_position(record_2p):
    data = page_data(record_2p)
    names = position.seat_names(2, record_2p.match.agents)
    frames = _frames(data)
    assert len(frames) == len(record_2p.actions) + 1
    game = Game(GameConfig.from_dict(dict(record_2p.options)), record_2p.seed)
    static = position.background(names)
    for step, ids in enumerate(frames):
        drawn = position.draw_slots(game.state_dict(), names, static)
        assert [data["pieces"][i] for i in ids] == drawn, f"step {step}"
        assert data["turn"][step] == game.turn
        legal = data["sets"][data["legal"][step]] if data["legal"][step] >= 0 else []
        assert legal == game.legal_actions()
        if step < len(record_2p.actions):
            action = record_2p.actions[step]
            assert data["action"][step] == action and action in legal
            assert data["actor"][step] == game.current_player()
            assert data["texts"][data["decision"][step]].startswith(game.decision().kind)
            game.apply(action)
        else:
            assert data["action"][step] == -1 and game.is_terminal()
            assert data["texts"][data["decision"][step]] == "Game over: final scoring done"
    assert data["names"][5] == action_to_string(5)
    assert [step for _, step in data["jumps"]] == sorted({s for _, s in data["jumps"]})


def test_the_last_step_shows_the_recorded_prestige(record_2p):
    data = page_data(record_2p)
    last = _frames(data)[-1]
    for seat, prestige in enumerate(record_2p.final.prestige):
        slot = data["slots"].index(f"player:{seat}:prestige")
        assert f'data-field="prestige">{prestige}</text>' in data["pieces"][last[slot]]


def test_a_five_player_page_stays_under_a_megabyte(record_5p, tmp_path, artifacts):
    path = tmp_path / "five.html"
    size = write_replay_html(record_5p, path)
    assert size == path.stat().st_size
    assert size <= MAX_PAGE_BYTES, f"{size} bytes for {len(record_5p.actions)} decisions"
    (artifacts / "page_size.json").write_text(
        json.dumps({"players": 5, "decisions": len(record_5p.actions), "bytes": size})
    )
    assert not list(tmp_path.glob(".*.tmp"))  # written atomically: no temporary file left


def test_the_page_is_self_contained(record_2p):
    html = replay_html(record_2p)
    # The only URL is the SVG namespace, a name that is never fetched.
    assert set(re.findall(r"https?://[^\s\"'<>]+", html)) == {"http://www.w3.org/2000/svg"}
    for needle in ("<link", "src=", "fetch(", "XMLHttpRequest", "import(", "@import"):
        assert needle not in html, needle
    assert "$" not in re.sub(r'<script type="application/json".*?</script>', "", html, flags=re.S)


def test_script_data_cannot_close_its_element(record_2p):
    named = replace(record_2p, match=replace(record_2p.match, agents=("</script><b>x", "<!--town")))
    html = replay_html(named)
    data = re.search(r'<script type="application/json" id="caylus-data">(.*?)</script>', html, re.S)
    parsed = json.loads(data.group(1))
    assert parsed["seats"] == ["</script><b>x", "<!--town"]
    assert "&lt;/script&gt;&lt;b&gt;x" in html  # escaped in the title and the drawings


def test_a_record_that_does_not_replay_writes_nothing(record_2p, tmp_path):
    changed = list(record_2p.final.prestige)
    changed[0] += 1
    bad = replace(record_2p, final=replace(record_2p.final, prestige=tuple(changed)))
    path = tmp_path / "bad.html"
    with pytest.raises(ValueError, match="replayed final prestige"):
        write_replay_html(bad, path)
    assert not path.exists() and not list(tmp_path.iterdir())


def test_seat_names_must_match_the_seats(record_2p):
    with pytest.raises(ValueError, match="one name per seat, 2"):
        page_data(record_2p, agents=["castle"])
    plain = replace(record_2p, match=None, timings=None)
    assert page_data(plain)["seats"] == ["seat 0", "seat 1"]
    assert page_data(plain, agents=["a", "b"])["title"].startswith("Caylus game: a vs b")


@pytest.mark.usefixtures("private_registry")
def test_a_forfeit_ends_on_the_forfeiting_decision():
    from agents.tournament.arena import play_game
    from agents.tournament.testing import register_agents

    register_agents()
    record = play_game(["random", "test-crash"], 2, 5, agent_seeds=[1, 2])
    assert record.final.end == "forfeit"
    data = page_data(record)
    last = len(record.actions)
    title = data["texts"][data["decision"][last]]
    assert title.startswith("Forfeit: player 1 (test-crash) forfeited")
    assert data["legal"][last] >= 0  # the decision it did not answer, with its legal actions
    assert data["action"][last] == -1


def test_template_ships_with_the_package():
    from importlib import resources

    text = resources.files("caylus_env.caylus.viewer").joinpath("template.html").read_text("utf-8")
    assert {"$title", "$board", "$chart", "$data", "$players"} <= set(re.findall(r"\$[a-z]+", text))
    pyproject = (Path(__file__).resolve().parents[2] / "pyproject.toml").read_text()
    assert '"caylus_env.caylus.viewer" = ["template.html"]' in pyproject
