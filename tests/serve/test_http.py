"""``caylus serve`` over HTTP: the refusals of bad requests (each a 4xx with a one-line JSON
message that changes nothing), undo, save and the replay page, resume, the idle drop, several
independent games, what the page is never sent, and the command's start and clean stop."""

from __future__ import annotations

import contextlib
import json
import os
import signal
import subprocess
import sys
import threading
import time

import pytest

from caylus_cli.serve import RegistryAgents
from caylus_env.core.record import load_records, replay
from caylus_env.core.registry import GAME_NAMES, game_spec
from caylus_env.core.serve import MAX_BODY_BYTES, PlayServer
from tests.serve.conftest import HANG_S, Client, make_server


def _open_games(client: Client) -> int:
    return len(client.server.sessions)


def _refused(client: Client, status: int, method: str, path: str, body=None, words: str = ""):
    before = _open_games(client)
    got, answer = client.call(method, path, body)
    assert got == status, answer
    assert set(answer) == {"error"} and "\n" not in answer["error"], answer
    assert words in answer["error"], answer
    assert _open_games(client) == before
    return answer["error"]


def test_the_page_and_catalog_offer_every_game_its_options_and_builtin_agents(client):
    status, html, kind = client.raw("GET", "/")
    assert status == 200 and kind.startswith("text/html")
    assert b'id="board"' in html and b" src=" not in html and b"<link" not in html
    status, catalog = client.call("GET", "/api/catalog")
    assert status == 200
    assert [g["name"] for g in catalog["games"]] == list(GAME_NAMES)
    for entry in catalog["games"]:
        spec = game_spec(entry["name"])
        assert entry["options"] == spec.options()
        assert entry["min_players"] == spec.min_players
        specs = [a["spec"] for a in entry["agents"]]
        assert "random" in specs and any(s.startswith("mcts:") for s in specs)
    caylus = next(g for g in catalog["games"] if g["name"] == "caylus")
    assert "ppo-2p" in [a["spec"] for a in caylus["agents"]]
    assert catalog["limits"]["max_body_bytes"] == MAX_BODY_BYTES


def test_malformed_json_is_refused_with_400(client):
    status, raw, _ = client.raw(
        "POST", "/api/games", b'{"game": "caylus",', {"Content-Type": "application/json"}
    )
    assert status == 400 and "valid JSON" in json.loads(raw)["error"]
    assert _open_games(client) == 0


def test_a_body_over_the_limit_is_refused_with_413_before_it_is_read(client):
    headers = {"Content-Type": "application/json", "Content-Length": str(MAX_BODY_BYTES + 1)}
    status, raw, _ = client.raw("POST", "/api/games", b"{}", headers)
    assert status == 413 and str(MAX_BODY_BYTES) in json.loads(raw)["error"]


def test_a_body_that_is_not_json_content_is_refused_with_415(client):
    body = json.dumps({"game": "caylus", "players": 2, "seats": ["human", "random"]}).encode()
    status, raw, _ = client.raw("POST", "/api/games", body, {"Content-Type": "text/plain"})
    assert status == 415 and "application/json" in json.loads(raw)["error"]
    assert _open_games(client) == 0


def test_an_unknown_game_id_is_404(client):
    _refused(client, 404, "GET", "/api/games/nosuchgame", words="unknown game id")
    _refused(client, 404, "POST", "/api/games/nosuchgame/move", {"action": 0}, "unknown game id")
    _refused(client, 404, "GET", "/api/games/..%2F..%2Fetc", words="unknown game id")


def test_an_unknown_game_name_is_refused(client):
    body = {"game": "chess", "players": 2, "seats": ["human", "random"]}
    assert "allowed: caylus" in _refused(client, 400, "POST", "/api/games", body)


@pytest.mark.parametrize("players", [1, 6, "2", True, None])
def test_a_bad_player_count_is_refused(client, players):
    body = {"game": "caylus", "players": players, "seats": ["human", "random"]}
    _refused(client, 400, "POST", "/api/games", body, "players must be an integer from 2 to 5")


def test_a_bad_option_is_refused(client):
    body = {"game": "caylus", "players": 2, "seats": ["human", "random"]}
    _refused(client, 400, "POST", "/api/games", {**body, "options": {"nope": 1}}, "options:")
    _refused(client, 400, "POST", "/api/games", {**body, "options": [1]}, "JSON object")


def test_an_unknown_field_or_seat_count_is_refused(client):
    body = {"game": "caylus", "players": 2, "seats": ["human", "random"]}
    _refused(client, 400, "POST", "/api/games", {**body, "x": 1}, "unknown field 'x'")
    _refused(client, 400, "POST", "/api/games", {**body, "seats": ["human"]}, "list of 2")
    _refused(client, 400, "POST", "/api/games", {**body, "seed": -1}, "seed must be")


