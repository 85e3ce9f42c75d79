"""What one evaluation returns: the run, its traces, and the scores derived from them."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from core.evaluation.traces import Trace


def success_rate(traces: Sequence[Trace]) -> float:
    """TS: the share of episodes that completed their task (0 for none)."""
    return sum(t.success for t in traces) / len(traces) if traces else 0.0


def credit(trace: Trace) -> float:
    """Partial credit of one episode: 1 for a success, else the share of the gold calls it got right.

    The runner stores the share as `score["partial"]` (core.benchmarks.credit);
    episodes stored before it existed count 0 when they failed.
    """
    if trace.success:
        return 1.0
    value = (trace.score or {}).get("partial")
    return float(value) if isinstance(value, int | float) and not isinstance(value, bool) else 0.0


def passing(traces: Sequence[Trace]) -> dict[str, bool]:
    """task -> passes (success in at least half of its repeats)."""
    rates: dict[str, list[bool]] = {}
    for t in traces:
        rates.setdefault(t.task_id, []).append(t.success)
    return {k: sum(v) * 2 >= len(v) for k, v in rates.items()}


@dataclass(frozen=True)
class EvalBatch:
    """Episodes of one doc set on some tasks of one split part, all repeats.

    Invariants: every trace belongs to `run_id` (or, for a view made by
    `only`, to a subset of its tasks); traces are ordered by task id, then
    repeat; `planned == len(traces)` unless the run was cancelled.
    """

    run_id: str
    part: str
    docset_id: str
    traces: tuple[Trace, ...]
    planned: int = 0
    ran: int = 0
    reused: int = 0
    cancelled: bool = False

    @property
    def ts(self) -> float:
        return success_rate(self.traces)

    @property
    def tc(self) -> float:
        return sum(t.tool_correct for t in self.traces) / len(self.traces) if self.traces else 0.0

    @property
    def partial(self) -> float:
        """Mean partial credit (see `credit`): a tie-breaker between equal TS, never a substitute."""
        return sum(credit(t) for t in self.traces) / len(self.traces) if self.traces else 0.0

    @property
    def agent_tokens(self) -> int:
        return sum(t.tokens for t in self.traces)

    @property
    def task_ids(self) -> list[str]:
        return sorted({t.task_id for t in self.traces})

    def passing(self) -> dict[str, bool]:
        return passing(self.traces)

    def failed(self) -> list[Trace]:
        return [t for t in self.traces if not t.success]

    def only(self, task_ids: Iterable[str]) -> EvalBatch:
        """The same run restricted to some tasks (e.g. one tool's share of a domain's profile)."""
        keep = set(task_ids)
        traces = tuple(t for t in self.traces if t.task_id in keep)
        return EvalBatch(self.run_id, self.part, self.docset_id, traces, len(traces), 0, 0, self.cancelled)

    def joined(self, other: EvalBatch, task_ids: Iterable[str]) -> EvalBatch:
        """This view plus `other`'s episodes of `task_ids` that this one lacks (same doc set, another part).

        A tool's validation can hold tasks profiled in the optimization part (cross-tool validation):
        their original-docs outcome is in the optimization batch, and this keeps the trace order.
        """
        have = {t.task_id for t in self.traces}
        more = [t for t in other.only(task_ids).traces if t.task_id not in have]
        if not more:
            return self
        traces = tuple(sorted([*self.traces, *more], key=lambda t: (t.task_id, t.repeat)))
        return EvalBatch(self.run_id, self.part, self.docset_id, traces, len(traces), 0, 0, self.cancelled)
