"""The ``caylus`` command line through typer's CliRunner: every command once for every game of the
registry (``--game``), and the error paths (exit code 2 with a message naming the option, before
any work; a record or directory of another game refused naming both games).

The game-generic tests are written over ``caylus_env.core.registry.GAME_NAMES``: each game's
agents are ``random`` and its own bots (``agents.registry.available_agents``), its words for the
clock and the score are its ``GameSpec``'s, so a newly registered game is checked by the same
code. A few scenarios check one game's content and say so.
"""

from __future__ import annotations

import json
import math
import os
import random
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
import typer
from typer.testing import CliRunner

from agents import registry
from agents.tournament.arena import play_game
from caylus_cli.app import app
from caylus_env.core.record import GameRecord, load_records
from caylus_env.core.registry import DEFAULT_GAME, GAME_NAMES, game_spec
from tests.conftest import game_dataset

PLUGIN = "agents.tournament.testing"
REPO = Path(__file__).resolve().parents[2]
OTHER = {g: next(o for o in (*GAME_NAMES[1:], GAME_NAMES[0]) if o != g) for g in GAME_NAMES}
runner = CliRunner()

per_game = pytest.mark.parametrize("game", GAME_NAMES)


def invoke(*args: object):
    return runner.invoke(app, [str(a) for a in args])


def bots(game: str) -> list[str]:
    """The game's own bots that take no argument (its scripted bots), from the registry."""
    own = game_spec(game).module("bots").BOTS
    return [head for head in registry.available_agents(game) if head in own]


def played(game: str) -> re.Pattern[str]:
    """A decision line of ``caylus play``: ``<clock word> N <phase>: player P (agent) -> name``."""
    return re.compile(
        rf"^{game_spec(game).clock_word} (\d+) \w+: player (\d) \(([^)]+)\) -> (\S+)$"
    )


def listed(game: str) -> re.Pattern[str]:
    """An action line of ``caylus replay --show``: ``  N. <clock word> K player P (agent): name``."""
    return re.compile(
        rf"^\s*(\d+)\. {game_spec(game).clock_word} \d+ player (\d) \(([^)]+)\): (\S+)$"
    )


def finals(output: str, game: str) -> dict[int, tuple[str, int, float]]:
    """Seat -> (agent, score, rank) of the final lines of play or replay."""
    final = re.compile(
        rf"^\s+player (\d) \(([^)]+)\): {game_spec(game).score_word} (-?\d+), rank ([\d.]+)$"
    )
    out = {}
    for line in output.splitlines():
        m = final.match(line)
        if m:
            out[int(m[1])] = (m[2], int(m[3]), float(m[4]))
    return out


def random_game(game: str, players: int, seed: int) -> object:
    info = game_spec(game)
    state = info.new_game(info.config(players), seed=seed)
    rng = random.Random(seed)
    while not state.is_over():
        state.apply(rng.choice(state.legal_actions()))
    return state


@pytest.fixture(scope="module", params=GAME_NAMES)
def record_file(request: pytest.FixtureRequest, tmp_path_factory) -> tuple[str, Path]:
    """``(game, path)``: a finished 3-player record as JSON."""
    path = tmp_path_factory.mktemp(request.param) / "record.json"
    path.write_text(json.dumps(random_game(request.param, 3, seed=5).record().to_dict()))
    return request.param, path


@pytest.fixture(scope="module", params=GAME_NAMES)
def games_jsonl(request: pytest.FixtureRequest, tmp_path_factory) -> tuple[str, Path]:
    """``(game, path)``: a games.jsonl of three 2-player tournament games, ids 3 to 5."""
    game = request.param
    seats = ["random", bots(game)[0]]
    lines = [
        play_game(seats, 2, game_id, game_id=game_id, game=game).to_json_line()
        for game_id in (3, 4, 5)
    ]
    path = tmp_path_factory.mktemp(f"run-{game}") / "games.jsonl"
    path.write_text("".join(lines))
    return game, path


# -- agents ---------------------------------------------------------------------------------------
@per_game
def test_agents_lists_the_games_registry_and_plugins(game):
    result = invoke("agents", "--game", game)
    assert result.exit_code == 0, result.output
    assert f"{game_spec(game).title} agent specs" in result.output
    words = set(result.output.split())
    infos = registry.describe(game)
    assert {info.syntax for info in infos if " " not in info.syntax} <= words
    assert {"random", *bots(game)} <= words
    foreign = [b for b in bots(OTHER[game]) if b not in registry.available_agents(game)]
    assert foreign and not set(foreign) & words  # the other game's own bots are not listed
    with_plugin = invoke("agents", "--game", game, "--plugin", PLUGIN)
    assert with_plugin.exit_code == 0
    assert {"random", "test-pass", "test-slow:ARG"} <= set(with_plugin.output.split())


