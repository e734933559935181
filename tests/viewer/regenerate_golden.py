"""Rewrite the golden SVG pictures of the viewer from their stored positions.

Run after an intended change in the drawing, then review the diff of ``tests/viewer/golden/``:

    python tests/viewer/regenerate_golden.py

Each ``golden/<name>.json`` holds a position (``state_to_dict`` format) and the agents of its
seats; ``golden/<name>.svg`` is what ``caylus_env.caylus.viewer.position_svg`` draws for it.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
GOLDEN = Path(__file__).resolve().parent / "golden"


def golden_cases() -> list[tuple[Path, Path]]:
    """``(position json, golden svg)`` of every stored position."""
    return [(path, path.with_suffix(".svg")) for path in sorted(GOLDEN.glob("*.json"))]


def draw(position_path: Path) -> str:
    """The SVG the viewer draws for a stored position."""
    from caylus_env.caylus.viewer import position_svg

    stored = json.loads(position_path.read_text(encoding="utf-8"))
    return position_svg(stored["position"], tuple(stored["agents"]))


def main() -> None:
    from caylus_env.core.fileio import atomic_write_text

    for position_path, svg_path in golden_cases():
        atomic_write_text(svg_path, draw(position_path))
        print(f"wrote {svg_path.relative_to(ROOT)}")


if __name__ == "__main__":
    sys.path.insert(0, str(ROOT))
    main()
