"""A seeded fuzzer of dataset directories: tampered shards and manifests must be refused clearly.

Each case copies a small valid dataset of one game (``--base``: one directory per game, made by
`make_bases`), tampers with it as a careless or hostile user would, and runs every dataset tool
on it in a worker subprocess under a watchdog: ``caylus dataset verify`` (in-process, as a user
runs it: the schedule of the manifest's run included), ``caylus dataset export`` (the same
way, into a fresh directory), ``dataset_stats``, ``inspect_game``,
``dataset_records``, ``read_games`` and a full ``iter_batches`` pass (observations, masks,
policy targets). Tampering (`MUTATIONS`): state bytes and other decision columns edited (int16
extremes, random values, NaN and infinite returns and ranks), policy targets out of the action
space, games rows edited (options JSON, player counts, scores, ends), a games row's agents
swapped with the decisions' ``agent`` column to match (``seating``, with the run's plugins or
agents edited so that its agents cannot be made here), a column widened, added or dropped,
shards truncated, emptied, overwritten, deleted or replaced by a FIFO, a directory or a link
to ``/dev/zero`` or to a file outside the dataset, and manifests truncated, emptied, replaced
by special files, nested deeply, without ``shards``, with paths out of the directory, a
``state_size`` of 1 or another game, their ``format`` or ``game`` changed, dropped, or made to
differ from their run's. Half of the content edits recompute the manifest's checksums and
counts, as an attacker would (a seating swap always does).

A case is classified by its worst tool:

- ``clear``: every tool refused it with a ``ValueError`` (a ``DatasetError``) with a message, or
  ran, and ``caylus dataset verify`` and ``caylus dataset export`` exited 1 or 2 with an
  ``Error:`` line;
- ``accepted``: a valid control (`CONTROLS`): every tool ran, verify found nothing and the
  export wrote every decision;
- ``wrong``: ``caylus dataset verify`` or ``caylus dataset export`` exited 0 on a tampered
  dataset, a reader handed out a return, rank or probability that is not a finite number, or a
  control failed;
- ``other``: a tool raised another exception (a traceback for the user; under
  ``NUMBA_BOUNDSCHECK=1`` an out-of-bounds access in a kernel is an ``IndexError`` here);
- ``crash``: the worker died without a Python error (a signal);
- ``hang``: the watchdog fired.

Run ``python tests/fuzz_datasets.py --cases 460`` from the repository root for the counts
table (``PYTHONPATH=OTHER_CHECKOUT`` fuzzes another checkout).
"""

from __future__ import annotations

import argparse
import contextlib
import io
import json
import os
import shutil
import subprocess
import sys
import tempfile
from collections import Counter
from pathlib import Path
from typing import Any

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
from watched import BOUNDSCHECK_CACHE, Outcome, parse_indices, ready, run_watched, table

OUTCOMES = ("clear", "accepted", "wrong", "other", "crash", "hang")
CONTROLS = 8
"""Every ``CONTROLS``-th case (index 0, 8, ...) is an untampered copy that must pass."""
EXTREMES = (-32768, -32767, -1, 0, 1, 2, 7, 255, 1000, 32767)
COLUMN_EDITS = {
    "seat": (-1, 5, 100, 127, -128),
    "num_players": (0, 1, 6, 127, -1),
    "kind_id": (-1, 50, 127, -128),
    "action": (-1, 9999, 32767, -32768, 166),
    "num_legal": (-1, 0, 32767),
    "ply": (-1, 32767, 5),
    "game_id": (-1, 2**40, 99),
    "ret": (float("nan"), float("inf"), 3.0),
    "rank": (float("nan"), 0.0, 9.0),
}
GAMES_EDITS: dict[str, tuple[Any, ...]] = {
    "num_players": (0, 1, 9, -1, 127),
    "options": ("null", "[]", "{bad", '{"num_players": 2}', "[" * 5000 + "]" * 5000, '{"x":1}'),
    "seed": (-1, 2**62),
    "end": ("x", "forfeit", ""),
    "decisions": (-5, 0, 2**30),
    "forfeit_seat": (-2, 7, 0),
    "block": (-3,),
    "game_id": (-1, 77),
}
MUTATIONS = (
    "state",
    "column",
    "policy",
    "games",
    "seating",
    "schema",
    "file",
    "manifest",
)
RUN_EDITS = ("none", "plugin missing", "agent renamed")
"""What a ``seating`` case does to the manifest's run besides the swap: nothing, a plugin
that is not installed, or an agent spec no registry knows (once, the schedule went unchecked
when the run's agents could not be made)."""


