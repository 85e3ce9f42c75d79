"""Which warehouse the dashboard reads, and the cache in front of it.

Every read query of the dashboard is a plain function `f(warehouse, ...)`
decorated with `cached_query`: the decorated function takes the warehouse
*path* instead and caches its result for a few seconds, keyed on the path and
the arguments. Keying on the path keeps two dashboards on two warehouses (or a
test switching warehouses) apart; the short TTL means a running job's results
appear without a manual refresh while a burst of reruns (every widget click
reruns the script) costs one query. The undecorated function stays available as
`.raw` for benchmarks and tests.

Reads never block writers: the warehouse opens a short lease per query and
closes it (core/warehouse/store.py), so a job writing episodes and the dashboard
reading them interleave instead of locking each other out.
"""

from __future__ import annotations

import functools
import os
from collections.abc import Callable
from pathlib import Path
from typing import Any, ParamSpec, Protocol, TypeVar

import streamlit as st

from core.config import warehouse_path
from core.warehouse import Warehouse

CACHE_TTL_S = 10
P = ParamSpec("P")
R = TypeVar("R")


class CachedQuery(Protocol[R]):
    raw: Callable[..., R]

    def __call__(self, path: str, *args: Any, **kwargs: Any) -> R: ...


def current_path() -> str:
    """The warehouse file: $DOCSCHISEL_WAREHOUSE or the project default, resolved."""
    return str(Path(warehouse_path(os.environ.get("DOCSCHISEL_WAREHOUSE") or None)).expanduser().resolve())


@functools.lru_cache(maxsize=16)
def warehouse_at(path: str) -> Warehouse:
    """One Warehouse object per path and process (it holds no open connection)."""
    return Warehouse(path)


def wh() -> Warehouse:
    return warehouse_at(current_path())


def cached_query(fn: Callable[..., R]) -> CachedQuery[R]:
    """Turn `fn(warehouse, *args)` into a cached `fn(path, *args)` (see module docstring)."""

    @functools.wraps(fn)
    def by_path(path: str, *args: Any, **kwargs: Any) -> R:
        return fn(warehouse_at(path), *args, **kwargs)

    cached = st.cache_data(ttl=CACHE_TTL_S, show_spinner=False, max_entries=512)(by_path)
    cached.raw = fn  # type: ignore[attr-defined]
    return cached  # type: ignore[return-value]


def refresh() -> None:
    """Forget cached reads (after a write, or when the user asks)."""
    st.cache_data.clear()


def reviewer_name() -> str:
    """Default name in the audit trail: the logged-in user when there is one, else $USER."""
    name = st.session_state.get("reviewer")
    if name:
        return str(name)
    try:
        if st.user.get("is_logged_in") and st.user.get("name"):
            return str(st.user.get("name"))
    except Exception:  # noqa: BLE001 - st.user is unavailable outside an auth-enabled server
        pass
    return os.environ.get("USER") or "analyst"
