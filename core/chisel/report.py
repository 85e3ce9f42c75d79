"""The DocsChisel section of docs/RESULTS.md (the paper's Table III columns), from the warehouse.

An optimize run's held-out test numbers come from `chisel-test` runs (written
by `bench/optimize_e2e.py` or `core.chisel.heldout.evaluate_on_test`): the same test tasks with the
original and with the optimized doc set. Per-tool cost comes from
`chisel_tools` through `core.warehouse.costs.chisel_run_costs` (shared with the
comparison harness and the dashboard): wall minutes of the tool's loop plus its
share of the domain's profiling, optimizer-LLM tokens (zero for the offline
evidence engine) and the target agent's tokens spent on re-evaluation.
"""

from __future__ import annotations

import json
from collections.abc import Sequence

import pandas as pd

from core.tables import markdown_table as table
from core.warehouse.costs import chisel_run_costs


def table_iii(warehouse) -> pd.DataFrame:
    """One row per finished optimize run that has test results."""
    runs = warehouse.query(
        """SELECT r.run_id, r.config, s.detail
           FROM runs r JOIN run_status s ON s.run_id = r.run_id AND s.status = 'finished'
           WHERE r.kind = 'optimize' QUALIFY row_number() OVER (PARTITION BY r.run_id ORDER BY s.ts DESC) = 1"""
    )
    costs = chisel_run_costs(warehouse, list(runs["run_id"])).set_index("run_id")
    rows = []
    for rec in runs.itertuples(index=False):
        cfg = json.loads(rec.config)
        tests = warehouse.query(
            """SELECT json_extract_string(r.config, '$.docs') AS docs, count(*) AS n,
                      avg(e.success::INT) AS ts, avg(e.tool_correct::INT) AS tc
               FROM runs r JOIN run_episodes re USING (run_id) JOIN episodes e USING (episode_id)
               WHERE r.kind = 'chisel-test' AND json_extract_string(r.config, '$.optimize_run') = ?
               GROUP BY 1""",
            [rec.run_id],
        )
        if tests.empty:
            continue
        t = {r.docs: r for r in tests.itertuples(index=False)}
        if rec.run_id not in costs.index or "original" not in t or "optimized" not in t:
            continue
        c = costs.loc[rec.run_id]
        ts0, ts1 = float(t["original"].ts), float(t["optimized"].ts)
        rows.append(
            {
                "benchmark": cfg["benchmark"],
                "domains": ",".join(cfg.get("domains") or []) or "all",
                "seed": cfg["seed"],
                "memory": "on" if cfg.get("memory", True) else "off",
                "iters": cfg["iterations"],
                "tools (changed)": f"{int(c['tools'])} ({int(c['changed'])})",
                "test tasks": int(t["original"].n),
                "TS orig %": 100 * ts0,
                "TS opt %": 100 * ts1,
                "rel. TS %": (100 * (ts1 - ts0) / ts0) if ts0 else float("nan"),
                "TC orig %": 100 * float(t["original"].tc),
                "TC opt %": 100 * float(t["optimized"].tc),
                "min / tool": float(c["minutes_per_tool"]),
                "optimizer tokens / tool": float(c["optimizer_tokens"]),
                "agent tokens / tool": float(c["agent_tokens"]),
                "doc tokens orig": float(c["doc_tokens_before"]),
                "doc tokens opt": float(c["doc_tokens_after"]),
            }
        )
    return pd.DataFrame(rows)


def summarise(
    df: pd.DataFrame, by: Sequence[str] = ("benchmark", "domains", "memory", "iters")
) -> pd.DataFrame:
    """Mean over optimization seeds."""
    if df.empty:
        return df
    num = [c for c in df.columns if df[c].dtype.kind in "fi" and c != "seed"]
    out = df.groupby(list(by), as_index=False)[num].mean()
    out.insert(len(by), "seeds", df.groupby(list(by)).size().values)
    return out


def chisel_section(warehouse) -> str | None:
    try:
        df = table_iii(warehouse)
    except Exception:  # noqa: BLE001 - a warehouse without the chisel tables has nothing to report
        return None
    if df.empty:
        return None
    return (
        "Original vs DocsChisel-optimized documentation on the held-out test split (tasks of the optimized "
        "tools; the optimizer never read them). `min / tool` is wall time of the tool's loop plus its share "
        "of profiling on the machine that ran it; optimizer tokens are zero for the offline evidence engine; "
        "agent tokens are what the target agent spent re-evaluating candidates. Paper anchors: +95.89% "
        "relative TS, 12.65 min and 4,481 tokens per tool, docs 189 tokens (original 153).\n\n"
        "Mean over optimization seeds:\n\n" + table(summarise(df)) + "\n\nPer run:\n\n" + table(df)
    )
