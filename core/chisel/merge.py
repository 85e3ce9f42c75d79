"""Merge per-trace plans into one plan for the tool (shared by both engines).

Different failed traces propose duplicated or conflicting operations. The
merged plan keeps one operation per field:

1. duplicates (same op, same field) are merged and their supporting diagnoses
   pooled;
2. each operation is made valid against the ORIGINAL doc (the anchor): Add on
   a field the original already has becomes Refine, Refine on a field it lacks
   becomes Add, Remove of an absent field is dropped;
3. conflicts (different operations on one field) are resolved by support (how
   many diagnoses back each), then by the planning memory (effective minus
   harmful outcomes in this domain), then by the original doc (keep a field
   the original has, add one it lacks).

Every decision is written to `Plan.notes`, so a reviewer sees why an
operation is or is not in the plan.
"""

from __future__ import annotations

from collections.abc import Sequence

from core.chisel.memory import DomainMemory
from core.chisel.types import Operation, Plan
from core.docs import ToolDoc
from core.fields import BY_CODE, CODES, Scope


def _all_entries_have(doc: ToolDoc, code: str) -> bool:
    scope = BY_CODE[code].scope
    if scope is Scope.PARAMETER and code != "IPN":
        return bool(doc.parameters) and all(p.has(code) for p in doc.parameters)
    if scope is Scope.RETURN:
        return bool(doc.returns) and all(r.has(code) for r in doc.returns)
    return doc.has(code)


def normalise(op: Operation, original: ToolDoc) -> tuple[Operation | None, str | None]:
    """The operation made valid on the original doc, and a note when it changed."""
    code = op.field
    present = original.has(code)
    if op.op == "Remove":
        if not present:
            return None, f"dropped Remove {code}: the original doc has no {code}"
        return op, None
    if op.op == "Add" and _all_entries_have(original, code):
        return op.model_copy(update={"op": "Refine"}), f"Add {code} -> Refine {code}: the original doc has it"
    if op.op == "Refine" and not present:
        return op.model_copy(update={"op": "Add"}), f"Refine {code} -> Add {code}: the original doc lacks it"
    if BY_CODE[code].scope is Scope.PARAMETER and code != "IPN" and not original.parameters:
        return None, f"dropped {op.op} {code}: the original doc lists no parameters"
    return op, None


def _memory_score(memory: DomainMemory, op: Operation) -> float:
    s = memory.op_stats(op.op, op.field)
    return s["effective"] - s["harmful"]


def merge_plans(
    tool: str,
    plans: Sequence[Plan],
    original: ToolDoc,
    memory: DomainMemory,
) -> Plan:
    """One operation per field, valid on the original doc, with the reasons kept."""
    notes: list[str] = []
    pooled: dict[tuple[str, str], Operation] = {}
    for plan in plans:
        for op in plan.operations:
            fixed, note = normalise(op, original)
            if note and note not in notes:
                notes.append(note)
            if fixed is None:
                continue
            key = fixed.key()
            if key in pooled:
                have = pooled[key]
                reasons = (
                    have.reason
                    if fixed.reason in have.reason
                    else f"{have.reason}; {fixed.reason}".strip("; ")
                )
                pooled[key] = have.model_copy(
                    update={
                        "support": sorted(set(have.support) | set(fixed.support)),
                        "reason": reasons[:400],
                        "content": have.content if have.content is not None else fixed.content,
                    }
                )
            else:
                pooled[key] = fixed
    by_field: dict[str, list[Operation]] = {}
    for op in pooled.values():
        by_field.setdefault(op.field, []).append(op)
    chosen: list[Operation] = []
    for code in CODES:
        ops = by_field.get(code)
        if not ops:
            continue
        if len(ops) > 1:
            keep_pref = "Refine" if original.has(code) else "Add"
            ops.sort(
                key=lambda o: (
                    -len(o.support),
                    -_memory_score(memory, o),
                    0 if o.op == keep_pref else 1,
                    o.op,
                )
            )
            losers = ", ".join(f"{o.op} {code} ({len(o.support)} traces)" for o in ops[1:])
            notes.append(f"conflict on {code}: kept {ops[0].op} ({len(ops[0].support)} traces) over {losers}")
        chosen.append(ops[0])
    return Plan(tool=tool, scope="merged", operations=chosen, notes=notes)
