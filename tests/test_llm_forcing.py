"""Jump-forward decoding's forced text (core.llm.forcing) never contradicts a reply the grammar allows."""

from __future__ import annotations

import json

import pytest

from core.llm.forcing import CallForcer

TOOLS = [
    {
        "type": "function",
        "function": {
            "name": "QueryHistoryToday",
            "parameters": {
                "type": "object",
                "properties": {
                    "user_name": {"type": "string"},
                    "date": {"type": "string", "format": "%Y-%m-%d"},
                    "limit": {"type": "integer"},
                },
                "required": ["user_name", "date"],
            },
        },
    },
    {
        "type": "function",
        "function": {
            "name": "QueryStock",
            "parameters": {
                "type": "object",
                "properties": {"stock_code": {"type": "string"}, "note": {"type": "string"}},
                "required": ["stock_code"],
            },
        },
    },
    {
        "type": "function",
        "function": {
            "name": "RecordHealthData",
            "parameters": {
                "type": "object",
                "properties": {
                    "health_data": {"type": "array", "items": {"type": "object"}},
                    "level": {"enum": ["low", "high"]},
                    "code": {"anyOf": [{"type": "string"}, {"type": "null"}]},
                },
                "required": ["health_data", "level", "code"],
            },
        },
    },
    {
        "type": "function",
        "function": {
            "name": "Calc",
            "parameters": {
                "type": "object",
                "properties": {"a": {"type": "number"}, "b": {"type": "number"}},
            },
        },
    },
    {"type": "function", "function": {"name": "Noop", "parameters": {}}},
]

CALLS = [
    ("QueryHistoryToday", {"user_name": 'Jo "J" \\ Smith', "date": "2023-03-01"}),
    ("QueryHistoryToday", {"user_name": "Jo", "date": "2023-03-01", "limit": 10}),
    ("QueryStock", {"stock_code": "AAPL"}),
    ("QueryStock", {"stock_code": "AAPL", "note": "x"}),
    (
        "RecordHealthData",
        {
            "health_data": [{"name": "bp", "value": "120/80"}, {"name": "}", "value": 1}],
            "level": "low",
            "code": None,
        },
    ),
    ("Calc", {}),
    ("Calc", {"a": 1.5}),
    ("Calc", {"b": -2}),
    ("Calc", {"a": 1, "b": 2}),
    ("Noop", {}),
]


def _reply(style: str, name: str, args: dict) -> str:
    call = json.dumps({"name" if style == "qwen" else "tool": name, "arguments": args})
    return f"<tool_call>\n{call}\n</tool_call>" if style == "qwen" else call


def _walk(forcer: CallForcer, reply: str) -> tuple[int, bool]:
    """Write `reply` one character at a time, taking every forced run; (characters forced, ended done)."""
    i = forced = 0
    while i < len(reply):
        f = forcer(reply[:i])
        assert reply[i:].startswith(f.text), (reply[:i], f)
        if f.done:
            assert i + len(f.text) == len(reply), (reply[:i], f)
            return forced + len(f.text), True
        if f.text:
            i += len(f.text)
            forced += len(f.text)
        else:
            i += 1
    return forced, forcer(reply).done


@pytest.mark.parametrize("style", ["qwen", "json"])
@pytest.mark.parametrize(("name", "args"), CALLS)
def test_forced_text_is_always_what_the_reply_goes_on_with(style, name, args):
    reply = _reply(style, name, args)
    forced, done = _walk(CallForcer(TOOLS, "auto", style), reply)
    assert done, "a complete call ends the generation"
    assert forced >= len(reply) // 4, "the structure of a call is forced, not sampled"


@pytest.mark.parametrize("style", ["qwen", "json"])
def test_a_final_answer_is_forced_up_to_its_text_and_closed(style):
    forcer = CallForcer(TOOLS, "auto", style)
    reply = json.dumps({"final_answer": 'It is "fine", thanks.'})
    forced, done = _walk(forcer, reply)
    assert done
    assert forcer('{"final_answer": "ok').text == ""  # the model writes the answer itself


def test_nothing_is_forced_where_the_model_chooses():
    auto = CallForcer(TOOLS, "auto", "qwen")
    assert auto("").text == ""  # a call or an answer
    assert auto('<tool_call>\n{"name": "Query').text == ""  # two tools start this way
    assert auto('<tool_call>\n{"name": "QueryS').text == 'tock", "arguments": {"stock_code":'
    # after the required argument: the optional one or the end
    assert auto('<tool_call>\n{"name": "QueryStock", "arguments": {"stock_code": "A"').text == ""
    # a number may still grow
    assert auto('<tool_call>\n{"name": "Calc", "arguments": {"a": 1').text == ""
    # after a comma only the one optional key left is possible
    assert auto('<tool_call>\n{"name": "Calc", "arguments": {"a": 1,').text == ' "b":'
    # the enum's and the nullable value's first characters are the model's
    text = '<tool_call>\n{"name": "RecordHealthData", "arguments": {"health_data": [], "level": "low"'
    assert auto(text).text == ', "code":'


def test_tool_choice_forces_the_head_or_the_whole_name():
    assert CallForcer(TOOLS, "required", "qwen")("").text == '<tool_call>\n{"name":'
    only = CallForcer(TOOLS, {"type": "function", "function": {"name": "QueryStock"}}, "qwen")
    assert only("").text == '<tool_call>\n{"name": "QueryStock", "arguments": {"stock_code":'
    assert CallForcer(TOOLS, "none", "qwen")("").text == '{"final_answer":'
    assert CallForcer(TOOLS, "required", "json")("").text == '{"tool":'


def test_forced_text_ends_where_a_token_of_the_model_would_start():
    """Never a trailing space or opening quote (a token boundary the model never saw), never half a name."""
    forcer = CallForcer(TOOLS, "auto", "qwen")
    for text in ["<", '<tool_call>\n{"name": "QueryS', '<tool_call>\n{"name": "Calc", "arguments": {"a": 1,']:
        forced = forcer(text).text
        assert forced and not forced.endswith((" ", '"')), (text, forced)
    assert forcer('<tool_call>\n{"name": "Q').text == ""  # QueryHistoryToday or QueryStock


def test_text_off_the_structure_forces_nothing():
    forcer = CallForcer(TOOLS, "auto", "qwen")
    assert forcer("Sure! ") == forcer("Sure! ").__class__("", False)
    assert forcer('<tool_call>\n{"name": "Nope').text == ""
    # the grammar's optional spaces are followed either way
    assert forcer('<tool_call>\n{"name":"QueryS').text == 'tock", "arguments": {"stock_code":'
    assert forcer('<tool_call>\n{ "name" : "QueryS').text == 'tock", "arguments": {"stock_code":'