@per_game
def test_agents_prints_each_spec_syntax_with_what_it_plays_and_costs(game):
    result = invoke("agents", "--game", game)
    assert result.exit_code == 0, result.output
    infos = registry.describe(game)
    assert {"random", *bots(game)} <= {i.head for i in infos}
    for info in infos:
        assert info.syntax in result.output  # brackets (mcts:SIMS[:ROLLOUT]) survive rich
        assert info.description and info.description[:40] in result.output
        assert " s" in info.description or " ms" in info.description  # says what it costs
    assert ":ARG" not in result.output


def test_the_default_game_is_the_registrys():
    assert invoke("agents").output == invoke("agents", "--game", DEFAULT_GAME).output


# -- play -----------------------------------------------------------------------------------------
@per_game
def test_play_prints_decisions_that_replay_to_the_printed_scores(game):
    seats = ["random", bots(game)[0]]
    result = invoke(
        "play", "--game", game, "--agents", ",".join(seats), "--seed", "3", "--no-board"
    )
    assert result.exit_code == 0, result.output
    expected = play_game(seats, 2, 3, agent_seeds=[3, 4], game=game)
    decisions = [m for m in map(played(game).match, result.output.splitlines()) if m]
    assert [m[4] for m in decisions] == list(expected.action_names)
    assert f"Game over after {len(decisions)} decisions" in result.output
    state = game_spec(game).new_game(game_spec(game).config(2), seed=3)
    for m in decisions:
        assert int(m[2]) == state.current_player() and m[3] == seats[int(m[2])]
        assert int(m[1]) == state.round
        state.apply(game_spec(game).engine().string_to_action(m[4]))
    assert state.is_over()
    printed = finals(result.output, game)
    assert [printed[p][1] for p in range(2)] == list(expected.final.scores)
    assert [printed[p][2] for p in range(2)] == list(expected.final.ranks)
    assert f"Final {game_spec(game).score_word} and ranks:" in result.output


@per_game
def test_play_draws_the_board_at_each_new_clock_value_and_at_the_end(game):
    render = game_spec(game).module("rendering").render_text
    result = invoke("play", "--game", game, "--agents", f"{bots(game)[0]},random", "--seed", "1")
    assert result.exit_code == 0, result.output
    decisions = [m for m in map(played(game).match, result.output.splitlines()) if m]
    state = game_spec(game).new_game(game_spec(game).config(2), seed=1)
    boards, last = [], None
    for m in decisions:
        if state.round != last:
            boards.append(render(state))
            last = state.round
        state.apply(game_spec(game).engine().string_to_action(m[4]))
    boards.append(render(state))
    position = 0
    for board in boards:  # every board, in order, each before the decisions of its clock value
        found = result.output.find(board, position)
        assert found >= 0, board[:200]
        position = found + len(board)
    assert len(boards) > 5


@pytest.mark.parametrize(
    "game", [g for g in GAME_NAMES if game_spec(g).truncating_options is not None]
)
def test_play_says_when_the_decision_cap_cut_the_game_off(game):
    options = [f"{k}={json.dumps(v)}" for k, v in game_spec(game).truncating_options.items()]
    result = invoke("play", "--game", game, "--agents", "random,random", "--no-board",
                    *(x for o in options for x in ("--option", o)))  # fmt: skip
    assert result.exit_code == 0, result.output
    decisions = [m for m in map(played(game).match, result.output.splitlines()) if m]
    state = game_spec(game).new_game(
        game_spec(game).config(2, **game_spec(game).truncating_options), seed=0
    )
    for m in decisions:
        state.apply(game_spec(game).engine().string_to_action(m[4]))
    assert state.is_truncated()
    assert f"Game over after {len(decisions)} decisions (truncated by the decision cap)" in (
        result.output
    )


def test_play_puerto_rico_with_the_expansion_starts_with_the_draft():
    """Puerto Rico's content: with the expansion the players draft buildings first (its rules
    7.1)."""
    result = invoke("play", "--game", "puerto_rico", "--agents", "random", "--players", "3",
                    "--option", "expansion=true", "--no-board")  # fmt: skip
    assert result.exit_code == 0, result.output
    first = next(m for m in map(played("puerto_rico").match, result.output.splitlines()) if m)
    assert first[4].startswith("draft:")
    assert len(finals(result.output, "puerto_rico")) == 3


