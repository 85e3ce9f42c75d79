"""The two engines: the trace differ and rule table, the LLM engine's JSON retries, real API-Bank."""

from __future__ import annotations

import json

import pytest

from core.agents.base import AgentConfig, EpisodeContext
from core.benchmarks.base import Call
from core.chisel import OptimizeConfig
from core.chisel.differ import compare_values, diff_trace
from core.chisel.engines.llm import LLMEngine
from core.chisel.loop import optimize
from core.chisel.rules import RULES, rule_table_markdown
from core.chisel.types import Trace
from core.fields import CODES
from core.llm import script
from tests.test_chisel_toy import DocReadingAgent, ShopBench

AGENT = AgentConfig(model="scripted/doc-reader")


def _trace(steps, **kw) -> Trace:
    return Trace(
        episode_id="e",
        task_id="t",
        domain="d",
        query="q",
        success=False,
        tool_correct=False,
        steps=tuple(steps),
        **kw,
    )


def test_differ_classifies_failures() -> None:
    gold = (Call("order", {"item": "a", "qty": 2, "date": "2024-02-01"}),)
    cases = {
        "no_action": _trace([], final_answer="I think it costs 3"),
        "parse_error": _trace([], error_class="parse_error", error="not json"),
        "unknown_tool": _trace(
            [{"tool": "buy", "args": {}, "error": "Error: unknown tool 'buy'. Available tools: order"}]
        ),
        "wrong_tool": _trace([{"tool": "quote", "args": {"item": "a"}, "output": "9"}]),
        "missing_argument": _trace(
            [{"tool": "order", "args": {"item": "a", "date": "2024-02-01"}, "output": "ok"}]
        ),
        "wrong_format": _trace(
            [{"tool": "order", "args": {"item": "a", "qty": 2, "date": "02/01/2024"}, "output": "ok"}]
        ),
        "wrong_value": _trace(
            [{"tool": "order", "args": {"item": "b", "qty": 2, "date": "2024-02-01"}, "output": "ok"}]
        ),
        "unknown_argument": _trace(
            [
                {
                    "tool": "order",
                    "args": {"item": "a", "qty": 2, "date": "2024-02-01", "when": 1},
                    "output": "ok",
                }
            ]
        ),
        "tool_error": _trace(
            [
                {
                    "tool": "order",
                    "args": {"item": "a", "qty": 2, "date": "2024-02-01"},
                    "error": "out of stock",
                }
            ]
        ),
        "extra_call": _trace(
            [{"tool": "order", "args": {"item": "a", "qty": 2, "date": "2024-02-01"}, "output": "ok"}] * 2
        ),
        "output_misuse": _trace(
            [{"tool": "order", "args": {"item": "a", "qty": 2, "date": "2024-02-01"}, "output": "ok"}]
        ),
        "infrastructure": _trace([], error_class="timeout", error="slow"),
    }
    for expected, trace in cases.items():
        found = diff_trace(trace, gold, "order", ["item", "qty", "date"])
        assert found[0].cls == expected, (expected, [f.cls for f in found])
    assert compare_values(2, "2") == "wrong_format" and compare_values("Amazon", "amazon ") == "wrong_format"
    assert compare_values("2022-03-12", "2022-03-13") == "wrong_value"
    assert (
        compare_values("(9+6)*3", "9 + 6 * 3") == "wrong_value"
        and compare_values("5*10", " 5 * 10") == "wrong_format"
    )


def test_rule_table_covers_the_differ_and_names_real_fields() -> None:
    from core.chisel.differ import PRIORITY

    assert set(PRIORITY) == set(RULES)
    for r in RULES.values():
        assert set(r.fields) <= set(CODES)
        assert all(op in ("Add", "Remove", "Refine") and f in CODES for op, f in r.operations)
        assert r.doc_related == bool(r.operations)
    assert "| wrong_tool | yes |" in rule_table_markdown()


# --------------------------------------------------------------------------- LLM engine
def _llm_replies():
    """A scripted optimizer model: one invalid reply for diagnosis and for generation, then valid JSON."""
    state = {"diag": 0, "gen": 0}

    def reply(messages):
        last = messages[-1]["content"]
        first = messages[0]["content"]
        if "Diagnose the failed execution trace" in first:
            state["diag"] += 1
            if state["diag"] == 1:
                return "The agent forgot things."  # not JSON: must be retried
            return json.dumps(
                {
                    "evidence": "qty missing, date in the wrong format",
                    "mismatch": "the call lacks qty and writes the date as MM/DD/YYYY",
                    "fields": ["PRF", "IPD"],
                    "doc_related": True,
                    "failure_class": "missing_argument",
                }
            )
        if "Plan how to revise" in first:
            return json.dumps(
                {
                    "operations": [
                        {"op": "Add", "field": "PRF", "reason": "qty is required"},
                        {"op": "Refine", "field": "IPD", "reason": "state the date format"},
                    ]
                }
            )
        if "Apply an operation plan" in first:
            state["gen"] += 1
            prf = (
                {"item": True, "quantity": True}
                if state["gen"] == 1
                else {"item": True, "qty": True, "date": True}
            )
            assert state["gen"] == 1 or "not valid" in last
            return json.dumps(
                {
                    "edits": [
                        {"op": "Add", "field": "PRF", "content": prf},
                        {
                            "op": "Refine",
                            "field": "IPD",
                            "content": {"date": "Delivery day, formatted YYYY-MM-DD."},
                        },
                        {"op": "Remove", "field": "FD", "content": None},
                    ]
                }
            )
        if "Summarise what this optimization" in first:
            return json.dumps(
                {
                    "failure_patterns": [
                        {"text": "agents leave out qty unless it is marked required", "fields": ["PRF"]}
                    ],
                    "effective_operations": [
                        {"op": "Add", "field": "PRF", "text": "required flags fixed qty"}
                    ],
                    "harmful_operations": [],
                    "editing_experience": ["state formats inside the parameter description"],
                }
            )
        raise AssertionError(f"unexpected prompt: {first[:80]}")

    return reply, state


def test_llm_engine_retries_invalid_json_and_keeps_untouched_fields(warehouse) -> None:
    reply, state = _llm_replies()
    model = script(reply, name="chisel-optimizer")
    engine = LLMEngine(model.model, max_retries=2)
    bench = ShopBench(n=24, quote_tasks=0)
    cfg = OptimizeConfig(
        benchmark="shop", agent=AGENT, iterations=1, engine="llm", optimizer_model=model.model, max_traces=2
    )
    result = optimize(warehouse, cfg, benchmark=bench, agent_factory=DocReadingAgent, engine=engine)
    retried = [r for r in model.requests if "not valid" in r["messages"][-1]["content"]]
    assert len(retried) == 2  # one diagnosis reply was not JSON, one generation named an unknown parameter
    assert state["diag"] == 3 and state["gen"] == 2 and not engine.fallbacks
    diag = warehouse.query("SELECT engine, fields, detail FROM diagnoses WHERE run_id = ?", [result.run_id])
    assert set(diag.engine) == {"llm"} and list(diag.fields[0]) == ["PRF", "IPD"]
    cand = warehouse.load_doc(
        warehouse.scalar("SELECT doc_id FROM candidates WHERE run_id = ?", [result.run_id])
    )
    original = bench.original_docs()["shop.order"]
    assert cand.param("qty").required is True and "YYYY-MM-DD" in cand.param("date").description
    for code in set(CODES) - {"PRF", "IPD"}:  # the unplanned Remove FD edit is ignored
        assert json.dumps(cand.get(code), sort_keys=True) == json.dumps(original.get(code), sort_keys=True), (
            code
        )
    tool = warehouse.query("SELECT * FROM chisel_tools WHERE run_id = ?", [result.run_id]).iloc[0]
    assert tool.optimizer_tokens > 0 and tool.best_val_ts > tool.base_val_ts
    mem = warehouse.rows(
        "SELECT content FROM memories WHERE run_id = ? AND kind = 'generation'", [result.run_id]
    )
    assert any("formats inside" in e["text"] for e in json.loads(mem[0][0]))


