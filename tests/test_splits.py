"""The opt / val / test split: stratified, seeded, and (by default) grouped by gold call.

The grouped split exists because a benchmark may ask for one call in several
tasks; the property that matters is that no test task shares a gold call with
an optimization or validation task, whatever the seed.
"""

from __future__ import annotations

from dataclasses import asdict

import pytest

from core.benchmarks.base import Call, Task
from core.benchmarks.splits import assign, get_or_create_split, gold_groups, split_id
from core.chisel.config import OptimizeConfig
from core.study.compare_spec import CompareSpec
from core.warehouse import Warehouse
from core.warehouse.records import content_hash


def _task(tid: str, *calls: tuple[str, dict], domain: str = "d") -> Task:
    gold = tuple(Call(tool, args) for tool, args in calls)
    return Task(tid, domain, f"query {tid}", gold, tuple(dict.fromkeys(c.tool for c in gold)))


def _repeating_tasks() -> list[Task]:
    """60 tasks over 3 tools; one request is asked 2-5 times, like API-Bank's repeated dialogues."""
    out = []
    for tool in ("Modify", "Cancel", "Query"):
        for req in range(8):
            copies = 2 + (req % 4)
            for c in range(copies):
                out.append(_task(f"{tool}-{req}-{c}", (tool, {"id": f"{req}"})))
    for k in range(4):  # requests that should call nothing
        out.append(_task(f"none-{k}"))
    return out


def _shared(tasks: list[Task], parts: dict[str, str]) -> list[str]:
    seen = {c.key() for t in tasks if parts[t.task_id] != "test" for c in t.gold}
    return [t.task_id for t in tasks if parts[t.task_id] == "test" and any(c.key() in seen for c in t.gold)]


def test_tasks_sharing_a_gold_call_form_one_group_transitively() -> None:
    tasks = [
        _task("a", ("T", {"x": 1})),
        _task("b", ("T", {"x": 1}), ("U", {"y": 2})),  # shares T(x=1) with a and U(y=2) with c
        _task("c", ("U", {"y": 2})),
        _task("d", ("T", {"x": 2})),
        _task("e"),
        _task("f"),  # no gold call: each stays alone
    ]
    assert gold_groups(tasks) == [["a", "b", "c"], ["d"], ["e"], ["f"]]


@pytest.mark.parametrize("seed", [0, 1, 2, 3, 4])
def test_the_grouped_split_never_puts_a_repeated_request_on_both_sides(seed: int) -> None:
    tasks = _repeating_tasks()
    grouped = assign(tasks, seed, grouping="gold")
    assert set(grouped) == {t.task_id for t in tasks}
    assert _shared(tasks, grouped) == []
    # the task-level split of the same tasks does leak (that is what grouping is for)
    assert _shared(tasks, assign(tasks, seed, grouping="task"))


def test_the_grouped_split_keeps_every_part_near_its_share() -> None:
    tasks = _repeating_tasks()
    parts = assign(tasks, 0, (5, 1, 4), grouping="gold")
    for tool in ("Modify", "Cancel", "Query"):
        mine = [p for t, p in parts.items() if t.startswith(tool)]
        counts = {p: mine.count(p) for p in ("opt", "val", "test")}
        assert all(counts.values()), counts  # each stratum of 3+ groups reaches every part
        assert abs(counts["opt"] / len(mine) - 0.5) <= 0.2 and abs(counts["test"] / len(mine) - 0.4) <= 0.2


def test_grouped_splits_are_seeded() -> None:
    tasks = _repeating_tasks()
    assert assign(tasks, 3, grouping="gold") == assign(list(reversed(tasks)), 3, grouping="gold")
    assert assign(tasks, 3, grouping="gold") != assign(tasks, 4, grouping="gold")


def test_a_task_level_split_keeps_the_id_it_had_before_grouping(tmp_path) -> None:
    tasks = _repeating_tasks()
    ids = sorted(t.task_id for t in tasks)
    legacy = content_hash("split", "b/v1", 0, (5, 1, 4), ids)
    assert split_id("b/v1", 0, (5, 1, 4), ids, "task") == legacy
    assert split_id("b/v1", 0, (5, 1, 4), ids, "gold") != legacy
    wh = Warehouse(tmp_path / "w.duckdb")
    task_split = get_or_create_split(wh, "b/v1", tasks, seed=0, grouping="task")
    gold_split = get_or_create_split(wh, "b/v1", tasks, seed=0, grouping="gold")
    assert (task_split.split_id, gold_split.split_id) == (legacy, split_id("b/v1", 0, (5, 1, 4), ids, "gold"))
    assert gold_split.grouping == "gold" and not _shared(tasks, gold_split.parts)
    again = get_or_create_split(wh, "b/v1", tasks, seed=0, grouping="gold")  # read back from the warehouse
    assert again.parts == gold_split.parts


def test_an_unknown_grouping_is_refused_by_name() -> None:
    with pytest.raises(ValueError, match="'tool'"):
        assign(_repeating_tasks(), 0, grouping="tool")
    with pytest.raises(ValueError, match="split_grouping"):
        OptimizeConfig(split_grouping="tool")
    with pytest.raises(ValueError, match="split_grouping"):
        CompareSpec(split_grouping="tool")


def test_configs_on_the_task_level_split_keep_their_ids() -> None:
    """Stored optimize runs and comparisons were made on the task-level split; their ids must not move."""
    spec = CompareSpec(split_grouping="task")
    before = asdict(spec)
    before.pop("split_grouping")
    for later in (
        "misuse_tasks",
        "misused_tools",
        "cross_val_tasks",
        "in_context",
        "og_eval_runs",
    ):  # later settings, absent from ids while they are off
        before.pop(later)
    runtime = spec.agent.identity().get("runtime")
    assert spec.compare_id == content_hash("compare", before, *([runtime] if runtime else []))
    assert CompareSpec().split_grouping == "gold" and CompareSpec().compare_id != spec.compare_id
    key = OptimizeConfig(split_grouping="task").key("b/v1", "evidence", "")
    assert not {"split_grouping", "misuse_tasks", "misused_tools", "cross_val_tasks", "in_context"} & set(key)
    assert OptimizeConfig().key("b/v1", "evidence", "")["split_grouping"] == "gold"
