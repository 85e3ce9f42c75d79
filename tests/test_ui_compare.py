"""Compare page: the default view is the scores as one table; the box plots, every run's traces, the
efficiency table and the curves are built when their tab is opened; the stored comparisons' tabs draw."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from core.sample import seeded_copy
from core.ui.testing import open_app, problems, show
from core.ui.views.compare import VIEWS
from core.warehouse import Warehouse


@pytest.fixture
def seeded(tmp_path: Path) -> Path:  # one each: the page's reads are cached per warehouse path
    path = tmp_path / "wh.duckdb"
    seeded_copy(path)
    return path


def _open(at, key: str, view: str):  # noqa: ANN001, ANN202
    at.session_state[key] = view
    at.run()
    assert not problems(at), (view, problems(at))
    return at


def _scores(at) -> str:  # noqa: ANN001
    return next((m.value for m in at.markdown if m.value.startswith("| Method | TS | TC |")), "")


def test_the_default_view_draws_the_scores_and_defers_the_rest(seeded: Path) -> None:
    at = show(open_app(seeded), "compare")
    assert not problems(at)
    assert at.session_state["cmp_section"] == "Evaluation runs" and at.session_state["cmp_view"] == VIEWS[0]
    # one Markdown table: no chart, no data grid
    assert not at.get("vega_lite_chart") and not at.dataframe
    table = _scores(at)
    rows = {line.split(" | ")[0].lstrip("| "): line for line in table.splitlines()[2:]}
    assert set(rows) == {"Original docs (OG)", "EasyTool (ET)", "DRAFT (DRT)", "DocsChisel (DC)"}
    assert rows["DocsChisel (DC)"].endswith("| – | – |")  # no gain over itself
    assert "n.s." in rows["Original docs (OG)"] or "\\*" in rows["Original docs (OG)"]  # marked, escaped

    # the box plots: both charts, and the tests behind the marks the table shows
    at = _open(at, "cmp_view", "Box plots (Fig. 8)")
    assert len(at.get("vega_lite_chart")) == 2 and not _scores(at)
    (sig,) = [df.value for df in at.dataframe]
    dc_ts = sig[(sig["metric"] == "TS") & (sig["versus"] == "DC vs OG")].iloc[0]
    assert f"{100 * dc_ts['dc']:.1f}%" in rows["DocsChisel (DC)"]
    assert f"{100 * dc_ts['other']:.1f}%" in rows["Original docs (OG)"]
    gain = f"{100 * (dc_ts['dc'] - dc_ts['other']):+.1f} pp {dc_ts['mark']}"
    assert f"| {gain} |" in rows["Original docs (OG)"].replace("\\*", "*")
    assert dc_ts["test"] == "paired per task"  # DC and OG ran the same test tasks

    # every run, with links to its traces
    at = _open(at, "cmp_view", "Runs and their traces")
    assert not at.get("vega_lite_chart")
    (runs,) = [df.value for df in at.dataframe]
    assert {"traces", "failed"} <= set(runs.columns)
    assert (
        runs["traces"].str.contains("/traces?").all() and runs["failed"].str.contains("outcome=failed").all()
    )

    at = _open(at, "cmp_view", "Efficiency (Table III)")
    assert any(m.value == "##### Efficiency (Table III)" for m in at.markdown) and not _scores(at)
    at = _open(at, "cmp_view", "Iteration curves (Figs. 9–10)")
    assert not at.dataframe
    at = _open(at, "cmp_view", "Scores")
    assert _scores(at) and not at.dataframe and not at.get("vega_lite_chart")


def test_every_tab_of_a_stored_comparison_draws_the_regression_guard_too(seeded: Path) -> None:
    wh = Warehouse(seeded)
    compare_id, detail = wh.rows(
        "SELECT compare_id, detail FROM comparisons WHERE status = 'finished' ORDER BY created_at DESC"
    )[0]
    detail = json.loads(detail) if detail else {}
    detail["guard"] = {
        "task_ids": ["g1", "g2"],
        "methods": [
            {"method": "og", "ts": 1.0, "n_episodes": 10},
            {"method": "dc", "ts": 0.5, "delta": -0.5, "low": -1.0, "high": 0.0, "lost": ["g2"],
             "lost_why": {"g2": "called a tool"}, "n_episodes": 10},
        ],
    }  # fmt: skip
    with wh.transaction() as con:
        con.execute(
            "UPDATE comparisons SET detail = ? WHERE compare_id = ?", [json.dumps(detail), compare_id]
        )
    at = show(open_app(seeded), "compare")
    assert not [s for s in at.selectbox if s.key == "cmp_stored"]  # built only when its tab is open
    at = _open(at, "cmp_section", "Stored comparisons")
    assert at.selectbox(key="cmp_stored").value == compare_id and not _scores(at)
    (summary,) = [df.value for df in at.dataframe]  # TS / TC, the first tab
    assert len(summary) >= 2 and "TS mean %" in summary.columns
    for tab in ("Significance", "Efficiency (Table III)", "Curves (Figs. 9–10)", "Table IV"):
        _open(at, "cmp_stored_tab", tab)
    at = _open(at, "cmp_stored_tab", "Regression guard")
    guard = next(df.value for df in at.dataframe if "tasks lost" in df.value.columns)
    assert list(guard["tasks lost"]) == ["", "g2 (called a tool)"]
    at = _open(at, "cmp_stored_tab", "Attribution")
    assert any(f"study attribute --compare {compare_id}" in c.value for c in at.caption)


def test_a_second_target_agent_under_the_same_revision_draws_the_agents_table(seeded: Path) -> None:
    """The stored comparison again for another model: the page pools the two agents by task."""
    wh = Warehouse(seeded)
    compare_id, result_id = wh.rows(
        "SELECT compare_id, result_id FROM comparisons WHERE status = 'finished' ORDER BY created_at DESC"
    )[0]
    with wh.transaction() as con:
        for table, key in (("comparisons", "compare_id"), ("comparison_methods", "result_id")):
            con.execute(
                f"CREATE TEMP TABLE other_{table} AS SELECT * FROM {table} WHERE {key} = ?",
                [compare_id if key == "compare_id" else result_id],
            )
            con.execute(f"UPDATE other_{table} SET compare_id = 'other-agent', result_id = 'other-result'")
            if table == "comparisons":
                con.execute(
                    "UPDATE other_comparisons SET created_at = created_at - INTERVAL 1 HOUR, "
                    """spec = json_merge_patch(spec, '{"agent": {"model": "local/another-model"}}')"""
                )
            con.execute(f"INSERT INTO {table} SELECT * FROM other_{table}")
    at = show(open_app(seeded), "compare")
    at = _open(at, "cmp_section", "Stored comparisons")
    agents = next(df.value for df in at.dataframe if "agents" in df.value.columns)
    pooled = agents[agents["agents"].str.contains(" + ", regex=False)]
    assert len(pooled) >= 1 and "local/another-model" in pooled.iloc[0]["agents"]
    assert (pooled["units"] == 2 * pooled["tasks"]).all()  # each task once per agent
