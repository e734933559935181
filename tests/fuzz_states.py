"""A seeded mutation fuzzer of state dicts: hostile positions must be refused or played safely.

Positions are taken from random mid-game play (2-5 players, the variants, every
``DecisionKind`` reached), then mutated: type swaps, out-of-range and int16-extreme ints,
deleted and added keys, pending entries added, removed and edited, seat swaps, list length
changes. Each case is loaded with ``Game.from_state_dict`` in a worker subprocess under a
watchdog and classified:

- ``clear``: a ``ValueError`` (or subclass) with a message, raised at load;
- ``other``: any other Python exception at load (a wrong exception type);
- ``accepted``: loaded, then a bounded run of random legal moves kept every invariant;
- ``corrupt``: loaded, but a later move broke an invariant (``check_invariants``) or raised;
- ``crash``: the worker died without a Python error (a signal, heap corruption);
- ``hang``: the watchdog fired.

Workers take many cases each and are restarted after a crash or a hang. The cases are a
pure function of the seed: workers rebuild them from ``(seed, index)``, so nothing but
indices crosses the pipe. ``NUMBA_BOUNDSCHECK=1`` in a worker's environment makes an
out-of-bounds access an ``IndexError`` (counted as ``other`` or ``corrupt``); its kernels
are compiled into their own cache folder (``BOUNDSCHECK_CACHE``).

Run ``python -m tests.fuzz_states --cases 3000`` from the repository root (or the file by
path, to fuzz another checkout on ``PYTHONPATH``) for the counts table.
"""

from __future__ import annotations

import argparse
import copy
import json
import os
import select
import subprocess
import sys
import tempfile
import time
from collections import Counter
from decimal import Decimal
from pathlib import Path
from typing import Any

import numpy as np

from caylus_env.caylus.engine.constants import PHASE_NAMES

OUTCOMES = ("clear", "other", "accepted", "corrupt", "crash", "hang")
INT16_EXTREMES = (-32768, -32767, -1, 32767, 32768, 65535, 2**31, 2**63, -(2**63) - 1)
ODD_VALUES: tuple[Any, ...] = (
    "5",
    " 5\n",
    b"4",
    5.0,
    7.9,
    -0.5,
    float("nan"),
    float("inf"),
    Decimal("7.5"),
    True,
    False,
    None,
    [],
    {},
    "false",
    "no",
    [1],
    np.int16(3),
    np.float32(2.0),
)
MOVES_AFTER_LOAD = 40  # random legal moves played (with invariants checked) after a load
CASE_TIMEOUT_S = 20.0  # watchdog per case (the first case of a worker also imports)
START_TIMEOUT_S = 240.0
BOUNDSCHECK_CACHE = Path(tempfile.gettempdir()) / "caylus_env_numba_boundscheck"


# ---------------------------------------------------------------------------------------
# Positions from play.
# ---------------------------------------------------------------------------------------
def sample_positions(seed: int, per_game: int = 3, max_games: int = 4000) -> list[dict]:
    """State dicts from random games until every decision kind has been the top decision.

    The policy mixes per-game random action preferences, starts rich in money and cubes
    (so rare decisions such as ``residence`` come up) and a one-step look-ahead towards
    decision kinds not yet seen.
    """
    from caylus_env.caylus.engine import NUM_ACTIONS, Game, GameConfig
    from caylus_env.caylus.engine.constants import DECISION_NAMES

    rng = np.random.default_rng(seed)
    seen: set[str] = set()
    positions: list[dict] = []
    for g in range(max_games):
        n = 2 + g % 4
        cfg = GameConfig(
            num_players=n,
            simplified_favors=g % 9 == 8,
            jeweller=g % 5 == 4,
            house_cap=g % 7 == 6,
            lawyer_prestige=3 if g % 3 == 2 else 4,
        )
        game = Game(cfg, seed=int(rng.integers(2**31)))
        if g % 4:
            d = game.state_dict()
            for p in d["players"]:
                p["money"] = int(rng.integers(5, 40))
                p["cubes"] = {k: int(rng.integers(0, 8)) for k in p["cubes"]}
            game = Game.from_state_dict(d)
        weights = np.exp(2.0 * rng.standard_normal(NUM_ACTIONS))
        keep = set(rng.choice(400, per_game, replace=False).tolist())
        step = 0
        while not game.is_terminal():
            kind = game.decision().kind
            if kind not in seen or step in keep:
                positions.append(game.state_dict())
                seen.add(kind)
            legal = game.legal_actions()
            action = None
            if rng.random() < 0.2:
                for a in legal:
                    probe = game.clone()
                    probe.apply(a)
                    if not probe.is_terminal() and probe.decision().kind not in seen:
                        action = a
                        break
            if action is None:
                w = weights[legal]
                action = legal[int(rng.choice(len(legal), p=w / w.sum()))]
            game.apply(action)
            step += 1
        if len(seen) == len(DECISION_NAMES) and g >= 20:
            return positions
    missing = sorted(set(DECISION_NAMES) - seen)
    raise RuntimeError(f"sampling reached no position for decision kinds {missing}")


