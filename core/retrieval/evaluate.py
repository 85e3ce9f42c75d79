"""Tool-retrieval tasks built from benchmark tasks, and their evaluation.

A retrieval query is a benchmark task's query; its relevant tools are the
tools its ground truth calls (relevance 1 each). The search space is the whole
tool pool of the benchmark, not the subset a task variant would offer, which
is the Tool-REX setting. Tasks whose ground truth calls no tool (WorkBench's
"do nothing" tasks) have no relevant tool and are not retrieval queries.

Benchmark tasks are read by duck typing (`task_id`, `query`, `tools`,
`domain`), so this module does not depend on the benchmarks package.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

from core.docs import ToolDoc
from core.retrieval.metrics import mean_metrics, per_query
from core.retrieval.retrievers import EmbedFn, Retriever, make_retriever, ranking


@dataclass(frozen=True)
class RetrievalQuery:
    qid: str
    query: str
    gold: tuple[str, ...]
    domain: str = ""


def queries_from_tasks(tasks: Iterable[Any], pool: Iterable[str] | None = None) -> list[RetrievalQuery]:
    """One query per task with at least one gold tool (gold tools outside `pool` are dropped)."""
    known = set(pool) if pool is not None else None
    out = []
    for t in tasks:
        gold = tuple(dict.fromkeys(g for g in t.tools if known is None or g in known))
        if gold and str(t.query).strip():
            out.append(RetrievalQuery(str(t.task_id), str(t.query), gold, str(getattr(t, "domain", ""))))
    return out


@dataclass
class RetrievalResult:
    """Rankings (top `depth`) and mean metrics of one retriever over one doc list."""

    retriever: str
    n_tools: int
    rankings: dict[str, list[tuple[str, float]]]
    metrics: dict[str, float]
    per_query: dict[str, dict[str, float]] = field(default_factory=dict)


def run_queries(retriever: Retriever, queries: Sequence[RetrievalQuery], depth: int = 20) -> dict:
    """query id -> [(tool, score)] best first, `depth` long."""
    scores = retriever.scores_many([q.query for q in queries])
    return {q.qid: ranking(retriever.tools, scores[i], depth) for i, q in enumerate(queries)}


def evaluate(
    docs: Sequence[ToolDoc],
    queries: Sequence[RetrievalQuery],
    retriever: str | Retriever = "bm25",
    *,
    ks: Sequence[int] = (5, 10),
    depth: int = 20,
    embed_fn: EmbedFn | None = None,
) -> RetrievalResult:
    """Retrieve every query over `docs` and score nDCG/Recall/Comprehensiveness at each k."""
    r = make_retriever(retriever, docs, embed_fn=embed_fn) if isinstance(retriever, str) else retriever
    rankings = run_queries(r, queries, max(depth, *ks))
    run = {qid: [t for t, _ in ranked] for qid, ranked in rankings.items()}
    qrels = {q.qid: dict.fromkeys(q.gold, 1) for q in queries}
    return RetrievalResult(
        retriever=r.name,
        n_tools=len(docs),
        rankings=rankings,
        metrics=mean_metrics(run, qrels, ks),
        per_query=per_query(run, qrels, ks),
    )
