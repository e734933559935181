"""``caylus serve`` under misbehaving clients: a half-sent request is answered 408 or closed
within the request timeout and frees its thread; a burst of simultaneous requests gets an
answer for every one (200, or 503 once the bounded queue is full); a step number must be a
JSON integer; every method an address does not serve is a JSON 405 with ``Allow``, and the
standard library's own refusals are JSON too; a client that goes away prints nothing on the
server's console."""

from __future__ import annotations

import contextlib
import http.client
import json
import socket
import struct
import threading
import time

import pytest

from tests.serve.conftest import HANG_S, Client, make_server

#: The request timeout of the servers of these tests (seconds): short, so that a test sees
#: the server give up on a half-sent request; the client's `HANG_S` is what detects a hang.
SHORT_TIMEOUT_S = 0.5
#: Simultaneous requests of the burst test (192 lost a few without an answer before).
BURST = 192


def _connect(server) -> socket.socket:
    sock = socket.create_connection(("127.0.0.1", server.port), timeout=HANG_S)
    return sock


def _answer(sock: socket.socket) -> tuple[int | None, dict, bytes]:
    """``(status, headers, body)`` of what the server sends before it closes the connection
    (status None: it closed without an answer); a socket timeout (`HANG_S`) is a hang."""
    data = b""
    try:
        while chunk := sock.recv(65536):
            data += chunk
    except ConnectionResetError:  # closed with a part of the request unread: after the answer
        pass
    if not data:
        return None, {}, b""
    head, _, body = data.partition(b"\r\n\r\n")
    lines = head.decode("latin-1").split("\r\n")
    headers = dict(line.split(": ", 1) for line in lines[1:])
    return int(lines[0].split()[1]), headers, body


def _reset(sock: socket.socket) -> None:
    """Close with a reset (SO_LINGER 0), as a client that crashes or is killed does."""
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
    sock.close()


def _until(condition) -> None:
    """Wait until ``condition()`` holds (`HANG_S` detects a hang)."""
    deadline = time.monotonic() + HANG_S
    while not condition():
        assert time.monotonic() < deadline, "waited too long: a hang"
        time.sleep(0.01)


def _idle(server) -> None:
    """Wait until no thread of ``server`` serves a connection."""
    _until(lambda: server.busy == 0)


HALF_SENT = {
    "request line": (b"GET /api/cat", None),
    "headers": (b"GET /api/catalog HTTP/1.1\r\nHost: 127.0.0.1\r\n", 408),
    "body": (
        b"POST /api/games HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
        b'Content-Length: 100\r\n\r\n{"game": ',
        408,
    ),
}


@pytest.mark.parametrize("part", list(HALF_SENT))
def test_a_half_sent_request_is_answered_408_or_closed_within_the_request_timeout(tmp_path, part):
    sent, status = HALF_SENT[part]
    server = make_server(tmp_path, request_timeout=SHORT_TIMEOUT_S)
    try:
        sock = _connect(server)
        sock.sendall(sent)
        got, headers, body = _answer(sock)
        sock.close()
        assert got == status, (got, body)
        if status is not None:
            assert headers["Content-Type"].startswith("application/json")
            error = json.loads(body)["error"]
            assert "did not arrive whole within 0.5 seconds" in error and "\n" not in error
    finally:
        server.close()


def test_a_request_sent_a_byte_at_a_time_still_ends_at_the_request_timeout(tmp_path):
    """A header that never ends, one byte every tenth of a second (each within a socket
    timeout): the request's deadline still ends it, with a 408."""
    server = make_server(tmp_path, request_timeout=SHORT_TIMEOUT_S)
    stop = threading.Event()
    sock = _connect(server)

    def trickle() -> None:
        sock.sendall(b"GET /api/catalog HTTP/1.1\r\nX-Slow: ")
        with contextlib.suppress(OSError):  # the server closed the connection
            while not stop.wait(0.1):
                sock.sendall(b"a")

    sender = threading.Thread(target=trickle, daemon=True)
    sender.start()
    try:
        status, _, body = _answer(sock)
        assert status == 408, body
    finally:
        stop.set()
        sender.join(HANG_S)
        sock.close()
        server.close()