# ---------------------------------------------------------------------------------------
# Mutations.
# ---------------------------------------------------------------------------------------
def _paths(node: Any, prefix: tuple = ()) -> list[tuple]:
    out = [prefix] if prefix else []
    if isinstance(node, dict):
        for k, v in node.items():
            out += _paths(v, (*prefix, k))
    elif isinstance(node, list):
        for i, v in enumerate(node):
            out += _paths(v, (*prefix, i))
    return out


def _get(d: Any, path: tuple) -> Any:
    for k in path:
        d = d[k]
    return d


def _set(d: Any, path: tuple, value: Any) -> None:
    _get(d, path[:-1])[path[-1]] = value


def _entry_templates(pool: list[dict]) -> dict[str, dict[str, list]]:
    """Every pending kind seen in the pool, with the values seen for each of its arguments
    (so the fuzzer needs no schema, and runs against any version of the engine)."""
    templates: dict[str, dict[str, list]] = {}
    for d in pool:
        for e in d["pending"]:
            args = templates.setdefault(e["kind"], {})
            for k, v in e.items():
                if k not in ("kind", "player") and v not in args.setdefault(k, []):
                    args[k].append(v)
    return templates


def _random_entry(rng: np.random.Generator, n: int, templates: dict) -> dict:
    kinds = sorted(templates)
    kind = kinds[int(rng.integers(len(kinds)))]
    seat = int(rng.integers(-1, n + 1))
    entry: dict[str, Any] = {"kind": kind, "player": None if seat < 0 else seat}
    for name, values in templates[kind].items():
        v = values[int(rng.integers(len(values)))]
        if isinstance(v, int) and not isinstance(v, bool) and rng.random() < 0.5:
            v = int(rng.choice([v - 1, v + 1, 0, n, 8, 33, -32768, 32767]))
        entry[name] = copy.deepcopy(v)
    return entry


