"""The Puerto Rico replay page: one self-contained HTML file that steps through a recorded game.

``replay_page_html(record)`` replays the record with the engine (checking it in full first,
``caylus_env.puerto_rico.engine.replay``), reads the readable state dict at every decision and
at the end, and draws each position with ``caylus_env.puerto_rico.viewer.position``. Nothing
about the rules is computed in the browser: the page holds the drawings, the legal actions of
each decision by name, the action taken and the decision asked, and its JavaScript only picks
which drawing to show (the same scheme as Caylus's page, ``caylus_env.caylus.viewer.page``).

Size: every slot is drawn in its own coordinates, so a drawing is stored once however many
slots and steps show it, and each step stores only the slots that differ from the step before;
a 5-player expansion game stays well under a megabyte.

Hidden information (docs/rules/puerto_rico.md 6.8): the order of the face-down plantations is
never written: the drawing shows how many are left, the page holds no state dict, and its
title leaves out the seed (the seed fixes the order, 1.4).

The HTML around it is the template file ``template.html`` of this package
(``string.Template``), with its style and script; the page loads nothing from the network.
"""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence
from html import escape
from importlib import resources
from pathlib import Path
from string import Template
from typing import Any

# The page format's building blocks are Caylus's: one table of distinct values, the changes of
# a step, JSON safe inside a <script> element.
from caylus_env.caylus.viewer.page import DistinctValues, changed_slots, script_json
from caylus_env.core.fileio import atomic_write_bytes
from caylus_env.puerto_rico.engine import Game, GameConfig, GameRecord, replay
from caylus_env.puerto_rico.engine.actions import ACTION_NAMES, string_to_action
from caylus_env.puerto_rico.engine.constants import PHASE_NAMES, ROLE_NAMES
from caylus_env.puerto_rico.engine.decisions import CODEC_NONE, ENTRY_OF_NAME
from caylus_env.puerto_rico.engine.game import FORFEIT
from caylus_env.puerto_rico.viewer import position, timeline
from caylus_env.puerto_rico.viewer.theme import BUILDING_LABELS, FONT

TEMPLATE = "template.html"
PAGE_FORMAT = "puerto-rico-viewer/1"
"""Version of the data the page's script reads; bump it when its shape changes."""
ROLE_ACTIONS = {string_to_action(f"role:{name}"): name for name in ROLE_NAMES}
"""The role card each ``role:*`` action picks (rules 3.1)."""


def _as_record(record: GameRecord | Mapping[str, Any]) -> GameRecord:
    if isinstance(record, GameRecord):
        return record
    if isinstance(record, Mapping):
        return GameRecord.from_dict(dict(record))
    raise ValueError(
        f"record must be a Puerto Rico GameRecord or its dict, got {type(record).__name__}"
    )


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
    if spec.arg.codec != CODEC_NONE:
        context.append(f"{spec.arg.name.replace('_', ' ')}: {_argument(top[spec.arg.name])}")
    return f"{top['kind']} for {_who(top['player'], names)}", " · ".join(context)


def _end_text(record: GameRecord, names: Sequence[str]) -> tuple[str, str]:
    """``(how the game ended, final VP and ranks)`` for the last step."""
    final = record.final
    if final is None:
        return "Record ends here (no final result)", "the game was not finished"
    results = " · ".join(
        f"player {p} ({names[p]}): {final['scores'][p]} VP, rank {final['ranks'][p]:g}"
        for p in range(len(names))
    )
    if final["end"] == FORFEIT:
        loser = record.loser
        reason = record.match["forfeits"][loser] if record.match and loser is not None else "?"
        return f"Forfeit: {_who(loser, names)} forfeited ({reason})", results
    if final["end"] == "truncated":
        return "Truncated: the decision cap was reached (rules 6.9)", results
    return "Game over: final scoring done", results


def _title(record: GameRecord, names: Sequence[str]) -> str:
    n = len(names)
    label = f"game {record.match['game_id']}" if record.match is not None else "Puerto Rico game"
    kind = ", expansion" if record.options.get("expansion") else ""
    start = "" if record.seed is not None else ", loaded position"
    return f"{label}: {' vs '.join(names)} ({n} players{kind}{start})"


def _seat_names(record: GameRecord, names: Sequence[str] | None) -> tuple[str, ...]:
    """The name of each seat: ``names`` if given, else the record's match section, else
    ``seat N``."""
    if names is None and record.match is not None:
        names = record.match["agents"]
    n = int(record.options["num_players"])
    return position.seat_names(n, None if names is None else tuple(names))


def _step_text(
    game: Game, d: dict[str, Any], record: GameRecord, names: Sequence[str], last: bool
) -> tuple[str, str]:
    """The decision panel's two lines at one step: the decision asked and what it is about;
    at the end, how the game ended and the results (with the unanswered decision of a
    forfeit or a truncation)."""
    if not last:
        return _decision_text(d, names)
    title, context = _end_text(record, names)
    if d["pending"]:
        asked, about = _decision_text(d, names)
        context = f"{context} · {asked}: {about}"
    return title, context


