"""A ``caylus serve`` server per test (``caylus_env.core.serve.PlayServer`` with the agent
registry of the command line), on a free port of the loopback, saving under a temporary
directory, and a small JSON client for it."""

from __future__ import annotations

import http.client
import json
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from caylus_cli.serve import RegistryAgents
from caylus_env.core.serve import PlayServer


class Client:
    """Requests to one server: ``(status, JSON answer)``."""

    def __init__(self, server: PlayServer) -> None:
        self.server = server

    def raw(
        self, method: str, path: str, body: bytes | None = None, headers: dict | None = None
    ) -> tuple[int, bytes, str]:
        conn = http.client.HTTPConnection("127.0.0.1", self.server.port, timeout=60)
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
        deadline = time.monotonic() + 120
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