def mutate(d: dict, rng: np.random.Generator, templates: dict) -> tuple[dict, str]:
    """A mutated deep copy of ``d`` (1-3 mutations) and a short description."""
    d = copy.deepcopy(d)
    n = len(d.get("players", [])) or 2
    done = []
    for _ in range(int(rng.integers(1, 4))):
        paths = _paths(d)
        if not paths:
            break
        path = paths[int(rng.integers(len(paths)))]
        value = _get(d, path)
        op = int(rng.integers(10))
        if op == 0:  # type swap
            _set(d, path, ODD_VALUES[int(rng.integers(len(ODD_VALUES)))])
        elif op in (1, 2):  # out-of-range / int16 extremes on an int leaf
            ints = [
                p for p in paths if isinstance(_get(d, p), int) and not isinstance(_get(d, p), bool)
            ]
            if ints:
                path = ints[int(rng.integers(len(ints)))]
                v = _get(d, path)
                choices = [v - 1, v + 1, -1, n, n + 1, 5, 6, 29, 99, *INT16_EXTREMES]
                _set(d, path, choices[int(rng.integers(len(choices)))])
        elif op == 3:  # delete a key
            parent = _get(d, path[:-1])
            if isinstance(parent, dict):
                del parent[path[-1]]
            elif isinstance(parent, list):
                parent.pop(path[-1])
        elif op == 4:  # add a key (a typo of an existing one, or a new one)
            parent = _get(d, path[:-1]) if isinstance(value, (int, str, bool)) else value
            if isinstance(parent, dict):
                parent[f"{path[-1]}x" if rng.random() < 0.5 else "extra"] = 1
        elif op == 5:  # pending: add / remove / edit entries
            pending = d.get("pending")
            if isinstance(pending, list):
                what = int(rng.integers(3))
                if what == 0 or not pending:
                    pending.insert(
                        int(rng.integers(len(pending) + 1)), _random_entry(rng, n, templates)
                    )
                elif what == 1:
                    pending.pop(int(rng.integers(len(pending))))
                else:
                    e = pending[int(rng.integers(len(pending)))]
                    fresh = _random_entry(rng, n, templates)
                    key = list(fresh)[int(rng.integers(len(fresh)))]
                    if isinstance(e, dict):
                        e[key] = fresh[key]
        elif op == 6:  # seat swap
            seats = [
                p for p in paths if p and p[-1] in ("owner", "worker", "lawyer_pending", "player")
            ]
            seats += [
                p
                for p in paths
                if len(p) >= 2
                and p[0]
                in (
                    "turn_order",
                    "passing_order",
                    "stables",
                    "castle_workers",
                    "special_workers",
                    "inn",
                )
            ]
            if seats:
                path = seats[int(rng.integers(len(seats)))]
                _set(d, path, [None, -1, 0, 1, n - 1, n, MAX_SEAT_PROBE][int(rng.integers(7))])
        elif op == 7:  # list length change
            lists = [p for p in paths if isinstance(_get(d, p), list)]
            if lists:
                target = _get(d, lists[int(rng.integers(len(lists)))])
                if target and rng.random() < 0.5:
                    target.pop(int(rng.integers(len(target))))
                else:
                    target.append(copy.deepcopy(target[-1]) if target else 0)
        elif op == 8:  # flip a flag
            flags = [p for p in paths if isinstance(_get(d, p), bool)]
            if flags:
                path = flags[int(rng.integers(len(flags)))]
                _set(d, path, not _get(d, path))
        else:  # clock: phase and cursor
            if rng.random() < 0.5:
                d["phase"] = PHASE_NAMES[int(rng.integers(len(PHASE_NAMES)))]
            else:
                d["cursor"] = int(rng.choice([-1, 0, 1, 3, 5, 6, 7, 28, 29, 30, -32768]))
        done.append(f"{op}:{'/'.join(map(str, path))}")
    return d, " ".join(done)


MAX_SEAT_PROBE = 4


def make_case(
    pool: list[dict], seed: int, index: int, templates: dict | None = None
) -> tuple[dict, str]:
    """Case ``index`` of a run: a pure function of the pool, the seed and the index."""
    templates = _entry_templates(pool) if templates is None else templates
    rng = np.random.default_rng([seed, index])
    return mutate(pool[int(rng.integers(len(pool)))], rng, templates)


# ---------------------------------------------------------------------------------------
# Running one case (in a worker).
# ---------------------------------------------------------------------------------------
def run_case(d: dict, seed: int) -> tuple[str, str]:
    from caylus_env.caylus.engine import Game
    from caylus_env.caylus.engine.invariants import check_invariants

    try:
        game = Game.from_state_dict(d)
    except ValueError as e:
        return ("clear", "") if str(e) else ("other", "ValueError without a message")
    except Exception as e:
        return "other", f"{type(e).__name__}: {e}"[:200]
    rng = np.random.default_rng(seed)
    try:
        for move in range(MOVES_AFTER_LOAD + 1):
            code = int(check_invariants(game.state))
            if code != 0:
                return "corrupt", f"invariant {code} after {move} moves"
            if game.is_terminal() or move == MOVES_AFTER_LOAD:
                break
            legal = game.legal_actions()
            game.apply(legal[int(rng.integers(len(legal)))])
    except Exception as e:
        return "corrupt", f"{type(e).__name__} in play: {e}"[:200]
    return "accepted", ""


def worker(pool_file: str, seed: int, start: int, stop: int) -> None:
    """Run cases ``start..stop-1``, one result line each: ``index outcome detail``."""
    pool = json.loads(Path(pool_file).read_text())
    templates = _entry_templates(pool)
    for d in pool[:3]:  # compile every kernel before the watchdog's per-case clock starts
        run_case(d, seed)
    for i in range(start, stop):
        d, _ = make_case(pool, seed, i, templates)
        outcome, detail = run_case(d, seed + i)
        sys.stdout.write(f"{i} {outcome} {detail}\n".replace("\n", " ").rstrip() + "\n")
        sys.stdout.flush()


