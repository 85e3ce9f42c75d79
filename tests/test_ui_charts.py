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


def _layers(spec: dict) -> list[dict]:
    return spec.get("layer") or spec.get("spec", {}).get("layer") or [spec]


def test_field_impact_colours_added_red_and_removed_black() -> None:
    df = pd.DataFrame(
        [
            {"field": "UE", "operation": "add", "delta_pp": 4.0, "ci_low": 1.0, "ci_high": 7.0, "n_label": "n=12",
             "significant": True},
            {"field": "FD", "operation": "remove", "delta_pp": -6.0, "ci_low": -9.0, "ci_high": -2.0, "n_label": "n=12",
             "significant": False},
        ]
    )  # fmt: skip
    spec = charts.field_impact(df).to_dict()
    bars, errors, text, _zero = _layers(spec)
    x = bars["encoding"]["x"]
    assert x["sort"] == ["FD", "UE"]  # taxonomy order
    assert x["title"] == "Documentation field" and bars["encoding"]["y"]["title"] == "ΔTS (pp)"
    assert bars["encoding"]["color"]["scale"] == {
        "domain": ["add", "remove"],
        "range": [ADD_COLOR, REMOVE_COLOR],
    }
    label_color = x["axis"]["labelColor"]  # tick labels: removed fields black, the others red
    assert (
        label_color["condition"]["test"]["oneOf"] == ["FD"]
        and label_color["condition"]["value"] == REMOVE_COLOR
    )
    assert label_color["value"] == ADD_COLOR
    assert errors["encoding"]["y"]["field"] == "ci_low" and errors["encoding"]["y2"]["field"] == "ci_high"
    rows = {r["field"]: r for r in spec["datasets"][next(iter(spec["datasets"]))]}
    assert (
        rows["UE"]["label"] == "n=12 *" and rows["FD"]["label"] == "n=12"
    )  # n on each bar, * if significant
    faceted = charts.field_impact(df.assign(domain=["email", "calendar"]), facet="domain").to_dict()
    assert faceted["facet"]["row"]["field"] == "domain" and faceted["resolve"]["scale"]["x"] == "independent"


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
    spec = charts.method_boxes(points, "ts", "Task success (TS)", {"OG": "*"}).to_dict()
    boxes, dots, marks = _layers(spec)
    assert boxes["mark"]["type"] == "boxplot" and boxes["encoding"]["x"]["sort"] == ["OG", "DC"]
    assert boxes["encoding"]["y"]["title"] == "Task success (TS)"
    (pick,) = spec["params"]  # on the points' layer
    assert pick["name"] == charts.PICK and pick["select"]["fields"] == charts.PICK_FIELDS
    assert pick["views"] == [dots["name"]] and dots["mark"]["type"] == "circle"
    assert marks["mark"]["type"] == "text" and marks["encoding"]["text"]["field"] == "mark"
    data = [r for rows in spec["datasets"].values() for r in rows]
    assert {r["run_id"] for r in data if "run_id" in r} == {"r1", "r2", "r3"}


def test_the_same_input_gives_the_same_spec() -> None:
    """Streamlit keeps a chart, and the point a user clicked, across reruns only while its spec stays the same."""
    points = pd.DataFrame(
        {
            "method": ["OG", "DC", "DC"],
            "ts": [0.2, 0.6, 0.7],
            "run_id": "r",
            "docset_id": "d",
            "repeat": 0,
            "run": "x",
        }
    )
    first = json.dumps(charts.method_boxes(points, "ts", "TS").to_dict(), sort_keys=True)
    assert json.dumps(charts.method_boxes(points, "ts", "TS").to_dict(), sort_keys=True) == first


def test_picked_reads_the_clicked_points_in_either_shape() -> None:
    rows = [{"run_id": "r1", "docset_id": "d1", "repeat": 0, "run": "a"}]
    assert charts.picked({"selection": {charts.PICK: rows}}) == rows
    columns = {"run_id": ["r1"], "docset_id": ["d1"], "repeat": [0], "run": ["a"]}
    assert charts.picked({"selection": {charts.PICK: columns}}) == rows
    assert charts.picked({"selection": {}}) == [] and charts.picked(None) == []


def test_heatmap_colour_scale_starts_at_zero_and_keeps_the_order() -> None:
    matrix = pd.DataFrame([[0, 3], [1, 0]], index=["t2", "t1"], columns=["UE", "FD"])
    cells, _text = _layers(charts.heatmap(matrix, "Field", "Tool", "Diagnoses").to_dict())
    assert cells["encoding"]["color"]["scale"]["domain"] == [0, 3.0]
    assert cells["encoding"]["x"]["sort"] == ["UE", "FD"] and cells["encoding"]["y"]["sort"] == ["t2", "t1"]
