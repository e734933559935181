"""Every notebook runs top to bottom in a real Jupyter kernel, as a reader runs it.

``nbclient`` starts an IPython kernel (``ipykernel``, the ``dev`` extra) and executes the cells in
order, so kernel-only behaviour is exercised: ``__name__`` as IPython sets it, rich and image
display, and worker processes spawned from a kernel. The notebooks keep their settings tiny
(a few games), so the whole run takes seconds once the engine is compiled. The committed file
must also carry its outputs (GitHub shows them to readers who do not run it), and the tournament
cell must work when pasted into a script, as its markdown says.
"""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

import nbformat
import pytest
from nbclient import NotebookClient

from tests.conftest import warm_kernels

NOTEBOOKS = sorted((Path(__file__).resolve().parents[2] / "notebooks").glob("*.ipynb"))

CELL_TIMEOUT_S = 300
"""Per cell, a hang backstop: every game's engine and env kernels are compiled before the
kernel starts (`_warm`)."""

KERNEL_START_TIMEOUT_S = 120

KEY_OUTPUTS: dict[str, tuple[str, ...]] = {
    "quickstart.ipynb": (
        # the registered games, each in its own score word
        r"^caylus +Caylus: 2-5 players, scored in prestige$",
        r"^puerto_rico +Puerto Rico: 2-5 players, scored in victory points$",
        # the engine game and the env game end with the result read from the game; the record
        # is the shared one, and the env's last infos hold the shared keys and the game's own
        r"^\d+ decisions; final prestige \[[\d ]+\] ranks \[[\d. ]+\]$",
        r"^record: caylus FinalResult\(scores=\([\d, ]+\), ranks=\([\d., ]+\), "
        r"end='terminated'\)$",
        r"^player_\d \{'final_score': \d+, 'rank': [\d.]+, 'final_prestige': \d+\}$",
        r"^final prestige \[[\d ]+\] ranks \[[\d. ]+\]$",
        # sampling under the mask never puts probability on an illegal action
        r"^\d+ decisions, 167 logits each; illegal probability mass: 0\.0$",
        # the process-pool tournament and the in-process one with a notebook-defined agent
        r"^castle +win rate \d\.\d\d  mean rank \d\.\d\d$",
        r"^economy +win rate \d\.\d\d  mean rank \d\.\d\d$",
        r"^greedy +win rate \d\.\d\d  mean rank \d\.\d\d$",
        # Caylus 1303: its decisions as data, hidden prestige seen from a seat, its bots
        r"^caylus_1303 +Caylus 1303 \(reconstructed rules\): 2-5 players, scored in prestige$",
        r"^D5 worker_income \(LOW\): \{'base'",
        r"^player_\d sees prestige \[[\d.]+ 0\. +0\. *\] \(its own first, the others hidden\)",
        r"^Caylus 1303 \(reconstructed rules\) final prestige \[[\d ]+\] ranks \[[\d. ]+\]$",
        r"^constructor +win rate \d\.\d\d  mean rank \d\.\d\d$",
        r"^deliverer +win rate \d\.\d\d  mean rank \d\.\d\d$",
    ),
    "datasets.ipynb": (
        # generated (the manifest names the format and the game), read back by pyarrow and
        # polars, batched, and plotted
        r"^format caylus-dataset/2, game caylus$",
        r"^\d+ games, \d+ decisions, [\d.]+ bytes a decision$",
        r"^pyarrow: \d+ decision rows, \d+ games$",
        r"^polars: \d+ decision kinds$",
        r"^batch: obs \(256, \d+\) float32, mask \(256, 167\) bool$",
        r"^win rate by seat: 0: [\d.]+, 1: [\d.]+, 2: [\d.]+$",
    ),
    "puerto_rico.ipynb": (
        # the game's spec, the engine's expansion draft by name, its random game replayed
        # through the shared record, the env game
        r"^Puerto Rico: 2-5 players, scored in victory points$",
        r"^next decision: Decision\(kind='draft', player=1, args=\{\}\)$",
        r"^\d+ decisions in \d+ rounds; final VP \[[\d ]+\] ranks \[[\d. ]+\]$",
        r"^record: puerto_rico FinalResult\(scores=\([\d, ]+\), ranks=\([\d., ]+\), "
        r"end='terminated'\)$",
        r"^player_\d \{'final_score': \d+, 'rank': [\d.]+\}$",
        # the hidden plantation order is not in any seat's observation (Puerto Rico rules 6.8)
        r"^plantation_stack piece: \[[\d.]+\]$",
        r"^every seat's observation unchanged by the hidden order: True$",
        # the bots' game, the tournament's leaderboard, the replay page, the dataset
        r"^final VP \[[\d ]+\] ranks \[[\d. ]+\] after \d+ rounds$",
        r"^shipper +win rate \d\.\d\d  mean rank \d\.\d\d$",
        r"^builder +win rate \d\.\d\d  mean rank \d\.\d\d$",
        r"^mcts:25 +win rate \d\.\d\d  mean rank \d\.\d\d$",
        r"^replay page: replay\.html, \d+ kB$",
        r"^24 puerto_rico games, \d+ decisions, [\d.]+ bytes a decision$",
        r"^first game's scores: \[[\d, ]+\] ranks: \[[\d., ]+\]$",
        r"^batch: obs \(256, \d+\) float32, mask \(256, \d+\) bool$",
    ),
    "train_ppo.ipynb": (
        # the tiny run's files, its learning curve, the checkpoint as an agent, a tournament
        r"^last checkpoint: step-000000008192$",
        r"^step +\d+  vs random +score [\d.]+  \[[\d.]+, [\d.]+\]$",
        r"^step +\d+  vs economy +score [\d.]+  \[[\d.]+, [\d.]+\]$",
        r"^Best: step-\d+$",
        r"^trained on: caylus$",
        r"^final prestige \[[\d ]+\] returns \[[-\d., ]+\]$",
        r"^ppo-2p +win rate \d\.\d\d  mean rank \d\.\d\d$",
    ),
}
"""Lines each notebook must print (regexes, one per line of output); a new notebook declares its own."""


