"""The replay page of a game of any registered game: one self-contained HTML file.

`replay_page_html` checks the record in full with the one verifier
(`caylus_env.core.record.replay`), replays it with its game's engine, and asks the game's
drawing (its ``viewer.Drawing``, a subclass of `Drawing`) for the picture of every position,
cut into *slots*. Everything else is shared by every game: the page data below, the decision
panel's words, the score chart (`caylus_env.core.viewer.chart`), the HTML shell and its
navigation script (the template file ``template.html`` of this package, a ``string.Template``).
Nothing about the rules is computed in the browser: the page holds the drawings, the legal
actions of each decision by name, the action taken and the decision asked, and its script only
picks which drawing to show. The page loads nothing from the network.

Size: every distinct slot drawing is stored once (a road space with a given building, owner and
worker, a cargo ship with a given load, is drawn the same at every step that shows it), and each
step stores only the slots that differ from the step before, so a 5-player game's page stays
well under a megabyte.

Hidden information: the page holds no state dict, only the game's drawings (which leave out
what the players cannot see, e.g. Puerto Rico's face-down plantation order,
docs/rules/puerto_rico.md 6.8), and a game whose setup seed fixes hidden information keeps its
seed out of the title (`Drawing.seed_shown`).
"""

from __future__ import annotations

import json
import os
from collections.abc import Mapping, Sequence
from html import escape
from importlib import resources
from pathlib import Path
from string import Template
from typing import Any, ClassVar

import numpy as np

from caylus_env.core.contract import GameSpec
from caylus_env.core.fileio import atomic_write_bytes
from caylus_env.core.record import GameRecord, replay
from caylus_env.core.registry import game_spec
from caylus_env.core.viewer import svg
from caylus_env.core.viewer.chart import LEGEND_STEP, score_chart
from caylus_env.core.viewer.theme import FONT

TEMPLATE = "template.html"
PAGE_FORMAT = "game-viewer/1"
"""Version of the data the page's script reads; bump it when its shape changes."""


class DistinctValues:
    """Distinct values, each stored once; ``id`` gives a value's index.

    Example:
        >>> names = DistinctValues("")
        >>> names.id("pass"), names.id([1, 2]), names.id("pass"), names.values
        (1, 2, 1, ['', 'pass', [1, 2]])
    """

    def __init__(self, first: Any = None) -> None:
        self.values: list[Any] = []
        self._index: dict[Any, int] = {}
        if first is not None:
            self.id(first)

    def id(self, value: Any) -> int:
        key = tuple(value) if isinstance(value, list) else value
        found = self._index.get(key)
        if found is None:
            found = self._index[key] = len(self.values)
            self.values.append(value)
        return found


def changed_slots(previous: Sequence[int], ids: Sequence[int]) -> list[int]:
    """``[slot, piece, slot, piece, ...]`` of the slots whose drawing differs from the step
    before (what the page stores for every step after the first).

    Example:
        >>> changed_slots([4, 5, 6], [4, 7, 6])
        [1, 7]
    """
    return [x for i, (a, b) in enumerate(zip(previous, ids, strict=True)) if a != b for x in (i, b)]


def script_json(data: Any) -> str:
    """JSON that can sit inside a ``<script>`` element: no ``</`` and no ``<!--`` in it."""
    text = json.dumps(data, separators=(",", ":"), ensure_ascii=False, allow_nan=False)
    return text.replace("</", "<\\/").replace("<!--", "<\\u0021--")


def seat_names(num_players: int, names: Sequence[str] | None = None) -> tuple[str, ...]:
    """What each seat is called on the page: ``names`` (agent specs), else ``seat N``.

    Raises:
        ValueError: if ``names`` does not give one non-empty name per seat.
    """
    if names is None:
        return tuple(f"seat {p}" for p in range(num_players))
    names = tuple(names)
    if len(names) != num_players or not all(isinstance(a, str) and a for a in names):
        raise ValueError(
            f"names gives {len(names)} seats ({', '.join(map(str, names))}); allowed: one "
            f"non-empty name per seat, {num_players}"
        )
    return names


