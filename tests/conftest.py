"""Settings for every test, the browser tests' servers included (they inherit the environment)."""

import os

from lab_ui.i18n import STRICT_TEXT_ENV

# A text key missing from the catalogs raises instead of showing the raw key on screen, so a page
# that asks for one fails its tests (AppTest shows the exception; the browser tests look for it).
os.environ[STRICT_TEXT_ENV] = "1"
