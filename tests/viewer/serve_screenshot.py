"""Take the screenshots of the pages the docs show, in Debian's Chromium (as the browser tests):

- ``docs/images/serve.png``: the ``caylus serve`` page of a Caylus game against the opponent
  the page proposes (the game's best shipped network), a few moves in, at the person's
  decision: the board's targets highlighted, the legal actions in words, the agent's move
  with its value estimate and its move probabilities;
- ``docs/images/puerto_rico_viewer.png``: the replay page of a 5-player Puerto Rico game with
  the expansion (the scripted bots and random, seed 5) at its last step, the VP chips run out
  and counted on paper.

Run from the repository root: ``python tests/viewer/serve_screenshot.py`` (``--out DIR`` writes
elsewhere). ``tests/viewer/test_serve_browser.py`` runs `take` into a temporary directory, so
the script the docs name keeps working.
"""

from __future__ import annotations

import argparse
import io
import sys
import tempfile
from pathlib import Path
from typing import Any

from PIL import Image
from playwright.sync_api import sync_playwright

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from caylus_cli.serve import RegistryAgents  # noqa: E402
from caylus_env.core.serve import PlayServer  # noqa: E402
from caylus_env.core.viewer import write_replay_page  # noqa: E402
from tests.viewer.conftest import bot_seats, chromium_executable, play  # noqa: E402

IMAGES = ROOT / "docs" / "images"
#: Each picture: its file, the viewport it is taken in, and the width it is saved at (None:
#: as taken).
SERVE = ("serve.png", (1600, 1000), 1100)
PUERTO_RICO_VIEWER = ("puerto_rico_viewer.png", (1600, 1150), None)
SHOTS = (SERVE, PUERTO_RICO_VIEWER)
#: The Puerto Rico game of the replay page's picture.
PUERTO_RICO_SEED = 5
PUERTO_RICO_OPTIONS = {"expansion": True}


def _save(png: bytes, out: Path, width: int | None) -> Path:
    image = Image.open(io.BytesIO(png)).convert("RGB")
    if width is not None:
        image = image.resize((width, image.height * width // image.width), Image.LANCZOS)
        image = image.quantize(colors=128)
    out.parent.mkdir(parents=True, exist_ok=True)
    image.save(out, optimize=True)
    return out


def _serve(browser, out: Path) -> Path:
    name, (w, h), width = SERVE
    server = PlayServer(RegistryAgents([]), tempfile.mkdtemp(), port=0)
    server.start()
    try:
        tab = browser.new_page(viewport={"width": w, "height": h})
        tab.goto(server.url)
        tab.select_option("#game", "caylus")
        tab.fill("#seed", "4")
        tab.select_option(".seat-kind[data-seat='1']", "agent")  # the page's proposal
        tab.click("#start")
        for _ in range(3):
            tab.wait_for_function("document.body.dataset.state === 'human'")
            tab.locator("#targets rect").first.click()
        tab.wait_for_function(
            "document.body.dataset.state === 'human' && document.querySelector('#recent .value')"
        )
        png = tab.screenshot(full_page=False)
        tab.close()
    finally:
        server.close()
    return _save(png, out / name, width)


def _puerto_rico_viewer(browser, out: Path) -> Path:
    name, (w, h), width = PUERTO_RICO_VIEWER
    seats = bot_seats("puerto_rico", 5)
    record = play("puerto_rico", seats, PUERTO_RICO_SEED, PUERTO_RICO_OPTIONS)
    with tempfile.TemporaryDirectory() as tmp:
        page = write_replay_page(record, Path(tmp) / "page.html", names=seats)
        tab = browser.new_page(viewport={"width": w, "height": h})
        tab.goto(page.as_uri() + f"#step={len(record.actions)}")
        tab.wait_for_function("window.caylusViewer !== undefined")
        png = tab.screenshot(full_page=False)
        tab.close()
    return _save(png, out / name, width)


def take(out: Path = IMAGES, browser: Any = None) -> list[Path]:
    """Take every picture of `SHOTS` into ``out`` (in ``browser``, a Playwright Chromium, or
    one of its own); the files written."""
    if browser is not None:
        return [_serve(browser, out), _puerto_rico_viewer(browser, out)]
    with sync_playwright() as playwright:
        own = playwright.chromium.launch(executable_path=chromium_executable())
        try:
            return take(out, own)
        finally:
            own.close()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=IMAGES, help="where the pictures go")
    for path in take(parser.parse_args().out):
        print(f"wrote {path} ({path.stat().st_size} bytes)")


if __name__ == "__main__":
    main()
