"""Compare methods: OG / EasyTool / DRAFT / DocsChisel on the same held-out split.

Box plots of TS and TC over evaluation runs (Fig. 8) with Mann–Whitney U / Holm
marks, the efficiency table (Table III), and the iteration-budget and memory
ablation curves (Figs. 9–10). Every number leads to its traces: click a point
of a box, or use the links in the tables.
"""

from __future__ import annotations

import pandas as pd
import streamlit as st

from core.ui import charts, stats
from core.ui import components as ui
from core.ui.queries import results as q
from core.ui.state import current_path
from core.ui.urlstate import UrlState

URL = UrlState("compare", {"benchmark": "cmp_benchmark", "split": "cmp_split"})

NAMES = {"OG": "Original docs", "ET": "EasyTool", "DRT": "DRAFT", "DC": "DocsChisel", "Reviewed": "Reviewed"}


def _open_selected(event: object, split: str) -> None:
    points = getattr(getattr(event, "selection", None), "points", None) or []
    for p in points:
        data = p.get("customdata") if isinstance(p, dict) else None
        if data:
            st.switch_page(
                ui.PAGE_FILES["traces"], query_params={"run": data[0], "docset": data[1], "split": split}
            )


def significance(points: pd.DataFrame, metric: str) -> tuple[pd.DataFrame, dict[str, str]]:
    groups = {m: list(g[metric]) for m, g in points.groupby("method")}
    if "DC" not in groups:
        return pd.DataFrame(), {}
    res = stats.versus("DC", groups)
    dc = pd.Series(groups["DC"]).mean()
    rows, marks = [], {}
    for method, r in res.items():
        other = pd.Series(groups[method]).mean()
        rows.append(
            {
                "versus": f"DC vs {method}",
                "dc": dc,
                "other": other,
                "relative": (dc - other) / other if other else None,
                "u": r["u"],
                "p": r["p"],
                "p_holm": r["p_holm"],
                "mark": stats.stars(r["p_holm"]),
            }
        )
        marks[method] = stats.stars(r["p_holm"])
    return pd.DataFrame(rows), marks


def boxes(points: pd.DataFrame, split: str) -> None:
    c = st.columns(2)
    for col, metric, label in ((c[0], "ts", "Task success (TS)"), (c[1], "tc", "Tool correctness (TC)")):
        sig, marks = significance(points, metric)
        with col:
            st.markdown(f"##### {label}")
            event = st.plotly_chart(
                charts.method_boxes(points, metric, label, marks),
                key=f"box_{metric}",
                on_select="rerun",
                selection_mode="points",
                config={"displaylogo": False},
            )
            _open_selected(event, split)
            if not sig.empty:
                st.dataframe(
                    sig,
                    hide_index=True,
                    column_config={
                        "versus": "Comparison",
                        "dc": st.column_config.NumberColumn("DC mean", format="percent"),
                        "other": st.column_config.NumberColumn("Other mean", format="percent"),
                        "relative": st.column_config.NumberColumn("Relative gain", format="percent"),
                        "u": st.column_config.NumberColumn("U", format="%.1f"),
                        "p": st.column_config.NumberColumn("p", format="%.4f"),
                        "p_holm": st.column_config.NumberColumn("p (Holm)", format="%.4f"),
                        "mark": "Sig.",
                    },
                )
    st.caption(
        "Each point is one evaluation run (optimization seed × evaluation repeat). Click a point to open its "
        "traces. Marks: Mann–Whitney U (two-sided) of DocsChisel against each method, Holm-corrected; "
        "* p<0.05, ** p<0.01, *** p<0.001, n.s. not significant."
    )


def summary(points: pd.DataFrame, split: str, benchmark: str) -> None:
    g = points.groupby(["method", "run_id", "run", "docset_id"], as_index=False).agg(
        ts=("ts", "mean"), tc=("tc", "mean"), repeats=("repeat", "nunique"), tasks=("n", "max")
    )
    g["traces"] = [
        ui.link("traces", benchmark=benchmark, run=r, docset=d, split=split)
        for r, d in zip(g["run_id"], g["docset_id"], strict=True)
    ]
    g["failed"] = [
        ui.link("traces", benchmark=benchmark, run=r, docset=d, split=split, outcome="failed")
        for r, d in zip(g["run_id"], g["docset_id"], strict=True)
    ]
    g["order"] = g["method"].map({m: i for i, m in enumerate(charts.METHOD_ORDER)}).fillna(99)
    st.markdown("##### Evaluation runs")
    st.dataframe(
        g.sort_values(["order", "run"]),
        hide_index=True,
        column_order=("method", "run", "ts", "tc", "repeats", "tasks", "traces", "failed"),
        column_config={
            "method": "Method",
            "run": st.column_config.TextColumn("Run", width="medium"),
            "ts": st.column_config.ProgressColumn("TS", min_value=0.0, max_value=1.0, format="percent"),
            "tc": st.column_config.ProgressColumn("TC", min_value=0.0, max_value=1.0, format="percent"),
            "repeats": "Repeats",
            "tasks": "Tasks",
            "traces": st.column_config.LinkColumn("Traces", display_text="all traces"),
            "failed": st.column_config.LinkColumn("Failures", display_text="failed only"),
        },
    )


