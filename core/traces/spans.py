"""Reading trace files into one span model: OTLP JSON (OpenInference), Phoenix span exports, Langfuse.

Every reader turns its format into `Span` records (flattened attributes with
OpenInference keys), so grouping spans into episodes is written once. Reading
is all-or-nothing: the first malformed span ends the read with one
`TraceFileError` naming the file and the span, and nothing is returned.

Formats:
- `otlp`: an OTLP/JSON `ExportTraceServiceRequest` (`{"resourceSpans": [...]}`),
  one per file or one per line (a collector's file exporter); ids in hex (the
  OTLP/JSON rule) or base64 (protobuf's JSON mapping);
- `phoenix`: Phoenix span records (`context.trace_id`, `context.span_id`,
  `parent_id`, `span_kind`, `start_time`, `attributes` nested or dotted), a list
  or one per line, or the dataframe's dotted column names;
- `langfuse`: Langfuse trace exports (`{"id", "observations": [...],
  "scores": [...]}`), one trace, a list, or `{"data": [...]}`.
"""

from __future__ import annotations

import base64
import binascii
import json
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import Any

from core.safeio import InputError, decode_utf8, loads_json

FORMATS = ("auto", "otlp", "phoenix", "langfuse")
MAX_BYTES = 512 * 1024 * 1024


class TraceFileError(ValueError):
    """A trace file that cannot be imported; the message names the file and the span."""


@dataclass
class Span:
    """One span: ids, kind (OpenInference span kind), times in ns, status and flattened attributes."""

    trace_id: str
    span_id: str
    parent_id: str | None
    name: str
    kind: str  # LLM | TOOL | CHAIN | AGENT | ... (upper case; "" when not said)
    start_ns: int
    end_ns: int
    status: str = "UNSET"  # OK | ERROR | UNSET
    status_message: str = ""
    attributes: dict[str, Any] = field(default_factory=dict)
    events: list[dict[str, Any]] = field(default_factory=list)
    scores: list[dict[str, Any]] = field(default_factory=list)  # user feedback carried by the trace

    def attr(self, key: str, default: Any = None) -> Any:
        return self.attributes.get(key, default)


def read_spans(path: str | Path, fmt: str = "auto") -> tuple[str, list[Span]]:
    """(the format read, every span of the file); raises TraceFileError naming the span at fault."""
    p = Path(path).expanduser()
    if fmt not in FORMATS:
        raise TraceFileError(f"unknown trace format {fmt!r}; expected one of {', '.join(FORMATS)}")
    try:
        if p.stat().st_size > MAX_BYTES:
            raise TraceFileError(f"{p}: larger than {MAX_BYTES // 2**20} MB")
        text = decode_utf8(p.read_bytes())
    except OSError as exc:
        raise TraceFileError(f"{p}: cannot read ({exc.strerror or exc})") from None
    except InputError as exc:
        raise TraceFileError(f"{p}:{exc.line}: {exc.message}") from None
    items = _documents(text, p)
    fmt = fmt if fmt != "auto" else _detect(items, p)
    reader = {"otlp": _otlp, "phoenix": _phoenix, "langfuse": _langfuse}[fmt]
    spans: list[Span] = []
    for where, item in items:
        spans.extend(reader(item, f"{p}{where}"))
    if not spans:
        raise TraceFileError(f"{p}: no spans in this {fmt} file")
    return fmt, spans


def _documents(text: str, path: Path) -> list[tuple[str, Any]]:
    """The JSON documents of a file: one document, or one per line (JSON lines)."""
    try:
        return [("", loads_json(text))]
    except InputError as whole:
        lines = [ln for ln in text.split("\n")]
        if len([ln for ln in lines if ln.strip()]) < 2:
            raise TraceFileError(f"{path}:{whole.line}: {whole.message}") from None
    out = []
    for n, line in enumerate(lines, start=1):
        if line.strip():
            try:
                out.append((f":{n}", loads_json(line, line=n)))
            except InputError as exc:
                raise TraceFileError(f"{path}:{n}: {exc.message}") from None
    return out


