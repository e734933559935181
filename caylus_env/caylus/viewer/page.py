"""The replay page: one self-contained HTML file that steps through a recorded game.

``replay_html(record)`` replays the record with the engine (checking it in full first), reads the
readable state dict (``caylus_env.caylus.engine.state_dict``) at every decision and at the end, and
draws each position with ``caylus_env.caylus.viewer.position``. Nothing about the rules is computed in
the browser: the page holds the drawings, the legal actions of each decision by name, the
action taken and the decision asked, and its JavaScript only picks which drawing to show.

Size: every distinct slot drawing is stored once (a road space with a given building, owner and
worker is drawn the same way at every step that shows it), and each step stores only the slots
that differ from the step before, so a 5-player game stays well under a megabyte.

The HTML around it is the template file ``template.html`` of this package (``string.Template``),
with its style and script; the page loads nothing from the network.
"""

from __future__ import annotations

import json
import os
from collections.abc import Sequence
from html import escape
from importlib import resources
from string import Template
from typing import Any

from caylus_env.caylus.engine import Game, GameConfig, replay
from caylus_env.caylus.engine.actions import NUM_ACTIONS, action_to_string
from caylus_env.caylus.engine.constants import PHASE_NAMES
from caylus_env.caylus.engine.decisions import ENTRY_OF_NAME
from caylus_env.core.record import GameRecord
from caylus_env.caylus.viewer import position, timeline
from caylus_env.caylus.viewer.theme import BUILDING_LABELS, FONT
from caylus_env.core.fileio import atomic_write_bytes

TEMPLATE = "template.html"
PAGE_FORMAT = "caylus-viewer/1"
"""Version of the data the page's script reads; bump it when its shape changes."""


class DistinctValues:
    """Distinct values, each stored once; ``id`` gives a value's index."""

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


def _start(record: GameRecord) -> Game:
    if record.seed is None:
        return Game.from_state_dict(dict(record.start_state))
    return Game(GameConfig.from_dict(dict(record.options)), record.seed)


def _who(seat: int | None, names: Sequence[str]) -> str:
    return "nobody" if seat is None else f"player {seat} ({names[seat]})"


def _argument(value: Any) -> str:
    if isinstance(value, list):
        return ", ".join(value) or "none"
    return BUILDING_LABELS.get(value, str(value)) if isinstance(value, str) else str(value)


def _decision_text(d: dict[str, Any], names: Sequence[str]) -> tuple[str, str]:
    """``(the decision, what it is about)`` of the position ``d``, for the decision panel."""
    top = d["pending"][-1]
    spec = ENTRY_OF_NAME[top["kind"]]
    context = [spec.doc]
    context += [f"{a.name.replace('_', ' ')}: {_argument(top[a.name])}" for a in spec.args]
    return f"{top['kind']} for {_who(top['player'], names)}", " · ".join(context)


def _end_text(record: GameRecord, names: Sequence[str]) -> tuple[str, str]:
    """``(how the game ended, final prestige and ranks)`` for the last step."""
    final = record.final
    if final is None:
        return "Record ends here (no final result)", "the game was not finished"
    results = " · ".join(
        f"player {p} ({names[p]}): {final.prestige[p]} prestige, rank {final.ranks[p]:g}"
        for p in range(len(names))
    )
    if final.end == "forfeit" and record.match is not None:
        loser = record.match.loser
        reason = record.match.forfeits[loser]
        return f"Forfeit: {_who(loser, names)} forfeited ({reason})", results
    return "Game over: final scoring done", results


def _title(record: GameRecord, names: Sequence[str]) -> str:
    n = len(names)
    where = f"seed {record.seed}" if record.seed is not None else "loaded position"
    label = f"game {record.match.game_id}" if record.match is not None else "Caylus game"
    return f"{label}: {' vs '.join(names)} ({n} players, {where})"


def _seat_names(record: GameRecord, agents: Sequence[str] | None) -> tuple[str, ...]:
    """The agent of each seat: ``agents`` if given, else the record's match section, else
    ``seat N``."""
    if agents is None and record.match is not None:
        agents = record.match.agents
    return position.seat_names(record.num_players, None if agents is None else tuple(agents))


def changed_slots(previous: list[int], ids: list[int]) -> list[int]:
    """``[slot, piece, slot, piece, ...]`` of the slots whose drawing differs from the step
    before (what the page stores for every step after the first)."""
    return [x for i, (a, b) in enumerate(zip(previous, ids, strict=True)) if a != b for x in (i, b)]