def test_an_unknown_agent_spec_is_refused_naming_the_seat_and_the_agents(client):
    body = {"game": "caylus", "players": 2, "seats": ["human", "alphazero"]}
    error = _refused(client, 400, "POST", "/api/games", body, "seat 1:")
    assert "random" in error and "castle" in error


def test_a_policy_path_outside_the_checkpoint_directories_is_refused(client, tmp_path):
    body = {"game": "caylus", "players": 2, "seats": ["human", f"policy:{tmp_path}"]}
    error = _refused(client, 400, "POST", "/api/games", body, "outside the checkpoint")
    assert str(tmp_path / "checkpoints") in error


def test_an_illegal_action_is_refused_and_changes_nothing(client):
    view = client.settled(client.new("caylus", ["human", "random"]))
    legal = {entry["action"] for entry in view["decision"]["legal"]}
    illegal = next(a for a in range(game_spec("caylus").engine().NUM_ACTIONS) if a not in legal)
    path = f"/api/games/{view['id']}/move"
    _refused(client, 400, "POST", path, {"action": illegal}, "not legal now; legal:")
    _refused(client, 400, "POST", path, {"action": "place:nowhere"}, "action:")
    _refused(client, 400, "POST", path, {"action": True}, "not legal")
    _refused(client, 409, "POST", path, {"action": min(legal), "step": view["step"] + 1}, "step")
    status, after = client.call("GET", f"/api/games/{view['id']}")
    assert status == 200 and after["version"] == view["version"]
    assert after["board"]["pieces"] == view["board"]["pieces"]


class _Blocked:
    """An agent that thinks until the test lets it move."""

    def __init__(self, go: threading.Event) -> None:
        self.name = "blocked"
        self.go = go

    def reset(self, seed=None) -> None:
        """Stateless: nothing to reset."""

    def act(self, game) -> int:
        self.go.wait(30)
        return game.legal_actions()[0]


def test_a_move_while_an_agent_is_to_move_is_refused_with_409(tmp_path):
    go = threading.Event()

    class Agents(RegistryAgents):
        def make(self, spec, game):
            return _Blocked(go) if spec == "blocked" else super().make(spec, game)

    server = PlayServer(Agents([]), tmp_path, port=0)
    server.start()
    try:
        client = Client(server)
        view = client.new("caylus", ["blocked", "human"], seed=3)
        if view["decision"]["human"]:
            _, view = client.call(
                "POST",
                f"/api/games/{view['id']}/move",
                {"action": view["decision"]["legal"][0]["action"]},
            )
        assert view["thinking"] and not view["decision"]["human"]
        action = view["decision"]["legal"][0]["action"]
        error = _refused(client, 409, "POST", f"/api/games/{view['id']}/move", {"action": action})
        assert "player 0 (blocked) is to move" in error
        _, same = client.call("GET", f"/api/games/{view['id']}")
        assert same["step"] == view["step"]  # the server answered while the agent thinks
        go.set()
        after = client.settled(same)
        assert after["step"] > view["step"] and after["recent"][-1]["by"] == "blocked"
    finally:
        go.set()
        server.close()


def test_a_foreign_host_header_is_refused(client):
    status, raw, _ = client.raw("GET", "/api/catalog", headers={"Host": "evil.example:80"})
    assert status == 403 and "Host" in json.loads(raw)["error"]


def test_replay_pages_are_served_only_for_names_the_server_gave(client):
    for path in ("/replays/x.json", "/replays/..%2F..%2Fetc%2Fpasswd", "/replays/%2Fetc%2Fpasswd"):
        _refused(client, 404, "GET", path, words="was saved by this server")
    _refused(client, 404, "GET", "/etc/passwd", words="no such address")
    _refused(client, 405, "PUT", "/api/games", words="not allowed")


def test_undo_goes_back_to_the_persons_previous_decision_replaying_the_same_position(client):
    for game in GAME_NAMES:
        view = client.settled(client.new(game, ["human", "random"], seed=5))
        _refused(client, 409, "POST", f"/api/games/{view['id']}/undo", {}, "nothing to undo")
        before = view
        view = client.move(view, view["decision"]["legal"][-1]["action"])
        assert view["step"] > before["step"] and view["can_undo"]
        status, back = client.call("POST", f"/api/games/{view['id']}/undo", {})
        assert status == 200, back
        assert back["step"] == before["step"]
        assert back["board"]["pieces"] == before["board"]["pieces"]
        assert back["decision"] == before["decision"]
        assert back["scores"] == before["scores"]


