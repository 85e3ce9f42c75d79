"""Composition analysis (the paper's RQ1, Table II) over doc files and warehouse doc sets.

`core.docs.coverage.coverage_matrix` computes the share of tools providing
each field per collection; this module adds collections that live in the
warehouse — generated doc sets (EasyTool, DRAFT, DocsChisel, study variants) —
so the original docs and what each method produced can be compared field by
field in one matrix:

    docschisel fields coverage ../shared/benchmarks --docset <id> --docset <run id>

A reference is a doc-set id or the id of a finished run that produced one (a
baseline run). When the doc set's metadata names the tools the method worked
on (baselines record per-tool costs; study variants record their tools), only
those tools are counted, because the rest are original docs carried along.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Sequence

import pandas as pd

from core.docs import ToolDoc
from core.docs.coverage import coverage_matrix


def _resolve(warehouse, ref: str) -> str:
    if warehouse.rows("SELECT 1 FROM doc_sets WHERE docset_id = ?", [ref]):
        return ref
    rows = warehouse.rows(
        "SELECT json_extract_string(detail, '$.docset_id') FROM run_status "
        "WHERE run_id = ? AND status = 'finished' ORDER BY ts DESC LIMIT 1",
        [ref],
    )
    if rows and rows[0][0]:
        return rows[0][0]
    raise KeyError(f"no doc set or finished run {ref!r} in {warehouse.path}")


def worked_tools(meta: dict) -> list[str] | None:
    """Tools a generated doc set's method actually produced, from its metadata."""
    if isinstance(meta.get("costs"), dict) and meta["costs"]:
        return sorted(meta["costs"])
    if isinstance(meta.get("tools"), list) and meta["tools"]:
        return sorted(meta["tools"])
    return None


def warehouse_collections(warehouse, refs: Sequence[str]) -> dict[str, list[ToolDoc]]:
    """Collections named `<doc-set name> (<id>)` for each reference, restricted to worked tools."""
    out: dict[str, list[ToolDoc]] = {}
    for ref in refs:
        sid = _resolve(warehouse, ref)
        docset = warehouse.load_docset(sid)
        row = warehouse.rows("SELECT name, origin, meta FROM doc_sets WHERE docset_id = ?", [sid])[0]
        meta = json.loads(row[2]) if row[2] else {}
        tools = worked_tools(meta)
        docs = [docset[t] for t in tools if t in docset] if tools else list(docset.values())
        out[f"{row[0] or row[1] or 'docset'} ({sid[:8]})"] = docs
    return out


def composition(
    collections: dict[str, Iterable[ToolDoc]] | None = None, warehouse=None, refs: Sequence[str] = ()
) -> pd.DataFrame:
    """The Table II matrix over file collections and warehouse doc sets together."""
    merged: dict[str, list[ToolDoc]] = {k: list(v) for k, v in (collections or {}).items()}
    if refs:
        if warehouse is None:
            raise ValueError("warehouse doc sets need a warehouse")
        merged.update(warehouse_collections(warehouse, refs))
    return coverage_matrix(merged)
