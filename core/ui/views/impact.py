"""Field impact (the paper's Fig. 1): how task success moves when one field is removed or added."""

from __future__ import annotations

import pandas as pd
import streamlit as st

from core import jobs
from core.fields import BY_CODE
from core.ui import charts, chartview
from core.ui import components as ui
from core.ui.queries import json_value
from core.ui.queries import results as q
from core.ui.state import current_path, wh
from core.ui.views.jobs import progress_text

DIMENSIONS = {"benchmark": "Benchmark", "domain": "Domain", "model": "Backbone", "paradigm": "Paradigm"}


# Below this many paired task runs behind a bar, a ΔTS of a few points is noise (one task flipping
# in 20 runs is 5 pp): the page says so instead of letting a row of +0.0 bars look like a finding.
SMALL_N = 20


def n_tasks(detail: object) -> int:
    """Tasks measured in one study cell (from the row's detail; 0 when not recorded)."""
    d = json_value(detail, {})
    return int(d.get("n_tasks") or 0) if isinstance(d, dict) else 0


# The panel key when several of the contrasts vary: one panel per study cell (domain · backbone ·
# paradigm), so no bar pools two backbones whose effects may have opposite signs.
CELL = "cell"
CONTRASTS = ("domain", "model", "paradigm")


def varying(df: pd.DataFrame) -> list[str]:
    """The contrasts (domain, backbone, paradigm) that take more than one value in `df`."""
    return [k for k in CONTRASTS if df[k].nunique() > 1]


def with_cells(df: pd.DataFrame) -> pd.DataFrame:
    """`df` with the `cell` column: the varying contrasts' values joined (model names shortened)."""
    keys = varying(df)
    if not keys:
        return df.assign(**{CELL: ""})
    parts = [df[k].astype(str).str.replace("local/", "", regex=False) for k in keys]
    label = parts[0].str.cat(parts[1:], sep=" · ") if len(parts) > 1 else parts[0]
    return df.assign(**{CELL: label})


def default_facet(df: pd.DataFrame) -> str:
    """Small multiples of the paper's contrast: one panel per study cell when several of domain,
    backbone and paradigm vary (a mean over backbones hides a field that helps one and hurts the
    other), else per the one that varies."""
    keys = varying(df)
    if len(keys) > 1:
        return CELL
    return next((k for k in (*CONTRASTS, "benchmark") if df[k].nunique() > 1), "")


def _aggregate(df: pd.DataFrame, facet: str | None) -> pd.DataFrame:
    """Mean over the selected study cells; error bars are the mean interval bounds around the mean."""
    keys = ([facet] if facet else []) + ["field", "operation"]
    df = df.assign(
        tasks=[n_tasks(d) for d in df["detail"]] if "detail" in df else 0,
        above=df["ci_low"] > 0,  # the cell's paired bootstrap interval lies above 0 (NaN: False)
        below=df["ci_high"] < 0,
    )
    out = df.groupby(keys, as_index=False).agg(
        delta_pp=("delta_pp", "mean"),
        ci_low=("ci_low", "mean"),
        ci_high=("ci_high", "mean"),
        base_ts=("base_ts", "mean"),
        variant_ts=("variant_ts", "mean"),
        repeats=("repeats", "sum"),
        cells=("delta_pp", "size"),
        docset_id=("docset_id", "first"),
        benchmark=("benchmark", "first"),
        tasks=("tasks", "sum"),
        above=("above", "all"),
        below=("below", "all"),
    )
    # a bar is significant when the 95 % paired bootstrap interval of every cell behind it excludes 0 on
    # the same side (one cell: its own interval); a mean of intervals is no interval, so none is made up
    out["significant"] = out.pop("above") | out.pop("below")
    per_cell = (out["repeats"] / out["cells"]).round().astype(int)
    out["n_label"] = [
        f"n={t}×{r}" if t else f"×{r}" for t, r in zip(out["tasks"], per_cell, strict=True)
    ]  # tasks × repeats per cell
    return out


