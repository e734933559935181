"""A seeded fuzzer of game records: tampered records must be refused clearly, never coerced.

Each case takes a finished record of one game (random play, 2 to 4 players, from the case's
seed), tampers with one field as a careless or hostile user would (`tamper`: a value replaced
by null, a float, a bool, a numeric string, a list, an object, a huge or negative number,
deep nesting; an action, a score, a rank or an option edited; a key dropped or added) and runs
it, in a worker subprocess under a watchdog (tests/watched.py), through the record reader
(``GameRecord.from_json`` then ``replay``) and through ``caylus replay FILE`` (in-process,
typer's ``CliRunner``). A case is classified:

- ``clear``: the reader raised a ``ValueError`` with a message, and ``caylus replay`` exited 1
  or 2 with a one-line ``Error: ...`` (and no traceback);
- ``accepted``: the reader and ``caylus replay`` accepted it (an edit that leaves a valid
  record), and the record read back writes exactly the dict given (a valid control, every
  `CONTROLS`-th case, must be accepted);
- ``wrong``: accepted but read as something else than given (a float, a bool or a string taken
  as an int: a coercion), a control refused, or the CLI disagreeing with the reader;
- ``other``: a traceback (another exception, or a multi-line error from ``caylus replay``);
- ``crash`` / ``hang``: the worker died / the watchdog fired.

Run ``python tests/core/fuzz_records.py --cases 635`` from the repository root for the counts table.
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
from pathlib import Path
from typing import Any

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))  # the repository, run as a script
from tests.watched import parse_indices, ready, run_watched, table

OUTCOMES = ("clear", "accepted", "wrong", "other", "crash", "hang")
CONTROLS = 10
"""Every ``CONTROLS``-th case (index 0, 10, ...) is an untampered record that must pass."""
HOSTILE: tuple[Any, ...] = (
    None, 1.0, 2.5, True, False, "3", "", [], {}, [1], {"a": 1}, -1, 2**63, 10**30, float("nan"),
    "x" * 100,
)  # fmt: skip
DEEP = "__deep__"
"""Stands for JSON nested 3,000 deep, spliced into the record's text (`record_text`)."""
FIELDS = ("format", "game", "engine", "options", "seed", "start_state", "setup", "actions",
          "action_names", "final", "match", "timings", "env")  # fmt: skip


def base_record(game: str, players: int, seed: int) -> dict:
    """The record of a random game of ``game``."""
    import random

    from caylus_env.core.registry import game_spec

    info = game_spec(game)
    state = info.new_game(info.config(players), seed=seed)
    rng = random.Random(seed)
    while not state.is_over():
        state.apply(rng.choice(state.legal_actions()))
    return state.record().to_dict()


def _hostile(rng: np.random.Generator) -> Any:
    if rng.random() < 0.05:
        return DEEP
    return HOSTILE[int(rng.integers(len(HOSTILE)))]


def tamper(record: dict, rng: np.random.Generator) -> str:
    """Tamper with ``record`` in place; returns what was done."""
    choice = int(rng.integers(9))
    if choice == 0:
        field = FIELDS[int(rng.integers(len(FIELDS)))]
        record[field] = value = _hostile(rng)
        return f"{field}={json.dumps(value)[:30]}"
    if choice == 1 and record["options"]:
        keys = sorted(record["options"])
        key = keys[int(rng.integers(len(keys)))]
        record["options"][key] = value = _hostile(rng)
        return f"options.{key}={json.dumps(value)[:30]}"
    if choice == 2:
        i = int(rng.integers(len(record["actions"])))
        record["actions"][i] = value = (
            _hostile(rng) if rng.random() < 0.6 else int(rng.integers(-5, 400))
        )
        return f"actions[{i}]={json.dumps(value)[:30]}"
    if choice == 3:
        key = ("scores", "ranks", "end")[int(rng.integers(3))]
        final = record["final"]
        if key == "end" or rng.random() < 0.3:
            final[key] = value = _hostile(rng)
        else:
            i = int(rng.integers(len(final[key])))
            final[key][i] = value = _hostile(rng) if rng.random() < 0.7 else final[key][i] + 1
        return f"final.{key}={json.dumps(value)[:30]}"
    if choice == 4:
        field = FIELDS[int(rng.integers(len(FIELDS)))]
        record.pop(field)
        return f"no {field}"
    if choice == 5:
        record["extra"] = 1
        return "an extra key"
    if choice == 6:
        cut = int(rng.integers(len(record["actions"])))
        record["actions"] = record["actions"][:cut]
        record["action_names"] = record["action_names"][:cut]
        return f"actions cut at {cut}"
    if choice == 7:
        record["seed"] = value = _hostile(rng) if rng.random() < 0.7 else record["seed"] + 1
        return f"seed={json.dumps(value)[:30]}"
    i = int(rng.integers(len(record["action_names"])))
    record["action_names"][i] = value = _hostile(rng)
    return f"action_names[{i}]={json.dumps(value)[:30]}"


