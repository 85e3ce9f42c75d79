"""Diagnosis without ground truth: what a production trace itself proves, mapped to doc fields.

Imported production traces have no gold calls, so the trace differ cannot
compare them with anything. What the trace proves on its own, checked
against the tool definitions the agent saw:

| finding | evidence quoted | failure class (rule table) |
|---|---|---|
| unknown parameter | the argument and the parameters the schema has | `unknown_argument` |
| missing required parameter | the call and the required list | `missing_argument` |
| argument of the wrong type | the value and the declared type | `wrong_format` |
| value outside the enum | the value and the allowed values | `wrong_value` |
| tool error | the tool's own message | `tool_error` |
| repeated identical call | the call and how often it was repeated | `extra_call` |
| immediate correction | the call and the next call of the same tool, which changed an argument | `wrong_format` / `wrong_value` |
| call of a tool not offered | the name and the offered tools | `unknown_tool` |
| negative user feedback (calls clean) | the score and its comment | `output_misuse` |

Every finding maps to fields through the evidence engine's rule table
(`core.chisel.rules`), exactly as the differ's findings do, and each
diagnosis quotes its evidence. Diagnoses are stored under the import run
(iteration 0, engine `nogold`), where the Diagnoses page shows them.
"""

from __future__ import annotations

import json
import re
from collections import Counter
from typing import Any

from core.chisel.access import load_traces
from core.chisel.differ import Finding, compare_values
from core.chisel.lineage import store_diagnoses
from core.chisel.rules import rule
from core.chisel.types import Diagnosis, Step, Trace
from core.docs import ToolDoc
from core.evaluation.traces import error_output_check, mark_error_outputs

ENGINE = "nogold"
_LITERAL = re.compile(r"^Literal\[(?P<items>.*)\]$")
_JSON_TYPES = {
    "str": (str,),
    "int": (int,),
    "float": (int, float),
    "bool": (bool,),
    "list": (list,),
    "dict": (dict,),
}


def _q(value: Any, limit: int = 120) -> str:
    text = json.dumps(value, ensure_ascii=False, default=str)
    return text if len(text) <= limit else text[:limit] + "…"


def _enum(type_text: str | None) -> list[Any] | None:
    m = _LITERAL.match(type_text or "")
    if not m:
        return None
    try:
        return json.loads(f"[{m['items']}]")
    except ValueError:
        return None


def _type_ok(type_text: str | None, value: Any) -> bool | None:
    """Whether `value` fits the declared type (None: the type says nothing checkable)."""
    if not type_text or value is None:
        return None
    parts = [p.strip() for p in type_text.split("|")]
    verdicts = []
    for part in parts:
        head = part.split("[", 1)[0].strip().lower()
        if head in ("none", "null", "optional"):
            return None
        kinds = _JSON_TYPES.get(head)
        if kinds is None:
            return None
        ok = isinstance(value, kinds) and not (head in ("int", "float") and isinstance(value, bool))
        verdicts.append(ok)
    return any(verdicts)


def schema_findings(step: Step, doc: ToolDoc | None) -> list[Finding]:
    """Schema violations of one call against the doc the agent saw."""
    if doc is None or not doc.parameters:
        return []
    args = step.args or {}
    names = [p.name for p in doc.parameters]
    out: list[Finding] = []
    call = f"{step.tool}({_q(args)})"
    for k, v in args.items():
        if k not in names:
            out.append(
                Finding(
                    "unknown_argument",
                    f"{call} passed unknown parameter {k!r}; the schema has {', '.join(names)}",
                    param=k,
                    pred=v,
                    data={"kind": "schema_violation"},
                )
            )
    for p in doc.parameters:
        if p.required and p.name not in args:
            out.append(
                Finding(
                    "missing_argument",
                    f"{call} left out required parameter {p.name!r}",
                    param=p.name,
                    data={"kind": "schema_violation"},
                )
            )
        if p.name not in args:
            continue
        value = args[p.name]
        allowed = _enum(p.type)
        if allowed is not None and value not in allowed:
            out.append(
                Finding(
                    "wrong_value",
                    f"{call}: {p.name}={_q(value)} is not one of {_q(allowed)}",
                    param=p.name,
                    pred=value,
                    data={"kind": "schema_violation", "allowed": allowed},
                )
            )
        elif allowed is None and _type_ok(p.type, value) is False:
            out.append(
                Finding(
                    "wrong_format",
                    f"{call}: {p.name}={_q(value)} is not of the declared type {p.type}",
                    param=p.name,
                    pred=value,
                    data={"kind": "schema_violation", "declared": p.type},
                )
            )
    return out


