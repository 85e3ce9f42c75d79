"""The router's page list and the chrome shared by every page."""

from __future__ import annotations

import streamlit as st

from core.ui import components


def PAGES() -> dict[str, list[st.Page]]:  # noqa: N802 - reads like a constant at the call site
    """Navigation sections; url paths are the ones deep links use (components.URLS)."""
    u = components.URLS
    f = components.PAGE_FILES

    def page(key: str, title: str, icon: str, **kw: object) -> st.Page:
        if kw.get("default"):
            return st.Page(f[key], title=title, icon=icon, default=True)
        return st.Page(f[key], title=title, icon=icon, url_path=u[key])

    return {
        "Analyse": [
            page("overview", "Overview", ":material/dashboard:", default=True),
            page("traces", "Traces", ":material/timeline:"),
            page("diagnoses", "Diagnoses & plans", ":material/troubleshoot:"),
        ],
        "Improve": [
            page("review", "Doc review", ":material/rate_review:"),
            page("jobs", "Re-evaluation", ":material/play_circle:"),
        ],
        "Results": [
            page("impact", "Field impact", ":material/bar_chart:"),
            page("compare", "Compare methods", ":material/compare_arrows:"),
        ],
        "Warehouse": [page("data", "Data", ":material/database:")],
    }


def chrome() -> None:
    components.sidebar()


def ensure_router() -> None:
    """Route through app.py even when the very first request of a server is a page URL.

    Streamlit treats an app with a `pages/` folder as a legacy multipage app
    until `st.navigation` has run once in the process; until then a deep link
    such as /traces runs pages/traces.py on its own, without app.py's router,
    layout and sidebar. Clearing that flag and rerunning sends the request
    through app.py. It only ever happens once per server process. (AppTest
    resets the flag before every run and renders the page itself, so there the
    page is left to run: a rerun would drop the widget event under test.)
    """
    try:
        from streamlit import config
        from streamlit.runtime.pages_manager import PagesManager
    except ImportError:  # pragma: no cover - layout of a future Streamlit
        return
    if PagesManager.uses_pages_directory:
        PagesManager.uses_pages_directory = False
        if not config.get_option("global.appTest"):
            st.rerun()
