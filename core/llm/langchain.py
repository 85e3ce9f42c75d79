"""A LangChain chat model whose calls go through the gateway.

Why: `ChatLiteLLM` supports `bind_tools` but calls `litellm.completion`
itself, which would bypass our cache, retries, concurrency limit and
accounting. `GatewayChatModel` is a `ChatLiteLLM` whose only change is that
the request is sent with `core.llm.complete` (labelled with `purpose` and
`run_id`). Importing this module imports LangChain and litellm; import it
only where a LangChain agent is built.

    llm = GatewayChatModel(model="local/smollm2-135m", purpose="agent", run_id=run_id)
    llm.bind_tools(tools).invoke(messages)
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import litellm
from langchain_litellm import ChatLiteLLM
from pydantic import PrivateAttr

from core.llm.gateway import complete


class GatewayChatModel(ChatLiteLLM):
    """ChatLiteLLM routed through `core.llm.complete`."""

    purpose: str = "agent"
    run_id: str | None = None
    use_cache: bool = True
    seed: int | None = None
    # Called with (result, messages) after every completion, e.g. to record an agent's trace.
    _observer: Callable[[Any, list[dict[str, Any]]], None] | None = PrivateAttr(default=None)
    # How many of a reply's tool calls the agent may execute (None: all); asked per reply.
    _call_limit: Callable[[], int | None] | None = PrivateAttr(default=None)

    def observe(self, observer: Callable[[Any, list[dict[str, Any]]], None] | None) -> GatewayChatModel:
        self._observer = observer
        return self

    def limit_tool_calls(self, limit: Callable[[], int | None] | None) -> GatewayChatModel:
        """Pass at most `limit()` tool calls of each reply on to the agent framework.

        The observer still sees the whole reply (the trace records the excess);
        the framework only ever executes the first calls.
        """
        self._call_limit = limit
        return self

    def completion_with_retry(self, run_manager: Any = None, **kwargs: Any) -> Any:
        """The gateway retries; LangChain's own retry layer is bypassed on purpose."""
        kwargs.pop("stream", None)
        for transport in ("api_key", "api_base", "custom_llm_provider", "organization", "max_retries"):
            kwargs.pop(transport, None)
        kwargs = {k: v for k, v in kwargs.items() if v is not None}
        model = kwargs.pop("model", None) or self.model
        messages = kwargs.pop("messages")
        if self.seed is not None:
            kwargs.setdefault("seed", self.seed)
        result = complete(
            model, messages, purpose=self.purpose, run_id=self.run_id, cache=self.use_cache, **kwargs
        )
        if self._observer is not None:
            self._observer(result, messages)
        limit = self._call_limit() if self._call_limit is not None else None
        return litellm.ModelResponse(**_first_calls(result.raw, limit))

    async def acompletion_with_retry(self, run_manager: Any = None, **kwargs: Any) -> Any:
        """Runs the synchronous gateway call (the gateway bounds concurrency itself)."""
        import asyncio

        return await asyncio.to_thread(self.completion_with_retry, run_manager, **kwargs)


def _first_calls(raw: dict[str, Any], limit: int | None) -> dict[str, Any]:
    """`raw` with each choice's tool calls cut to the first `limit` (a copy; the cached reply stays whole)."""
    if limit is None:
        return raw
    choices = raw.get("choices") or []
    if not any(len((c.get("message") or {}).get("tool_calls") or []) > limit for c in choices):
        return raw
    out = dict(raw)
    out["choices"] = []
    for c in choices:
        msg = dict(c.get("message") or {})
        if msg.get("tool_calls"):
            msg["tool_calls"] = list(msg["tool_calls"])[:limit]
        out["choices"].append({**c, "message": msg})
    return out