def efficiency(path: str, benchmark: str, points: pd.DataFrame) -> None:
    eff = q.efficiency(path, benchmark)
    st.markdown("##### Efficiency (Table III)")
    if eff.empty:
        st.caption("No doc set with a known producing run.")
        return
    per_tool = eff.assign(
        tokens_per_tool=eff["tokens"] / eff["tools"],
        minutes_per_tool=eff["minutes"] / eff["tools"],
    )
    table = per_tool.groupby("method", as_index=False).agg(
        doc_tokens=("doc_tokens", "mean"),
        tokens_per_tool=("tokens_per_tool", "mean"),
        minutes_per_tool=("minutes_per_tool", "mean"),
        doc_sets=("docset_id", "nunique"),
    )
    means = points.groupby("method", as_index=False).agg(ts=("ts", "mean"), tc=("tc", "mean"))
    table = table.merge(means, on="method", how="left")
    table["name"] = table["method"].map(NAMES).fillna(table["method"])
    table["order"] = table["method"].map({m: i for i, m in enumerate(charts.METHOD_ORDER)}).fillna(99)
    st.dataframe(
        table.sort_values("order"),
        hide_index=True,
        column_order=("name", "ts", "tc", "doc_tokens", "tokens_per_tool", "minutes_per_tool", "doc_sets"),
        column_config={
            "name": "Method",
            "ts": st.column_config.NumberColumn("TS", format="percent"),
            "tc": st.column_config.NumberColumn("TC", format="percent"),
            "doc_tokens": st.column_config.NumberColumn("Doc length (tokens)", format="%.0f"),
            "tokens_per_tool": st.column_config.NumberColumn("Optimization tokens / tool", format="%.0f"),
            "minutes_per_tool": st.column_config.NumberColumn("Minutes / tool", format="%.2f"),
            "doc_sets": "Doc sets",
        },
    )
    st.caption(
        "Paper anchors for DocsChisel: 12.65 min and 4,481 tokens per tool; docs of 189 tokens on average."
    )


def curves(path: str, benchmark: str) -> None:
    df = q.iteration_curves(path, benchmark)
    if df.empty:
        return
    c = st.columns(2)
    with c[0]:
        st.markdown("##### Iteration budget (Fig. 9)")
        st.plotly_chart(
            charts.curves(
                df, "iteration", "ts", "run", "Iteration budget", "Validation TS (mean over tools)"
            ),
            key="iter_curve",
            config={"displaylogo": False},
        )
    with c[1]:
        st.markdown("##### Memory ablation (Fig. 10)")
        mem = df.groupby(["memory", "iteration"], as_index=False)["ts"].mean()
        st.plotly_chart(
            charts.curves(mem, "iteration", "ts", "memory", "Iteration", "Validation TS (mean over tools)"),
            key="mem_curve",
            config={"displaylogo": False},
        )


def render() -> None:
    ui.header(
        "Compare methods",
        "Original docs (OG), EasyTool (ET), DRAFT (DRT) and DocsChisel (DC) on the same split.",
    )
    path = current_path()
    avail = q.compare_benchmarks(path)
    if avail.empty:
        ui.empty(
            "No evaluation of OG / ET / DRT / DC doc sets yet.",
            "Run `docschisel compare ...` or evaluate doc sets from the Re-evaluation page.",
            "jobs",
            "Start an evaluation",
        )
        return
    richness = (
        avail.groupby(["benchmark", "split"])
        .agg(methods=("method", "nunique"), episodes=("episodes", "sum"))
        .sort_values(["methods", "episodes"], ascending=False)
    )
    benchmarks = list(dict.fromkeys(b for b, _ in richness.index))
    c = st.columns([2, 1, 3])
    URL.pull()
    URL.ensure("benchmark", benchmarks, benchmarks[0])
    benchmark = c[0].selectbox("Benchmark", benchmarks, key=URL.keys["benchmark"])
    splits = [s for b, s in richness.index if b == benchmark]
    URL.ensure("split", splits, "test" if "test" in splits else splits[0])
    split = c[1].selectbox("Split", splits, key=URL.keys["split"], format_func=lambda s: s or "(none)")
    URL.push()
    points = q.method_points(path, benchmark, split)
    if points.empty:
        st.info("No evaluation episodes for this benchmark and split.")
        return
    counts = points.groupby("method").size()
    c[2].caption(
        "Evaluation runs per method: " + " · ".join(f"{NAMES.get(m, m)} {n}" for m, n in counts.items())
    )
    boxes(points, split)
    summary(points, split, benchmark)
    efficiency(path, benchmark, points)
    curves(path, benchmark)
