"""A ``caylus serve`` server per test (``caylus_env.core.serve.PlayServer`` with the agent
registry of the command line), on a free port of the loopback, saving under a temporary
directory, and a small JSON client for it.

The kernels the tests' requests and agents run are compiled once, before any test
(`warm_kernels`): every timeout of these tests (`HANG_S`, a client's socket timeout, the wait
for an agent's move) then measures a hang, never numba's compile time (minutes on a cold cache
and a loaded machine). They are cached on disk, so the ``caylus serve`` subprocesses load them
too."""

from __future__ import annotations

import http.client
import json
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from agents.policy import best_shipped
from agents.registry import make_agent
from caylus_cli.serve import RegistryAgents
from caylus_env.core.record import replay
from caylus_env.core.registry import GAME_NAMES, game_spec
from caylus_env.core.serve import HUMAN, PlayServer, Session
from caylus_env.core.serve.session import Workers

#: Seconds after which a wait of these tests (a request, an agent's move, a subprocess's
#: start or stop) is a hang: the kernels are warm (`warm_kernels`), so nothing compiles then.
HANG_S = 120
#: The agents the tests play, by game, warmed with the games' own kernels (besides ``random``
#: and the game's best shipped network, every game's default opponent on the page).
WARM_AGENTS = {"caylus": ("random", "mcts:40", "ppo-2p", "puct:2")}
#: Moves of the warm-up games (a few of each kind of decision's opening).
WARM_MOVES = 8


@pytest.fixture(scope="session", autouse=True)
def warm_kernels() -> None:
    """Compile what the server runs for the tests, in this process and into the kernel cache:
    each game's engine, drawing, view, undo, record and verifier (a game of two people, so no
    agent thinks), ``random``, the game's best shipped network and the agents of
    `WARM_AGENTS` (one move each). No clock runs here."""
    workers = Workers(1)
    try:
        for name in GAME_NAMES:
            spec = game_spec(name)
            config = spec.config(spec.min_players).to_dict()
            seats = [HUMAN] * spec.min_players
            session = Session("warm", spec, config, 1, None, seats, RegistryAgents([]), workers)
            with session.cond:
                for _ in range(WARM_MOVES):
                    session.view()
                    session.play(session.game.legal_actions()[-1], session.game.current_player())
                session.undo()
                session.view()
                replay(session.record())
            default = best_shipped(name) or "random"
            for agent_spec in ("random", default, *WARM_AGENTS.get(name, ())):
                agent = make_agent(agent_spec, name)
                agent.reset(0)
                agent.act(session.game.clone())
    finally:
        workers.close()


class Client:
    """Requests to one server: ``(status, JSON answer)``."""

    def __init__(self, server: PlayServer) -> None:
        self.server = server

    def raw(
        self, method: str, path: str, body: bytes | None = None, headers: dict | None = None
    ) -> tuple[int, bytes, str]:
        conn = http.client.HTTPConnection("127.0.0.1", self.server.port, timeout=HANG_S)
        try:
            conn.request(method, path, body=body, headers=headers or {})
            response = conn.getresponse()
            return response.status, response.read(), response.getheader("Content-Type") or ""
        finally:
            conn.close()

    def call(self, method: str, path: str, body: Any = None) -> tuple[int, Any]:
        data = None if body is None else json.dumps(body).encode()
        headers = {"Content-Type": "application/json"} if data is not None else {}
        status, raw, _ = self.raw(method, path, data, headers)
        return status, json.loads(raw)

    def new(self, game: str, seats: list[str], seed: int | None = 3, **extra: Any) -> dict:
        """A new game (``seed`` None: the server draws it)."""
        body = {"game": game, "players": len(seats), "seats": seats, **extra}
        if seed is not None:
            body["seed"] = seed
        status, view = self.call("POST", "/api/games", body)
        assert status == 201, view
        return view

    def settled(self, view: dict[str, Any]) -> dict[str, Any]:
        """The game's view once no agent is thinking (a person's turn, the end or an error)."""
        deadline = time.monotonic() + HANG_S
        while view["thinking"] or (
            not view["decision"]["human"] and not view["over"] and not view["error"]
        ):
            assert time.monotonic() < deadline, view["decision"]
            status, view = self.call(
                "GET", f"/api/games/{view['id']}?since={view['version']}&wait=5"
            )
            assert status == 200, view
        return view

    def move(self, view: dict[str, Any], action: int) -> dict[str, Any]:
        status, after = self.call(
            "POST", f"/api/games/{view['id']}/move", {"action": action, "step": view["step"]}
        )
        assert status == 200, after
        return self.settled(after)


def make_server(tmp_path: Path, **options: Any) -> PlayServer:
    roots = [tmp_path / "checkpoints"]
    roots[0].mkdir(exist_ok=True)
    server = PlayServer(RegistryAgents(roots), tmp_path / "saved", port=0, **options)
    server.start()
    return server


@pytest.fixture
def server(tmp_path: Path) -> Iterator[PlayServer]:
    srv = make_server(tmp_path)
    try:
        yield srv
    finally:
        srv.close()


@pytest.fixture
def client(server: PlayServer) -> Client:
    return Client(server)
