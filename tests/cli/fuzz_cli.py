"""Bad command lines for every ``caylus`` command, each run in a watched worker (tests/watched.py).

`CASES` is the table: the arguments (``{fifo}``, ``{dir}``, ``{file}``, ``{missing}``,
``{tmp}``, ``{record}`` and ``{deep}`` are filled in by the worker: a FIFO nobody writes to, a
directory, a regular file (``{file}/sub`` is a path no ``mkdir`` can create), a path that does
not exist, a scratch folder, a valid record file, and JSON nested 100,000 deep) and a word the
error must name (the argument or what is wrong). Every case is a bad argument, which a command
refuses before any work (the rule of ``caylus_cli.app``). A worker runs each command in-process
through typer's ``CliRunner`` and classifies it:

- ``clear``: exit code 2, stderr is exactly one ``Error: ...`` line naming the word, nothing on
  stdout, no traceback;
- ``wrong``: exit code 0 (accepted), another exit code (1: the command started its work before
  it failed), output on stdout before the refusal (the work had started), or an error that
  does not name the word;
- ``changed``: a path under ``{tmp}`` that the command names exists after it was refused (a
  refused command must change nothing);
- ``multiline``: the error spans more lines (typer's rich box, click's ``Try '... --help'``
  hint);
- ``other``: a traceback (an exception other than ``SystemExit``);
- ``crash`` / ``hang``: the worker died / the watchdog fired (a FIFO read blocks forever).

Run ``python tests/cli/fuzz_cli.py`` from the repository root for the counts table.
"""

from __future__ import annotations

import argparse
import importlib.util
import os
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))  # the repository, run as a script
from tests.watched import parse_indices, ready, run_watched, table

OUTCOMES = ("clear", "wrong", "changed", "multiline", "other", "crash", "hang")
REFUSED = 2
"""The exit code of a command line refused before any work (``caylus_cli.app._fail``)."""

