"""Lecture mode's layout for a projector (AppTest): the copy-link button and the presets fold away
so that the first screen holds the figure, and everything they did still works from there."""

from app_harness import open_page

from lab_ui.i18n import t


def _popovers(block) -> list:
    """Every popover under `block`, however deeply nested (AppTest has no typed accessor)."""
    found = []
    for child in getattr(block, "children", {}).values():
        if getattr(child, "type", None) == "popover":
            found.append(child)
        found.extend(_popovers(child))
    return found


def _labels(block) -> list[str]:
    return [p.proto.popover.label for p in _popovers(block)]


def test_copy_link_sits_above_the_page_normally_and_in_the_sidebar_in_lecture_mode():
    link = t("common.copy_link", lang="en")
    normal = open_page("pages/heatmap.py")
    assert link in _labels(normal.main) and link not in _labels(normal.sidebar)
    lecture = open_page("pages/heatmap.py", lecture="1")
    assert link in _labels(lecture.sidebar) and link not in _labels(lecture.main)


def test_presets_fold_into_one_popover_in_lecture_mode_and_still_set_the_controls():
    at = open_page("pages/heatmap.py", lecture="1")
    (presets,) = [p for p in _popovers(at.main) if p.proto.popover.label == t("common.presets_button", lang="en")]
    labels = [b.label for b in presets.button]
    assert labels == [t(f"heatmap.preset_{p}", lang="en") for p in ("article", "long", "causal", "local", "animal")]
    at.button(key="heatmap_preset_causal").click().run()
    assert not at.exception
    assert at.session_state["hm_mask"] == "causal"
    assert at.query_params["hm_mask"] == "causal"  # in the link too


def test_presets_stand_above_the_settings_outside_lecture_mode():
    at = open_page("pages/heatmap.py")
    (presets,) = [p for p in _popovers(at.main) if p.proto.popover.label == t("common.presets_button", lang="en")]
    assert [b.key for b in presets.button][2] == "heatmap_preset_causal"
    assert at.button(key="heatmap_preset_causal").label == t("heatmap.preset_causal", lang="en")