def _detect(items: list[tuple[str, Any]], path: Path) -> str:
    first = items[0][1] if items else None
    probe = first[0] if isinstance(first, list) and first else first
    if isinstance(probe, dict):
        if "resourceSpans" in probe:
            return "otlp"
        if "observations" in probe or ("data" in probe and isinstance(probe["data"], list)):
            return "langfuse"
        if "context" in probe or "context.span_id" in probe or "span_kind" in probe:
            return "phoenix"
    raise TraceFileError(
        f"{path}: not a trace file this importer knows: expected OTLP JSON (resourceSpans), Phoenix spans "
        "(context.span_id, span_kind) or a Langfuse trace export (observations); pass --format to say which"
    )


# ---------------------------------------------------------------------------- OTLP JSON
def _otlp(doc: Any, where: str) -> list[Span]:
    if not isinstance(doc, dict) or not isinstance(doc.get("resourceSpans"), list):
        raise TraceFileError(f"{where}: an OTLP JSON document is an object with a resourceSpans list")
    out: list[Span] = []
    for r, resource in enumerate(doc["resourceSpans"]):
        for s, scope in enumerate(_list(resource, "scopeSpans", f"{where}: resourceSpans[{r}]")):
            for i, raw in enumerate(_list(scope, "spans", f"{where}: resourceSpans[{r}].scopeSpans[{s}]")):
                out.append(_otlp_span(raw, f"{where}: resourceSpans[{r}].scopeSpans[{s}].spans[{i}]"))
    return out


def _otlp_span(raw: Any, where: str) -> Span:
    if not isinstance(raw, dict):
        raise TraceFileError(f"{where}: a span must be an object")
    label = f"{where} ({raw.get('name', '?')!s}, span {raw.get('spanId', '?')!s})"
    attrs = {}
    for a in raw.get("attributes") or []:
        if not isinstance(a, dict) or "key" not in a:
            raise TraceFileError(f"{label}: an attribute must be {{'key': ..., 'value': {{...}}}}")
        attrs[a["key"]] = _any_value(a.get("value"), label)
    status = raw.get("status") or {}
    code = status.get("code", 0)
    status_name = {0: "UNSET", 1: "OK", 2: "ERROR"}.get(code, str(code).removeprefix("STATUS_CODE_"))
    events = [
        {
            "name": e.get("name"),
            "attributes": {a["key"]: _any_value(a.get("value"), label) for a in e.get("attributes") or []},
        }
        for e in raw.get("events") or []
        if isinstance(e, dict)
    ]
    try:
        start, end = int(raw.get("startTimeUnixNano", 0)), int(raw.get("endTimeUnixNano", 0))
    except (TypeError, ValueError):
        raise TraceFileError(f"{label}: startTimeUnixNano / endTimeUnixNano must be integers") from None
    return Span(
        trace_id=_hex_id(raw.get("traceId"), 16, f"{label}: traceId"),
        span_id=_hex_id(raw.get("spanId"), 8, f"{label}: spanId"),
        parent_id=_hex_id(raw["parentSpanId"], 8, f"{label}: parentSpanId")
        if raw.get("parentSpanId")
        else None,
        name=str(raw.get("name") or ""),
        kind=str(attrs.get("openinference.span.kind") or "").upper(),
        start_ns=start,
        end_ns=end,
        status=status_name.upper(),
        status_message=str(status.get("message") or ""),
        attributes=attrs,
        events=events,
    )


def _any_value(value: Any, label: str) -> Any:
    """An OTLP AnyValue as a Python value."""
    if not isinstance(value, dict) or len(value) > 1:
        if value in (None, {}):
            return None
        raise TraceFileError(f"{label}: an attribute value must be an AnyValue object, got {value!r:.80}")
    ((kind, v),) = value.items()
    if kind in ("stringValue", "boolValue", "doubleValue"):
        return v
    if kind == "intValue":
        return int(v)
    if kind == "arrayValue":
        return [_any_value(x, label) for x in (v or {}).get("values") or []]
    if kind == "kvlistValue":
        return {x["key"]: _any_value(x.get("value"), label) for x in (v or {}).get("values") or []}
    if kind == "bytesValue":
        return v
    raise TraceFileError(f"{label}: unknown attribute value kind {kind!r}")


