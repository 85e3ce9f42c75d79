"""Charts and significance marks of the results pages."""

from __future__ import annotations

import json

import pandas as pd
from scipy.stats import mannwhitneyu

from core.ui import charts, stats
from core.ui.components import ADD_COLOR, REMOVE_COLOR


def test_holm_matches_the_step_down_definition() -> None:
    adj = stats.holm({"a": 0.01, "b": 0.04, "c": 0.03})
    assert adj == {"a": 0.03, "c": 0.06, "b": 0.06}
    assert stats.holm({"x": 0.6, "y": 0.7}) == {"x": 1.0, "y": 1.0}


def test_versus_uses_mann_whitney_with_holm() -> None:
    groups = {"DC": [0.6, 0.7, 0.65, 0.72], "OG": [0.3, 0.35, 0.4, 0.32], "ET": [0.5, 0.6, 0.55, 0.58]}
    res = stats.versus("DC", groups)
    p_og = mannwhitneyu(groups["DC"], groups["OG"], alternative="two-sided").pvalue
    p_et = mannwhitneyu(groups["DC"], groups["ET"], alternative="two-sided").pvalue
    assert res["OG"]["p"] == p_og
    assert res["OG"]["p_holm"] == min(1, 2 * min(p_og, p_et)) or res["ET"]["p_holm"] == min(
        1, 2 * min(p_og, p_et)
    )
    assert stats.stars(0.0004) == "***" and stats.stars(0.2) == "n.s." and stats.stars(None) == ""
    assert stats.versus("DC", {"DC": [0.5], "OG": [0.1]})["OG"]["p"] is None


def test_compare_marks_come_from_the_paired_test_where_the_methods_ran_the_same_tasks() -> None:
    from core.ui.views.compare import significance

    tasks = [f"t{i}" for i in range(12)]
    outcomes = pd.DataFrame(
        [{"method": "DC", "task_id": t, "ts": 1.0, "tc": 1.0} for t in tasks]
        + [{"method": "OG", "task_id": t, "ts": float(i % 4 == 0), "tc": 1.0} for i, t in enumerate(tasks)]
        + [{"method": "ET", "task_id": t, "ts": 1.0, "tc": 1.0} for t in tasks[:2]]  # too few pairs
    )
    paired = stats.paired_versus(
        "DC", {m: dict(zip(g["task_id"], g["ts"], strict=True)) for m, g in outcomes.groupby("method")}
    )
    assert paired["ET"] is None and paired["OG"]["mark"] == "*" and paired["OG"]["paired_n"] == 12
    assert paired["OG"]["paired_low"] > 0
    points = pd.DataFrame(
        {
            "method": ["DC", "DC", "OG", "OG", "ET", "ET"],
            "ts": [1.0, 1.0, 0.25, 0.3, 0.9, 1.0],
            "tc": [1.0] * 6,
        }  # fmt: skip
    )
    sig, marks = significance(points, "ts", outcomes)
    rows = sig.set_index("versus")
    assert rows.loc["DC vs OG", "test"] == "paired per task" and rows.loc["DC vs OG", "pairs"] == 12
    assert rows.loc["DC vs OG", "paired"].startswith("+75.0 [")
    assert rows.loc["DC vs ET", "test"] == "Mann–Whitney U" and rows.loc["DC vs ET", "paired"] == "–"
    assert marks == {"OG": "*", "ET": stats.stars(rows.loc["DC vs ET", "p_holm"])}
    _, tc_marks = significance(points, "tc", outcomes)
    assert tc_marks["OG"] == "n.s."  # identical per-task outcomes: the interval is [0, 0]
    assert significance(points, "ts")[1]["OG"] == stats.stars(rows.loc["DC vs OG", "p_holm"])  # runs only


def test_field_impact_colours_added_red_and_removed_black() -> None:
    df = pd.DataFrame(
        [
            {"field": "UE", "operation": "add", "delta_pp": 4.0, "ci_low": 1.0, "ci_high": 7.0},
            {"field": "FD", "operation": "remove", "delta_pp": -6.0, "ci_low": -9.0, "ci_high": -2.0},
        ]
    )
    fig = charts.field_impact.__wrapped__(df)  # as built (the kept copy encodes arrays)
    assert list(fig.layout.xaxis.tickvals) == ["FD", "UE"]  # taxonomy order
    assert REMOVE_COLOR in fig.layout.xaxis.ticktext[0] and ADD_COLOR in fig.layout.xaxis.ticktext[1]
    bars = {t.name: t for t in fig.data}
    assert (
        bars["Added field"].marker.color == ADD_COLOR and bars["Removed field"].marker.color == REMOVE_COLOR
    )
    assert list(bars["Removed field"].error_y.arrayminus) == [3.0]
    assert fig.layout.yaxis.title.text == "ΔTS (pp)" and fig.layout.xaxis.title.text == "Documentation field"
    faceted = charts.field_impact(df.assign(domain=["email", "calendar"]), facet="domain")
    assert len(faceted.layout.annotations) == 2


def test_method_boxes_carry_the_trace_keys() -> None:
    points = pd.DataFrame(
        {
            "method": ["OG", "DC", "DC"],
            "ts": [0.3, 0.6, 0.7],
            "run_id": ["r1", "r2", "r3"],
            "docset_id": ["d1", "d2", "d2"],
            "repeat": [0, 0, 1],
            "run": ["a", "b", "c"],
        }
    )
    fig = charts.method_boxes(points, "ts", "Task success (TS)", {"OG": "*"})
    assert {t.name for t in fig.data} == {"OG", "DC"}
    assert fig.data[0].customdata is not None and fig.layout.yaxis.title.text == "Task success (TS)"
    assert any(a.text == "*" for a in fig.layout.annotations)


def test_a_kept_figure_serialises_like_the_one_built_and_the_same_every_time() -> None:
    """Figures are kept per input; the copy handed out must draw the same chart and keep its identity
    across reruns (Streamlit keys a chart's selection by its serialised figure)."""
    import plotly.io as pio

    points = pd.DataFrame(
        {"method": ["OG", "DC"], "ts": [0.2, 0.6], "run_id": "r", "docset_id": "d", "repeat": 0, "run": "x"}
    )
    built = pio.to_json(charts.method_boxes.__wrapped__(points, "ts", "TS"), validate=False)
    first = pio.to_json(charts.method_boxes(points, "ts", "TS"), validate=False)
    again = pio.to_json(charts.method_boxes(points, "ts", "TS"), validate=False)
    assert first == again
    assert json.loads(first) == json.loads(built)
