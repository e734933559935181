"""The local web server of ``caylus serve``: a person plays any game against any agents in the
browser.

One ``ThreadingHTTPServer`` (the standard library; no framework, nothing from the network)
serves the page (``page.html`` of this package), a small JSON API and the replay pages of the
games it saved. Games (`caylus_env.core.serve.session.Session`) live in memory, each under a
random id, several at once (one per browser tab), and are dropped after ``idle_seconds``
without a request. Agents think in `Workers`; the page long-polls for their moves.

The API (``docs/serve.md`` says it in full):

- ``GET /``: the page;
- ``GET /api/catalog``: the games, their options (each with its words) and option sets (each
  said in words), their agents and default opponent, the limits;
- ``POST /api/games``: a new game, ``{"game", "players", "options", "seats", "seed"?}``
  (seats: ``human`` or an agent spec each) -> its view (201);
- ``GET /api/games/ID[?since=V&wait=S]``: its view; with ``since``, waits up to ``wait``
  seconds (at most `MAX_WAIT_S`) for a version after ``V``;
- ``POST /api/games/ID/move``: ``{"action": id or name, "step"?}`` -> the view;
- ``POST /api/games/ID/undo``: back to the person's previous decision;
- ``POST /api/games/ID/save``: the record, written atomically under the save directory with a
  name the server chooses;
- ``DELETE /api/games/ID``: drop the game;
- ``POST /api/resume``: ``{"record", "seats"}``: a game from a record, read and verified by
  the core record reader;
- ``GET /replays/NAME``: the replay page of a record this server saved;
- ``GET /rules/GAME``: the game's rules reference (``docs/rules/GAME.md``, shipped in the
  package: `caylus_env.core.serve.rules`) as a page.

Refusals are ``4xx`` (``503`` when busy) with ``{"error": "..."}`` (one line naming what was
wrong and what is allowed) and change nothing: malformed JSON, a body over `MAX_BODY_BYTES`, an
unknown field, game, id, agent spec, player count, option, a step that is not an integer, an
illegal action, a method an address does not serve (405 with ``Allow``), a request that does
not arrive whole within the request timeout (408), and the standard library's own refusals of
a malformed request line or headers. Nothing a request sends is executed or used as a path:
saved files are named by the server, replay pages are served only for names it gave out, and
agent specs go to the server's `AgentSource` (the command line's refuses every path outside
the directories it was given).

Connections: at most ``request_threads`` threads serve them, the others wait in a queue of
``request_queue``; a connection that finds the queue full is answered ``503`` by one of
`REFUSE_THREADS` threads (the system's listen queue, `LISTEN_BACKLOG`, holds the ones not yet
accepted), so a burst gets an answer for every request, and never an unbounded number of
threads. A request has ``request_timeout`` seconds to arrive whole (its line, headers and body,
against one deadline: a half-sent one is answered 408 or closed, and frees its thread), a
kept-alive connection as long for its next request, and a client as long to take each answer.
A client that goes away (a reset, a broken pipe) is forgotten in silence.
"""

from __future__ import annotations

import io
import json
import queue
import re
import secrets
import socket
import threading
import time
from collections.abc import Mapping
from datetime import datetime, timezone
from http import HTTPStatus
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from importlib import resources
from pathlib import Path
from string import Template
from typing import Any
from urllib.parse import parse_qs, urlsplit

from caylus_env.core.fileio import atomic_write_text
from caylus_env.core.game import MAX_SEED
from caylus_env.core.record import GameRecord, load_records, parse_json, replay
from caylus_env.core.registry import GAME_NAMES, game_spec
from caylus_env.core.serve.rules import rules_page
from caylus_env.core.serve.session import HUMAN, AgentSource, Session, Workers
from caylus_env.core.viewer.page import replay_page_html, script_json

#: Largest request body read (a record to resume is the largest thing a page sends).
MAX_BODY_BYTES = 2 * 2**20
#: Longest a poll waits for the agents' next move.
MAX_WAIT_S = 25.0
#: Games open at once.
DEFAULT_MAX_GAMES = 32
#: Minutes without a request after which a game is dropped.
DEFAULT_IDLE_MINUTES = 30.0
#: Threads the agents think in.
DEFAULT_WORKERS = 2
#: Connections served at once, each in a thread (a page's long poll holds one for up to
#: `MAX_WAIT_S`; a browser keeps about six connections to a server for all its tabs).
DEFAULT_REQUEST_THREADS = 64
#: Connections that wait for a request thread; more are answered 503.
DEFAULT_REQUEST_QUEUE = 256
#: Seconds a request has to arrive whole (line, headers, body), a kept-alive connection waits
#: for its next request, and a client has to take each answer.
DEFAULT_REQUEST_TIMEOUT_S = 10.0
#: Threads that answer 503 while every request thread is busy, and the seconds each gives its
#: request to arrive (the server accepts no connection while all of them are refusing).
REFUSE_THREADS = 4
REFUSE_TIMEOUT_S = 2.0
#: Connections the system queues before the server accepts them (it caps this at its own
#: ``somaxconn``); the standard library's 5 made a burst lose connections unanswered.
LISTEN_BACKLOG = 1024
#: Where saved records go (relative to the directory the server starts in).
DEFAULT_SAVE_DIR = Path("runs") / "serve"
TEMPLATE = "page.html"
LOOPBACK = ("127.0.0.1", "localhost", "::1")
_ID = re.compile(r"[A-Za-z0-9_-]{1,64}")


