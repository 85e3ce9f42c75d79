"""Test tasks whose gold call is also an optimization or validation task's gold call.

Why: some benchmarks repeat one request across several dialogues (API-Bank
asks for `ModifyRegistration(appointment_id="90123456", ...)` in a level-1
and a level-2 task), and a task-level split can put the copies on both sides.
A method that pastes the values of the tasks it optimized on into a doc (GEPA's
reflection sees each task's expected calls) then gains on the held-out copies
without documenting the tool better. Reporting each method's TS on the shared
and on the other test tasks apart tells the two kinds of gain apart; it needs
no new runs, only the split and the stored per-task outcomes.

    shared = shared_gold_tasks(warehouse, split_id, test_task_ids)
    frame = overlap_frame(per_task, shared, test_task_ids, labels)
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from typing import Any

import pandas as pd

from core.benchmarks.base import Call


def _calls(gold: Any) -> list[str]:
    """A task's gold calls as `Call.key()` texts (the scorer's equality); [] when it has none."""
    calls = json.loads(gold) if isinstance(gold, str) else gold
    if not isinstance(calls, list):
        return []
    return [Call.from_json(c).key() for c in calls if isinstance(c, dict) and c.get("tool")]


def shared_gold_tasks(warehouse, split_id: str | None, test_task_ids: Sequence[str]) -> list[str] | None:
    """The test tasks with a gold call that is also the gold call of an opt or val task of the split.

    None when the split is not stored (nothing can be said); [] when no test task shares one.
    """
    if not split_id:
        return None
    rows = warehouse.query(
        """SELECT s.task_id, s.part, t.gold FROM split_assignments s
           JOIN splits USING (split_id)
           JOIN tasks t ON t.task_id = s.task_id AND t.benchmark = split_part(splits.benchmark, '/', 1)
           WHERE s.split_id = ?""",
        [split_id],
    )
    if rows.empty:
        return None
    seen = {c for r in rows.itertuples(index=False) if r.part in ("opt", "val") for c in _calls(r.gold)}
    gold = {r.task_id: _calls(r.gold) for r in rows.itertuples(index=False)}
    return sorted(t for t in test_task_ids if any(c in seen for c in gold.get(t, [])))


def overlap_frame(
    per_task: Mapping[str, Mapping[str, Mapping[str, float]]],
    shared: Sequence[str],
    task_ids: Sequence[str],
    labels: Mapping[str, str],
) -> pd.DataFrame:
    """Per method: mean TS (over tasks of each task's mean over runs) on the shared and on the other tasks."""
    shared_set = set(shared)
    other = [t for t in task_ids if t not in shared_set]
    rows = []
    for method, outcome in per_task.items():
        ts = outcome.get("ts") or {}

        def mean(tasks: Sequence[str], ts: Mapping[str, float] = ts) -> float | None:
            vals = [float(ts[t]) for t in tasks if t in ts]
            return 100 * sum(vals) / len(vals) if vals else None

        rows.append(
            {
                "method": labels.get(method, method),
                f"TS % on shared-gold tasks (n={len(shared_set)})": mean(sorted(shared_set)),
                f"TS % on the others (n={len(other)})": mean(other),
            }
        )
    return pd.DataFrame(rows)
