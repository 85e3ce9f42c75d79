"""Production traces in (OpenInference OTLP JSON, Phoenix spans, Langfuse) and out, and diagnosis without gold.

The OpenInference file is made here, for real: our LangChain ReAct agent runs on
the notes benchmark folder with a scripted model while the OpenInference
LangChain instrumentation records its spans; the OTel SDK's own OTLP encoder
writes them as OTLP JSON.
"""

from __future__ import annotations

import base64
import json
from datetime import UTC, datetime
from pathlib import Path

import pytest
from click.testing import CliRunner

from core.chisel.nogold import diagnose_nogold, trace_findings
from core.chisel.types import Step, Trace
from core.docs import parse_openai
from core.traces import TraceFileError, import_traces

NOTES = Path(__file__).parent / "fixtures" / "userbench" / "notes"
LANGFUSE = Path(__file__).parent / "fixtures" / "traces" / "langfuse_export.json"


def _agent():
    """Two episodes: a call with a wrong parameter corrected next, and one search made twice."""
    from core.llm import script, tool_call

    def reply(messages):
        n = sum(1 for m in messages if m["role"] == "tool")
        q = next(m["content"] for m in messages if m["role"] == "user")
        if "coffee" in q:
            return tool_call("search_notes", query="coffee") if n < 2 else "Found it."
        if n == 0:
            return tool_call("add_note", title="Call plumber", text="sink")
        if n == 1:
            return tool_call("add_note", title="Call plumber", body="sink")
        return "Done."

    return script(reply, name="traced-agent")


def _run(warehouse):
    from core.agents import AgentConfig
    from core.benchmarks.userfolder import load_user_benchmark
    from core.runner import RunPlan, run

    bench = load_user_benchmark(NOTES)
    try:
        tasks = [bench.task(t) for t in ("lookup-1", "capture-1")]
        return run(
            warehouse,
            RunPlan(bench, bench.original_docs(), AgentConfig(model=_agent().model, max_steps=4), tasks),
            concurrency=1,
        )
    finally:
        bench.close()


def _hex(value: str, n: int) -> str:
    return base64.b64decode(value).hex() if len(value) != 2 * n else value


@pytest.fixture(scope="module")
def recorded(tmp_path_factory):
    """(OTLP JSON file, the finished spans) of an instrumented agent run."""
    pytest.importorskip("openinference.instrumentation.langchain")
    from google.protobuf.json_format import MessageToDict
    from openinference.instrumentation.langchain import LangChainInstrumentor
    from opentelemetry.exporter.otlp.proto.common.trace_encoder import encode_spans
    from opentelemetry.sdk.trace import TracerProvider
    from opentelemetry.sdk.trace.export import SimpleSpanProcessor
    from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter

    from core.llm import Gateway, use
    from core.warehouse import Warehouse

    exporter = InMemorySpanExporter()
    provider = TracerProvider()
    provider.add_span_processor(SimpleSpanProcessor(exporter))
    instrumentor = LangChainInstrumentor()
    instrumentor.instrument(tracer_provider=provider)
    previous = use(Gateway())
    try:
        _run(Warehouse(tmp_path_factory.mktemp("agent") / "wh.duckdb"))
    finally:
        use(previous)
        instrumentor.uninstrument()
    spans = exporter.get_finished_spans()
    doc = MessageToDict(encode_spans(spans))
    for rs in doc["resourceSpans"]:  # OTLP/JSON writes ids in hex (protobuf's JSON mapping: base64)
        for ss in rs["scopeSpans"]:
            for s in ss["spans"]:
                s["traceId"], s["spanId"] = _hex(s["traceId"], 16), _hex(s["spanId"], 8)
                if s.get("parentSpanId"):
                    s["parentSpanId"] = _hex(s["parentSpanId"], 8)
    path = tmp_path_factory.mktemp("otlp") / "agent_spans.json"
    path.write_text(json.dumps(doc))
    return path, spans


