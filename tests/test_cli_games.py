"""``--game puerto_rico`` on ``caylus play``, ``replay``, ``agents`` and ``bench`` (typer's
CliRunner): each command works for Puerto Rico, a record of the other game is refused naming
both games, an unknown game is refused, ``--html`` writes a Puerto Rico replay page (drawn by
``caylus_env.puerto_rico.viewer``); and every path ``docs/adding-a-game.md`` names exists."""

from __future__ import annotations

import json
import random
import re
from pathlib import Path

import pytest
from typer.testing import CliRunner

from agents.puerto_rico.registry import describe
from agents.tournament.games import tournament_game
from caylus_cli.app import app
from caylus_env.puerto_rico import benchmark
from caylus_env.puerto_rico.engine import Game, GameConfig, string_to_action
from caylus_env.puerto_rico.engine import layout as L

REPO = Path(__file__).resolve().parents[1]
GAME = "puerto_rico"
CAYLUS_RECORD = REPO / "tests" / "records" / "v1_game_3p_seed7.json"
PLAYED = re.compile(r"^round \d+ \w+: player (\d) \(([^)]+)\) -> (\S+)$")
LISTED = re.compile(r"^\s*(\d+)\. round \d+ player (\d) \(([^)]+)\): (\S+)$")
FINAL = re.compile(r"^\s+player (\d) \(([^)]+)\): score (-?\d+), rank ([\d.]+)$")
runner = CliRunner()


def invoke(*args: object):
    return runner.invoke(app, [str(a) for a in args])


def finals(output: str) -> dict[int, tuple[str, int, float]]:
    """Seat -> (agent, score, rank) of the final lines of play or replay."""
    out = {}
    for line in output.splitlines():
        m = FINAL.match(line)
        if m:
            out[int(m[1])] = (m[2], int(m[3]), float(m[4]))
    return out


def random_game(players: int, seed: int) -> Game:
    game = Game(GameConfig(num_players=players), seed=seed)
    rng = random.Random(seed)
    while not (game.is_terminal() or game.is_truncated()):
        game.apply(rng.choice(game.legal_actions()))
    return game


@pytest.fixture(scope="module")
def record_file(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A finished 3-player Puerto Rico record as JSON."""
    path = tmp_path_factory.mktemp("pr") / "record.json"
    path.write_text(json.dumps(random_game(3, seed=5).record().to_dict()))
    return path


@pytest.fixture(scope="module")
def games_jsonl(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A tournament-style games.jsonl of three 2-player games, ids 3 to 5 (the harness's
    own adapter writes the lines)."""
    adapter = tournament_game(GAME)
    lines = []
    for game_id in (3, 4, 5):
        game = random_game(2, seed=game_id)
        record = adapter.finish(
            game,
            [None, None],
            game_id=game_id,
            block=0,
            seats=["random", "shipper"],
            agent_seeds=[1, 2],
            move_time=[0.1, 0.2],
            wall_time=1.0,
        )
        lines.append(adapter.to_line(record))
    path = tmp_path_factory.mktemp("run") / "games.jsonl"
    path.write_text("".join(lines))
    return path


# -- play ----------------------------------------------------------------------------------------
def test_play_puerto_rico_prints_decisions_that_replay_to_the_printed_scores():
    result = invoke("play", "--game", GAME, "--agents", "random,shipper", "--seed", "3",
                    "--no-board")  # fmt: skip
    assert result.exit_code == 0, result.output
    decisions = [PLAYED.match(line) for line in result.output.splitlines()]
    decisions = [m for m in decisions if m]
    assert f"Game over after {len(decisions)} decisions" in result.output
    game = Game(GameConfig(num_players=2), seed=3)
    for m in decisions:
        assert int(m[1]) == game.current_player()
        assert m[2] == ("random", "shipper")[int(m[1])]
        game.apply(string_to_action(m[3]))
    assert game.is_terminal()
    printed = finals(result.output)
    assert [printed[p][1] for p in range(2)] == game.scores().tolist()
    assert [printed[p][2] for p in range(2)] == game.ranks().tolist()


def test_play_puerto_rico_with_the_expansion_starts_with_the_draft():
    result = invoke("play", "--game", GAME, "--agents", "random", "--players", "3",
                    "--option", "expansion=true", "--no-board")  # fmt: skip
    assert result.exit_code == 0, result.output
    first = next(m for m in map(PLAYED.match, result.output.splitlines()) if m)
    assert first[3].startswith("draft:")
    assert len(finals(result.output)) == 3


def test_play_puerto_rico_draws_the_board_at_each_new_round_and_at_the_end():
    result = invoke("play", "--game", GAME, "--agents", "builder,builder", "--seed", "1")
    assert result.exit_code == 0, result.output
    lines = result.output.splitlines()
    boards = [line for line in lines if line.startswith("Puerto Rico, 2 players, seed 1:")]
    rounds = sorted({int(line.split()[1]) for line in lines if PLAYED.match(line)})
    assert rounds == list(range(1, len(rounds) + 1)) and len(rounds) > 5
    assert [int(b.split("round ")[1].split(",")[0]) for b in boards[:-1]] == rounds
    assert boards[-1].endswith("phase game_over")  # and the final position after the last one


def test_play_puerto_rico_says_when_the_decision_cap_cut_the_game_off():
    result = invoke("play", "--game", GAME, "--agents", "random,random",
                    "--option", "max_decisions=30", "--no-board")  # fmt: skip
    assert result.exit_code == 0, result.output
    assert sum(1 for line in result.output.splitlines() if PLAYED.match(line)) == 30
    assert "Game over after 30 decisions (truncated by the decision cap)" in result.output


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--agents", "economy,random"], "unknown agent 'economy'; available: builder"),
        (["--agents", "random", "--players", "6"], "Puerto Rico is played by 2 to 5"),
        (["--agents", "random,random", "--option", "jeweller=true"], "allowed: max_decisions"),
        (["--agents", "random,random", "--option", "expansion=3"], "expansion must be True"),
    ],
)
def test_play_puerto_rico_refuses_bad_arguments_naming_what_is_allowed(args, message):
    result = invoke("play", "--game", GAME, *args)
    assert result.exit_code == 2
    assert message in result.output