def running_studies() -> None:
    """While a field study runs as a job: how many of its variant runs are done, and how long is left."""
    for j in jobs.list_jobs(wh(), limit=20, kind="study"):
        if j.active:
            st.info(f"A field study is running: {progress_text(j)}", icon=":material/hourglass_top:")


def render() -> None:
    ui.header(
        "Field impact",
        "Change in task success (ΔTS, percentage points) when one documentation field is removed "
        "(black) or added (red), everything else unchanged — the paper's Fig. 1.",
    )
    running_studies()
    df = q.field_impact(current_path())
    if df.empty:
        ui.empty(
            "No field-impact study in the warehouse yet.",
            "Run `docschisel study fields ...` (or start it from the Re-evaluation page) to measure each field.",
        )
        return
    c = st.columns(5)
    chosen: dict[str, list[str]] = {}
    for i, (col, label) in enumerate(DIMENSIONS.items()):
        values = sorted(df[col].dropna().unique())
        chosen[col] = c[i].multiselect(label, values, default=[], key=f"fi_{col}", placeholder="All")
    df = with_cells(df)
    facets = {"": "Nothing (mean)", **{k: v for k, v in DIMENSIONS.items() if df[k].nunique() > 1}}
    if len(varying(df)) > 1:
        facets[CELL] = "Study cell (" + " × ".join(DIMENSIONS[k].lower() for k in varying(df)) + ")"
    options = list(facets)
    facet = (
        c[4].selectbox(
            "One panel per",
            options,
            index=options.index(default_facet(df)),
            format_func=facets.get,
            key="fi_facet",
            help="Small multiples: the effect of a field depends on the domain, the backbone and the paradigm",
        )
        or None
    )
    sel = df
    for col, values in chosen.items():
        if values:
            sel = sel[sel[col].isin(values)]
    if sel.empty:
        st.info("No measurement for this selection.")
        return
    agg = _aggregate(sel, facet)
    runs = (agg["tasks"] * agg["repeats"]).max()
    if runs < SMALL_N:
        st.warning(
            f"Too few measurements to mean much: at most {int(agg['tasks'].max())} task(s) × "
            f"{int(agg['repeats'].max())} repeat(s) behind a bar. One task flipping moves a bar by "
            f"{100 / max(1, runs):.0f} pp; run the study on more tasks (`--limit`) or repeats before reading it.",
            icon=":material/warning:",
        )
    chartview.draw(charts.field_impact, agg, facet, key="fi_chart")
    cells = sel.groupby(list(DIMENSIONS)).ngroups
    st.caption(
        f"{cells} study cell(s) selected ({len(sel)} measurements). Bars are means over the selected cells; "
        "error bars span the mean of the cells' 95 % intervals (paired bootstrap over tasks); * marks a bar whose "
        "interval excludes 0 in every cell behind it. Tick labels: red = field added where the "
        "docs lacked it, black = field removed where the docs had it."
    )
    table = agg.assign(
        name=agg["field"].map(lambda c: BY_CODE[c].name if c in BY_CODE else c),
        sig=agg["significant"].map({True: "*", False: ""}),
        traces=[
            ui.link("traces", docset=d, benchmark=b) if isinstance(d, str) else None
            for d, b in zip(agg["docset_id"], agg["benchmark"], strict=True)
        ],
    ).sort_values("delta_pp")
    cols = ([facet] if facet else []) + [
        "field",
        "name",
        "operation",
        "delta_pp",
        "ci_low",
        "ci_high",
        "sig",
        "base_ts",
        "variant_ts",
        "tasks",
        "repeats",
        "traces",
    ]
    st.dataframe(
        table,
        hide_index=True,
        column_order=cols,
        column_config={
            "field": st.column_config.TextColumn("Code", width=60),
            "name": "Field",
            "operation": "Operation",
            "delta_pp": st.column_config.NumberColumn("ΔTS (pp)", format="%+.1f"),
            "ci_low": st.column_config.NumberColumn("CI low", format="%+.1f"),
            "ci_high": st.column_config.NumberColumn("CI high", format="%+.1f"),
            "sig": st.column_config.TextColumn(
                "Sig.", width=50, help="* the 95 % paired bootstrap interval excludes 0 in every cell"
            ),
            "base_ts": st.column_config.NumberColumn("TS original", format="percent"),
            "variant_ts": st.column_config.NumberColumn("TS variant", format="percent"),
            "tasks": st.column_config.NumberColumn("Tasks", help="tasks measured, summed over the cells"),
            "repeats": "Repeats",
            "traces": st.column_config.LinkColumn("Traces", display_text="open traces"),
        },
        height=38 + 35 * len(table),
    )
    _backbones(sel)
    _moves(sel)


