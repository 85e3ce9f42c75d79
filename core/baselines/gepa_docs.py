"""GEPA on tool documentation: the adapter between the `gepa` package and our evaluation seam.

GEPA (Agrawal et al., 2025; the `gepa` package, used as is) evolves named
text components by reflective mutation and keeps a Pareto front of candidates
on a validation set. Here a candidate is the documentation texts of the tools
being optimized:

- component `<tool>` (the tool's dispatch key) = its FD (functionality description);
- component `<tool>::<param>` = the IPD (description) of one of its parameters.

`docset_for` turns a candidate into a DocSet by changing only those texts on
the ORIGINAL docs (ToolDoc's immutable Add / Refine operations); every other
field, and every other tool, stays as it was. A rollout is one target-agent
episode through `core.evaluation` (never the runner or SQL directly); its score
is the episode's success (1.0 / 0.0), i.e. TS, the metric DocsChisel accepts
on. The reflective dataset of a component holds the minibatch's tasks whose
ground truth uses its tool (or where the agent called it): the query, what the
agent called and saw, its final answer, and feedback — success, or the
scorer's reason and the expected call. Ground truth is rendered for
optimization-split tasks only (the same evidence DocsChisel's evidence engine
reads), every read audited in `chisel_gt_access`; test-split tasks are never
evaluated and never reach the dataset.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from core.benchmarks.base import Task
from core.benchmarks.splits import Split
from core.docs import DocSet, ToolDoc
from core.evaluation import Evaluator, Trace
from core.warehouse.rows import GroundTruthAccessRow

SEP = "::"
TEXT_CAP = 400  # characters of a tool output or error shown to the reflection model


def component(tool: str, param: str | None = None) -> str:
    """The GEPA component name of a tool's FD (`tool`) or of one parameter's IPD (`tool::param`)."""
    return tool if param is None else f"{tool}{SEP}{param}"


def tool_of(name: str) -> str:
    """The tool a component belongs to."""
    return name.split(SEP, 1)[0]


def seed_candidate(original: DocSet, tools: Sequence[str], params: bool = True) -> dict[str, str]:
    """The starting candidate: the original FD of each tool (and IPD of each parameter); absent = ''."""
    out: dict[str, str] = {}
    for tool in tools:
        doc = original[tool]
        out[component(tool)] = doc.description or ""
        if params:
            for p in doc.parameters:
                out[component(tool, p.name)] = p.description or ""
    return out


def _with_text(doc: ToolDoc, text: str) -> ToolDoc:
    """`doc` with its FD set to `text` ('' removes it)."""
    if text.strip() == (doc.description or "").strip():
        return doc
    if not text.strip():
        return doc.remove("FD")
    return doc.apply("Refine" if doc.has("FD") else "Add", "FD", text)


def _with_param_text(doc: ToolDoc, param: str, text: str) -> ToolDoc:
    """`doc` with parameter `param`'s IPD set to `text` ('' removes it from that parameter)."""
    p = doc.param(param)
    if p is None or text.strip() == (p.description or "").strip():
        return doc
    if not text.strip():
        params = tuple(
            q.model_copy(update={"description": None}) if q.name == param else q for q in doc.parameters
        )
        return doc.model_copy(update={"parameters": params})
    return doc.apply("Refine" if p.has("IPD") else "Add", "IPD", {param: text})


def docset_for(original: DocSet, candidate: Mapping[str, str], name: str = "") -> DocSet:
    """The original doc set with the candidate's texts swapped in (nothing else changes)."""
    docs = dict(original.items())
    for key, text in sorted(candidate.items()):
        tool, _, param = key.partition(SEP)
        if tool not in docs:
            raise KeyError(f"component {key!r} names no tool of the doc set")
        docs[tool] = _with_param_text(docs[tool], param, text) if param else _with_text(docs[tool], text)
    return DocSet(docs.values(), name=name or original.name)


@dataclass(frozen=True)
class Rollout:
    """GEPA's trajectory for one task: the task and the stored episode (None if none came back)."""

    task: Task
    trace: Trace | None


class TaskLoader:
    """A GEPA data loader keyed by task id, so train and validation ids never collide."""

    def __init__(self, tasks: Iterable[Task]) -> None:
        self._tasks = {t.task_id: t for t in sorted(tasks, key=lambda t: t.task_id)}

    def all_ids(self) -> list[str]:
        return list(self._tasks)

    def fetch(self, ids: Sequence[str]) -> list[Task]:
        return [self._tasks[i] for i in ids]

    def __len__(self) -> int:
        return len(self._tasks)


class BudgetExhausted(RuntimeError):
    """An evaluation would run more episodes than the budget allows (the stopper should prevent it)."""


@dataclass
class Spend:
    """What the adapter's evaluations cost, per tool: episodes (metric calls), agent tokens, seconds."""

    episodes: dict[str, float] = field(default_factory=dict)
    agent_tokens: dict[str, float] = field(default_factory=dict)
    seconds: dict[str, float] = field(default_factory=dict)
    metric_calls: int = 0
    ran: int = 0  # episodes the runner actually ran (the rest were stored already)

    def add(self, tools: Sequence[str], tokens: int, seconds: float) -> None:
        share = 1.0 / len(tools)
        for t in tools:
            self.episodes[t] = self.episodes.get(t, 0.0) + share
            self.agent_tokens[t] = self.agent_tokens.get(t, 0.0) + tokens * share
            self.seconds[t] = self.seconds.get(t, 0.0) + seconds * share


