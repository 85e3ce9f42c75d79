"""Data: bring traces into the warehouse, and see what it holds.

Imports run as background jobs (they parse thousands of recorded episodes), so
the page stays responsive and the progress is visible from any tab.
"""

from __future__ import annotations

import importlib
import importlib.util
from collections.abc import Callable
from pathlib import Path
from typing import Any

import streamlit as st

from core import jobs
from core.config import data_dir, importable, user_benchmark_dirs
from core.ui import components as ui
from core.ui.queries import data as q
from core.ui.state import current_path, refresh, wh

# Where a user-folder importer may live: (module, function(warehouse, folder) -> summary dict).
USER_FOLDER_IMPORTERS = (
    ("core.benchmarks.userfolder", "import_user_folder"),
    ("core.benchmarks.userfolder", "register_folder"),
)


def _find(candidates: tuple[tuple[str, str], ...]) -> Callable[..., Any] | None:
    for module, name in candidates:
        try:
            mod = importlib.import_module(module)
        except ImportError:
            continue
        fn = getattr(mod, name, None)
        if callable(fn):
            return fn
    return None


def workbench_available() -> bool:
    return importlib.util.find_spec("core.benchmarks.workbench.importer") is not None


def import_workbench() -> None:
    with st.container(border=True):
        st.markdown("##### Recorded WorkBench results")
        st.caption(
            "Real traces of GPT-4, GPT-3.5, Claude 2, Llama 2 70B and Mixtral on WorkBench's 690 tasks, "
            "scored by our re-implementation of its checker."
        )
        default = str(data_dir(must_exist=False))
        folder = st.text_input("Benchmark data directory", value=default, key="wb_data_dir")
        has_data = (Path(folder) / "workbench").is_dir()
        ready = workbench_available()
        if not ready:
            st.caption(":orange[The WorkBench importer is not installed in this build.]")
        elif not has_data:
            st.caption(f":orange[No `workbench/` folder in {folder}.]")
        if st.button(
            "Import as background job",
            type="primary",
            icon=":material/upload:",
            disabled=not (ready and has_data),
            key="import_workbench",
        ):
            job_id = jobs.start_job(
                wh(),
                "import",
                ["warehouse", "import-workbench", "--data-dir", folder],
                {"source": "workbench"},
            )
            st.toast(f"Import started ({job_id})", icon=":material/upload:")


def import_folder() -> None:
    with st.container(border=True):
        st.markdown("##### Your own benchmark folder")
        roots = user_benchmark_dirs()
        st.caption(
            "A folder with your tools, their docs and tasks with ground-truth calls, inside "
            + ", ".join(f"`{r}`" for r in roots)
            + " (set `DOCSCHISEL_USER_BENCHMARKS` to allow other directories). Its `tools.py` runs in a "
            "worker process with time and memory limits."
        )
        found = sorted(str(p) for r in roots if r.is_dir() for p in r.iterdir() if p.is_dir())
        folder = st.selectbox(
            "Folder",
            found,
            index=None,
            placeholder="/path/to/my-benchmark",
            accept_new_options=True,
            key="user_folder",
        )
        importer = _find(USER_FOLDER_IMPORTERS)
        if importer is None:
            st.caption(":orange[Importing user folders is not available in this build yet.]")
        if st.button(
            "Import folder",
            icon=":material/create_new_folder:",
            disabled=importer is None or not folder,
            key="import_folder",
        ):
            allowed = importable(folder or "")
            if allowed is None:
                st.error(f"{folder} is not inside an allowed directory ({', '.join(map(str, roots))}).")
                return
            if not allowed.is_dir():
                st.error(f"{folder} is not a folder.")
                return
            folder = str(allowed)
            with st.spinner("Importing…"):
                try:
                    summary = importer(wh(), folder)
                except Exception as exc:  # noqa: BLE001 - the user's folder may be malformed; say why
                    st.error(f"Import failed: {exc}")
                    return
            refresh()
            st.success(f"Imported {folder}: {summary}")


