"""The real offline SmolLM2 through litellm and the gateway (marker `local_model`)."""

from __future__ import annotations

import json

import pytest

from core.llm import complete

try:
    from core.llm.local import LocalModelUnavailable, ensure_available

    ensure_available()
    MISSING = ""
except LocalModelUnavailable as exc:  # pragma: no cover - depends on the environment
    MISSING = str(exc)

pytestmark = [pytest.mark.local_model, pytest.mark.skipif(bool(MISSING), reason=MISSING or "available")]

MODEL = "local/smollm2-135m"
TOOLS = [
    {
        "type": "function",
        "function": {
            "name": "get_weather",
            "description": "Get the current weather for a city.",
            "parameters": {
                "type": "object",
                "properties": {"city": {"type": "string", "description": "Name of the city"}},
                "required": ["city"],
            },
        },
    },
    {
        "type": "function",
        "function": {
            "name": "send_email",
            "description": "Send an email to a recipient.",
            "parameters": {
                "type": "object",
                "properties": {
                    "recipient": {"type": "string", "description": "Email address"},
                    "subject": {"type": "string"},
                    "body": {"type": "string"},
                },
                "required": ["recipient", "subject", "body"],
            },
        },
    },
    {
        "type": "function",
        "function": {
            "name": "convert_currency",
            "description": "Convert money between currencies.",
            "parameters": {
                "type": "object",
                "properties": {
                    "amount": {"type": "number"},
                    "from_currency": {"type": "string"},
                    "to_currency": {"type": "string"},
                },
                "required": ["amount", "from_currency", "to_currency"],
            },
        },
    },
]
SCHEMAS = {t["function"]["name"]: t["function"]["parameters"] for t in TOOLS}


@pytest.mark.parametrize(
    "query",
    [
        "What's the weather like in Paris?",
        "Email bob@example.com with subject Lunch and say see you at noon.",
        "Convert 100 USD to EUR.",
    ],
)
def test_single_step_requests_give_well_formed_tool_calls(query):
    result = complete(
        MODEL, [{"role": "user", "content": query}], tools=TOOLS, tool_choice="required", cache=False
    )
    assert len(result.tool_calls) == 1
    call = result.tool_calls[0]
    assert call.parse_error is None and call.name in SCHEMAS
    schema = SCHEMAS[call.name]
    assert set(schema["required"]) <= set(call.arguments) <= set(schema["properties"])
    assert json.loads(call.raw) == call.arguments
    assert result.tokens_in > 0 and result.tokens_out > 0 and result.cost == 0.0


def test_replies_are_deterministic_and_json_mode_gives_valid_json():
    messages = [{"role": "user", "content": "Is it raining in Tokyo?"}]
    a = complete(MODEL, messages, tools=TOOLS, cache=False)
    b = complete(MODEL, messages, tools=TOOLS, cache=False)
    assert (a.content, [c.raw for c in a.tool_calls]) == (b.content, [c.raw for c in b.tool_calls])
    schema = {
        "type": "object",
        "properties": {"field": {"enum": ["TN", "FD", "IPD"]}, "reason": {"type": "string"}},
        "required": ["field", "reason"],
    }
    r = complete(
        MODEL,
        [{"role": "user", "content": "Which doc field explains a parameter? Answer in JSON."}],
        response_format={"type": "json_schema", "json_schema": {"name": "pick", "schema": schema}},
        max_tokens=120,
        cache=False,
    )
    data = json.loads(r.content)
    assert data["field"] in {"TN", "FD", "IPD"} and isinstance(data["reason"], str)