class Drawing:
    """A game's drawing of one of its games, for the replay page and for pictures of positions.

    A game's ``viewer`` module defines ``Drawing`` as a subclass (the game contract,
    ``caylus_env.core.contract``): its constructor lays the picture out for the options and
    seat names (``width``, ``height``, ``slots``), and `draw` draws a position. The page calls
    `draw` at every step, in order, and `moved` with each action before it is applied, so a
    drawing may keep what the state forgets (who picked a role this round).

    Class attributes (each game sets its own):
        page_colour: the page's background around the board.
        header_colour: the page's header bar.
        score_unit: written after a score in the chart's legend (`` VP``; empty: none).
        legend_step: the width of one seat's entry in the chart's legend.
        seed_shown: whether the title may name the setup seed (False when the seed fixes
            information hidden from the players, which the page must not give away).
        footnote: a last sentence for the page's footer (what the page leaves out, and why).
        scores_hidden: whether the game's options hide the scores from the players while it
            runs (Caylus 1303's ``hide_opponent_pp``, its rules' D37): the page then charts no
            score before the last step and ``caylus serve`` sends none until the end. A game
            whose scores can be hidden sets it in its constructor from ``options``.
        decision_docs: one line per decision kind, what it asks (the engine's decision schema).
        labels: the display name of a value a decision is about (a building's name).

    Args:
        options: the game's options (``GameConfig.to_dict()``, ``num_players`` included).
        names: one name per seat (`seat_names`).

    Attributes:
        width, height: the picture's size.
        slots: every slot's name, in drawing order (later on top).
    """

    page_colour: ClassVar[str] = "#e9e4d8"
    header_colour: ClassVar[str] = "#2f2a22"
    score_unit: ClassVar[str] = ""
    legend_step: ClassVar[int] = LEGEND_STEP
    seed_shown: ClassVar[bool] = True
    footnote: ClassVar[str] = ""
    scores_hidden: bool = False
    decision_docs: ClassVar[Mapping[str, str]] = {}
    labels: ClassVar[Mapping[str, str]] = {}

    def __init__(self, options: Mapping[str, Any], names: Sequence[str]) -> None:
        self.options = dict(options)
        self.num_players = int(self.options["num_players"])
        self.names = seat_names(self.num_players, names)
        self.width = 0
        self.height = 0
        self.slots: tuple[str, ...] = ()

    def origin(self, slot: str) -> tuple[int, int]:
        """Where ``slot`` stands: its drawing is in its own coordinates from there (all slots
        of a game drawn in the picture's coordinates stand at 0,0)."""
        return (0, 0)

    def draw(self, d: dict[str, Any], scores: Sequence[int]) -> list[str]:
        """The drawing of every slot of the position ``d`` (a ``state_dict``), in `slots`
        order; ``scores`` are the seats' scores now (``Game.scores()``)."""
        raise NotImplementedError

    def moved(self, d: dict[str, Any], seat: int, action: int) -> None:
        """Told that ``seat`` plays ``action`` in the position ``d`` (just drawn); nothing by
        default."""

    def argument(self, value: Any) -> str:
        """A decision's context value in words (a list, a label, a number)."""
        if isinstance(value, list):
            return ", ".join(map(str, value)) or "none"
        return self.labels.get(value, value) if isinstance(value, str) else str(value)

    def about(self, top: Mapping[str, Any]) -> str:
        """What the pending decision ``top`` (the state dict's ``pending[-1]``) asks: the
        schema's line for its kind, then each context value."""
        words = [self.decision_docs.get(top["kind"], top["kind"].replace("_", " "))]
        words += [
            f"{key.replace('_', ' ')}: {self.argument(value)}"
            for key, value in top.items()
            if key not in ("kind", "player")
        ]
        return " · ".join(words)

    def picture(self, d: dict[str, Any], scores: Sequence[int]) -> str:
        """The whole position ``d`` as one standalone SVG document, one slot a line (so that a
        change in the drawing shows as a readable diff)."""
        body = "\n".join(
            svg.slot_group(slot, self.origin(slot), piece)
            for slot, piece in zip(self.slots, self.draw(d, scores), strict=True)
        )
        return svg.document(self.width, self.height, f"\n{body}\n") + "\n"


def drawing_of(
    game: str, options: Mapping[str, Any], names: Sequence[str] | None = None, **extra: Any
) -> Drawing:
    """The ``Drawing`` of ``game``'s viewer for ``options`` and the seats' ``names``; ``extra``
    goes to its constructor."""
    n = int(options["num_players"])
    return game_spec(game).module("viewer").Drawing(options, seat_names(n, names), **extra)


def position_svg(
    game: str, d: dict[str, Any], names: Sequence[str] | None = None, **extra: Any
) -> str:
    """The position ``d`` (a ``state_dict`` of ``game``) as one standalone SVG picture (each
    game's ``viewer.position_svg`` calls this); ``names`` names the seats, ``extra`` goes to
    the game's ``Drawing``.

    Raises:
        InvalidStateError: (a ``ValueError``) naming the first field of ``d`` that is wrong and
            what is allowed (the engine's validation of state dicts), before anything is drawn.
        ValueError: if ``names`` does not give one name per seat.
    """
    engine = game_spec(game).engine()
    state = engine.dict_to_state(d)  # validates d first
    scores = np.zeros(int(d["options"]["num_players"]), np.int64)
    engine.kernels.scores(state, scores)
    return drawing_of(game, d["options"], names, **extra).picture(d, scores.tolist())