@st.fragment(run_every=3)
def import_jobs() -> None:
    recent = [j for j in jobs.list_jobs(wh(), limit=10, kind="import")][:3]
    for j in recent:
        st.progress(
            j.fraction or (1.0 if j.status == "done" else 0.0),
            text=f"Import {j.status}" + (f" · {j.message}" if j.message else ""),
        )
    if any(j.status == "done" for j in recent) and not st.session_state.get("import_refreshed"):
        refresh()
        st.session_state["import_refreshed"] = True


def statistics(path: str) -> None:
    p = Path(path)
    size = p.stat().st_size if p.exists() else 0
    counts = q.table_counts(path)
    n = dict(zip(counts["tbl"], counts["n"], strict=True))
    m = st.columns(5)
    m[0].metric("File size", f"{size / 1e6:,.1f} MB", border=True)
    m[1].metric("Schema version", q.schema_version(path), border=True)
    m[2].metric("Episodes", ui.number(n["episodes"]), border=True)
    m[3].metric("Events", ui.number(n["events"]), border=True)
    m[4].metric("Doc versions", ui.number(n["doc_versions"]), border=True)
    st.caption(f"`{path}`")
    c = st.columns([1, 2], gap="large")
    with c[0]:
        st.markdown("##### Rows per table")
        st.dataframe(
            counts,
            hide_index=True,
            column_order=("table", "n"),
            column_config={"table": "Table", "n": st.column_config.NumberColumn("Rows", format="localized")},
            height=38 + 35 * len(counts),
        )
    with c[1]:
        st.markdown("##### Benchmarks")
        bench = q.benchmark_summary(path)
        st.dataframe(
            bench,
            hide_index=True,
            column_config={
                "benchmark": st.column_config.TextColumn("Benchmark", width=85),  # the full name on hover
                "tasks": "Tasks",
                "domains": "Domains",
                "episodes": st.column_config.NumberColumn("Episodes", format="localized"),
                "imported": st.column_config.NumberColumn("Imported", format="localized"),
                "models": "Models",
                "doc_sets": "Doc sets",
                "first": st.column_config.DatetimeColumn("First trace", format="YYYY-MM-DD", width=75),
                "last": st.column_config.DatetimeColumn("Last trace", format="YYYY-MM-DD", width=75),
            },
        )
        st.markdown("##### Domains")
        dom = q.domain_summary(path)
        st.dataframe(
            dom.assign(
                traces=[
                    ui.link("traces", benchmark=b, domain=d)
                    for b, d in zip(dom["benchmark"], dom["domain"], strict=True)
                ]
            ),
            hide_index=True,
            column_config={
                "benchmark": "Benchmark",
                "domain": "Domain",
                "episodes": st.column_config.NumberColumn("Episodes", format="localized"),
                "ts": st.column_config.ProgressColumn(
                    "TS", min_value=0.0, max_value=1.0, format="percent", width=120
                ),
                "tc": st.column_config.ProgressColumn(
                    "TC", min_value=0.0, max_value=1.0, format="percent", width=120
                ),
                "tasks": "Tasks",
                "traces": st.column_config.LinkColumn("Traces", display_text="open"),
            },
        )


def infra_failures(path: str) -> None:
    """Attempts that failed outside the agent: shown apart, never counted in TS/TC, retried on re-run."""
    df = q.infra_failures(path)
    if df.empty:
        return
    st.markdown("##### Infrastructure failures")
    st.caption(
        "Episodes that could not run for reasons outside the agent (a provider outage after retries, a "
        "sandbox that did not start). They are not episodes: TS and TC never count them, and running the "
        "same command again retries them."
    )
    st.dataframe(
        df,
        hide_index=True,
        column_config={
            "ts": st.column_config.DatetimeColumn("When", format="YYYY-MM-DD HH:mm:ss"),
            "error_class": "Class",
            "benchmark": "Benchmark",
            "task_id": "Task",
            "repeat": "Repeat",
            "model": "Model",
            "error": "Error",
            "run_id": "Run",
        },
    )


def render() -> None:
    ui.header("Data", "Import traces and benchmarks, and see what the warehouse holds.")
    c = st.columns(2, gap="large")
    with c[0]:
        import_workbench()
    with c[1]:
        import_folder()
    import_jobs()
    st.divider()
    statistics(current_path())
    infra_failures(current_path())