class RequestError(Exception):
    """A refused request: its HTTP status, one line saying why and headers of the answer."""

    def __init__(
        self, status: HTTPStatus, message: str, headers: Mapping[str, str] | None = None
    ) -> None:
        super().__init__(message)
        self.status = status
        self.message = message
        self.headers = dict(headers or {})


class _ClientGone(Exception):
    """The client went away (a reset, a broken pipe) or took no answer in time: nothing to
    answer, nothing to print."""


def _bad(message: str) -> RequestError:
    return RequestError(HTTPStatus.BAD_REQUEST, message)


def _fields(body: Any, required: tuple[str, ...], optional: tuple[str, ...] = ()) -> dict:
    """``body`` as a JSON object with exactly these fields (optional ones may be missing)."""
    if not isinstance(body, dict):
        raise _bad(f"the request body must be a JSON object, got {type(body).__name__}")
    allowed = required + optional
    unknown = [k for k in body if k not in allowed]
    if unknown:
        raise _bad(f"unknown field {unknown[0]!r}; allowed: {', '.join(allowed)}")
    missing = [k for k in required if k not in body]
    if missing:
        raise _bad(f"missing field {missing[0]!r}; required: {', '.join(required)}")
    return body


def option_docs(config: type) -> dict[str, str]:
    """Each option of a game's ``GameConfig`` (but ``num_players``) in words: its line of the
    class docstring's ``Attributes:`` section, where every game documents its options.

    Example:
        >>> from caylus_env.caylus.engine import GameConfig
        >>> option_docs(GameConfig)["jeweller"]
        'put the Jeweller tile in the stock (8.1, opt-in).'
    """
    lines = (config.__doc__ or "").splitlines()
    start = next((i for i, line in enumerate(lines) if line.strip() == "Attributes:"), None)
    docs: dict[str, list[str]] = {}
    if start is None:
        return {}
    indent = None
    for line in lines[start + 1 :]:
        if not line.strip():
            break
        depth = len(line) - len(line.lstrip())
        if indent is None:
            indent = depth
        if depth < indent:
            break
        key, sep, text = line.strip().partition(": ")
        if depth == indent and sep:
            docs[key] = [text]
        elif docs:
            docs[list(docs)[-1]].append(line.strip())
    return {
        key: " ".join(words).replace("``", "")
        for key, words in docs.items()
        if key != "num_players"
    }


def option_set_words(options: Mapping[str, Any], docs: Mapping[str, str]) -> str:
    """A game's option set in words: each option it sets, its value and what it does (the
    rules as printed: no option set).

    Example:
        >>> option_set_words({"expansion": True}, {"expansion": "play with the expansion."})
        'expansion on: play with the expansion'
    """
    if not options:
        return "the rules as printed: every option at its default"
    words = []
    for key, value in options.items():
        name = key.replace("_", " ")
        said = ("on" if value else "off") if isinstance(value, bool) else f"= {value}"
        doc = docs.get(key)
        words.append(f"{name} {said}" + (f": {doc.rstrip('.')}" if doc else ""))
    return "; ".join(words)


def _int(name: str, value: Any, low: int, high: int) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or not low <= value <= high:
        raise _bad(f"{name} must be an integer from {low} to {high}, got {value!r}")
    return value