@per_game
def test_play_refuses_bad_arguments_naming_what_is_allowed(game):
    info = game_spec(game)
    option = next(iter(info.options()))
    foreign = next(b for b in bots(OTHER[game]) if b not in registry.available_agents(game))
    many = ",".join(["random"] * (info.max_players + 1))
    for args, needle in [
        (("--agents", "random", "--players", str(info.max_players + 1)), "--players"),
        (("--agents", "random", "--players", str(info.max_players + 1)),
         f"{info.title} is played by {info.min_players} to {info.max_players}"),
        (("--agents", "random,nobody", "--players", "2"), f"unknown {info.title} agent 'nobody'"),
        (("--agents", f"{foreign},random"), f"is an agent of {OTHER[game]}: pass --game"),
        (("--agents", "random,random", "--option", "no_such=1"), "unknown game options"),
        (("--agents", "random,random", "--option", f"{option}=[]"), "invalid value for --option"),
        (("--agents", "random,random,random", "--players", "2"),
         "3 agents (random, random, random) given for --players 2; give at most 2"),
        (("--agents", "random"), "1 agent (random) given and no --players"),
        (("--agents", many), f"{info.max_players + 1} agents"),
    ]:  # fmt: skip
        result = invoke("play", "--game", game, *args)
        assert result.exit_code == 2 and needle in result.output, (needle, result.output)
        if "--players" not in args and "agents" in needle:  # never blame an option not passed
            assert "invalid value for --players" not in result.output
            assert "give one agent per seat, or --players N" in result.output


@per_game
def test_play_html_writes_the_replay_page_of_the_game_played(game, tmp_path):
    page = tmp_path / "game.html"
    seats = [bots(game)[0], "random"]
    result = invoke(
        "play", "--game", game, "--agents", ",".join(seats), "--seed", "5", "--html", page
    )
    assert result.exit_code == 0, result.output
    assert f"wrote {page}" in result.output
    html = page.read_text()
    assert "<svg" in html and all(seat in html for seat in seats)
    assert game_spec(game).title in html
    assert len(finals(result.output, game)) == 2


def test_play_html_refuses_a_bad_page_name_before_any_work(tmp_path):
    page = tmp_path / "game.txt"
    result = invoke("play", "--agents", "random,random", "--html", page)
    assert result.exit_code == 2
    assert "--html" in result.output and ".html" in result.output
    assert not page.exists()


@per_game
def test_play_estimates_the_kernels_its_agents_compile(game):
    from caylus_cli.play import _kernel_groups

    assert set(_kernel_groups(["random", "random"], game)) == {"engine"}
    assert set(_kernel_groups(["random", bots(game)[0]], game)) == {"engine", "scripted"}
    if "mcts" in game_spec(game).module("bots").BOTS:
        assert set(_kernel_groups(["mcts:5", "random"], game)) == {"engine", "scripted", "mcts"}


# -- replay ---------------------------------------------------------------------------------------
def test_replay_detects_the_game_of_a_record_and_lists_its_decisions_by_name(record_file):
    game, path = record_file
    record = json.loads(path.read_text())
    result = invoke("replay", path, "--show")
    assert result.exit_code == 0, result.output
    shown = [m for m in map(listed(game).match, result.output.splitlines()) if m]
    assert [m[4] for m in shown] == record["action_names"]
    assert [int(m[1]) for m in shown] == list(range(1, len(record["actions"]) + 1))
    end = record["final"]["end"]
    assert f"record replayed: {len(record['actions'])} actions, end: {end}" in result.output
    printed = finals(result.output, game)
    assert [printed[p][1] for p in range(3)] == record["final"]["scores"]
    assert [printed[p][2] for p in range(3)] == record["final"]["ranks"]
    quiet = invoke("replay", path, "--quiet")
    assert quiet.exit_code == 0 and len(quiet.output) < len(result.output)


def test_replay_picks_a_game_of_a_games_jsonl_by_id(games_jsonl):
    game, path = games_jsonl
    line = json.loads(path.read_text().splitlines()[1])
    result = invoke("replay", path, "--game", game, "--game-id", "4")
    assert result.exit_code == 0, result.output
    assert f"game 4 replayed: {len(line['actions'])} actions" in result.output
    printed = finals(result.output, game)
    assert printed[0][0] == "random" and printed[1][0] == bots(game)[0]
    assert [printed[p][1] for p in range(2)] == line["final"]["scores"]
    missing = invoke("replay", path, "--game-id", "99")
    assert missing.exit_code == 2
    assert "no game 99 in" in missing.output and "it holds 3 games, ids 3 to 5" in missing.output


def test_replay_still_reads_a_number_after_game_as_the_game_id(games_jsonl):
    _, path = games_jsonl
    result = invoke("replay", path, "--game", "5")
    assert result.exit_code == 0, result.output
    assert "game 5 replayed" in result.output
    twice = invoke("replay", path, "--game", "5", "--game-id", "4")
    assert twice.exit_code == 2 and "give the game id once" in twice.output


