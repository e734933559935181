"""``caylus dataset verify``: replay every game of a dataset and check every stored row.

For each shard the files' sizes and SHA-256 are compared with the manifest; then every game is
replayed from its seed and options with the engine, and at each ply the stored seat, state,
legal mask, legal count, decision kind, number of players, acting agent, return and rank must
be the replay's, and the stored action must be legal there. The end must be the stored one
(``caylus_env.core.record.END_REASONS``): a ``terminated`` game ends by its rules after its
actions, a ``truncated`` one is cut off there by its game's decision cap, both with the stored
scores and the game's ranks (``Game.ranks``: by score, then the rules' tie-break); a
``forfeit`` game stops before the end with the position's scores and the forfeiting seat
ranked last (``forfeit_ranks``); returns follow from the ranks. Policy targets must be
distributions over legal actions. A difference is reported by shard, game id and ply, naming
the column (and the state field), so a tampered row is found exactly. Memory is one row group
and one game at a time.

The manifest must agree with its ``run`` (the generator's arguments): the run format that goes
with the manifest's format, the same game, engine, state layout and action space
(`run_problems`); and each file must have the columns of the manifest's format (a
``caylus-dataset/2`` games table's ``scores``, a ``caylus-dataset/1`` one's ``prestige``), so
that an edited ``format`` or ``game`` field is found.

The game is the one asked for (``game=``, a name of ``caylus_env.core.registry``): its engine
replays, its widths read the columns (``caylus_env.datasets.format``), and a dataset of another
game is refused, naming both. A ``caylus-dataset/1`` dataset's ``prestige`` column is read as
``scores``.
"""

from __future__ import annotations

import json
import math
import os
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq

from caylus_env.core.contract import GameSpec
from caylus_env.core.errors import IllegalActionError
from caylus_env.core.ranks import forfeit_ranks
from caylus_env.core.record import END_REASONS
from caylus_env.core.registry import game_of, game_spec
from caylus_env.datasets.format import (
    DECISIONS_DIR,
    GAMES_DIR,
    RUN_FORMATS,
    DatasetError,
    check_versions,
    dataset_schemas,
    field_at,
    file_digest,
    games_rows,
    kind_names,
    kinds_of,
    mask_bytes,
    num_actions,
    read_manifest,
    reading,
    regular_file,
    returns_of,
    state_bytes,
    state_dtype,
    state_size,
)
from caylus_env.datasets.records import new_game, pack_masks, record_of_row

MAX_PROBLEMS = 50
"""Problems listed before verification stops (the first ones locate the damage)."""


@dataclass
class VerifyReport:
    """What `verify_dataset` checked and found.

    Attributes:
        games: Games replayed.
        decisions: Decision rows checked.
        shards: Shards checked.
        problems: One line per problem (shard, game id and ply where there is one).
        max_problems: Problems found before the check stops (`MAX_PROBLEMS`; the export,
            which writes only what checks, stops at the first).
    """

    games: int = 0
    decisions: int = 0
    shards: int = 0
    problems: list[str] = field(default_factory=list)
    max_problems: int = MAX_PROBLEMS

    @property
    def ok(self) -> bool:
        return not self.problems


class _Stop(Exception):
    """Enough problems were found."""


Replay = tuple[np.ndarray, np.ndarray]
"""A game's replay, as `_verify_game` hands it to ``on_checked``: the ``(D, STATE_SIZE)``
states (the engine's dtype) and ``(D, NUM_ACTIONS)`` int8 legal masks of its decisions, equal
to the stored ones."""
CheckedGame = Callable[[Mapping[str, Any], Mapping[str, Any], Replay], None]
"""``on_checked(games row, decision columns, replay)``: called for each game of a shard that
passed every check, in the order checked (``caylus_env.datasets.export`` writes it)."""


def _fixed(column: pa.ChunkedArray | pa.Array, width: int) -> np.ndarray:
    array = column.combine_chunks() if isinstance(column, pa.ChunkedArray) else column
    data = np.frombuffer(array.buffers()[1], np.uint8, count=(array.offset + len(array)) * width)
    return data[array.offset * width :].reshape(len(array), width)


READ_BATCH_ROWS = 4096
"""Decision rows decoded at once (a few megabytes of states): a shard is read batch by batch,
whatever its row groups' size, so memory holds one batch and one game."""


