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
decision's legal actions in the game's words (``viewer.action_words``: what each does, its
cost and its effect; the engine's name rides along for tools), the game's board targets
(``viewer.board_targets``), the scores, the agents' moves (with their most likely moves and,
where the agent source can tell, their value estimate: `win_chance`) and the end in words
(`end_words`): never a state dict, and never a seed whose game hides information
(``Drawing.seed_shown``).
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

    def default_agent(self, game: str) -> str:
        """The spec the page proposes for the seats of ``game`` that are not a person's."""


def _optional(source: Any, name: str) -> Callable[..., Any] | None:
    """A method an `AgentSource` may leave out (``estimate``): the source's, or None."""
    method = getattr(source, name, None)
    return method if callable(method) else None


def win_chance(value: float) -> float:
    """The chance of finishing ahead of an opponent that a value estimate ``value`` means.

    A value head (and a search's values) estimates the seat's rank reward, +1 first to -1
    last, linear in the rank, ties averaged: with ``n`` players that is ``(behind - ahead) /
    (n - 1)`` over the other players, so ``(value + 1) / 2`` is the share of the opponents it
    expects to finish ahead of, a tie counting half; with two players, its chance of winning.
    Clipped to [0, 1]: a network trained with the shaped reward (``--shaping``) also counts
    the score margin still to be gained, which can take its value past +-1.

    Example:
        >>> win_chance(0.5), win_chance(-1.4)
        (0.75, 0.0)
    """
    return min(1.0, max(0.0, (float(value) + 1.0) / 2.0))


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
    """One move of the game as the page lists it: its engine name (``name``, for tools) and
    its words (``words``, for people); an agent's most likely moves (``top``, ``kind``) and
    its value estimate of the position it moved in (``value``, `win_chance`), when it has
    them."""

    step: int
    seat: int
    by: str
    action: int
    name: str
    human: bool
    words: str = ""
    top: list[dict[str, Any]] = field(default_factory=list)
    kind: str = ""
    value: float | None = None

    def to_dict(self) -> dict[str, Any]:
        return {
            "step": self.step,
            "seat": self.seat,
            "by": self.by,
            "action": self.action,
            "name": self.name,
            "words": self.words,
            "human": self.human,
            "top": self.top,
            "kind": self.kind,
            "value": self.value,
            "chance": None if self.value is None else win_chance(self.value),
        }


def top_actions(
    agent: Any, names: Callable[[int], str], words: Callable[[int], str] | None = None
) -> tuple[list[dict[str, Any]], str]:
    """The agent's most likely actions of its last move, ``[{"action", "name", "words",
    "share", "visits"?}]`` best first (``words``: each in the game's words, ``names`` when
    not given), and what the shares are (``visits``: an MCTS's root visits, ``probability``: a
    policy's); empty for an agent that says nothing or something malformed (the page shows
    what it can, and the game goes on)."""
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
    say = words or names
    for action, share in pairs[:TOP_ACTIONS]:
        try:
            name, said = names(action), say(action)
        except ValueError:  # an id outside the action space: malformed
            return [], ""
        entry: dict[str, Any] = {"action": action, "name": name, "words": said, "share": share}
        if action in visits:
            entry["visits"] = visits[action]
        out.append(entry)
    return out, "visits" if visits else "probability"


def seat_words(seat: int, names: Sequence[str]) -> str:
    """``player 1 (ppo-caylus)``: a seat as the page names it."""
    return f"player {seat} ({names[seat]})"


def decision_words(top: Mapping[str, Any], names: Sequence[str], drawing: Any) -> tuple[str, str]:
    """``(what the pending decision ``top`` asks and of whom, what it is about)`` in words:
    the engine's line for its kind (``Drawing.decision_docs``) and its context values."""
    kind = top["kind"]
    doc = drawing.decision_docs.get(kind, kind.replace("_", " "))
    title = f"{doc[:1].upper()}{doc[1:]}, for {seat_words(top['player'], names)}"
    context = " · ".join(
        f"{key.replace('_', ' ')}: {drawing.argument(value)}"
        for key, value in top.items()
        if key not in ("kind", "player")
    )
    return title, context