def test_llm_engine_asks_again_with_what_was_tried_when_its_candidate_repeats_the_original(warehouse) -> None:
    bench = ShopBench(n=24, quote_tasks=0)
    same = bench.original_docs()["shop.order"].get("IPD")  # the original's parameter descriptions
    reply, state = _llm_replies()
    prompts: list[str] = []

    def optimizer(messages):
        first = messages[0]["content"]
        if "Plan how to revise" in first:
            return json.dumps(
                {"operations": [{"op": "Refine", "field": "IPD", "reason": "state the format"}]}
            )
        if "Apply an operation plan" not in first:
            return reply(messages)
        prompts.append(first)
        if "## Already tried" not in first:  # a small model at T = 0 writes the original back
            return json.dumps({"edits": [{"op": "Refine", "field": "IPD", "content": same}]})
        new = {**same, "date": "Delivery day, formatted YYYY-MM-DD."}
        return json.dumps({"edits": [{"op": "Refine", "field": "IPD", "content": new}]})

    model = script(optimizer, name="chisel-repeater")
    engine = LLMEngine(model.model)
    cfg = OptimizeConfig(
        benchmark="shop", agent=AGENT, iterations=1, engine="llm", optimizer_model=model.model, max_traces=1
    )
    result = optimize(warehouse, cfg, benchmark=bench, agent_factory=DocReadingAgent, engine=engine)
    assert len(prompts) == 2 and "Delivery day." in prompts[1].split("## Already tried")[1]
    row = warehouse.query("SELECT doc_id, detail FROM candidates WHERE run_id = ?", [result.run_id]).iloc[0]
    cand = warehouse.load_doc(row.doc_id)
    assert row.doc_id != bench.original_docs()["shop.order"].doc_id
    assert "YYYY-MM-DD" in cand.param("date").description
    assert any("repeated the original; asked again" in n for n in json.loads(row.detail)["notes"])
    asks = [r for r in model.requests if "Apply an operation plan" in r["messages"][0]["content"]]
    seeds = [(r["params"] or {}).get("seed") for r in asks]
    assert len(set(seeds)) == 2  # the second ask samples with another seed


def test_llm_engine_takes_a_swapped_verb_and_asks_again_for_a_planned_field_it_left_out(warehouse) -> None:
    reply, _state = _llm_replies()
    replies: list[str] = []

    def optimizer(messages):
        first = messages[0]["content"]
        if "Diagnose the failed execution trace" in first:
            diagnosis = {"evidence": "no call", "mismatch": "the tool was not used", "fields": ["TD", "UE"]}
            return json.dumps(diagnosis)
        if "Plan how to revise" in first:
            ops = [{"op": "Add", "field": "TD", "reason": "say what it does"}]
            ops.append({"op": "Add", "field": "UE", "reason": "show a call"})
            return json.dumps({"operations": ops})
        if "Apply an operation plan" not in first:
            return reply(messages)
        replies.append(messages[-1]["content"])
        edits = [{"op": "Refine", "field": "TD", "content": "Orders an item for delivery on a day."}]
        if len(replies) == 1:  # a field the plan did not name instead of UE
            edits.append({"op": "Add", "field": "IPD", "content": {"qty": "How many, at least 1."}})
        else:
            edits.append(
                {"op": "Add", "field": "UE", "content": ['order(item="a1", qty=2, date="2024-03-01")']}
            )
        return json.dumps({"edits": edits})

    model = script(optimizer, name="chisel-verb-swapper")
    bench = ShopBench(n=24, quote_tasks=0)
    cfg = OptimizeConfig(
        benchmark="shop", agent=AGENT, iterations=1, engine="llm", optimizer_model=model.model, max_traces=1
    )
    engine = LLMEngine(model.model)
    result = optimize(warehouse, cfg, benchmark=bench, agent_factory=DocReadingAgent, engine=engine)
    assert len(replies) == 2 and "no content for Add UE" in replies[1] and not engine.fallbacks
    row = warehouse.query("SELECT doc_id, detail FROM candidates WHERE run_id = ?", [result.run_id]).iloc[0]
    cand, original = warehouse.load_doc(row.doc_id), bench.original_docs()["shop.order"]
    assert cand.get("TD") == "Orders an item for delivery on a day."  # Refine TD taken as the planned Add TD
    assert cand.get("UE") and cand.get("IPD") == original.get("IPD")  # the unplanned IPD edit is not used


def test_llm_engine_plans_only_the_fields_its_diagnosis_implicates_each_with_a_reason(warehouse) -> None:
    reply, _state = _llm_replies()  # its diagnoses implicate PRF and IPD
    planned: list[list[dict]] = []

    def optimizer(messages):
        first = messages[0]["content"]
        if "Plan how to revise" not in first:
            return reply(messages)
        planned.append(messages)
        if (
            len(planned) == 1
        ):  # the taxonomy's first code with a placeholder reason, then a field not implicated
            return json.dumps({"operations": [{"op": "Add", "field": "TD", "reason": "..."}]})
        if len(planned) == 2:
            return json.dumps({"operations": [{"op": "Add", "field": "PRF", "reason": "..."}]})
        ops = [{"op": "Add", "field": "PRF", "reason": "qty is required"}]
        ops.append({"op": "Add", "field": "IPD", "reason": "the date format is not stated"})  # IPD is present
        return json.dumps({"operations": ops})

    model = script(optimizer, name="chisel-planner")
    bench = ShopBench(n=24, quote_tasks=0)
    cfg = OptimizeConfig(
        benchmark="shop", agent=AGENT, iterations=1, engine="llm", optimizer_model=model.model, max_traces=1
    )
    engine = LLMEngine(model.model, max_retries=3)
    result = optimize(warehouse, cfg, benchmark=bench, agent_factory=DocReadingAgent, engine=engine)
    asks = [r for r in model.requests if "Plan how to revise" in r["messages"][0]["content"]]
    schema = asks[0]["params"]["response_format"]["json_schema"]["schema"]
    assert schema["$defs"]["PlannedOp"]["properties"]["field"]["enum"] == ["IPD", "PRF"]
    assert "Input should be 'IPD' or 'PRF'" in asks[1]["messages"][-1]["content"]  # TD sent back
    assert "no reason given for Add PRF" in asks[2]["messages"][-1]["content"]  # "..." sent back
    assert not engine.fallbacks
    ops = json.loads(
        warehouse.scalar(
            "SELECT operations FROM plans WHERE run_id = ? AND scope = 'merged'", [result.run_id]
        )
    )
    assert {(o["op"], o["field"]) for o in ops} == {
        ("Add", "PRF"),
        ("Refine", "IPD"),
    }  # Add of a present field


def test_llm_engine_sends_back_a_copied_task_value_and_a_date_format_the_tool_does_not_take() -> None:
    from core.benchmarks.base import Call
    from core.chisel.engines.checks import content_problems as _content_problems

    original = ShopBench(n=24, quote_tasks=0).original_docs()["shop.order"]
    gold = [
        (f"t{i}", Call("shop.order", {"item": f"item{i}", "qty": i, "date": f"2024-02-0{i}", "mode": m}))
        for i, m in enumerate(["express", "standard", "express", "standard"], start=1)
    ]
    copied = {("Add", "UE"): ['order(item="item3", qty=3, date="2024-02-03")']}
    (problem,) = _content_problems(copied, gold, original)
    assert "copies one task's value ('2024-02-03', 'item3')" in problem
    wrong = {("Refine", "IPD"): {"date": "Delivery day, MM-DD.", "item": "Item id, formatted HH:MM."}}
    (problem,) = _content_problems(wrong, gold, original)
    assert "format HH:MM for 'item'" in problem and "like 'item1'" in problem
    fine = {
        ("Add", "UE"): [
            'order(item="item<n>", qty=2, date="YYYY-MM-DD", mode="express")'
        ],  # a recurring value
        ("Refine", "IPD"): {"date": "Delivery day, formatted YYYY-MM-DD."},
    }
    assert _content_problems(fine, gold, original) == []


def test_llm_engine_falls_back_to_evidence_when_the_model_never_complies(warehouse) -> None:
    model = script(lambda messages: "no JSON here", name="chisel-hopeless")
    engine = LLMEngine(model.model, max_retries=1)
    bench = ShopBench(n=24, quote_tasks=0)
    cfg = OptimizeConfig(
        benchmark="shop", agent=AGENT, iterations=1, engine="llm", optimizer_model=model.model, max_traces=1
    )
    result = optimize(warehouse, cfg, benchmark=bench, agent_factory=DocReadingAgent, engine=engine)
    assert (
        engine.fallbacks
        and warehouse.scalar("SELECT count(*) FROM candidates WHERE run_id = ?", [result.run_id]) == 1
    )
    detail = json.loads(
        warehouse.scalar("SELECT detail FROM diagnoses WHERE run_id = ? LIMIT 1", [result.run_id])
    )
    assert detail["engine"] == "evidence-fallback"


