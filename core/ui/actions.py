"""The dashboard's writes: review decisions, edits as new doc versions, reviewed doc sets, exports.

Each is a small typed function over the warehouse's write API, so pages never
write SQL and the audit trail is append-only: an approval, a rejection, a label
or an edit is a new `approvals` row; an edit is a new doc version whose parent
is the version it was made from — nothing is overwritten.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any, Literal

from core.docs import DocSet, ToolDoc
from core.warehouse import Warehouse, content_hash
from core.warehouse.records import now
from core.warehouse.rows import ApprovalRow, DiagnosisVerdictRow

Action = Literal["approve", "reject", "label", "edit"]
Verdict = Literal["agree", "disagree", "note"]
IMPLIED_LABEL = {"approve": "approved", "reject": "rejected", "edit": "edited"}


def record_review(
    wh: Warehouse,
    doc_id: str,
    tool: str,
    action: Action,
    reviewer: str,
    reason: str = "",
    label: str | None = None,
    run_id: str | None = None,
) -> str:
    """Append one row to the audit trail; returns its id."""
    if action not in ("approve", "reject", "label", "edit"):
        raise ValueError(f"unknown review action {action!r}")
    if action == "label" and not (label or "").strip():
        raise ValueError("a label action needs a label")
    ts = now()
    approval_id = content_hash("approval", doc_id, action, label, reviewer, ts.isoformat())
    wh.record(
        [
            ApprovalRow(
                approval_id=approval_id,
                doc_id=doc_id,
                tool=tool,
                action=action,
                label=(label or IMPLIED_LABEL.get(action) or "").strip(),
                reviewer=reviewer.strip() or "analyst",
                reason=reason.strip(),
                run_id=run_id,
                created_at=ts,
            )
        ]
    )
    return approval_id


def record_verdict(
    wh: Warehouse, diagnosis_id: str, run_id: str, tool: str, verdict: Verdict, reviewer: str, note: str = ""
) -> str:
    """An analyst's verdict on a diagnosis, as a new row (the diagnosis itself never changes); its id."""
    if verdict not in ("agree", "disagree", "note"):
        raise ValueError(f"unknown verdict {verdict!r}")
    if verdict == "note" and not note.strip():
        raise ValueError("a note needs text")
    ts = now()
    verdict_id = content_hash("verdict", diagnosis_id, verdict, note, reviewer, ts.isoformat())
    wh.record(
        [
            DiagnosisVerdictRow(
                verdict_id=verdict_id,
                diagnosis_id=diagnosis_id,
                run_id=run_id,
                tool=tool,
                verdict=verdict,
                note=note.strip(),
                reviewer=reviewer.strip() or "analyst",
                created_at=ts,
            )
        ]
    )
    return verdict_id


def save_edit(wh: Warehouse, before: ToolDoc, after: ToolDoc, reviewer: str, reason: str = "") -> str:
    """Store an edited doc as a new version (parent = `before`) and log the edit; returns its id."""
    if after.tool != before.tool:
        raise ValueError("an edit cannot change which tool a doc documents")
    if after.doc_id == before.doc_id:
        return before.doc_id
    wh.register_docs([after], origin="edit", parents={after.tool: before.doc_id})
    record_review(wh, after.doc_id, after.tool, "edit", reviewer, reason or f"edited from {before.doc_id}")
    return after.doc_id


def reviewed_docset(wh: Warehouse, base: DocSet, approved: Mapping[str, str], name: str) -> DocSet:
    """The base set with each tool's approved version swapped in (tools without one keep the base doc)."""
    docs = [wh.load_doc(approved[t]) if approved.get(t) else d for t, d in base.items()]
    return DocSet(docs, name=name)


def register_reviewed(
    wh: Warehouse, docset: DocSet, benchmark: str, base_docset_id: str, reviewer: str
) -> str:
    return wh.register_docset(
        docset,
        benchmark=benchmark,
        origin="review",
        name=docset.name,
        meta={"base": base_docset_id, "reviewer": reviewer},
    )


# ---------------------------------------------------------------------- export


def export_json(docset: DocSet) -> str:
    return json.dumps(docset.to_json(), indent=2, ensure_ascii=False)


def _renderers() -> tuple[Any, Any] | None:
    try:
        from core.docs.render import render_mcp, render_openai
    except ImportError:
        return None
    return render_openai, render_mcp


def export_openai(docset: DocSet) -> str | None:
    r = _renderers()
    if r is None:
        return None
    return json.dumps([r[0](d) for d in docset.values()], indent=2, ensure_ascii=False)


def export_mcp(docset: DocSet) -> str | None:
    r = _renderers()
    if r is None:
        return None
    return json.dumps({"tools": [r[1](d) for d in docset.values()]}, indent=2, ensure_ascii=False)


def render_text(doc: ToolDoc) -> str:
    """Prompt text of a doc (the renderer when available, else a plain field listing)."""
    try:
        from core.docs.render import render_text as render
    except ImportError:
        render = None
    if render is not None:
        try:
            return render(doc)
        except Exception:  # noqa: BLE001 - a doc the renderer rejects is still shown, field by field
            pass
    lines = [f"{code}: {doc.get(code)}" for code in doc.present()]
    return "\n".join(lines)
