"""docs/RESULTS.md section: Tool-REX expansion (judge outcomes) and tool-retrieval metrics with the ablation."""

from __future__ import annotations

import pandas as pd

from core.expansion.profile import FIELD_MAP, PROFILE_FIELDS
from core.tables import markdown_table as table

LATEST_FINISHED = (
    "(SELECT run_id, arg_max(detail, ts) AS detail FROM run_status WHERE status = 'finished' GROUP BY run_id)"
)


def _has(wh, name: str) -> bool:
    return bool(wh.scalar("SELECT count(*) FROM information_schema.tables WHERE table_name = ?", [name]))


def expansion_runs(wh) -> pd.DataFrame:
    """The latest finished expansion run per (benchmark, models): tools, fields accepted/rejected, tokens.

    Earlier runs of the same models (older prompt or rule versions) are superseded and not shown.
    """
    return wh.query(
        f"""
        SELECT r.run_id, r.benchmark,
               json_extract_string(r.config, '$.model') AS model,
               coalesce(json_extract_string(r.config, '$.judge_model'), 'rules only') AS judge,
               coalesce(json_extract_string(r.config, '$.strong_model'), '-') AS strong,
               json_extract(s.detail, '$.tools')::INT AS tools,
               json_extract(s.detail, '$.accepted')::INT AS "fields accepted",
               json_extract(s.detail, '$.rejected')::INT AS "fields rejected",
               json_extract(s.detail, '$.regenerated')::INT AS regenerated,
               json_extract(s.detail, '$.tokens_original')::DOUBLE AS "tokens original",
               json_extract(s.detail, '$.tokens_expanded')::DOUBLE AS "tokens expanded",
               r.created_at
        FROM runs r JOIN {LATEST_FINISHED} s USING (run_id)
        WHERE r.kind = 'expansion'
        QUALIFY row_number() OVER (PARTITION BY r.benchmark, model, judge, strong ORDER BY r.created_at DESC) = 1
        ORDER BY r.benchmark, r.created_at
        """
    )


def verdict_counts(wh) -> pd.DataFrame:
    """Per run and profile field: proposed, rejected by rule, rejected by the LLM judge, accepted."""
    return wh.query(
        """
        WITH v AS (
          SELECT a.run_id, a.tool, a.attempt, v.field,
                 bool_or(v.stage = 'rule' AND NOT v.accepted) AS rule_rej,
                 bool_or(v.stage = 'llm' AND NOT v.accepted) AS llm_rej
          FROM expansion_verdicts v JOIN expansion_attempts a USING (attempt_id)
          GROUP BY ALL)
        SELECT run_id, field, count(*)::INT AS proposed,
               sum(rule_rej::INT)::INT AS "rejected by rules",
               sum((llm_rej AND NOT rule_rej)::INT)::INT AS "rejected by LLM judge",
               sum((NOT rule_rej AND NOT llm_rej)::INT)::INT AS accepted
        FROM v GROUP BY ALL ORDER BY run_id, field
        """
    )


def retrieval_table(wh, k: int = 10) -> pd.DataFrame:
    """Metrics of the latest retrieval run per benchmark and doc set, at k.

    `expansion` names the judge of the expansion run behind the doc set, so two
    expansions of one benchmark (e.g. rules only vs rules + LLM judge) stay apart.
    """
    return wh.query(
        """
        WITH latest AS (
          SELECT arg_max(r.run_id, r.created_at) AS run_id
          FROM runs r WHERE r.kind = 'retrieval'
          GROUP BY r.benchmark, json_extract_string(r.config, '$.docs')),
        exp AS (
          SELECT run_id AS expansion_run,
                 'judge ' || coalesce(json_extract_string(config, '$.judge_model'), 'rules only')
                   || coalesce(', regen ' || json_extract_string(config, '$.strong_model'), '') AS expansion
          FROM runs WHERE kind = 'expansion')
        SELECT m.benchmark, m.retriever, m.variant, coalesce(exp.expansion, '-') AS expansion,
               m.ndcg, m.recall, m.comprehensiveness,
               m.n_queries, m.n_tools, json_extract(m.detail, '$.changed_tools')::INT AS changed, m.run_id
        FROM retrieval_metrics m JOIN latest USING (run_id) JOIN runs r USING (run_id)
        LEFT JOIN exp ON exp.expansion_run = json_extract_string(r.config, '$.expansion_run')
        WHERE m.k = ?
        ORDER BY m.benchmark, m.retriever, m.variant
        """,
        [k],
    )


def paired_p(wh, run_id: str, benchmark: str, retriever: str, variant: str) -> float | None:
    """Two-sided Wilcoxon signed-rank p of per-query nDCG, `variant` vs original in the same run."""
    df = wh.query(
        """SELECT o.ndcg AS base, v.ndcg AS var FROM retrieval_rankings o JOIN retrieval_rankings v
             ON v.run_id = o.run_id AND v.benchmark = o.benchmark AND v.retriever = o.retriever AND v.qid = o.qid
           WHERE o.run_id = ? AND o.benchmark = ? AND o.retriever = ? AND o.variant = 'original' AND v.variant = ?""",
        [run_id, benchmark, retriever, variant],
    )
    diff = (df["var"] - df["base"]).to_numpy()
    if len(diff) == 0 or not diff.any():
        return None
    from scipy.stats import wilcoxon

    return float(wilcoxon(diff, zero_method="wilcox").pvalue)


