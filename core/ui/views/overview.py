"""Overview: what is in the warehouse and how well the agents do, at a glance."""

from __future__ import annotations

import streamlit as st

from core import jobs
from core.ui import charts, chartview
from core.ui import components as ui
from core.ui.queries import overview as q
from core.ui.state import current_path, wh


def headline(h: dict) -> None:
    m = st.columns(6)
    m[0].metric("Benchmarks", ui.number(h["benchmarks"]), border=True, help="Registered benchmarks")
    m[1].metric("Tasks", ui.number(h["tasks"]), border=True)
    m[2].metric("Episodes", ui.number(h["episodes"]), border=True, help="Recorded agent attempts (traces)")
    m[3].metric(
        "Task success", ui.pct(h["ts"]), border=True, help="Share of episodes that completed the task"
    )
    m[4].metric(
        "Tool correctness", ui.pct(h["tc"]), border=True, help="Share choosing exactly the gold tools"
    )
    tokens = (h["episode_tokens"] or 0) + (h["llm_tokens"] or 0)
    m[5].metric(
        "Tokens",
        ui.number(tokens) if tokens else "–",
        border=True,
        help=f"Agents and optimizers (– when not recorded, e.g. imported traces); cost ${float(h['cost'] or 0):,.2f}",
    )


def by_model(path: str) -> None:
    df = q.by_model(path)
    st.markdown("##### Success by benchmark, model and documentation")
    df = df.assign(
        traces=[
            ui.link("traces", benchmark=b, model=m) for b, m in zip(df["benchmark"], df["model"], strict=True)
        ]
    )
    c = st.columns(1)  # the table takes the page's width, the chart goes below it
    with c[0]:
        st.dataframe(
            df,
            hide_index=True,
            column_order=(
                "benchmark",
                "model",
                "paradigm",
                "docs",
                "episodes",
                "ts",
                "tc",
                "steps",
                "tokens",
                "traces",
            ),
            column_config={
                "benchmark": "Benchmark",
                "model": "Model",
                "paradigm": "Paradigm",
                "docs": "Docs",
                "episodes": st.column_config.NumberColumn("Episodes", format="localized"),
                "ts": st.column_config.ProgressColumn(
                    "TS", min_value=0.0, max_value=1.0, format="percent", width=100
                ),
                "tc": st.column_config.ProgressColumn(
                    "TC", min_value=0.0, max_value=1.0, format="percent", width=100
                ),
                "steps": st.column_config.NumberColumn("Steps", format="%.1f"),
                "tokens": st.column_config.NumberColumn("Tokens", format="compact"),
                "traces": st.column_config.LinkColumn("Traces", display_text="open"),
            },
            height=min(38 + 35 * len(df), 460),
        )
    with c[0]:
        top = df.groupby(["benchmark", "model", "docs"], as_index=False).agg(
            ts=("ts", "mean"), tc=("tc", "mean"), episodes=("episodes", "sum")
        )
        chartview.draw(charts.success_bars, top.nlargest(16, "episodes"), key="ov_bars")


def _run_columns(name_width: int) -> dict:
    """A run's name, benchmark, status and start, in widths that let its table fit 1280-1440 px
    (a long name shows in full on hover)."""
    return {
        "name": st.column_config.TextColumn("Run", width=name_width),
        "benchmark": st.column_config.TextColumn("Benchmark", width=90),
        "status": st.column_config.TextColumn("Status", width=60),
        "created_at": st.column_config.DatetimeColumn("Started", format="MM-DD HH:mm", width=95),
    }


def optimization(path: str) -> None:
    df = q.optimization_runs(path)
    st.markdown("##### Latest optimization runs")
    if df.empty:
        st.caption("No optimization run yet — start one with `docschisel optimize ...`.")
        return
    st.dataframe(
        df.assign(diagnoses=df["run_id"].map(lambda r: ui.link("diagnoses", run=r))),
        hide_index=True,
        column_order=(
            "name",
            "benchmark",
            "status",
            "tools",
            "iterations",
            "candidates",
            "accepted",
            "base_ts",
            "best_ts",
            "gain_pp",
            "created_at",
            "diagnoses",
        ),
        column_config={
            **_run_columns(130),
            "tools": st.column_config.NumberColumn("Tools", width=50),
            "iterations": st.column_config.NumberColumn("Iterations", width=70),
            "candidates": st.column_config.NumberColumn("Candidates", width=80),
            "accepted": st.column_config.NumberColumn("Accepted", width=70),
            "base_ts": st.column_config.NumberColumn("Val TS original", format="percent", width=100),
            "best_ts": st.column_config.NumberColumn("Val TS best", format="percent", width=80),
            "gain_pp": st.column_config.NumberColumn("Gain", format="%+.1f pp", width=60),
            "diagnoses": st.column_config.LinkColumn("Details", display_text="diagnoses", width=80),
        },
    )


def activity(path: str) -> None:
    c = st.columns([3, 2], gap="large")
    with c[0]:
        st.markdown("##### Recent runs")
        runs = q.recent_runs(path)
        st.dataframe(
            runs.assign(traces=runs["run_id"].map(lambda r: ui.link("traces", run=r))),
            hide_index=True,
            column_order=("name", "kind", "benchmark", "status", "episodes", "created_at", "traces"),
            column_config={
                **_run_columns(110),
                "kind": st.column_config.TextColumn("Kind", width=70),
                "episodes": st.column_config.NumberColumn("Episodes", width=65),
                "traces": st.column_config.LinkColumn("Traces", display_text="open", width=54),
            },
        )
    with c[1]:
        st.markdown("##### Jobs")
        active = [j for j in jobs.list_jobs(wh(), limit=20) if j.active]
        if not active:
            st.caption("No job running.")
        for j in active[:5]:
            st.progress(j.fraction or 0.0, text=f"{j.kind} · {j.status} · {j.message}")
        st.page_link(ui.PAGE_FILES["jobs"], label="Re-evaluation and jobs", icon=":material/play_circle:")


def render() -> None:
    ui.header(
        "DocsChisel Studio", "Diagnose tool-use failures down to documentation fields, and fix the docs."
    )
    path = current_path()
    h = q.headline(path)
    if not h["episodes"] and not h["doc_versions"]:
        ui.empty(
            "This warehouse is empty.",
            "Import the recorded WorkBench traces (real GPT-4, Claude, Llama and Mixtral runs) to start exploring.",
            "data",
            "Import data",
        )
        return
    headline(h)
    if h["episodes"]:
        by_model(path)
    optimization(path)
    activity(path)
