"""Vega-Lite figures of the dashboard (Altair), built from plain DataFrames (no SQL, no Streamlit).

Why Vega-Lite rather than Plotly: a browser draws a page's first chart only
after it has loaded the chart library, and Streamlit's Plotly bundle is 4.7 MB
of JavaScript against about 0.8 MB for Vega. On 2 cores that was 2.3-2.5 s of
every first visit to a page with a chart, against 0.85 s with Vega-Lite. A
chart is a spec (JSON) built in a few ms, so nothing needs caching here.

Every chart has labelled axes and units; colours carry meaning the same way on
every page (added fields red and removed fields black as in the paper's Fig. 1;
one colour per method in comparisons). Specs are deterministic (no random
jitter, named selections): Streamlit keeps a chart, and the point a user just
clicked, across reruns only while its spec stays the same.
"""

from __future__ import annotations

import altair as alt
import pandas as pd

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
AXIS_GREY, GRID_GREY = "#57606a", "#eaeef2"
HEAT_RANGE = ["#fff8f0", "#f4a261", "#b4462b"]
PICK = "pick"  # the selection of a box plot's points: event.selection[PICK] lists the clicked points
PICK_FIELDS = ["run_id", "docset_id", "repeat", "run"]


def style(chart: alt.TopLevelMixin, height: int | None = None) -> alt.TopLevelMixin:
    """Shared look: light grid, grey axis lines, legend on top."""
    if height is not None:
        chart = chart.properties(height=height)
    return (
        chart.configure_axis(
            gridColor=GRID_GREY, domainColor="#d0d7de", labelColor=AXIS_GREY, titleColor="#24292f"
        )
        .configure_legend(orient="top", title=None)
        .configure_view(stroke=None)
    )


def _bar_labels(part: pd.DataFrame) -> list[str]:
    """Each bar's `n_label`, with `*` when it is `significant`."""
    labels = part["n_label"] if "n_label" in part else pd.Series("", index=part.index)
    marks = part["significant"] if "significant" in part else pd.Series(False, index=part.index)
    return [f"{n} *".strip() if bool(m) else str(n) for n, m in zip(labels, marks, strict=True)]


def field_impact(df: pd.DataFrame, facet: str | None = None) -> alt.TopLevelMixin:
    """ΔTS per field (pp) with error bars; added fields red, removed fields black (bars and tick labels).

    `df` has one row per (facet value, field, operation) with delta_pp, ci_low, ci_high (and
    optionally n_label and significant, written above the bar). One panel per `facet` value.
    """
    present = set(df["field"])
    order = [c for c in CODES if c in present] + sorted(present - set(CODES))
    d = df.assign(
        label=_bar_labels(df),
        name=df["field"].map(lambda c: BY_CODE[c].name if c in BY_CODE else c),
        ci_low=df["ci_low"].where(df["ci_low"].notna(), df["delta_pp"]),
        ci_high=df["ci_high"].where(df["ci_high"].notna(), df["delta_pp"]),
    )
    removed = sorted(
        set(d.loc[d["operation"] == "remove", "field"]) - set(d.loc[d["operation"] == "add", "field"])
    )
    x = alt.X(
        "field:N",
        sort=order,
        title="Documentation field",
        axis=alt.Axis(
            labelAngle=0,
            labelFontWeight="bold",
            labelColor=alt.condition(
                alt.FieldOneOfPredicate(field="value", oneOf=removed),
                alt.value(REMOVE_COLOR),
                alt.value(ADD_COLOR),
            ),
        ),
    )
    color = alt.Color(
        "operation:N",
        scale=alt.Scale(domain=["add", "remove"], range=[ADD_COLOR, REMOVE_COLOR]),
        legend=alt.Legend(labelExpr="datum.label == 'add' ? 'Added field' : 'Removed field'"),
    )
    tooltip = [
        alt.Tooltip("name:N", title="Field"),
        alt.Tooltip("field:N", title="Code"),
        alt.Tooltip("operation:N", title="Operation"),
        alt.Tooltip("delta_pp:Q", title="ΔTS (pp)", format="+.1f"),
        alt.Tooltip("ci_low:Q", title="95 % low", format="+.1f"),
        alt.Tooltip("ci_high:Q", title="95 % high", format="+.1f"),
    ]
    base = alt.Chart(d).encode(x=x)
    bars = base.mark_bar(opacity=0.9).encode(
        y=alt.Y("delta_pp:Q", title="ΔTS (pp)"), color=color, tooltip=tooltip
    )
    errors = base.mark_rule(color=AXIS_GREY, strokeWidth=1.2).encode(y="ci_low:Q", y2="ci_high:Q")
    text = (
        base.mark_text(dy=-8, fontSize=10, color=AXIS_GREY)
        .encode(y=alt.Y("top:Q"), text="label:N")
        .transform_calculate(top="max(datum.ci_high, datum.delta_pp, 0)")
    )
    if not facet:
        zero = alt.Chart(pd.DataFrame({"y": [0]})).mark_rule(color="#8c959f").encode(y="y:Q")
        return style(alt.layer(bars, errors, text, zero).properties(width="container"), 300)
    return style(
        alt.layer(bars, errors, text, data=d)
        .properties(width=760, height=240)
        .facet(row=alt.Row(f"{facet}:N", title=None, header=alt.Header(labelAngle=0, labelAlign="left",
                                                                         labelFontWeight="bold",
                                                                         labelExpr=_facet_label(facet))))
        .resolve_scale(x="independent")
    )  # fmt: skip