def _calls(warehouse, run_id):
    rows = warehouse.query(
        """SELECT e.task_id, t.query, v.tool, v.args, v.output FROM events v JOIN episodes e USING (episode_id)
           JOIN run_episodes r USING (episode_id) LEFT JOIN tasks t ON t.benchmark = e.benchmark AND t.task_id = e.task_id
           WHERE r.run_id = ? AND v.kind = 'tool_call' ORDER BY t.query, v.seq""",
        [run_id],
    )
    rows = rows.astype(object).where(rows.notna(), None)
    return [
        (q, tool, json.loads(args), out)
        for q, tool, args, out in zip(rows["query"], rows["tool"], rows["args"], rows["output"], strict=True)
    ]


def test_a_real_openinference_file_imports_as_episodes(recorded, warehouse) -> None:
    path, _ = recorded
    summary = import_traces(warehouse, path)
    assert (summary["source"], summary["episodes"], summary["tool_calls"], summary["tools_seen"]) == (
        "openinference",
        2,
        4,
        4,
    )
    calls = _calls(warehouse, summary["run_id"])
    add = [c for c in calls if c[1] == "add_note"]
    assert [c[2] for c in add] == [
        {"title": "Call plumber", "text": "sink"},
        {"title": "Call plumber", "body": "sink"},
    ]
    assert "unexpected argument(s) text" in add[0][3] and add[1][3] == "6"
    assert [c[2] for c in calls if c[1] == "search_notes"] == [{"query": "coffee"}] * 2
    ep = warehouse.query("SELECT source, final_answer, model, score FROM episodes ORDER BY final_answer")
    assert set(ep["source"]) == {"openinference"} and list(ep["final_answer"]) == ["Done.", "Found it."]
    assert json.loads(ep["score"].iloc[0])["ground_truth"] is False
    docs = warehouse.load_docset(summary["docset_id"])
    assert [p.name for p in docs["add_note"].parameters] == ["title", "body", "folder"]  # what the model saw
    assert import_traces(warehouse, path)["written"] == 0  # the same file again stores nothing new


def test_phoenix_span_records_import_the_same_calls(recorded, warehouse, tmp_path: Path) -> None:
    path, spans = recorded

    def iso(ns: int) -> str:
        return datetime.fromtimestamp(ns / 1e9, UTC).isoformat()

    records = [
        {
            "name": s.name,
            "context": {"trace_id": f"{s.context.trace_id:032x}", "span_id": f"{s.context.span_id:016x}"},
            "parent_id": f"{s.parent.span_id:016x}" if s.parent else None,
            "span_kind": s.attributes.get("openinference.span.kind", "UNKNOWN"),
            "start_time": iso(s.start_time),
            "end_time": iso(s.end_time),
            "status_code": s.status.status_code.name,
            "status_message": s.status.description or "",
            "attributes": dict(s.attributes),
            "events": [],
        }
        for s in spans
    ]
    phoenix = tmp_path / "phoenix_spans.jsonl"
    phoenix.write_text("\n".join(json.dumps(r) for r in records) + "\n")
    from core.warehouse import Warehouse

    other = Warehouse(tmp_path / "otlp.duckdb")
    a = import_traces(warehouse, phoenix)
    b = import_traces(other, path)
    assert a["source"] == "phoenix"
    assert _calls(warehouse, a["run_id"]) == _calls(other, b["run_id"])


def test_langfuse_export_imports_with_errors_and_feedback(warehouse) -> None:
    from core.cli.main import cli

    res = CliRunner().invoke(cli, ["import", "traces", str(LANGFUSE), "--warehouse", str(warehouse.path)])
    assert res.exit_code == 0, res.output
    assert (
        "2 langfuse traces (2 new), 3 tool calls" in res.output
        and "2 diagnoses without ground truth" in res.output
    )
    summary = import_traces(warehouse, LANGFUSE)
    assert (summary["source"], summary["episodes"], summary["tool_calls"]) == ("langfuse", 2, 3)
    ev = warehouse.query(
        "SELECT tool, error, error_class FROM events WHERE kind = 'tool_call' AND error IS NOT NULL"
    )
    assert list(ev["error"]) == ["priority must be one of low, normal, high"] and list(ev["error_class"]) == [
        "tool_error"
    ]
    eps = warehouse.query("SELECT task_id, success, score FROM episodes ORDER BY task_id")
    lookup = eps[eps.task_id == "lf-trace-lookup"].iloc[0]
    assert not lookup["success"] and json.loads(lookup["score"])["outcome"] == "negative feedback"
    tasks = warehouse.query("SELECT task_id, query, gold FROM tasks ORDER BY task_id")
    assert (
        tasks["query"].iloc[0] == "What happened to my VPN ticket?"
        and json.loads(tasks["gold"].iloc[0]) == []
    )