def _backbones(sel: pd.DataFrame) -> None:
    """The same cells measured on several backbones, side by side, with the fields whose effect flips."""
    from core.study.report import backbone_frames, current_studies

    if sel["model"].nunique() < 2:
        return
    shown, _ = current_studies(sel)
    frames = backbone_frames(shown)
    if not frames:
        return
    st.markdown("##### Backbones side by side")
    st.caption(
        "ΔTS pp [95 % interval] of adding (+) or removing (−) each field on each backbone; "
        "'flips' marks opposite effects with both intervals excluding zero."
    )
    for name, frame in frames:
        st.markdown(f"**{name}**")
        st.dataframe(frame, hide_index=True)


def _moves(sel: pd.DataFrame) -> None:
    """Where a study's bars come from: the tasks each variant moved (with both sides' failures and
    links to their traces), the tasks nothing moves, and the smallest effect the study could detect."""
    from core.study.moves import SHOWN, detectable_text, pinned_text, shared_text
    from core.study.report import measured, title

    # the study measured on the most paired episodes first: the one whose tasks say the most
    groups = sorted(sel.groupby("study_id", sort=True), key=lambda kv: -measured(kv[1]))
    studies = {str(sid): title(g) for sid, g in groups}
    st.markdown("##### Where the numbers come from")
    sid = st.selectbox(
        "Study",
        list(studies),
        format_func=studies.get,
        key="fi_moves_study",
        help="The tasks behind one study's bars: a ΔTS is a few tasks flipping, or noise spread over many",
    )
    if not sid:
        return
    e = q.field_moves(current_path(), sid)
    st.caption(" ".join(t for t in (detectable_text(e), pinned_text(e), shared_text(e)) if t))
    if e.moved.empty:
        st.info("No task's success moved by half or more of its repeats under any variant of this study.")
        return
    bench = str(sel.loc[sel["study_id"] == sid, "benchmark"].iloc[0])
    frame = e.moved.assign(
        original_traces=[
            ui.link("traces", docset=d, benchmark=bench, q=t)
            for d, t in zip(e.moved["original docset"], e.moved["task"], strict=True)
        ],
        variant_traces=[
            ui.link("traces", docset=d, benchmark=bench, q=t)
            for d, t in zip(e.moved["variant docset"], e.moved["task"], strict=True)
        ],
    )
    st.dataframe(
        frame,
        hide_index=True,
        column_order=[*SHOWN, "original_traces", "variant_traces"],
        column_config={
            "field": st.column_config.TextColumn("Variant", width=70),
            "original": st.column_config.TextColumn("Original", help="successes / episodes, original docs"),
            "variant": st.column_config.TextColumn("With variant", help="successes / episodes, variant docs"),
            "Δ": st.column_config.NumberColumn("Δ success", format="%+.2f"),
            "original_traces": st.column_config.LinkColumn("Original traces", display_text="open"),
            "variant_traces": st.column_config.LinkColumn("Variant traces", display_text="open"),
        },
    )
