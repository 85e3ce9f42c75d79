"""Resolve what the user means by `--docs`: original, a doc-set id, a run id, or a file.

Accepting every handle a user might paste (the id printed by `optimize`, the
id shown in the dashboard, an exported JSON file) keeps "evaluate these docs"
one command whatever produced them.
"""

from __future__ import annotations

from pathlib import Path

from core.benchmarks.base import Benchmark
from core.docs import DocError, DocSet
from core.warehouse import reads


def resolve_docs(warehouse, bench: Benchmark, ref: str) -> DocSet:
    """The DocSet for `ref`, completed with the original docs of tools it does not cover."""
    original = bench.original_docs()
    if ref in ("", "original", "og"):
        return DocSet(original.values(), name="original")
    path = Path(ref).expanduser()
    if path.exists():
        from core.docs.parsers import load_docs

        docs = load_docs(path)
        return _complete(original, DocSet(docs, name=path.stem))
    for docset_id in (
        ref if reads.has_docset(warehouse, ref) else None,
        reads.result_docset_id(warehouse, ref),  # an optimize (or other producing) run id
        reads.eval_run_docset_id(warehouse, ref),  # the doc set an eval run evaluated
    ):
        if docset_id is not None:
            try:
                return _complete(original, warehouse.load_docset(docset_id))
            except KeyError:
                continue
    raise DocError(
        f"--docs {ref!r} is neither 'original', a doc-set id, a run id nor an existing file "
        f"(warehouse {warehouse.path})"
    )


def _complete(original: DocSet, docs: DocSet) -> DocSet:
    """Tools missing from `docs` keep their original documentation."""
    unknown = sorted(set(docs) - set(original))
    if unknown:
        raise DocError(f"doc set {docs.name or docs.docset_id} documents unknown tools: {unknown[:5]}")
    merged = {**dict(original), **dict(docs)}
    return DocSet(merged.values(), name=docs.name)
