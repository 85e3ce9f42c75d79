"""Test tasks that repeat an optimization/validation task's gold call, and TS on them apart."""

from __future__ import annotations

from core.benchmarks.base import Call, Task
from core.study.gold_overlap import overlap_frame, shared_gold_tasks
from core.warehouse import Warehouse


def _task(tid: str, tool: str, **args: str) -> Task:
    return Task(tid, "health", f"request {tid}", (Call(tool, args),) if tool else (), (tool,) if tool else ())


def test_shared_gold_tasks_match_calls_by_tool_and_arguments(tmp_path) -> None:
    wh = Warehouse(tmp_path / "wh.duckdb")
    tasks = [
        _task("opt-1", "Modify", appointment_id="9", date="2023-10-12"),
        _task("val-1", "Cancel", appointment_id="9"),
        _task("test-same", "Modify", date="2023-10-12", appointment_id="9"),  # argument order differs
        _task("test-value", "Modify", appointment_id="9", date="2023-10-13"),  # one value differs
        _task("test-tool", "Cancel", appointment_id="9"),  # the val task's call
        _task("test-none", ""),  # the right outcome is to call nothing
    ]
    wh.register_tasks("api-bank", tasks)
    wh.insert("splits", [{"split_id": "s1", "benchmark": "api-bank/domain", "seed": 0, "ratios": "[1,1,1]"}])
    parts = {"opt-1": "opt", "val-1": "val"}
    wh.insert(
        "split_assignments",
        [{"split_id": "s1", "task_id": t.task_id, "part": parts.get(t.task_id, "test")} for t in tasks],
    )
    test_ids = ["test-same", "test-value", "test-tool", "test-none"]
    assert shared_gold_tasks(wh, "s1", test_ids) == ["test-same", "test-tool"]
    assert shared_gold_tasks(wh, "unknown", test_ids) is None
    assert shared_gold_tasks(wh, None, test_ids) is None


def test_overlap_frame_splits_each_methods_mean_by_the_shared_tasks() -> None:
    per_task = {
        "og": {"ts": {"a": 0.0, "b": 1.0, "c": 0.5}},
        "gepa": {"ts": {"a": 1.0, "b": 1.0, "c": 0.0}},
    }
    frame = overlap_frame(per_task, ["a"], ["a", "b", "c"], {"og": "OG"}).set_index("method")
    shared, other = frame.columns
    assert shared.endswith("(n=1)") and other.endswith("(n=2)")
    assert frame.loc["OG", shared] == 0.0 and frame.loc["OG", other] == 75.0
    assert frame.loc["gepa", shared] == 100.0 and frame.loc["gepa", other] == 50.0


def test_the_report_shows_the_split_only_when_some_test_task_shares_a_gold_call() -> None:
    import pandas as pd

    from core.study.compare_report import StoredComparison, overlap_part

    methods = pd.DataFrame({"method": ["og", "gepa"], "label": ["OG (original)", "GEPA"]})
    detail = {"per_task": {"og": {"ts": {"a": 0.0, "b": 1.0}}, "gepa": {"ts": {"a": 1.0, "b": 1.0}}}}
    c = StoredComparison(
        "c1", "r1", "api-bank/domain", {}, ["a", "b"], None, detail, methods, shared_gold=["a"]
    )
    part = overlap_part(c)
    assert part is not None and part.startswith("1 of 2 test tasks")
    assert "| GEPA | 100.0 | 100.0 |" in part and "| OG (original) | 0.0 | 100.0 |" in part
    c.shared_gold = []
    assert overlap_part(c) is None