def test_play_html_writes_the_puerto_rico_replay_page_of_the_game_played(tmp_path):
    page = tmp_path / "game.html"
    result = invoke(
        "play", "--game", GAME, "--agents", "shipper,builder", "--seed", "5", "--html", page
    )
    assert result.exit_code == 0, result.output
    assert f"wrote {page}" in result.output
    html = page.read_text()
    assert "<svg" in html and "shipper" in html and "builder" in html
    final = re.findall(r"player (\d) \((\w+)\): score (\d+), rank", result.output)
    assert len(final) == 2
    for _, _, score in final:
        assert f"{score} VP" in html


def test_play_html_refuses_a_bad_page_name_before_any_work(tmp_path):
    page = tmp_path / "game.txt"
    result = invoke("play", "--game", GAME, "--agents", "random,random", "--html", page)
    assert result.exit_code == 2
    assert "--html" in result.output and ".html" in result.output
    assert not page.exists()


# -- replay --------------------------------------------------------------------------------------
def test_replay_detects_a_puerto_rico_record_and_lists_its_decisions_by_name(record_file):
    record = json.loads(record_file.read_text())
    result = invoke("replay", record_file, "--show")
    assert result.exit_code == 0, result.output
    listed = [m for m in map(LISTED.match, result.output.splitlines()) if m]
    assert [m[4] for m in listed] == record["action_names"]
    assert [int(m[1]) for m in listed] == list(range(1, len(record["actions"]) + 1))
    assert f"record replayed: {len(record['actions'])} actions, end: terminated" in result.output
    printed = finals(result.output)
    assert [printed[p][1] for p in range(3)] == record["final"]["scores"]
    assert [printed[p][2] for p in range(3)] == record["final"]["ranks"]


def test_replay_picks_a_game_of_a_puerto_rico_games_jsonl_by_id(games_jsonl):
    line = json.loads(games_jsonl.read_text().splitlines()[1])
    result = invoke("replay", games_jsonl, "--game", GAME, "--game-id", "4")
    assert result.exit_code == 0, result.output
    assert f"game 4 replayed: {len(line['actions'])} actions" in result.output
    printed = finals(result.output)
    assert printed[0][0] == "random" and printed[1][0] == "shipper"
    assert [printed[p][1] for p in range(2)] == line["final"]["scores"]


