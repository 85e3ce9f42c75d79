"""The episodes behind a comparison's numbers: one test task's calls under each method's doc sets.

Why: a flip ("CancelRegistration-level-1-3#0: 0.00 -> 1.00") says which task moved, not why; the
calls say it (under the original docs the agent booked the appointment the user named, under
DocsChisel's it cancelled it). This reads the stored snapshot's own evaluation runs (its methods'
points), so it shows the episodes behind those numbers and not those of another DocsChisel revision
stored under the same comparison id.
"""

from __future__ import annotations

import json
from typing import Any

import pandas as pd

from core.study.compare_report import StoredComparison
from core.warehouse.reads import run_episodes


def matching_tasks(c: StoredComparison, task: str) -> list[str]:
    """The comparison's test tasks named by `task`: itself when it is one, else those it begins."""
    if task in c.task_ids:
        return [task]
    return sorted(t for t in c.task_ids if t.startswith(task))


def _points(c: StoredComparison) -> list[dict[str, Any]]:
    out = []
    for row in c.methods.itertuples(index=False):
        points = json.loads(row.points) if isinstance(row.points, str) else (row.points or [])
        out += [{**p, "label": row.label} for p in points if p.get("run_id")]
    return out


def task_episodes(warehouse, c: StoredComparison, task_id: str) -> pd.DataFrame:
    """Every episode of one test task in the snapshot's evaluation runs, in method order.

    Columns: method (its label), opt_run, eval_run, docset_id, success, traced, calls (a list of
    {tool, args, output, error}, from its trace: `core.warehouse.reads.run_episodes`) and final_answer;
    `traced` is False for an episode stored without its trace (restored from the results archive),
    whose calls are not known rather than none.
    """
    points = {p["run_id"]: p for p in _points(c)}
    if not points:
        return pd.DataFrame()
    rows = [
        {
            "method": p["label"],
            "opt_run": p.get("opt_run"),
            "eval_run": p.get("eval_run"),
            "docset_id": p.get("docset_id"),
            "success": bool(ep["success"]),
            "episode_id": ep["episode_id"],
            "calls": ep["steps"],
            "final_answer": ep["final_answer"] or "",
        }
        for run_id, p in points.items()
        for ep in run_episodes(warehouse, run_id, [task_id])
    ]
    # an episode restored from the results archive keeps its outcome, not its trace: it has no events
    silent = [r["episode_id"] for r in rows if not r["calls"]]
    traced = set(
        warehouse.query(
            "SELECT DISTINCT episode_id FROM events WHERE episode_id IN (SELECT unnest(?::VARCHAR[]))",
            [silent],
        )["episode_id"]
        if silent
        else []
    )
    for r in rows:
        r["traced"] = bool(r.pop("episode_id") in traced or r["calls"])
    order = {label: i for i, label in enumerate(dict.fromkeys(p["label"] for p in points.values()))}
    frame = pd.DataFrame(rows)
    if frame.empty:
        return frame
    frame["_m"] = frame["method"].map(order)
    return frame.sort_values(["_m", "opt_run", "eval_run"]).drop(columns="_m").reset_index(drop=True)


def call_text(call: dict[str, Any], limit: int = 160) -> str:
    """`Tool(arg="value", ...)`, with the tool's error after it when it raised one."""
    args = ", ".join(f"{k}={json.dumps(v, ensure_ascii=False)}" for k, v in (call.get("args") or {}).items())
    text = f"{call.get('tool')}({args})"
    if call.get("error"):
        text += f" -> error: {str(call['error'])[:limit]}"
    return text


def episodes_text(frame: pd.DataFrame, query: str | None = None) -> str:
    """One line per episode: method, runs, doc set, outcome, its calls (or its answer when it called none)."""
    lines = [f"request:\n{query.strip()}\n"] if query else []
    for r in frame.itertuples(index=False):
        head = f"{r.method} · opt run {r.opt_run} · eval run {r.eval_run} · doc set {str(r.docset_id)[:8]}"
        did = "; ".join(call_text(c) for c in r.calls) or (
            f"no call; answered {r.final_answer[:120]!r}" if r.traced else "calls not stored (outcome only)"
        )
        lines.append(f"{head}: {'solved' if r.success else 'failed'} - {did}")
    return "\n".join(lines)


def task_text(warehouse, c: StoredComparison, task: str) -> str:
    """The request and episodes of the one test task that `task` names (an id or the start of one).

    Raises ValueError naming the candidates when `task` names none or several of the test tasks.
    """
    names = matching_tasks(c, task)
    if len(names) != 1:
        pool = names or c.task_ids
        shown = ", ".join(pool[:8]) + (" ..." if len(pool) > 8 else "")
        what = f"{len(names)} test tasks of" if names else "no test task of"
        raise ValueError(f"{task!r} names {what} comparison {c.compare_id}: {shown}")
    frame = task_episodes(warehouse, c, names[0])
    if frame.empty:
        return f"{names[0]}: no stored episode in comparison {c.compare_id}'s evaluation runs"
    query = (
        warehouse.query(  # tasks are stored under the benchmark's name without its view ("api-bank/domain")
            "SELECT query FROM tasks WHERE task_id = ? AND benchmark IN (?, ?) LIMIT 1",
            [names[0], c.benchmark, c.benchmark.split("/")[0]],
        )
    )
    request = str(query["query"].iloc[0]) if not query.empty else None
    return f"{names[0]} (comparison {c.compare_id})\n" + episodes_text(frame, request)
