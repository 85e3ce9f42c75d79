"""An episode as optimizers see it: what the agent did and observed, typed, without ground truth.

Traces are built from the warehouse's stored episodes and tool-call events.
They carry no gold calls: an optimizer that needs ground truth asks its
guarded accessor (`core.chisel.access.GroundTruth`), which audits every read.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from pydantic import BaseModel, ConfigDict, Field


class Step(BaseModel):
    """One attempted tool call: the tool, its arguments, and what came back (output or error)."""

    model_config = ConfigDict(frozen=True)

    tool: str | None = None
    args: dict[str, Any] = Field(default_factory=dict)
    output: str | None = None
    error: str | None = None


class Trace(BaseModel):
    """One stored episode as the optimizer sees it (no ground truth inside)."""

    model_config = ConfigDict(frozen=True)

    episode_id: str
    task_id: str
    domain: str
    query: str
    success: bool
    tool_correct: bool
    error_class: str | None = None
    error: str | None = None
    final_answer: str | None = None
    steps: tuple[Step, ...] = ()
    n_model_calls: int = 0
    tokens: int = 0  # the agent's prompt + completion tokens in this episode
    repeat: int = 0
    score: dict[str, Any] = Field(default_factory=dict)

    @property
    def attempted(self) -> list[Step]:
        """Every tool call the agent attempted, in order (unknown tools included)."""
        return list(self.steps)


def error_output_check(benchmark: Any) -> Callable[[str | None], bool]:
    """A predicate telling tool outputs that are really rejections.

    A benchmark may define `is_error_output(text) -> bool` (WorkBench does, for
    its validation messages returned as text); otherwise outputs starting with
    "Error" count as errors.
    """
    hook = getattr(benchmark, "is_error_output", None)
    if callable(hook):
        return hook

    def check(text: str | None) -> bool:
        return (text or "").strip().lower().startswith("error")

    return check


def mark_error_outputs(traces: Sequence[Trace], is_error: Callable[[str | None], bool]) -> list[Trace]:
    """Traces whose rejection outputs (per `is_error`) are moved to the step's error."""
    out = []
    for t in traces:
        steps = []
        changed = False
        for s in t.steps:
            if not s.error and s.output is not None and is_error(s.output):
                s = s.model_copy(update={"error": s.output, "output": None})
                changed = True
            steps.append(s)
        out.append(t.model_copy(update={"steps": tuple(steps)}) if changed else t)
    return out