def as_record(record: GameRecord | Mapping[str, Any]) -> GameRecord:
    """``record`` as a `GameRecord` (a dict goes through the one reader).

    Raises:
        ValueError: for anything else, or a dict the reader refuses.
    """
    if isinstance(record, GameRecord):
        return record
    if isinstance(record, Mapping):
        return GameRecord.from_dict(record)
    raise ValueError(f"record must be a GameRecord or its dict, got {type(record).__name__}")


def _who(seat: int | None, names: Sequence[str]) -> str:
    return "nobody" if seat is None else f"player {seat} ({names[seat]})"


def _decision_text(
    top: Mapping[str, Any], names: Sequence[str], drawing: Drawing
) -> tuple[str, str]:
    """``(the decision, what it is about)`` of the pending decision ``top``."""
    return f"{top['kind']} for {_who(top['player'], names)}", drawing.about(top)


def _end_text(record: GameRecord, names: Sequence[str], spec: GameSpec) -> tuple[str, str]:
    """``(how the game ended, final scores and ranks)`` for the last step."""
    final = record.final
    if final is None:
        return "Record ends here (no final result)", "the game was not finished"
    results = " · ".join(
        f"player {p} ({names[p]}): {final.scores[p]} {spec.score_word}, rank {final.ranks[p]:g}"
        for p in range(len(names))
    )
    if final.end == "forfeit":
        loser = record.loser
        return f"Forfeit: {_who(loser, names)} forfeited ({record.match.forfeits[loser]})", results
    if final.end == "truncated":
        return "Truncated: the decision cap was reached", results
    return "Game over: final scoring done", results


def _option_word(key: str, value: Any) -> str:
    """An option that differs from its default, for the title (``expansion``, ``draft=random``)."""
    if isinstance(value, bool):
        return key.replace("_", " ") if value else f"no {key.replace('_', ' ')}"
    return f"{key}={value}"


def _title(record: GameRecord, names: Sequence[str], spec: GameSpec, drawing: Drawing) -> str:
    label = f"game {record.match.game_id}" if record.match is not None else f"{spec.title} game"
    defaults = spec.options()
    words = [f"{len(names)} players"]
    words += [
        _option_word(k, v) for k, v in record.options.items() if k in defaults and v != defaults[k]
    ]
    if record.seed is None:
        words.append("loaded position")
    elif drawing.seed_shown:
        words.append(f"seed {record.seed}")
    return f"{label}: {' vs '.join(names)} ({', '.join(words)})"


def _start(record: GameRecord, engine: Any) -> Any:
    if record.seed is None:
        return engine.Game.from_state_dict(dict(record.start_state))
    return engine.Game(engine.GameConfig.from_dict(dict(record.options)), record.seed)


def _build(
    record: GameRecord | Mapping[str, Any], names: Sequence[str] | None
) -> tuple[dict[str, Any], Drawing, GameSpec]:
    """The page data (with every step's scores), the game's drawing and its spec."""
    rec = as_record(record)
    spec = game_spec(rec.game)
    if names is None and rec.match is not None:
        names = rec.match.agents
    seats = seat_names(rec.num_players, names)
    replay(rec)  # the whole record is checked before anything is drawn
    engine = spec.engine()
    game = _start(rec, engine)
    drawing = spec.module("viewer").Drawing(dict(rec.options), seats)
    phases = list(type(game).PHASE_NAMES)
    pieces = DistinctValues("")
    texts = DistinctValues()
    sets = DistinctValues()
    frames: list[list[int]] = []
    previous: list[int] | None = None
    columns: dict[str, list[Any]] = {
        k: [] for k in ("round", "phase", "decision", "context", "legal", "action", "actor")
    }
    scores: list[list[int]] = []
    actions = list(rec.actions)
    for step in range(len(actions) + 1):
        d = game.state_dict()
        score = game.scores().tolist()
        ids = [pieces.id(p) for p in drawing.draw(d, score)]
        frames.append(ids if previous is None else changed_slots(previous, ids))
        previous = ids
        last = step == len(actions)
        asked = d["pending"][-1] if d["pending"] and not game.is_terminal() else None
        if not last:
            title, context = _decision_text(asked, seats, drawing)
        else:  # how it ended, with the decision a forfeit or a truncation left unanswered
            title, context = _end_text(rec, seats, spec)
            if asked is not None:
                question, about = _decision_text(asked, seats, drawing)
                context = f"{context} · {question}: {about}"
        columns["round"].append(game.round)
        columns["phase"].append(phases.index(game.phase))
        columns["decision"].append(texts.id(title))
        columns["context"].append(texts.id(context))
        legal = game.legal_actions()
        columns["legal"].append(sets.id(legal) if legal else -1)
        columns["action"].append(-1 if last else actions[step])
        actor = game.current_player()
        columns["actor"].append(actor)
        scores.append(score)
        if not last:
            drawing.moved(d, actor, actions[step])
            game.apply(actions[step])
    jumps = []
    marks = list(zip(columns["round"], columns["phase"], strict=True))
    for step, (clock, phase) in enumerate(marks):
        if step == 0 or marks[step] != marks[step - 1]:
            jumps.append([f"{spec.clock_word} {clock} · {phases[phase].replace('_', ' ')}", step])
    data = {
        "format": PAGE_FORMAT,
        "game": spec.name,
        "title": _title(rec, seats, spec, drawing),
        "seats": list(seats),
        "slots": list(drawing.slots),
        "pieces": pieces.values,
        "frames": frames,
        **columns,
        "texts": texts.values,
        "sets": sets.values,
        "names": list(engine.ACTION_NAMES),
        "jumps": jumps,
        "scores": scores,
    }
    return data, drawing, spec


