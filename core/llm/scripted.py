"""A deterministic scripted model, reachable as `scripted/<name>` through litellm.

Why: agent and optimizer tests must exercise the real gateway path (cache,
retries, accounting, litellm's response shapes) while choosing exactly what
the "model" says. A script is a list of replies consumed in order, or a
function of the messages. A reply is

- a string: a plain text answer;
- `tool_call("name", arg=...)` (or `{"name": ..., "arguments": {...}}`): one tool call;
- `{"content": ..., "tool_calls": [tool_call(...), ...]}`: several calls, optional text;
- an exception instance: raised (e.g. `litellm.RateLimitError(...)` to test retries).

    model = script(["Thought: ...", tool_call("search", q="x")], name="agent")
    complete(model.model, messages)           # -> the first reply
    model.calls, model.requests               # what the model was asked
"""

from __future__ import annotations

import inspect
import itertools
import json
import threading
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from core.llm.response import fill_response

Reply = str | dict[str, Any] | BaseException
ScriptFn = Callable[..., Reply]


def tool_call(name: str, /, **arguments: Any) -> dict[str, Any]:
    """A scripted reply that calls tool `name` with `arguments`."""
    return {"name": name, "arguments": arguments}


def _tokens(value: Any) -> int:
    """A rough, deterministic token count (4 characters per token)."""
    text = value if isinstance(value, str) else json.dumps(value, ensure_ascii=False, default=str)
    return max(1, len(text) // 4)


@dataclass
class ScriptedModel:
    """One registered script; `model` is the string to pass to `complete()`."""

    name: str
    replies: Sequence[Reply] | ScriptFn
    salt: str
    calls: int = 0
    requests: list[dict[str, Any]] = field(default_factory=list)
    _lock: threading.Lock = field(default_factory=threading.Lock, repr=False)

    @property
    def model(self) -> str:
        return f"scripted/{self.name}"

    def next_reply(self, messages: list[dict[str, Any]], params: dict[str, Any]) -> Reply:
        with self._lock:
            index = self.calls
            self.calls += 1
            self.requests.append({"messages": messages, "params": params})
        if callable(self.replies):
            fn = self.replies
            try:
                n_args = len(inspect.signature(fn).parameters)
            except (TypeError, ValueError):
                n_args = 1
            return fn(messages, params) if n_args >= 2 else fn(messages)
        if index >= len(self.replies):
            raise ScriptExhausted(
                f"script {self.name!r} has {len(self.replies)} replies; call {index + 1} asked for more"
            )
        return self.replies[index]


class ScriptExhausted(Exception):
    """More calls than scripted replies: a test bug, reported as a bad request (never retried)."""


_counter = itertools.count(1)


def _normalise(reply: Reply) -> tuple[str | None, list[dict[str, Any]]]:
    if isinstance(reply, str):
        return reply, []
    if isinstance(reply, dict):
        if "tool_calls" in reply:
            return reply.get("content"), list(reply["tool_calls"])
        if "name" in reply:
            return reply.get("content"), [{"name": reply["name"], "arguments": reply.get("arguments", {})}]
        if "content" in reply:
            return reply["content"], []
    raise TypeError(f"unsupported scripted reply {reply!r}")


def _handler_base() -> type:
    from litellm import CustomLLM

    return CustomLLM


class _ScriptedRegistry:
    """Holds the scripts; the litellm handler is created lazily (litellm is imported late)."""

    def __init__(self) -> None:
        self.scripts: dict[str, ScriptedModel] = {}
        self._lock = threading.Lock()

    def register(self, replies: Sequence[Reply] | ScriptFn, name: str | None = None) -> ScriptedModel:
        with self._lock:
            n = next(_counter)
            name = name or f"script-{n}"
            replies = replies if callable(replies) else list(replies)
            sm = ScriptedModel(name=name, replies=replies, salt=f"script-{n}")
            self.scripts[name] = sm
            return sm

    def get(self, name: str) -> ScriptedModel:
        try:
            return self.scripts[name]
        except KeyError:
            raise KeyError(f"no script registered as {name!r}; use core.llm.scripted.script(...)") from None

    def cache_salt(self, model: str) -> str:
        """Each registration is a different 'model': caches never mix two scripts of the same name."""
        name = model.split("/", 1)[1] if "/" in model else model
        sm = self.scripts.get(name)
        return sm.salt if sm else ""

    def completion(
        self, model: str, messages: list, model_response: Any, optional_params: dict, **_: Any
    ) -> Any:
        from litellm.llms.custom_llm import CustomLLMError

        sm = self.get(model)
        try:
            reply = sm.next_reply(messages, dict(optional_params))
        except ScriptExhausted as exc:
            raise CustomLLMError(status_code=400, message=str(exc)) from exc
        if isinstance(reply, BaseException):
            raise reply
        content, calls = _normalise(reply)
        return fill_response(
            model_response,
            f"scripted/{model}",
            content=content,
            tool_calls=calls,
            prompt_tokens=_tokens(messages),
            completion_tokens=_tokens({"content": content, "calls": calls}),
        )


SCRIPTED = _ScriptedRegistry()


def handler() -> Any:
    """The litellm CustomLLM instance serving `scripted/...` models."""
    base = _handler_base()

    class ScriptedProvider(base):  # type: ignore[misc, valid-type]
        def completion(
            self, model: str, messages: list, model_response: Any, optional_params: dict, **_: Any
        ) -> Any:
            return SCRIPTED.completion(model, messages, model_response, optional_params or {})

    return ScriptedProvider()


def script(replies: Sequence[Reply] | ScriptFn, name: str | None = None) -> ScriptedModel:
    """Register a script and return it; call `complete(returned.model, ...)`."""
    return SCRIPTED.register(replies, name)