R2 = ("--agents", "random,random")
R1 = ("--agents", "random")  # a tournament lists each agent once
CASES: tuple[tuple[tuple[str, ...], str], ...] = (
    # the top level
    (("nosuch",), "nosuch"),
    (("--bogus",), "--bogus"),
    (("games", "--bogus"), "--bogus"),
    (("agents", "--game", "chess"), "chess"),
    (("agents", "--plugin", "no_such_plugin_module"), "no_such_plugin_module"),
    (("agents", "--bogus"), "--bogus"),
    # play
    (("play",), "--agents"),
    (("play", *R2, "--delay", "nan"), "--delay"),
    (("play", *R2, "--delay", "inf"), "--delay"),
    (("play", *R2, "--delay", "-1"), "--delay"),
    (("play", *R2, "--delay", "1e400"), "--delay"),
    (("play", *R2, "--delay", "abc"), "--delay"),
    (("play", *R2, "--seed", "-1"), "--seed"),
    (("play", *R2, "--seed", "99999999999999999999999"), "--seed"),
    (("play", *R2, "--seed", "1.5"), "--seed"),
    (("play", *R2, "--players", "0"), "--players"),
    (("play", *R2, "--players", "999999999999"), "--players"),
    (("play", *R2, "--players", "nan"), "--players"),
    (("play", *R2, "--option", "x={deep}"), "--option"),
    (("play", *R2, "--option", "nokey"), "--option"),
    (("play", *R2, "--option", "no_such=1"), "no_such"),
    (("play", "--agents", "random,nobody"), "nobody"),
    (("play", *R2, "--game", "chess"), "chess"),
    (("play", *R2, "--html", "{dir}"), "--html"),
    (("play", *R2, "--bogus"), "--bogus"),
    # replay
    (("replay",), "file"),
    (("replay", "/dev/zero"), "/dev/zero"),
    (("replay", "{fifo}"), "fifo"),
    (("replay", "{missing}"), "missing"),
    (("replay", "{dir}"), "dir"),
    (("replay", "{record}", "--game-id", "-1"), "-1"),
    (("replay", "{record}", "--game-id", "99999999999999999999999"), "99999999999999999999999"),
    (("replay", "{record}", "--game", "chess"), "chess"),
    (("replay", "{record}", "--html", "{dir}"), "--html"),
    (("replay", "{record}", "--bogus"), "--bogus"),
    # tournament
    (("tournament",), "--agents"),
    (("tournament", *R1, "--players", "2", "--games", "-1", "--out", "{tmp}/t1"), "--games"),
    (("tournament", *R1, "--players", "2", "--games", "0", "--out", "{tmp}/t2"), "--games"),
    (("tournament", *R1, "--players", "2", "--games", "nan", "--out", "{tmp}/t3"), "--games"),
    (("tournament", *R1, "--players", "2", "--games", "1e30", "--out", "{tmp}/t4"), "--games"),
    (("tournament", *R1, "--players", "9", "--games", "2", "--out", "{tmp}/t5"), "--players"),
    (("tournament", *R1, "--players", "2", "--games", "2", "--out", "{tmp}/t6", "--seed", "-3"),
     "--seed"),
    (("tournament", *R1, "--players", "2", "--games", "2", "--out", "{tmp}/t7", "--workers",
      "-2"), "--workers"),
    (("tournament", *R1, "--players", "2", "--games", "2", "--out", "{tmp}/t8",
      "--move-time-limit", "nan"), "--move-time-limit"),
    (("tournament", *R1, "--players", "2", "--games", "2", "--out", "{tmp}/t9",
      "--move-time-limit", "-1"), "--move-time-limit"),
    (("tournament", *R1, "--players", "2", "--games", "2", "--out", "{tmp}/t10",
      "--option", "x={deep}"), "--option"),
    (("tournament", *R1, "--players", "2", "--games", "2", "--out", "/dev/zero"), "--out"),
    (("tournament", *R1, "--players", "2", "--games", "2", "--out", "{fifo}"), "--out"),
    (("tournament", *R1, "--players", "2", "--games", "2", "--out", "{tmp}/t11", "--backend",
      "bogus"), "--backend"),
    (("tournament", "--agents", "nobody,random", "--players", "2", "--games", "2", "--out",
      "{tmp}/t13"), "nobody"),
    (("tournament", "--agents", "randm,castle", "--players", "2", "--games", "2", "--out",
      "{tmp}/t14"), "did you mean 'random'"),
    (("tournament", "--agents", "random,castle", "--players", "2", "--games", "2", "--out",
      "{tmp}/t15", "--reference", "economy"), "--reference"),
    (("tournament", *R1, "--players", "2", "--games", "2", "--out", "{tmp}/t16",
      "--progress", "maybe"), "maybe"),
    (("tournament", *R1, "--players", "2", "--games", "2", "--out", "{file}"), "--out"),
    (("tournament", *R1, "--players", "2", "--games", "2", "--out", "{file}/sub"), "--out"),
    (("tournament", *R1, "--players", "2", "--games", "2", "--out", "{file}/sub/deeper"),
     "--out"),
    # duel
    (("duel",), "candidate"),
    (("duel", "random", "nobody", "--out", "{tmp}/d1"), "nobody"),
    (("duel", "random", "castle", "--out", "{tmp}/d2", "--alpha", "nan"), "--alpha"),
    (("duel", "random", "castle", "--out", "{tmp}/d3", "--alpha", "2"), "--alpha"),
    (("duel", "random", "castle", "--out", "{tmp}/d4", "--p0", "inf"), "--p0"),
    (("duel", "random", "castle", "--out", "{tmp}/d5", "--max-pairs", "-1"), "--max-pairs"),
    (("duel", "random", "castle", "--out", "{tmp}/d6", "--elo0", "nan"), "--elo0"),
    (("duel", "random", "castle", "--out", "{tmp}/d7", "--beta", "-0.5"), "--beta"),
    (("duel", "random", "castle", "--out", "{tmp}/d8", "--option", "x={deep}"), "--option"),
    (("duel", "random", "castle", "--out", "{file}/sub"), "--out"),
    # bench
    (("bench", "--repeats", "-1"), "--repeats"),
    (("bench", "--repeats", "nan"), "--repeats"),
    (("bench", "--players", "99"), "--players"),
    (("bench", "--num-envs", "0"), "--num-envs"),
    (("bench", "--threads", "-4"), "--threads"),
    (("bench", "--game", "chess"), "chess"),
    (("bench", "--json", "{dir}"), "--json"),
    # dataset
    (("dataset", "bogus"), "bogus"),
    (("dataset", "verify"), "directory"),
    (("dataset", "verify", "{missing}"), "missing"),
    (("dataset", "verify", "{dir}"), "dir"),
    (("dataset", "verify", "{fifo}"), "fifo"),
    (("dataset", "verify", "/dev/zero"), "/dev/zero"),
    (("dataset", "stats", "{missing}"), "missing"),
    (("dataset", "stats", "{fifo}"), "fifo"),
    (("dataset", "stats", "/dev/zero"), "/dev/zero"),
    (("dataset", "inspect", "{dir}"), "dir"),
    (("dataset", "inspect", "{dir}", "--limit", "-1"), "--limit"),
    (("dataset", "inspect", "{dir}", "--game-id", "nan"), "--game-id"),
    (("dataset", "inspect", "{dir}", "--game", "chess"), "chess"),
    (("dataset", "export", "{dir}"), "--out"),
    (("dataset", "export", "{missing}", "--out", "{tmp}/e1"), "missing"),
    (("dataset", "export", "{fifo}", "--out", "{tmp}/e2"), "fifo"),
    (("dataset", "export", "/dev/zero", "--out", "{tmp}/e3"), "/dev/zero"),
    (("dataset", "export", "{dir}", "--out", "{tmp}/e4"), "dir"),
    (("dataset", "export", "{dir}", "--out", "{tmp}/e5", "--game", "chess"), "chess"),
    (("dataset", "generate", *R1, "--players", "2", "--games", "-1", "--out", "{tmp}/g1"),
     "--games"),
    (("dataset", "generate", *R1, "--players", "2", "--games", "2", "--out", "{tmp}/g2",
      "--shard-games", "0"), "--shard-games"),
    (("dataset", "generate", *R1, "--players", "2-99", "--games", "2", "--out", "{tmp}/g3"),
     "--players"),
    (("dataset", "generate", *R1, "--players", "2", "--games", "2", "--out", "{tmp}/g4",
      "--option", "x={deep}"), "--option"),
    (("dataset", "generate", *R1, "--players", "2", "--games", "2", "--out", "/dev/zero"),
     "--out"),
    (("dataset", "generate", *R1, "--players", "2", "--games", "2", "--out", "{tmp}/g5",
      "--move-time-limit", "inf"), "--move-time-limit"),
    (("dataset", "generate", *R1, "--players", "2", "--games", "2", "--out", "{file}/sub"),
     "--out"),
    # train match (no [train] extra needed)
    (("train", "match"), "checkpoint"),
    (("train", "match", "{file}/sub"), "not a directory"),
    (("train", "match", "{fifo}"), "fifo"),
    (("train", "match", "{missing}"), "missing"),
    (("train", "match", "ppo-2p", "--games", "abc"), "--games"),
    (("train", "match", "ppo-2p", "--games", "0"), "--games"),
    (("train", "match", "ppo-2p", "--games", "99999999999"), "--games"),
    (("train", "match", "ppo-2p", "--seed", "-1"), "--seed"),
    (("train", "match", "ppo-2p", "--seed", "1.5"), "--seed"),
    (("train", "match", "ppo-2p", "--players", "9"), "--players"),
    (("train", "match", "ppo-2p", "--opponents", "nobody"), "nobody"),
    (("train", "match", "ppo-2p", "--opponents", "random,,economy"), "--opponents"),
    (("train", "match", "ppo-2p", "--game", "chess"), "chess"),
    (("train", "match", "ppo-2p", "--bogus"), "--bogus"),
)  # fmt: skip
#: ``caylus train`` cases, in the table when the [train] extra is installed (without it every
#: train command fails at once, saying how to install it).
TRAIN_CASES: tuple[tuple[tuple[str, ...], str], ...] = (
    (("train", "ppo", "--out", "{tmp}/p1", "--envs", "8", "--batch-size", "100"),
     "allowed: 1, 2, 4, 8, 16, 32, 64, 128, 256"),
    (("train", "ppo", "--out", "{tmp}/p2", "--n-steps", "0"), "--n-steps"),
    (("train", "ppo", "--out", "{tmp}/p3", "--envs", "-8"), "--envs"),
    (("train", "ppo", "--out", "{tmp}/p4", "--learning-rate", "nan"), "--learning-rate"),
    (("train", "ppo", "--out", "{tmp}/p5", "--opponents", "self:0.5,shiper:0.5"), "shiper"),
    (("train", "ppo", "--out", "{tmp}/p6", "--eval-opponents", "ecnomy"), "did you mean"),
    (("train", "ppo", "--out", "{file}/sub"), "--out"),
    (("train", "az", "--out", "{tmp}/a1", "--sims", "0"), "--sims"),
    (("train", "az", "--out", "{tmp}/a2", "--considered", "-4"), "--considered"),
    (("train", "az", "--out", "{tmp}/a3", "--players", "1"), "--players"),
    (("train", "az", "--out", "{tmp}/a4", "--init", "{fifo}"), "--init"),
    (("train", "az", "--out", "{tmp}/a5", "--init", "{missing}"), "--init"),
    (("train", "az", "--out", "{tmp}/a6", "--eval-opponents", "ecnomy"), "ecnomy"),
    (("train", "az", "--out", "{tmp}/a7", "--gate-score", "inf"), "--gate-score"),
    (("train", "az", "--out", "{tmp}/a:8"), "without ':'"),
    (("train", "az", "--out", "{tmp}/a10", "--guard-margin", "nan"), "--guard-margin"),
    (("train", "az", "--out", "{tmp}/a11", "--league", "town,,castle"), "--league"),
    (("train", "az", "--out", "{tmp}/a12", "--anchor-weight", "-0.5"), "--anchor-weight"),
    (("train", "az", "--out", "{file}/sub"), "--out"),
    (("train", "az", "--out", "{tmp}/a9", "--resume"), "no training run"),
)  # fmt: skip
if all(importlib.util.find_spec(m) is not None for m in ("torch", "sb3_contrib")):
    CASES += TRAIN_CASES