# --------------------------------------------------------------------------- real API-Bank
class ForgetfulAgent:
    """Calls the gold API but passes only the first argument and those the doc marks required."""

    def __init__(self, config: AgentConfig) -> None:
        self.config = config

    def run(self, ctx: EpisodeContext) -> str | None:
        gold = ctx.task.gold[0]
        doc = next(d for d in ctx.docs if d.tool == gold.tool)
        names = [p.name for p in doc.parameters]
        args = {
            k: v
            for k, v in gold.args.items()
            if (names and k == names[0]) or (doc.param(k) and doc.param(k).required)
        }
        ctx.execute(Call(gold.tool, args))
        return "done"


def test_real_api_bank_with_a_scripted_agent(warehouse, data_dir) -> None:
    cfg = OptimizeConfig(
        benchmark="api-bank",
        domains=("finance",),
        tools=("QueryStock",),
        agent=AgentConfig(model="scripted/forgetful"),
        iterations=2,
        max_opt_tasks=4,
        max_val_tasks=2,
        engine="evidence",
    )
    result = optimize(warehouse, cfg, data_dir=str(data_dir), agent_factory=ForgetfulAgent)
    (tool,) = result.tools
    assert tool.base_val_ts == 0.0 and tool.best_val_ts == 1.0
    doc = result.docset["QueryStock"]
    assert doc.param("date").required is True  # from the API-Bank implementation's signature
    assert doc.description == tool.original.description
    classes = {
        r[0] for r in warehouse.rows("SELECT failure_class FROM diagnoses WHERE run_id = ?", [result.run_id])
    }
    assert classes == {"missing_argument"}
    split_id = json.loads(warehouse.scalar("SELECT config FROM runs WHERE run_id = ?", [result.run_id]))[
        "split_id"
    ]
    leaked = warehouse.scalar(
        """SELECT count(*) FROM chisel_gt_access g JOIN split_assignments s
           ON s.task_id = g.task_id AND s.split_id = ? WHERE g.run_id = ? AND s.part <> 'opt'""",
        [split_id, result.run_id],
    )
    assert leaked == 0


@pytest.mark.parametrize("fmt", ["json", "openai", "mcp"])
def test_export_formats_round_trip(fmt: str) -> None:
    from core.chisel.export import export_docset
    from core.docs import DocSet

    docs = ShopBench().original_docs()
    out = export_docset(docs, fmt)
    if fmt == "json":
        assert DocSet.from_json(out).docset_id == docs.docset_id
    elif fmt == "openai":
        from core.docs.render import openai_name

        assert [t["function"]["name"] for t in out] == [openai_name(t) for t in docs]
    else:
        assert [t["name"] for t in out["tools"]] == list(docs) and "inputSchema" in out["tools"][0]


def test_merge_pools_duplicates_normalises_and_resolves_conflicts() -> None:
    from core.chisel.memory import DomainMemory
    from core.chisel.merge import merge_plans
    from core.chisel.types import Operation, Plan

    original = ShopBench().original_docs()["shop.order"]  # has FD, IPD, IPT, CI; lacks UE, PRF, UG
    plans = [
        Plan(
            tool="shop.order",
            scope="trace",
            operations=[
                Operation(op="Add", field="FD", reason="a", support=["e1"]),
                Operation(op="Refine", field="UE", reason="b", support=["e1"]),
                Operation(op="Remove", field="CI", reason="c", support=["e1"]),
            ],
        ),
        Plan(
            tool="shop.order",
            scope="trace",
            operations=[
                Operation(op="Refine", field="FD", reason="a2", support=["e2"]),
                Operation(op="Remove", field="UG", reason="d", support=["e2"]),
                Operation(op="Refine", field="CI", reason="e", support=["e2"]),
                Operation(op="Refine", field="CI", reason="f", support=["e3"]),
            ],
        ),
    ]
    merged = merge_plans("shop.order", plans, original, DomainMemory("shop"))
    ops = {o.field: o for o in merged.operations}
    assert ops["FD"].op == "Refine" and ops["FD"].support == [
        "e1",
        "e2",
    ]  # Add on a present field -> Refine, pooled
    assert ops["UE"].op == "Add"  # Refine on an absent field -> Add
    assert "UG" not in ops  # nothing to remove
    assert ops["CI"].op == "Refine" and ops["CI"].support == ["e2", "e3"]  # 2 traces beat 1
    assert any("conflict on CI" in n for n in merged.notes)


def test_synthesisers_read_enumerations_formats_and_signatures(warehouse) -> None:
    from core.chisel.engines.synth import Synth
    from core.chisel.engines.values import value_format
    from core.chisel.memory import DomainMemory
    from tests.shopctx import shop_order_context

    ctx = shop_order_context(warehouse)
    ctx.observations.errors.append(("Item must be one of 'item1', 'item2'", {"item": "x"}))
    ctx.observations.outputs.append("{'order_id': 'o-1', 'status': 'placed'}")
    synth = Synth(ctx, [], DomainMemory("shop"))
    assert synth("Add", "PRF") == {"item": True, "qty": True, "date": True}
    assert synth("Refine", "IPT")["item"] == 'Literal["item1", "item2"]'
    assert synth("Refine", "IPT")["date"] == "str (YYYY-MM-DD)"
    assert synth("Add", "RPN") == ["order_id", "status"]
    assert "item must be one of" in synth("Add", "IC").lower()
    assert all("shop.order(" in e for e in synth("Add", "UE"))
    assert (
        value_format(["2024-01-01", "2023-12-31"]) == "YYYY-MM-DD"
        and value_format(["a", "2024-01-01"]) is None
    )
    gt_parts = (
        {r[0] for r in warehouse.rows("SELECT part FROM chisel_gt_access")} if ctx.gt.flush() else set()
    )
    assert gt_parts == {"opt"}


def test_a_read_only_lookup_before_the_focal_call_is_not_a_wrong_tool():
    """'search the event, then delete it' is how agents find arguments (the benchmark says search only reads)."""
    gold = [Call("calendar.delete_event", {"event_id": "00000013"})]
    lookup_then_wrong_id = _trace(
        [
            {
                "tool": "calendar.search_events",
                "args": {"query": "Sync"},
                "output": "[{'event_id': '00000013'}]",
            },
            {"tool": "calendar.delete_event", "args": {"event_id": "00000031"}, "output": "Event deleted."},
        ]
    )
    read_only = {"calendar.search_events", "calendar.get_event_information_by_id"}
    found = diff_trace(lookup_then_wrong_id, gold, "calendar.delete_event", ["event_id"], read_only)
    assert [f.cls for f in found] == ["wrong_value"]
    # without knowing which tools only read, the lookup looks like a confusion of tools
    legacy = diff_trace(lookup_then_wrong_id, gold, "calendar.delete_event", ["event_id"])
    assert legacy[0].cls == "wrong_tool"
    # a write tool other than the focal one is still a wrong tool
    other_write = _trace(
        [{"tool": "calendar.update_event", "args": {"event_id": "00000013"}, "output": "ok"}]
    )
    assert (
        diff_trace(other_write, gold, "calendar.delete_event", ["event_id"], read_only)[0].cls == "wrong_tool"
    )


def test_a_structure_mismatch_is_a_format_failure_and_the_doc_states_the_structure() -> None:
    """`[120, 80]` for a list of {name, value} objects: the doc must say what the argument looks like."""
    from core.chisel.engines.values import describe_shape, recurring_values

    gold = [{"name": "blood_pressure", "value": "120/80"}, {"name": "heart_rate", "value": "80"}]
    assert compare_values(gold, [120, 80]) == "wrong_format"
    assert compare_values(gold, [{"name": "blood_pressure", "value": "130/90"}]) == "wrong_value"
    calls = [gold, [{"name": "blood_pressure", "value": "130/90"}, {"name": "heart_rate", "value": "75"}]]
    assert describe_shape(calls) == 'list[{"name": "blood_pressure" | "heart_rate", "value": str}]'
    assert describe_shape([{"a": 1}, {"a": 2, "b": "x"}]) == '{"a": int, "b"?: str}'
    assert describe_shape(["2024-01-01"]) is None  # scalars: formats cover them
    # recurring values are constraints; values that never repeat are one task's data
    assert recurring_values(["USD", "EUR", "USD", "EUR"]) == ["EUR", "USD"]
    assert recurring_values(["Ann", "Bob", "Cid"]) == [] and recurring_values(["x"]) == []