def _hex_id(value: Any, n_bytes: int, label: str) -> str:
    """A span or trace id as lower-case hex; accepts hex (OTLP/JSON) or base64 (protobuf JSON)."""
    if not isinstance(value, str) or not value:
        raise TraceFileError(f"{label} is missing")
    text = value.strip().lower().removeprefix("0x")
    if len(text) == 2 * n_bytes and all(c in "0123456789abcdef" for c in text):
        return text
    try:
        raw = base64.b64decode(value, validate=True)
    except (binascii.Error, ValueError):
        raw = b""
    if len(raw) == n_bytes:
        return raw.hex()
    raise TraceFileError(
        f"{label} {value!r} is neither {2 * n_bytes} hex digits nor base64 of {n_bytes} bytes"
    )


def _list(obj: Any, key: str, where: str) -> list[Any]:
    value = obj.get(key) if isinstance(obj, dict) else None
    if value is None:
        return []
    if not isinstance(value, list):
        raise TraceFileError(f"{where}.{key} must be a list")
    return value


# ---------------------------------------------------------------------------- Phoenix
def _phoenix(doc: Any, where: str) -> list[Span]:
    records = (
        doc
        if isinstance(doc, list)
        else (doc.get("data") if isinstance(doc, dict) and "data" in doc else [doc])
    )
    out = []
    for i, rec in enumerate(records):
        label = f"{where}[{i}]" if isinstance(doc, list) else where
        if not isinstance(rec, dict):
            raise TraceFileError(f"{label}: a Phoenix span must be an object")
        flat = _flatten(rec)
        span_id, trace_id = flat.get("context.span_id"), flat.get("context.trace_id")
        label = f"{label} ({flat.get('name', '?')}, span {span_id or '?'})"
        if not span_id or not trace_id:
            raise TraceFileError(f"{label}: context.trace_id and context.span_id are required")
        attrs = {k.removeprefix("attributes."): v for k, v in flat.items() if k.startswith("attributes.")}
        attrs = {k: v for k, v in attrs.items() if v is not None}
        events = rec.get("events") or []
        out.append(
            Span(
                trace_id=str(trace_id),
                span_id=str(span_id),
                parent_id=str(flat["parent_id"]) if flat.get("parent_id") else None,
                name=str(flat.get("name") or ""),
                kind=str(flat.get("span_kind") or attrs.get("openinference.span.kind") or "").upper(),
                start_ns=_ns(flat.get("start_time"), f"{label}: start_time"),
                end_ns=_ns(flat.get("end_time"), f"{label}: end_time"),
                status=str(flat.get("status_code") or "UNSET").upper(),
                status_message=str(flat.get("status_message") or ""),
                attributes=attrs,
                events=[e for e in events if isinstance(e, dict)] if isinstance(events, list) else [],
            )
        )
    return out


def _flatten(obj: dict[str, Any], prefix: str = "") -> dict[str, Any]:
    """Nested objects as dotted keys (lists of objects stay lists, as OpenInference indexes them)."""
    out: dict[str, Any] = {}
    for k, v in obj.items():
        key = f"{prefix}{k}"
        if isinstance(v, dict) and k != "events":
            out.update(_flatten(v, key + "."))
        elif (
            isinstance(v, list)
            and v
            and all(isinstance(x, dict) for x in v)
            and key.startswith("attributes.")
        ):
            for i, x in enumerate(v):
                out.update(_flatten(x, f"{key}.{i}."))
        else:
            out[key] = v
    return out


def _ns(value: Any, label: str) -> int:
    if value in (None, ""):
        return 0
    if isinstance(value, int | float):
        return int(value)
    try:
        return int(datetime.fromisoformat(str(value).replace("Z", "+00:00")).timestamp() * 1e9)
    except ValueError:
        raise TraceFileError(f"{label}: {value!r} is not an ISO-8601 time") from None


# ---------------------------------------------------------------------------- Langfuse
LANGFUSE_KINDS = {"GENERATION": "LLM", "TOOL": "TOOL", "AGENT": "AGENT", "CHAIN": "CHAIN", "SPAN": "CHAIN"}