def test_replay_still_reads_a_number_after_game_as_the_game_id(games_jsonl):
    result = invoke("replay", games_jsonl, "--game", "5")
    assert result.exit_code == 0, result.output
    assert "game 5 replayed" in result.output
    missing = invoke("replay", games_jsonl, "--game-id", "9")
    assert missing.exit_code == 2
    assert "no game 9" in missing.output and "ids 3 to 5" in missing.output


def test_replay_rebuilds_a_game_of_a_puerto_rico_dataset(tmp_path):
    out = tmp_path / "dataset"
    made = invoke("dataset", "generate", "--game", GAME, "--agents", "random,shipper",
                  "--players", "2", "--games", "2", "--workers", "1", "--out", out)  # fmt: skip
    assert made.exit_code == 0, made.output
    result = invoke("replay", out, "--game-id", "1", "--show")
    assert result.exit_code == 0, result.output
    listed = [m for m in map(LISTED.match, result.output.splitlines()) if m]
    assert f"game 1 replayed: {len(listed)} actions, end: terminated" in result.output
    assert {finals(result.output)[p][0] for p in range(2)} == {"random", "shipper"}
    refused = invoke("replay", out, "--game", "caylus")
    assert refused.exit_code == 2
    assert "Puerto Rico" in refused.output and "Caylus" in refused.output


def test_replay_refuses_a_puerto_rico_record_given_as_caylus_naming_both(record_file):
    result = invoke("replay", record_file, "--game", "caylus")
    assert result.exit_code == 2
    assert "Puerto Rico record (game 'puerto_rico')" in result.output
    assert "expected a Caylus record (game 'caylus')" in result.output


def test_replay_refuses_a_caylus_record_given_as_puerto_rico_naming_both():
    result = invoke("replay", CAYLUS_RECORD, "--game", GAME)
    assert result.exit_code == 2
    assert "Caylus record (game 'caylus')" in result.output
    assert "expected a Puerto Rico record (game 'puerto_rico')" in result.output


def test_replay_refuses_a_caylus_line_in_a_puerto_rico_games_jsonl(games_jsonl, tmp_path):
    caylus_line = json.dumps(json.loads(CAYLUS_RECORD.read_text()))
    mixed = tmp_path / "games.jsonl"
    mixed.write_text(games_jsonl.read_text() + caylus_line + "\n")
    result = invoke("replay", mixed)
    assert result.exit_code == 2
    assert "line 4" in result.output and "Caylus record" in result.output


def test_replay_html_writes_the_puerto_rico_replay_page(record_file, tmp_path):
    record = json.loads(record_file.read_text())
    for args in ([], ["--game", GAME]):
        page = tmp_path / f"game{len(args)}.html"
        result = invoke("replay", record_file, *args, "--html", page)
        assert result.exit_code == 0, result.output
        assert f"{len(record['actions']) + 1} steps" in result.output
        html = page.read_text()
        assert "<svg" in html
        for score in record["final"]["scores"]:
            assert f"{score} VP" in html


def test_replay_of_a_tampered_puerto_rico_record_exits_1(record_file, tmp_path):
    record = json.loads(record_file.read_text())
    record["final"]["scores"][0] += 1
    tampered = tmp_path / "tampered.json"
    tampered.write_text(json.dumps(record))
    result = invoke("replay", tampered)
    assert result.exit_code == 1
    assert "does not replay" in result.output


# -- agents --------------------------------------------------------------------------------------
def test_agents_lists_the_puerto_rico_registry_only():
    result = invoke("agents", "--game", GAME)
    assert result.exit_code == 0, result.output
    assert "Puerto Rico agent specs" in result.output
    words = set(result.output.split())
    assert {info.syntax for info in describe() if " " not in info.syntax} <= words
    assert "economy" not in words  # a Caylus head
    assert "economy" in invoke("agents").output.split()


