"""Original-documentation baseline with the offline local model, both paradigms.

For every API-Bank level-1 domain and every WorkBench domain, runs a seeded
sample of test-split tasks with `docschisel eval` (resumable: re-run the script
to finish an interrupted sweep), then regenerates docs/RESULTS.md.

    python bench/baseline_local.py [--limit 8] [--warehouse data/warehouse.duckdb]
"""

from __future__ import annotations

import argparse
import subprocess
import sys
import time

PLAN = [
    ("api-bank", ["finance", "health", "information", "smart_home"]),
    ("workbench", ["analytics", "calendar", "customer_relationship_manager", "email", "project_management"]),
]


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--limit", type=int, default=8)
    ap.add_argument("--warehouse", default=None)
    ap.add_argument("--paradigms", default="react,multi")
    ap.add_argument("--max-steps", type=int, default=4)
    args = ap.parse_args()
    wh = ["--warehouse", args.warehouse] if args.warehouse else []
    for bench, domains in PLAN:
        for domain in domains:
            for paradigm in args.paradigms.split(","):
                cmd = [
                    sys.executable,
                    "-m",
                    "core.cli.main",
                    "eval",
                    "--benchmark",
                    bench,
                    "--domain",
                    domain,
                    "--agent",
                    paradigm,
                    "--split",
                    "test",
                    "--limit",
                    str(args.limit),
                    "--concurrency",
                    "1",
                    "--max-steps",
                    str(args.max_steps),
                    *wh,
                ]
                t0 = time.time()
                out = subprocess.run(cmd, capture_output=True, text=True)
                last = [ln for ln in out.stdout.splitlines() if ln.startswith("run ")]
                print(
                    f"{bench:<10} {domain:<30} {paradigm:<6} {time.time() - t0:7.1f}s  "
                    f"{last[0] if last else out.stderr.strip().splitlines()[-1:]}",
                    flush=True,
                )
    subprocess.run([sys.executable, "-m", "core.cli.main", "results", *wh], check=True)


if __name__ == "__main__":
    main()