@per_game
def test_replay_rebuilds_a_game_of_a_dataset(game, tmp_path):
    out = tmp_path / "dataset"
    seats = ["random", bots(game)[0]]
    made = invoke("dataset", "generate", "--game", game, "--agents", ",".join(seats),
                  "--players", "2", "--games", "2", "--workers", "1", "--out", out)  # fmt: skip
    assert made.exit_code == 0, made.output
    result = invoke("replay", out, "--game-id", "1", "--show")
    assert result.exit_code == 0, result.output
    shown = [m for m in map(listed(game).match, result.output.splitlines()) if m]
    assert f"game 1 replayed: {len(shown)} actions, end: terminated" in result.output
    assert {finals(result.output, game)[p][0] for p in range(2)} == set(seats)
    refused = invoke("replay", out, "--game", OTHER[game])
    assert refused.exit_code == 2
    assert game_spec(game).title in refused.output
    assert game_spec(OTHER[game]).title in refused.output


def test_replay_refuses_a_record_given_as_another_game_naming_both(record_file):
    game, path = record_file
    other = OTHER[game]
    result = invoke("replay", path, "--game", other)
    assert result.exit_code == 2
    text = " ".join(result.output.split())
    assert f"{game_spec(game).title} record (game '{game}')" in text
    assert f"expected a {game_spec(other).title} record (game '{other}')" in text


def test_replay_refuses_a_line_of_another_game_in_a_games_jsonl(games_jsonl, tmp_path):
    game, path = games_jsonl
    foreign = random_game(OTHER[game], 2, seed=1).record().to_json_line()
    mixed = tmp_path / "games.jsonl"
    mixed.write_text(path.read_text() + foreign)
    result = invoke("replay", mixed)
    assert result.exit_code == 2
    text = " ".join(result.output.split())
    assert "line 4" in text and f"{game_spec(OTHER[game]).title} record" in text


def test_replay_html_writes_the_replay_page(record_file, tmp_path):
    game, path = record_file
    record = json.loads(path.read_text())
    for args in ([], ["--game", game]):
        page = tmp_path / f"game{len(args)}.html"
        result = invoke("replay", path, *args, "--html", page)
        assert result.exit_code == 0, result.output
        assert f"{len(record['actions']) + 1} steps" in result.output
        html = page.read_text()
        assert "<svg" in html and game_spec(game).title in html
        assert game_spec(game).score_word in html


@per_game
def test_replay_checks_and_shows_a_tournament_record(game, tmp_path):
    record = play_game(["random", "random", "random"], 3, 6, game_id=0, game=game)
    single = tmp_path / "game.json"
    single.write_text(json.dumps(record.to_dict()))
    result = invoke("replay", single, "--show")
    assert result.exit_code == 0, result.output
    assert "game 0 replayed" in result.output
    shown = [m for m in map(listed(game).match, result.output.splitlines()) if m]
    assert len(shown) == len(record.actions)
    assert shown[0][4] == record.action_names[0] and shown[0][3] == "random"


@per_game
@pytest.mark.parametrize(
    ("content", "code", "needle"),
    [
        (b"null", 2, "record field '' is None"),
        (b"[" * 100_000 + b"]" * 100_000, 2, "nested too deeply"),
        (b"\xff\xfe", 2, "is not UTF-8 text"),
        (b"[1, 2, 3]", 2, "a JSON object"),
        ("torn", 2, "line 2"),
        ("score", 1, "replayed final scores"),
        ("action", 1, "record step 3: action"),
    ],
)
def test_replay_verifies_before_printing_and_fails_with_one_line(
    game, tmp_path, content, code, needle
):
    good = play_game(["random", "random"], 2, 1, game=game).to_dict()
    if content == "score":
        good["final"]["scores"][1] += 1
        content = json.dumps(good).encode()
    elif content == "action":
        count = game_spec(game).engine().NUM_ACTIONS
        good["actions"][3] = (good["actions"][3] + 1) % count
        content = json.dumps(good).encode()
    elif content == "torn":
        content = (json.dumps(good) + "\n" + '{"game_id": 1, "actions": [1, 2\n').encode()
    path = tmp_path / "hostile.json"
    path.write_bytes(content)
    result = invoke("replay", path, "--show", "--game", game)
    assert result.exit_code == code, result.output
    lines = [line for line in result.output.splitlines() if line.strip()]
    assert len(lines) == 1 and lines[0].startswith("Error:") and needle in lines[0], lines
    assert isinstance(result.exception, SystemExit)  # no traceback
    assert invoke("replay", tmp_path / "absent.json").exit_code == 2


