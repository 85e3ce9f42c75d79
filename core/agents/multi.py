"""The multi-agent paradigm: a planner agent and an executor agent that cooperate.

Design. The planner sees the request and a one-line catalogue of the tools (tool
names and the first line of each functionality description) and decomposes the
request into at most `MAX_STEPS` sub-tasks. The executor is a full ReAct agent
(native tool calling, or text mode when the config says so) that sees the
complete documentation and carries out one sub-task at a time, with the
overall request, the plan and the results of earlier sub-tasks in its prompt.

Why this is a faithful second paradigm for a documentation study: the two
agents consume documentation differently. The planner chooses tools from
names and descriptions alone (so TN / FD / TD / UG matter for decomposition),
while the executor fills arguments from the parameter fields; failures can
come from either role, and the trace records which agent made each model call
(the `text` of every model_call event is "planner" or "executor"). This is the
plan-and-execute pattern of multi-agent frameworks (AutoGen's planner/assistant
pairs, LangGraph's plan-and-execute), reduced to its two essential roles.
"""

from __future__ import annotations

import json
from dataclasses import replace
from typing import Any

from core.agents.base import AgentConfig, EpisodeContext, EpisodeFailure
from core.agents.tooling import bind, short_catalogue
from core.llm import complete

MAX_STEPS = 3

PLANNER = """You are the planner in a team of two agents. Split the user's request into at most {n} short
sub-tasks for the executor, who can use these tools:
{catalogue}
Reply with JSON: {{"steps": ["<sub-task 1>", "..."]}}. Use one step when the request needs one action."""

EXECUTOR = """You are the executor in a team of two agents. The planner split the user's request into steps.
Carry out only the current step with the tools, then reply with a short result.
{system}"""

PLAN_FORMAT: dict[str, Any] = {
    "type": "json_schema",
    "json_schema": {
        "name": "plan",
        "schema": {
            "type": "object",
            "properties": {
                "steps": {
                    "type": "array",
                    "items": {"type": "string", "maxLength": 160},
                    "minItems": 1,
                    "maxItems": MAX_STEPS,
                }
            },
            "required": ["steps"],
        },
    },
}


def parse_plan(text: str) -> list[str]:
    raw = (text or "").strip()
    start, end = raw.find("{"), raw.rfind("}")
    try:
        obj = json.loads(raw[start : end + 1]) if start != -1 and end > start else None
    except json.JSONDecodeError:
        obj = None
    steps = obj.get("steps") if isinstance(obj, dict) else None
    if isinstance(steps, list):
        clean = [str(s).strip() for s in steps if str(s).strip()]
        if clean:
            return clean[:MAX_STEPS]
    lines = [ln.strip(" -*0123456789.\t") for ln in raw.splitlines()]
    clean = [ln for ln in lines if ln]
    if not clean:
        raise EpisodeFailure("parse_error", f"planner output has no steps: {raw[:200]!r}")
    return clean[:MAX_STEPS]


class PlannerExecutorAgent:
    """Planner decomposes, executor acts; both through the gateway, both in the trace."""

    def __init__(self, config: AgentConfig) -> None:
        self.config = config

    def plan(self, ctx: EpisodeContext) -> list[str]:
        bindings = bind(ctx.docs)
        messages = [
            {
                "role": "system",
                "content": PLANNER.format(n=MAX_STEPS, catalogue=short_catalogue(bindings, ctx.docs)),
            },
            {"role": "user", "content": ctx.task.query},
        ]
        result = complete(
            self.config.model,
            messages,
            temperature=self.config.temperature,
            max_tokens=self.config.max_tokens,
            seed=self.config.seed,
            purpose="planner",
            run_id=ctx.run_id,
            response_format=PLAN_FORMAT,
        )
        ctx.recorder.model_call(result, messages, agent="planner")
        steps = parse_plan(result.content or "")
        ctx.recorder.add(
            "thought",
            text="Plan:\n" + "\n".join(f"{i + 1}. {s}" for i, s in enumerate(steps)),
            payload={"agent": "planner", "steps": steps},
        )
        return steps

    def run(self, ctx: EpisodeContext) -> str | None:
        steps = self.plan(ctx)
        per_step = max(2, (self.config.max_steps - 1) // len(steps))
        exec_config = replace(self.config, max_steps=per_step)
        results: list[str] = []
        answer: str | None = None
        for i, step in enumerate(steps):
            ctx.check_time()
            done = "\n".join(f"- step {j + 1}: {r}" for j, r in enumerate(results)) or "(none yet)"
            user = (
                f"Overall request: {ctx.task.query}\nPlan: {json.dumps(steps, ensure_ascii=False)}\n"
                f"Results so far:\n{done}\nCurrent step {i + 1}: {step}"
            )
            answer = self._execute(ctx, exec_config, user)
            results.append(answer or "(no result)")
        return answer

    def _execute(self, ctx: EpisodeContext, config: AgentConfig, user: str) -> str | None:
        # `replace` keeps the same recorder, calls list and start time: one trace, one deadline.
        sub = replace(ctx, config=config, system_prompt=EXECUTOR.format(system=ctx.system_prompt))
        if config.doc_mode == "text":
            from core.agents.react_text import TextReactAgent

            return TextReactAgent(config, label="executor").run(sub, user=user)
        from core.agents.react_native import run_langchain_agent

        return run_langchain_agent(sub, sub.system_prompt, user, label="executor")
