"""One game played in the browser: its seats (people and agents), its moves and what the page
is sent of it.

A `Session` holds one game of any registered game, from a seed or from a verified record. The
people's moves come from HTTP requests; the agents' moves are computed by a worker
(`Workers`, daemon threads) so that the server keeps answering while an agent thinks. Every
change bumps ``version`` and wakes the requests that wait for it (the page's long poll).

Undo goes back to the position of the last decision a person made, by replaying the game from
its start with the moves before it (the game is its seed, or start position, and its actions):
a fresh game, a fresh drawing and fresh agents (reset with their seeds), and a new
``generation`` so that the move an agent may still be computing for the old position is thrown
away when it comes back.

What the page is sent (`Session.view`) is built from the game's own drawing (its
``viewer.Drawing``, the replay page's code: it leaves out what the players cannot see), the
decision's legal actions by name (``action_to_string``), the game's board targets
(``viewer.board_targets``), the scores and the agents' moves: never a state dict, and never a
seed whose game hides information (``Drawing.seed_shown``).
"""

from __future__ import annotations

import math
import queue
import threading
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol

from caylus_env.core.contract import GameSpec
from caylus_env.core.record import GameRecord, MatchInfo
from caylus_env.core.viewer.page import _decision_text, _end_text

#: The seat word for a person.
HUMAN = "human"
#: How many of an agent's most likely actions the page shows.
TOP_ACTIONS = 5


class AgentSource(Protocol):
    """Where a server's agents come from (the command line gives the agent registry's): the
    core knows no agent, only this."""

    def make(self, spec: str, game: str) -> Any:
        """A new agent of ``game`` from ``spec`` (``act``, ``reset``, optionally
        ``action_distribution`` and ``visit_counts``).

        Raises:
            ValueError: naming the bad spec and what is allowed.
        """

    def catalog(self, game: str) -> list[dict[str, Any]]:
        """The agents the page offers for ``game``: ``{"spec", "syntax", "description"}``."""


class Workers:
    """A few daemon threads that run the agents' turns, so that no request waits on one (and
    an agent still thinking never holds the process open at exit)."""

    def __init__(self, count: int) -> None:
        self._jobs: queue.SimpleQueue[Callable[[], None] | None] = queue.SimpleQueue()
        self._threads = [
            threading.Thread(target=self._run, name=f"serve-agent-{k}", daemon=True)
            for k in range(count)
        ]
        for thread in self._threads:
            thread.start()

    def _run(self) -> None:
        while (job := self._jobs.get()) is not None:
            job()

    def submit(self, job: Callable[[], None]) -> None:
        self._jobs.put(job)

    def close(self) -> None:
        """Stop taking jobs (threads finish the job in hand, or die with the process)."""
        for _ in self._threads:
            self._jobs.put(None)


@dataclass
class Move:
    """One move of the game as the page lists it."""

    step: int
    seat: int
    by: str
    action: int
    name: str
    human: bool
    top: list[dict[str, Any]] = field(default_factory=list)
    kind: str = ""

    def to_dict(self) -> dict[str, Any]:
        return {
            "step": self.step,
            "seat": self.seat,
            "by": self.by,
            "action": self.action,
            "name": self.name,
            "human": self.human,
            "top": self.top,
            "kind": self.kind,
        }


def top_actions(agent: Any, names: Callable[[int], str]) -> tuple[list[dict[str, Any]], str]:
    """The agent's most likely actions of its last move, ``[{"action", "name", "share",
    "visits"?}]`` best first, and what the shares are (``visits``: an MCTS's root visits,
    ``probability``: a policy's); empty for an agent that says nothing or something malformed
    (the page shows what it can, and the game goes on)."""
    method = getattr(agent, "action_distribution", None)
    try:
        dist = method() if callable(method) else None
        counts_method = getattr(agent, "visit_counts", None)
        counts = counts_method() if callable(counts_method) else None
    except Exception:
        return [], ""
    if dist is None:
        return [], ""
    try:
        pairs = [(int(a), float(p)) for a, p in zip(dist[0], dist[1], strict=True)]
    except (TypeError, ValueError):
        return [], ""
    if any(not math.isfinite(p) for _, p in pairs):
        return [], ""
    visits: dict[int, int] = {}
    if counts is not None:
        try:
            visits = {int(a): int(c) for a, c in zip(counts[0], counts[1], strict=True)}
        except (TypeError, ValueError):
            visits = {}
    pairs.sort(key=lambda item: (-item[1], item[0]))
    out = []
    for action, share in pairs[:TOP_ACTIONS]:
        entry: dict[str, Any] = {"action": action, "name": names(action), "share": share}
        if action in visits:
            entry["visits"] = visits[action]
        out.append(entry)
    return out, "visits" if visits else "probability"


