"""Writing the optimizer's lineage to the warehouse, and finding its results again.

Every row has a content-hash id built from (run, tool, iteration, what it is
about), so a resumed run that recomputes the same step writes nothing new
(the warehouse keeps existing keys) and nothing is duplicated.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from typing import Any

from core.chisel.memory import KINDS, DomainMemory
from core.chisel.types import Diagnosis, Evaluation, Plan, jsonable
from core.docs import DocSet, ToolDoc
from core.warehouse import reads
from core.warehouse.records import content_hash
from core.warehouse.rows import CandidateRow, ChiselToolRow, DiagnosisRow, MemoryRow, PlanRow, SelectionRow


def diagnosis_id(run_id: str, tool: str, iteration: int, episode_id: str) -> str:
    return content_hash("diagnosis", run_id, tool, iteration, episode_id)


def store_diagnoses(
    wh, run_id: str, iteration: int, doc: ToolDoc, engine: str, diags: Sequence[Diagnosis]
) -> None:
    wh.record(
        DiagnosisRow(
            diagnosis_id=diagnosis_id(run_id, d.tool, iteration, d.episode_id),
            run_id=run_id,
            tool=d.tool,
            iteration=iteration,
            episode_id=d.episode_id,
            doc_id=doc.doc_id,
            engine=engine,
            failure_class=d.failure_class,
            doc_related=d.doc_related,
            evidence=d.evidence,
            mismatch=d.mismatch,
            fields=tuple(d.fields),
            detail={**d.detail, "task_id": d.task_id},
        )
        for d in diags
    )


def plan_id(run_id: str, tool: str, iteration: int, scope: str, key: str = "") -> str:
    return content_hash("plan", run_id, tool, iteration, scope, key)


def store_plans(wh, run_id: str, iteration: int, trace_plans: Sequence[Plan], merged: Plan) -> str:
    rows = [
        PlanRow(
            plan_id=plan_id(run_id, p.tool, iteration, "trace", p.diagnosis_episode or ""),
            run_id=run_id,
            tool=p.tool,
            iteration=iteration,
            scope="trace",
            diagnosis_id=diagnosis_id(run_id, p.tool, iteration, p.diagnosis_episode or ""),
            operations=jsonable(p.operations),
            source_episodes=[p.diagnosis_episode],
            detail={"notes": p.notes},
        )
        for p in trace_plans
    ]
    mid = plan_id(run_id, merged.tool, iteration, "merged")
    rows.append(
        PlanRow(
            plan_id=mid,
            run_id=run_id,
            tool=merged.tool,
            iteration=iteration,
            scope="merged",
            diagnosis_id=None,
            operations=jsonable(merged.operations),
            source_episodes=sorted({e for o in merged.operations for e in o.support}),
            detail={"notes": merged.notes, "trace_plans": [r.plan_id for r in rows]},
        )
    )
    wh.record(rows)
    return mid


def store_candidate(
    wh,
    run_id: str,
    tool: str,
    iteration: int,
    doc: ToolDoc,
    parent: ToolDoc,
    plan: Plan,
    evaluation: Evaluation,
    tokens: int,
    engine: str,
    notes: Sequence[str],
    source_episodes: Sequence[str],
) -> str:
    wh.register_docs([doc], origin="docschisel-candidate", parents={tool: parent.doc_id})
    cid = content_hash("candidate", run_id, tool, iteration, doc.doc_id)
    wh.record(
        [
            CandidateRow(
                candidate_id=cid,
                run_id=run_id,
                tool=tool,
                iteration=iteration,
                doc_id=doc.doc_id,
                parent_doc_id=parent.doc_id,
                plan_id=plan_id(run_id, tool, iteration, "merged"),
                val_ts=evaluation.val_ts,
                base_val_ts=evaluation.base_val_ts,
                opt_ts=evaluation.opt_ts,
                accepted=evaluation.accepted,
                regressions=list(evaluation.regressions),
                new_failures=list(evaluation.new_failures),
                tokens=tokens,
                val_run=evaluation.val_run,
                opt_run=evaluation.opt_run,
                engine=engine,
                source_episodes=sorted(source_episodes),
                detail={
                    "notes": list(notes),
                    "fixed": evaluation.fixed,
                    "base_opt_ts": evaluation.base_opt_ts,
                },
            )
        ]
    )
    return cid


def store_memory(wh, run_id: str, memory: DomainMemory, tool: str, iteration: int) -> None:
    if not memory.enabled:
        return
    wh.record(
        MemoryRow(
            memory_id=content_hash("memory", run_id, memory.domain, kind, tool, iteration),
            run_id=run_id,
            domain=memory.domain,
            kind=kind,
            tool=tool,
            iteration=iteration,
            content=memory.snapshot(kind),
        )
        for kind in KINDS
    )


def store_selection(wh, run_id: str, tool: str, doc: ToolDoc, reason: str) -> None:
    wh.record([SelectionRow(run_id=run_id, tool=tool, doc_id=doc.doc_id, reason=reason)])


def promote_candidate_docset(wh, docset: DocSet, name: str, meta: Mapping[str, Any]) -> None:
    """Label a doc set first stored as a candidate as the optimizer's result.

    When a single tool changed, the result is byte-identical to the doc set
    that evaluated that tool's winning candidate, so it is already stored
    (under origin `docschisel-candidate`). Doc-set rows are catalogue entries,
    not traces: promoting the label is the one update the optimizer makes.
    """
    with wh.transaction() as con:
        con.execute(
            "UPDATE doc_sets SET origin = 'docschisel', name = ?, meta = ? "
            "WHERE docset_id = ? AND origin = 'docschisel-candidate'",
            [name, json.dumps(dict(meta), default=str), docset.docset_id],
        )


def store_tool_summary(wh, row: ChiselToolRow) -> None:
    wh.record([row])


def finished_tool(wh, run_id: str, tool: str) -> dict[str, Any] | None:
    """The stored summary of a tool this run already finished (for resuming), or None."""
    df = wh.query("SELECT * FROM chisel_tools WHERE run_id = ? AND tool = ?", [run_id, tool])
    if df.empty:
        return None
    row = df.iloc[0].to_dict()
    row["detail"] = json.loads(row["detail"]) if isinstance(row.get("detail"), str) else {}
    return row


# --------------------------------------------------------------------------- lookup
def resolve_docset(warehouse, ref: str) -> DocSet | None:
    """The optimized DocSet of an optimize run id (or a DocsChisel doc-set id); None when unknown."""
    docset_id = reads.result_docset_id(warehouse, ref)
    if docset_id is None:
        return None
    try:
        return warehouse.load_docset(docset_id)
    except KeyError:
        return None


def optimize_runs(warehouse):
    """Optimize runs with their status and result doc set (newest first), for CLIs and the dashboard."""
    return warehouse.query(
        """SELECT r.run_id, r.name, r.benchmark, r.created_at,
                  (SELECT s.status FROM run_status s WHERE s.run_id = r.run_id ORDER BY s.ts DESC LIMIT 1) AS status,
                  (SELECT json_extract_string(s.detail, '$.docset_id') FROM run_status s
                     WHERE s.run_id = r.run_id AND s.status = 'finished' ORDER BY s.ts DESC LIMIT 1) AS docset_id
           FROM runs r WHERE r.kind = 'optimize' ORDER BY r.created_at DESC"""
    )
