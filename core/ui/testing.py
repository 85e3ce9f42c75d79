"""Drive the dashboard headlessly with Streamlit's AppTest (tests and the dashboard benchmark).

`open_app(path)` points the app at a warehouse file and returns an AppTest on
the real entry point (app.py, with its st.navigation router); `show(at, page)`
switches to a page by its short name and runs it.
"""

from __future__ import annotations

import os
from pathlib import Path

from streamlit.testing.v1 import AppTest

from core.config import PROJECT_ROOT
from core.ui.components import PAGE_FILES

APP = PROJECT_ROOT / "app.py"


def open_app(warehouse: str | Path, timeout_s: float = 120.0) -> AppTest:
    """An AppTest of app.py reading `warehouse` (sets DOCSCHISEL_WAREHOUSE for this process)."""
    os.environ["DOCSCHISEL_WAREHOUSE"] = str(warehouse)
    at = AppTest.from_file(str(APP), default_timeout=timeout_s)
    at.run()
    return at


def show(at: AppTest, page: str, **query: str) -> AppTest:
    """Switch to a page ('traces', 'review', ...) with optional query parameters, and run it."""
    for k in list(at.query_params):
        del at.query_params[k]
    at.query_params.update(query)
    at.switch_page(PAGE_FILES[page])
    return at.run()


def problems(at: AppTest) -> list[str]:
    """Exceptions and error boxes on the current page (empty when the page rendered cleanly)."""
    return [str(e.value) for e in at.exception] + [str(e.value) for e in at.error]
