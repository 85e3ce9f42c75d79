"""Warehouse records of expansions: attempts, verdicts, profiles and the expanded doc set.

Rows are written per tool as soon as it is done, so a long offline run shows
progress and an interrupted run keeps what it finished (re-running the same
command hits the LLM cache for those tools and re-inserts nothing).
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

from core.docs import DocSet
from core.expansion.expand import ToolExpansion
from core.expansion.profile import ToolProfile
from core.warehouse import Warehouse, content_hash
from core.warehouse.records import now
from core.warehouse.store import insert_rows

ORIGIN = "toolrex"


def record_tool(wh: Warehouse, run_id: str, benchmark: str, exp: ToolExpansion) -> None:
    """Store one tool's attempts, verdicts, final profile and expanded doc version."""
    if exp.expanded.doc_id != exp.original.doc_id:
        wh.register_docs([exp.expanded], origin=ORIGIN, parents={exp.tool: exp.original.doc_id})
    attempts, verdicts = [], []
    ts = now()
    for att in exp.attempts:
        aid = content_hash("toolrex-attempt", run_id, exp.tool, att.attempt)
        attempts.append(
            {
                "attempt_id": aid,
                "run_id": run_id,
                "benchmark": benchmark,
                "tool": exp.tool,
                "original_doc_id": exp.original.doc_id,
                "attempt": att.attempt,
                "model": att.model,
                "raw": att.raw,
                "parse_error": att.parse_error,
                "error": att.error,
                "accepted_fields": sorted(att.accepted),
                "rejected_fields": att.rejected,
                "tokens_in": att.tokens_in,
                "tokens_out": att.tokens_out,
                "latency_s": att.latency_s,
                "created_at": ts,
            }
        )
        verdicts += [
            {
                "attempt_id": aid,
                "field": v.field,
                "stage": v.stage,
                "accepted": v.accepted,
                "content": v.content,
                "reason": v.reason,
                "judge_model": v.judge_model,
                "created_at": ts,
            }
            for v in att.verdicts
        ]
    profile = {
        "run_id": run_id,
        "benchmark": benchmark,
        "tool": exp.tool,
        "original_doc_id": exp.original.doc_id,
        "expanded_doc_id": exp.expanded.doc_id,
        "profile": json.dumps(exp.profile.model_dump(mode="json")),
        "fields": list(exp.profile.fields()),
        "sources": json.dumps(exp.sources),
        "regenerated": exp.regenerated,
        "created_at": ts,
    }
    with wh.transaction() as con:
        insert_rows(con, "expansion_attempts", attempts, list_columns=("accepted_fields", "rejected_fields"))
        insert_rows(con, "expansion_verdicts", verdicts)
        insert_rows(con, "expansion_profiles", [profile], list_columns=("fields",))


def register_original(wh: Warehouse, benchmark: str, original: DocSet) -> str:
    """The original doc set (first, so its doc versions keep the origin 'original')."""
    return wh.register_docset(original, benchmark=benchmark, origin="original", name="original")


def record_docset(
    wh: Warehouse, run_id: str, benchmark: str, original: DocSet, expanded: DocSet, meta: Mapping[str, Any]
) -> str:
    """Register the expanded doc set (with its lineage in `meta`); returns its id."""
    register_original(wh, benchmark, original)
    return wh.register_docset(
        expanded,
        benchmark=benchmark,
        origin=ORIGIN,
        name=expanded.name,
        meta={"expansion_run": run_id, "source_docset": original.docset_id, **meta},
        parents={t: d.doc_id for t, d in original.items()},
    )


def load_profiles(wh: Warehouse, run_id: str) -> dict[str, ToolProfile]:
    """tool -> accepted profile of an expansion run."""
    rows = wh.rows("SELECT tool, profile FROM expansion_profiles WHERE run_id = ? ORDER BY tool", [run_id])
    return {tool: ToolProfile.model_validate_json(p) for tool, p in rows}


def expansion_run_of(wh: Warehouse, docset_id: str) -> str | None:
    """The expansion run that produced a doc set (None for doc sets of other origins)."""
    rows = wh.rows(
        "SELECT json_extract_string(meta, '$.expansion_run') FROM doc_sets WHERE docset_id = ? AND origin = ?",
        [docset_id, ORIGIN],
    )
    return rows[0][0] if rows and rows[0][0] else None


def latest_expansion(wh: Warehouse, benchmark: str) -> tuple[str, str] | None:
    """(run id, expanded doc-set id) of the latest finished expansion run of a benchmark.

    Read from the run's status record rather than from doc_sets, because an
    expansion whose every field was rejected yields docs identical to the
    original, hence the original doc set's id.
    """
    rows = wh.rows(
        "SELECT r.run_id, json_extract_string(s.detail, '$.docset_id') FROM runs r JOIN run_status s USING (run_id) "
        "WHERE r.kind = 'expansion' AND r.benchmark = ? AND s.status = 'finished' ORDER BY s.ts DESC LIMIT 1",
        [benchmark],
    )
    return (rows[0][0], rows[0][1]) if rows and rows[0][1] else None
