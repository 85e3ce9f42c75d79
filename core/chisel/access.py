"""Guarded access to ground truth and traces: the only way the optimizer reads them.

The method's promise is that validation and test ground truth never shape the
documentation. Rather than trusting every engine to behave, the optimizer
reads ground truth only through `GroundTruth`, which serves tasks of the
permitted parts (the optimization split) and refuses the rest, and which
writes every task id it served to the warehouse table `chisel_gt_access`. A
test can then check the promise from the warehouse alone.

`load_traces` reads stored episodes (and their tool-call events) into `Trace`
records, which carry what the agent did and saw but no ground truth.
"""

from __future__ import annotations

import json
import threading
from collections.abc import Iterable, Sequence

from core.benchmarks.base import Call, Task
from core.benchmarks.splits import Split
from core.chisel.types import Trace
from core.warehouse.records import now


class GroundTruthLeak(PermissionError):
    """The optimizer asked for ground truth outside the parts it may read."""


class GroundTruth:
    """Ground-truth calls of the permitted split parts, with an audit trail in the warehouse."""

    def __init__(
        self,
        warehouse,
        run_id: str,
        split: Split,
        tasks: Sequence[Task],
        allowed: Sequence[str] = ("opt",),
    ) -> None:
        self.warehouse = warehouse
        self.run_id = run_id
        self.split = split
        self.allowed = tuple(allowed)
        self._tasks = {t.task_id: t for t in tasks}
        self._pending: dict[tuple[str, str], dict] = {}
        self._lock = threading.Lock()

    def part(self, task_id: str) -> str | None:
        return self.split.parts.get(task_id)

    def _check(self, task_id: str, purpose: str) -> Task:
        part = self.part(task_id)
        if part not in self.allowed:
            raise GroundTruthLeak(
                f"ground truth of task {task_id!r} ({part or 'not in the split'}) requested for {purpose!r}; "
                f"the optimizer may read only {', '.join(self.allowed)}"
            )
        if task_id not in self._tasks:
            raise KeyError(f"unknown task {task_id!r}")
        with self._lock:
            self._pending.setdefault(
                (task_id, purpose),
                {"run_id": self.run_id, "task_id": task_id, "part": part, "purpose": purpose, "ts": now()},
            )
        return self._tasks[task_id]

    def calls(self, task_id: str, purpose: str) -> tuple[Call, ...]:
        """The ground-truth calls of one permitted task."""
        return self._check(task_id, purpose).gold

    def tools(self, task_id: str, purpose: str) -> tuple[str, ...]:
        return self._check(task_id, purpose).tools

    def query(self, task_id: str) -> str:
        """The task's input (not ground truth, but served under the same guard)."""
        return self._check(task_id, "query").query

    def flush(self) -> int:
        """Write the accesses recorded since the last flush."""
        with self._lock:
            rows, self._pending = list(self._pending.values()), {}
        if rows:
            self.warehouse.insert("chisel_gt_access", rows)
        return len(rows)


def load_traces(warehouse, run_id: str, task_ids: Iterable[str] | None = None) -> list[Trace]:
    """The episodes of a run (optionally only some tasks), oldest repeat first, with their tool calls."""
    params: list = [run_id]
    where = ""
    ids = sorted(set(task_ids)) if task_ids is not None else None
    if ids is not None:
        if not ids:
            return []
        where = " AND e.task_id IN (SELECT unnest(?::VARCHAR[]))"
        params.append(ids)
    eps = warehouse.rows(
        f"""SELECT e.episode_id, e.task_id, e.domain, coalesce(t.query, ''), e.success, e.tool_correct,
                   e.error_class, e.error, e.final_answer, e.n_steps, e.score
            FROM episodes e JOIN run_episodes r USING (episode_id)
            LEFT JOIN tasks t ON t.benchmark = e.benchmark AND t.task_id = e.task_id
            WHERE r.run_id = ?{where}
            ORDER BY e.task_id, e."repeat" """,
        params,
    )
    if not eps:
        return []
    events = warehouse.rows(
        """SELECT episode_id, tool, args, output, error FROM events
           WHERE kind = 'tool_call' AND episode_id IN (SELECT unnest(?::VARCHAR[]))
           ORDER BY episode_id, seq""",
        [[r[0] for r in eps]],
    )
    steps: dict[str, list[dict]] = {}
    for eid, tool, args, output, error in events:
        steps.setdefault(eid, []).append(
            {"tool": tool, "args": json.loads(args) if args else {}, "output": output, "error": error}
        )
    out = []
    for eid, tid, domain, query, ok, tc, ecls, err, final, n_steps, score in eps:
        out.append(
            Trace(
                episode_id=eid,
                task_id=tid,
                domain=domain or "",
                query=query,
                success=bool(ok),
                tool_correct=bool(tc),
                error_class=ecls,
                error=err,
                final_answer=final,
                steps=tuple(steps.get(eid, [])),
                n_model_calls=int(n_steps or 0),
                score=json.loads(score) if isinstance(score, str) and score else {},
            )
        )
    return out


def mark_error_outputs(traces: list[Trace], is_error) -> list[Trace]:
    """Traces whose tool outputs that are rejections (per `is_error`) are moved to the step's error."""
    out = []
    for t in traces:
        steps = []
        changed = False
        for s in t.steps:
            if not s.get("error") and s.get("output") is not None and is_error(s["output"]):
                s = {**s, "error": s["output"], "output": None}
                changed = True
            steps.append(s)
        out.append(t.model_copy(update={"steps": tuple(steps)}) if changed else t)
    return out
