"""Do the fixed margins hold every label? For each chart of each page, the margins Plotly's
automargin finds (served by a checkout from before lab_ui.layout.fixed_margins, where
every axis had automargin) beside the margins the figure now carries, in Chromium. A chart whose
left or bottom margin is now smaller than automargin's would cut a label: printed as SHORT,
and the command exits 1.

    git worktree add /tmp/before d233b18          # the last commit before fixed margins
    .venv/bin/python -m bench.margins /tmp/before                  # every page, English, 1280x720
    .venv/bin/python -m bench.margins /tmp/before --lang zh --lecture
    .venv/bin/python -m bench.margins /tmp/before --phone qkv heatmap
"""

from __future__ import annotations

import argparse
import sys

from bench.browser_latency import IDLE_JS
from bench.common import launch_chromium, page_url_path, start_server

# Per chart: its title, the margins Plotly drew it with, and how many axes have automargin off.
MARGINS_JS = """() => [...document.querySelectorAll('[data-testid=stMain] .js-plotly-plot')].map(gd => {
  const s = gd._fullLayout._size, fl = gd._fullLayout;
  const fixed = Object.keys(gd.layout).filter(k => /^[xy]axis\\d*$/.test(k) && gd.layout[k].automargin === false);
  return {title: (fl.title && fl.title.text || '').replace(/<[^>]*>/g, '').slice(0, 28),
          l: s.l, b: s.b, fixed: fixed.length};
})"""


def margins(context, url: str) -> list[dict]:
    page = context.new_page()
    page.goto(url)
    page.wait_for_function(IDLE_JS, timeout=60000)
    page.wait_for_timeout(2500)  # automargin settles after the first draw
    found = page.evaluate(MARGINS_JS)
    page.close()
    return found


def main() -> None:
    from playwright.sync_api import sync_playwright

    from lab_ui.registry import PAGES

    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("before", help="a checkout from before fixed margins (its app.py is served beside this one)")
    parser.add_argument("pages", nargs="*", help="url paths (default: every registered page)")
    parser.add_argument("--lang", default="en", choices=("en", "zh"))
    parser.add_argument("--lecture", action="store_true", help="lecture mode (20 px text)")
    parser.add_argument("--phone", action="store_true", help="a 390 x 844 screen instead of 1280 x 720")
    args = parser.parse_args()
    pages = [page_url_path(p) for p in args.pages] or [p.url_path for p in PAGES]
    query = f"?lang={args.lang}" + ("&lecture=1" if args.lecture else "")
    viewport = {"width": 390, "height": 844} if args.phone else {"width": 1280, "height": 720}
    short = 0
    before, now = start_server(f"{args.before}/app.py"), start_server()
    with before, now, sync_playwright() as p:
        browser = launch_chromium(p)
        context = browser.new_context(viewport=viewport, locale="en-US")
        for path in pages:
            old, new = (margins(context, f"{server.url}/{path}{query}") for server in (before, now))
            for a, b in zip(old, new, strict=False):
                if not b["fixed"]:
                    continue
                verdict = "SHORT" if b["l"] < a["l"] - 0.5 or b["b"] < a["b"] - 0.5 else ""
                short += bool(verdict)
                print(
                    f"{path:22s} {a['title']:28s} left {a['l']:4.0f} -> {b['l']:4.0f}   "
                    f"bottom {a['b']:4.0f} -> {b['b']:4.0f}  {verdict}"
                )
        browser.close()
    print(f"{short} chart(s) with a margin smaller than automargin's")
    sys.exit(1 if short else 0)


if __name__ == "__main__":
    main()
