"""The LLM engines: constructor (extract, then rewrite as code), merger and reviewer, through the gateway.

Prompts follow the paper's appendix D: the constructor first picks logically
coupled, consecutive calls from a trajectory (2-5 calls, data flowing from one
output into the next call), then rewrites each segment as one function
against the atomic tool API; the merger writes one generalised function for
overlapping SOPs; the reviewer labels one invocation. Every reply is JSON
validated by pydantic, and code additionally by `core.sop.validate` (the
error goes back to the model, up to `max_retries` times). Any model works —
hosted, scripted in tests, or a local one. A reviewer reply that never
validates falls back to the evidence labels, and says so.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Sequence
from typing import Any, Literal, TypeVar

from pydantic import BaseModel, Field, ValidationError

from core.benchmarks.base import Call
from core.docs import DocSet, Param, Return, ToolDoc
from core.docs.render import render_text
from core.llm import Purpose, complete
from core.sop.composer import Rejected, unique_name
from core.sop.mining import Experience
from core.sop.model import Sop, Toolset, is_sop_tool, sop_tool
from core.sop.review import LABELS, Invocation, Review, review_offline
from core.sop.validate import SopCodeError, validate
from core.sop.worker import ALLOWED_MODULES

M = TypeVar("M", bound=BaseModel)
Label = Literal["optimal", "partial_utility", "neutral", "negative_interference", "implementation_defect"]

API = f"""Write ONE Python function and nothing else at the top level (imports allowed only from:
{", ".join(sorted(ALLOWED_MODULES))}). Inside it, call atomic tools only through the global `tools`:
- tools.call("<tool name>", arg=value, ...) -> the tool's output text (raises ToolFailed when the tool rejects the call)
- tools.failed(output) -> True when the output is an error message
- tools.empty(output) -> True when the output found nothing
- tools.pick(output, "key") -> the first value stored under "key" in the output (None if absent)
- tools.pick_all(output, "key") -> every value under "key"; tools.parse(output) -> the output as data
The tool name must be a string literal. Check each step (failed / empty / None) and return a short message
naming the step that stopped; otherwise return the last tool's output. No classes, no nested functions, no
global state, no names starting with "_", no bare `except:`."""


class InvalidOutput(ValueError):
    """No valid reply after the retries."""


class SegmentsOut(BaseModel):
    segments: list[list[int]] = Field(default_factory=list)


class ParamOut(BaseModel):
    name: str
    description: str = ""
    type: str | None = None
    required: bool = True


class SopOut(BaseModel):
    name: str = Field(pattern=r"^[a-z][a-z0-9_]{2,55}$")
    description: str
    parameters: list[ParamOut]
    returns: str = ""
    code: str


class ReviewOut(BaseModel):
    labels: list[Label]
    justification: str


def _json_text(text: str) -> str:
    m = re.search(r"```(?:json)?\s*(.*?)```", text, re.S)
    body = m.group(1) if m else text
    start = min((i for i in (body.find("{"), body.find("[")) if i >= 0), default=0)
    return body[start:].strip()


class _Asker:
    """One validated JSON reply per question; invalid replies go back to the model with the error."""

    def __init__(self, model: str, *, temperature: float = 0.0, seed: int = 0, max_retries: int = 2) -> None:
        self.model = model
        self.temperature = temperature
        self.seed = seed
        self.max_retries = max_retries

    def ask(
        self, prompt: str, schema: type[M], step: str, run_id: str, check: Callable[[M], None] | None = None
    ) -> M:
        messages: list[dict[str, Any]] = [{"role": "user", "content": prompt}]
        fmt = {
            "type": "json_schema",
            "json_schema": {"name": schema.__name__, "schema": schema.model_json_schema()},
        }
        last = ""
        for _ in range(self.max_retries + 1):
            result = complete(
                self.model,
                messages,
                temperature=self.temperature,
                seed=self.seed,
                max_tokens=1200,
                purpose=Purpose(f"sop-{step}"),
                run_id=run_id or None,
                response_format=fmt,
            )
            content = result.content or ""
            try:
                parsed = schema.model_validate_json(_json_text(content))
                if check is not None:
                    check(parsed)
                return parsed
            except (ValidationError, ValueError) as exc:
                last = str(exc)[:600]
                messages = [
                    *messages,
                    {"role": "assistant", "content": content},
                    {
                        "role": "user",
                        "content": f"Your reply was not valid: {last}\nReply again with only the JSON object.",
                    },
                ]
        raise InvalidOutput(
            f"{schema.__name__}: no valid reply after {self.max_retries + 1} attempts ({last[:200]})"
        )


def _calls_text(steps: Sequence[Any]) -> str:
    lines = []
    for i, s in enumerate(steps):
        seen = str(s.error or s.output or "")[:300]
        lines.append(f"[{i}] {s.tool}({json.dumps(s.args or {}, ensure_ascii=False, default=str)}) -> {seen}")
    return "\n".join(lines) or "(no tool call)"


def _sop_from(out: SopOut, uses: tuple[str, ...], origin: str, **kw: Any) -> Sop:
    doc = ToolDoc(
        tool=sop_tool(out.name),
        name=out.name,
        description=out.description.strip(),
        parameters=tuple(
            Param(name=p.name, description=p.description or None, type=p.type, required=p.required)
            for p in out.parameters
        ),
        returns=(Return(name="result", description=out.returns.strip() or None),),
    )
    return Sop(name=out.name, doc=doc, code=out.code.strip() + "\n", uses=uses, origin=origin, **kw)


def _code_check(atomic: DocSet) -> Callable[[SopOut], None]:
    def check(out: SopOut) -> None:
        try:
            shape = validate(out.code, known_tools=set(atomic))
        except SopCodeError as exc:
            raise ValueError(f"code: {exc}") from exc
        if shape.function != out.name:
            raise ValueError(f"code: the function is named {shape.function!r}, but name is {out.name!r}")
        if sorted(p.name for p in shape.params) != sorted(p.name for p in out.parameters):
            raise ValueError("code: the function's parameters differ from `parameters`")

    return check


class LlmConstructor:
    """f_extract then f_rewrite per trajectory of the batch, at most `max_new` SOPs per batch."""

    name = "llm"

    def __init__(self, model: str, *, max_new: int = 3, seed: int = 0, max_retries: int = 2) -> None:
        self.asker = _Asker(model, seed=seed, max_retries=max_retries)
        self.max_new = max_new

    def construct(
        self, experiences: Sequence[Experience], atomic: DocSet, existing: Toolset, *, run_id: str, epoch: int
    ) -> tuple[list[Sop], list[Rejected]]:
        out: list[Sop] = []
        rejected: list[Rejected] = []
        taken = existing.names()
        seen = {s.uses for s in existing}
        for exp in experiences:
            if len(out) >= self.max_new or exp.trace is None:
                continue
            steps = [s for s in exp.trace.steps if s.tool and not is_sop_tool(s.tool)]
            if len(steps) < 2:
                continue
            try:
                segs = self.asker.ask(
                    self._extract_prompt(exp, steps), SegmentsOut, "extract", run_id
                ).segments
            except InvalidOutput as exc:
                rejected.append(Rejected(f"extract:{exp.task_id}", str(exc)))
                continue
            for seg in segs:
                idx = [i for i in dict.fromkeys(seg) if 0 <= i < len(steps)]
                uses = tuple(steps[i].tool for i in sorted(idx))
                if not 2 <= len(idx) <= 5 or uses in seen or len(out) >= self.max_new:
                    continue
                chosen = [steps[i] for i in sorted(idx)]
                prompt = self._rewrite_prompt(chosen, atomic)
                try:
                    sop_out = self.asker.ask(prompt, SopOut, "rewrite", run_id, _code_check(atomic))
                except InvalidOutput as exc:
                    rejected.append(Rejected(f"rewrite:{exp.task_id}", str(exc)))
                    continue
                name = unique_name(sop_out.name, exp.task_id, taken)
                if name != sop_out.name:
                    rejected.append(Rejected(sop_out.name, "name already taken", sop_out.code))
                    continue
                code_uses = validate(sop_out.code, known_tools=set(atomic)).uses
                out.append(
                    _sop_from(
                        sop_out, tuple(dict.fromkeys(code_uses)), "llm", sources=(exp.trace.episode_id,)
                    )
                )
                taken.add(name)
                seen.add(uses)
        return out, rejected

    @staticmethod
    def _extract_prompt(exp: Experience, steps: Sequence[Any]) -> str:
        outcome = "succeeded" if exp.trace is not None and exp.trace.success else "failed"
        return (
            "You extract reusable Standard Operating Procedures (SOPs) from an agent's tool calls.\n"
            "Pick segments of 2 to 5 logically coupled calls: executed close together, and the result of one "
            "is used in a later call's arguments. Do not combine unrelated calls. There may be none.\n"
            f"The task {outcome}. Calls, numbered:\n{_calls_text(steps)}\n\n"
            'Reply with JSON: {"segments": [[i, j, ...], ...]} using the numbers above (an empty list if none).'
        )

    @staticmethod
    def _rewrite_prompt(chosen: Sequence[Any], atomic: DocSet) -> str:
        docs = "\n\n".join(
            render_text(atomic[t]) for t in dict.fromkeys(s.tool for s in chosen) if t in atomic
        )
        return (
            "Rewrite these consecutive tool calls as one reusable tool (an SOP) for future tasks. Arguments that "
            "came from the task become parameters; values taken from an earlier result are extracted from it.\n"
            f"Calls:\n{_calls_text(chosen)}\n\nThe tools' documentation:\n{docs}\n\n{API}\n\n"
            'Reply with JSON: {"name": "<snake_case>", "description": "<what it does and when to use it; name '
            'the tools it calls, in order>", "parameters": [{"name": ..., "description": ..., "type": ..., '
            '"required": true}], "returns": "<what it returns>", "code": "<the function source>"}'
        )


class LlmMerger:
    """Overlapping SOPs (same first tool, different final tool) -> one generalised SOP written by the model."""

    name = "llm"

    def __init__(self, model: str, *, seed: int = 0, max_retries: int = 2) -> None:
        self.asker = _Asker(model, seed=seed, max_retries=max_retries)

    def merge(
        self, toolset: Toolset, atomic: DocSet, *, run_id: str, epoch: int
    ) -> tuple[list[Sop], list[Rejected]]:
        groups: dict[str, list[Sop]] = {}
        for s in toolset:
            if s.origin != "merge" and len(s.uses) >= 2:
                groups.setdefault(s.uses[0], []).append(s)
        done = {tuple(sorted(s.parents)) for s in toolset if s.origin == "merge"}
        out: list[Sop] = []
        rejected: list[Rejected] = []
        for members in groups.values():
            members = sorted(members, key=lambda s: s.name)
            if len({m.uses[-1] for m in members}) < 2 or tuple(sorted(m.sop_id for m in members)) in done:
                continue
            codes = "\n\n".join(f"# {m.name}: {m.doc.description}\n{m.code}" for m in members)
            prompt = (
                "These SOPs overlap: they start the same way and end in different actions. Write ONE generalised "
                "SOP that keeps all of their capabilities (for example an `action` parameter choosing the final "
                f"step).\n\n{codes}\n\n{API}\n\nReply with JSON: "
                '{"name": ..., "description": ..., "parameters": [...], "returns": ..., "code": ...}'
            )
            try:
                sop_out = self.asker.ask(prompt, SopOut, "merge", run_id, _code_check(atomic))
            except InvalidOutput as exc:
                rejected.append(Rejected("merge:" + "+".join(m.name for m in members), str(exc)))
                continue
            if sop_out.name in toolset.names() or any(sop_out.name == s.name for s in out):
                rejected.append(Rejected(sop_out.name, "name already taken", sop_out.code))
                continue
            uses = tuple(dict.fromkeys(validate(sop_out.code, known_tools=set(atomic)).uses))
            out.append(_sop_from(sop_out, uses, "merge", parents=tuple(m.sop_id for m in members)))
        return out, rejected


class LlmReviewer:
    """One model call per invocation; labels from `LABELS`, with a justification."""

    name = "llm"

    def __init__(self, model: str, *, seed: int = 0, max_retries: int = 2) -> None:
        self.asker = _Asker(model, seed=seed, max_retries=max_retries)

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
        inner = "\n".join(
            f"- {e['tool']}({json.dumps(e.get('args') or {}, default=str)}) -> {str(e.get('error') or e.get('output') or '')[:200]}"
            for e in inv.inner
        )
        prompt = (
            "You review one invocation of a synthesised tool (an SOP) in an agent's episode. Label it with one or "
            f"more of: {', '.join(LABELS)}.\n"
            "optimal: did what its docstring says without error and the task passed; partial_utility: ran without "
            "technical error but reached its goal only partly; neutral: returned but changed nothing relevant; "
            "negative_interference: harmed the task or the environment's state; implementation_defect: a technical "
            "exception or the worker stopped it.\n\n"
            f"SOP {sop.name}: {sop.doc.description}\nCode:\n{sop.code}\n"
            f"Called with {json.dumps(dict(inv.args), default=str)}\nIts atomic calls:\n{inner or '(none)'}\n"
            f"Result: {str(inv.error or inv.output or '')[:400]}\n"
            f"The task {'passed' if inv.task_success else 'failed'}.\n\n"
            'Reply with JSON: {"labels": [...], "justification": "<one sentence>"}'
        )
        try:
            out = self.asker.ask(prompt, ReviewOut, "review", run_id)
        except InvalidOutput as exc:
            fallback = review_offline(inv, sop, writes=writes, is_error=is_error, gold=gold)
            return Review(
                fallback.sop_id,
                fallback.episode_id,
                fallback.task_id,
                fallback.seq,
                fallback.labels,
                f"{fallback.justification} (evidence labels: the model's reply never validated: {str(exc)[:120]})",
                "llm",
                {**dict(fallback.detail), "fallback": True},
            )
        labels = tuple(dict.fromkeys(out.labels)) or ("neutral",)
        return Review(
            sop.sop_id, inv.episode_id, inv.task_id, inv.seq, labels, out.justification.strip()[:500], "llm"
        )