def _shop_ctx(warehouse, doc=None, priors=None):
    from tests.shopctx import shop_order_context

    return shop_order_context(warehouse, doc, priors)


def test_parameter_descriptions_state_formats_never_one_tasks_value(warehouse) -> None:
    from core.chisel.engines.synth import Synth
    from core.chisel.memory import DomainMemory

    ctx = _shop_ctx(warehouse)
    ipd = Synth(ctx, [], DomainMemory("shop"))("Refine", "IPD")
    assert ipd["date"] == "Delivery day. Format: YYYY-MM-DD."
    gold_values = {str(c.args[k]) for _, c in ctx.opt_gold_calls("test") for k in ("item", "date")}
    assert not any(v in text for text in ipd.values() for v in gold_values)


def test_copied_example_values_fire_a_remove(warehouse) -> None:
    """An agent that copies an example's value into another call: the example goes, and is not re-added."""
    from core.chisel.engines.base import IterationRecord
    from core.chisel.engines.evidence import EvidenceEngine
    from core.chisel.memory import DomainMemory
    from core.chisel.types import Evaluation, Operation, Plan

    bench = ShopBench(n=24, quote_tasks=0)
    original = bench.original_docs()["shop.order"]
    with_example = original.add("UE", ['shop.order(item="item7", qty=3, date="2024-02-08")'])
    gold = [Call("shop.order", {"item": "item2", "qty": 3, "date": "2024-02-03"})]
    copied = _trace(
        [{"tool": "shop.order", "args": {"item": "item7", "qty": 3, "date": "2024-02-03"}, "output": "ok"}]
    )
    engine = EvidenceEngine()
    memory = DomainMemory("shop")

    # an original doc with the example: the planned fix is to remove it
    ctx = _shop_ctx(warehouse, doc=with_example)
    ctx.gt.calls = lambda task_id, purpose: gold  # type: ignore[method-assign]
    d = engine.diagnose(ctx, copied, memory)
    assert d.detail["findings"][0]["data"]["copied_field"] == "UE"
    assert engine.plan(ctx, d, memory).operations[0].key() == ("Remove", "UE")
    merged = engine.merge(ctx, [engine.plan(ctx, d, memory)], [d], memory)
    assert ("Remove", "UE") in [o.key() for o in merged.operations], merged.notes
    assert not [o for o in merged.operations if o.field == "UE" and o.op != "Remove"]

    # an example added by an earlier iteration: the carried Add UE is dropped, not carried forward
    ctx = _shop_ctx(warehouse)
    ctx.current = with_example
    ctx.gt.calls = lambda task_id, purpose: gold  # type: ignore[method-assign]
    add_ue = Operation(op="Add", field="UE", reason="", content=list(with_example.examples))
    ev = Evaluation(
        val_ts=0.5, base_val_ts=0.5, opt_ts=0.5, base_opt_ts=0.5, val_run="", opt_run="", accepted=True
    )
    ctx.history.append(
        IterationRecord(
            1,
            [("Add", "UE")],
            with_example.doc_id,
            Plan(tool="shop.order", scope="merged", operations=[add_ue]),
            with_example,
            ev,
            "neutral",
        )
    )
    d = engine.diagnose(ctx, copied, memory)
    merged = engine.merge(ctx, [engine.plan(ctx, d, memory)], [d], memory)
    assert not [o for o in merged.operations if o.field == "UE"]
    assert any("dropped carried Add UE" in n for n in merged.notes)


def test_priors_come_from_a_stored_field_study_of_the_same_backbone(warehouse) -> None:
    """A field the study measured as harmful for this backbone is proposed for removal, with its numbers."""
    from core.chisel.engines.evidence import EvidenceEngine
    from core.chisel.memory import DomainMemory
    from core.chisel.priors import priors_from_rows
    from core.warehouse import reads

    row = dict(
        study_id="s1", benchmark="shop", domain="shop", model="scripted/doc-reader", paradigm="react",
        n_tools=1, base_ts=0.5, repeats=3,
    )  # fmt: skip
    warehouse.insert(
        "field_impact",
        [
            {**row, "field": "CI", "operation": "remove", "delta_pp": 20.0, "ci_low": 5.0, "ci_high": 35.0},
            {**row, "field": "PRF", "operation": "add", "delta_pp": 15.0, "ci_low": 2.0, "ci_high": 30.0},
            {**row, "field": "UE", "operation": "add", "delta_pp": -10.0, "ci_low": -20.0, "ci_high": 1.0},
            {**row, "study_id": "other", "model": "local/other", "field": "CI", "operation": "remove", "delta_pp": -30.0},
        ],
    )  # fmt: skip
    rows = reads.field_impacts(warehouse, "shop", "scripted/doc-reader", "react")
    assert len(rows) == 3  # another backbone's study is not read
    priors = priors_from_rows(rows, "shop")
    assert priors[("Remove", "CI")].value == pytest.approx(0.20) and priors[("Remove", "CI")].significant
    assert priors[("Add", "PRF")].value == pytest.approx(0.15)
    assert priors[("Add", "UE")].value == pytest.approx(-0.05)  # not significant: half weight

    gold = [Call("shop.order", {"item": "item2", "qty": 3, "date": "2024-02-03"})]
    no_qty = _trace([{"tool": "shop.order", "args": {"item": "item2", "date": "2024-02-03"}, "output": "ok"}])
    engine, memory = EvidenceEngine(), DomainMemory("shop")
    plain = _shop_ctx(warehouse)
    informed = _shop_ctx(warehouse, priors=priors)
    for ctx in (plain, informed):
        ctx.gt.calls = lambda task_id, purpose: gold  # type: ignore[method-assign]
    d = engine.diagnose(plain, no_qty, memory)
    without = engine.merge(plain, [engine.plan(plain, d, memory)], [d], memory)
    with_study = engine.merge(informed, [engine.plan(informed, d, memory)], [d], memory)
    assert ("Remove", "CI") not in [o.key() for o in without.operations]
    assert any(
        n.startswith("proposed Remove CI: shop study: remove CI: ΔTS +20.0 pp") for n in with_study.notes
    )
    ops = {o.key(): o for o in with_study.operations}
    assert "ΔTS +15.0 pp" in ops[("Add", "PRF")].reason
    # the removal competes with the trace's own fixes: planned now, or deferred to a later iteration
    assert ("Remove", "CI") in ops or any(
        "Remove CI" in n for n in with_study.notes if n.startswith("deferred")
    )


def test_llm_lessons_count_in_the_planners_operation_statistics(warehouse) -> None:
    """The LLM engine's memory lessons feed the same statistics the evidence planner ranks by."""
    from core.chisel.memory import DomainMemory
    from core.chisel.types import Evaluation, Operation, Plan

    reply = {
        "failure_patterns": [],
        "effective_operations": [
            {"op": "Add", "field": "PRF", "text": "required flags fixed it"},
            {"op": "Refine", "field": "IPD", "text": "formats help"},
        ],
        "harmful_operations": [{"op": "Add", "field": "UE", "text": "examples get copied"}],
        "editing_experience": ["keep it short"],
    }
    model = script(lambda messages, params: json.dumps(reply), name="memory-lessons")
    engine = LLMEngine(model.model)
    ctx = _shop_ctx(warehouse)
    memory = DomainMemory("shop")
    plan = Plan(tool="shop.order", scope="merged", operations=[Operation(op="Add", field="PRF", reason="")])
    ev = Evaluation(
        val_ts=0.5, base_val_ts=0.5, opt_ts=0.5, base_opt_ts=0.5, val_run="", opt_run="", accepted=True
    )
    engine.update_memory(ctx, memory, [], plan, ctx.original.add("PRF", {"qty": True}), ev, [])
    assert memory.op_stats("Refine", "IPD")["effective"] == 1  # a lesson about another operation counts
    assert memory.op_stats("Add", "UE")["harmful"] == 1
    # the planned operation's outcome is the measured one (neutral here), not the model's opinion
    prf = memory.op_stats("Add", "PRF")
    assert prf["neutral"] == 1 and prf["effective"] == 0


