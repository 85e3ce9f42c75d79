"""Read queries behind Doc review and the export of reviewed doc sets.

A doc version's review status is the latest `approve` / `reject` row of the
append-only `approvals` log; labels are every `label` row plus the implied
`approved` / `rejected`. Nothing is ever updated in place.
"""

from __future__ import annotations

import pandas as pd

from core.docs import ToolDoc
from core.ui.state import cached_query
from core.warehouse import Warehouse

DECISION = """
(SELECT doc_id, arg_max(action, created_at) AS decision, max(created_at) AS decided_at
 FROM approvals WHERE action IN ('approve', 'reject') GROUP BY doc_id)
"""


@cached_query
def review_tools(wh: Warehouse) -> pd.DataFrame:
    """Tools with documentation, most reviewable first (candidates waiting for a decision)."""
    return wh.query(
        f"""
        SELECT v.tool, any_value(t.benchmark) AS benchmark, any_value(t.domain) AS domain,
               count(*) AS versions,
               count(*) FILTER (WHERE v.origin NOT IN ('original', 'study')) AS candidates,
               count(*) FILTER (WHERE d.decision = 'approve') AS approved,
               -- field-study variants are measurements, not proposals: never "to review"
               count(*) FILTER (WHERE v.origin NOT IN ('original', 'study') AND d.decision IS NULL) AS pending,
               max(v.created_at) AS last_change
        FROM doc_versions v
        LEFT JOIN (SELECT tool, any_value(benchmark) AS benchmark, any_value(domain) AS domain
                   FROM tools GROUP BY tool) t USING (tool)
        LEFT JOIN {DECISION} d USING (doc_id)
        GROUP BY v.tool
        ORDER BY pending DESC, candidates DESC, v.tool
        """
    )


@cached_query
def versions(wh: Warehouse, tool: str) -> pd.DataFrame:
    """Every version of one tool's doc with lineage, review status, labels and candidate metrics."""
    return wh.query(
        f"""
        WITH cand AS (
            SELECT doc_id, arg_max(run_id, created_at) AS run_id, arg_max(iteration, created_at) AS iteration,
                   arg_max(val_ts, created_at) AS val_ts, arg_max(base_val_ts, created_at) AS base_val_ts,
                   arg_max(accepted, created_at) AS accepted
            FROM candidates WHERE tool = ? GROUP BY doc_id
        ), labels AS (
            SELECT doc_id, list(DISTINCT label ORDER BY label) AS labels
            FROM approvals WHERE coalesce(label, '') <> '' GROUP BY doc_id
        )
        SELECT v.doc_id, v.origin, v.parent_doc_id, v.created_at, v.tokens, len(v.fields) AS n_fields,
               v.fields, d.decision, l.labels, c.run_id, c.iteration, c.val_ts, c.base_val_ts, c.accepted,
               (SELECT count(*) FROM selections s WHERE s.doc_id = v.doc_id) > 0 AS selected
        FROM doc_versions v
        LEFT JOIN {DECISION} d USING (doc_id)
        LEFT JOIN labels l USING (doc_id)
        LEFT JOIN cand c USING (doc_id)
        WHERE v.tool = ?
        ORDER BY v.origin <> 'original', v.created_at, v.doc_id
        """,
        [tool, tool],
    )


@cached_query
def doc(wh: Warehouse, doc_id: str) -> ToolDoc:
    return wh.load_doc(doc_id)


@cached_query
def candidate_runs(wh: Warehouse, doc_id: str) -> pd.DataFrame:
    """Every optimization iteration that produced this version, with its regression set."""
    return wh.query(
        """
        SELECT c.run_id, coalesce(nullif(r.name, ''), c.run_id) AS run, c.iteration, c.val_ts, c.base_val_ts,
               c.opt_ts, c.accepted, c.regressions, c.new_failures, r.benchmark
        FROM candidates c LEFT JOIN runs r USING (run_id)
        WHERE c.doc_id = ? ORDER BY c.created_at DESC
        """,
        [doc_id],
    )