def _facet_label(facet: str) -> str:
    """A panel's row header: 'domain: finance', or a study cell's own label, which names its parts."""
    return "datum.label" if facet == "cell" else f"'{facet}: ' + datum.label"


def _jitter(n: int) -> list[float]:
    """Deterministic horizontal spread of a box's points (-0.3..0.3 of the band): the same spec every rerun."""
    steps = [0.0, -0.2, 0.2, -0.1, 0.1, -0.3, 0.3, -0.05, 0.05, -0.25, 0.25, -0.15, 0.15]
    return [steps[i % len(steps)] for i in range(n)]


def method_boxes(
    points: pd.DataFrame, metric: str, label: str, marks: dict[str, str] | None = None
) -> alt.TopLevelMixin:
    """Box plot per method of one metric (TS or TC), every evaluation run a clickable point (selection `PICK`)."""
    present = set(points["method"])
    order = [m for m in METHOD_ORDER if m in present] + sorted(present - set(METHOD_ORDER))
    d = points.copy()
    for col in PICK_FIELDS:
        if col not in d:
            d[col] = ""
    d["jitter"] = d.groupby("method").cumcount().map(lambda i: _jitter(i + 1)[-1])
    x = alt.X("method:N", sort=order, title="Method", axis=alt.Axis(labelAngle=0))
    y = alt.Y(f"{metric}:Q", title=label, axis=alt.Axis(format="%"), scale=alt.Scale(zero=True))
    color = alt.Color(
        "method:N",
        scale=alt.Scale(domain=order, range=[METHOD_COLORS.get(m, "#8c8c8c") for m in order]),
        legend=None,
    )
    boxes = (
        alt.Chart(d)
        .mark_boxplot(extent="min-max", opacity=0.35, size=46, median={"color": "#24292f"})
        .encode(x=x, y=y, color=color)
    )
    pick = alt.selection_point(name=PICK, fields=PICK_FIELDS, on="click", empty=False)
    dots = (
        alt.Chart(d)
        .mark_circle(size=70, opacity=0.8, stroke="white", strokeWidth=0.5, cursor="pointer")
        .encode(
            x=x,
            xOffset=alt.XOffset("jitter:Q", scale=alt.Scale(domain=[-0.5, 0.5])),
            y=y,
            color=color,
            tooltip=[
                alt.Tooltip("method:N", title="Method"),
                alt.Tooltip(f"{metric}:Q", title=label, format=".1%"),
                alt.Tooltip("run:N", title="Run"),
                alt.Tooltip("repeat:N", title="Repeat"),
            ],
        )
        .add_params(pick)
    )
    layers = [boxes, dots]
    marked = {m: t for m, t in (marks or {}).items() if t and m in order}
    if marked:
        top = float(d[metric].max()) if len(d) else 1.0
        ann = pd.DataFrame({"method": list(marked), "y": top * 1.06 + 0.02, "mark": list(marked.values())})
        layers.append(
            alt.Chart(ann).mark_text(fontSize=15, color="#24292f").encode(x=x, y="y:Q", text="mark:N")
        )
    return style(alt.layer(*layers).properties(width="container"), 380)


def curves(df: pd.DataFrame, x: str, y: str, color: str, x_label: str, y_label: str) -> alt.TopLevelMixin:
    """One line with markers per `color` value; y as a share, x as whole steps."""
    chart = (
        alt.Chart(df)
        .mark_line(point=True)
        .encode(
            x=alt.X(f"{x}:Q", title=x_label, axis=alt.Axis(tickMinStep=1, format="d")),
            y=alt.Y(f"{y}:Q", title=y_label, axis=alt.Axis(format="%")),
            color=alt.Color(f"{color}:N", title=None),
            tooltip=[
                alt.Tooltip(f"{color}:N", title=color),
                alt.Tooltip(f"{x}:Q", title=x_label),
                alt.Tooltip(f"{y}:Q", title=y_label, format=".1%"),
            ],
        )
    )
    return style(chart.properties(width="container"), 320)


