"""Conformance check of a user benchmark, for `docschisel bench check PATH`.

Replays every task's gold calls on a fresh state and scores them against
themselves: every gold call must run without raising, and every task must
score as a success with correct tools. A failure here is a defect in the
folder (a gold call the tools reject, or a tool that is not deterministic).
"""

from __future__ import annotations

import time
from collections import Counter
from typing import Any

from core.benchmarks.userfolder.benchmark import UserBenchmark


def check(bench: UserBenchmark) -> dict[str, Any]:
    """Counts, per-mode task numbers, failures (at most 20 listed) and `ok`."""
    start = time.perf_counter()
    tasks = bench.tasks()
    n_calls = ok_calls = self_correct = 0
    modes: Counter[str] = Counter()
    failures: list[dict[str, Any]] = []
    for task in tasks:
        sandbox = bench.new_sandbox(task)
        for call in task.gold:
            n_calls += 1
            try:
                sandbox.execute(call)
                ok_calls += 1
            except Exception as exc:  # noqa: BLE001 - reported, the check goes on
                failures.append({"task_id": task.task_id, "call": call.render(), "error": str(exc)})
        # this replay is the task's gold run: a hanging or crashing tool is not run a second time
        bench.remember_gold(task, sandbox)
        score = bench.score(task, task.gold, None, sandbox)
        modes[bench.mode_for(task)] += 1
        if score.success and score.tool_correct:
            self_correct += 1
        else:
            failures.append({"task_id": task.task_id, "self_score": dict(score.details)})
    return {
        "benchmark": bench.name,
        "folder": str(bench.folder),
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
