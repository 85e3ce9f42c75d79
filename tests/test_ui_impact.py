"""Field impact: small multiples by the dimension that varies, n on each bar, a warning when n is small,
and a banner while a field study runs."""

from __future__ import annotations

import os
from pathlib import Path

import pandas as pd

from core.sample import seeded_copy
from core.ui.testing import open_app, problems, show
from core.ui.views.impact import _aggregate, default_facet, with_cells
from core.warehouse import Warehouse
from core.warehouse.rows import JobEventRow, JobRow


def _rows(**over: object) -> pd.DataFrame:
    base = {"benchmark": "b", "domain": "shop", "model": "m", "paradigm": "react", "field": "FD",
            "operation": "remove", "delta_pp": -10.0, "ci_low": -20.0, "ci_high": 0.0, "base_ts": 0.5,
            "variant_ts": 0.4, "repeats": 3, "docset_id": "d", "detail": '{"n_tasks": 12}'}  # fmt: skip
    return pd.DataFrame([{**base, **over}])


def test_bars_carry_n_and_panels_default_to_the_dimension_that_varies() -> None:
    df = pd.concat([_rows(), _rows(domain="calendar", detail='{"n_tasks": 8}')], ignore_index=True)
    assert default_facet(df) == "domain"
    assert default_facet(_rows()) == ""
    # two backbones on two domains: one panel per study cell, never a mean over backbones
    grid = pd.concat([df, df.assign(model="local/other")], ignore_index=True)
    assert default_facet(grid) == "cell"
    cells = _aggregate(with_cells(grid), "cell")
    assert sorted(cells["cell"]) == ["calendar · m", "calendar · other", "shop · m", "shop · other"]
    agg = _aggregate(df, "domain").set_index("domain")
    assert agg.loc["shop", "n_label"] == "n=12×3" and agg.loc["calendar", "tasks"] == 8
    pooled = _aggregate(df, None)
    assert pooled.loc[0, "n_label"] == "n=20×3" and pooled.loc[0, "cells"] == 2


def test_a_bar_is_marked_when_every_cells_paired_interval_excludes_zero() -> None:
    from core.ui.charts import field_impact

    up = _rows(delta_pp=6.0, ci_low=2.0, ci_high=10.0)
    spans = _rows(domain="calendar", delta_pp=1.0, ci_low=-3.0, ci_high=5.0)
    down = _rows(domain="email", delta_pp=-8.0, ci_low=-12.0, ci_high=-1.0)
    agg = _aggregate(pd.concat([up, spans, down], ignore_index=True), "domain").set_index("domain")
    assert agg["significant"].to_dict() == {"shop": True, "calendar": False, "email": True}
    assert not _aggregate(_rows(), None).loc[0, "significant"]  # the interval touches 0: not excluded
    assert not _aggregate(pd.concat([up, spans], ignore_index=True), None).loc[0, "significant"]
    assert not _aggregate(pd.concat([up, down], ignore_index=True), None).loc[0, "significant"]
    assert _aggregate(pd.concat([down, down], ignore_index=True), None).loc[0, "significant"]
    spec = field_impact(agg.reset_index(), "domain").to_dict()
    texts = sorted(r["label"] for rows in spec["datasets"].values() for r in rows)
    assert texts == ["n=12×3", "n=12×3 *", "n=12×3 *"]


def test_small_n_is_flagged_and_a_running_study_shows_its_progress(tmp_path: Path) -> None:
    path = tmp_path / "wh.duckdb"
    seeded_copy(path)
    wh = Warehouse(path)
    wh.record([JobRow(job_id="study-1", kind="study", params={"argv": ["study", "fields"]}, pid=os.getpid())])
    wh.record(
        [
            JobEventRow(job_id="study-1", status="running", done=None, total=None, message="started"),
            JobEventRow(job_id="study-1", status="running", done=5, total=18, message="repeat 1 of 1: IPD"),
        ]
    )
    at = show(open_app(path), "impact")
    assert not problems(at)
    assert any("Too few measurements to mean much" in w.value for w in at.warning)
    banner = " ".join(i.value for i in at.info)
    assert "A field study is running: 5 / 18 · repeat 1 of 1: IPD" in banner
    assert "tasks" in at.dataframe[0].value.columns


def test_a_field_studys_baseline_is_not_the_method_og_of_compare(tmp_path: Path) -> None:
    from core.ui.queries.results import method_points

    path = tmp_path / "wh.duckdb"
    seeded_copy(path)
    wh = Warehouse(path)
    study_runs = {
        r[0]
        for r in wh.rows(
            "SELECT run_id FROM runs WHERE json_extract_string(config, '$.study_id') IS NOT NULL"
        )
    }
    assert study_runs  # the sample's field study ran on the test split
    points = method_points.raw(wh, "sample-shop", "test")
    assert not set(points["run_id"]) & study_runs
    assert "OG" in set(points["method"])  # the comparison's own original-docs runs are still there


def test_the_page_shows_which_tasks_moved_and_links_to_their_traces(tmp_path: Path, data_dir: Path) -> None:
    """Below the bars: the moved tasks of a study with both sides' failures, and links that open
    exactly that task's traces under the variant's docs."""
    from urllib.parse import parse_qs, urlparse

    from core.benchmarks.registry import get_benchmark
    from core.study.fields import StudySpec, run_study

    class NeedsDescription:
        """Makes the gold calls only when each gold tool's doc has a description."""

        def __init__(self, config) -> None:  # noqa: ANN001
            self.config = config

        def run(self, ctx) -> str:  # noqa: ANN001
            for call in ctx.task.gold:
                doc = next((d for d in ctx.docs if d.tool == call.tool), None)
                if doc is not None and doc.has("FD"):
                    ctx.execute(call)
            return "done"

    path = tmp_path / "wh.duckdb"
    wh = Warehouse(path)
    spec = StudySpec(
        benchmark="api-bank", domain="finance", limit=2, repeats=1, model="scripted/none", fields=("FD", "TD")
    )
    run_study(wh, spec, bench=get_benchmark("api-bank", data_dir), agent_factory=NeedsDescription)
    at = show(open_app(path), "impact")
    assert not problems(at)
    assert any("Where the numbers come from" in m.value for m in at.markdown)
    assert any("Minimum detectable effect" in c.value for c in at.caption)
    moved = next(d.value for d in at.dataframe if "variant_traces" in d.value.columns)
    assert set(moved["field"]) == {"−FD"} and (moved["Δ"] == -1.0).all()
    link = urlparse(moved["variant_traces"].iloc[0])
    params = {k: v[0] for k, v in parse_qs(link.query).items()}
    assert params["q"] == moved["task"].iloc[0] and params["benchmark"] == "api-bank"
    at = show(at, "traces", **params)
    assert not problems(at)
    assert at.text_input(key="tr_q").value == params["q"]
    assert any(c.value.startswith("1 trace matches") for c in at.caption)  # that task under that doc set