def end_words(game: Any, names: Sequence[str], spec: GameSpec) -> tuple[str, str]:
    """``(how the game ended, each seat's result)`` in words: ``Game over: player 1
    (ppo-caylus) wins with 62 prestige``, a tie for first said as one (the game's rules
    decide ties: a tie-break, or a shared win), a game cut off by its decision cap said so.

    Example:
        >>> from caylus_env.core.registry import game_spec
        >>> spec = game_spec("caylus")
        >>> g = spec.new_game(spec.config(2), seed=1)
        >>> end_words(g, ("human", "random"), spec)[0]  # not over: ranks as they stand
        'Game over: player 0 (human) and player 1 (random) tie for first with 0 prestige'
    """
    scores = [int(x) for x in game.scores()]
    ranks = [float(r) for r in game.ranks()]
    unit = spec.score_word
    by_rank = sorted(range(len(names)), key=lambda q: (ranks[q], q))
    results = " · ".join(f"{seat_words(q, names)}: {scores[q]} {unit}" for q in by_rank)
    if game.is_truncated():
        return (
            "Game stopped: the decision cap was reached before the end, so nobody wins",
            results,
        )
    first = min(ranks)
    winners = [q for q in by_rank if ranks[q] == first]
    best = scores[winners[0]]
    if len(winners) > 1:
        who = " and ".join(seat_words(q, names) for q in winners)
        return f"Game over: {who} tie for first with {best} {unit}", results
    title = f"Game over: {seat_words(winners[0], names)} wins with {best} {unit}"
    if scores.count(best) > 1:  # the same score: the rules' tie-break decided
        title += " (on the tie-break)"
    return title, results


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
        self._words = spec.module("viewer").action_words
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
        replayed = []
        for step, action in enumerate(actions):
            d, seat = game.state_dict(), game.current_player()
            drawing.moved(d, seat, action)
            if resumed:
                name = self.engine.action_to_string(action)
                replayed.append(
                    Move(step, seat, "record", action, name, False, self._words(d, action))
                )
            game.apply(action)
        self.game = game
        self.drawing = drawing
        self.generation += 1
        self.thinking = False
        self.error = None
        if resumed:
            self.moves = replayed
        else:
            self.moves = [m for m in self.moves if m.step < len(actions)]
            self.agents = self._make_agents()
        self._changed()

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
        self.moves.append(Move(step, seat, HUMAN, action, name, True, self._words(d, action)))
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
            value = None
            try:
                action = agent.act(view)
                problem = None
                if isinstance(action, bool) or not isinstance(action, int) or action not in legal:
                    problem = f"chose an illegal action {action!r}"
                else:
                    value = self._estimate(agent, view, p)
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
                d = self.game.state_dict()
                top, kind = top_actions(
                    agent, self.engine.action_to_string, lambda a, d=d: self._words(d, a)
                )
                self.drawing.moved(d, p, action)
                step = len(self.game.history)
                self.game.apply(action)
                name = self.engine.action_to_string(action)
                said = self._words(d, action)
                move = Move(step, p, self.seats[p], action, name, False, said, top, kind, value)
                self.moves.append(move)
                self._changed()

    def _estimate(self, agent: Any, game: Any, seat: int) -> float | None:
        """The agent's value estimate of ``game`` (the position it just moved in) for
        ``seat``, from the agent source's ``estimate`` (`win_chance` says what it means), or
        None: a source without one, an agent that has none, or one that is not a finite
        number (a value is shown, never needed)."""
        estimate = _optional(self._source, "estimate")
        if estimate is None:
            return None
        try:
            value = estimate(agent, game, seat)
            value = None if value is None else float(value)
        except Exception:  # an estimate that fails leaves the move without one
            return None
        return value if value is not None and math.isfinite(value) else None

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
            title, context = end_words(game, self.names, spec)
        elif d["pending"]:
            title, context = decision_words(d["pending"][-1], self.names, drawing)
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
                    {
                        "action": a,
                        "name": self.engine.action_to_string(a),
                        "words": self._words(d, a),
                        "target": targets.get(a),
                    }
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
            "end_words": title if over else None,
            "thinking": self.thinking,
            "error": self.error,
            "can_undo": any(m.human for m in self.moves),
            "footnote": drawing.footnote,
        }
        self._view = (self.version, view)
        return view


__all__ = [
    "HUMAN",
    "TOP_ACTIONS",
    "AgentSource",
    "Move",
    "Session",
    "Workers",
    "decision_words",
    "end_words",
    "seat_words",
    "top_actions",
    "win_chance",
]
