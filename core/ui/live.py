"""Self-refreshing page parts whose refresh interval backs off when drawing them is slow.

A fragment with a fixed `run_every` that takes longer to draw than its
interval keeps the server busy redrawing and the page feels frozen (on a loaded
machine a job list took 8 s to draw at a 2 s interval). `live(key, body)` times
each draw; when one is slower than the interval, the interval doubles (up to
`max_s`) and the page reruns once so the browser gets the new schedule; when
draws are fast again it halves back at the next full run.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from datetime import datetime

import streamlit as st

BASE_S = 2.0
MAX_S = 30.0


def next_interval(interval: float, took: float, base_s: float = BASE_S, max_s: float = MAX_S) -> float:
    """The refresh interval after a draw that took `took` seconds at `interval`.

    Slower than the interval: double (so a draw takes at most half the time);
    four times faster than half of it: halve, never below `base_s`.
    """
    if took > interval:
        return min(max_s, max(interval * 2, took * 2))
    if took * 8 < interval and interval > base_s:
        return max(base_s, interval / 2)
    return interval


def live(key: str, body: Callable[[], None], base_s: float = BASE_S, max_s: float = MAX_S) -> None:
    """Draw `body` now and again every interval (a fragment), backing off while draws are slow."""
    slot = f"live_interval_{key}"
    interval = float(st.session_state.get(slot, base_s))

    def run() -> None:
        t0 = time.monotonic()
        body()
        took = time.monotonic() - t0
        new = next_interval(interval, took, base_s, max_s)
        st.caption(
            f"Live · updated {datetime.now().strftime('%H:%M:%S')} · every {interval:g} s"
            + (f" (drawing took {took:.1f} s)" if took > interval / 2 else "")
        )
        st.session_state[slot] = new
        if new > interval:
            st.rerun()  # the schedule is part of the page: a longer one reaches the browser on a full run

    # the fragment's id comes from this function's name and position, so it is the same every run
    run.__qualname__ = run.__name__ = f"live_{key}"
    st.fragment(run, run_every=interval)()
