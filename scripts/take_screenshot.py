"""Retake docs/screenshot.png, the README's picture of the real app: the attention-heatmaps page in
English at 1280x720, scrolled to its presets, in Debian's Chromium.

    .venv/bin/python scripts/take_screenshot.py [--out docs/screenshot.png]

Starts its own server on a free loopback port (as the benchmarks do) and stops it afterwards.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT), str(ROOT / "tests" / "e2e")]

from browser_helpers import open_page  # noqa: E402
from playwright.sync_api import sync_playwright  # noqa: E402

from bench.common import start_server  # noqa: E402

FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking"]
# Scroll the page's own scroll area (Streamlit's main block) so the preset row is at the top.
SCROLL_TO_PRESETS = """() => {
  const main = document.querySelector('[data-testid=stMain]');
  const preset = [...main.querySelectorAll('button')].find(b => b.innerText.includes('I saw a saw'));
  main.scrollTop += preset.getBoundingClientRect().top - 20;
}"""


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--out", default=str(ROOT / "docs" / "screenshot.png"))
    args = parser.parse_args()
    server = start_server()
    try:
        with sync_playwright() as p:
            browser = p.chromium.launch(executable_path="/usr/bin/chromium", args=FLAGS)
            page = browser.new_page(viewport={"width": 1280, "height": 720}, device_scale_factor=1)
            open_page(page, f"{server.url}/heatmap?lang=en")
            page.evaluate(SCROLL_TO_PRESETS)
            page.wait_for_timeout(800)  # the scroll's repaint
            page.screenshot(path=args.out)
            browser.close()
    finally:
        server.stop()
    print(f"wrote {args.out}")


if __name__ == "__main__":
    main()
