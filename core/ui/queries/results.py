"""Read queries behind Field impact and Compare.

Methods are recognised by the origin of the doc set an episode ran with
(`doc_sets.origin`): original → OG, easytool → ET, draft → DRT,
docschisel → DC, gepa → GEPA, review → Reviewed. Producers of optimized or baseline doc
sets put the producing run in `doc_sets.meta.run_id`; the efficiency table
reads its costs through `core.warehouse.costs`, as the comparison does.
"""

from __future__ import annotations

import pandas as pd

from core.ui.queries import json_value
from core.ui.state import cached_query
from core.warehouse import Warehouse
from core.warehouse.costs import baseline_costs, chisel_costs, doc_lengths

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
    "gepa": "GEPA",
    "review": "Reviewed",
}


# A field study's runs are evaluations of its variants (kind `eval`, children of the study run):
# its few-task baseline is not the method OG of a comparison.
NOT_STUDY = "json_extract_string(r.config, '$.study_id') IS NULL"

COST_COLUMNS = ("tools_optimized", "opt_tokens_per_tool", "agent_tokens_per_tool", "minutes_per_tool")


def method_of(origin: object) -> str | None:
    return METHOD_OF_ORIGIN.get(str(origin or "").strip().lower())


@cached_query
def field_moves(wh: Warehouse, study_id: str):
    """Where one study's numbers come from (`core.study.moves.explain`): moved and pinned tasks, MDE."""
    from core.study.moves import explain
    from core.study.report import latest_impacts

    return explain(wh, latest_impacts(wh, study_id))


@cached_query
def field_impact(wh: Warehouse) -> pd.DataFrame:
    """Per study cell, the rows of its largest study (as in docs/RESULTS.md); n/a rows left out.

    A cell (benchmark, domain, model, paradigm) measured twice — say on 4 and
    then on 12 tasks — shows one study's rows, never a mix of the two.
    """
    from core.study.report import current_studies, latest_impacts

    rows = latest_impacts(wh)
    if rows.empty:
        return rows
    rows = rows[rows["operation"].isin(["add", "remove"]) & rows["delta_pp"].notna()]
    shown, _ = current_studies(rows)
    return pd.concat(shown, ignore_index=True) if shown else rows.iloc[0:0]


@cached_query
def comparisons(wh: Warehouse) -> list:
    """Stored comparison snapshots, newest first (`core.study.compare_report.stored_comparisons`)."""
    from core.study.compare_report import stored_comparisons

    return stored_comparisons(wh)


@cached_query
def attributions(wh: Warehouse, compare_id: str) -> list[tuple[str, pd.DataFrame]]:
    """(title, table) of each attribution of a comparison's doc sets (`core.study.attribution`)."""
    from core.study.attribution import attribution_rows, table_frame, title

    rows = attribution_rows(wh)
    if rows.empty:
        return []
    mine = rows[rows["compare_id"] == compare_id]
    return [(title(g), table_frame(g)) for _, g in mine.groupby("attribution_id", sort=False)]


@cached_query
def task_domains(wh: Warehouse, benchmark: str) -> list[str]:
    """Domains of a benchmark's imported tasks (empty before its first import)."""
    return [
        r[0]
        for r in wh.rows("SELECT DISTINCT domain FROM tasks WHERE benchmark = ? ORDER BY 1", [benchmark])
        if r[0]
    ]


@cached_query
def compare_benchmarks(wh: Warehouse) -> pd.DataFrame:
    """Benchmarks and splits that have evaluation episodes, with how many doc-set origins ran there."""
    df = wh.query(
        f"""
        SELECT e.benchmark, e.split, s.origin, count(*) AS episodes
        FROM episodes e JOIN doc_sets s USING (docset_id) JOIN runs r USING (run_id)
        WHERE r.kind NOT IN ('study', 'optimize') AND {NOT_STUDY}
        GROUP BY ALL
        """
    )
    df["method"] = df["origin"].map(method_of)
    return df[df["method"].notna()]


# The evaluation episodes of the methods on one benchmark and split (parameters: benchmark, split):
# no study cells, no optimizer-internal evaluations.
_METHOD_EPISODES = f"""
        FROM run_episodes re JOIN episodes e USING (episode_id) JOIN doc_sets s ON s.docset_id = e.docset_id
        JOIN runs r ON r.run_id = re.run_id
        WHERE e.benchmark = ? AND e.split = ?
          AND r.kind NOT IN ('study', 'optimize', 'compare-curve', 'compare-guard', 'chisel-profile', 'chisel-eval')
          AND {NOT_STUDY}
"""


