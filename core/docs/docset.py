"""A DocSet: the documentation of every tool of a benchmark, as one hashed unit.

Runs, episodes and optimizations refer to a doc set by its content hash, so two
runs with byte-identical documentation share their identity (and their cached
episodes) no matter how the docs were produced.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterable, Iterator, Mapping

from core.docs.model import DocError, ToolDoc


class DocSet(Mapping[str, ToolDoc]):
    """An immutable mapping tool -> ToolDoc with a content-hash identity."""

    def __init__(self, docs: Iterable[ToolDoc] | Mapping[str, ToolDoc], name: str = "") -> None:
        items = docs.values() if isinstance(docs, Mapping) else docs
        table: dict[str, ToolDoc] = {}
        for d in items:
            if d.tool in table:
                raise DocError(f"doc set {name or '(unnamed)'}: tool {d.tool!r} documented twice")
            table[d.tool] = d
        self._docs = dict(sorted(table.items()))
        self.name = name

    def __getitem__(self, tool: str) -> ToolDoc:
        return self._docs[tool]

    def __iter__(self) -> Iterator[str]:
        return iter(self._docs)

    def __len__(self) -> int:
        return len(self._docs)

    def __repr__(self) -> str:
        return f"DocSet({self.name or self.docset_id}, {len(self)} tools)"

    @property
    def docset_id(self) -> str:
        """Hash over the (tool, doc_id) pairs; the name is a label, not identity."""
        payload = json.dumps([[t, d.doc_id] for t, d in self._docs.items()], separators=(",", ":"))
        return hashlib.sha256(payload.encode()).hexdigest()[:16]

    def replace(self, doc: ToolDoc, name: str | None = None) -> DocSet:
        """A new set with one tool's doc swapped (the rest untouched)."""
        if doc.tool not in self._docs:
            raise DocError(f"doc set {self.name}: no tool {doc.tool!r} to replace")
        new = dict(self._docs)
        new[doc.tool] = doc
        return DocSet(new.values(), name=self.name if name is None else name)

    def subset(self, tools: Iterable[str]) -> DocSet:
        wanted = set(tools)
        return DocSet([d for t, d in self._docs.items() if t in wanted], name=self.name)

    def to_json(self) -> dict:
        return {
            "name": self.name,
            "docset_id": self.docset_id,
            "tools": [d.to_json() for d in self._docs.values()],
        }

    @classmethod
    def from_json(cls, data: Mapping) -> DocSet:
        return cls([ToolDoc.from_json(t) for t in data["tools"]], name=data.get("name", ""))
