"""The LLM engine: the paper's diagnosis, planning, generation and memory prompts (Figs. 4-7).

Prompts are plain template files in `core/chisel/prompts/` (`$name`
placeholders, `string.Template`), so users can read and edit them; a
directory given as `prompt_dir` (or `$DOCSCHISEL_PROMPTS`) overrides them.
Every reply must be one JSON object validated by a pydantic model; an invalid
reply is sent back to the model with the validation error and retried (up to
`max_retries` times). When the model never produces valid output the step
falls back to the evidence engine, and the record says so — a weak optimizer
model degrades the run instead of stopping it.

Generation asks only for the content of the planned fields and applies it to
the ORIGINAL doc with `ToolDoc.apply`, so untouched fields stay byte-identical
whatever the model writes.
"""

from __future__ import annotations

import functools
import json
import os
import re
from collections.abc import Callable, Sequence
from importlib import resources
from pathlib import Path
from string import Template
from typing import Any, Literal, TypeVar

from pydantic import BaseModel, Field, ValidationError, create_model

from core.chisel.differ import diff_trace
from core.chisel.engines.base import ToolContext
from core.chisel.engines.checks import content_problems
from core.chisel.engines.evidence import EvidenceEngine, carried_operations, content_of
from core.chisel.engines.synth import usage_examples
from core.chisel.memory import DomainMemory
from core.chisel.merge import merge_plans
from core.chisel.types import Diagnosis, Evaluation, MemoryEntry, Operation, Plan, Trace
from core.docs import DocError, ToolDoc
from core.docs.render import render_text
from core.fields import CODES, FIELDS
from core.llm.gateway import Purpose

FieldCode = Literal[
    "TN",
    "FD",
    "TD",
    "IPN",
    "IPD",
    "IPT",
    "DPV",
    "PRF",
    "POF",
    "RPN",
    "RPD",
    "RPT",
    "CI",
    "UE",
    "RT",
    "UG",
    "IC",
]
assert set(FieldCode.__args__) == set(CODES)  # noqa: S101 - keeps the literal in sync with the taxonomy

M = TypeVar("M", bound=BaseModel)


class DiagnosisOut(BaseModel):
    evidence: str
    mismatch: str
    fields: list[FieldCode] = Field(default_factory=list)
    doc_related: bool = True
    failure_class: str = "unspecified"


class OpOut(BaseModel):
    op: Literal["Add", "Remove", "Refine"]
    field: FieldCode
    reason: str = ""


class PlanOut(BaseModel):
    operations: list[OpOut] = Field(default_factory=list)


@functools.lru_cache(maxsize=256)
def plan_schema(fields: tuple[str, ...]) -> type[PlanOut]:
    """A `PlanOut` whose operations may name only `fields` (the diagnosis's responsible fields).

    The schema is the grammar a local model decodes under: with all 17 codes
    allowed, Qwen2.5-Coder-1.5B planned "Add TD" (the first code of the
    taxonomy) for every tool whatever the diagnosis implicated; naming only
    the implicated fields in the grammar makes the plan follow the diagnosis.
    """
    code = Literal[fields]  # type: ignore[valid-type]
    op = create_model("PlannedOp", __base__=OpOut, field=(code, ...), reason=(str, ...))
    return create_model("Plan", __base__=PlanOut, operations=(list[op], Field(default_factory=list)))


def _check_reasons(out: PlanOut) -> None:
    """Every operation carries its reason: a placeholder ("...") is sent back to the model."""
    empty = [
        f"{o.op} {o.field}"
        for o in out.operations
        if len(re.findall(r"\w+", o.reason)) < 2 or o.reason.strip().startswith("<")
    ]
    if empty:
        raise ValueError(
            f"no reason given for {', '.join(empty)}: say for each operation what in the diagnosis it fixes"
        )


class EditOut(BaseModel):
    op: Literal["Add", "Remove", "Refine"]
    field: FieldCode
    content: Any = None


class GenerationOut(BaseModel):
    edits: list[EditOut] = Field(default_factory=list)


class PatternOut(BaseModel):
    text: str
    fields: list[FieldCode] = Field(default_factory=list)


class OpLessonOut(BaseModel):
    op: Literal["Add", "Remove", "Refine"]
    field: FieldCode
    text: str = ""


class MemoryOut(BaseModel):
    failure_patterns: list[PatternOut] = Field(default_factory=list)
    effective_operations: list[OpLessonOut] = Field(default_factory=list)
    harmful_operations: list[OpLessonOut] = Field(default_factory=list)
    editing_experience: list[str] = Field(default_factory=list)


