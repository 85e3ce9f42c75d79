"""Export a doc set as our JSON schema, OpenAI tool schemas or MCP tool definitions.

`resolve_export(warehouse, ref)` accepts what users have at hand: an optimize
run id (its optimized doc set) or any doc-set id.
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
        raise KeyError(f"{ref!r} is neither a doc-set id nor an optimize run id in {warehouse.path}")
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
