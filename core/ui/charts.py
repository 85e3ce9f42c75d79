"""Plotly figures of the dashboard, built from plain DataFrames (no SQL), each kept per input.

Every chart has labelled axes and units; colours carry meaning the same way on
every page (added fields red and removed fields black as in the paper's Fig. 1;
one colour per method in comparisons).
"""

from __future__ import annotations

import functools
import pickle
from collections.abc import Callable

import pandas as pd
import plotly.express as px
import plotly.graph_objects as go
import streamlit as st
from plotly.subplots import make_subplots

from core.fields import BY_CODE, CODES
from core.ui.components import ADD_COLOR, REMOVE_COLOR

METHOD_ORDER = ["OG", "ET", "DRT", "DC", "GEPA"]
METHOD_COLORS = {
    "OG": "#8c8c8c",
    "ET": "#4c78a8",
    "DRT": "#72b7b2",
    "DC": "#b4462b",
    "GEPA": "#9d755d",
    "Reviewed": "#e45756",
}
FONT = dict(family="Inter, Segoe UI, Helvetica, Arial, sans-serif", size=13)


# Building a figure through plotly's validators costs 0.1-0.2 s of CPU, as much as the rest of a
# page's run; a page shown again (a new visit, a rerun after a click) draws the same data, so each
# figure is kept per input, pickled. Every call unpickles, also the first: a figure handed out as
# built would serialise its properties in another order than its copies, and Streamlit would take
# the chart on the next run for a new element and drop the point a user just clicked.
_BUILDERS: dict[str, Callable[..., go.Figure]] = {}


@st.cache_data(show_spinner=False, max_entries=256)
def _figure_bytes(name: str, args: tuple, kwargs: dict) -> bytes:
    return pickle.dumps(_BUILDERS[name](*args, **kwargs))


def _figure_cache(build: Callable[..., go.Figure]) -> Callable[..., go.Figure]:
    _BUILDERS[build.__name__] = build

    @functools.wraps(build)
    def kept(*args: object, **kwargs: object) -> go.Figure:
        return pickle.loads(_figure_bytes(build.__name__, args, kwargs))  # noqa: S301 - our own bytes

    return kept


def _style(fig: go.Figure, height: int) -> go.Figure:
    fig.update_layout(
        height=height,
        margin=dict(l=10, r=10, t=40, b=10),
        font=FONT,
        plot_bgcolor="white",
        legend=dict(orientation="h", yanchor="bottom", y=1.02, x=0),
    )
    fig.update_xaxes(showline=True, linecolor="#d0d7de")
    fig.update_yaxes(gridcolor="#eaeef2", zerolinecolor="#8c959f")
    return fig


def _bar_labels(part: pd.DataFrame) -> list[str] | None:
    """Each bar's `n_label`, with `*` when it is `significant`."""
    if "n_label" not in part and "significant" not in part:
        return None
    labels = part["n_label"] if "n_label" in part else pd.Series("", index=part.index)
    marks = part["significant"] if "significant" in part else pd.Series(False, index=part.index)
    return [f"{n} *".strip() if bool(m) else str(n) for n, m in zip(labels, marks, strict=True)]


