"""Every game's replay page data against its engine, its size, and its self-containment.

The page must show what the engine says at every step: each step's slot drawings are those
the game's drawing makes of the replayed position, its legal actions and the action taken are
the engine's, the end says how the game ended with the recorded scores, and nothing in the file
reaches the network. Every registered game gets these checks (``caylus_env.core.viewer``);
each game's own drawing is checked against its golden pictures in its own tests.
"""

from __future__ import annotations

import json
import re
from dataclasses import replace
from importlib import resources
from pathlib import Path

import pytest

from caylus_env.core import viewer
from caylus_env.core.game import forfeit_ranks
from caylus_env.core.record import FinalResult, GameRecord, MatchInfo
from caylus_env.core.registry import GAME_NAMES, game_spec
from caylus_env.core.viewer import page_data, replay_page_html, write_replay_page
from tests.viewer.conftest import bot_seats, play, record_2p, record_5p

MAX_PAGE_BYTES = 1_000_000
"""The issue's bound for a 5-player game's page."""
DATA = re.compile(r'<script type="application/json" id="game-data">(.*?)</script>', re.S)


def _frames(data: dict) -> list[list[int]]:
    """Every step's piece per slot, decoded as the page's script does."""
    full = [list(data["frames"][0])]
    for diff in data["frames"][1:]:
        step = list(full[-1])
        for slot, piece in zip(diff[::2], diff[1::2], strict=True):
            step[slot] = piece
        full.append(step)
    return full


def _start(record: GameRecord):
    engine = game_spec(record.game).engine()
    if record.seed is None:
        return engine.Game.from_state_dict(dict(record.start_state))
    return engine.Game(engine.GameConfig.from_dict(dict(record.options)), record.seed)


def test_every_registered_game_draws_for_the_page():
    for name in GAME_NAMES:
        drawing = game_spec(name).module("viewer").Drawing
        assert isinstance(drawing, type) and issubclass(drawing, viewer.Drawing), name


def test_every_step_is_the_replayed_position(game):
    record = record_2p(game)
    data = page_data(record)
    frames = _frames(data)
    assert len(frames) == len(record.actions) + 1
    g = _start(record)
    drawing = game_spec(game).module("viewer").Drawing(dict(record.options), data["seats"])
    assert data["slots"] == list(drawing.slots) and data["game"] == game
    for step, ids in enumerate(frames):
        drawn = drawing.draw(g.state_dict(), g.scores().tolist())
        assert [data["pieces"][i] for i in ids] == drawn, f"step {step}"
        assert data["round"][step] == g.round
        legal = data["sets"][data["legal"][step]] if data["legal"][step] >= 0 else []
        assert legal == g.legal_actions()
        if step < len(record.actions):
            action = record.actions[step]
            assert data["action"][step] == action and action in legal
            assert data["actor"][step] == g.current_player()
            assert data["texts"][data["decision"][step]].startswith(g.decision().kind + " for ")
            drawing.moved(g.state_dict(), g.current_player(), action)
            g.apply(action)
        else:
            assert data["action"][step] == -1 and g.is_terminal()
            assert data["texts"][data["decision"][step]] == "Game over: final scoring done"
    engine = game_spec(game).engine()
    assert data["names"][5] == engine.action_to_string(5)
    assert [step for _, step in data["jumps"]] == sorted({s for _, s in data["jumps"]})
    clock = game_spec(game).clock_word
    assert all(label.startswith(f"{clock} ") for label, _ in data["jumps"])


def test_the_last_step_shows_the_recorded_scores(game):
    record = record_2p(game)
    spec = game_spec(game)
    data = page_data(record)
    last = _frames(data)[-1]
    key = spec.score_key  # every drawing shows a seat's score in its slot player:<seat>:<key>
    context = data["texts"][data["context"][-1]]
    for seat, score in enumerate(record.final.scores):
        slot = data["slots"].index(f"player:{seat}:{key}")
        assert f'data-field="{key}">{score}</text>' in data["pieces"][last[slot]]
        rank = record.final.ranks[seat]
        assert f"player {seat} (seat {seat}): {score} {spec.score_word}, rank {rank:g}" in context