def make_case(seed: int, index: int) -> tuple[dict, str]:
    """Case ``index``: ``(record dict, what was done)``; a pure function of seed and index."""
    from caylus_env.core.registry import GAME_NAMES, game_spec

    rng = np.random.default_rng([seed, index])
    game = GAME_NAMES[int(rng.integers(len(GAME_NAMES)))]
    info = game_spec(game)
    players = int(rng.integers(info.min_players, min(info.max_players, 4) + 1))
    record = base_record(game, players, int(rng.integers(4)))
    if index % CONTROLS == 0:
        return record, f"{game} {players}p control"
    return record, f"{game} {players}p " + tamper(record, rng)


def record_text(record: dict) -> str:
    """The JSON text of a (tampered) record, `DEEP` replaced by deep nesting."""
    return json.dumps(record).replace(json.dumps(DEEP), "[" * 3000 + "]" * 3000)


def _same(a: Any, b: Any) -> bool:
    """Equal as JSON values, types included (1.0 is not 1, True is not 1)."""
    if type(a) is not type(b):
        return False
    if isinstance(a, dict):
        return a.keys() == b.keys() and all(_same(a[k], b[k]) for k in a)
    if isinstance(a, list):
        return len(a) == len(b) and all(_same(x, y) for x, y in zip(a, b, strict=True))
    return a == b or (a != a and b != b)


def run_case(record: dict, path: Path, control: bool) -> tuple[str, str]:
    """The record through the reader and ``caylus replay``; ``(outcome, detail)``."""
    from typer.testing import CliRunner

    from caylus_cli.app import app
    from caylus_env.core.record import GameRecord, replay

    text = record_text(record)
    path.write_text(text)
    try:
        read = GameRecord.from_json(text)
        replay(read)
    except ValueError as err:
        reader = ("clear", f"reader: {err}") if str(err) else ("other", "reader: no message")
    except Exception as err:
        return "other", f"reader: {type(err).__name__}: {err}"[:300]
    else:
        reader = ("accepted", "")
        if not _same(read.to_dict(), json.loads(text)):
            return "wrong", "accepted and read as another record (a value coerced)"
    result = CliRunner().invoke(app, ["replay", str(path)])
    if result.exception is not None and not isinstance(result.exception, SystemExit):
        return "other", f"replay: {type(result.exception).__name__}: {result.exception}"[:300]
    lines = result.stderr.strip().splitlines()
    if result.exit_code != 0 and (len(lines) != 1 or not lines[0].startswith("Error: ")):
        return "other", "replay: " + " | ".join(lines)[:280]
    if (result.exit_code == 0) != (reader[0] == "accepted"):
        return "wrong", f"reader {reader[0]}, replay exit code {result.exit_code}: {lines[:1]}"
    if control and reader[0] != "accepted":
        return "wrong", f"control refused: {reader[1]}"[:300]
    return reader[0], ""


def worker(args: list[str]) -> None:
    seed, indices = int(args[0]), parse_indices(args[1])
    with tempfile.TemporaryDirectory() as tmp:
        from caylus_env.core.registry import GAME_NAMES

        for game in GAME_NAMES:  # compile every game's kernels before the watchdog's clock
            run_case(base_record(game, 2, 0), Path(tmp) / "warm.json", True)
        ready()
        for i in indices:
            record, _ = make_case(seed, i)
            outcome, detail = run_case(record, Path(tmp) / f"case{i}.json", i % CONTROLS == 0)
            print(f"{i} {outcome} {detail}".replace("\n", " "), flush=True)


def fuzz(cases: int, seed: int = 0, jobs: int = 2, boundscheck: bool = False) -> tuple:
    """Run ``cases`` cases in ``jobs`` watched workers."""
    return run_watched(
        Path(__file__).resolve(),
        [str(seed)],
        cases,
        jobs,
        lambda i: make_case(seed, i)[1],
        boundscheck=boundscheck,
        case_timeout=30.0,
    )


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    if argv and argv[0] == "--worker":
        worker(argv[1:])
        return 0
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--cases", type=int, default=635)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--boundscheck", action="store_true", help="NUMBA_BOUNDSCHECK=1")
    args = parser.parse_args(argv)
    counts, examples = fuzz(args.cases, args.seed, args.jobs, args.boundscheck)
    print(table(counts, OUTCOMES))
    for outcome, lines in examples.items():
        for line in lines:
            print(f"{outcome}: {line}")
    return 0


__all__ = ["OUTCOMES", "fuzz", "make_case", "run_case"]

if __name__ == "__main__":
    sys.exit(main())
