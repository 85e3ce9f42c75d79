"""Small building blocks shared by the pages: header, empty states, links, formatting, sidebar."""

from __future__ import annotations

import html
import math
from datetime import datetime
from pathlib import Path
from typing import Any
from urllib.parse import urlencode

import pandas as pd
import streamlit as st

from core.fields import BY_CODE
from core.ui import state

ASSETS = Path(__file__).resolve().parents[2] / "assets"
# Page url paths (st.Page url_path); deep links are built from these. They equal
# the page files' names so that a deep link is also valid before the router has
# run in a fresh server process (see core.ui.app.ensure_router).
URLS = {
    "overview": "",
    "traces": "traces",
    "diagnoses": "diagnoses",
    "review": "doc_review",
    "jobs": "re_evaluation",
    "impact": "field_impact",
    "compare": "compare",
    "sops": "sops",
    "data": "data",
}
PAGE_FILES = {
    "overview": "pages/overview.py",
    "traces": "pages/traces.py",
    "diagnoses": "pages/diagnoses.py",
    "review": "pages/doc_review.py",
    "jobs": "pages/re_evaluation.py",
    "impact": "pages/field_impact.py",
    "compare": "pages/compare.py",
    "sops": "pages/sops.py",
    "data": "pages/data.py",
}
ADD_COLOR = "#d62728"  # paper Fig. 1: added fields in red
REMOVE_COLOR = "#1f1f1f"  # removed fields in black
OK_COLOR = "#1a7f37"
BAD_COLOR = "#cf222e"


def link(page: str, **params: Any) -> str:
    """Relative URL of a page with query parameters (works behind a base path)."""
    query = urlencode({k: v for k, v in params.items() if v not in (None, "")})
    return f"./{URLS[page]}" + (f"?{query}" if query else "")


def mono(text: str) -> None:
    """Preformatted text (a call, an observation, a rendered doc) in a monospace block that wraps.

    Not st.code: its first use on a page makes the browser load and start Streamlit's syntax
    highlighter (about 0.2 s on every visit), which text that needs no colours does not pay for.
    The text is escaped, never interpreted as HTML or Markdown.
    """
    st.html(f'<pre class="dc-mono">{html.escape(text)}</pre>')


def header(title: str, caption: str) -> None:
    ensure_router()
    st.title(title)
    st.caption(caption)


def empty(message: str, hint: str = "", page: str | None = None, label: str = "") -> None:
    """A friendly empty state that says what would fill the page."""
    with st.container(border=True):
        st.markdown(f"**{message}**")
        if hint:
            st.caption(hint)
        if page:
            st.page_link(PAGE_FILES[page], label=label or "Open", icon=":material/arrow_forward:")


def pct(value: Any, digits: int = 1) -> str:
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return "–"
    return f"{100 * float(value):.{digits}f}%"


def pp(value: Any, digits: int = 1) -> str:
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return "–"
    return f"{float(value):+.{digits}f} pp"


def number(value: Any) -> str:
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return "–"
    v = float(value)
    if abs(v) >= 1e6:
        return f"{v / 1e6:.1f}M"
    if abs(v) >= 1e4:
        return f"{v / 1e3:.0f}k"
    return f"{v:,.0f}" if v == int(v) else f"{v:,.2f}"


def dashes(df: Any, columns: list[str] | None = None) -> Any:
    """Text columns with "–" where a value is missing (a table never shows `None` or `nan`)."""
    out = df.copy()
    for col in columns or [c for c in out.columns if pd.api.types.is_string_dtype(out[c])]:
        if col in out:
            out[col] = out[col].map(
                lambda v: "–" if v is None or (isinstance(v, float) and math.isnan(v)) else v
            )
    return out


def field_label(code: str) -> str:
    f = BY_CODE.get(code)
    return f"{code} · {f.name}" if f else code


def short_id(value: Any, n: int = 8) -> str:
    return str(value)[:n] if value else "–"


def sidebar() -> None:
    """Brand, warehouse location and the refresh button, on every page."""
    logo, icon, css = ASSETS / "logo.svg", ASSETS / "icon.svg", ASSETS / "style.css"
    if logo.exists():
        st.logo(str(logo), size="large", icon_image=str(icon) if icon.exists() else None)
    if css.exists():
        st.html(f"<style>{css.read_text(encoding='utf-8')}</style>")
    with st.sidebar:
        path = state.current_path()
        st.caption(f"Warehouse  \n`{Path(path).name}` in `{Path(path).parent}`")
        if st.button("Refresh data", icon=":material/refresh:", key="refresh_data", width="stretch"):
            state.refresh()
            st.session_state["refreshed_at"] = datetime.now().strftime("%H:%M:%S")
        when = st.session_state.get("refreshed_at")
        st.caption(f"Reads are cached for {state.CACHE_TTL_S} s" + (f" · refreshed {when}" if when else ""))


GOOD_WORDS = {"success", "correct", "right tools", "done", "approved", "accepted", "yes"}
BAD_WORDS = {"failed", "wrong", "wrong tools", "rejected", "no", "lost"}


def style_outcome(value: Any) -> str:
    """Cell style for outcome words (green for good, red for bad)."""
    if value is True or value in GOOD_WORDS:
        return f"color: {OK_COLOR}; font-weight: 600"
    if value is False or value in BAD_WORDS:
        return f"color: {BAD_COLOR}; font-weight: 600"
    return ""


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
