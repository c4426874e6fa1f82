"""Accessibility in a real browser: text contrast of at least 4.5:1 (WCAG AA) in the light and the
dark theme (the app follows the system's), no sideways scrolling at phone width (390 x 844), and
lecture mode's larger type."""

from __future__ import annotations

from pathlib import Path

import pytest
from browser_helpers import open_page, settled

from lab_ui.course import concept_pages
from lab_ui.registry import HOME, PAGES

LOW_CONTRAST_JS = (Path(__file__).parent / "low_contrast_text.js").read_text(encoding="utf-8")
ALL = (HOME, *PAGES)


@pytest.mark.parametrize("scheme", ["light", "dark"])
@pytest.mark.parametrize("info", ALL, ids=[p.ns for p in ALL])
def test_text_contrast(browser, app_url, info, scheme):
    context = browser.new_context(viewport={"width": 1280, "height": 2400}, color_scheme=scheme)
    page = context.new_page()
    open_page(page, f"{app_url}/{info.url_path}?lang=en", charts=info in concept_pages())
    background = page.evaluate("getComputedStyle(document.querySelector('[data-testid=stApp]')).backgroundColor")
    assert (background == "rgb(255, 255, 255)") == (scheme == "light"), "the app did not follow the system theme"
    # settled: on a busy machine the home page's captions were read mid-fade (3.89:1 for dark text on white)
    low = settled(page, LOW_CONTRAST_JS)
    context.close()
    assert low == [], f"{len(low)} text elements below 4.5:1, e.g. {low[:3]}"


@pytest.mark.parametrize("info", ALL, ids=[p.ns for p in ALL])
def test_phone_width_has_no_sideways_scrolling(browser, app_url, info):
    context = browser.new_context(viewport={"width": 390, "height": 844}, is_mobile=True, has_touch=True)
    page = context.new_page()
    open_page(page, f"{app_url}/{info.url_path}?lang=zh", charts=info in concept_pages())
    widths = page.evaluate(
        "() => { const m = document.querySelector('[data-testid=stMain]');"
        " return [document.documentElement.scrollWidth, m.scrollWidth, m.clientWidth]; }"
    )
    # On a phone Streamlit's header is an opaque bar: nothing of the page may start under it.
    header_bottom, link_top = page.evaluate(
        "() => [document.querySelector('[data-testid=stHeader]').getBoundingClientRect().bottom,"
        " document.querySelector('[data-testid=stMain] [data-testid=stPopover]').getBoundingClientRect().top]"
    )
    context.close()
    assert link_top >= header_bottom, f"the copy-link button starts at {link_top} px, under the header"
    document_width, main_scroll, main_client = widths
    assert document_width <= 390, f"the page is {document_width} px wide"
    assert main_scroll <= main_client + 1, f"the page body scrolls sideways ({main_scroll} > {main_client})"


# Each chart's title box against its modebar's buttons and Streamlit's element toolbar: on a phone
# Plotly shows its modebar over the top right of the figure, where a long title runs.
TITLE_UNDER_TOOLBAR_JS = """() => {
  const meets = (a, b) => !(a.right <= b.left || b.right <= a.left || a.bottom <= b.top || b.bottom <= a.top);
  const hits = [];
  for (const chart of document.querySelectorAll('[data-testid=labChart]')) {
    const title = chart.querySelector('.gtitle');
    if (!title || !title.textContent.trim()) continue;
    const box = title.getBoundingClientRect();
    const element = chart.closest('[data-testid=stElementContainer]');
    const buttons = [...chart.querySelectorAll('.modebar-group'),
                     ...(element ? element.querySelectorAll('[data-testid=stElementToolbar] button') : [])]
      .map(b => b.getBoundingClientRect()).filter(r => r.width > 0);
    if (buttons.some(b => meets(box, b))) {
      const host = chart.closest('[class*=st-key-]');
      hits.push((host ? [...host.classList].find(c => c.startsWith('st-key-')) : '?') + ': ' + title.textContent);
    }
  }
  return hits;
}"""


# Each chart's legend, x axis titles and x tick labels against each other: a legend in a row along a
# figure's bottom sits in room lab_ui.layout.fixed_margins reserves under the axis, counted
# for a phone's width (too little, and the legend pushes the axis's title onto its labels).
LEGEND_OVER_AXIS_JS = """() => {
  const meets = (a, b) => !(a.right <= b.left || b.right <= a.left || a.bottom <= b.top + 1 || b.bottom <= a.top + 1);
  const boxes = (gd, sel) => [...gd.querySelectorAll(sel)].map(e => e.getBoundingClientRect()).filter(r => r.width > 0);
  const hits = [];
  for (const gd of document.querySelectorAll('[data-testid=stMain] .js-plotly-plot')) {
    const legend = boxes(gd, '.legend .bg'), titles = boxes(gd, '[class^=g-x][class$=title] text');
    const ticks = boxes(gd, '.xaxislayer-above .xtick text');
    const crossed = legend.some(l => [...titles, ...ticks].some(r => meets(l, r)))
      || titles.some(t => ticks.some(r => meets(t, r)));
    if (crossed) {
      const host = gd.closest('[class*=st-key-]');
      hits.push(host ? [...host.classList].find(c => c.startsWith('st-key-')) : '?');
    }
  }
  return hits;
}"""


