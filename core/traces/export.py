"""Any run's episodes as OTLP JSON spans with OpenInference semantic conventions.

`docschisel export-traces RUN --format openinference` writes what Phoenix and
any OpenTelemetry collector read: one trace per episode, an AGENT span for
the episode (the request in, the final answer out), one LLM span per model
call (messages in and out, tool calls, token counts, model name, and the tool
definitions the agent was offered as `llm.tools`) and one TOOL span per tool
call (arguments, output, an ERROR status with the message when it failed).
Ids are derived from the episode id, so exporting twice gives the same file;
`core.traces.importer` reads it back to the same calls and outputs.
"""

from __future__ import annotations

import hashlib
import json
from datetime import datetime
from typing import Any

from core.docs import render_openai

SCOPE = {"name": "docschisel", "version": "1"}


def _id(*parts: str, n_bytes: int) -> str:
    return hashlib.sha256("\0".join(parts).encode()).hexdigest()[: 2 * n_bytes]


def _value(v: Any) -> dict[str, Any]:
    if isinstance(v, bool):
        return {"boolValue": v}
    if isinstance(v, int):
        return {"intValue": str(v)}
    if isinstance(v, float):
        return {"doubleValue": v}
    return {"stringValue": v if isinstance(v, str) else json.dumps(v, ensure_ascii=False, default=str)}


def _attrs(d: dict[str, Any]) -> list[dict[str, Any]]:
    return [{"key": k, "value": _value(v)} for k, v in d.items() if v is not None]


def _ns(ts: Any) -> int:
    if isinstance(ts, datetime):
        return (
            int(ts.timestamp() * 1e9) if ts.tzinfo else int((ts - datetime(1970, 1, 1)).total_seconds() * 1e9)
        )
    return 0