def _langfuse(doc: Any, where: str) -> list[Span]:
    traces = (
        doc if isinstance(doc, list) else (doc["data"] if isinstance(doc, dict) and "data" in doc else [doc])
    )
    out: list[Span] = []
    for t, trace in enumerate(traces):
        tw = f"{where}[{t}]" if len(traces) > 1 or isinstance(doc, list) else where
        if not isinstance(trace, dict) or not isinstance(trace.get("id"), str):
            raise TraceFileError(f"{tw}: a Langfuse trace is an object with an id")
        tid = trace["id"]
        start = _ns(trace.get("timestamp"), f"{tw}: timestamp")
        root = Span(
            trace_id=tid,
            span_id=f"trace:{tid}",
            parent_id=None,
            name=str(trace.get("name") or "trace"),
            kind="AGENT",
            start_ns=start,
            end_ns=start,
            attributes=_io_attrs(trace),
            scores=[s for s in trace.get("scores") or [] if isinstance(s, dict)],
        )
        out.append(root)
        observations = trace.get("observations") or []
        if not isinstance(observations, list):
            raise TraceFileError(f"{tw}: observations must be a list")
        for i, obs in enumerate(observations):
            label = f"{tw}: observations[{i}]"
            if (
                not isinstance(obs, dict)
                or not isinstance(obs.get("id"), str)
                or not isinstance(obs.get("type"), str)
            ):
                raise TraceFileError(f"{label}: an observation needs an id and a type")
            label = f"{label} ({obs.get('name', '?')}, observation {obs['id']})"
            kind = LANGFUSE_KINDS.get(obs["type"].upper(), obs["type"].upper())
            attrs = _io_attrs(obs)
            if kind == "TOOL":
                attrs["tool.name"] = obs.get("name")
            if kind == "LLM":
                attrs.update(_langfuse_llm(obs, label))
            error = str(obs.get("level") or "").upper() == "ERROR"
            out.append(
                Span(
                    trace_id=tid,
                    span_id=obs["id"],
                    parent_id=obs.get("parentObservationId") or root.span_id,
                    name=str(obs.get("name") or obs["type"]),
                    kind=kind,
                    start_ns=_ns(obs.get("startTime"), f"{label}: startTime"),
                    end_ns=_ns(obs.get("endTime"), f"{label}: endTime"),
                    status="ERROR" if error else "OK",
                    status_message=str(obs.get("statusMessage") or ""),
                    attributes=attrs,
                )
            )
    return out


def _io_attrs(obj: dict[str, Any]) -> dict[str, Any]:
    out = {}
    for key in ("input", "output"):
        value = obj.get(key)
        if value is not None:
            out[f"{key}.value"] = value if isinstance(value, str) else json.dumps(value, ensure_ascii=False)
    return out


def _langfuse_llm(obs: dict[str, Any], label: str) -> dict[str, Any]:
    """A generation's messages, tool calls and tool definitions under OpenInference keys."""
    out: dict[str, Any] = {"llm.model_name": obs.get("model")}
    messages = obs.get("input")
    tools = None
    if isinstance(messages, dict):
        tools = messages.get("tools")
        messages = messages.get("messages")
    for i, m in enumerate(messages if isinstance(messages, list) else []):
        if isinstance(m, dict):
            out[f"llm.input_messages.{i}.message.role"] = m.get("role")
            out[f"llm.input_messages.{i}.message.content"] = _text(m.get("content"))
    metadata = obs.get("metadata") if isinstance(obs.get("metadata"), dict) else {}
    tools = tools or metadata.get("tools")
    for i, t in enumerate(tools if isinstance(tools, list) else []):
        out[f"llm.tools.{i}.tool.json_schema"] = json.dumps(t, ensure_ascii=False)
    reply = obs.get("output")
    if isinstance(reply, dict):
        out["llm.output_messages.0.message.role"] = reply.get("role", "assistant")
        out["llm.output_messages.0.message.content"] = _text(reply.get("content"))
        for j, call in enumerate(reply.get("tool_calls") or []):
            fn = call.get("function") if isinstance(call, dict) else None
            if not isinstance(fn, dict):
                raise TraceFileError(f"{label}: output.tool_calls[{j}] has no function")
            args = fn.get("arguments")
            prefix = f"llm.output_messages.0.message.tool_calls.{j}.tool_call"
            out[f"{prefix}.function.name"] = fn.get("name")
            out[f"{prefix}.function.arguments"] = args if isinstance(args, str) else json.dumps(args)
            out[f"{prefix}.id"] = call.get("id")
    elif isinstance(reply, str):
        out["llm.output_messages.0.message.content"] = reply
    return {k: v for k, v in out.items() if v is not None}


def _text(content: Any) -> str | None:
    if content is None or isinstance(content, str):
        return content
    if isinstance(content, list):
        return "".join(str(c.get("text", "")) if isinstance(c, dict) else str(c) for c in content)
    return json.dumps(content, ensure_ascii=False)
