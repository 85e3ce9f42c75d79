"""Parameter types (IPT) between free text and JSON Schema.

IPT is kept as the text the source used ("str", "list(str)", "Union[List[dict],
dict]"). JSON-schema sources are read into Python-style canonical text
("string" -> "str", an array of strings -> "list[str]") so that one corpus
speaks one type language, and the OpenAI/MCP renderer maps text back to a
schema. `canonical(text)` tells whether that mapping is lossless; when it is not,
the renderer also shows the exact text so nothing is lost.
"""

from __future__ import annotations

import ast
import json
import re
from typing import Any

_TO_JSON: dict[str, str] = {
    "str": "string",
    "string": "string",
    "text": "string",
    "int": "integer",
    "integer": "integer",
    "float": "number",
    "number": "number",
    "double": "number",
    "bool": "boolean",
    "boolean": "boolean",
    "list": "array",
    "array": "array",
    "tuple": "array",
    "sequence": "array",
    "set": "array",
    "dict": "object",
    "object": "object",
    "mapping": "object",
    "json": "object",
    "none": "null",
    "null": "null",
    "nonetype": "null",
}
_FROM_JSON: dict[str, str] = {
    "string": "str",
    "integer": "int",
    "number": "float",
    "boolean": "bool",
    "array": "list",
    "object": "dict",
    "null": "None",
}
_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_.]*")


class _Unparsable(ValueError):
    pass


def type_to_schema(text: str | None) -> dict[str, Any] | None:
    """A JSON-schema fragment for a type text, or None when the text is not a type we know."""
    if text is None or not text.strip():
        return None
    try:
        parser = _TypeParser(text)
        schema = parser.union()
        parser.end()
    except _Unparsable:
        return None
    return schema


def schema_to_type(schema: Any) -> str | None:
    """Canonical Python-style type text for a JSON-schema fragment (None: no type information)."""
    if not isinstance(schema, dict):
        return None
    if "enum" in schema and isinstance(schema["enum"], list) and schema["enum"]:
        return "Literal[" + ", ".join(json.dumps(v, ensure_ascii=False) for v in schema["enum"]) + "]"
    for key in ("anyOf", "oneOf"):
        if isinstance(schema.get(key), list) and schema[key]:
            parts = [schema_to_type(s) or "Any" for s in schema[key]]
            return " | ".join(parts)
    kind = schema.get("type")
    if isinstance(kind, list) and kind:
        return " | ".join(schema_to_type({**schema, "type": k}) or "Any" for k in kind)
    if not isinstance(kind, str):
        return None
    base = _FROM_JSON.get(kind, kind)
    if kind == "array" and isinstance(schema.get("items"), dict):
        inner = schema_to_type(schema["items"])
        if inner:
            base = f"list[{inner}]"
    fmt = schema.get("format")
    if isinstance(fmt, str) and fmt and kind == "string":
        base = f"{base} ({fmt})"
    return base


def canonical(text: str | None) -> str | None:
    """The text the schema of `text` reads back as; equal to `text` iff the mapping is lossless."""
    return schema_to_type(type_to_schema(text))