def heatmap(matrix: pd.DataFrame, x_label: str, y_label: str, color_label: str) -> alt.TopLevelMixin:
    """Counts per cell, written in the cell; the colour scale starts at zero (a pale cell means "never")."""
    long = matrix.rename_axis(index="row", columns="col").stack().rename("value").reset_index()
    long["row"], long["col"] = long["row"].astype(str), long["col"].astype(str)
    rows, cols = [str(r) for r in matrix.index], [str(c) for c in matrix.columns]
    top = float(long["value"].max()) if len(long) else 1.0
    base = alt.Chart(long).encode(
        x=alt.X("col:N", sort=cols, title=x_label, axis=alt.Axis(labelAngle=0, orient="bottom")),
        y=alt.Y("row:N", sort=rows, title=y_label),
    )
    cells = base.mark_rect(stroke="white").encode(
        color=alt.Color(
            "value:Q", title=color_label, scale=alt.Scale(domain=[0, max(top, 1.0)], range=HEAT_RANGE)
        ),
        tooltip=[
            alt.Tooltip("row:N", title=y_label),
            alt.Tooltip("col:N", title=x_label),
            alt.Tooltip("value:Q", title=color_label),
        ],
    )
    text = base.mark_text(fontSize=12).encode(
        text="value:Q",
        color=alt.condition(f"datum.value > {top / 2}", alt.value("white"), alt.value("#24292f")),
    )
    return style(alt.layer(cells, text).properties(width="container"), 40 + 34 * max(3, len(rows)))


def success_bars(df: pd.DataFrame) -> alt.TopLevelMixin:
    """TS per model (and documentation), one bar per benchmark in each group."""
    d = df.assign(label=df["model"] + " · " + df["docs"]).sort_values("ts", ascending=False)
    order = list(dict.fromkeys(d["label"]))
    chart = (
        alt.Chart(d)
        .mark_bar()
        .encode(
            x=alt.X(
                "ts:Q", title="Task success (TS)", axis=alt.Axis(format="%"), scale=alt.Scale(domain=[0, 1])
            ),
            y=alt.Y("label:N", sort=order, title="Model · documentation"),
            yOffset=alt.YOffset("benchmark:N"),
            color=alt.Color("benchmark:N", title="Benchmark"),
            tooltip=[
                alt.Tooltip("label:N", title="Model · documentation"),
                alt.Tooltip("benchmark:N", title="Benchmark"),
                alt.Tooltip("ts:Q", title="TS", format=".1%"),
                alt.Tooltip("tc:Q", title="TC", format=".1%"),
                alt.Tooltip("episodes:Q", title="Episodes"),
            ],
        )
    )
    return style(chart.properties(width="container"), 60 + 26 * len(d))


def grouped_bars(
    df: pd.DataFrame, x: str, y: str, color: str, column: str | None = None, y_title: str | None = None,
    y_domain: tuple[float, float] | None = None,
) -> alt.TopLevelMixin:  # fmt: skip
    """Bars of `y` per `x`, one per `color` value side by side, optionally one panel per `column` value."""
    chart = (
        alt.Chart(df)
        .mark_bar()
        .encode(
            x=alt.X(f"{x}:N", title=x, axis=alt.Axis(labelAngle=0)),
            xOffset=alt.XOffset(f"{color}:N"),
            y=alt.Y(
                f"{y}:Q",
                title=y_title or y,
                scale=alt.Scale(domain=list(y_domain)) if y_domain else alt.Undefined,
            ),
            color=alt.Color(f"{color}:N", title=None),
            tooltip=[x, color, alt.Tooltip(f"{y}:Q", format=".3f")],
        )
    )
    if column:
        return style(
            chart.properties(width=320, height=280).facet(column=alt.Column(f"{column}:N", title=None))
        )
    return style(chart.properties(width="container"), 300)


def picked(event: object) -> list[dict]:
    """The points a user clicked in a `method_boxes` chart, from the event the chart element returns (`chartview.draw`)."""
    selection = getattr(event, "selection", None)
    if selection is None and isinstance(event, dict):
        selection = event.get("selection")
    if selection is None:
        return []
    got = selection.get(PICK) if hasattr(selection, "get") else getattr(selection, PICK, None)
    if isinstance(got, dict):  # {field: [values...]} in some versions
        keys = [k for k in PICK_FIELDS if k in got]
        n = max((len(got[k]) for k in keys if isinstance(got[k], list)), default=0)
        return [{k: got[k][i] for k in keys if isinstance(got[k], list)} for i in range(n)]
    return [p for p in (got or []) if isinstance(p, dict)]
