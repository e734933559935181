"""Fuzz the public position builders (``caylus_env.core.positions.build``) of every game.

Each case is a description built from the seed and its index: a valid control (the start,
mid-game and endgame descriptions of ``tests/core/test_positions.py``, which must build and play to
the end) or one of them with one field mutated (an unknown field, a hostile value in place of
any leaf: negative, huge, a float, NaN, a string, None, a bool, a list, a dict, an unknown
name, a seat out of range). A case's outcome:

- ``error``: refused with a ``ValueError`` (``PositionError`` or the engine's
  ``InvalidStateError``) whose message is one line;
- ``ok``: built, every invariant holds, the engine's loader takes its state dict back
  unchanged, and random legal moves play it to the end with the invariants intact;
- ``wrong``: built but one of those checks fails (silently wrong);
- ``traceback``: any other exception, or a multi-line message;
- ``crash`` / ``hang``: the worker died (a signal) or went silent past the case timeout; the
  watcher restarts it after that case;
- ``control-failed``: a valid control that was not ``ok``.

Every case runs in a worker subprocess under a watchdog (``fuzz``, through ``tests/watched.py``:
its case clock starts once the worker has compiled its kernels); ``boundscheck=True`` runs the
workers under ``NUMBA_BOUNDSCHECK=1`` with their kernels in their own cache folder.

Usage: ``python tests/core/fuzz_positions.py [--cases N] [--seed S] [--boundscheck]``.
"""

from __future__ import annotations

import argparse
import copy
import math
import os
import random
import sys
from collections import Counter
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve()
sys.path.insert(0, str(HERE.parents[2]))  # the repository, run as a script
from tests.watched import parse_indices, ready, run_watched  # noqa: E402

CASE_TIMEOUT_S = 60.0
CONTROL_EVERY = 5  # every fifth case is an unmutated control

HOSTILE: list[Any] = [
    -1, -(2**15), 10**6, 2**40, 1.5, math.nan, "x", None, True, False, [], {}, [0, 1],
    {"x": 1}, "palace", 99, (0,), b"corn",
]  # fmt: skip


def _controls() -> list[tuple[str, int, dict]]:
    from tests.core.test_positions import POSITIONS

    return [
        (name, players, description)
        for name, cases in POSITIONS.items()
        for players, description in cases.values()
    ]


def _leaves(node: Any, path: tuple = ()) -> list[tuple]:
    """Paths to every value of a description (dict keys, list and tuple indices)."""
    out = [path] if path else []
    if isinstance(node, dict):
        for k, v in node.items():
            out += _leaves(v, (*path, k))
    elif isinstance(node, (list, tuple)):
        for i, v in enumerate(node):
            out += _leaves(v, (*path, i))
    return out


def _replace(node: Any, path: tuple, value: Any) -> Any:
    if not path:
        return value
    head, rest = path[0], path[1:]
    if isinstance(node, dict):
        return {**node, head: _replace(node[head], rest, value)}
    items = list(node)
    items[head] = _replace(items[head], rest, value)
    return type(node)(items) if isinstance(node, tuple) else items


def make_case(seed: int, index: int) -> tuple[str, int, dict, str]:
    """(game, players, description, what was mutated or 'control')."""
    rng = random.Random(seed * 1_000_003 + index)
    controls = _controls()
    name, players, description = copy.deepcopy(controls[index % len(controls)])
    if index % CONTROL_EVERY == 0:
        return name, players, description, "control"
    kind = rng.random()
    if kind < 0.1:
        description[rng.choice(["moneyy", "colonists", "phase2", "x"])] = 1
        return name, players, description, "unknown field"
    if kind < 0.15:
        return name, rng.choice([0, 1, 6, 9, -1, 2.0, "3", None, True]), description, "players"
    if kind < 0.3:  # a seat key or a name key out of range
        entry = rng.choice(["players", "castle", "workers", "road", "ships", "role_doubloons"])
        key = rng.choice([7, -1, "7", "north", 1.0, None, 0])
        description[entry] = {key: rng.choice([*HOSTILE, {}, {"money": 1}])}
        return name, players, description, f"{entry} key {key!r}"
    paths = _leaves(description)
    if not paths:
        description[rng.choice(["players", "turn", "round", "governor"])] = rng.choice(HOSTILE)
        return name, players, description, "top-level value"
    path = rng.choice(paths)
    value = rng.choice(HOSTILE) if rng.random() < 0.8 else rng.randint(-3, 40)
    return name, players, _replace(description, path, value), f"{path} = {value!r}"


def run_case(name: str, players: Any, description: dict, seed: int) -> tuple[str, str]:
    """Build one description and classify what happened (module docstring)."""
    from caylus_env.core import positions as P
    from caylus_env.core.registry import game_spec

    try:
        g = P.build(name, players, **description)
    except ValueError as e:
        message = str(e)
        if "\n" in message or not message:
            return "traceback", f"{type(e).__name__} with a multi-line or empty message"
        return "error", f"{type(e).__name__}: {message[:120]}"
    except Exception as e:
        return "traceback", f"{type(e).__name__}: {str(e)[:160]}"
    engine = game_spec(name).engine()
    try:
        code = int(engine.kernels.check_invariants(g.state))
        if code:
            return "wrong", f"built with a broken invariant: {engine.INVARIANT_MESSAGES[code]}"
        back = P.positions(name).start(g.state_dict())
        if back.state_dict() != g.state_dict():
            return "wrong", "the loader does not take the built state back unchanged"
        P.play_out(g, seed, max_decisions=20_000)
        code = int(engine.kernels.check_invariants(g.state))
        if code or not g.is_over():
            return "wrong", f"play-out ended in code {code}, over={g.is_over()}"
    except Exception as e:
        return "wrong", f"accepted, then {type(e).__name__}: {str(e)[:160]}"
    return "ok", ""


def worker(seed: int, indices: list[int]) -> None:
    # Compile every game's kernels before the first case (`watched.ready`): a case's own
    # timeout then measures the case, not numba.
    for name, players, description in _controls():
        run_case(name, players, copy.deepcopy(description), seed)
    ready()
    for index in indices:
        name, players, description, what = make_case(seed, index)
        outcome, detail = run_case(name, players, description, seed + index)
        if what == "control" and outcome != "ok":
            outcome, detail = "control-failed", f"{outcome}: {detail}"
        print(f"{index} {outcome} {name} | {what} | {detail}".replace("\n", " "), flush=True)


def fuzz(
    cases: int, seed: int = 0, boundscheck: bool = False, timeout: float = CASE_TIMEOUT_S
) -> tuple[Counter, list[str]]:
    """Run ``cases`` cases in one watched worker (`watched.run_watched`); (outcome counts,
    lines of every finding)."""
    counts, examples = run_watched(
        HERE,
        [str(seed)],
        cases,
        1,
        lambda index: make_case(seed, index)[3],
        boundscheck=boundscheck,
        case_timeout=timeout,
        quiet=("ok", "error"),
        examples_each=cases,
        env={**os.environ, "PYTHONHASHSEED": "0"},
    )
    return counts, [line for lines in examples.values() for line in lines]


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    if argv and argv[0] == "--worker":
        worker(int(argv[1]), parse_indices(argv[2]))
        return 0
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cases", type=int, default=300)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--boundscheck", action="store_true")
    args = parser.parse_args(argv)
    counts, findings = fuzz(args.cases, args.seed, args.boundscheck)
    for line in findings:
        print(line)
    print(" ".join(f"{k}={v}" for k, v in sorted(counts.items())))
    return 1 if findings else 0


if __name__ == "__main__":
    raise SystemExit(main())