class _TypeParser:
    """Recursive descent over `A | B`, `Union[..]`, `Optional[..]`, `list[..]`, `list(..)`, `Literal[..]`."""

    def __init__(self, text: str) -> None:
        self.s = text.strip()
        self.i = 0

    def end(self) -> None:
        self._ws()
        if self.i != len(self.s):
            raise _Unparsable(self.s)

    def _ws(self) -> None:
        while self.i < len(self.s) and self.s[self.i] == " ":
            self.i += 1

    def _eat(self, ch: str) -> bool:
        self._ws()
        if self.s.startswith(ch, self.i):
            self.i += len(ch)
            return True
        return False

    def union(self) -> dict[str, Any]:
        parts = [self.atom()]
        while self._eat("|"):
            parts.append(self.atom())
        if len(parts) > 1 and all(set(p) == {"enum"} for p in parts):
            # `"a" | "b"` (how a shape states an argument's allowed values) is one enumeration
            return {"enum": [v for p in parts for v in p["enum"]]}
        return parts[0] if len(parts) == 1 else {"anyOf": parts}

    def _args(self, close: str) -> list[dict[str, Any]]:
        args = [self.union()]
        while self._eat(","):
            args.append(self.union())
        if not self._eat(close):
            raise _Unparsable(self.s)
        return args

    def atom(self) -> dict[str, Any]:
        self._ws()
        if self.s.startswith("{", self.i):
            return self._object()
        if self.i < len(self.s) and self.s[self.i] in "\"'":
            end = self._skip_string(self.i, self.s[self.i])
            values = _literal_values("[" + self.s[self.i : end] + "]")
            self.i = end
            return {"enum": values}
        m = _NAME.match(self.s, self.i)
        if not m:
            raise _Unparsable(self.s)
        self.i = m.end()
        name = m.group(0).split(".")[-1]
        low = name.lower()
        opener = self.s[self.i] if self.i < len(self.s) and self.s[self.i] in "[(" else None
        if opener:
            self.i += 1
            if low == "literal" and opener == "[":
                return self._literal()
            args = self._args("]" if opener == "[" else ")")
            if low == "optional" and len(args) == 1:
                return {"anyOf": [args[0], {"type": "null"}]}
            if low == "union":
                return {"anyOf": args}
            kind = _TO_JSON.get(low)
            if kind == "array":
                return {"type": "array", "items": args[0]} if len(args) == 1 else {"type": "array"}
            if kind == "object":
                return {"type": "object"}
            raise _Unparsable(self.s)
        if low in ("any", "object_") and name != "object":
            return {}
        kind = _TO_JSON.get(low)
        if kind is None:
            raise _Unparsable(self.s)
        schema: dict[str, Any] = {"type": kind}
        fmt = re.match(r" \(([^()]+)\)", self.s[self.i :])
        if fmt and kind == "string":
            schema["format"] = fmt.group(1)
            self.i += fmt.end()
        return schema

    def _object(self) -> dict[str, Any]:
        """`{"key": T, "other"?: T}`: an object shape, `?` marking a key some values lack."""
        self.i += 1
        props: dict[str, Any] = {}
        required: list[str] = []
        if self._eat("}"):
            return {"type": "object"}
        while True:
            self._ws()
            if self.i >= len(self.s) or self.s[self.i] not in "\"'":
                raise _Unparsable(self.s)
            end = self._skip_string(self.i, self.s[self.i])
            key = _literal_values("[" + self.s[self.i : end] + "]")[0]
            self.i = end
            optional = self._eat("?")
            if not self._eat(":") or not isinstance(key, str):
                raise _Unparsable(self.s)
            props[key] = self.union()
            if not optional:
                required.append(key)
            if self._eat("}"):
                break
            if not self._eat(","):
                raise _Unparsable(self.s)
        schema: dict[str, Any] = {"type": "object", "properties": props}
        if required:
            schema["required"] = required
        return schema

    def _literal(self) -> dict[str, Any]:
        depth, start = 1, self.i
        while self.i < len(self.s) and depth:
            ch = self.s[self.i]
            if ch in "\"'":
                self.i = self._skip_string(self.i, ch)
                continue
            depth += {"[": 1, "]": -1}.get(ch, 0)
            self.i += 1
        if depth:
            raise _Unparsable(self.s)
        values = _literal_values("[" + self.s[start : self.i - 1] + "]")
        if not values:
            raise _Unparsable(self.s)
        return {"enum": values}

    def _skip_string(self, i: int, quote: str = '"') -> int:
        i += 1
        while i < len(self.s):
            if self.s[i] == "\\":
                i += 2
                continue
            if self.s[i] == quote:
                return i + 1
            i += 1
        raise _Unparsable(self.s)


def _literal_values(text: str) -> list[Any]:
    """The values of `Literal[...]`: JSON as we write it, or Python literals as `repr` writes them
    (`Literal['a', 'b']` from a signature), read with `ast.literal_eval`, which evaluates nothing."""
    try:
        return json.loads(text)
    except json.JSONDecodeError:
        pass
    try:
        values = ast.literal_eval(text)
    except (ValueError, SyntaxError, MemoryError, RecursionError) as exc:
        raise _Unparsable(text) from exc
    if not isinstance(values, list) or not all(
        isinstance(v, str | int | float | bool | None) for v in values
    ):
        raise _Unparsable(text)
    return values