def test_round_trip_export_then_import_gives_the_same_calls_and_outputs(warehouse, tmp_path: Path) -> None:
    from core.cli.main import cli

    result = _run(warehouse)
    out = tmp_path / "run.otlp.json"
    res = CliRunner().invoke(
        cli,
        [
            "export-traces",
            result.run_id,
            "--format",
            "openinference",
            "-o",
            str(out),
            "--warehouse",
            str(warehouse.path),
        ],
    )
    assert res.exit_code == 0, res.output
    data = json.loads(out.read_text())
    kinds = [
        a["value"]["stringValue"]
        for s in data["resourceSpans"][0]["scopeSpans"][0]["spans"]
        for a in s["attributes"]
        if a["key"] == "openinference.span.kind"
    ]
    assert kinds.count("AGENT") == 2 and kinds.count("TOOL") == 4 and "LLM" in kinds
    back = import_traces(warehouse, out, name="round-trip")
    mine = [(c[1], c[2], c[3]) for c in _calls(warehouse, result.run_id)]
    theirs = [(c[1], c[2], c[3]) for c in _calls(warehouse, back["run_id"])]
    assert theirs == mine


def test_a_malformed_file_is_one_error_naming_the_span_and_stores_nothing(
    recorded, warehouse, tmp_path: Path
) -> None:
    from core.cli.main import cli

    path, _ = recorded
    doc = json.loads(path.read_text())
    span = doc["resourceSpans"][0]["scopeSpans"][0]["spans"][1]
    span["spanId"] = "not-an-id"
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps(doc))
    with pytest.raises(TraceFileError) as err:
        import_traces(warehouse, bad)
    assert "spans[1]" in str(err.value) and span["name"] in str(err.value) and "spanId" in str(err.value)
    res = CliRunner().invoke(cli, ["import", "traces", str(bad), "--warehouse", str(warehouse.path)])
    assert res.exit_code != 0 and "spans[1]" in res.output and res.output.count("Error") == 1
    assert warehouse.scalar("SELECT count(*) FROM episodes") == 0
    assert warehouse.scalar("SELECT count(*) FROM runs") == 0


# ------------------------------------------------------------------ diagnosis without ground truth
TICKET = parse_openai(
    {
        "name": "create_ticket",
        "parameters": {
            "type": "object",
            "properties": {
                "title": {"type": "string"},
                "priority": {"type": "string", "enum": ["low", "high"]},
                "count": {"type": "integer"},
            },
            "required": ["title", "priority"],
        },
    }
)


def _trace(*steps: Step, feedback=None) -> Trace:
    score = {"tools_seen": ["create_ticket"], "feedback": feedback or []}
    return Trace(
        episode_id="e1",
        task_id="t1",
        domain="production",
        query="q",
        success=False,
        tool_correct=True,
        steps=steps,
        score=score,
    )


def _one(trace: Trace, cls: str):
    found = trace_findings(trace, {"create_ticket": TICKET}, {"create_ticket"})
    hits = [f for fs in found.values() for f in fs if f.cls == cls]
    assert hits, found
    return hits[0]


def test_unknown_parameter() -> None:
    f = _one(
        _trace(Step(tool="create_ticket", args={"title": "a", "priority": "low", "urgency": 3})),
        "unknown_argument",
    )
    assert "unknown parameter 'urgency'" in f.text and "title, priority, count" in f.text


def test_missing_required_parameter() -> None:
    f = _one(_trace(Step(tool="create_ticket", args={"title": "a"})), "missing_argument")
    assert f.text == 'create_ticket({"title": "a"}) left out required parameter \'priority\''


def test_argument_of_the_wrong_type() -> None:
    f = _one(
        _trace(Step(tool="create_ticket", args={"title": "a", "priority": "low", "count": "3"})),
        "wrong_format",
    )
    assert 'count="3" is not of the declared type int' in f.text


