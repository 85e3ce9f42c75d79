"""What producing a doc set cost, per tool, and how long its docs are: Table III's columns.

One place for these reads, because DocsChisel's own results section
(`core.chisel.report.table_iii`) and the method comparison
(`core.study.compare`) both show them and must agree. Where they come from:

- EasyTool / DRAFT / GEPA: the per-tool costs the baseline measured itself
  (`BaselineRun.costs`, also `doc_sets.meta.costs`: LLM tokens and wall seconds
  per tool; GEPA also the target agent's tokens). Run-status timestamps are
  not used: asking for a stored baseline again appends a `started` row, which
  would inflate a duration.
- DocsChisel: `chisel_tools` of the optimize run: wall minutes of each tool's
  loop plus its share of the domain profiling, optimizer-LLM tokens (zero for
  the offline evidence engine) and the target agent's tokens spent
  re-evaluating candidates.

Doc length is the mean token length of a doc set's docs over the tools asked
for, so methods are compared on the same tools.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import pandas as pd

# The first finished status of a run: a later re-run resumes it and measures only the reuse.
FIRST_FINISHED = (
    "(SELECT run_id, arg_min(detail, ts) AS detail FROM run_status WHERE status = 'finished' GROUP BY run_id)"
)


def chisel_run_costs(warehouse, run_ids: Sequence[str]) -> pd.DataFrame:
    """Per optimize run: tools, changed tools and per-tool means from `chisel_tools`.

    `minutes_per_tool` = mean loop minutes + profiling minutes / tools (the
    profiling of a domain serves all of its tools), profiling taken from the
    run's first finished status.
    """
    if not run_ids:
        return pd.DataFrame(
            columns=[
                "run_id",
                "tools",
                "changed",
                "minutes_per_tool",
                "optimizer_tokens",
                "agent_tokens",
                "doc_tokens_before",
                "doc_tokens_after",
            ]
        )
    return warehouse.query(
        f"""
        WITH t AS (
            SELECT run_id, count(*) AS tools, sum((selected_doc_id <> original_doc_id)::INT) AS changed,
                   avg(minutes) AS minutes, avg(optimizer_tokens) AS optimizer_tokens,
                   avg(agent_tokens) AS agent_tokens, avg(doc_tokens_before) AS doc_tokens_before,
                   avg(doc_tokens_after) AS doc_tokens_after
            FROM chisel_tools WHERE run_id IN (SELECT unnest(?::VARCHAR[])) GROUP BY run_id)
        SELECT t.run_id, t.tools, t.changed,
               t.minutes + coalesce(json_extract(s.detail, '$.profile_minutes')::DOUBLE, 0) / t.tools
                   AS minutes_per_tool,
               t.optimizer_tokens, t.agent_tokens, t.doc_tokens_before, t.doc_tokens_after
        FROM t LEFT JOIN {FIRST_FINISHED} s USING (run_id)
        """,
        [list(dict.fromkeys(run_ids))],
    )


def chisel_costs(warehouse, run_ids: Sequence[str]) -> dict[str, dict[str, float]]:
    """optimize run id -> its per-tool costs under the keys `baseline_costs` uses (Table III's columns)."""
    runs = chisel_run_costs(warehouse, [r for r in run_ids if r])
    return {
        r.run_id: {
            "tools_optimized": float(r.tools),
            "opt_tokens_per_tool": float(r.optimizer_tokens),
            "agent_tokens_per_tool": float(r.agent_tokens),
            "minutes_per_tool": float(r.minutes_per_tool),
        }
        for r in runs.itertuples(index=False)
    }


def baseline_costs(costs: dict[str, dict[str, Any]] | None) -> dict[str, float]:
    """Per-tool means of a baseline's own cost record (`BaselineRun.costs`, `doc_sets.meta.costs`)."""
    costs = costs or {}
    if not costs:
        return {"tools_optimized": 0.0}
    n = len(costs)
    return {
        "tools_optimized": float(n),
        "opt_tokens_per_tool": sum(float(c.get("tokens", 0) or 0) for c in costs.values()) / n,
        # EasyTool and DRAFT run no agent; GEPA records the target agent's tokens per tool
        "agent_tokens_per_tool": sum(float(c.get("agent_tokens", 0) or 0) for c in costs.values()) / n,
        "minutes_per_tool": sum(float(c.get("seconds", 0.0) or 0.0) for c in costs.values()) / n / 60.0,
    }


def doc_lengths(warehouse, docset_ids: Sequence[str], tools: Sequence[str] | None = None) -> dict[str, float]:
    """docset id -> mean token length of its docs of `tools` (all members when None)."""
    ids = list(dict.fromkeys(docset_ids))
    if not ids:
        return {}
    rows = warehouse.rows(
        """SELECT m.docset_id, avg(v.tokens) FROM doc_set_members m JOIN doc_versions v USING (doc_id)
           WHERE m.docset_id IN (SELECT unnest(?::VARCHAR[]))
             AND (? OR m.tool IN (SELECT unnest(?::VARCHAR[])))
           GROUP BY 1""",
        [ids, tools is None, list(tools or [])],
    )
    return {r[0]: float(r[1]) for r in rows if r[1] is not None}
