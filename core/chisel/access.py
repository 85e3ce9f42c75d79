"""Guarded access to ground truth and traces: the only way the optimizer reads them.

The method's promise is that validation and test ground truth never shape the
documentation. Rather than trusting every engine to behave, the optimizer
reads ground truth only through `GroundTruth`, which serves tasks of the
permitted parts (the optimization split) and refuses the rest, and which
writes every task id it served to the warehouse table `chisel_gt_access`. A
test can then check the promise from the warehouse alone.

`load_traces` reads a run's stored episodes as `Trace` records (what the agent
did and saw, no ground truth), for readers that start from a run id.
"""

from __future__ import annotations

import threading
from collections.abc import Iterable, Sequence

from core.benchmarks.base import Call, Task
from core.benchmarks.splits import Split
from core.evaluation.traces import Trace
from core.warehouse.rows import GroundTruthAccessRow


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
        self._pending: dict[tuple[str, str], GroundTruthAccessRow] = {}
        self._lock = threading.Lock()

    def part(self, task_id: str) -> str | None:
        return self.split.parts.get(task_id)

    def ids(self) -> list[str]:
        """The tasks whose ground truth may be read (those of the permitted split parts), sorted.

        Why: a synthesiser that quotes one tool's request checks it against the other tools'
        permitted dialogues, which it can only find by listing them.
        """
        return sorted(t for t in self._tasks if self.part(t) in self.allowed)

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
                GroundTruthAccessRow(run_id=self.run_id, task_id=task_id, part=part, purpose=purpose),
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
        self.warehouse.record(rows)
        return len(rows)


def load_traces(warehouse, run_id: str, task_ids: Iterable[str] | None = None) -> list[Trace]:
    """The episodes of a run (optionally only some tasks), oldest repeat first, with their tool calls."""
    from core.evaluation.evaluator import trace_from_row
    from core.warehouse import reads

    return [trace_from_row(r) for r in reads.run_episodes(warehouse, run_id, task_ids)]
