"""The scripted provider: replies in order or from a function, text or tool calls, via plain litellm too."""

from __future__ import annotations

import litellm
import pytest

from core.llm import complete, register_providers, script, tool_call

TOOLS = [
    {"type": "function", "function": {"name": n, "parameters": {"type": "object", "properties": {}}}}
    for n in ("search", "send")
]


def test_replies_in_order_text_and_tool_calls():
    model = script(
        [
            tool_call("search", query="flights to Rome"),
            {
                "content": "two calls",
                "tool_calls": [tool_call("search", query="a"), tool_call("send", to="b")],
            },
            "All done.",
        ]
    )
    history = [{"role": "user", "content": "book"}]
    first = complete(model.model, history, tools=TOOLS, cache=False)
    assert first.content is None and first.finish_reason == "tool_calls"
    assert (first.tool_calls[0].name, first.tool_calls[0].arguments) == (
        "search",
        {"query": "flights to Rome"},
    )
    history += [first.message, {"role": "tool", "tool_call_id": first.tool_calls[0].id, "content": "[]"}]
    second = complete(model.model, history, tools=TOOLS, cache=False)
    assert second.content == "two calls" and [c.name for c in second.tool_calls] == ["search", "send"]
    third = complete(model.model, history + [second.message], tools=TOOLS, cache=False)
    assert third.content == "All done." and third.tool_calls == []
    assert model.calls == 3
    assert model.requests[0]["params"]["tools"] == TOOLS


def test_function_scripts_see_messages_and_params():
    def reply(messages, params):
        return f"{len(messages)} messages, {len(params.get('tools') or [])} tools"

    model = script(reply)
    assert (
        complete(model.model, [{"role": "user", "content": "x"}], tools=TOOLS).content
        == "1 messages, 2 tools"
    )


def test_exhausted_script_is_a_bad_request():
    model = script(["only one"])
    complete(model.model, [{"role": "user", "content": "1"}], cache=False)
    with pytest.raises(litellm.BadRequestError, match="has 1 replies"):
        complete(model.model, [{"role": "user", "content": "2"}], cache=False)


def test_plain_litellm_completion_reaches_the_script():
    register_providers()
    model = script([tool_call("send", to="ann@example.com")], name="plain")
    resp = litellm.completion(
        model=model.model, messages=[{"role": "user", "content": "mail ann"}], tools=TOOLS
    )
    call = resp.choices[0].message.tool_calls[0]
    assert call.function.name == "send" and '"ann@example.com"' in call.function.arguments


def test_malformed_arguments_are_data_not_exceptions():
    model = script([{"tool_calls": [{"name": "send", "arguments": "{not json"}]}])
    result = complete(model.model, [{"role": "user", "content": "x"}], tools=TOOLS)
    assert result.tool_calls[0].arguments == {} and "invalid JSON" in result.tool_calls[0].parse_error


def test_langchain_chat_model_goes_through_the_gateway():
    from langchain_core.messages import HumanMessage, ToolMessage
    from langchain_core.tools import tool

    from core.llm import current
    from core.llm.langchain import GatewayChatModel

    @tool
    def get_weather(city: str) -> str:
        """Weather of a city."""
        return "sunny"

    model = script([tool_call("get_weather", city="Paris"), "It is sunny in Paris."])
    llm = GatewayChatModel(model=model.model, purpose="lc-test", run_id="lc-run").bind_tools([get_weather])
    first = llm.invoke([HumanMessage("weather in Paris?")])
    assert first.tool_calls[0]["name"] == "get_weather" and first.tool_calls[0]["args"] == {"city": "Paris"}
    tool_msg = ToolMessage("sunny", tool_call_id=first.tool_calls[0]["id"])
    second = llm.invoke([HumanMessage("weather in Paris?"), first, tool_msg])
    assert second.content == "It is sunny in Paris."
    assert model.requests[1]["messages"][-1]["role"] == "tool"
    assert model.requests[0]["params"]["tools"][0]["function"]["name"] == "get_weather"
    assert current().ledger.totals(run_id="lc-run", purpose="lc-test")["calls"] == 2
