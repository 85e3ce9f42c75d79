"""The records the optimizer passes between its stages (and stores in the warehouse).

Both engines produce and consume exactly these shapes, which is what makes
them interchangeable: a diagnosis is ⟨evidence, behaviour mismatch, implicated
fields⟩ (the paper's r_f), an operation is ⟨op, field, reason⟩ (the paper's
⟨o_f, h_f, g_f⟩), and a plan is a list of operations with the diagnoses that
support each one. They are pydantic models so the LLM engine can validate
model output against the very same classes.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator

from core.evaluation.traces import Step, Trace  # noqa: F401 - the engines' input, re-exported
from core.fields import CODES

OpKind = Literal["Add", "Remove", "Refine"]
OPS: tuple[str, ...] = ("Add", "Remove", "Refine")


def _norm_fields(values: Any) -> list[str]:
    """Field codes upper-cased, unknown ones dropped, order kept, duplicates removed."""
    out: list[str] = []
    for v in values or []:
        code = str(v).strip().upper()
        if code in CODES and code not in out:
            out.append(code)
    return out


class Diagnosis(BaseModel):
    """Why one failed trace failed, down to the documentation fields involved."""

    model_config = ConfigDict(frozen=True)

    episode_id: str
    task_id: str
    tool: str
    failure_class: str
    doc_related: bool
    evidence: str
    mismatch: str
    fields: list[str] = Field(default_factory=list)
    detail: dict[str, Any] = Field(default_factory=dict)

    @field_validator("fields", mode="before")
    @classmethod
    def _fields(cls, v: Any) -> list[str]:
        return _norm_fields(v)


class Operation(BaseModel):
    """One field operation: Add | Remove | Refine a field, with the reason and its support."""

    model_config = ConfigDict(frozen=True)

    op: OpKind
    field: str
    reason: str = ""
    support: list[str] = Field(default_factory=list)  # episode ids of the diagnoses behind it
    content: Any = None  # engine-proposed content (evidence synthesis or an LLM draft)

    @field_validator("op", mode="before")
    @classmethod
    def _op(cls, v: Any) -> str:
        text = str(v).strip().capitalize()
        if text not in OPS:
            raise ValueError(f"operation must be one of {OPS}, got {v!r}")
        return text

    @field_validator("field", mode="before")
    @classmethod
    def _field(cls, v: Any) -> str:
        code = str(v).strip().upper()
        if code not in CODES:
            raise ValueError(f"unknown field {v!r}; expected one of {', '.join(CODES)}")
        return code

    def key(self) -> tuple[str, str]:
        return (self.op, self.field)


class Plan(BaseModel):
    """Operations for one tool at one iteration (per trace, or merged)."""

    model_config = ConfigDict(frozen=True)

    tool: str
    scope: Literal["trace", "merged"]
    operations: list[Operation] = Field(default_factory=list)
    diagnosis_episode: str | None = None  # per-trace plans: the diagnosed episode
    notes: list[str] = Field(default_factory=list)  # merge decisions (conflicts resolved, ops dropped)
    carried: list[str] = Field(default_factory=list)  # "Op FIELD" kept from an earlier iteration's plan

    def fields(self) -> list[str]:
        return [o.field for o in self.operations]


class MemoryEntry(BaseModel):
    """One line of a domain memory, with the evidence that it came from."""

    model_config = ConfigDict(frozen=True)

    text: str
    tool: str = ""
    iteration: int = 0
    failure_class: str = ""
    fields: list[str] = Field(default_factory=list)
    op: str = ""
    outcome: str = ""  # effective | harmful | neutral | regression | pattern | constraint
    delta: float = 0.0
    count: int = 1


class Evaluation(BaseModel):
    """Regression-aware evaluation of one candidate (only its tool's doc swapped)."""

    model_config = ConfigDict(frozen=True)

    val_ts: float
    base_val_ts: float
    opt_ts: float
    base_opt_ts: float
    val_run: str
    opt_run: str
    new_failures: list[str] = Field(default_factory=list)  # episode ids failing on opt now
    regressions: list[str] = Field(default_factory=list)  # task ids passed with d0, failing now
    fixed: list[str] = Field(default_factory=list)  # task ids failed with d0, passing now
    accepted: bool = False
    # Mean call-level partial credit (core.evaluation.batch.credit): breaks ties between equal TS.
    val_partial: float = 0.0
    base_val_partial: float = 0.0
    opt_partial: float = 0.0
    base_opt_partial: float = 0.0
    # Episodes behind val_ts and opt_ts (the original's profile covers the same tasks and samples).
    n_val: int = 0
    n_opt: int = 0

    def _pooled(self, val: float, opt: float) -> float:
        if self.n_val + self.n_opt == 0:
            return (val + opt) / 2
        return (val * self.n_val + opt * self.n_opt) / (self.n_val + self.n_opt)

    @property
    def combined_ts(self) -> float:
        """TS over every episode of the evaluation (validation and the optimization re-run)."""
        return self._pooled(self.val_ts, self.opt_ts)

    @property
    def base_combined_ts(self) -> float:
        return self._pooled(self.base_val_ts, self.base_opt_ts)

    @property
    def combined_partial(self) -> float:
        return self._pooled(self.val_partial, self.opt_partial)

    @property
    def base_combined_partial(self) -> float:
        return self._pooled(self.base_val_partial, self.base_opt_partial)

    @property
    def delta(self) -> float:
        """The candidate's TS change over all its evaluated episodes: what memory credits its operations with."""
        return self.combined_ts - self.base_combined_ts


def jsonable(obj: Any) -> Any:
    """pydantic models and mappings as plain JSON-ready data."""
    if isinstance(obj, BaseModel):
        return obj.model_dump(mode="json")
    if isinstance(obj, Mapping):
        return {k: jsonable(v) for k, v in obj.items()}
    if isinstance(obj, list | tuple):
        return [jsonable(v) for v in obj]
    return obj
