"""Sparse (BM25) and dense (MiniLM) tool retrievers, and `top_k_docs` for the agent.

Both retrievers index a fixed list of tool docs and score a query against all
of them; ranking breaks score ties by tool name so results are deterministic.

Dense retrieval uses the shared offline encoder `core.embed.embed` (unit
vectors). A doc longer than the encoder's window is embedded chunk by chunk
and its vector is the length-weighted mean of the chunk vectors, renormalised:
this approximates the encoder's own mean pooling over the whole text, so an
expansion field appended at the end of a long doc still counts. The embedding
function can be injected (tests use a deterministic fake).
"""

from __future__ import annotations

import os
import threading
from collections import OrderedDict
from collections.abc import Callable, Sequence
from contextlib import nullcontext
from typing import Protocol

import numpy as np

from core.docs import ToolDoc
from core.retrieval.text import chunks, doc_text, tokenize

EmbedFn = Callable[[list[str]], np.ndarray]
RETRIEVERS = ("bm25", "dense")


class Retriever(Protocol):
    """Scores a query against a fixed list of tools."""

    name: str
    tools: list[str]

    def scores(self, query: str) -> np.ndarray: ...

    def scores_many(self, queries: Sequence[str]) -> np.ndarray: ...


def ranking(tools: Sequence[str], scores: np.ndarray, k: int | None = None) -> list[tuple[str, float]]:
    """(tool, score) best first; equal scores are ordered by tool name."""
    order = sorted(range(len(tools)), key=lambda i: (-float(scores[i]), tools[i]))
    if k is not None:
        order = order[:k]
    return [(tools[i], float(scores[i])) for i in order]


class BM25Retriever:
    """Okapi BM25 (rank-bm25) over the rendered docs, with identifier-aware terms."""

    name = "bm25"

    def __init__(self, docs: Sequence[ToolDoc], k1: float = 1.5, b: float = 0.75) -> None:
        from rank_bm25 import BM25Okapi

        if not docs:
            raise ValueError("BM25 needs at least one document")
        self.tools = [d.tool for d in docs]
        corpus = [tokenize(doc_text(d)) or ["_empty_"] for d in docs]
        self._bm25 = BM25Okapi(corpus, k1=k1, b=b)

    def scores(self, query: str) -> np.ndarray:
        terms = tokenize(query)
        if not terms:
            return np.zeros(len(self.tools))
        return np.asarray(self._bm25.get_scores(terms), dtype=float)

    def scores_many(self, queries: Sequence[str]) -> np.ndarray:
        return np.stack([self.scores(q) for q in queries]) if queries else np.zeros((0, len(self.tools)))


def _thread_limit():
    """One BLAS thread by default: on a shared 2-core machine it is several times faster than two."""
    try:
        from threadpoolctl import threadpool_limits
    except ImportError:  # pragma: no cover - threadpoolctl comes with scipy's stack
        return nullcontext()
    return threadpool_limits(int(os.environ.get("DOCSCHISEL_EMBED_THREADS", "1")))


def default_embed(texts: list[str]) -> np.ndarray:
    """The shared offline encoder (core.embed), unit-length rows."""
    from core.embed import embed

    with _thread_limit():
        return np.asarray(embed(texts), dtype=np.float32)


class DenseRetriever:
    """Cosine similarity between the query and the (chunk-pooled) doc embeddings."""

    name = "dense"

    def __init__(
        self, docs: Sequence[ToolDoc], embed_fn: EmbedFn | None = None, max_chars: int = 700
    ) -> None:
        if not docs:
            raise ValueError("dense retrieval needs at least one document")
        self.embed_fn = embed_fn or default_embed
        self.tools = [d.tool for d in docs]
        pieces = [chunks(doc_text(d), max_chars) for d in docs]
        flat = [p for ps in pieces for p in ps]
        vectors = np.asarray(self.embed_fn(flat), dtype=np.float32)
        rows, start = [], 0
        for ps in pieces:
            weights = np.array([len(p) for p in ps], dtype=np.float32)[:, None]
            pooled = (vectors[start : start + len(ps)] * weights).sum(0)
            rows.append(pooled / max(float(np.linalg.norm(pooled)), 1e-12))
            start += len(ps)
        self.matrix = np.stack(rows)

    def scores(self, query: str) -> np.ndarray:
        return self.scores_many([query])[0]

    def scores_many(self, queries: Sequence[str]) -> np.ndarray:
        if not queries:
            return np.zeros((0, len(self.tools)))
        q = np.asarray(self.embed_fn(list(queries)), dtype=np.float32)
        return q @ self.matrix.T


def make_retriever(name: str, docs: Sequence[ToolDoc], *, embed_fn: EmbedFn | None = None) -> Retriever:
    """A retriever by name: `bm25` or `dense`."""
    key = name.strip().lower()
    if key in ("bm25", "sparse"):
        return BM25Retriever(docs)
    if key in ("dense", "minilm"):
        return DenseRetriever(docs, embed_fn=embed_fn)
    raise ValueError(f"unknown retriever {name!r}; expected one of {', '.join(RETRIEVERS)}")


# ------------------------------------------------------------------ the agent's narrowing step
_INDEX: OrderedDict[tuple[str, tuple[str, ...]], Retriever] = OrderedDict()
_INDEX_SIZE = 64
_lock = threading.Lock()


def index_for(docs: Sequence[ToolDoc], retriever: str = "bm25") -> Retriever:
    """The retriever over exactly these docs, built once per (retriever, doc versions)."""
    key = (retriever, tuple(d.doc_id for d in docs))
    with _lock:
        found = _INDEX.get(key)
        if found is not None:
            _INDEX.move_to_end(key)
            return found
    built = make_retriever(retriever, docs)
    with _lock:
        _INDEX[key] = built
        while len(_INDEX) > _INDEX_SIZE:
            _INDEX.popitem(last=False)
    return built


def top_k_docs(query: str, docs: Sequence[ToolDoc], k: int, retriever: str = "bm25") -> list[ToolDoc]:
    """The k docs that best match `query`, best first (all docs, unchanged, when k >= len(docs))."""
    docs = list(docs)
    if k <= 0:
        raise ValueError(f"retrieval k must be positive, got {k}")
    if k >= len(docs):
        return docs
    index = index_for(docs, retriever)
    by_tool = {d.tool: d for d in docs}
    return [by_tool[t] for t, _ in ranking(index.tools, index.scores(query), k)]