class PlayServer:
    """The server of ``caylus serve`` (see the module docstring).

    Args:
        agents: where the agents come from (`AgentSource`).
        save_dir: where saved records are written.
        host, port: where to listen (port 0: a free port; `url` says which).
        idle_seconds: a game without a request for this long is dropped.
        max_games: games open at once.
        workers: threads the agents think in.
        default_game: the game the page selects first.
        request_threads: connections served at once.
        request_queue: connections that wait for one of those threads (more are answered
            503).
        request_timeout: seconds a request has to arrive whole, a kept-alive connection waits
            for the next one, and a client has to take an answer.
    """

    def __init__(
        self,
        agents: AgentSource,
        save_dir: str | Path = DEFAULT_SAVE_DIR,
        *,
        host: str = "127.0.0.1",
        port: int = 8000,
        idle_seconds: float = DEFAULT_IDLE_MINUTES * 60,
        max_games: int = DEFAULT_MAX_GAMES,
        workers: int = DEFAULT_WORKERS,
        default_game: str | None = None,
        request_threads: int = DEFAULT_REQUEST_THREADS,
        request_queue: int = DEFAULT_REQUEST_QUEUE,
        request_timeout: float = DEFAULT_REQUEST_TIMEOUT_S,
    ) -> None:
        if not idle_seconds > 0:
            raise ValueError(f"idle_seconds must be > 0, got {idle_seconds!r}")
        if min(max_games, workers, request_threads, request_queue) < 1:
            raise ValueError(
                f"max_games, workers, request_threads and request_queue must be >= 1, got "
                f"{max_games}, {workers}, {request_threads}, {request_queue}"
            )
        if not request_timeout > 0:  # NaN too
            raise ValueError(f"request_timeout must be > 0, got {request_timeout!r}")
        self.agents = agents
        self.save_dir = Path(save_dir)
        self.idle_seconds = float(idle_seconds)
        self.max_games = max_games
        self.default_game = game_spec(default_game or GAME_NAMES[0]).name
        self.sessions: dict[str, Session] = {}
        self.saved: dict[str, Path] = {}
        self._lock = threading.Lock()
        self._saves = 0
        self._workers = Workers(workers)
        self._stop = threading.Event()
        self._serving = False
        self._serving_thread: threading.Thread | None = None
        self.request_threads = request_threads
        self.request_queue = request_queue
        self.request_timeout = float(request_timeout)
        self.httpd = _HTTPServer((host, port), self)
        self.host = host
        self.port = int(self.httpd.server_address[1])
        self._reaper = threading.Thread(target=self._reap, name="serve-reaper", daemon=True)
        self._reaper.start()

    @property
    def busy(self) -> int:
        """Threads serving or refusing connections now."""
        return self.httpd.busy

    @property
    def queued(self) -> int:
        """Connections accepted and waiting for a request thread now."""
        return self.httpd.queued()

    @property
    def url(self) -> str:
        host = f"[{self.host}]" if ":" in self.host else self.host
        return f"http://{host}:{self.port}/"

    def serve_forever(self) -> None:
        """Serve until `close` (from another thread) or a KeyboardInterrupt in this one."""
        self._serving_thread = threading.current_thread()  # first: `close` reads it with the flag
        self._serving = True
        try:
            self.httpd.serve_forever(poll_interval=0.2)
        finally:
            self._serving = False

    def start(self) -> threading.Thread:
        """Serve in a daemon thread (tests, scripts); `close` stops it."""
        self._serving = True  # before the thread runs: a `close` right after must wait for it
        thread = threading.Thread(target=self.serve_forever, name="serve-http", daemon=True)
        self._serving_thread = thread
        thread.start()
        return thread

    def close(self) -> None:
        """Stop serving, drop every game (a move being computed is thrown away).

        ``socketserver``'s ``shutdown`` waits for a running ``serve_forever`` loop to end, and
        forever when none runs: so it is called only while one runs in another thread, not
        after a Ctrl-C ended the loop, or came before it started, in the calling thread.
        """
        self._stop.set()
        # Only a loop of another thread is waited for: a Ctrl-C in the serving thread (even one
        # between `serve_forever`'s first line and the loop's start) leaves `_serving` set
        # with no loop left to end, and ``shutdown`` would wait for it forever.
        if self._serving and self._serving_thread is not threading.current_thread():
            self.httpd.shutdown()
        self.httpd.server_close()
        self.httpd.close_queued()
        with self._lock:
            sessions = list(self.sessions.values())
            self.sessions.clear()
        for session in sessions:
            session.close()
        self._workers.close()

    # -- games -------------------------------------------------------------------------------
    def _reap(self) -> None:
        """Drop the games idle for longer than ``idle_seconds``."""
        every = min(max(self.idle_seconds / 4, 0.05), 30.0)
        while not self._stop.wait(every):
            self.drop_idle()

    def drop_idle(self) -> list[str]:
        """Drop the games idle past the limit now; their ids."""
        now = time.monotonic()
        with self._lock:
            idle = [s for s, v in self.sessions.items() if now - v.last_seen > self.idle_seconds]
            dropped = [self.sessions.pop(sid) for sid in idle]
        for session in dropped:
            session.close()
        return idle

    def session(self, sid: str) -> Session:
        with self._lock:
            session = self.sessions.get(sid) if _ID.fullmatch(sid) else None
        if session is None:
            minutes = self.idle_seconds / 60
            raise RequestError(
                HTTPStatus.NOT_FOUND,
                f"unknown game id {sid[:64]!r}: no game is open under it (games are dropped "
                f"after {minutes:g} minutes without a request); start a new game",
            )
        session.last_seen = time.monotonic()
        return session

    def _open(self, make: Any) -> Session:
        with self._lock:
            if len(self.sessions) >= self.max_games:
                raise RequestError(
                    HTTPStatus.SERVICE_UNAVAILABLE,
                    f"{len(self.sessions)} games are open, the most this server keeps "
                    f"({self.max_games}); close a tab or wait for idle games to be dropped",
                )
            sid = secrets.token_urlsafe(9)
        session = make(sid)
        with self._lock:
            self.sessions[sid] = session
        with session.cond:
            session.kick()
        return session

    def _seats(self, game: str, seats: Any, n: int) -> list[str]:
        if not isinstance(seats, list) or len(seats) != n:
            raise _bad(
                f"seats must be a list of {n} entries (one per player), each {HUMAN!r} or an "
                f"agent spec, got {seats!r}"[:300]
            )
        out = []
        for k, seat in enumerate(seats):
            if not isinstance(seat, str) or not seat.strip() or len(seat) > 500:
                raise _bad(f"seat {k} must be {HUMAN!r} or an agent spec, got {seat!r}"[:300])
            seat = seat.strip()
            if seat != HUMAN:
                try:
                    self.agents.make(seat, game)
                except ValueError as err:
                    raise _bad(f"seat {k}: {err}") from None
            out.append(seat)
        return out

    def create(self, body: Any) -> Session:
        body = _fields(body, ("game", "players", "seats"), ("options", "seed"))
        name = body["game"]
        if not isinstance(name, str) or name not in GAME_NAMES:
            raise _bad(f"unknown game {name!r}; allowed: {', '.join(GAME_NAMES)}"[:300])
        spec = game_spec(name)
        n = _int("players", body["players"], spec.min_players, spec.max_players)
        options = body.get("options", {})
        if not isinstance(options, dict):
            raise _bad(f"options must be a JSON object of the game's options, got {options!r}")
        try:
            config = spec.config(n, **options)
        except (TypeError, ValueError) as err:
            raise _bad(f"options: {err}") from None
        given = "seed" in body
        seed = _int("seed", body["seed"], 0, MAX_SEED - 1) if given else secrets.randbelow(2**31)
        seats = self._seats(spec.name, body["seats"], n)
        return self._open(
            lambda sid: Session(
                sid,
                spec,
                config.to_dict(),
                seed,
                None,
                seats,
                self.agents,
                self._workers,
                seed_given=given,
            )
        )

    def resume(self, body: Any) -> Session:
        body = _fields(body, ("record", "seats"))
        try:
            record = GameRecord.from_dict(body["record"])
            replay(record)  # the one verifier: every step checked against the engine
        except ValueError as err:
            raise _bad(f"record: {err}"[:1000]) from None
        spec = game_spec(record.game)
        seats = self._seats(spec.name, body["seats"], record.num_players)
        return self._open(
            lambda sid: Session(
                sid,
                spec,
                dict(record.options),
                record.seed,
                record.start_state,
                seats,
                self.agents,
                self._workers,
                actions=record.actions,
            )
        )

    def drop(self, sid: str) -> None:
        session = self.session(sid)
        with self._lock:
            self.sessions.pop(sid, None)
        session.close()

    def move(self, session: Session, body: Any) -> None:
        body = _fields(body, ("action",), ("step",))
        step = body.get("step", 0)
        if isinstance(step, bool) or not isinstance(step, int):  # 0.0 == 0 and True == 1
            raise _bad(
                f"step must be an integer, the view's step the move is for, got {step!r}"[:200]
            )
        engine = session.engine
        with session.cond:
            game = session.game
            if "step" in body and step != len(game.history):
                raise RequestError(
                    HTTPStatus.CONFLICT,
                    f"the move was for step {body['step']!r} but the game is at step "
                    f"{len(game.history)}: reload its view",
                )
            if game.is_over():
                raise RequestError(HTTPStatus.CONFLICT, "the game is over: nothing to play")
            p = game.current_player()
            if not session.human_to_move():
                raise RequestError(
                    HTTPStatus.CONFLICT,
                    f"player {p} ({session.seats[p]}) is to move, not a person: wait for it",
                )
            action = body["action"]
            if isinstance(action, str):
                try:
                    action = engine.string_to_action(action)
                except ValueError as err:
                    raise _bad(f"action: {err}") from None
            legal = game.legal_actions()
            if isinstance(action, bool) or not isinstance(action, int) or action not in legal:
                names = ", ".join(engine.action_to_string(a) for a in legal)
                raise _bad(f"action {action!r} is not legal now; legal: {names}"[:2000])
            session.play(action, p)

    def undo(self, session: Session) -> None:
        with session.cond:
            if not session.undo():
                raise RequestError(HTTPStatus.CONFLICT, "nothing to undo: no person has moved")

    def save(self, session: Session) -> dict[str, Any]:
        with session.cond:
            record = session.record()
        stamp = datetime.now(timezone.utc).strftime("%Y%m%dT%H%M%SZ")
        with self._lock:
            self._saves += 1
            name = f"{record.game}-{stamp}-{session.id}-{self._saves}.json"
        path = self.save_dir / name
        atomic_write_text(path, json.dumps(record.to_dict(), indent=1, allow_nan=False) + "\n")
        with self._lock:
            self.saved[name] = path
        return {
            "file": name,
            "path": str(path.resolve()),
            "replay": f"/replays/{name}",
            "moves": record.num_moves,
            "finished": record.final is not None,
        }

    def replay_page(self, name: str) -> str:
        with self._lock:
            path = self.saved.get(name)
        if path is None:
            raise RequestError(
                HTTPStatus.NOT_FOUND,
                f"no record {name[:100]!r} was saved by this server; allowed: the names its "
                "save answers gave",
            )
        try:
            (record,) = load_records(path)  # the strict reader: the file may have changed
        except (OSError, ValueError) as err:
            raise RequestError(HTTPStatus.GONE, f"record {name} cannot be read: {err}") from None
        return replay_page_html(record)

    def default_agent(self, game: str) -> str:
        """The spec the page proposes for a seat that is not a person's: the agent source's
        ``default_agent`` (the command line's: the game's best shipped network), else the
        first agent it lists."""
        method = getattr(self.agents, "default_agent", None)
        if callable(method):
            return method(game)
        return self.agents.catalog(game)[0]["spec"]

    def catalog(self) -> dict[str, Any]:
        games = []
        for name in GAME_NAMES:
            spec = game_spec(name)
            docs = option_docs(spec.engine().GameConfig)
            games.append(
                {
                    "name": spec.name,
                    "title": spec.title,
                    "summary": spec.summary,
                    "min_players": spec.min_players,
                    "max_players": spec.max_players,
                    "default_players": spec.default_players,
                    "options": spec.options(),
                    "option_docs": docs,
                    "option_sets": {k: dict(v) for k, v in spec.option_sets.items()},
                    "option_set_words": {
                        k: option_set_words(v, docs) for k, v in spec.option_sets.items()
                    },
                    "agents": self.agents.catalog(spec.name),
                    "default_agent": self.default_agent(spec.name),
                    "score_word": spec.score_word,
                    "rules": f"/rules/{spec.name}",
                }
            )
        return {
            "games": games,
            "default_game": self.default_game,
            "human": HUMAN,
            "limits": {
                "max_body_bytes": MAX_BODY_BYTES,
                "max_games": self.max_games,
                "idle_seconds": self.idle_seconds,
                "max_wait_s": MAX_WAIT_S,
                "request_threads": self.request_threads,
                "request_queue": self.request_queue,
                "request_timeout_s": self.request_timeout,
            },
        }

    def rules(self, name: str) -> str:
        """The rules page of game ``name`` (`caylus_env.core.serve.rules`)."""
        if name not in GAME_NAMES:
            raise RequestError(
                HTTPStatus.NOT_FOUND,
                f"no rules page {name[:100]!r}; allowed: {', '.join(GAME_NAMES)}",
            )
        try:
            return rules_page(game_spec(name))
        except (OSError, ValueError) as err:
            raise RequestError(HTTPStatus.NOT_FOUND, str(err)[:300]) from None

    def page(self) -> str:
        template = Template(resources.files(__package__).joinpath(TEMPLATE).read_text("utf-8"))
        return template.substitute(data=script_json(self.catalog()))

    def wait_view(self, session: Session, query: Mapping[str, list[str]]) -> dict[str, Any]:
        since = query.get("since", [None])[-1]
        wait = query.get("wait", ["0"])[-1]
        with session.cond:
            if since is not None:
                try:
                    version, seconds = int(since), float(wait)
                except ValueError:
                    raise _bad(
                        f"since must be an integer and wait a number of seconds, got "
                        f"{since!r} and {wait!r}"[:300]
                    ) from None
                if not 0 <= seconds <= MAX_WAIT_S:  # NaN too
                    raise _bad(f"wait must be 0 to {MAX_WAIT_S:g} seconds, got {wait!r}"[:200])
                session.cond.wait_for(
                    lambda: session.version > version or session.closed, timeout=seconds
                )
            if session.closed:
                raise RequestError(HTTPStatus.NOT_FOUND, f"game {session.id} was dropped")
            session.last_seen = time.monotonic()
            return session.view()