def test_save_writes_a_verified_record_and_serves_its_replay_page(client, tmp_path):
    view = client.settled(client.new("caylus", ["human", "random"]))
    for _ in range(3):
        view = client.move(view, view["decision"]["legal"][0]["action"])
    status, saved = client.call("POST", f"/api/games/{view['id']}/save", {})
    assert status == 200, saved
    path = tmp_path / "saved" / saved["file"]
    assert saved["path"] == str(path.resolve()) and path.is_file()
    assert [p.name for p in (tmp_path / "saved").iterdir()] == [saved["file"]]  # no temp left
    (record,) = load_records(path)
    game = replay(record)
    assert len(game.history) == view["step"] == saved["moves"]
    assert record.match.agents == ("human", "random")
    status, html, kind = client.raw("GET", saved["replay"])
    assert status == 200 and kind.startswith("text/html") and b"game-data" in html


def test_resume_continues_a_saved_game_and_refuses_a_tampered_record(client, tmp_path):
    view = client.settled(client.new("puerto_rico", ["human", "random"], seed=2))
    for _ in range(4):
        view = client.move(view, view["decision"]["legal"][0]["action"])
    status, saved = client.call("POST", f"/api/games/{view['id']}/save", {})
    record = json.loads((tmp_path / "saved" / saved["file"]).read_text())
    status, resumed = client.call(
        "POST", "/api/resume", {"record": record, "seats": ["human", "random"]}
    )
    assert status == 201, resumed
    resumed = client.settled(resumed)
    assert resumed["id"] != view["id"] and resumed["step"] == view["step"]
    assert resumed["board"]["pieces"] == view["board"]["pieces"]
    assert resumed["decision"] == view["decision"]
    tampered = dict(record, actions=[*record["actions"][:-1], 10_000])
    _refused(client, 400, "POST", "/api/resume", {"record": tampered, "seats": ["human"] * 2})
    _refused(client, 400, "POST", "/api/resume", {"record": {"game": "x"}, "seats": []}, "record:")
    wrong = {"record": record, "seats": ["human"]}
    _refused(client, 400, "POST", "/api/resume", wrong, "list of 2")


def test_several_games_are_independent(client):
    a = client.settled(client.new("caylus", ["human", "random"], seed=1))
    b = client.settled(client.new("caylus", ["human", "random"], seed=1))
    c = client.settled(client.new("puerto_rico", ["human", "human", "random"], seed=1))
    assert len({a["id"], b["id"], c["id"]}) == 3
    a2 = client.move(a, a["decision"]["legal"][0]["action"])
    status, b2 = client.call("GET", f"/api/games/{b['id']}")
    assert b2["version"] == b["version"] and b2["board"]["pieces"] == b["board"]["pieces"]
    assert a2["step"] > a["step"]
    status, _ = client.call("DELETE", f"/api/games/{a['id']}")
    assert status == 200
    _refused(client, 404, "GET", f"/api/games/{a['id']}", words="unknown game id")
    status, c2 = client.call("GET", f"/api/games/{c['id']}")
    assert status == 200 and c2["step"] == c["step"]


def test_idle_games_are_dropped_after_the_timeout(tmp_path):
    server = make_server(tmp_path, idle_seconds=0.4)
    try:
        client = Client(server)
        kept = client.settled(client.new("caylus", ["human", "random"]))
        dropped = client.settled(client.new("caylus", ["human", "random"]))
        deadline = time.monotonic() + 10
        while dropped["id"] in server.sessions and time.monotonic() < deadline:
            assert client.call("GET", f"/api/games/{kept['id']}")[0] == 200
            time.sleep(0.1)
        assert dropped["id"] not in server.sessions and kept["id"] in server.sessions
        error = _refused(client, 404, "GET", f"/api/games/{dropped['id']}")
        assert "without a request" in error
    finally:
        server.close()


def test_too_many_games_are_refused_with_503(tmp_path):
    server = make_server(tmp_path, max_games=1)
    try:
        client = Client(server)
        client.new("caylus", ["human", "random"])
        body = {"game": "caylus", "players": 2, "seats": ["human", "random"]}
        _refused(client, 503, "POST", "/api/games", body, "(1)")
    finally:
        server.close()


def test_the_page_is_never_sent_a_state_dict_or_a_seed_that_fixes_hidden_information(client):
    view = client.settled(client.new("puerto_rico", ["human", "random"], seed=None))
    text = json.dumps(view)
    assert view["seed"] is None  # the server drew it: it fixes the face-down plantations
    for secret in ("plantation_stack", '"rng"', '"pending"', "state"):
        assert secret not in text
    chosen = client.settled(client.new("puerto_rico", ["human", "random"], seed=9))
    assert chosen["seed"] == 9  # the person chose it: they know it


