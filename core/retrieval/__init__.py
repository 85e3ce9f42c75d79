"""Tool retrieval: sparse and dense retrievers, retrieval metrics, and the agent's top-k narrowing.

    from core.retrieval import top_k_docs, evaluate, queries_from_tasks
    docs = top_k_docs(task.query, docs, k=5, retriever="bm25")      # used by the runner
    res = evaluate(docset.values(), queries_from_tasks(bench.tasks()), "dense", ks=(10,))
    res.metrics["ndcg@10"], res.metrics["recall@10"], res.metrics["comprehensiveness@10"]

Imports only core.docs (and core.embed lazily, for dense retrieval).
"""

from core.retrieval.evaluate import RetrievalQuery, RetrievalResult, evaluate, queries_from_tasks, run_queries
from core.retrieval.metrics import (
    METRICS,
    comprehensiveness_at_k,
    mean_metrics,
    ndcg_at_k,
    per_query,
    recall_at_k,
)
from core.retrieval.retrievers import (
    RETRIEVERS,
    BM25Retriever,
    DenseRetriever,
    Retriever,
    default_embed,
    index_for,
    make_retriever,
    ranking,
    top_k_docs,
)
from core.retrieval.text import chunks, doc_text, tokenize

__all__ = [
    "METRICS",
    "RETRIEVERS",
    "BM25Retriever",
    "DenseRetriever",
    "RetrievalQuery",
    "RetrievalResult",
    "Retriever",
    "chunks",
    "comprehensiveness_at_k",
    "default_embed",
    "doc_text",
    "evaluate",
    "index_for",
    "make_retriever",
    "mean_metrics",
    "ndcg_at_k",
    "per_query",
    "queries_from_tasks",
    "ranking",
    "recall_at_k",
    "run_queries",
    "tokenize",
    "top_k_docs",
]
