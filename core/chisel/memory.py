"""The three domain memories of the method (diagnosis, planning, generation).

- Diagnosis memory: failure patterns seen in this domain and the fields they
  implicated ("missing argument of QueryStock -> PRF, UE").
- Planning memory: which operations helped or harmed, per failure class
  ("Add PRF after missing_argument: effective, +0.33 val TS").
- Generation memory: editing experience and regressions ("Refine IPT of
  RecordHealthData broke 2 tasks that passed before").

A memory is domain-wide: what was learnt on one tool guides the next tool of
the same domain. Entries with the same key are merged (count, summed delta),
so a memory stays small and its statistics are what the planner reads. With
memory disabled (the paper's NoMem ablation) every write is a no-op and every
read is empty.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

from core.chisel.types import MemoryEntry

KINDS: tuple[str, ...] = ("diagnosis", "planning", "generation")
# How much an outcome against another failure class, or a regression on another tool, counts.
OTHER_CLASS_WEIGHT = 0.25
OTHER_TOOL_WEIGHT = 0.25


def _key(e: MemoryEntry) -> tuple:
    return (
        e.failure_class,
        e.op,
        tuple(e.fields),
        e.outcome,
        e.tool if e.outcome == "regression" else "",
        e.text if e.outcome in ("pattern-text", "note") else "",
    )


@dataclass
class DomainMemory:
    """Memories of one task domain; mutable inside the loop, snapshotted to the warehouse."""

    domain: str
    enabled: bool = True
    entries: dict[str, list[MemoryEntry]] = field(default_factory=lambda: {k: [] for k in KINDS})

    # ------------------------------------------------------------------ writes
    def add(self, kind: str, entry: MemoryEntry) -> None:
        if not self.enabled:
            return
        items = self.entries[kind]
        k = _key(entry)
        for i, e in enumerate(items):
            if _key(e) == k:
                items[i] = e.model_copy(
                    update={
                        "count": e.count + entry.count,
                        "delta": e.delta + entry.delta,
                        "iteration": entry.iteration,
                        "text": entry.text if entry.outcome not in ("pattern-text", "note") else e.text,
                    }
                )
                return
        items.append(entry)

    def extend(self, kind: str, entries: Iterable[MemoryEntry]) -> None:
        for e in entries:
            self.add(kind, e)

    # ------------------------------------------------------------------ reads
    def size(self) -> int:
        return sum(len(v) for v in self.entries.values())

    def op_stats(self, op: str, code: str, failure_class: str | None = None) -> dict[str, float]:
        """Outcome counts of an operation in this domain (optionally for one failure class)."""
        out = {"effective": 0.0, "harmful": 0.0, "neutral": 0.0, "delta": 0.0}
        for e in self.entries["planning"]:
            if e.op != op or code not in e.fields:
                continue
            if failure_class is not None and e.failure_class not in (failure_class, ""):
                continue
            if e.outcome in ("effective", "harmful", "neutral"):
                out[e.outcome] += e.count
                out["delta"] += e.delta
        return out

    def fields_for(self, failure_class: str) -> list[str]:
        """Fields that diagnoses of this class implicated before, most frequent first."""
        counts: dict[str, int] = {}
        for e in self.entries["diagnosis"]:
            if e.failure_class == failure_class:
                weight = 2 if e.outcome == "confirmed" else 1
                for f in e.fields:
                    counts[f] = counts.get(f, 0) + weight * e.count
        return sorted(counts, key=lambda f: (-counts[f], f))

    def regressions(self, op: str, code: str, tool: str | None = None) -> int:
        """Tasks an operation broke in this domain (only on `tool`'s tasks when given)."""
        return sum(
            e.count
            for e in self.entries["generation"]
            if e.outcome == "regression"
            and e.op == op
            and code in e.fields
            and (tool is None or e.tool == tool)
        )

    def evidence_for(
        self, op: str, code: str, classes: Iterable[str], tool: str
    ) -> tuple[dict[str, float], float]:
        """Outcome counts and regressions of an operation, weighted by how close they are to this case.

        Why: a memory entry says how an operation did against one failure
        class on one tool. "Refine IPT against wrong_value on ModifyRegistration:
        harmful" is weak evidence about Refine IPT against wrong_format on
        RecordHealthData, and counted at full weight it vetoed the one
        operation that case needed. Outcomes for the same failure classes
        count fully, other classes' at OTHER_CLASS_WEIGHT; regressions on the
        same tool fully, on other tools at OTHER_TOOL_WEIGHT.
        """
        classes = sorted({c for c in classes if c})
        everywhere = self.op_stats(op, code)
        if classes:
            same = {k: 0.0 for k in everywhere}
            for c in classes:
                for k, v in self.op_stats(op, code, c).items():
                    same[k] += v
            same = {k: min(v, everywhere[k]) if k != "delta" else v for k, v in same.items()}
        else:
            same = dict(everywhere)
        stats = {
            k: same[k] + OTHER_CLASS_WEIGHT * max(0.0, everywhere[k] - same[k]) if k != "delta" else same[k]
            for k in everywhere
        }
        own = self.regressions(op, code, tool)
        regressions = own + OTHER_TOOL_WEIGHT * (self.regressions(op, code) - own)
        return stats, regressions

    def render(self, kind: str, limit: int = 20) -> str:
        """Readable lines for prompts and the dashboard."""
        if not self.enabled:
            return "(memory disabled)"
        items = sorted(self.entries[kind], key=lambda e: (-e.count, e.text))[:limit]
        if not items:
            return "(empty)"
        return "\n".join(f"- {e.text} (seen {e.count}x)" for e in items)

    def snapshot(self, kind: str) -> list[dict[str, Any]]:
        return [e.model_dump(mode="json") for e in self.entries[kind]]

    @classmethod
    def restore(
        cls, domain: str, data: dict[str, list[dict[str, Any]]], enabled: bool = True
    ) -> DomainMemory:
        mem = cls(domain, enabled)
        for kind in KINDS:
            mem.entries[kind] = [MemoryEntry.model_validate(d) for d in data.get(kind, [])]
        return mem


def outcome_of(val_delta: float, fixed: int, regressions: int) -> str:
    """How an iteration went: effective, harmful or neutral (the TS change first, then fixed vs regressed tasks)."""
    if val_delta > 1e-9:
        return "effective"
    if val_delta < -1e-9:
        return "harmful"
    if fixed > regressions:
        return "effective"
    if regressions > fixed:
        return "harmful"
    return "neutral"