#: The actions of a game, ``POST /api/games/ID/ACTION``.
ACTIONS = ("move", "undo", "save")


def _methods(parts: list[str]) -> tuple[str, ...]:
    """The methods an address serves; none for an address the server does not have."""
    if parts in ([], ["favicon.ico"], ["api", "catalog"]) or (
        len(parts) == 2 and parts[0] in ("replays", "rules")
    ):
        return ("GET",)
    if parts in (["api", "games"], ["api", "resume"]):
        return ("POST",)
    if len(parts) == 3 and parts[:2] == ["api", "games"]:
        return ("GET", "DELETE")
    if len(parts) == 4 and parts[:2] == ["api", "games"] and parts[3] in ACTIONS:
        return ("POST",)
    return ()


class _DeadlineReader(io.RawIOBase):
    """A request socket read against one deadline: every read waits only for what is left of
    it, so a request sent a byte at a time still ends when its time is up (a socket timeout
    alone waits that long for each byte)."""

    def __init__(self, sock: socket.socket) -> None:
        super().__init__()
        self._sock = sock
        self.deadline = time.monotonic()

    def readable(self) -> bool:
        return True

    def readinto(self, buffer: Any) -> int:
        left = self.deadline - time.monotonic()
        if left <= 0:
            raise TimeoutError("the request did not arrive in time")
        self._sock.settimeout(left)
        return self._sock.recv_into(buffer)