def page_data(
    record: GameRecord | Mapping[str, Any], names: Sequence[str] | None = None
) -> dict[str, Any]:
    """What the page's script reads: the slot drawings, the steps and their decisions, and
    (for the chart, drawn in Python) every seat's score at every step.

    ``names`` names the seats (one per seat) of a record without a match section, such as
    ``Game.record()`` of a game played outside a tournament; a record's match section names
    them otherwise, else they are ``seat N``.

    Raises:
        ValueError: if the record does not replay exactly (`caylus_env.core.record.replay`),
            is not a record, or ``names`` does not name one seat each; before anything is
            drawn.
    """
    return _build(record, names)[0]


def replay_page_html(
    record: GameRecord | Mapping[str, Any], names: Sequence[str] | None = None
) -> str:
    """The self-contained replay page of ``record`` (see the module docstring); ``names`` as
    in `page_data`.

    Raises:
        ValueError: as `page_data`.
    """
    data, drawing, spec = _build(record, names)
    # Empty slots: the script draws the step of the address (#step=N) as the page opens.
    board = "".join(
        svg.slot_group(name, drawing.origin(name), id=f"slot-{i}")
        for i, name in enumerate(data["slots"])
    )
    scores = data.pop("scores")  # drawn into the chart; the script does not need them
    if drawing.scores_hidden:  # nothing before the end: the final scores are public
        scores = [[0] * len(scores[-1])] * (len(scores) - 1) + [scores[-1]]
    chart = score_chart(
        scores,
        data["round"],
        data["seats"],
        mark_prefix=spec.clock_word[:1].upper(),
        what=spec.score_word,
        unit=drawing.score_unit,
        legend_step=drawing.legend_step,
    )
    template = Template(resources.files(__package__).joinpath(TEMPLATE).read_text("utf-8"))
    return template.substitute(
        game_title=escape(spec.title, quote=True),
        title=escape(data["title"], quote=True),
        page_colour=drawing.page_colour,
        header_colour=drawing.header_colour,
        clock_word=escape(spec.clock_word),
        score_word=escape(spec.score_word),
        footnote=escape(drawing.footnote),
        board=(
            f'<svg id="board" viewBox="0 0 {drawing.width} {drawing.height}" '
            f'font-family="{FONT}" role="img" aria-label="the board">{board}</svg>'
        ),
        chart=chart,
        players=len(data["seats"]),
        data=script_json(data),
    )


def write_replay_page(
    record: GameRecord | Mapping[str, Any],
    path: str | os.PathLike[str],
    names: Sequence[str] | None = None,
) -> Path:
    """Write the replay page of ``record`` to ``path`` atomically; returns the path.

    Raises:
        ValueError: as `page_data` (nothing is written then).
        OSError: when the file cannot be written (nothing is left behind).
    """
    atomic_write_bytes(path, replay_page_html(record, names).encode("utf-8"))
    return Path(path)


__all__ = [
    "PAGE_FORMAT",
    "DistinctValues",
    "Drawing",
    "as_record",
    "changed_slots",
    "drawing_of",
    "page_data",
    "position_svg",
    "replay_page_html",
    "script_json",
    "seat_names",
    "write_replay_page",
]