def stdout_of(nb: nbformat.NotebookNode) -> str:
    return "".join(
        "".join(out["text"]) if isinstance(out["text"], list) else out["text"]
        for cell in nb.cells
        if cell.cell_type == "code"
        for out in cell.get("outputs", [])
        if out["output_type"] == "stream" and out["name"] == "stdout"
    )


def check_ran(nb: nbformat.NotebookNode, name: str) -> None:
    """Every code cell ran, in order, without error, and the key lines are there."""
    code = [c for c in nb.cells if c.cell_type == "code"]
    counts = [c.get("execution_count") for c in code]
    assert counts == list(range(1, len(code) + 1)), f"{name}: execution counts {counts}"
    for i, cell in enumerate(code):
        errors = [o for o in cell.get("outputs", []) if o["output_type"] == "error"]
        assert not errors, (
            f"{name} code cell {i} failed: {errors[0]['ename']}: {errors[0]['evalue']}"
        )
    text = stdout_of(nb)
    for pattern in KEY_OUTPUTS[name]:
        assert re.search(pattern, text, re.M), f"{name}: no output line matches {pattern!r}"


def test_there_is_a_notebook():
    assert NOTEBOOKS
    assert all(p.name in KEY_OUTPUTS for p in NOTEBOOKS), "declare each notebook's key outputs"


@pytest.fixture(scope="module")
def _warm() -> None:
    from caylus_env.core.registry import GAME_NAMES

    warm_kernels(*GAME_NAMES, envs=True)


@pytest.mark.parametrize("path", NOTEBOOKS, ids=[p.name for p in NOTEBOOKS])
def test_notebook_runs_in_a_kernel(path, tmp_path, _warm):
    nb = nbformat.read(path, as_version=4)
    for cell in nb.cells:  # run from a clean slate, not the saved outputs
        if cell.cell_type == "code":
            cell.outputs, cell.execution_count = [], None
    client = NotebookClient(
        nb,
        timeout=CELL_TIMEOUT_S,
        startup_timeout=KERNEL_START_TIMEOUT_S,
        kernel_name="python3",
        resources={"metadata": {"path": str(tmp_path)}},  # the kernel's working directory
    )
    client.execute()  # raises CellExecutionError, naming the cell, on the first error
    check_ran(nb, path.name)


@pytest.mark.parametrize("path", NOTEBOOKS, ids=[p.name for p in NOTEBOOKS])
def test_saved_notebook_carries_its_outputs(path):
    nb = nbformat.read(path, as_version=4)
    nbformat.validate(nb)
    check_ran(nb, path.name)


def run_tournament_cell_as_script(notebook: str, tmp_path: Path) -> str:
    """The notebook's one ``__main__``-guarded tournament cell, run as ``ladder.py``; its stdout.

    The markdown says the cell runs unchanged in a script: its guard keeps the spawned
    workers, which import the script again, from starting the tournament anew."""
    cells = json.loads((NOTEBOOKS[0].parent / notebook).read_text())["cells"]
    sources = ["".join(c["source"]) for c in cells if c["cell_type"] == "code"]
    guarded = [s for s in sources if 'if __name__ == "__main__":' in s and "run_tournament" in s]
    assert len(guarded) == 1, "one tournament cell with the __main__ guard"
    script = tmp_path / "ladder.py"
    script.write_text(guarded[0])
    proc = subprocess.run(
        [sys.executable, script.name],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=CELL_TIMEOUT_S,
        check=False,
    )
    assert proc.returncode == 0, proc.stderr
    return proc.stdout


def test_quickstart_tournament_cell_runs_as_a_script(tmp_path, _warm):
    stdout = run_tournament_cell_as_script("quickstart.ipynb", tmp_path)
    rows = dict(re.findall(r"^(\w+) +win rate (\d\.\d\d)", stdout, re.M))
    assert set(rows) == {"random", "castle", "economy"}, stdout


def test_puerto_rico_tournament_cell_runs_as_a_script(tmp_path):
    stdout = run_tournament_cell_as_script("puerto_rico.ipynb", tmp_path)
    rows = dict(re.findall(r"^([\w:]+) +win rate (\d\.\d\d)", stdout, re.M))
    assert set(rows) == {"shipper", "builder", "mcts:25"}, stdout
