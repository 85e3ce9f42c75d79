"""One interface, two engines: what every optimizer step receives and must return.

`ToolContext` is everything the stages may know about the tool being
optimized: its original doc (the anchor), the current candidate, its
signature, what its calls returned and which errors it raised on the
optimization split, the iteration history and the guarded ground truth. No
stage gets validation or test ground truth, because the context has none.

An engine implements four steps (the paper's three LLM-assisted steps plus
the memory update); plan merging is shared (`core.chisel.merge`) but an engine
may refine it.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol

from core.chisel.access import GroundTruth
from core.chisel.introspect import ParamSig
from core.chisel.memory import DomainMemory
from core.chisel.types import Diagnosis, Evaluation, Plan, Trace
from core.docs import DocSet, ToolDoc


@dataclass
class Observations:
    """Outputs and error messages of the focal tool seen in optimization-split traces."""

    outputs: list[str] = field(default_factory=list)
    errors: list[tuple[str, dict[str, Any]]] = field(default_factory=list)  # (message, args)

    def absorb(self, traces: Sequence[Trace], tool: str) -> None:
        for t in traces:
            for s in t.steps:
                if s.tool != tool:
                    continue
                if s.error:
                    item = (str(s.error), dict(s.args or {}))
                    if item[0] not in {m for m, _ in self.errors}:
                        self.errors.append(item)
                elif s.output is not None and s.output not in self.outputs:
                    self.outputs.append(str(s.output))


@dataclass
class IterationRecord:
    """What one iteration tried for this tool and how it went (for planning and memory)."""

    iteration: int
    operations: list[tuple[str, str]]
    doc_id: str
    plan: Plan
    doc: ToolDoc
    evaluation: Evaluation
    outcome: str


@dataclass
class ToolContext:
    benchmark: Any
    tool: str
    domain: str
    original: ToolDoc
    current: ToolDoc
    docset: DocSet
    iteration: int
    seed: int
    gt: GroundTruth
    signature: list[ParamSig]
    opt_task_ids: list[str]
    observations: Observations = field(default_factory=Observations)
    history: list[IterationRecord] = field(default_factory=list)
    run_id: str = ""
    read_only: frozenset[str] = frozenset()  # tools that only look things up (the benchmark says)
    # (op, field) -> measured effect for this backbone and paradigm (core.chisel.priors)
    priors: dict[tuple[str, str], Any] = field(default_factory=dict)

    @property
    def param_names(self) -> list[str]:
        names = [p.name for p in self.signature]
        return names + [p.name for p in self.original.parameters if p.name not in names]

    def opt_gold_calls(self, purpose: str):
        """Ground-truth calls of the focal tool over the optimization split (guarded, audited)."""
        calls = []
        for tid in self.opt_task_ids:
            calls.extend((tid, c) for c in self.gt.calls(tid, purpose) if c.tool == self.tool)
        return calls


class Engine(Protocol):
    name: str

    def diagnose(self, ctx: ToolContext, trace: Trace, memory: DomainMemory) -> Diagnosis: ...

    def plan(self, ctx: ToolContext, diagnosis: Diagnosis, memory: DomainMemory) -> Plan: ...

    def merge(
        self, ctx: ToolContext, plans: Sequence[Plan], diagnoses: Sequence[Diagnosis], memory: DomainMemory
    ) -> Plan: ...

    def generate(self, ctx: ToolContext, plan: Plan, memory: DomainMemory) -> tuple[ToolDoc, list[str]]:
        """The candidate (from the ORIGINAL doc) and notes on what could not be applied."""
        ...

    def update_memory(
        self,
        ctx: ToolContext,
        memory: DomainMemory,
        diagnoses: Sequence[Diagnosis],
        plan: Plan,
        candidate: ToolDoc,
        evaluation: Evaluation,
        regression_traces: Sequence[Trace],
    ) -> None: ...
