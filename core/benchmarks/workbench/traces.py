"""Safe parsing of the recorded `full_response` cells (SPEC 8), with an AST whitelist.

A cell is the Python `str()` of LangChain's result dict. It is parsed as one
expression and walked node by node; only these nodes are accepted: constants,
dict/list/tuple displays, unary minus on a number, the calls
`AgentAction(tool=..., tool_input=..., log=...)` (keywords only),
`array([...], dtype=object)` (the directory's numpy result) and
`Timestamp('...')` (a sent email's time), and the name `nan`. Anything else
raises `TraceParseError`; nothing is ever evaluated.

Values keep enough of their type to render exactly what the agent saw: the
observation text is `str()` of the parsed value, so `nan`, `Timestamp('...')`
and numpy's array printing come back byte-identical.
"""

from __future__ import annotations

import ast
from dataclasses import dataclass, field
from typing import Any

import numpy as np


class TraceParseError(ValueError):
    """A recorded cell that is not a literal of the whitelisted shape."""


class Stamp(str):
    """A pandas Timestamp inside recorded search results; its value is the text form."""

    __slots__ = ()

    def __repr__(self) -> str:
        return f"Timestamp({str.__repr__(self)})"


class RecordedArray(list):
    """A numpy object array returned by the company directory."""

    def __repr__(self) -> str:
        return f"array({list.__repr__(self)}, dtype=object)"

    def __str__(self) -> str:
        return str(np.array(list(self), dtype=object))


@dataclass
class Step:
    """One recorded agent step: the action and the tool's raw observation."""

    tool: str
    tool_input: Any
    log: str
    observation: Any

    @property
    def observation_text(self) -> str:
        o = self.observation
        return o if isinstance(o, str) and not isinstance(o, Stamp) else str(o)

    @property
    def thought(self) -> str | None:
        """The reasoning text of the step: what the model wrote before its action blob."""
        text = self.log
        cut = len(text)
        for marker in ("Action:", "```"):
            i = text.find(marker)
            if i != -1:
                cut = min(cut, i)
        thought = text[:cut].strip()
        if thought.startswith("Thought:"):
            thought = thought[len("Thought:") :].strip()
        return thought or None


@dataclass
class Trace:
    input: str | None
    output: str | None
    steps: list[Step] = field(default_factory=list)


@dataclass
class _Action:
    tool: Any
    tool_input: Any
    log: Any


def _value(node: ast.AST) -> Any:
    if isinstance(node, ast.Constant):
        return node.value
    if isinstance(node, ast.Dict):
        if any(k is None for k in node.keys):
            raise TraceParseError("dict unpacking is not allowed")
        return {_value(k): _value(v) for k, v in zip(node.keys, node.values, strict=True)}
    if isinstance(node, ast.List):
        return [_value(e) for e in node.elts]
    if isinstance(node, ast.Tuple):
        return tuple(_value(e) for e in node.elts)
    if (
        isinstance(node, ast.UnaryOp)
        and isinstance(node.op, ast.USub)
        and isinstance(node.operand, ast.Constant)
    ):
        v = node.operand.value
        if isinstance(v, int | float) and not isinstance(v, bool):
            return -v
    if isinstance(node, ast.Name) and node.id == "nan":
        return float("nan")
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Name):
        return _call(node.func.id, node)
    raise TraceParseError(f"unexpected {type(node).__name__} at line {getattr(node, 'lineno', '?')}")


def _call(name: str, node: ast.Call) -> Any:
    if name == "AgentAction" and not node.args:
        kw = {k.arg: _value(k.value) for k in node.keywords if k.arg is not None}
        if len(kw) != len(node.keywords) or not {"tool", "tool_input", "log"} <= set(kw):
            raise TraceParseError("AgentAction needs the keywords tool, tool_input and log")
        return _Action(kw["tool"], kw["tool_input"], kw["log"])
    if name == "array" and len(node.args) == 1 and isinstance(node.args[0], ast.List):
        for k in node.keywords:
            if not (k.arg == "dtype" and isinstance(k.value, ast.Name) and k.value.id == "object"):
                raise TraceParseError("array() accepts only dtype=object")
        return RecordedArray(_value(node.args[0]))
    if name == "Timestamp" and len(node.args) == 1 and not node.keywords:
        v = _value(node.args[0])
        if isinstance(v, str):
            return Stamp(v)
    raise TraceParseError(f"call to {name}() is not allowed")


def parse_full_response(text: str) -> Trace:
    """Parse one non-empty `full_response` cell into a Trace (raises TraceParseError)."""
    try:
        tree = ast.parse(text, mode="eval")
    except (SyntaxError, ValueError) as exc:
        raise TraceParseError(f"not a Python literal: {exc}") from exc
    data = _value(tree.body)
    if not isinstance(data, dict) or "intermediate_steps" not in data:
        raise TraceParseError("expected a dict with 'intermediate_steps'")
    steps = []
    for i, pair in enumerate(data["intermediate_steps"] or []):
        if not (isinstance(pair, tuple) and len(pair) == 2 and isinstance(pair[0], _Action)):
            raise TraceParseError(f"intermediate_steps[{i}] is not an (AgentAction, observation) pair")
        action, observation = pair
        steps.append(Step(str(action.tool), action.tool_input, str(action.log), observation))
    output = data.get("output")
    inp = data.get("input")
    return Trace(
        input=inp if isinstance(inp, str) else None,
        output=output if isinstance(output, str) else None,
        steps=steps,
    )


def parse_function_calls(text: str) -> list[str]:
    """The `function_calls` cell: a Python literal list of call strings."""
    if not text.strip():
        return []
    try:
        value = ast.literal_eval(text)
    except (ValueError, SyntaxError, TypeError, MemoryError, RecursionError) as exc:
        raise TraceParseError(f"function_calls is not a literal list: {exc}") from exc
    if not isinstance(value, list) or not all(isinstance(c, str) for c in value):
        raise TraceParseError("function_calls is not a list of strings")
    return value