def test_usage_guidance_quotes_the_requests_a_confused_agent_got_wrong(warehouse) -> None:
    """Against a confusion of tools, the guidance shows the requests this tool serves (never a call's values)."""
    from dataclasses import replace

    from core.chisel.differ import Finding
    from core.chisel.engines.synth import Synth
    from core.chisel.engines.values import last_user_line
    from core.chisel.memory import DomainMemory
    from core.docs import DocSet, Param

    base = _shop_ctx(warehouse)
    # shop.quote takes a quantity too here, so no parameter tells the two tools' requests apart
    quote = base.docset["shop.quote"]
    quote = quote.model_copy(update={"parameters": (*quote.parameters, Param(name="qty", description="n"))})
    ctx = replace(base, docset=DocSet([*(d for t, d in base.docset.items() if t != "shop.quote"), quote]))
    failed = ctx.opt_task_ids[:3]
    confused = [Finding("wrong_tool", "called quote", other_tool="shop.quote")]
    ug = Synth(ctx, confused, DomainMemory("shop"), failed)("Add", "UG")
    first = last_user_line(ctx.gt.query(failed[0]), limit=90)
    assert ug.startswith("Use this tool for requests like: ") and f'"{first}"' in ug
    assert "shop.quote" not in ug, "the confused tool is not named beside the requests either"
    assert "shop.order(" not in ug
    # without the failed tasks it falls back to the description
    assert (
        Synth(ctx, confused, DomainMemory("shop"))("Add", "UG")
        == "Use this tool when the request is: order an item."
    )


def test_a_request_another_tools_dialogue_also_holds_is_not_quoted(warehouse) -> None:
    """A dialogue that asked to order and then asks a price holds the order turn too: quoted as what
    shop.order is for, it would draw that dialogue's price question to shop.order."""
    from dataclasses import replace

    from core.benchmarks.base import Call, Task
    from core.chisel.access import GroundTruth
    from core.chisel.differ import Finding
    from core.chisel.engines.synth import Synth
    from core.chisel.engines.values import request_line
    from core.chisel.memory import DomainMemory
    from core.docs import DocSet, Param
    from tests.test_chisel_toy import ShopBench

    base = _shop_ctx(warehouse)
    quote = base.docset["shop.quote"]
    quote = quote.model_copy(update={"parameters": (*quote.parameters, Param(name="qty", description="n"))})
    ctx = replace(base, docset=DocSet([*(d for t, d in base.docset.items() if t != "shop.quote"), quote]))
    failed = ctx.opt_task_ids[:3]
    first, second = (request_line(ctx.gt.query(t), limit=90) for t in failed[:2])
    confused = [Finding("wrong_tool", "called quote", other_tool="shop.quote")]
    ug = Synth(ctx, confused, DomainMemory("shop"), failed)("Add", "UG")
    assert f'"{first}"' in ug and f'"{second}"' in ug

    # a price dialogue of the optimization split whose first turn is the first failed request
    later = Task(
        "quote-later",
        "shop",
        f"User: {ctx.gt.query(failed[0])}\nAI: Ordered.\nUser: And how much is item9 now?",
        (Call("shop.quote", {"item": "item9"}),),
        ("shop.quote",),
    )
    split = replace(ctx.gt.split, parts={**ctx.gt.split.parts, later.task_id: "opt"})
    tasks = [*ShopBench(n=24, quote_tasks=0).tasks(), later]
    ctx = replace(ctx, gt=GroundTruth(warehouse, "probe", split, tasks))
    ug = Synth(ctx, confused, DomainMemory("shop"), failed)("Add", "UG")
    assert f'"{first}"' not in ug and f'"{second}"' in ug
    # a dialogue of shop.order's own that repeats the turn takes nothing away
    own = replace(
        later, task_id="order-later", gold=(Call("shop.order", {"item": "item9"}),), tools=("shop.order",)
    )
    split = replace(split, parts={**split.parts, own.task_id: "opt"})
    ctx = replace(ctx, gt=GroundTruth(warehouse, "probe", split, [*tasks[:-1], own]))
    assert f'"{first}"' in Synth(ctx, confused, DomainMemory("shop"), failed)("Add", "UG")


def test_constraints_name_the_argument_names_the_tool_rejects(warehouse) -> None:
    """An agent that passes the request's other values under names the tool lacks is told to leave those
    names out; the error message that names them is not quoted instead."""
    from core.chisel.differ import Finding
    from core.chisel.engines.synth import Synth
    from core.chisel.memory import DomainMemory
    from core.chisel.rules import rule

    ctx = _shop_ctx(warehouse)
    ctx.observations.errors += [
        ("invalid parameter name. parameter: customer", {"item": "item1", "customer": "Ann"}),
        ("item out of stock", {"item": "item3"}),
        ("invalid parameter name. parameter: username", {"item": "item2", "username": "ann", "note": "x"}),
    ]
    guessed = [
        Finding("unknown_argument", "passed unknown argument 'customer'", param="customer", pred="Ann"),
        Finding("unknown_argument", "passed unknown argument 'when'", param="when", pred="today"),
        Finding("unknown_argument", "passed unknown argument 'customer'", param="customer", pred="Bo"),
    ]
    ic = Synth(ctx, guessed, DomainMemory("shop"))("Add", "IC")
    names = " and ".join([", ".join(ctx.param_names[:-1]), ctx.param_names[-1]])
    assert (
        f"Its only parameters are {names}; leave out customer, when and username, even when the request "
        "gives them" in ic
    )
    assert "parameter: customer" not in ic and "parameter: username" not in ic and "'item out of stock'" in ic
    # the planner may now fix a guessed name in the constraints
    assert ("Add", "IC") in rule("unknown_argument").operations
    # an observed error that names a call's argument the tool lacks is a guessed name too; one that
    # names none of its call's arguments is quoted
    assert "leave out customer and username," in (Synth(ctx, [], DomainMemory("shop"))("Add", "IC") or "")
    plain = _shop_ctx(warehouse)
    plain.observations.errors += [("item out of stock", {"item": "item3"})]
    plain_ic = Synth(plain, [], DomainMemory("shop"))("Add", "IC") or ""
    assert "leave out" not in plain_ic and "'item out of stock'" in plain_ic


def test_constraints_do_not_name_a_guessed_argument_another_tool_of_the_domain_takes(warehouse) -> None:
    """A name another tool takes routes a request to that tool; written in this tool's constraints ("leave
    out customer, even when the request gives them") it draws those requests here. The constraints still
    say which names the tool takes, and the error that names it is not quoted either."""
    from dataclasses import replace

    from core.chisel.differ import Finding
    from core.chisel.engines.synth import Synth
    from core.chisel.memory import DomainMemory
    from core.docs import DocSet, Param, ToolDoc

    base = _shop_ctx(warehouse)
    crm = ToolDoc(tool="shop.crm", name="shop.crm", parameters=(Param(name="customer", description="Who."),))
    ctx = replace(base, docset=DocSet([*base.docset.values(), crm]))
    ctx.observations.errors += [
        ("invalid parameter name. parameter: customer", {"item": "item1", "customer": "Ann"}),
    ]
    names = " and ".join([", ".join(ctx.param_names[:-1]), ctx.param_names[-1]])
    guessed = [
        Finding("unknown_argument", "passed unknown argument 'customer'", param="customer", pred="Ann")
    ]
    ic = Synth(ctx, guessed, DomainMemory("shop"))("Add", "IC") or ""
    assert f"Its only parameters are {names}: it rejects any other argument name." in ic
    assert "customer" not in ic and "leave out" not in ic
    # a name no other tool takes is still told to leave out, beside it
    more = [*guessed, Finding("unknown_argument", "passed unknown argument 'when'", param="when", pred="x")]
    ic = Synth(ctx, more, DomainMemory("shop"))("Add", "IC") or ""
    assert f"Its only parameters are {names}; leave out when, even when" in ic and "customer" not in ic
    # without the other tool in the doc set, the same name is a guess like any other
    assert "leave out customer," in (Synth(base, guessed, DomainMemory("shop"))("Add", "IC") or "")