class Session:
    """One game in the browser (see the module docstring).

    Args:
        sid: its id (the server's choice: a random token).
        spec: the game's spec.
        options: every option, ``num_players`` included (``GameConfig.to_dict()``).
        seed: the setup seed, or None for a game from ``start_state``.
        start_state: the start position of a record without a seed.
        seats: per seat, `HUMAN` or an agent spec.
        agents: where agents come from.
        workers: where agents think.
        actions: moves to replay first (a resumed record's).
        seed_given: whether the person chose the seed (then it is shown, hidden information or
            not: they know it).
    """

    def __init__(
        self,
        sid: str,
        spec: GameSpec,
        options: Mapping[str, Any],
        seed: int | None,
        start_state: Mapping[str, Any] | None,
        seats: Sequence[str],
        agents: AgentSource,
        workers: Workers,
        actions: Sequence[int] = (),
        seed_given: bool = False,
    ) -> None:
        self.id = sid
        self.spec = spec
        self.engine = spec.engine()
        self.options = dict(options)
        self.seed = seed
        self.start_state = None if start_state is None else dict(start_state)
        self.seats = list(seats)
        self.seed_given = seed_given
        self.names = tuple(self.seats)
        self._source = agents
        self._workers = workers
        self.cond = threading.Condition()
        self.version = 0
        self.generation = 0
        self.last_seen = time.monotonic()
        self.closed = False
        self.error: str | None = None
        self.thinking = False
        self._view: tuple[int, dict[str, Any]] | None = None
        self.agents = self._make_agents()  # before the game: a bad spec changes nothing
        self.moves: list[Move] = []
        with self.cond:
            self._rebuild(list(actions), resumed=True)

    # -- building ----------------------------------------------------------------------------
    def _make_agents(self) -> list[Any]:
        out = []
        for seat, spec in enumerate(self.seats):
            if spec == HUMAN:
                out.append(None)
                continue
            agent = self._source.make(spec, self.spec.name)
            agent.reset((self.seed or 0) + seat)
            out.append(agent)
        return out

    def _start(self) -> Any:
        if self.seed is None:
            return self.engine.Game.from_state_dict(dict(self.start_state or {}))
        return self.engine.Game(self.engine.GameConfig.from_dict(self.options), self.seed)

    def _rebuild(self, actions: list[int], resumed: bool = False) -> None:
        """The game replayed from its start through ``actions``, with a fresh drawing (told
        every move, as the replay page tells it) and, after an undo, fresh agents."""
        game = self._start()
        drawing = self.spec.module("viewer").Drawing(game.config.to_dict(), self.names)
        for action in actions:
            drawing.moved(game.state_dict(), game.current_player(), action)
            game.apply(action)
        self.game = game
        self.drawing = drawing
        self.generation += 1
        self.thinking = False
        self.error = None
        if resumed:
            self.moves = [
                Move(step, seat, "record", a, self.engine.action_to_string(a), False)
                for step, (seat, a) in enumerate(self._actors(actions))
            ]
        else:
            self.moves = [m for m in self.moves if m.step < len(actions)]
            self.agents = self._make_agents()
        self._changed()

    def _actors(self, actions: list[int]) -> list[tuple[int, int]]:
        """``(seat, action)`` of each move of ``actions`` from the start."""
        game = self._start()
        out = []
        for action in actions:
            out.append((game.current_player(), action))
            game.apply(action)
        return out

    def _changed(self) -> None:
        self.version += 1
        self._view = None
        self.cond.notify_all()

    # -- moves -------------------------------------------------------------------------------
    def human_to_move(self) -> bool:
        p = self.game.current_player()
        return p >= 0 and self.seats[p] == HUMAN

    def play(self, action: int, seat: int) -> None:
        """A person's move (the caller holds ``cond`` and checked it is legal and theirs)."""
        d = self.game.state_dict()
        self.drawing.moved(d, seat, action)
        step = len(self.game.history)
        self.game.apply(action)
        name = self.engine.action_to_string(action)
        self.moves.append(Move(step, seat, HUMAN, action, name, True))
        self._changed()
        self.kick()

    def undo(self) -> bool:
        """Back to the position of the last decision a person made; False when there is none.
        (The caller holds ``cond``.)"""
        last = next((m for m in reversed(self.moves) if m.human), None)
        if last is None:
            return False
        self._rebuild(list(self.game.history[: last.step]))
        self.kick()
        return True

    def kick(self) -> None:
        """Start the agents' turn in a worker when an agent is to move (the caller holds
        ``cond``)."""
        p = self.game.current_player()
        if self.closed or self.thinking or self.error or p < 0 or self.seats[p] == HUMAN:
            return
        self.thinking = True
        generation = self.generation
        self._workers.submit(lambda: self._agents_turn(generation))
        self._changed()

    def _agents_turn(self, generation: int) -> None:
        """Play the agents' moves until a person is to move or the game ends; a move computed
        for a position that an undo, a drop or a shutdown has replaced is thrown away."""
        while True:
            with self.cond:
                if generation != self.generation or self.closed:
                    return
                p = self.game.current_player()
                if p < 0 or self.seats[p] == HUMAN:
                    self.thinking = False
                    self._changed()
                    return
                agent = self.agents[p]
                view = self.game.clone()  # the agent never sees the game change under it
            legal = view.legal_actions()
            try:
                action = agent.act(view)
                problem = None
                if isinstance(action, bool) or not isinstance(action, int) or action not in legal:
                    problem = f"chose an illegal action {action!r}"
            except Exception as err:  # an agent's crash stops the game, not the server
                problem = f"raised {type(err).__name__}: {err}"
            with self.cond:
                if generation != self.generation or self.closed:
                    return
                if problem is not None:
                    self.error = f"player {p} ({self.seats[p]}) {problem}"
                    self.thinking = False
                    self._changed()
                    return
                top, kind = top_actions(agent, self.engine.action_to_string)
                self.drawing.moved(self.game.state_dict(), p, action)
                step = len(self.game.history)
                self.game.apply(action)
                name = self.engine.action_to_string(action)
                self.moves.append(Move(step, p, self.seats[p], action, name, False, top, kind))
                self._changed()

    def close(self) -> None:
        """Dropped: a move still being computed is thrown away, waiting requests wake up."""
        with self.cond:
            self.closed = True
            self.generation += 1
            self._changed()

    # -- records -----------------------------------------------------------------------------
    def record(self) -> GameRecord:
        """The game so far as the one record (who sat where in its match section)."""
        n = len(self.seats)
        match = MatchInfo(
            game_id=0,
            block=0,
            agents=tuple(self.seats),
            agent_seeds=tuple((self.seed or 0) + s for s in range(n)),
            forfeits=(None,) * n,
        )
        return self.game.record(match=match)

    # -- what the page is sent ---------------------------------------------------------------
    def view(self) -> dict[str, Any]:
        """The page's picture of the game now (the caller holds ``cond``); built once per
        version."""
        if self._view is not None and self._view[0] == self.version:
            return self._view[1]
        game, drawing, spec = self.game, self.drawing, self.spec
        d = game.state_dict()
        scores = game.scores().tolist()
        pieces = drawing.draw(d, scores)
        over = game.is_over()
        p = game.current_player()
        legal = game.legal_actions()
        if over:
            record = game.record()
            title, context = _end_text(record, self.names, spec)
        elif d["pending"]:
            title, context = _decision_text(d["pending"][-1], self.names, drawing)
        else:
            title, context = "", ""
        targets = spec.module("viewer").board_targets(d, legal) if legal else {}
        last_human = max((i for i, m in enumerate(self.moves) if m.human), default=-1)
        shown_seed = self.seed if (drawing.seed_shown or self.seed_given) else None
        view = {
            "id": self.id,
            "version": self.version,
            "game": spec.name,
            "title": spec.title,
            "players": len(self.seats),
            "seats": [{"name": s, "human": s == HUMAN} for s in self.seats],
            "options": {k: v for k, v in self.options.items() if k != "num_players"},
            "seed": shown_seed,
            "clock": f"{spec.clock_word} {game.round}",
            "phase": game.phase.replace("_", " "),
            "step": len(game.history),
            "board": {
                "width": drawing.width,
                "height": drawing.height,
                "colour": drawing.page_colour,
                "header": drawing.header_colour,
                "slots": [
                    {"name": name, "origin": list(drawing.origin(name))} for name in drawing.slots
                ],
                "pieces": pieces,
            },
            "decision": {
                "title": title,
                "context": context,
                "player": p if p >= 0 else None,
                "human": (p >= 0 and self.seats[p] == HUMAN),
                "legal": [
                    {"action": a, "name": self.engine.action_to_string(a), "target": targets.get(a)}
                    for a in legal
                ],
            },
            "recent": [m.to_dict() for m in self.moves[last_human + 1 :]],
            "moves": len(self.moves),
            "last": self.moves[-1].to_dict() if self.moves else None,
            "score_word": spec.score_word,
            # hidden scores (Drawing.scores_hidden) reach the page only once the game is over
            "scores": scores if over or not drawing.scores_hidden else None,
            "ranks": game.ranks().tolist() if over else None,
            "over": over,
            "end": (None if not over else ("terminated" if game.is_terminal() else "truncated")),
            "thinking": self.thinking,
            "error": self.error,
            "can_undo": any(m.human for m in self.moves),
            "footnote": drawing.footnote,
        }
        self._view = (self.version, view)
        return view


__all__ = ["HUMAN", "TOP_ACTIONS", "AgentSource", "Move", "Session", "Workers", "top_actions"]
