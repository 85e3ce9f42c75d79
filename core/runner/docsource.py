"""Resolve what the user means by `--docs`: original, a doc-set id, a run id, or a file.

Accepting every handle a user might paste (the id printed by `optimize`, the
id shown in the dashboard, an exported JSON file) keeps "evaluate these docs"
one command whatever produced them.
"""

from __future__ import annotations

from pathlib import Path

from core.benchmarks.base import Benchmark
from core.docs import DocError, DocSet


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
    rows = warehouse.rows("SELECT docset_id FROM doc_sets WHERE docset_id = ?", [ref])
    if rows:
        return _complete(original, warehouse.load_docset(ref))
    try:
        from core.chisel import resolve_docset
    except ImportError:
        resolve_docset = None
    if resolve_docset is not None:
        found = resolve_docset(warehouse, ref)
        if found is not None:
            return _complete(original, found)
    rows = warehouse.rows(
        "SELECT json_extract_string(config, '$.docset_id') FROM runs WHERE run_id = ? AND kind = 'eval'",
        [ref],
    )
    if rows and rows[0][0]:
        return _complete(original, warehouse.load_docset(rows[0][0]))
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
