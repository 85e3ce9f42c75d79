"""Spans grouped into episodes: the user's request, the tool calls with arguments, outputs and errors.

One trace is one episode. Tool calls come from TOOL spans (`tool.name`,
`input.value` as the arguments, `output.value`, an ERROR status or an
`exception` event as the error); a trace without TOOL spans falls back to the
tool calls its LLM spans requested, with the outputs the next LLM span was
given. The tool definitions an episode saw are those of its LLM spans
(`llm.tools.N.tool.json_schema`), else the TOOL spans' own `tool.description`
and `tool.parameters`. A user-feedback score travels with the episode when the
trace carries one (Langfuse scores, or a `feedback` attribute).
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from typing import Any

from core.docs import DocParseError, ToolDoc, parse_openai
from core.traces.spans import Span, TraceFileError

_INDEXED = re.compile(r"^(?P<head>.+?)\.(?P<i>\d+)\.(?P<rest>.+)$")


@dataclass
class ImportedCall:
    """One tool call of a production trace."""

    tool: str
    args: dict[str, Any] | None
    output: str | None = None
    error: str | None = None
    raw_args: str | None = None  # what the trace held when it was not a JSON object
    start_ns: int = 0
    latency_s: float = 0.0
    span_id: str = ""


@dataclass
class ImportedTrace:
    """One trace as an episode: request, calls, answer, what the model saw, how it ended."""

    trace_id: str
    query: str
    calls: list[ImportedCall] = field(default_factory=list)
    final_answer: str | None = None
    model: str = ""
    tools: list[ToolDoc] = field(default_factory=list)
    error: str | None = None
    feedback: list[dict[str, Any]] = field(default_factory=list)
    start_ns: int = 0
    end_ns: int = 0
    tokens_in: int = 0
    tokens_out: int = 0
    n_llm: int = 0
    llm_messages: list[dict[str, Any]] = field(default_factory=list)  # per LLM span: messages in / out


def indexed(attrs: dict[str, Any], head: str) -> list[dict[str, Any]]:
    """`head.0.x.y`, `head.1.x.y` ... as a list of {"x.y": value} (OpenInference's flattened lists)."""
    items: dict[int, dict[str, Any]] = {}
    prefix = head + "."
    for key, value in attrs.items():
        if not key.startswith(prefix):
            continue
        rest = key[len(prefix) :]
        i, _, sub = rest.partition(".")
        if i.isdigit():
            items.setdefault(int(i), {})[sub] = value
    return [items[i] for i in sorted(items)]


def group_traces(spans: list[Span], where: str) -> list[ImportedTrace]:
    """Every trace of the file as an ImportedTrace, in order of start time."""
    by_trace: dict[str, list[Span]] = {}
    for s in spans:
        by_trace.setdefault(s.trace_id, []).append(s)
    out = [
        _episode(tid, sorted(group, key=lambda s: (s.start_ns, s.span_id)), where)
        for tid, group in by_trace.items()
    ]
    return sorted(out, key=lambda t: (t.start_ns, t.trace_id))


def _episode(trace_id: str, spans: list[Span], where: str) -> ImportedTrace:
    ids = {s.span_id for s in spans}
    roots = [s for s in spans if not s.parent_id or s.parent_id not in ids]
    root = roots[0]
    llms = [s for s in spans if s.kind == "LLM"]
    tools = [s for s in spans if s.kind == "TOOL"]
    trace = ImportedTrace(trace_id=trace_id, query="", start_ns=min(s.start_ns for s in spans))
    trace.end_ns = max(s.end_ns for s in spans)
    for s in llms:
        msgs_in = [_message(m) for m in indexed(s.attributes, "llm.input_messages")]
        msgs_out = [_message(m) for m in indexed(s.attributes, "llm.output_messages")]
        trace.llm_messages.append({"span": s, "in": msgs_in, "out": msgs_out})
        trace.model = trace.model or str(s.attr("llm.model_name") or "")
        trace.tokens_in += int(s.attr("llm.token_count.prompt") or 0)
        trace.tokens_out += int(s.attr("llm.token_count.completion") or 0)
    trace.n_llm = len(llms)
    first_user = next(
        (m["content"] for e in trace.llm_messages for m in e["in"] if m["role"] == "user"), None
    )
    trace.query = first_user or _input_text(root) or root.name
    trace.calls = [_tool_call(s, where) for s in tools] if tools else _requested_calls(trace)
    trace.tools = _definitions(llms, tools, where)
    _single_arguments(trace)
    last_out = next(
        (m for e in reversed(trace.llm_messages) for m in reversed(e["out"]) if not m["tool_calls"]), None
    )
    trace.final_answer = (last_out or {}).get("content") or None
    failed = [s for s in spans if s.status == "ERROR" and s.kind != "TOOL"]
    if failed:
        s = failed[0]
        trace.error = f"{s.name}: {s.status_message or _exception(s) or 'ended with an error'}"
    trace.feedback = [
        {"name": str(x.get("name") or "score"), "value": x.get("value"), "comment": x.get("comment")}
        for s in spans
        for x in s.scores
    ] + _feedback_attributes(root)
    return trace


def _message(item: dict[str, Any]) -> dict[str, Any]:
    calls = [
        {
            "id": c.get("tool_call.id"),
            "name": c.get("tool_call.function.name"),
            "arguments": c.get("tool_call.function.arguments"),
        }
        for c in indexed({k.removeprefix("message."): v for k, v in item.items()}, "tool_calls")
    ]
    return {
        "role": str(item.get("message.role") or ""),
        "content": item.get("message.content"),
        "tool_calls": calls,
        "tool_call_id": item.get("message.tool_call_id"),
        "name": item.get("message.name"),
    }


def _input_text(span: Span) -> str | None:
    value = span.attr("input.value")
    if isinstance(value, str):
        try:
            data = json.loads(value)
        except ValueError:
            return value
        if isinstance(data, dict):
            for key in ("input", "query", "question", "messages"):
                if isinstance(data.get(key), str):
                    return data[key]
        return value
    return None


def _args(value: Any) -> tuple[dict[str, Any] | None, str | None]:
    """(arguments as an object, the raw text when they are not one)."""
    if isinstance(value, dict):
        return value, None
    if value is None or value == "":
        return {}, None
    if isinstance(value, str):
        try:
            data = json.loads(value)
        except ValueError:
            return None, value
        if isinstance(data, dict):
            return data, None
        return None, value
    return None, json.dumps(value, default=str)


def _output_text(value: Any) -> str | None:
    """A tool span's output: LangChain's serialised ToolMessage is unwrapped to its content."""
    if value is None:
        return None
    text = value if isinstance(value, str) else json.dumps(value, ensure_ascii=False)
    try:
        data = json.loads(text)
    except ValueError:
        return text
    if isinstance(data, dict) and data.get("type") == "tool" and isinstance(data.get("data"), dict):
        content = data["data"].get("content")
        return content if isinstance(content, str) else json.dumps(content, ensure_ascii=False)
    return text


def _exception(span: Span) -> str | None:
    for e in span.events:
        if e.get("name") == "exception":
            attrs = e.get("attributes") or {}
            msg = attrs.get("exception.message")
            kind = attrs.get("exception.type")
            if msg or kind:
                return f"{kind}: {msg}" if kind and msg else str(msg or kind)
    return None


def _tool_call(span: Span, where: str) -> ImportedCall:
    name = span.attr("tool.name") or span.name
    if not name:
        raise TraceFileError(f"{where}: span {span.span_id} is a TOOL span without tool.name")
    args, raw = _args(span.attr("input.value"))
    output = _output_text(span.attr("output.value"))
    error = None
    if span.status == "ERROR":
        error = span.status_message or _exception(span) or "the tool failed"
    return ImportedCall(
        tool=str(name),
        args=args,
        raw_args=raw,
        output=None if output is None else str(output),
        error=error,
        start_ns=span.start_ns,
        latency_s=max(0, span.end_ns - span.start_ns) / 1e9,
        span_id=span.span_id,
    )


def _requested_calls(trace: ImportedTrace) -> list[ImportedCall]:
    """Calls the model asked for, with the tool messages the next request carried (no TOOL spans)."""
    replies: dict[str, str] = {}
    for e in trace.llm_messages:
        for m in e["in"]:
            if m["role"] == "tool" and m["tool_call_id"]:
                replies[str(m["tool_call_id"])] = str(m["content"] or "")
    out = []
    for e in trace.llm_messages:
        for m in e["out"]:
            for c in m["tool_calls"]:
                args, raw = _args(c["arguments"])
                out.append(
                    ImportedCall(
                        tool=str(c["name"] or "?"),
                        args=args,
                        raw_args=raw,
                        output=replies.get(str(c["id"])),
                        start_ns=e["span"].end_ns,
                        span_id=e["span"].span_id,
                    )
                )
    return out


def _definitions(llms: list[Span], tools: list[Span], where: str) -> list[ToolDoc]:
    docs: dict[str, ToolDoc] = {}
    for s in llms:
        for item in indexed(s.attributes, "llm.tools"):
            text = item.get("tool.json_schema")
            if not text:
                continue
            try:
                doc = parse_openai(json.loads(text) if isinstance(text, str) else text)
            except (ValueError, DocParseError) as exc:
                raise TraceFileError(
                    f"{where}: span {s.span_id} ({s.name}): unreadable llm.tools entry: {exc}"
                ) from None
            docs.setdefault(doc.tool, doc)
    if docs:
        return list(docs.values())
    for s in tools:
        name = s.attr("tool.name") or s.name
        if name in docs or not (s.attr("tool.description") or s.attr("tool.parameters")):
            continue
        params = s.attr("tool.parameters")
        try:
            schema = json.loads(params) if isinstance(params, str) else params
            docs[name] = parse_openai(
                {"name": name, "description": s.attr("tool.description") or None, "parameters": schema or {}}
            )
        except (ValueError, DocParseError) as exc:
            raise TraceFileError(
                f"{where}: span {s.span_id} ({s.name}): unreadable tool.parameters: {exc}"
            ) from None
    return list(docs.values())


def _single_arguments(trace: ImportedTrace) -> None:
    """A bare input of a one-parameter tool is that parameter's value (LangChain records `"coffee"`)."""
    docs = {d.tool: d for d in trace.tools}
    for c in trace.calls:
        doc = docs.get(c.tool)
        if c.args is None and c.raw_args is not None and doc is not None:
            required = [p.name for p in doc.parameters if p.required] or [p.name for p in doc.parameters]
            if len(required) == 1:
                c.args, c.raw_args = {required[0]: c.raw_args}, None


def _feedback_attributes(root: Span) -> list[dict[str, Any]]:
    out = []
    for key, value in root.attributes.items():
        if "feedback" in key.lower() and isinstance(value, int | float) and not isinstance(value, bool):
            out.append(
                {"name": key, "value": value, "comment": root.attr(key.rsplit(".", 1)[0] + ".comment")}
            )
    return out