@_figure_cache
def field_impact(df: pd.DataFrame, facet: str | None = None) -> go.Figure:
    """ΔTS per field (pp) with error bars; added fields red, removed fields black (ticks and bars).

    `df` has one row per (facet value, field, operation) with delta_pp, ci_low, ci_high (and
    optionally n_label and significant, written on the bar).
    """
    groups = [(None, df)] if not facet else [(k, g) for k, g in df.groupby(facet, sort=True)]
    fig = make_subplots(
        rows=len(groups),
        cols=1,
        shared_xaxes=False,
        vertical_spacing=0.12 if len(groups) > 1 else 0.0,
        subplot_titles=[f"{facet}: {k}" for k, _ in groups] if facet else None,
    )
    for row, (_, g) in enumerate(groups, start=1):
        g = g.set_index("field").reindex([c for c in CODES if c in set(g["field"])]).reset_index()
        colors = [ADD_COLOR if op == "add" else REMOVE_COLOR for op in g["operation"]]
        for op, name, color in (("add", "Added field", ADD_COLOR), ("remove", "Removed field", REMOVE_COLOR)):
            part = g[g["operation"] == op]
            if part.empty:
                continue
            fig.add_trace(
                go.Bar(
                    x=part["field"],
                    y=part["delta_pp"],
                    name=name,
                    marker_color=color,
                    legendgroup=op,
                    showlegend=row == 1,
                    error_y=dict(
                        type="data",
                        symmetric=False,
                        array=(part["ci_high"] - part["delta_pp"]).clip(lower=0),
                        arrayminus=(part["delta_pp"] - part["ci_low"]).clip(lower=0),
                        color="#57606a",
                        thickness=1.2,
                        width=4,
                    ),
                    # n on each bar: tasks × repeats behind the mean, so a +0.0 from 4 tasks reads as such;
                    # * when the paired bootstrap interval excludes 0 (`significant`)
                    text=_bar_labels(part),
                    textposition="outside",
                    textfont={"size": 10, "color": "#57606a"},
                    cliponaxis=False,
                    customdata=part[["field"]].assign(
                        name=part["field"].map(lambda c: BY_CODE[c].name if c in BY_CODE else c)
                    ),
                    hovertemplate="%{customdata[1]} (%{x})<br>ΔTS %{y:+.1f} pp<extra>" + name + "</extra>",
                ),
                row=row,
                col=1,
            )
        ticktext = [
            f"<span style='color:{c}'><b>{f}</b></span>" for f, c in zip(g["field"], colors, strict=True)
        ]
        fig.update_xaxes(
            tickvals=list(g["field"]),
            ticktext=ticktext,
            categoryorder="array",
            categoryarray=list(g["field"]),
            row=row,
            col=1,
        )
        fig.update_yaxes(title_text="ΔTS (pp)", row=row, col=1)
    fig.update_xaxes(title_text="Documentation field", row=len(groups), col=1)
    fig.update_layout(barmode="overlay", bargap=0.25)
    return _style(fig, 140 + 300 * len(groups))


@_figure_cache
def method_boxes(
    points: pd.DataFrame, metric: str, label: str, marks: dict[str, str] | None = None
) -> go.Figure:
    """Box plot per method of one metric (TS or TC), every evaluation run shown as a point."""
    order = [m for m in METHOD_ORDER if m in set(points["method"])] + sorted(
        set(points["method"]) - set(METHOD_ORDER)
    )
    fig = px.box(
        points,
        x="method",
        y=metric,
        color="method",
        points="all",
        category_orders={"method": order},
        color_discrete_map=METHOD_COLORS,
        custom_data=["run_id", "docset_id", "repeat", "run"],
        labels={"method": "Method", metric: label},
    )
    fig.update_traces(
        hovertemplate="%{x}: %{y:.1%}<br>%{customdata[3]} · repeat %{customdata[2]}<extra>click to open traces</extra>",
        marker=dict(size=7, opacity=0.75),
        jitter=0.35,
        pointpos=0,
    )
    fig.update_yaxes(tickformat=".0%", rangemode="tozero")
    top = float(points[metric].max()) if len(points) else 1.0
    for method, mark in (marks or {}).items():
        if mark and method in order:
            fig.add_annotation(x=method, y=top * 1.06 + 0.02, text=mark, showarrow=False, font=dict(size=15))
    fig.update_layout(showlegend=False, clickmode="event+select")
    return _style(fig, 380)


@_figure_cache
def curves(df: pd.DataFrame, x: str, y: str, color: str, x_label: str, y_label: str) -> go.Figure:
    fig = px.line(df, x=x, y=y, color=color, markers=True, labels={x: x_label, y: y_label, color: ""})
    fig.update_yaxes(tickformat=".0%")
    fig.update_xaxes(dtick=1)
    return _style(fig, 320)


@_figure_cache
def heatmap(matrix: pd.DataFrame, x_label: str, y_label: str, color_label: str) -> go.Figure:
    fig = px.imshow(
        matrix,
        text_auto=True,
        aspect="auto",
        color_continuous_scale=["#fff8f0", "#f4a261", "#b4462b"],
        zmin=0,  # anchored at zero: a pale cell means "never", not "fewest"
        labels={"x": x_label, "y": y_label, "color": color_label},
    )
    fig.update_xaxes(side="bottom", tickangle=0)
    return _style(fig, 120 + 34 * max(3, len(matrix)))


@_figure_cache
def success_bars(df: pd.DataFrame) -> go.Figure:
    """TS per model (and documentation), one bar group per benchmark."""
    d = df.assign(label=df["model"] + " · " + df["docs"])
    fig = px.bar(
        d.sort_values("ts"),
        x="ts",
        y="label",
        color="benchmark",
        orientation="h",
        barmode="group",
        labels={"ts": "Task success (TS)", "label": "Model · documentation", "benchmark": "Benchmark"},
        hover_data={"tc": ":.1%", "episodes": True},
    )
    fig.update_xaxes(tickformat=".0%", range=[0, 1])
    return _style(fig, 120 + 26 * len(d))
