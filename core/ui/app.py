"""The router's page list and the chrome shared by every page."""

from __future__ import annotations

import itertools

import streamlit as st

from core.ui import components

_runs = itertools.count(1)  # process-wide: a new session's first run never repeats an old number


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
            page("sops", "SOPs", ":material/account_tree:"),
        ],
        "Warehouse": [page("data", "Data", ":material/database:")],
    }


def chrome() -> None:
    components.sidebar()


def drawn_marker() -> None:
    """A hidden element written after the page's last element, numbered per script run.

    Why: a browser cannot otherwise tell a finished run from one still
    sending elements (Streamlit shows its running indicator only after a
    delay), so page-speed measurements and browser tests had to wait out a
    timeout. The marker arrives after everything the run drew; its number
    grows with every run, so an interaction's rerun is told from the last one.
    """
    st.html(f'<div data-testid="docschisel-drawn" data-run="{next(_runs)}" hidden></div>')


ensure_router = components.ensure_router  # pages and tests import it from here