def test_memory_from_another_failure_class_or_tool_does_not_veto_an_operation(warehouse) -> None:
    """ "Refine IPT harmful against wrong_value on another tool" must not drop Refine IPT for a format failure."""
    from core.chisel.engines.evidence import EvidenceEngine
    from core.chisel.memory import OTHER_CLASS_WEIGHT, OTHER_TOOL_WEIGHT, DomainMemory
    from core.chisel.types import MemoryEntry

    def remembered(failure_class: str, tool: str) -> DomainMemory:
        memory = DomainMemory("shop")
        memory.add(
            "planning",
            MemoryEntry(
                text="Refine IPT: harmful",
                tool=tool,
                iteration=1,
                failure_class=failure_class,
                fields=["IPT"],
                op="Refine",
                outcome="harmful",
                delta=-0.1,
                count=3,
            ),
        )
        memory.add(
            "generation",
            MemoryEntry(
                text="Refine IPT broke 2 tasks",
                tool=tool,
                iteration=1,
                failure_class="",
                fields=["IPT"],
                op="Refine",
                outcome="regression",
                delta=0.0,
                count=2,
            ),
        )
        return memory

    elsewhere = remembered("wrong_value", "shop.quote")
    stats, broke = elsewhere.evidence_for("Refine", "IPT", {"wrong_format"}, "shop.order")
    assert stats["harmful"] == OTHER_CLASS_WEIGHT * 3 and broke == OTHER_TOOL_WEIGHT * 2
    here = remembered("wrong_format", "shop.order")
    stats, broke = here.evidence_for("Refine", "IPT", {"wrong_format"}, "shop.order")
    assert stats["harmful"] == 3 and broke == 2

    gold = [Call("shop.order", {"item": "item2", "qty": 3, "date": "2024-02-03"})]
    trace = _trace(
        [{"tool": "shop.order", "args": {"item": "item2", "qty": 3, "date": "2024/02/03"}, "output": "ok"}]
    )
    engine = EvidenceEngine()
    considered = {}
    for label, memory in (("elsewhere", elsewhere), ("here", here)):
        ctx = _shop_ctx(warehouse)
        ctx.gt.calls = lambda task_id, purpose: gold  # type: ignore[method-assign]
        d = engine.diagnose(ctx, trace, memory)
        assert d.failure_class == "wrong_format", d
        merged = engine.merge(ctx, [engine.plan(ctx, d, memory)], [d], memory)
        considered[label] = ("Refine", "IPT") in [o.key() for o in merged.operations] or any(
            n.startswith("deferred") and "Refine IPT" in n for n in merged.notes
        )
    # the same failure class on the same tool is real evidence against it; elsewhere it is not
    assert considered == {"elsewhere": True, "here": False}


def test_a_value_no_request_states_is_written_into_the_parameter_description() -> None:
    """A convention of the tool's world (plots end yesterday) is stated; one task's value never is."""
    from core.chisel.engines.values import implied_value

    since = [(f"Plot visits since November {d}.", "2023-11-29") for d in (2, 5, 9, 17)]
    stated = [("Plot visits from November 3 to 2023-11-06.", "2023-11-06")]
    assert implied_value(since + stated) == "2023-11-29"
    # the requests name it: it is their data, not a convention
    assert implied_value([(f"end on 2023-11-29, item {i}", "2023-11-29") for i in range(4)]) is None
    assert implied_value([(f"q{i}", f"2023-11-{i:02d}") for i in range(1, 7)]) is None  # all differ
    assert implied_value(since[:2]) is None  # too few calls to call it a convention
    assert implied_value([(q, True) for q, _ in since]) is None  # flags are for PRF / types
    # a closed set of choices decided by the request (which field to update), however common one is
    fields = ["event_name"] * 5 + ["event_start"] * 2 + ["duration"] * 2
    assert implied_value([(f"update meeting {i}", f) for i, f in enumerate(fields)]) is None


def test_the_synthesiser_states_an_implied_value_in_ipd(warehouse) -> None:
    from core.benchmarks.base import Call
    from core.chisel.engines.synth import Synth
    from core.chisel.memory import DomainMemory

    ctx = _shop_ctx(warehouse)
    gold = [
        (tid, Call("shop.order", {"item": f"item{i}", "qty": 1, "date": "2024-02-29"}))
        for i, tid in enumerate(ctx.opt_task_ids)
    ]
    synth = Synth(ctx, [], DomainMemory("shop"))
    synth._gold = gold
    ipd = synth("Refine", "IPD")
    assert ipd["date"].endswith('If the request does not give it, use "2024-02-29".')
    assert "If the request" not in ipd.get("item", "")  # a different item in every call: the request's data


def test_an_id_no_request_states_is_looked_up_with_the_tool_whose_docs_return_it() -> None:
    """Ids and addresses come from lookups (by the lookups' own docs); other values have no source."""
    from core.docs import DocSet, Return, ToolDoc
    from core.docs.lookups import lookup_source

    docs = DocSet(
        [
            ToolDoc(tool="cal.delete_event", name="cal.delete_event", description="Deletes an event."),
            ToolDoc(
                tool="cal.get_event_by_id",
                name="cal.get_event_by_id",
                examples=('>>> cal.get_event_by_id("00000001")\n{"event_id": "00000001"}',),
            ),
            ToolDoc(
                tool="cal.search_events",
                name="cal.search_events",
                examples=('>>> cal.search_events("Sam")\n[{"event_id": "00000000", "event_name": "Sync"}]',),
                returns=(Return(name="events"),),
            ),
            ToolDoc(tool="mail.search_emails", name="mail.search_emails", returns=(Return(name="emails"),)),
            ToolDoc(
                tool="directory.find_email_address",
                name="directory.find_email_address",
                returns=(Return(name="email_address"),),
            ),
        ]
    )
    read_only = {
        "cal.get_event_by_id",
        "cal.search_events",
        "mail.search_emails",
        "directory.find_email_address",
    }
    ids = ["00000123", "00000456"]
    assert lookup_source("event_id", ids, docs, read_only, "cal.delete_event") == "cal.search_events"
    addresses = ["ann.lee@atlas.com", "bo.chen@atlas.com"]
    assert lookup_source("recipient", addresses, docs, read_only, "cal.delete_event") == (
        "directory.find_email_address"  # a list of emails is not an address
    )
    assert lookup_source("event_name", ["Sync", "Review"], docs, read_only, "cal.delete_event") is None
    assert lookup_source("event_id", ids, docs, set(), "cal.delete_event") is None  # no read-only tool


def test_a_zero_padded_id_is_not_called_an_integer() -> None:
    from core.chisel.engines.values import value_format

    assert value_format(["00000123", "00004567"]) == "a string of 8 digits, leading zeros kept"
    assert value_format(["12", "345"]) == "an integer"
    assert value_format(["2024-02-29"]) == "YYYY-MM-DD"


def test_the_synthesiser_says_where_an_unstated_id_comes_from(warehouse) -> None:
    from dataclasses import replace

    from core.benchmarks.base import Call
    from core.chisel.engines.synth import Synth
    from core.chisel.memory import DomainMemory
    from core.docs import DocSet, ToolDoc

    ctx = _shop_ctx(warehouse)
    lookup = ToolDoc(
        tool="shop.find_item",
        name="shop.find_item",
        examples=('>>> shop.find_item("lamp")\n[{"item": "00000042", "name": "lamp"}]',),
    )
    ctx = replace(ctx, docset=DocSet([*ctx.docset.values(), lookup]), read_only=frozenset({"shop.find_item"}))
    synth = Synth(ctx, [], DomainMemory("shop"))
    synth._gold = [
        (tid, Call("shop.order", {"item": f"{9000 + i:08d}", "qty": 1, "date": "2024-02-29"}))
        for i, tid in enumerate(ctx.opt_task_ids)
    ]
    ipd = synth("Refine", "IPD")
    assert "look it up with shop.find_item first" in ipd["item"]
    assert "look it up" not in ipd["date"]


