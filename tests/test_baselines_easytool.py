"""EasyTool with a scripted model: both stages, validation retries, ToolDoc output, storage and reuse."""

from __future__ import annotations

import json

import pytest

from core.baselines.easytool import EasyToolConfig, render_template, run_easytool, toolkits
from core.baselines.service import generate_baseline, load_docset
from core.docs import DocSet, Param, ToolDoc
from core.llm import script


def _docs() -> DocSet:
    return DocSet(
        [
            ToolDoc(
                tool="cal.create",
                name="cal.create",
                description="Creates an event. Host: x.example.",
                domain="Calendar",
                parameters=(Param(name="title", type="str", required=True), Param(name="when", type="str")),
                returns=({"name": "id", "type": "str"},),
                code="def create(): ...",
            ),
            ToolDoc(
                tool="cal.delete",
                name="cal.delete",
                description="Deletes an event.",
                parameters=(Param(name="id", type="str"),),
            ),
            ToolDoc(tool="Ping", name="Ping", description="Checks the service."),
        ]
    )


def replies(messages, params):
    first = messages[0]["content"]
    if "fixed template" in first:
        if '"tool_name": "cal"' in first:
            functions = [{"name": "create", "functionality": "create an event"}]
            if len(messages) > 1:  # the retry after the validation error
                functions.append({"name": "delete", "functionality": "delete an event"})
            return json.dumps({"general_purposes": "manage calendar events", "functions": functions})
        return json.dumps(
            {
                "general_purposes": "check a service",
                "functions": [{"name": "Ping", "functionality": "check that the service answers"}],
            }
        )
    if "; create is to" in first:
        return json.dumps(
            {
                "Scenario": "One scenario for create of cal is: plan lunch.",
                "Parameters": {"title": "Lunch", "when": "2023-12-01"},
            }
        )
    if "; delete is to" in first:
        return json.dumps(
            {"Scenario": "One scenario for delete of cal is: cancel.", "Parameters": {"id": "7"}}
        )
    return json.dumps({"Scenario": "One scenario for Ping of Ping is: a health check.", "Parameters": {}})


def test_template():
    assert render_template(
        "cal", "manage events.", [("create", "create an event"), ("delete", "delete one.")]
    ) == (
        "cal is a tool that can manage events. This tool has 2 built-in functions: "
        "1. create is to create an event. 2. delete is to delete one."
    )
    assert list(toolkits(_docs().values())) == ["Ping", "cal"]


def test_easytool_scripted():
    model = script(replies, name="easytool-test")
    res = run_easytool(_docs(), None, EasyToolConfig(model=model.model))
    # calls: cal description (invalid: 'delete' missing -> 1 retry) + 2 guidelines + Ping description + 1 guideline
    assert model.calls == 6
    create = res.docset["cal.create"]
    # EasyTool adds to the documentation: the tool's own description stays, the concise template
    # is shown beside it as usage guidance
    assert create.description == "Creates an event. Host: x.example."
    assert create.guidance.startswith("cal is a tool that can manage calendar events.")
    assert "1. create is to create an event." in create.guidance
    assert create.parameters == _docs()["cal.create"].parameters  # copied through
    assert json.loads(create.examples[0]) == {
        "Scenario": "One scenario for create of cal is: plan lunch.",
        "Parameters": {"title": "Lunch", "when": "2023-12-01"},
    }
    assert not create.has("TD") and not create.has("RPN") and not create.has("CI")  # no slot in the template
    assert res.meta["templates"]["cal"].startswith("cal is a tool that can manage calendar events.")
    assert json.loads(res.docset["Ping"].examples[0])["Parameters"] == {}
    assert res.docset["Ping"].description == "Checks the service."
    assert sum(c["calls"] for c in res.costs.values()) == pytest.approx(6)
    assert res.costs["cal.create"]["invalid"] == 1


def test_guideline_with_unknown_parameter_is_retried_then_dropped():
    bad = json.dumps({"Scenario": "One scenario: x", "Parameters": {"nope": 1}})

    def fn(messages, params):
        if "fixed template" in messages[0]["content"]:
            return json.dumps(
                {
                    "general_purposes": "check a service",
                    "functions": [{"name": "Ping", "functionality": "ping"}],
                }
            )
        return bad

    model = script(fn, name="easytool-bad")
    docs = DocSet(
        [ToolDoc(tool="Ping", name="Ping", description="Checks.", parameters=(Param(name="host"),))]
    )
    res = run_easytool(docs, None, EasyToolConfig(model=model.model, retries=2))
    assert res.docset["Ping"].examples == ()
    assert model.calls == 1 + 2
    # a tool without a description of its own gets its template entry as the description
    bare = DocSet([ToolDoc(tool="Ping", name="Ping", parameters=(Param(name="host"),))])
    res = run_easytool(bare, None, EasyToolConfig(model=model.model, retries=2))
    assert res.docset["Ping"].description == "Ping is to ping."
    assert res.docset["Ping"].guidance is None


def test_generate_baseline_stores_and_reuses(warehouse, data_dir):
    from core.benchmarks.registry import get_benchmark

    bench = get_benchmark("api-bank", data_dir)

    def fn(messages, params):
        content = messages[0]["content"]
        if "fixed template" in content:
            doc = json.loads(content.split("Now the target documentation:\n", 1)[1].split("\n", 1)[0])
            return json.dumps(
                {
                    "general_purposes": "do finance things",
                    "functions": [{"name": f["name"], "functionality": "do it"} for f in doc["functions"]],
                }
            )
        return json.dumps({"Scenario": "One scenario: a user asks.", "Parameters": {}})

    model = script(fn, name="easytool-store")
    out = generate_baseline(
        warehouse, "easytool", "api-bank", domains=["finance"], model=model.model, bench=bench
    )
    assert set(out.tools) == {"OpenBankAccount", "QueryBalance", "QueryStock", "GetUserToken"}
    balance = out.docset["QueryBalance"]
    assert not out.reused and balance.description == bench.original_docs()["QueryBalance"].description
    assert "QueryBalance is to do it." in balance.guidance
    assert out.docset["AddScene"] == bench.original_docs()["AddScene"]  # other domains untouched
    calls = model.calls
    again = generate_baseline(
        warehouse, "easytool", "api-bank", domains=["finance"], model=model.model, bench=bench
    )
    assert again.reused and again.docset_id == out.docset_id and model.calls == calls
    assert load_docset(warehouse, out.run_id).docset_id == out.docset_id
    origin = warehouse.scalar("SELECT origin FROM doc_sets WHERE docset_id = ?", [out.docset_id])
    assert origin == "easytool"
