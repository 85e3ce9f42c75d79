"""Evidence-engine diagnosis of recorded (imported) failed traces.

Imported traces — e.g. GPT-4's and Claude-2's recorded WorkBench runs — are
real failures of strong models, and analysts want to read them through the
same field-level lens as the optimizer's own traces. This applies the trace
differ and the rule table (the evidence engine's diagnosis step) to each
failed recorded episode, once per tool its ground truth uses, and stores the
diagnoses under the import run (iteration 0, engine "evidence"). It is
analysis, not optimization: no split is involved and nothing is generated.
"""

from __future__ import annotations

import json

from core.benchmarks.base import Call
from core.chisel.access import load_traces
from core.chisel.differ import diff_trace
from core.chisel.engines.evidence import _summarise_steps
from core.chisel.lineage import store_diagnoses
from core.chisel.rules import rule
from core.chisel.types import Diagnosis
from core.docs import ToolDoc


def _gold(warehouse, benchmark: str) -> dict[str, tuple[tuple[Call, ...], tuple[str, ...]]]:
    rows = warehouse.rows("SELECT task_id, gold, tools FROM tasks WHERE benchmark = ?", [benchmark])
    return {
        tid: (tuple(Call.from_json(c) for c in json.loads(gold or "[]")), tuple(tools or ()))
        for tid, gold, tools in rows
    }


def _original_docs(warehouse, benchmark: str) -> dict[str, ToolDoc]:
    rows = warehouse.rows(
        "SELECT t.tool, v.doc FROM tools t JOIN doc_versions v ON v.doc_id = t.original_doc_id WHERE t.benchmark = ?",
        [benchmark],
    )
    if not rows:  # fall back to the original doc set registered for the benchmark
        rows = warehouse.rows(
            """SELECT m.tool, v.doc FROM doc_sets s JOIN doc_set_members m USING (docset_id)
               JOIN doc_versions v ON v.doc_id = m.doc_id
               WHERE s.benchmark = ? AND s.origin = 'original'""",
            [benchmark],
        )
    return {tool: ToolDoc.model_validate_json(doc) for tool, doc in rows}


def diagnose_recorded(warehouse, *, benchmark: str = "workbench", limit: int | None = None) -> int:
    """Diagnose failed imported episodes not diagnosed yet; returns how many diagnoses were stored."""
    gold = _gold(warehouse, benchmark)
    docs = _original_docs(warehouse, benchmark)
    runs = [
        r[0]
        for r in warehouse.rows(
            "SELECT run_id FROM runs WHERE kind = 'import' AND benchmark = ? ORDER BY run_id", [benchmark]
        )
    ]
    done = {
        r[0] for r in warehouse.rows("SELECT DISTINCT episode_id FROM diagnoses WHERE engine = 'evidence'")
    }
    stored = 0
    for run_id in runs:
        traces = [t for t in load_traces(warehouse, run_id) if not t.success and t.episode_id not in done]
        if limit is not None:
            traces = traces[: max(0, limit - stored)]
        by_tool: dict[str, list[Diagnosis]] = {}
        for trace in traces:
            calls, tools = gold.get(trace.task_id, ((), ()))
            for tool in tools:
                doc = docs.get(tool)
                params = [p.name for p in doc.parameters] if doc else []
                findings = diff_trace(trace, calls, tool, params)
                related = [f for f in findings if rule(f.cls).doc_related]
                fields: list[str] = []
                for f in related:
                    fields += [c for c in rule(f.cls).fields if c not in fields]
                by_tool.setdefault(tool, []).append(
                    Diagnosis(
                        episode_id=trace.episode_id,
                        task_id=trace.task_id,
                        tool=tool,
                        failure_class=findings[0].cls if findings else "output_misuse",
                        doc_related=bool(related),
                        evidence=_summarise_steps(trace),
                        mismatch="; ".join(f.text for f in findings[:4])
                        or "no mismatch with the ground truth found",
                        fields=fields,
                        detail={
                            "findings": [f.to_json() for f in findings],
                            "source": "recorded",
                            "expected": [c.render() for c in calls if c.tool == tool],
                        },
                    )
                )
        for tool, diags in by_tool.items():
            doc = docs.get(tool) or ToolDoc(tool=tool, name=tool)
            store_diagnoses(warehouse, run_id, 0, doc, "evidence", diags)
            stored += len(diags)
        if limit is not None and stored >= limit:
            break
    return stored
