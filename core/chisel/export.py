"""Export a doc set as our JSON schema, OpenAI tool schemas or MCP tool definitions.

`resolve_export(warehouse, ref)` accepts what users have at hand: an optimize
run id (its optimized doc set), any doc-set id, or a candidate — by the id the
optimize log prints (the candidate doc's id) or its candidate id — as the doc
set it was evaluated in (the original docs with that one tool's candidate), so
a candidate stays exportable when the optimizer kept the original.
"""

from __future__ import annotations

import json
from typing import Any

from core.docs import DocSet
from core.docs.render import render_mcp, render_openai

FORMATS: tuple[str, ...] = ("json", "openai", "mcp")


def export_docset(docset: DocSet, fmt: str = "json", meta: dict[str, Any] | None = None) -> Any:
    """JSON-ready data for one format."""
    if fmt == "json":
        data = docset.to_json()
        if meta:
            data["meta"] = meta
        return data
    if fmt == "openai":
        return [render_openai(d) for d in docset.values()]
    if fmt == "mcp":
        return {"tools": [render_mcp(d) for d in docset.values()]}
    raise ValueError(f"unknown export format {fmt!r}; expected one of {', '.join(FORMATS)}")


def export_text(docset: DocSet, fmt: str = "json", meta: dict[str, Any] | None = None) -> str:
    return json.dumps(export_docset(docset, fmt, meta), ensure_ascii=False, indent=2, default=str)


def resolve_export(warehouse, ref: str) -> tuple[DocSet, dict[str, Any]]:
    """The doc set behind a run id or doc-set id, with its stored metadata."""
    from core.chisel.lineage import resolve_docset

    rows = warehouse.rows("SELECT docset_id FROM doc_sets WHERE docset_id = ?", [ref])
    docset = warehouse.load_docset(ref) if rows else resolve_docset(warehouse, ref)
    if docset is None:
        found = _candidate(warehouse, ref)
        if found is not None:
            return found
        raise KeyError(
            f"{ref!r} is neither a doc-set id, an optimize run id nor a candidate (doc) id in {warehouse.path}"
        )
    status = warehouse.rows(
        "SELECT detail FROM run_status WHERE status IN ('finished', 'cancelled') "
        "AND (run_id = ? OR json_extract_string(detail, '$.docset_id') = ?) ORDER BY ts DESC LIMIT 1",
        [ref, docset.docset_id],
    )
    if status and status[0][0]:
        return docset, {"origin": "docschisel", **json.loads(status[0][0])}
    meta_rows = warehouse.rows(
        "SELECT origin, benchmark, meta FROM doc_sets WHERE docset_id = ?", [docset.docset_id]
    )
    meta: dict[str, Any] = {}
    if meta_rows:
        origin, bench, raw = meta_rows[0]
        meta = {"origin": origin, "benchmark": bench, **(json.loads(raw) if raw else {})}
    return docset, meta


def _candidate(warehouse, ref: str) -> tuple[DocSet, dict[str, Any]] | None:
    """A candidate by candidate id or doc id: the doc set it was evaluated in, or, for a doc version
    no stored doc set holds, a doc set of that one doc."""
    rows = warehouse.rows(
        "SELECT candidate_id, doc_id, parent_doc_id, run_id, tool, iteration FROM candidates "
        "WHERE candidate_id = ? OR doc_id = ? ORDER BY created_at LIMIT 1",
        [ref, ref],
    )
    doc_id = rows[0][1] if rows else ref
    doc = warehouse.rows("SELECT tool, parent_doc_id FROM doc_versions WHERE doc_id = ?", [doc_id])
    if not doc:
        return None
    tool, parent = doc[0]
    meta: dict[str, Any] = {"candidate_doc_id": doc_id}
    if rows:
        candidate_id, _, cand_parent, run_id, tool, iteration = rows[0]
        parent = cand_parent or parent
        meta.update(candidate_id=candidate_id, run_id=run_id, iteration=iteration)
    meta["tools"] = {tool: {"selected": doc_id, "original": parent}}
    holder = warehouse.rows(
        """SELECT s.docset_id FROM doc_sets s JOIN doc_set_members m USING (docset_id)
           WHERE m.doc_id = ? ORDER BY (s.origin = 'docschisel-candidate') DESC, s.created_at LIMIT 1""",
        [doc_id],
    )
    if holder:
        docset = warehouse.load_docset(holder[0][0])
        origin = warehouse.rows("SELECT origin, benchmark FROM doc_sets WHERE docset_id = ?", [holder[0][0]])
        meta.update(origin=origin[0][0], benchmark=origin[0][1])
        return docset, meta
    return DocSet([warehouse.load_doc(doc_id)], name=f"candidate {tool}"), {**meta, "origin": "doc-version"}