class _HTTPServer(ThreadingHTTPServer):
    """The standard library's threading server with a bounded pool of threads and a bounded
    queue of connections.

    An accepted connection joins the queue, and at most ``request_threads`` threads serve the
    queue's connections one after the other (a thread ends when the queue is empty). When the
    queue is full, one of `REFUSE_THREADS` threads reads the connection's request (so that
    the answer is not lost to a reset) and answers it 503; while those are all busy too, the
    accepting loop waits for one (each ends within `REFUSE_TIMEOUT_S` and a write timeout),
    the system's listen queue (`LISTEN_BACKLOG`) holding the connections not yet accepted.
    """

    daemon_threads = True
    block_on_close = False
    request_queue_size = LISTEN_BACKLOG

    def __init__(self, address: tuple[str, int], app: PlayServer) -> None:
        self.app = app
        self._slots = threading.BoundedSemaphore(app.request_threads)
        self._refusers = threading.BoundedSemaphore(REFUSE_THREADS)
        self._queue: queue.Queue[tuple[Any, Any]] = queue.Queue(app.request_queue)
        self._count = threading.Lock()
        self.busy = 0
        super().__init__(address, _Handler)

    def process_request(self, request: Any, client_address: Any) -> None:
        try:
            self._queue.put_nowait((request, client_address))
        except queue.Full:
            self._refusers.acquire()
            self._start(self._refuse, self._refusers, request, client_address)
            return
        while not self._queue.empty() and self._slots.acquire(blocking=False):
            self._start(self._drain, self._slots)

    def _start(self, target: Any, slot: threading.Semaphore, *args: Any) -> None:
        with self._count:
            self.busy += 1
        thread = threading.Thread(target=target, args=args, daemon=True)
        try:
            thread.start()
        except BaseException:
            self._done(slot)
            raise

    def _done(self, slot: threading.Semaphore) -> None:
        with self._count:
            self.busy -= 1
        slot.release()

    def _serve(self, handler: type, request: Any, client_address: Any) -> None:
        try:
            handler(request, client_address, self)
        except Exception:
            self.handle_error(request, client_address)
        finally:
            self.shutdown_request(request)

    def _drain(self) -> None:
        """Serve queued connections until none is left (a connection queued while this thread
        gives its slot back is taken by it again, or by the thread the accepting loop starts)."""
        while True:
            try:
                request, client_address = self._queue.get_nowait()
            except queue.Empty:
                self._done(self._slots)
                if self._queue.empty() or not self._slots.acquire(blocking=False):
                    return
                with self._count:
                    self.busy += 1
                continue
            self._serve(_Handler, request, client_address)

    def _refuse(self, request: Any, client_address: Any) -> None:
        try:
            self._serve(_Refuser, request, client_address)
        finally:
            self._done(self._refusers)

    def queued(self) -> int:
        return self._queue.qsize()

    def close_queued(self) -> None:
        """Close the connections still queued (the server stops)."""
        while True:
            try:
                request, _ = self._queue.get_nowait()
            except queue.Empty:
                return
            self.shutdown_request(request)


