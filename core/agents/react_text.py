"""ReAct with the documentation rendered as text in the prompt (WorkBench's style).

Each step the model writes a Thought, an Action (a tool name or "Final Answer")
and an Action Input (JSON arguments). We ask for that step as a small JSON
object through `response_format`, which providers with structured output honour
and grammar-constrained local models follow exactly; replies that are not JSON
are parsed from the classic `Thought: / Action: / Action Input:` text form. A
reply that is neither is a parse error — recorded, and the episode fails, as a
real text agent would.
"""

from __future__ import annotations

import json
import re
from typing import Any

from core.agents.base import AgentConfig, EpisodeContext, EpisodeFailure
from core.agents.tooling import Binding, bind, format_args, resolve, tools_as_text
from core.benchmarks.base import Call
from core.llm import complete

FINAL = "Final Answer"

INSTRUCTIONS = """Answer the user's request using the tools below.

{tools}

Work in steps. At each step reply with one JSON object:
{{"thought": "<your reasoning>", "action": "<one tool name or Final Answer>", "action_input": {{<arguments>}}}}
Tool names: {names}.
After each action you receive an Observation. When the request is done, use the action "Final Answer"
with {{"answer": "<what you tell the user>"}} as action_input."""


def step_schema(bindings: list[Binding]) -> dict[str, Any]:
    names = [b.text_name for b in bindings] + [FINAL]
    return {
        "type": "json_schema",
        "json_schema": {
            "name": "react_step",
            "schema": {
                "type": "object",
                "properties": {
                    "thought": {"type": "string", "maxLength": 200},
                    "action": {"type": "string", "enum": names},
                    "action_input": {"type": "object"},
                },
                "required": ["thought", "action", "action_input"],
            },
        },
    }


_TEXT_STEP = re.compile(
    r"Action\s*:\s*(?P<action>.+?)\s*\n+\s*Action\s*Input\s*:\s*(?P<input>.*)", re.S | re.I
)


def parse_step(text: str) -> tuple[str, str, dict[str, Any]]:
    """(thought, action, action_input) from a JSON step or a classic text step."""
    raw = (text or "").strip()
    start, end = raw.find("{"), raw.rfind("}")
    if start != -1 and end > start:
        try:
            obj = json.loads(raw[start : end + 1])
        except json.JSONDecodeError:
            obj = None
        if isinstance(obj, dict) and "action" in obj:
            args = obj.get("action_input")
            if isinstance(args, str):
                args = (
                    {"answer": args}
                    if str(obj["action"]).strip() == FINAL
                    else _json_object(args, str(obj["action"]).strip())
                )
            return (
                str(obj.get("thought", "")),
                str(obj["action"]).strip(),
                args if isinstance(args, dict) else {},
            )
    m = _TEXT_STEP.search(raw)
    if m:
        thought = raw[: m.start()].replace("Thought:", "").strip()
        action = m.group("action").strip()
        payload = m.group("input").strip()
        if action == FINAL:
            return thought, action, {"answer": payload}
        return thought, action, _json_object(payload, action)
    final = re.search(r"Final Answer\s*:\s*(.*)", raw, re.S)
    if final:
        return raw[: final.start()].strip(), FINAL, {"answer": final.group(1).strip()}
    raise EpisodeFailure("parse_error", f"model output is not a ReAct step: {raw[:200]!r}")


class BadActionInput(EpisodeFailure):
    """The step names an action but its input is not a JSON object (a parse error of the episode)."""

    def __init__(self, message: str, action: str = "", raw: str = "") -> None:
        super().__init__("parse_error", message)
        self.action = action
        self.raw = raw


def _json_object(text: str, action: str = "") -> dict[str, Any]:
    start, end = text.find("{"), text.rfind("}")
    if start == -1 or end <= start:
        raise BadActionInput(f"action input is not a JSON object: {text[:200]!r}", action, text[:2000])
    try:
        obj = json.loads(text[start : end + 1])
    except (json.JSONDecodeError, RecursionError) as exc:
        raise BadActionInput(f"action input is not valid JSON: {exc}", action, text[:2000]) from None
    if not isinstance(obj, dict):
        raise BadActionInput("action input is not a JSON object", action, text[:2000])
    return obj


class TextReactAgent:
    """A text ReAct loop over the gateway, docs rendered into the system prompt."""

    def __init__(self, config: AgentConfig, label: str = "agent") -> None:
        self.config = config
        self.label = label

    def run(self, ctx: EpisodeContext, user: str | None = None) -> str | None:
        bindings = bind(ctx.docs)
        system = "\n\n".join(
            p
            for p in (
                ctx.system_prompt,
                INSTRUCTIONS.format(
                    tools=tools_as_text(bindings), names=", ".join(b.text_name for b in bindings)
                ),
            )
            if p
        )
        messages: list[dict[str, Any]] = [
            {"role": "system", "content": system},
            {"role": "user", "content": user or ctx.task.query},
        ]
        fmt = step_schema(bindings)
        for _ in range(self.config.max_steps):
            ctx.check_time()
            result = complete(
                self.config.model,
                messages,
                temperature=self.config.temperature,
                max_tokens=self.config.max_tokens,
                seed=self.config.seed,
                purpose=self.label,
                run_id=ctx.run_id,
                response_format=fmt,
            )
            ctx.recorder.model_call(result, messages, agent=self.label)
            try:
                thought, action, args = parse_step(result.content or "")
            except BadActionInput as exc:  # still a parse error of the episode, now with its tool event
                tool = resolve(exc.action, bindings)
                ctx.reject(tool or exc.action, exc.raw, "bad_arguments", str(exc))
                raise
            if thought:
                ctx.recorder.add("thought", text=thought)
            messages.append({"role": "assistant", "content": result.content or ""})
            if action == FINAL:
                return str(args.get("answer", "")).strip() or None
            tool = resolve(action, bindings)
            if tool is None:
                observation = f"Error: {action!r} is not a valid tool, try one of [{', '.join(b.text_name for b in bindings)}]."
                ctx.reject(action, args, "unknown_tool", observation)
            else:
                observation = ctx.execute(Call(tool, args))
            messages.append(
                {
                    "role": "user",
                    "content": f"Observation: {observation}\nAction input was {format_args(args)}.",
                }
            )
        raise EpisodeFailure("step_limit", f"no final answer within {self.config.max_steps} steps")
