"""Typed rows of the warehouse's derived tables, written with `Warehouse.record(rows)`.

Why: producers used to hand `insert("table", {...})` their own column lists, so
a schema change had to be found and repeated at every call site, and a typo in
a column name surfaced only at run time. Each table has one dataclass here
whose fields are its columns (a test checks them against the migrated
schema); JSON columns take Python values and are encoded in one place.
Rows are append-only: a row whose key exists is kept as it is.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field, fields
from datetime import datetime
from typing import Any, ClassVar

from core.warehouse.records import now


def _json(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False, default=str)


@dataclass(frozen=True, kw_only=True)
class Row:
    """Base of every typed row: `TABLE` names the table, `JSON` its JSON columns."""

    TABLE: ClassVar[str] = ""
    JSON: ClassVar[tuple[str, ...]] = ()
    LISTS: ClassVar[tuple[str, ...]] = ()  # VARCHAR[] columns
    KEEP_DUPLICATES: ClassVar[bool] = False  # logs without a key: every row is new

    def values(self) -> dict[str, Any]:
        out = {}
        for f in fields(self):
            v = getattr(self, f.name)
            out[f.name] = _json(v) if f.name in self.JSON else list(v) if f.name in self.LISTS else v
        return out


@dataclass(frozen=True, kw_only=True)
class DiagnosisRow(Row):
    TABLE: ClassVar[str] = "diagnoses"
    JSON: ClassVar[tuple[str, ...]] = ("detail",)
    LISTS: ClassVar[tuple[str, ...]] = ("fields",)
    diagnosis_id: str
    run_id: str
    tool: str
    iteration: int
    episode_id: str
    doc_id: str
    engine: str
    failure_class: str
    doc_related: bool
    evidence: str
    mismatch: str
    fields: tuple[str, ...] = ()
    detail: dict[str, Any] = field(default_factory=dict)
    created_at: datetime = field(default_factory=now)


@dataclass(frozen=True, kw_only=True)
class PlanRow(Row):
    TABLE: ClassVar[str] = "plans"
    JSON: ClassVar[tuple[str, ...]] = ("operations", "source_episodes", "detail")
    plan_id: str
    run_id: str
    tool: str
    iteration: int
    scope: str  # trace | merged
    diagnosis_id: str | None
    operations: list[Any]
    source_episodes: list[str]
    detail: dict[str, Any] = field(default_factory=dict)
    created_at: datetime = field(default_factory=now)


@dataclass(frozen=True, kw_only=True)
class CandidateRow(Row):
    TABLE: ClassVar[str] = "candidates"
    JSON: ClassVar[tuple[str, ...]] = ("regressions", "new_failures", "source_episodes", "detail")
    candidate_id: str
    run_id: str
    tool: str
    iteration: int
    doc_id: str
    parent_doc_id: str
    plan_id: str
    val_ts: float
    base_val_ts: float
    opt_ts: float
    accepted: bool
    regressions: list[str]
    new_failures: list[str]
    tokens: int
    val_run: str
    opt_run: str
    engine: str
    source_episodes: list[str]
    detail: dict[str, Any] = field(default_factory=dict)
    created_at: datetime = field(default_factory=now)


@dataclass(frozen=True, kw_only=True)
class MemoryRow(Row):
    TABLE: ClassVar[str] = "memories"
    JSON: ClassVar[tuple[str, ...]] = ("content",)
    memory_id: str
    run_id: str
    domain: str
    kind: str
    tool: str
    iteration: int
    content: Any
    created_at: datetime = field(default_factory=now)


@dataclass(frozen=True, kw_only=True)
class SelectionRow(Row):
    TABLE: ClassVar[str] = "selections"
    run_id: str
    tool: str
    doc_id: str
    reason: str
    created_at: datetime = field(default_factory=now)


@dataclass(frozen=True, kw_only=True)
class ChiselToolRow(Row):
    """One optimized tool's summary: the paper's Table III columns."""

    TABLE: ClassVar[str] = "chisel_tools"
    JSON: ClassVar[tuple[str, ...]] = ("detail",)
    run_id: str
    tool: str
    domain: str
    n_opt: int
    n_val: int
    base_val_ts: float
    base_opt_ts: float
    best_val_ts: float
    original_doc_id: str
    selected_doc_id: str
    iterations: int
    accepted: int
    minutes: float
    optimizer_tokens: int
    agent_tokens: int
    doc_tokens_before: int | None
    doc_tokens_after: int | None
    detail: dict[str, Any] = field(default_factory=dict)
    created_at: datetime = field(default_factory=now)


@dataclass(frozen=True, kw_only=True)
class GroundTruthAccessRow(Row):
    TABLE: ClassVar[str] = "chisel_gt_access"
    run_id: str
    task_id: str
    part: str | None
    purpose: str
    ts: datetime = field(default_factory=now)


@dataclass(frozen=True, kw_only=True)
class FieldImpactRow(Row):
    TABLE: ClassVar[str] = "field_impact"
    JSON: ClassVar[tuple[str, ...]] = ("detail",)
    KEEP_DUPLICATES: ClassVar[bool] = True  # append-only log: the latest row per study and field is current
    study_id: str
    benchmark: str
    domain: str
    model: str
    paradigm: str
    field: str
    operation: str
    n_tools: int
    base_ts: float | None
    variant_ts: float | None
    delta_pp: float | None
    ci_low: float | None
    ci_high: float | None
    repeats: int
    docset_id: str | None
    run_id: str
    delta_tc_pp: float | None
    detail: dict[str, Any]
    created_at: datetime = field(default_factory=now)


@dataclass(frozen=True, kw_only=True)
class EvaluationRow(Row):
    TABLE: ClassVar[str] = "evaluations"
    JSON: ClassVar[tuple[str, ...]] = ("detail",)
    eval_id: str
    run_id: str
    docset_id: str
    split: str
    scope: str
    key: str
    n: int
    ts_mean: float
    tc_mean: float
    detail: dict[str, Any] = field(default_factory=dict)
    created_at: datetime = field(default_factory=now)


@dataclass(frozen=True, kw_only=True)
class ApprovalRow(Row):
    TABLE: ClassVar[str] = "approvals"
    KEEP_DUPLICATES: ClassVar[bool] = True  # an audit trail: a repeated id is an error, never dropped
    approval_id: str
    doc_id: str
    tool: str
    action: str
    label: str
    reviewer: str
    reason: str
    run_id: str | None
    created_at: datetime = field(default_factory=now)


@dataclass(frozen=True, kw_only=True)
class DiagnosisVerdictRow(Row):
    """An analyst's agree / disagree / note on one diagnosis (the latest per diagnosis counts)."""

    TABLE: ClassVar[str] = "diagnosis_verdicts"
    KEEP_DUPLICATES: ClassVar[bool] = True  # a log of verdicts: each one is its own row
    verdict_id: str
    diagnosis_id: str
    run_id: str
    tool: str
    verdict: str
    note: str
    reviewer: str
    created_at: datetime = field(default_factory=now)


