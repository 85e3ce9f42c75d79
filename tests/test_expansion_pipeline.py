"""Tool-REX expansion: profile mapping, judge rules, scripted generation/judging/regeneration, storage."""

from __future__ import annotations

import json
from types import SimpleNamespace

import pytest

from core.docs import DocSet, Param, ToolDoc
from core.expansion import ToolProfile, apply_profile, expand_tool, rule_check
from core.expansion.judge import quote_found
from core.llm import script

DOC = ToolDoc(
    tool="QueryStock",
    name="QueryStock",
    description="This API queries the stock price of a given stock code and date.",
    parameters=(
        Param(name="stock_code", description="The stock code of the given stock.", type="str"),
        Param(name="date", description="The date of the stock price. Format: %Y-%m-%d", type="str"),
    ),
)
GOOD = {
    "function_description": "Queries the stock price for a stock code on a date.",
    "tags": ["stock", "price", "stock code"],
    "when_to_use": "When the stock price of a stock code on a given date is needed.",
    "limitations": "The date format is %Y-%m-%d.",
    "example_usage": 'QueryStock(stock_code="SQ", date="2022-03-04")',
}


def verdicts_by_field(verdicts):
    return {v.field: v for v in verdicts}


def test_apply_profile_is_original_union_profile() -> None:
    wb = ToolDoc(tool="t", name="t", description="Sends mail.", domain="email", examples=("t()",))
    profile = ToolProfile(
        function_description="Sends an email.",
        tags=("email", "send"),
        when_to_use="To send mail.",
        limitations="Needs a recipient.",
        example_usage='t(to="a@b.c")',
    )
    out = apply_profile(wb, profile)
    assert out.description == "Sends mail.\nSends an email."
    assert out.domain == "email; email, send"
    assert out.guidance == "To send mail." and out.constraints == "Needs a recipient."
    assert out.examples == ("t()", 't(to="a@b.c")')
    bare = apply_profile(ToolDoc(tool="t"), profile.only(["tags", "when_to_use"]))
    assert bare.domain == "email, send" and bare.guidance == "To send mail." and bare.description is None
    assert apply_profile(wb, ToolProfile()) == wb
    assert profile.without(["tags"]).fields() == (
        "function_description",
        "when_to_use",
        "limitations",
        "example_usage",
    )


def test_rules_accept_a_grounded_profile() -> None:
    passed, verdicts, error = rule_check(json.dumps(GOOD), DOC)
    assert error is None
    assert set(passed) == set(GOOD), [v.reason for v in verdicts if not v.accepted]
    assert passed["tags"] == ["stock", "price", "stock code"]


def test_rules_reject_invalid_json_and_missing_required_fields() -> None:
    passed, verdicts, error = rule_check('{"function_description": "Queries the', DOC)
    assert passed == {} and error and "invalid JSON" in error
    assert {v.field for v in verdicts} == {"function_description", "tags"}
    passed, verdicts, _ = rule_check(json.dumps({"tags": ["stock", "price"]}), DOC)
    v = verdicts_by_field(verdicts)["function_description"]
    assert not v.accepted and "required" in v.reason


@pytest.mark.parametrize(
    ("field", "value", "reason"),
    [
        ("when_to_use", "When a user wants to book flights to Paris hotels.", "not grounded"),
        ("limitations", "Only works for NASDAQ companies during trading hours.", "not grounded"),
        ("function_description", "QueryStock", "fewer than 3 words"),
        ("function_description", "stock stock stock stock stock stock stock stock stock", "repetition"),
        (
            "when_to_use",
            "Queries the stock price for a stock code on a date.",
            "repeats function_description",
        ),
        ("example_usage", 'QueryStock(stock_code="SQ", currency="USD")', "unknown argument"),
        ("example_usage", "GetWeather(city='Paris')", "not this tool"),
        ("example_usage", "QueryStock(stock_code=", "does not parse"),
    ],
)
def test_rules_reject_unsupported_fields(field: str, value: str, reason: str) -> None:
    passed, verdicts, _ = rule_check(json.dumps({**GOOD, field: value}), DOC)
    v = verdicts_by_field(verdicts)[field]
    assert not v.accepted and reason in v.reason
    assert field not in passed


def test_tags_are_judged_one_by_one() -> None:
    raw = json.dumps({**GOOD, "tags": ["StockCode", "finance", "3-5", "price"]})
    passed, verdicts, _ = rule_check(raw, DOC)
    assert passed["tags"] == ["stock code", "price"]
    reason = verdicts_by_field(verdicts)["tags"].reason
    assert "finance" in reason and "3-5" in reason
    passed, verdicts, _ = rule_check(json.dumps({**GOOD, "tags": ["finance", "money", "stock"]}), DOC)
    assert "tags" not in passed


def test_empty_optional_fields_are_omitted_not_rejected() -> None:
    raw = json.dumps(
        {"function_description": GOOD["function_description"], "tags": GOOD["tags"], "when_to_use": ""}
    )
    passed, verdicts, _ = rule_check(raw, DOC)
    assert set(passed) == {"function_description", "tags"}
    assert all(v.accepted for v in verdicts)


