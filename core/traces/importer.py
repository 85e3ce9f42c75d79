"""Production traces into the warehouse: every trace an immutable episode, marked with its source.

`import_traces(warehouse, path)` reads the whole file first (core.traces.spans:
one clear error naming the span, nothing stored), then registers an
`import` run, a benchmark `traces/<name>` whose tasks are the traces' requests
(no gold calls: production traces have none), the tool definitions the
episodes saw as a doc set, and the episodes with their ordered events (model
calls, tool calls with arguments, outputs and errors, the final answer).
Episode ids are content hashes of the file and the trace, so importing the
same file twice stores nothing new.

Without ground truth an episode's outcome is what the trace itself says: it
failed when it ended in an error or its user feedback is negative, and its
tool choice is wrong when it called a tool it was not offered.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from core.docs import DocSet, ToolDoc
from core.traces.episodes import ImportedTrace, group_traces
from core.traces.spans import read_spans
from core.warehouse.records import Episode, Event, content_hash
from core.warehouse.rows import ToolRow

SOURCES = {"otlp": "openinference", "phoenix": "phoenix", "langfuse": "langfuse"}
DOMAIN = "production"


def negative(value: Any) -> bool:
    """A feedback score that says the user was not served: false, below 0.5 on [0, 1], below 3 on 1-5."""
    if isinstance(value, bool):
        return not value
    if not isinstance(value, int | float):
        return False
    return value < 0.5 if value <= 1 else value < 3


def import_traces(
    warehouse: Any, path: str | Path, *, fmt: str = "auto", name: str | None = None
) -> dict[str, Any]:
    """Read, then store, every trace of `path`; returns what was stored (run id, counts, source)."""
    p = Path(path).expanduser()
    fmt, spans = read_spans(p, fmt)
    traces = group_traces(spans, str(p))
    source = SOURCES[fmt]
    label = name or p.stem
    benchmark = f"traces/{label}"
    digest = hashlib.sha256(p.read_bytes()).hexdigest()
    docs = _docset(traces, label)
    run_config = {"source": source, "file_sha256": digest, "name": label}
    warehouse.register_benchmark(
        benchmark, {"source": source, "file": str(p.resolve()), "ground_truth": False}
    )
    docset_id = warehouse.register_docset(docs, benchmark=benchmark, origin="original", name=f"{label}/seen")
    warehouse.register_tasks(benchmark, [_task(t, source) for t in traces])
    warehouse.record(
        ToolRow(benchmark=benchmark, tool=t, domain=DOMAIN, original_doc_id=d.doc_id) for t, d in docs.items()
    )
    run_id = warehouse.start_run(
        "import", run_config, name=f"Imported {source} traces: {label}", benchmark=benchmark
    )
    pairs = []
    configs: dict[str, str] = {}
    for t in traces:
        agent = {"source": source, "model": t.model or "unknown", "imported": label}
        key = json.dumps(agent, sort_keys=True)
        if key not in configs:
            configs[key] = warehouse.register_agent_config(agent)
        pairs.append(
            _episode(t, run_id, benchmark, docset_id, configs[key], source, digest, {d.tool for d in t.tools})
        )
    written = warehouse.record_episodes(pairs, run_id=run_id)
    warehouse.set_run_status(run_id, "finished", {"episodes": len(pairs), "source": source})
    return {
        "run_id": run_id,
        "benchmark": benchmark,
        "source": source,
        "format": fmt,
        "episodes": len(pairs),
        "written": written,
        "tool_calls": sum(len(t.calls) for t in traces),
        "tools_seen": len(docs),
        "docset_id": docset_id,
    }


def _docset(traces: list[ImportedTrace], label: str) -> DocSet:
    """The tool definitions the episodes saw (the first one of each tool); called tools never defined get a bare doc."""
    docs: dict[str, ToolDoc] = {}
    for t in traces:
        for d in t.tools:
            docs.setdefault(d.tool, d)
    for t in traces:
        for c in t.calls:
            docs.setdefault(c.tool, ToolDoc(tool=c.tool, name=c.tool))
    return DocSet(docs.values(), name=f"{label}/seen")


@dataclass(frozen=True)
class _Task:
    """A trace's request as a warehouse task: no gold calls (production traces have none)."""

    trace_id: str
    query: str
    tools: tuple[str, ...]
    source: str

    def to_json(self) -> dict[str, Any]:
        return {
            "task_id": self.trace_id,
            "domain": DOMAIN,
            "query": self.query,
            "gold": [],
            "tools": list(self.tools),
            "meta": {"ground_truth": False, "source": self.source},
        }