def test_an_agent_move_shows_its_top_actions_with_mcts_visit_counts(client):
    view = client.settled(client.new("caylus", ["mcts:40", "human"], seed=3))
    while not view["recent"]:
        view = client.move(view, view["decision"]["legal"][0]["action"])
    (move,) = view["recent"][:1]
    assert move["by"] == "mcts:40" and move["seat"] == 0
    assert move["kind"] == "visits" and move["top"]
    assert all(isinstance(t["visits"], int) for t in move["top"])
    assert move["top"][0]["share"] >= move["top"][-1]["share"]


def test_a_policy_agent_move_shows_its_top_actions_with_probabilities(client):
    """The shipped ``ppo-2p`` (a policy network): its move lists its most likely actions with
    their probabilities, which are a distribution's (each in (0, 1], best first)."""
    view = client.settled(client.new("caylus", ["ppo-2p", "human"], seed=3))
    while not view["recent"]:
        view = client.move(view, view["decision"]["legal"][0]["action"])
    move = view["recent"][0]
    assert move["by"] == "ppo-2p" and move["seat"] == 0
    assert move["kind"] == "probability" and move["top"]
    shares = [t["share"] for t in move["top"]]
    assert all(0.0 < p <= 1.0 for p in shares) and sum(shares) <= 1.0 + 1e-9
    assert shares == sorted(shares, reverse=True)
    assert all("visits" not in t for t in move["top"])
    assert move["name"] in {t["name"] for t in move["top"]} or len(move["top"]) == 5


def test_closing_a_server_that_never_served_returns_at_once(tmp_path):
    """A Ctrl-C before the serving loop starts (right after the address is printed) closes
    a server whose loop never ran: that must not wait for the loop (socketserver's
    ``shutdown`` would wait forever)."""
    server = PlayServer(RegistryAgents([]), tmp_path / "saved", port=0)
    closer = threading.Thread(target=server.close, daemon=True)
    closer.start()
    closer.join(timeout=10)
    assert not closer.is_alive(), "close() waited for a serving loop that never ran"


def test_closing_after_a_ctrl_c_that_came_as_the_loop_started_returns_at_once(tmp_path):
    """A Ctrl-C inside `PlayServer.serve_forever` before socketserver's loop began (its flag
    says serving, no loop runs) then a `close` in the same thread: that must not wait for a
    loop (``shutdown`` would wait forever; `caylus serve` hung so once in 3,761 tests)."""
    server = PlayServer(RegistryAgents([]), tmp_path / "saved", port=0)

    def interrupted(poll_interval: float = 0.5) -> None:
        raise KeyboardInterrupt

    server.httpd.serve_forever = interrupted
    done: list[bool] = []

    def serve_then_close() -> None:
        with contextlib.suppress(KeyboardInterrupt):
            server.serve_forever()
        server._serving = True  # the instant before its try: the flag set, no loop started
        server.close()
        done.append(True)

    thread = threading.Thread(target=serve_then_close, daemon=True)
    thread.start()
    thread.join(timeout=10)
    assert done, "close() waited for a serving loop that a Ctrl-C had ended before it began"


def _first_line(proc: subprocess.Popen, seconds: float) -> str:
    """The first line ``proc`` prints, or "" when none came within ``seconds`` (a hang)."""
    lines: list[str] = []
    reader = threading.Thread(target=lambda: lines.append(proc.stdout.readline()), daemon=True)
    reader.start()
    reader.join(seconds)
    return lines[0] if lines else ""


def test_caylus_serve_prints_its_address_and_stops_cleanly_on_sigint(tmp_path):
    """The command compiles nothing before it listens, and the kernels are warm anyway
    (``warm_kernels``): the waits for its first line and its exit detect hangs only."""
    env = dict(os.environ, PYTHONUNBUFFERED="1")
    proc = subprocess.Popen(
        [sys.executable, "-m", "caylus_cli", "serve", "--port", "0", "--save-dir", str(tmp_path)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=env,
    )
    try:
        line = _first_line(proc, HANG_S)
        assert line.startswith("caylus serve: open http://127.0.0.1:"), line
        proc.send_signal(signal.SIGINT)
        out, err = proc.communicate(timeout=HANG_S)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.communicate()
    assert proc.returncode == 0, err
    assert "Traceback" not in err and "stopped" in out


def test_caylus_serve_refuses_bad_arguments_in_one_line(tmp_path):
    for args, words in (
        (["--port", "70000"], "--port"),
        (["--idle-minutes", "0"], "--idle-minutes"),
        (["--checkpoints", str(tmp_path / "none")], "--checkpoints"),
        (["--game", "chess"], "chess"),
    ):
        proc = subprocess.run(
            [sys.executable, "-m", "caylus_cli", "serve", *args],
            capture_output=True,
            text=True,
            timeout=HANG_S,
        )
        assert proc.returncode == 2, proc.stderr
        assert words in proc.stderr and "Traceback" not in proc.stderr