def _step_text(
    game: Game, d: dict[str, Any], record: GameRecord, names: Sequence[str], last: bool
) -> tuple[str, str]:
    """The decision panel's two lines at one step: the decision asked and what it is about;
    at the end, how the game ended and the results (with the unanswered decision of a
    forfeit)."""
    if not (game.is_terminal() or last):
        return _decision_text(d, names)
    title, context = _end_text(record, names)
    if not game.is_terminal():
        asked, about = _decision_text(d, names)
        context = f"{context} · {asked}: {about}"
    return title, context


def page_data(record: GameRecord, agents: Sequence[str] | None = None) -> dict[str, Any]:
    """What the page's script reads: the slot drawings, the steps and their decisions.

    ``agents`` names the seats (one agent spec per seat) of a record without a match section,
    such as ``Game.record()`` of a game played outside a tournament.

    Raises:
        ValueError: if the record does not replay exactly (``caylus_env.caylus.engine.replay``), or
            ``agents`` does not name one agent per seat; before anything is drawn.
    """
    names = _seat_names(record, agents)
    replay(record)  # the whole record is checked before anything is drawn
    game = _start(record)
    slots = position.slot_names(len(names))
    static = position.background(names)
    pieces = DistinctValues("")
    texts = DistinctValues()
    sets = DistinctValues()
    frames: list[list[int]] = []
    previous: list[int] | None = None
    columns: dict[str, list[Any]] = {
        k: [] for k in ("turn", "phase", "decision", "context", "legal", "action", "actor")
    }
    prestige: list[list[int]] = []
    actions = list(record.actions)
    for step in range(len(actions) + 1):
        d = game.state_dict()
        ids = [pieces.id(p) for p in position.draw_slots(d, names, static)]
        frames.append(ids if previous is None else changed_slots(previous, ids))
        previous = ids
        last = step == len(actions)
        title, context = _step_text(game, d, record, names, last)
        columns["turn"].append(d["turn"])
        columns["phase"].append(PHASE_NAMES.index(d["phase"]))
        columns["decision"].append(texts.id(title))
        columns["context"].append(texts.id(context))
        legal = game.legal_actions()
        columns["legal"].append(sets.id(legal) if legal else -1)
        columns["action"].append(-1 if last else actions[step])
        columns["actor"].append(game.current_player() if not game.is_terminal() else -1)
        prestige.append([p["prestige"] for p in d["players"]])
        if not last:
            game.apply(actions[step])
    jumps = []
    for step, (turn, phase) in enumerate(zip(columns["turn"], columns["phase"], strict=True)):
        if step == 0 or (turn, phase) != (columns["turn"][step - 1], columns["phase"][step - 1]):
            jumps.append([f"turn {turn} · {PHASE_NAMES[phase].replace('_', ' ')}", step])
    return {
        "format": PAGE_FORMAT,
        "title": _title(record, names),
        "seats": list(names),
        "slots": list(slots),
        "pieces": pieces.values,
        "frames": frames,
        **columns,
        "texts": texts.values,
        "sets": sets.values,
        "names": [action_to_string(a) for a in range(NUM_ACTIONS)],
        "jumps": jumps,
        "prestige": prestige,
    }


def script_json(data: Any) -> str:
    """JSON that can sit inside a ``<script>`` element: no ``</`` and no ``<!--`` in it."""
    text = json.dumps(data, separators=(",", ":"), ensure_ascii=False, allow_nan=False)
    return text.replace("</", "<\\/").replace("<!--", "<\\u0021--")


def replay_html(record: GameRecord, agents: Sequence[str] | None = None) -> str:
    """The self-contained replay page of ``record`` (see the module docstring); ``agents`` as
    in `page_data`.

    Raises:
        ValueError: if the record does not replay exactly.
    """
    data = page_data(record, agents)
    n = len(data["seats"])
    # Empty slots: the script draws the step of the address (#step=N) as the page opens.
    board = "".join(f'<g id="slot-{i}"></g>' for i in range(len(data["slots"])))
    chart = timeline.prestige_chart(data["prestige"], data["turn"], data["seats"])
    del data["prestige"]  # drawn into the chart; the script does not need it
    template = Template(resources.files(__package__).joinpath(TEMPLATE).read_text("utf-8"))
    return template.substitute(
        title=escape(data["title"], quote=True),
        board=(
            f'<svg id="board" viewBox="0 0 {position.WIDTH} {position.HEIGHT}" '
            f'font-family="{FONT}" role="img" aria-label="the board">{board}</svg>'
        ),
        chart=chart,
        players=n,
        data=script_json(data),
    )


def write_replay_html(
    record: GameRecord, path: str | os.PathLike[str], agents: Sequence[str] | None = None
) -> int:
    """Write the replay page of ``record`` to ``path`` atomically; returns its size in bytes.

    Raises:
        ValueError: if the record does not replay exactly (nothing is written then).
    """
    data = replay_html(record, agents).encode("utf-8")
    atomic_write_bytes(path, data)
    return len(data)