@dataclass(frozen=True, kw_only=True)
class ToolRow(Row):
    """A benchmark's tool, its home domain and its original doc (what the dashboard groups by)."""

    TABLE: ClassVar[str] = "tools"
    benchmark: str
    tool: str
    domain: str | None
    original_doc_id: str


@dataclass(frozen=True, kw_only=True)
class SplitRow(Row):
    TABLE: ClassVar[str] = "splits"
    JSON: ClassVar[tuple[str, ...]] = ("ratios",)
    split_id: str
    benchmark: str
    seed: int
    ratios: list[int]
    created_at: datetime = field(default_factory=now)


@dataclass(frozen=True, kw_only=True)
class SplitAssignmentRow(Row):
    TABLE: ClassVar[str] = "split_assignments"
    split_id: str
    task_id: str
    part: str


@dataclass(frozen=True, kw_only=True)
class JobRow(Row):
    TABLE: ClassVar[str] = "jobs"
    JSON: ClassVar[tuple[str, ...]] = ("params",)
    job_id: str
    kind: str
    params: dict[str, Any]
    pid: int | None
    created_at: datetime = field(default_factory=now)


@dataclass(frozen=True, kw_only=True)
class JobEventRow(Row):
    TABLE: ClassVar[str] = "job_events"
    KEEP_DUPLICATES: ClassVar[bool] = True  # a log without a key: every state change is a row
    job_id: str
    status: str
    done: int | None
    total: int | None
    message: str
    ts: datetime = field(default_factory=now)


