"""Read queries behind the Traces page: filter options, the filtered list, one episode.

The filtered list is the hot path (every filter change and every prev/next), so
it is one indexed-friendly query with a LIMIT, plus a count; the full-text
search of task queries is a semi-join on the small tasks table rather than a
join of every episode to its task.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass
from typing import Any

import pandas as pd

from core.ui.queries import json_value
from core.ui.state import cached_query
from core.warehouse import Warehouse

OUTCOMES = ("all", "failed", "succeeded")
ORDER = 'e.started_at DESC, e.task_id, e.model, e."repeat", e.episode_id'


@dataclass(frozen=True)
class TraceFilter:
    """Everything the Traces page can filter on; empty strings mean 'any'."""

    benchmark: str = ""
    domain: str = ""
    tool: str = ""
    model: str = ""
    run: str = ""
    docset: str = ""
    doc: str = ""  # a doc version id: episodes whose doc set contains it
    split: str = ""
    outcome: str = "all"
    failure: str = ""
    search: str = ""

    def active(self) -> dict[str, str]:
        return {k: v for k, v in asdict(self).items() if v and not (k == "outcome" and v == "all")}


def where(f: TraceFilter) -> tuple[str, list[Any]]:
    """SQL condition over `episodes e` and its parameters."""
    conds: list[str] = []
    params: list[Any] = []
    for col, value in (
        ("benchmark", f.benchmark),
        ("domain", f.domain),
        ("model", f.model),
        ("run_id", f.run),
        ("docset_id", f.docset),
        ("split", f.split),
    ):
        if value:
            conds.append(f"e.{col} = ?")
            params.append(value)
    if f.outcome == "failed":
        conds.append("NOT e.success")
    elif f.outcome == "succeeded":
        conds.append("e.success")
    if f.failure:
        conds.append(
            "(e.error_class = ? OR e.episode_id IN (SELECT episode_id FROM diagnoses WHERE failure_class = ?))"
        )
        params += [f.failure, f.failure]
    if f.doc:
        conds.append("e.docset_id IN (SELECT docset_id FROM doc_set_members WHERE doc_id = ?)")
        params.append(f.doc)
    task_conds, task_params = [], []
    if f.tool:
        task_conds.append("list_contains(t.tools, ?)")
        task_params.append(f.tool)
    for word in f.search.split():  # a word of the request, or (part of) a task id
        task_conds.append("(t.query ILIKE ? OR t.task_id ILIKE ?)")
        task_params += [f"%{word}%", f"%{word}%"]
    if task_conds:
        conds.append(
            "EXISTS (SELECT 1 FROM tasks t WHERE t.benchmark = e.benchmark AND t.task_id = e.task_id AND "
            + " AND ".join(task_conds)
            + ")"
        )
        params += task_params
    return (" AND ".join(conds) or "TRUE"), params


def trace_page_raw(
    wh: Warehouse, f: TraceFilter, offset: int = 0, limit: int = 25
) -> tuple[int, pd.DataFrame]:
    """(total matching, one page of rows) in display order."""
    cond, params = where(f)
    total = int(wh.scalar(f"SELECT count(*) FROM episodes e WHERE {cond}", params) or 0)
    df = wh.query(
        f"""
        SELECT p.episode_id, p.task_id, t.query, p.domain, p.model, p.paradigm, p.success, p.tool_correct,
               p.error_class, p.n_steps, p.tokens_in + p.tokens_out AS tokens, p.latency_s, p.split,
               p.benchmark, p.run_id, p.docset_id, p.started_at
        FROM (SELECT * FROM episodes e WHERE {cond} ORDER BY {ORDER} LIMIT ? OFFSET ?) p
        LEFT JOIN tasks t ON t.benchmark = p.benchmark AND t.task_id = p.task_id
        ORDER BY {ORDER.replace("e.", "p.")}
        """,
        [*params, int(limit), int(offset)],
    )
    return total, df


trace_page = cached_query(trace_page_raw)


@cached_query
def trace_position(wh: Warehouse, f: TraceFilter, episode_id: str) -> int | None:
    """0-based position of an episode in the filtered list (None when filtered out)."""
    cond, params = where(f)
    value = wh.scalar(
        f"""
        SELECT rn FROM (
            SELECT e.episode_id, row_number() OVER (ORDER BY {ORDER}) - 1 AS rn
            FROM episodes e WHERE {cond}
        ) WHERE episode_id = ?
        """,
        [*params, episode_id],
    )
    return None if value is None else int(value)


@cached_query
def trace_at(wh: Warehouse, f: TraceFilter, position: int) -> str | None:
    """The episode id at a position of the filtered list."""
    cond, params = where(f)
    rows = wh.rows(
        f"SELECT e.episode_id FROM episodes e WHERE {cond} ORDER BY {ORDER} LIMIT 1 OFFSET ?",
        [*params, max(0, int(position))],
    )
    return rows[0][0] if rows else None


@cached_query
def filter_options(wh: Warehouse) -> dict[str, Any]:
    """Distinct values for every filter (with labels for runs and doc sets)."""

    def distinct(col: str) -> list[str]:
        rows = wh.rows(f"SELECT DISTINCT {col} FROM episodes WHERE coalesce({col}, '') <> '' ORDER BY 1")
        return [r[0] for r in rows]

    runs = wh.query(
        """
        SELECT r.run_id, coalesce(nullif(r.name, ''), r.kind || ' ' || r.run_id) AS label, r.kind
        FROM runs r WHERE r.run_id IN (SELECT DISTINCT run_id FROM episodes)
        ORDER BY r.created_at DESC
        """
    )
    docsets = wh.query(
        """
        SELECT s.docset_id, coalesce(nullif(s.name, ''), s.origin) || ' · ' || s.benchmark AS label
        FROM doc_sets s WHERE s.docset_id IN (SELECT DISTINCT docset_id FROM episodes)
        ORDER BY s.created_at
        """
    )
    failures = wh.rows(
        """
        SELECT DISTINCT c FROM (
            SELECT error_class AS c FROM episodes UNION ALL SELECT failure_class FROM diagnoses
        ) WHERE coalesce(c, '') <> '' ORDER BY 1
        """
    )
    tools = wh.rows("SELECT DISTINCT unnest(tools) AS tool FROM tasks ORDER BY 1")
    return {
        "benchmark": distinct("benchmark"),
        "domain": distinct("domain"),
        "model": distinct("model"),
        "split": distinct("split"),
        "tool": [r[0] for r in tools],
        "failure": [r[0] for r in failures],
        "run": dict(zip(runs["run_id"], runs["label"], strict=True)),
        "docset": dict(zip(docsets["docset_id"], docsets["label"], strict=True)),
    }


@cached_query
def doc_versions_of_tool(wh: Warehouse, tool: str) -> dict[str, str]:
    rows = wh.rows(
        "SELECT doc_id, origin, created_at FROM doc_versions WHERE tool = ? ORDER BY created_at", [tool]
    )
    return {r[0]: f"{r[1] or 'doc'} · {r[0][:8]}" for r in rows}


@cached_query
def episode_detail(wh: Warehouse, episode_id: str) -> dict[str, Any] | None:
    """The episode, its task (query, gold calls), its ordered events and any diagnoses."""
    ep = wh.query("SELECT * FROM episodes WHERE episode_id = ?", [episode_id])
    if ep.empty:
        return None
    row = ep.iloc[0].to_dict()
    task = wh.query(
        "SELECT query, gold, tools, meta FROM tasks WHERE benchmark = ? AND task_id = ?",
        [row["benchmark"], row["task_id"]],
    )
    events = wh.query(
        "SELECT seq, kind, tool, args, output, error, text, payload, tokens_in, tokens_out, latency_s, "
        "cache_hit, error_class FROM events WHERE episode_id = ? ORDER BY seq",
        [episode_id],
    )
    diagnoses = wh.query(
        "SELECT run_id, tool, iteration, engine, failure_class, doc_related, evidence, mismatch, fields "
        "FROM diagnoses WHERE episode_id = ? ORDER BY iteration",
        [episode_id],
    )
    run = wh.rows("SELECT name, kind FROM runs WHERE run_id = ?", [row["run_id"]])
    docset = wh.rows("SELECT name, origin FROM doc_sets WHERE docset_id = ?", [row["docset_id"]])
    t = task.iloc[0].to_dict() if not task.empty else {}
    return {
        "episode": row,
        "score": json_value(row.get("score"), {}),
        "calls": json_value(row.get("calls"), []),
        "query": t.get("query") or "",
        "gold": json_value(t.get("gold"), []),
        "task_tools": list(t.get("tools") if t.get("tools") is not None else []),
        "events": [
            {
                **{k: None if isinstance(v, float) and pd.isna(v) else v for k, v in e.items()},
                "args": json_value(e["args"], None),
                "payload": json_value(e["payload"], None),
            }
            for e in events.to_dict("records")
        ],  # a NULL column is None, never NaN: a successful call has no error to show
        "diagnoses": diagnoses,
        "run_label": (run[0][0] or run[0][1]) if run else row["run_id"],
        "docset_label": (docset[0][0] or docset[0][1]) if docset else row["docset_id"],
    }
