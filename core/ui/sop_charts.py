"""Figures of the SOPs page: SOP lifetimes (the paper's Fig. 4) and per-epoch curves (Fig. 2).

Vega-Lite specs (Altair) from DataFrames (no Streamlit, no SQL), styled like core.ui.charts.
"""

from __future__ import annotations

import altair as alt
import pandas as pd

from core.ui.charts import style
from core.ui.components import BAD_COLOR, OK_COLOR

ORIGIN_COLORS = {"composer": "#4c78a8", "llm": "#9d755d", "merge": "#b4462b", "manual": "#8c8c8c"}
BASELINE_GREY = "#8c8c8c"


def lifecycle(df: pd.DataFrame) -> alt.TopLevelMixin:
    """One bar per SOP across the epochs it was evaluated in, `successes/invocations` in each block, an x where pruned.

    `df`: rows of `core.sop.report.lifecycle_frame` (name, origin, epoch, invocations, successes, pruned, reason).
    """
    names = sorted(df["name"].unique(), key=lambda n: (df[df["name"] == n]["epoch"].min(), n))
    d = df.assign(
        start=df["epoch"] - 0.5,
        end=df["epoch"] + 0.5,
        text=[f"{s}/{n}" for s, n in zip(df["successes"], df["invocations"], strict=True)],
        reason=df["reason"].fillna(""),
        origin_label=df["origin"].astype(str) + " SOP",
    )
    origins = sorted(d["origin_label"].unique())
    y = alt.Y("name:N", sort=names, title=None, axis=alt.Axis(labelLimit=320))
    span = [float(d["start"].min()), float(d["end"].max()) + 0.2] if len(d) else [0.0, 1.0]
    x = alt.X(
        "start:Q",
        title="Epoch",
        axis=alt.Axis(tickMinStep=1, format="d"),
        scale=alt.Scale(domain=span, zero=False),
    )
    blocks = (
        alt.Chart(d)
        .mark_bar(stroke="white", strokeWidth=2)
        .encode(
            x=x,
            x2="end:Q",
            y=y,
            color=alt.Color(
                "origin_label:N",
                scale=alt.Scale(
                    domain=origins,
                    range=[ORIGIN_COLORS.get(o.removesuffix(" SOP"), "#8c8c8c") for o in origins],
                ),
            ),
            tooltip=[
                alt.Tooltip("name:N", title="SOP"),
                alt.Tooltip("epoch:Q", title="Epoch"),
                alt.Tooltip("text:N", title="Successful invocations"),
                alt.Tooltip("reason:N", title="Note"),
            ],
        )
    )
    labels = alt.Chart(d).mark_text(color="white", fontSize=11).encode(x=alt.X("epoch:Q"), y=y, text="text:N")
    layers = [blocks, labels]
    pruned = d[d["pruned"].astype(bool)].assign(at=lambda f: f["epoch"] + 0.55)
    if not pruned.empty:
        layers.append(
            alt.Chart(pruned)
            .mark_point(shape="cross", size=140, color=BAD_COLOR, filled=True, angle=45)
            .encode(
                x="at:Q",
                y=y,
                tooltip=[alt.Tooltip("name:N", title="Pruned SOP"), alt.Tooltip("reason:N", title="Why")],
            )
        )
    return style(alt.layer(*layers).properties(width="container"), 40 + 36 * max(3, len(names)))


def curves(epochs: pd.DataFrame, test: dict | None = None) -> alt.TopLevelMixin:
    """Training TS and reasoning rounds per epoch, against the atomic tools (epoch 0, dashed), and toolset size."""
    base = epochs[epochs["epoch"] == 0]
    sop = epochs[epochs["epoch"] >= 1]
    x = alt.X("epoch:Q", title="Epoch", axis=alt.Axis(tickMinStep=1, format="d"))
    panels = []
    for y, title, fmt in (
        ("ts", "Training task success", "%"),
        ("rounds", "Reasoning rounds / episode", None),
    ):
        scale = alt.Scale(domain=[0, 1.02]) if y == "ts" else alt.Undefined
        line = (
            alt.Chart(sop.assign(series="EvoSOP"))
            .mark_line(point=alt.OverlayMarkDef(color=OK_COLOR), color=OK_COLOR)
            .encode(
                x=x,
                y=alt.Y(f"{y}:Q", title=None, scale=scale, axis=alt.Axis(format=fmt) if fmt else alt.Axis()),
                tooltip=["epoch:Q", alt.Tooltip(f"{y}:Q", format=".2f")],
            )
        )
        layer = [line]
        if not base.empty:
            ref = pd.DataFrame({"y": [float(base[y].iloc[0])], "what": ["atomic tools (epoch 0)"]})
            layer.append(
                alt.Chart(ref)
                .mark_rule(color=BASELINE_GREY, strokeDash=[5, 4])
                .encode(y="y:Q", tooltip=[alt.Tooltip("what:N", title=""), alt.Tooltip("y:Q", format=".2f")])
            )
        panels.append(alt.layer(*layer).properties(title=title, width=230, height=260))
    bars = (
        alt.Chart(sop)
        .mark_bar(color="#4c78a8")
        .encode(
            x=alt.X("epoch:O", title="Epoch", axis=alt.Axis(labelAngle=0)),
            y=alt.Y("sops:Q", title=None),
            tooltip=["epoch:O", "sops:Q"],
        )
        .properties(title="SOPs evaluated", width=230, height=260)
    )
    return style(alt.hconcat(*panels, bars))