def _game_decisions(path: Path, spec: GameSpec) -> Iterator[tuple[int, dict[str, Any]]]:
    """``(game id, its decision columns)`` per game, in file order, `READ_BATCH_ROWS` rows at
    a time (a game split between batches is carried over whole)."""
    handle = pq.ParquetFile(path)
    carry: pa.Table | None = None
    for batch in handle.iter_batches(batch_size=READ_BATCH_ROWS):
        table = pa.Table.from_batches([batch])
        if carry is not None:
            table = pa.concat_tables([carry, table])
        ids = table["game_id"].to_numpy()
        if len(ids) == 0:
            continue
        cuts = np.flatnonzero(np.diff(ids)) + 1
        starts = np.concatenate([[0], cuts])
        ends = np.concatenate([cuts, [len(ids)]])
        for s, e in zip(starts[:-1], ends[:-1], strict=True):
            yield int(ids[s]), _columns(table.slice(s, e - s), spec)
        carry = table.slice(starts[-1])
    if carry is not None and carry.num_rows:
        yield int(carry["game_id"][0].as_py()), _columns(carry, spec)


def _columns(table: pa.Table, spec: GameSpec) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for name in table.column_names:
        if name == "state":
            out[name] = _fixed(table[name], state_bytes(spec)).copy().view(state_dtype(spec))
        elif name == "legal":
            out[name] = _fixed(table[name], mask_bytes(spec))
        elif name in ("policy_actions", "policy_probs"):
            out[name] = table[name].to_pylist()
        else:
            out[name] = table[name].to_numpy(zero_copy_only=False)
    return out


def verify_dataset(
    root: str | os.PathLike[str],
    *,
    schedule: Callable[[int], Mapping[str, Any] | None] | None = None,
    on_game: Callable[[int], None] | None = None,
    game: str | None = None,
) -> VerifyReport:
    """Check a finished dataset (see the module docstring).

    Args:
        root: The dataset directory.
        game: The game the dataset must hold (``caylus_env.core.registry``); None: the game
            its manifest names.
        schedule: ``game id -> job dict`` of the run's schedule (``GameJob.to_dict()``): the
            seed, block, agents and agent seeds of every game are then checked against it.
            Without it, which agent sat at which seat is not checked: nothing in the files
            ties a game's agents to its seats but the schedule, which the agents' layer
            builds from the manifest's run (``agents.selfplay.generate.verify_generated``,
            what ``caylus dataset verify`` runs, passes it).
        on_game: Called with the number of games checked so far (a progress bar).

    Raises:
        DatasetError: when ``root`` is not a finished dataset of this engine's format, or is
            a dataset of another game (naming both).
    """
    path = Path(root)
    manifest = read_manifest(path)
    game = game_of(manifest) if game is None else game
    check_versions(manifest, game=game)
    spec = game_spec(game)
    report = VerifyReport()
    report.problems += run_problems(manifest)
    if report.problems:
        return report
    try:
        dataset_schemas(manifest, path, game)  # every file a regular Parquet file of its schema
    except DatasetError as err:
        report.problems.append(str(err))
        return report
    try:
        for shard in manifest["shards"]:
            with reading(path):
                _verify_shard(path, shard, report, schedule, on_game, spec, manifest)
            report.shards += 1
    except _Stop:
        report.problems.append(f"stopped after {report.max_problems} problems")
    counts = manifest.get("counts", {})
    if report.ok and (counts.get("games"), counts.get("decisions")) != (
        report.games,
        report.decisions,
    ):
        report.problems.append(
            f"manifest counts {counts.get('games')} games and {counts.get('decisions')} "
            f"decisions; the files hold {report.games} and {report.decisions}"
        )
    return report


RUN_FIELDS = ("engine", "state_version", "action_space_version")
"""The manifest's fields that its run (the generator's ``run.json``) repeats."""


