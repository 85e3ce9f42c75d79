"""The evaluator protocol and its runner-backed implementation."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol

from core.agents.base import AgentConfig
from core.benchmarks.base import Benchmark, Task
from core.docs import DocSet
from core.evaluation.batch import EvalBatch
from core.evaluation.traces import Step, Trace, error_output_check, mark_error_outputs
from core.warehouse import reads


class Evaluator(Protocol):
    """Runs a doc set on tasks of one split part and returns the typed outcome."""

    def evaluate(
        self,
        docset: DocSet,
        tasks: Sequence[Task],
        part: str,
        *,
        kind: str = "eval",
        label: Mapping[str, Any] | None = None,
    ) -> EvalBatch: ...


def trace_from_row(row: Mapping[str, Any]) -> Trace:
    """A `Trace` from a `core.warehouse.reads.run_episodes` row."""
    return Trace(
        episode_id=row["episode_id"],
        task_id=row["task_id"],
        domain=row["domain"] or "",
        query=row["query"],
        success=bool(row["success"]),
        tool_correct=bool(row["tool_correct"]),
        error_class=row["error_class"],
        error=row["error"],
        final_answer=row["final_answer"],
        steps=tuple(Step(**s) for s in row["steps"]),
        n_model_calls=int(row["n_steps"] or 0),
        tokens=int(row["tokens"] or 0),
        repeat=int(row["repeat"] or 0),
        score=row["score"],
    )


def load_batch(warehouse: Any, run_id: str, part: str, docset_id: str, is_error=None) -> EvalBatch:
    """The stored episodes of a run as an EvalBatch (rejection outputs marked as errors)."""
    traces = [trace_from_row(r) for r in reads.run_episodes(warehouse, run_id)]
    if is_error is not None:
        traces = mark_error_outputs(traces, is_error)
    return EvalBatch(run_id, part, docset_id, tuple(traces), len(traces), 0, len(traces))


@dataclass
class RunnerEvaluator:
    """`Evaluator` on the runner: episodes are content-hashed, stored once, reused on every re-run.

    `extra` goes into every run's key (e.g. the optimizer run it belongs to),
    `label` per call (e.g. the tool whose doc was swapped); both name the run.
    Its callers read the traces it returns (diagnosis, reflection, SOP mining), so an episode
    restored from the results archive without its trace is run again (`traces`).
    """

    warehouse: Any
    benchmark: Benchmark
    agent: AgentConfig
    repeats: int = 1
    concurrency: int = 2
    agent_factory: Callable | None = None
    parent_run: str | None = None
    extra: dict[str, Any] = field(default_factory=dict)
    cancelled: Callable[[], bool] | None = None
    traces: bool = True

    def __post_init__(self) -> None:
        self.is_error = error_output_check(self.benchmark)

    def evaluate(
        self,
        docset: DocSet,
        tasks: Sequence[Task],
        part: str,
        *,
        kind: str = "eval",
        label: Mapping[str, Any] | None = None,
    ) -> EvalBatch:
        from core.runner import RunAborted, RunPlan, run

        label = dict(label or {})
        plan = RunPlan(
            self.benchmark,
            docset,
            self.agent,
            list(tasks),
            repeats=self.repeats,
            split=part,
            kind=kind,
            name=f"{kind} {label.get('tool') or label.get('domain', '')} {part}".strip(),
            extra={**self.extra, "part": part, **label},
        )
        res = run(
            self.warehouse,
            plan,
            concurrency=self.concurrency,
            agent_factory=self.agent_factory,
            parent_run=self.parent_run,
            cancelled=self.cancelled,
            traces=self.traces,
        )
        if res.infra_failed:
            # An optimizer must not accept or reject a doc on the tasks an outage left out.
            raise RunAborted(
                f"{res.infra_failed} of {res.planned} episodes failed outside the agent (provider or "
                "sandbox; see `docschisel warehouse failures`); run the command again to retry them"
            )
        batch = load_batch(self.warehouse, res.run_id, part, docset.docset_id, self.is_error)
        return EvalBatch(
            batch.run_id,
            part,
            docset.docset_id,
            batch.traces,
            res.planned,
            res.ran,
            res.reused,
            res.cancelled,
        )
