"""Draw a chart of core.ui.charts (or core.ui.sop_charts) with its Vega-Lite spec kept per input.

Why: building an Altair chart and validating its spec against the Vega-Lite
schema costs 0.1-0.4 s per chart on 2 cores, as much as the rest of a page's
run, and every rerun (each click on a page) draws the same data again. The
spec is a plain dict, so it is built and validated once per input and kept in
Streamlit's data cache; `st.vega_lite_chart` draws it as `st.altair_chart`
would (Streamlit's theme, selections, the same element identity).
"""

from __future__ import annotations

import importlib
import threading
from collections.abc import Callable
from typing import Any

import altair as alt
import streamlit as st

# Altair's theme is process-global: the spec is built under the "none" theme (no default 300 px view
# size; Streamlit's own theme is applied in the browser), one build at a time
_THEME_LOCK = threading.Lock()


@st.cache_data(show_spinner=False, max_entries=256)
def spec(module: str, name: str, args: tuple, kwargs: dict) -> dict:
    """The validated Vega-Lite spec of `module.name(*args, **kwargs)`."""
    build = getattr(importlib.import_module(module), name)
    with _THEME_LOCK, alt.theme.enable("none"):
        return build(*args, **kwargs).to_dict()


def draw(
    build: Callable[..., alt.TopLevelMixin],
    *args: Any,
    key: str | None = None,
    on_select: str = "ignore",
    selection_mode: str | None = None,
    **kwargs: Any,
) -> Any:  # noqa: ANN401 - Streamlit's chart element or its selection state
    """`st.altair_chart(build(*args, **kwargs))`, with the spec kept per input (see module docstring)."""
    return st.vega_lite_chart(
        spec=spec(build.__module__, build.__name__, args, kwargs),
        key=key,
        on_select=on_select,  # type: ignore[arg-type]
        selection_mode=selection_mode,
        width="stretch",
    )
