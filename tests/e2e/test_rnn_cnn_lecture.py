"""The rnn_cnn page's timing step on a 1280 x 720 projector: the button the empty panel asks for
("Press Measure on this server") is on the first screen with the figure, and pressing it fills
the panel while the figure stays whole there."""

from __future__ import annotations

from browser_helpers import exceptions, open_page, settled, wait_until_idle

from lab_ui.i18n import t


def test_the_measure_button_and_its_figure_share_the_first_screen(browser, app_url):
    context = browser.new_context(viewport={"width": 1280, "height": 720})
    page = context.new_page()
    open_page(page, f"{app_url}/rnn_cnn?lang=en&lecture=1&rc_step=3&rc_td=64&rc_tT=256")
    button = page.get_by_role("button", name=t("rnn_cnn.measure", lang="en"))
    box = button.bounding_box()
    assert box is not None and box["y"] + box["height"] <= 720, box
    button.click()
    wait_until_idle(page, 120000)
    script = (
        "() => { const r = document.querySelector('.st-key-rc_parallel').getBoundingClientRect();"
        " return [r.top, r.bottom]; }"
    )
    top, bottom = settled(page, script)
    assert exceptions(page) == []
    context.close()
    assert top >= 0 and bottom <= 720, (top, bottom)
