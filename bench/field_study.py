"""The field-impact study as run for the results: local model, three domains, both paradigms.

Usage (resumable; re-running skips every finished episode):

    DOCSCHISEL_LOCAL_THREADS=1 nohup python bench/field_study.py --agent react > data/study-react.log 2>&1 &
    DOCSCHISEL_LOCAL_THREADS=1 nohup python bench/field_study.py --agent multi > data/study-multi.log 2>&1 &
    docschisel study show --warehouse data/study.duckdb --format markdown

Sizing: a local-model call takes a few seconds on the 2 shared cores (see the
backbone table in docs/RESULTS.md), so each cell measures a seeded
sample of `--limit` test tasks with `--repeats` sampled repeats (T = 0.7, seed
0 + r) and at most `--max-steps` agent steps; the supplemented fields come from
the opt part of the same split. Cells run in the order given, each complete
before the next, so an interrupted run leaves whole tables.
"""

from __future__ import annotations

import argparse
import sys
import time

CELLS = (("api-bank", "finance"), ("workbench", "calendar"), ("workbench", "email"))


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--agent", default="react", choices=["react", "multi"])
    ap.add_argument("--model", default=None, help="backbone (default: the project's default target model)")
    ap.add_argument("--cells", default=",".join(f"{b}:{d}" for b, d in CELLS), help="benchmark:domain,...")
    ap.add_argument("--limit", type=int, default=4)
    ap.add_argument("--repeats", type=int, default=2)
    ap.add_argument("--max-steps", type=int, default=4)
    ap.add_argument("--temperature", type=float, default=0.7)
    ap.add_argument("--warehouse", default="data/study.duckdb")
    args = ap.parse_args(argv)

    from core.benchmarks.registry import get_benchmark
    from core.study import moves, report
    from core.study.fields import StudySpec, run_study
    from core.study.report import latest_impacts
    from core.study.stats import minimum_detectable_effect
    from core.tables import markdown_table
    from core.warehouse import Warehouse

    wh = Warehouse(args.warehouse)
    for cell in args.cells.split(","):
        bench_name, domain = cell.split(":")
        from core.llm import default_model

        spec = StudySpec(
            benchmark=bench_name,
            domain=domain,
            model=args.model or default_model(),
            paradigm=args.agent,
            repeats=args.repeats,
            limit=args.limit,
            temperature=args.temperature,
            max_steps=args.max_steps,
        )
        t0 = time.time()

        def say(msg: str, t0: float = t0) -> None:
            print(f"[{time.time() - t0:7.0f}s] {msg}", flush=True)

        worst = 100 * minimum_detectable_effect(n=args.limit, sd=1.0)
        say(
            f"{args.limit} paired tasks: effects below ±{worst:.0f} pp may go undetected if every pair differs"
        )
        rows = run_study(wh, spec, bench=get_benchmark(bench_name), progress=say)
        print(f"\n{report.title(rows)}  (study {spec.study_id})", flush=True)
        print(report.markdown(rows), flush=True)
        current = latest_impacts(wh, spec.study_id)
        if not current.empty:
            print("\n" + moves.markdown(moves.explain(wh, current), markdown_table), flush=True)
        print(f"cell done in {time.time() - t0:.0f}s\n", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
