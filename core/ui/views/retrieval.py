"""Tool retrieval and Tool-REX expansion: metrics per doc version, the field ablation, the judge's verdicts.

Read-only: every number comes from the warehouse tables written by
`docschisel expand` and `docschisel retrieval eval`. `render()` draws a full
page; `render(section=True)` draws the same content under a subheader so it
can sit inside another page (e.g. field impact).
"""

from __future__ import annotations

import pandas as pd
import streamlit as st

from core.expansion import report as rep
from core.ui import charts, chartview
from core.ui.state import cached_query, current_path


@cached_query
def _tables_present(wh) -> bool:
    return rep._has(wh, "retrieval_metrics") and rep._has(wh, "expansion_attempts")


@cached_query
def metrics(wh, k: int) -> pd.DataFrame:
    return rep.retrieval_table(wh, k)


@cached_query
def cutoffs(wh) -> list[int]:
    return [int(r[0]) for r in wh.rows("SELECT DISTINCT k FROM retrieval_metrics ORDER BY k")]


@cached_query
def runs(wh) -> pd.DataFrame:
    return rep.expansion_runs(wh)


@cached_query
def verdicts(wh, run_id: str) -> pd.DataFrame:
    return wh.query(
        """SELECT a.tool, a.attempt, a.model, v.field, v.stage, v.accepted, v.content, v.reason
           FROM expansion_verdicts v JOIN expansion_attempts a USING (attempt_id)
           WHERE a.run_id = ? ORDER BY a.tool, a.attempt, v.field, v.stage""",
        [run_id],
    )


@cached_query
def attempt_raw(wh, run_id: str, tool: str) -> pd.DataFrame:
    return wh.query(
        "SELECT attempt, model, raw, parse_error, error FROM expansion_attempts WHERE run_id = ? AND tool = ? "
        "ORDER BY attempt",
        [run_id, tool],
    )


def _metrics_block(path: str) -> None:
    ks = cutoffs(path)
    if not ks:
        st.info(
            "No retrieval evaluation yet: run `docschisel retrieval eval --benchmark ... --docs expanded --ablation`."
        )
        return
    k = st.selectbox("Cut-off k", ks, index=ks.index(10) if 10 in ks else 0, key="retr_k")
    df = metrics(path, k)
    benches = sorted(df.benchmark.unique())
    bench = st.radio("Benchmark", benches, horizontal=True, key="retr_bench")
    df = df[df.benchmark == bench]
    main = df[~df.variant.str.contains(":")].copy()
    main["docs"] = main.variant.where(main.variant == "original", main.variant + " (" + main.expansion + ")")
    main = main.drop_duplicates(["retriever", "docs"])
    long = main.melt(
        id_vars=["retriever", "docs"], value_vars=["ndcg", "recall", "comprehensiveness"], var_name="metric"
    )
    long["metric"] = long.metric.map({"ndcg": f"nDCG@{k}", "recall": f"R@{k}", "comprehensiveness": f"C@{k}"})
    chartview.draw(charts.grouped_bars, long, "metric", "value", "docs", "retriever", y_domain=(0, 1))
    st.dataframe(
        main[["retriever", "docs", "ndcg", "recall", "comprehensiveness", "n_queries", "n_tools", "changed"]],
        hide_index=True,
        width="stretch",
    )
    abl = rep.ablation_table(df)
    if abl.empty:
        st.caption("No ablation for this benchmark yet (`retrieval eval --docs expanded --ablation`).")
        return
    st.markdown("**Field ablation** (points): add-one vs original, one-out vs full expansion")
    metric = st.radio("Metric", ["nDCG", "R", "C"], horizontal=True, key="retr_abl_metric")
    chart = abl.melt(
        id_vars=["retriever", "expansion", "field"],
        value_vars=[f"add-one Δ{metric}", f"one-out Δ{metric}"],
        var_name="protocol",
    )
    chartview.draw(charts.grouped_bars, chart, "field", "value", "protocol", "retriever", y_title="Δ points")
    st.dataframe(abl, hide_index=True, width="stretch")


def _expansion_block(path: str) -> None:
    r = runs(path)
    if r.empty:
        st.info("No expansion yet: run `docschisel expand --benchmark api-bank`.")
        return
    labels = {
        row.run_id: f"{row.benchmark} · {row.model} · judge {row.judge} · {row.run_id[:8]}"
        for row in r.itertuples(index=False)
    }
    run_id = st.selectbox("Expansion run", list(labels), format_func=labels.get, key="retr_run")
    v = verdicts(path, run_id)
    if v.empty:
        st.caption("This run has no verdicts.")
        return
    per_field = v.groupby(["field", "stage", "accepted"]).size().reset_index(name="n")
    per_field["outcome"] = per_field.stage + (per_field.accepted.map({True: " accepted", False: " rejected"}))
    chartview.draw(charts.grouped_bars, per_field, "field", "n", "outcome", y_title="verdicts")
    only_rejected = st.toggle("Only rejections", value=True, key="retr_only_rej")
    shown = v[~v.accepted] if only_rejected else v
    st.dataframe(shown, hide_index=True, width="stretch")
    tool = st.selectbox("Tool", sorted(v.tool.unique()), key="retr_tool")
    for row in attempt_raw(path, run_id, tool).itertuples(index=False):
        st.markdown(f"Attempt {row.attempt} — `{row.model}`")
        st.code(row.raw or row.error or "", language="json")


def render(section: bool = False) -> None:
    """The retrieval page (or, with `section=True`, a section of another page)."""
    path = current_path()
    if section:
        st.subheader("Tool retrieval (Tool-REX)")
    else:
        st.title("Tool retrieval")
        st.caption(
            "Retrieval metrics per doc version and the Tool-REX field ablation; the expansion judge's verdicts."
        )
    if not _tables_present(path):
        st.info(
            "This warehouse has no retrieval tables yet; run `docschisel expand` and `docschisel retrieval eval`."
        )
        return
    tab_metrics, tab_expansion = st.tabs(["Retrieval metrics", "Expansion verdicts"])
    with tab_metrics:
        _metrics_block(path)
    with tab_expansion:
        _expansion_block(path)