def test_calling_the_focal_tool_in_another_tools_place_is_a_misuse() -> None:
    """The other side of a confusion: the focal tool called where the ground truth calls another tool."""
    gold = [Call("health.modify", {"appointment_id": "1"})]
    wrong = _trace([{"tool": "health.register", "args": {"date": "2023-10-12"}, "output": "id 7"}])
    found = diff_trace(wrong, gold, "health.register", ["date"])
    assert [f.cls for f in found] == ["misused"]
    assert found[0].other_tool == "health.modify" and found[0].data == {"task_id": "t"}
    # from the right tool's side the same trace stays a wrong tool
    assert diff_trace(wrong, gold, "health.modify", ["appointment_id"])[0].cls == "wrong_tool"
    # a look-up on the way to another tool's call gathers arguments: no misuse
    steps = [{"tool": "health.search", "args": {"q": "x"}, "output": "[]"}]
    on_the_way = _trace([*steps, {"tool": "health.modify", "args": {"appointment_id": "2"}, "output": "ok"}])
    lookup = diff_trace(on_the_way, gold, "health.search", ["q"], {"health.search"})
    assert "misused" not in {f.cls for f in lookup}
    # a look-up called instead of the right tool (the episode calls none of the gold's tools) is one
    instead = diff_trace(_trace(steps), gold, "health.search", ["q"], {"health.search"})
    assert [f.cls for f in instead] == ["misused"] and instead[0].other_tool == "health.modify"
    # a request where nothing should be done is another failure (an extra call), not a misuse
    assert diff_trace(wrong, [], "health.register", ["date"])[0].cls == "extra_call"


def test_a_misused_tools_doc_names_neither_the_other_tool_nor_the_requests_it_drew(warehouse) -> None:
    """A tool called in another one's place says nothing of the other tool's requests: not the tool, not
    the requests, not the value that routes them there (an order id). Each of those drew the requests it
    named to the tool whose doc held it. The guidance of a tool confused with another, where neither a
    parameter nor a request tells them apart, says what it is for without naming the other."""
    from dataclasses import replace

    from core.benchmarks.base import Call, Task
    from core.benchmarks.splits import DEFAULT_GROUPING, get_or_create_split
    from core.chisel.access import GroundTruth
    from core.chisel.differ import Finding
    from core.chisel.engines.synth import Synth
    from core.chisel.engines.values import request_line
    from core.chisel.memory import DomainMemory

    cancels = [
        Task(
            f"cancel-{i:03d}",
            "shop",
            f"User: Please cancel my order.\nAI: Which one?\nUser: Order {4700 + i}, item{i} on day {i + 1}.",
            (Call("shop.cancel", {"order_id": str(4700 + i), "why": "x"}),),
            ("shop.cancel",),
        )
        for i in range(12)
    ]
    base = _shop_ctx(warehouse)
    tasks = [*base.benchmark.tasks(), *cancels]
    split = get_or_create_split(warehouse, "shop/cancel", tasks, seed=0, grouping=DEFAULT_GROUPING)
    ctx = replace(base, gt=GroundTruth(warehouse, "probe", split, tasks), opt_task_ids=split.ids("opt"))
    misrouted = [t for t in ctx.opt_task_ids if t.startswith("cancel-")][:3]
    quotes = [t for t in ctx.opt_task_ids if t.startswith("quote-")][:2]
    misused = [
        *(
            Finding("misused", "called order", other_tool="shop.cancel", data={"task_id": t})
            for t in misrouted
        ),
        *(Finding("misused", "called order", other_tool="shop.quote", data={"task_id": t}) for t in quotes),
    ]
    synth = Synth(ctx, misused, DomainMemory("shop"), [*misrouted, *quotes])
    assert synth("Add", "UG") is None and synth("Refine", "FD") is None
    # the same findings beside the tool's own failures: what it writes for those names nothing of them
    own = [t for t in ctx.opt_task_ids if t.startswith("order-")][:2]
    mixed = [*misused, Finding("missing_call", "no call", data={"task_id": own[0]})]
    ug = Synth(ctx, mixed, DomainMemory("shop"), [*misrouted, *quotes, *own])("Add", "UG") or ""
    assert ug and "shop.cancel" not in ug and "shop.quote" not in ug and "order_id" not in ug
    for tid in [*misrouted, *quotes]:
        assert request_line(ctx.gt.query(tid), limit=90) not in ug
    # confused with another tool, and nothing but its purpose tells them apart: the other is not named
    wrong_tool = Finding("wrong_tool", "called quote", other_tool="shop.quote")
    both = Synth(ctx, [*misused, wrong_tool], DomainMemory("shop"), [*misrouted, *quotes])("Add", "UG")
    assert both == "Use this tool when the request is: order an item."
    # the turn that asks, not the data given after being asked
    dialogue = "User: Can you cancel my appointment with Dr. Lee?\nAI: Its id?\nUser: 56789012"
    assert request_line(dialogue) == "Can you cancel my appointment with Dr. Lee?"


def test_a_confused_tools_guidance_names_the_parameter_that_tells_its_requests_apart(warehouse) -> None:
    """The agent called shop.quote on order requests; every one gives a quantity, which shop.quote does not
    take: the guidance names that parameter instead of quoting requests whose surface both tools share, and
    does not name shop.quote, which would draw a request that fits both tools' parameters to it."""
    from dataclasses import replace

    from core.chisel.differ import Finding
    from core.chisel.engines.synth import Synth
    from core.chisel.memory import DomainMemory
    from core.docs import DocSet, Param

    ctx = _shop_ctx(warehouse)
    tasks = [t for t in ctx.opt_task_ids if t.startswith("order-")][:3]
    confused = [Finding("wrong_tool", "called quote", other_tool="shop.quote")]
    ug = Synth(ctx, confused, DomainMemory("shop"), tasks)("Add", "UG")
    # `item` is shop.quote's too; the day is not stated as a date ("day 5")
    assert ug.startswith("Use this tool for requests that give qty.")
    assert "Please order" not in ug and "shop.quote" not in ug, (
        "the confused tool is not named beside the cue"
    )
    # when the other tool takes a quantity too, nothing tells them apart by parameter: requests are quoted
    quote = ctx.docset["shop.quote"]
    both = quote.model_copy(
        update={"parameters": (*quote.parameters, Param(name="qty", description="How many."))}
    )
    wider = replace(ctx, docset=DocSet([*(d for t, d in ctx.docset.items() if t != "shop.quote"), both]))
    ug = Synth(wider, confused, DomainMemory("shop"), tasks)("Add", "UG")
    assert ug.startswith('Use this tool for requests like: "Please order')


def test_a_cue_names_what_sets_the_tool_apart_from_every_tool_taking_the_cued_value(warehouse) -> None:
    """The cue rules out the confused tool; another tool taking the same value is set apart by what it
    takes beside it (no warehouse here) or by what this tool takes beside it (an item or a date); beside a
    tool taking the very same values the cue stays as it is."""
    from dataclasses import replace

    from core.chisel.differ import Finding
    from core.chisel.engines.synth import Synth
    from core.chisel.memory import DomainMemory
    from core.docs import DocSet, Param, ToolDoc

    ctx = _shop_ctx(warehouse)
    tasks = [t for t in ctx.opt_task_ids if t.startswith("order-")][:3]
    confused = [Finding("wrong_tool", "called quote", other_tool="shop.quote")]

    def with_tools(*specs: tuple[str, tuple[str, ...]]) -> str:
        more = [
            ToolDoc(tool=t, name=t, description=t, parameters=tuple(Param(name=n, description=n) for n in ps))
            for t, ps in specs
        ]
        wider = replace(ctx, docset=DocSet([*ctx.docset.values(), *more]))
        return Synth(wider, confused, DomainMemory("shop"), tasks)("Add", "UG")

    assert with_tools(("shop.bulk", ("qty", "warehouse_code"))).startswith(
        "Use this tool for requests that give qty and no warehouse_code."
    )
    assert with_tools(("shop.restock", ("qty",))).startswith(
        "Use this tool for requests that give qty together with item or date."
    )
    both = with_tools(("shop.bulk", ("qty", "warehouse_code")), ("shop.restock", ("qty",)))
    assert both.startswith(
        "Use this tool for requests that give qty together with item or date and no warehouse_code."
    )
    # a tool taking the very same values: nothing sets the two apart by parameter, and the cue stays
    same = with_tools(("shop.twin", ("item", "qty", "date")))
    assert same == "Use this tool for requests that give qty.", same
    # a parameter whose name holds the cued one's words takes its value; one that does not (item_code), not
    assert with_tools(("shop.pack", ("box_qty_limit",))).startswith(
        "Use this tool for requests that give qty and no box_qty_limit."
    )
    assert with_tools(("shop.scan", ("item_code",))).startswith("Use this tool for requests that give qty.")


