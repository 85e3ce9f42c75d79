"""Write an absent field from metadata and evidence (the "add" side of the field-impact study).

Each synthesiser returns the content `ToolDoc.add(code, content)` expects, or
None when the evidence cannot support the field for this tool (then the tool is
left as it is and the study reports how many tools got the field). Nothing is
invented: every sentence is a template filled with introspected or observed
facts (see `core.study.evidence`). Templates, in short:

- TN  the dispatch key; FD  the implementation's docstring, else "Calls <tool>."
- TD  the readable benchmark domain ("Calendar management")
- IPN parameter names from the signature
- IPD "Example values: ..." from the supplement part's ground truth
- IPT declared type, else the Python type of observed values or of the default
- DPV signature defaults; PRF / POF required/optional from the signature, or,
  when every default is None (WorkBench), "required" = used in every observed call
- RPN/RPD/RPT one return entry describing the observed output
- CI  the implementation's source (first 40 lines)
- UE  up to two observed ground-truth calls with their outputs
- RT  the observed output's shape with values replaced by their types
- UG  which tools the ground truth calls before/after this one
- IC  required arguments, value formats seen in arguments, and the message the
      tool gives when called without arguments
"""

from __future__ import annotations

import ast
import json
import re
from collections import Counter
from collections.abc import Callable
from typing import Any

from core.docs import ToolDoc
from core.fields import BY_CODE, Scope
from core.study.evidence import Evidence, ToolMeta

MAX_TEXT = 240

_FORMATS = (
    (re.compile(r"^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}$"), '"YYYY-MM-DD HH:MM:SS"'),
    (re.compile(r"^\d{4}-\d{2}-\d{2}$"), '"YYYY-MM-DD"'),
    (re.compile(r"^[^@\s]+@[^@\s]+\.[a-z]+$"), "an email address"),
    (re.compile(r"^\d{8}$"), "an 8-digit id"),
)


def _short(text: str, limit: int = MAX_TEXT) -> str:
    text = " ".join(str(text).split())
    return text if len(text) <= limit else text[: limit - 3] + "..."


def _parse(text: str) -> Any:
    try:
        return ast.literal_eval(text)
    except (ValueError, SyntaxError, TypeError, MemoryError, RecursionError):
        return text


def _type_name(value: Any) -> str:
    if isinstance(value, bool):
        return "bool"
    if isinstance(value, list):
        inner = {_type_name(v) for v in value}
        return f"list[{inner.pop()}]" if len(inner) == 1 else "list"
    return type(value).__name__


def shape(value: Any, depth: int = 0) -> Any:
    """The value with leaves replaced by `<type>` (lists keep one element)."""
    if depth > 3:
        return "..."
    if isinstance(value, dict):
        return {str(k): shape(v, depth + 1) for k, v in list(value.items())[:12]}
    if isinstance(value, list | tuple):
        return [shape(value[0], depth + 1), "..."] if value else []
    return f"<{_type_name(value)}>"


def _values(ev: Evidence, tool: str, param: str) -> list[Any]:
    out: list[Any] = []
    for c in ev.calls.get(tool, ()):
        if param in c.args and c.args[param] not in out:
            out.append(c.args[param])
    return out


def _required(meta: ToolMeta, ev: Evidence, tool: str) -> dict[str, bool] | None:
    """Required flags: the signature's when it says, else 'used in every observed call'."""
    calls = ev.calls.get(tool, ())
    out: dict[str, bool] = {}
    for p in meta.params:
        if p.required is not None:
            out[p.name] = p.required
        elif calls:
            out[p.name] = all(p.name in c.args for c in calls)
    return out or None


def _outputs(ev: Evidence, tool: str) -> list[Any]:
    return [_parse(text) for _, text, ok in ev.outputs.get(tool, ()) if ok]


# ---------------------------------------------------------------- synthesisers
def s_tn(doc: ToolDoc, meta: ToolMeta, ev: Evidence) -> Any:
    return doc.tool


def s_fd(doc: ToolDoc, meta: ToolMeta, ev: Evidence) -> Any:
    if meta.source:
        m = re.search(r'"""(.+?)"""', meta.source, re.S)
        if m:
            return _short(m.group(1).strip().split("\n\n")[0])
    return f"Calls {doc.tool}."


def s_td(doc: ToolDoc, meta: ToolMeta, ev: Evidence) -> Any:
    return meta.domain_label


def s_ipn(doc: ToolDoc, meta: ToolMeta, ev: Evidence) -> Any:
    return [p.name for p in meta.params] or None


def s_ipd(doc: ToolDoc, meta: ToolMeta, ev: Evidence) -> Any:
    out = {}
    for p in doc.parameters:
        vals = _values(ev, doc.tool, p.name)[:3]
        if vals:
            out[p.name] = "Example values: " + ", ".join(
                json.dumps(v, ensure_ascii=False, default=str) for v in vals
            )
    return out or None


def s_ipt(doc: ToolDoc, meta: ToolMeta, ev: Evidence) -> Any:
    declared = {p.name: p.type for p in meta.params if p.type}
    out = {}
    for p in doc.parameters:
        vals = _values(ev, doc.tool, p.name)
        if p.name in declared:
            out[p.name] = declared[p.name]
        elif vals:
            kinds = {_type_name(v) for v in vals}
            out[p.name] = kinds.pop() if len(kinds) == 1 else " | ".join(sorted(kinds))
    return out or None


