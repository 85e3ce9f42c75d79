"""Jump-forward decoding for tool calls: the text the grammar leaves no choice about is not sampled.

Why: a local model spends most of a prefix-reused tool call generating tokens,
one forward pass each (75-90 ms for Qwen 0.5B on one core here), and much of a
call is fixed by its schema: `<tool_call>\n{"name":`, the rest of a tool name
once its first tokens single it out, `", "arguments": {"date":`, every required
key in order, and the closing `}}\n</tool_call>`. That text is evaluated as one
batch instead (a batched token costs about half a decoded one on these CPUs:
26 against 12 tokens per CPU-second), and the model decides only where it has
a choice: which tool, the values, and whether to write an optional argument.
Forced text stops before a trailing space or opening quote (see
`_natural_end`), so every value and name starts with a token the model chose.

`CallForcer` walks the reply written so far along the same structure
`core.llm.grammar.tool_call_grammar` builds from the same tools, and returns
the continuation that every reply the grammar allows shares, with the
whitespace the grammar leaves optional written the way the model's own format
does (`json.dumps`: `{"a": 1, "b": 2}`). The sampler still passes each forced
token through the grammar, so a disagreement can only stop the forcing, never
produce a reply the grammar rejects. When the walk reaches the end of a
complete reply the generation stops without asking the model for its
end-of-turn token.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

from core.llm.grammar import _function, forced_tool


class _Choice(Exception):
    """The reply reached a point where the model chooses: nothing more is forced."""


class _Mismatch(Exception):
    """The text does not follow the expected structure: force nothing."""


class _Complete(Exception):
    """The reply (with the forced text) is a whole reply."""


@dataclass(frozen=True)
class Forced:
    text: str  # the continuation every allowed reply shares ("" when the model chooses next)
    done: bool  # the reply plus `text` is complete: stop generating


class _Walk:
    """Consumes the reply so far; once it runs out, collects the forced continuation instead."""

    def __init__(self, text: str) -> None:
        self.t, self.i, self.out = text, 0, []

    @property
    def emitting(self) -> bool:
        return self.i >= len(self.t)

    def lit(self, s: str) -> None:
        if self.emitting:
            self.out.append(s)
            return
        avail = self.t[self.i : self.i + len(s)]
        if not s.startswith(avail):
            raise _Mismatch
        self.i += len(avail)
        if len(avail) < len(s):
            self.out.append(s[len(avail) :])

    def ws(self, canonical: str) -> None:
        """An optional single space (the grammar's `ws`)."""
        if self.emitting:
            self.out.append(canonical)
        elif self.t[self.i] == " ":
            self.i += 1

    def peek(self) -> str:
        if self.emitting:
            raise _Choice
        return self.t[self.i]

    def choose(self, options: list[str]) -> str:
        """One of several literals (none a prefix of another); forced once the text singles one out.

        A prefix several options share is not forced: the model would then
        have to continue a name from inside a token it did not choose.
        """
        rest = self.t[self.i :]
        for o in options:
            if rest and rest.startswith(o):
                self.i += len(o)
                return o
        cands = [o for o in options if o.startswith(rest)]
        if not cands:
            raise _Mismatch
        self.i = len(self.t)
        if len(cands) > 1:
            raise _Choice
        self.out.append(cands[0][len(rest) :])
        return cands[0]

    def value(self) -> None:
        """A value the model writes (from its first character: see `_natural_end`)."""
        if self.emitting:
            raise _Choice
        end = _scan_value(self.t, self.i)
        if end is None:
            raise _Choice
        self.i = end


def _scan_value(t: str, i: int) -> int | None:
    """End index of the JSON value starting at t[i], or None while it is unfinished."""
    c = t[i]
    if c == '"':
        j = i + 1
        while j < len(t):
            if t[j] == "\\":
                j += 2
                continue
            if t[j] == '"':
                return j + 1
            j += 1
        return None
    if c in "{[":
        depth, j, in_str = 0, i, False
        while j < len(t):
            ch = t[j]
            if in_str:
                if ch == "\\":
                    j += 1
                elif ch == '"':
                    in_str = False
            elif ch == '"':
                in_str = True
            elif ch in "{[":
                depth += 1
            elif ch in "}]":
                depth -= 1
                if depth == 0:
                    return j + 1
            j += 1
        return None
    j = i
    while j < len(t) and (t[j].isalnum() or t[j] in "-+."):
        j += 1
    if j == i:
        raise _Mismatch
    return j if j < len(t) else None  # a number may still grow: the model decides where it ends


def _natural_end(text: str) -> str:
    """`text` cut before a trailing space or opening quote, where the model takes over.

    Why: forced text is tokenized on its own, so a trailing `"` or ` ` becomes
    a token of its own, a boundary the model almost never saw before a tool
    name or value (it writes ` "` + `Query`, or `"Query`). Ending there shifted
    its choice of tool: on 60 API-Bank level-1 samples, Qwen 0.5B's right calls
    fell from 81.7 % (unforced) to 56.7 %. The model writes the space and the quote itself,
    so the value starts the way it was trained to start it.
    """
    return text.rstrip(' "')


@dataclass(frozen=True)
class _Tool:
    props: dict[str, Any]
    required: list[str]


class CallForcer:
    """The forced continuation of a reply to a request with `tools` (mirrors `tool_call_grammar`)."""

    def __init__(self, tools: list[dict[str, Any]], tool_choice: Any = "auto", style: str = "json") -> None:
        self.style = style
        only = forced_tool(tool_choice)
        self.tools: dict[str, _Tool] = {}
        if tool_choice != "none":
            for tool in tools:
                fn = _function(tool)
                name = fn.get("name")
                if not name or (only and name != only) or name in self.tools:
                    continue
                params = fn.get("parameters") or {}
                props = params.get("properties") if isinstance(params, dict) else None
                props = props if isinstance(props, dict) else {}
                self.tools[name] = _Tool(props, list(params.get("required") or []) if props else [])
        self.answer = (tool_choice != "required" and not only) or not self.tools

    def __call__(self, text: str) -> Forced:
        walk = _Walk(text)
        try:
            self._reply(walk)
        except _Choice:
            return Forced(_natural_end("".join(walk.out)), False)
        except _Mismatch:
            return Forced("", False)
        except _Complete:
            return Forced("".join(walk.out), True)
        return Forced("", False)

    def _reply(self, w: _Walk) -> None:
        if self.style == "qwen":
            branches = (["<tool_call>\n"] if self.tools else []) + (
                ['{"final_answer"'] if self.answer else []
            )
            first = w.choose([b[:1] for b in branches])  # "<" or "{"
            if first == "<":
                w.lit("tool_call>\n{")
                w.ws("")
                w.lit('"name"')
                self._call(w)
            else:
                w.ws("")
                w.lit('"final_answer"')
                self._answer(w)
            return
        w.lit("{")
        w.ws("")
        keys = (['"tool"'] if self.tools else []) + (['"final_answer"'] if self.answer else [])
        if w.choose(keys) == '"tool"':
            self._call(w)
        else:
            self._answer(w)

    def _answer(self, w: _Walk) -> None:
        w.ws("")
        w.lit(":")
        w.ws(" ")
        w.value()
        w.ws("")
        w.lit("}")
        raise _Complete

    def _call(self, w: _Walk) -> None:
        w.ws("")
        w.lit(":")
        w.ws(" ")
        name = w.choose([json.dumps(n, ensure_ascii=False) for n in self.tools])
        tool = self.tools[json.loads(name)]
        w.ws("")
        w.lit(",")
        w.ws(" ")
        w.lit('"arguments"')
        w.ws("")
        w.lit(":")
        w.ws(" ")
        self._arguments(w, tool)
        w.ws("")
        w.lit("}")
        if self.style == "qwen":
            w.lit("\n</tool_call>")
        raise _Complete

    def _pair(self, w: _Walk) -> None:
        """`: value` after a key."""
        w.ws("")
        w.lit(":")
        w.ws(" ")
        w.value()

    def _arguments(self, w: _Walk, tool: _Tool) -> None:
        """`core.llm.grammar.GrammarBuilder.object_rule`: required keys in order, then optional ones."""
        req = [k for k in tool.props if k in tool.required]
        opt = [k for k in tool.props if k not in tool.required]
        w.lit("{")
        w.ws("")
        if not tool.props:
            w.lit("}")
            return
        if req:
            for j, key in enumerate(req):
                if j:
                    w.lit(",")
                    w.ws(" ")
                w.lit(json.dumps(key, ensure_ascii=False))
                self._pair(w)
            rest = opt
        elif w.peek() == '"':
            key = json.loads(w.choose([json.dumps(k, ensure_ascii=False) for k in opt]))
            self._pair(w)
            rest = opt[opt.index(key) + 1 :]
        else:
            rest = []  # no arguments: the object closes
        while rest:
            if w.emitting:
                raise _Choice  # another optional argument, or the end of the arguments
            if w.peek() != ",":
                break
            w.lit(",")
            w.ws(" ")
            key = json.loads(w.choose([json.dumps(k, ensure_ascii=False) for k in rest]))
            self._pair(w)
            rest = rest[rest.index(key) + 1 :]
        w.ws("")
        w.lit("}")