# -- tournament and duel --------------------------------------------------------------------------
@per_game
def test_tournament_command_runs_and_refuses_a_mismatched_directory(game, tmp_path):
    out = tmp_path / "run"
    args = ["tournament", "--game", game, "--agents", "random,test-first", "--plugin", PLUGIN,
            "--players", "2"]  # fmt: skip
    result = invoke(
        *args, "--games", "3", "--out", out, "--workers", "1", "--no-progress", "--bootstrap", "5"
    )
    assert result.exit_code == 0, result.output
    assert "4 games in 2 blocks" in result.output and "rounded up" in result.output
    assert len((out / "games.jsonl").read_text().splitlines()) == 4
    for name in ("summary.json", "report.md", "report.html", "ratings.png", "head_to_head.png"):
        assert (out / name).exists()
    before = {p.name: p.read_bytes() for p in out.iterdir()}
    mismatch = invoke(*args, "--games", "3", "--out", out, "--seed", "5", "--workers", "1")
    assert mismatch.exit_code == 2
    assert "--out" in mismatch.output and "seed: run.json has 0, now 5" in mismatch.output
    assert {p.name: p.read_bytes() for p in out.iterdir()} == before


@per_game
def test_tournament_bad_arguments_exit_2_before_any_work(game, tmp_path):
    info = game_spec(game)
    common = ("--agents", "random", "--players", "2", "--games", "4")
    cases = [
        (("--agents", "random,nobody", "--players", "2", "--games", "4"), "unknown"),
        (("--agents", "random", "--players", "1", "--games", "4"), "--players"),
        (("--agents", "random", "--players", str(info.max_players + 1), "--games", "4"),
         f"{info.min_players} to {info.max_players}"),
        (("--agents", "random", "--players", "2", "--games", "0"), "--games"),
        ((*common, "--workers", "0"), "--workers"),
        ((*common, "--backend", "mpi"), "--backend"),
        ((*common, "--option", "x"), "--option"),
        ((*common, "--option", "no_such=1"), "invalid value for --option: bad game options"),
        ((*common, "--plugin", "no_such"), "--plugin"),
    ]  # fmt: skip
    for args, needle in cases:
        out = tmp_path / "out"
        result = invoke("tournament", "--game", game, *args, "--out", out)
        assert result.exit_code == 2, result.output
        assert needle in result.output and result.output.startswith("Error:"), result.output
        assert not out.exists()


@pytest.mark.parametrize(
    ("args", "needle"),
    [
        (("--out", ""), "invalid value for --out: out='' is empty"),
        (("--out", "o", "--games", "10000000"), "--games: games=10000000 is too many"),
        (("--out", "o", "--workers", "100000"), "--workers: workers=100000 is not allowed"),
        (("--out", "o", "--move-time-limit", "1e-9"), "--move-time-limit: move_time_limit=1e-09"),
        (("--out", "o", "--move-time-limit", "nan"), "--move-time-limit: move_time_limit=nan"),
        (("--out", "o", "--move-time-limit", "inf"), "--move-time-limit: move_time_limit=inf"),
        (("--out", "o", "--move-time-limit", "7200"), "allowed: 0 (no limit) or 0.01 to 3600"),
        (("--out", "o", "--agents", "random,mcts:10:c=nan"), "bad value 'nan' for c"),
        (("--out", "o", "--agents", "random,mcts:10000000"), "SIMS=10000000; allowed: 1 to"),
        (("--out", "o", "--agents", "random,mcts:10:depth=99"), "for depth; allowed: INT"),
    ],
)
def test_tournament_bounds_exit_2_with_one_line_naming_the_option_before_any_work(
    tmp_path, monkeypatch, args, needle
):
    """Bounds of the harness, and of Caylus's MCTS options (its content)."""
    monkeypatch.chdir(tmp_path)
    agents = ("--agents", "random") if "--agents" not in args else ()
    result = invoke("tournament", "--game", "caylus", *agents, "--players", "2", "--games", "2",
                    *args)  # fmt: skip
    assert result.exit_code == 2, result.output
    lines = [line for line in result.output.splitlines() if line.strip()]
    assert len(lines) == 1 and lines[0].startswith("Error:") and needle in lines[0], lines
    assert os.listdir(tmp_path) == []  # nothing written, not even into the current directory


def test_duel_command_decides_and_validates(tmp_path):
    """Caylus's content: passing whenever it may beats random in every pair."""
    out = tmp_path / "duel"
    result = invoke(
        "duel", "test-pass", "random", "--game", "caylus", "--plugin", PLUGIN, "--workers", "1",
        "--out", out, "--no-progress", "--max-pairs", "200",
    )  # fmt: skip
    assert result.exit_code == 0, result.output
    assert "H1 accepted" in result.output and "LLR" in result.output
    # test-pass wins every pair, and each won pair adds ln(p1 / p0) to the LLR (a Bernoulli
    # streak): H1 is accepted at the first pair past the upper bound ln((1 - beta) / alpha).
    pairs = math.ceil(math.log(0.95 / 0.05) / math.log(0.55 / 0.5))
    assert f"{2 * pairs} games in {pairs} pairs" in result.output
    assert json.loads((out / "duel.json").read_text())["sprt"]["decision"] == "H1"
    same = invoke("duel", "random", "random")
    assert same.exit_code == 2 and "two different agents" in same.output
    bounds = invoke("duel", "random", "test-pass", "--plugin", PLUGIN, "--p0", "0.6", "--p1", "0.5")
    assert bounds.exit_code == 2 and "p0" in bounds.output
    mismatch = invoke(
        "duel", "test-pass", "random", "--game", "caylus", "--plugin", PLUGIN, "--out", out,
        "--seed", "1",
    )  # fmt: skip
    assert mismatch.exit_code == 2 and "seed" in mismatch.output


