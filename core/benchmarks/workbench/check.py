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


def replay_recorded_observations(
    bench: Any = None, *, aliases: set[str] | None = None, domains: set[str] | None = None
) -> dict[str, Any]:
    """Re-run every recorded agent step through our sandbox and compare observation texts.

    Each recorded row gets a fresh sandbox in the upstream-compatible modes
    (timestamps stored as objects, unknown argument names dropped, all tools);
    a string `tool_input` is passed as the first parameter, as LangChain did.
    Steps naming an unknown tool are LangChain's own reply and are skipped.
    Returns the number of steps compared and agreeing, and up to 20 differences.
    """
    import pandas as pd

    from core.benchmarks.workbench.benchmark import WorkBench
    from core.benchmarks.workbench.importer import results_files
    from core.benchmarks.workbench.sandbox import WorkBenchSandbox
    from core.benchmarks.workbench.tools import TOOLS
    from core.benchmarks.workbench.traces import TraceParseError, parse_full_response

    bench = bench if bench is not None else WorkBench()
    start = time.perf_counter()
    compared = agreed = 0
    diffs: list[dict[str, Any]] = []
    for f in results_files(bench.root):
        if (aliases and f.alias not in aliases) or (domains and f.domain not in domains):
            continue
        df = pd.read_csv(f.path, dtype=object, keep_default_na=False)
        for rec in df.to_dict(orient="records"):
            if not rec.get("full_response"):
                continue
            try:
                trace = parse_full_response(rec["full_response"])
            except TraceParseError:
                continue
            sandbox = WorkBenchSandbox(bench.root, strict_args=False, compat_timestamps=True)
            for step in trace.steps:
                if step.tool not in TOOLS or " is not a valid tool, try one of [" in step.observation_text:
                    continue
                args = step.tool_input
                if not isinstance(args, dict):
                    args = {TOOLS[step.tool].param_names[0]: args}
                compared += 1
                try:
                    got = sandbox.execute(Call(step.tool, args))
                except ToolError as exc:
                    got = f"raised: {exc}"
                if got == step.observation_text:
                    agreed += 1
                elif len(diffs) < 20:
                    diffs.append(
                        {
                            "file": f.rel,
                            "tool": step.tool,
                            "args": args,
                            "recorded": step.observation_text,
                            "ours": got,
                        }
                    )
    return {
        "steps": compared,
        "agree": agreed,
        "differences": diffs,
        "seconds": round(time.perf_counter() - start, 2),
    }