def s_dpv(doc: ToolDoc, meta: ToolMeta, ev: Evidence) -> Any:
    defaults = {p.name: p.default for p in meta.params if p.has_default}
    return {p.name: defaults[p.name] for p in doc.parameters if p.name in defaults} or None


def s_prf(doc: ToolDoc, meta: ToolMeta, ev: Evidence) -> Any:
    req = _required(meta, ev, doc.tool)
    return {p.name: req[p.name] for p in doc.parameters if req and p.name in req} or None


def s_pof(doc: ToolDoc, meta: ToolMeta, ev: Evidence) -> Any:
    req = _required(meta, ev, doc.tool)
    return {p.name: not req[p.name] for p in doc.parameters if req and p.name in req} or None


def _return_name(outs: list[Any]) -> str:
    first = outs[0]
    if isinstance(first, dict) and len(first) == 1:
        return str(next(iter(first)))
    return "result"


def s_rpn(doc: ToolDoc, meta: ToolMeta, ev: Evidence) -> Any:
    outs = _outputs(ev, doc.tool)
    return [_return_name(outs)] if outs else None


def s_rpd(doc: ToolDoc, meta: ToolMeta, ev: Evidence) -> Any:
    outs = [text for _, text, ok in ev.outputs.get(doc.tool, ()) if ok]
    return [f"The tool's output, e.g. {_short(outs[0], 160)}"] if outs else None


def s_rpt(doc: ToolDoc, meta: ToolMeta, ev: Evidence) -> Any:
    outs = _outputs(ev, doc.tool)
    if not outs:
        return None
    kinds = list(dict.fromkeys(_type_name(o) for o in outs))
    return [" | ".join(kinds)]


def s_ci(doc: ToolDoc, meta: ToolMeta, ev: Evidence) -> Any:
    return meta.source


def s_ue(doc: ToolDoc, meta: ToolMeta, ev: Evidence) -> Any:
    seen: list[str] = []
    out: list[str] = []
    for call, text, ok in ev.outputs.get(doc.tool, ()):
        rendered = call.render()
        if rendered in seen or not ok:
            continue
        seen.append(rendered)
        out.append(f">>> {rendered}\n{_short(text, 200)}")
        if len(out) == 2:
            break
    return out or None


def s_rt(doc: ToolDoc, meta: ToolMeta, ev: Evidence) -> Any:
    shapes: list[str] = []
    for out in _outputs(ev, doc.tool):
        if isinstance(out, str):
            text = f"text, e.g. {json.dumps(_short(out, 120), ensure_ascii=False)}"
        else:
            text = json.dumps(shape(out), ensure_ascii=False)
        text = _short(text, 200)
        if text not in shapes:
            shapes.append(text)
    return " or ".join(shapes[:2]) or None


def s_ug(doc: ToolDoc, meta: ToolMeta, ev: Evidence) -> Any:
    parts = []
    before = [t for t, _ in ev.before.get(doc.tool, Counter()).most_common(2)]
    after = [t for t, _ in ev.after.get(doc.tool, Counter()).most_common(2)]
    if before:
        parts.append(f"In typical requests it is called after {' or '.join(before)}.")
    if after:
        parts.append(f"It is often followed by {' or '.join(after)}.")
    if not parts and doc.description:
        first = doc.description.strip().split(". ")[0].rstrip(".")
        parts.append(f"Use it when the request needs this: {_short(first, 160)}.")
    return " ".join(parts) or None


def s_ic(doc: ToolDoc, meta: ToolMeta, ev: Evidence) -> Any:
    parts = []
    req = _required(meta, ev, doc.tool) or {}
    needed = [n for n, r in req.items() if r]
    if needed:
        parts.append(f"Requires {', '.join(needed)}.")
    for p in meta.params:
        vals = [v for v in _values(ev, doc.tool, p.name) if isinstance(v, str)]
        for rx, label in _FORMATS:
            if vals and all(rx.match(v) for v in vals):
                parts.append(f"{p.name} must be {label}.")
                break
    probe = ev.probe_errors.get(doc.tool)
    if probe:
        parts.append(f"Called without arguments it answers: {_short(probe, 160)}")
    return " ".join(parts) or None


SYNTHESISERS: dict[str, Callable[[ToolDoc, ToolMeta, Evidence], Any]] = {
    "TN": s_tn,
    "FD": s_fd,
    "TD": s_td,
    "IPN": s_ipn,
    "IPD": s_ipd,
    "IPT": s_ipt,
    "DPV": s_dpv,
    "PRF": s_prf,
    "POF": s_pof,
    "RPN": s_rpn,
    "RPD": s_rpd,
    "RPT": s_rpt,
    "CI": s_ci,
    "UE": s_ue,
    "RT": s_rt,
    "UG": s_ug,
    "IC": s_ic,
}


def supplement(doc: ToolDoc, code: str, meta: ToolMeta, ev: Evidence) -> ToolDoc | None:
    """`doc` with field `code` added from evidence, or None when it cannot be supported."""
    if BY_CODE[code].scope is Scope.TOOL and doc.has(code):
        return None
    content = SYNTHESISERS[code](doc, meta, ev)
    if content in (None, "", [], {}):
        return None
    new = doc.add(code, content)
    return new if new.doc_id != doc.doc_id else None