# ---------------------------------------------------------------------------------------
# The driver: workers under a watchdog.
# ---------------------------------------------------------------------------------------
def fuzz(
    cases: int,
    seed: int = 0,
    jobs: int = 2,
    boundscheck: bool = False,
    pool: list[dict] | None = None,
) -> tuple[Counter, dict[str, list[str]]]:
    """Run ``cases`` cases in ``jobs`` parallel workers.

    Returns:
        The count of each outcome, and up to 5 examples (index, description, detail) of
        each outcome that is not ``clear`` or ``accepted``.
    """
    pool = sample_positions(seed) if pool is None else pool
    counts: Counter = Counter({o: 0 for o in OUTCOMES})
    examples: dict[str, list[str]] = {o: [] for o in OUTCOMES}
    env = dict(os.environ)
    if boundscheck:
        # Numba's cache does not key on the bounds-check flag: checked kernels get their
        # own cache folder (compiled once, about half a minute, then reused).
        env["NUMBA_BOUNDSCHECK"] = "1"
        env["NUMBA_CACHE_DIR"] = str(BOUNDSCHECK_CACHE)
    with tempfile.TemporaryDirectory() as tmp:
        pool_file = str(Path(tmp) / "pool.json")
        Path(pool_file).write_text(json.dumps(pool))
        chunks = [(cases * j // jobs, cases * (j + 1) // jobs) for j in range(jobs)]
        running = [_Runner(pool_file, seed, a, b, env) for a, b in chunks if b > a]
        while running:
            for r in list(running):
                for index, outcome, detail in r.poll():
                    counts[outcome] += 1
                    if outcome not in ("clear", "accepted") and len(examples[outcome]) < 5:
                        _, what = make_case(pool, seed, index)
                        examples[outcome].append(f"case {index} [{what}] {detail}")
                if r.done:
                    running.remove(r)
            time.sleep(0.005)
    return counts, examples


class _Runner:
    """One worker process over a range of cases, restarted past a crash or a hang."""

    def __init__(self, pool_file: str, seed: int, start: int, stop: int, env: dict) -> None:
        self.pool_file, self.seed, self.next, self.stop, self.env = (
            pool_file,
            seed,
            start,
            stop,
            env,
        )
        self.proc: subprocess.Popen | None = None
        self.buffer = b""
        self.done = False
        self._spawn()

    def _spawn(self) -> None:
        if self.next >= self.stop:
            self.done = True
            return
        self.proc = subprocess.Popen(
            [
                sys.executable,
                str(Path(__file__).resolve()),
                "--worker",
                self.pool_file,
                str(self.seed),
                str(self.next),
                str(self.stop),
            ],
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
            env=self.env,
        )
        self.deadline = time.monotonic() + START_TIMEOUT_S

    def poll(self) -> list[tuple[int, str, str]]:
        if self.done or self.proc is None:
            return []
        results = []
        fd = self.proc.stdout.fileno()
        ready, _, _ = select.select([fd], [], [], 0)
        if ready:
            chunk = os.read(fd, 65536)
            if chunk:
                self.buffer += chunk
                *lines, self.buffer = self.buffer.split(b"\n")
                for line in lines:
                    index, outcome, *rest = line.decode().split(" ", 2)
                    results.append((int(index), outcome, rest[0] if rest else ""))
                    self.next = int(index) + 1
                    self.deadline = time.monotonic() + CASE_TIMEOUT_S
                return results
            code = self.proc.wait()
            if self.next < self.stop:  # died before finishing its range: a crash
                results.append((self.next, "crash", f"exit code {code}"))
                self.next += 1
            self._spawn()
            return results
        if time.monotonic() > self.deadline:
            self.proc.kill()
            self.proc.wait()
            results.append((self.next, "hang", f"no result in {CASE_TIMEOUT_S:.0f} s"))
            self.next += 1
            self._spawn()
        return results


def table(counts: Counter) -> str:
    """The counts as a two-line table."""
    head = ["cases", *OUTCOMES]
    row = [sum(counts.values()), *(counts[o] for o in OUTCOMES)]
    return "  ".join(f"{h:>8}" for h in head) + "\n" + "  ".join(f"{v:>8}" for v in row)


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    if argv and argv[0] == "--worker":
        worker(argv[1], int(argv[2]), int(argv[3]), int(argv[4]))
        return 0
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--cases", type=int, default=2000)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--boundscheck", action="store_true", help="NUMBA_BOUNDSCHECK=1")
    args = parser.parse_args(argv)
    counts, examples = fuzz(args.cases, args.seed, args.jobs, args.boundscheck)
    print(table(counts))
    for outcome, lines in examples.items():
        for line in lines:
            print(f"{outcome}: {line}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