@cached_query
def tasks_by_id(wh: Warehouse, task_ids: tuple[str, ...], benchmark: str | None) -> pd.DataFrame:
    if not task_ids:
        return pd.DataFrame(columns=["task_id", "domain", "query"])
    cond = "AND benchmark = ?" if benchmark else ""
    return wh.query(
        f"SELECT task_id, domain, query FROM tasks WHERE task_id IN (SELECT unnest(?::VARCHAR[])) {cond} "
        "ORDER BY task_id",
        [list(task_ids)] + ([benchmark] if benchmark else []),
    )


@cached_query
def audit(wh: Warehouse, tool: str) -> pd.DataFrame:
    return wh.query(
        "SELECT created_at, reviewer, action, label, doc_id, reason FROM approvals WHERE tool = ? "
        "ORDER BY created_at DESC",
        [tool],
    )


@cached_query
def docsets(wh: Warehouse) -> pd.DataFrame:
    return wh.query(
        """
        SELECT s.docset_id, coalesce(nullif(s.name, ''), s.origin) AS name, s.benchmark, s.origin,
               s.created_at, count(m.tool) AS tools
        FROM doc_sets s LEFT JOIN doc_set_members m USING (docset_id)
        GROUP BY ALL ORDER BY s.created_at DESC
        """
    )


@cached_query
def reviewed_members(wh: Warehouse, base_docset_id: str) -> pd.DataFrame:
    """For each tool of a base doc set: its base doc and the latest approved version, if any."""
    return wh.query(
        f"""
        WITH approved AS (
            SELECT v.tool, arg_max(v.doc_id, d.decided_at) AS approved_doc_id, max(d.decided_at) AS approved_at
            FROM {DECISION} d JOIN doc_versions v USING (doc_id)
            WHERE d.decision = 'approve' GROUP BY v.tool
        )
        SELECT m.tool, m.doc_id AS base_doc_id, a.approved_doc_id, a.approved_at
        FROM doc_set_members m LEFT JOIN approved a USING (tool)
        WHERE m.docset_id = ? ORDER BY m.tool
        """,
        [base_docset_id],
    )


@cached_query
def export_bases(wh: Warehouse, tool: str) -> pd.DataFrame:
    """Doc sets to build a reviewed set from, the edited tool's own first.

    The tool's benchmark is the one of the sets that document it (the `tools`
    table can be empty, e.g. for imported traces), so ranking puts first the sets
    that contain the tool, then those where more tools have an approved version,
    then the originals an edit starts from; study variants come last.
    """
    return wh.query(
        f"""
        WITH approved AS (
            SELECT DISTINCT v.tool FROM {DECISION} d JOIN doc_versions v USING (doc_id)
            WHERE d.decision = 'approve'
        )
        SELECT s.docset_id, coalesce(nullif(s.name, ''), s.origin) AS name, s.benchmark, s.origin,
               s.created_at, count(m.tool) AS tools,
               count(a.tool) AS approved,
               bool_or(m.tool = ?) AS has_tool
        FROM doc_sets s JOIN doc_set_members m USING (docset_id)
        LEFT JOIN approved a ON a.tool = m.tool
        GROUP BY s.docset_id, s.name, s.benchmark, s.origin, s.created_at
        ORDER BY has_tool DESC, s.origin = 'study', approved DESC, s.origin <> 'original', s.created_at DESC
        """,
        [tool],
    )


@cached_query
def docset_named(wh: Warehouse, docset_id: str) -> str | None:
    """The name of a stored doc set with this id (None when no such set is stored yet)."""
    rows = wh.rows("SELECT coalesce(nullif(name, ''), origin) FROM doc_sets WHERE docset_id = ?", [docset_id])
    return str(rows[0][0]) if rows else None
