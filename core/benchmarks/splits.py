"""Seeded, stratified optimization / validation / test splits, stored once.

The method needs, for every tool, tasks to learn from (opt), tasks to accept or
reject a candidate on (val) and tasks nobody touches until the final report
(test). Tasks are stratified by (domain, primary tool) so each tool with enough
tasks lands in every part; within a stratum the assignment follows the largest
deficit against the target ratio, which keeps small strata honest (a stratum of
three tasks gives one to each part rather than three to opt).

Grouping by gold call (`grouping="gold"`, the default of every run config):
some benchmarks ask for one call in several tasks (API-Bank repeats
`ModifyRegistration(appointment_id="90123456", ...)` in a level-1 and two
level-2 dialogues). A task-level split puts such copies on both sides, and a
method that writes an optimization task's expected call into a doc then
"solves" the held-out copy without documenting anything. Tasks that share any
gold call (`Call.key`, the scorer's equality) form one group, closed
transitively, and a group lands in one part as a whole; tasks without a gold
call stay on their own. `grouping="task"` is the split stored before grouping
existed; its ids are unchanged.

A split is stored in the warehouse and identified by a hash of the benchmark,
seed, ratios, task ids and grouping, so every later run reuses exactly the same
split.
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
GROUPINGS = ("task", "gold")
DEFAULT_GROUPING = "gold"


@dataclass(frozen=True)
class Split:
    """Assignment of task ids to the parts opt / val / test."""

    split_id: str
    benchmark: str
    seed: int
    ratios: tuple[int, int, int]
    parts: dict[str, str]  # task_id -> part
    grouping: str = "task"

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


def gold_groups(tasks: Sequence[Task]) -> list[list[str]]:
    """Task ids grouped so that tasks sharing a gold call (transitively) are in one group.

    Groups are sorted internally and by their first id; a task without a gold
    call is a group of its own.
    """
    parent: dict[str, str] = {}

    def root(x: str) -> str:
        while parent[x] != x:
            parent[x] = parent[parent[x]]
            x = parent[x]
        return x

    owner: dict[str, str] = {}
    for t in sorted(tasks, key=lambda t: t.task_id):
        parent[t.task_id] = t.task_id
        for call in t.gold:
            first = owner.setdefault(call.key(), t.task_id)
            a, b = root(first), root(t.task_id)
            if a != b:
                parent[max(a, b)] = min(a, b)
    members: dict[str, list[str]] = defaultdict(list)
    for tid in sorted(parent):
        members[root(tid)].append(tid)
    return sorted(members.values(), key=lambda g: g[0])


def check_grouping(grouping: str) -> str:
    """`grouping` itself, or a ValueError naming the allowed ones (what every run config validates with)."""
    if grouping not in GROUPINGS:
        raise ValueError(f"split_grouping must be one of {', '.join(GROUPINGS)}, not {grouping!r}")
    return grouping


def _check(ratios: Sequence[int], grouping: str) -> list[float]:
    if len(ratios) != 3 or any(r < 0 for r in ratios) or sum(ratios) == 0:
        raise ValueError(f"ratios must be three non-negative numbers, got {list(ratios)}")
    check_grouping(grouping)
    return [r / sum(ratios) for r in ratios]


def assign(
    tasks: Sequence[Task], seed: int = 0, ratios: Sequence[int] = DEFAULT_RATIOS, grouping: str = "task"
) -> dict[str, str]:
    """Pure function: task_id -> part, deterministic for a seed."""
    share = _check(ratios, grouping)
    by_id = {t.task_id: t for t in tasks}
    units = [[t] for t in sorted(by_id)] if grouping == "task" else gold_groups(list(by_id.values()))
    strata: dict[tuple[str, str], list[list[str]]] = defaultdict(list)
    for unit in units:
        strata[_stratum(by_id[unit[0]])].append(unit)  # a group's stratum is its first task's
    rng = random.Random(seed)
    parts: dict[str, str] = {}
    for key in sorted(strata):
        stratum = strata[key]
        rng.shuffle(stratum)
        place = _by_deficit if grouping == "task" else _by_target
        for unit, i in zip(stratum, place(stratum, share), strict=True):
            parts.update(dict.fromkeys(unit, PARTS[i]))
    return parts


def _by_deficit(tasks: list[list[str]], share: list[float]) -> list[int]:
    """Part index per task (units of one task), in order: each goes to the part furthest below its
    running share; the first three of a stratum of three or more go one to each part."""
    given, out = [0, 0, 0], []
    for k in range(len(tasks)):
        if k < 3 and len(tasks) >= 3 and all(s > 0 for s in share):
            i = k
        else:
            deficits = [share[j] * (k + 1) - given[j] for j in range(3)]
            i = max(range(3), key=lambda j: (deficits[j], -j))
        given[i] += 1
        out.append(i)
    return out


def _by_target(units: list[list[str]], share: list[float]) -> list[int]:
    """Part index per unit (gold-call groups of different sizes), in the units' order.

    Why not `_by_deficit`: with groups of up to six tasks, giving the first three
    units one to each part can hand a whole group to validation and leave it at
    twice its share. Here the three smallest units go one to each part (the
    smallest to the part with the smallest share), then the others, largest
    first, each to the part furthest below its target share of the stratum's
    tasks; ties in size keep the seeded order.
    """
    order = sorted(range(len(units)), key=lambda u: len(units[u]))  # stable: seeded order among equals
    target = [s * sum(len(u) for u in units) for s in share]
    given, out = [0, 0, 0], [0] * len(units)
    first: list[int] = []
    if len(units) >= 3 and all(s > 0 for s in share):
        first, order = order[:3], order[3:]
    for u, i in zip(first, sorted(range(3), key=lambda j: (share[j], j)), strict=False):
        out[u] = i
        given[i] += len(units[u])
    for u in sorted(order, key=lambda u: -len(units[u])):
        i = max(range(3), key=lambda j: (target[j] - given[j], -j))
        out[u] = i
        given[i] += len(units[u])
    return out


def split_id(benchmark: str, seed: int, ratios: Sequence[int], task_ids: Sequence[str], grouping: str) -> str:
    """A split's id; a task-level split keeps the id it had before grouping existed."""
    parts: list = ["split", benchmark, seed, tuple(int(r) for r in ratios), sorted(task_ids)]
    return content_hash(*parts, *([grouping] if grouping != "task" else []))


def get_or_create_split(
    warehouse,
    benchmark: str,
    tasks: Sequence[Task],
    *,
    seed: int = 0,
    ratios: Sequence[int] = DEFAULT_RATIOS,
    grouping: str,
) -> Split:
    """The stored split for these tasks, creating and storing it the first time.

    `grouping` has no default: each caller says which split its stored runs were made on.
    """
    _check(ratios, grouping)
    ratios = tuple(int(r) for r in ratios)
    sid = split_id(benchmark, seed, ratios, [t.task_id for t in tasks], grouping)
    rows = warehouse.rows("SELECT task_id, part FROM split_assignments WHERE split_id = ?", [sid])
    if rows:
        return Split(sid, benchmark, seed, ratios, dict(rows), grouping)
    parts = assign(tasks, seed, ratios, grouping)
    from core.warehouse.rows import SplitAssignmentRow, SplitRow

    warehouse.record(
        [
            SplitRow(split_id=sid, benchmark=benchmark, seed=seed, ratios=list(ratios)),
            *(SplitAssignmentRow(split_id=sid, task_id=t, part=p) for t, p in parts.items()),
        ]
    )
    return Split(sid, benchmark, seed, ratios, parts, grouping)
