"""Traces page: filters (bound to the URL), search, stepping with prev/next, deep links, mismatch marks."""

from __future__ import annotations

from pathlib import Path

import pytest

from core.sample import seeded_copy
from core.ui.callmatch import match_calls
from core.ui.queries import traces as q
from core.ui.testing import open_app, problems, show
from core.warehouse import Warehouse


@pytest.fixture(scope="module")
def seeded(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("traces") / "wh.duckdb"
    seeded_copy(path)
    return path


def _position_text(at) -> str:  # noqa: ANN001
    return next(m.value for m in at.markdown if "Trace " in m.value and " of " in m.value)


def test_filters_persist_while_stepping(seeded: Path) -> None:
    at = show(open_app(seeded), "traces")
    assert not problems(at)
    at.selectbox(key="tr_domain").set_value("shop").run()
    at.segmented_control(key="tr_outcome").set_value("failed").run()
    assert not problems(at)
    wh = Warehouse(seeded)
    expected = wh.scalar("SELECT count(*) FROM episodes WHERE domain = 'shop' AND NOT success")
    assert any(f"{expected:,} traces match" in c.value for c in at.caption)
    assert at.query_params["domain"] == "shop" and at.query_params["outcome"] == "failed"
    first = at.query_params["episode"]
    assert _position_text(at) == f"**Trace 1 of {expected:,}**"
    at.button(key="next_trace").click().run()
    second = at.query_params["episode"]
    assert second != first and _position_text(at) == f"**Trace 2 of {expected:,}**"
    at.button(key="next_trace").click().run()
    at.button(key="prev_trace").click().run()
    assert at.query_params["episode"] == second
    # the filters did not move
    assert at.selectbox(key="tr_domain").value == "shop"
    assert at.segmented_control(key="tr_outcome").value == "failed"
    ep = wh.rows("SELECT domain, success FROM episodes WHERE episode_id = ?", [second])[0]
    assert ep == ("shop", False)


def test_search_of_task_queries(seeded: Path) -> None:
    at = show(open_app(seeded), "traces")
    at.text_input(key="tr_q").input("stock price").run()
    assert not problems(at)
    f = q.TraceFilter(search="stock price")
    total, df = q.trace_page.raw(Warehouse(seeded), f, 0, 100)
    assert total > 0 and all("stock price" in s.lower() for s in df["query"])
    assert any(f"{total:,} traces match" in c.value for c in at.caption)


def test_deep_link_opens_the_trace_with_gold_calls_and_mismatches(seeded: Path) -> None:
    wh = Warehouse(seeded)
    episode_id, task_id = wh.rows(
        "SELECT e.episode_id, e.task_id FROM episodes e WHERE e.score LIKE '%wrong_value%' LIMIT 1"
    )[0]
    at = show(open_app(seeded), "traces", episode=episode_id, outcome="failed")
    assert not problems(at)
    assert at.subheader[0].value == task_id
    assert at.segmented_control(key="tr_outcome").value == "failed"
    text = " ".join(m.value for m in at.markdown)
    assert "Ground truth" in text and "expected" in text  # the argument that differs is spelled out
    labels = [b.proto.label for b in at.get("badge")] if at.get("badge") else []
    assert not labels or any("wrong arguments" in label for label in labels)
    assert any("Outcome" == m.label and m.value == "Failed" for m in at.metric)


def test_unknown_episode_is_reported(seeded: Path) -> None:
    at = show(open_app(seeded), "traces", episode="nope")
    assert any("not in this warehouse" in e.value for e in at.error)


def test_filter_queries_combine(seeded: Path) -> None:
    wh = Warehouse(seeded)
    f = q.TraceFilter(benchmark="sample-shop", tool="shop.order", outcome="succeeded", split="test")
    total, df = q.trace_page.raw(wh, f, 0, 500)
    want = wh.scalar(
        "SELECT count(*) FROM episodes WHERE benchmark = 'sample-shop' AND success AND split = 'test' "
        "AND task_id IN (SELECT task_id FROM tasks WHERE list_contains(tools, 'shop.order'))"
    )
    assert total == want == len(df) and total > 0
    pos = q.trace_position.raw(wh, f, df["episode_id"].iloc[3])
    assert pos == 3 and q.trace_at.raw(wh, f, 3) == df["episode_id"].iloc[3]
    opts = q.filter_options.raw(wh)
    assert "shop.order" in opts["tool"] and "failed" not in opts["failure"]


def test_match_calls_marks_each_kind_of_mismatch() -> None:
    gold = [{"tool": "a", "args": {"x": 1, "y": "b"}}, {"tool": "c", "args": {}}]
    attempted = [
        {"tool": "lookup", "args": {}},
        {"tool": "a", "args": {"x": 1.0, "y": "B"}},
        {"tool": "zzz", "args": {}, "error": "unknown tool"},
    ]
    checks, gold_checks = match_calls(attempted, gold)
    assert [c.status for c in checks] == ["unexpected", "wrong_args", "error"]
    assert [d.name for d in checks[1].diffs] == ["y"]  # 1 == 1.0
    assert [g.status for g in gold_checks] == ["wrong_args", "missing"]
    exact, _ = match_calls([{"tool": "a", "args": {"y": "b", "x": 1}}], gold)
    assert exact[0].ok and exact[0].gold_index == 0