class InvalidOutput(ValueError):
    """The model's reply failed validation after every retry."""


def load_prompt(name: str, prompt_dir: str | os.PathLike | None = None) -> Template:
    folder = prompt_dir or os.environ.get("DOCSCHISEL_PROMPTS")
    if folder and (Path(folder) / f"{name}.md").exists():
        return Template((Path(folder) / f"{name}.md").read_text(encoding="utf-8"))
    return Template((resources.files("core.chisel") / "prompts" / f"{name}.md").read_text(encoding="utf-8"))


def _json_text(text: str | None) -> str:
    """The JSON object in a reply (code fences and surrounding prose tolerated)."""
    raw = (text or "").strip()
    fence = re.search(r"```(?:json)?\s*(.*?)```", raw, re.DOTALL)
    if fence:
        raw = fence.group(1).strip()
    start, end = raw.find("{"), raw.rfind("}")
    return raw[start : end + 1] if start != -1 and end > start else raw


FIELD_LIST = "\n".join(f"- {f.code} ({f.name}): {f.meaning}" for f in FIELDS)


class LLMEngine:
    """Diagnose / plan / generate / update memory with any litellm model."""

    name = "llm"

    def __init__(
        self,
        model: str,
        *,
        temperature: float = 0.0,
        max_retries: int = 2,
        max_tokens: int = 1024,
        seed: int | None = 0,
        prompt_dir: str | os.PathLike | None = None,
    ) -> None:
        self.model = model
        self.temperature = temperature
        self.max_retries = max_retries
        self.max_tokens = max_tokens
        self.seed = seed
        self.prompt_dir = prompt_dir
        self.fallback = EvidenceEngine()
        self.fallbacks: list[str] = []

    # ------------------------------------------------------------------ the JSON loop
    def ask(
        self,
        prompt: str,
        schema: type[M],
        *,
        purpose: Purpose,
        run_id: str | None = None,
        check: Callable[[M], None] | None = None,
        seed: int | None | Literal["engine"] = "engine",
    ) -> M:
        """One validated JSON reply; invalid replies are returned to the model with the error."""
        from core.llm import complete

        messages: list[dict[str, Any]] = [{"role": "user", "content": prompt}]
        fmt = {
            "type": "json_schema",
            "json_schema": {"name": schema.__name__, "schema": schema.model_json_schema()},
        }
        last = ""
        for _attempt in range(self.max_retries + 1):
            result = complete(
                self.model,
                messages,
                temperature=self.temperature,
                max_tokens=self.max_tokens,
                seed=self.seed if seed == "engine" else seed,
                purpose=purpose,
                run_id=run_id,
                response_format=fmt,
            )
            content = result.content or ""
            try:
                parsed = schema.model_validate_json(_json_text(content))
                if check is not None:
                    check(parsed)
                return parsed
            except (ValidationError, ValueError, DocError) as exc:
                last = str(exc).splitlines()[0] if str(exc) else type(exc).__name__
                detail = str(exc)[:600]
                messages = messages + [
                    {"role": "assistant", "content": content},
                    {
                        "role": "user",
                        "content": f"Your reply was not valid: {detail}\nReply again with only the JSON object, "
                        f"following the requested format exactly.",
                    },
                ]
        raise InvalidOutput(
            f"{schema.__name__}: no valid reply after {self.max_retries + 1} attempts ({last})"
        )

    def _purpose(self, step: str, ctx: ToolContext) -> Purpose:
        return Purpose(f"chisel-{step}", ctx.tool)

    # ------------------------------------------------------------------ diagnosis (Fig. 4)
    def diagnose(self, ctx: ToolContext, trace: Trace, memory: DomainMemory) -> Diagnosis:
        gold = ctx.gt.calls(trace.task_id, "diagnosis")
        findings = diff_trace(trace, gold, ctx.tool, ctx.param_names, ctx.read_only)
        steps = (
            "\n".join(
                f"{i + 1}. {s.tool}({json.dumps(s.args or {}, ensure_ascii=False, default=str)}) -> "
                f"{str(s.error or s.output or '')[:300]}"
                for i, s in enumerate(trace.steps)
            )
            or "(no tool call)"
        )
        prompt = load_prompt("diagnosis", self.prompt_dir).safe_substitute(
            tool_name=ctx.original.display_name,
            fields=FIELD_LIST,
            doc=render_text(ctx.current),
            query=trace.query[-2000:],
            steps=steps,
            ending=f"{trace.error_class or 'final answer'}: {(trace.error or trace.final_answer or '')[:300]}",
            expected="\n".join(c.render() for c in gold) or "(no call expected)",
            comparison="\n".join(f"- {f.cls}: {f.text}" for f in findings) or "- no mismatch found",
            domain=ctx.domain,
            memory=memory.render("diagnosis"),
        )
        try:
            out = self.ask(prompt, DiagnosisOut, purpose=self._purpose("diagnose", ctx), run_id=ctx.run_id)
        except InvalidOutput as exc:
            self.fallbacks.append(f"diagnose {trace.episode_id}: {exc}")
            d = self.fallback.diagnose(ctx, trace, memory)
            return d.model_copy(
                update={"detail": {**d.detail, "engine": "evidence-fallback", "error": str(exc)}}
            )
        return Diagnosis(
            episode_id=trace.episode_id,
            task_id=trace.task_id,
            tool=ctx.tool,
            failure_class=out.failure_class or (findings[0].cls if findings else "unspecified"),
            doc_related=out.doc_related and bool(out.fields),
            evidence=out.evidence,
            mismatch=out.mismatch,
            fields=list(out.fields),
            detail={
                "findings": [f.to_json() for f in findings],
                "expected": [c.render() for c in gold],
                "engine": "llm",
            },
        )

    # ------------------------------------------------------------------ planning (Fig. 5)
    def plan(self, ctx: ToolContext, diagnosis: Diagnosis, memory: DomainMemory) -> Plan:
        prompt = load_prompt("planning", self.prompt_dir).safe_substitute(
            tool_name=ctx.original.display_name,
            fields=FIELD_LIST,
            doc=render_text(ctx.original),
            failure_class=diagnosis.failure_class,
            evidence=diagnosis.evidence,
            mismatch=diagnosis.mismatch,
            implicated=", ".join(diagnosis.fields) or "(none)",
            domain=ctx.domain,
            memory=memory.render("planning"),
            present=", ".join(ctx.original.present()) or "(none)",
        )
        schema = plan_schema(tuple(sorted(set(diagnosis.fields)))) if diagnosis.fields else PlanOut
        try:
            out = self.ask(
                prompt, schema, purpose=self._purpose("plan", ctx), run_id=ctx.run_id, check=_check_reasons
            )
        except InvalidOutput as exc:
            self.fallbacks.append(f"plan {diagnosis.episode_id}: {exc}")
            p = self.fallback.plan(ctx, diagnosis, memory)
            return p.model_copy(update={"notes": p.notes + [f"evidence fallback: {exc}"]})
        ops = [  # made valid on the original (Add of a present field is a Refine) when plans merge
            Operation(op=o.op, field=o.field, reason=o.reason, support=[diagnosis.episode_id])
            for o in out.operations
        ]
        return Plan(tool=ctx.tool, scope="trace", operations=ops, diagnosis_episode=diagnosis.episode_id)

    def merge(
        self, ctx: ToolContext, plans: Sequence[Plan], diagnoses: Sequence[Diagnosis], memory: DomainMemory
    ) -> Plan:
        base = merge_plans(ctx.tool, plans, ctx.original, memory)
        notes = list(base.notes)
        carried = carried_operations(ctx, notes)
        fields = {o.field for o in carried.values()}
        ops = list(carried.values()) + [o for o in base.operations if o.field not in fields]
        ops.sort(key=lambda o: CODES.index(o.field))
        return Plan(
            tool=ctx.tool,
            scope="merged",
            operations=ops,
            notes=notes,
            carried=[f"{o.op} {o.field}" for o in carried.values()],
        )

    # ------------------------------------------------------------------ generation (Fig. 6)
    def generate(self, ctx: ToolContext, plan: Plan, memory: DomainMemory) -> tuple[ToolDoc, list[str]]:
        """The candidate; asked once more, with what was tried, when it repeats an earlier one.

        The prompt of a later iteration often differs from the first only
        in its memory lines, and a small optimizer model at temperature 0
        then writes the same content again (or content equal to the
        original): the iteration would re-measure a known doc. The second
        ask names the contents already tried for the planned fields and uses
        another seed.
        """
        fixed = {o.key(): o.content for o in plan.operations if o.content is not None or o.op == "Remove"}
        todo = [o for o in plan.operations if o.key() not in fixed]
        notes: list[str] = []
        edits: dict[tuple[str, str], Any] = dict(fixed)
        if todo:
            edits.update(self._generated(ctx, plan, todo, memory, notes, ""))
        doc = self._applied(ctx, plan, edits, notes)
        seen = {ctx.original.doc_id: ctx.original, **{h.doc_id: h.doc for h in ctx.history}}
        if todo and doc.doc_id in seen and not any("evidence fallback" in n for n in notes):
            tried = _tried_contents(todo, seen.values())
            more: list[str] = []
            redo = self._generated(ctx, plan, todo, memory, more, tried)
            again = self._applied(ctx, plan, {**fixed, **redo}, more)
            if again.doc_id not in seen:
                notes.append(f"the first reply repeated {_named(doc, ctx)}; asked again with what was tried")
                return again, notes + more
            notes.append(f"the reply repeated {_named(doc, ctx)}, also when asked again with what was tried")
        return doc, notes

    def _generated(
        self,
        ctx: ToolContext,
        plan: Plan,
        todo: list[Operation],
        memory: DomainMemory,
        notes: list[str],
        tried: str,
    ) -> dict[tuple[str, str], Any]:
        """The model's contents for the operations `todo` (the evidence engine's where it fails)."""
        # requests paired with their own task's calls, values shown as formats (never one task's data)
        gold = ctx.opt_gold_calls("generation")
        examples = usage_examples(ctx.original, gold, ctx.gt.query, 3, f"{ctx.seed}:{ctx.tool}")
        prompt = load_prompt("generation", self.prompt_dir).safe_substitute(
            tool_name=ctx.original.display_name,
            doc_json=json.dumps(ctx.original.to_json(), ensure_ascii=False, indent=1),
            plan="\n".join(f"- {o.op} {o.field}: {o.reason}" for o in todo),
            domain=ctx.domain,
            memory=memory.render("generation"),
            outputs="\n".join(f"- {o[:200]}" for o in ctx.observations.outputs[:3]) or "(none observed)",
            errors="\n".join(f"- {m[:200]}" for m, _ in ctx.observations.errors[:5]) or "(none observed)",
            examples="\n".join(f"- {e}" for e in examples) or "(none)",
        )
        if tried:
            prompt += (
                "\n\n## Already tried\nThese contents of the planned fields were measured already (or are the "
                "original's) and did not fix the failures; write different content that addresses the plan's "
                f"reasons:\n{tried}"
            )

        def check(out: GenerationOut) -> None:
            found, _ignored, missing = _planned_edits(out, todo)
            if missing:
                asked = ", ".join(f"{op} {field}" for op, field in (o.key() for o in todo))
                raise ValueError(
                    f"no content for {', '.join(f'{op} {field}' for op, field in missing)}; the plan asks for "
                    f"exactly these edits: {asked} (edits of other fields are not used)"
                )
            doc = ctx.original
            for (op, field), content in found.items():
                doc = doc.apply(op, field, content)
            problems = content_problems(found, gold, ctx.original)
            if problems:
                raise ValueError("; ".join(problems))

        edits: dict[tuple[str, str], Any] = {}
        try:
            out = self.ask(
                prompt,
                GenerationOut,
                purpose=self._purpose("generate", ctx),
                run_id=ctx.run_id,
                check=check,
                seed=None if self.seed is None else self.seed + (ctx.iteration if tried else 0),
            )
            found, ignored, _missing = _planned_edits(out, todo)
            edits.update(found)
            notes += [f"ignored edit {op} {field}: not in the plan" for op, field in ignored]
        except InvalidOutput as exc:
            self.fallbacks.append(f"generate {ctx.tool}: {exc}")
            notes.append(f"evidence fallback for generation: {exc}")
            doc, more = self.fallback.generate(ctx, plan.model_copy(update={"operations": todo}), memory)
            edits.update({o.key(): content_of(doc, o.field) for o in todo if o.op != "Remove"})
            notes += more
        return edits

    @staticmethod
    def _applied(
        ctx: ToolContext, plan: Plan, edits: dict[tuple[str, str], Any], notes: list[str]
    ) -> ToolDoc:
        """The original with the plan's edits applied in field order (what cannot apply is noted)."""
        doc = ctx.original
        for o in sorted(plan.operations, key=lambda o: CODES.index(o.field)):
            if o.key() not in edits:
                notes.append(f"{o.op} {o.field}: no content generated")
                continue
            try:
                doc = doc.apply(o.op, o.field, edits[o.key()])
            except DocError as exc:
                notes.append(f"{o.op} {o.field} not applied: {exc}")
        return doc

    # ------------------------------------------------------------------ memory (Fig. 7)
    def update_memory(
        self,
        ctx: ToolContext,
        memory: DomainMemory,
        diagnoses: Sequence[Diagnosis],
        plan: Plan,
        candidate: ToolDoc,
        evaluation: Evaluation,
        regression_traces: Sequence[Trace],
    ) -> None:
        if not memory.enabled:
            return
        prompt = load_prompt("memory", self.prompt_dir).safe_substitute(
            tool_name=ctx.original.display_name,
            domain=ctx.domain,
            doc=render_text(candidate),
            plan="\n".join(f"- {o.op} {o.field}: {o.reason}" for o in plan.operations),
            diagnoses="\n".join(f"- {d.failure_class}: {d.mismatch[:200]}" for d in diagnoses[:8]),
            base_val_ts=f"{evaluation.base_val_ts:.2f}",
            val_ts=f"{evaluation.val_ts:.2f}",
            base_opt_ts=f"{evaluation.base_opt_ts:.2f}",
            opt_ts=f"{evaluation.opt_ts:.2f}",
            regressions="\n".join(
                f"- {t.task_id}: "
                + "; ".join(f"{s.tool}({json.dumps(s.args, default=str)[:120]})" for s in t.steps[:3])
                for t in regression_traces[:5]
            )
            or "(none)",
        )
        # The statistics the planner relies on are recorded whatever the model says.
        self.fallback.update_memory(ctx, memory, diagnoses, plan, candidate, evaluation, regression_traces)
        try:
            out = self.ask(prompt, MemoryOut, purpose=self._purpose("memory", ctx), run_id=ctx.run_id)
        except InvalidOutput as exc:
            self.fallbacks.append(f"memory {ctx.tool}: {exc}")
            return
        it = ctx.iteration
        for p in out.failure_patterns:
            memory.add(
                "diagnosis",
                MemoryEntry(
                    text=p.text[:300],
                    tool=ctx.tool,
                    iteration=it,
                    fields=list(p.fields),
                    outcome="pattern-text",
                ),
            )
        measured = {(o.op, o.field) for o in plan.operations}
        for lesson, kind in ((out.effective_operations, "effective"), (out.harmful_operations, "harmful")):
            for o in lesson:
                # A lesson about an operation of this plan restates what was just measured (recorded
                # above); a lesson about any other operation is the model's reading of the traces
                # and memory, and counts in the same statistics the planner ranks operations by.
                counted = (o.op, o.field) not in measured
                memory.add(
                    "planning",
                    MemoryEntry(
                        text=(o.text or f"{o.op} {o.field}: {kind}")[:300],
                        tool=ctx.tool,
                        iteration=it,
                        op=o.op,
                        fields=[o.field],
                        outcome=kind if counted else "note",
                        delta=0.0,
                    ),
                )
        for text in out.editing_experience:
            memory.add(
                "generation", MemoryEntry(text=text[:300], tool=ctx.tool, iteration=it, outcome="note")
            )