def test_cued_parameters_are_joined_by_and_since_every_failed_request_states_each() -> None:
    from core.chisel.engines.values import and_list

    assert [and_list(["a"]), and_list(["a", "b"]), and_list(["a", "b", "c"])] == [
        "a",
        "a and b",
        "a, b and c",
    ]


def test_the_description_does_not_name_the_tool_it_was_confused_with(warehouse) -> None:
    """ "Use this tool, not X" in the description draws requests to X, as it did in the guidance, and
    "It is not for what X does" in a misused tool's description sent its own requests to X."""
    from core.chisel.differ import Finding
    from core.chisel.engines.synth import Synth
    from core.chisel.memory import DomainMemory

    ctx = _shop_ctx(warehouse)
    tasks = [t for t in ctx.opt_task_ids if t.startswith("order-")][:3]
    confused = [Finding("wrong_tool", "called quote", other_tool="shop.quote")]
    assert Synth(ctx, confused, DomainMemory("shop"), tasks)("Refine", "FD") is None
    # nor does it say "call it whenever the user's request needs this": read for every request, it drew
    # other tools' requests to the tool whose description said it
    missing = [*confused, Finding("missing_call", "no call")]
    assert Synth(ctx, missing, DomainMemory("shop"), tasks)("Refine", "FD") is None
    # nor, called in another tool's place, "It is not for what X does": it sent its own requests to X
    misused = [*missing, Finding("misused", "called for quote", other_tool="shop.quote")]
    assert Synth(ctx, misused, DomainMemory("shop"), tasks)("Refine", "FD") is None


def test_a_date_the_request_writes_in_words_is_the_users_data_not_an_implied_value() -> None:
    """ "change it to October 12th" states 2023-10-12: the doc owes its format, never the value."""
    from core.chisel.engines.examples import stated_in
    from core.chisel.engines.values import implied_value

    assert stated_in("2023-10-12", "I want to change it to October 12th with Dr. Lee.")
    assert stated_in("2023-10-12", "on Oct. 12") and stated_in("2023-10-12", "the 12th of October")
    assert stated_in("2023-10-12", "on 10/12") and stated_in("Dr. Lee", "with dr. lee")
    assert not stated_in("2023-11-29", "Plot visits since November 21.") and not stated_in(12, "item 7")
    words = [(f"Move my appointment {i} to October 15th.", "2023-10-15") for i in range(5)]
    assert implied_value(words) is None
    since = [(f"Plot visits since November {d}.", "2023-11-29") for d in (2, 5, 9, 17)]
    assert implied_value(since) == "2023-11-29"  # a convention no request states is still one


def test_recurring_values_the_requests_state_are_not_listed_as_the_allowed_ones(warehouse) -> None:
    """API-Bank books the same three doctors again and again; other doctors are still allowed."""
    from core.benchmarks.base import Call
    from core.chisel.engines.synth import Synth
    from core.chisel.memory import DomainMemory

    ctx = _shop_ctx(warehouse)
    doctors = ["Dr. Lee", "Dr. Brown", "Dr. Lee", "Dr. Brown", "Dr. Smith", "Dr. Smith"]
    tids = ctx.opt_task_ids[: len(doctors)]
    synth = Synth(ctx, [], DomainMemory("shop"))
    synth._gold = [(t, Call("shop.order", {"item": d})) for t, d in zip(tids, doctors, strict=True)]
    synth._requested = lambda: {"item": [(f"Book me with {d}.", d) for d in doctors]}
    assert "One of" not in ((synth("Refine", "IPD") or {}).get("item") or "")
    synth._requested = lambda: {"item": [("Book me with the usual one.", d) for d in doctors]}
    assert 'One of: "Dr. Brown", "Dr. Lee", "Dr. Smith".' in synth("Refine", "IPD")["item"]


def test_a_record_id_recurring_across_tasks_is_not_listed_as_an_allowed_value(warehouse) -> None:
    """The same two store ids in every task are two records, not the argument's allowed values."""
    from core.benchmarks.base import Call
    from core.chisel.engines.synth import Synth
    from core.chisel.memory import DomainMemory
    from core.docs import Param

    def ipd(name: str) -> str:
        base = _shop_ctx(warehouse).original
        doc = base.model_copy(
            update={"parameters": [*base.parameters, Param(name=name, description="The store.")]}
        )
        ctx = _shop_ctx(warehouse, doc)
        stores = ["S01", "S02", "S01", "S02", "S01", "S02"]
        tids = ctx.opt_task_ids[: len(stores)]
        synth = Synth(ctx, [], DomainMemory("shop"))
        synth._gold = [(t, Call("shop.order", {name: s})) for t, s in zip(tids, stores, strict=True)]
        synth._requested = lambda: {name: [("Order it from the usual store.", s) for s in stores]}
        return (synth("Refine", "IPD") or {}).get(name) or ""

    assert 'One of: "S01", "S02".' in ipd("store")  # an enumeration-like argument: its values are listed
    assert "One of" not in ipd("store_id") and "S01" not in ipd("store_id")


def test_a_refinement_that_only_restates_the_original_leaves_room_for_one_that_acts(warehouse) -> None:
    """The format is already stated: "Refine IPD" would add a period; the tool's rejection message acts."""
    from core.chisel.engines.evidence import EvidenceEngine, says_the_same
    from core.chisel.memory import DomainMemory

    assert says_the_same("Day. Format: %Y-%m-%d.", "Day.  Format: %Y-%m-%d")
    assert says_the_same(
        {"date": "Day. Format: YYYY-MM-DD."}, {"date": "Day. Format: YYYY-MM-DD", "qty": "n"}
    )
    assert not says_the_same(
        {"date": "Day. Format: YYYY-MM-DD.", "qty": "n."}, {"date": "Day. Format: YYYY-MM-DD"}
    )
    assert not says_the_same("Day. Format: YYYY-MM-DD.", "Day.")

    bench = ShopBench(n=24, quote_tasks=0)
    original = bench.original_docs()["shop.order"]
    gold = [Call("shop.order", {"item": "item2", "qty": 3, "date": "2024-02-03"})]
    error = "time data '2024/02/03' does not match format '%Y-%m-%d'"
    trace = _trace(
        [{"tool": "shop.order", "args": {"item": "item2", "qty": 3, "date": "2024/02/03"}, "error": error}]
    )
    engine, memory = EvidenceEngine(), DomainMemory("shop")

    def merged_ops(doc):
        ctx = _shop_ctx(warehouse, doc=doc)
        days = {t: f"2024-02-{i % 28 + 1:02d}" for i, t in enumerate(sorted(ctx.opt_task_ids))}
        ctx.gt.calls = lambda task_id, purpose: (  # type: ignore[method-assign]
            gold
            if task_id == "t"
            else [Call("shop.order", {"item": "item2", "qty": 3, "date": days.get(task_id)})]
        )
        d = engine.diagnose(ctx, trace, memory)
        plan = engine.merge(ctx, [engine.plan(ctx, d, memory)], [d], memory)
        return [o.key() for o in plan.operations], plan.notes

    # the original does not state the format: stating it is the first fix
    ops, _ = merged_ops(original)
    assert ("Refine", "IPD") in ops
    # it already does (the synthesiser's text differs by a final period only): the Refine is dropped, and
    # a typed parameter or the rejection message takes its place in the plan
    params = [
        p.model_copy(update={"description": "Delivery day. Format: YYYY-MM-DD"}) if p.name == "date" else p
        for p in original.parameters
    ]
    stated = original.model_copy(update={"parameters": tuple(params)})
    stated_ops, notes = merged_ops(stated)
    assert ("Refine", "IPD") not in stated_ops, (stated_ops, notes)
    assert {("Refine", "IPT"), ("Add", "IC")} & set(stated_ops), "an operation that acts takes the slot"
    assert any("Refine IPD: the evidence says what the original already says" in n for n in notes)
