"""Seeded, stratified optimization / validation / test splits, stored once.

The method needs, for every tool, tasks to learn from (opt), tasks to accept or
reject a candidate on (val) and tasks nobody touches until the final report
(test). Tasks are stratified by (domain, primary tool) so each tool with enough
tasks lands in every part; within a stratum the assignment follows the largest
deficit against the target ratio, which keeps small strata honest (a stratum of
three tasks gives one to each part rather than three to opt).

A split is stored in the warehouse and identified by a hash of the benchmark,
seed, ratios and task ids, so every later run reuses exactly the same split.
"""

from __future__ import annotations

import random
from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass

from core.benchmarks.base import Task
from core.warehouse.records import content_hash

PARTS = ("opt", "val", "test")
DEFAULT_RATIOS = (5, 1, 4)


@dataclass(frozen=True)
class Split:
    """Assignment of task ids to the parts opt / val / test."""

    split_id: str
    benchmark: str
    seed: int
    ratios: tuple[int, int, int]
    parts: dict[str, str]  # task_id -> part

    def ids(self, part: str) -> list[str]:
        if part not in PARTS:
            raise ValueError(f"unknown split part {part!r}; expected one of {PARTS}")
        return sorted(t for t, p in self.parts.items() if p == part)

    def tasks(self, tasks: Sequence[Task], part: str) -> list[Task]:
        wanted = set(self.ids(part))
        return [t for t in tasks if t.task_id in wanted]

    def tool_tasks(self, tasks: Sequence[Task], tool: str, part: str) -> list[Task]:
        """A tool's tasks in one part: those whose ground truth uses the tool."""
        return [t for t in self.tasks(tasks, part) if tool in t.tools]

    def counts(self) -> dict[str, int]:
        out = dict.fromkeys(PARTS, 0)
        for p in self.parts.values():
            out[p] += 1
        return out


def _stratum(task: Task) -> tuple[str, str]:
    return (task.domain, task.tools[0] if task.tools else "")


def assign(tasks: Sequence[Task], seed: int = 0, ratios: Sequence[int] = DEFAULT_RATIOS) -> dict[str, str]:
    """Pure function: task_id -> part, deterministic for a seed."""
    if len(ratios) != 3 or any(r < 0 for r in ratios) or sum(ratios) == 0:
        raise ValueError(f"ratios must be three non-negative numbers, got {list(ratios)}")
    share = [r / sum(ratios) for r in ratios]
    strata: dict[tuple[str, str], list[str]] = defaultdict(list)
    for t in sorted(tasks, key=lambda t: t.task_id):
        strata[_stratum(t)].append(t.task_id)
    rng = random.Random(seed)
    parts: dict[str, str] = {}
    for key in sorted(strata):
        ids = strata[key]
        rng.shuffle(ids)
        given = [0, 0, 0]
        for k, tid in enumerate(ids):
            if k < 3 and len(ids) >= 3 and all(s > 0 for s in share):
                i = (0, 1, 2)[k]  # every part first gets one task of a big-enough stratum
            else:
                deficits = [share[j] * (k + 1) - given[j] for j in range(3)]
                i = max(range(3), key=lambda j: (deficits[j], -j))
            given[i] += 1
            parts[tid] = PARTS[i]
    return parts


def get_or_create_split(
    warehouse, benchmark: str, tasks: Sequence[Task], *, seed: int = 0, ratios: Sequence[int] = DEFAULT_RATIOS
) -> Split:
    """The stored split for these tasks, creating and storing it the first time."""
    ratios = tuple(int(r) for r in ratios)
    task_ids = sorted(t.task_id for t in tasks)
    sid = content_hash("split", benchmark, seed, ratios, task_ids)
    rows = warehouse.rows("SELECT task_id, part FROM split_assignments WHERE split_id = ?", [sid])
    if rows:
        return Split(sid, benchmark, seed, ratios, dict(rows))
    parts = assign(tasks, seed, ratios)
    from core.warehouse.rows import SplitAssignmentRow, SplitRow

    warehouse.record(
        [
            SplitRow(split_id=sid, benchmark=benchmark, seed=seed, ratios=list(ratios)),
            *(SplitAssignmentRow(split_id=sid, task_id=t, part=p) for t, p in parts.items()),
        ]
    )
    return Split(sid, benchmark, seed, ratios, parts)
