"""How the offline models see tools and a tool-calling conversation.

Style "json" (every model's default): SmolLM2's chat template knows only
system/user/assistant turns and nothing about tools, and the small Qwen models
call tools more reliably this way than through their own format, so the
OpenAI-style request is rewritten into plain turns: the
tool schemas become a text block in the system message (every documented
field of the schema is shown — the point of the project is that the docs
matter), earlier tool calls become the JSON the model itself would have
written, and tool results become user turns naming the tool.

Style "qwen": `native_messages` shapes the conversation for a tool-aware chat
template (tools are then passed to the template itself) and
`parse_native_reply` reads its `<tool_call>` replies.
"""

from __future__ import annotations

import json
from typing import Any

from core.llm.grammar import forced_tool

REPLY_FORMAT = (
    'To call a tool, reply with {"tool": "<tool name>", "arguments": {<parameter name>: <value>, ...}}.\n'
    'When you know the answer or the task is done, reply with {"final_answer": "<your answer>"}.'
)
REQUIRED_FORMAT = 'Reply with {"tool": "<tool name>", "arguments": {<parameter name>: <value>, ...}}.'


def _type_text(schema: dict[str, Any]) -> str:
    kind = schema.get("type")
    if isinstance(kind, list):
        return " or ".join(str(k) for k in kind)
    if kind == "array" and isinstance(schema.get("items"), dict) and schema["items"].get("type"):
        return f"array of {schema['items']['type']}"
    if not kind:
        alts = schema.get("anyOf") or schema.get("oneOf")
        if isinstance(alts, list):
            return " or ".join(_type_text(a) for a in alts if isinstance(a, dict)) or "any"
        return "any"
    return str(kind)


def render_parameter(name: str, schema: dict[str, Any], required: bool) -> str:
    """One line per parameter with everything its schema documents."""
    bits = [_type_text(schema), "required" if required else "optional"]
    if "default" in schema:
        bits.append(f"default {json.dumps(schema['default'], ensure_ascii=False)}")
    if isinstance(schema.get("enum"), list):
        bits.append("one of " + ", ".join(json.dumps(v, ensure_ascii=False) for v in schema["enum"]))
    if schema.get("format"):
        bits.append(f"format {schema['format']}")
    line = f"  - {name} ({', '.join(bits)})"
    if schema.get("description"):
        line += f": {schema['description']}"
    if schema.get("examples"):
        line += f" Examples: {json.dumps(schema['examples'], ensure_ascii=False)}"
    return line


def render_tools(tools: list[dict[str, Any]]) -> str:
    """The tool block of the system prompt."""
    blocks = []
    for tool in tools:
        fn = tool.get("function", tool)
        lines = [f"Tool: {fn.get('name')}"]
        if fn.get("description"):
            lines.append(f"Description: {fn['description']}")
        params = fn.get("parameters") or {}
        props = params.get("properties") or {}
        required = set(params.get("required") or [])
        if props:
            lines.append("Parameters:")
            lines += [
                render_parameter(k, v if isinstance(v, dict) else {}, k in required) for k, v in props.items()
            ]
        else:
            lines.append("Parameters: none")
        blocks.append("\n".join(lines))
    return "\n\n".join(blocks)


def _text(content: Any) -> str:
    """Message content as text (OpenAI content parts are concatenated)."""
    if content is None:
        return ""
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return "".join(p.get("text", "") if isinstance(p, dict) else str(p) for p in content)
    return str(content)


def _call_json(call: dict[str, Any]) -> str:
    fn = call.get("function") or {}
    args = fn.get("arguments") or "{}"
    try:
        parsed = json.loads(args) if isinstance(args, str) else args
    except json.JSONDecodeError:
        parsed = {}
    return json.dumps({"tool": fn.get("name"), "arguments": parsed}, ensure_ascii=False)


