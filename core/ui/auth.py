"""Who may use the dashboard: everyone on this machine, or whoever knows the shared token.

Why: the dashboard starts jobs that spend the server's API keys and imports
benchmark folders. Bound to 127.0.0.1 (the default: .streamlit/config.toml,
`docschisel app`) only local users reach it. Exposed on another address, it
must ask for a secret: `$DOCSCHISEL_DASHBOARD_TOKEN`, a shared token compared
in constant time, remembered for the browser session. Exposed without a token,
it refuses to show anything.
"""

from __future__ import annotations

import hmac
import os

import streamlit as st

TOKEN_ENV = "DOCSCHISEL_DASHBOARD_TOKEN"
LOOPBACK = ("127.0.0.1", "localhost", "::1")
MIN_TOKEN_LEN = 12


def is_loopback(address: str | None) -> bool:
    """Whether a bind address is reachable only from this machine ('' and None mean every interface)."""
    return bool(address) and (address in LOOPBACK or str(address).startswith("127."))


def configured_token() -> str | None:
    token = os.environ.get(TOKEN_ENV, "").strip()
    return token or None


def token_ok(given: str, token: str) -> bool:
    return hmac.compare_digest(given.strip().encode(), token.encode())


def gate() -> None:
    """Stop the page unless the visitor may see it (see the module docstring)."""
    token = configured_token()
    address = st.get_option("server.address")
    if token is None:
        if is_loopback(address):
            return
        st.error(
            f"This dashboard listens on {address or 'every interface'} without a login. Set "
            f"{TOKEN_ENV} and start it with `docschisel app --host {address or '0.0.0.0'}`, or bind it to "
            "127.0.0.1."
        )
        st.stop()
    if st.session_state.get("_authenticated"):
        return
    st.title("DocsChisel Studio")
    with st.form("login"):
        given = st.text_input(
            "Access token", type="password", help=f"The value of ${TOKEN_ENV} on the server"
        )
        submitted = st.form_submit_button("Sign in")
    if submitted and token_ok(given, token):
        st.session_state["_authenticated"] = True
        st.rerun()
    if submitted:
        st.error("Wrong token.")
    st.stop()
