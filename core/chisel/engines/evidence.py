"""The evidence engine: offline, deterministic diagnosis, planning, generation and memory.

- Diagnosis: the trace differ (`core.chisel.differ`) classifies each failed
  trace against its optimization-split ground truth; the rule table
  (`core.chisel.rules`) turns the classes into implicated fields; the
  diagnosis memory puts first the fields that earlier fixes in this domain
  confirmed. A trace whose only findings are not about this tool's
  documentation (another tool failed, a timeout) is labelled as such.
- Planning: the rule table's candidate operations for each finding; the
  merged plan is scored by support, rule preference, the planning memory's
  statistics (which operations helped or harmed in this domain) and this
  tool's own history, and grows by one operation per iteration so that every
  iteration tries something new. An operation is planned only when a
  synthesiser has evidence to fill it.
- Generation: the plan applied to the ORIGINAL doc with `ToolDoc.apply`, so
  every field the plan does not name stays byte-identical.
- Memory update: outcomes (effective / harmful / neutral, regressions)
  credited to the plan's operations and the failure classes behind them.
"""

from __future__ import annotations

import json
import re
from collections.abc import Sequence

from core.chisel.differ import Finding, diff_trace
from core.chisel.engines.base import ToolContext
from core.chisel.engines.synth import Synth
from core.chisel.memory import DomainMemory, outcome_of
from core.chisel.merge import merge_plans
from core.chisel.priors import removal_candidates
from core.chisel.rules import RULES, rule
from core.chisel.types import Diagnosis, Evaluation, MemoryEntry, Operation, Plan, Trace
from core.docs import DocError, ToolDoc
from core.fields import CODES


def findings_of(diagnosis: Diagnosis) -> list[Finding]:
    out = []
    for f in diagnosis.detail.get("findings", []):
        out.append(
            Finding(
                f["class"],
                f.get("text", ""),
                param=f.get("param"),
                gold=f.get("gold"),
                pred=f.get("pred"),
                other_tool=f.get("other_tool"),
                message=f.get("message"),
                data=f.get("data") or {},
            )
        )
    return out


def _plain(text: str) -> str:
    return re.sub(r"\s+", " ", text).strip().rstrip(".").strip()


def says_the_same(content: object, original: object) -> bool:
    """Whether generated content only restates the original field (up to spacing and a final period).

    Why: a parameter description that already states the format ("Format: %Y-%m-%d %H:%M:%S") comes
    back from the synthesiser with a period added; taken as a change, that Refine IPD fills a slot of
    the plan while changing nothing the agent reads, and the operation that would act (the tool's
    rejection message, a typed parameter) waits for a later iteration or never comes.
    """
    if isinstance(content, str) and isinstance(original, str):
        return _plain(content) == _plain(original)
    if isinstance(content, dict) and isinstance(original, dict):
        return all(k in original and says_the_same(v, original[k]) for k, v in content.items())
    return content == original


def _union(old: object, new: object) -> object:
    """Content of a carried operation updated with new evidence (mappings merge, else the new wins)."""
    if isinstance(old, dict) and isinstance(new, dict):
        return {**old, **new}
    return new if new is not None else old


def copied_field(doc: ToolDoc, value: object) -> str | None:
    """The field of `doc` a wrong argument value was copied from (UE, CI or IPD), if any.

    Small models copy concrete values they read in a doc into unrelated calls;
    where the value sits says which field to remove or restate.
    """
    if not isinstance(value, str) or len(value) <= 2:
        return None
    if any(value in e for e in doc.examples):
        return "UE"
    if value in (doc.code or ""):
        return "CI"
    if value in (doc.guidance or ""):
        return "UG"
    if any(value in (p.description or "") for p in doc.parameters):
        return "IPD"
    return None


