"""Grammars from tool schemas: which branches exist, caps, schema coverage; compiled by llama.cpp when present."""

from __future__ import annotations

import importlib.util

import pytest

from core.llm.grammar import json_schema_grammar, tool_call_grammar
from core.llm.local_prompt import chat_messages, render_tools

TOOLS = [
    {
        "type": "function",
        "function": {
            "name": "search_emails",
            "description": "Search emails.",
            "parameters": {
                "type": "object",
                "properties": {
                    "query": {"type": "string", "description": "Words to look for"},
                    "limit": {"type": "integer", "default": 5},
                    "folder": {"type": "string", "enum": ["inbox", "sent"]},
                    "tags": {"type": "array", "items": {"type": "string"}},
                    "flagged": {"type": ["boolean", "null"]},
                },
                "required": ["query"],
            },
        },
    },
    {
        "type": "function",
        "function": {"name": "list_folders", "parameters": {"type": "object", "properties": {}}},
    },
    {
        "type": "function",
        "function": {
            "name": "only_optional",
            "parameters": {"type": "object", "properties": {"a": {"type": "number"}, "b": {}}},
        },
    },
]


def test_auto_allows_each_tool_and_a_final_answer():
    g = tool_call_grammar(TOOLS)
    assert '"\\"search_emails\\""' in g and '"\\"list_folders\\""' in g
    assert "final_answer" in g
    assert "char{0,80}" in g
    assert '"\\"inbox\\"" | "\\"sent\\""' in g


def test_required_and_forced_remove_the_answer_branch_none_removes_tools():
    assert "final_answer" not in tool_call_grammar(TOOLS, "required")
    forced = tool_call_grammar(TOOLS, {"type": "function", "function": {"name": "list_folders"}})
    assert "final_answer" not in forced and "search_emails" not in forced
    assert "search_emails" not in tool_call_grammar(TOOLS, "none")


def test_json_schema_grammar_resolves_refs():
    schema = {
        "type": "object",
        "properties": {"ops": {"type": "array", "items": {"$ref": "#/$defs/Op"}}},
        "required": ["ops"],
        "$defs": {
            "Op": {"type": "object", "properties": {"op": {"enum": ["add", "remove"]}}, "required": ["op"]}
        },
    }
    g = json_schema_grammar(schema)
    assert '"\\"add\\""' in g


def test_tool_rendering_shows_documented_fields_and_rewrites_tool_turns():
    text = render_tools(TOOLS)
    assert "search_emails" in text and "Words to look for" in text and "default 5" in text
    assert 'one of "inbox", "sent"' in text and "query (string, required)" in text
    msgs = chat_messages(
        [
            {"role": "user", "content": "find the invoice"},
            {
                "role": "assistant",
                "content": None,
                "tool_calls": [
                    {
                        "id": "c1",
                        "type": "function",
                        "function": {"name": "search_emails", "arguments": '{"query": "invoice"}'},
                    }
                ],
            },
            {"role": "tool", "tool_call_id": "c1", "content": "[]"},
        ],
        TOOLS,
    )
    assert [m["role"] for m in msgs] == ["system", "user", "assistant", "user"]
    assert msgs[2]["content"] == '{"tool": "search_emails", "arguments": {"query": "invoice"}}'
    assert msgs[3]["content"] == "Result of search_emails: []"


@pytest.mark.skipif(importlib.util.find_spec("llama_cpp") is None, reason="llama-cpp-python not installed")
@pytest.mark.parametrize("choice", ["auto", "required", "none"])
def test_llama_cpp_accepts_the_grammars(choice):
    from llama_cpp import LlamaGrammar

    LlamaGrammar.from_string(tool_call_grammar(TOOLS, choice), verbose=False)
    LlamaGrammar.from_string(json_schema_grammar(None), verbose=False)
    LlamaGrammar.from_string(json_schema_grammar(TOOLS[0]["function"]["parameters"]), verbose=False)


def test_qwen_style_wraps_calls_in_tool_call_tags_and_keeps_a_json_answer():
    from core.llm.local_prompt import parse_native_reply

    g = tool_call_grammar(TOOLS, "auto", style="qwen")
    root = g.splitlines()[0]
    assert root == "root ::= call | final"
    assert '"<tool_call>\\n" "{" ws "\\"name\\""' in g and '"\\n</tool_call>"' in g
    assert '"\\"final_answer\\""' in g
    assert "final" not in tool_call_grammar(TOOLS, "required", style="qwen").splitlines()[0]
    reply = '<tool_call>\n{"name": "search_emails", "arguments": {"query": "x"}}\n</tool_call>'
    assert parse_native_reply(reply) == (None, [{"name": "search_emails", "arguments": {"query": "x"}}])
    assert parse_native_reply('{"final_answer": "done"}') == ("done", [])
    assert parse_native_reply('<tool_call>\n{"name": "search_em') == ('<tool_call>\n{"name": "search_em', [])
    with pytest.raises(ValueError, match="unknown tool-call style"):
        tool_call_grammar(TOOLS, style="xml")