def run_problems(manifest: Mapping[str, Any]) -> list[str]:
    """What in the manifest contradicts its ``run`` (the generator's arguments, written with
    every dataset): the run must be an object of the run format that goes with the manifest's
    format (`RUN_FORMATS`), of the same game (`game_of`: a manifest or run without the field
    is a `DEFAULT_GAME` one) and with the same engine, state layout and action space, so that a
    manifest whose format or game field was edited is found out."""
    run = manifest.get("run")
    if not isinstance(run, dict):
        text = repr(run)[:80]
        return [f"the manifest's run is {text}; allowed: the generator's run object"]
    problems = []
    wanted = RUN_FORMATS[manifest["format"]]
    if run.get("format") != wanted:
        problems.append(
            f"the manifest has format {manifest['format']!r} but its run has format "
            f"{run.get('format')!r}; a {manifest['format']} dataset is made by a {wanted} run"
        )
    if game_of(run) != game_of(manifest):
        problems.append(
            f"the manifest names game {game_of(manifest)!r} but its run played {game_of(run)!r}"
        )
    for key in RUN_FIELDS:
        if run.get(key) != manifest.get(key):
            problems.append(
                f"the manifest has {key} {manifest.get(key)!r} but its run has {run.get(key)!r}"
            )
    return problems


def _problem(report: VerifyReport, text: str) -> None:
    report.problems.append(text)
    if len(report.problems) >= report.max_problems:
        raise _Stop


def _verify_shard(
    root: Path,
    shard: Mapping[str, Any],
    report: VerifyReport,
    schedule: Callable[[int], Mapping[str, Any] | None] | None,
    on_game: Callable[[int], None] | None,
    spec: GameSpec,
    manifest: Mapping[str, Any],
    on_checked: CheckedGame | None = None,
) -> None:
    """Check one shard (its files' digests, its games rows, every game replayed), reporting
    each problem; ``on_checked`` gets every game with decision rows that passed."""
    index = shard["shard"]
    where = f"shard {index}"
    games_file = decisions_file = None
    for name, digest in shard["files"].items():
        file = root / name
        try:
            regular_file(file, root)
        except DatasetError as err:
            _problem(report, f"{where}: {err}")
            return
        found = file_digest(file)
        if found != digest:
            _problem(report, f"{where}: {name} differs from the manifest ({found} != {digest})")
        if name.startswith(f"{GAMES_DIR}/"):
            games_file = file
        elif name.startswith(f"{DECISIONS_DIR}/"):
            decisions_file = file
    if games_file is None or decisions_file is None:
        _problem(report, f"{where}: the manifest does not list both of its files")
        return
    games = games_rows(pq.read_table(games_file))
    first, count = int(shard["first_game"]), int(shard["games"])
    ids = [g["game_id"] for g in games]
    if len(ids) != count or ids != list(range(first, first + count)):
        _problem(
            report, f"{where}: holds game ids {ids[:5]}...; expected {first} to {first + count - 1}"
        )
        return
    by_id = {g["game_id"]: g for g in games}
    seen: set[int] = set()
    decisions = 0
    for gid, cols in _game_decisions(decisions_file, spec):
        game = by_id.get(gid)
        if game is None or gid in seen:
            _problem(
                report,
                f"{where}: decision rows of game {gid}, which is not a game of the shard or is split",
            )
            continue
        seen.add(gid)
        decisions += len(cols["ply"])
        replay = _verify_game(game, cols, report, schedule, spec, manifest)
        if replay is not None and on_checked is not None:
            on_checked(game, cols, replay)
        report.games += 1
        if on_game is not None:
            on_game(report.games)
    for gid in ids:
        if gid not in seen:
            if by_id[gid]["decisions"] == 0:
                _verify_game(by_id[gid], None, report, schedule, spec, manifest)
                report.games += 1
            else:
                _problem(report, f"{where}: game {gid} has no decision rows")
    report.decisions += decisions
    if decisions != shard["decisions"]:
        _problem(
            report, f"{where}: {decisions} decision rows; the manifest says {shard['decisions']}"
        )


