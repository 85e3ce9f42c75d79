"""Held-out test evaluation of an optimize run: original vs optimized docs on the same test tasks.

Runs agents, so it lives beside the optimizer rather than with the report
code; the results section reads the `chisel-test` runs it writes.
"""

from __future__ import annotations

import json
from typing import Any


def evaluate_on_test(
    warehouse,
    run_id: str,
    bench,
    *,
    per_tool: int | None = None,
    repeats: int = 1,
    seed: int = 0,
    concurrency: int = 1,
    agent_factory=None,
) -> dict[str, Any]:
    """Run the original and the optimized docs on the test tasks of the optimized tools.

    Test tasks are taken from the optimize run's stored split (`per_tool`
    caps them per tool with a seeded sample); both doc sets see exactly the
    same tasks. Returns TS/TC for both.
    """
    import random

    from core.agents.base import AgentConfig
    from core.benchmarks.splits import PARTS, Split
    from core.chisel.lineage import resolve_docset
    from core.evaluation import RunnerEvaluator

    config = json.loads(warehouse.scalar("SELECT config FROM runs WHERE run_id = ?", [run_id]))
    split_id = config["split_id"]
    parts = dict(warehouse.rows("SELECT task_id, part FROM split_assignments WHERE split_id = ?", [split_id]))
    grouping = config.get("split_grouping", "task")  # absent from the ids of task-level runs
    split = Split(split_id, config["benchmark"], int(config["split_seed"]), (5, 1, 4), parts, grouping)
    assert set(parts.values()) <= set(PARTS)  # noqa: S101
    tools = [
        r[0] for r in warehouse.rows("SELECT tool FROM chisel_tools WHERE run_id = ? ORDER BY tool", [run_id])
    ]
    tasks = bench.tasks()
    if config.get("domains"):
        tasks = [t for t in tasks if t.domain in set(config["domains"])]
    chosen: dict[str, Any] = {}
    for tool in tools:
        mine = sorted(split.tool_tasks(tasks, tool, "test"), key=lambda t: t.task_id)
        if per_tool and len(mine) > per_tool:
            mine = sorted(
                random.Random(f"{seed}:{tool}:test").sample(mine, per_tool), key=lambda t: t.task_id
            )
        for t in mine:
            chosen.setdefault(t.task_id, t)
    test_tasks = sorted(chosen.values(), key=lambda t: t.task_id)
    agent = AgentConfig(**config["agent"])
    optimized = resolve_docset(warehouse, run_id)
    original = bench.original_docs()
    out: dict[str, Any] = {"tasks": len(test_tasks)}
    evaluator = RunnerEvaluator(
        warehouse,
        bench,
        agent,
        repeats=repeats,
        concurrency=concurrency,
        agent_factory=agent_factory,
        extra={"optimize_run": run_id, "per_tool": per_tool, "test_seed": seed},
    )
    for label, docs in (("original", original), ("optimized", optimized)):
        batch = evaluator.evaluate(docs, test_tasks, "test", kind="chisel-test", label={"docs": label})
        out[label] = {"run_id": batch.run_id, "ts": batch.ts, "tc": batch.tc, "n": len(batch.traces)}
    return out