def test_a_five_player_page_stays_under_a_megabyte(game, tmp_path, artifacts):
    record = record_5p(game)
    path = tmp_path / "five.html"
    assert write_replay_page(record, path, bot_seats(game, 5)) == path
    size = path.stat().st_size
    assert size <= MAX_PAGE_BYTES, f"{size} bytes for {len(record.actions)} decisions"
    (artifacts / f"{game}_page_size.json").write_text(
        json.dumps({"players": 5, "decisions": len(record.actions), "bytes": size})
    )
    assert [p.name for p in tmp_path.iterdir()] == ["five.html"]  # written atomically


def test_the_page_is_self_contained(game):
    html = replay_page_html(record_2p(game))
    # The only URL is the SVG namespace, a name that is never fetched.
    assert set(re.findall(r"https?://[^\s\"'<>]+", html)) == {"http://www.w3.org/2000/svg"}
    for needle in ("<link", "src=", "fetch(", "XMLHttpRequest", "import(", "@import"):
        assert needle not in html, needle
    assert "$" not in DATA.sub("", html)  # every template field was filled
    assert f"<title>{game_spec(game).title} · " in html


def test_script_data_cannot_close_its_element(game):
    names = ("</script><b>x", "<!--town")
    html = replay_page_html(record_2p(game), names)
    assert html.count("</script>") == 2  # the data and the script: nothing ends them early
    parsed = json.loads(DATA.search(html).group(1))
    assert parsed["seats"] == list(names)
    assert "&lt;/script&gt;&lt;b&gt;x" in html  # escaped in the title and the drawings
    assert "<b>x" not in DATA.sub("", html)


def test_a_record_that_does_not_replay_writes_nothing(game, tmp_path):
    record = record_2p(game)
    changed = list(record.final.scores)
    changed[0] += 1
    bad = replace(record, final=replace(record.final, scores=tuple(changed)))
    path = tmp_path / "bad.html"
    with pytest.raises(ValueError, match="replayed final scores"):
        write_replay_page(bad, path)
    broken = GameRecord.from_dict({**record.to_dict(), "actions": [*record.actions[:-1], 0]})
    with pytest.raises(ValueError, match="record step"):
        write_replay_page(broken, path)
    assert not path.exists() and not list(tmp_path.iterdir())


def test_seat_names_must_match_the_seats_and_default_to_the_match(game):
    record = record_2p(game)
    title = game_spec(game).title
    with pytest.raises(ValueError, match="one non-empty name per seat, 2"):
        page_data(record, names=["castle"])
    with pytest.raises(ValueError, match="one non-empty name per seat, 2"):
        page_data(record, names=["a", ""])
    assert page_data(record)["seats"] == ["seat 0", "seat 1"]
    assert page_data(record, names=["a", "b"])["title"].startswith(f"{title} game: a vs b (2 ")
    match = MatchInfo(7, 0, ("x", "y"), (1, 2), (None, None))
    data = page_data(replace(record, match=match))
    assert data["seats"] == ["x", "y"] and data["title"].startswith("game 7: x vs y (2 players")


def test_a_record_dict_is_read_and_anything_else_refused(game):
    record = record_2p(game)
    assert page_data(record.to_dict()) == page_data(record)
    with pytest.raises(ValueError, match="GameRecord or its dict, got list"):
        replay_page_html([1, 2, 3])
    other = next((g for g in GAME_NAMES if g != game), None)
    if other is not None:  # a record of one game labelled as another does not pass the reader
        with pytest.raises(ValueError, match="record field"):
            replay_page_html({**record.to_dict(), "game": other})