def test_value_outside_the_enum() -> None:
    f = _one(_trace(Step(tool="create_ticket", args={"title": "a", "priority": "urgent"})), "wrong_value")
    assert 'priority="urgent" is not one of ["low", "high"]' in f.text


def test_tool_error_quotes_its_message() -> None:
    f = _one(
        _trace(Step(tool="create_ticket", args={"title": "a", "priority": "low"}, error="title too short")),
        "tool_error",
    )
    assert f.text == "create_ticket answered with an error: title too short"


def test_repeated_identical_calls() -> None:
    s = Step(tool="create_ticket", args={"title": "a", "priority": "low"}, output="T-1")
    f = _one(_trace(s, s, s), "extra_call")
    assert "was called 3 times with identical arguments" in f.text


def test_immediate_correction() -> None:
    first = Step(tool="create_ticket", args={"title": "a", "priority": "High"}, error="unknown priority")
    f = _one(
        _trace(first, Step(tool="create_ticket", args={"title": "a", "priority": "high"})), "wrong_format"
    )
    assert (
        f.text
        == 'create_ticket: the agent corrected priority from "High" to "high" in the next call after the error \'unknown priority\''
    )


def test_negative_user_feedback_on_clean_calls() -> None:
    clean = Step(tool="create_ticket", args={"title": "a", "priority": "low"}, output="T-1")
    f = _one(
        _trace(clean, feedback=[{"name": "thumbs", "value": 0, "comment": "wrong queue"}]), "output_misuse"
    )
    assert f.text == "the user rated the answer thumbs=0 (wrong queue); the calls show no error"


def test_imported_traces_are_diagnosed_through_the_rule_table(recorded, warehouse) -> None:
    summary = import_traces(warehouse, LANGFUSE)
    assert diagnose_nogold(warehouse, summary["run_id"]) == 2
    rows = warehouse.query(
        "SELECT tool, failure_class, engine, fields, evidence, detail FROM diagnoses ORDER BY tool"
    )
    ticket = rows[rows.tool == "create_ticket"].iloc[0]
    classes = [f["class"] for f in json.loads(ticket["detail"])["findings"]]
    assert {"wrong_format", "wrong_value", "tool_error"} <= set(classes)
    assert 'priority="urgent" is not one of ["low", "normal", "high"]' in ticket["evidence"]
    assert "IPD" in list(ticket["fields"]) and ticket["engine"] == "nogold"
    lookup = rows[rows.tool == "find_ticket"].iloc[0]
    assert lookup["failure_class"] == "output_misuse" and "that is not my VPN ticket" in lookup["evidence"]
    otlp = import_traces(warehouse, recorded[0])
    diagnose_nogold(warehouse, otlp["run_id"])
    add = warehouse.query("SELECT evidence, detail FROM diagnoses WHERE tool = 'add_note'").iloc[0]
    found = {f["class"] for f in json.loads(add["detail"])["findings"]}
    assert {"unknown_argument", "missing_argument"} <= found and "unknown parameter 'text'" in add["evidence"]
    search = warehouse.query(
        "SELECT failure_class, evidence FROM diagnoses WHERE tool = 'search_notes'"
    ).iloc[0]
    assert search["failure_class"] == "extra_call" and "2 times" in search["evidence"]


def test_the_traces_and_diagnoses_pages_show_imported_traces(tmp_path: Path) -> None:
    from core.ui.testing import open_app, problems, show
    from core.warehouse import Warehouse

    path = tmp_path / "ui.duckdb"
    wh = Warehouse(path)
    summary = import_traces(wh, LANGFUSE)
    diagnose_nogold(wh, summary["run_id"])
    episode = wh.scalar("SELECT episode_id FROM episodes WHERE task_id = 'lf-trace-lookup'")
    at = show(open_app(path), "traces", episode=episode)
    assert not problems(at)
    captions = " ".join(c.value for c in at.caption)
    assert "Production trace (langfuse): no ground truth" in captions and "negative feedback" in captions
    text = " ".join(m.value for m in at.markdown)
    assert "that is not my VPN ticket" in text and "output_misuse" in text
    at = show(open_app(path), "diagnoses", run=summary["run_id"])
    assert not problems(at)
    assert any(summary["run_id"] in str(s.value) for s in at.selectbox)