@per_game
def test_duel_errors_name_the_duel_arguments_not_tournament_options(game):
    same = invoke("duel", "random", "random", "--game", game)
    assert same.exit_code == 2
    assert "invalid value for CANDIDATE/OPPONENT: a duel needs two different agents" in same.output
    unknown = invoke("duel", "random", "nobody", "--game", game)
    assert unknown.exit_code == 2 and "CANDIDATE/OPPONENT" in unknown.output
    for result in (same, unknown):
        assert "--agents" not in result.output and "--players" not in result.output


@per_game
def test_duel_refuses_an_empty_out_before_any_work(game, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    result = invoke("duel", "random", bots(game)[0], "--game", game, "--out", "",
                    "--max-pairs", "2", "--min-pairs", "1")  # fmt: skip
    assert result.exit_code == 2 and "invalid value for --out: out='' is empty" in result.output
    assert os.listdir(tmp_path) == []


def test_tournament_command_replays_forfeits_and_extends_a_run(tmp_path, monkeypatch):
    from agents.tournament.testing import FLAKY_ENV

    out = tmp_path / "run"
    args = ["tournament", "--agents", "random,test-flaky", "--plugin", PLUGIN, "--players", "2"]
    common = ["--out", out, "--workers", "1", "--no-progress", "--bootstrap", "0"]
    monkeypatch.setenv(FLAKY_ENV, "1")
    first = invoke(*args, "--games", "2", *common)
    assert first.exit_code == 0, first.output
    assert "2 game(s) ended by a forfeit" in first.output
    monkeypatch.delenv(FLAKY_ENV)
    replayed = invoke(*args, "--games", "2", *common, "--replay-forfeits")
    assert replayed.exit_code == 0, replayed.output
    assert "replaying 2 forfeited game(s)" in replayed.output
    assert [r.final.end for r in load_records(out / "games.jsonl")] == ["terminated"] * 2
    longer = invoke(*args, "--games", "4", *common)
    assert longer.exit_code == 0, longer.output
    assert "extending the run from 2 to 4 games" in longer.output
    assert sorted(r.game_id for r in load_records(out / "games.jsonl")) == [0, 1, 2, 3]
    shorter = invoke(*args, "--games", "2", *common)
    assert shorter.exit_code == 2 and "games: run.json has 4, now 2" in shorter.output


# -- every command --------------------------------------------------------------------------------
def app_commands() -> dict[tuple[str, ...], Any]:
    """Every command of the ``caylus`` app by the words that invoke it (``("dataset", "verify")``),
    groups included: read from the app itself (click's commands, as typer builds them), so that a
    command registered later is in every test below without being listed anywhere."""
    found: dict[tuple[str, ...], Any] = {}

    def walk(command: Any, words: tuple[str, ...]) -> None:
        if words:
            found[words] = command
        for name, sub in getattr(command, "commands", {}).items():
            walk(sub, (*words, name))

    walk(typer.main.get_command(app), ())
    return found


COMMANDS = app_commands()
RUNNABLE = [words for words, command in COMMANDS.items() if not hasattr(command, "commands")]
"""The commands that run (a group, such as ``dataset``, only holds commands)."""
OUT = "<out>"
"""Stands for a path in the test's own empty directory (`ARGUMENTS`)."""
ARGUMENTS = {
    ("play",): ["--agents", "random,random"],
    ("replay",): [str(REPO / "tests" / "legacy" / "v1_game_3p_seed7.json")],
    ("tournament",): ["--agents", "random", "--players", "2", "--games", "2"],
    ("duel",): ["random", "test-first"],
    ("dataset", "generate"): ["--agents", "random", "--players", "2", "--games", "2", "--out", OUT],
    ("dataset", "verify"): [OUT],
    ("dataset", "stats"): [OUT],
    ("dataset", "inspect"): [OUT],
    ("dataset", "export"): [OUT, "--out", OUT],
    ("train", "ppo"): ["--out", OUT],
    ("train", "az"): ["--out", OUT],
    ("train", "bc"): [OUT, "--out", OUT],
    ("train", "match"): [OUT],
}
"""What a command needs besides ``--game`` to reach its check of the game (none when absent)."""
NO_GAME = {
    ("games",): "it lists every game",
    ("train", "export"): "the checkpoint it exports names its game",
}
"""The commands without a ``--game`` option, and why they need none."""


def takes_game(words: tuple[str, ...]) -> bool:
    return any("--game" in param.opts for param in COMMANDS[words].params)


def test_the_command_tables_name_commands_of_the_app_and_every_one_without_game():
    assert set(ARGUMENTS) | set(NO_GAME) <= set(RUNNABLE)
    assert {words for words in RUNNABLE if not takes_game(words)} == set(NO_GAME)


def flat(output: str) -> str:
    """The words of rich's output, without its boxes and line breaks."""
    return " ".join(output.replace("│", " ").split())


@pytest.mark.parametrize("words", list(COMMANDS), ids="-".join)
def test_every_command_shows_its_help(words):
    result = invoke(*words, "--help")
    assert result.exit_code == 0, result.output
    assert f"Usage: caylus {' '.join(words)} [OPTIONS]" in result.output
    summary = COMMANDS[words].help.split("\n\n")[0]  # the docstring's first paragraph
    assert " ".join(summary.split()) in flat(result.output)


@pytest.mark.parametrize("words", [w for w in RUNNABLE if takes_game(w)], ids="-".join)
def test_an_unknown_game_is_refused_by_every_command(words, tmp_path):
    out = str(tmp_path / "out")
    arguments = [out if a == OUT else a for a in ARGUMENTS.get(words, [])]
    result = invoke(*words, *arguments, "--game", "chess")
    assert result.exit_code == 2
    text = flat(result.output)
    assert "unknown game 'chess'" in text
    assert f"allowed: {', '.join(GAME_NAMES)}" in text
    assert not any(tmp_path.iterdir())  # refused before any work: nothing written


@pytest.mark.parametrize(
    "game", [g for g in GAME_NAMES if game_spec(g).record_formats]
)  # a game younger than the shared record has no older record to replay
def test_replay_of_an_old_record_of_each_game_still_works(game):
    paths = [
        p for p in sorted((REPO / "tests" / "legacy").glob("*.json"))
        if GameRecord.from_dict(json.loads(p.read_text())).game == game
    ]  # fmt: skip
    assert paths
    for path in paths:
        result = invoke("replay", path, "--show")
        assert result.exit_code == 0, (path.name, result.output)
        assert "replayed" in result.output


# -- the registry API -----------------------------------------------------------------------------
@per_game
def test_registry_registers_describes_and_unregisters(game):
    registry.register(
        "probe",
        lambda spec, arg: registry.make_agent("random", game),
        needs_arg=True,
        game=game,
        syntax="probe:DEPTH",
        description="a probe",
        options="DEPTH: int",
    )
    infos = {info.head: info for info in registry.describe(game)}
    assert infos["probe"] == registry.AgentInfo(
        "probe", "probe:DEPTH", "a probe", "DEPTH: int", True
    )
    assert "probe:DEPTH" in registry.specs(game) and "probe:ARG" in registry.available_agents(game)
    assert "probe" not in {i.head for i in registry.describe(OTHER[game])}
    with pytest.raises(ValueError, match=r"needs an argument: probe:DEPTH"):
        registry.make_agent("probe", game)
    assert registry.make_agent("probe:3", game).name == "random"
    listed_agents = invoke("agents", "--game", game)
    assert "probe:DEPTH" in listed_agents.output and "a probe" in listed_agents.output
    registry.unregister("probe", game)
    assert "probe" not in {info.head for info in registry.describe(game)}
    with pytest.raises(ValueError, match=r"unknown .* agent 'probe:3'"):
        registry.make_agent("probe:3", game)
    with pytest.raises(ValueError, match="no plugin agent 'probe' is registered"):
        registry.unregister("probe", game)
    for bad in ("", "a:b", "a,b", "a b"):
        with pytest.raises(ValueError, match="non-empty word without"):
            registry.register(bad, lambda spec, arg: None, game=game)


# -- plugins from the current directory -----------------------------------------------------------
MYBOT = """
from agents.registry import register


class FirstBot:
    def __init__(self, name):
        self.name = name

    def reset(self, seed=None):
        pass

    def act(self, game):
        return game.legal_actions()[0]


def register_agents():
    register("mybot", lambda spec, arg: FirstBot(spec), description="first legal move")
"""


def test_plugin_in_the_current_directory_loads_in_the_driver_and_the_workers(tmp_path):
    """``caylus`` (the installed script, whose sys.path[0] is its own folder) finds ./mybot.py
    without PYTHONPATH, in the driver and in spawned pool workers; a plugin registered for
    every game plays each of them."""
    script = Path(sys.executable).with_name("caylus")
    assert script.exists(), "the caylus entry point is missing: pip install -e . -c constraints.txt"
    (tmp_path / "mybot.py").write_text(MYBOT)
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}

    def caylus(*args: str) -> subprocess.CompletedProcess:
        return subprocess.run(
            [str(script), *args], cwd=tmp_path, env=env, capture_output=True, text=True, timeout=600
        )

    for game in GAME_NAMES:
        listed_agents = caylus("agents", "--game", game, "--plugin", "mybot")
        assert listed_agents.returncode == 0, listed_agents.stderr
        assert "mybot" in listed_agents.stdout and "first legal move" in listed_agents.stdout
    run = caylus(
        "tournament", "--agents", "random,mybot", "--plugin", "mybot", "--players", "2",
        "--games", "2", "--workers", "2", "--out", "run", "--no-progress", "--bootstrap", "0",
    )  # fmt: skip
    assert run.returncode == 0, run.stderr
    lines = (tmp_path / "run" / "games.jsonl").read_text().splitlines()
    assert len(lines) == 2 and all("mybot" in line for line in lines)
    missing = caylus("agents", "--plugin", "notthere")
    assert missing.returncode == 2
    assert "cannot import notthere" in missing.stderr and "current directory" in missing.stderr