def test_the_title_names_the_options_that_differ_from_the_rules(game):
    spec = game_spec(game)
    name, options = list(spec.option_sets.items())[-1]
    record = record_5p(game)
    title = page_data(record)["title"]
    defaults = spec.options()
    for key, value in options.items():
        if value != defaults[key]:
            word = key.replace("_", " ") if isinstance(value, bool) else f"{key}={value}"
            assert word in title, (name, title)


def test_a_forfeit_ends_on_the_forfeiting_decision(game):
    partial = play(game, bot_seats(game, 3), 2, max_decisions=40)
    g = _start(partial)
    for action in partial.actions:
        g.apply(action)
    asked = g.decision()
    forfeited = replace(
        partial,
        final=FinalResult(g.scores().tolist(), forfeit_ranks(g.ranks().tolist(), 1), "forfeit"),
        match=MatchInfo(7, 0, ("random", "crash", "other"), (1, 2, 3), (None, "timeout", None)),
    )
    data = page_data(forfeited)
    assert data["title"].startswith("game 7: random vs crash vs other (3 players")
    assert data["texts"][data["decision"][-1]] == "Forfeit: player 1 (crash) forfeited (timeout)"
    context = data["texts"][data["context"][-1]]
    assert context.startswith("player 0 (random): ")
    assert f"{asked.kind} for player {asked.player} (" in context
    assert data["legal"][-1] >= 0  # the decision it did not answer, with its legal actions
    assert data["sets"][data["legal"][-1]] == g.legal_actions()
    assert data["action"][-1] == -1


@pytest.mark.parametrize(
    "game", [g for g in GAME_NAMES if game_spec(g).truncating_options is not None]
)
def test_a_truncated_game_says_so_at_its_last_step(game):
    options = game_spec(game).truncating_options
    record = play(game, bot_seats(game, 3), 1, options)
    assert record.final.end == "truncated"
    data = page_data(record)
    assert data["texts"][data["decision"][-1]] == "Truncated: the decision cap was reached"
    assert data["legal"][-1] == -1 and data["action"][-1] == -1


def test_a_record_from_a_loaded_position_replays_from_it(game):
    spec = game_spec(game)
    start = spec.new_game(spec.config(2), 3)
    for _ in range(10):
        start.apply(start.legal_actions()[-1])
    g = spec.engine().Game.from_state_dict(start.state_dict())
    for _ in range(30):
        g.apply(g.legal_actions()[0])
    record = g.record()
    assert record.seed is None and record.start_state is not None
    data = page_data(record, ("a", "b"))
    assert data["title"] == f"{spec.title} game: a vs b (2 players, loaded position)"
    assert len(data["frames"]) == 31 and data["round"][0] == start.round
    assert data["texts"][data["decision"][-1]] == "Record ends here (no final result)"


def test_a_position_picture_is_the_drawing_of_its_slots(game):
    spec = game_spec(game)
    g = spec.new_game(spec.config(3), 4)
    for _ in range(25):
        g.apply(g.legal_actions()[0])
    d = g.state_dict()
    picture = spec.module("viewer").position_svg(d)
    assert picture == viewer.position_svg(game, d)
    drawing = spec.module("viewer").Drawing(d["options"], ("seat 0", "seat 1", "seat 2"))
    assert picture.count("data-slot=") == len(drawing.slots)
    assert picture.startswith("<svg") and picture.endswith("</svg>\n")
    with pytest.raises(ValueError, match="one non-empty name per seat, 3"):
        viewer.position_svg(game, d, ("a", "b"))


def test_template_ships_with_the_package():
    text = resources.files("caylus_env.core.viewer").joinpath("template.html").read_text("utf-8")
    fields = {"$title", "$board", "$chart", "$data", "$players", "$game_title", "$footnote"}
    assert fields <= set(re.findall(r"\$[a-z_]+", text))
    pyproject = (Path(__file__).resolve().parents[2] / "pyproject.toml").read_text()
    assert '"caylus_env.core.viewer" = ["template.html"]' in pyproject
