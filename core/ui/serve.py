"""Run the dashboard's Streamlit server with the pages' code loaded while it starts.

    python -m core.ui.serve [streamlit run options...]   # what `docschisel app` runs

Why: Streamlit loads a page's code only when the first browser session runs
the script, so the first visit after a start paid for everything a process
does once: importing pandas, pyarrow, Altair, DuckDB and the warehouse layer,
importing the views (each cached query hashes its function's source when it is
defined), the first chart (Altair loads its schema and validator), and
Streamlit's one-off check of the caller's stack on the first element. On 2
cores that was 2-3 s of a 3-7 s first visit. Here a background thread does all
of it as soon as the server process starts, before anyone connects; a visit
that comes earlier waits on Python's import lock for what is still loading,
never longer than before.

The views are imported only once the server's runtime exists: a cached
function binds its storage when it is first called (see
`test_a_cache_defined_before_the_runtime_uses_the_runtimes_storage`), not when
it is defined, but Streamlit warns about every function defined without a
runtime, and waiting for it keeps the log clean.
"""

from __future__ import annotations

import importlib
import sys
import threading
import time
from collections.abc import Callable

from core.config import PROJECT_ROOT

# third-party libraries first (the bulk of the time), then the project layers the pages read
LIBRARIES = (
    "numpy",
    "pandas",
    "pyarrow",
    "duckdb",
    "altair",
    "jsonschema",
    "core.warehouse",
    "core.docs",
    "core.study.report",
    "core.study.compare_report",
    "core.study.compare_across",
)
# every page's view module (they import their queries and charts); defined with Streamlit caches
VIEWS = tuple(
    f"core.ui.views.{name}"
    for name in (
        "overview", "traces", "diagnoses", "review", "jobs", "impact", "compare", "sops", "data",
        "runcompare", "retrieval",
    )
)  # fmt: skip
RUNTIME_WAIT_S = 120.0
READY_LINE = "DocsChisel Studio: pages warmed"


def preload(modules: tuple[str, ...] = LIBRARIES) -> list[str]:
    """Import `modules`, skipping any that fail (the page that needs it reports the error); returns the loaded."""
    loaded = []
    for name in modules:
        try:
            importlib.import_module(name)
        except Exception:  # noqa: BLE001, S112 - a failed preload is retried, and reported, by the page itself
            continue
        loaded.append(name)
    return loaded


def warm_charts() -> None:
    """Build and serialise one small chart of every kind the pages draw, as `core.ui.chartview` does.

    The first chart of a process loads Altair's schema and builds its JSON
    Schema validator (0.5-1 s on 2 cores); afterwards a chart takes a few ms
    to build and 0.02-0.2 s to validate.
    """
    import pandas as pd

    from core.ui import charts, sop_charts

    impact = pd.DataFrame(
        {"field": ["UE", "FD"], "operation": ["add", "remove"], "delta_pp": [4.0, -6.0], "ci_low": [1.0, -9.0],
         "ci_high": [7.0, -2.0], "n_label": ["n=3", "n=3"], "significant": [True, False], "domain": ["a", "b"]}
    )  # fmt: skip
    points = pd.DataFrame(
        {"method": ["OG", "DC"], "ts": [0.2, 0.6], "run_id": "r", "docset_id": "d", "repeat": 0, "run": "x"}
    )
    line = pd.DataFrame({"i": [0, 1], "ts": [0.1, 0.2], "s": ["a", "a"]})
    built = [
        charts.field_impact(impact),
        charts.field_impact(impact, "domain"),
        charts.method_boxes(points, "ts", "TS", {"OG": "*"}),
        charts.curves(line, "i", "ts", "s", "x", "y"),
        charts.heatmap(pd.DataFrame([[0, 1]], index=["t"], columns=["UE", "FD"]), "x", "y", "n"),
        charts.success_bars(
            pd.DataFrame(
                {"model": ["m"], "docs": ["d"], "benchmark": ["b"], "ts": [0.5], "tc": [0.5], "episodes": [1]}
            )
        ),
        sop_charts.curves(
            pd.DataFrame({"epoch": [0, 1], "ts": [0.2, 0.3], "rounds": [2.0, 1.5], "sops": [0, 1]})
        ),
    ]
    for chart in built:
        chart.to_dict()


def wait_for(ready: Callable[[], bool], timeout_s: float, poll_s: float = 0.05) -> bool:
    """Poll `ready` until it holds or `timeout_s` passes; True when it held."""
    end = time.monotonic() + timeout_s
    while not ready():
        if time.monotonic() > end:
            return False
        time.sleep(poll_s)
    return True


def skip_direct_run_check() -> None:
    """Mark Streamlit's "run me with `streamlit run`" check as done: this process always runs under it.

    The check walks the whole call stack with source lines (`inspect.stack`)
    on a session's first element, 0.2 s of the first visit. Nothing else
    reads the flag, and an absent flag (another Streamlit version) is a no-op.
    """
    from streamlit import delta_generator

    if hasattr(delta_generator, "_use_warning_has_been_displayed"):
        delta_generator._use_warning_has_been_displayed = True  # noqa: SLF001


def warm_tables() -> None:
    """Render one styled table (pandas' Styler compiles its Jinja templates on first use, 0.2 s) and open
    the dashboard's warehouse (its schema check runs once per process and file)."""
    import pandas as pd

    from core.ui import state

    pd.DataFrame({"a": [1]}).style.map(lambda v: "").to_html()
    state.warehouse_at(state.current_path())


def warm(
    runtime_exists: Callable[[], bool] | None = None, report: Callable[[str], None] | None = None
) -> list[str]:
    """Everything a first visit would otherwise do once per process; returns the modules loaded.

    `report` gets one line when done: `docschisel app` prints it, so a person (or `bench/pages.py`)
    knows from when on a first visit costs only its own queries.
    """
    t0 = time.perf_counter()
    loaded = preload(LIBRARIES)
    if runtime_exists is None:
        from streamlit import runtime

        runtime_exists = runtime.exists
    if wait_for(runtime_exists, RUNTIME_WAIT_S):
        skip_direct_run_check()
        loaded += preload(("core.ui.app", *VIEWS))
        for step in (warm_charts, warm_tables):
            try:
                step()
            except Exception:  # noqa: BLE001, S112 - warming is an optimisation; the page draws and reports by itself
                continue
    if report is not None:
        report(f"{READY_LINE} {time.perf_counter() - t0:.1f} s after start")
    return loaded


def _stderr(line: str) -> None:
    print(line, file=sys.stderr, flush=True)


def main(argv: list[str] | None = None) -> None:
    """`streamlit run app.py ARGV` in this process, with `warm` running beside the server's start."""
    from streamlit.web import cli

    threading.Thread(target=warm, kwargs={"report": _stderr}, name="docschisel-preload", daemon=True).start()
    sys.argv = ["streamlit", "run", str(PROJECT_ROOT / "app.py"), *(sys.argv[1:] if argv is None else argv)]
    cli.main(prog_name="streamlit")


if __name__ == "__main__":
    main()