def test_native_messages_keep_tool_turns_and_add_the_answer_format():
    from core.llm.local_prompt import NATIVE_ANSWER, native_messages

    msgs = native_messages(
        [
            {"role": "user", "content": "hi"},
            {
                "role": "assistant",
                "content": None,
                "tool_calls": [{"id": "1", "function": {"name": "list_folders", "arguments": '{"a": 1}'}}],
            },
            {"role": "tool", "tool_call_id": "1", "content": "inbox"},
        ]
    )
    assert msgs[0] == {"role": "system", "content": NATIVE_ANSWER}
    assert msgs[2]["tool_calls"][0]["function"] == {"name": "list_folders", "arguments": {"a": 1}}
    assert msgs[3] == {"role": "tool", "content": "inbox"}
    forced = native_messages([{"role": "user", "content": "hi"}], tool_choice="required")
    assert forced == [{"role": "user", "content": "hi"}]


def test_an_untyped_list_argument_may_hold_objects():
    """`[{"name": ..., "value": ...}]` for an array without `items`: free JSON nests below the value itself."""
    tool = {
        "type": "function",
        "function": {
            "name": "record",
            "parameters": {
                "type": "object",
                "properties": {"data": {"type": "array"}, "meta": {"type": "object"}},
            },
        },
    }
    rules = dict(
        line.split(" ::= ", 1) for line in tool_call_grammar([tool], "required").strip().splitlines()
    )
    array_rule = next(body for name, body in rules.items() if "data" in name and body.startswith('"["'))
    assert "json-0" in array_rule  # the items are free values from depth 0 ...
    assert "object-0" in rules["json-0"]  # ... which include objects
    assert "json-1" in rules["object-0"] and "object" not in rules["json-2"]  # bounded: scalars at the bottom


def test_a_date_time_format_in_the_schema_is_held_by_the_grammar():
    """`format` "%Y-%m-%d %H:%M:%S" (or "date", "date-time"): digits and separators, nothing else."""
    from llama_cpp import LlamaGrammar

    from core.llm.grammar import format_template

    assert format_template("%Y-%m-%d %H:%M:%S") == "YYYY-MM-DD HH:MM:SS"
    assert format_template("date") == "YYYY-MM-DD" and format_template("HH:MM") == "HH:MM"
    assert format_template("an email address") is None and format_template("MM/DD") is None
    tool = {
        "type": "function",
        "function": {
            "name": "query",
            "parameters": {
                "type": "object",
                "properties": {
                    "start": {"type": "string", "format": "YYYY-MM-DD HH:MM:SS"},
                    "email": {"type": "string", "format": "email"},
                },
                "required": ["start", "email"],
            },
        },
    }
    grammar = tool_call_grammar([tool], "required")
    rules = dict(line.split(" ::= ", 1) for line in grammar.strip().splitlines())
    assert rules["format-yyyy-mm-dd-hh-mm-ss"] == (
        '"\\"" [0-9]{4} "-" [0-9]{2} "-" [0-9]{2} " " [0-9]{2} ":" [0-9]{2} ":" [0-9]{2} "\\""'
    )
    assert "format-yyyy-mm-dd-hh-mm-ss" in rules["args-0"] and "string-80" in rules["args-0"]
    LlamaGrammar.from_string(grammar, verbose=False)


def test_text_mode_arguments_may_be_lists_of_records():
    """Text-mode ReAct's action_input lists no properties; each argument is an untyped value nested
    below itself, so `{"health_data": [{"name": ..., "value": ...}]}` can be written (under g9 a list
    inside it held scalars only, and the agent wrote [120, 80] for two named readings)."""
    from core.agents.react_text import step_schema
    from core.agents.tooling import Binding

    binding = Binding("RecordHealthData", "RecordHealthData", "RecordHealthData", {}, "")
    schema = step_schema([binding])["json_schema"]["schema"]
    rules = dict(line.split(" ::= ", 1) for line in json_schema_grammar(schema).strip().splitlines())
    args = next(body for name, body in rules.items() if "action-input" in name)
    assert "json-0" in args  # each argument is a free value from depth 0 ...
    arrays = rules["json-0"].split(" | ")[-1]
    assert arrays.startswith('"["') and "json-1" in arrays  # ... whose list items ...
    assert "object-1" in rules["json-1"]  # ... may be records
    assert "object" not in rules["json-2"]  # bounded: scalars at the bottom
    typed = json_schema_grammar({"type": "object", "additionalProperties": {"type": "integer"}})
    assert 'ws ":" ws integer' in typed
    assert 'doc ::= "{" ws "}"' in json_schema_grammar({"type": "object", "additionalProperties": False})
    if importlib.util.find_spec("llama_cpp") is not None:
        from llama_cpp import LlamaGrammar

        LlamaGrammar.from_string(json_schema_grammar(schema), verbose=False)