# -- compile notice -------------------------------------------------------------------------------
def test_compile_notice_speaks_once_and_only_when_numba_compiles(capsys):
    from numba import njit

    from agents.tournament.backends import COLD_COMPILE_SECONDS
    from caylus_cli.app import compile_notice

    @njit
    def twice(x):
        return 2 * x

    with compile_notice("engine", "scripted"):
        assert twice(21) == 42  # compiled now
        assert twice(2.5) == 5.0  # a second compilation: no second message
    estimate = COLD_COMPILE_SECONDS["engine"] + COLD_COMPILE_SECONDS["scripted"]
    err = capsys.readouterr().err
    assert err.count("compiling kernels") == 1
    assert f"compiling kernels (first run only, about {estimate:.0f} s)" in err
    with compile_notice("engine"):
        assert twice(5) == 10  # already compiled in this process
    assert "compiling" not in capsys.readouterr().err
    with pytest.raises(ValueError, match="unknown kernel groups"), compile_notice("gpu"):
        pass


def test_compile_notice_is_silent_on_a_numba_cache_hit(tmp_path):
    (tmp_path / "kern.py").write_text(
        "from numba import njit\n\n\n@njit(cache=True)\ndef twice(x):\n    return 2 * x\n"
    )
    code = (
        "from caylus_cli.app import compile_notice\nimport kern\n"
        "with compile_notice('engine'):\n    assert kern.twice(21) == 42\n"
    )
    env = dict(
        os.environ,
        NUMBA_CACHE_DIR=str(tmp_path / "cache"),
        PYTHONPATH=os.pathsep.join([str(tmp_path), str(REPO)]),
    )
    runs = [
        subprocess.run(
            [sys.executable, "-c", code], cwd=tmp_path, env=env, capture_output=True, text=True
        )
        for _ in range(2)
    ]
    assert [r.returncode for r in runs] == [0, 0], runs[0].stderr + runs[1].stderr
    assert "compiling kernels" in runs[0].stderr  # cold cache
    assert "compiling kernels" not in runs[1].stderr  # loaded from the cache


