"""`docschisel bench check` for an MCP benchmark: every task's gold calls, replayed on fresh servers.

Each task runs its gold calls in an episode of its own and is scored against
itself: every gold call must succeed and every task must score as a success
with the right tools. A failure is a defect of the tasks file (a call the
server rejects) or of the server (it is not deterministic, or it crashed).
"""

from __future__ import annotations

import time
from collections import Counter
from typing import Any

from core.benchmarks.base import ToolError
from core.benchmarks.mcp.benchmark import McpBenchmark


def check(bench: McpBenchmark) -> dict[str, Any]:
    """Counts, per-mode task numbers, failures (at most 20 listed) and `ok`."""
    start = time.perf_counter()
    tasks = bench.tasks()
    n_calls = ok_calls = self_correct = 0
    modes: Counter[str] = Counter()
    failures: list[dict[str, Any]] = []
    for task in tasks:
        sandbox = bench.new_sandbox(task)
        try:
            for call in task.gold:
                n_calls += 1
                try:
                    sandbox.execute(call)
                    ok_calls += 1
                except ToolError as exc:
                    failures.append({"task_id": task.task_id, "call": call.render(), "error": str(exc)})
            score = bench.score(task, task.gold, None, sandbox)
        finally:
            sandbox.close()
        modes[bench.mode_for(task)] += 1
        if score.success and score.tool_correct:
            self_correct += 1
        else:
            failures.append({"task_id": task.task_id, "self_score": dict(score.details)})
    return {
        "benchmark": bench.name,
        "server": bench.spec.label(),
        "tasks": len(tasks),
        "tools": len(bench.tool_names()),
        "docs": len(bench.original_docs()),
        "domains": {d: sum(t.domain == d for t in tasks) for d in bench.domains()},
        "modes": dict(modes),
        "gold_calls": n_calls,
        "gold_calls_ok": ok_calls,
        "self_correct": self_correct,
        "failures": failures[:20],
        "n_failures": len(failures),
        "ok": not failures and bool(tasks),
        "seconds": round(time.perf_counter() - start, 3),
    }
