"""Evidence-engine diagnosis of imported (recorded) failed traces."""

from __future__ import annotations

from core.benchmarks.base import Call, Task
from core.chisel.recorded import diagnose_recorded
from core.docs import DocSet, Param, ToolDoc
from core.warehouse import Episode, Event


def test_recorded_failures_get_field_level_diagnoses_once(warehouse) -> None:
    docs = DocSet(
        [
            ToolDoc(
                tool="email.send",
                name="email.send",
                description="Send an email.",
                parameters=(Param(name="to", type="str"),),
            ),
            ToolDoc(tool="email.delete", name="email.delete", description="Delete an email."),
        ],
        name="original",
    )
    warehouse.register_docset(docs, benchmark="wb", origin="original")
    warehouse.register_tasks(
        "wb", [Task("t1", "email", "send to a", (Call("email.send", {"to": "a"}),), ("email.send",))]
    )
    run_id = warehouse.start_run("import", {"x": 1}, benchmark="wb")
    ep = Episode(
        episode_id="e1",
        run_id=run_id,
        benchmark="wb",
        task_id="t1",
        domain="email",
        docset_id=docs.docset_id,
        config_id="c",
        repeat=0,
        model="gpt-4",
        paradigm="react-text",
        success=False,
        tool_correct=False,
        source="import",
    )
    warehouse.record_episodes([(ep, [Event(0, "tool_call", tool="email.delete", args={}, output="ok")])])
    assert diagnose_recorded(warehouse, benchmark="wb") == 1
    row = warehouse.query("SELECT tool, failure_class, doc_related, fields, engine FROM diagnoses").iloc[0]
    assert row["tool"] == "email.send" and row["failure_class"] == "wrong_tool" and row["doc_related"]
    assert "FD" in list(row["fields"]) and row["engine"] == "evidence"
    assert diagnose_recorded(warehouse, benchmark="wb") == 0  # already diagnosed
