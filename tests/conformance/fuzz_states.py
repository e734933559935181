"""A seeded mutation fuzzer of state dicts, for every registered game: hostile positions must
be refused or played safely.

Written once over the game contract (``caylus_env.core.contract``): positions come from
random play of the game (every player count and option set, games cut off by the decision
cap included, every decision kind of ``engine.DECISION_NAMES`` reached), then are mutated:
type swaps, out-of-range and int16-extreme ints, deleted and added keys, deep nesting,
pending entries added, removed and edited, seat swaps, list length changes, flags, the
clock, and splices (a value another position of the pool holds at the same key: a field
that is valid on its own but belongs to another moment of the game, such as a black-market
return left pending at a role pick). Each case is loaded with the game's
``Game.from_state_dict`` in a worker subprocess under a watchdog and classified:

- ``clear``: a ``ValueError`` (or subclass) with a one-line message, raised at load;
- ``other``: any other Python exception at load (a wrong exception type, a RecursionError);
- ``accepted``: loaded, then a bounded run of random legal moves kept every invariant;
- ``corrupt``: loaded, but a later move broke one of the game's invariants (the contract's
  ``kernels.check_invariants``), raised, put an observation outside its space, or reached
  a position the game's own loader refuses;
- ``crash``: the worker died without a Python error (a signal, heap corruption);
- ``hang``: the watchdog fired.

The caps mode (``caps=True``, ``--caps``) raises one int of each case (the case's mutations
applied or not) to the largest value the game's loader accepts, found by bisection in the
worker, and plays on to the end (at most ``MOVES_AFTER_END`` moves), reloading as above: a
position the loader accepts must stay loadable under any legal play. A case with a splice
plays on to the end too: what a splice leaves wrong may show only there.

Workers take many cases each and are restarted after a crash or a hang. The cases are a
pure function of the seed: workers rebuild them from ``(seed, index)``, so nothing but
indices crosses the pipe. ``NUMBA_BOUNDSCHECK=1`` in a worker's environment makes an
out-of-bounds access an ``IndexError`` (counted as ``other`` or ``corrupt``); its kernels
are compiled into their own cache folder (``watched.BOUNDSCHECK_CACHE``).

Run ``python -m tests.conformance.fuzz_states --game puerto_rico --cases 4000`` from the repository
root (or the file by path, to fuzz another checkout on ``PYTHONPATH``) for the counts table.
"""

from __future__ import annotations

import argparse
import copy
import json
import sys
import tempfile
from collections import Counter
from decimal import Decimal
from pathlib import Path
from typing import Any

import numpy as np

from caylus_env.core.registry import GAME_NAMES, game_spec

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))  # the repository, run as a script
from tests.watched import parse_indices, ready, run_watched, table

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
KIND_SAMPLES = 3  # positions the pool keeps of each decision kind met, at least
NAMING_PREFERENCE = 0.5  # how often the sampler takes an action naming a kind not seen enough
SPLICE_DEPTHS = 2  # a splice takes a whole field, a field of a field, or any value as often
MOVES_AFTER_END = 3000  # a case that plays on to the end stops after this many moves
INT16_MAX = 32767  # the largest value a caps case tries (every game's state is int16)
RELOAD_EVERY = 10  # moves between checks that the game's own loader takes the position back
DEEP = 5000  # nesting depth of the deep-nesting mutation (past Python's recursion limit)
#: Keys holding a seat (or a list of seats), in any game's state dict.
SEAT_KEYS = frozenset(
    {"owner", "worker", "lawyer_pending", "player", "picker", "governor", "turn_order",
     "passing_order", "stables", "castle_workers", "special_workers", "inn"}
)  # fmt: skip
#: Keys of a game's clock: which turn, phase step or counter the position is at.
CLOCK_KEYS = ("cursor", "step", "picks", "idle", "guest_step", "round", "turn", "decisions")
CASE_TIMEOUT_S = 20.0  # watchdog per case (a worker's first case has watched.START_TIMEOUT_S)


