"""GBNF grammars built from tool schemas and JSON schemas.

Why: a 135M-parameter model left to itself never emits a usable tool call. If
decoding is constrained by a grammar derived from the tool schemas, every reply
parses, names an existing tool and fills that tool's parameters with values of
the right shape, so what remains to measure is whether the model picked the
right tool and arguments — which is what documentation changes.

The reply format the grammar allows (and the prompt describes) is one JSON
object, either a tool call or a final answer:

    {"tool": "<name>", "arguments": {...}}
    {"final_answer": "<text>"}

String lengths are capped (small models otherwise loop on repeated tokens),
whitespace is limited to one optional space, and nesting depth of untyped
values is bounded, so every reply terminates well within `max_tokens`.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from typing import Any

STRING_CAP = 80
ANSWER_CAP = 300
ARRAY_CAP = 5
FREE_DEPTH = 2
MAP_CAP = 12  # keys of an object that lists no properties: text-mode arguments (WorkBench tools take up to 9)

_BASE_RULES = {
    "ws": '" "?',
    "char": r'[^"\\\x7F\x00-\x1F] | "\\" (["\\/bfnrt] | "u" [0-9a-fA-F]{4})',
    "integer": '"-"? ([0-9] | [1-9] [0-9]{0,15})',
    "number": '"-"? ([0-9] | [1-9] [0-9]{0,15}) ("." [0-9]{1,8})? ([eE] [-+]? [0-9]{1,3})?',
    "boolean": '"true" | "false"',
    "null": '"null"',
}


# Date and time formats a string schema may state (`format`), as templates of digit fields.
_STANDARD_FORMATS = {"date": "YYYY-MM-DD", "time": "HH:MM:SS", "date-time": "YYYY-MM-DDTHH:MM:SS"}
_STRFTIME = {"%Y": "YYYY", "%m": "MM", "%d": "DD", "%H": "HH", "%M": "MM", "%S": "SS"}
_FIELDS = {"YYYY": "[0-9]{4}", "MM": "[0-9]{2}", "DD": "[0-9]{2}", "HH": "[0-9]{2}", "SS": "[0-9]{2}"}
_TEMPLATE_PART = re.compile(r"YYYY|MM|DD|HH|SS|[-/ :T.]")


def format_template(fmt: str) -> str | None:
    """The digit template of a date/time `format` ("YYYY-MM-DD HH:MM:SS", "%Y-%m-%d", "date"), else None.

    Why: a doc that states "Format: %Y-%m-%d %H:%M:%S" in prose is still
    answered with "2023-03-01" or "10:00 AM" by a small model; when the
    parameter's type carries the format, the grammar can hold the model to it.
    Only unambiguous digit templates are enforced; anything else ("an email
    address", "uri") stays documentation.
    """
    text = fmt.strip()
    for code, part in _STRFTIME.items():
        text = text.replace(code, part)
    text = _STANDARD_FORMATS.get(text, text)
    parts = _TEMPLATE_PART.findall(text)
    if "".join(parts) != text or not any(p in ("YYYY", "HH") for p in parts):
        return None
    return text


def _format_body(template: str, iso_tail: bool) -> str:
    body = " ".join(_FIELDS.get(p) or _literal(p) for p in _TEMPLATE_PART.findall(template))
    if iso_tail:  # RFC 3339 date-time: optional fraction and zone
        body += ' ("." [0-9]{1,6})? ("Z" | [+-] [0-9]{2} ":" [0-9]{2})?'
    return f'"\\"" {body} "\\""'


def _literal(text: str) -> str:
    """A GBNF string literal matching `text` exactly."""
    escaped = text.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n").replace("\r", "\\r")
    escaped = escaped.replace("\t", "\\t")
    return f'"{escaped}"'


def _json_literal(value: Any) -> str:
    """A GBNF literal matching the JSON encoding of `value` (used for enums and const)."""
    return _literal(json.dumps(value, ensure_ascii=False))


@dataclass
class GrammarBuilder:
    """Accumulates named rules; `schema_rule` returns the rule name for a JSON schema."""

    string_cap: int = STRING_CAP
    array_cap: int = ARRAY_CAP
    rules: dict[str, str] = field(default_factory=lambda: dict(_BASE_RULES))
    defs: dict[str, Any] = field(default_factory=dict)
    _seen: dict[str, str] = field(default_factory=dict)

    def add(self, hint: str, body: str) -> str:
        """Add a rule (deduplicated by body) and return its name."""
        if body in self._seen:
            return self._seen[body]
        base = re.sub(r"[^a-zA-Z0-9-]+", "-", hint).strip("-").lower() or "r"
        name, i = base, 1
        while name in self.rules:
            i += 1
            name = f"{base}-{i}"
        self.rules[name] = body
        self._seen[body] = name
        return name

    def string_rule(self, cap: int | None = None, min_len: int = 0) -> str:
        cap = max(min_len, cap if cap is not None else self.string_cap)
        return self.add(f"string-{cap}", f'"\\"" char{{{min_len},{cap}}} "\\""')

    def schema_rule(self, schema: Any, hint: str = "value", depth: int = 0) -> str:
        """Rule name for values of one JSON schema (a practical subset of the spec)."""
        if not isinstance(schema, dict) or not schema:
            # An untyped value (an array without `items`, an object without `properties`) is any JSON
            # value nested at most FREE_DEPTH levels *below it*, wherever it sits: counting from the
            # call's root instead left an untyped list argument only scalars, so a documented
            # `[{"name": ..., "value": ...}]` could never be written.
            return self.free_rule(0)
        ref = schema.get("$ref")
        if isinstance(ref, str) and ref.startswith(("#/$defs/", "#/definitions/")):
            target = self.defs.get(ref.rsplit("/", 1)[1])
            if target is None or depth > 6:
                return self.free_rule(FREE_DEPTH)
            return self.schema_rule(target, hint, depth + 1)
        if "const" in schema:
            return self.add(hint, _json_literal(schema["const"]))
        if isinstance(schema.get("enum"), list) and schema["enum"]:
            return self.add(hint, " | ".join(_json_literal(v) for v in schema["enum"]))
        for key in ("anyOf", "oneOf"):
            if isinstance(schema.get(key), list) and schema[key]:
                alts = [self.schema_rule(s, f"{hint}-{i}", depth) for i, s in enumerate(schema[key])]
                return self.add(hint, " | ".join(alts))
        if isinstance(schema.get("allOf"), list) and len(schema["allOf"]) == 1:
            return self.schema_rule(schema["allOf"][0], hint, depth)
        kind = schema.get("type")
        if isinstance(kind, list):
            alts = [self.schema_rule({**schema, "type": k}, f"{hint}-{k}", depth) for k in kind]
            return self.add(hint, " | ".join(alts))
        if kind == "string":
            fmt = schema.get("format")
            template = format_template(fmt) if isinstance(fmt, str) else None
            if template:
                return self.add(f"format-{template}", _format_body(template, fmt.strip() == "date-time"))
            cap = schema.get("maxLength")
            cap = min(int(cap), self.string_cap) if isinstance(cap, int) else self.string_cap
            return self.string_rule(cap, min(int(schema.get("minLength", 0) or 0), cap))
        if kind in ("integer", "number", "boolean", "null"):
            return kind
        if kind == "array":
            item = self.schema_rule(schema.get("items"), f"{hint}-item", depth + 1)
            cap = schema.get("maxItems")
            cap = min(int(cap), self.array_cap) if isinstance(cap, int) else self.array_cap
            lo = min(int(schema.get("minItems", 0) or 0), cap)
            if cap == 0:
                return self.add(hint, '"[]"')
            tail = f'("," ws {item}){{{max(lo - 1, 0)},{cap - 1}}}'
            body = f'"[" ws {item} {tail} ws "]"'
            if lo == 0:
                body = f'"[" ws ({item} {tail})? ws "]"'
            return self.add(hint, body)
        if kind == "object" or "properties" in schema:
            props = schema.get("properties")
            if not isinstance(props, dict) or not props:
                return self.map_rule(schema.get("additionalProperties"), hint, depth)
            return self.object_rule(props, schema.get("required") or [], hint, depth)
        return self.free_rule(0)

    def object_rule(self, props: dict[str, Any], required: list[str], hint: str, depth: int = 0) -> str:
        """An object with the given properties: required ones always, optional ones may be skipped.

        Required properties come first in schema order, then optional ones in
        schema order; the model can omit any optional property.
        """
        req = [k for k in props if k in required]
        opt = [k for k in props if k not in required]
        kv = {
            k: f'{_literal(json.dumps(k, ensure_ascii=False))} ws ":" ws '
            f"{self.schema_rule(props[k], f'{hint}-{k}', depth + 1)}"
            for k in props
        }
        # rest[i]: optional properties i.. each optionally preceded by a comma.
        rest = ""
        for k in reversed(opt):
            rest = f'("," ws {kv[k]})? {rest}'.strip()
        if req:
            body = ' "," ws '.join(kv[k] for k in req)
            return self.add(hint, f'"{{" ws {body} {rest} ws "}}"'.replace("  ", " "))
        if not opt:
            return self.add(hint, '"{" ws "}"')
        starts = []
        for i, k in enumerate(opt):
            tail = "".join(f' ("," ws {kv[o]})?' for o in opt[i + 1 :])
            starts.append(f"{kv[k]}{tail}")
        inner = self.add(f"{hint}-props", " | ".join(f"({s})" for s in starts))
        return self.add(hint, f'"{{" ws {inner}? ws "}}"')

    def free_rule(self, depth: int) -> str:
        """Any JSON value, with bounded depth so replies always terminate."""
        scalars = f"{self.string_rule()} | number | boolean | null"
        if depth >= FREE_DEPTH:
            return self.add(f"json-{depth}", scalars)
        inner = self.free_rule(depth + 1)
        arr = f'"[" ws ({inner} ("," ws {inner}){{0,{self.array_cap - 1}}})? ws "]"'
        return self.add(f"json-{depth}", f"{scalars} | {self.free_object_rule(depth)} | {arr}")

    def map_rule(self, values: Any, hint: str = "map", depth: int = 0) -> str:
        """An object that lists no properties: any keys, each value following `values` (the schema's
        `additionalProperties`), an untyped value when that is absent or true, none when it is false.

        Why: text-mode ReAct's `action_input` is such an object, whose values are the call's
        arguments. Bounding its depth from the object itself (as a free object nested in a free value
        is) left an argument only scalars inside a list: `health_data=[{"name": ..., "value": ...}]`
        could not be written, and a model that began `[{` was forced into `[":{", "name"]` or
        `[120, 80]`. Each value is an untyped value like any other, nested FREE_DEPTH levels below
        itself.
        """
        if values is False:
            return self.add(hint, '"{" ws "}"')
        value = self.schema_rule(values if isinstance(values, dict) else None, f"{hint}-value", depth + 1)
        pair = f'{self.string_rule(40)} ws ":" ws {value}'
        return self.add(hint, f'"{{" ws ({pair} ("," ws {pair}){{0,{MAP_CAP - 1}}})? ws "}}"')

    def free_object_rule(self, depth: int) -> str:
        key = self.string_rule(40)
        if depth >= FREE_DEPTH:
            value = self.add(f"json-{depth}", f"{self.string_rule()} | number | boolean | null")
        else:
            value = self.free_rule(depth + 1)
        pair = f'{key} ws ":" ws {value}'
        return self.add(f"object-{depth}", f'"{{" ws ({pair} ("," ws {pair}){{0,5}})? ws "}}"')

    def render(self, root: str) -> str:
        """The grammar text with `root` as the start rule."""
        lines = [f"root ::= {root}"]
        lines += [f"{name} ::= {body}" for name, body in self.rules.items()]
        return "\n".join(lines) + "\n"


def tool_names(tools: list[dict[str, Any]]) -> list[str]:
    return [_function(t).get("name", "") for t in tools if _function(t).get("name")]


def _function(tool: dict[str, Any]) -> dict[str, Any]:
    """The function part of an OpenAI tool spec (also accepts a bare function dict)."""
    return tool.get("function", tool) if isinstance(tool, dict) else {}


def forced_tool(tool_choice: Any) -> str | None:
    """The tool name when tool_choice forces one specific function."""
    if isinstance(tool_choice, dict):
        fn = tool_choice.get("function") or {}
        return fn.get("name") or tool_choice.get("name")
    return None


def tool_call_grammar(
    tools: list[dict[str, Any]],
    tool_choice: Any = "auto",
    *,
    string_cap: int = STRING_CAP,
    answer_cap: int = ANSWER_CAP,
    style: str = "json",
) -> str:
    """Grammar for one reply: a call of one of `tools`, or (unless forced) a final answer.

    tool_choice "required" (or a specific function) removes the final-answer
    branch; "none" removes the tool branch. `style` is the reply format:
    "json" is `{"tool": ..., "arguments": ...}` / `{"final_answer": ...}` (for
    models whose template knows no tools); "qwen" is the model's own
    `<tool_call>\n{"name": ..., "arguments": ...}\n</tool_call>` or plain text.
    """
    if style not in ("json", "qwen"):
        raise ValueError(f"unknown tool-call style {style!r}")
    b = GrammarBuilder(string_cap=string_cap)
    only = forced_tool(tool_choice)
    name_key = "tool" if style == "json" else "name"
    calls = []
    if tool_choice != "none":
        for i, tool in enumerate(tools):
            fn = _function(tool)
            name = fn.get("name")
            if not name or (only and name != only):
                continue
            params = fn.get("parameters") or {}
            props = params.get("properties") if isinstance(params, dict) else None
            if isinstance(props, dict) and props:
                b.defs = {**(params.get("definitions") or {}), **(params.get("$defs") or {})}
                args = b.object_rule(props, params.get("required") or [], f"args-{i}")
            else:
                args = b.add(f"args-{i}", '"{" ws "}"')
            head = _literal(f'"{name}"')
            calls.append(b.add(f"call-{i}", f'{head} ws "," ws "\\"arguments\\"" ws ":" ws {args}'))
    alts = []
    if calls:
        obj = f'"{{" ws "\\"{name_key}\\"" ws ":" ws (' + " | ".join(calls) + ') ws "}"'
        if style == "qwen":
            obj = f'"<tool_call>\\n" {obj} "\\n</tool_call>"'
        alts.append(b.add("call", obj))
    if (tool_choice != "required" and not only) or not calls:
        # A final answer is a JSON object in both styles: with free text allowed, small
        # models narrate instead of calling (or write the call as prose).
        answer = b.string_rule(answer_cap)
        alts.append(b.add("final", f'"{{" ws "\\"final_answer\\"" ws ":" ws {answer} ws "}}"'))
    return b.render(" | ".join(alts))


def json_schema_grammar(schema: dict[str, Any] | None, *, string_cap: int = 200, array_cap: int = 10) -> str:
    """Grammar for a JSON document following `schema` (None: any JSON object)."""
    b = GrammarBuilder(string_cap=string_cap, array_cap=array_cap)
    if not schema:
        return b.render(b.map_rule(None, "doc"))
    b.defs = {**(schema.get("definitions") or {}), **(schema.get("$defs") or {})}
    return b.render(b.schema_rule(schema, "doc"))
