"""ReAct with native tool calling, on LangChain's agent API.

The agent is `langchain.agents.create_agent` over `ChatLiteLLM` — the gateway's
`GatewayChatModel`, which sends completions through the project's LLM gateway
(cache, retries, accounting) and here records each model call in the episode
trace. Documentation reaches the model as OpenAI tool schemas rendered from the
ToolDocs. Tools are LangChain `StructuredTool`s whose body is the episode
context's `execute`, so tool errors come back to the model as observations.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from contextvars import ContextVar
from typing import Any

from langchain_core.tools import StructuredTool

from core.agents.base import AgentConfig, EpisodeContext, EpisodeFailure
from core.agents.tooling import Binding, bind
from core.benchmarks.base import Call
from core.llm.langchain import GatewayChatModel
from core.warehouse.records import content_hash

# The episode whose tools and trace the shared compiled agents act on (set per invoke, per thread).
_EPISODE: ContextVar[EpisodeContext] = ContextVar("docschisel_episode")
_AGENTS: OrderedDict[str, Any] = OrderedDict()
_AGENTS_LOCK = threading.Lock()
_AGENTS_MAX = 32


def chat_model(config: AgentConfig, ctx: EpisodeContext | None, label: str = "agent") -> GatewayChatModel:
    """The gateway-routed chat model; with a context, every completion lands in its trace."""
    model = GatewayChatModel(
        model=config.model,
        temperature=config.temperature,
        max_tokens=config.max_tokens,
        seed=config.seed,
        purpose=label,
        run_id=ctx.run_id if ctx else None,
    )
    if ctx is not None:
        recorder = ctx.recorder
        model.observe(lambda result, messages: recorder.model_call(result, messages, agent=label))
    return model


def langchain_tools(ctx: EpisodeContext | None, bindings: list[Binding]) -> list[StructuredTool]:
    """One StructuredTool per binding, executing through the episode context.

    Without a fixed context the tools act on the episode of the current
    invocation (`_EPISODE`), so one compiled agent serves every episode.
    """
    tools = []
    for b in bindings:
        fn = b.schema["function"]

        def run_tool(_tool: str = b.tool, **kwargs: Any) -> str:
            target = ctx if ctx is not None else _EPISODE.get()
            return target.execute(Call(_tool, kwargs))

        # LangChain reads the function's type hints on every call, looking for a RunnableConfig
        # parameter; postponed annotations (strings) were compiled again each time, about a
        # tenth of a tool call's CPU. The arguments' schema is `args_schema`, not these hints.
        run_tool.__annotations__ = {}
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


def _compiled_agent(ctx: EpisodeContext, system_prompt: str, label: str, bindings: list[Binding]) -> Any:
    """The LangGraph agent for these docs, model settings and prompt, compiled once and reused.

    Building and compiling a graph cost about 12 ms per episode (a third of
    the framework's time per step on the planner-executor paradigm); the graph
    itself holds no episode state: tools and the trace observer look up the
    current episode.
    """
    from langchain.agents import create_agent

    key = content_hash(
        "native-agent", ctx.config.to_json(), ctx.run_id, label, system_prompt, [b.schema for b in bindings]
    )
    with _AGENTS_LOCK:
        agent = _AGENTS.get(key)
        if agent is not None:
            _AGENTS.move_to_end(key)
            return agent
    model = chat_model(ctx.config, None, label)
    model.run_id = ctx.run_id

    def observe(result: Any, messages: list[dict[str, Any]]) -> None:
        episode = _EPISODE.get()
        episode.recorder.model_call(result, messages, agent=label)
        record_unexecuted_calls(episode, result, bindings)

    model.observe(observe)
    model.limit_tool_calls(lambda: _EPISODE.get().max_calls_per_reply)
    agent = create_agent(model=model, tools=langchain_tools(None, bindings), system_prompt=system_prompt)
    with _AGENTS_LOCK:
        _AGENTS[key] = agent
        while len(_AGENTS) > _AGENTS_MAX:
            _AGENTS.popitem(last=False)
    return agent


def record_unexecuted_calls(ctx: EpisodeContext, result: Any, bindings: list[Binding]) -> None:
    """Trace the tool calls of a reply that the framework will not execute, with their error class.

    LangChain answers a call to a tool it does not know, or with arguments
    that are not a JSON object, straight to the model without running any
    tool, and the calls past the per-reply cap are cut before it sees them;
    without these events the trace would show nothing of them.
    """
    by_name = {b.exposed: b for b in bindings}
    for i, call in enumerate(getattr(result, "tool_calls", None) or []):
        name = getattr(call, "name", "") or ""
        binding = by_name.get(name)
        tool = binding.tool if binding else name
        args = getattr(call, "arguments", None) or {}
        raw = getattr(call, "raw", "")
        if i >= ctx.max_calls_per_reply:
            ctx.reject(
                tool,
                args or raw,
                "too_many_calls",
                f"Error: not executed; at most {ctx.max_calls_per_reply} tool calls are run per reply",
            )
        elif binding is None:
            known = ", ".join(sorted(by_name))
            ctx.reject(
                name, args or raw, "unknown_tool", f"Error: unknown tool {name!r}. Available tools: {known}"
            )
        elif getattr(call, "parse_error", None):
            ctx.reject(
                tool,
                raw,
                "bad_arguments",
                f"Error: the arguments of {name} are not a JSON object ({call.parse_error}); nothing was run",
            )


def run_langchain_agent(
    ctx: EpisodeContext, system_prompt: str, user: str, label: str = "agent"
) -> str | None:
    """Run a create_agent loop for `user` and return the last AI text."""
    from langgraph.errors import GraphRecursionError

    agent = _compiled_agent(ctx, system_prompt, label, bind(ctx.docs))
    token = _EPISODE.set(ctx)
    try:
        state = agent.invoke(
            {"messages": [{"role": "user", "content": user}]},
            # Each step is a model turn and its tool turn, so the model is asked at most
            # max_steps times, as in text ReAct. No benchmark scores the wrap-up answer
            # after the last allowed call, and on 2 cores that extra turn was ~40 % of an
            # API-Bank episode's time.
            config={"recursion_limit": 2 * ctx.config.max_steps},
        )
    except GraphRecursionError as exc:
        raise EpisodeFailure("step_limit", f"no final answer within {ctx.config.max_steps} steps") from exc
    finally:
        _EPISODE.reset(token)
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