def _summarise_steps(trace: Trace, limit: int = 4) -> str:
    bits = []
    for s in trace.steps[:limit]:
        args = json.dumps(s.args or {}, ensure_ascii=False, default=str)[:160]
        result = s.error or s.output or ""
        bits.append(f"{s.tool}({args}) -> {str(result)[:120]}")
    if len(trace.steps) > limit:
        bits.append(f"... {len(trace.steps) - limit} more calls")
    if not bits:
        bits.append("no tool call")
    if trace.error_class:
        bits.append(f"episode ended with {trace.error_class}")
    return "; ".join(bits)


def content_of(doc: ToolDoc, code: str) -> object:
    """A field's content in the shape `ToolDoc.apply` takes (IPN keeps whole parameter entries)."""
    if code == "IPN":
        return [p.model_dump() for p in doc.parameters]
    return doc.get(code)


def carried_operations(ctx: ToolContext, notes: list[str]) -> dict[tuple[str, str], Operation]:
    """Operations of the latest plan that did not harm (else of the best earlier one), kept as the base.

    Generation starts from the original doc every time, so fixes found in
    earlier iterations survive only if the plan carries them forward, with the
    content they had in that candidate.
    """
    pool = [r for r in ctx.history if r.outcome != "harmful"]
    if not pool:
        return {}
    latest = ctx.history[-1]
    rec = (
        latest
        if latest.outcome != "harmful"
        else max(pool, key=lambda r: (r.evaluation.val_ts, r.evaluation.opt_ts, -r.iteration))
    )
    notes.append(
        f"carried forward from iteration {rec.iteration} ({rec.outcome}): "
        + ", ".join(f"{o.op} {o.field}" for o in rec.plan.operations)
    )
    out = {}
    for o in rec.plan.operations:
        if o.op != "Remove" and o.content is None:
            o = o.model_copy(update={"content": content_of(rec.doc, o.field)})
        out[o.key()] = o
    return out


# Score units per unit of measured ΔTS: a field whose removal gained 20 pp adds 0.8 before any memory.
PRIOR_WEIGHT = 4.0


def copied_fields(diagnoses: Sequence[Diagnosis]) -> set[str]:
    """Fields whose concrete values agents copied into wrong arguments (see `copied_field`)."""
    return {
        f.data["copied_field"]
        for d in diagnoses
        for f in findings_of(d)
        if f.data.get("copied_from_doc") and f.data.get("copied_field")
    }