# ---------------------------------------------------------------------------------------
# Base datasets.
# ---------------------------------------------------------------------------------------
def make_bases(folder: Path) -> dict[str, Path]:
    """A small dataset of each game in ``folder/<game>`` (6 games, 2 and 3 players, 3 shards,
    with policy targets), made by ``caylus dataset generate``; reused when already there."""
    from caylus_env.core.registry import GAME_NAMES, game_spec

    out = {}
    for game in GAME_NAMES:
        root = folder / game
        if not (root / "manifest.json").is_file():
            from agents import registry

            own = game_spec(game).module("bots").BOTS
            bots = [h for h in registry.available_agents(game) if h in own][:2]
            command = [
                str(Path(sys.executable).with_name("caylus")),
                "dataset", "generate", "--game", game, "--agents", ",".join(["random", *bots]),
                "--players", "2-3", "--games", "6", "--shard-games", "3", "--policy-targets",
                "--out", str(root), "--workers", "1", "--no-progress", "--seed", "5",
            ]  # fmt: skip
            subprocess.run(command, check=True, capture_output=True)
        out[game] = root
    return out


_SHARED: dict[str, Path] = {}


def shared_bases() -> Path:
    """A folder of `make_bases`, made once per process (the test modules share it) and removed
    at exit."""
    if "folder" not in _SHARED:
        import atexit

        folder = Path(tempfile.mkdtemp(prefix="fuzz_bases"))
        atexit.register(shutil.rmtree, folder, True)
        make_bases(folder)
        _SHARED["folder"] = folder
    return _SHARED["folder"]


# ---------------------------------------------------------------------------------------
# Tampering.
# ---------------------------------------------------------------------------------------
def _manifest(root: Path) -> dict:
    return json.loads((root / "manifest.json").read_text())


def _write_manifest(root: Path, manifest: Any) -> None:
    (root / "manifest.json").write_text(json.dumps(manifest))


def _recompute(root: Path) -> None:
    """The manifest's checksums and counts made to match the files (what an attacker does)."""
    from caylus_env.datasets.format import file_digest

    manifest = _manifest(root)
    for shard in manifest["shards"]:
        for name in shard["files"]:
            path = root / name
            if path.is_file():
                shard["files"][name] = file_digest(path)
    _write_manifest(root, manifest)


def _shard(root: Path, rng: np.random.Generator, table: str) -> Path:
    files = sorted((root / table).glob("part-*.parquet"))
    return files[int(rng.integers(len(files)))]


def _rewrite(path: Path, edit: Any) -> None:
    import pyarrow.parquet as pq

    table = pq.read_table(path)
    table = edit(table)
    pq.write_table(table, path)


def _set_column(table: Any, name: str, values: Any, type_: Any = None) -> Any:
    import pyarrow as pa

    i = table.column_names.index(name)
    field = table.schema.field(i)
    array = pa.array(values, type=type_ or field.type)
    return table.set_column(i, pa.field(name, array.type, nullable=field.nullable), array)


