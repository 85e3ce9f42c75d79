"""The Tool-REX expansion pipeline: generate a profile, judge it, regenerate failures.

Per tool: (1) the expansion model writes a profile (one call, query-agnostic,
grounded prompt, JSON constrained by the profile schema); (2) the judge checks
it (rules, then the LLM judge on the fields that passed); (3) when a field was
rejected or a required field is missing and a stronger model is configured,
the stronger model regenerates the whole profile with the same prompt and it
is judged again. The final profile takes each field from the first attempt
that got it accepted; rejected fields are left out (the doc keeps its original
content for them). The expanded doc is original ∪ accepted profile.

A failed model call is data (an attempt with an error and rejected fields),
never an exception that stops the batch.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from core.docs import DocSet, ToolDoc, render_text
from core.expansion.judge import FieldVerdict, llm_judge, rule_check
from core.expansion.profile import (
    PROFILE_FIELDS,
    REQUIRED_FIELDS,
    ToolProfile,
    apply_profile,
    response_schema,
)
from core.expansion.prompts import expansion_messages

MAX_TOKENS = 350


@dataclass
class Attempt:
    """One generation and its judgement."""

    attempt: int
    model: str
    raw: str | None
    parse_error: str | None = None
    error: str | None = None
    verdicts: list[FieldVerdict] = field(default_factory=list)
    accepted: dict[str, Any] = field(default_factory=dict)
    tokens_in: int = 0
    tokens_out: int = 0
    latency_s: float = 0.0

    @property
    def rejected(self) -> list[str]:
        return sorted({v.field for v in self.verdicts if not v.accepted})

    def needs_regeneration(self) -> bool:
        return bool(self.rejected) or any(f not in self.accepted for f in REQUIRED_FIELDS)


@dataclass
class ToolExpansion:
    """Everything about one tool's expansion: attempts, final profile, expanded doc."""

    tool: str
    original: ToolDoc
    attempts: list[Attempt]
    profile: ToolProfile
    sources: dict[str, int]  # profile field -> attempt number it came from
    expanded: ToolDoc

    @property
    def regenerated(self) -> bool:
        return len(self.attempts) > 1


def generate(doc: ToolDoc, model: str, attempt: int, *, seed: int = 0, run_id: str | None = None) -> Attempt:
    """One expansion call; the raw reply is kept whatever it is."""
    from core.llm import complete

    start = time.perf_counter()
    try:
        result = complete(
            model,
            expansion_messages(render_text(doc)),
            response_format={
                "type": "json_schema",
                "json_schema": {"name": "tool_profile", "schema": response_schema()},
            },
            temperature=0.0,
            seed=seed,
            max_tokens=MAX_TOKENS,
            purpose="toolrex-expand",
            run_id=run_id,
        )
    except Exception as exc:  # noqa: BLE001 - a failed call is a recorded, rejected attempt
        return Attempt(
            attempt,
            model,
            None,
            error=f"{type(exc).__name__}: {str(exc)[:300]}",
            latency_s=time.perf_counter() - start,
        )
    return Attempt(
        attempt,
        model,
        result.content,
        tokens_in=result.tokens_in,
        tokens_out=result.tokens_out,
        latency_s=time.perf_counter() - start,
    )


def judge(
    att: Attempt, doc: ToolDoc, judge_model: str | None, *, seed: int = 0, run_id: str | None = None
) -> Attempt:
    """Fill the attempt's verdicts and accepted fields (rules, then the LLM judge)."""
    if att.error:
        att.verdicts = [
            FieldVerdict(f, "rule", False, "", f"generation failed: {att.error}") for f in REQUIRED_FIELDS
        ]
        return att
    passed, verdicts, att.parse_error = rule_check(att.raw, doc)
    att.verdicts = verdicts
    for name in PROFILE_FIELDS:
        if name not in passed:
            continue
        value = passed[name]
        if judge_model:
            content = ", ".join(value) if isinstance(value, list) else value
            v = llm_judge(doc, name, content, judge_model, seed=seed, run_id=run_id)
            att.verdicts.append(v)
            if not v.accepted:
                continue
        att.accepted[name] = value
    return att


def expand_tool(
    doc: ToolDoc,
    *,
    model: str,
    judge_model: str | None = None,
    strong_model: str | None = None,
    seed: int = 0,
    run_id: str | None = None,
) -> ToolExpansion:
    """Generate, judge and (when configured) regenerate one tool's profile."""
    attempts = [
        judge(generate(doc, model, 1, seed=seed, run_id=run_id), doc, judge_model, seed=seed, run_id=run_id)
    ]
    if strong_model and attempts[0].needs_regeneration():
        second = generate(doc, strong_model, 2, seed=seed, run_id=run_id)
        attempts.append(judge(second, doc, judge_model, seed=seed, run_id=run_id))
    chosen: dict[str, Any] = {}
    sources: dict[str, int] = {}
    for att in attempts:
        for name, value in att.accepted.items():
            if name not in chosen:
                chosen[name] = tuple(value) if isinstance(value, list) else value
                sources[name] = att.attempt
    profile = ToolProfile(**chosen)
    return ToolExpansion(doc.tool, doc, attempts, profile, sources, apply_profile(doc, profile))


@dataclass
class ExpansionResult:
    expansions: list[ToolExpansion]
    docset: DocSet  # the full doc set: expanded docs plus untouched originals


def expand_docset(
    docset: DocSet,
    *,
    model: str,
    judge_model: str | None = None,
    strong_model: str | None = None,
    tools: Sequence[str] | None = None,
    seed: int = 0,
    run_id: str | None = None,
    on_tool: Callable[[ToolExpansion, int, int], None] | None = None,
) -> ExpansionResult:
    """Expand every tool (or `tools`) of a doc set; `on_tool(expansion, done, total)` after each."""
    chosen = [t for t in docset if tools is None or t in set(tools)]
    out: list[ToolExpansion] = []
    docs = dict(docset)
    for i, tool in enumerate(chosen, 1):
        exp = expand_tool(
            docset[tool],
            model=model,
            judge_model=judge_model,
            strong_model=strong_model,
            seed=seed,
            run_id=run_id,
        )
        out.append(exp)
        docs[tool] = exp.expanded
        if on_tool:
            on_tool(exp, i, len(chosen))
    return ExpansionResult(out, DocSet(docs.values(), name=f"toolrex {model}"))
