"""What an optimization run returns.

Kept apart from the loop so the dashboard and reports can build the same
objects from stored rows (`resumed_tool`) without running anything. The
decisions (acceptance, selection) are in `core.chisel.decisions`.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from core.chisel.memory import DomainMemory
from core.chisel.profile import ToolTasks
from core.docs import DocSet, ToolDoc


@dataclass(kw_only=True)
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


def _stored(row: dict[str, Any], key: str, default: float) -> float:
    value = row.get(key)
    return default if value is None or value != value else float(value)  # NaN: not stored


def resumed_tool(
    warehouse,
    row: dict[str, Any],
    tt: ToolTasks,
    d0: ToolDoc,
    base_val: float,
    base_opt: float,
    memory: DomainMemory,
) -> ToolResult:
    """A tool finished earlier in this run, rebuilt from its stored summary (its memory restored).

    Its TS⁰ is the stored one where there is one: judged in context, that is the outcome beside the
    docs selected before it, which the caller's `base_val` / `base_opt` (the original docs') are not.
    """
    detail = row.get("detail") or {}
    if detail.get("memory") is not None and memory.enabled:
        memory.entries = DomainMemory.restore(memory.domain, detail["memory"], True).entries
    return ToolResult(
        tool=tt.tool,
        domain=tt.domain,
        n_opt=len(tt.opt),
        n_val=len(tt.val),
        base_val_ts=_stored(row, "base_val_ts", base_val),
        base_opt_ts=_stored(row, "base_opt_ts", base_opt),
        best_val_ts=float(row["best_val_ts"]),
        original=d0,
        selected=warehouse.load_doc(row["selected_doc_id"]),
        iterations=int(row["iterations"]),
        accepted=int(row["accepted"]),
        minutes=float(row["minutes"]),
        optimizer_tokens=int(row["optimizer_tokens"]),
        agent_tokens=int(row["agent_tokens"]),
        reason=detail.get("reason", ""),
        resumed=True,
    )
