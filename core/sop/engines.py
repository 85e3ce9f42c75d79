"""The interchangeable engines of EvoSOP's constructor, merger and reviewer.

    constructor, merger, reviewer = make_engines("composer", reviewer="evidence")
    constructor, merger, reviewer = make_engines("llm", model="local/qwen2.5-coder-1.5b", reviewer="llm")

Like DocsChisel's engines: an offline, deterministic one (the composer mines
patterns and fills a template; the merger composes branches; the reviewer
labels from execution evidence) and an LLM one (`core.sop.llm`, any model
through the gateway, pydantic-validated output) with the same interface, so
the evolve loop never asks which it has.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Protocol

from core.benchmarks.base import Call
from core.docs import DocSet
from core.sop.composer import Rejected, compose
from core.sop.merge import merge_offline
from core.sop.mining import Experience, doc_linked, merged, mine
from core.sop.model import Sop, Toolset
from core.sop.review import Invocation, Review, review_offline

CONSTRUCTORS = ("composer", "llm")
REVIEWERS = ("evidence", "llm")


class Constructor(Protocol):
    name: str

    def construct(
        self, experiences: Sequence[Experience], atomic: DocSet, existing: Toolset, *, run_id: str, epoch: int
    ) -> tuple[list[Sop], list[Rejected]]: ...


class Merger(Protocol):
    name: str

    def merge(
        self, toolset: Toolset, atomic: DocSet, *, run_id: str, epoch: int
    ) -> tuple[list[Sop], list[Rejected]]: ...


class Reviewer(Protocol):
    name: str

    def review(
        self,
        inv: Invocation,
        sop: Sop,
        *,
        writes: Callable[[str], bool],
        is_error: Callable[[str | None], bool],
        gold: Sequence[Call] | None,
        run_id: str,
    ) -> Review: ...


@dataclass(frozen=True)
class ComposerConstructor:
    """Mine the batch's trusted segments, compose the best `max_new` unseen patterns."""

    max_len: int = 3
    max_new: int = 3
    min_support: int = 1
    name: str = "composer"
    # with `doc_links`, lookup -> write routines the batch's gold writes need are linked through the
    # read-only tools' docs too (`core.sop.mining.doc_linked`), beside the ones mined from trajectories
    doc_links: bool = False
    read_only: frozenset[str] = frozenset()

    def construct(
        self, experiences: Sequence[Experience], atomic: DocSet, existing: Toolset, *, run_id: str, epoch: int
    ) -> tuple[list[Sop], list[Rejected]]:
        patterns = mine(experiences, max_len=self.max_len)
        if self.doc_links:
            patterns = merged(patterns, doc_linked(experiences, atomic, self.read_only))
        return compose(
            patterns, atomic, existing=existing, max_new=self.max_new, min_support=self.min_support
        )


@dataclass(frozen=True)
class OfflineMerger:
    name: str = "offline"

    def merge(
        self, toolset: Toolset, atomic: DocSet, *, run_id: str, epoch: int
    ) -> tuple[list[Sop], list[Rejected]]:
        return merge_offline(toolset, atomic)


@dataclass(frozen=True)
class EvidenceReviewer:
    name: str = "evidence"

    def review(
        self,
        inv: Invocation,
        sop: Sop,
        *,
        writes: Callable[[str], bool],
        is_error: Callable[[str | None], bool],
        gold: Sequence[Call] | None,
        run_id: str,
    ) -> Review:
        return review_offline(inv, sop, writes=writes, is_error=is_error, gold=gold)


def make_engines(
    constructor: str = "composer",
    *,
    model: str | None = None,
    reviewer: str = "evidence",
    max_new: int = 3,
    max_len: int = 3,
    min_support: int = 1,
    seed: int = 0,
    doc_links: bool = False,
    read_only: frozenset[str] = frozenset(),
) -> tuple[Constructor, Merger, Reviewer]:
    """The engines by name; the LLM ones run `model` through the gateway (any model, the local ones too)."""
    if constructor not in CONSTRUCTORS:
        raise ValueError(f"unknown SOP constructor {constructor!r}; expected one of {CONSTRUCTORS}")
    if reviewer not in REVIEWERS:
        raise ValueError(f"unknown SOP reviewer {reviewer!r}; expected one of {REVIEWERS}")
    if "llm" in (constructor, reviewer):
        from core.llm import default_optimizer_model
        from core.sop import llm

        model = model or default_optimizer_model()
    cons: Constructor = ComposerConstructor(
        max_len, max_new, min_support, doc_links=doc_links, read_only=read_only
    )
    merger: Merger = OfflineMerger()
    if constructor == "llm":
        cons = llm.LlmConstructor(model, max_new=max_new, seed=seed)
        merger = llm.LlmMerger(model, seed=seed)
    rev: Reviewer = llm.LlmReviewer(model, seed=seed) if reviewer == "llm" else EvidenceReviewer()
    return cons, merger, rev