def test_quote_found() -> None:
    text = "Description: This API queries the stock price."
    assert quote_found("queries the STOCK price", text)
    assert not quote_found("price", text)  # too short to be evidence
    assert not quote_found("queries the bond price", text)


def judge_script(supported_fields: set[str], quote: str = "queries the stock price"):
    """A judge that supports `supported_fields` with a real quote and rejects the others."""

    def reply(messages):
        field = messages[-1]["content"].split("Profile field: ")[1].split("\n")[0]
        if field in supported_fields:
            return json.dumps({"supported": True, "evidence": quote, "reason": "stated"})
        return json.dumps({"supported": False, "evidence": "", "reason": f"{field} is invented"})

    return script(reply)


def test_expand_tool_with_scripted_models() -> None:
    gen = script([json.dumps(GOOD)])
    judge = judge_script({"function_description", "tags", "limitations"})
    exp = expand_tool(DOC, model=gen.model, judge_model=judge.model)
    assert exp.profile.fields() == ("function_description", "tags", "limitations")
    att = exp.attempts[0]
    rejected = {v.field: v for v in att.verdicts if not v.accepted}
    assert set(rejected) == {"when_to_use", "example_usage"}
    assert all(v.stage == "llm" and "invented" in v.reason for v in rejected.values())
    assert exp.expanded.description.startswith(DOC.description)
    assert exp.expanded.constraints == GOOD["limitations"]
    assert not exp.regenerated
    # the generation request carries the grounded prompt and the JSON schema
    params = gen.requests[0]["params"]
    assert params["response_format"]["json_schema"]["schema"]["required"] == ["function_description", "tags"]


def test_judge_without_a_real_quote_rejects() -> None:
    gen = script([json.dumps(GOOD)])
    judge = judge_script(set(GOOD), quote="something the doc never says")
    exp = expand_tool(DOC, model=gen.model, judge_model=judge.model)
    assert exp.profile.fields() == ()
    assert exp.expanded == DOC
    assert all("not a quote" in v.reason for v in exp.attempts[0].verdicts if v.stage == "llm")


def test_failed_profiles_are_regenerated_by_the_strong_model() -> None:
    weak = script(['{"function_description": "QueryStock", "tags": ["finance", "money", "x"]}'])
    strong = script([json.dumps(GOOD)])
    exp = expand_tool(DOC, model=weak.model, judge_model=None, strong_model=strong.model)
    assert exp.regenerated and len(exp.attempts) == 2
    assert exp.sources["function_description"] == 2
    assert set(exp.profile.fields()) == set(GOOD)
    # no strong model: the rejected fields are simply left out
    weak2 = script(['{"function_description": "QueryStock", "tags": ["finance", "money", "x"]}'])
    exp2 = expand_tool(DOC, model=weak2.model, judge_model=None)
    assert exp2.profile.fields() == () and len(exp2.attempts) == 1


def test_a_failing_model_call_is_recorded_not_raised() -> None:
    broken = script([RuntimeError("boom")])
    exp = expand_tool(DOC, model=broken.model, judge_model=None)
    assert exp.attempts[0].error and exp.profile.fields() == ()


def test_run_expansion_stores_attempts_verdicts_and_doc_set(warehouse) -> None:
    from core.expansion.experiment import resolve
    from core.expansion.records import load_profiles
    from core.expansion.run import run_expansion

    other = ToolDoc(tool="Other", name="Other", description="Adds a meeting to the agenda.")
    bench = SimpleNamespace(name="toy", original_docs=lambda: DocSet([DOC, other], name="original"))
    bad = json.dumps({"function_description": "Books flights to Paris hotels.", "tags": ["flight", "hotel"]})

    def gen(messages):
        return json.dumps(GOOD) if "QueryStock" in messages[-1]["content"] else bad

    model = script(gen)
    summary = run_expansion(warehouse, bench, model=model.model, judge_model=None)
    assert summary["tools"] == 2 and summary["accepted"] == 5 and summary["rejected"] == 2
    rows = warehouse.query(
        "SELECT a.tool, v.field, v.accepted, v.reason FROM expansion_verdicts v JOIN expansion_attempts a "
        "USING (attempt_id) WHERE NOT v.accepted ORDER BY a.tool, v.field"
    )
    assert list(rows.tool) == ["Other", "Other"] and set(rows.field) == {"function_description", "tags"}
    profiles = load_profiles(warehouse, summary["run_id"])
    assert profiles["QueryStock"].fields() == tuple(GOOD) and profiles["Other"].fields() == ()
    origin = warehouse.scalar("SELECT origin FROM doc_sets WHERE docset_id = ?", [summary["docset_id"]])
    assert origin == "toolrex"
    docs, label, run = resolve(warehouse, bench, "expanded")
    assert label == "expanded" and run == summary["run_id"] and docs.docset_id == summary["docset_id"]
    assert docs["QueryStock"].constraints == GOOD["limitations"]
    # same command again: same run, nothing duplicated
    again = run_expansion(warehouse, bench, model=model.model, judge_model=None)
    assert again["run_id"] == summary["run_id"]
    assert warehouse.scalar("SELECT count(*) FROM expansion_attempts") == 2
