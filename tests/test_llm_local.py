"""The real offline models through litellm and the gateway (marker `local_model`).

Every installed local model is exercised (SmolLM2 always; the Qwen models when
their part packages are installed): well-formed tool calls, determinism, JSON
mode, and prefix reuse giving byte-identical replies to a cold context.
"""

from __future__ import annotations

import json

import pytest

from core.llm import complete, weights

try:
    from core.llm.local import LocalModelUnavailable, ensure_available

    ensure_available("smollm2-135m")
    MISSING = ""
except LocalModelUnavailable as exc:  # pragma: no cover - depends on the environment
    MISSING = str(exc)

pytestmark = [
    pytest.mark.local_model,
    pytest.mark.slow,
    pytest.mark.skipif(bool(MISSING), reason=MISSING or "available"),
]


def _function_tool(name: str, description: str, properties: dict) -> dict:
    """An OpenAI function tool whose properties are all required."""
    return {
        "type": "function",
        "function": {
            "name": name,
            "description": description,
            "parameters": {"type": "object", "properties": properties, "required": list(properties)},
        },
    }


# the 1.5B model takes 10-30 s a call: it runs the cheapest checks only
INSTALLED = [f"local/{m.name}" for m in weights.MODELS.values() if weights.installed(m)]
FAST = [m for m in INSTALLED if "1.5b" not in m]
TOOLS = [
    _function_tool(
        "get_weather",
        "Get the current weather for a city.",
        {"city": {"type": "string", "description": "Name of the city"}},
    ),
    _function_tool(
        "send_email",
        "Send an email to a recipient.",
        {
            "recipient": {"type": "string", "description": "Email address"},
            "subject": {"type": "string"},
            "body": {"type": "string"},
        },
    ),
    _function_tool(
        "convert_currency",
        "Convert money between currencies.",
        {
            "amount": {"type": "number"},
            "from_currency": {"type": "string"},
            "to_currency": {"type": "string"},
        },
    ),
]
SCHEMAS = {t["function"]["name"]: t["function"]["parameters"] for t in TOOLS}


@pytest.mark.parametrize("model", FAST)
@pytest.mark.parametrize(
    "query",
    [
        "What's the weather like in Paris?",
        "Email bob@example.com with subject Lunch and say see you at noon.",
        "Convert 100 USD to EUR.",
    ],
)
def test_single_step_requests_give_well_formed_tool_calls(model, query):
    result = complete(
        model, [{"role": "user", "content": query}], tools=TOOLS, tool_choice="required", cache=False
    )
    assert len(result.tool_calls) == 1
    call = result.tool_calls[0]
    assert call.parse_error is None and call.name in SCHEMAS
    schema = SCHEMAS[call.name]
    assert set(schema["required"]) <= set(call.arguments) <= set(schema["properties"])
    assert json.loads(call.raw) == call.arguments
    assert result.tokens_in > 0 and result.tokens_out > 0 and result.cost == 0.0


@pytest.mark.parametrize("model", INSTALLED)
def test_replies_are_deterministic_and_json_mode_gives_valid_json(model):
    messages = [{"role": "user", "content": "Is it raining in Tokyo?"}]
    a = complete(model, messages, tools=TOOLS, cache=False)
    b = complete(model, messages, tools=TOOLS, cache=False)
    assert (a.content, [c.raw for c in a.tool_calls]) == (b.content, [c.raw for c in b.tool_calls])
    schema = {
        "type": "object",
        "properties": {"field": {"enum": ["TN", "FD", "IPD"]}, "reason": {"type": "string"}},
        "required": ["field", "reason"],
    }
    r = complete(
        model,
        [{"role": "user", "content": "Which doc field explains a parameter? Answer in JSON."}],
        response_format={"type": "json_schema", "json_schema": {"name": "pick", "schema": schema}},
        max_tokens=120,
        cache=False,
    )
    data = json.loads(r.content)
    assert data["field"] in {"TN", "FD", "IPD"} and isinstance(data["reason"], str)


