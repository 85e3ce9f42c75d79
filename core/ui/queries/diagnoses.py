"""Read queries behind the Diagnoses & plans page."""

from __future__ import annotations

import pandas as pd

from core.ui.state import cached_query
from core.warehouse import Warehouse

# The current verdict of each diagnosis: its latest agree / disagree (a note alone keeps the verdict
# and adds its text).
LATEST_VERDICT = """
(SELECT diagnosis_id,
        arg_max(verdict, created_at) FILTER (WHERE verdict <> 'note') AS verdict,
        arg_max(note, created_at) FILTER (WHERE note <> '') AS note,
        arg_max(reviewer, created_at) AS reviewer
 FROM diagnosis_verdicts GROUP BY diagnosis_id)
"""


@cached_query
def runs_with_diagnoses(wh: Warehouse) -> pd.DataFrame:
    return wh.query(
        """
        SELECT d.run_id, coalesce(nullif(any_value(r.name), ''), d.run_id) AS label,
               any_value(r.benchmark) AS benchmark, count(*) AS diagnoses,
               count(DISTINCT d.tool) AS tools, max(d.iteration) AS iterations, max(r.created_at) AS created_at
        FROM diagnoses d LEFT JOIN runs r USING (run_id)
        GROUP BY d.run_id
        ORDER BY created_at DESC NULLS LAST
        """
    )


@cached_query
def field_counts(wh: Warehouse, run_id: str, iteration: int | None = None) -> pd.DataFrame:
    """How often each field is implicated, per tool (the heatmap)."""
    cond = "AND iteration = ?" if iteration is not None else ""
    params = [run_id] + ([iteration] if iteration is not None else [])
    return wh.query(
        f"""
        SELECT tool, field, count(*) AS n
        FROM (SELECT tool, unnest(fields) AS field FROM diagnoses WHERE run_id = ? {cond})
        GROUP BY ALL
        """,
        params,
    )


@cached_query
def tools_of_run(wh: Warehouse, run_id: str) -> pd.DataFrame:
    return wh.query(
        """
        SELECT d.tool, any_value(t.domain) AS domain, count(*) AS diagnoses,
               count(*) FILTER (WHERE d.doc_related) AS doc_related, max(d.iteration) AS iterations
        FROM diagnoses d
        LEFT JOIN (SELECT tool, any_value(domain) AS domain FROM tools GROUP BY tool) t ON t.tool = d.tool
        WHERE d.run_id = ?
        GROUP BY d.tool ORDER BY diagnoses DESC, d.tool
        """,
        [run_id],
    )


@cached_query
def diagnoses_of(wh: Warehouse, run_id: str, tool: str, iteration: int | None) -> pd.DataFrame:
    cond = "AND d.iteration = ?" if iteration is not None else ""
    params = [run_id, tool] + ([iteration] if iteration is not None else [])
    return wh.query(
        f"""
        SELECT d.diagnosis_id, d.iteration, d.episode_id, e.task_id, t.query, d.failure_class, d.doc_related,
               d.fields, d.evidence, d.mismatch, d.engine, v.verdict, v.note AS verdict_note,
               v.reviewer AS verdict_by
        FROM diagnoses d
        LEFT JOIN episodes e USING (episode_id)
        LEFT JOIN tasks t ON t.benchmark = e.benchmark AND t.task_id = e.task_id
        LEFT JOIN {LATEST_VERDICT} v USING (diagnosis_id)
        WHERE d.run_id = ? AND d.tool = ? {cond}
        ORDER BY d.iteration, e.task_id
        """,
        params,
    )


@cached_query
def plans_of(wh: Warehouse, run_id: str, tool: str) -> pd.DataFrame:
    return wh.query(
        "SELECT plan_id, iteration, scope, diagnosis_id, operations, created_at FROM plans "
        "WHERE run_id = ? AND tool = ? ORDER BY iteration, scope DESC, created_at",
        [run_id, tool],
    )


@cached_query
def candidates_of(wh: Warehouse, run_id: str, tool: str) -> pd.DataFrame:
    return wh.query(
        "SELECT iteration, doc_id, val_ts, base_val_ts, opt_ts, accepted, regressions, tokens "
        "FROM candidates WHERE run_id = ? AND tool = ? ORDER BY iteration",
        [run_id, tool],
    )


@cached_query
def memories_of(wh: Warehouse, run_id: str, domain: str | None) -> pd.DataFrame:
    """The three memories of a domain, every iteration (rows of several tools are merged by the view)."""
    cond = "AND domain = ?" if domain else ""
    return wh.query(
        f"SELECT domain, kind, tool, iteration, content, created_at FROM memories WHERE run_id = ? {cond} "
        "ORDER BY kind, iteration, created_at",
        [run_id] + ([domain] if domain else []),
    )


@cached_query
def disputed(wh: Warehouse) -> pd.DataFrame:
    """tool, how many of its diagnoses an analyst disagreed with (latest verdict), their latest note."""
    return wh.query(
        f"""
        SELECT d.tool, count(*) AS disputed, arg_max(v.note, v.diagnosis_id) AS note
        FROM {LATEST_VERDICT} v JOIN diagnoses d USING (diagnosis_id)
        WHERE v.verdict = 'disagree' GROUP BY d.tool
        """
    )