def _messages(prefix: str, messages: list[dict[str, Any]]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for i, m in enumerate(messages):
        out[f"{prefix}.{i}.message.role"] = m.get("role")
        content = m.get("content")
        if content is not None:
            out[f"{prefix}.{i}.message.content"] = (
                content if isinstance(content, str) else json.dumps(content)
            )
        for j, c in enumerate(m.get("tool_calls") or []):
            fn = c.get("function") if isinstance(c.get("function"), dict) else c
            args = fn.get("arguments")
            base = f"{prefix}.{i}.message.tool_calls.{j}.tool_call"
            out[f"{base}.id"] = c.get("id")
            out[f"{base}.function.name"] = fn.get("name")
            out[f"{base}.function.arguments"] = args if isinstance(args, str) else json.dumps(args or {})
        if m.get("tool_call_id"):
            out[f"{prefix}.{i}.message.tool_call_id"] = m["tool_call_id"]
    return out


def export_openinference(warehouse: Any, run_id: str) -> dict[str, Any]:
    """The run's episodes as one OTLP JSON `ExportTraceServiceRequest`."""
    eps = warehouse.query(
        """SELECT e.episode_id, e.task_id, e.benchmark, e.model, e.docset_id, e.final_answer, e.error, e.success,
                  e.started_at, e.finished_at, coalesce(t.query, '') AS query
           FROM episodes e JOIN run_episodes r USING (episode_id)
           LEFT JOIN tasks t ON t.benchmark = e.benchmark AND t.task_id = e.task_id
           WHERE r.run_id = ? ORDER BY e.task_id, e."repeat", e.episode_id""",
        [run_id],
    )
    if eps.empty:
        raise KeyError(f"run {run_id!r} has no episodes in {warehouse.path}")
    tools_json: dict[str, str] = {}
    spans: list[dict[str, Any]] = []
    for ep in map(_clean, eps.to_dict("records")):
        if ep["docset_id"] not in tools_json:
            try:
                docset = warehouse.load_docset(ep["docset_id"])
                tools_json[ep["docset_id"]] = [json.dumps(render_openai(d)) for d in docset.values()]
            except KeyError:
                tools_json[ep["docset_id"]] = []
        spans += _episode_spans(warehouse, ep, tools_json[ep["docset_id"]])
    return {
        "resourceSpans": [
            {
                "resource": {
                    "attributes": _attrs({"service.name": "docschisel", "docschisel.run_id": run_id})
                },
                "scopeSpans": [{"scope": SCOPE, "spans": spans}],
            }
        ]
    }


def _episode_spans(warehouse: Any, ep: dict[str, Any], tools: list[str]) -> list[dict[str, Any]]:
    trace_id = _id("trace", ep["episode_id"], n_bytes=16)
    root_id = _id("root", ep["episode_id"], n_bytes=8)
    events = warehouse.query(
        "SELECT seq, kind, tool, args, output, error, payload, tokens_in, tokens_out, latency_s, ts "
        "FROM events WHERE episode_id = ? ORDER BY seq",
        [ep["episode_id"]],
    ).to_dict("records")
    events = [_clean(e) for e in events]
    start = _ns(ep["started_at"])
    clock = start
    out = []
    for ev in events:
        at = max(clock, _ns(ev["ts"]))
        end = at + int(float(ev["latency_s"] or 0) * 1e9)
        clock = end
        span_id = _id("span", ep["episode_id"], str(ev["seq"]), n_bytes=8)
        payload = json.loads(ev["payload"]) if isinstance(ev["payload"], str) and ev["payload"] else {}
        if ev["kind"] == "model_call":
            message_out = payload.get("message_out") or {}
            attrs = {
                "openinference.span.kind": "LLM",
                "llm.model_name": payload.get("model") or ep["model"],
                "llm.token_count.prompt": int(ev["tokens_in"] or 0),
                "llm.token_count.completion": int(ev["tokens_out"] or 0),
                **_messages("llm.input_messages", payload.get("messages_in") or []),
                **_messages("llm.output_messages", [{"role": "assistant", **message_out}]),
                **{f"llm.tools.{i}.tool.json_schema": t for i, t in enumerate(tools)},
            }
            out.append(_span(trace_id, span_id, root_id, "llm", at, end, attrs))
        elif ev["kind"] == "tool_call":
            args = json.loads(ev["args"]) if isinstance(ev["args"], str) and ev["args"] else {}
            attrs = {
                "openinference.span.kind": "TOOL",
                "tool.name": ev["tool"],
                "input.value": json.dumps(args, ensure_ascii=False),
                "input.mime_type": "application/json",
                "output.value": ev["output"],
            }
            out.append(
                _span(trace_id, span_id, root_id, ev["tool"] or "tool", at, end, attrs, error=ev["error"])
            )
    root_attrs = {
        "openinference.span.kind": "AGENT",
        "input.value": ep["query"],
        "output.value": ep["final_answer"],
        "docschisel.episode_id": ep["episode_id"],
        "docschisel.task_id": ep["task_id"],
        "docschisel.benchmark": ep["benchmark"],
        "docschisel.success": bool(ep["success"]),
    }
    root = _span(
        trace_id,
        root_id,
        None,
        "episode",
        start,
        max(clock, _ns(ep["finished_at"])),
        root_attrs,
        error=ep["error"],
    )
    return [root, *out]


def _clean(row: dict[str, Any]) -> dict[str, Any]:
    """A query row with SQL NULLs (pandas NaN / NaT) as None."""
    return {
        k: (None if v is None or (isinstance(v, float) and v != v) or str(v) == "NaT" else v)
        for k, v in row.items()
    }


def _span(
    trace_id: str,
    span_id: str,
    parent: str | None,
    name: str,
    start: int,
    end: int,
    attrs: dict[str, Any],
    *,
    error: str | None = None,
) -> dict[str, Any]:
    span: dict[str, Any] = {
        "traceId": trace_id,
        "spanId": span_id,
        "name": name,
        "kind": 1,
        "startTimeUnixNano": str(start),
        "endTimeUnixNano": str(max(start, end)),
        "attributes": _attrs(attrs),
        "status": {"code": 2, "message": error} if error else {"code": 1},
    }
    if parent:
        span["parentSpanId"] = parent
    if error:
        span["events"] = [
            {
                "name": "exception",
                "timeUnixNano": str(end),
                "attributes": _attrs({"exception.message": error}),
            }
        ]
    return span
