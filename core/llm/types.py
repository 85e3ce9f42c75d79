"""What one LLM call returns, independent of the provider behind it.

Agents and optimizers read `LLMResult` rather than litellm's response objects,
so a cached reply, a scripted reply and a live reply look identical and the
warehouse can store the raw response as plain JSON.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any


@dataclass(frozen=True)
class ToolCall:
    """One tool call requested by the model.

    `arguments` is the parsed JSON object; when the model produced something
    that is not a JSON object, `arguments` is empty and `parse_error` says why
    (a malformed call is data for the diagnosis, not an exception).
    """

    id: str
    name: str
    arguments: dict[str, Any]
    raw: str
    parse_error: str | None = None

    @classmethod
    def from_openai(cls, call: dict[str, Any]) -> ToolCall:
        fn = call.get("function") or {}
        raw = fn.get("arguments")
        if raw is None:
            raw = ""
        if isinstance(raw, dict):
            return cls(call.get("id") or "", fn.get("name") or "", raw, json.dumps(raw, ensure_ascii=False))
        try:
            parsed = json.loads(raw) if raw.strip() else {}
        except json.JSONDecodeError as exc:
            return cls(call.get("id") or "", fn.get("name") or "", {}, raw, f"invalid JSON: {exc}")
        if not isinstance(parsed, dict):
            return cls(call.get("id") or "", fn.get("name") or "", {}, raw, "arguments are not a JSON object")
        return cls(call.get("id") or "", fn.get("name") or "", parsed, raw)

    def openai(self) -> dict[str, Any]:
        """The OpenAI-shaped tool call, for putting back into a message history."""
        return {"id": self.id, "type": "function", "function": {"name": self.name, "arguments": self.raw}}


@dataclass
class LLMResult:
    """The outcome of one `complete()` call, cached or not."""

    model: str
    content: str | None
    tool_calls: list[ToolCall] = field(default_factory=list)
    raw: dict[str, Any] = field(default_factory=dict)
    tokens_in: int = 0
    tokens_out: int = 0
    cost: float = 0.0
    latency_s: float = 0.0
    cache_hit: bool = False
    finish_reason: str | None = None
    cache_key: str = ""
    call_id: str = ""

    @property
    def message(self) -> dict[str, Any]:
        """The assistant message to append to the conversation history."""
        msg: dict[str, Any] = {"role": "assistant", "content": self.content}
        if self.tool_calls:
            msg["tool_calls"] = [c.openai() for c in self.tool_calls]
        return msg

    @classmethod
    def from_response(cls, model: str, raw: dict[str, Any]) -> LLMResult:
        """Build from an OpenAI-shaped response dict (what litellm returns, dumped)."""
        choices = raw.get("choices") or [{}]
        message = choices[0].get("message") or {}
        usage = raw.get("usage") or {}
        calls = [ToolCall.from_openai(c) for c in message.get("tool_calls") or []]
        return cls(
            model=model,
            content=message.get("content"),
            tool_calls=calls,
            raw=raw,
            tokens_in=int(usage.get("prompt_tokens") or 0),
            tokens_out=int(usage.get("completion_tokens") or 0),
            finish_reason=choices[0].get("finish_reason"),
        )
