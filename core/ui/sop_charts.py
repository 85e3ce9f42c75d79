"""Figures of the SOPs page: SOP lifetimes (the paper's Fig. 4) and per-epoch curves (Fig. 2).

Plain Plotly from DataFrames (no Streamlit, no SQL), styled like core.ui.charts.
"""

from __future__ import annotations

import pandas as pd
import plotly.graph_objects as go
from plotly.subplots import make_subplots

from core.ui.charts import FONT
from core.ui.components import BAD_COLOR, OK_COLOR

ORIGIN_COLORS = {"composer": "#4c78a8", "llm": "#9d755d", "merge": "#b4462b", "manual": "#8c8c8c"}


def _style(fig: go.Figure, height: int) -> go.Figure:
    fig.update_layout(
        height=height,
        margin=dict(l=10, r=10, t=40, b=10),
        font=FONT,
        plot_bgcolor="white",
        legend=dict(orientation="h", yanchor="bottom", y=1.02, x=0),
    )
    fig.update_xaxes(showline=True, linecolor="#d0d7de", dtick=1)
    fig.update_yaxes(gridcolor="#eaeef2")
    return fig


def lifecycle(df: pd.DataFrame) -> go.Figure:
    """One bar per SOP across the epochs it was evaluated in, `successes/invocations` in each block, an x where pruned.

    `df`: rows of `core.sop.report.lifecycle_frame` (name, origin, epoch, invocations, successes, pruned, reason).
    """
    names = sorted(df["name"].unique(), key=lambda n: (df[df["name"] == n]["epoch"].min(), n))
    fig = go.Figure()
    for origin, g in df.groupby("origin"):
        text = [f"{s}/{n}" for s, n in zip(g["successes"], g["invocations"], strict=True)]
        fig.add_trace(
            go.Bar(
                x=[1] * len(g),
                base=g["epoch"] - 0.5,
                y=g["name"],
                orientation="h",
                text=text,
                textposition="inside",
                insidetextanchor="middle",
                marker=dict(color=ORIGIN_COLORS.get(origin, "#8c8c8c"), line=dict(color="white", width=2)),
                name=f"{origin} SOP",
                hovertemplate="%{y}, epoch %{customdata[0]}: %{text} successful invocations<br>%{customdata[1]}"
                "<extra></extra>",
                customdata=list(zip(g["epoch"], g["reason"].fillna(""), strict=True)),
            )
        )
    pruned = df[df["pruned"]]
    if not pruned.empty:
        fig.add_trace(
            go.Scatter(
                x=pruned["epoch"] + 0.55,
                y=pruned["name"],
                mode="markers",
                marker=dict(symbol="x", size=14, color=BAD_COLOR, line=dict(width=2)),
                name="pruned",
                customdata=pruned["reason"],
                hovertemplate="%{y} pruned: %{customdata}<extra></extra>",
            )
        )
    fig.update_layout(barmode="overlay")
    fig.update_yaxes(categoryorder="array", categoryarray=list(reversed(names)), title=None)
    fig.update_xaxes(title="Epoch")
    return _style(fig, 120 + 36 * max(3, len(names)))


def curves(epochs: pd.DataFrame, test: dict | None = None) -> go.Figure:
    """Training TS and reasoning rounds per epoch, against the atomic tools (epoch 0), and toolset size."""
    fig = make_subplots(
        rows=1,
        cols=3,
        subplot_titles=("Training task success", "Reasoning rounds / episode", "SOPs evaluated"),
    )
    base = epochs[epochs["epoch"] == 0]
    sop = epochs[epochs["epoch"] >= 1]
    for col, y in ((1, "ts"), (2, "rounds")):
        fig.add_trace(
            go.Scatter(x=sop["epoch"], y=sop[y], mode="lines+markers", name="EvoSOP", line=dict(color=OK_COLOR),
                       showlegend=col == 1),
            row=1, col=col,
        )  # fmt: skip
        if not base.empty:
            fig.add_hline(y=float(base[y].iloc[0]), line=dict(color="#8c8c8c", dash="dash"), row=1, col=col)
    fig.add_trace(
        go.Bar(x=sop["epoch"], y=sop["sops"], name="SOPs", marker_color="#4c78a8", showlegend=False),
        row=1,
        col=3,
    )
    fig.add_trace(
        go.Scatter(
            x=[None],
            y=[None],
            mode="lines",
            line=dict(color="#8c8c8c", dash="dash"),
            name="atomic tools (epoch 0)",
        )
    )
    fig.update_yaxes(tickformat=".0%", range=[0, 1.02], row=1, col=1)
    fig.update_xaxes(title="Epoch")
    return _style(fig, 340)
