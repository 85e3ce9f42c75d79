"""Agent paradigms driven through the LLM gateway: ReAct (native or text docs) and planner–executor."""

from core.agents.base import AgentConfig, EpisodeContext, EpisodeFailure


def make_agent(config: AgentConfig):
    """The agent for a config: react+native, react+text, or multi (planner–executor)."""
    if config.paradigm == "multi":
        from core.agents.multi import PlannerExecutorAgent

        return PlannerExecutorAgent(config)
    if config.doc_mode == "text":
        from core.agents.react_text import TextReactAgent

        return TextReactAgent(config)
    from core.agents.react_native import NativeReactAgent

    return NativeReactAgent(config)


__all__ = ["AgentConfig", "EpisodeContext", "EpisodeFailure", "make_agent"]