def page_data(
    record: GameRecord | Mapping[str, Any], names: Sequence[str] | None = None
) -> dict[str, Any]:
    """What the page's script reads: the slot drawings, the steps and their decisions, and
    (for the chart, drawn in Python) every seat's VP at every step.

    ``names`` names the seats (one per seat) of a record without a match section, such as
    ``Game.record()`` of a game played outside a tournament.

    Raises:
        ValueError: if the record does not replay exactly (``replay``), or ``names`` does not
            name one seat each; before anything is drawn.
    """
    record = _as_record(record)
    seats = _seat_names(record, names)
    replay(record)  # the whole record is checked before anything is drawn
    game = _start(record)
    n, expansion = len(seats), bool(record.options["expansion"])
    slots = position.slot_names(n, expansion)
    static = position.background(seats, expansion)
    pieces = DistinctValues("")
    texts = DistinctValues()
    sets = DistinctValues()
    frames: list[list[int]] = []
    previous: list[int] | None = None
    columns: dict[str, list[Any]] = {
        k: [] for k in ("round", "phase", "decision", "context", "legal", "action", "actor")
    }
    scores: list[list[int]] = []
    takers: dict[str, int] = {}
    actions = list(record.actions)
    for step in range(len(actions) + 1):
        d = game.state_dict()
        takers = {r: s for r, s in takers.items() if d["roles"][r]["picked"]}
        score = game.scores().tolist()
        ids = [pieces.id(p) for p in position.draw_slots(d, seats, score, takers, static)]
        frames.append(ids if previous is None else changed_slots(previous, ids))
        previous = ids
        last = step == len(actions)
        title, context = _step_text(game, d, record, seats, last)
        columns["round"].append(d["round"])
        columns["phase"].append(PHASE_NAMES.index(d["phase"]))
        columns["decision"].append(texts.id(title))
        columns["context"].append(texts.id(context))
        legal = game.legal_actions()
        columns["legal"].append(sets.id(legal) if legal and not last else -1)
        columns["action"].append(-1 if last else actions[step])
        actor = game.current_player()
        columns["actor"].append(actor if not last else -1)
        scores.append(score)
        if not last:
            if actions[step] in ROLE_ACTIONS:
                takers[ROLE_ACTIONS[actions[step]]] = actor
            game.apply(actions[step])
    jumps = []
    for step, (rnd, phase) in enumerate(zip(columns["round"], columns["phase"], strict=True)):
        if step == 0 or (rnd, phase) != (columns["round"][step - 1], columns["phase"][step - 1]):
            jumps.append([f"round {rnd} · {PHASE_NAMES[phase].replace('_', ' ')}", step])
    return {
        "format": PAGE_FORMAT,
        "title": _title(record, seats),
        "expansion": expansion,
        "seats": list(seats),
        "slots": list(slots),
        "pieces": pieces.values,
        "frames": frames,
        **columns,
        "texts": texts.values,
        "sets": sets.values,
        "names": list(ACTION_NAMES),
        "jumps": jumps,
        "scores": scores,
    }


def replay_page_html(
    record: GameRecord | Mapping[str, Any], names: Sequence[str] | None = None
) -> str:
    """The self-contained replay page of ``record`` (see the module docstring); ``names`` as
    in `page_data`.

    Raises:
        ValueError: if the record does not replay exactly, or ``names`` is not one per seat.
    """
    data = page_data(record, names)
    n = len(data["seats"])
    expansion = data["expansion"]
    origins = position.slot_origins(n, expansion)
    # Empty slots: the script draws the step of the address (#step=N) as the page opens.
    board = "".join(
        position.slot_group(name, origins[name], id=f"slot-{i}")
        for i, name in enumerate(data["slots"])
    )
    chart = timeline.vp_chart(data["scores"], data["round"], data["seats"])
    del data["scores"]  # drawn into the chart; the script does not need it
    template = Template(resources.files(__package__).joinpath(TEMPLATE).read_text("utf-8"))
    return template.substitute(
        title=escape(data["title"], quote=True),
        board=(
            f'<svg id="board" viewBox="0 0 {position.WIDTH} {position.height(expansion)}" '
            f'font-family="{FONT}" role="img" aria-label="the board">{board}</svg>'
        ),
        chart=chart,
        players=n,
        data=script_json(data),
    )


def write_replay_page(
    record: GameRecord | Mapping[str, Any],
    path: str | os.PathLike[str],
    names: Sequence[str] | None = None,
) -> Path:
    """Write the replay page of ``record`` to ``path`` atomically; returns the path.

    Raises:
        ValueError: if the record does not replay exactly (nothing is written then).
    """
    data = replay_page_html(record, names).encode("utf-8")
    atomic_write_bytes(path, data)
    return Path(path)


__all__ = ["PAGE_FORMAT", "page_data", "replay_page_html", "write_replay_page"]
