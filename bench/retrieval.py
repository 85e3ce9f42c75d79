"""Cost of retrieval in the agent loop: index build and per-query `top_k_docs` latency.

    python bench/retrieval.py [--queries 200] [--retriever bm25,dense]

For each benchmark: the first `top_k_docs` call over the whole tool pool
(builds and caches the index), then the mean latency of the following calls
(cached index; dense pays one query embedding per call). Numbers depend on the
machine's load; the run prints it.
"""

from __future__ import annotations

import argparse
import os
import time

from core.benchmarks.registry import get_benchmark
from core.retrieval import RETRIEVERS, top_k_docs


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--queries", type=int, default=200)
    ap.add_argument("--retriever", default=",".join(RETRIEVERS))
    ap.add_argument("--k", type=int, default=5)
    args = ap.parse_args()
    print(f"load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores")
    print(
        f"{'benchmark':<10} {'retriever':<7} {'tools':>5} {'first call s':>12} {'per query ms':>12} {'queries':>7}"
    )
    for name in ("workbench", "api-bank"):
        bench = get_benchmark(name)
        docs = list(bench.original_docs().values())
        queries = [t.query for t in bench.tasks()][: args.queries]
        for retriever in args.retriever.split(","):
            t0 = time.perf_counter()
            top_k_docs(queries[0], docs, k=args.k, retriever=retriever)
            first = time.perf_counter() - t0
            t0 = time.perf_counter()
            for q in queries[1:]:
                top_k_docs(q, docs, k=args.k, retriever=retriever)
            per = (time.perf_counter() - t0) / max(len(queries) - 1, 1)
            print(
                f"{name:<10} {retriever:<7} {len(docs):>5} {first:>12.2f} {per * 1000:>12.1f} {len(queries):>7}"
            )


if __name__ == "__main__":
    main()
