"""A tiny in-memory benchmark and deterministic agents for runner tests."""

from __future__ import annotations

import time
from collections.abc import Sequence

from core.agents.base import AgentConfig, EpisodeContext, EpisodeFailure
from core.benchmarks.base import Call, Score, Task, ToolError
from core.docs import DocSet, Param, ToolDoc


class CounterSandbox:
    def __init__(self) -> None:
        self.total = 0

    def execute(self, call: Call) -> str:
        if call.tool == "math.add":
            if "x" not in call.args:
                raise ToolError("missing argument: x")
            self.total += int(call.args["x"])
            return f"total={self.total}"
        if call.tool == "math.boom":
            raise RuntimeError("the tool crashed")
        raise ToolError(f"unknown tool {call.tool}")


class ToyBench:
    name = "toy"

    def __init__(self, n: int = 6) -> None:
        self._tasks = [
            Task(
                f"t{i}",
                "arith" if i % 2 else "other",
                f"add {i}",
                (Call("math.add", {"x": i}),),
                ("math.add",),
            )
            for i in range(n)
        ]

    def tool_names(self) -> list[str]:
        return ["math.add", "math.boom"]

    def original_docs(self) -> DocSet:
        return DocSet(
            [
                ToolDoc(
                    tool="math.add",
                    name="math.add",
                    description="Add x to the total.",
                    parameters=(Param(name="x", type="int", required=True),),
                ),
                ToolDoc(tool="math.boom", name="math.boom", description="Always fails."),
            ],
            name="original",
        )

    def tasks(self) -> list[Task]:
        return list(self._tasks)

    def domains(self) -> list[str]:
        return sorted({t.domain for t in self._tasks})

    def tools_for(self, task: Task) -> list[str]:
        return self.tool_names()

    def system_prompt(self, task: Task) -> str:
        return "You add numbers."

    def new_sandbox(self, task: Task) -> CounterSandbox:
        return CounterSandbox()

    def score(self, task: Task, calls: Sequence[Call], final_answer: str | None, sandbox) -> Score:
        ok = [c.key() for c in calls] == [c.key() for c in task.gold]
        return Score(ok, {c.tool for c in calls} == set(task.tools), {"calls": len(calls)})


class OracleAgent:
    """Calls the gold tool with the gold arguments; misbehaves on chosen tasks."""

    def __init__(self, config: AgentConfig, sleep: float = 0.0) -> None:
        self.config = config
        self.sleep = sleep

    def run(self, ctx: EpisodeContext) -> str | None:
        time.sleep(self.sleep)
        tid = ctx.task.task_id
        if tid == "t1":
            raise EpisodeFailure("parse_error", "model output was not a tool call")
        if tid == "t3":
            ctx.execute(Call("math.boom", {}))
            raise ValueError("agent bug")
        if tid == "t5":
            ctx.execute(Call("math.nope", {}))
        for call in ctx.task.gold:
            ctx.execute(call)
        return "done"