class EvidenceEngine:
    name = "evidence"

    # ------------------------------------------------------------------ diagnosis
    def diagnose(self, ctx: ToolContext, trace: Trace, memory: DomainMemory) -> Diagnosis:
        gold = ctx.gt.calls(trace.task_id, "diagnosis")
        findings = diff_trace(trace, gold, ctx.tool, ctx.param_names, ctx.read_only)
        marked = []
        for f in findings:
            source = copied_field(ctx.current, f.pred) if f.cls == "wrong_value" else None
            if source is not None:
                f = Finding(
                    f.cls,
                    f.text + f" (the value appears in the doc's {source} field)",
                    f.param,
                    f.gold,
                    f.pred,
                    f.other_tool,
                    f.message,
                    {**f.data, "copied_from_doc": True, "copied_field": source},
                )
            marked.append(f)
        findings = marked
        primary = findings[0].cls if findings else "output_misuse"
        related = [f for f in findings if rule(f.cls).doc_related]
        fields: list[str] = []
        for f in related:
            for code in rule(f.cls).fields:
                if code not in fields:
                    fields.append(code)
        preferred = [c for c in memory.fields_for(primary) if c in fields]
        fields = preferred + [c for c in fields if c not in preferred]
        return Diagnosis(
            episode_id=trace.episode_id,
            task_id=trace.task_id,
            tool=ctx.tool,
            failure_class=primary,
            doc_related=bool(related),
            evidence=_summarise_steps(trace),
            mismatch="; ".join(f.text for f in findings[:4]) or "no mismatch with the ground truth found",
            fields=fields,
            detail={
                "findings": [f.to_json() for f in findings],
                "expected": [c.render() for c in gold if c.tool == ctx.tool],
                "memory_fields": preferred,
            },
        )

    # ------------------------------------------------------------------ planning
    def plan(self, ctx: ToolContext, diagnosis: Diagnosis, memory: DomainMemory) -> Plan:
        ops: list[Operation] = []
        notes: list[str] = []
        seen: set[tuple[str, str]] = set()
        findings = findings_of(diagnosis)
        copied = copied_fields([diagnosis]) - {"IPD"}
        for f in findings:
            r = rule(f.cls)
            if not r.doc_related:
                continue
            candidates = list(r.operations)
            if f.data.get("copied_from_doc"):
                # evidence for a Remove: the agent copied a concrete value out of the doc, so the field
                # holding it goes (or, for parameter descriptions, is restated as a format)
                source = f.data.get("copied_field", "UE")
                first = [("Refine", "IPD")] if source == "IPD" else [("Remove", source), ("Refine", "IPD")]
                candidates = first + [c for c in candidates if c not in first]
            for op, code in candidates:
                if (op, code) in seen:
                    continue
                if code in copied and op != "Remove":
                    continue  # the agent copied values out of this field: it goes, it is not rewritten
                stats = memory.op_stats(op, code, f.cls)
                if stats["harmful"] >= 2 and stats["effective"] == 0:
                    notes.append(
                        f"skipped {op} {code}: harmful {int(stats['harmful'])}x in this domain's memory"
                    )
                    continue
                seen.add((op, code))
                ops.append(
                    Operation(op=op, field=code, reason=f"{f.cls}: {r.why}", support=[diagnosis.episode_id])
                )
        return Plan(
            tool=ctx.tool, scope="trace", operations=ops, diagnosis_episode=diagnosis.episode_id, notes=notes
        )

    def merge(
        self, ctx: ToolContext, plans: Sequence[Plan], diagnoses: Sequence[Diagnosis], memory: DomainMemory
    ) -> Plan:
        base = merge_plans(ctx.tool, plans, ctx.original, memory)
        notes = list(base.notes)
        synth = Synth(
            ctx, [f for d in diagnoses for f in findings_of(d)], memory, [d.task_id for d in diagnoses]
        )
        classes_by_ep = {d.episode_id: d.failure_class for d in diagnoses}
        n = max(1, len(diagnoses))
        carried = carried_operations(ctx, notes)
        copied = copied_fields(diagnoses) - {"IPD"}  # IPD is restated as a format, never removed
        for code in sorted(copied):
            for key in [k for k in carried if k[1] == code and k[0] != "Remove"]:
                del carried[key]
                notes.append(f"dropped carried {key[0]} {code}: the agent copied values out of it")
        scored: list[tuple[float, Operation]] = []
        for op in base.operations:
            if op.field in copied and op.op != "Remove":
                notes.append(f"dropped {op.op} {op.field}: the agent copied values out of it")
                continue
            content = synth(op.op, op.field) if op.op != "Remove" else None
            if op.op != "Remove" and content is None:
                notes.append(f"dropped {op.op} {op.field}: no evidence to fill it")
                continue
            if op.key() in carried:
                carried[op.key()] = carried[op.key()].model_copy(
                    update={
                        "content": _union(carried[op.key()].content, content),
                        "support": sorted(set(carried[op.key()].support) | set(op.support)),
                    }
                )
                continue
            if op.op != "Remove" and says_the_same(content, ctx.original.get(op.field)):
                notes.append(f"dropped {op.op} {op.field}: the evidence says what the original already says")
                continue
            score = 2.0 * len(op.support) / n + self._rank_bonus(
                op, {classes_by_ep.get(e, "") for e in op.support}
            )
            if op.op == "Remove" and op.field in copied:
                score += 1.5  # direct evidence: the agent copied this field's values into its calls
            stats, broke = memory.evidence_for(
                op.op, op.field, {classes_by_ep.get(e, "") for e in op.support}, ctx.tool
            )
            total = stats["effective"] + stats["harmful"] + stats["neutral"]
            score += 2.0 * (stats["effective"] - 1.5 * stats["harmful"]) / (total + 1)
            prior = ctx.priors.get(op.key())
            if prior is not None:
                # the measured effect counts until this domain's own statistics take over
                score += PRIOR_WEIGHT * prior.value / (total + 1)
                op = op.model_copy(update={"reason": f"{op.reason}; {prior.reason()}"[:400]})
            score -= 0.5 * broke
            for rec in ctx.history:
                if (op.op, op.field) in rec.operations:
                    score += {"effective": 1.0, "harmful": -1.5}.get(rec.outcome, -0.25)
            if score <= 0:
                notes.append(f"dropped {op.op} {op.field}: score {score:.2f} after memory and history")
                continue
            scored.append((score, op.model_copy(update={"content": content})))
        scored += self._study_removals(ctx, carried, scored, diagnoses, notes)
        scored.sort(key=lambda item: (-item[0], CODES.index(item[1].field), item[1].op))
        chosen = self._choose(ctx, list(carried.values()), [o for _, o in scored], notes)
        ordered = sorted(chosen, key=lambda o: CODES.index(o.field))
        keep = [f"{o.op} {o.field}" for o in ordered if o.key() in carried]
        return Plan(tool=ctx.tool, scope="merged", operations=ordered, notes=notes, carried=keep)

    @staticmethod
    def _study_removals(
        ctx: ToolContext,
        carried: dict,
        scored: list[tuple[float, Operation]],
        diagnoses: Sequence[Diagnosis],
        notes: list[str],
    ) -> list[tuple[float, Operation]]:
        """Remove operations for fields the field study measured as harmful for this backbone and paradigm.

        Evidence for a removal rarely shows in one trace (a distracting field
        makes the agent worse everywhere a little), so it comes from the
        study; it is proposed only for fields the original doc has and no
        other operation in this plan touches.
        """
        taken = {o.field for o in carried.values()} | {o.field for _, o in scored}
        support = sorted({d.episode_id for d in diagnoses})
        out = []
        for prior in removal_candidates(ctx.priors, ctx.original.present()):
            if prior.field in taken:
                continue
            if any(
                ("Remove", prior.field) in rec.operations and rec.outcome == "harmful" for rec in ctx.history
            ):
                notes.append(f"not removing {prior.field} again: it was harmful in an earlier iteration")
                continue
            op = Operation(op="Remove", field=prior.field, reason=prior.reason(), support=support)
            out.append((PRIOR_WEIGHT * prior.value, op))
            notes.append(f"proposed Remove {prior.field}: {prior.reason()}")
        return out

    @staticmethod
    def _rank_bonus(op: Operation, classes: set[str]) -> float:
        """How strongly the rule table prefers this operation for these failure classes (× the rule's prior)."""
        best = 0.0
        for c in classes:
            r = RULES.get(c)
            ops = r.operations if r else ()
            if (op.op, op.field) in ops:
                best = max(best, r.prior / (1 + ops.index((op.op, op.field))))
        return best

    @staticmethod
    def _choose(
        ctx: ToolContext, carried: list[Operation], ops: list[Operation], notes: list[str]
    ) -> list[Operation]:
        """Carried operations plus the top new ones, never repeating an earlier iteration's plan."""
        tried = {frozenset(rec.operations) for rec in ctx.history}
        fields = {o.field for o in carried}
        ops = [o for o in ops if o.field not in fields]
        k = min(len(ops), 2)
        chosen = carried + ops[:k]

        def fresh(plan: list[Operation]) -> bool:
            return bool(plan) and frozenset(o.key() for o in plan) not in tried

        if fresh(chosen):
            if len(ops) > k:
                notes.append("deferred: " + ", ".join(f"{o.op} {o.field}" for o in ops[k:]))
            return chosen
        for extra in ops[k:]:
            chosen = chosen + [extra]
            if fresh(chosen):
                notes.append(f"added {extra.op} {extra.field} so the plan differs from earlier iterations")
                return chosen
        notes.append("every plan the evidence supports was tried already")
        return []

    # ------------------------------------------------------------------ generation
    def generate(self, ctx: ToolContext, plan: Plan, memory: DomainMemory) -> tuple[ToolDoc, list[str]]:
        doc = ctx.original
        notes: list[str] = []
        synth: Synth | None = None
        for op in sorted(plan.operations, key=lambda o: CODES.index(o.field)):
            content = op.content
            if content is None and op.op != "Remove":
                synth = synth or Synth(ctx, [], memory)
                content = synth(op.op, op.field)
                if content is None:
                    notes.append(f"{op.op} {op.field} skipped: no evidence")
                    continue
            try:
                doc = doc.apply(op.op, op.field, content)
            except DocError as exc:
                notes.append(f"{op.op} {op.field} not applied: {exc}")
        return doc, notes

    # ------------------------------------------------------------------ memory
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
        delta = evaluation.delta  # over validation and the optimization re-run: the larger sample
        outcome = outcome_of(delta, len(evaluation.fixed), len(evaluation.regressions))
        it = ctx.iteration
        for d in diagnoses:
            if not d.doc_related:
                continue
            memory.add(
                "diagnosis",
                MemoryEntry(
                    text=f"{d.failure_class} ({ctx.tool}): {d.mismatch[:100]} -> fields {', '.join(d.fields[:4])}",
                    tool=ctx.tool,
                    iteration=it,
                    failure_class=d.failure_class,
                    fields=d.fields[:4],
                    outcome="pattern",
                ),
            )
        classes = {d.episode_id: d.failure_class for d in diagnoses}
        new_ops = [o for o in plan.operations if f"{o.op} {o.field}" not in plan.carried]
        for op in new_ops:
            for cls in sorted({classes.get(e, "") for e in op.support} - {""}) or [""]:
                memory.add(
                    "planning",
                    MemoryEntry(
                        text=f"{op.op} {op.field} against {cls or 'failures'}: {outcome}",
                        tool=ctx.tool,
                        iteration=it,
                        failure_class=cls,
                        fields=[op.field],
                        op=op.op,
                        outcome=outcome,
                        delta=delta,
                    ),
                )
            if outcome == "effective":
                for cls in sorted({classes.get(e, "") for e in op.support} - {""}):
                    memory.add(
                        "diagnosis",
                        MemoryEntry(
                            text=f"{cls}: fixing {op.field} helped",
                            failure_class=cls,
                            fields=[op.field],
                            outcome="confirmed",
                            iteration=it,
                        ),
                    )
        if evaluation.regressions:
            for op in new_ops:
                memory.add(
                    "generation",
                    MemoryEntry(
                        text=f"{op.op} {op.field} on {ctx.tool} broke {len(evaluation.regressions)} task(s) that passed before",
                        tool=ctx.tool,
                        iteration=it,
                        fields=[op.field],
                        op=op.op,
                        outcome="regression",
                        count=len(evaluation.regressions),
                    ),
                )
        memory.add(
            "generation",
            MemoryEntry(
                text=(
                    f"{ctx.tool} iteration {it}: {', '.join(f'{o.op} {o.field}' for o in plan.operations)} -> "
                    f"val TS {evaluation.base_val_ts:.2f}->{evaluation.val_ts:.2f}, opt TS "
                    f"{evaluation.base_opt_ts:.2f}->{evaluation.opt_ts:.2f}, {len(evaluation.fixed)} fixed, "
                    f"{len(evaluation.regressions)} regressions"
                ),
                tool=ctx.tool,
                iteration=it,
                fields=[o.field for o in plan.operations],
                outcome="note",
                delta=delta,
            ),
        )