# -- which game a command plays when --game is left out -------------------------------------------
def test_a_command_without_game_plays_the_one_game_its_agents_belong_to():
    from caylus_cli.app import agents_game

    bots = {g: [b for b in game_spec(g).module("bots").BOTS if b != "mcts"] for g in GAME_NAMES}
    for game, heads in bots.items():
        assert agents_game(None, ["random", heads[0]]) == game
        assert agents_game(game, ["random"]) == game  # --game always wins
    assert agents_game(None, ["random", "random"]) == DEFAULT_GAME  # every game has random
    assert agents_game(None, ["mcts:10", "random"]) == DEFAULT_GAME


def test_dataset_tools_read_the_game_from_the_manifest(tmp_path):
    import shutil

    for game in GAME_NAMES:
        root = tmp_path / game
        shutil.copytree(game_dataset(game), root)
        result = CliRunner().invoke(app, ["dataset", "verify", str(root), "--no-progress"])
        assert result.exit_code == 0 and "replay exactly" in result.output, result.output
        result = CliRunner().invoke(app, ["dataset", "inspect", str(root), "--limit", "1"])
        assert result.exit_code == 0 and game_spec(game).title in result.output, result.output
        other = next(g for g in GAME_NAMES if g != game)
        result = CliRunner().invoke(app, ["dataset", "verify", str(root), "--game", other])
        assert result.exit_code == 2 and f"pass --game {game}" in result.output
