"""Retrieval metrics: nDCG@k, Recall@k and Comprehensiveness@k.

Definitions follow trec_eval (which Tool-REX computes through pytrec_eval):

- nDCG@k = DCG@k / IDCG@k with linear gain, DCG@k = sum_{i<=k} rel_i / log2(i + 1)
  (trec_eval's `ndcg_cut`); IDCG ranks the judged documents by relevance.
- Recall@k = |relevant in the top k| / |relevant| (trec_eval's `recall_k`).
- Comprehensiveness@k = 1 if every relevant document is in the top k, else 0
  (Tool-REX's C@k: the share of queries whose Recall@k is 1).

A query with no relevant document has no defined value and is left out of the
means (trec_eval does the same). `run` rankings are lists, best first; a tool
listed twice counts once, at its first position.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence

Qrels = Mapping[str, Mapping[str, int]]  # query id -> tool -> graded relevance (> 0 is relevant)
Run = Mapping[str, Sequence[str]]  # query id -> ranked tools, best first

METRICS = ("ndcg", "recall", "comprehensiveness")


def _dedupe(ranked: Sequence[str]) -> list[str]:
    return list(dict.fromkeys(ranked))


def ndcg_at_k(ranked: Sequence[str], rels: Mapping[str, int], k: int) -> float:
    top = _dedupe(ranked)[:k]
    dcg = sum(rels.get(t, 0) / math.log2(i + 2) for i, t in enumerate(top) if rels.get(t, 0) > 0)
    ideal = sorted((r for r in rels.values() if r > 0), reverse=True)[:k]
    idcg = sum(r / math.log2(i + 2) for i, r in enumerate(ideal))
    return dcg / idcg if idcg > 0 else 0.0


def recall_at_k(ranked: Sequence[str], rels: Mapping[str, int], k: int) -> float:
    relevant = {t for t, r in rels.items() if r > 0}
    if not relevant:
        return 0.0
    return len(relevant & set(_dedupe(ranked)[:k])) / len(relevant)


def comprehensiveness_at_k(ranked: Sequence[str], rels: Mapping[str, int], k: int) -> float:
    relevant = {t for t, r in rels.items() if r > 0}
    return float(bool(relevant) and relevant <= set(_dedupe(ranked)[:k]))


def per_query(run: Run, qrels: Qrels, ks: Sequence[int] = (10,)) -> dict[str, dict[str, float]]:
    """query id -> {"ndcg@10": ..., "recall@10": ..., "comprehensiveness@10": ...}."""
    out: dict[str, dict[str, float]] = {}
    for qid, rels in qrels.items():
        if not any(r > 0 for r in rels.values()):
            continue
        ranked = run.get(qid, [])
        values: dict[str, float] = {}
        for k in ks:
            values[f"ndcg@{k}"] = ndcg_at_k(ranked, rels, k)
            values[f"recall@{k}"] = recall_at_k(ranked, rels, k)
            values[f"comprehensiveness@{k}"] = comprehensiveness_at_k(ranked, rels, k)
        out[qid] = values
    return out


def mean_metrics(run: Run, qrels: Qrels, ks: Sequence[int] = (10,)) -> dict[str, float]:
    """Means over the queries that have a relevant document (plus `n_queries`)."""
    rows = per_query(run, qrels, ks)
    names = [f"{m}@{k}" for k in ks for m in METRICS]
    means = {n: (sum(r[n] for r in rows.values()) / len(rows) if rows else 0.0) for n in names}
    means["n_queries"] = float(len(rows))
    return means