def _verify_game(
    row: Mapping[str, Any],
    cols: Mapping[str, Any] | None,
    report: VerifyReport,
    schedule: Callable[[int], Mapping[str, Any] | None] | None,
    spec: GameSpec,
    manifest: Mapping[str, Any],
) -> Replay | None:
    """Check one game's row and decisions (``cols``; None for a game without decisions)
    against its replay; returns the replay when every check passed, else None (the problem
    reported)."""
    gid = row["game_id"]
    n = row["num_players"]
    actions = [] if cols is None else cols["action"]
    try:  # every field of the row as the record reader checks it (seeds, seats, ranks, end)
        record_of_row(row, actions, str(manifest.get("engine")), spec.name)
    except ValueError as err:
        _problem(report, f"game {gid}: the games row does not form a game record: {err}")
        return None
    if schedule is not None:
        job = schedule(gid)
        wanted = (
            None
            if job is None
            else (job["seed"], job["block"], list(job["seats"]), list(job["agent_seeds"]))
        )
        held = (row["seed"], row["block"], row["agents"], row["agent_seeds"])
        if wanted != held:
            _problem(
                report,
                f"game {gid}: seed, block, agents or agent seeds {held} are not the schedule's {wanted}",
            )
            return None
    try:
        options = {**json.loads(row["options"]), "num_players": n}
        game = new_game(spec.name, options, int(row["seed"]))
    except (TypeError, ValueError) as err:
        _problem(report, f"game {gid}: cannot start the game from its row: {err}")
        return None
    # written as the generator writes them: sorted, compact, without num_players (a player
    # count of its own column), each value the game's own (an older dataset may lack an
    # option added since: its default applies)
    stored = json.loads(row["options"])
    full = {k: v for k, v in game.config.to_dict().items() if k != "num_players"}
    if row["options"] != json.dumps(stored, sort_keys=True, separators=(",", ":")) or any(
        k not in full or type(v) is not type(full[k]) or v != full[k] for k, v in stored.items()
    ):
        _problem(
            report,
            f"game {gid}: options {row['options'][:80]!r} are not written as the generator "
            f"writes them (sorted, compact, without num_players: {json.dumps(full)[:120]})",
        )
        return None
    ranks = [float(r) for r in row["ranks"]]
    returns = returns_of(ranks) if len(ranks) == n and n > 1 else []
    d = 0 if cols is None else len(cols["ply"])
    if row["decisions"] != d:
        _problem(
            report, f"game {gid}: games row says {row['decisions']} decisions, there are {d} rows"
        )
        return None
    replay = (
        _check_plies(game, gid, row, cols, returns, ranks, report, spec)
        if d
        else (
            np.zeros((0, state_size(spec)), spec.engine().layout.STATE_DTYPE),
            np.zeros((0, num_actions(spec)), np.int8),
        )
    )
    if replay is None:
        return None
    before = len(report.problems)
    _check_end(game, gid, row, ranks, returns, report, spec)
    return replay if len(report.problems) == before else None


def _check_plies(
    game: Any,
    gid: int,
    row: Mapping[str, Any],
    cols: Mapping[str, Any],
    returns: list[float],
    ranks: list[float],
    report: VerifyReport,
    spec: GameSpec,
) -> Replay | None:
    """Replay the stored actions, then compare every column with the replay at once and
    report the first ply where one differs; returns the replayed states and masks, or None
    after a problem."""
    d = len(cols["ply"])
    states = np.zeros((d, state_size(spec)), spec.engine().layout.STATE_DTYPE)
    masks = np.zeros((d, num_actions(spec)), np.int8)
    seats = np.zeros(d, np.int64)
    stop: tuple[int, str] | None = None  # (ply, why) where the replay could not go on
    for ply in range(d):
        if game.is_over():
            stop = (ply, "the replayed game is already over")
            break
        states[ply] = game.state
        game.legal_mask(masks[ply])
        seats[ply] = game.current_player()
        try:
            game.apply(int(cols["action"][ply]))
        except IllegalActionError as err:
            stop = (ply, f"column action: {err}")
            break
    upto = d if stop is None else stop[0] + (0 if stop[1].startswith("the replayed") else 1)
    agents = np.asarray(row["agents"], dtype=object)
    n = len(agents)
    seat_ok = np.clip(seats[:upto], 0, max(0, n - 1))
    kinds = kinds_of(spec, states[:upto])
    expected: dict[str, np.ndarray] = {
        "ply": np.arange(upto),
        "seat": seats[:upto],
        "num_players": np.full(upto, row["num_players"]),
        "kind_id": kinds,
        "kind": np.asarray(kind_names(spec), dtype=object)[kinds],
        "num_legal": masks[:upto].sum(axis=1),
        "agent": agents[seat_ok] if n else np.full(upto, None),
        "ret": np.asarray(returns or [np.nan] * max(n, 1), np.float32)[seat_ok],
        "rank": np.asarray(ranks or [np.nan] * max(n, 1), np.float32)[seat_ok],
    }
    first: tuple[int, str] | None = None
    for name, want in expected.items():
        held = np.asarray(cols[name][:upto])
        bad = np.flatnonzero(held != want)
        if len(bad) and (first is None or bad[0] < first[0]):
            i = int(bad[0])
            first = (i, f"column {name} is {held[i]!r}, the replay gives {want[i]!r}")
    bad_state = np.flatnonzero((cols["state"][:upto] != states[:upto]).any(axis=1))
    if len(bad_state) and (first is None or bad_state[0] < first[0]):
        i = int(bad_state[0])
        j = int(np.flatnonzero(cols["state"][i] != states[i])[0])
        first = (
            i,
            f"column state differs from the replay at {field_at(spec, j)} "
            f"(stored {int(cols['state'][i][j])}, replay {int(states[i][j])})",
        )
    bad_mask = np.flatnonzero((cols["legal"][:upto] != pack_masks(masks[:upto])).any(axis=1))
    if len(bad_mask) and (first is None or bad_mask[0] < first[0]):
        first = (int(bad_mask[0]), "column legal differs from the replay's legal actions")
    if "policy_actions" in cols:
        count = num_actions(spec)
        for ply in range(upto if first is None else first[0]):
            why = _policy_problem(
                cols["policy_actions"][ply], cols["policy_probs"][ply], masks[ply], count
            )
            if why is not None:
                first = (ply, why)
                break
    if first is None and stop is not None:
        first = stop
    if first is not None:
        _problem(report, f"game {gid} ply {first[0]}: {first[1]}")
        return None
    return states, masks


