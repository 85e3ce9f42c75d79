"""An SOP (a schema plus code) and a toolset of them, each with a content-hash identity.

The schema is a `ToolDoc` like any other tool's (dispatch key `sop.<name>`), so
it renders to the agent's prompt or tool schema, exports to OpenAI / MCP, and
DocsChisel can optimise it. The code is generated Python source: it is only
ever parsed here (`core.sop.validate`) and run in the worker.

Identity: an SOP is its name, doc and code (where it came from is lineage,
not identity), and a toolset is the set of its SOPs' ids; the toolset id goes
into the benchmark key of the episodes that offered it, so evaluations of two
toolsets never share an episode and a re-run finds its own.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass, field, replace
from typing import Any

from core.docs import DocSet, ToolDoc
from core.warehouse.records import content_hash

PREFIX = "sop."
ORIGINS = ("composer", "llm", "merge", "manual")


def sop_tool(name: str) -> str:
    """The dispatch key of an SOP named `name`."""
    return PREFIX + name


def is_sop_tool(tool: str | None) -> bool:
    return bool(tool) and str(tool).startswith(PREFIX)


@dataclass(frozen=True)
class Sop:
    """One higher-order tool: the function `name` of `code`, documented by `doc`, calling `uses` in order."""

    name: str
    doc: ToolDoc
    code: str
    uses: tuple[str, ...]
    origin: str = "composer"
    parents: tuple[str, ...] = ()  # SOP ids a merged composite generalises
    sources: tuple[str, ...] = ()  # episode ids (or gold:<task>) it was built from
    pattern: str = ""  # the composer's pattern key: equal routines are built once
    meta: Mapping[str, Any] = field(default_factory=dict)

    def __post_init__(self) -> None:
        if self.doc.tool != sop_tool(self.name):
            raise ValueError(
                f"SOP {self.name!r}: its doc documents {self.doc.tool!r}, not {sop_tool(self.name)!r}"
            )
        if self.origin not in ORIGINS:
            raise ValueError(f"unknown SOP origin {self.origin!r}; expected one of {ORIGINS}")

    @property
    def tool(self) -> str:
        return self.doc.tool

    @property
    def sop_id(self) -> str:
        return content_hash("sop", self.name, self.doc.doc_id, self.code)

    def with_doc(self, doc: ToolDoc) -> Sop:
        """The same code under another doc (e.g. one DocsChisel optimised)."""
        return replace(self, doc=doc)

    def to_json(self) -> dict[str, Any]:
        return {
            "sop_id": self.sop_id,
            "name": self.name,
            "doc": self.doc.to_json(),
            "code": self.code,
            "uses": list(self.uses),
            "origin": self.origin,
            "parents": list(self.parents),
            "sources": list(self.sources),
            "pattern": self.pattern,
            "meta": dict(self.meta),
        }

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> Sop:
        return cls(
            name=str(data["name"]),
            doc=ToolDoc.from_json(data["doc"]),
            code=str(data["code"]),
            uses=tuple(data.get("uses") or ()),
            origin=str(data.get("origin") or "composer"),
            parents=tuple(data.get("parents") or ()),
            sources=tuple(data.get("sources") or ()),
            pattern=str(data.get("pattern") or ""),
            meta=dict(data.get("meta") or {}),
        )


class Toolset:
    """An immutable set of SOPs keyed by tool, with a content-hash identity."""

    def __init__(self, sops: Iterable[Sop] = ()) -> None:
        table: dict[str, Sop] = {}
        for s in sops:
            if s.tool in table and table[s.tool].sop_id != s.sop_id:
                raise ValueError(f"two different SOPs are both named {s.name!r}")
            table[s.tool] = s
        self._sops = dict(sorted(table.items()))

    def __iter__(self) -> Iterator[Sop]:
        return iter(self._sops.values())

    def __len__(self) -> int:
        return len(self._sops)

    def __contains__(self, tool: object) -> bool:
        return tool in self._sops

    def __repr__(self) -> str:
        return f"Toolset({self.toolset_id}, {len(self)} SOPs)"

    def get(self, tool: str) -> Sop | None:
        return self._sops.get(tool)

    def by_id(self) -> dict[str, Sop]:
        return {s.sop_id: s for s in self}

    @property
    def ids(self) -> list[str]:
        return sorted(s.sop_id for s in self)

    @property
    def toolset_id(self) -> str:
        return content_hash("sop-toolset", self.ids)

    def names(self) -> set[str]:
        return {s.name for s in self}

    def patterns(self) -> set[str]:
        return {s.pattern for s in self if s.pattern}

    def wrapped_writes(self, read_only: Iterable[str]) -> frozenset[str]:
        """The atomic tools these SOPs call that are not read-only: what `offer="instead"` withholds."""
        ro = set(read_only)
        return frozenset(t for s in self for t in s.uses if t not in ro and not is_sop_tool(t))

    def union(self, sops: Iterable[Sop]) -> Toolset:
        return Toolset([*self, *sops])

    def without(self, sop_ids: Iterable[str]) -> Toolset:
        drop = set(sop_ids)
        return Toolset(s for s in self if s.sop_id not in drop)

    def docset(self, atomic: DocSet, name: str = "") -> DocSet:
        """The doc set offered to the agent: the atomic docs plus every SOP's doc."""
        return DocSet([*atomic.values(), *(s.doc for s in self)], name=name or f"sop:{self.toolset_id}")

    def to_json(self) -> dict[str, Any]:
        return {"toolset_id": self.toolset_id, "sops": [s.to_json() for s in self]}

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> Toolset:
        return cls(Sop.from_json(s) for s in data.get("sops") or ())