@dataclass(frozen=True, kw_only=True)
class SopRow(Row):
    """One EvoSOP SOP version (core/sop): schema, code, lineage."""

    TABLE: ClassVar[str] = "sops"
    JSON: ClassVar[tuple[str, ...]] = ("doc", "detail")
    LISTS: ClassVar[tuple[str, ...]] = ("uses", "parents", "sources")
    sop_id: str
    name: str
    tool: str
    doc: dict[str, Any]
    code: str
    uses: tuple[str, ...]
    origin: str
    parents: tuple[str, ...] = ()
    sources: tuple[str, ...] = ()
    pattern: str = ""
    detail: dict[str, Any] = field(default_factory=dict)
    created_at: datetime = field(default_factory=now)


@dataclass(frozen=True, kw_only=True)
class SopEpochRow(Row):
    TABLE: ClassVar[str] = "sop_epochs"
    JSON: ClassVar[tuple[str, ...]] = ("detail",)
    LISTS: ClassVar[tuple[str, ...]] = ("evaluated", "kept", "added", "merged", "pruned")
    run_id: str
    epoch: int
    toolset_id: str
    evaluated: tuple[str, ...]
    kept: tuple[str, ...]
    added: tuple[str, ...]
    merged: tuple[str, ...]
    pruned: tuple[str, ...]
    eval_run: str
    n_episodes: int
    ts: float
    tc: float
    rounds: float
    tokens: float
    sop_calls: int
    detail: dict[str, Any] = field(default_factory=dict)
    created_at: datetime = field(default_factory=now)


@dataclass(frozen=True, kw_only=True)
class SopUsageRow(Row):
    TABLE: ClassVar[str] = "sop_usage"
    JSON: ClassVar[tuple[str, ...]] = ("detail",)
    run_id: str
    epoch: int
    sop_id: str
    invocations: int
    successes: int
    optimal: int
    partial: int
    neutral: int
    negative: int
    defects: int
    episodes: int
    tasks: int
    detail: dict[str, Any] = field(default_factory=dict)
    created_at: datetime = field(default_factory=now)


@dataclass(frozen=True, kw_only=True)
class SopReviewRow(Row):
    TABLE: ClassVar[str] = "sop_reviews"
    JSON: ClassVar[tuple[str, ...]] = ("detail",)
    LISTS: ClassVar[tuple[str, ...]] = ("labels",)
    review_id: str
    run_id: str
    epoch: int
    sop_id: str
    episode_id: str
    task_id: str
    seq: int
    labels: tuple[str, ...]
    justification: str
    engine: str
    detail: dict[str, Any] = field(default_factory=dict)
    created_at: datetime = field(default_factory=now)


@dataclass(frozen=True, kw_only=True)
class SopDecisionRow(Row):
    TABLE: ClassVar[str] = "sop_decisions"
    JSON: ClassVar[tuple[str, ...]] = ("detail",)
    run_id: str
    epoch: int
    sop_id: str
    action: str  # added | merged | kept | pruned | rejected
    reason: str
    detail: dict[str, Any] = field(default_factory=dict)
    created_at: datetime = field(default_factory=now)


@dataclass(frozen=True, kw_only=True)
class SopResultRow(Row):
    TABLE: ClassVar[str] = "sop_results"
    JSON: ClassVar[tuple[str, ...]] = ("detail",)
    run_id: str
    benchmark: str
    variant: str
    engine: str
    model: str
    seed: int
    best_epoch: int
    toolset_id: str
    n_sops: int
    train_ts: float
    base_train_ts: float
    test_ts: float | None
    base_test_ts: float | None
    test_rounds: float | None
    base_test_rounds: float | None
    n_test: int
    test_run: str | None
    base_test_run: str | None
    detail: dict[str, Any] = field(default_factory=dict)
    created_at: datetime = field(default_factory=now)


ROW_TYPES: tuple[type[Row], ...] = (
    SplitRow,
    SplitAssignmentRow,
    JobRow,
    JobEventRow,
    ToolRow,
    DiagnosisRow,
    PlanRow,
    CandidateRow,
    MemoryRow,
    SelectionRow,
    ChiselToolRow,
    GroundTruthAccessRow,
    FieldImpactRow,
    EvaluationRow,
    ApprovalRow,
    DiagnosisVerdictRow,
    SopRow,
    SopEpochRow,
    SopUsageRow,
    SopReviewRow,
    SopDecisionRow,
    SopResultRow,
)
