"""Write ``docs/images/serve.png``: the ``caylus serve`` page of a Caylus game against
``mcts:40``, a few moves in, at the person's decision (board targets highlighted, the agent's
root visits listed). Run from the repository root: ``python tests/viewer/serve_screenshot.py``
(Debian's Chromium, as the browser tests)."""

from __future__ import annotations

import io
import sys
import tempfile
from pathlib import Path

from PIL import Image
from playwright.sync_api import sync_playwright

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from caylus_cli.serve import RegistryAgents  # noqa: E402
from caylus_env.core.serve import PlayServer  # noqa: E402
from tests.viewer.conftest import chromium_executable  # noqa: E402

OUT = ROOT / "docs" / "images" / "serve.png"
WIDTH = 1100


def main() -> None:
    server = PlayServer(RegistryAgents([]), tempfile.mkdtemp(), port=0)
    server.start()
    try:
        with sync_playwright() as playwright:
            browser = playwright.chromium.launch(executable_path=chromium_executable())
            tab = browser.new_page(viewport={"width": 1600, "height": 1000})
            tab.goto(server.url)
            tab.select_option("#game", "caylus")
            tab.fill("#seed", "4")
            tab.select_option(".seat-kind[data-seat='1']", "agent")
            tab.fill(".seat-agent[data-seat='1']", "mcts:40")
            tab.click("#start")
            for _ in range(3):
                tab.wait_for_function("document.body.dataset.state === 'human'")
                tab.locator("#targets rect").first.click()
            tab.wait_for_function("document.body.dataset.state === 'human'")
            png = tab.screenshot(full_page=False)
            browser.close()
    finally:
        server.close()
    image = Image.open(io.BytesIO(png)).convert("RGB")
    image = image.resize((WIDTH, image.height * WIDTH // image.width), Image.LANCZOS)
    image = image.quantize(colors=128)
    OUT.parent.mkdir(parents=True, exist_ok=True)
    image.save(OUT, optimize=True)
    print(f"wrote {OUT} ({OUT.stat().st_size} bytes)")


if __name__ == "__main__":
    main()