def _task(t: ImportedTrace, source: str) -> _Task:
    return _Task(t.trace_id, t.query, tuple(dict.fromkeys(c.tool for c in t.calls)), source)


def _when(ns: int) -> datetime:
    return datetime.fromtimestamp(ns / 1e9, UTC).replace(tzinfo=None) if ns else datetime(1970, 1, 1)


def _episode(
    t: ImportedTrace,
    run_id: str,
    benchmark: str,
    docset_id: str,
    config_id: str,
    source: str,
    digest: str,
    offered: set[str],
) -> tuple[Episode, list[Event]]:
    events: list[tuple[int, int, Event]] = []
    for i, e in enumerate(t.llm_messages):
        span = e["span"]
        out = e["out"][-1] if e["out"] else {}
        message_out = {"content": out.get("content")}
        if out.get("tool_calls"):
            message_out["tool_calls"] = out["tool_calls"]
        events.append(
            (
                span.start_ns,
                2 * i,
                Event(
                    seq=0,
                    kind="model_call",
                    payload={
                        "messages_in": [{"role": m["role"], "content": m["content"]} for m in e["in"]],
                        "message_out": message_out,
                        "model": span.attr("llm.model_name"),
                        "span_id": span.span_id,
                    },
                    tokens_in=int(span.attr("llm.token_count.prompt") or 0),
                    tokens_out=int(span.attr("llm.token_count.completion") or 0),
                    latency_s=max(0, span.end_ns - span.start_ns) / 1e9,
                    ts=_when(span.start_ns),
                ),
            )
        )
    for j, c in enumerate(t.calls):
        klass = (
            "bad_arguments"
            if c.args is None
            else ("unknown_tool" if offered and c.tool not in offered else None)
        )
        klass = klass or ("tool_error" if c.error else None)
        events.append(
            (
                c.start_ns,
                2 * j + 1,
                Event(
                    seq=0,
                    kind="tool_call",
                    tool=c.tool,
                    args=c.args if c.args is not None else {"raw": c.raw_args},
                    output=c.output,
                    error=c.error,
                    error_class=klass,
                    latency_s=c.latency_s,
                    payload={"span_id": c.span_id},
                    ts=_when(c.start_ns),
                ),
            )
        )
    ordered = [e for _, _, e in sorted(events, key=lambda x: (x[0], x[1]))]
    if t.final_answer is not None:
        ordered.append(Event(seq=0, kind="final_answer", text=t.final_answer, ts=_when(t.end_ns)))
    if t.error:
        ordered.append(Event(seq=0, kind="error", error=t.error, text="trace_error", ts=_when(t.end_ns)))
    for i, ev in enumerate(ordered):
        ev.seq = i
    unhappy = [f for f in t.feedback if negative(f.get("value"))]
    called = {c.tool for c in t.calls}
    score = {
        "ground_truth": False,
        "source": source,
        "trace_id": t.trace_id,
        "outcome": "error" if t.error else ("negative feedback" if unhappy else "no failure in the trace"),
        "feedback": t.feedback,
        "tools_seen": sorted(d.tool for d in t.tools),
        "n_calls": len(t.calls),
    }
    episode = Episode(
        episode_id=content_hash("imported-trace", source, digest, t.trace_id, n=20),
        run_id=run_id,
        benchmark=benchmark,
        task_id=t.trace_id,
        domain=DOMAIN,
        docset_id=docset_id,
        config_id=config_id,
        repeat=0,
        model=t.model or "unknown",
        paradigm="imported",
        success=not t.error and not unhappy,
        tool_correct=not (offered and called - offered),
        score=score,
        calls=[{"tool": c.tool, "args": c.args or {}} for c in t.calls],
        final_answer=t.final_answer,
        error=t.error,
        error_class="trace_error" if t.error else None,
        n_steps=t.n_llm,
        tokens_in=t.tokens_in,
        tokens_out=t.tokens_out,
        latency_s=max(0, t.end_ns - t.start_ns) / 1e9,
        source=source,
        started_at=_when(t.start_ns),
        finished_at=_when(t.end_ns),
    )
    return episode, ordered