def trace_findings(trace: Trace, docs: dict[str, ToolDoc], offered: set[str]) -> dict[str, list[Finding]]:
    """Findings per tool: what this trace proves about the use of each tool."""
    found: dict[str, list[Finding]] = {}

    def add(tool: str | None, f: Finding) -> None:
        found.setdefault(tool or "?", []).append(f)

    steps = list(trace.steps)
    for s in steps:
        if offered and s.tool not in offered:
            add(
                s.tool,
                Finding(
                    "unknown_tool",
                    f"called {s.tool!r}, which the agent was not offered ({', '.join(sorted(offered))})",
                    pred=s.tool,
                ),
            )
            continue
        for f in schema_findings(s, docs.get(s.tool or "")):
            add(s.tool, f)
        if s.error:
            add(
                s.tool,
                Finding("tool_error", f"{s.tool} answered with an error: {s.error[:300]}", message=s.error),
            )
    keys = Counter(json.dumps([s.tool, s.args], sort_keys=True, default=str) for s in steps)
    for key, n in keys.items():
        if n > 1:
            tool, args = json.loads(key)
            add(
                tool,
                Finding("extra_call", f"{tool}({_q(args)}) was called {n} times with identical arguments"),
            )
    for a, b in zip(steps, steps[1:], strict=False):
        if a.tool != b.tool or a.args == b.args:
            continue
        changed = {
            k for k in set(a.args or {}) | set(b.args or {}) if (a.args or {}).get(k) != (b.args or {}).get(k)
        }
        for k in sorted(changed):
            before, after = (a.args or {}).get(k), (b.args or {}).get(k)
            if k not in (a.args or {}):
                kind = "missing_argument"
            elif k not in (b.args or {}):
                kind = "unknown_argument"
            else:
                kind = compare_values(after, before) or "wrong_value"
            why = f" after the error {a.error[:160]!r}" if a.error else ""
            add(
                a.tool,
                Finding(
                    kind,
                    f"{a.tool}: the agent corrected {k} from {_q(before)} to {_q(after)} in the next call{why}",
                    param=k,
                    gold=after,
                    pred=before,
                    data={"kind": "correction"},
                ),
            )
    negative = [f for f in (trace.score.get("feedback") or []) if _negative(f.get("value"))]
    if negative and not found:
        f = negative[0]
        comment = f" ({f['comment']})" if f.get("comment") else ""
        for tool in dict.fromkeys(s.tool for s in steps if s.tool):
            add(
                tool,
                Finding(
                    "output_misuse",
                    f"the user rated the answer {f['name']}={f['value']}{comment}; the calls show no error",
                    data={"kind": "feedback", "feedback": f},
                ),
            )
    return found


def _negative(value: Any) -> bool:
    if isinstance(value, bool):
        return not value
    if not isinstance(value, int | float):
        return False
    return value < 0.5 if value <= 1 else value < 3


def _evidence(trace: Trace, findings: list[Finding]) -> str:
    quotes = [f.text for f in findings[:4]]
    feedback = trace.score.get("feedback") or []
    if feedback:
        quotes.append("feedback: " + ", ".join(f"{f['name']}={f['value']}" for f in feedback))
    return "; ".join(quotes)


def diagnose_nogold(warehouse: Any, run_id: str) -> int:
    """Diagnose every episode of an import run that the trace itself shows went wrong; returns rows stored."""
    # a tool that reports its rejection as text ("Error: ...") failed all the same
    traces = mark_error_outputs(load_traces(warehouse, run_id), error_output_check(None))
    if not traces:
        return 0
    docs = _docs(warehouse, run_id)
    offered_of = {t.episode_id: set(t.score.get("tools_seen") or []) for t in traces}
    by_tool: dict[str, list[Diagnosis]] = {}
    for trace in traces:
        for tool, findings in trace_findings(trace, docs, offered_of[trace.episode_id]).items():
            related = [f for f in findings if rule(f.cls).doc_related]
            fields: list[str] = []
            for f in related:
                fields += [c for c in rule(f.cls).fields if c not in fields]
            by_tool.setdefault(tool, []).append(
                Diagnosis(
                    episode_id=trace.episode_id,
                    task_id=trace.task_id,
                    tool=tool,
                    failure_class=findings[0].cls,
                    doc_related=bool(related),
                    evidence=_evidence(trace, findings),
                    mismatch="; ".join(f.text for f in findings[:4]),
                    fields=fields,
                    detail={
                        "findings": [f.to_json() for f in findings],
                        "source": "trace",
                        "ground_truth": False,
                    },
                )
            )
    stored = 0
    for tool, diags in by_tool.items():
        doc = docs.get(tool) or ToolDoc(tool=tool, name=tool)
        store_diagnoses(warehouse, run_id, 0, doc, ENGINE, diags)
        stored += len(diags)
    return stored


def _docs(warehouse: Any, run_id: str) -> dict[str, ToolDoc]:
    rows = warehouse.rows(
        """SELECT DISTINCT m.tool, v.doc FROM episodes e JOIN run_episodes r USING (episode_id)
           JOIN doc_set_members m ON m.docset_id = e.docset_id JOIN doc_versions v ON v.doc_id = m.doc_id
           WHERE r.run_id = ?""",
        [run_id],
    )
    return {tool: ToolDoc.model_validate_json(doc) for tool, doc in rows}