def _with_method(df: pd.DataFrame) -> pd.DataFrame:
    """Rows labelled with their method (a comparison run's own key, else the doc set's origin)."""
    df["method"] = [
        _compare_method(m) if isinstance(m, str) and m else method_of(o)
        for m, o in zip(df["compare_method"], df["origin"], strict=True)
    ]
    return df[df["method"].notna()].drop(columns="compare_method").reset_index(drop=True)


@cached_query
def method_points(wh: Warehouse, benchmark: str, split: str) -> pd.DataFrame:
    """One point per (run, doc set, repeat): TS and TC over that evaluation's tasks."""
    df = wh.query(
        f"""
        SELECT s.origin, re.run_id, coalesce(nullif(any_value(r.name), ''), re.run_id) AS run, e.docset_id,
               e."repeat", any_value(json_extract_string(r.config, '$.method')) AS compare_method,
               count(*) AS n, avg(e.success::INT) AS ts, avg(e.tool_correct::INT) AS tc,
               avg(e.tokens_in + e.tokens_out) AS tokens
        {_METHOD_EPISODES}
        GROUP BY s.origin, re.run_id, e.docset_id, e."repeat"
        """,
        [benchmark, split],
    )
    return _with_method(df)


@cached_query
def method_task_outcomes(wh: Warehouse, benchmark: str, split: str) -> pd.DataFrame:
    """Per method and task: TS and TC over all the method's evaluation episodes of the task (the input
    of the paired per-task test: methods pair on the tasks both ran)."""
    df = wh.query(
        f"""
        SELECT s.origin, json_extract_string(r.config, '$.method') AS compare_method, e.task_id,
               sum(e.success::INT) AS ts, sum(e.tool_correct::INT) AS tc, count(*) AS n
        {_METHOD_EPISODES}
        GROUP BY ALL
        """,
        [benchmark, split],
    )
    out = _with_method(df).groupby(["method", "task_id"], as_index=False)[["ts", "tc", "n"]].sum()
    return out.assign(ts=out["ts"] / out["n"], tc=out["tc"] / out["n"])


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
    """Per produced doc set: its doc length and what producing it cost per tool (Table III's columns).

    The costs come from `core.warehouse.costs`, the reads the comparison
    harness and DocsChisel's results section use, so this page shows the same
    numbers: a baseline's own per-tool record (`doc_sets.meta.costs`) and an
    optimize run's `chisel_tools` rows. Timestamps of run-status rows are not
    used: asking for a stored baseline again appends a row and would inflate it.
    """
    sets = wh.query(
        """SELECT docset_id, origin, coalesce(nullif(name, ''), origin) AS name,
                  json_extract_string(meta, '$.run_id') AS run_id, json_extract(meta, '$.costs') AS costs
           FROM doc_sets
           WHERE benchmark = ? AND coalesce(json_extract_string(meta, '$.candidate'), 'false') <> 'true'""",
        [benchmark],
    )
    sets["method"] = sets["origin"].map(method_of)
    sets = sets[sets["method"].notna()].reset_index(drop=True)
    lengths = doc_lengths(wh, list(sets["docset_id"]))
    dc = chisel_costs(wh, list(sets.loc[sets["method"] == "DC", "run_id"].dropna()))
    zero = dict.fromkeys(COST_COLUMNS, 0.0)
    rows = []
    for r in sets.itertuples(index=False):
        recorded = json_value(r.costs, {})
        if r.method == "OG":
            cost = zero
        elif r.method in ("ET", "DRT", "GEPA") and recorded:
            cost = {**zero, **baseline_costs(recorded)}
        elif r.method == "DC" and r.run_id in dc:
            cost = dc[r.run_id]
        else:  # no cost record (reviewed, imported, older runs): unknown, not 0
            cost = dict.fromkeys(COST_COLUMNS)
        meta = {"docset_id": r.docset_id, "method": r.method, "name": r.name, "run_id": r.run_id}
        rows.append({**meta, "doc_tokens": lengths.get(r.docset_id), **cost})
    return pd.DataFrame(
        rows,
        columns=["docset_id", "method", "name", "run_id", "doc_tokens", *COST_COLUMNS],
    )


def _memory_flag(config: object) -> str:
    cfg = json_value(config, {})
    cfg = cfg if isinstance(cfg, dict) else {}
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