def _fill(arg: str, places: dict[str, str]) -> str:
    for key, value in places.items():
        arg = arg.replace("{" + key + "}", value)
    return arg


def _places(tmp: Path) -> dict[str, str]:
    """The worker's fixtures: a FIFO, a directory, a missing path, a record, deep JSON."""
    fifo, folder, file = tmp / "fifo", tmp / "dir", tmp / "file"
    os.mkfifo(fifo)
    folder.mkdir()
    file.write_text("a regular file\n")
    record = tmp / "record.json"
    import json
    import random

    from caylus_env.core.registry import DEFAULT_GAME, game_spec

    info = game_spec(DEFAULT_GAME)
    state = info.new_game(info.config(2), seed=1)
    rng = random.Random(1)
    while not state.is_over():
        state.apply(rng.choice(state.legal_actions()))
    record.write_text(json.dumps(state.record().to_dict()))
    return {
        "fifo": str(fifo),
        "dir": str(folder),
        "file": str(file),
        "missing": str(tmp / "missing"),
        "tmp": str(tmp),
        "record": str(record),
        "deep": "[" * 100_000,
    }


def run_case(args: tuple[str, ...], word: str, places: dict[str, str]) -> tuple[str, str]:
    """One command line in-process; ``(outcome, detail)``."""
    from typer.testing import CliRunner

    from caylus_cli.app import app

    filled = [_fill(a, places) for a in args]
    word = _fill(word, places)
    scratch = places["tmp"] + os.sep
    named = [Path(a) for a in filled if a.startswith(scratch)]
    before = {path: path.exists() for path in named}
    result = CliRunner().invoke(app, filled)
    err = result.stderr.strip()
    shown = " | ".join(err.splitlines())[:300]
    if result.exception is not None and not isinstance(result.exception, SystemExit):
        return "other", f"{type(result.exception).__name__}: {result.exception}"[:300]
    if result.exit_code == 0:
        return "wrong", "accepted (exit code 0)"
    lines = err.splitlines()
    if "Traceback" in result.output:
        return "other", shown
    if not lines or not lines[0].startswith("Error: ") or len(lines) != 1:
        return "multiline", shown
    if result.exit_code != REFUSED:
        return "wrong", f"exit code {result.exit_code}, not {REFUSED}: started work? {shown}"
    if result.stdout.strip():
        return "wrong", f"printed {result.stdout.strip()[:80]!r} before refusing: {shown}"
    if word.lower() not in lines[0].lower():
        return "wrong", f"does not name {word!r}: {shown}"
    created = [str(path) for path in named if path.exists() and not before[path]]
    if created:
        return "changed", f"refused, but created {created}: {shown}"
    return "clear", ""


