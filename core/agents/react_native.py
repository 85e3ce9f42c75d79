"""ReAct with native tool calling, on LangChain's agent API.

The agent is `langchain.agents.create_agent` over `ChatLiteLLM`; the chat model
is subclassed only to send its completions through the project's LLM gateway
(cache, retries, accounting) and to record each model call in the episode
trace. Documentation reaches the model as OpenAI tool schemas rendered from the
ToolDocs. Tools are LangChain `StructuredTool`s whose body is the episode
context's `execute`, so tool errors come back to the model as observations.
"""

from __future__ import annotations

from typing import Any

from langchain_core.tools import StructuredTool
from langchain_litellm import ChatLiteLLM
from pydantic import PrivateAttr

from core.agents.base import AgentConfig, EpisodeContext, EpisodeFailure, TraceRecorder
from core.agents.tooling import Binding, bind
from core.benchmarks.base import Call
from core.llm import complete

_PASS_THROUGH = (
    "tools",
    "tool_choice",
    "temperature",
    "max_tokens",
    "stop",
    "response_format",
    "top_p",
    "api_base",
)


class GatewayChatModel(ChatLiteLLM):
    """ChatLiteLLM whose completions go through `core.llm.complete` and into the trace."""

    _recorder: TraceRecorder | None = PrivateAttr(default=None)
    _run_id: str = PrivateAttr(default="")
    _seed: int | None = PrivateAttr(default=None)
    _label: str = PrivateAttr(default="agent")

    def attach(
        self, recorder: TraceRecorder | None, run_id: str, seed: int | None, label: str = "agent"
    ) -> GatewayChatModel:
        self._recorder, self._run_id, self._seed, self._label = recorder, run_id, seed, label
        return self

    def completion_with_retry(self, run_manager: Any = None, **kwargs: Any) -> Any:
        messages = kwargs.pop("messages")
        model = kwargs.pop("model", None) or self.model
        params = {k: kwargs[k] for k in _PASS_THROUGH if kwargs.get(k) is not None}
        result = complete(
            model, messages, seed=self._seed, purpose=self._label, run_id=self._run_id, **params
        )
        if self._recorder is not None:
            self._recorder.model_call(result, messages, agent=self._label)
        return result.raw


def chat_model(config: AgentConfig, ctx: EpisodeContext | None, label: str = "agent") -> GatewayChatModel:
    model = GatewayChatModel(model=config.model, temperature=config.temperature, max_tokens=config.max_tokens)
    recorder = ctx.recorder if ctx is not None else None
    return model.attach(recorder, ctx.run_id if ctx else "", config.seed, label)


def langchain_tools(ctx: EpisodeContext, bindings: list[Binding]) -> list[StructuredTool]:
    """One StructuredTool per binding, executing through the episode context."""
    tools = []
    for b in bindings:
        fn = b.schema["function"]

        def run_tool(_tool: str = b.tool, **kwargs: Any) -> str:
            return ctx.execute(Call(_tool, kwargs))

        tools.append(
            StructuredTool.from_function(
                func=run_tool,
                name=fn["name"],
                description=fn.get("description") or "",
                args_schema=fn.get("parameters") or {"type": "object", "properties": {}},
                handle_tool_error=True,
                handle_validation_error=True,
            )
        )
    return tools


def run_langchain_agent(
    ctx: EpisodeContext, system_prompt: str, user: str, label: str = "agent"
) -> str | None:
    """Run a create_agent loop for `user` and return the last AI text."""
    from langchain.agents import create_agent
    from langgraph.errors import GraphRecursionError

    bindings = bind(ctx.docs)
    agent = create_agent(
        model=chat_model(ctx.config, ctx, label),
        tools=langchain_tools(ctx, bindings),
        system_prompt=system_prompt,
    )
    try:
        state = agent.invoke(
            {"messages": [{"role": "user", "content": user}]},
            config={"recursion_limit": 2 * ctx.config.max_steps + 1},
        )
    except GraphRecursionError as exc:
        raise EpisodeFailure("step_limit", f"no final answer within {ctx.config.max_steps} steps") from exc
    ctx.check_time()
    for msg in reversed(state["messages"]):
        if getattr(msg, "type", "") == "ai" and not getattr(msg, "tool_calls", None):
            content = msg.content if isinstance(msg.content, str) else str(msg.content)
            return content.strip() or None
    return None


class NativeReactAgent:
    """ReAct over native tool calling (docs as tool schemas)."""

    def __init__(self, config: AgentConfig) -> None:
        self.config = config

    def run(self, ctx: EpisodeContext) -> str | None:
        return run_langchain_agent(ctx, ctx.system_prompt, ctx.task.query)
