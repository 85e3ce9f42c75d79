"""Keep a page's widgets and its URL query parameters in step.

Why not Streamlit's `bind="query-params"`: it writes the *displayed label* of
a select widget into the URL, while our links carry ids (runs, doc sets, doc
versions). So each page declares which widget key mirrors which parameter;
`pull()` runs before the widgets are drawn and `push()` after:

- a URL that carries any of the page's parameters and differs from what the
  page last wrote is a navigation (a deep link, a click from another page):
  the URL wins;
- a URL without any of them (coming back through the sidebar) keeps the
  session's values, so filters stay put;
- after the widgets run, their values are written back, so the address bar is
  always a shareable link to exactly what is on screen.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field

import streamlit as st


@dataclass
class UrlState:
    page: str
    keys: Mapping[str, str]  # query parameter -> widget key
    defaults: Mapping[str, str] = field(default_factory=dict)

    @property
    def _memo(self) -> str:
        return f"_url_written_{self.page}"

    def default(self, param: str) -> str:
        return self.defaults.get(param, "")

    def pull(self, valid: Mapping[str, Iterable[str] | Callable[[str], bool]] | None = None) -> None:
        """Seed widget state from the URL when the URL is a navigation (see module docstring)."""
        valid = valid or {}
        url = {p: st.query_params.get(p) for p in self.keys}
        written = st.session_state.get(self._memo)
        navigated = any(v is not None for v in url.values()) and url != written
        for param, key in self.keys.items():
            if navigated:
                value = url[param] if url[param] is not None else self.default(param)
            elif key in st.session_state:
                value = st.session_state[key]
            elif param in self.defaults:
                value = self.defaults[param]
            else:
                continue  # nothing known: the page's own default applies (see `ensure`)
            check = valid.get(param)
            if check is not None and value != self.default(param):
                ok = check(value) if callable(check) else value in set(check)
                if not ok:
                    value = self.default(param)
            st.session_state[key] = value

    def push(self) -> None:
        """Write the widgets' current values to the URL (defaults are left out)."""
        for param, key in self.keys.items():
            value = st.session_state.get(key)
            if value in (None, "", self.default(param)):
                st.query_params.pop(param, None)
            else:
                st.query_params[param] = str(value)
        st.session_state[self._memo] = {p: st.query_params.get(p) for p in self.keys}

    def set(self, param: str, value: str) -> None:
        """Change one parameter from a callback (before the widgets are drawn)."""
        st.session_state[self.keys[param]] = value

    def ensure(self, param: str, options: Iterable[str], default: str) -> None:
        """Make the widget's value one of `options` (falling back to `default`) before drawing it."""
        key = self.keys[param]
        if st.session_state.get(key) not in set(options):
            st.session_state[key] = default
