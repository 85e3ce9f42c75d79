"""Does a target agent call a look-up-then-write SOP when it is offered one? A diagnostic, not Table 1.

Builds, with the offline composer and its doc links, the SOP that does a
WorkBench domain's write after the lookup its docs name (e.g.
`search_events_then_update_event`), from the domain's optimization-split tasks
whose gold is that single write. Then runs the first N such tasks of the same
split with the SOP offered beside the atomic tools and/or instead of the write
(`--offer`), and prints per offer: TS, episodes that called the SOP, and the
agent's own calls in the others. Episodes are stored in `--warehouse` and
reused on a re-run.

    python bench/sop_uptake.py [--model local/qwen2.5-coder-0.5b] [--write calendar.update_event]
                               [--tasks 10] [--offer beside,instead] [--warehouse data/sop-uptake.duckdb]

Why: on WorkBench the 0.5B agent invoked none of the SOPs EvoSOP offered it;
this separates "the agent does not pick the routine" from "the routine does
not help", on the same tasks, for any model.
"""

from __future__ import annotations

import argparse
import sys
from collections import Counter
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from core.agents.base import AgentConfig  # noqa: E402
from core.benchmarks.meta import read_only_tools  # noqa: E402
from core.benchmarks.registry import benchmark_key, get_benchmark  # noqa: E402
from core.benchmarks.splits import get_or_create_split  # noqa: E402
from core.evaluation import RunnerEvaluator  # noqa: E402
from core.sop.bench import SopBenchmark, tracing_factory  # noqa: E402
from core.sop.engines import ComposerConstructor  # noqa: E402
from core.sop.mining import Experience  # noqa: E402
from core.sop.model import Toolset, is_sop_tool  # noqa: E402
from core.warehouse import Warehouse  # noqa: E402


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--model", default="local/qwen2.5-coder-0.5b")
    ap.add_argument("--write", default="calendar.update_event", help="the atomic write the SOP wraps")
    ap.add_argument("--tasks", type=int, default=10)
    ap.add_argument("--offer", default="beside,instead")
    ap.add_argument("--temperature", type=float, default=0.7)
    ap.add_argument("--warehouse", default="data/sop-uptake.duckdb")
    ap.add_argument("--data-dir", default=None)
    a = ap.parse_args()

    bench = get_benchmark("workbench", a.data_dir)
    wh = Warehouse(a.warehouse)
    # the task-level split its stored measurement was made on
    split = get_or_create_split(wh, benchmark_key(bench), bench.tasks(), seed=0, grouping="task")
    single = [t for t in split.tasks(bench.tasks(), "opt") if len(t.gold) == 1 and t.gold[0].tool == a.write]
    if not single:
        sys.exit(f"no optimization-split task whose gold is a single {a.write} call")
    read_only = read_only_tools(bench)
    experiences = [Experience(t.task_id, None, t.gold, t.query) for t in single]
    sops, rejected = ComposerConstructor(doc_links=True, read_only=read_only).construct(
        experiences, bench.original_docs(), Toolset(), run_id="sop-uptake", epoch=0
    )
    sops = [s for s in sops if a.write in s.uses]
    if not sops:
        sys.exit(f"the composer linked no lookup to {a.write} (rejected: {rejected})")
    toolset = Toolset(sops)
    print(
        f"SOPs: {', '.join(s.name for s in sops)}; {len(single)} tasks, running {min(a.tasks, len(single))}"
    )
    tasks = single[: a.tasks]
    agent = AgentConfig(paradigm="react", model=a.model, max_steps=4, temperature=a.temperature, seed=0)
    for offer in [o.strip() for o in a.offer.split(",") if o.strip()]:
        withhold = toolset.wrapped_writes(read_only) if offer == "instead" else frozenset()
        sop_bench = SopBenchmark(bench, toolset, withhold=withhold)
        evaluator = RunnerEvaluator(wh, sop_bench, agent, concurrency=1, agent_factory=tracing_factory(None))
        batch = evaluator.evaluate(
            toolset.docset(bench.original_docs()), tasks, "opt", kind="sop-uptake", label={"offer": offer}
        )
        # an episode without an SOP call holds only the agent's own calls (inner calls follow an SOP call)
        own = [[s.tool for s in t.steps if s.tool] for t in batch.traces]
        called = sum(any(is_sop_tool(x) for x in c) for c in own)
        instead = Counter(x for c in own if not any(is_sop_tool(y) for y in c) for x in c)
        print(
            f"{a.model} · offer {offer}: TS {batch.ts:.2f}, {called}/{len(own)} episodes called the SOP; "
            f"the agent's calls in the others: {dict(instead.most_common(4))}"
        )


if __name__ == "__main__":
    main()