def test_half_sent_requests_free_their_threads_for_the_next_requests(tmp_path):
    """20 half-sent requests on a server of 2 request threads: each is given up after the
    request timeout, so they do not hold the threads, and a request after them is served."""
    server = make_server(tmp_path, request_timeout=SHORT_TIMEOUT_S, request_threads=2)
    try:
        held = [_connect(server) for _ in range(20)]
        for sock in held:
            sock.sendall(HALF_SENT["headers"][0])
        assert all(_answer(sock)[0] == 408 for sock in held)
        for sock in held:
            sock.close()
        status, catalog = Client(server).call("GET", "/api/catalog")
        assert status == 200 and catalog["limits"]["request_threads"] == 2
    finally:
        server.close()


def test_a_burst_of_simultaneous_requests_gets_an_answer_for_every_one(server):
    go = threading.Barrier(BURST)
    answers: list = [None] * BURST

    def one(k: int) -> None:
        go.wait()
        try:
            conn = http.client.HTTPConnection("127.0.0.1", server.port, timeout=HANG_S)
            conn.request("GET", "/api/catalog")
            response = conn.getresponse()
            answers[k] = (response.status, json.loads(response.read()))
            conn.close()
        except Exception as err:  # an answer lost: recorded, reported below
            answers[k] = (type(err).__name__, str(err))

    threads = [threading.Thread(target=one, args=(k,)) for k in range(BURST)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    lost = [a for a in answers if a[0] not in (200, 503)]
    assert lost == [], f"{len(lost)} of {BURST} requests got no answer: {lost[:3]}"
    assert all("games" in a[1] if a[0] == 200 else "busy" in a[1]["error"] for a in answers)


def test_a_connection_that_finds_the_queue_full_is_answered_503_in_json(tmp_path):
    """One request thread and a queue of one: a half-sent request holds the thread, a second
    connection waits in the queue, and a third is answered 503 (with Retry-After) at once."""
    server = make_server(tmp_path, request_threads=1, request_queue=1, request_timeout=HANG_S)
    held = []
    try:
        for busy, queued in ((1, 0), (1, 1)):  # one served, then one queued
            held.append(_connect(server))
            held[-1].sendall(HALF_SENT["headers"][0])
            _until(lambda b=busy, q=queued: (server.busy, server.queued) == (b, q))
        status, raw, kind = Client(server).raw("GET", "/api/catalog")
        assert status == 503 and kind.startswith("application/json")
        error = json.loads(raw)["error"]
        assert "busy" in error and "1 request threads" in error and "\n" not in error
    finally:
        for sock in held:
            sock.close()
        server.close()


@pytest.mark.parametrize("step", [0.0, True, "0", None, [0]])
def test_a_step_that_is_not_a_json_integer_is_refused_and_changes_nothing(client, step):
    """``0.0 == 0`` and ``True == 1`` in Python: such a step was taken for the game's step."""
    view = client.new("caylus", ["human", "human"], seed=1)
    action = view["decision"]["legal"][0]["action"]
    if step is True:  # True == 1: the game must be at step 1
        view = client.move(view, action)
        action = view["decision"]["legal"][0]["action"]
    path = f"/api/games/{view['id']}/move"
    status, answer = client.call("POST", path, {"action": action, "step": step})
    assert status == 400 and "step must be an integer" in answer["error"], answer
    status, same = client.call("GET", f"/api/games/{view['id']}")
    assert same["version"] == view["version"] and same["step"] == view["step"]
    status, moved = client.call("POST", path, {"action": action, "step": view["step"]})
    assert status == 200 and moved["step"] == view["step"] + 1


ADDRESSES = {
    "/": "GET",
    "/api/catalog": "GET",
    "/api/games": "POST",
    "/api/resume": "POST",
    "/api/games/ID": "GET, DELETE",
    "/api/games/ID/move": "POST",
    "/replays/x.json": "GET",
}


@pytest.mark.parametrize("method", ["HEAD", "OPTIONS", "TRACE", "PUT", "PATCH", "BREW"])
def test_every_method_an_address_does_not_serve_is_a_json_405_with_allow(client, method):
    view = client.new("caylus", ["human", "random"])
    for address, allow in ADDRESSES.items():
        if method in allow:
            continue
        status, raw, kind = client.raw(method, address.replace("ID", view["id"]))
        assert status == 405 and kind.startswith("application/json"), (address, raw)
        conn = http.client.HTTPConnection("127.0.0.1", client.server.port, timeout=HANG_S)
        conn.request(method, address.replace("ID", view["id"]))
        response = conn.getresponse()
        assert response.getheader("Allow") == allow
        body = response.read()
        conn.close()
        if method == "HEAD":
            assert body == b""  # a HEAD answer has no body
        else:
            error = json.loads(body)["error"]
            assert f"{method} is not allowed" in error and f"allowed: {allow}" in error
    status, raw, kind = client.raw(method, "/nowhere")
    assert status == 404 and kind.startswith("application/json")


def test_a_refused_request_with_a_body_leaves_the_connection_usable(client):
    conn = http.client.HTTPConnection("127.0.0.1", client.server.port, timeout=HANG_S)
    try:
        conn.request("PUT", "/api/catalog", body=b'{"x": 1}', headers={"Content-Length": "8"})
        response = conn.getresponse()
        assert response.status == 405 and json.loads(response.read())["error"]
        conn.request("GET", "/api/catalog")  # the same connection: the body was read
        response = conn.getresponse()
        assert response.status == 200 and json.loads(response.read())["games"]
    finally:
        conn.close()


@pytest.mark.parametrize(
    ("line", "status"),
    [
        (b"GET /api/catalog HTTP/9.9", 505),
        (b"GET /api/catalog HTTP/0.9", 505),
        (b"GET /api/catalog", 505),  # HTTP/0.9: an answer without a status line
        (b"HELLO", 400),
        (b"GET /" + b"a" * 70000, 414),
    ],
)
def test_the_standard_librarys_own_refusals_are_json(server, line, status):
    sock = _connect(server)
    try:
        sock.sendall(line + b"\r\nHost: 127.0.0.1\r\n\r\n")
        got, headers, body = _answer(sock)
    finally:
        sock.close()
    assert got == status and headers["Content-Type"].startswith("application/json"), body
    error = json.loads(body)["error"]
    assert error and "\n" not in error and "<html" not in body.decode().lower()


def test_a_client_that_disconnects_prints_nothing_on_the_server_console(client, capfd):
    """A reset while the server reads a request, while an answer waits (a long poll woken by
    the game's drop) and while the page is written: no traceback on the console."""
    server = client.server
    view = client.new("caylus", ["human", "human"], seed=1)
    capfd.readouterr()
    reading = _connect(server)
    reading.sendall(b"GET /api/cat")
    _reset(reading)
    session = server.sessions[view["id"]]
    seen = session.last_seen
    polling = _connect(server)
    poll = f"GET /api/games/{view['id']}?since={view['version']}&wait=20 HTTP/1.1\r\n"
    polling.sendall(poll.encode() + b"Host: 127.0.0.1\r\n\r\n")
    _until(lambda: session.last_seen > seen)  # the poll was read: it waits for a change
    _reset(polling)
    assert client.call("DELETE", f"/api/games/{view['id']}")[0] == 200  # wakes the poll
    for _ in range(5):
        page = _connect(server)
        page.sendall(b"GET / HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
        _reset(page)
    _idle(server)
    assert client.call("GET", "/api/catalog")[0] == 200  # still serving
    _idle(server)
    err = capfd.readouterr().err
    assert "Traceback" not in err and "Exception occurred" not in err, err