def ablation_table(df: pd.DataFrame) -> pd.DataFrame:
    """Add-one deltas vs original and one-out deltas vs the full expansion, in points (x100)."""
    rows = []
    for (bench, retr, expansion), g in df.groupby(["benchmark", "retriever", "expansion"]):
        by = {r.variant: r for r in g.itertuples(index=False)}
        originals = df[(df.benchmark == bench) & (df.retriever == retr) & (df.variant == "original")]
        if "original" not in by and not originals.empty:
            by["original"] = next(originals.itertuples(index=False))
        if "original" not in by or "expanded" not in by:
            continue
        base, full = by["original"], by["expanded"]
        for f in PROFILE_FIELDS:
            add, out = by.get(f"add:{f}"), by.get(f"out:{f}")
            if add is None or out is None:
                continue
            rows.append(
                {
                    "benchmark": bench,
                    "retriever": retr,
                    "expansion": expansion,
                    "field": f"{f} ({FIELD_MAP[f]})",
                    "tools with it": add.changed,
                    "add-one ΔnDCG": 100 * (add.ndcg - base.ndcg),
                    "add-one ΔR": 100 * (add.recall - base.recall),
                    "add-one ΔC": 100 * (add.comprehensiveness - base.comprehensiveness),
                    "one-out ΔnDCG": 100 * (out.ndcg - full.ndcg),
                    "one-out ΔR": 100 * (out.recall - full.recall),
                    "one-out ΔC": 100 * (out.comprehensiveness - full.comprehensiveness),
                }
            )
    return pd.DataFrame(rows)


def sample_rejections(wh, run_ids: list[str], limit: int = 10) -> pd.DataFrame:
    return wh.query(
        """
        SELECT a.benchmark, a.tool, v.field, v.stage, left(v.content, 70) AS content, left(v.reason, 90) AS reason
        FROM expansion_verdicts v JOIN expansion_attempts a USING (attempt_id)
        WHERE NOT v.accepted AND v.content <> '' AND a.run_id IN (SELECT unnest(?::VARCHAR[]))
        ORDER BY hash(a.run_id || a.tool || v.field || v.stage) LIMIT ?
        """,
        [run_ids, limit],
    )


def toolrex(wh) -> str | None:
    if not _has(wh, "expansion_attempts"):
        return None
    runs = expansion_runs(wh)
    k = 10
    if _has(wh, "retrieval_metrics"):
        ks = [r[0] for r in wh.rows("SELECT DISTINCT k FROM retrieval_metrics")]
        k = 10 if 10 in ks or not ks else max(ks)
    metrics = retrieval_table(wh, k) if _has(wh, "retrieval_metrics") else pd.DataFrame()
    if runs.empty and metrics.empty:
        return None
    parts = [
        "Each tool doc is expanded into a query-agnostic profile (function_description, tags; when_to_use, "
        "limitations, example_usage only when supported), judged by deterministic grounding rules and "
        "optionally an LLM judge whose `supported` verdict must quote the doc, and appended to the original "
        "(FD, TD, UG, IC, UE; see `core/expansion/profile.py`). Rejected fields are left out, so the "
        "expanded doc contains only what the judge accepted (`docschisel expand`)."
    ]
    if not runs.empty:
        shown = runs.drop(columns=["run_id", "created_at"])
        parts += ["", "**Expansion runs**", "", table(shown)]
        counts = verdict_counts(wh)
        if not counts.empty:
            labels = {r.run_id: f"{r.benchmark} / judge {r.judge}" for r in runs.itertuples(index=False)}
            counts = counts[counts.run_id.isin(labels)]
            counts.insert(0, "run", counts.pop("run_id").map(labels))
            counts = counts.sort_values(["run", "field"])
            parts += ["", "**Judge outcome per profile field**", "", table(counts)]
        rej = sample_rejections(wh, list(runs.run_id))
        if not rej.empty:
            parts += ["", "**Examples of rejected fields**", "", table(rej)]
    if not metrics.empty:
        main = metrics[~metrics.variant.str.contains(":")].copy()
        main.loc[main.variant == "original", "expansion"] = "-"
        cols = ["benchmark", "retriever", "variant", "expansion", "ndcg", "recall", "comprehensiveness"]
        shown = main[cols + ["n_queries", "n_tools", "changed", "run_id"]].drop_duplicates(cols).copy()
        shown["p vs original"] = [
            None if r.variant == "original" else paired_p(wh, r.run_id, r.benchmark, r.retriever, r.variant)
            for r in shown.itertuples(index=False)
        ]
        shown["p vs original"] = shown["p vs original"].map(
            lambda p: "" if p is None or pd.isna(p) else f"{p:.2g}"
        )
        shown = shown.drop(columns="run_id")
        shown = shown.assign(first=shown.variant != "original").sort_values(
            ["benchmark", "retriever", "first"]
        )
        shown = shown.drop(columns="first").rename(
            columns={
                "ndcg": "nDCG@10",
                "recall": "R@10",
                "comprehensiveness": "C@10",
                "changed": "tools changed",
            }
        )
        parts += [
            "",
            "**Tool retrieval** (`docschisel retrieval eval`): each task's query against the benchmark's whole "
            "tool pool, gold = the tools of its ground truth; BM25 (rank-bm25, identifier-aware terms, "
            "stop-words) and dense (all-MiniLM-L6-v2, chunk-pooled docs). p: two-sided Wilcoxon signed-rank "
            "test of per-query nDCG against the original docs.",
            "",
            table(shown, floatfmt=".3f"),
        ]
        abl = ablation_table(metrics)
        if not abl.empty:
            parts += [
                "",
                f"**Field ablation at k={k}** (points; add-one = original + one field vs original; one-out = full "
                "expansion − one field vs full expansion):",
                "",
                table(abl, floatfmt="+.1f"),
            ]
    return "\n".join(parts)
