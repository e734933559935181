"""Golden Puerto Rico playthroughs: one per player count, replayed and diffed line by line.

Each file lists every decision of a seeded random game (round, phase, decision, player,
action name, and the player's doubloons and VP after it) and the end. A failure means the
rules or the action names changed; if that is intended, regenerate the files with
``python tests/puerto_rico/test_pr_playthroughs.py`` and review the diff.
"""

from __future__ import annotations

import difflib
import re
import sys
from pathlib import Path

import numpy as np
import pytest

from caylus_env.core.fileio import atomic_write_bytes
from caylus_env.puerto_rico.engine import Game, GameConfig, action_to_string, string_to_action

DIR = Path(__file__).parent / "playthroughs"
FILES = sorted(DIR.glob("puerto_rico_*p_seed*.txt"))
HEADER = re.compile(r"^game puerto_rico (\d)p seed (\d+)( expansion)?$", re.M)


def render(
    num_players: int, seed: int, expansion: bool = False, actions: list[int] | None = None
) -> str:
    """The playthrough text; without ``actions`` they are drawn uniformly from the seed
    (with the expansion, the draft too is the players' random decisions)."""
    g = Game(GameConfig(num_players=num_players, expansion=expansion), seed=seed)
    rng = np.random.default_rng(seed)
    lines = [
        "# Golden playthrough; regenerate: python tests/puerto_rico/test_pr_playthroughs.py",
        f"game puerto_rico {num_players}p seed {seed}" + (" expansion" if expansion else ""),
    ]
    i = 0
    while g.legal_actions():
        d = g.decision()
        a = int(rng.choice(g.legal_actions())) if actions is None else actions[i]
        p = d.player
        round_, phase = g.round, g.phase
        g.apply(a)
        st = g.state_dict()["players"][p]
        lines.append(
            f"{i + 1:5d} r{round_:<3d} {phase:<16} {d.kind:<16} p{p} "
            f"{action_to_string(a):<28} ${st['money']} vp{st['vp']}"
        )
        i += 1
    end = "terminated" if g.is_terminal() else "truncated"
    lines.append(f"end {end} scores {g.scores().tolist()} ranks {g.ranks().tolist()}")
    return "\n".join(lines) + "\n"


def parse(text: str) -> tuple[int, int, bool, list[int]]:
    m = HEADER.search(text)
    assert m, "no 'game puerto_rico <n>p seed <s> [expansion]' line"
    actions = [
        string_to_action(line.split()[5])
        for line in text.splitlines()
        if re.match(r"^\s*\d+ r\d+ ", line)
    ]
    return int(m.group(1)), int(m.group(2)), m.group(3) is not None, actions


def test_every_player_count_has_a_golden_playthrough_with_and_without_the_expansion():
    found = {parse(p.read_text())[0:3:2] for p in FILES}
    assert found == {(n, e) for n in (2, 3, 4, 5) for e in (False, True)}


@pytest.mark.parametrize("path", FILES, ids=[p.name for p in FILES])
def test_playthrough_replays_identically(path):
    expected = path.read_text()
    n, seed, expansion, actions = parse(expected)
    actual = render(n, seed, expansion, actions)
    diff = "".join(
        difflib.unified_diff(
            expected.splitlines(True), actual.splitlines(True), "golden", "engine", n=2
        )
    )
    assert not diff, f"{path.name} differs from the engine:\n{diff[:4000]}"


if __name__ == "__main__":
    for n in (2, 3, 4, 5):
        for expansion in (False, True):
            suffix = "_expansion" if expansion else ""
            target = DIR / f"puerto_rico_{n}p_seed{n}{suffix}.txt"
            atomic_write_bytes(target, render(n, n, expansion).encode())
            print("wrote", target, file=sys.stderr)
