"""Read queries behind Field impact and Compare.

Methods are recognised by the origin of the doc set an episode ran with
(`doc_sets.origin`): original → OG, easytool → ET, draft → DRT,
docschisel → DC, review → Reviewed. Producers of optimized or baseline doc
sets put the producing run in `doc_sets.meta.run_id`; the efficiency table
reads tokens (llm_calls) and minutes (run_status) of that run.
"""

from __future__ import annotations

import json

import pandas as pd

from core.ui.state import cached_query
from core.warehouse import Warehouse

METHOD_OF_ORIGIN = {
    "original": "OG",
    "og": "OG",
    "easytool": "ET",
    "et": "ET",
    "draft": "DRT",
    "drt": "DRT",
    "docschisel": "DC",
    "chisel": "DC",
    "dc": "DC",
    "optimized": "DC",
    "review": "Reviewed",
}


def method_of(origin: object) -> str | None:
    return METHOD_OF_ORIGIN.get(str(origin or "").strip().lower())


@cached_query
def field_impact(wh: Warehouse) -> pd.DataFrame:
    """The latest measurement of each (study cell, field, operation); baseline rows (n/a) left out."""
    return wh.query(
        """
        SELECT * FROM field_impact
        WHERE operation IN ('add', 'remove') AND delta_pp IS NOT NULL
        QUALIFY row_number() OVER (
            PARTITION BY benchmark, domain, model, paradigm, field, operation ORDER BY created_at DESC
        ) = 1
        """
    )


@cached_query
def compare_benchmarks(wh: Warehouse) -> pd.DataFrame:
    """Benchmarks and splits that have evaluation episodes, with how many doc-set origins ran there."""
    df = wh.query(
        """
        SELECT e.benchmark, e.split, s.origin, count(*) AS episodes
        FROM episodes e JOIN doc_sets s USING (docset_id) JOIN runs r USING (run_id)
        WHERE r.kind NOT IN ('study', 'optimize')
        GROUP BY ALL
        """
    )
    df["method"] = df["origin"].map(method_of)
    return df[df["method"].notna()]


@cached_query
def method_points(wh: Warehouse, benchmark: str, split: str) -> pd.DataFrame:
    """One point per (run, doc set, repeat): TS and TC over that evaluation's tasks."""
    df = wh.query(
        """
        SELECT s.origin, re.run_id, coalesce(nullif(any_value(r.name), ''), re.run_id) AS run, e.docset_id,
               e."repeat", any_value(json_extract_string(r.config, '$.method')) AS compare_method,
               count(*) AS n, avg(e.success::INT) AS ts, avg(e.tool_correct::INT) AS tc,
               avg(e.tokens_in + e.tokens_out) AS tokens
        FROM run_episodes re JOIN episodes e USING (episode_id) JOIN doc_sets s ON s.docset_id = e.docset_id
        JOIN runs r ON r.run_id = re.run_id
        WHERE e.benchmark = ? AND e.split = ?
          AND r.kind NOT IN ('study', 'optimize', 'compare-curve', 'chisel-profile', 'chisel-eval')
        GROUP BY s.origin, re.run_id, e.docset_id, e."repeat"
        """,
        [benchmark, split],
    )
    df["method"] = [
        _compare_method(m) if isinstance(m, str) and m else method_of(o)
        for m, o in zip(df["compare_method"], df["origin"], strict=True)
    ]
    return df[df["method"].notna()].drop(columns="compare_method").reset_index(drop=True)


def _compare_method(key: str) -> str:
    """A comparison run's own method key (og, et, drt, dc, dc:<optimizer model>) as a box label.

    Comparison runs say which method they evaluate; the doc set's origin alone
    would put a DocsChisel doc set that equals the original into the OG box.
    """
    if key.startswith("dc:"):
        return f"DC ({key[3:]})"
    return METHOD_OF_ORIGIN.get(key, key.upper())


@cached_query
def efficiency(wh: Warehouse, benchmark: str) -> pd.DataFrame:
    """Per doc set: length of its docs and the tokens / minutes spent producing it, per tool."""
    df = wh.query(
        """
        WITH members AS (
            SELECT m.docset_id, count(*) AS tools, avg(v.tokens) AS doc_tokens
            FROM doc_set_members m JOIN doc_versions v USING (doc_id) GROUP BY 1
        ), prod AS (
            -- per-iteration candidate sets of the optimizer are not results; optimized tools come
            -- from meta.tools when the producer lists them (the other tools kept their original doc)
            SELECT docset_id, origin, coalesce(nullif(name, ''), origin) AS name,
                   json_extract_string(meta, '$.run_id') AS run_id,
                   nullif(len(json_keys(meta, '$.tools')), 0) AS optimized_tools
            FROM doc_sets
            WHERE benchmark = ? AND coalesce(json_extract_string(meta, '$.candidate'), 'false') <> 'true'
        ), tok AS (
            SELECT run_id, sum(tokens_in + tokens_out) AS tokens, count(*) AS calls FROM llm_calls GROUP BY 1
        ), dur AS (
            SELECT run_id, date_diff('second', min(ts), max(ts)) / 60.0 AS minutes FROM run_status GROUP BY 1
        )
        SELECT p.docset_id, p.origin, p.name, p.run_id, coalesce(p.optimized_tools, m.tools) AS tools,
               m.doc_tokens, t.tokens, t.calls, d.minutes
        FROM prod p LEFT JOIN members m USING (docset_id) LEFT JOIN tok t USING (run_id)
        LEFT JOIN dur d USING (run_id)
        """,
        [benchmark],
    )
    df["method"] = df["origin"].map(method_of)
    return df[df["method"].notna()].reset_index(drop=True)


def _memory_flag(config: object) -> str:
    try:
        cfg = json.loads(config) if isinstance(config, str) else dict(config or {})
    except (ValueError, TypeError):
        cfg = {}
    if "memory" in cfg:
        on = bool(cfg["memory"])
    elif "no_memory" in cfg:
        on = not bool(cfg["no_memory"])
    else:
        on = True
    return "with memory" if on else "without memory"


@cached_query
def iteration_curves(wh: Warehouse, benchmark: str) -> pd.DataFrame:
    """Mean over tools of the best accepted validation TS reachable within each iteration budget."""
    df = wh.query(
        """
        SELECT c.run_id, coalesce(nullif(r.name, ''), c.run_id) AS run, r.config, c.tool, c.iteration,
               c.val_ts, c.base_val_ts, c.accepted
        FROM candidates c JOIN runs r USING (run_id)
        WHERE r.benchmark = ?
        ORDER BY c.run_id, c.tool, c.iteration
        """,
        [benchmark],
    )
    if df.empty:
        return pd.DataFrame(columns=["run", "memory", "iteration", "ts"])
    rows = []
    for (run_id, tool), g in df.groupby(["run_id", "tool"], sort=False):
        base = float(g["base_val_ts"].dropna().iloc[0]) if g["base_val_ts"].notna().any() else 0.0
        best = base
        rows.append({"run_id": run_id, "tool": tool, "iteration": 0, "ts": base})
        for r in g.itertuples():
            if r.accepted and pd.notna(r.val_ts):
                best = max(best, float(r.val_ts))
            rows.append({"run_id": run_id, "tool": tool, "iteration": int(r.iteration), "ts": best})
    curve = pd.DataFrame(rows).groupby(["run_id", "iteration"], as_index=False)["ts"].mean()
    meta = df.groupby("run_id").agg(run=("run", "first"), config=("config", "first")).reset_index()
    meta["memory"] = meta["config"].map(_memory_flag)
    return curve.merge(meta[["run_id", "run", "memory"]], on="run_id")