# -- bench ---------------------------------------------------------------------------------------
@pytest.fixture
def tiny_bench(monkeypatch: pytest.MonkeyPatch) -> None:
    """Workloads small enough for a test: this checks the plumbing, not the speed."""
    for name, value in (
        ("CALL_DECISIONS", 2_000),
        ("COMPILED_GAMES", 10),
        ("LENGTH_GAMES", 10),
        ("AEC_DECISIONS", 300),
    ):
        monkeypatch.setattr(benchmark, name, value)
    monkeypatch.setattr(benchmark, "compile_seconds", lambda: (12.5, 0.75))
    monkeypatch.setattr(benchmark, "clone_seconds", lambda repeats: (3e-7, 1.5e-6))


def test_bench_puerto_rico_prints_every_figure(tiny_bench):
    result = invoke("bench", "--game", GAME, "--repeats", "1", "--players", "3")
    assert result.exit_code == 0, result.output
    for figure in ("engine_call_3p", "engine_compiled_3p", "raw_env_3p",
                   "openspiel_chess", "pettingzoo_connect_four_env"):  # fmt: skip
        assert figure in result.output
    assert "engine_call_2p" not in result.output
    assert f"state: {L.STATE_BYTES} bytes (within the 1024-byte budget)" in result.output
    assert "12.5 s cold, 0.75 s from the cache" in result.output
    assert "decisions per random game" in result.output


def test_bench_figures_cover_every_player_count_with_and_without_the_expansion(
    tiny_bench, tmp_path
):
    out = tmp_path / "bench.json"
    results = benchmark.main(repeats=1, players=[2], quick=True, json_path=str(out))
    assert set(results["layers"]) == {"engine_call_2p", "engine_compiled_2p", "raw_env_2p"}
    assert all(rate is None or rate > 0 for rate in results["layers"].values())
    assert results["layers"]["engine_call_2p"] > 0
    assert set(results["game_lengths"]) == {
        f"{n}p{suffix}" for n in range(2, 6) for suffix in ("", "_expansion")
    }
    for row in results["game_lengths"].values():
        assert 0 < row["mean"] <= row["max"]
    assert results["state_bytes"] == L.STATE_BYTES <= benchmark.STATE_BYTES_TARGET
    assert set(results["caylus"]) == {"engine_call_2p", "engine_compiled_2p"}
    assert json.loads(out.read_text())["game_lengths"] == results["game_lengths"]


@pytest.mark.parametrize(
    ("kwargs", "message"), [({"repeats": 0}, "repeats"), ({"players": [6]}, "players")]
)
def test_bench_module_refuses_bad_arguments_before_any_work(kwargs, message):
    with pytest.raises(ValueError, match=message):
        benchmark.main(**kwargs)


@pytest.mark.parametrize("flag", [["--vector"], ["--training"], ["--threads", "2"]])
def test_bench_refuses_caylus_only_layers_for_puerto_rico(flag):
    result = invoke("bench", "--game", GAME, *flag)
    assert result.exit_code == 2
    assert "Caylus-only" in result.output and flag[0] in result.output


def test_bench_puerto_rico_refuses_a_player_count_it_does_not_have():
    result = invoke("bench", "--game", GAME, "--players", "2,6")
    assert result.exit_code == 2
    assert "Puerto Rico player counts are 2 to 5" in result.output


# -- every command -------------------------------------------------------------------------------
@pytest.mark.parametrize(
    "command",
    [
        ["play", "--agents", "random,random"],
        ["replay", str(CAYLUS_RECORD)],
        ["agents"],
        ["bench"],
        ["tournament", "--agents", "random", "--players", "2", "--games", "2"],
    ],
)
def test_an_unknown_game_is_refused_by_every_command(command):
    result = invoke(*command, "--game", "chess")
    assert result.exit_code == 2
    assert "unknown game 'chess'" in result.output
    assert "allowed: caylus, puerto_rico" in " ".join(result.output.replace("│", " ").split())


# -- docs/adding-a-game.md ------------------------------------------------------------------------
DOC = REPO / "docs" / "adding-a-game.md"
PATH = re.compile(r"`([\w.-]+(?:/[\w.-]*)+)`")  # `a/b.py`, `a/b/`: every path with a slash


def test_every_path_the_adding_a_game_guide_names_exists():
    text = DOC.read_text()
    paths = set(PATH.findall(text))
    assert len(paths) >= 20  # the guide cites the worked example's modules by path
    missing = [p for p in sorted(paths) if not (REPO / p).exists()]
    assert not missing, f"docs/adding-a-game.md names paths that do not exist: {missing}"
