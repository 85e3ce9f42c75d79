"""What an optimization run returns, and the selection rule (the paper's §III-E).

Kept apart from the loop so the dashboard and reports can build the same
objects from stored rows (`resumed_tool`) without running anything.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from core.chisel.memory import DomainMemory
from core.chisel.profile import ToolTasks
from core.chisel.types import Evaluation, Trace
from core.docs import DocSet, ToolDoc


@dataclass
class ToolResult:
    tool: str
    domain: str
    n_opt: int
    n_val: int
    base_val_ts: float
    base_opt_ts: float
    best_val_ts: float
    original: ToolDoc
    selected: ToolDoc
    iterations: int
    accepted: int
    minutes: float
    optimizer_tokens: int
    agent_tokens: int
    reason: str
    resumed: bool = False

    @property
    def changed(self) -> bool:
        return self.selected.doc_id != self.original.doc_id


@dataclass
class OptimizeResult:
    run_id: str
    docset: DocSet
    docset_id: str
    split_id: str
    tools: list[ToolResult] = field(default_factory=list)
    minutes: float = 0.0
    profile_minutes: float = 0.0
    cancelled: bool = False


def success_rate(traces: Sequence[Trace]) -> float:
    return sum(t.success for t in traces) / len(traces) if traces else 0.0


def passing(traces: Sequence[Trace]) -> dict[str, bool]:
    """task -> passes (success in at least half of its repeats)."""
    rates: dict[str, list[bool]] = {}
    for t in traces:
        rates.setdefault(t.task_id, []).append(t.success)
    return {k: sum(v) * 2 >= len(v) for k, v in rates.items()}


SELECTIONS = ("evidence", "paper")


def select(
    d0: ToolDoc,
    base_val: float,
    candidates: list[tuple[ToolDoc, Evaluation, int, int]],
    rule: str = "evidence",
) -> tuple[ToolDoc, float, str]:
    """Best accepted by validation TS, ties to the shortest doc (then the earliest); else the original.

    `candidates` holds (doc, evaluation, tokens, iteration).

    `rule="paper"` is §III-E as written. It has a blind spot on small
    validation sets: when every candidate merely *ties* the original (TS⁰ = 0
    with one or two validation tasks is common with weak models), the shortest
    tie replaces the original without any evidence that it is better.
    `rule="evidence"` (the default) breaks validation ties by the re-run of the
    optimization set before length, and keeps the original when the best
    candidate neither beats it on validation nor on the optimization set —
    an accepted candidate still has to show *some* improvement to be selected.
    """
    if rule not in SELECTIONS:
        raise ValueError(f"selection rule must be one of {SELECTIONS}, not {rule!r}")
    accepted = [c for c in candidates if c[1].accepted]
    if not accepted:
        why = (
            "no candidate reached the original validation TS" if candidates else "no candidate was generated"
        )
        return d0, base_val, f"original kept: {why}"

    def rank(c: tuple[ToolDoc, Evaluation, int, int]) -> tuple[float, ...]:
        _, ev, tokens, iteration = c
        tie_break = () if rule == "paper" else (-ev.opt_ts,)
        return (-ev.val_ts, *tie_break, tokens, iteration)

    doc, ev, tokens, n = min(accepted, key=rank)
    if rule == "evidence" and ev.val_ts <= base_val and ev.opt_ts <= ev.base_opt_ts:
        return (
            d0,
            base_val,
            f"original kept: the best accepted candidate (iteration {n}) ties the original on validation "
            f"({ev.val_ts:.2f}) and does not improve the optimization set ({ev.opt_ts:.2f} vs {ev.base_opt_ts:.2f})",
        )
    return (
        doc,
        ev.val_ts,
        f"iteration {n}: best accepted val TS {ev.val_ts:.2f} (original {base_val:.2f}), "
        f"opt TS {ev.opt_ts:.2f} (original {ev.base_opt_ts:.2f}), {tokens} tokens",
    )


def resumed_tool(
    warehouse,
    row: dict[str, Any],
    tt: ToolTasks,
    d0: ToolDoc,
    base_val: float,
    base_opt: float,
    memory: DomainMemory,
) -> ToolResult:
    """A tool finished earlier in this run, rebuilt from its stored summary (its memory restored)."""
    detail = row.get("detail") or {}
    if detail.get("memory") is not None and memory.enabled:
        memory.entries = DomainMemory.restore(memory.domain, detail["memory"], True).entries
    return ToolResult(
        tt.tool,
        tt.domain,
        len(tt.opt),
        len(tt.val),
        base_val,
        base_opt,
        float(row["best_val_ts"]),
        d0,
        warehouse.load_doc(row["selected_doc_id"]),
        int(row["iterations"]),
        int(row["accepted"]),
        float(row["minutes"]),
        int(row["optimizer_tokens"]),
        int(row["agent_tokens"]),
        detail.get("reason", ""),
        True,
    )