class DocsAdapter:
    """`gepa.GEPAAdapter` over `core.evaluation`: candidates are doc texts, rollouts are agent episodes.

    `budget` is a hard cap on episodes requested (GEPA's metric calls); the
    run's stopper keeps GEPA under it, so `BudgetExhausted` signals a bug.
    """

    propose_new_texts = None  # GEPA's reflection (with our reflection model) proposes the texts

    def __init__(
        self,
        evaluator: Evaluator,
        original: DocSet,
        tools: Sequence[str],
        split: Split,
        *,
        budget: int,
        warehouse: Any = None,
        run_id: str = "",
        register: Callable[[DocSet], None] | None = None,
    ) -> None:
        self.evaluator, self.original, self.split = evaluator, original, split
        self.tools = list(tools)
        self.budget = budget
        self.warehouse, self.run_id = warehouse, run_id
        self.register = register
        self.spend = Spend()

    # ------------------------------------------------------------------ rollouts
    def evaluate(self, batch: list[Task], candidate: dict[str, str], capture_traces: bool = False) -> Any:
        """Run the candidate's doc set on the batch; score = episode success (TS)."""
        from gepa import EvaluationBatch

        parts = {self.split.parts.get(t.task_id) for t in batch}
        if not parts <= {"opt", "val"}:
            raise ValueError(
                f"GEPA evaluates optimization and validation tasks only, not {sorted(map(str, parts))}"
            )
        if self.spend.metric_calls + len(batch) > self.budget:
            raise BudgetExhausted(
                f"{len(batch)} more episodes would pass the budget of {self.budget} ({self.spend.metric_calls} spent)"
            )
        docset = docset_for(self.original, candidate, name=f"gepa candidate {self.run_id}")
        if self.register is not None:
            self.register(docset)
        unique = list({t.task_id: t for t in batch}.values())
        part = parts.pop() if len(parts) == 1 else "opt+val"
        t0 = time.perf_counter()
        result = self.evaluator.evaluate(docset, unique, part, kind="gepa-eval")
        seconds = (time.perf_counter() - t0) / max(1, len(batch))
        by_task = {t.task_id: t for t in result.traces}
        self.spend.metric_calls += len(batch)
        self.spend.ran += result.ran
        outputs, scores, trajectories = [], [], []
        for task in batch:
            trace = by_task.get(task.task_id)
            used = [t for t in task.tools if t in self.tools] or self.tools
            self.spend.add(used, trace.tokens if trace else 0, seconds)
            scores.append(1.0 if trace is not None and trace.success else 0.0)
            outputs.append({"task_id": task.task_id, "success": bool(trace and trace.success)})
            trajectories.append(Rollout(task, trace))
        return EvaluationBatch(
            outputs=outputs, scores=scores, trajectories=trajectories if capture_traces else None
        )

    # ------------------------------------------------------------------ reflection
    def make_reflective_dataset(
        self, candidate: dict[str, str], eval_batch: Any, components_to_update: list[str]
    ) -> dict[str, list[dict[str, Any]]]:
        """Per component, the records of the minibatch's optimization tasks that involve its tool."""
        rollouts = [r for r in eval_batch.trajectories or () if self.split.parts.get(r.task.task_id) == "opt"]
        out: dict[str, list[dict[str, Any]]] = {}
        served: set[str] = set()
        for name in components_to_update:
            tool = tool_of(name)
            records = [record(r, served, gold=True) for r in rollouts if involves(r, tool)]
            if records:
                out[name] = records
        self._audit(served)
        return out

    def _audit(self, task_ids: set[str]) -> None:
        """Every task whose ground truth reached the reflection model, in the audit table."""
        if self.warehouse is None or not task_ids:
            return
        self.warehouse.record(
            [
                GroundTruthAccessRow(run_id=self.run_id, task_id=t, part="opt", purpose="gepa-feedback")
                for t in sorted(task_ids)
            ]
        )


def involves(rollout: Rollout, tool: str) -> bool:
    """Whether a task concerns `tool`: its ground truth uses it, or the agent called it."""
    called = {s.tool for s in rollout.trace.steps} if rollout.trace else set()
    return tool in rollout.task.tools or tool in called


def _cut(text: str | None) -> str:
    text = (text or "").strip()
    return text if len(text) <= TEXT_CAP else text[:TEXT_CAP] + " …"


def _step_text(step: Any) -> str:
    from core.benchmarks.base import Call

    call = Call(step.tool or "?", dict(step.args)).render()
    return f"{call} -> error: {_cut(step.error)}" if step.error else f"{call} -> {_cut(step.output)}"


def record(rollout: Rollout, served: set[str], *, gold: bool) -> dict[str, Any]:
    """One reflective record (GEPA's Inputs / Generated Outputs / Feedback).

    With `gold` (optimization-split tasks only) a failure's feedback shows the
    expected calls, and the task id goes into `served` for the audit.
    """
    task, trace = rollout.task, rollout.trace
    calls = [_step_text(s) for s in trace.steps] if trace else []
    outputs = {
        "Tool calls": calls or ["(no tool call)"],
        "Final answer": _cut(trace.final_answer) if trace and trace.final_answer else "(none)",
    }
    if trace is not None and trace.success:
        feedback = "Correct: the agent completed the task."
    else:
        reason = (trace.score or {}).get("reason") if trace else None
        why = reason or (trace.error_class if trace else None) or "its calls did not match the expected ones"
        feedback = f"Wrong: the agent did not complete the task ({_cut(str(why))})."
        if trace is not None and trace.error:
            feedback += f" Agent error: {_cut(trace.error)}."
        if gold and task.gold:
            served.add(task.task_id)
            feedback += " The expected call(s): " + "; ".join(c.render() for c in task.gold) + "."
    return {"Inputs": {"Task": task.query}, "Generated Outputs": outputs, "Feedback": feedback}
