"""DocsChisel Studio — the dashboard. Run with `streamlit run app.py`.

The warehouse is $DOCSCHISEL_WAREHOUSE or data/warehouse.duckdb. This file only
routes: every page is a thin file under pages/ that calls a render function in
core.ui.views.
"""

from pathlib import Path

import streamlit as st

from core.ui.app import PAGES, chrome, drawn_marker
from core.ui.auth import gate

st.set_page_config(
    page_title="DocsChisel Studio",
    page_icon=str(Path(__file__).parent / "assets" / "icon.svg"),
    layout="wide",
)
gate()  # exposed beyond this machine, nothing renders before the shared token is given
page = st.navigation(PAGES(), position="sidebar")
chrome()
page.run()
drawn_marker()