# ---------------------------------------------------------------------------------------
# Positions from play.
# ---------------------------------------------------------------------------------------
def sample_positions(game: str, seed: int, games: int = 16, per_game: int = 4) -> list[dict]:
    """State dicts of ``game`` from ``games`` random games: every player count and option
    set in turn, one game in four cut off by the decision cap (its last position kept), the
    first ``KIND_SAMPLES`` positions of each decision kind met and of each kind asked again
    in a row (what its first answer left: a black-market return already made, a bundle
    delivered), and ``per_game`` more per game.

    The policy mixes per-game random action preferences, a one-step look-ahead towards
    decision kinds not yet seen enough, and a preference for the actions that name such a
    kind (drafting, building or manning the building whose decision it is: the black
    market's return is asked only of a player who built and manned it).
    """
    spec = game_spec(game)
    engine = spec.engine()
    counts = list(spec.player_counts)
    option_sets = list(spec.option_sets.values())
    rng = np.random.default_rng(seed)
    seen: Counter = Counter()
    repeats: Counter = Counter()
    positions: list[dict] = []
    for g in range(games):
        options = dict(option_sets[(g // len(counts)) % len(option_sets)])
        truncating = spec.truncating_options is not None and g % 4 == 3
        if truncating:
            options.update(spec.truncating_options)
        config = spec.config(counts[g % len(counts)], **options)
        play = engine.Game(config, int(rng.integers(2**31)))
        weights = np.exp(2.0 * rng.standard_normal(engine.NUM_ACTIONS))
        keep = set(rng.choice(300, per_game, replace=False).tolist())
        step = 0
        last = None
        while not play.is_over():
            kind = play.decision().kind
            again = kind == last
            if (
                seen[kind] < KIND_SAMPLES
                or (again and repeats[kind] < KIND_SAMPLES)
                or step in keep
            ):
                positions.append(play.state_dict())
                seen[kind] += 1
                repeats[kind] += again
            last = kind
            legal = play.legal_actions()
            action = None
            wanted = [k for k in engine.DECISION_NAMES if seen[k] < KIND_SAMPLES]
            naming = [a for a in legal if any(k in play.action_to_string(a) for k in wanted)]
            if naming and rng.random() < NAMING_PREFERENCE:
                action = naming[int(rng.integers(len(naming)))]
            elif rng.random() < 0.1:
                for a in legal:
                    probe = play.clone()
                    probe.apply(a)
                    if not probe.is_over() and seen[probe.decision().kind] < KIND_SAMPLES:
                        action = a
                        break
            if action is None:
                w = weights[legal]
                action = legal[int(rng.choice(len(legal), p=w / w.sum()))]
            play.apply(action)
            step += 1
        if truncating or g % 8 == 0:
            positions.append(play.state_dict())  # the end: truncated or over
    return positions


# ---------------------------------------------------------------------------------------
# Mutations.
# ---------------------------------------------------------------------------------------
def _paths(node: Any, prefix: tuple = ()) -> list[tuple]:
    out = [prefix] if prefix else []
    if len(prefix) > 8:  # no descent into a deep-nesting mutation
        return out
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


def _has(d: Any, path: tuple) -> bool:
    for k in path:
        in_dict = isinstance(d, dict) and k in d
        in_list = isinstance(d, list) and isinstance(k, int) and k < len(d)
        if not (in_dict or in_list):
            return False
        d = d[k]
    return True


def _entry_templates(pool: list[dict]) -> dict[str, dict[str, list]]:
    """Every pending kind seen in the pool, with the values seen for each of its arguments
    (so the fuzzer needs no schema, and runs against any version of the engine)."""
    templates: dict[str, Any] = {"__phases__": sorted({d["phase"] for d in pool}), "__pool__": pool}
    for d in pool:
        for e in d["pending"]:
            args = templates.setdefault(e["kind"], {})
            for k, v in e.items():
                if k not in ("kind", "player") and v not in args.setdefault(k, []):
                    args[k].append(v)
    return templates


def _deep(rng: np.random.Generator) -> Any:
    """A value nested ``DEEP`` levels (lists or dicts), built without recursion."""
    value: Any = 0
    as_dict = rng.random() < 0.5
    for _ in range(DEEP):
        value = {"kind": value} if as_dict else [value]
    return value


def _random_entry(rng: np.random.Generator, n: int, templates: dict) -> dict:
    kinds = sorted(k for k in templates if not k.startswith("__"))
    kind = kinds[int(rng.integers(len(kinds)))]
    seat = int(rng.integers(-1, n + 1))
    entry: dict[str, Any] = {"kind": kind, "player": None if seat < 0 else seat}
    for name, values in templates[kind].items():
        v = values[int(rng.integers(len(values)))]
        if isinstance(v, int) and not isinstance(v, bool) and rng.random() < 0.5:
            v = int(rng.choice([v - 1, v + 1, 0, n, 8, 33, -32768, 32767]))
        entry[name] = copy.deepcopy(v)
    return entry


def mutate(d: dict, rng: np.random.Generator, templates: dict) -> tuple[dict, str, bool]:
    """A mutated deep copy of ``d`` (1-3 mutations), a short description, and whether a
    splice was among them."""
    d = copy.deepcopy(d)
    n = len(d.get("players", [])) or 2
    done = []
    spliced = False
    for _ in range(int(rng.integers(1, 4))):
        paths = _paths(d)
        if not paths:
            break
        path = paths[int(rng.integers(len(paths)))]
        value = _get(d, path)
        op = int(rng.integers(12))
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
            seats = [p for p in paths if p and p[-1] in SEAT_KEYS]
            seats += [p for p in paths if len(p) >= 2 and p[0] in SEAT_KEYS]
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
        elif op == 9:  # clock: the phase (one seen in the pool) or a counter
            clock = [k for k in CLOCK_KEYS if k in d]
            if rng.random() < 0.5 or not clock:
                phases = templates.get("__phases__", [])
                if phases:
                    d["phase"] = phases[int(rng.integers(len(phases)))]
            else:
                key = clock[int(rng.integers(len(clock)))]
                d[key] = int(rng.choice([-1, 0, 1, 2, 3, 5, 6, 7, 8, 28, 29, 30, 32767, -32768]))
        elif op == 10:  # splice: another position's value at the same path, one that
            # differs, at depth 1, 2 or any as often; such a case plays on to the end
            depth = int(rng.integers(SPLICE_DEPTHS + 1))
            shallow = [p for p in paths if len(p) == depth]
            if shallow:
                path = shallow[int(rng.integers(len(shallow)))]
            value = _get(d, path)
            pool = templates.get("__pool__", [])
            donors = [e for e in pool if _has(e, path) and _get(e, path) != value]
            if donors:
                donor = donors[int(rng.integers(len(donors)))]
                _set(d, path, copy.deepcopy(_get(donor, path)))
                spliced = True
        else:  # deep nesting in place of any value (the last mutation: nothing copies it)
            _set(d, path, _deep(rng))
            done.append(f"{op}:{'/'.join(map(str, path))}")
            break
        done.append(f"{op}:{'/'.join(map(str, path))}")
    return d, " ".join(done), spliced


MAX_SEAT_PROBE = 4


def make_case(
    pool: list[dict], seed: int, index: int, templates: dict | None = None, caps: bool = False
) -> tuple[dict, str, tuple | None, bool]:
    """Case ``index`` of a run: a pure function of the pool, the seed and the index. Returns
    the dict, a description, in the caps mode the path of the int to raise to the loader's
    cap (else None), and whether the case plays on to the end (a splice or a cap)."""
    templates = _entry_templates(pool) if templates is None else templates
    rng = np.random.default_rng([seed, index])
    base = pool[int(rng.integers(len(pool)))]
    if not caps:
        d, what, spliced = mutate(base, rng, templates)
        return d, what, None, spliced
    mutated = rng.random() < 0.5
    d, what, _ = mutate(base, rng, templates) if mutated else (copy.deepcopy(base), "", False)
    ints = [
        p for p in _paths(d) if isinstance(_get(d, p), int) and not isinstance(_get(d, p), bool)
    ]
    if not ints:
        return d, what, None, True
    path = ints[int(rng.integers(len(ints)))]
    return d, f"{what} cap:{'/'.join(map(str, path))}".strip(), path, True


# ---------------------------------------------------------------------------------------
# Running one case (in a worker).
# ---------------------------------------------------------------------------------------
def _observation_fault(engine: Any, observation: Any, game: Any) -> str:
    """What is wrong with the game's observations of the position (empty if nothing): every
    seat's and the absolute one must be finite and inside the observation space."""
    out = np.zeros(observation.OBS_SIZE, np.float32)
    for seat in (-1, *range(game.num_players)):
        out[:] = 0
        observation.encode_into(game.state, seat, out)
        if not np.isfinite(out).all() or (out < 0).any() or (out > observation.BOUNDS).any():
            return f"observation of seat {seat} outside its space"
    return ""


def _raise_to_cap(engine: Any, d: dict, path: tuple) -> None:
    """Set the int at ``path`` to the largest value ``engine``'s loader accepts from its own
    up to ``INT16_MAX`` (by bisection; left as it is if the loader refuses ``d`` already)."""
    node = _get(d, path[:-1])
    low, high = node[path[-1]], INT16_MAX
    while low < high:
        node[path[-1]] = mid = (low + high + 1) // 2
        try:
            engine.Game.from_state_dict(d)
        except ValueError:
            high = mid - 1
        else:
            low = mid
    node[path[-1]] = low


def run_case(
    game: str, d: dict, seed: int, cap: tuple | None = None, to_end: bool = False
) -> tuple[str, str]:
    """Load ``d`` as a position of ``game`` and play on from it (the module docstring); with
    ``cap``, raise that int to the loader's cap first; with ``to_end``, play on to the end."""
    spec = game_spec(game)
    engine = spec.engine()
    observation = spec.observation()
    check = engine.kernels.check_invariants
    moves = MOVES_AFTER_END if to_end else MOVES_AFTER_LOAD
    try:
        if cap is not None:
            engine.Game.from_state_dict(d)  # a refused case is refused as it is
            _raise_to_cap(engine, d, cap)
        play = engine.Game.from_state_dict(d)
    except ValueError as e:
        message = str(e)
        if not message or "\n" in message:
            return "other", "ValueError without a one-line message"
        return "clear", ""
    except Exception as e:
        return "other", f"{type(e).__name__}: {e}"[:200]
    rng = np.random.default_rng(seed)
    try:
        for move in range(moves + 1):
            code = int(check(play.state))
            if code != 0:
                return "corrupt", f"invariant {code} after {move} moves"
            over = play.is_over() or move == moves
            if move % RELOAD_EVERY == 0 or over:
                fault = _observation_fault(engine, observation, play)
                if fault:
                    return "corrupt", f"{fault} after {move} moves"
                try:
                    engine.Game.from_state_dict(play.state_dict())
                except ValueError as e:
                    return "corrupt", f"its own position refused after {move} moves: {e}"[:200]
            if over:
                break
            legal = play.legal_actions()
            play.apply(legal[int(rng.integers(len(legal)))])
    except Exception as e:
        return "corrupt", f"{type(e).__name__} in play: {e}"[:200]
    return "accepted", ""


def worker(game: str, pool_file: str, seed: int, caps: bool, indices: list[int]) -> None:
    """Run the cases ``indices``, one result line each: ``index outcome detail``."""
    pool = json.loads(Path(pool_file).read_text())
    templates = _entry_templates(pool)
    for d in pool[:3]:  # compile every kernel before the watchdog's per-case clock starts
        run_case(game, d, seed)
    ready()
    for i in indices:
        d, _, cap, to_end = make_case(pool, seed, i, templates, caps)
        outcome, detail = run_case(game, d, seed + i, cap, to_end)
        sys.stdout.write(f"{i} {outcome} {detail}\n".replace("\n", " ").rstrip() + "\n")
        sys.stdout.flush()


# ---------------------------------------------------------------------------------------
# The driver: workers under a watchdog.
# ---------------------------------------------------------------------------------------
def fuzz(
    game: str,
    cases: int,
    seed: int = 0,
    jobs: int = 2,
    boundscheck: bool = False,
    pool: list[dict] | None = None,
    caps: bool = False,
) -> tuple[Counter, dict[str, list[str]]]:
    """Run ``cases`` cases of ``game`` in ``jobs`` watched workers (`watched.run_watched`);
    ``caps`` runs the caps mode (the module docstring).

    Returns:
        The count of each outcome, and up to 5 examples (index, description, detail) of
        each outcome that is not ``clear`` or ``accepted``.
    """
    pool = sample_positions(game, seed) if pool is None else pool
    with tempfile.TemporaryDirectory() as tmp:
        pool_file = Path(tmp) / "pool.json"
        pool_file.write_text(json.dumps(pool))
        counts, examples = run_watched(
            Path(__file__).resolve(),
            [game, str(pool_file), str(seed), str(int(caps))],
            cases,
            jobs,
            lambda index: make_case(pool, seed, index, caps=caps)[1],
            boundscheck=boundscheck,
            case_timeout=CASE_TIMEOUT_S,
        )
    return counts, examples


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    if argv and argv[0] == "--worker":
        worker(argv[1], argv[2], int(argv[3]), argv[4] == "1", parse_indices(argv[5]))
        return 0
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--game", choices=GAME_NAMES, default=GAME_NAMES[0])
    parser.add_argument("--cases", type=int, default=2000)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--boundscheck", action="store_true", help="NUMBA_BOUNDSCHECK=1")
    parser.add_argument("--caps", action="store_true", help="raise an int to the loader's cap")
    args = parser.parse_args(argv)
    counts, examples = fuzz(
        args.game, args.cases, args.seed, args.jobs, args.boundscheck, caps=args.caps
    )
    print(table(counts, OUTCOMES))
    for outcome, lines in examples.items():
        for line in lines:
            print(f"{outcome}: {line}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