def _edit_fixed(table: Any, name: str, rng: np.random.Generator, itemsize: int) -> Any:
    import pyarrow as pa

    col = table[name].combine_chunks()
    width = col.type.byte_width
    raw = np.frombuffer(col.buffers()[1], np.uint8, count=len(col) * width).copy()
    raw = raw.reshape(len(col), width)
    row = int(rng.integers(len(col)))
    before, at = raw[row].copy(), 0
    for _ in range(int(rng.integers(1, 4))):
        if itemsize == 2:
            at = int(rng.integers(width // 2))
            value = int(rng.choice(EXTREMES)) if rng.random() < 0.7 else int(rng.integers(-99, 99))
            raw[row, 2 * at : 2 * at + 2] = np.frombuffer(np.int16(value).tobytes(), np.uint8)
        else:
            raw[row, int(rng.integers(width))] = int(rng.integers(256))
    if np.array_equal(raw[row], before):  # the values written were already there: flip a bit
        raw[row, at * itemsize if itemsize == 2 else 0] ^= 1
    array = pa.FixedSizeBinaryArray.from_buffers(col.type, len(col), [None, pa.py_buffer(raw)])
    i = table.column_names.index(name)
    return table.set_column(i, table.schema.field(i), array)


def _set_one_cell(path: Path, rng: np.random.Generator, name: str, value: Any) -> None:
    """Rewrite one cell of column ``name`` of the shard at ``path``, drawn with ``rng``, to
    ``value`` (the column widened to int64 when its own type cannot hold it)."""
    import pyarrow as pa

    def edit(t: Any) -> Any:
        values = t[name].to_pylist()
        values[int(rng.integers(len(values)))] = value
        try:
            return _set_column(t, name, values)
        except (pa.ArrowInvalid, OverflowError):
            return _set_column(t, name, values, pa.int64())

    _rewrite(path, edit)


def swap_agents(games: Path, decisions: Path) -> int:
    """Swap the agents of the first row of the games file ``games`` seating two different
    agents, and its decisions' ``agent`` column in ``decisions`` (the same shard) with them,
    so that the game still replays exactly; returns its game id."""
    import pyarrow.parquet as pq

    rows = pq.read_table(games).to_pylist()
    k = next(i for i, r in enumerate(rows) if r["agents"][0] != r["agents"][-1])
    gid, swapped = rows[k]["game_id"], rows[k]["agents"][::-1]
    agents = [swapped if i == k else r["agents"] for i, r in enumerate(rows)]
    _rewrite(games, lambda t: _set_column(t, "agents", agents))

    def edit(t: Any) -> Any:
        ids, seats = t["game_id"].to_pylist(), t["seat"].to_pylist()
        values = [
            swapped[s] if i == gid else a
            for i, s, a in zip(ids, seats, t["agent"].to_pylist(), strict=True)
        ]
        return _set_column(t, "agent", values)

    _rewrite(decisions, edit)
    return gid


def tamper(root: Path, rng: np.random.Generator) -> str:
    """Tamper with the dataset at ``root`` (a copy); returns what was done."""
    import pyarrow as pa

    kind = MUTATIONS[int(rng.integers(len(MUTATIONS)))]
    recompute = rng.random() < 0.5
    what = kind
    if kind == "state":
        path = _shard(root, rng, "decisions")
        what = f"state bytes of {path.name}"
        _rewrite(path, lambda t: _edit_fixed(t, "state", rng, 2))
    elif kind == "column":
        path = _shard(root, rng, "decisions")
        name = sorted(COLUMN_EDITS)[int(rng.integers(len(COLUMN_EDITS)))]
        value = COLUMN_EDITS[name][int(rng.integers(len(COLUMN_EDITS[name])))]
        what = f"decisions {name}={value!r} in {path.name}"
        _set_one_cell(path, rng, name, value)
    elif kind == "policy":
        path = _shard(root, rng, "decisions")
        choice = int(rng.integers(4))
        what = f"policy target edit {choice} in {path.name}"

        def edit(t: Any) -> Any:
            acts, probs = t["policy_actions"].to_pylist(), t["policy_probs"].to_pylist()
            row = next((i for i, a in enumerate(acts) if a), 0)
            if choice == 0:
                acts[row] = [int(rng.choice([-1, -32768, 32767, 9999]))]
                probs[row] = [1.0]
            elif choice == 1:
                probs[row] = [float("nan")] * len(probs[row] or [0])
            elif choice == 2:
                probs[row] = (probs[row] or []) + [0.5]
            else:
                acts[row], probs[row] = None, [1.0]
            t = _set_column(t, "policy_actions", acts)
            return _set_column(t, "policy_probs", probs)

        _rewrite(path, edit)
    elif kind == "games":
        path = _shard(root, rng, "games")
        name = sorted(GAMES_EDITS)[int(rng.integers(len(GAMES_EDITS)))]
        value = GAMES_EDITS[name][int(rng.integers(len(GAMES_EDITS[name])))]
        what = f"games {name}={str(value)[:30]!r} in {path.name}"
        _set_one_cell(path, rng, name, value)
    elif kind == "seating":
        games = _shard(root, rng, "games")
        gid = swap_agents(games, root / "decisions" / games.name)
        run_edit = RUN_EDITS[int(rng.integers(len(RUN_EDITS)))]
        manifest = _manifest(root)
        if run_edit == "plugin missing":
            manifest["run"]["plugins"] = ["no_such_plugin_module"]
        elif run_edit == "agent renamed":
            manifest["run"]["agents"][0] = "no-such-agent"
        _write_manifest(root, manifest)
        what = f"agents of game {gid} swapped, run edit: {run_edit}"
        recompute = True
    elif kind == "schema":
        path = _shard(root, rng, "decisions")
        choice = int(rng.integers(5))
        what = f"schema change {choice} in {path.name}"

        def edit(t: Any) -> Any:
            if choice == 0:  # widen a column's type
                return _set_column(t, "seat", t["seat"].to_pylist(), pa.int16())
            if choice == 1:  # an extra column
                return t.append_column("extra", pa.array(np.zeros(t.num_rows, np.int8)))
            if choice == 2:  # drop a column
                return t.drop_columns(["kind_id"])
            if choice == 3:  # states one byte wider
                col = t["state"].to_pylist()
                return _set_column(t, "state", [c + b"\0" for c in col], pa.binary(len(col[0]) + 1))
            return _set_column(t, "action", t["action"].to_pylist(), pa.int32())

        _rewrite(path, edit)
    elif kind == "file":
        path = _shard(root, rng, "decisions" if rng.random() < 0.6 else "games")
        choice = int(rng.integers(8))
        what = f"file {choice} for {path.parent.name}/{path.name}"
        data = path.read_bytes()
        if choice in (0, 1, 2, 3):
            path.unlink()
        if choice == 0:
            path.write_bytes(data[: len(data) // 2])
        elif choice == 1:
            path.write_bytes(b"")
        elif choice == 2:
            os.mkfifo(path)
        elif choice == 3:
            path.mkdir()
        elif choice == 4:
            path.unlink()
            path.symlink_to("/dev/zero")
        elif choice == 5:
            outside = root.parent / f"outside-{path.name}"
            shutil.copy(path, outside)
            path.unlink()
            path.symlink_to(outside)
        elif choice == 6:
            path.unlink()
        else:
            path.write_bytes(bytes(rng.integers(0, 256, len(data), dtype=np.uint8)))
        recompute = recompute and choice in (0, 1, 7)
    else:
        return _tamper_manifest(root, rng)
    if recompute:
        _recompute(root)
        what += " (checksums recomputed)"
    return what


def _tamper_manifest(root: Path, rng: np.random.Generator) -> str:
    path = root / "manifest.json"
    manifest = _manifest(root)
    text = path.read_text()
    from caylus_env.core.registry import GAME_NAMES, game_of

    choice = int(rng.integers(27))
    other = next(g for g in GAME_NAMES if g != game_of(manifest))

    def legacy_format(m: dict) -> None:  # the manifest's and the run's, as one edit
        m["format"], m["run"]["format"] = "caylus-dataset/1", "caylus-dataset-run/1"

    edits: dict[int, Any] = {
        0: lambda m: m.pop("shards"),
        1: lambda m: m.__setitem__("shards", None),
        2: lambda m: m.__setitem__("shards", "x"),
        3: lambda m: m.__setitem__("shards", [1, 2]),
        4: lambda m: m["shards"][0].pop("files"),
        5: lambda m: m["shards"][0].__setitem__("files", {"../../../etc/passwd": {}}),
        6: lambda m: m["shards"][0].__setitem__(
            "files", {"/etc/hosts": {}, **m["shards"][0]["files"]}
        ),
        7: lambda m: m.__setitem__("state_size", 1),
        8: lambda m: m.__setitem__("game", "chess"),
        9: lambda m: m.__setitem__("game", 3),
        10: lambda m: m.__setitem__("counts", {"games": "x"}),
        11: lambda m: m["shards"][0].__setitem__("first_game", -7),
        12: lambda m: m["shards"][0].__setitem__("games", 10**9),
        13: lambda m: m.__setitem__("num_actions", 2),
        14: lambda m: m["shards"].append(dict(m["shards"][0])),
        20: lambda m: m.__setitem__("format", "caylus-dataset/1"),
        21: legacy_format,
        22: lambda m: m.pop("game"),
        23: lambda m: m.__setitem__("game", other),
        24: lambda m: m["run"].__setitem__("game", other),
        25: lambda m: m["run"].__setitem__("format", "caylus-dataset-run/1"),
        26: lambda m: m["run"].__setitem__("engine", "0.0.1"),
    }
    if choice in edits:
        edits[choice](manifest)
        path.write_text(json.dumps(manifest))
    elif choice == 15:
        path.write_text(text[: len(text) // 2])
    elif choice == 16:
        path.write_text("")
    elif choice == 17:
        path.unlink()
        os.mkfifo(path)
    elif choice == 18:
        path.unlink()
        path.symlink_to("/dev/zero")
    else:
        path.write_text("[" * 100_000 + "]" * 100_000)
    return f"manifest {choice}"


def make_case(bases: dict[str, Path], seed: int, index: int, folder: Path) -> tuple[Path, str]:
    """Case ``index``: a copy of one game's base under ``folder``, tampered (not for a
    control); a pure function of the bases, the seed and the index."""
    rng = np.random.default_rng([seed, index])
    games = sorted(bases)
    game = games[int(rng.integers(len(games)))]
    case = folder / f"case{index}"
    shutil.rmtree(case, ignore_errors=True)
    case.mkdir(parents=True)
    root = case / "d"
    shutil.copytree(bases[game], root, ignore=shutil.ignore_patterns("*.png", "viewer", "*.html"))
    if index % CONTROLS == 0:
        return root, f"{game} control"
    return root, f"{game} " + tamper(root, rng)


# ---------------------------------------------------------------------------------------
# Running one case (in a worker).
# ---------------------------------------------------------------------------------------
class HandedOut(Exception):
    """A reader returned a value that is not a finite number where a number must be."""


def _finite(name: str, values: Any) -> None:
    array = np.asarray(values, dtype=np.float64)
    if not np.isfinite(array).all():
        raise HandedOut(f"{name} handed out {array[~np.isfinite(array)][0]}")


def _tools(root: Path) -> list[tuple[str, Any]]:
    import pyarrow.compute as pc

    from caylus_env.datasets import dataset_stats, inspect_game, iter_batches, read_games
    from caylus_env.datasets.format import game_of, read_manifest
    from caylus_env.datasets.records import dataset_records

    def records() -> Any:
        game = game_of(read_manifest(root))
        ids = read_games(root)["game_id"].to_pylist()
        return dataset_records(root, ids[:2], game)

    def games() -> None:
        table = read_games(root)
        for name in ("ranks", "returns"):
            _finite(f"read_games {name}", pc.list_flatten(table[name]).to_numpy())

    def batches() -> int:
        rows = 0
        for b in iter_batches(root, 256, columns=("rank",)):
            for key in ("ret", "rank", "target"):
                if key in b:
                    _finite(f"iter_batches {key}", b[key])
            rows += len(b["action"])
        return rows

    return [
        ("stats", lambda: dataset_stats(root)),
        ("inspect", lambda: inspect_game(root)),
        ("records", records),
        ("read_games", games),
        ("iter_batches", batches),
    ]


def _verify(root: Path, control: bool) -> tuple[str, str]:
    """``caylus dataset verify ROOT`` in-process: exit 0 for a sound dataset, 1 (problems) or 2
    (refused) with an ``Error:`` line for a tampered one, never a traceback."""
    from typer.testing import CliRunner

    from caylus_cli.app import app

    result = CliRunner().invoke(app, ["dataset", "verify", str(root), "--no-progress"])
    if result.exception is not None and not isinstance(result.exception, SystemExit):
        return "other", f"verify: {type(result.exception).__name__}: {result.exception}"
    lines = result.stderr.strip().splitlines()
    if result.exit_code == 0:
        return ("accepted", "") if control else ("wrong", "caylus dataset verify exited 0")
    if result.exit_code not in (1, 2) or not lines or not lines[-1].startswith("Error: "):
        return "other", f"verify: exit {result.exit_code}: {result.stderr[-200:]}"
    return ("wrong", lines[0]) if control else ("clear", "")


def _export(root: Path, control: bool) -> tuple[str, str]:
    """``caylus dataset export ROOT --out OUT`` in-process into a fresh directory: exit 0 and
    every decision written for a sound dataset, 1 (a row fails its replay) or 2 (refused
    before any work) with an ``Error:`` line for a tampered one, never a traceback."""
    from typer.testing import CliRunner

    from caylus_cli.app import app

    out = Path(tempfile.mkdtemp(prefix="fuzz_export")) / "x"
    try:
        result = CliRunner().invoke(
            app, ["dataset", "export", str(root), "--out", str(out), "--no-progress"]
        )
        written = None
        if result.exit_code == 0 and (out / "metadata.json").is_file():
            written = json.loads((out / "metadata.json").read_text())["counts"]["decisions"]
    finally:
        shutil.rmtree(out.parent, ignore_errors=True)
    if result.exception is not None and not isinstance(result.exception, SystemExit):
        return "other", f"export: {type(result.exception).__name__}: {result.exception}"
    lines = result.stderr.strip().splitlines()
    if result.exit_code == 0:
        if not control:
            return "wrong", "caylus dataset export exited 0"
        held = json.loads((root / "manifest.json").read_text())["counts"]["decisions"]
        return ("accepted", "") if written == held else ("wrong", f"export wrote {written} rows")
    if result.exit_code not in (1, 2) or not lines or not lines[-1].startswith("Error: "):
        return "other", f"export: exit {result.exit_code}: {result.stderr[-200:]}"
    return ("wrong", lines[0]) if control else ("clear", "")


def run_case(root: Path, control: bool) -> tuple[str, str]:
    """Every tool on the dataset at ``root``; ``(outcome, detail)``."""
    results = [_verify(root, control), _export(root, control)]
    for name, tool in _tools(root):
        try:
            with contextlib.redirect_stdout(io.StringIO()):
                tool()
        except HandedOut as err:
            results.append(("wrong", str(err)))
        except ValueError as err:
            if control or not str(err):
                results.append(("wrong" if control else "other", f"{name}: {err}"))
        except Exception as err:
            results.append(("other", f"{name}: {type(err).__name__}: {err}"))
    order = {"accepted": 0, "clear": 1, "wrong": 2, "other": 3}
    outcome, detail = max(results, key=lambda r: order[r[0]])
    return outcome, detail[:300]


def worker(args: list[str]) -> None:
    """Run the cases ``args[-1]`` over the bases in ``args[0]``; one line each."""
    base_folder, seed, indices = Path(args[0]), int(args[1]), parse_indices(args[2])
    bases = {p.name: p for p in base_folder.iterdir() if (p / "manifest.json").is_file()}
    with tempfile.TemporaryDirectory() as tmp:
        for game in sorted(bases):  # compile every kernel before the watchdog's clock starts
            run_case(bases[game], True)
        ready()
        for i in indices:
            root, _ = make_case(bases, seed, i, Path(tmp))
            outcome, detail = run_case(root, i % CONTROLS == 0)
            shutil.rmtree(root.parent, ignore_errors=True)
            print(f"{i} {outcome} {detail}".replace("\n", " "), flush=True)


def fuzz(
    cases: int, base_folder: Path, seed: int = 0, jobs: int = 2, boundscheck: bool = False
) -> tuple[Counter, dict[str, list[str]]]:
    """Run ``cases`` cases in ``jobs`` workers over the bases in ``base_folder``."""
    make_bases(base_folder)
    bases = {p.name: p for p in base_folder.iterdir() if (p / "manifest.json").is_file()}

    def describe(index: int) -> str:
        with tempfile.TemporaryDirectory() as tmp:
            return make_case(bases, seed, index, Path(tmp))[1]

    return run_watched(
        Path(__file__).resolve(),
        [str(base_folder), str(seed)],
        cases,
        jobs,
        describe,
        boundscheck=boundscheck,
        case_timeout=30.0,
    )


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    if argv and argv[0] == "--worker":
        worker(argv[1:])
        return 0
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--cases", type=int, default=460)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--base", type=Path, default=Path(tempfile.gettempdir()) / "fuzz_bases")
    parser.add_argument("--boundscheck", action="store_true", help="NUMBA_BOUNDSCHECK=1")
    args = parser.parse_args(argv)
    counts, examples = fuzz(args.cases, args.base, args.seed, args.jobs, args.boundscheck)
    print(table(counts, OUTCOMES))
    for outcome, lines in examples.items():
        for line in lines:
            print(f"{outcome}: {line}")
    return 0


__all__ = [
    "BOUNDSCHECK_CACHE",
    "OUTCOMES",
    "Outcome",
    "fuzz",
    "make_bases",
    "make_case",
    "shared_bases",
    "swap_agents",
]

if __name__ == "__main__":
    sys.exit(main())
