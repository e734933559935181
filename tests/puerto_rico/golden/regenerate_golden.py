"""Rewrite the golden SVG pictures of the Puerto Rico viewer from their stored positions.

Run after an intended change in the drawing, then review the diff of
``tests/puerto_rico/golden/``:

    python tests/puerto_rico/golden/regenerate_golden.py

Each ``<name>.json`` here holds a position (``Game.state_dict()`` format), the agents of its
seats and the seat that picked each role taken this round; ``<name>.svg`` is what
``caylus_env.puerto_rico.viewer.position_svg`` draws for it (``tests/viewer/
regenerate_golden.py`` draws every game's). A missing position is made by playing the fixed
game of ``POSITIONS`` (scripted bots, seeded) up to its step.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[3]
GOLDEN = Path(__file__).resolve().parent
POSITIONS = {
    # name: (players, expansion, seed, agents, step): a mid-game position of round 8 or so
    # with buildings, occupied and empty circles, loaded ships and sold barrels.
    "position_4p_expansion": (4, True, 4, ("shipper", "builder", "random", "builder"), 200),
}


def make_position(players: int, expansion: bool, seed: int, agents: tuple[str, ...], step: int):
    """The stored form of the position after ``step`` actions of a fixed game."""
    from agents.registry import make_agent
    from caylus_env.puerto_rico.engine import Game, GameConfig
    from caylus_env.puerto_rico.viewer.position import ROLE_ACTIONS

    game = Game(GameConfig(num_players=players, expansion=expansion), seed)
    bots = [make_agent(a, "puerto_rico") for a in agents]
    for i, bot in enumerate(bots):
        bot.reset(i)
    takers: dict[str, int] = {}
    for _ in range(step):
        seat = game.current_player()
        action = bots[seat].act(game)
        if action in ROLE_ACTIONS:
            takers[ROLE_ACTIONS[action]] = seat
        game.apply(action)
    d = game.state_dict()
    takers = {r: s for r, s in takers.items() if d["roles"][r]["picked"]}
    return {"position": d, "agents": list(agents), "takers": takers}


def main() -> None:
    from caylus_env.core.fileio import atomic_write_text
    from tests.viewer.regenerate_golden import draw, golden_cases

    for name, spec in POSITIONS.items():
        path = GOLDEN / f"{name}.json"
        if not path.exists():
            atomic_write_text(path, json.dumps(make_position(*spec), indent=1) + "\n")
            print(f"wrote {path.relative_to(ROOT)}")
    for game, position_path, svg_path in golden_cases("puerto_rico"):
        atomic_write_text(svg_path, draw(game, position_path))
        print(f"wrote {svg_path.relative_to(ROOT)}")


if __name__ == "__main__":
    sys.path.insert(0, str(ROOT))
    main()