@pytest.mark.parametrize("lang", ["en", "zh"])
@pytest.mark.parametrize("info", concept_pages(), ids=[p.ns for p in concept_pages()])
def test_no_figure_text_collides_on_a_phone(browser, app_url, info, lang):
    context = browser.new_context(viewport={"width": 390, "height": 844}, is_mobile=True, has_touch=True)
    page = context.new_page()
    open_page(page, f"{app_url}/{info.url_path}?lang={lang}")
    under_toolbar = page.evaluate(TITLE_UNDER_TOOLBAR_JS)
    over_axis = settled(page, LEGEND_OVER_AXIS_JS)
    context.close()
    assert under_toolbar == [], f"figure titles under the toolbar: {under_toolbar}"
    assert over_axis == [], f"a legend or an axis title over an x axis's title or labels: {over_axis}"


# Pages whose first lecture-mode screen holds a chart (the step-by-step pages open on step 1).
LECTURE_PAGES = [p for p in PAGES if p.ns in ("heatmap", "scaling", "real_model")]


@pytest.mark.parametrize("info", LECTURE_PAGES, ids=[p.ns for p in LECTURE_PAGES])
def test_lecture_mode_enlarges_text_and_chart_fonts(context, app_url, info):
    sizes = {}
    for lecture in ("0", "1"):
        page = context.new_page()
        open_page(page, f"{app_url}/{info.url_path}?lang=en&lecture={lecture}")
        sizes[lecture] = page.evaluate(
            # the page's prose (st.markdown), not a button's label or a caption
            "() => parseFloat(getComputedStyle("
            "document.querySelector('[data-testid=stMain] [data-testid=stMarkdown] p')).fontSize)"
        )
        if lecture == "1":
            fonts = page.evaluate(
                "() => [...document.querySelectorAll('.js-plotly-plot')].map(gd => {"
                "  const l = gd._fullLayout; const ax = l.xaxis || {}; "
                "  return [l.font.size, ax.tickfont ? ax.tickfont.size : l.font.size]; })"
            )
            assert fonts and all(size >= 20 and tick >= 20 for size, tick in fonts), fonts
        page.close()
    assert sizes["1"] >= 1.4 * sizes["0"] - 0.01, sizes


LECTURE_STEPS = [(info, i) for info in PAGES for i in range(1, len(info.steps) + 1)]
# A step whose result is not a figure: real_model's heads found for each job, before its formula and code.
STEP_RESULT = {("real_model", 4): '[data-testid=stMain] [class*="st-key-rm_go_"]'}


@pytest.mark.parametrize(("info", "step"), LECTURE_STEPS, ids=[f"{p.ns}-{i}" for p, i in LECTURE_STEPS])
def test_every_lecture_step_shows_its_figure_whole_on_a_projectors_first_screen(browser, app_url, info, step):
    """At 1280 x 720 in lecture mode the sidebar starts folded away (the copy-link button moves into
    it: tests/app/test_lecture.py), the title is not under the header, and the step's figure (its
    first chart, or on a step of numbers its first table, or on a step of formulas its first displayed
    formula; STEP_RESULT names the others) is whole on the first screen."""
    context = browser.new_context(viewport={"width": 1280, "height": 720})
    page = context.new_page()
    page.goto(f"{app_url}/{info.url_path}?lang=zh&lecture=1&{info.step_key}={step}", timeout=60000)
    open_page(page, page.url, charts=False)
    result = STEP_RESULT.get((info.ns, step), "[data-testid=stMain] [data-testid=labChart]")
    script = (
        "() => { const box = s => { const e = document.querySelector(s);"
        "  return e ? e.getBoundingClientRect() : null; };"
        f" const figure = box('{result}')"
        "  || box('[data-testid=stMain] [data-testid=stTable], [data-testid=stMain] [data-testid=stDataFrame]')"
        "  || box('[data-testid=stMain] .katex-display');"
        " return {mainLeft: box('[data-testid=stMain]').left, header: box('[data-testid=stHeader]').bottom,"
        "  title: box('[data-testid=stMain] h1').top,"
        "  figureTop: figure ? figure.top : null, figureBottom: figure ? figure.bottom : null}; }"
    )
    layout = settled(page, script)
    for _ in range(3):  # on a busy machine a chart can arrive after the run has been reported done
        if layout["figureTop"] is None or layout["figureBottom"] <= 720:
            break
        page.wait_for_timeout(3000)
        layout = settled(page, script)
    context.close()
    assert layout["mainLeft"] < 50, layout  # the page starts at the left edge: no sidebar beside it
    assert layout["title"] >= layout["header"], layout
    if layout["figureTop"] is not None:  # a step of words only (a check-yourself) has no figure
        assert layout["figureTop"] >= layout["header"] and layout["figureBottom"] <= 720, layout
