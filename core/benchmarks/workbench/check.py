"""Conformance check of the re-implemented sandbox (SPEC 10.1 and the spot checks of 10.3).

Used by `docschisel bench check workbench`: every ground-truth call must execute
from a reset state with a success message or id (947 calls), and every task's
ground truth must score correct against itself (690/690).
"""

from __future__ import annotations

import time
from typing import Any

from core.benchmarks.base import Call, ToolError
from core.benchmarks.workbench.tools import ERROR_MESSAGES


def check(benchmark: Any = None) -> dict[str, Any]:
    """Replay every gold answer; return counts, failures (at most 20 listed) and `ok`."""
    from core.benchmarks.workbench.benchmark import WorkBench
    from core.benchmarks.workbench.sandbox import WorkBenchSandbox

    bench = benchmark if benchmark is not None else WorkBench()
    start = time.perf_counter()
    tasks = bench.tasks()
    n_calls = ok_calls = self_correct = 0
    failures: list[dict[str, Any]] = []
    for task in tasks:
        sandbox = WorkBenchSandbox(bench.root)  # all tools: gold may use tools a variant hides (Q5)
        for call in task.gold:
            n_calls += 1
            try:
                out = sandbox.execute(call)
            except ToolError as exc:
                out = f"raised: {exc}"
            if out in ERROR_MESSAGES or out.startswith("raised: "):
                failures.append({"task_id": task.task_id, "call": call.render(), "observation": out})
            else:
                ok_calls += 1
        score = bench.score(task, task.gold, None, sandbox)
        strings = bench.score_strings(task, task.meta["gold_strings"])
        if score.success and strings.correct and score.tool_correct and strings.exact_match:
            self_correct += 1
        else:
            failures.append({"task_id": task.task_id, "self_score": dict(score.details)})
    spots = spot_checks(bench)
    return {
        "benchmark": "workbench",
        "data_dir": str(bench.root),
        "tasks": len(tasks),
        "tools": len(bench.tool_names()),
        "docs": len(bench.original_docs()),
        "gold_calls": n_calls,
        "gold_calls_ok": ok_calls,
        "self_correct": self_correct,
        "spot_checks": spots,
        "failures": failures[:20],
        "n_failures": len(failures),
        "ok": not failures and all(spots.values()) and len(tasks) == 690 and n_calls == 947,
        "seconds": round(time.perf_counter() - start, 2),
    }


def spot_checks(bench: Any) -> dict[str, bool]:
    """SPEC 10.3 spot checks, each True when the sandbox behaves as specified."""
    from core.benchmarks.workbench.sandbox import ToolCrash, WorkBenchSandbox

    out: dict[str, bool] = {}
    sb = WorkBenchSandbox(bench.root)
    out["search_events bare-date bound excludes the day"] = (
        sb.execute(Call("calendar.search_events", {"query": "sync", "time_max": "2023-08-01"}))
        == "No events found."
    )
    out["directory has no 'kofi mensah'"] = (
        sb.execute(Call("company_directory.find_email_address", {"name": "kofi mensah"})) == "[]"
    )
    sent = sb.execute(Call("email.send_email", {"recipient": "a@atlas.com", "subject": "s", "body": "b"}))
    last = sb.tables.emails.iloc[-1]
    out["send_email writes id 500 to the outbox"] = (
        sent == "Email sent successfully." and last["email_id"] == "500" and last["inbox/outbox"] == "outbox"
    )
    compat = WorkBenchSandbox(bench.root, compat_timestamps=True)
    compat.execute(Call("email.send_email", {"recipient": "a@atlas.com", "subject": "s", "body": "b"}))
    try:
        compat.execute(Call("email.search_emails", {}))
        out["search after send raises in compat mode"] = False
    except ToolCrash as exc:
        out["search after send raises in compat mode"] = "not supported between instances" in str(exc)
    out["total_visits_count with a timed lower bound is empty"] = (
        sb.execute(Call("analytics.total_visits_count", {"time_min": "2023-11-29 00:00:00"})) == "{}"
    )
    return out
