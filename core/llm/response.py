"""Building OpenAI-shaped litellm responses for our in-process providers."""

from __future__ import annotations

import json
import uuid
from typing import Any


def tool_call_id(seed: str = "") -> str:
    """Tool call ids: deterministic when given a seed so cached and fresh replies agree."""
    if seed:
        return "call_" + uuid.uuid5(uuid.NAMESPACE_OID, seed).hex[:16]
    return "call_" + uuid.uuid4().hex[:16]


def fill_response(
    model_response: Any,
    model: str,
    *,
    content: str | None,
    tool_calls: list[dict[str, Any]] | None = None,
    prompt_tokens: int = 0,
    completion_tokens: int = 0,
    finish_reason: str | None = None,
) -> Any:
    """Fill litellm's `model_response` in place: message, tool calls, usage, model.

    `tool_calls` items are `{"name", "arguments" (dict or JSON text), "id"?}`.
    """
    from litellm import Usage
    from litellm.types.utils import ChatCompletionMessageToolCall, Function

    message = model_response.choices[0].message
    message.content = content
    calls = []
    for i, call in enumerate(tool_calls or []):
        args = call.get("arguments", {})
        text = args if isinstance(args, str) else json.dumps(args, ensure_ascii=False)
        cid = call.get("id") or tool_call_id(f"{model}|{i}|{call.get('name')}|{text}|{content}")
        calls.append(
            ChatCompletionMessageToolCall(
                id=cid, type="function", function=Function(name=call["name"], arguments=text)
            )
        )
    message.tool_calls = calls or None
    model_response.choices[0].finish_reason = finish_reason or ("tool_calls" if calls else "stop")
    model_response.model = model
    model_response.usage = Usage(
        prompt_tokens=prompt_tokens,
        completion_tokens=completion_tokens,
        total_tokens=prompt_tokens + completion_tokens,
    )
    # In-process models cost nothing. Stamping the cost spares litellm's cost
    # calculator, which otherwise searches its price map (and its fallback
    # generalisations) for a model it cannot know on every call.
    hidden = getattr(model_response, "_hidden_params", None)
    if isinstance(hidden, dict):
        hidden["response_cost"] = 0.0
    return model_response