def _tried_contents(todo: Sequence[Operation], docs: Any) -> str:
    """The distinct contents the planned fields had in docs already measured (one line each)."""
    lines: list[str] = []
    for o in todo:
        if o.op == "Remove":
            continue
        for doc in docs:
            content = content_of(doc, o.field)
            if content in (None, "", [], {}):
                continue
            line = f"- {o.field}: {json.dumps(content, ensure_ascii=False)[:400]}"
            if line not in lines:
                lines.append(line)
    return "\n".join(lines) or "- (the planned fields were empty in every measured doc)"


def _named(doc: ToolDoc, ctx: ToolContext) -> str:
    """How a repeated candidate is named in the notes: the original, or the iteration that made it."""
    if doc.doc_id == ctx.original.doc_id:
        return "the original"
    it = next((h.iteration for h in ctx.history if h.doc_id == doc.doc_id), None)
    return f"iteration {it}'s candidate" if it is not None else f"candidate {doc.doc_id}"


def _planned_edits(
    out: GenerationOut, todo: Sequence[Operation]
) -> tuple[dict[tuple[str, str], Any], list[tuple[str, str]], list[tuple[str, str]]]:
    """The reply's contents for the planned operations, the edits not planned, the operations left empty.

    An edit of a planned field under the other verb (Refine TD for a planned
    Add TD) is that field's content: the plan's verb is applied. Small models
    often swap the verbs; the content is what was asked for.
    """
    wanted = {o.key() for o in todo}
    fields: dict[str, list[tuple[str, str]]] = {}
    for key in wanted:
        fields.setdefault(key[1], []).append(key)
    found: dict[tuple[str, str], Any] = {}
    ignored: list[tuple[str, str]] = []
    for e in out.edits:
        key = (e.op, e.field)
        if key not in wanted and len(fields.get(e.field, [])) == 1:
            key = fields[e.field][0]
        if key in wanted:
            found[key] = e.content
        else:
            ignored.append((e.op, e.field))
    missing = sorted(k for k in wanted if found.get(k) in (None, "", [], {}))
    return found, ignored, missing
