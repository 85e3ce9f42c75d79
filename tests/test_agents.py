"""Agents through the real gateway path with a scripted model: traces, failures, both paradigms."""

from __future__ import annotations

import pytest

from core.agents import AgentConfig, make_agent
from core.llm import script, tool_call
from core.runner import RunPlan, run
from tests.toybench import ToyBench


def _run(warehouse, model: str, paradigm: str = "react", doc_mode: str = "native", n: int = 1):
    bench = ToyBench(n=n)
    cfg = AgentConfig(paradigm=paradigm, doc_mode=doc_mode, model=model, max_steps=4)
    return run(warehouse, RunPlan(bench, bench.original_docs(), cfg, bench.tasks(), repeats=1), concurrency=1)


def test_native_react_calls_tool_then_answers(warehouse) -> None:
    m = script([tool_call("math__add", x=0), "The total is 0."], name="native-ok")
    res = _run(warehouse, m.model)
    assert res.metrics.ts == 1.0
    ev = warehouse.query("SELECT kind, tool, output, text FROM events ORDER BY seq")
    assert list(ev["kind"]) == ["model_call", "tool_call", "model_call", "final_answer"]
    assert ev["output"][1] == "total=0"
    # the documentation reached the model as a native tool schema
    tools = m.requests[0]["params"].get("tools") or []
    assert tools and tools[0]["function"]["name"] == "math__add"


def test_native_react_bad_arguments_are_observations(warehouse) -> None:
    m = script([tool_call("math__add", y=3), tool_call("math__nothing"), "gave up"], name="native-bad")
    res = _run(warehouse, m.model)
    assert res.metrics.ts == 0.0
    ev = warehouse.query("SELECT kind, tool, error FROM events WHERE kind = 'tool_call' ORDER BY seq")
    assert len(ev) >= 1


def test_step_limit_is_a_recorded_failure(warehouse) -> None:
    m = script(lambda messages: tool_call("math__add", x=0), name="native-loop")
    _run(warehouse, m.model)
    row = warehouse.query("SELECT success, error_class FROM episodes").iloc[0]
    assert row["error_class"] == "step_limit" and not row["success"]


def test_text_react_parses_json_and_text_steps(warehouse) -> None:
    m = script(
        [
            '{"thought": "add it", "action": "math.add", "action_input": {"x": 0}}',
            "Thought: done\nAction: Final Answer\nAction Input: total is 0",
        ],
        name="text-ok",
    )
    res = _run(warehouse, m.model, doc_mode="text")
    assert res.metrics.ts == 1.0
    system = m.requests[0]["messages"][0]["content"]
    assert "math.add" in system and "Add x to the total." in system


def test_text_react_garbage_is_parse_error(warehouse) -> None:
    m = script(["I like turtles"], name="text-bad")
    _run(warehouse, m.model, doc_mode="text")
    assert warehouse.scalar("SELECT error_class FROM episodes") == "parse_error"


@pytest.mark.parametrize("doc_mode", ["native", "text"])
def test_planner_executor_records_both_agents(warehouse, doc_mode: str) -> None:
    step = (
        tool_call("math__add", x=0)
        if doc_mode == "native"
        else '{"thought": "t", "action": "math.add", "action_input": {"x": 0}}'
    )
    final = (
        "added"
        if doc_mode == "native"
        else '{"thought": "t", "action": "Final Answer", "action_input": {"answer": "added"}}'
    )
    m = script(['{"steps": ["add zero"]}', step, final], name=f"multi-{doc_mode}")
    res = _run(warehouse, m.model, paradigm="multi", doc_mode=doc_mode)
    assert res.metrics.ts == 1.0
    agents = warehouse.query("SELECT text FROM events WHERE kind = 'model_call' ORDER BY seq")[
        "text"
    ].tolist()
    assert agents[0] == "planner" and set(agents[1:]) == {"executor"}


def test_make_agent_dispatch() -> None:
    from core.agents.multi import PlannerExecutorAgent
    from core.agents.react_native import NativeReactAgent
    from core.agents.react_text import TextReactAgent

    assert isinstance(make_agent(AgentConfig()), NativeReactAgent)
    assert isinstance(make_agent(AgentConfig(doc_mode="text")), TextReactAgent)
    assert isinstance(make_agent(AgentConfig(paradigm="multi")), PlannerExecutorAgent)
    with pytest.raises(ValueError):
        AgentConfig(paradigm="swarm")


def test_a_local_models_runtime_is_part_of_the_configuration_identity(monkeypatch) -> None:
    """A changed grammar (or weights, or llama.cpp build) makes new episodes instead of reusing old ones."""
    from core.agents.base import AgentConfig
    from core.llm import local
    from core.warehouse.records import content_hash

    hosted = AgentConfig(model="openai/gpt-4o")
    assert "runtime" not in hosted.identity()
    assert hosted.config_id == content_hash("agent_config", hosted.to_json())  # hosted ids are unchanged
    config = AgentConfig(model="local/qwen2.5-coder-0.5b")
    before = config.config_id
    # the CPU kernels are not part of the identity
    assert config.identity()["runtime"] == local.cache_salt(config.model, kernels=False)
    monkeypatch.setattr(local, "GRAMMAR_VERSION", "g-test")
    assert AgentConfig(model="local/qwen2.5-coder-0.5b").config_id != before


def test_a_local_models_compute_time_does_not_count_against_the_time_limit() -> None:
    from core.agents.base import EpisodeContext

    bench = ToyBench(n=1)
    task = bench.tasks()[0]

    def context(model: str) -> EpisodeContext:
        ctx = EpisodeContext(
            task=task,
            benchmark=bench,
            docs=list(bench.original_docs().values()),
            sandbox=bench.new_sandbox(task),
            system_prompt="",
            config=AgentConfig(model=model, time_limit_s=10.0),
        )
        ctx.recorder.add("model_call", latency_s=25.0)  # a slow call on a busy machine
        ctx.recorder.add("tool_call", tool="math__add", latency_s=4.0)
        return ctx

    local, hosted = context("local/qwen2.5-coder-0.5b"), context("openai/gpt-4o-mini")
    assert local.deadline - local.started == pytest.approx(35.0)
    local.check_time()  # 25 s of model time on top of a 10 s limit is not a timeout
    # a hosted provider's time is the environment's: it counts, as tools always do
    assert hosted.deadline - hosted.started == pytest.approx(10.0)
