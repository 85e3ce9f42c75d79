"""Framework overhead per agent step with a zero-latency scripted model.

Runs episodes of a tiny in-memory benchmark where the scripted model calls a
tool N times and then answers, through the real gateway, agent, runner and
warehouse path. Prints milliseconds per step for each paradigm (target: < 10 ms).

    python bench/agent_overhead.py [--episodes 20] [--steps 5]
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from core.agents import AgentConfig  # noqa: E402
from core.llm import Gateway, script, tool_call, use  # noqa: E402
from core.llm.cache import MemoryCache  # noqa: E402
from core.runner import RunPlan, run  # noqa: E402
from core.warehouse import Warehouse  # noqa: E402
from tests.toybench import ToyBench  # noqa: E402


def measure(paradigm: str, doc_mode: str, episodes: int, steps: int) -> tuple[float, float]:
    """(wall ms, CPU ms) per model call; CPU time does not count time lost to other processes."""

    def reply(messages):
        n_tool = sum(
            1
            for m in messages
            if m.get("role") == "tool" or str(m.get("content", "")).startswith("Observation")
        )
        if (
            paradigm == "multi"
            and not any(m.get("role") == "assistant" for m in messages)
            and "planner" in str(messages[0])
        ):
            return '{"steps": ["add"]}'
        if n_tool >= steps:
            return (
                "done"
                if doc_mode == "native"
                else '{"thought": "t", "action": "Final Answer", "action_input": {"answer": "done"}}'
            )
        if doc_mode == "native":
            return tool_call("math__add", x=0)
        return '{"thought": "t", "action": "math.add", "action_input": {"x": 0}}'

    model = script(reply, name=f"overhead-{paradigm}-{doc_mode}")
    bench = ToyBench(n=episodes)
    config = AgentConfig(paradigm=paradigm, doc_mode=doc_mode, model=model.model, max_steps=steps + 2)
    with tempfile.TemporaryDirectory() as tmp:
        wh = Warehouse(Path(tmp) / "o.duckdb")
        use(Gateway(cache=MemoryCache()))
        # warm-up (imports, first LangGraph compile)
        run(
            wh,
            RunPlan(
                ToyBench(n=1),
                bench.original_docs(),
                config,
                ToyBench(n=1).tasks()[:1],
                repeats=1,
                name="warm",
            ),
        )
        t0, c0 = time.perf_counter(), time.process_time()
        res = run(wh, RunPlan(bench, bench.original_docs(), config, bench.tasks(), repeats=1), concurrency=1)
        wall, cpu = time.perf_counter() - t0, time.process_time() - c0
        n_steps = int(
            wh.scalar(
                "SELECT count(*) FROM events e JOIN run_episodes r USING (episode_id) "
                "WHERE r.run_id = ? AND kind = 'model_call'",
                [res.run_id],
            )
        )
    return 1000 * wall / max(1, n_steps), 1000 * cpu / max(1, n_steps)


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--episodes", type=int, default=20)
    ap.add_argument("--steps", type=int, default=5)
    args = ap.parse_args()
    print(f"load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores")
    for paradigm, mode in (("react", "native"), ("react", "text"), ("multi", "native")):
        wall, cpu = measure(paradigm, mode, args.episodes, args.steps)
        print(
            f"{paradigm}/{mode:<6}  {wall:6.2f} ms wall, {cpu:6.2f} ms CPU per agent step "
            "(incl. episode write), target < 10 ms"
        )


if __name__ == "__main__":
    main()
