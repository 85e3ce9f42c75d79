"""Run the dashboard's Streamlit server with the pages' libraries imported while it starts.

    python -m core.ui.serve [streamlit run options...]   # what `docschisel app` runs

Why: Streamlit imports a page's modules only when the first browser session
runs the script, so the first visit after a start paid for importing pandas,
pyarrow, plotly, DuckDB and the warehouse layer (1.5-2.5 s on 2 cores) on top
of its own queries. Here a background thread imports them as soon as the
server process starts, before anyone connects; a visit that comes earlier
waits on Python's import lock for what is still loading, never longer than
before.

Only modules without Streamlit caches are imported ahead: a function decorated
with `st.cache_data` outside a running server would be bound to a private
memory cache instead of the server's, and "Refresh data" would no longer
clear it. The views and their queries are imported by the first script run as
usual.
"""

from __future__ import annotations

import importlib
import sys
import threading

from core.config import PROJECT_ROOT

# third-party libraries first (the bulk of the time), then the cache-free project layers the pages read
PRELOAD = (
    "numpy",
    "pandas",
    "pyarrow",
    "duckdb",
    "plotly.graph_objects",
    "plotly.express",
    "core.warehouse",
    "core.docs",
    "core.study.report",
    "core.study.compare_report",
)


def preload(modules: tuple[str, ...] = PRELOAD) -> list[str]:
    """Import `modules`, skipping any that fail (the page that needs it reports the error); returns the loaded."""
    loaded = []
    for name in modules:
        try:
            importlib.import_module(name)
        except Exception:  # noqa: BLE001, S112 - a failed preload is retried, and reported, by the page itself
            continue
        loaded.append(name)
    return loaded


def main(argv: list[str] | None = None) -> None:
    """`streamlit run app.py ARGV` in this process, with `preload` running beside the server's start."""
    from streamlit.web import cli

    threading.Thread(target=preload, name="docschisel-preload", daemon=True).start()
    sys.argv = ["streamlit", "run", str(PROJECT_ROOT / "app.py"), *(sys.argv[1:] if argv is None else argv)]
    cli.main(prog_name="streamlit")


if __name__ == "__main__":
    main()
