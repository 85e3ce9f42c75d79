"""End to end: DocsChisel with the offline local model, then original vs optimized on the test split.

    nohup python bench/optimize_e2e.py > data/logs/chisel_e2e.log 2>&1 &
    python bench/optimize_e2e.py --report-only      # print the Table III summary from the warehouse

For each optimization seed and each setting (API-Bank level-1 over its four
domains; one WorkBench domain), the optimizer runs on the stored split's
optimization/validation tasks (capped per tool, seeded), then the original
and the optimized doc sets are run on the same seeded sample of test tasks of
the optimized tools. Everything is resumable: re-running the command after a
crash continues where it stopped. At the end the Table III summary is printed;
its section of docs/RESULTS.md comes from `core.chisel.report` when
`docschisel results` regenerates the document.

Sizing: on a 2-core machine the local model needs one to several minutes
per episode with API-Bank's long dialogues, so the defaults are a sample
(1 tool per domain, 4 opt + 2 val tasks per tool, 2 iterations, 6 test tasks
per tool); raise them with the flags when you have the hours.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

SETTINGS = {
    "api-bank": {"benchmark": "api-bank", "domains": ("finance", "health", "information", "smart_home")},
    "workbench": {"benchmark": "workbench", "domains": ("analytics",)},
}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument(
        "--warehouse", default=None, help="default: $DOCSCHISEL_WAREHOUSE or data/warehouse.duckdb"
    )
    ap.add_argument("--settings", default="api-bank,workbench")
    ap.add_argument("--seeds", default="0", help="optimization seeds, e.g. 0,1,2")
    ap.add_argument("--limit-tools", type=int, default=1)
    ap.add_argument("--iterations", type=int, default=2)
    ap.add_argument("--max-opt", type=int, default=4)
    ap.add_argument("--max-val", type=int, default=2)
    ap.add_argument("--test-per-tool", type=int, default=6)
    ap.add_argument(
        "--test-seed", type=int, default=0, help="seed of the test sample (the same for every run)"
    )
    ap.add_argument("--repeats", type=int, default=1, help="test repeats (greedy decoding repeats itself)")
    ap.add_argument("--max-steps", type=int, default=1)
    ap.add_argument("--time-limit", type=float, default=1800.0)
    ap.add_argument("--doc-mode", default="native")
    ap.add_argument("--no-memory", action="store_true")
    ap.add_argument("--report-only", action="store_true")
    ap.add_argument(
        "--results",
        default=None,
        help="also write a results document from this warehouse alone (docs/RESULTS.md is regenerated "
        "over all experiment warehouses by `docschisel results --also ...`)",
    )
    args = ap.parse_args()

    from core.agents import AgentConfig
    from core.benchmarks.registry import get_benchmark
    from core.chisel import OptimizeConfig
    from core.chisel.heldout import evaluate_on_test
    from core.chisel.loop import Optimizer
    from core.chisel.report import summarise, table_iii
    from core.cli.common import open_warehouse
    from core.reports.results import table, write_results

    wh = open_warehouse(args.warehouse)
    summary: list[dict] = []
    if not args.report_only:
        agent = AgentConfig(max_steps=args.max_steps, time_limit_s=args.time_limit, doc_mode=args.doc_mode)
        for seed in [int(s) for s in args.seeds.split(",") if s.strip()]:
            for name in [s.strip() for s in args.settings.split(",") if s.strip()]:
                spec = SETTINGS[name]
                bench = get_benchmark(spec["benchmark"])
                cfg = OptimizeConfig(
                    benchmark=spec["benchmark"],
                    domains=spec["domains"],
                    limit_tools=args.limit_tools,
                    agent=agent,
                    iterations=args.iterations,
                    memory=not args.no_memory,
                    seed=seed,
                    max_opt_tasks=args.max_opt,
                    max_val_tasks=args.max_val,
                    name=f"e2e {name} seed {seed}",
                )
                t0 = time.monotonic()
                stamp = lambda s: print(f"{time.strftime('%H:%M:%S')} {s}", flush=True)  # noqa: E731
                result = Optimizer(wh, cfg, benchmark=bench, concurrency=1, log=stamp).run()
                stamp(
                    f"optimized {name} seed {seed} in {(time.monotonic() - t0) / 60:.1f} min: run {result.run_id}"
                )
                test = evaluate_on_test(
                    wh,
                    result.run_id,
                    bench,
                    per_tool=args.test_per_tool,
                    repeats=args.repeats,
                    seed=args.test_seed,
                )
                stamp(f"test {name} seed {seed}: {json.dumps(test)}")
                summary.append({"setting": name, "seed": seed, "run_id": result.run_id, **test})
    if args.results:
        print(f"wrote {write_results(wh, args.results)}")
    df = table_iii(wh)
    print(table(summarise(df)) if not df.empty else "no finished optimize run with test results yet")
    print(
        "regenerate docs/RESULTS.md with: docschisel results --also data/study.duckdb --also data/retrieval.duckdb"
    )
    if summary:
        print(json.dumps(summary, indent=1, default=str))


if __name__ == "__main__":
    main()