CONVERSATION = [
    {"role": "system", "content": "You are a careful assistant. Use the tools."},
    {"role": "user", "content": "What's the weather in Oslo? Then email it to ann@corp.com."},
    {
        "role": "assistant",
        "content": None,
        "tool_calls": [
            {
                "id": "c1",
                "type": "function",
                "function": {"name": "get_weather", "arguments": '{"city": "Oslo"}'},
            }
        ],
    },
    {"role": "tool", "tool_call_id": "c1", "content": "Light rain, 7 C"},
]


@pytest.mark.parametrize("model", FAST)
def test_prefix_reuse_gives_the_same_replies_as_a_cold_context(model, monkeypatch):
    """Greedy replies with restored states equal replies computed from an empty context."""
    from core.llm.local import runtime

    requests = [
        CONVERSATION[:2],
        CONVERSATION,
        [CONVERSATION[0], {"role": "user", "content": "Convert 5 EUR to USD."}],
    ]
    monkeypatch.setenv("DOCSCHISEL_LOCAL_FRESH_CONTEXT", "1")
    cold = [complete(model, r, tools=TOOLS, cache=False) for r in requests]
    monkeypatch.delenv("DOCSCHISEL_LOCAL_FRESH_CONTEXT")
    rt = runtime(model)
    rt.states.clear()
    before = rt.states.stats.tokens_saved
    # interleaved, as concurrent episodes are: each request after another one's
    warm = [complete(model, r, tools=TOOLS, cache=False) for r in (*requests, *requests)]
    for i, r in enumerate(warm):
        c = cold[i % len(requests)]
        assert (r.content, [t.raw for t in r.tool_calls]) == (c.content, [t.raw for t in c.tool_calls]), i
    assert rt.states.stats.tokens_saved > before, "the repeated requests restored kept states"


@pytest.mark.parametrize("model", FAST)
def test_a_date_format_in_the_schema_holds_the_model_to_it(model):
    """Prose says "10 AM on March 5th"; the schema's format makes the reply `2023-03-05 10:00:00`-shaped."""
    import re

    tool = _function_tool(
        "record_blood_pressure",
        "Record a blood pressure reading.",
        {"time": {"type": "string", "format": "%Y-%m-%d %H:%M:%S"}, "value": {"type": "string"}},
    )
    query = "Record my blood pressure of 120/80 taken at 10 AM on March 5th 2023."
    result = complete(
        model, [{"role": "user", "content": query}], tools=[tool], tool_choice="required", cache=False
    )
    (call,) = result.tool_calls
    assert re.fullmatch(r"\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}", call.arguments["time"]), call.arguments


@pytest.mark.parametrize("model", FAST)
def test_jump_forward_decoding_samples_fewer_tokens_for_the_same_calls(model, monkeypatch):
    """The text the grammar forces is evaluated as one batch; the model still picks tool and values."""
    from core.llm.local import runtime

    rt = runtime(model)
    steps = []
    real_eval = rt.llm.eval
    monkeypatch.setattr(rt.llm, "eval", lambda tokens: (steps.append(len(tokens)), real_eval(tokens))[1])
    requests = [
        [{"role": "user", "content": "What's the weather in Paris?"}],
        [{"role": "user", "content": "Convert 5 EUR to USD."}],
    ]
    replies = {}
    for forcing in ("0", "1"):
        monkeypatch.setenv("DOCSCHISEL_LOCAL_FORCING", forcing)
        steps.clear()
        replies[forcing] = [complete(model, r, tools=TOOLS, cache=False) for r in requests]
        replies[forcing + "-single-token-steps"] = sum(1 for n in steps if n == 1)
    for unforced, forced in zip(replies["0"], replies["1"], strict=True):
        assert [t.name for t in forced.tool_calls] == [t.name for t in unforced.tool_calls]
        assert forced.tool_calls and set(forced.tool_calls[0].arguments) == set(
            SCHEMAS[forced.tool_calls[0].name]["properties"]
        )
    assert replies["1-single-token-steps"] < 0.75 * replies["0-single-token-steps"], replies