class _Handler(BaseHTTPRequestHandler):
    """One connection: its requests, each answered in JSON (but the pages).

    Every method reaches `_route` (``do_HEAD``, ``do_OPTIONS``, any word: `__getattr__`), so
    one an address does not serve is answered 405 with its ``Allow`` header, and the standard
    library's own refusals (`send_error`) are JSON too. The connection's reads share one
    deadline per request (`_DeadlineReader`).
    """

    server_version = "caylus-serve"
    protocol_version = "HTTP/1.1"
    #: Whether this handler answers 503 to its request (every request thread was busy).
    refusing = False

    @property
    def app(self) -> PlayServer:
        return self.server.app  # type: ignore[attr-defined]

    def _timeout(self) -> float:
        return REFUSE_TIMEOUT_S if self.refusing else self.app.request_timeout

    def log_message(self, format: str, *args: Any) -> None:
        """Quiet: the command prints its own lines."""

    def __getattr__(self, name: str) -> Any:
        if name.startswith("do_"):
            method = name[3:]
            return lambda: self._handle(method)
        raise AttributeError(name)

    # -- the connection ----------------------------------------------------------------------
    def setup(self) -> None:
        super().setup()
        self.rfile.close()  # the standard library's reader, replaced by one with a deadline
        self._reader = _DeadlineReader(self.connection)
        self.rfile = io.BufferedReader(self._reader)

    def handle(self) -> None:
        try:
            super().handle()
        except (ConnectionError, _ClientGone):  # a reset while the request line or headers
            self.close_connection = True  # were read, or an answer that could not be sent

    def handle_one_request(self) -> None:
        self._reader.deadline = time.monotonic() + self._timeout()
        self._body_read = False
        super().handle_one_request()

    def parse_request(self) -> bool:
        """The standard library's parsing, a request whose headers did not arrive in time
        answered 408 (the request line did arrive), and an HTTP/0.9 request (no version, or
        that one) refused 505: its answers would have no status line and no headers."""
        try:
            parsed = super().parse_request()
        except TimeoutError:
            self.close_connection = True
            self._body_read = True  # nothing more is read from this connection
            self.request_version = self.protocol_version  # a status line, whatever it said
            self._error(self._late())
            return False
        if parsed and self.request_version == "HTTP/0.9":
            self.send_error(
                HTTPStatus.HTTP_VERSION_NOT_SUPPORTED,
                "HTTP/0.9 is not supported; allowed: HTTP/1.0, HTTP/1.1",
            )
            return False
        return parsed

    def _late(self) -> RequestError:
        return RequestError(
            HTTPStatus.REQUEST_TIMEOUT,
            f"the request did not arrive whole within {self._timeout():g} seconds; allowed: "
            "a request line, headers and body sent at once",
        )

    # -- answers -----------------------------------------------------------------------------
    def send_response(self, code: int, message: str | None = None) -> None:
        self.connection.settimeout(self._timeout())  # the client's time to take the answer
        super().send_response(code, message)

    def _send(
        self, status: int, body: bytes, kind: str, headers: Mapping[str, str] | None = None
    ) -> None:
        self.send_response(status)
        self.send_header("Content-Type", kind)
        self.send_header("Content-Length", str(len(body)))
        self.send_header("Cache-Control", "no-store")
        self.send_header("X-Content-Type-Options", "nosniff")
        for name, value in (headers or {}).items():
            self.send_header(name, value)
        if self.close_connection:
            self.send_header("Connection", "close")
        self._write(body)

    def _write(self, body: bytes) -> None:
        """The answer's headers and body (none to a HEAD), sent; a client that went away or
        took them too slowly is `_ClientGone`."""
        try:
            self.end_headers()
            if body and self.command != "HEAD":
                self.wfile.write(body)
        except (ConnectionError, TimeoutError) as err:
            raise _ClientGone from err

    def _json(self, status: int, data: Any, headers: Mapping[str, str] | None = None) -> None:
        text = json.dumps(data, separators=(",", ":"), allow_nan=False)
        self._send(status, text.encode("utf-8"), "application/json; charset=utf-8", headers)

    def _error(self, err: RequestError) -> None:
        self._discard_body()
        self._json(err.status, {"error": err.message}, err.headers)

    def send_error(self, code: int, message: str | None = None, explain: str | None = None) -> None:
        """The standard library's refusals (a malformed request line, too long a line or too
        many headers, an HTTP version it does not speak) in JSON like every other, with a status
        line and headers even when the request line was too broken to say its version."""
        self.close_connection = True
        self.request_version = self.protocol_version
        text = message or self.responses.get(code, ("refused",))[0]
        self._json(code, {"error": " ".join(str(text).split())[:300]})

    # -- requests ----------------------------------------------------------------------------
    def _check_host(self) -> None:
        """A server on the loopback answers only requests addressed to the loopback (a page
        of another site cannot reach it through a DNS name that points here)."""
        if self.app.host not in LOOPBACK:
            return
        host = (self.headers.get("Host") or "").strip().lower()
        name = host.rsplit(":", 1)[0] if not host.endswith("]") else host
        if name.strip("[]") not in LOOPBACK:
            raise RequestError(
                HTTPStatus.FORBIDDEN,
                f"Host {host[:100]!r} refused; allowed: this server's loopback address",
            )

    def _discard_body(self) -> None:
        """Read and drop the body of a request refused before its body was read, so that the
        connection can carry the next request and the refusal is not lost to a reset; a body
        that cannot be (chunked, over `MAX_BODY_BYTES`, late) closes the connection."""
        if self._body_read or getattr(self, "headers", None) is None:
            return
        self._body_read = True
        length_text = self.headers.get("Content-Length") or "0"
        if self.headers.get("Transfer-Encoding") or not length_text.isdigit():
            self.close_connection = True
            return
        length = int(length_text)
        if length > MAX_BODY_BYTES:
            self.close_connection = True
            return
        try:
            if len(self.rfile.read(length)) < length:
                self.close_connection = True
        except (ConnectionError, TimeoutError):
            self.close_connection = True

    def _body(self) -> Any:
        self._body_read = True
        kind = (self.headers.get("Content-Type") or "").split(";")[0].strip().lower()
        if self.headers.get("Transfer-Encoding"):
            self.close_connection = True
            raise RequestError(
                HTTPStatus.LENGTH_REQUIRED, "send the body with a Content-Length, not chunked"
            )
        length_text = self.headers.get("Content-Length")
        if length_text is None:
            raise RequestError(HTTPStatus.LENGTH_REQUIRED, "a Content-Length header is required")
        try:
            length = int(length_text)
            if length < 0:
                raise ValueError
        except ValueError:
            self.close_connection = True
            raise _bad(f"Content-Length must be a byte count, got {length_text!r}"[:200]) from None
        if length > MAX_BODY_BYTES:
            self.close_connection = True  # the body is never read
            raise RequestError(
                HTTPStatus.REQUEST_ENTITY_TOO_LARGE,
                f"the body is {length} bytes; allowed: up to {MAX_BODY_BYTES} bytes "
                f"({MAX_BODY_BYTES // 2**20} MiB)",
            )
        try:
            raw = self.rfile.read(length)
        except TimeoutError:
            self.close_connection = True
            raise self._late() from None
        except ConnectionError as err:
            raise _ClientGone from err
        if len(raw) < length:
            self.close_connection = True
            raise _bad(f"the body ended after {len(raw)} of its {length} bytes (Content-Length)")
        if kind != "application/json":
            raise RequestError(
                HTTPStatus.UNSUPPORTED_MEDIA_TYPE,
                f"Content-Type {kind or 'none'!r} refused; allowed: application/json",
            )
        if not raw:
            return {}
        try:
            return parse_json(raw)
        except ValueError as err:
            message = str(err).replace("a game record", "the request body")
            raise _bad(message[:300]) from None

    def _route(self, method: str) -> None:
        url = urlsplit(self.path)
        parts = [p for p in url.path.split("/") if p]
        app = self.app
        self._check_host()
        allowed = _methods(parts)
        if not allowed:
            raise RequestError(
                HTTPStatus.NOT_FOUND,
                f"no such address {url.path[:200]!r}; the API is under /api (docs/serve.md)",
            )
        if method not in allowed:
            methods = ", ".join(allowed)
            raise RequestError(
                HTTPStatus.METHOD_NOT_ALLOWED,
                f"{method[:20]} is not allowed on {url.path[:200]}; allowed: {methods}",
                {"Allow": methods},
            )
        body = self._body() if method == "POST" else None
        if self.refusing:
            self.close_connection = True
            raise RequestError(
                HTTPStatus.SERVICE_UNAVAILABLE,
                f"the server is busy: its {app.request_threads} request threads are serving and "
                f"{app.request_queue} connections wait for them; allowed: the same request "
                "again in a moment",
                {"Retry-After": "1"},
            )
        if method == "GET" and parts == []:
            html = app.page().encode("utf-8")
            self._send(HTTPStatus.OK, html, "text/html; charset=utf-8")
            return
        if method == "GET" and parts == ["favicon.ico"]:  # asked by every page: none
            self.send_response(HTTPStatus.NO_CONTENT)
            self.send_header("Content-Length", "0")
            self._write(b"")
            return
        if method == "GET" and parts == ["api", "catalog"]:
            self._json(HTTPStatus.OK, app.catalog())
            return
        if method == "GET" and parts[0] == "replays":
            page = app.replay_page(parts[1]).encode("utf-8")
            self._send(HTTPStatus.OK, page, "text/html; charset=utf-8")
            return
        if method == "GET" and parts[0] == "rules":
            page = app.rules(parts[1]).encode("utf-8")
            self._send(HTTPStatus.OK, page, "text/html; charset=utf-8")
            return
        if parts == ["api", "games"]:
            session = app.create(body)
            with session.cond:
                self._json(HTTPStatus.CREATED, session.view())
            return
        if parts == ["api", "resume"]:
            session = app.resume(body)
            with session.cond:
                self._json(HTTPStatus.CREATED, session.view())
            return
        session = app.session(parts[2])
        action = parts[3] if len(parts) == 4 else None
        if action is None and method == "GET":
            self._json(HTTPStatus.OK, app.wait_view(session, parse_qs(url.query)))
            return
        if action is None:  # DELETE
            app.drop(session.id)
            self._json(HTTPStatus.OK, {"dropped": session.id})
            return
        if action == "save":
            _fields(body, ())
            self._json(HTTPStatus.OK, app.save(session))
            return
        if action == "move":
            app.move(session, body)
        else:
            _fields(body, ())
            app.undo(session)
        with session.cond:
            self._json(HTTPStatus.OK, session.view())

    def _handle(self, method: str) -> None:
        try:
            try:
                self._route(method)
            except RequestError as err:
                self._error(err)
        except _ClientGone:
            self.close_connection = True
        except Exception as err:  # a bug: answer it, keep serving
            self.close_connection = True
            self._json(
                HTTPStatus.INTERNAL_SERVER_ERROR,
                {"error": f"internal error: {type(err).__name__}: {err}"[:500]},
            )

    def do_GET(self) -> None:
        self._handle("GET")

    def do_POST(self) -> None:
        self._handle("POST")

    def do_DELETE(self) -> None:
        self._handle("DELETE")


class _Refuser(_Handler):
    """A connection that came while every request thread was busy: its request is read (in
    `REFUSE_TIMEOUT_S`) and answered 503 (or its own refusal), and the connection closed."""

    refusing = True


__all__ = [
    "DEFAULT_IDLE_MINUTES",
    "DEFAULT_MAX_GAMES",
    "DEFAULT_REQUEST_QUEUE",
    "DEFAULT_REQUEST_THREADS",
    "DEFAULT_REQUEST_TIMEOUT_S",
    "DEFAULT_SAVE_DIR",
    "DEFAULT_WORKERS",
    "LISTEN_BACKLOG",
    "MAX_BODY_BYTES",
    "MAX_WAIT_S",
    "REFUSE_THREADS",
    "REFUSE_TIMEOUT_S",
    "PlayServer",
    "RequestError",
    "option_docs",
    "option_set_words",
]