def chat_messages(
    messages: list[dict[str, Any]], tools: list[dict[str, Any]] | None, tool_choice: Any = None
) -> list[dict[str, str]]:
    """Rewrite an OpenAI tool conversation into system/user/assistant turns for the template."""
    out: list[dict[str, str]] = []
    names: dict[str, str] = {}
    for msg in messages:
        role = msg.get("role", "user")
        if role == "assistant" and msg.get("tool_calls"):
            for call in msg["tool_calls"]:
                names[call.get("id", "")] = (call.get("function") or {}).get("name", "")
            text = "\n".join(_call_json(c) for c in msg["tool_calls"])
            out.append({"role": "assistant", "content": text})
        elif role in ("tool", "function"):
            name = msg.get("name") or names.get(msg.get("tool_call_id", ""), "the tool")
            out.append({"role": "user", "content": f"Result of {name}: {_text(msg.get('content'))}"})
        elif role in ("system", "developer"):
            out.append({"role": "system", "content": _text(msg.get("content"))})
        else:
            out.append(
                {"role": "assistant" if role == "assistant" else "user", "content": _text(msg.get("content"))}
            )
    if tools and tool_choice != "none":
        required = tool_choice == "required" or forced_tool(tool_choice) is not None
        block = "You can use these tools:\n\n" + render_tools(tools) + "\n\n"
        block += REQUIRED_FORMAT if required else REPLY_FORMAT
        if out and out[0]["role"] == "system":
            out[0] = {"role": "system", "content": out[0]["content"].rstrip() + "\n\n" + block}
        else:
            out.insert(0, {"role": "system", "content": block})
    # The template expects alternating turns; merge consecutive turns of the same role.
    merged: list[dict[str, str]] = []
    for m in out:
        if merged and merged[-1]["role"] == m["role"] and m["role"] != "system":
            merged[-1] = {"role": m["role"], "content": merged[-1]["content"] + "\n\n" + m["content"]}
        else:
            merged.append(m)
    return merged


NATIVE_ANSWER = 'When you know the answer or the task is done, reply with {"final_answer": "<your answer>"}.'


def native_messages(messages: list[dict[str, Any]], tool_choice: Any = None) -> list[dict[str, Any]]:
    """An OpenAI tool conversation in the shape a tool-aware chat template (Qwen's) expects.

    Tool-call arguments become objects (the template serialises them itself),
    content parts become text, and developer turns become system turns. The
    template describes only its call format; how to give a final answer (the
    grammar's other branch) is added to the system turn unless a call is forced.
    """
    out: list[dict[str, Any]] = []
    for msg in messages:
        role = msg.get("role", "user")
        if role == "assistant" and msg.get("tool_calls"):
            calls = []
            for call in msg["tool_calls"]:
                fn = call.get("function") or {}
                args = fn.get("arguments") or {}
                try:
                    args = json.loads(args) if isinstance(args, str) else args
                except json.JSONDecodeError:
                    args = {}
                calls.append({"type": "function", "function": {"name": fn.get("name"), "arguments": args}})
            out.append({"role": "assistant", "content": _text(msg.get("content")), "tool_calls": calls})
        elif role in ("tool", "function"):
            out.append({"role": "tool", "content": _text(msg.get("content"))})
        elif role in ("system", "developer"):
            out.append({"role": "system", "content": _text(msg.get("content"))})
        else:
            out.append(
                {"role": "assistant" if role == "assistant" else "user", "content": _text(msg.get("content"))}
            )
    if tool_choice != "required" and forced_tool(tool_choice) is None:
        if out and out[0]["role"] == "system":
            out[0] = {"role": "system", "content": out[0]["content"].rstrip() + "\n\n" + NATIVE_ANSWER}
        else:
            out.insert(0, {"role": "system", "content": NATIVE_ANSWER})
    return out


def parse_native_reply(text: str) -> tuple[str | None, list[dict[str, Any]]]:
    """(content, tool calls) from a reply in Qwen's `<tool_call>` format or a `{"final_answer": ...}`."""
    stripped = text.strip()
    if not stripped.startswith("<tool_call>"):
        try:
            obj = json.loads(stripped)
        except json.JSONDecodeError:
            return text, []
        if isinstance(obj, dict) and "final_answer" in obj:
            return str(obj["final_answer"]), []
        return text, []
    calls = []
    for block in stripped.split("<tool_call>")[1:]:
        body = block.split("</tool_call>", 1)[0].strip()
        try:
            obj = json.loads(body)
        except json.JSONDecodeError:
            return text, []  # cut off before the call was complete: the raw text is the content
        if isinstance(obj, dict) and obj.get("name"):
            calls.append({"name": obj["name"], "arguments": obj.get("arguments") or {}})
    return (None, calls) if calls else (text, [])
