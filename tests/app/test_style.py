"""lab_ui.style's CSS reaches the page: st.html's sanitiser drops a whole <style> element whose
text holds something that looks like a tag, so a comment naming "<section>" once switched off
lecture mode's large text without any error."""

import re

import pytest

from lab_ui import style


@pytest.mark.parametrize("name", ["_BASE", "_LECTURE", "_HIGH_CONTRAST"])
def test_no_tag_inside_the_css(name):
    css = getattr(style, name).strip()
    assert css.startswith("<style>") and css.endswith("</style>")
    inner = css.removeprefix("<style>").removesuffix("</style>")
    assert not re.search(r"<[/!?a-zA-Z]", inner), f"{name} holds a tag-like text"