def describe(index: int) -> str:
    return " ".join(a if len(a) < 40 else a[:20] + "..." for a in CASES[index][0])


WARM_MODULES = (
    "caylus_cli.app",
    "agents.tournament.duel",
    "agents.selfplay.generate",
    "caylus_env.datasets.export",
    "caylus_env.datasets.stats",
    "caylus_env.datasets.verify",
    "sb3_contrib",
    "training.az",
    "training.checkpoints",
    "training.league",
    "training.ppo",
    "training.runs",
)
"""The modules the commands import lazily, on their first call: torch and Stable-Baselines3
(``train``: 1,100 modules), pyarrow and pandas (``dataset``, ``replay``), matplotlib, SciPy and openskill
(``duel``, ``tournament``). Imported in the warm-up: the first case to reach one took 2-4 s
on an idle core, so at a load of 8 on two cores a 20 s case clock measured the import."""


def _warm_up() -> None:
    """Every game's kernels compiled (one random game each) and every module a command imports
    lazily (`WARM_MODULES`) imported before the case clock starts: a case then measures the
    command, not numba or an import."""
    import importlib
    import random

    from caylus_env.core.registry import GAME_NAMES, game_spec

    for name in GAME_NAMES:
        info = game_spec(name)
        state = info.new_game(info.config(2), seed=1)
        rng = random.Random(1)
        while not state.is_over():
            state.apply(rng.choice(state.legal_actions()))
    for module in WARM_MODULES:
        importlib.import_module(module)


def worker(args: list[str]) -> None:
    indices = parse_indices(args[0])
    with tempfile.TemporaryDirectory() as tmp:
        places = _places(Path(tmp))
        _warm_up()
        ready()
        for i in indices:
            outcome, detail = run_case(*CASES[i], places)
            print(f"{i} {outcome} {detail}".replace("\n", " "), flush=True)


def fuzz(jobs: int = 2, case_timeout: float = 20.0) -> tuple:
    """Every case of `CASES` in ``jobs`` watched workers."""
    return run_watched(
        Path(__file__).resolve(),
        [],
        len(CASES),
        jobs,
        describe,
        case_timeout=case_timeout,
        quiet=("clear",),
    )


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    if argv and argv[0] == "--worker":
        worker(argv[1:])
        return 0
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--jobs", type=int, default=2)
    args = parser.parse_args(argv)
    counts, examples = fuzz(args.jobs)
    print(table(counts, OUTCOMES))
    for outcome, lines in examples.items():
        for line in lines:
            print(f"{outcome}: {line}")
    return 0


__all__ = ["CASES", "OUTCOMES", "fuzz", "run_case"]

if __name__ == "__main__":
    sys.exit(main())
