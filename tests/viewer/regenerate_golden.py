"""Rewrite the golden SVG pictures of every game's drawing from their stored positions.

Run after an intended change in a drawing, then review the diff of the golden folders:

    python tests/viewer/regenerate_golden.py

Each ``<folder>/<name>.json`` holds a position (``Game.state_dict()`` format), the agents of its
seats and, for a game whose drawing keeps what the state forgets, the extra arguments of its
``position_svg`` (Puerto Rico's role ``takers``); ``<name>.svg`` is what the game's
``viewer.position_svg`` draws for it. Puerto Rico's positions are made by
``tests/puerto_rico/golden/regenerate_golden.py``.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
#: Each game's folder of golden positions and pictures.
GOLDEN = {
    "caylus": ROOT / "tests" / "viewer" / "golden",
    "puerto_rico": ROOT / "tests" / "puerto_rico" / "golden",
    "caylus_1303": ROOT / "tests" / "viewer" / "golden" / "caylus_1303",
}


def golden_cases(game: str | None = None) -> list[tuple[str, Path, Path]]:
    """``(game, position json, golden svg)`` of every stored position (of ``game``)."""
    return [
        (name, path, path.with_suffix(".svg"))
        for name, folder in GOLDEN.items()
        if game in (None, name)
        for path in sorted(folder.glob("*.json"))
    ]


def draw(game: str, position_path: Path) -> str:
    """The SVG the game's drawing makes of a stored position."""
    from caylus_env.core.registry import game_spec

    stored = json.loads(position_path.read_text(encoding="utf-8"))
    extra = {k: v for k, v in stored.items() if k not in ("position", "agents")}
    viewer = game_spec(game).module("viewer")
    return viewer.position_svg(stored["position"], tuple(stored["agents"]), **extra)


def main() -> None:
    from caylus_env.core.fileio import atomic_write_text

    for game, position_path, svg_path in golden_cases():
        atomic_write_text(svg_path, draw(game, position_path))
        print(f"wrote {svg_path.relative_to(ROOT)}")


if __name__ == "__main__":
    sys.path.insert(0, str(ROOT))
    main()
