"""The pages of the app, in order. app.py builds the navigation from this list and the home page
maps it, so a page exists in exactly one place. Only pages that exist are listed."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class PageInfo:
    path: str  # script, relative to the project root
    ns: str  # catalog namespace: lab_ui/locales/<ns>.toml holds nav, title, intro, summary
    url_path: str  # stable ASCII address: links in slides point here
    icon: str  # Material icon shown in the navigation
    section: str  # catalog key of the navigation section


HOME = PageInfo("pages/home.py", "home", "", ":material/home:", "")

PAGES: tuple[PageInfo, ...] = ()
