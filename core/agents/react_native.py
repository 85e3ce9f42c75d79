"""ReAct with native tool calling, on LangChain's agent API.

The agent is `langchain.agents.create_agent` over `ChatLiteLLM` — the gateway's
`GatewayChatModel`, which sends completions through the project's LLM gateway
(cache, retries, accounting) and here records each model call in the episode
trace. Documentation reaches the model as OpenAI tool schemas rendered from the
ToolDocs. Tools are LangChain `StructuredTool`s whose body is the episode
context's `execute`, so tool errors come back to the model as observations.
"""

from __future__ import annotations

from typing import Any

from langchain_core.tools import StructuredTool

from core.agents.base import AgentConfig, EpisodeContext, EpisodeFailure
from core.agents.tooling import Binding, bind
from core.benchmarks.base import Call
from core.llm.langchain import GatewayChatModel


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
            # Each step is a model turn and its tool turn, so the model is asked at most
            # max_steps times, as in text ReAct. No benchmark scores the wrap-up answer
            # after the last allowed call, and on 2 cores that extra turn was ~40 % of an
            # API-Bank episode's time.
            config={"recursion_limit": 2 * ctx.config.max_steps},
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