def _policy_problem(acts: Any, probs: Any, mask: np.ndarray, count: int) -> str | None:
    """Why a stored target is not a distribution over the legal actions of ``mask`` (of the
    game's ``count`` actions), or None."""
    if (acts is None) != (probs is None):
        return "policy_actions and policy_probs are not both null"
    if acts is not None and (
        len(acts) != len(probs)
        or not acts
        or any(not 0 <= a < count or not mask[a] for a in acts)
        or any(not math.isfinite(p) or p < 0 for p in probs)
        or abs(math.fsum(probs) - 1.0) > 1e-4
    ):
        return "the policy target is not a distribution over legal actions"
    return None


def _end_of(game: Any) -> str | None:
    """How the replayed game ended by itself: ``terminated`` (its rules), ``truncated`` (its
    decision cap), or None while a seat is asked."""
    if game.is_terminal():
        return "terminated"
    return "truncated" if game.is_truncated() else None


def _check_end(
    game: Any,
    gid: int,
    row: Mapping[str, Any],
    ranks: list[float],
    returns: list[float],
    report: VerifyReport,
    spec: GameSpec,
) -> None:
    scores = [int(v) for v in game.scores()]
    n = row["num_players"]
    forfeits = row["forfeits"]
    seat = row["forfeit_seat"]
    ended = _end_of(game)
    if row["end"] in END_REASONS and row["end"] != "forfeit":
        if ended != row["end"]:
            _problem(
                report,
                f"game {gid}: stored as {row['end']}, but the replay "
                + (f"ends {ended}" if ended else f"waits for seat {game.current_player()}"),
            )
            return
        want_ranks = [float(r) for r in game.ranks()]
        if seat != -1 or any(forfeits):
            _problem(report, f"game {gid}: a {row['end']} game names a forfeit")
            return
    elif row["end"] == "forfeit":
        if ended is not None or not 0 <= seat < n:
            _problem(
                report,
                f"game {gid}: stored as a forfeit of seat {seat}, but the replay ended or the seat is not at the table",
            )
            return
        want_ranks = forfeit_ranks(game.ranks().tolist(), seat)
        if [bool(f) for f in forfeits] != [s == seat for s in range(n)]:
            _problem(report, f"game {gid}: forfeits {forfeits} do not name exactly seat {seat}")
            return
    else:
        _problem(report, f"game {gid}: end {row['end']!r}; allowed: {', '.join(END_REASONS)}")
        return
    if list(row["scores"]) != scores:
        _problem(
            report,
            f"game {gid}: scores ({spec.score_word}) {row['scores']}, the replay gives {scores}",
        )
    elif ranks != [float(r) for r in want_ranks]:
        _problem(report, f"game {gid}: ranks {ranks}, the replay gives {want_ranks}")
    elif not np.allclose(row["returns"], returns_of(want_ranks), atol=1e-6):
        _problem(report, f"game {gid}: returns {row['returns']} do not follow from the ranks")


__all__ = [
    "MAX_PROBLEMS",
    "READ_BATCH_ROWS",
    "RUN_FIELDS",
    "VerifyReport",
    "run_problems",
    "verify_dataset",
]
